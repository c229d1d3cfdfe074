//! Corrections at the table (`fix` in `servitor play`): the table is the truth, and when a
//! model was knocked over, a measurement reads otherwise or a rule was resolved by hand, the
//! player sets what the table shows — where a piece stands, its facing, its life, whether it
//! is on the board, a door. Each is an action like any other, logged as the player's
//! correction with the reason given, so `undo`, `redo`, a resume and `why` see it, and every
//! decision after it is made on the corrected game.

use super::Game;
use super::state::{Action, Piece};
use crate::board::Square;
use crate::board::facing::FACING_NAMES;
use crate::board::field::Point;

/// How `fix` is typed, for a refusal.
pub const FIX_HELP: &str = "fix PIECE at X,Y · fix PIECE facing up|right|down|left · fix PIECE life N · \
fix PIECE remove · fix PIECE restore X,Y · fix door X,Y X,Y open|shut — each may end with `because …`";

impl Game {
    /// Carries out the player's correction `words` (what follows `fix`).
    pub fn correct(&mut self, words: &[String]) -> Result<(), String> {
        // `because …` at the end is the reason, kept in the log.
        let (words, reason) = match words.iter().position(|w| w == "because") {
            Some(k) => (&words[..k], Some(words[k + 1..].join(" ")).filter(|r| !r.is_empty())),
            None => (words, None),
        };
        let because = reason.map(|r| format!(" (because {r})")).unwrap_or_default();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        match words.as_slice() {
            ["door", a, b, open @ ("open" | "shut")] => self.fix_door(a, b, *open == "open", &because),
            [id, "at", at] => self.fix_at(id, at, &because, false),
            [id, "restore", at] => self.fix_at(id, at, &because, true),
            [id, "facing", facing] => self.fix_facing(id, facing, &because),
            [id, "life", n] => self.fix_life(id, n, &because),
            [id, "remove"] => {
                let piece = self.piece_to_fix(id)?;
                if !piece.on_board() {
                    return Err(format!("{} is not on the board", piece.id));
                }
                let id = piece.id.clone();
                self.log_correction(
                    format!("{id} taken off the board{because}"),
                    &id,
                    Action::Remove { id: id.clone() },
                );
                Ok(())
            }
            _ => Err(format!("not a correction: {FIX_HELP}")),
        }
    }

    fn piece_to_fix(&self, id: &str) -> Result<&Piece, String> {
        self.state.piece(id).ok_or_else(|| {
            let ids = self.state.pieces.iter().map(|p| p.id.as_str());
            let hint = crate::diagnostic::did_you_mean(id, ids)
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            format!("no piece `{id}`{hint}")
        })
    }

    fn log_correction(&mut self, text: String, id: &str, action: Action) {
        self.act(
            "correction",
            format!("the player's correction: {text}"),
            Some(id),
            action,
        );
    }

    /// A piece set down where the table has it: a square on a grid, a point on a battlefield
    /// (`restore`: one taken off the board, put back, with at least 1 life).
    fn fix_at(&mut self, id: &str, at: &str, because: &str, restore: bool) -> Result<(), String> {
        let piece = self.piece_to_fix(id)?.clone();
        let id = piece.id.clone();
        // On a battlefield a piece set down at a point stands on the table.
        let standing = piece.on_board() || piece.point.is_some();
        match (restore, standing) {
            (true, true) => return Err(format!("{id} is on the board: `fix {id} at …` moves it")),
            (false, false) => {
                return Err(format!("{id} is not on the board: `fix {id} restore …` puts it back"));
            }
            _ => {}
        }
        if self.state.battlefield.is_some() {
            let point = parse_point(at)?;
            super::field::may_stand(self.battlefield()?, point)?;
            let shown = super::field::show(point);
            self.log_correction(
                format!("{id} stands at {shown}{because}"),
                &id,
                Action::Stand { id: id.clone(), point },
            );
        } else {
            let square = Square::parse(at).ok_or_else(|| format!("`{at}` is not a square: write it x,y, e.g. 5,3"))?;
            self.may_fix_square(&piece, square)?;
            let action = if standing {
                Action::Move {
                    id: id.clone(),
                    path: vec![square],
                }
            } else {
                Action::Enter {
                    id: id.clone(),
                    at: square,
                }
            };
            self.log_correction(format!("{id} stands on {square}{because}"), &id, action);
        }
        if restore && piece.life <= 0 {
            self.log_correction(
                format!("{id} has 1 life"),
                &id,
                Action::Damage {
                    id: id.clone(),
                    amount: piece.life - 1,
                },
            );
        }
        Ok(())
    }

