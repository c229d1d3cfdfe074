//! Pieces coming, going and changing: added, placed (face up or down), revealed, entering
//! and leaving the board, damaged, given fields; doors opened and shut by a rule; a planned
//! move ([`Game::plan_move`]), a path checked whole ([`Game::check_path`]), one step of a
//! walk ([`Game::walk_step`]) and the way back from a blocked one ([`Game::step_back`]); a
//! set-up's or a scenario's placing of a piece on a square ([`Game::set_on`]). Kernel methods on [`Game`]:
//! typed arguments, validated before anything changes, logged and applied through
//! [`Game::act`]. No Rhai: the binding (`api/pieces.rs`, `api/moves.rs`) converts and charges.

use super::Game;
use super::state::{Action, OFF_BOARD, ON_BOARD, Piece, REMOVED, footprint};
use super::view::Goal;
use crate::board::{Edge, Square};
use crate::dice::Rng;
use crate::limits::MAX_GAME_PIECES;
use indexmap::IndexMap;
use serde_json::Value as Json;

/// A new piece's own fields as a script gave them: an `id` it wants, and the rest.
#[derive(Debug, Clone, Default)]
pub struct NewFields {
    pub id: Option<String>,
    pub fields: IndexMap<String, Json>,
}

/// What one step of a walk came to.
pub enum Stepped {
    /// The piece stepped from this square; `interrupted` when the step queued triggers.
    From { from: Square, interrupted: bool },
    /// A trigger earlier in the walk changed the board and the step is no longer open.
    Blocked,
}

impl Game {
    /// The name the log gives a kind: its stats record's label and the kind, or the kind.
    pub fn label_of(&self, kind: &str) -> String {
        self.def
            .stats
            .as_ref()
            .and_then(|k| self.ruleset.records.get(k))
            .and_then(|r| r.get(kind))
            .and_then(|r| r.label.clone())
            .map_or_else(|| kind.to_string(), |l| format!("{l} ({kind})"))
    }

    /// A piece of `kind` for `side`, not yet in the game: its life, base and movement from
    /// its stats record.
    pub fn new_piece(&self, kind: &str, side: &str, new: NewFields) -> Result<Piece, String> {
        if self.state.pieces.len() >= MAX_GAME_PIECES {
            return Err(format!(
                "a game may have at most {MAX_GAME_PIECES} pieces, on the board or off (`MAX_GAME_PIECES`, see \"Limits\" in docs/limits.md): reuse pieces that left the board with `enter`"
            ));
        }
        if !self.def.sides.iter().any(|s| s == side) {
            return Err(format!(
                "`{side}` is not a side of this game (sides: {})",
                self.def.sides.join(", ")
            ));
        }
        if !self.is_stats_kind(kind) {
            let kinds = self
                .def
                .stats
                .as_ref()
                .and_then(|k| self.ruleset.records.get(k))
                .map(|r| r.keys().cloned().collect::<Vec<_>>())
                .unwrap_or_default();
            let hint = crate::diagnostic::did_you_mean(kind, kinds.iter().map(String::as_str))
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            return Err(format!(
                "no {} `{kind}`{hint}",
                self.def.stats.as_deref().unwrap_or("kind")
            ));
        }
        if let Some(wanted) = &new.id
            && self.state.index_of(wanted).is_some()
        {
            return Err(format!("a piece `{wanted}` already exists"));
        }
        let (life, size, diagonal) = self.stats(kind);
        Ok(Piece {
            id: new.id.unwrap_or_else(|| self.new_id(kind)),
            kind: kind.to_string(),
            hidden: None,
            side: side.to_string(),
            status: OFF_BOARD.into(),
            at: None,
            point: None,
            size,
            diagonal,
            life,
            fields: new.fields,
            facing: None,
            ap: None,
            watch: None,
            models: Vec::new(),
            model_records: Vec::new(),
        })
    }

    /// A new piece joins `side`, off the board: its id.
    pub fn add_piece(&mut self, kind: &str, side: &str, new: NewFields) -> Result<String, String> {
        let piece = self.new_piece(kind, side, new)?;
        let id = piece.id.clone();
        let text = format!("{id}: {} joins the {side} side, off the board", self.label_of(kind));
        self.act("add", text, Some(&id), Action::Add { piece: Box::new(piece) });
        Ok(id)
    }

