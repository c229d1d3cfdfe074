//! Decision verbs: whole clauses of an enemy's behaviour decided in Rust — which pieces act
//! and in what order, whom a piece picks as its target, where it advances or falls back to.
//! Each is one call from a script instead of a loop of board questions, and each has its
//! fallbacks written down here and in the authors' reference (docs/verbs.md, "Decision
//! verbs"). No Rhai here: the binding (`api/verbs.rs`) converts and charges; moves are walked
//! by the same `walk` as every other move, so the log, triggers, saves and undo see no
//! difference.
//!
//! The verbs: `units`, `target`, `plan_advance` (its `Engage` way opens a shut door to fight
//! across it: `Plan.door`), `plan_withdraw`, `plan_aim` (its `Blast` way scores a square by
//! what its best blast would catch, [`Game::blast_hits_from`]), `plan_cover` (a walk to a
//! chosen square, ending with the piece's top-left square on it: `view::Goal::Onto`), and
//! `rank`/`rank_all`: a priority list as data, `Rung`s of `Criterion`s, taken first rung only
//! or narrowed rung by rung ([`RankMode`]). Every tie among pieces is settled by a die of as
//! many sides as are tied (`tie_die`), which the binding logs as a roll before the choice or
//! move it settles (`TargetChoice::die`, `Plan::die`; a planned move names its target,
//! `Plan::toward`). `shuffle_ties` puts the equal ones of a ranked list in dice order, for
//! `units` and the battlefield's `by_range`.

use super::Game;
use super::state::{Piece, footprint};
use super::view::Goal;
use crate::board::moves::{Ties, UNREACHABLE};
use crate::board::{DIRECTIONS, Edge, Square, area, los};
use crate::dice::Rng;
use crate::ruleset::Purpose;

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

/// What `target` picks among: the rule of a seed clause such as "the nearest enemy in
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
    /// Ties left after distance and rank: the dice decide (`true`, the default: the seeds
    /// say "in doubt, roll a die") or placement order, where a package declares it.
    pub random_ties: bool,
}

impl Default for TargetRule {
    fn default() -> Self {
        TargetRule {
            sight: Sight::Any,
            adjacent: false,
            face_up: true,
            rank: Vec::new(),
            random_ties: true,
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

/// A die that broke a tie: among how many, and the number it showed (from 1).
pub type TieDie = (u64, u64);

/// What [`Game::target_choice`] chose, and among what: `candidates` as (piece, steps away,
/// place in the rule's rank), nearest first; `tied` of them shared the best place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetChoice {
    pub chosen: usize,
    pub tied: usize,
    pub candidates: Vec<(usize, u16, usize)>,
    /// The die that broke the tie.
    pub die: Option<TieDie>,
}

/// Which square with a shot `aim` looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aim {
    /// The nearest square (fewest steps) from which it sees any face-up piece of the side.
    Nearest,
    /// The square within its move from which it sees the most of them (then fewest steps).
    Most,
    /// The square within its move from which one blast it can see catches the most of them,
    /// and neither itself nor a piece of its own side (then fewest steps).
    Blast,
}

impl Aim {
    pub const NAMES: [&'static str; 3] = ["nearest", "most", "blast"];

    pub fn parse(name: &str) -> Result<Aim, String> {
        match name {
            "nearest" => Ok(Aim::Nearest),
            "most" => Ok(Aim::Most),
            "blast" => Ok(Aim::Blast),
            _ => Err(unknown("way to aim", name, &Self::NAMES)),
        }
    }
}

/// A move a verb decided on: the squares to walk (empty: it stays), and why, for the log;
/// `door`, a closed door it opens once it stands where the walk ends (to fight across it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub path: Vec<Square>,
    pub why: String,
    pub door: Option<(Square, Square)>,
    /// The piece the move heads for, if it heads for one (the log's `target` of the move).
    pub toward: Option<String>,
    /// The die that picked `toward` among pieces as near.
    pub die: Option<TieDie>,
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
            shuffle_ties(&mut keyed, |a, b| a.0 == b.0, rng);
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
            .filter(|&(b, _)| rule.sight == Sight::Any || self.view.sees(pieces, a, b, Purpose::Shoot))
            .map(|(b, d)| ((d, rank_of(b)), b))
            .collect();
        candidates.sort_unstable();
        let best = candidates.first()?.0;
        let tied: Vec<usize> = candidates
            .iter()
            .take_while(|(k, _)| *k == best)
            .map(|&(_, b)| b)
            .collect();
        let (chosen, die) = if rule.random_ties && tied.len() > 1 {
            let (k, die) = self.tie_die(&tied, a, &format!("{}'s target", pieces[a].id), rng);
            (tied[k], Some(die))
        } else {
            (tied[0], None)
        };
        Some(TargetChoice {
            chosen,
            die,
            tied: tied.len(),
            candidates: candidates.into_iter().map(|((d, rank), b)| (b, d, rank)).collect(),
        })
    }

