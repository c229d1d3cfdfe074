//! servitor's companion session for the web page (`web/`), compiled to WebAssembly: the same
//! library as `servitor play` — the bundled packages, [`Session`]'s replay and command line,
//! undo and redo over the command list, [`table`]'s instructions, status and `why` — behind a
//! few calls that take and give JSON text. The page draws; every rule and every answer comes
//! from here.
//!
//! What the page is given is the player's view only: the instructions' lines (never the log's
//! actions, which carry face-down identities and deck orders), pieces without what a
//! face-down piece hides, pools that are secret only counted, decks only counted.
//!
//! Manual dice: a script cannot wait for a tap in the middle of a run, so a command asks for
//! its dice by running again. The page sends the faces tapped so far (`answers`); a command
//! that needs one more die answers `need` with that die's name and faces, and the game is put
//! back as it was; the page asks the player and sends the command again with one more answer.
//! A run with the same answers rolls the same dice up to that point (the seed gives the rest),
//! so each retry reaches the next die. An answer of `null` lets the engine roll that die, as
//! `auto` does at the terminal.
//!
//! The game's questions (`game.ask`) go the same way, with manual and automatic dice alike:
//! the page sends the answers given so far (`choices`, positions from 1 among each question's
//! choices, 0 to leave it to servitor); a run that reaches a question past them answers `need`
//! with the question, its choices and its default, and the game is put back as it was. Dice
//! and answers are two lists, but only the first thing missing in the run is asked for: past
//! it the run goes on with the seed's dice and the defaults, and is undone. The answers are
//! kept in the session as `servitor play` keeps them (`Entry::choices`, `start_choices`), so
//! a reload, an undo, a redo or the CLI replays them without asking.

use serde::Deserialize;
use serde_json::{Value as Json, json};
use servitor::campaign::{Campaign, CampaignError};
use servitor::dice::rng::{ChoiceAsk, DieAsk, Forced};
use servitor::game::event::player_log;
use servitor::game::session::{self, Entry, SESSION_FORMAT, SESSION_VERSION, Session};
use servitor::game::{Game, GameError, Host, table};
use std::sync::{Arc, Mutex};
use wasm_bindgen::prelude::*;

/// Every bundled package that holds a playable game (on squares or a battlefield in inches): its name, title, games
/// (with their sides and options) and missions, as JSON. Each is loaded and checked as `servitor play`
/// would; a package that fails to load is listed with its error and no games.
#[wasm_bindgen]
pub fn catalog() -> String {
    let mut out = Vec::new();
    for found in servitor::package::available(&[servitor::package::Root::Bundled]) {
        let loaded = match servitor::load(&found.name) {
            Ok(loaded) => loaded,
            Err(e) => {
                out.push(json!({ "package": found.name, "error": e.render(false), "games": [] }));
                continue;
            }
        };
        if let Some(entry) = catalog_entry(&found.name, &loaded.ruleset) {
            out.push(entry);
        }
    }
    Json::Array(out).to_string()
}

/// A package as the start screen lists it: its games (sides, options), missions, campaigns,
/// and whether it is played on a battlefield in inches; `None` when it has no game to play.
fn catalog_entry(name: &str, r: &servitor::Ruleset) -> Option<Json> {
    {
        if r.games.is_empty() || r.playable_missions().is_empty() {
            return None;
        }
        let games: Vec<Json> = r
            .games
            .values()
            .map(|g| {
                let options: Vec<Json> = g
                    .options
                    .iter()
                    .map(|(name, o)| {
                        // A list option (`heavy-weapons`) is typed as a list, as `--set` takes
                        // it: its `of` names the choices of each item, not of the whole value.
                        let list = matches!(o.default, servitor::value::Value::List(_));
                        let choices: Vec<String> = if list {
                            Vec::new()
                        } else {
                            o.of.iter()
                                .flat_map(|c| match c {
                                    servitor::ruleset::ArgChoice::Values(values) => {
                                        values.iter().map(|v| v.show()).collect()
                                    }
                                    _ => Vec::new(),
                                })
                                .collect()
                        };
                        json!({ "name": name, "default": o.default.show(), "help": o.help, "choices": choices, "list": list })
                    })
                    .collect();
                json!({ "id": g.id, "label": g.label, "sides": g.sides, "options": options })
            })
            .collect();
        // The missions with a map, and on a battlefield the mission records.
        let missions: Vec<Json> = r
            .playable_missions()
            .into_iter()
            .map(|id| match r.missions.get(id) {
                Some(m) => json!({ "id": m.id, "label": m.label, "text": m.text }),
                None => {
                    let m = &r.records["mission"][id];
                    json!({ "id": m.id, "label": m.label, "text": m.text })
                }
            })
            .collect();
        Some(json!({
            "package": name,
            "title": r.info().title,
            "games": games,
            "missions": missions,
            // Played on a battlefield in inches (drawn to scale, points tapped on it), not on squares.
            "battlefield": !r.battlefields.is_empty(),
            "campaigns": r.campaigns.keys().collect::<Vec<_>>(),
        }))
    }
}

/// A house-rule variant or an own army picked as files (`{"path": "text", …}`: its
/// `package.rules` and scripts by their paths in its folder, or one `.rules` file), checked
/// as `servitor check` checks a package: `{ok, entry}` (as [`catalog`] lists a package) or
/// `{ok: false, error}` with every diagnostic, file, line and column.
#[wasm_bindgen]
pub fn variant(files: &str) -> String {
    let answer = match given(files).and_then(|files| servitor::package::load_given(files).map_err(|e| e.render(false)))
    {
        Err(error) => json!({ "ok": false, "error": error }),
        Ok(loaded) => match catalog_entry(loaded.ruleset.name(), &loaded.ruleset) {
            Some(entry) => {
                json!({ "ok": true, "entry": entry, "warnings": loaded.warnings.render(&loaded.ruleset.sources, false) })
            }
            None => {
                json!({ "ok": false, "error": format!("{} has no game to play (no `game` item, or no mission)", loaded.ruleset.name()) })
            }
        },
    };
    answer.to_string()
}

/// Picked files as the loader takes them.
fn given(files: &str) -> Result<servitor::package::GivenFiles, String> {
    let map: std::collections::BTreeMap<String, String> =
        serde_json::from_str(files).map_err(|e| format!("the files are not a map of paths to texts: {e}"))?;
    Ok(Arc::new(map))
}

/// A new game as the page asks for it (`servitor play`'s options).
#[derive(Deserialize)]
struct NewGame {
    mission: String,
    /// A decimal number: a JavaScript number cannot hold every 64-bit seed.
    seed: String,
    #[serde(default)]
    side: Option<String>,
    #[serde(default)]
    game: Option<String>,
    #[serde(default)]
    options: Vec<(String, String)>,
    #[serde(default)]
    manual_dice: bool,
    /// Play the package's campaign (`""`: its only one) instead of one mission: the missions
    /// come from the campaign, `mission` is not read.
    #[serde(default)]
    campaign: Option<String>,
}

/// The faces the player gave for a command's dice so far, the answers given to its questions,
/// and the first die or question asked for past them.
#[derive(Default)]
struct Asked {
    answers: Vec<Option<u64>>,
    next: usize,
    /// How many answers to questions the page gave.
    choices: usize,
    need: Option<Need>,
}

/// What a run needs from the player before it can be played.
enum Need {
    /// A die: its name and faces.
    Die(String, Vec<String>),
    /// A question of the game (`game.ask`): the script's words (meant for the player), the
    /// choices, and the position from 1 of the one servitor would take.
    Question(String, Vec<String>, usize),
}

/// One package's session at the table.
#[wasm_bindgen]
pub struct Companion {
    host: Host,
    session: Option<Session>,
    /// `None` only while a command runs (the host takes the game by value) or before a game.
    game: Option<Game>,
    /// Where the current turn's cards begin: the number of events before the last `end` (0
    /// before any). `None` until worked out again after a resume, an undo or a redo.
    turn_from: Option<usize>,
    /// A campaign being played (`play --campaign`): its file's state, whose mission at the
    /// table is `session`; the save is then the campaign file.
    campaign: Option<Campaign>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn parse_answers(answers: &str) -> Result<Vec<Option<u64>>, String> {
    if answers.trim().is_empty() {
        return Ok(Vec::new());
    }
    serde_json::from_str(answers).map_err(|e| format!("the dice answers are not a list of faces: {e}"))
}

fn parse_choices(choices: &str) -> Result<Vec<u64>, String> {
    if choices.trim().is_empty() {
        return Ok(Vec::new());
    }
    serde_json::from_str(choices).map_err(|e| {
        format!("the answers to the game's questions are not a list of positions from 1 (0: servitor's answer): {e}")
    })
}

#[wasm_bindgen]
impl Companion {
    /// Loads a bundled package (by name) for play.
    #[wasm_bindgen(constructor)]
    pub fn new(package: &str) -> Result<Companion, JsError> {
        Companion::load(package).map_err(|e| JsError::new(&e))
    }

    /// Loads a package picked as files (as [`variant`] takes them) for play.
    #[wasm_bindgen(js_name = fromFiles)]
    pub fn from_files(files: &str) -> Result<Companion, JsError> {
        Companion::load_files(files).map_err(|e| JsError::new(&e))
    }

    /// Starts a game (`NewGame` as JSON) and answers as [`Companion::send`] does. With manual
    /// dice the setup's dice are asked for like a command's: `answers` holds those given;
    /// `choices` the answers to the setup's questions.
    pub fn begin(&mut self, setup: &str, answers: &str, choices: &str) -> String {
        let answer = self
            .try_begin(setup, answers, choices)
            .unwrap_or_else(|e| refusal("start", e));
        answer.to_string()
    }

    /// Goes on with a saved game: a `servitor play` save file's text, from the page's storage
    /// or from the command line.
    pub fn resume(&mut self, save: &str) -> String {
        let answer = self.try_resume(save).unwrap_or_else(|e| refusal("resume", e));
        answer.to_string()
    }

    /// One line as the player would type it at `servitor play`: a command of the game,
    /// `end`, `undo`, `redo`, `help`, `status`, `why PIECE`, `odds TABLE`. `answers`: the
    /// faces given so far for this command's dice (manual dice), as a JSON list; `choices`:
    /// the answers given so far to its questions (positions from 1, 0 for servitor's answer).
    pub fn send(&mut self, line: &str, answers: &str, choices: &str) -> String {
        let line = line.trim();
        let answer = match self.game.is_some() {
            false => refusal(line, "no game: start one or resume a save".into()),
            true => match parse_answers(answers).and_then(|a| Ok((a, parse_choices(choices)?))) {
                Err(e) => refusal(line, e),
                Ok((answers, choices)) => self.handle(line, answers, choices),
            },
        };
        answer.to_string()
    }

    /// The session as `servitor play --save` writes it, byte for byte: what the page stores
    /// after every accepted command, and the file it exports.
    pub fn save(&self) -> String {
        // `host::encode`, as `servitor play` writes it; empty past `MAX_SAVE_BYTES` (the page
        // keeps the save it had, as the command line does).
        if let Some(campaign) = &self.campaign {
            // The campaign file, its mission at the table in it (none once it has ended).
            let mut file = campaign.clone();
            if file.ended.is_none() {
                file.session = self.session.clone();
            }
            return servitor::game::host::encode(&file).unwrap_or_default();
        }
        self.session
            .as_ref()
            .and_then(|s| servitor::game::host::encode(s).ok())
            .unwrap_or_default()
    }

    /// The card list of the current turn, rebuilt from the session's log (so a reload shows
    /// what was shown): `{from, total, lines, earlier}`. Every line carries `event`, the index
    /// of the event it shows in the game's log (the key of its tick); the numbers run on
    /// through the turn. `lines`: since the last `end` (or the start); `earlier` (only when
    /// `all`): the turns before, numbered per phase as they were shown.
    pub fn cards(&mut self, all: bool) -> String {
        self.try_cards(all).to_string()
    }

