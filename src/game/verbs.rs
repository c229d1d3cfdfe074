//! Decision verbs: whole clauses of an enemy's behaviour decided in Rust — which pieces act
//! and in what order, whom a piece picks as its target, where it advances or falls back to.
//! Each is one call from a script instead of a loop of board questions, and each has its
//! fallbacks written down here and in the authors' reference (grammar/README.md, "Decision
//! verbs"). No Rhai here: the binding (`api.rs`) converts and charges; moves are walked by
//! the same `walk` as every other move, so the log, triggers, saves and undo see no
//! difference.

use super::Game;
use super::state::Piece;
use super::view::Goal;
use crate::board::moves::UNREACHABLE;
use crate::board::{DIRECTIONS, Square};
use crate::dice::Rng;

/// Which of a side's pieces on the board `units` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    All,
    Hidden,
    FaceUp,
}

impl Filter {
    pub const NAMES: [&'static str; 3] = ["all", "hidden", "face-up"];

    pub fn parse(name: &str) -> Result<Filter, String> {
        match name {
            "all" => Ok(Filter::All),
            "hidden" => Ok(Filter::Hidden),
            "face-up" => Ok(Filter::FaceUp),
            _ => Err(unknown("filter", name, &Self::NAMES)),
        }
    }

    fn keeps(self, p: &Piece) -> bool {
        match self {
            Filter::All => true,
            Filter::Hidden => p.hidden.is_some(),
            Filter::FaceUp => p.hidden.is_none(),
        }
    }
}

/// The order `units` lists them in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// The order they came into play (placement order).
    Spawn,
    /// Nearest to any piece of another side first (steps, doors passable); equally near
    /// ones in an order the dice decide; those no way leads from, last.
    NearestEnemy,
}

impl Order {
    pub const NAMES: [&'static str; 2] = ["spawn", "nearest-enemy"];

    pub fn parse(name: &str) -> Result<Order, String> {
        match name {
            "spawn" => Ok(Order::Spawn),
            "nearest-enemy" => Ok(Order::NearestEnemy),
            _ => Err(unknown("order", name, &Self::NAMES)),
        }
    }
}

/// How a target must be seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sight {
    /// No sight needed.
    Any,
    /// In sight to shoot: other pieces block the line.
    Shoot,
}

/// What `target` picks among: the rule of a seed clause such as "the nearest Marine in
/// sight; at equal distance, heavy weapons first".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetRule {
    pub sight: Sight,
    /// Only pieces on one of the four squares beside it (no wall or shut door between).
    pub adjacent: bool,
    /// Face-down pieces are never targets (`true` unless asked otherwise).
    pub face_up: bool,
    /// At equal distance, kinds earlier in this list first; kinds not in it after them.
    pub rank: Vec<String>,
    /// Ties left after distance and rank: the dice decide (`true`) or placement order.
    pub random_ties: bool,
}

impl Default for TargetRule {
    fn default() -> Self {
        TargetRule {
            sight: Sight::Any,
            adjacent: false,
            face_up: true,
            rank: Vec::new(),
            random_ties: false,
        }
    }
}

/// How `advance` chooses where to go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Advance {
    /// As near to the nearest enemy as the move allows.
    Towards,
    /// To a square beside the nearest enemy (one of its four sides, no wall between) from
    /// which it can fight; when none can be reached, as near as it can get.
    Engage,
}

impl Advance {
    pub const NAMES: [&'static str; 2] = ["towards", "engage"];

    pub fn parse(name: &str) -> Result<Advance, String> {
        match name {
            "towards" => Ok(Advance::Towards),
            "engage" => Ok(Advance::Engage),
            _ => Err(unknown("way to advance", name, &Self::NAMES)),
        }
    }
}

/// What [`Game::target_choice`] chose, and among what: `candidates` as (piece, steps away,
/// place in the rule's rank), nearest first; `tied` of them shared the best place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetChoice {
    pub chosen: usize,
    pub tied: usize,
    pub candidates: Vec<(usize, u16, usize)>,
}

/// A move a verb decided on: the squares to walk (empty: it stays), and why, for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub path: Vec<Square>,
    pub why: String,
}

