//! The resolved model of a package and everything it extends: plain data, names resolved,
//! every item with its span. Built by [`crate::package`]; read by every layer after it.
//!
//! It holds dice, tables, constants, pools and decks, schemas and records, procedures, the
//! `game` and `campaign` items, and the compiled scripts ([`Script`]: plain data here, run by
//! `script/`), with the sources they came from. It imports no layer above it.

use crate::dice::Face;
use crate::source::{SourceMap, Span};
use crate::tables::Table;
pub use crate::value::{DiceText, RollText, Value};
use indexmap::IndexMap;
use serde::Serialize;
use std::sync::Arc;

/// A package in the `extends` chain, base first.
#[derive(Debug, Clone, Serialize)]
pub struct PackageInfo {
    pub name: String,
    pub title: Option<String>,
    pub version: Option<String>,
    pub source: Option<String>,
    /// Where it was read from, as a package argument is typed (`./folder`, `<bundled>/name`).
    #[serde(skip)]
    pub folder: String,
}

#[derive(Debug, Clone)]
pub struct Die {
    pub id: String,
    pub label: Option<String>,
    pub faces: Arc<[Face]>,
    pub source: Option<String>,
    pub text: Option<String>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Const {
    pub id: String,
    pub value: Value,
    pub span: Span,
}

/// A pool or a deck: named entries with counts.
#[derive(Debug, Clone)]
pub struct Pool {
    pub id: String,
    pub kind: String,
    pub label: Option<String>,
    pub entries: IndexMap<String, i64>,
    pub source: Option<String>,
    pub text: Option<String>,
    pub provisional: Option<String>,
    pub span: Span,
}

/// The type of a record field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldType {
    Number,
    Text,
    Name,
    Dice,
    /// Dice read die by die (`any 6 in 2d6`, `highest of 3d6 vs highest of d6`), or a plain
    /// dice expression (read as its total).
    Roll,
    Flag,
    List(Box<FieldType>),
    /// A reference to an item of this kind (`weapon`, `table`, …).
    Ref(String),
}

impl std::fmt::Display for FieldType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldType::Number => f.write_str("number"),
            FieldType::Text => f.write_str("text"),
            FieldType::Name => f.write_str("name"),
            FieldType::Dice => f.write_str("dice"),
            FieldType::Roll => f.write_str("roll"),
            FieldType::Flag => f.write_str("flag"),
            FieldType::List(t) => write!(f, "list {t}"),
            FieldType::Ref(k) => f.write_str(k),
        }
    }
}

