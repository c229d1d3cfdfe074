//! Every limit on what a package may ask of the engine, in one place.
//!
//! A package is untrusted input (house rules and alien mods are shared between players): no
//! package may crash, hang, exhaust memory or read outside its folder. Each limit below is
//! checked *before* the work it bounds is done, and going over it is a diagnostic that names
//! the limit and says how to stay inside it — never a panic, a wrap-around or a silent cut.
//!
//! The authors' reference (`docs/limits.md`, "Limits") has the same table in words; the
//! two must agree (`tests/hostile.rs` checks that every constant here is named there).
//! [`Spent`] is what one game's script runs have spent, together, against the `MAX_GAME_*`
//! limits.

// --- files -------------------------------------------------------------------------------

/// Largest file a package may have (a rules file or a script), in bytes; also the largest
/// scenario file.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Largest saved game (`game --resume`, `play --resume`), in bytes, read or written: a save is
/// compact JSON and its log is held to `MAX_GAME_LOG_BYTES`; a save that would be larger is
/// not written (the previous one is kept), so every save servitor writes is one it can read.
pub const MAX_SAVE_BYTES: u64 = 64 * 1024 * 1024;
/// Longest command a `play` session reads (one line typed or piped, or one command of a
/// save), in bytes: a longer one is refused before it is kept.
pub const MAX_COMMAND_BYTES: u64 = 4096;
/// All the files one load reads together (a package, its includes, scripts and bases).
pub const MAX_PACKAGE_BYTES: u64 = 4 * 1024 * 1024;
/// Deepest nesting of blocks `{ }` and lists `[ ]` in a rules file.
pub const MAX_NESTING: usize = 32;

// --- dice and odds -----------------------------------------------------------------------

/// Dice one dice expression or one pool rolls (`100d6`, `60 red + 40 white`), in a package, a
/// script or on the command line. Rolling them is cheap; their exact odds are bounded by
/// `MAX_DICE_WORK`, not by this.
pub const MAX_DICE: u64 = 1_000;
/// Faces of one die (`d1000`, or a `die` with a list of faces).
pub const MAX_DIE_FACES: u64 = 1_000;
/// Largest number on a face or as a modifier, either way.
pub const MAX_DICE_VALUE: u64 = 1_000_000;
/// Different totals the dice of a table, an amount or a follow-up count may give (their
/// exact odds are computed), counted as the dice can really make them (a die with faces 0 and
/// 20,000 makes 2, not 20,001); also the values `odds` lists for dice.
pub const MAX_ODDS_TOTALS: u64 = 10_000;
/// Steps to compute the exact odds of one dice expression or one roll read die by die: for a
/// total, dice added one by one, each step one running total and one face; for a reading, one
/// state of the pool (dice placed so far, what they read) and one face; for a re-roll of one
/// die, one multiset of faces and one face; for a contest, one value of each side; for a
/// chain, one count of dice and one stage. Once the counts pass 128 bits, a product of two
/// counts costs the multiplication of their 64-bit words, and the fractions the counts end as
/// are costed too (reduced, written in decimal): 8 word operations a step. Estimated before any
/// of it is done. 20d100 (about 4,400,000 steps) takes 0.3 s in a debug build; the costliest
/// rolls that fit take about a second; 1000d6 and `count 3+ in 1000d1000 vs count 3+ in
/// 1000d1000` (287,000,000) are refused at once.
pub const MAX_DICE_WORK: u64 = 20_000_000;
/// Steps of one `odds` question about a table: a step combines one outcome with one partial result (a multiset of the rolls so far for
/// `--times N`, a running total for `--sum`); a series is costed before any of it is computed
/// (`tables::odds::series_cost`, `totals_cost`). Measured on the bundled tables, the costliest
/// question that fits takes 0.5 s in a release build and 1.1 s in a debug build.
pub const MAX_ODDS_WORK: u64 = 2_000_000;

/// Rolls a table's `reroll` policy shows one by one before the roll is drawn straight from the
/// exact odds of the totals that give a usable row (the same answer as rolling on for ever,
/// which `odds` computes; only the rolls shown are bounded).
pub const MAX_REROLLS_SHOWN: usize = 100;
/// Rounds of an opposed roll's `ties reroll` rolled one by one before the deciding round is
/// drawn from its exact odds (as above: the answer is the same, the rounds shown are bounded).
pub const MAX_TIE_ROUNDS: usize = 100;