    /// The piece of `side` nearest `a` (steps, doors passable), its distance, and the die
    /// that broke a tie (among how many, what it showed from 1): among pieces as near, a die
    /// decides (one the player rolls at the table, [`Rng::pick`]). `None` when none can be
    /// reached.
    pub fn nearest(&self, a: usize, side: &str, rng: &mut Rng) -> Option<(usize, u16, Option<TieDie>)> {
        let pieces = &self.state.pieces;
        let near = self.view.by_distance(pieces, a, side);
        let &(_, best) = near.first()?;
        let tied: Vec<usize> = near.iter().take_while(|&&(_, d)| d == best).map(|&(b, _)| b).collect();
        if tied.len() == 1 {
            return Some((tied[0], best, None));
        }
        let what = format!("the {side} piece {} heads for", pieces[a].id);
        let (k, die) = self.tie_die(&tied, a, &what, rng);
        Some((tied[k], best, Some(die)))
    }

    /// The die among the `tied` pieces (two or more) for `what` they tie as, piece `a`'s
    /// roll: the place of the one it picks, and the die. At the table the player rolls it,
    /// told which number is whom.
    fn tie_die(&self, tied: &[usize], a: usize, what: &str, rng: &mut Rng) -> (usize, TieDie) {
        let pieces = &self.state.pieces;
        let n = tied.len() as u64;
        // Whose die it is, for the table's pacing.
        let k = rng.pick_for(Some(&pieces[a].id), crate::dice::rng::Kind::Tie, n, &|| {
            let names: Vec<String> = tied
                .iter()
                .enumerate()
                .map(|(k, &b)| format!("{} {}", k + 1, pieces[b].id))
                .collect();
            (
                (1..=n).map(|k| k.to_string()).collect(),
                format!("{what}, among equals: {}", names.join(", ")),
            )
        });
        (k as usize, (n, k + 1))
    }

    /// Where piece `a` advances on the nearest piece of `side` with a move of `max` steps.
    /// Fallbacks, in order: a square it can fight from (with `Engage`) or as near as the move
    /// allows; when no way leads to it, it stays. Ties: fewest steps, then the dice.
    pub fn plan_advance(&self, a: usize, side: &str, max: u16, how: Advance, rng: &mut Rng) -> Plan {
        let Some((target, distance, die)) = self.nearest(a, side, rng) else {
            return stay(format!("no {side} piece can be reached"));
        };
        let mut plan = self.plan_advance_on(a, side, (target, distance), max, how, rng);
        plan.die = die;
        plan
    }