    /// The words that may come next in a command being built by taps (`line`: the words so
    /// far), as JSON: `{complete, slot, words: [{word, kind}], note}`. Built from the command's
    /// usage (the synopsis its help starts with, as `help` prints it: `fire MODEL WEAPON at
    /// TARGET`, `turn MODEL up|right|down|left`, `card NAME [MODEL]`) and from the session
    /// itself: the line is tried on a copy of the game (never the game, never saved), its
    /// refusal's lists and examples give the words it asks for, and each piece offered is
    /// tried in its place, so only pieces the command takes there are offered. `complete`:
    /// the line as it is would be accepted.
    pub fn words(&mut self, line: &str) -> String {
        self.try_words(line).to_string()
    }

    /// The board, the pieces and the state of play as the player may see them, as JSON.
    pub fn view(&self) -> String {
        let (Some(game), Some(session)) = (&self.game, &self.session) else {
            return "null".into();
        };
        let mut v = view(game, session);
        if let Some(c) = &self.campaign {
            v["campaign"] = campaign_view(c, self.host.ruleset());
        }
        v.to_string()
    }
}

/// Why a campaign cannot go on, in one line with the script's place when a hook failed.
fn campaign_error(host: &Host, e: CampaignError) -> String {
    match e {
        CampaignError::Usage(m) => m,
        CampaignError::Hook(f) => {
            let at = host.ruleset().sources.locate(f.diagnostic.span);
            format!("{} ({at})", f.diagnostic.message)
        }
        CampaignError::Game(e) => game_error_text(e, host),
    }
}

/// A campaign as the page shows it: which mission of how many, the missions played and how
/// each ended, what the hooks said before this one, how the campaign ended.
fn campaign_view(c: &Campaign, ruleset: &servitor::Ruleset) -> Json {
    let total = c.def(ruleset).map_or(0, |d| d.missions.len());
    let played: Vec<Json> = c
        .played
        .iter()
        .map(|p| json!({ "number": p.number, "mission": p.mission, "winner": p.result.winner, "reason": p.result.reason }))
        .collect();
    json!({
        "id": c.campaign,
        "seed": c.seed.to_string(),
        "number": if c.ended.is_some() { c.played.len() } else { c.played.len() + 1 },
        "total": total,
        "played": played,
        "notes": c.before_notes,
        "ended": c.ended,
    })
}

fn refusal(line: &str, reason: String) -> Json {
    json!({ "command": line, "ok": false, "note": reason, "lines": [] })
}

fn game_error_text(e: GameError, host: &Host) -> String {
    match e {
        GameError::Refused(m) | GameError::Usage(m) | GameError::Save(m) | GameError::Scenario(m) => m,
        GameError::Script { diagnostic, .. } => servitor::diagnostic::Report {
            diagnostics: vec![*diagnostic],
        }
        .render(&host.ruleset().sources, false),
    }
}

/// The dice and answers of one run: replayed ones (a redo: its saved dice and answers), or the
/// player's dice and answers then a request (manual dice), or the seed's dice. Every answer to
/// a question is recorded (`choice_record`), so the session keeps it.
fn forced_for(
    manual: bool,
    replay: Option<(&[u64], &[u64])>,
    answers: Vec<Option<u64>>,
    choices: Vec<u64>,
) -> (Arc<Mutex<Forced>>, Arc<Mutex<Asked>>) {
    let asked = Arc::new(Mutex::new(Asked {
        answers,
        choices: choices.len(),
        ..Asked::default()
    }));
    let mut forced = match (replay, manual) {
        (Some((values, saved)), _) => Forced {
            values: values.iter().copied().collect(),
            choices: saved.iter().copied().collect(),
            ..Forced::default()
        },
        (None, true) => {
            let seen = asked.clone();
            let ask = move |die: &DieAsk| -> Option<u64> {
                let mut a = lock(&seen);
                if let Some(answer) = a.answers.get(a.next).copied() {
                    a.next += 1;
                    return answer;
                }
                // Past the answers given: the run goes on with the seed's dice, and is undone.
                if a.need.is_none() {
                    a.need = Some(Need::Die(die.die.clone(), die.faces.clone()));
                }
                None
            };
            Forced {
                ask: Some(Box::new(ask)),
                record: Some(Vec::new()),
                choices: choices.into(),
                ..Forced::default()
            }
        }
        (None, false) => Forced {
            choices: choices.into(),
            ..Forced::default()
        },
    };
    if replay.is_none() {
        // A question past the answers given (`Game::ask` takes those first): the run goes on
        // with servitor's answer, and is undone.
        let seen = asked.clone();
        forced.choose = Some(Box::new(move |q: &ChoiceAsk| -> Option<u64> {
            let mut a = lock(&seen);
            if a.need.is_none() {
                a.need = Some(Need::Question(q.question.clone(), q.choices.clone(), q.default + 1));
            }
            None
        }));
    }
    forced.choice_record = Some(Vec::new());
    forced.asks_picks = true;
    (Arc::new(Mutex::new(forced)), asked)
}

fn need_json(line: &str, asked: &Asked) -> Option<Json> {
    let need = match asked.need.as_ref()? {
        Need::Die(die, faces) => json!({ "die": die, "faces": faces, "given": asked.answers.len() }),
        Need::Question(question, choices, default) => json!({
            "question": question,
            "choices": choices,
            "default": default,
            "given": asked.choices,
        }),
    };
    Some(json!({ "command": line, "ok": false, "need": need, "lines": [] }))
}

/// `events[from..to]` of the player's log as lines, each with the index of its event.
fn event_lines(log: &[servitor::game::Event], from: usize, to: usize, side: &str) -> Vec<Json> {
    let mut n = 0;
    let mut out = Vec::new();
    for (i, e) in log.iter().enumerate().take(to).skip(from) {
        for line in table::lines_numbered(std::slice::from_ref(e), side, false, &mut n) {
            let mut j = serde_json::to_value(line).unwrap_or(Json::Null);
            j["event"] = json!(i);
            out.push(j);
        }
    }
    out
}

/// One place in a command's usage (the synopsis its help starts with, before the first `:`).
#[derive(Clone, Debug, serde::Serialize)]
struct Slot {
    /// The placeholder as the usage writes it (`MODEL`), or the literal words (`at`, `up|down`).
    name: String,
    /// What fills it: `own` (one of the player's pieces: `MODEL`, `UNIT`, `PIECE`), `enemy`
    /// (another side's: `TARGET`, `ALIEN`, `ENEMY`), `square` (`SQUARE`, `X,Y`), `word` (one
    /// of `words`), `value` (any other placeholder: a weapon, a card, a number).
    kind: &'static str,
    words: Vec<String>,
    optional: bool,
    repeat: bool,
}

/// A command's usage as slots, from its help (`fire MODEL WEAPON at TARGET: …`): empty when
/// the help does not begin with the command's word.
fn usage(word: &str, help: Option<&str>) -> Vec<Slot> {
    let Some(help) = help else { return Vec::new() };
    let synopsis = help.split(": ").next().unwrap_or("");
    let mut tokens = synopsis.split_whitespace();
    if tokens.next() != Some(word) {
        return Vec::new();
    }
    let mut slots: Vec<Slot> = Vec::new();
    let mut optional = false;
    for token in tokens {
        let mut t = token;
        if let Some(rest) = t.strip_prefix('[') {
            optional = true;
            t = rest;
        }
        let closes = t.ends_with(']');
        t = t.trim_end_matches(']');
        let mut repeat = false;
        for dots in ["…", "..."] {
            if let Some(rest) = t.strip_suffix(dots) {
                repeat = true;
                t = rest;
            }
        }
        if t.is_empty() {
            if let Some(last) = slots.last_mut() {
                last.repeat |= repeat;
            }
        } else {
            let placeholder = t.chars().any(|c| c.is_ascii_uppercase()) && !t.chars().any(|c| c.is_ascii_lowercase());
            let (kind, words) = if t.contains('|') {
                ("word", t.split('|').map(str::to_string).collect())
            } else if !placeholder {
                ("word", vec![t.to_string()])
            } else if t.contains("SQUARE") || t == "X,Y" {
                ("square", Vec::new())
            } else if ["MODEL", "UNIT", "PIECE"].contains(&t) {
                ("own", Vec::new())
            } else if ["TARGET", "ALIEN", "ENEMY"].contains(&t) {
                ("enemy", Vec::new())
            } else {
                ("value", Vec::new())
            };
            slots.push(Slot {
                name: t.to_string(),
                kind,
                words,
                optional,
                repeat,
            });
        }
        if closes {
            optional = false;
        }
    }
    slots
}

fn is_square(word: &str) -> bool {
    let mut parts = word.split(',');
    let ok = |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit() || c == '.'));
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

/// Whether `word` may fill `slot` (a placeholder of a value takes any word).
fn fills(slot: &Slot, word: &str, game: &Game, side: &str) -> bool {
    let piece = game.state.pieces.iter().find(|p| p.id == word);
    match slot.kind {
        "word" => slot.words.iter().any(|w| w == word),
        "square" => is_square(word) || piece.is_some(),
        "own" => piece.is_some_and(|p| p.side == side),
        "enemy" => piece.is_some_and(|p| p.side != side),
        _ => true,
    }
}

/// The positions in `slots` reachable past optional slots from `from`.
fn closure(slots: &[Slot], from: std::collections::BTreeSet<usize>) -> std::collections::BTreeSet<usize> {
    let mut out = from.clone();
    let mut todo: Vec<usize> = from.into_iter().collect();
    while let Some(p) = todo.pop() {
        if p < slots.len() && slots[p].optional && out.insert(p + 1) {
            todo.push(p + 1);
        }
    }
    out
}

/// Whether `text` names `word` as a whole word.
fn names_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_');
        !part(text[..i].chars().next_back()) && !part(text[i + word.len()..].chars().next())
    })
}

/// An id-like word a refusal offers: lower case, digits, `-`, `_`, `.`; not a square.
fn offered_word(word: &str) -> bool {
    !word.is_empty()
        && word
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && word
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c))
}

/// The words a refusal lists (`[a, b]`, `["a", "b"]`: each item's first word), and the words
/// its examples put after `line` (`fire m-1 bolter best`: `best`), ids with digits left out
/// (an example's piece or square is not this game's).
fn refusal_words(reason: &str, line: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |w: &str| {
        if offered_word(w) && !out.iter().any(|o| o == w) {
            out.push(w.to_string());
        }
    };
    let mut rest = reason;
    while let Some(open) = rest.find('[') {
        let Some(len) = rest[open..].find(']') else { break };
        let inside = &rest[open + 1..open + len];
        if inside.contains('"') {
            for (k, item) in inside.split('"').enumerate() {
                if k % 2 == 1 {
                    push(item.split_whitespace().next().unwrap_or(""));
                }
            }
        } else {
            for item in inside.split(", ") {
                push(item.split([' ', '(']).next().unwrap_or(""));
            }
        }
        rest = &rest[open + len..];
    }
    if line.split_whitespace().count() >= 2 {
        for (i, _) in reason.match_indices(line) {
            let before = reason[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '-') {
                continue;
            }
            let after = &reason[i + line.len()..];
            if !after.starts_with(' ') {
                continue;
            }
            let next = after.split_whitespace().next().unwrap_or("");
            let next = next.trim_end_matches([';', ',', '.', ')', '"', '`', '\'', ':']);
            if !next.chars().any(|c| c.is_ascii_digit()) && next.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
                push(next);
            }
        }
    }
    out
}