#[derive(Debug, Clone)]
pub struct FieldDef {
    pub name: String,
    pub ty: FieldType,
    pub optional: bool,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Schema {
    pub kind: String,
    pub label: Option<String>,
    pub fields: IndexMap<String, FieldDef>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Record {
    pub kind: String,
    pub id: String,
    pub label: Option<String>,
    pub fields: IndexMap<String, Value>,
    pub source: Option<String>,
    pub text: Option<String>,
    pub provisional: Option<String>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct ProcArg {
    pub name: String,
    pub default: Value,
    pub help: Option<String>,
    /// What the arg may name (`of …`): empty for any value of the default's type.
    pub of: Vec<ArgChoice>,
    pub span: Span,
}

/// One part of what a procedure arg may name (`arg … of [base, mission] table t unit`).
#[derive(Debug, Clone, PartialEq)]
pub enum ArgChoice {
    /// One of these values (`of [2, 4]`).
    Values(Vec<Value>),
    /// A result of that table (`of table reinforcement-type`).
    Results(String),
    /// The id of an item of that kind: a record kind, `table`, `mission`, `battlefield`, …
    Ids(String),
}

#[derive(Debug, Clone)]
pub struct Procedure {
    pub id: String,
    pub label: Option<String>,
    pub function: String,
    /// Index into `Ruleset::scripts` of the script defining `function`.
    pub script: usize,
    pub args: Vec<ProcArg>,
    pub source: Option<String>,
    pub text: Option<String>,
    pub span: Span,
}

/// The events that can call a trigger function during a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TriggerEvent {
    /// A hidden piece and a piece of another side came to see each other.
    Sighted,
    /// A piece stepped onto a board section its side had not entered before.
    EnteredSection,
    /// A piece was eliminated.
    Removed,
    /// The last card of a deck was drawn.
    DeckEmpty,
    /// A piece took one step (e.g. a sentry firing during the other side's turn).
    Moved,
}

impl TriggerEvent {
    pub const ALL: [(&'static str, TriggerEvent); 5] = [
        ("sighted", TriggerEvent::Sighted),
        ("entered-section", TriggerEvent::EnteredSection),
        ("removed", TriggerEvent::Removed),
        ("deck-empty", TriggerEvent::DeckEmpty),
        ("moved", TriggerEvent::Moved),
    ];

    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(_, e)| *e == self).map_or("", |(n, _)| n)
    }
}

/// One phase of a side's turn: the script function that plays it.
#[derive(Debug, Clone)]
pub struct PhaseDef {
    pub side: String,
    pub id: String,
    pub function: String,
    /// Played in turn 1 only (`phase SIDE ID FUNCTION first-turn`): a set-up step the
    /// player takes at the table (deploying), played by the function in `game` and `sim`.
    pub first_turn: bool,
}

#[derive(Debug, Clone)]
pub struct TriggerDef {
    pub event: TriggerEvent,
    pub function: String,
    /// Only pieces of this side cause it (all sides when `None`).
    pub side: Option<String>,
    /// When it runs, for events a moving piece causes.
    pub timing: TriggerTiming,
    /// `beside SIDE` (`moved` only): only when the piece that stepped ends the step beside a
    /// piece of this side (across no wall or closed door), so a script that reacts to contact
    /// is not called at every step of every move.
    pub beside: Option<String>,
    /// `while VAR`: only while the game variable VAR holds something (set, and not `false`,
    /// `0`, `""`, an empty list or an empty map).
    pub while_var: Option<String>,
}

/// When a trigger that a moving piece caused runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TriggerTiming {
    /// As soon as it happens (`sighted`, `removed`, …) or, for `entered-section`, when the
    /// move that caused it ends.
    #[default]
    AfterMove,
    /// When the piece that caused it has finished acting: another piece of its side starts
    /// to act, or the phase ends (`on entered-section scan heroes after-activation`).
    AfterActivation,
}

/// The fields of a piece's stats record that the engine itself reads, whatever the game: its
/// life, footprint, diagonal steps and base (on a battlefield), and the action-point prices
/// of its steps, turns and doors (`game::actions::StatCosts`). The game's `action-points FIELD`
/// is read too. `check` counts them as read.
pub const ENGINE_STATS_FIELDS: [&str; 13] = [
    "life",
    "size",
    "diagonal",
    "base",
    "ap-forward",
    "ap-forward-diagonal",
    "ap-sideways",
    "ap-backward",
    "ap-backward-diagonal",
    "ap-turn",
    "ap-turn-with-move",
    "ap-step",
    "ap-door",
];

/// A game's line of sight (`sight`, `sight-diagonals`, `sight-models`, `sight-tokens` and
/// `sight-doors` in the `game` item): the one rule every sight question of the game asks —
/// moving out of sight, revealing, placing, firing, watches and the player's commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SightRule {
    /// A piece with a facing sees only its front quarter (`sight front-arc`); `sight all`
    /// (the default): all round.
    pub front_arc: bool,
    /// What the board does to a line: diagonal neighbours (`sight-diagonals blind`, the
    /// default, or `see`) and closed doors (`sight-doors block`, the default, or `pass`).
    pub los: crate::board::los::LosRule,
    /// Which lines a model standing on them stops (`sight-models`).
    pub models: ModelsBlock,
    /// A face-down piece (a token) stops a line where a model would (`sight-tokens block`,
    /// the default) or never (`pass`: a token is no model).
    pub tokens_pass: bool,
}

/// Which sight a model on the line stops (`sight-models shots | always | never`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ModelsBlock {
    /// A shot (and every question of sight to shoot), not the sight that reveals or that a
    /// piece keeps out of (the default).
    #[default]
    Shots,
    /// Every line of sight.
    Always,
    /// None.
    Never,
}