    /// A new piece placed face up on `at`: its id.
    pub fn place_new(&mut self, kind: &str, side: &str, at: Square, new: NewFields) -> Result<String, String> {
        let piece = self.new_piece(kind, side, new)?;
        let text = format!("{}: {} ({side}) placed on {at}", piece.id, self.label_of(kind));
        self.place_piece(piece, at, text)
    }

    /// A face-down `token` hiding `identity`, placed on `at`: its id. It stands on one
    /// square and steps any way, whatever it hides; `reveal` gives it the identity's base
    /// and movement.
    pub fn place_hidden(&mut self, token: &str, identity: &str, side: &str, at: Square) -> Result<String, String> {
        let mut piece = self.new_piece(identity, side, NewFields::default())?;
        piece.id = self.new_id(token);
        piece.hidden = Some(identity.to_string());
        piece.kind = token.to_string();
        (piece.size, piece.diagonal) = (1, true);
        let text = format!("{} ({side}) placed face down on {at}", piece.id);
        self.place_piece(piece, at, text)
    }

    /// Puts a new piece on a free square (validated), logs it, looks for sightings.
    pub fn place_piece(&mut self, mut piece: Piece, at: Square, text: String) -> Result<String, String> {
        for s in footprint(Some(at), piece.size) {
            if !self.view.square_free(s) {
                return Err(match self.view.occupant(s) {
                    Some(o) => format!("{s} is taken by {}", self.state.pieces[o].id),
                    None => format!("{s} is not a square of the board"),
                });
            }
        }
        piece.at = Some(at);
        piece.status = ON_BOARD.into();
        let id = piece.id.clone();
        self.act("place", text, Some(&id), Action::Add { piece: Box::new(piece) });
        let i = self.state.pieces.len() - 1;
        self.entries(i, false);
        self.check_sightings(Some(i));
        Ok(id)
    }

    /// Turns face-down piece `i` face up: the kind it hid. A larger model covers the
    /// token's square; where its base does not fit there at all, the reveal is refused (the
    /// script decides: `fits` asks first).
    pub fn reveal(&mut self, i: usize) -> Result<String, String> {
        let Some(identity) = self.state.pieces[i].hidden.clone() else {
            return Err(format!("{} is not face down", self.state.pieces[i].id));
        };
        let (life, size, diagonal) = self.stats(&identity);
        let label = self.label_of(&identity);
        let token_at = self.state.pieces[i].at;
        let mut at = None;
        let id = self.state.pieces[i].id.clone();
        let rename = self.def.reveal_renames.then(|| self.new_id(&identity));
        let mut text = match &rename {
            Some(new) => format!("{id} is revealed: {label}, {new} from now on"),
            None => format!("{id} is revealed: {label}"),
        };
        if let (Some(token_at), true) = (token_at, size > 1) {
            match self.view.grown_at(i, token_at, size) {
                Some(top_left) if top_left != token_at => {
                    at = Some(top_left);
                    text = format!("{text}, its base set on {top_left} to cover {token_at}");
                }
                Some(_) => {}
                None => {
                    return Err(format!(
                        "{id} hides a {label} whose {size} x {size} base cannot cover {token_at}: \
                         take the token off with `leave` instead (test with `game.fits(id)`)"
                    ));
                }
            }
        }
        self.act(
            "reveal",
            text,
            Some(&id),
            Action::Reveal {
                id: id.clone(),
                life,
                size,
                diagonal,
                at,
                rename,
            },
        );
        self.check_sightings(None);
        Ok(identity)
    }

    /// Whether face-down piece `i` would fit where it stands once revealed (always, face up).
    pub fn fits_revealed(&self, i: usize) -> Result<bool, String> {
        let p = &self.state.pieces[i];
        let Some(identity) = p.hidden.clone() else {
            return Ok(true);
        };
        let (_, size, _) = self.stats(&identity);
        let at = p.at.ok_or_else(|| format!("{} is not on the board", p.id))?;
        Ok(size <= 1 || self.view.grown_at(i, at, size).is_some())
    }