fn unknown(what: &str, name: &str, names: &[&str]) -> String {
    let hint = crate::diagnostic::did_you_mean(name, names.iter().copied())
        .unwrap_or_else(|| format!("one of: {}", names.join(", ")));
    format!("no {what} `{name}`; {hint}")
}

impl Game {
    /// Pieces of `side` on the board that pass `filter`, in `order`.
    pub fn units(&self, side: &str, filter: Filter, order: Order, rng: &mut Rng) -> Vec<usize> {
        let pieces = &self.state.pieces;
        let mut out: Vec<usize> = (0..pieces.len())
            .filter(|&i| pieces[i].on_board() && pieces[i].side == side && filter.keeps(&pieces[i]))
            .collect();
        if order == Order::NearestEnemy && out.len() > 1 {
            let field = self.enemy_field(side, &pieces[out[0]]);
            let mut keyed: Vec<(u16, usize)> = out
                .iter()
                .map(|&i| {
                    (
                        field.as_ref().map_or(UNREACHABLE, |f| {
                            self.view.steps_in(f, &pieces[i]).unwrap_or(UNREACHABLE)
                        }),
                        i,
                    )
                })
                .collect();
            keyed.sort_unstable();
            shuffle_ties(&mut keyed, rng);
            out = keyed.into_iter().map(|(_, i)| i).collect();
        }
        out
    }

    /// The distance field to every piece on the board of a side other than `side`, for a
    /// piece that steps like `like`; `None` when there is none.
    fn enemy_field(&self, side: &str, like: &Piece) -> Option<std::sync::Arc<[u16]>> {
        let squares: Vec<Square> = self
            .state
            .pieces
            .iter()
            .filter(|p| p.on_board() && p.side != side)
            .flat_map(|p| p.squares())
            .collect();
        (!squares.is_empty()).then(|| self.view.field_to(like, &squares))
    }

    /// The piece of `side` that piece `a` picks by `rule`: nearest first (steps, doors
    /// passable), then the rule's rank of kinds, then placement order or the dice. `None`
    /// when no piece passes the rule.
    pub fn target(&self, a: usize, side: &str, rule: &TargetRule, rng: &mut Rng) -> Option<usize> {
        self.target_choice(a, side, rule, rng).map(|c| c.chosen)
    }

    /// [`Game::target`] with what it chose among: every piece that passed the rule's filters,
    /// nearest first, and how many shared the best place (a tie the dice or the order broke).
    pub fn target_choice(&self, a: usize, side: &str, rule: &TargetRule, rng: &mut Rng) -> Option<TargetChoice> {
        let pieces = &self.state.pieces;
        let beside = if rule.adjacent {
            self.view.adjacent(pieces, a, side)
        } else {
            Vec::new()
        };
        let rank_of = |i: usize| {
            rule.rank
                .iter()
                .position(|k| *k == pieces[i].kind)
                .unwrap_or(rule.rank.len())
        };
        let mut candidates: Vec<((u16, usize), usize)> = self
            .view
            .by_distance(pieces, a, side)
            .into_iter()
            .filter(|&(b, _)| !rule.face_up || pieces[b].hidden.is_none())
            .filter(|&(b, _)| !rule.adjacent || beside.contains(&b))
            .filter(|&(b, _)| rule.sight == Sight::Any || self.view.sees(pieces, a, b, true))
            .map(|(b, d)| ((d, rank_of(b)), b))
            .collect();
        candidates.sort_unstable();
        let best = candidates.first()?.0;
        let tied: Vec<usize> = candidates
            .iter()
            .take_while(|(k, _)| *k == best)
            .map(|&(_, b)| b)
            .collect();
        let chosen = if rule.random_ties && tied.len() > 1 {
            tied[rng.below(tied.len() as u64) as usize]
        } else {
            tied[0]
        };
        Some(TargetChoice {
            chosen,
            tied: tied.len(),
            candidates: candidates.into_iter().map(|((d, rank), b)| (b, d, rank)).collect(),
        })
    }