/// What a line of sight is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// To shoot (or react to what is seen): a target in sight.
    Shoot,
    /// To see: revealing a hidden piece, placing or moving out of sight.
    Spot,
}

impl SightRule {
    /// Whether a model on the line stops sight asked for `purpose`.
    pub fn models_block(self, purpose: Purpose) -> bool {
        match self.models {
            ModelsBlock::Always => true,
            ModelsBlock::Never => false,
            ModelsBlock::Shots => purpose == Purpose::Shoot,
        }
    }
}

/// How doors work in a game (`doors` and `doorways` in the `game` item).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DoorRules {
    /// A step through a closed door opens it (`doors open-on-step`, the default); otherwise a
    /// closed door stops a move and only an action opens it (`doors by-action`).
    pub open_on_step: bool,
    /// A doorway is crossed only by a straight step from one of the two squares in front of
    /// it, never diagonally past its frame (`doorways straight`); `doorways any` (the default)
    /// lets a diagonal step pass a door as it passes any open edge.
    pub straight: bool,
    /// A piece with a facing opens a closed door only when the door is in front of it: its
    /// step through the door is a step forward, a turn before it included (`door-opener
    /// front`); `door-opener any` (the default) opens it from any side a step may go.
    pub from_front: bool,
}

impl Default for DoorRules {
    fn default() -> Self {
        DoorRules {
            open_on_step: true,
            straight: false,
            from_front: false,
        }
    }
}

/// A command the person at the table types for their side (`servitor play`).
#[derive(Debug, Clone)]
pub struct CommandDef {
    pub function: String,
    /// How to type it, with an example.
    pub help: Option<String>,
    /// The first piece it names may be another side's (`any-piece`); otherwise it must be
    /// one of the player's own pieces.
    pub any_piece: bool,
}

/// A game's option (`--set name=value`): declared and checked as a procedure's arg is.
pub type GameOption = ProcArg;

/// A `game` item: the sides, the turn as phases, the triggers, and the functions that play them.
#[derive(Debug, Clone)]
pub struct GameDef {
    pub id: String,
    pub label: Option<String>,
    /// Turn order: every turn, each side plays its phases in this order.
    pub sides: Vec<String>,
    /// The record kind whose records give pieces their stats (`life`, `size`, `diagonal`).
    pub stats: Option<String>,
    pub setup: Option<String>,
    /// `status FUNCTION`: `fn FUNCTION(game)` returns the lines the player's `status` adds
    /// (the objective and its score, cards held, points to spend), run on a copy of the game.
    pub status: Option<String>,
    pub phases: Vec<PhaseDef>,
    pub triggers: Vec<TriggerDef>,
    pub options: IndexMap<String, GameOption>,
    /// Commands for `servitor play`, by the word typed first.
    pub commands: IndexMap<String, CommandDef>,
    /// A game not over after this many turns ends with no winner.
    pub max_turns: u32,
    pub doors: DoorRules,
    /// A revealed piece takes the next id of its kind (`reveal-ids by-kind`: token-10 becomes
    /// raider-3), the old id kept as an alias; `reveal-ids kept` (the default) leaves it as it is.
    pub reveal_renames: bool,
    /// The stats field that gives a piece its action points each turn (`action-points
    /// FIELD`); `None`: the game has no action points.
    pub action_points: Option<String>,
    /// Side → the pool its pieces draw on when their own action points run short (`reserve
    /// SIDE POOL`), during their side's phases only.
    pub reserves: IndexMap<String, String>,
    /// The watches a piece may keep (`watch MODE FUNCTION ARC RANGE`), by mode.
    pub watches: IndexMap<String, WatchDef>,
    /// The game's line of sight (`sight …` lines).
    pub sight: SightRule,
    /// A piece may step through its own side's pieces (`friends pass`, the default) or not
    /// (`friends block`: every model blocks, as in a corridor one model wide).
    pub friends_block: bool,
    /// Marks every mission the game plays puts on at least one square (`needs-marks [entry]`),
    /// each with where it was declared: checked at load against every mission with a map.
    pub needs_marks: Vec<(String, Span)>,
    /// Game variables `status` shows the player, each with its label (`show VAR "label"`),
    /// in declaration order: only what the player may know at the table.
    pub shown: Vec<(String, String)>,
    /// Game variables the web page draws on its board and lists, each with its label (`draw
    /// VAR "label"`): the squares and board sections a variable names (a list's items, a
    /// map's keys but those whose value is 0, false or empty). `show` variables are drawn
    /// too; a `draw` one is not printed by `status`. Only what the player may know.
    pub drawn: Vec<(String, String)>,
    /// The functions a scenario or a variant may call on their own (`entry FUNCTION "text"`),
    /// in declaration order: `servitor tables PKG --entry-points` lists them.
    pub entries: Vec<EntryDef>,
    pub source: Option<String>,
    pub text: Option<String>,
    pub span: Span,
}

