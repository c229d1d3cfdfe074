//! The state of one game as plain data, and the closed set of [`Action`]s that change it.
//! [`apply`] is the only function that mutates a [`GameState`]: replaying a log's actions on
//! the starting state rebuilds the state exactly.
//!
//! A [`Piece`] stands on a square (`at`) or at a point in inches (`point`), never both; its
//! facing, action points and watch are serde-defaulted, so older saves read. The state also
//! keeps the zones added during play (`added_zones`) and, never saved, the battlefield built
//! with them (`field_cache`).

use crate::board::Square;
use crate::board::field::Point;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// Statuses the engine gives; `leave` may give any other word (e.g. `escaped`).
pub const ON_BOARD: &str = "board";
pub const OFF_BOARD: &str = "off";
pub const REMOVED: &str = "removed";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Piece {
    pub id: String,
    /// The stats record it is, or the token it shows while hidden.
    pub kind: String,
    /// What a face-down piece really is; only the engine reads it until `reveal`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<String>,
    pub side: String,
    pub status: String,
    /// Top-left square of its footprint; `None` off the board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Square>,
    /// Where it stands on an open battlefield (inches), its centre; `None` on a grid or off
    /// the table. A piece stands on a square or at a point, never both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<Point>,
    /// Squares along one edge of its square footprint.
    pub size: i32,
    /// May step diagonally.
    pub diagonal: bool,
    pub life: i64,
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub fields: IndexMap<String, Json>,
    /// The way it faces (an index into `board::facing::FACINGS`); `None`: it has no front.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facing: Option<u8>,
    /// Action points left this turn (games that declare `action-points`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ap: Option<i64>,
    /// The watch it keeps (a `watch` mode of the game item): it reacts to other sides'
    /// pieces that act where it can see them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch: Option<String>,
    /// A unit of several models on a battlefield: where each model stands, as an offset from
    /// `point` (so a move of the point moves them all the same way: in formation). Empty: one
    /// model at `point`, its base the stats record's `base` (`game::field`, "Units of models").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<Point>,
    /// Beside `models`, one entry a model: the id of the stats record that gives that model
    /// its own profile (a character inside a squad), or `""` for the piece's own record.
    /// Empty: every model is the piece's record (`game::field`, "Models with a record of
    /// their own").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub model_records: Vec<String>,
}

impl Piece {
    /// The squares it covers (none off the board).
    pub fn squares(&self) -> Footprint {
        footprint(self.at, self.size)
    }

    pub fn on_board(&self) -> bool {
        self.status == ON_BOARD
    }
}

/// The squares of a footprint: inline up to 2 × 2, so the questions that ask for them square by
/// square (movement searches ask for every step) do not allocate.
pub type Footprint = smallvec::SmallVec<[Square; 4]>;

/// The squares a `size × size` piece covers with its top-left square on `at`.
pub fn footprint(at: Option<Square>, size: i32) -> Footprint {
    let Some(at) = at else { return Footprint::new() };
    if size == 1 {
        // Nearly every piece: no iterator chain for the hot loops (moves, sight) to pay for.
        let mut one = Footprint::new();
        one.push(at);
        return one;
    }
    (0..size)
        .flat_map(|dy| (0..size).map(move |dx| at.offset(dx, dy)))
        .collect()
}