/// Whether a refusal's example puts a square right after `line` (`… towards 12,9`, `… at
/// SQUARE`): a square may come next though the command's usage does not say so.
fn refusal_wants_square(reason: &str, line: &str) -> bool {
    line.split_whitespace().count() >= 2
        && reason.match_indices(line).any(|(i, _)| {
            let before = reason[..i].chars().next_back();
            let after = &reason[i + line.len()..];
            let next = after
                .strip_prefix(' ')
                .and_then(|a| a.split_whitespace().next())
                .unwrap_or("");
            let next = next.trim_end_matches([';', ',', '.', ')', '"', '`', '\'', ':']);
            !before.is_some_and(|c| c.is_alphanumeric() || c == '-') && (is_square(next) || next == "SQUARE")
        })
}

/// The probes of one `words` call, by line.
type Probes = std::collections::HashMap<String, Result<(), String>>;

/// A word offered and its kind (`word`, `own`, `enemy`, `value`).
type Offer = (String, &'static str);

/// How many words past an offered one `words` looks for a line the command takes.
const LOOK_AHEAD: usize = 3;

impl Companion {
    /// `line` tried on a copy of the game, with servitor's dice and answers: nothing is kept.
    fn probe(&mut self, line: &str) -> Result<(), String> {
        let (Some(game), Some(session)) = (&self.game, &self.session) else {
            return Err("no game".into());
        };
        let mut copy = game.clone();
        copy.forced = Some(Arc::new(Mutex::new(Forced::default())));
        copy.tee = None;
        match session::run_line(&mut self.host, copy, line, &session.side) {
            Ok(_) => Ok(()),
            Err(e) => Err(e.refusal_line(self.host.ruleset())),
        }
    }

    fn try_words(&mut self, line: &str) -> Json {
        let Some(game) = &self.game else {
            return json!(null);
        };
        let said: Vec<&str> = line.split_whitespace().collect();
        let Some(first) = said.first() else {
            let mut words: Vec<Json> = game
                .def
                .commands
                .iter()
                .map(|(w, c)| json!({ "word": w, "kind": "command", "help": c.help }))
                .collect();
            words.push(
                json!({ "word": "end", "kind": "command", "help": "end your turn: servitor plays the other side" }),
            );
            return json!({ "complete": false, "words": words });
        };
        if !game.def.commands.contains_key(*first) {
            return json!({ "complete": false, "words": [], "note": format!("`{first}` is not a command of this game") });
        }
        if game.state.over.is_some() {
            return json!({ "complete": false, "words": [], "note": "the game is over" });
        }
        let mut probes = Probes::new();
        let Some((next, offer)) = self.offers(&said, &mut probes) else {
            return json!(null);
        };
        let tried = self.probe_once(line, &mut probes);
        // Each word tried in its place: one whose refusal names it (past the line itself,
        // which examples repeat) when the line's own refusal did not is not offered; nor one
        // after which no line the command takes can follow (a Marine off the board for
        // `fire`, `best` with nothing in sight).
        let before = tried
            .as_ref()
            .err()
            .map(|r| r.replace(&said.join(" "), ""))
            .unwrap_or_default();
        let mut words = Vec::new();
        let mut dead_ends: Vec<String> = Vec::new();
        for (w, kind) in offer {
            let longer = format!("{} {w}", said.join(" "));
            let keep = match self.probe_once(&longer, &mut probes) {
                Ok(()) => true,
                Err(reason) => !names_word(&reason.replace(&longer, ""), &w) || names_word(&before, &w),
            };
            if !keep {
                continue;
            }
            let mut longer_said = said.clone();
            longer_said.push(&w);
            match self.leads_on(&longer_said, LOOK_AHEAD, &mut probes) {
                Ok(()) => words.push(json!({ "word": w, "kind": kind })),
                Err(why) => {
                    if !dead_ends.contains(&why) {
                        dead_ends.push(why);
                    }
                }
            }
        }
        // A refused line whose refusal lists words: those that would do in its last word's
        // place (`fire marine-1 genestealer-9` → the targets in his arc).
        let mut instead = Vec::new();
        if let (Err(reason), Some((last, before))) = (&tried, said.split_last())
            && before.len() >= 2
        {
            for w in refusal_words(reason, "") {
                if w == *last || before.contains(&w.as_str()) {
                    continue;
                }
                let other = format!("{} {w}", before.join(" "));
                let keep = match self.probe_once(&other, &mut probes) {
                    Ok(()) => true,
                    Err(why) => !names_word(&why.replace(&other, ""), &w),
                };
                if keep {
                    instead.push(w);
                }
            }
        }
        let square = next.iter().any(|s| s.kind == "square");
        // Nothing to offer and no square to tap: why, from the dead ends found (three at most).
        let note = (words.is_empty() && !square && tried.is_err() && !dead_ends.is_empty()).then(|| {
            dead_ends.truncate(3);
            format!("nothing to add here: {}", dead_ends.join("; "))
        });
        let mut out = json!({
            "complete": tried.is_ok(),
            "instead": instead,
            "refusal": tried.err(),
            "slots": next,
            "square": square,
            "words": words,
        });
        if let Some(note) = note {
            out["note"] = json!(note);
        }
        out
    }

    /// `line` probed once per `words` call.
    fn probe_once(&mut self, line: &str, probes: &mut Probes) -> Result<(), String> {
        if let Some(r) = probes.get(line) {
            return r.clone();
        }
        let r = self.probe(line);
        probes.insert(line.to_string(), r.clone());
        r
    }

    /// The slots that may come after `said` and the words offered for them (word, kind): the
    /// slots' own words, the player's or the other sides' pieces, the named pieces' listed
    /// values, and the words the line's refusal lists.
    fn offers(&mut self, said: &[&str], probes: &mut Probes) -> Option<(Vec<Slot>, Vec<Offer>)> {
        let (Some(game), Some(session)) = (&self.game, &self.session) else {
            return None;
        };
        let side = session.side.clone();
        let def = game.def.commands.get(*said.first()?)?;
        let slots = usage(said[0], def.help.as_deref());
        let mut at = closure(&slots, [0].into());
        for w in &said[1..] {
            let mut next = std::collections::BTreeSet::new();
            for &p in at.iter().filter(|&&p| p < slots.len()) {
                if fills(&slots[p], w, game, &side) {
                    next.insert(p + 1);
                    if slots[p].repeat {
                        next.insert(p);
                    }
                }
            }
            at = closure(&slots, next);
        }
        let mut next: Vec<Slot> = at.iter().filter_map(|&p| slots.get(p).cloned()).collect();
        let mut offer: Vec<(String, &'static str)> = Vec::new();
        let add = |offer: &mut Vec<(String, &'static str)>, w: &str, kind: &'static str| {
            if !said.contains(&w) && !offer.iter().any(|(o, _)| o == w) {
                offer.push((w.to_string(), kind));
            }
        };
        let named: Vec<&servitor::game::state::Piece> = said[1..]
            .iter()
            .rev()
            .filter_map(|w| game.state.pieces.iter().find(|p| p.id == *w))
            .collect();
        for slot in &next {
            match slot.kind {
                "word" => slot.words.iter().for_each(|w| add(&mut offer, w, "word")),
                "own" => game
                    .state
                    .pieces
                    .iter()
                    .filter(|p| p.side == side && (p.on_board() || p.status == "off"))
                    .for_each(|p| add(&mut offer, &p.id, "own")),
                "enemy" => game
                    .state
                    .pieces
                    .iter()
                    .filter(|p| p.side != side && p.on_board() && p.hidden.is_none())
                    .for_each(|p| add(&mut offer, &p.id, "enemy")),
                "value" => {
                    for p in &named {
                        for v in p.fields.values() {
                            for item in v.as_array().into_iter().flatten() {
                                if let Some(w) = item.as_str().filter(|w| offered_word(w)) {
                                    add(&mut offer, w, "value");
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        let line = said.join(" ");
        if let Err(reason) = self.probe_once(&line, probes) {
            // The session's own lists come first for a value (the cards in hand, the event
            // cards, a model's guns).
            let listed = refusal_words(&reason, &line);
            let bracketed = !refusal_words(&reason, "").is_empty();
            // An example with a square after the line: a square may come next (`fire marine-1
            // plasma-gun towards` → tap the square the line runs through).
            if refusal_wants_square(&reason, &line) && !next.iter().any(|s| s.kind == "square") {
                next.push(Slot {
                    name: "SQUARE".into(),
                    kind: "square",
                    words: Vec::new(),
                    optional: false,
                    repeat: false,
                });
            }
            // (A list in brackets; an example's word — `fire marine-2 bolter …` — is no list.)
            if bracketed && next.iter().any(|s| s.kind == "value") {
                offer.retain(|(_, k)| *k != "value");
            }
            let game = self.game.as_ref()?;
            for w in listed {
                let kind = match game.state.pieces.iter().find(|p| p.id == w) {
                    Some(p) if p.side == side => "own",
                    Some(_) => "enemy",
                    None => "value",
                };
                add(&mut offer, &w, kind);
            }
        }
        Some((next, offer))
    }

    /// Whether some line the command takes begins with `said`, looking up to `depth` words
    /// further among the words offered (a square, a value nothing lists, or a line its usage
    /// still describes at the look-ahead's end is taken on trust): `Err` with the refusal of
    /// a dead end.
    fn leads_on(&mut self, said: &[&str], depth: usize, probes: &mut Probes) -> Result<(), String> {
        let line = said.join(" ");
        let refusal = match self.probe_once(&line, probes) {
            Ok(()) => return Ok(()),
            Err(r) => r,
        };
        let Some((next, offer)) = self.offers(said, probes) else {
            return Err(refusal);
        };
        // Past the usage (its words do not fit it) with nothing listed: a dead end; at the
        // look-ahead's end, a line the usage still describes is taken on trust.
        if next.is_empty() && (offer.is_empty() || depth == 0) {
            return Err(refusal);
        }
        if depth == 0 {
            return Ok(());
        }
        if next.iter().any(|s| s.kind == "square") {
            return self.square_leads_on(said, next.iter().all(|s| s.kind == "square"), probes);
        }
        if offer.is_empty() && next.iter().any(|s| s.kind == "value") {
            return Ok(());
        }
        let mut why = refusal;
        for (w, _) in offer {
            let mut longer = said.to_vec();
            longer.push(&w);
            match self.leads_on(&longer, depth - 1, probes) {
                Ok(()) => return Ok(()),
                Err(r) => why = r,
            }
        }
        Err(why)
    }

    /// A square comes next after `said`: the line is tried with a few stand-in squares — beside
    /// the last piece named, and the board's first floor square. Taken on trust when one is
    /// taken, or a refusal names its square (the square's fault: another may do), or the
    /// square is not all that may come; a dead end when every refusal names the piece and no
    /// square (`enter marine-1` with marine-1 already aboard: no square would do).
    fn square_leads_on(&mut self, said: &[&str], only_squares: bool, probes: &mut Probes) -> Result<(), String> {
        let Some(game) = &self.game else { return Ok(()) };
        let Some(&last) = said.last() else { return Ok(()) };
        let Some(piece) = game.state.pieces.iter().find(|p| p.id == last) else {
            return Ok(());
        };
        if !only_squares || game.battlefield().is_ok() {
            return Ok(());
        }
        let grid = &game.view.grid;
        let floor = |s: servitor::board::Square| grid.contains(s) && !grid.is_solid(s);
        let mut stand_ins: Vec<servitor::board::Square> = Vec::new();
        if let Some(at) = piece.at {
            stand_ins.extend(
                [(1, 0), (0, 1), (-1, 0), (0, -1)]
                    .iter()
                    .map(|&(dx, dy)| at.offset(dx, dy))
                    .filter(|&s| floor(s))
                    .take(2),
            );
        }
        stand_ins.extend((0..grid.len()).map(|i| grid.square(i)).find(|&s| floor(s)));
        let mut why = None;
        for sq in stand_ins {
            let sq = sq.to_string();
            let line = format!("{} {sq}", said.join(" "));
            match self.probe_once(&line, probes) {
                Ok(()) => return Ok(()),
                Err(r) => {
                    let about = r.replace(&line, "");
                    if names_word(&about, &sq) || !names_word(&about, last) {
                        return Ok(());
                    }
                    why = Some(r);
                }
            }
        }
        why.map_or(Ok(()), Err)
    }

    fn turn_from(&mut self) -> usize {
        if let Some(from) = self.turn_from {
            return from;
        }
        let Some(session) = &self.session else { return 0 };
        let last_end = session
            .entries
            .iter()
            .rposition(|e| e.line.split_whitespace().next() == Some("end"));
        let from = match last_end {
            None => 0,
            Some(k) => {
                let mut before = session.clone();
                before.entries.truncate(k);
                before.redo.clear();
                before.replay(&mut self.host).map(|g| g.events.len()).unwrap_or(0)
            }
        };
        self.turn_from = Some(from);
        from
    }

    fn try_cards(&mut self, all: bool) -> Json {
        let from = self.turn_from();
        let (Some(game), Some(session)) = (&self.game, &self.session) else {
            return json!(null);
        };
        let log = player_log(&game.events);
        let from = from.min(log.len());
        json!({
            "from": from,
            "total": log.len(),
            "lines": event_lines(&log, from, log.len(), &session.side),
            "earlier": if all { json!(event_lines(&log, 0, from, &session.side)) } else { json!(null) },
        })
    }

    /// [`Companion::new`] with its error as text.
    pub fn load_files(files: &str) -> Result<Companion, String> {
        let loaded = servitor::package::load_given(given(files)?).map_err(|e| e.render(false))?;
        Ok(Companion::with(loaded))
    }

    pub fn load(package: &str) -> Result<Companion, String> {
        let loaded = servitor::load(package).map_err(|e| e.render(false))?;
        Ok(Companion::with(loaded))
    }

    fn with(loaded: servitor::package::Loaded) -> Companion {
        Companion {
            host: Host::new(&Arc::new(loaded.ruleset)),
            session: None,
            game: None,
            turn_from: None,
            campaign: None,
        }
    }

    fn try_begin(&mut self, setup: &str, answers: &str, choices: &str) -> Result<Json, String> {
        let new: NewGame = serde_json::from_str(setup).map_err(|e| format!("not a new game: {e}"))?;
        let answers = parse_answers(answers)?;
        let choices = parse_choices(choices)?;
        let seed: u64 = new
            .seed
            .trim()
            .parse()
            .map_err(|_| format!("the seed `{}` is not a whole number from 0 to 2^64 - 1", new.seed))?;
        let def = self
            .host
            .game_def(new.game.as_deref())
            .map_err(|e| game_error_text(e, &self.host))?;
        let side = new.side.clone().unwrap_or_else(|| def.sides[0].clone());
        if !def.sides.contains(&side) {
            return Err(format!(
                "`{side}` is not a side of this game (sides: {})",
                def.sides.join(", ")
            ));
        }
        if let Some(id) = new.campaign.as_deref() {
            let ruleset = self.host.ruleset().clone();
            let id = Some(id).filter(|id| !id.is_empty());
            let mut campaign = Campaign::new(&ruleset, id, seed, new.options)?;
            campaign.side = Some(side.clone());
            campaign.manual_dice = new.manual_dice;
            let (setup, notes) = campaign.prepare(&ruleset).map_err(|e| campaign_error(&self.host, e))?;
            campaign.before_notes = notes;
            let session = campaign.session(&setup, side);
            let answer = self.start_session(session, answers, choices, "start")?;
            if answer["ok"] == json!(true) {
                self.campaign = Some(campaign);
                return Ok(self.with_campaign_notes(answer));
            }
            return Ok(answer);
        }
        let session = Session {
            format: SESSION_FORMAT.into(),
            version: SESSION_VERSION,
            package: self.host.ruleset().name().to_string(),
            found_at: None,
            game: new.game,
            mission: new.mission,
            seed,
            options: new.options,
            side,
            manual_dice: new.manual_dice,
            start_dice: Vec::new(),
            start_choices: Vec::new(),
            entries: Vec::new(),
            redo: Vec::new(),
        };
        self.campaign = None;
        self.start_session(session, answers, choices, "start")
    }

    /// Starts `session`'s game to the player's first turn: the setup's dice (manual dice) and
    /// questions asked as a command's are (`line` names the request). The game and session
    /// are kept only when it starts; an answer that asks for a die or a question keeps neither.
    fn start_session(
        &mut self,
        mut session: Session,
        answers: Vec<Option<u64>>,
        choices: Vec<u64>,
        line: &str,
    ) -> Result<Json, String> {
        let (forced, asked) = forced_for(session.manual_dice, None, answers, choices);
        let started = self
            .host
            .start(&session.setup(), Some(0))
            .and_then(|mut game| {
                game.forced = Some(forced.clone());
                self.host.advance_to(game, &session.side)
            })
            .map_err(|e| game_error_text(e, &self.host))?;
        if let Some(need) = need_json(line, &lock(&asked)) {
            return Ok(need);
        }
        session.start_dice = lock(&forced).record.take().unwrap_or_default();
        session.start_choices = lock(&forced).choice_record.take().unwrap_or_default();
        let lines = table::lines(&player_log(&started.events), &session.side, false);
        self.session = Some(session);
        self.game = Some(started);
        self.turn_from = Some(0);
        Ok(self.answer(line, true, None, lines))
    }

    /// The campaign's words before its mission (what the `before` hook said), as the
    /// answer's note.
    fn with_campaign_notes(&self, mut answer: Json) -> Json {
        if let Some(c) = &self.campaign
            && !c.before_notes.is_empty()
        {
            answer["note"] = json!(c.before_notes.join(" "));
        }
        answer
    }

    /// `next`: the mission played, the campaign's `after` hook gives its new state and the
    /// next mission starts (its set-up's dice asked with manual dice, as a start's are); after
    /// the last, the `end` hook says how the campaign ended. Nothing changes when it cannot.
    fn next_mission(&mut self, answers: Vec<Option<u64>>, choices: Vec<u64>) -> Json {
        let (Some(game), Some(session), Some(campaign)) = (&self.game, &self.session, &self.campaign) else {
            return refusal(
                "next",
                "`next` goes on with a campaign: start one with the campaign chosen".into(),
            );
        };
        if game.state.over.is_none() {
            return refusal(
                "next",
                "the mission is not over yet: play it to its end, then `next`".into(),
            );
        }
        if campaign.ended.is_some() {
            return refusal("next", "this campaign is over: start a new one".into());
        }
        let ruleset = self.host.ruleset().clone();
        let setup = session.setup();
        let side = session.side.clone();
        let mut next = campaign.clone();
        let before = std::mem::take(&mut next.before_notes);
        let shown = before.len();
        if let Err(e) = next.finish(&ruleset, &setup, servitor::game::host::summary(game), before) {
            return refusal(
                "next",
                format!("the campaign cannot go on: {}", campaign_error(&self.host, e)),
            );
        }
        let after: Vec<String> = next
            .played
            .last()
            .map(|p| p.notes.get(shown..).unwrap_or_default().to_vec())
            .unwrap_or_default();
        if let Some(ended) = next.ended.clone() {
            next.session = None;
            self.campaign = Some(next);
            let mut said = after;
            said.push(ended);
            return json!({ "command": "next", "ok": true, "note": said.join(" "), "lines": [] });
        }
        let (setup, notes) = match next.prepare(&ruleset) {
            Ok(prepared) => prepared,
            Err(e) => {
                return refusal(
                    "next",
                    format!("the campaign cannot go on: {}", campaign_error(&self.host, e)),
                );
            }
        };
        next.before_notes = notes;
        let fresh = next.session(&setup, side);
        match self.start_session(fresh, answers, choices, "next") {
            Ok(answer) if answer["ok"] == json!(true) => {
                self.campaign = Some(next);
                self.with_campaign_notes(answer)
            }
            Ok(need) => need,
            Err(e) => refusal("next", format!("the campaign cannot go on: {e}")),
        }
    }

    fn try_resume(&mut self, save: &str) -> Result<Json, String> {
        if save.len() > servitor::limits::MAX_SAVE_BYTES as usize {
            return Err(format!(
                "the save is {} bytes, past MAX_SAVE_BYTES ({})",
                save.len(),
                servitor::limits::MAX_SAVE_BYTES
            ));
        }
        let campaign_file = serde_json::from_str::<Json>(save)
            .ok()
            .is_some_and(|j| j["format"] == json!(servitor::campaign::CAMPAIGN_FORMAT));
        if campaign_file {
            return self.resume_campaign(save);
        }
        let session: Session =
            serde_json::from_str(save).map_err(|e| format!("this is not a servitor play save: {e}"))?;
        session.check(self.host.ruleset().name())?;
        self.campaign = None;
        let game = session
            .replay(&mut self.host)
            .map_err(|e| game_error_text(e, &self.host))?;
        session
            .check_redo(&mut self.host)
            .map_err(|e| game_error_text(e, &self.host))?;
        // The last turns' instructions, as `servitor play --resume` shows them.
        let shown = game.events.len().saturating_sub(30);
        let lines = table::lines(&player_log(&game.events)[shown..], &session.side, false);
        self.session = Some(session);
        self.game = Some(game);
        self.turn_from = None;
        Ok(self.answer("resume", true, None, lines))
    }

    /// A campaign file, as `play --campaign` writes it: checked as the command line checks
    /// it, then its mission at the table replayed (or, between missions, the next started).
    fn resume_campaign(&mut self, save: &str) -> Result<Json, String> {
        let ruleset = self.host.ruleset().clone();
        let mut campaign = Campaign::read(save)?;
        campaign
            .check(&ruleset)
            .and_then(|()| campaign.check_played(&ruleset))?;
        if campaign.done(&ruleset) {
            return Err(format!(
                "this campaign is over ({} missions played): start a new one",
                campaign.played.len()
            ));
        }
        let side = campaign
            .side
            .clone()
            .unwrap_or_else(|| self.host.game_def(None).map(|d| d.sides[0].clone()).unwrap_or_default());
        let Some(session) = campaign.session.take() else {
            // Between two missions (a file the command line wrote): the next one starts, its
            // set-up's dice asked with manual dice as a start's are.
            let (setup, notes) = campaign.prepare(&ruleset).map_err(|e| campaign_error(&self.host, e))?;
            campaign.before_notes = notes;
            let fresh = campaign.session(&setup, side);
            self.campaign = Some(campaign);
            return self.start_session(fresh, Vec::new(), Vec::new(), "resume");
        };
        let game = session
            .replay(&mut self.host)
            .map_err(|e| game_error_text(e, &self.host))?;
        let shown = game.events.len().saturating_sub(30);
        let lines = table::lines(&player_log(&game.events)[shown..], &session.side, false);
        self.session = Some(session);
        self.game = Some(game);
        self.turn_from = None;
        self.campaign = Some(campaign);
        Ok(self.answer("resume", true, None, lines))
    }

    fn handle(&mut self, line: &str, answers: Vec<Option<u64>>, choices: Vec<u64>) -> Json {
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or_default();
        let rest = words.next();
        let Some(game) = self.game.as_ref() else {
            return refusal(line, "no game".into());
        };
        match first {
            "help" => info(table::help(game)),
            "status" => info(table::status_at_the_table(game, &mut self.host)),
            "why" => info(table::why(game, rest)),
            "sees" => info(table::sees(game, rest)),
            "odds" => odds(game, rest),
            "undo" => self.undo(),
            "redo" => self.redo(),
            "next" if self.campaign.is_some() => self.next_mission(answers, choices),
            _ if game.state.over.is_some() => refusal(line, "the game is over".into()),
            _ => {
                // Kept only if a resume would read it back (`MAX_COMMAND_BYTES`, one line).
                if let Err(why) = session::check_line(line) {
                    return refusal(line, format!("{why} — nothing changed"));
                }
                let Some(session) = self.session.as_mut() else {
                    return refusal(line, "no game".into());
                };
                // A new command after an undo: what was taken back cannot come back any more.
                let redo = std::mem::take(&mut session.redo);
                let answer = self.command(line, None, answers, choices);
                if answer["ok"] != json!(true)
                    && let Some(session) = self.session.as_mut()
                {
                    session.redo = redo;
                }
                answer
            }
        }
    }

    /// Runs a command; `replay` gives a redone command's dice and answers. Accepted: its entry
    /// is added.
    fn command(&mut self, line: &str, replay: Option<&Entry>, answers: Vec<Option<u64>>, choices: Vec<u64>) -> Json {
        let (Some(game), Some(session)) = (self.game.take(), self.session.as_ref()) else {
            return refusal(line, "no game".into());
        };
        let manual = session.manual_now();
        let side = session.side.clone();
        let before = game.events.len();
        let (forced, asked) = forced_for(manual, replay.map(|e| (&e.dice[..], &e.choices[..])), answers, choices);
        match session::play_line(&mut self.host, game, session, line, &forced, replay) {
            Ok((game, entry)) => {
                if let Some(need) = need_json(line, &lock(&asked)) {
                    return self.restored(need);
                }
                let lines = table::lines(&player_log(&game.events)[before.min(game.events.len())..], &side, false);
                self.game = Some(game);
                if let Some(session) = self.session.as_mut() {
                    session.entries.push(entry);
                }
                if line.split_whitespace().next() == Some("end") {
                    self.turn_from = Some(before);
                }
                self.answer(line, true, None, lines)
            }
            Err(error) => {
                let reason = error.refusal_line(self.host.ruleset());
                self.restored(refusal(line, format!("{reason} — nothing changed")))
            }
        }
    }

    /// The game put back as the accepted commands leave it, then `answer`.
    fn restored(&mut self, answer: Json) -> Json {
        match self.restore() {
            Ok(()) => answer,
            Err(e) => refusal("restore", e),
        }
    }

    fn restore(&mut self) -> Result<(), String> {
        let Some(session) = &self.session else {
            return Err("no game".into());
        };
        let game = session
            .replay(&mut self.host)
            .map_err(|e| game_error_text(e, &self.host))?;
        self.game = Some(game);
        Ok(())
    }

    fn undo(&mut self) -> Json {
        let Some(entry) = self.session.as_mut().and_then(|s| s.entries.pop()) else {
            return refusal("undo", "nothing to undo".into());
        };
        if let Some(s) = self.session.as_mut() {
            s.redo.push(entry.clone());
        }
        let before = self.game.as_ref().map(|g| g.events.clone()).unwrap_or_default();
        self.turn_from = None;
        if let Err(e) = self.restore() {
            return refusal("undo", e);
        }
        let kept = self.game.as_ref().map_or(0, |g| g.events.len());
        let message = servitor::game::session::took_back(&entry.line, &before, kept);
        self.answer("undo", true, Some(message), Vec::new())
    }

    fn redo(&mut self) -> Json {
        let Some(entry) = self.session.as_mut().and_then(|s| s.redo.pop()) else {
            return refusal("redo", "nothing to redo".into());
        };
        let redo = self
            .session
            .as_mut()
            .map(|s| std::mem::take(&mut s.redo))
            .unwrap_or_default();
        let answer = self.command(&entry.line, Some(&entry), Vec::new(), Vec::new());
        if let Some(s) = self.session.as_mut() {
            s.redo = redo;
        }
        answer
    }

    /// An accepted line's answer: its instructions, and where the game stands.
    fn answer(&self, line: &str, ok: bool, note: Option<String>, lines: Vec<table::Line>) -> Json {
        let game = self.game.as_ref();
        let over = game.and_then(|g| g.state.over.as_ref());
        json!({
            "command": line,
            "ok": ok,
            "note": note,
            "lines": lines,
            "turn": game.map(|g| g.state.turn),
            "over": over,
            "final": over.and(game).map(table::final_line),
        })
    }
}

fn info(text: String) -> Json {
    json!({ "command": "info", "ok": true, "text": text })
}

/// The exact odds of one of the package's tables, one roll, as fractions and as numbers.
fn odds(game: &Game, id: Option<&str>) -> Json {
    let r = &game.ruleset;
    let Some(id) = id else {
        let tables: Vec<&String> = r.tables.keys().collect();
        return json!({ "command": "odds", "ok": true, "tables": tables });
    };
    let Some(t) = r.tables.get(id) else {
        let hint = servitor::diagnostic::did_you_mean(id, r.tables.keys().map(String::as_str)).unwrap_or_default();
        return refusal("odds", format!("no table `{id}` in {} {hint}", r.name()));
    };
    let avail = servitor::tables::Availability::default();
    match servitor::tables::odds::table_odds(&r.tables, t, 1, &avail) {
        Err(e) => refusal("odds", e),
        Ok(dist) => {
            let rows: Vec<Json> = dist
                .iter()
                .map(|(o, p)| {
                    let f = num_traits::ToPrimitive::to_f64(p).unwrap_or(0.0);
                    json!({ "label": o.label, "exact": p.to_string(), "p": f })
                })
                .collect();
            json!({ "command": "odds", "ok": true, "table": id, "label": t.label, "dice": t.dice.to_string(), "rows": rows })
        }
    }
}

/// What the player may see of the game: no face-down identity, no deck order, no secret
/// pool's contents; only the instructions' words, never the log's actions.
fn view(game: &Game, session: &Session) -> Json {
    let grid = &game.view.grid;
    let mut solid = Vec::new();
    let mut marks = Vec::new();
    for y in 0..grid.height {
        for x in 0..grid.width {
            let sq = servitor::board::Square::new(x, y);
            if grid.is_solid(sq) {
                solid.push(sq.to_string());
            } else if let Some(mark) = grid.mark(sq) {
                marks.push(json!({ "at": sq.to_string(), "mark": mark, "letter": servitor::board::render::mark_letter(mark).to_string() }));
            }
        }
    }
    // Every wall and door between two squares (or a square and the edge): x, y of the square
    // after the edge, and whether it runs along the top (`h`) or the left (`v`) of it.
    let mut edges = Vec::new();
    let mut edge = |x: i32, y: i32, dir: &str, e: servitor::board::Edge| {
        let kind = match e {
            servitor::board::Edge::Open => return,
            servitor::board::Edge::Wall => "wall",
            servitor::board::Edge::Door { open: false } => "door",
            servitor::board::Edge::Door { open: true } => "open-door",
        };
        edges.push(json!([x, y, dir, kind]));
    };
    use servitor::board::Square;
    for y in 0..=grid.height {
        for x in 0..grid.width {
            let (a, b) = (Square::new(x, y - 1), Square::new(x, y));
            if !(grid.is_solid(a) && grid.is_solid(b)) {
                edge(x, y, "h", grid.edge(a, b));
            }
        }
    }
    for y in 0..grid.height {
        for x in 0..=grid.width {
            let (a, b) = (Square::new(x - 1, y), Square::new(x, y));
            if !(grid.is_solid(a) && grid.is_solid(b)) {
                edge(x, y, "v", grid.edge(a, b));
            }
        }
    }
    let s = &game.state;
    let pieces: Vec<Json> = s
        .pieces
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let face_down = p.hidden.is_some();
            let mut piece = json!({
                "id": p.id,
                "kind": p.kind,
                "side": p.side,
                "status": p.status,
                "at": p.at.map(|a| a.to_string()),
                "size": p.size,
                "face_down": face_down,
            });
            // A face-down piece's life and fields are those of what it hides; its facing,
            // action points and watch are drawn for face-up pieces only.
            if !face_down {
                piece["life"] = json!(p.life);
                piece["fields"] = json!(p.fields);
                if let Some(f) = p.facing {
                    piece["facing"] = json!(servitor::board::facing::FACING_NAMES.get(f as usize));
                }
                if let Some(ap) = p.ap {
                    piece["ap"] = json!(ap);
                }
                if let Some(w) = &p.watch {
                    piece["watch"] = json!(w);
                }
            }
            // On a battlefield in inches: where the unit stands and its base across.
            if let Some(at) = p.point {
                piece["point"] = json!([at.x, at.y]);
                piece["base"] = json!(game.base(i));
            }
            piece
        })
        .collect();
    let pools: Vec<Json> = s
        .pools
        .iter()
        .map(|(id, pool)| {
            if s.secret_pools.contains(id) {
                json!({ "id": id, "face_down": pool.values().sum::<i64>() })
            } else {
                json!({ "id": id, "entries": pool })
            }
        })
        .collect();
    let decks: Vec<Json> = s
        .decks
        .iter()
        .map(|(id, d)| json!({ "id": id, "left": d.len() }))
        .collect();
    let commands: Vec<Json> = game
        .def
        .commands
        .iter()
        .map(|(word, c)| json!({ "word": word, "help": c.help, "usage": usage(word, c.help.as_deref()) }))
        .collect();
    let mission = game.ruleset.missions.get(&game.mission);
    json!({
        "package": session.package,
        "game": game.def.id,
        "mission": game.mission,
        "mission_label": mission.and_then(|m| m.label.clone()),
        "seed": session.seed.to_string(),
        "side": session.side,
        "sides": game.def.sides,
        "manual_dice": session.manual_dice,
        // Who rolls now: `dice auto|manual` switches it from the next command on.
        "manual_now": session.manual_now(),
        "turn": s.turn,
        "phase_side": s.side,
        "phase": s.phase,
        "scores": s.scores,
        "over": s.over,
        "final": s.over.as_ref().map(|_| table::final_line(game)),
        "board": { "width": grid.width, "height": grid.height, "solid": solid, "marks": marks, "edges": edges },
        "battlefield": battlefield(game),
        "variables": variables(game),
        "pieces": pieces,
        "pools": pools,
        "decks": decks,
        "commands": commands,
        "tables": game.ruleset.tables.keys().collect::<Vec<_>>(),
        "commands_played": session.entries.len(),
        "can_undo": !session.entries.is_empty(),
        "can_redo": !session.redo.is_empty(),
    })
}

/// The game variables the package declares the player may know (`show VAR "label"`, printed
/// by `status` too, and `draw VAR "label"`), once set: each with its label, its value and the
/// places of the board it names — a square (`x,y`) or a board section, as a string, a list's
/// item or a map's key (with the key's value, those at 0, false or empty left out: nothing
/// there) — with their squares, for the page to draw (Space Hulk's burning sections, the blips
/// lurking at an entry area). Nothing else of the game's variables reaches the page.
fn variables(game: &Game) -> Vec<Json> {
    let grid = &game.view.grid;
    let places = |value: &Json| -> Vec<Json> {
        let mut named: Vec<(&str, Json)> = Vec::new();
        match value {
            Json::String(t) => named.push((t, Json::Null)),
            Json::Array(items) => named.extend(items.iter().filter_map(|i| i.as_str()).map(|t| (t, Json::Null))),
            Json::Object(m) => named.extend(
                m.iter()
                    .filter(|(_, v)| !matches!(v, Json::Null | Json::Bool(false)) && v.as_f64() != Some(0.0))
                    .filter(|(_, v)| !(v.as_str() == Some("") || v.as_array().is_some_and(Vec::is_empty)))
                    .filter(|(_, v)| !v.as_object().is_some_and(serde_json::Map::is_empty))
                    .map(|(k, v)| (k.as_str(), v.clone())),
            ),
            _ => {}
        }
        named
            .into_iter()
            .filter_map(|(name, value)| {
                let squares: Vec<String> = match servitor::board::Square::parse(name) {
                    Some(sq) if grid.contains(sq) && !grid.is_solid(sq) => vec![sq.to_string()],
                    Some(_) => return None,
                    None => game.section_squares(name).ok()?.iter().map(|s| s.to_string()).collect(),
                };
                (!squares.is_empty()).then(|| json!({ "name": name, "value": value, "squares": squares }))
            })
            .collect()
    };
    let shown = game.def.shown.iter().map(|v| (v, true));
    let drawn = game.def.drawn.iter().map(|v| (v, false));
    shown
        .chain(drawn)
        .filter_map(|((var, label), status)| {
            let value = game.state.vars.get(var).filter(|v| !v.is_null())?;
            Some(json!({
                "name": var,
                "label": label,
                "value": value,
                "status": status,
                "places": places(value),
            }))
        })
        .collect()
}

/// The battlefield in inches a game is played on, as the page draws it: its size, zones
/// (with what each does: `hides` sight, `avoid`ed by moves), terrain (`see_through` or not),
/// the package's markers and the game's own marks; `null` for a game on squares. All of it
/// is on the table for both sides to see.
fn battlefield(game: &Game) -> Json {
    let Ok(b) = game.battlefield() else { return Json::Null };
    let corners =
        |poly: &servitor::board::field::Polygon| -> Vec<[f64; 2]> { poly.corners.iter().map(|c| [c.x, c.y]).collect() };
    let zones: Vec<Json> = b
        .zones
        .iter()
        .map(|z| {
            json!({
                "name": z.name,
                "corners": corners(z),
                "hides": b.hides.contains(&z.name),
                "avoid": b.avoid.contains(&z.name),
            })
        })
        .collect();
    let terrain: Vec<Json> = b
        .terrain
        .iter()
        .map(|t| json!({ "name": t.name, "corners": corners(t), "see_through": b.see_through.contains(&t.name) }))
        .collect();
    let mut markers: Vec<Json> = b
        .markers
        .iter()
        .map(|(name, at)| json!({ "name": name, "at": [at.x, at.y] }))
        .collect();
    // The game's own marks (`game.mark_at`: spawn markers, …), after the package's.
    markers.extend(
        game.state
            .marks
            .iter()
            .map(|(name, at)| json!({ "name": name, "at": [at.x, at.y], "mark": true })),
    );
    json!({
        "id": b.id,
        "label": b.label,
        "width": b.width,
        "height": b.height,
        "zones": zones,
        "terrain": terrain,
        "markers": markers,
    })
}

#[cfg(test)]
mod tests {
    //! The page's engine natively: the same answers the browser gets (web/tests drives the
    //! browser build itself).

    use super::{Companion, catalog};
    use serde_json::{Value as Json, json};

    fn parse(text: &str) -> Json {
        serde_json::from_str(text).unwrap()
    }

    /// Every bundled package with a game is on the page, the battlefield in inches as well as
    /// the squares; a battlefield game's view draws its table and where each unit stands.
    #[test]
    fn every_game_is_in_the_catalog_and_a_battlefield_is_in_the_view() {
        let list = parse(&catalog());
        let names: Vec<&str> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["package"].as_str().unwrap())
            .collect();
        for name in servitor::package::available(&[servitor::package::Root::Bundled]) {
            let loaded = servitor::load(&name.name).unwrap();
            if !loaded.ruleset.games.is_empty() {
                assert!(names.contains(&name.name.as_str()), "{} is not in {names:?}", name.name);
            }
        }
        let field = list
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["package"] == "solo-heresy")
            .unwrap();
        let mut c = Companion::load("solo-heresy").unwrap();
        let mission = field["missions"][0]["id"].as_str().unwrap();
        let setup = json!({ "mission": mission, "seed": "5" }).to_string();
        let r = parse(&c.begin(&setup, "[]", "[]"));
        assert_eq!(r["ok"], json!(true), "{r}");
        let r = parse(&c.send("deploy auto", "[]", "[]"));
        assert_eq!(r["ok"], json!(true), "{r}");
        let v = parse(&c.view());
        let b = &v["battlefield"];
        assert!(
            b["width"].as_f64().unwrap() > 0.0 && b["height"].as_f64().unwrap() > 0.0,
            "{b}"
        );
        assert!(!b["terrain"].as_array().unwrap().is_empty(), "{b}");
        assert!(
            b["markers"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["mark"] == json!(true)),
            "no spawn mark: {b}"
        );
        let standing: Vec<&Json> = v["pieces"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["status"] == "board")
            .collect();
        assert!(!standing.is_empty());
        for p in standing {
            assert!(
                p["point"][0].as_f64().is_some() && p["base"].as_f64().unwrap() > 0.0,
                "{p}"
            );
        }
        assert_eq!(field["battlefield"], json!(true));
        // A game on squares has none.
        let (c, _) = begin(false);
        assert_eq!(parse(&c.view())["battlefield"], Json::Null);
    }

    /// A battlefield game with real dice on the page: every die asked (the scatter die's faces
    /// too) and answered, deployment by the stand-in, two enemy turns played (each asked die by
    /// die: a debug build replays a command once per die, so no more); the save replays to the
    /// same view.
    #[test]
    fn a_battlefield_game_with_real_dice_asks_every_die_and_replays() {
        let mut c = Companion::load("solo-heresy").unwrap();
        let play = |c: &mut Companion, line: &str, start: bool| -> Json {
            let (mut answers, mut choices): (Vec<Option<u64>>, Vec<u64>) = (Vec::new(), Vec::new());
            let setup = json!({ "mission": "raid", "seed": "9", "manual_dice": true }).to_string();
            loop {
                let r = if start {
                    parse(&c.begin(&setup, &to_json(&answers), &to_json(&choices)))
                } else {
                    parse(&c.send(line, &to_json(&answers), &to_json(&choices)))
                };
                match r.get("need") {
                    Some(need) if need.get("question").is_some() => choices.push(1),
                    Some(need) => {
                        let faces = need["faces"].as_array().map_or(6, |f| f.len() as u64);
                        // Faces in turn, so every face of every die is given some time.
                        answers.push(Some(1 + (answers.len() as u64 * 5 + 2) % faces.max(1)));
                    }
                    None => {
                        assert_eq!(r["ok"], json!(true), "{line}: {r}");
                        return r;
                    }
                }
            }
        };
        play(&mut c, "", true);
        play(&mut c, "deploy auto", false);
        // The end of deployment (the enemy's first turn follows), then the first battle turn's.
        play(&mut c, "end", false);
        play(&mut c, "end", false);
        let v = parse(&c.view());
        assert_eq!(v["turn"], json!(2), "{}", v["turn"]);
        assert_eq!(v["phase_side"], json!("player"));
        let mut again = Companion::load("solo-heresy").unwrap();
        let r = parse(&again.resume(&c.save()));
        assert_eq!(r["ok"], json!(true), "{r}");
        assert_eq!(parse(&again.view())["pieces"], v["pieces"]);
    }

    /// StarQuest's campaign on the page: the first mission played to its end, `next` refused
    /// before that and then starting the second mission, the save a campaign file that
    /// resumes to the same mission and state.
    #[test]
    fn a_campaign_goes_on_from_mission_to_mission_and_resumes() {
        let list = parse(&catalog());
        let with = list
            .as_array()
            .unwrap()
            .iter()
            .find(|p| !p["campaigns"].as_array().unwrap().is_empty())
            .expect("a bundled package with a campaign");
        let package = with["package"].as_str().unwrap();
        let mut c = Companion::load(package).unwrap();
        let setup = json!({ "mission": "", "seed": "4", "campaign": "" }).to_string();
        let r = parse(&c.begin(&setup, "[]", "[]"));
        assert_eq!(r["ok"], json!(true), "{r}");
        let v = parse(&c.view());
        assert_eq!(v["campaign"]["number"], json!(1), "{}", v["campaign"]);
        let first = v["mission"].clone();
        let r = parse(&c.send("next", "[]", "[]"));
        assert_eq!(r["ok"], json!(false));
        assert!(r["note"].as_str().unwrap().contains("not over yet"), "{r}");
        for _ in 0..60 {
            if !parse(&c.view())["over"].is_null() {
                break;
            }
            let r = parse(&c.send("end", "[]", "[]"));
            assert_eq!(r["ok"], json!(true), "{r}");
        }
        assert!(!parse(&c.view())["over"].is_null(), "the first mission ends");
        let r = parse(&c.send("next", "[]", "[]"));
        assert_eq!(r["ok"], json!(true), "{r}");
        let v = parse(&c.view());
        assert_eq!(v["campaign"]["number"], json!(2), "{}", v["campaign"]);
        assert_eq!(v["campaign"]["played"].as_array().unwrap().len(), 1);
        assert_ne!(v["mission"], first, "the second mission is another");
        assert!(v["over"].is_null());
        let save = c.save();
        assert_eq!(
            parse(&save)["format"],
            json!("servitor-campaign"),
            "the save is a campaign file"
        );
        let mut again = Companion::load(package).unwrap();
        let r = parse(&again.resume(&save));
        assert_eq!(r["ok"], json!(true), "{r}");
        let w = parse(&again.view());
        assert_eq!(w["campaign"], v["campaign"]);
        assert_eq!(w["pieces"], v["pieces"]);
        assert_eq!(again.save(), save, "saved again byte for byte");
    }

    /// A variant picked as files on the page: checked as `servitor check` checks it (a broken
    /// file's diagnostic names it, line and column), listed as the catalog lists a package,
    /// and played; its save resumes from the same files.
    #[test]
    fn a_variant_picked_as_files_is_checked_listed_and_played() {
        use super::variant;
        let files = json!({
            "package.rules": include_str!("../../../examples/variants/commander-hunters/package.rules"),
            "scripts/hunt.rhai": include_str!("../../../examples/variants/commander-hunters/scripts/hunt.rhai"),
        })
        .to_string();
        let r = parse(&variant(&files));
        assert_eq!(r["ok"], json!(true), "{r}");
        assert_eq!(r["entry"]["package"], json!("commander-hunters"));
        let mission = r["entry"]["missions"][0]["id"].as_str().unwrap().to_string();
        let mut c = Companion::load_files(&files).unwrap();
        let setup = json!({ "mission": mission, "seed": "7" }).to_string();
        assert_eq!(parse(&c.begin(&setup, "[]", "[]"))["ok"], json!(true));
        assert_eq!(parse(&c.send("end", "[]", "[]"))["ok"], json!(true));
        let mut again = Companion::load_files(&files).unwrap();
        assert_eq!(parse(&again.resume(&c.save()))["ok"], json!(true));
        assert_eq!(parse(&again.view())["pieces"], parse(&c.view())["pieces"]);
        // Broken: the diagnostic names the file as picked, its line and column.
        let broken = json!({ "package.rules": "package broken \"x\" {\n  version 0.1.0\n" }).to_string();
        let r = parse(&variant(&broken));
        assert_eq!(r["ok"], json!(false));
        let error = r["error"].as_str().unwrap();
        assert!(error.contains("package.rules:2:"), "{error}");
    }

    /// The first bundled package with a game, and its first mission: the engine names none.
    fn playable() -> (String, String) {
        let list = parse(&catalog());
        let p = list
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["battlefield"] == json!(false))
            .unwrap();
        (
            p["package"].as_str().unwrap().to_string(),
            p["missions"][0]["id"].as_str().unwrap().to_string(),
        )
    }

    fn begin(manual: bool) -> (Companion, Json) {
        let (package, mission) = playable();
        let mut c = Companion::load(&package).unwrap();
        let setup = json!({ "mission": mission, "seed": "18446744073709551615", "manual_dice": manual }).to_string();
        let mut answers: Vec<Option<u64>> = Vec::new();
        let mut choices: Vec<u64> = Vec::new();
        loop {
            let r = parse(&c.begin(&setup, &to_json(&answers), &to_json(&choices)));
            if let Some(need) = r.get("need") {
                match need.get("question") {
                    Some(_) => choices.push(1),
                    None => answers.push(Some(1)),
                }
                continue;
            }
            assert_eq!(r["ok"], json!(true), "{r}");
            return (c, r);
        }
    }

    fn to_json<T: serde::Serialize>(list: &[T]) -> String {
        serde_json::to_string(list).unwrap()
    }

    /// Sends a line, answering each die asked with its first face (every question with its
    /// first choice).
    fn send(c: &mut Companion, line: &str) -> (Json, usize) {
        let mut answers: Vec<Option<u64>> = Vec::new();
        let mut choices: Vec<u64> = Vec::new();
        loop {
            let r = parse(&c.send(line, &to_json(&answers), &to_json(&choices)));
            if let Some(need) = r.get("need") {
                if need.get("question").is_some() {
                    assert_eq!(need["given"], json!(choices.len()));
                    choices.push(1);
                    continue;
                }
                assert_eq!(need["given"], json!(answers.len()));
                assert!(!need["faces"].as_array().unwrap().is_empty());
                // Every other die left to the engine, as `auto` at the terminal.
                answers.push(answers.len().is_multiple_of(2).then_some(1));
                continue;
            }
            return (r, answers.len());
        }
    }

    #[test]
    fn the_card_list_is_rebuilt_from_the_save_each_card_its_own_event() {
        let (mut c, _) = begin(false);
        let mut lists = Vec::new();
        for line in ["end", "end", "undo", "redo", "end"] {
            send(&mut c, line);
            let live = parse(&c.cards(true));
            // Resumed from the save (as a reload does): the same cards, numbers and events.
            let mut again = Companion::load(&playable().0).unwrap();
            assert_eq!(parse(&again.resume(&c.save()))["ok"], json!(true));
            assert_eq!(parse(&again.cards(true)), live, "after `{line}`");
            // One event per numbered card: a tick keyed by it ticks that card only.
            let events: Vec<&Json> = live["lines"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|l| l.get("number").is_some())
                .map(|l| &l["event"])
                .collect();
            let mut unique = events.clone();
            unique.dedup();
            assert_eq!(unique.len(), events.len(), "after `{line}`");
            lists.push(live);
        }
        // The turn's cards begin after the last `end`; redo gives back the list undo took.
        assert!(lists[1]["from"].as_u64() > lists[0]["from"].as_u64());
        assert_eq!(lists[2]["from"], lists[0]["from"]);
        assert_eq!(lists[3], lists[1]);
        assert!(!lists[4]["earlier"].as_array().unwrap().is_empty());
    }

    #[test]
    fn a_session_saves_as_the_cli_does_and_replays_to_the_same_game() {
        for manual in [false, true] {
            let (mut c, start) = begin(manual);
            assert!(!start["lines"].as_array().unwrap().is_empty());
            let mut asked = 0;
            for _ in 0..3 {
                let (r, n) = send(&mut c, "end");
                assert_eq!(r["ok"], json!(true), "{r}");
                asked += n;
            }
            assert_eq!(manual, asked > 0, "manual dice are asked for, automatic ones never");
            let save = c.save();
            let session: servitor::game::session::Session = serde_json::from_str(&save).unwrap();
            assert_eq!(session.seed, u64::MAX);
            assert_eq!(session.entries.len(), 3);
            assert_eq!(save, servitor::game::host::encode(&session).unwrap());
            // Resumed elsewhere, the save gives the same game and the same save.
            let mut again = Companion::load(&session.package).unwrap();
            assert_eq!(parse(&again.resume(&save))["ok"], json!(true));
            assert_eq!(again.view(), c.view());
            assert_eq!(again.save(), save);
            // Undo, redo: the same save again; a refused line changes nothing.
            assert_eq!(send(&mut again, "undo").0["ok"], json!(true));
            assert_ne!(again.save(), save);
            assert_eq!(send(&mut again, "redo").0["ok"], json!(true));
            assert_eq!(again.save(), save);
            let (refused, _) = send(&mut again, "no-such-command x");
            assert_eq!(refused["ok"], json!(false));
            assert_eq!(again.save(), save);
        }
    }

    #[test]
    fn the_view_and_the_answers_hold_nothing_the_player_may_not_know() {
        let (mut c, start) = begin(false);
        let mut said = start.to_string();
        for _ in 0..3 {
            said.push_str(&send(&mut c, "end").0.to_string());
        }
        let view = parse(&c.view());
        said.push_str(&view.to_string());
        for secret in ["\"hidden\"", "\"action\"", "\"cards\""] {
            assert!(!said.contains(secret), "{secret} in what the page is given");
        }
        // A pool of face-down tokens is only counted.
        let pools = view["pools"].as_array().unwrap();
        assert!(pools.iter().any(|p| p.get("face_down").is_some()), "{view}");
        for p in pools.iter().filter(|p| p.get("face_down").is_some()) {
            assert!(p.get("entries").is_none(), "{p}");
        }
        for p in view["pieces"].as_array().unwrap() {
            if p["face_down"] == json!(true) {
                assert!(p.get("life").is_none() && p.get("fields").is_none(), "{p}");
            }
        }
    }

    /// The game variables a package declares the player may know (`show`, `draw`) are in the
    /// view with the board places they name — Space Hulk's blips lurking at an entry area (a
    /// count on its square, none for an area with none), its sections burning (every square
    /// of the section) —; no other variable of the game is (`blips-left`, `lurk-new`).
    #[test]
    fn the_view_draws_the_variables_the_game_shows_and_no_other() {
        let mut c = Companion::load("space-hulk-solo").unwrap();
        let r = parse(&c.begin(&json!({ "mission": "breach-run", "seed": "3" }).to_string(), "[]", "[]"));
        assert_eq!(r["ok"], json!(true), "{r}");
        let lurking = |v: &Json| {
            v["variables"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["name"] == "lurking")
                .cloned()
        };
        let mut found = None;
        for _ in 0..10 {
            send(&mut c, "end");
            let v = parse(&c.view());
            if let Some(l) = lurking(&v).filter(|l| !l["places"].as_array().unwrap().is_empty()) {
                found = Some((v, l));
                break;
            }
        }
        let (view, l) = found.expect("a blip lurks within ten turns");
        assert_eq!(l["label"], json!("blips lurking"));
        assert_eq!(l["status"], json!(false), "{l}");
        let entries: Vec<&str> = view["board"]["marks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["mark"] == "entry")
            .map(|m| m["at"].as_str().unwrap())
            .collect();
        let mut counted = 0;
        for place in l["places"].as_array().unwrap() {
            let at = place["name"].as_str().unwrap();
            assert!(entries.contains(&at), "{at} is an entry square: {l}");
            assert_eq!(place["squares"], json!([at]), "{place}");
            let n = place["value"].as_i64().unwrap();
            assert!(n > 0, "{place}");
            counted += n;
        }
        // The same count as `status` says in words.
        let status = parse(&c.send("status", "[]", "[]"));
        let text = status["text"].as_str().unwrap().to_string();
        let said: i64 = text
            .lines()
            .find(|l| l.starts_with("lurking blips: "))
            .unwrap()
            .trim_start_matches("lurking blips: ")
            .split(", ")
            .map(|p| p.split(' ').next().unwrap().parse::<i64>().unwrap())
            .sum();
        assert_eq!(said, counted, "{text}");
        // A section burning: every square of it, and `status` says it (`show`).
        let game = c.game.as_mut().unwrap();
        let section = game.view.grid.sections[0].clone();
        let squares = game.section_squares(&section).unwrap().len();
        game.state.vars.insert("burning".into(), json!([section]));
        let view = parse(&c.view());
        let burning = view["variables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == "burning")
            .unwrap();
        assert_eq!(burning["status"], json!(true));
        assert_eq!(burning["places"][0]["name"], json!(section));
        assert_eq!(
            burning["places"][0]["squares"].as_array().unwrap().len(),
            squares,
            "{burning}"
        );
        let status = parse(&c.send("status", "[]", "[]"));
        assert!(
            status["text"]
                .as_str()
                .unwrap()
                .contains(&format!("burning sections: {section}")),
            "{status}"
        );
        // Nothing else of the game's variables.
        let names: Vec<&str> = view["variables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["burning", "lurking"], "{view}");
        let all = view.to_string();
        for secret in ["blips-left", "lurk-new"] {
            assert!(
                c.game.as_ref().unwrap().state.vars.contains_key(secret),
                "{secret} is a variable of the game"
            );
            assert!(!all.contains(secret), "{secret} in the view");
        }
    }

    /// The test game of `fixtures/asking`: a question in the setup, a die and two questions
    /// in its `call` command, a question in the other side's phase.
    fn asking() -> Companion {
        Companion::load(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/asking")).unwrap()
    }

    fn need(r: &Json) -> &Json {
        r.get("need").unwrap_or_else(|| panic!("a need: {r}"))
    }

    #[test]
    fn the_games_questions_are_asked_answered_saved_and_replayed() {
        for manual in [false, true] {
            let mut c = asking();
            let setup = json!({ "mission": "yard", "seed": "5", "manual_dice": manual }).to_string();
            // The setup's question, with its choices and servitor's answer; nothing started.
            let r = parse(&c.begin(&setup, "[]", "[]"));
            assert_eq!(r["ok"], json!(false), "{r}");
            assert_eq!(
                need(&r),
                &json!({ "question": "which door does the runner come in by?", "choices": ["left", "middle", "right"], "default": 2, "given": 0 })
            );
            assert_eq!(c.view(), "null", "a need starts no game");
            let r = parse(&c.begin(&setup, "[]", "[3]"));
            assert_eq!(r["ok"], json!(true), "{r}");
            let runner = |c: &Companion| parse(&c.view())["pieces"][0]["at"].clone();
            assert_eq!(runner(&c), json!("3,1"), "the answer was taken");
            let start = c.save();

            // A command: with manual dice its die first, then each question past the answers
            // given; every need leaves the game and the save as they were.
            let dice = if manual { "[4]" } else { "[]" };
            if manual {
                let r = parse(&c.send("call", "[]", "[]"));
                assert_eq!(need(&r)["die"], json!("d6"), "{r}");
            }
            let r = parse(&c.send("call", dice, "[]"));
            let question = need(&r)["question"].as_str().unwrap().to_string();
            assert!(question.starts_with("the die shows "), "{r}");
            if manual {
                assert_eq!(
                    question, "the die shows 4: heads or tails?",
                    "the die tapped is the die asked about"
                );
            }
            assert_eq!(need(&r)["given"], json!(0));
            assert_eq!(c.save(), start);
            let r = parse(&c.send("call", dice, "[1]"));
            assert_eq!(
                need(&r),
                &json!({ "question": "heads, then: again?", "choices": ["yes", "no"], "default": 2, "given": 1 })
            );
            assert_eq!(c.save(), start);
            // 0: servitor's answer (the default), as `auto` at the terminal.
            let r = parse(&c.send("call", dice, "[1, 0]"));
            assert_eq!(r["ok"], json!(true), "{r}");
            let said = r["lines"].to_string();
            assert!(said.contains("called heads, then no"), "{said}");
            assert!(said.contains("(the player's answer;"), "{said}");
            assert!(said.contains("(the stand-in player's answer;"), "{said}");
            // The other side's phase asks too.
            let r = parse(&c.send("end", "[]", "[]"));
            assert_eq!(need(&r)["question"], json!("the house asks: play on?"), "{r}");
            assert_eq!(parse(&c.send("end", "[]", "[1]"))["ok"], json!(true));

            // Saved as `servitor play` saves them: positions from 1, 0 for servitor's answer.
            let save = c.save();
            let session: servitor::game::session::Session = serde_json::from_str(&save).unwrap();
            assert_eq!(session.start_choices, vec![3]);
            let choices: Vec<Vec<u64>> = session.entries.iter().map(|e| e.choices.clone()).collect();
            assert_eq!(choices, vec![vec![1, 0], vec![1]]);
            assert_eq!(session.entries[0].dice, if manual { vec![4] } else { vec![] });
            // A resume, an undo and a redo replay the answers without asking.
            let mut again = asking();
            assert_eq!(parse(&again.resume(&save))["ok"], json!(true));
            assert_eq!(again.view(), c.view());
            assert_eq!(runner(&again), json!("3,1"));
            assert_eq!(parse(&again.send("undo", "[]", "[]"))["ok"], json!(true));
            assert_eq!(parse(&again.send("undo", "[]", "[]"))["ok"], json!(true));
            let r = parse(&again.send("redo", "[]", "[]"));
            assert_eq!(r["ok"], json!(true), "a redo asks nothing: {r}");
            assert!(r["lines"].to_string().contains("called heads, then no"), "{r}");
            assert_eq!(parse(&again.send("redo", "[]", "[]"))["ok"], json!(true));
            assert_eq!(again.save(), save);
            // The house stops: the answer decides the game.
            assert_eq!(parse(&c.send("end", "[]", "[2]"))["over"]["winner"], json!("players"));
        }
    }

    #[test]
    fn bad_answers_to_questions_are_refused_in_words() {
        let mut c = asking();
        let setup = json!({ "mission": "yard", "seed": "5" }).to_string();
        for bad in ["not a list", "[-1]", "[1.5]"] {
            let r = parse(&c.begin(&setup, "[]", bad));
            assert_eq!(r["ok"], json!(false), "{bad}: {r}");
            assert!(r["note"].as_str().unwrap().contains("positions from 1"), "{r}");
        }
        // An answer past the choices names the question.
        let r = parse(&c.begin(&setup, "[]", "[4]"));
        assert_eq!(r["ok"], json!(false), "{r}");
        assert!(r["note"].as_str().unwrap().contains("which door"), "{r}");
        assert_eq!(parse(&c.begin(&setup, "[]", "[1]"))["ok"], json!(true));
        let save = c.save();
        for bad in ["not a list", "[3]"] {
            let r = parse(&c.send("call", "[]", bad));
            assert_eq!(r["ok"], json!(false), "{bad}: {r}");
            assert!(!r["note"].as_str().unwrap().is_empty(), "{r}");
            assert_eq!(c.save(), save, "nothing changed");
        }
    }

    #[test]
    fn bad_input_is_refused_in_words() {
        let (package, mission) = playable();
        let mut c = Companion::load(&package).unwrap();
        assert!(Companion::load("no-such-package").is_err());
        for (what, answer) in [
            ("send", c.send("end", "[]", "[]")),
            ("resume", c.resume("not json")),
            ("resume", c.resume(r#"{"format":"other","version":9,"package":"x","mission":"m","seed":1,"side":"s","manual_dice":false,"entries":[]}"#)),
            ("begin", c.begin("{}", "", "")),
            ("begin", c.begin(&json!({ "mission": mission, "seed": "-1" }).to_string(), "", "")),
            ("begin", c.begin(&json!({ "mission": "no-such-mission", "seed": "1" }).to_string(), "", "")),
            ("begin", c.begin(&json!({ "mission": mission, "seed": "1", "side": "nobody" }).to_string(), "", "")),
        ] {
            let r = parse(&answer);
            assert_eq!(r["ok"], json!(false), "{what}: {r}");
            assert!(!r["note"].as_str().unwrap().is_empty(), "{what}: {r}");
        }
        let (mut c, _) = begin(false);
        assert_eq!(parse(&c.send("end", "not a list", "[]"))["ok"], json!(false));
        assert_eq!(parse(&c.send("", "[]", "[]"))["ok"], json!(false));
        assert_eq!(parse(&c.send("odds no-such-table", "[]", "[]"))["ok"], json!(false));
        let odds = parse(&c.send("odds", "[]", "[]"));
        let table = odds["tables"][0].as_str().unwrap().to_string();
        let rows = parse(&c.send(&format!("odds {table}"), "[]", "[]"));
        let total: f64 = rows["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["p"].as_f64().unwrap())
            .sum();
        assert!((total - 1.0).abs() < 1e-9, "{rows}");
    }
}

#[cfg(test)]
mod words_tests {
    //! Every command built by taps: each word of a line is one `words` offered for the words
    //! before it (a square where it asks for one), and the line is complete when built.

    use super::{Companion, is_square};
    use serde_json::{Value as Json, json};

    fn offered(c: &mut Companion, line: &str) -> Json {
        serde_json::from_str(&c.words(line)).unwrap()
    }

    /// Builds `line` word by word from what is offered, then sends it.
    fn build(c: &mut Companion, line: &str) {
        let said: Vec<&str> = line.split_whitespace().collect();
        for i in 0..said.len() {
            let w = offered(c, &said[..i].join(" "));
            let words: Vec<&str> = w["words"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["word"].as_str().unwrap())
                .collect();
            let square = w["square"] == json!(true) && is_square(said[i]);
            assert!(
                words.contains(&said[i]) || square,
                "`{}`: `{}` is not offered: {w}",
                said[..i].join(" "),
                said[i]
            );
        }
        if said[0] != "end" {
            let w = offered(c, line);
            assert_eq!(w["complete"], json!(true), "`{line}`: {w}");
        }
        let r: Json = serde_json::from_str(&c.send(line, "[]", "[]")).unwrap();
        assert_eq!(r["ok"], json!(true), "`{line}`: {r}");
    }

    /// Each command of the game walked by its first offered word until it is complete (or
    /// needs a square, or nothing is offered): the commands completed.
    fn walk_all(c: &mut Companion) -> Vec<String> {
        let commands: Vec<String> = offered(c, "")["words"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["word"].as_str().unwrap().to_string())
            .collect();
        let mut done = Vec::new();
        for cmd in commands.iter().filter(|c| *c != "end") {
            let mut line = cmd.clone();
            for _ in 0..6 {
                let w = offered(c, &line);
                if w["complete"] == json!(true) {
                    done.push(line.clone());
                    break;
                }
                let Some(first) = w["words"].as_array().unwrap().first() else {
                    break;
                };
                line = format!("{line} {}", first["word"].as_str().unwrap());
            }
        }
        done
    }

    fn begin(package: &str, mission: &str, seed: &str) -> Companion {
        let mut c = Companion::load(package).unwrap();
        let r: Json =
            serde_json::from_str(&c.begin(&json!({ "mission": mission, "seed": seed }).to_string(), "[]", "[]"))
                .unwrap();
        assert_eq!(r["ok"], json!(true), "{r}");
        c
    }

    #[test]
    fn every_command_of_every_grid_game_is_built_from_the_words_offered() {
        let mut c = begin("space-crusade-solo", "reactor-strike", "1");
        for line in [
            "event quiet",
            "enter marine-1 7,1",
            "end",
            "card open-fire",
            "move marine-1 7,2",
            "end",
        ] {
            build(&mut c, line);
        }
        // After `fire MODEL`, that model's guns only, and only when he has something to fire
        // at; then `best` only when servitor would find a target.
        let w = offered(&mut c, "fire marine-1");
        let guns = words_of(&w);
        assert!(guns.iter().all(|g| !g.starts_with("marine")), "{w}");
        for gun in ["assault-cannon", "bolter"] {
            let aim = offered(&mut c, &format!("fire marine-1 {gun}"));
            let best = c.probe(&format!("fire marine-1 {gun} best")).is_ok();
            assert_eq!(words_of(&aim).contains(&"best".to_string()), best, "{aim}");
        }
        println!("space crusade: {:?}", walk_all(&mut c));

        let mut c = begin("starquest-solitaire", "mission-1", "2");
        for line in ["event elite-aliens", "end"] {
            build(&mut c, line);
        }
        println!("starquest: {:?}", walk_all(&mut c));

        let mut c = begin("space-hulk-solo", "breach-run", "3");
        for line in ["turn marine-1 down", "overwatch marine-2", "guard marine-3"] {
            build(&mut c, line);
        }
        println!("space hulk: {:?}", walk_all(&mut c));
        // A refused line: the words its refusal offers in its last word's place.
        let w = offered(&mut c, "turn marine-1 down");
        assert_eq!(w["complete"], json!(false), "{w}");
    }

    /// A gun that fires along a line towards a square (Space Crusade's plasma gun): `towards`
    /// is offered after it, then a square is asked for (a tap), and the line is whole.
    #[test]
    fn fire_towards_a_square_is_built_from_the_words_offered() {
        let mut c = begin("space-crusade-solo", "reactor-strike", "1");
        let view: Json = serde_json::from_str(&c.view()).unwrap();
        let gunner = view["pieces"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| {
                p["fields"]["weapons"]
                    .as_array()
                    .is_some_and(|w| w.contains(&json!("plasma-gun")))
            })
            .map(|p| p["id"].as_str().unwrap().to_string())
            .expect("a Marine with a plasma gun");
        for line in ["event quiet".to_string(), format!("enter {gunner} 7,1"), "end".into()] {
            build(&mut c, &line);
        }
        // Turns go by until an alien is in his sight: the square it stands on is the one to
        // fire towards.
        let mut target = None;
        for _ in 0..8 {
            let refusal = c.probe(&format!("fire {gunner} plasma-gun")).unwrap_err();
            if let Some((_, seen)) = refusal.split_once("in sight: [") {
                target = Some(seen.split(' ').next().unwrap().to_string());
                break;
            }
            build(&mut c, "end");
        }
        let target = target.expect("an alien in sight within eight turns");
        let view: Json = serde_json::from_str(&c.view()).unwrap();
        let at = view["pieces"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == json!(target))
            .unwrap()["at"]
            .as_str()
            .unwrap()
            .to_string();
        let who = words_of(&offered(&mut c, "fire"));
        assert!(who.contains(&gunner), "{who:?}");
        let gun = words_of(&offered(&mut c, &format!("fire {gunner}")));
        assert_eq!(gun, ["plasma-gun"], "his gun, not an example's");
        let aim = offered(&mut c, &format!("fire {gunner} plasma-gun"));
        assert!(words_of(&aim).contains(&"towards".to_string()), "{aim}");
        let towards = offered(&mut c, &format!("fire {gunner} plasma-gun towards"));
        assert_eq!(towards["square"], json!(true), "{towards}");
        assert_eq!(towards["complete"], json!(false), "{towards}");
        build(&mut c, &format!("fire {gunner} plasma-gun towards {at}"));
    }

    fn words_of(w: &Json) -> Vec<String> {
        w["words"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["word"].as_str().unwrap().to_string())
            .collect()
    }

    /// Only words the command would take: no Marine still off the board for `fire`, no
    /// `best` (nor `at`) with nothing in sight — and the note says why nothing is offered.
    #[test]
    fn no_word_is_offered_that_the_command_would_refuse() {
        let mut c = begin("space-crusade-solo", "reactor-strike", "1");
        for line in ["event quiet", "enter marine-1 7,1"] {
            build(&mut c, line);
        }
        // Nothing is in sight of marine-1 on 7,1: fire takes no line at all.
        let refused: Json = serde_json::from_str(&c.send("fire marine-1 assault-cannon best", "[]", "[]")).unwrap();
        assert_eq!(refused["ok"], json!(false), "{refused}");
        let aim = offered(&mut c, "fire marine-1 assault-cannon");
        let how = words_of(&aim);
        assert!(
            !how.contains(&"best".to_string()) && !how.contains(&"at".to_string()),
            "{aim}"
        );
        let fire = offered(&mut c, "fire");
        let who = words_of(&fire);
        for off in ["marine-2", "marine-3", "marine-4", "commander"] {
            assert!(
                !who.contains(&off.to_string()),
                "fire offers {off}, still off the board: {fire}"
            );
        }
        assert!(who.is_empty(), "{fire}");
        assert!(fire["note"].as_str().unwrap().contains("nothing in sight"), "{fire}");
        // `enter` offers only those still off the board (marine-1 is aboard: no square would
        // do), `move` the Marine on it.
        let enter = words_of(&offered(&mut c, "enter"));
        assert!(enter.contains(&"marine-2".to_string()), "{enter:?}");
        assert!(!enter.contains(&"marine-1".to_string()), "{enter:?}");
        let moving = words_of(&offered(&mut c, "move"));
        assert!(moving.contains(&"marine-1".to_string()), "{moving:?}");
    }
}