    /// Piece `i`, on the board, set at once on `at` (a set-up's or a scenario's change): no
    /// steps, no action points, no `moved` trigger; the squares must be free of other pieces.
    pub fn set_on(&mut self, i: usize, at: Square) -> Result<(), String> {
        let id = self.state.pieces[i].id.clone();
        if !self.state.pieces[i].on_board() {
            return Err(format!("{id} is not on the board (`enter` puts it on)"));
        }
        for s in footprint(Some(at), self.state.pieces[i].size) {
            match self.view.occupant(s) {
                Some(o) if o == i => {}
                Some(o) => return Err(format!("{s} is taken by {}", self.state.pieces[o].id)),
                None if !self.view.square_free(s) => return Err(format!("{s} is not a square of the board")),
                None => {}
            }
        }
        self.act(
            "move",
            format!("{id} is set on {at}"),
            Some(&id),
            Action::Move {
                id: id.clone(),
                path: vec![at],
            },
        );
        self.check_entries(i);
        self.end_move();
        self.check_sightings(Some(i));
        Ok(())
    }

    /// Piece `i`, off the board, enters it on `at`.
    pub fn enter(&mut self, i: usize, at: Square) -> Result<(), String> {
        let id = &self.state.pieces[i].id.clone();
        if self.state.pieces[i].on_board() {
            return Err(format!("{id} is already on the board"));
        }
        for s in footprint(Some(at), self.state.pieces[i].size) {
            if !self.view.square_free(s) {
                return Err(format!("{s} is not free for {id}"));
            }
        }
        self.act(
            "enter",
            format!("{id} enters the board on {at}"),
            Some(id),
            Action::Enter { id: id.into(), at },
        );
        self.check_entries(i);
        self.end_move();
        self.check_sightings(Some(i));
        Ok(())
    }

    /// Piece `i` leaves the board, to `status` (any word but the board's and `removed`).
    pub fn leave(&mut self, i: usize, status: &str) -> Result<(), String> {
        let id = &self.state.pieces[i].id.clone();
        if [ON_BOARD, REMOVED, ""].contains(&status) {
            return Err(format!("`{status}` cannot be the status of a piece leaving the board"));
        }
        let p = &self.state.pieces[i];
        let from = match (p.at, p.point) {
            (Some(at), _) => at.to_string(),
            (None, Some(point)) => super::field::show(point),
            (None, None) => "nowhere".into(),
        };
        self.act(
            "leave",
            format!("{id} leaves the board from {from} ({status})"),
            Some(id),
            Action::Leave {
                id: id.into(),
                status: status.into(),
            },
        );
        Ok(())
    }

    /// `n` life off piece `i`, `by` the piece that struck (or ""), with the structured
    /// fields a script attaches to the `damage` event; at 0 it is eliminated. The life left.
    pub fn damage(
        &mut self,
        i: usize,
        n: i64,
        reason: &str,
        by: &str,
        fields: Option<IndexMap<String, Json>>,
    ) -> Result<i64, String> {
        if let Some(f) = &fields {
            // Checked before the action: a refused call changes nothing.
            super::Event::default().attach(f.clone())?;
        }
        let id = &self.state.pieces[i].id.clone();
        if n < 0 {
            return Err(format!("damage of {n}: give 0 or more"));
        }
        if n == 0 {
            return Ok(self.state.pieces[i].life);
        }
        let left = self.state.pieces[i].life.saturating_sub(n);
        self.act_finished(
            "damage",
            format!("{id} loses {n} life ({} left): {reason}", left.max(0)),
            Some(id),
            Action::Damage {
                id: id.into(),
                amount: n,
            },
            |e| {
                if !by.is_empty() {
                    e.attacker = Some(by.to_string());
                }
                fields.map_or(Ok(()), |fields| e.attach(fields))
            },
        )?;
        if left <= 0 {
            self.eliminate(i, reason, by);
        }
        Ok(left.max(0))
    }

    /// Field `field` of piece `i` holds `value` from now on.
    pub fn set_field(&mut self, i: usize, field: &str, value: Json) {
        let id = &self.state.pieces[i].id.clone();
        self.act(
            "set",
            format!("{id}: {field} = {}", crate::value::words_of_json(&value)),
            Some(id),
            Action::Set {
                id: id.into(),
                field: field.into(),
                value,
            },
        );
    }

    // ----- doors a rule opens or shuts ------------------------------------------------------

    pub fn open_door(&mut self, x: Square, y: Square) -> Result<(), String> {
        if self.view.grid.edge(x, y) != (Edge::Door { open: false }) {
            return Err(format!("there is no closed door between {x} and {y}"));
        }
        self.act(
            "door",
            format!("the door between {x} and {y} opens"),
            None,
            Action::Door { a: x, b: y, open: true },
        );
        self.check_sightings(None);
        Ok(())
    }

