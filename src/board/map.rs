//! Reading a board's ASCII map (format in docs/boards.md, "Boards and missions") into a
//! [`Grid`], with a diagnostic at the exact character for every problem.

use super::{Edge, Grid, Square};
use crate::diagnostic::Diagnostic;
use crate::limits::MAX_GRID_SIDE;
use crate::source::{FileId, Span};
use std::collections::BTreeMap;

/// The map text as written, and where its first character sits in its file.
pub struct MapText<'a> {
    pub text: &'a str,
    pub file: FileId,
    pub start: usize,
}

struct Line<'a> {
    chars: Vec<(usize, char)>,
    offset: usize,
    text: &'a str,
}

impl MapText<'_> {
    fn span(&self, offset: usize, len: usize) -> Span {
        Span::new(self.file, self.start + offset, self.start + offset + len.max(1))
    }
}

/// Reads the map; `legend` maps a letter to the mark it stands for.
pub fn read(map: &MapText, legend: &BTreeMap<char, String>) -> Result<Grid, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let mut lines: Vec<Line> = Vec::new();
    let mut offset = 0;
    for raw in map.text.split_inclusive('\n') {
        let text = raw.trim_end_matches(['\n', '\r']);
        lines.push(Line {
            chars: text.char_indices().collect(),
            offset,
            text,
        });
        offset += raw.len();
    }
    while lines.first().is_some_and(|l| l.text.trim().is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.text.trim().is_empty()) {
        lines.pop();
    }
    let whole = map.span(0, map.text.len());
    if lines.len() < 3 {
        return Err(vec![
            Diagnostic::error(whole, "a map needs at least one square: 3 lines", "too short")
                .with_help("draw each square with the edges around it:\n+-+\n|.|\n+-+"),
        ]);
    }
    // Strip the indentation every line shares.
    let indent = lines
        .iter()
        .map(|l| l.chars.iter().take_while(|(_, c)| *c == ' ' || *c == '\t').count())
        .min()
        .unwrap_or(0);
    for line in &mut lines {
        line.chars.drain(..indent);
    }
    let width = lines[0].chars.len();
    for line in &lines {
        if line.chars.len() != width {
            let at = line.chars.first().map_or(line.offset, |(i, _)| line.offset + i);
            errors.push(
                Diagnostic::error(map.span(at, line.text.len().saturating_sub(indent)), format!("this map line has {} characters; the first has {width}", line.chars.len()), "ragged line")
                    .with_help("every line of a map has the same length, 2 × width + 1 (an editor that trims trailing spaces shortens lines that end in a gap)"),
            );
        }
    }
    if lines.len().is_multiple_of(2) || width.is_multiple_of(2) || width < 3 {
        errors.push(
            Diagnostic::error(
                whole,
                format!(
                    "a map is 2 × height + 1 lines of 2 × width + 1 characters; this one is {} lines of {width}",
                    lines.len()
                ),
                "wrong shape",
            )
            .with_help(
                "edge lines (`+-+-+`) and square lines (`|. .|`) alternate, starting and ending with an edge line",
            ),
        );
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let (w, h) = ((width - 1) / 2, (lines.len() - 1) / 2);
    if w > MAX_GRID_SIDE || h > MAX_GRID_SIDE {
        return Err(vec![
            Diagnostic::error(whole, format!("this map is {w} × {h} squares"), "too large").with_help(format!(
                "a board or mission is at most {MAX_GRID_SIDE} squares wide and high (`MAX_GRID_SIDE`, see \"Limits\" in docs/limits.md): split the map into boards"
            )),
        ]);
    }
    let (w, h) = (w as i32, h as i32);
    let mut grid = Grid::new(w, h);
    let at = |row: usize, col: usize| -> (char, usize) {
        let (i, c) = lines[row].chars[col];
        (c, lines[row].offset + i)
    };
    for y in 0..h {
        for x in 0..w {
            let (c, off) = at(2 * y as usize + 1, 2 * x as usize + 1);
            let s = Square::new(x, y);
            let i = grid.index(s);
            match c {
                '.' => grid.solid[i] = false,
                '#' => {}
                c => match legend.get(&c) {
                    Some(name) => {
                        grid.solid[i] = false;
                        grid.marks[i] = grid.mark_id(name);
                    }
                    None => {
                        let known: Vec<String> = legend.iter().map(|(k, v)| format!("`{k}` {v}")).collect();
                        let help = if known.is_empty() {
                            "squares are `.` floor or `#` solid; add a `legend { X name }` for marks".to_string()
                        } else {
                            format!(
                                "squares are `.` floor, `#` solid, or a legend letter: {}",
                                known.join(", ")
                            )
                        };
                        errors.push(
                            Diagnostic::error(
                                map.span(off, c.len_utf8()),
                                format!("unknown map character `{c}`"),
                                "not in the legend",
                            )
                            .with_help(help),
                        );
                    }
                },
            }
        }
    }
    let mut edge_at = |c: char, off: usize, wall: char| -> Option<Edge> {
        Some(match c {
            ' ' => Edge::Open,
            'D' => Edge::Door { open: false },
            'd' => Edge::Door { open: true },
            c if c == wall => Edge::Wall,
            c => {
                errors.push(
                    Diagnostic::error(
                        map.span(off, c.len_utf8()),
                        format!("`{c}` cannot stand on an edge"),
                        "not an edge",
                    )
                    .with_help(format!(
                        "edges here are a space (open), `{wall}` (wall), `D` (closed door) or `d` (open door)"
                    )),
                );
                return None;
            }
        })
    };
    for y in 0..h {
        for x in 0..=w {
            let (c, off) = at(2 * y as usize + 1, 2 * x as usize);
            if let Some(e) = edge_at(c, off, '|') {
                grid.v_edges[(y * (w + 1) + x) as usize] = e;
            }
        }
    }
    for y in 0..=h {
        for x in 0..w {
            let (c, off) = at(2 * y as usize, 2 * x as usize + 1);
            if let Some(e) = edge_at(c, off, '-') {
                grid.h_edges[(y * w + x) as usize] = e;
            }
        }
    }
    for y in (0..lines.len()).step_by(2) {
        for x in (0..width).step_by(2) {
            let (c, off) = at(y, x);
            if !matches!(c, '+' | '-' | '|' | ' ') {
                errors.push(
                    Diagnostic::error(
                        map.span(off, c.len_utf8()),
                        format!("`{c}` cannot stand on a corner"),
                        "a corner",
                    )
                    .with_help(
                        "corners (even line, even column) are `+`, `-`, `|` or a space; squares sit between them",
                    ),
                );
            }
        }
    }
    // A door needs a floor square on each side that is on the board.
    for (a, b, _) in grid.doors() {
        let inside = |s: Square| grid.contains(s);
        let bad = [a, b].into_iter().filter(|&s| inside(s)).any(|s| grid.is_solid(s));
        if bad {
            let (row, col) = if a.x != b.x {
                (2 * a.y as usize + 1, 2 * b.x as usize)
            } else {
                (2 * b.y as usize, 2 * a.x as usize + 1)
            };
            let (_, off) = at(row, col);
            errors.push(
                Diagnostic::error(
                    map.span(off, 1),
                    "a door must stand between two floor squares",
                    "door against solid rock",
                )
                .with_help("move the door, or make the squares on both sides floor (`.`)"),
            );
        }
    }
    grid.rebuild_steps();
    if errors.is_empty() { Ok(grid) } else { Err(errors) }
}