    /// [`Game::plan_advance`] once the nearest piece is known: `target` at `distance`.
    fn plan_advance_on(
        &self,
        a: usize,
        side: &str,
        nearest: (usize, u16),
        max: u16,
        how: Advance,
        rng: &mut Rng,
    ) -> Plan {
        let (target, distance) = nearest;
        let pieces = &self.state.pieces;
        let name = &pieces[target].id;
        if how == Advance::Engage {
            let fronts = self.fronts(target);
            let field = self.view.field_to(&pieces[a], &fronts);
            if let Some(d) = self.view.steps_in(&field, &pieces[a]) {
                if d == 0 {
                    let mut plan = stay(format!("already beside {name}"));
                    plan.door = self.door_to_fight(&pieces[a], target);
                    if plan.door.is_some() {
                        plan.why = format!("beside {name}, behind a closed door it opens to fight");
                    }
                    return plan;
                }
                if let Some(path) = self.view.plan(pieces, a, Goal::Towards(&field), max, rng) {
                    let end = moved(&pieces[a], &path);
                    let beside = path.len() as u16 >= d && self.view.steps_in(&field, &end) == Some(0);
                    let door = if beside { self.door_to_fight(&end, target) } else { None };
                    let why = if door.is_some() {
                        format!("to fight {name}, the nearest {side} piece, opening the door between")
                    } else if beside {
                        format!("to fight {name}, the nearest {side} piece")
                    } else {
                        format!("towards {name}, the nearest {side} piece ({distance} away)")
                    };
                    return Plan {
                        path,
                        why,
                        door,
                        toward: Some(name.clone()),
                        die: None,
                    };
                }
            }
        }
        let field = self.view.field_to(&pieces[a], &pieces[target].squares());
        match self.view.plan(pieces, a, Goal::Towards(&field), max, rng) {
            Some(path) => Plan {
                path,
                why: format!("towards {name}, the nearest {side} piece ({distance} away)"),
                door: None,
                toward: Some(name.clone()),
                die: None,
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
                    door: None,
                    toward: None,
                    die: None,
                }
            }
            None => stay(format!("no square farther from the {side} side can be reached")),
        }
    }

    /// The pieces of `targets` that piece `a` would see to shoot at with its top-left square
    /// on `at` (other pieces block the line; `a` itself does not, wherever it stands now).
    fn seen_from(&self, a: usize, at: Square, targets: &[usize]) -> Vec<usize> {
        let pieces = &self.state.pieces;
        let from = footprint(Some(at), pieces[a].size);
        targets
            .iter()
            .copied()
            .filter(|&t| {
                let passes = |o: usize| o == a || o == t;
                pieces[t].squares().iter().any(|&ts| {
                    self.view
                        .line(&self.view.grid, pieces, &from, ts, Purpose::Shoot, &passes)
                })
            })
            .collect()
    }

    /// How many of `targets` the best blast piece `a` could fire with its top-left square on
    /// `at` would catch: a blast on a square it sees from there (other pieces block the line),
    /// catching neither `a` itself standing there nor any piece of its own side. 0 when none
    /// catches one.
    pub fn blast_hits_from(&self, a: usize, at: Square, targets: &[usize]) -> usize {
        let pieces = &self.state.pieces;
        let grid = &self.view.grid;
        let from = footprint(Some(at), pieces[a].size);
        // Who stands on a square once `a` stands on `at`.
        let occupant = |s: Square| {
            if from.contains(&s) {
                Some(a)
            } else {
                self.view.occupant(s).filter(|&o| o != a)
            }
        };
        let mut candidates: Vec<Square> = Vec::new();
        for t in self.seen_from(a, at, targets) {
            for s in pieces[t].squares() {
                for n in area::blast(grid, s) {
                    if !candidates.contains(&n) {
                        candidates.push(n);
                    }
                }
            }
        }
        let mut best = 0;
        for s in candidates {
            let blocks = |q: Square| q != s && !from.contains(&q) && occupant(q).is_some();
            if los::from_footprint(grid, &from, s, &blocks).is_none() {
                continue;
            }
            let mut caught: Vec<usize> = area::blast(grid, s).into_iter().filter_map(occupant).collect();
            caught.sort_unstable();
            caught.dedup();
            if caught.iter().any(|&o| o == a || pieces[o].side == pieces[a].side) {
                continue;
            }
            best = best.max(caught.iter().filter(|o| targets.contains(o)).count());
        }
        best
    }

    /// Whether no piece of `watchers` sees any square of piece `a` standing on `at`: walls
    /// hide it, pieces as the game's sight rule says (the sight that reveals: by default they
    /// never do), and doors are counted open (the walk there may open them, and a door left
    /// shut may be opened by the side it hides from).
    fn hidden_at(&self, a: usize, at: Square, watchers: &[usize]) -> bool {
        let pieces = &self.state.pieces;
        let own = footprint(Some(at), pieces[a].size);
        let grid = self.view.open_grid();
        !watchers.iter().any(|&w| {
            let from = pieces[w].squares();
            own.iter().any(|&s| {
                self.view
                    .line(grid, pieces, &from, s, Purpose::Spot, &|o| o == w || o == a)
            })
        })
    }

    /// Of the squares `a` may end a move on within `max` steps that pass `good`, the best by
    /// `key` (smaller first), then the dice among the equal ones (reading order). `Some(None)`
    /// when the best is where it stands; `None` when no reachable square passes.
    fn best_reachable<K: Ord + Copy>(
        &self,
        a: usize,
        max: u16,
        rng: &mut Rng,
        mut key: impl FnMut(Square, u16) -> Option<K>,
    ) -> Option<Option<(Square, K)>> {
        let pieces = &self.state.pieces;
        let grid = &self.view.grid;
        let here = pieces[a].at?;
        let mut best = Ties::default();
        for (at, steps) in self.view.reachable(pieces, a, max) {
            if let Some(k) = key(at, steps) {
                best.offer(k, grid.index(at));
            }
        }
        best.key()?;
        if best.contains(grid.index(here)) {
            return Some(None);
        }
        best.pick(rng).map(|(k, i)| Some((grid.square(i), k)))
    }

    /// The walk to a square found by `best_reachable` (the square itself is the goal).
    fn walk_to(&self, a: usize, to: Square, max: u16, rng: &mut Rng) -> Vec<Square> {
        let pieces = &self.state.pieces;
        let field = self.view.field_to(&pieces[a], &[to]);
        self.view
            .plan(pieces, a, Goal::Onto(&field), max, rng)
            .unwrap_or_default()
    }

    /// Towards the nearest of `squares`, places for its top-left square (as near as `max`
    /// steps allow), or `None` when it cannot get nearer than it stands.
    fn towards_squares(&self, a: usize, squares: &[Square], max: u16, rng: &mut Rng) -> Option<(Vec<Square>, u16)> {
        let pieces = &self.state.pieces;
        let field = self.view.field_to(&pieces[a], squares);
        let here = pieces[a].at?;
        let d = field
            .get(self.view.grid.index(here))
            .copied()
            .filter(|&d| d != UNREACHABLE)?;
        let path = self.view.plan(pieces, a, Goal::Onto(&field), max, rng)?;
        Some((path, d))
    }

    /// The squares of the board where piece `a` could stand (its top-left square) that pass
    /// `good`, in reading order.
    fn standing_squares(&self, a: usize, mut good: impl FnMut(Square) -> bool) -> Vec<Square> {
        let pieces = &self.state.pieces;
        (0..self.view.grid.len())
            .map(|i| self.view.grid.square(i))
            .filter(|&s| self.view.may_end(pieces, a, s) && good(s))
            .collect()
    }

    /// Where piece `a` goes with a move of `max` steps to get a shot at a face-up piece of
    /// `side`. `Nearest`: the reachable square fewest steps away from which it sees one;
    /// `Most`: the reachable square from which it sees the most (then fewest steps); equal
    /// squares, the dice. Fallbacks, in order: it stays where it already has the best shot →
    /// none in reach: as near as it can get to the nearest square on the board with a shot →
    /// none on the board: as near as it can get to the nearest piece of `side` → it stays.
    pub fn plan_aim(&self, a: usize, side: &str, max: u16, aim: Aim, rng: &mut Rng) -> Plan {
        let pieces = &self.state.pieces;
        let targets: Vec<usize> = (0..pieces.len())
            .filter(|&t| t != a && pieces[t].on_board() && pieces[t].side == side && pieces[t].hidden.is_none())
            .collect();
        if targets.is_empty() {
            return stay(format!("no face-up {side} piece to aim at"));
        }
        // What a square is worth: the pieces it sees, or those its best blast catches.
        let worth = |at: Square| match aim {
            Aim::Blast => self.blast_hits_from(a, at, &targets),
            _ => self.seen_from(a, at, &targets).len(),
        };
        let found = self.best_reachable(a, max, rng, |at, steps| {
            let seen = worth(at);
            (seen > 0).then_some(match aim {
                Aim::Nearest => (0, steps),
                Aim::Most | Aim::Blast => (usize::MAX - seen, steps),
            })
        });
        match found {
            Some(None) => {
                return stay(match aim {
                    Aim::Blast => format!("its blast already catches the most {side} pieces where it stands"),
                    _ => format!("it already has a {side} piece in sight to shoot"),
                });
            }
            Some(Some((to, (k, _)))) => {
                let path = self.walk_to(a, to, max, rng);
                if !path.is_empty() {
                    let why = match aim {
                        Aim::Nearest => format!("to the nearest square with a {side} piece in sight"),
                        Aim::Most => format!(
                            "to the square in reach that sees the most {side} pieces ({})",
                            usize::MAX - k
                        ),
                        Aim::Blast => format!(
                            "to the square in reach whose blast catches the most {side} pieces ({}) and none of its own",
                            usize::MAX - k
                        ),
                    };
                    return Plan {
                        path,
                        why,
                        door: None,
                        toward: None,
                        die: None,
                    };
                }
            }
            None => {}
        }
        let squares = self.standing_squares(a, |s| worth(s) > 0);
        if !squares.is_empty()
            && let Some((path, d)) = self.towards_squares(a, &squares, max, rng)
        {
            return Plan {
                path,
                why: format!("towards the nearest square with a {side} piece in sight ({d} away)"),
                door: None,
                toward: None,
                die: None,
            };
        }
        let mut plan = self.plan_advance(a, side, max, Advance::Towards, rng);
        plan.why = format!("no square in reach has a {side} piece in sight: {}", plan.why);
        plan
    }

    /// Where piece `a` goes with a move of `max` steps to get out of sight of every piece of
    /// `side` on the board (walls hide, doors count as open, pieces never hide): the reachable square
    /// fewest steps away that none of them sees, the dice among equal ones. Fallbacks, in order:
    /// it stays when already out of sight → none in reach: as near as it can get to the
    /// nearest such square on the board → none: it stays.
    pub fn plan_cover(&self, a: usize, side: &str, max: u16, rng: &mut Rng) -> Plan {
        let pieces = &self.state.pieces;
        let watchers: Vec<usize> = (0..pieces.len())
            .filter(|&w| w != a && pieces[w].on_board() && pieces[w].side == side)
            .collect();
        if watchers.is_empty() {
            return stay(format!("no {side} piece to hide from"));
        }
        let found = self.best_reachable(a, max, rng, |at, steps| {
            self.hidden_at(a, at, &watchers).then_some(steps)
        });
        match found {
            Some(None) => return stay(format!("already out of sight of every {side} piece")),
            Some(Some((to, _))) => {
                let path = self.walk_to(a, to, max, rng);
                if !path.is_empty() {
                    return Plan {
                        path,
                        why: format!("to the nearest square out of sight of every {side} piece"),
                        door: None,
                        toward: None,
                        die: None,
                    };
                }
            }
            None => {}
        }
        let squares = self.standing_squares(a, |s| self.hidden_at(a, s, &watchers));
        if let Some((path, d)) = self.towards_squares(a, &squares, max, rng) {
            return Plan {
                path,
                why: format!("towards the nearest square out of sight of every {side} piece ({d} away)"),
                door: None,
                toward: None,
                die: None,
            };
        }
        stay(format!("no square out of sight of the {side} side can be reached"))
    }

    /// The open doors that, shut, would cut a line of sight between a piece of `side` and a
    /// piece of `other` on the board that see each other now (walls and shut doors block;
    /// pieces never do), in the grid's order of doors.
    pub fn doors_cutting_sight(&self, side: &str, other: &str) -> Vec<(Square, Square)> {
        let pieces = &self.state.pieces;
        let on = |s: &str| -> Vec<usize> {
            (0..pieces.len())
                .filter(|&i| pieces[i].on_board() && pieces[i].side == s)
                .collect()
        };
        let sees = |grid: &crate::board::Grid, p: usize, q: usize| {
            let from = pieces[p].squares();
            pieces[q].squares().iter().any(|&t| {
                self.view
                    .line(grid, pieces, &from, t, Purpose::Spot, &|o| o == p || o == q)
            })
        };
        let grid = &self.view.grid;
        let (ours, theirs) = (on(side), on(other));
        let pairs: Vec<(usize, usize)> = ours
            .iter()
            .flat_map(|&p| theirs.iter().map(move |&q| (p, q)))
            .filter(|&(p, q)| sees(grid, p, q))
            .collect();
        if pairs.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (a, b, open) in grid.doors() {
            if !open {
                continue;
            }
            let mut shut = grid.clone();
            shut.set_door(a, b, false);
            if pairs.iter().any(|&(p, q)| !sees(&shut, p, q)) {
                out.push((a, b));
            }
        }
        out
    }

    /// The squares from which a piece can fight piece `t`: beside one of its squares, on the
    /// four sides, with no wall between, not solid. A shut door between counts only where a
    /// step opens doors (`doors open-on-step`): the piece opens it from there, as a step would,
    /// and fights (`door_to_fight`).
    fn fronts(&self, t: usize) -> Vec<Square> {
        let own = self.state.pieces[t].squares();
        let grid = &self.view.grid;
        let through_doors = self.view.doors.open_on_step;
        let mut out = Vec::new();
        for &s in &own {
            for &(dx, dy) in &DIRECTIONS[..4] {
                let n = s.offset(dx, dy);
                let edge = grid.edge(s, n);
                let passable = !edge.blocks() || (through_doors && edge == Edge::Door { open: false });
                if grid.contains(n) && !grid.is_solid(n) && !own.contains(&n) && passable && !out.contains(&n) {
                    out.push(n);
                }
            }
        }
        out
    }

    /// The closed door piece `p` (where it stands) must open to fight piece `t`: none when it
    /// is already beside `t` with nothing shut between, or not beside it at all; otherwise the
    /// first door, its own square first.
    fn door_to_fight(&self, p: &Piece, t: usize) -> Option<(Square, Square)> {
        let theirs = self.state.pieces[t].squares();
        let grid = &self.view.grid;
        let mut door = None;
        for s in p.squares() {
            for &(dx, dy) in &DIRECTIONS[..4] {
                let n = s.offset(dx, dy);
                if !theirs.contains(&n) {
                    continue;
                }
                match grid.edge(s, n) {
                    Edge::Door { open: false } => {
                        door.get_or_insert((s, n));
                    }
                    e if !e.blocks() => return None,
                    _ => {}
                }
            }
        }
        door
    }
}