/// A value a game keeps (a variable, a piece's field) nests lists and maps at most
/// [`MAX_VALUE_DEPTH`] deep: a save holds it, and a save must read back.
///
/// [`MAX_VALUE_DEPTH`]: crate::limits::MAX_VALUE_DEPTH
pub fn check_depth(value: &Json) -> Result<(), String> {
    use crate::limits::MAX_VALUE_DEPTH;
    // Level by level, without recursion: the value may be deeper than a stack allows.
    let mut level: Vec<&Json> = vec![value];
    let mut depth = 0;
    while !level.is_empty() {
        let next: Vec<&Json> = level
            .iter()
            .flat_map(|v| -> Box<dyn Iterator<Item = &Json>> {
                match v {
                    Json::Array(items) => Box::new(items.iter()),
                    Json::Object(map) => Box::new(map.values()),
                    _ => Box::new(std::iter::empty()),
                }
            })
            .collect();
        if level.iter().any(|v| v.is_array() || v.is_object()) {
            depth += 1;
            if depth > MAX_VALUE_DEPTH {
                return Err(format!(
                    "cannot keep this value in the game: its lists and maps nest more than {MAX_VALUE_DEPTH} deep (`MAX_VALUE_DEPTH`, see \"Limits\" in docs/limits.md)"
                ));
            }
        }
        level = next;
    }
    Ok(())
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The winning side; `None` for no winner (a draw or the turn limit).
    pub winner: Option<String>,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GameState {
    /// 0 during setup, then from 1.
    pub turn: u32,
    pub side: String,
    pub phase: String,
    pub pieces: Vec<Piece>,
    /// Doors opened or closed since the mission was laid out, in order.
    pub doors: Vec<(Square, Square, bool)>,
    /// Side → the board sections its pieces have entered.
    pub entered: IndexMap<String, Vec<String>>,
    pub pools: IndexMap<String, IndexMap<String, i64>>,
    /// Pools of face-down tokens (`new_secret_pool`): counted in the log, never named.
    #[serde(default, skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    pub secret_pools: std::collections::BTreeSet<String>,
    /// Draw piles; the next card is the last one.
    pub decks: IndexMap<String, Vec<String>>,
    pub scores: IndexMap<String, i64>,
    pub collected: IndexMap<String, Vec<String>>,
    pub vars: IndexMap<String, Json>,
    /// Kind → how many pieces of it were made (for ids).
    pub counters: IndexMap<String, u32>,
    /// An id a piece had before it was revealed → the id it took (`reveal-ids by-kind`): a
    /// script holding the old id still finds the piece.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub aliases: IndexMap<String, String>,
    /// The battlefield (inches) the game is played on, when it is not played on the mission's
    /// grid: chosen once by `game.use_battlefield`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub battlefield: Option<String>,
    /// Named points the game marks on its battlefield (`game.mark_at`), drawn in every view.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub marks: IndexMap<String, Point>,
    /// Zones the game added to its battlefield during play (`game.add_zone`), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added_zones: Vec<AddedZone>,
    /// The battlefield with `added_zones` in it, built once when first asked for
    /// ([`crate::game::Game::battlefield`]); never saved, emptied when a zone is added.
    #[serde(skip)]
    pub field_cache: FieldCache,
    pub over: Option<Outcome>,
}

/// A zone added to the battlefield during a game (`game.add_zone`): a polygon named as a
/// battlefield's zones are (the package reads its kind from the name), and whether it hides
/// what is behind it as the battlefield's `hides` zones do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AddedZone {
    pub name: String,
    pub corners: Vec<Point>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hides: bool,
}

/// A cache of the battlefield with the game's added zones: equal to any other (it follows
/// from the state's other fields), cloned with the state.
#[derive(Debug, Clone, Default)]
pub struct FieldCache(pub std::sync::OnceLock<std::sync::Arc<crate::board::field::Battlefield>>);

impl PartialEq for FieldCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl GameState {
    /// Whether piece `i` stands on a square another piece on the board covers (a walker
    /// passing over one of its own side's models). The board's occupancy keeps one piece per
    /// square, the walker's while it passes, so this asks the pieces themselves.
    pub fn shares_a_square(&self, i: usize) -> bool {
        let mine = self.pieces[i].squares();
        self.pieces
            .iter()
            .enumerate()
            .any(|(j, p)| j != i && p.on_board() && p.squares().iter().any(|s| mine.contains(s)))
    }