    /// Where piece `a` advances on the nearest piece of `side` with a move of `max` steps.
    /// Fallbacks, in order: a square it can fight from (with `Engage`) or as near as the move
    /// allows; when no way leads to it, it stays. Ties: fewest steps, then the dice.
    pub fn plan_advance(&self, a: usize, side: &str, max: u16, how: Advance, rng: &mut Rng) -> Plan {
        let pieces = &self.state.pieces;
        let Some(&(target, distance)) = self.view.by_distance(pieces, a, side).first() else {
            return stay(format!("no {side} piece can be reached"));
        };
        let name = &pieces[target].id;
        if how == Advance::Engage {
            let fronts = self.fronts(target);
            let field = self.view.field_to(&pieces[a], &fronts);
            if let Some(d) = self.view.steps_in(&field, &pieces[a]) {
                if d == 0 {
                    return stay(format!("already beside {name}"));
                }
                if let Some(path) = self.view.plan(pieces, a, Goal::Towards(&field), max, rng) {
                    let why =
                        if path.len() as u16 >= d && self.view.steps_in(&field, &moved(&pieces[a], &path)) == Some(0) {
                            format!("to fight {name}, the nearest {side} piece")
                        } else {
                            format!("towards {name}, the nearest {side} piece ({distance} away)")
                        };
                    return Plan { path, why };
                }
            }
        }
        let field = self.view.field_to(&pieces[a], &pieces[target].squares());
        match self.view.plan(pieces, a, Goal::Towards(&field), max, rng) {
            Some(path) => Plan {
                path,
                why: format!("towards {name}, the nearest {side} piece ({distance} away)"),
            },
            None => stay(format!("no square nearer to {name} can be reached")),
        }
    }

    /// Where piece `a` falls back to from every piece of `side` on the board, with a move of
    /// `max` steps: the square farthest (in steps, doors passable) from the nearest of them,
    /// never passing one; fewest steps, then the dice on ties. It stays when no square is
    /// farther than where it stands.
    pub fn plan_withdraw(&self, a: usize, side: &str, max: u16, rng: &mut Rng) -> Plan {
        let pieces = &self.state.pieces;
        let squares: Vec<Square> = pieces
            .iter()
            .filter(|p| p.on_board() && p.side == side)
            .flat_map(|p| p.squares())
            .collect();
        if squares.is_empty() {
            return stay(format!("no {side} piece to fall back from"));
        }
        let field = self.view.field_to(&pieces[a], &squares);
        match self.view.plan(pieces, a, Goal::Away(&field), max, rng) {
            Some(path) => {
                let d = self
                    .view
                    .steps_in(&field, &moved(&pieces[a], &path))
                    .unwrap_or(UNREACHABLE);
                Plan {
                    path,
                    why: format!("away from every {side} piece ({d} from the nearest)"),
                }
            }
            None => stay(format!("no square farther from the {side} side can be reached")),
        }
    }

    /// The squares from which a piece can fight piece `t`: beside one of its squares, on the
    /// four sides, with no wall or shut door between, not solid.
    fn fronts(&self, t: usize) -> Vec<Square> {
        let own = self.state.pieces[t].squares();
        let grid = &self.view.grid;
        let mut out = Vec::new();
        for &s in &own {
            for &(dx, dy) in &DIRECTIONS[..4] {
                let n = s.offset(dx, dy);
                if grid.contains(n)
                    && !grid.is_solid(n)
                    && !own.contains(&n)
                    && !grid.edge(s, n).blocks()
                    && !out.contains(&n)
                {
                    out.push(n);
                }
            }
        }
        out
    }
}

fn stay(why: String) -> Plan {
    Plan { path: Vec::new(), why }
}

/// A copy of `p` standing at the end of `path`.
fn moved(p: &Piece, path: &[Square]) -> Piece {
    let mut q = p.clone();
    if let Some(&end) = path.last() {
        q.at = Some(end);
    }
    q
}

/// Within each run of equal keys, an order the dice decide (Fisher–Yates on the run's RNG).
fn shuffle_ties(keyed: &mut [(u16, usize)], rng: &mut Rng) {
    let mut start = 0;
    while start < keyed.len() {
        let mut end = start + 1;
        while end < keyed.len() && keyed[end].0 == keyed[start].0 {
            end += 1;
        }
        for i in (start + 1..end).rev() {
            let j = start + rng.below((i - start + 1) as u64) as usize;
            keyed.swap(i, j);
        }
        start = end;
    }
}