fn stay(why: String) -> Plan {
    Plan {
        path: Vec::new(),
        why,
        door: None,
        toward: None,
        die: None,
    }
}

/// A copy of `p` standing at the end of `path`.
fn moved(p: &Piece, path: &[Square]) -> Piece {
    let mut q = p.clone();
    if let Some(&end) = path.last() {
        q.at = Some(end);
    }
    q
}

/// Within each run of a sorted list whose items are `tied` to the run's first, an order the
/// dice decide (Fisher–Yates on the run's RNG): the one way a list ranked by a key puts its
/// equal ones in a random order (steps on the grid, inches on a battlefield).
pub(crate) fn shuffle_ties<T: Clone>(list: &mut [T], tied: impl Fn(&T, &T) -> bool, rng: &mut Rng) {
    let mut start = 0;
    while start < list.len() {
        let mut end = start + 1;
        while end < list.len() && tied(&list[start], &list[end]) {
            end += 1;
        }
        if end - start > 1 {
            rng.shuffle_as(crate::dice::rng::Kind::Tie, &mut list[start..end], &|| {
                format!("the order of {} equals", end - start)
            });
        }
        start = end;
    }
}

/// One criterion of a priority rung: what a candidate must be to fit it.
#[derive(Debug, Clone, PartialEq)]
pub enum Criterion {
    /// The piece's field (one a script set with `game.set`) equals this value (a field never
    /// set is `()`, which equals nothing but `()`).
    Field(String, serde_json::Value),
    /// The piece keeps this watch (`Some`) or keeps none (`None`).
    Watching(Option<String>),
    /// The piece does not keep this watch (keeping none fits).
    NotWatching(String),
    /// The piece the list is ranked for (the mover) is in the candidate's front arc (`true`)
    /// or not (`false`). With no such piece the rung is left out of the list.
    Faces(bool),
}