    /// A square a piece may be set on: on the grid, not solid, every square of its footprint
    /// free of other pieces.
    fn may_fix_square(&self, piece: &Piece, at: Square) -> Result<(), String> {
        let size = piece.size.max(1);
        for dy in 0..size {
            for dx in 0..size {
                let s = at.offset(dx, dy);
                if !self.view.grid.contains(s) || self.view.grid.is_solid(s) {
                    return Err(format!("{s} is not a floor square of the board"));
                }
                if let Some(o) = self.view.occupant(s)
                    && self.state.pieces[o].id != piece.id
                {
                    return Err(format!("{s} is taken by {}", self.state.pieces[o].id));
                }
            }
        }
        Ok(())
    }

    fn fix_facing(&mut self, id: &str, facing: &str, because: &str) -> Result<(), String> {
        let piece = self.piece_to_fix(id)?;
        let id = piece.id.clone();
        let Some(f) = FACING_NAMES.iter().position(|n| *n == facing) else {
            return Err(format!("`{facing}` is not a facing: up, right, down or left"));
        };
        self.log_correction(
            format!("{id} faces {facing}{because}"),
            &id,
            Action::Face {
                id: id.clone(),
                facing: f as u8,
            },
        );
        Ok(())
    }

    fn fix_life(&mut self, id: &str, n: &str, because: &str) -> Result<(), String> {
        let piece = self.piece_to_fix(id)?;
        let id = piece.id.clone();
        let life = piece.life;
        let n: i64 = n
            .parse()
            .ok()
            .filter(|n| (0..=1_000_000).contains(n))
            .ok_or_else(|| format!("`{n}` is not a life a piece may have: a whole number from 0"))?;
        self.log_correction(
            format!("{id} has {n} life{because}"),
            &id,
            Action::Damage {
                id: id.clone(),
                amount: life - n,
            },
        );
        if n == 0 && self.state.piece(&id).is_some_and(Piece::on_board) {
            self.log_correction(
                format!("{id} taken off the board (no life left)"),
                &id,
                Action::Remove { id: id.clone() },
            );
        }
        Ok(())
    }

    fn fix_door(&mut self, a: &str, b: &str, open: bool, because: &str) -> Result<(), String> {
        let square = |t: &str| Square::parse(t).ok_or_else(|| format!("`{t}` is not a square: write it x,y"));
        let (a, b) = (square(a)?, square(b)?);
        if self.door_between(a, b).is_none() {
            return Err(format!(
                "there is no door between {a} and {b}: name the two squares on either side of it"
            ));
        }
        let word = if open { "open" } else { "shut" };
        self.act(
            "correction",
            format!("the player's correction: the door between {a} and {b} is {word}{because}"),
            None,
            Action::Door { a, b, open },
        );
        Ok(())
    }
}

fn parse_point(text: &str) -> Result<Point, String> {
    let bad = || format!("`{text}` is not a point: write it x,y in inches, e.g. 12.5,30");
    let (x, y) = text.split_once(',').ok_or_else(bad)?;
    let number = |t: &str| t.parse::<f64>().ok().filter(|v| v.is_finite() && v.abs() < 1e6);
    match (number(x), number(y)) {
        (Some(x), Some(y)) => Ok(Point { x, y }),
        _ => Err(bad()),
    }
}