    /// The piece with this id, or with the id it took when it was revealed.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.pieces.iter().position(|p| p.id == id).or_else(|| {
            let now = self.aliases.get(id)?;
            self.pieces.iter().position(|p| p.id == *now)
        })
    }

    pub fn piece(&self, id: &str) -> Option<&Piece> {
        self.index_of(id).map(|i| &self.pieces[i])
    }

    pub fn has_entered(&self, section: &str) -> bool {
        self.entered.values().any(|s| s.iter().any(|x| x == section))
    }
}

/// Every change a game can make. Validation happens before an action is made (in the game
/// API); `apply` only carries it out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "kebab-case")]
pub enum Action {
    Begin {
        turn: u32,
        side: String,
        phase: String,
    },
    Add {
        piece: Box<Piece>,
    },
    /// Face up: the piece becomes what it hid, with that kind's stats.
    Reveal {
        id: String,
        life: i64,
        size: i32,
        diagonal: bool,
        /// The id it takes from now on (`reveal-ids by-kind`), the old one kept as an alias.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rename: Option<String>,
        /// Where the revealed piece stands when its footprint did not fit at the token's
        /// square: a top-left square whose footprint still covers the token's square.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<Square>,
    },
    Enter {
        id: String,
        at: Square,
    },
    Leave {
        id: String,
        status: String,
    },
    Move {
        id: String,
        path: Vec<Square>,
    },
    Door {
        a: Square,
        b: Square,
        open: bool,
    },
    Damage {
        id: String,
        amount: i64,
    },
    Remove {
        id: String,
    },
    Set {
        id: String,
        field: String,
        value: Json,
    },
    SetVar {
        name: String,
        value: Json,
    },
    Entered {
        side: String,
        section: String,
    },
    Score {
        side: String,
        points: i64,
    },
    Collect {
        side: String,
        token: String,
    },
    NewPool {
        id: String,
        entries: IndexMap<String, i64>,
        /// Face-down tokens: the log and the table never name what is in it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        secret: bool,
    },
    Take {
        pool: String,
        entry: String,
        n: i64,
    },
    NewDeck {
        id: String,
        cards: Vec<String>,
    },
    Draw {
        deck: String,
        /// A card named (`game.draw(deck, card)`: the one a player drew from a real deck), taken
        /// from wherever it lies; none: the top card.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        card: Option<String>,
    },
    End {
        winner: Option<String>,
        reason: String,
    },
    /// The game is played on this battlefield (inches) from now on.
    UseBattlefield {
        id: String,
    },
    /// A zone added to the battlefield (`game.add_zone`).
    AddZone {
        name: String,
        corners: Vec<Point>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        hides: bool,
    },
    /// A named point marked on the battlefield (`point`), or its mark taken away (none).
    Mark {
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        point: Option<Point>,
    },
    /// Puts a piece at a point of the battlefield (entering, or set down elsewhere: a
    /// scatter, a deployment), on the board.
    Stand {
        id: String,
        point: Point,
    },
    /// A unit's models stand at these offsets from its point (laid out in formation, some
    /// removed as casualties, or set where the table has them); empty: one model at its point.
    Models {
        id: String,
        offsets: Vec<Point>,
        /// Each model's own stats record (`Piece::model_records`); empty when none has one.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        records: Vec<String>,
    },
    /// A piece's move in inches: the route walked, ending where it stops.
    Walk {
        id: String,
        route: Vec<Point>,
    },
    /// The piece turns to face `facing` (an index into `board::facing::FACINGS`).
    Face {
        id: String,
        facing: u8,
    },
    /// Action points left, piece by piece.
    Ap {
        values: IndexMap<String, i64>,
    },
    /// The piece keeps this watch from now on (`None`: it keeps none).
    Watch {
        id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<String>,
    },
}

impl Action {
    /// The piece the action changes, if it changes one that exists before it.
    pub fn piece_id(&self) -> Option<&str> {
        match self {
            Action::Reveal { id, .. }
            | Action::Enter { id, .. }
            | Action::Leave { id, .. }
            | Action::Move { id, .. }
            | Action::Damage { id, .. }
            | Action::Remove { id }
            | Action::Set { id, .. }
            | Action::Stand { id, .. }
            | Action::Walk { id, .. }
            | Action::Models { id, .. }
            | Action::Face { id, .. }
            | Action::Watch { id, .. } => Some(id),
            _ => None,
        }
    }
}