/// One rung of a priority list: its reason (for the log) and what a candidate must pass, every
/// criterion (none: every candidate fits).
#[derive(Debug, Clone, PartialEq)]
pub struct Rung {
    pub why: String,
    pub test: Vec<Criterion>,
}

/// How `rank` walks its list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RankMode {
    /// The first rung any candidate fits; the dice among those that fit it.
    First,
    /// Rung by rung, each keeping those of the candidates left that fit it (a rung none of
    /// them fits is passed over), until one is left or the list ends; the dice among the rest.
    Narrow,
}

impl RankMode {
    pub const NAMES: [&'static str; 2] = ["first", "narrow"];

    pub fn parse(name: &str) -> Result<RankMode, String> {
        match name {
            "first" => Ok(RankMode::First),
            "narrow" => Ok(RankMode::Narrow),
            _ => Err(unknown("way to rank", name, &Self::NAMES)),
        }
    }
}

/// What [`Game::rank`] picked: the piece, the reason (the rungs that decided, and the dice),
/// how many shared the decision, and the die rolled among them (`(sides, value)`; none when
/// one was left).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranked {
    pub chosen: usize,
    pub why: String,
    pub tied: usize,
    pub die: Option<(i64, i64)>,
}

impl Game {
    fn fits(&self, c: usize, test: &[Criterion], mover: Option<usize>) -> bool {
        let p = &self.state.pieces[c];
        test.iter().all(|criterion| match criterion {
            Criterion::Field(name, value) => p.fields.get(name).unwrap_or(&serde_json::Value::Null) == value,
            Criterion::Watching(w) => p.watch == *w,
            Criterion::NotWatching(w) => p.watch.as_ref() != Some(w),
            Criterion::Faces(want) => mover.is_none_or(|m| {
                let faces = self.state.pieces[m]
                    .squares()
                    .iter()
                    .any(|&s| super::view::in_arc(p, s));
                faces == *want
            }),
        })
    }

