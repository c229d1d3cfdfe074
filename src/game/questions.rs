//! Questions about the game that are not a piece's view of the board (that is
//! [`super::view`]): which pieces are where, marked squares, board sections, options.
//! Kernel methods on [`Game`]; no Rhai.

use super::Game;
use crate::board::Square;
use serde_json::Value as Json;

impl Game {
    /// Pieces on the board, of `side` (`""`: every side), in placement order.
    pub fn pieces_on_board<'a>(&'a self, side: &'a str) -> impl Iterator<Item = usize> + 'a {
        (0..self.state.pieces.len()).filter(move |&i| {
            let p = &self.state.pieces[i];
            p.on_board() && (side.is_empty() || p.side == side)
        })
    }

    /// Pieces of `side` (`""`: every side) whose status is `status`, in placement order.
    pub fn pieces_with<'a>(&'a self, side: &'a str, status: &'a str) -> impl Iterator<Item = usize> + 'a {
        (0..self.state.pieces.len()).filter(move |&i| {
            let p = &self.state.pieces[i];
            p.status == status && (side.is_empty() || p.side == side)
        })
    }

    /// The value of the game's option `name`.
    pub fn option(&self, name: &str) -> Result<&Json, String> {
        self.options.get(name).ok_or_else(|| {
            format!(
                "no option `{name}`{}",
                crate::diagnostic::did_you_mean(name, self.options.keys().map(String::as_str))
                    .map(|h| format!("; {h}"))
                    .unwrap_or_default()
            )
        })
    }

    fn check_mark(&self, mark: &str) -> Result<(), String> {
        if self.view.grid.mark_names.iter().any(|m| m == mark) {
            return Ok(());
        }
        let hint = crate::diagnostic::did_you_mean(mark, self.view.grid.mark_names.iter().map(String::as_str))
            .map(|h| format!("; {h}"))
            .unwrap_or_default();
        Err(format!("no square is marked `{mark}` on this mission{hint}"))
    }

    /// The squares the mission marks `mark`, in reading order.
    pub fn marked(&self, mark: &str) -> Result<Vec<Square>, String> {
        self.check_mark(mark)?;
        Ok(self.view.grid.marked(mark))
    }

    /// The squares marked `mark` that are free and that no piece of `side` sees.
    pub fn free_squares(&self, mark: &str, side: &str) -> Result<Vec<Square>, String> {
        self.check_mark(mark)?;
        Ok(self
            .view
            .grid
            .marked(mark)
            .into_iter()
            .filter(|&s| self.view.square_free(s) && self.view.unseen(&self.state.pieces, s, side))
            .collect())
    }

    fn check_section(&self, section: &str) -> Result<(), String> {
        if self.view.grid.sections.iter().any(|s| s == section) {
            Ok(())
        } else {
            Err(format!("no board section `{section}` in this mission"))
        }
    }

    /// The square at `column`, `row` (from 1) of board section `section`, counted from its
    /// top-left corner (the least column and row of its squares); `None` off the section.
    pub fn section_square(&self, section: &str, column: i64, row: i64) -> Result<Option<Square>, String> {
        self.check_section(section)?;
        let grid = &self.view.grid;
        let (left, top) = grid.section_corner(section).unwrap_or((i32::MAX, i32::MAX));
        let (Ok(dx), Ok(dy)) = (i32::try_from(column - 1), i32::try_from(row - 1)) else {
            return Ok(None);
        };
        let s = Square {
            x: left.saturating_add(dx),
            y: top.saturating_add(dy),
        };
        Ok(
            (column >= 1 && row >= 1 && grid.contains(s) && !grid.is_solid(s) && grid.section_of(s) == Some(section))
                .then_some(s),
        )
    }

    /// Every square of board section `section`, in reading order.
    pub fn section_squares(&self, section: &str) -> Result<Vec<Square>, String> {
        self.check_section(section)?;
        let grid = &self.view.grid;
        Ok((0..grid.len())
            .map(|i| grid.square(i))
            .filter(|&s| !grid.is_solid(s) && grid.section_of(s) == Some(section))
            .collect())
    }
}

/// Whether square `at` is within `n` squares of one of `list`, counted as a king moves
/// (diagonals count one) and through walls.
pub fn near(at: Square, list: &[Square], n: i64) -> bool {
    list.iter()
        .any(|s| i64::from((s.x - at.x).abs().max((s.y - at.y).abs())) <= n)
}