    pub fn close_door(&mut self, x: Square, y: Square) -> Result<(), String> {
        if self.view.grid.edge(x, y) != (Edge::Door { open: true }) {
            return Err(format!("there is no open door between {x} and {y}"));
        }
        self.act(
            "door",
            format!("the door between {x} and {y} shuts"),
            None,
            Action::Door {
                a: x,
                b: y,
                open: false,
            },
        );
        Ok(())
    }

    /// What stands between two squares side by side: `Some(true)` an open door,
    /// `Some(false)` a closed one, `None` anything else (no door, a wall, off the board).
    pub fn door_between(&self, x: Square, y: Square) -> Option<bool> {
        let grid = &self.view.grid;
        if !grid.contains(x) || !grid.contains(y) {
            return None;
        }
        match grid.edge(x, y) {
            Edge::Door { open } => Some(open),
            _ => None,
        }
    }

    // ----- walking ------------------------------------------------------------------------

    /// The squares piece `i` walks to get as near to `targets` (or, not `towards`, as far
    /// from them) as `max` steps allow; `None` when it cannot do better than stay. Ties by
    /// `rng`.
    pub fn plan_move(
        &self,
        i: usize,
        targets: &[Square],
        towards: bool,
        max: u16,
        rng: &mut Rng,
    ) -> Option<Vec<Square>> {
        let field = self.view.field_to(&self.state.pieces[i], targets);
        let goal = if towards {
            Goal::Towards(&field)
        } else {
            Goal::Away(&field)
        };
        self.view.plan(&self.state.pieces, i, goal, max, rng)
    }

    /// Checks a whole path piece `i` is told to walk before it takes a step: every step
    /// open, and a square it may end on at the end. A refused move changes nothing.
    pub fn check_path(&self, i: usize, path: &[Square]) -> Result<(), String> {
        let mut at = self.state.pieces[i].at.expect("on the board");
        for &to in path {
            self.view.check_step(&self.state.pieces, i, at, to)?;
            at = to;
        }
        if !path.is_empty() && !self.view.may_end(&self.state.pieces, i, at) {
            return Err(format!(
                "{} may not end its move on {at}: it is taken or under a door",
                self.state.pieces[i].id
            ));
        }
        Ok(())
    }

    /// One step of a walk: piece `id` to `to`. Once a trigger has run during the walk
    /// (`triggered`), a step it shut is the end of the walk (`Blocked`), not an error.
    pub fn walk_step(&mut self, id: &str, to: Square, triggered: bool) -> Result<Stepped, String> {
        let i = self.on_grid(id)?;
        let from = self.state.pieces[i].at.expect("on the board");
        match self.view.check_step(&self.state.pieces, i, from, to) {
            Ok(()) => {}
            Err(_) if triggered => return Ok(Stepped::Blocked),
            Err(e) => return Err(e),
        }
        self.step(i, to);
        Ok(Stepped::From {
            from,
            interrupted: !self.pending.is_empty(),
        })
    }

    /// After a blocked walk: back along the squares walked until the piece may stop.
    pub fn step_back(&mut self, id: &str, behind: &mut Vec<Square>) {
        let Some(i) = self.state.pieces.iter().position(|p| p.id == id) else {
            return;
        };
        while let (Some(at), Some(&back)) = (self.state.pieces[i].at, behind.last()) {
            let may_stop = self.view.may_end(&self.state.pieces, i, at) && !self.state.shares_a_square(i);
            if may_stop || self.view.check_step(&self.state.pieces, i, at, back).is_err() {
                break;
            }
            behind.pop();
            self.step(i, back);
        }
    }

    /// A piece that was to move stays where it is: the log says why.
    pub fn stays(&mut self, id: &str, why: &str) {
        self.flush_segment();
        let mut e = self.event("decision", format!("{id} stays: {why}"));
        e.piece = Some(id.to_string());
        self.push_event(e);
    }

    /// Piece `id` on the board, face down and on the board: (hidden, on the board).
    pub fn hidden_and_on_board(&self, id: &str) -> (bool, bool) {
        let p = self.state.piece(id).expect("pieces are never deleted");
        (p.hidden.is_some(), p.on_board())
    }
}