    /// The candidate a priority list picks: `rungs` in order, by `mode`, ties by a die of as
    /// many sides as are tied (1 to n, rolled on `rng`: the same die a script's `random(1, n)`
    /// rolls). Rungs that test the mover's place in a candidate's arc are left out when there is
    /// no mover. `None` when there is no candidate.
    pub fn rank(
        &self,
        candidates: &[usize],
        rungs: &[Rung],
        mover: Option<usize>,
        mode: RankMode,
        rng: &mut Rng,
    ) -> Option<Ranked> {
        if candidates.is_empty() {
            return None;
        }
        let rungs: Vec<&Rung> = rungs
            .iter()
            .filter(|r| mover.is_some() || !r.test.iter().any(|c| matches!(c, Criterion::Faces(_))))
            .collect();
        let pieces = &self.state.pieces;
        let pick = |left: &[usize], rng: &mut Rng| -> (usize, Option<(i64, i64)>) {
            if left.len() == 1 {
                (left[0], None)
            } else {
                // A die among the equals, which the player at the table may roll.
                let n = left.len() as u64;
                let whose_die = mover.map(|m| pieces[m].id.as_str());
                let v = 1 + rng.pick_for(whose_die, crate::dice::rng::Kind::Tie, n, &|| {
                    let names: Vec<String> = left
                        .iter()
                        .enumerate()
                        .map(|(k, &c)| format!("{} {}", k + 1, pieces[c].id))
                        .collect();
                    let whose = mover.map(|m| format!("{}'s ", pieces[m].id)).unwrap_or_default();
                    (
                        (1..=n).map(|k| k.to_string()).collect(),
                        format!("{whose}pick among equals: {}", names.join(", ")),
                    )
                }) as i64;
                (left[(v - 1) as usize], Some((n as i64, v)))
            }
        };
        let tie = |n: usize| {
            if n > 1 {
                format!(", the die picks among {n}")
            } else {
                String::new()
            }
        };
        match mode {
            RankMode::First => {
                for r in &rungs {
                    let fit: Vec<usize> = candidates
                        .iter()
                        .copied()
                        .filter(|&c| self.fits(c, &r.test, mover))
                        .collect();
                    if fit.is_empty() {
                        continue;
                    }
                    let (chosen, die) = pick(&fit, rng);
                    return Some(Ranked {
                        chosen,
                        why: format!("priority: {}{}", r.why, tie(fit.len())),
                        tied: fit.len(),
                        die,
                    });
                }
                // No rung fits: the dice among them all.
                let (chosen, die) = pick(candidates, rng);
                Some(Ranked {
                    chosen,
                    why: format!("priority: none of the list fits{}", tie(candidates.len())),
                    tied: candidates.len(),
                    die,
                })
            }
            RankMode::Narrow => {
                let mut left = candidates.to_vec();
                let mut named: Vec<&str> = Vec::new();
                for r in &rungs {
                    // A rung every one left fits decides nothing (the list's catch-all).
                    if r.test.is_empty() {
                        continue;
                    }
                    let fit: Vec<usize> = left.iter().copied().filter(|&c| self.fits(c, &r.test, mover)).collect();
                    if fit.is_empty() {
                        continue;
                    }
                    left = fit;
                    named.push(&r.why);
                    if left.len() == 1 {
                        break;
                    }
                }
                let (chosen, die) = pick(&left, rng);
                let rungs_named = if named.is_empty() {
                    "any".to_string()
                } else {
                    named.join("; ")
                };
                Some(Ranked {
                    chosen,
                    why: format!("priority, rung by rung: {rungs_named}{}", tie(left.len())),
                    tied: left.len(),
                    die,
                })
            }
        }
    }

    /// The whole list in order: `rank` again and again, each time without those already
    /// picked (every tie its own die, as a script picking one by one would roll).
    pub fn rank_all(
        &self,
        candidates: &[usize],
        rungs: &[Rung],
        mover: Option<usize>,
        mode: RankMode,
        rng: &mut Rng,
    ) -> Vec<Ranked> {
        let mut rest = candidates.to_vec();
        let mut out = Vec::new();
        while let Some(r) = self.rank(&rest, rungs, mover, mode, rng) {
            rest.retain(|&c| c != r.chosen);
            out.push(r);
        }
        out
    }
}