/// Whether a pool's counts are all zero or more and add up to a whole number (a save's log
/// is checked so, as the game API checks a script's).
fn pool_ok(entries: &IndexMap<String, i64>) -> bool {
    entries.values().all(|&n| n >= 0) && entries.values().try_fold(0i64, |t, &n| t.checked_add(n)).is_some()
}

/// Carries out an action already validated. Returns false if it names something that is not
/// there (a corrupt log): replay reports that instead of guessing.
pub fn apply(state: &mut GameState, action: &Action) -> bool {
    let piece = |state: &mut GameState, id: &str| state.index_of(id);
    match action {
        Action::Begin { turn, side, phase } => {
            state.turn = *turn;
            state.side.clone_from(side);
            state.phase.clone_from(phase);
        }
        Action::Add { piece: p } => {
            *state.counters.entry(p.kind.clone()).or_default() += 1;
            state.pieces.push((**p).clone());
        }
        Action::Reveal {
            id,
            life,
            size,
            diagonal,
            at,
            rename,
        } => {
            let Some(i) = piece(state, id) else { return false };
            if rename.as_ref().is_some_and(|new| state.index_of(new).is_some()) {
                return false;
            }
            let p = &mut state.pieces[i];
            let Some(kind) = p.hidden.take() else { return false };
            if let Some(new) = rename {
                *state.counters.entry(kind.clone()).or_default() += 1;
                let old = std::mem::replace(&mut p.id, new.clone());
                state.aliases.insert(old, new.clone());
            }
            let p = &mut state.pieces[i];
            p.kind = kind;
            (p.life, p.size, p.diagonal) = (*life, *size, *diagonal);
            if at.is_some() {
                p.at = *at;
            }
        }
        Action::Enter { id, at } => {
            let Some(i) = piece(state, id) else { return false };
            state.pieces[i].at = Some(*at);
            state.pieces[i].status = ON_BOARD.into();
        }
        Action::Leave { id, status } => {
            let Some(i) = piece(state, id) else { return false };
            state.pieces[i].at = None;
            state.pieces[i].point = None;
            state.pieces[i].status.clone_from(status);
        }
        Action::Move { id, path } => {
            let Some(i) = piece(state, id) else { return false };
            let Some(last) = path.last() else { return false };
            state.pieces[i].at = Some(*last);
        }
        Action::Door { a, b, open } => state.doors.push((*a, *b, *open)),
        Action::Damage { id, amount } => {
            let Some(i) = piece(state, id) else { return false };
            state.pieces[i].life = state.pieces[i].life.saturating_sub(*amount);
        }
        Action::Remove { id } => {
            let Some(i) = piece(state, id) else { return false };
            state.pieces[i].at = None;
            state.pieces[i].point = None;
            state.pieces[i].status = REMOVED.into();
        }
        Action::Set { id, field, value } => {
            let Some(i) = piece(state, id) else { return false };
            // A piece's own `diagonal` (true or false) overrides its record's for how it
            // steps: a reading a package's option decides, model by model.
            if field == "diagonal"
                && let Some(d) = value.as_bool()
            {
                state.pieces[i].diagonal = d;
            }
            if value.is_null() {
                state.pieces[i].fields.shift_remove(field);
            } else {
                state.pieces[i].fields.insert(field.clone(), value.clone());
            }
        }
        Action::SetVar { name, value } => {
            state.vars.insert(name.clone(), value.clone());
        }
        Action::Entered { side, section } => {
            let list = state.entered.entry(side.clone()).or_default();
            if !list.contains(section) {
                list.push(section.clone());
            }
        }
        Action::Score { side, points } => {
            let score = state.scores.entry(side.clone()).or_default();
            let Some(total) = score.checked_add(*points) else {
                return false;
            };
            *score = total;
        }
        Action::Collect { side, token } => state.collected.entry(side.clone()).or_default().push(token.clone()),
        Action::NewPool { id, entries, secret } => {
            if !pool_ok(entries) {
                return false;
            }
            state.pools.insert(id.clone(), entries.clone());
            if *secret {
                state.secret_pools.insert(id.clone());
            } else {
                state.secret_pools.remove(id);
            }
        }
        Action::Take { pool, entry, n } => {
            let Some(pool) = state.pools.get_mut(pool) else {
                return false;
            };
            // A negative take returns tokens, and may add an entry the pool did not have.
            if *n >= 0 && !pool.contains_key(entry) {
                return false;
            }
            let count = pool.entry(entry.clone()).or_default();
            let Some(left) = count.checked_sub(*n) else {
                return false;
            };
            *count = left;
            if !pool_ok(pool) {
                return false;
            }
        }
        Action::NewDeck { id, cards } => {
            state.decks.insert(id.clone(), cards.clone());
        }
        Action::Draw { deck, card } => {
            let Some(d) = state.decks.get_mut(deck) else {
                return false;
            };
            match card {
                None => {
                    if d.pop().is_none() {
                        return false;
                    }
                }
                Some(card) => {
                    let Some(i) = d.iter().rposition(|c| c == card) else {
                        return false;
                    };
                    d.remove(i);
                }
            }
        }
        Action::End { winner, reason } => {
            state.over = Some(Outcome {
                winner: winner.clone(),
                reason: reason.clone(),
            });
        }
        Action::UseBattlefield { id } => state.battlefield = Some(id.clone()),
        Action::AddZone { name, corners, hides } => {
            if state.battlefield.is_none()
                || corners.len() < 3
                || corners.iter().any(|p| !p.x.is_finite() || !p.y.is_finite())
                || state.added_zones.iter().any(|z| z.name == *name)
            {
                return false;
            }
            state.added_zones.push(AddedZone {
                name: name.clone(),
                corners: corners.clone(),
                hides: *hides,
            });
            state.field_cache = FieldCache::default();
        }
        Action::Mark { name, point } => match point {
            Some(p) if p.x.is_finite() && p.y.is_finite() && state.battlefield.is_some() => {
                state.marks.insert(name.clone(), *p);
            }
            Some(_) => return false,
            None => {
                if state.marks.shift_remove(name).is_none() {
                    return false;
                }
            }
        },
        Action::Stand { id, point } => {
            let Some(i) = piece(state, id) else { return false };
            let p = &mut state.pieces[i];
            if p.at.is_some() || !point.x.is_finite() || !point.y.is_finite() {
                return false;
            }
            p.point = Some(*point);
            p.status = ON_BOARD.into();
        }
        Action::Models { id, offsets, records } => {
            let Some(i) = piece(state, id) else { return false };
            if state.pieces[i].point.is_none()
                || offsets.iter().any(|o| !o.x.is_finite() || !o.y.is_finite())
                || (!records.is_empty() && records.len() != offsets.len())
            {
                return false;
            }
            state.pieces[i].models.clone_from(offsets);
            state.pieces[i].model_records.clone_from(records);
        }
        Action::Walk { id, route } => {
            let Some(i) = piece(state, id) else { return false };
            let Some(last) = route.last() else { return false };
            if state.pieces[i].point.is_none() || !last.x.is_finite() || !last.y.is_finite() {
                return false;
            }
            state.pieces[i].point = Some(*last);
        }
        Action::Face { id, facing } => {
            let Some(i) = piece(state, id) else { return false };
            if *facing > 3 {
                return false;
            }
            state.pieces[i].facing = Some(*facing);
        }
        Action::Ap { values } => {
            for (id, left) in values {
                let Some(i) = piece(state, id) else { return false };
                state.pieces[i].ap = Some(*left);
            }
        }
        Action::Watch { id, mode } => {
            let Some(i) = piece(state, id) else { return false };
            state.pieces[i].watch.clone_from(mode);
        }
    }
    true
}