/// An entry point (`entry FUNCTION "text"`): a script function a scenario or a variant may
/// call on its own, and what it plays, its arguments and the state it reads.
#[derive(Debug, Clone)]
pub struct EntryDef {
    pub function: String,
    pub text: String,
}

/// A campaign (`campaign NAME { game …; missions …; before …; after …; end … }`): the
/// missions of one game played in order, with a plain map carried from one to the next.
/// `before(state, mission)` gives the next mission's options (checked as `--set` is),
/// `after(state, result)` gives the state the finished mission leaves, `end(state)` one line
/// saying how the campaign ended. The driver is `crate::campaign`.
#[derive(Debug, Clone)]
pub struct CampaignDef {
    pub id: String,
    pub label: Option<String>,
    /// The `game` item; `None` when the package has exactly one.
    pub game: Option<String>,
    pub missions: Vec<String>,
    pub before: Option<String>,
    pub after: Option<String>,
    pub end: Option<String>,
    pub source: Option<String>,
    pub text: Option<String>,
    pub span: Span,
}

/// A watch (`watch sentry take_shot front 12`): while a piece keeps it, every step or
/// action of another side's face-up piece that the watcher sees (as it shoots, pieces
/// blocking) within `range` squares — and, with `front`, inside its front quarter — calls
/// `function(game, #{ piece, target, mode })` once, between the mover's steps.
#[derive(Debug, Clone)]
pub struct WatchDef {
    pub function: String,
    pub range: u32,
    pub front: bool,
}

/// A loaded package with everything it extends, checked and resolved. (The default, with
/// nothing in it, is only for building an engine to ask its function names.)
#[derive(Debug, Default)]
pub struct Ruleset {
    /// Base first, this package last.
    pub packages: Vec<PackageInfo>,
    pub dice: IndexMap<String, Die>,
    pub tables: IndexMap<String, Table>,
    pub boards: IndexMap<String, crate::board::Board>,
    pub missions: IndexMap<String, crate::board::Mission>,
    pub battlefields: IndexMap<String, crate::board::field::Battlefield>,
    pub consts: IndexMap<String, Const>,
    pub pools: IndexMap<String, Pool>,
    pub schemas: IndexMap<String, Schema>,
    /// kind → id → record, in declaration order.
    pub records: IndexMap<String, IndexMap<String, Record>>,
    pub procedures: IndexMap<String, Procedure>,
    pub games: IndexMap<String, GameDef>,
    /// `campaign` items: missions played in order with a state carried between them.
    pub campaigns: IndexMap<String, CampaignDef>,
    pub scripts: Vec<Script>,
    /// All scripts merged, base first: a later script's function replaces an earlier one of
    /// the same name, so a variant can redefine a base's helper.
    pub program: rhai::AST,
    pub sources: SourceMap,
    /// What each variant's `override`s changed, in the order written.
    pub overrides: Vec<Overridden>,
}

impl Ruleset {
    /// The ids a game may be played on: the missions with a map, then, in a package with
    /// battlefields, the data-only mission records (played on the battlefield the setup
    /// chooses).
    pub fn playable_missions(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = self.missions.keys().map(String::as_str).collect();
        if !self.battlefields.is_empty() {
            let records = self.records.get("mission").into_iter().flat_map(|r| r.keys());
            for id in records {
                if !ids.contains(&id.as_str()) {
                    ids.push(id);
                }
            }
        }
        ids
    }