/// How deep follow-up rolls (`then`) may lead: a table, then another, … this many tables.
pub const MAX_FOLLOW_UP_DEPTH: usize = 16;
/// Table rolls one roll may cause, its follow-ups (`then … times …`) included, at most; and
/// one request (`roll --times`, a script's `roll_table_times`) with all its follow-ups.
pub const MAX_TABLE_ROLLS: u64 = 1_000;
/// Different outcomes the exact odds of one table may list (follow-ups and series make
/// combinations); `odds` refuses more, for a series before computing it.
pub const MAX_ODDS_OUTCOMES: usize = 5_000;

// --- boards and battlefields ----------------------------------------------------------

/// Widest and highest board or mission, in squares (a mission's boards all lie inside it).
pub const MAX_GRID_SIDE: usize = 200;
/// Widest and highest battlefield, in inches; every corner of its zones and terrain lies
/// within this many inches of the top-left corner.
pub const MAX_BATTLEFIELD_INCHES: usize = 240;
/// Corners of all the zones and terrain of one battlefield together.
pub const MAX_BATTLEFIELD_CORNERS: usize = 512;

// --- scripts -----------------------------------------------------------------------------

/// Rhai operations one script run may take (one procedure, or one phase or trigger call).
pub const MAX_OPERATIONS: u64 = 2_000_000;
/// Time of one script run, in milliseconds — the CPU time of its thread where the system keeps
/// one, so a busy machine does not fail a game (`sandbox::charged_now`): a backstop for
/// registered functions that cost more than the one operation Rhai counts for them.
pub const MAX_SCRIPT_MILLIS: u64 = 1_000;
/// Work of the engine's functions in one script run: squares visited by board questions (a
/// distance field visits every square of the mission), corners compared by battlefield ones,
/// items of the arrays given to `pick` and `shuffle` (16 each to shuffle) and records listed.
pub const MAX_SCRIPT_WORK: u64 = 20_000_000;
/// Bytes one script run may write to its log (`step`, rolls, table rolls).
pub const MAX_LOG_BYTES: u64 = 1024 * 1024;
/// Nesting of script function calls.
pub const MAX_CALL_LEVELS: usize = 48;
/// Nesting of expressions in a script (at the top level, and inside functions).
pub const MAX_EXPR_DEPTH: usize = 64;
pub const MAX_FN_EXPR_DEPTH: usize = 48;
/// Longest string a script may build, in bytes.
pub const MAX_STRING_SIZE: usize = 16 * 1024;
/// Most elements of an array or a map a script may build.
pub const MAX_ARRAY_SIZE: usize = 10_000;
pub const MAX_MAP_SIZE: usize = 10_000;

// --- whole games -------------------------------------------------------------------------

/// Pieces one game may have, on the board or off (removed ones count too).
pub const MAX_GAME_PIECES: usize = 1_000;
/// Models of one unit on a battlefield (its stats' `models`, or the points a player gives).
pub const MAX_UNIT_MODELS: usize = 100;
/// Rhai operations of all the script runs of one game together.
pub const MAX_GAME_OPERATIONS: u64 = 5_000_000;
/// Work of the board questions of all the script runs of one game together (counted as
/// `MAX_SCRIPT_WORK` counts it).
pub const MAX_GAME_WORK: u64 = 200_000_000;
/// Bytes of one game's log (its lines as JSON; each script run counts 1,024 more, for the
/// line that begins it and the host's work around it, so that a game of endless empty phases
/// ends too).
pub const MAX_GAME_LOG_BYTES: u64 = 16 * 1024 * 1024;
/// Time of all the script runs of one game together, in milliseconds (charged as
/// [`MAX_SCRIPT_MILLIS`] is).
pub const MAX_GAME_MILLIS: u64 = 10_000;
/// Deepest nesting of lists and maps in a value a game keeps (`set_var`, a piece's fields):
/// a save holds it, and a save must read back (JSON readers stop at 128 levels).
pub const MAX_VALUE_DEPTH: usize = 64;
/// Different errors one `sim` keeps word for word (each with its count and the first few games
/// it ended, with their seeds); further different ones are only counted, so a sim's memory
/// does not grow with its games.
pub const MAX_SIM_ERRORS: usize = 20;
/// Games (with their seeds) a `sim` keeps as examples of each error.
pub const MAX_SIM_ERROR_EXAMPLES: usize = 5;
/// Missions one `campaign` item may name (a campaign file keeps each one's result).
pub const MAX_CAMPAIGN_MISSIONS: usize = 100;

// --- diagnostics -------------------------------------------------------------------------

/// Diagnostics shown for one file; the rest are counted ("… and 15,873 more").
pub const MAX_DIAGNOSTICS_PER_FILE: usize = 100;

/// What the runs of one game spent, for tests and measurements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Spent {
    pub operations: u64,
    pub work: u64,
    pub log_bytes: u64,
    pub millis: u64,
}
