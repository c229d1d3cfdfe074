//! Lowering grid maps: `board` items (ASCII edge grids) and `mission` items that assemble
//! boards into one grid and place pieces. Every mission is checked for the marks a game
//! `needs-marks`. In a package with `schema mission`, a mission is also a record, so it may
//! carry typed data and need not place a board (a data-only mission; in a package with
//! battlefields it is played on the battlefield its game's setup chooses:
//! `Ruleset::playable_missions`).

use super::Lower;
use crate::board::map::{self, MapText};
use crate::board::{Board, Grid, Mission, Piece, Square};
use crate::diagnostic::{Diagnostic, Report, did_you_mean};
use crate::limits::*;
use crate::package::merge::MergedItem;
use crate::ruleset::*;
use crate::source::{SourceMap, Span};
use crate::syntax::ast::{self, Entry, ValueKind};
use indexmap::IndexMap;
use std::collections::BTreeMap;

impl Lower<'_> {
    pub(super) fn board(&mut self, item: &MergedItem, sources: &SourceMap) -> Option<Board> {
        let known = ["map", "legend", "size", "source", "text", "label"];
        let props = self.props(&item.entries, "a board", &known, &[], false);
        let label = self.label(item, &props);
        let source = self.text(props.get("source"));
        let mut legend = BTreeMap::new();
        if let Some(p) = props.get("legend") {
            match self.one(p, "{ X name; … }").map(|v| &v.kind) {
                Some(ValueKind::Block(block)) => {
                    for entry in &block.entries {
                        let Entry::Property(mark) = entry else { continue };
                        let letter = mark
                            .key
                            .text
                            .chars()
                            .next()
                            .filter(|_| mark.key.text.chars().count() == 1);
                        let name = mark
                            .values
                            .first()
                            .and_then(|v| v.as_name())
                            .filter(|_| mark.values.len() == 1);
                        match (letter, name) {
                            (Some(c), Some(n)) if !matches!(c, 'D' | 'd') => {
                                legend.insert(c, n.to_string());
                            }
                            _ => self.err(
                                Diagnostic::error(
                                    mark.span,
                                    "a legend entry is one letter and a name",
                                    "not understood",
                                )
                                .with_help("for example `R reinforcement`; `D` and `d` are taken by doors"),
                            ),
                        }
                    }
                }
                Some(_) => self.err(Diagnostic::error(
                    p.span,
                    "`legend` takes a block `{ R reinforcement; … }`",
                    "not a block",
                )),
                None => {}
            }
        }
        let Some(map_prop) = props.get("map") else {
            self.err(
                Diagnostic::error(item.id.span, format!("board `{}` has no `map`", item.id.text), "no map")
                    .with_help("add `map \"…\"` with the board drawn in ASCII (see docs/boards.md)"),
            );
            return None;
        };
        let value = self.one(map_prop, "\"map\"")?;
        if value.as_text().is_none() {
            self.err(Diagnostic::error(
                value.span,
                "`map` takes the drawing as a text in quotes",
                value.describe(),
            ));
            return None;
        }
        let raw = sources.text_of(value.span);
        let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or("");
        if inner.contains('\\') {
            self.err(Diagnostic::error(
                value.span,
                "a map may not contain `\\`",
                "escape in a map",
            ));
            return None;
        }
        let text = MapText {
            text: inner,
            file: value.span.file,
            start: value.span.start + 1,
        };
        let grid = match map::read(&text, &legend) {
            Ok(grid) => grid,
            Err(errors) => {
                self.report.diagnostics.extend(errors);
                return None;
            }
        };
        if let Some(p) = props.get("size") {
            let numbers: Vec<i64> = p.values.iter().filter_map(|v| v.as_number()).collect();
            match numbers.as_slice() {
                [w, h] if p.values.len() == 2 => {
                    if (*w, *h) != (grid.width as i64, grid.height as i64) {
                        self.err(
                            Diagnostic::error(
                                value.span,
                                format!(
                                    "the map is {} × {} squares, but `size` says {w} × {h}",
                                    grid.width, grid.height
                                ),
                                "wrong size",
                            )
                            .with_note(p.span, "size declared here")
                            .with_help("redraw the map or correct `size`"),
                        );
                    }
                }
                _ => self.err(
                    Diagnostic::error(p.span, "`size` takes a width and a height", "not understood")
                        .with_help("write `size 12 12`"),
                ),
            }
        }
        Some(Board {
            id: item.id.text.clone(),
            label,
            grid,
            source,
            text: self.text(props.get("text")),
            span: item.span,
        })
    }

    /// A mission places boards (a `Mission`) and, when the package declares `schema mission`,
    /// is also a record of that schema — so data-only missions (no map) work too.
    pub(super) fn mission_item(&mut self, item: &MergedItem, ruleset: &mut Ruleset) {
        let is_placement =
            |e: &Entry| matches!(e, Entry::Property(p) if ["board", "piece", "fields"].contains(&p.key.text.as_str()));
        let places_boards = item
            .entries
            .iter()
            .any(|e| matches!(e, Entry::Property(p) if p.key.text == "board"));
        let Some(schema) = ruleset.schemas.get("mission") else {
            if let Some(m) = self.mission(item, &ruleset.boards, None) {
                ruleset.missions.insert(m.id.clone(), m);
            }
            return;
        };
        let data = MergedItem {
            entries: item.entries.iter().filter(|e| !is_placement(e)).cloned().collect(),
            ..item.clone()
        };
        let Some(record) = self.record(&data, schema) else {
            return;
        };
        if places_boards {
            let map_only = ["board", "piece", "fields", "source", "text", "label"];
            let keep = |e: &&Entry| matches!(e, Entry::Property(p) if map_only.contains(&p.key.text.as_str()));
            let layout = MergedItem {
                entries: item.entries.iter().filter(keep).cloned().collect(),
                ..item.clone()
            };
            if let Some(mut m) = self.mission(&layout, &ruleset.boards, None) {
                // Free-form `fields { }` and the schema's typed fields together.
                m.fields.extend(record.fields.clone());
                ruleset.missions.insert(m.id.clone(), m);
            }
        }
        ruleset
            .records
            .entry("mission".into())
            .or_default()
            .insert(record.id.clone(), record);
    }

    pub(super) fn mission(
        &mut self,
        item: &MergedItem,
        boards: &IndexMap<String, Board>,
        data: Option<IndexMap<String, Value>>,
    ) -> Option<Mission> {
        let known = ["board", "piece", "fields", "source", "text", "label"];
        let props = self.props(&item.entries, "a mission", &known, &["board", "piece"], false);
        // `<name> at <x> <y> [size <w> <h>]`, all numbers from 1.
        let placement = |p: &ast::Property| -> Option<(String, Span, i32, i32, i32, i32)> {
            let v = &p.values;
            let name = v.first()?.as_name()?.to_string();
            if v.get(1)?.as_name()? != "at" {
                return None;
            }
            let (x, y) = (v.get(2)?.as_number()?, v.get(3)?.as_number()?);
            let (w, h) = match v.len() {
                4 => (1, 1),
                7 if v[4].as_name() == Some("size") => (v[5].as_number()?, v[6].as_number()?),
                _ => return None,
            };
            let ok = |n: i64| (1..=1000).contains(&n);
            (ok(x) && ok(y) && ok(w) && ok(h))
                .then(|| (name, v[0].span, x as i32 - 1, y as i32 - 1, w as i32, h as i32))
        };
        let mut placed: Vec<(&Board, Square, Span)> = Vec::new();
        for p in props.all("board") {
            let Some((name, span, x, y, ..)) = placement(p) else {
                self.err(
                    Diagnostic::error(p.span, "`board` takes a board and where it goes", "not understood")
                        .with_help("write `board section-a at 1 1` (its top-left square, counted from 1)"),
                );
                continue;
            };
            match boards.get(&name) {
                Some(board) => placed.push((board, Square::new(x, y), span)),
                None if self.broken_boards.contains(&name) => return None,
                None => self.err(
                    Diagnostic::error(span, format!("no board `{name}`"), "not a board").with_help(
                        did_you_mean(&name, boards.keys().map(String::as_str))
                            .unwrap_or_else(|| "declare it with `board <id> { map \"…\" }`".into()),
                    ),
                ),
            }
        }
        if placed.is_empty() {
            self.err(
                Diagnostic::error(
                    item.id.span,
                    format!("mission `{}` places no board", item.id.text),
                    "no boards",
                )
                .with_help("add `board <id> at 1 1`"),
            );
            return None;
        }
        let width = placed.iter().map(|(b, at, _)| at.x + b.grid.width).max().unwrap_or(0);
        let height = placed.iter().map(|(b, at, _)| at.y + b.grid.height).max().unwrap_or(0);
        let side = MAX_GRID_SIDE as i32;
        if width > side || height > side {
            let (board, at, span) = placed
                .iter()
                .find(|(b, at, _)| at.x + b.grid.width > side || at.y + b.grid.height > side)
                .expect("one board reaches that far");
            self.err(
                Diagnostic::error(
                    *span,
                    format!(
                        "board `{}` placed here reaches square {}, {}: the mission would be {width} × {height} squares",
                        board.id,
                        at.x + board.grid.width,
                        at.y + board.grid.height
                    ),
                    "too far",
                )
                .with_help(format!(
                    "a mission is at most {MAX_GRID_SIDE} squares wide and high (`MAX_GRID_SIDE`, see \"Limits\" in docs/limits.md): place its boards closer to 1 1"
                )),
            );
            return None;
        }
        let mut owner: Vec<Option<usize>> = vec![None; (width * height) as usize];
        let index = |s: Square| (s.y * width + s.x) as usize;
        for (k, (board, at, span)) in placed.iter().enumerate() {
            let mut clash = None;
            for y in 0..board.grid.height {
                for x in 0..board.grid.width {
                    let i = index(at.offset(x, y));
                    if let Some(other) = owner[i] {
                        clash.get_or_insert(other);
                    }
                    owner[i] = Some(k);
                }
            }
            if let Some(other) = clash {
                self.err(
                    Diagnostic::error(
                        *span,
                        format!("board `{}` overlaps board `{}`", board.id, placed[other].0.id),
                        "overlaps",
                    )
                    .with_note(placed[other].2, "placed here")
                    .with_help("boards are placed by their top-left square; move one of them"),
                );
            }
        }
        let layout: Vec<(&Grid, Square, &str)> =
            placed.iter().map(|(b, at, _)| (&b.grid, *at, b.id.as_str())).collect();
        let grid = Grid::assemble(width, height, &layout);
        let mut pieces = Vec::new();
        for p in props.all("piece") {
            let Some((id, span, x, y, w, h)) = placement(p) else {
                self.err(
                    Diagnostic::error(
                        p.span,
                        "`piece` takes a name, where it stands and maybe its size",
                        "not understood",
                    )
                    .with_help("write `piece walker at 5 5 size 2 2`"),
                );
                continue;
            };
            let piece = Piece {
                id,
                at: Square::new(x, y),
                width: w,
                height: h,
            };
            if let Some(bad) = piece.squares().into_iter().find(|&s| grid.is_solid(s)) {
                self.err(Diagnostic::error(
                    span,
                    format!("piece `{}` would stand on {bad}, which is not a floor square", piece.id),
                    "cannot stand there",
                ));
                continue;
            }
            pieces.push(piece);
        }
        let fields = match props
            .get("fields")
            .and_then(|p| self.one(p, "{ … }"))
            .map(|v| self.untyped(v))
        {
            Some(Some(Value::Map(m))) => m,
            _ => data.unwrap_or_default(),
        };
        Some(Mission {
            id: item.id.text.clone(),
            label: self.label(item, &props),
            grid,
            pieces,
            fields,
            text: self.text(props.get("text")),
            source: self.text(props.get("source")),
            span: item.span,
        })
    }
}

/// Every mission with a map marks at least one square with each mark a game `needs-marks`
/// (its scripts look for them: a mission without would fail in the middle of a game). Reported
/// at the mission, with the game's declaration as a note.
pub(super) fn check_needed_marks(ruleset: &Ruleset, report: &mut Report) {
    for game in ruleset.games.values() {
        for mission in ruleset.missions.values() {
            if mission.grid.is_empty() {
                continue;
            }
            for (mark, span) in &game.needs_marks {
                if mission.grid.marked(mark).is_empty() {
                    report.push(
                        Diagnostic::error(
                            mission.span,
                            format!(
                                "mission `{}` marks no square `{mark}`, which game `{}` needs",
                                mission.id, game.id
                            ),
                            format!("no `{mark}` square"),
                        )
                        .with_note(*span, format!("game `{}` needs every mission to mark `{mark}`", game.id))
                        .with_help(format!(
                            "put a board with a square marked `{mark}` in the mission, or give one of its boards' legends a letter for `{mark}` and draw it on the map"
                        )),
                    );
                }
            }
        }
    }
}