    /// Whether `mission` is a data-only mission (a `mission` record that places no board) of
    /// a package that has battlefields: a game plays it on the battlefield its setup chooses.
    pub fn battlefield_mission(&self, mission: &str) -> bool {
        !self.battlefields.is_empty()
            && self.missions.get(mission).is_none_or(|m| m.grid.is_empty())
            && self.records.get("mission").is_some_and(|r| r.contains_key(mission))
    }

    pub fn name(&self) -> &str {
        self.packages.last().map_or("", |p| p.name.as_str())
    }

    pub fn info(&self) -> &PackageInfo {
        self.packages.last().expect("a ruleset has at least its own package")
    }

    /// The ids of every item of `kind` (an item kind or a record kind), in declaration order;
    /// `None` when the package has no such kind.
    pub fn ids_of(&self, kind: &str) -> Option<Vec<&str>> {
        fn keys<T>(m: &IndexMap<String, T>) -> Vec<&str> {
            m.keys().map(String::as_str).collect()
        }
        Some(match kind {
            "table" => keys(&self.tables),
            "die" => keys(&self.dice),
            "pool" | "deck" => self
                .pools
                .values()
                .filter(|p| p.kind == kind)
                .map(|p| p.id.as_str())
                .collect(),
            "procedure" => keys(&self.procedures),
            "board" => keys(&self.boards),
            "mission" => keys(&self.missions),
            "battlefield" => keys(&self.battlefields),
            "const" => keys(&self.consts),
            "game" => keys(&self.games),
            "campaign" => keys(&self.campaigns),
            k => match self.records.get(k) {
                Some(records) => keys(records),
                None if self.schemas.contains_key(k) => Vec::new(),
                None => return None,
            },
        })
    }

    /// The kinds `ids_of` knows: the engine's, then the package's record kinds.
    pub fn kinds(&self) -> Vec<&str> {
        let mut kinds = vec![
            "table",
            "die",
            "pool",
            "deck",
            "procedure",
            "board",
            "mission",
            "battlefield",
            "const",
            "game",
            "campaign",
        ];
        kinds.extend(self.schemas.keys().map(String::as_str));
        kinds
    }

    /// Every value an arg may take, in order; `None` when it takes any value of its type.
    /// A table or kind that does not exist adds nothing (`check` reports it).
    pub fn arg_choices(&self, arg: &ProcArg) -> Option<Vec<Value>> {
        if arg.of.is_empty() {
            return None;
        }
        let mut all: Vec<Value> = Vec::new();
        let mut add = |v: Value| {
            if !all.contains(&v) {
                all.push(v);
            }
        };
        for choice in &arg.of {
            match choice {
                ArgChoice::Values(values) => values.iter().cloned().for_each(&mut add),
                ArgChoice::Results(table) => {
                    if let Some(t) = self.tables.get(table) {
                        t.results().into_iter().for_each(|r| add(Value::Name(r.to_string())));
                    }
                }
                ArgChoice::Ids(kind) => {
                    for id in self.ids_of(kind).unwrap_or_default() {
                        add(Value::Name(id.to_string()));
                    }
                }
            }
        }
        Some(all)
    }
}

/// A compiled script of a package.
#[derive(Debug, Clone)]
pub struct Script {
    pub file: crate::source::FileId,
    pub ast: rhai::AST,
    /// Script functions: name and number of parameters.
    pub functions: Vec<(String, usize)>,
    /// The package of the chain that holds it (an index into `Ruleset::packages`).
    pub package: usize,
}

/// One thing a package's `override` changed: a constant, or one entry of an item. `check`
/// warns on an override that nothing reads.
#[derive(Debug, Clone)]
pub struct Overridden {
    /// The item's kind (`unit`, `table`, …), or `const`.
    pub kind: String,
    pub id: String,
    /// The entry changed (`move`, or `rows` for a table's rows painted over); `None` for a
    /// constant.
    pub entry: Option<String>,
    /// The override's name of what it changes.
    pub span: Span,
    pub package: String,
}
