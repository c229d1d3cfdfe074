//! `servitor play <package> --mission M`: the engine plays the other side at a real table.
//! The player types what their pieces did; the engine answers with what to do on the table,
//! numbered, with reasons and sources. Every accepted command is saved at once (write, sync,
//! rename), `undo`/`redo` replay the command list, and `--resume` goes on from a save.
//! Commands come from the terminal (history, tab completion) or from a pipe, one per line.
//!
//! The command itself runs through `game::session::play_line`, the same for every front end;
//! what has been shown is `screen.rs`'s. `reload` loads the package again the way it was found
//! and replays the session on it (`Session::replay_again`), keeping the old game when the
//! replay differs. `play --campaign FILE` plays the mission at the table as a session inside
//! the campaign file, with `next` between missions.

use super::screen::{Pace, Screen};
use clap::{Args, ValueEnum};
use servitor::board::render::{self, Overlay};
use servitor::campaign::{Campaign, CampaignError};
use servitor::dice::rng::{DieAsk, Forced};
use servitor::game::session::{self, Entry, SESSION_FORMAT, SESSION_VERSION, Session};
use servitor::game::table;
use servitor::game::{Game, GameError, Host};
use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DiceMode {
    /// servitor rolls every die
    Auto,
    /// servitor asks for every die the rules roll: roll your own dice and type the faces
    Manual,
}

#[derive(Args)]
pub struct PlayArgs {
    /// Package folder or bare name (with --resume, the save knows it; with --campaign, a
    /// campaign file that exists knows it)
    #[arg(required_unless_present_any = ["resume", "campaign"])]
    package: Option<String>,
    /// Mission id
    #[arg(long, required_unless_present_any = ["resume", "campaign"])]
    mission: Option<String>,
    /// Seed for the engine's dice and choices
    #[arg(long)]
    seed: Option<u64>,
    /// Who rolls the dice (default: auto; with --resume, the save's: the other is taken for a
    /// game no command has been played in yet, and refused, saying why, after)
    #[arg(long, value_enum)]
    dice: Option<DiceMode>,
    /// The side you play (default: the game's first side)
    #[arg(long = "as", value_name = "SIDE")]
    side: Option<String>,
    /// Which `game` item, when the package has several
    #[arg(long)]
    game: Option<String>,
    /// A game option, as name=value (repeatable)
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = super::run::parse_arg)]
    options: Vec<(String, String)>,
    /// Save the game here after every command
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// Go on with a saved game (and keep saving to it)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["mission", "seed", "game", "options", "side"])]
    resume: Option<PathBuf>,
    /// Play the package's campaign, mission after mission, kept in this file (saved after
    /// every command); a file that exists is gone on with, and must be a campaign file
    #[arg(long, value_name = "FILE", conflicts_with_all = ["mission", "game", "save", "resume"])]
    campaign: Option<PathBuf>,
    /// With a new --campaign: which `campaign` item, when the package has several
    #[arg(long, value_name = "ID", requires = "campaign")]
    campaign_id: Option<String>,
    /// Answer each command with one JSON line (for other front ends)
    #[arg(long)]
    json: bool,
    /// How the enemy's turn is shown: all at once, or one activation at a time, Enter showing
    /// the next (for moving the minis as you read); the `pace` command switches it
    #[arg(long, value_enum, default_value = "turn")]
    pace: Pace,
    /// Also show the engine's bookkeeping (variables, piece fields, pool counters); --json
    /// always has everything the player may know
    #[arg(long)]
    verbose: bool,
}

/// Where lines come from: the terminal's line editor, or standard input.
enum Input {
    Editor(Box<rustyline::Editor<Completion, rustyline::history::DefaultHistory>>),
    Pipe,
}

impl Input {
    /// The next line, or `None` when input ends; a line that is not a command a player could
    /// type (longer than `MAX_COMMAND_BYTES`, not UTF-8) is an `Err` to refuse.
    fn line(&mut self, prompt: &str) -> Option<Result<String, String>> {
        match self {
            Input::Editor(editor) => match editor.readline(prompt) {
                Ok(line) => {
                    let _ = editor.add_history_entry(line.as_str());
                    Some(session::check_line(&line).map(|()| line))
                }
                Err(_) => None,
            },
            Input::Pipe => read_stdin_line(),
        }
    }
}

/// One line of standard input, without its line end: at most `MAX_COMMAND_BYTES` of it are
/// held (the rest of a longer line is read and dropped, and the line refused).
pub(super) fn read_stdin_line() -> Option<Result<String, String>> {
    use servitor::limits::MAX_COMMAND_BYTES;
    let mut stdin = std::io::stdin().lock();
    let mut line = Vec::new();
    let mut dropped = 0u64;
    // Nothing read at all (the end of input, or an error reading it) ends the input.
    let mut read = false;
    while let Ok(buf) = stdin.fill_buf() {
        if buf.is_empty() {
            break;
        }
        read = true;
        let end = buf.iter().position(|&b| b == b'\n');
        let take = end.unwrap_or(buf.len());
        let room = (MAX_COMMAND_BYTES as usize + 2).saturating_sub(line.len());
        line.extend_from_slice(&buf[..take.min(room)]);
        dropped += take.saturating_sub(room) as u64;
        stdin.consume(end.map_or(take, |n| n + 1));
        if end.is_some() {
            break;
        }
    }
    if !read {
        return None;
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if dropped > 0 || line.len() as u64 > MAX_COMMAND_BYTES {
        return Some(Err(format!(
            "a command is at most {} bytes (`MAX_COMMAND_BYTES`, see \"Limits\" in docs/limits.md); this line has {}",
            servitor::diagnostic::thousands(MAX_COMMAND_BYTES),
            servitor::diagnostic::thousands(line.len() as u64 + dropped)
        )));
    }
    Some(String::from_utf8(line).map_err(|_| "the line is not UTF-8 text".to_string()))
}

/// Tab completion: commands, piece ids and squares of the game as it stands.
#[derive(Default, rustyline::Helper, rustyline::Highlighter, rustyline::Hinter, rustyline::Validator)]
struct Completion {
    words: Arc<Mutex<Vec<String>>>,
}

impl rustyline::completion::Completer for Completion {
    type Candidate = String;
    fn complete(&self, line: &str, pos: usize, _: &rustyline::Context<'_>) -> rustyline::Result<(usize, Vec<String>)> {
        let start = line[..pos].rfind(' ').map_or(0, |i| i + 1);
        let prefix = &line[start..pos];
        let words = self.words.lock().unwrap_or_else(|p| p.into_inner());
        Ok((start, words.iter().filter(|w| w.starts_with(prefix)).cloned().collect()))
    }
}

struct Table {
    host: Host,
    session: Session,
    game: Game,
    save: Option<PathBuf>,
    json: bool,
    /// Set when input ended while a die was asked for.
    dice_ran_out: Arc<Mutex<bool>>,
    /// Saves written so far: one per command that changes the game, one at the start.
    writes: usize,
    /// A campaign being played (`--campaign FILE`): the file, and the campaign, whose
    /// `session` is this mission's; saving writes the campaign instead of a play save.
    campaign: Option<(PathBuf, Campaign)>,
    /// The title line was printed before the set-up ran, so that a die or a question the
    /// set-up asks comes after it: `header` does not print it again.
    titled: bool,
    /// What the player has been shown of the game.
    screen: Arc<Screen>,
    /// How the package was found (a folder or a bare name): `reload` loads it again so.
    package: String,
}

/// Where a package can be found again from any folder: a folder on disk as an absolute path,
/// `None` for a bundled one (its name finds it).
fn found_again(ruleset: &servitor::Ruleset) -> Option<String> {
    let folder = &ruleset.packages.last()?.folder;
    if folder.starts_with("<bundled>") {
        return None;
    }
    std::fs::canonicalize(folder).ok().map(|p| p.display().to_string())
}

/// A save read before its package is loaded: `--resume FILE` needs no package argument.
/// The words the line editor completes, updated as the game goes on.
type Completions = Arc<Mutex<Vec<String>>>;

/// Where commands come from: a line editor with completion of `words` at a terminal (not
/// with `--json`), else lines read from a pipe.
fn open_input(json: bool) -> Result<(Input, Completions), String> {
    let words = Arc::new(Mutex::new(Vec::new()));
    let input = if std::io::stdin().is_terminal() && !json {
        let mut editor = rustyline::Editor::new().map_err(|e| format!("error: no line editor: {e}"))?;
        editor.set_helper(Some(Completion { words: words.clone() }));
        Input::Editor(Box::new(editor))
    } else {
        Input::Pipe
    };
    Ok((input, words))
}

/// The package a save or a campaign file names, to load again: the folder it was played
/// from while it is still there, else its name (which finds a bundled or installed one).
fn where_to_load(found_at: Option<&str>, name: &str) -> String {
    match found_at {
        Some(place)
            if std::path::Path::new(place).is_file()
                || std::path::Path::new(place).join(servitor::package::MANIFEST).is_file() =>
        {
            place.to_string()
        }
        _ => name.to_string(),
    }
}

fn read_session(path: &std::path::Path) -> Result<Session, super::Failure> {
    let text = super::read_named(path, servitor::limits::MAX_SAVE_BYTES, "MAX_SAVE_BYTES")?;
    Ok(serde_json::from_str(&text)
        .map_err(|e| format!("error: {} is not a servitor play save: {e}", path.display()))?)
}

pub fn run(args: PlayArgs) -> Result<(), super::Failure> {
    if let Some(path) = args.campaign.clone() {
        return run_campaign(args, &path);
    }
    // The save is checked, and held for the whole session, before anything is played or read.
    let _lock = match args.resume.as_ref().or(args.save.as_ref()) {
        Some(path) => {
            super::savefile::target(path).map_err(super::usage)?;
            Some(super::savefile::lock(path)?)
        }
        None => None,
    };
    let read = match &args.resume {
        Some(path) => Some(read_session(path)?),
        None => None,
    };
    let package = match (&args.package, &read) {
        (Some(p), _) => p.clone(),
        (None, Some(s)) => where_to_load(s.found_at.as_deref(), &s.package),
        (None, None) => return Err(super::usage("error: name the package to play")),
    };
    let loaded = super::load(&package)?;
    let ruleset = Arc::new(loaded.ruleset);
    let mut host = Host::new(&ruleset);
    let resumed = args.resume.is_some();
    // What a new session is refused for is its command line's fault (exit 2); what a save
    // names wrongly is the save's (exit 1).
    let refused = |e: GameError| match e {
        GameError::Usage(m) if !resumed => super::usage(format!("error: {m}")),
        other => super::Failure::Failed(failure(&ruleset, other)),
    };
    let (session, save) = match (&args.resume, read) {
        (Some(path), Some(mut session)) => {
            session
                .check(ruleset.name())
                .map_err(|e| format!("error: {}: {e}", path.display()))?;
            // `--dice` on a resume switches who rolls from the next command on, as the `dice`
            // command does (a game with nothing played yet simply starts that way).
            if let Some(asked) = args.dice {
                let manual = asked == DiceMode::Manual;
                if manual != session.manual_now() {
                    if session.entries.is_empty() && session.redo.is_empty() && session.start_dice.is_empty() {
                        session.manual_dice = manual;
                    } else {
                        session.entries.push(Entry {
                            line: format!("{} {}", session::DICE_COMMAND, if manual { "manual" } else { "auto" }),
                            ..Entry::default()
                        });
                        session.redo.clear();
                    }
                    if !args.json {
                        super::emit(if manual {
                            "dice: manual from now on (the save had servitor's)\n"
                        } else {
                            "dice: auto from now on (the save had yours)\n"
                        });
                    }
                }
            }
            session.version = SESSION_VERSION;
            if session.found_at.is_none() {
                session.found_at = found_again(&ruleset);
            }
            (session, Some(path.clone()))
        }
        _ => {
            let def = host
                .game_def(args.game.as_deref())
                .map_err(|e| super::usage(game_error_text(e)))?;
            let side = args.side.clone().unwrap_or_else(|| def.sides[0].clone());
            if !def.sides.contains(&side) {
                return Err(super::usage(format!(
                    "error: `{side}` is not a side of this game (sides: {})",
                    def.sides.join(", ")
                )));
            }
            let session = Session {
                format: SESSION_FORMAT.into(),
                version: SESSION_VERSION,
                package: ruleset.name().to_string(),
                game: args.game.clone(),
                mission: args.mission.clone().unwrap_or_default(),
                seed: super::seed_or_fresh(args.seed),
                options: args.options.clone(),
                side,
                manual_dice: args.dice == Some(DiceMode::Manual),
                found_at: found_again(&ruleset),
                start_dice: Vec::new(),
                start_choices: Vec::new(),
                entries: Vec::new(),
                redo: Vec::new(),
            };
            (session, args.save.clone())
        }
    };
    let (mut input, words) = open_input(args.json)?;
    let dice_ran_out = Arc::new(Mutex::new(false));
    let fresh = session.entries.is_empty() && !resumed;
    let titled = fresh && !args.json;
    let screen = Screen::new(&session.side, args.verbose, args.json, args.pace);
    let (session, game) = if fresh {
        let mut session = session.clone();
        let game = start_game(&mut host, &mut session, &dice_ran_out, titled, &screen).map_err(refused)?;
        if *lock(&dice_ran_out) {
            return Err(super::Failure::Failed(
                "input ended while a die or an answer was asked for: no game was started".into(),
            ));
        }
        (session, game)
    } else {
        let game = session.replay(&mut host).map_err(refused)?;
        session.check_redo(&mut host).map_err(refused)?;
        (session, game)
    };
    play_loop(
        Table {
            host,
            session,
            game,
            save,
            json: args.json,
            dice_ran_out,
            writes: 0,
            campaign: None,
            titled,
            screen,
            package,
        },
        &mut input,
        &words,
        fresh,
    )
    .map_err(super::Failure::from)
}

/// `play --campaign FILE`: a campaign file that exists is gone on with (and must be one: any
/// other file is refused and left as it is); a new one starts the package's campaign.
fn run_campaign(args: PlayArgs, path: &std::path::Path) -> Result<(), super::Failure> {
    super::savefile::target(path).map_err(super::usage)?;
    let _lock = super::savefile::lock(path)?;
    let read = if std::fs::metadata(path).is_ok() {
        let text = super::read_named(path, servitor::limits::MAX_SAVE_BYTES, "MAX_SAVE_BYTES")?;
        let campaign = Campaign::read(&text).map_err(|e| {
            format!(
                "error: {}: {e}
  servitor will not write over it: name a new file to start a campaign",
                path.display()
            )
        })?;
        if args.seed.is_some() || !args.options.is_empty() || args.side.is_some() || args.campaign_id.is_some() {
            return Err(super::usage(format!(
                "error: {} is a campaign under way: it keeps its own seed, options, side and campaign (name a new file to start another)",
                path.display()
            )));
        }
        Some(campaign)
    } else {
        None
    };
    let package = match (&args.package, &read) {
        (Some(p), _) => p.clone(),
        (None, Some(c)) => where_to_load(c.found_at.as_deref(), &c.package),
        (None, None) => {
            return Err(super::usage(format!(
                "error: {} does not exist yet: name the package whose campaign to start",
                path.display()
            )));
        }
    };
    let loaded = super::load(&package)?;
    let ruleset = Arc::new(loaded.ruleset);
    let mut host = Host::new(&ruleset);
    let mut campaign = match read {
        Some(mut c) => {
            c.check(&ruleset)
                .and_then(|()| c.check_played(&ruleset))
                .map_err(|e| format!("error: {}: {e}", path.display()))?;
            if let Some(dice) = args.dice {
                // From the next mission on, and in the one at the table from its next command.
                let manual = dice == DiceMode::Manual;
                c.manual_dice = manual;
                if let Some(session) = c.session.as_mut()
                    && session.manual_now() != manual
                {
                    session.entries.push(Entry {
                        line: format!("{} {}", session::DICE_COMMAND, if manual { "manual" } else { "auto" }),
                        ..Entry::default()
                    });
                    session.redo.clear();
                }
            }
            if c.found_at.is_none() {
                c.found_at = found_again(&ruleset);
            }
            c
        }
        None => {
            let mut c = Campaign::new(
                &ruleset,
                args.campaign_id.as_deref(),
                super::seed_or_fresh(args.seed),
                args.options.clone(),
            )
            .map_err(|m| super::usage(format!("error: {m}")))?;
            let def = c.def(&ruleset).map_err(|m| super::usage(format!("error: {m}")))?;
            let sides = host
                .game_def(def.game.as_deref())
                .map_err(|e| super::usage(game_error_text(e)))?
                .sides
                .clone();
            let side = args.side.clone().unwrap_or_else(|| sides[0].clone());
            if !sides.contains(&side) {
                return Err(super::usage(format!(
                    "error: `{side}` is not a side of this game (sides: {})",
                    sides.join(", ")
                )));
            }
            c.side = Some(side);
            c.manual_dice = args.dice == Some(DiceMode::Manual);
            c.found_at = found_again(&ruleset);
            c
        }
    };
    if campaign.done(&ruleset) {
        super::emit(&super::campaign::played_text(&campaign));
        super::emitln("this campaign is over: name a new file to start another");
        return Ok(());
    }
    let fresh_campaign = campaign.played.is_empty() && campaign.session.is_none();
    let (mut input, words) = open_input(args.json)?;
    let dice_ran_out = Arc::new(Mutex::new(false));
    let total = campaign.def(&ruleset).map_or(0, |d| d.missions.len());
    let number = campaign.played.len() + 1;
    let side = campaign.side.clone().unwrap_or_default();
    let screen = Screen::new(&side, args.verbose, args.json, args.pace);
    let (session, game, fresh, notes) = match campaign.session.clone() {
        Some(session) => {
            let game = session
                .replay(&mut host)
                .map_err(|e| super::Failure::Failed(failure(&ruleset, e)))?;
            (session, game, false, campaign.before_notes.clone())
        }
        None => {
            let (setup, notes) = campaign
                .prepare(&ruleset)
                .map_err(|e| super::Failure::Failed(super::campaign::error_report(&ruleset, e)))?;
            campaign.before_notes = notes.clone();
            let mut session = campaign.session(&setup, side);
            let game = start_game(&mut host, &mut session, &dice_ran_out, false, &screen).map_err(|e| match e {
                GameError::Usage(m) if fresh_campaign => super::usage(format!("error: {m}")),
                other => super::Failure::Failed(failure(&ruleset, other)),
            })?;
            (session, game, true, notes)
        }
    };
    if !args.json && !campaign.played.is_empty() {
        super::emit(&super::campaign::played_text(&campaign));
    }
    let (campaign_id, campaign_seed) = (campaign.campaign.clone(), campaign.seed);
    let table = Table {
        host,
        session,
        game,
        save: None,
        json: args.json,
        dice_ran_out,
        writes: 0,
        campaign: Some((path.to_path_buf(), campaign)),
        titled: false,
        screen,
        package,
    };
    let heading = format!("{} · seed {} · mission {number} of {total}", campaign_id, campaign_seed);
    table.say_notes(&heading, &notes, None);
    play_loop(table, &mut input, &words, fresh).map_err(super::Failure::from)
}

/// The session's first line: what is played, by whom, with which dice.
fn title_line(session: &Session, mission: &str) -> String {
    format!(
        "servitor play · {} · mission {mission} · seed {} · you play {} · dice {}",
        session.package,
        session.seed,
        session.side,
        if session.manual_now() { "manual" } else { "auto" }
    )
}

/// A new session's game, played to the player's first turn: the setup's dice (manual dice)
/// and questions are asked too, and kept with the session.
/// With `title`, the session's title line is printed once the game exists, before its set-up
/// asks anything.
fn start_game(
    host: &mut Host,
    session: &mut Session,
    dice_ran_out: &Arc<Mutex<bool>>,
    title: bool,
    screen: &Arc<Screen>,
) -> Result<Game, GameError> {
    let game = host.new_game(&session.setup())?;
    if title {
        super::emitln(&title_line(session, &game.mission));
    }
    let mut game = host.advance(game, Some(0))?;
    let dice = at_the_table(session.manual_dice, dice_ran_out.clone(), screen.clone());
    game.forced = Some(dice.clone());
    screen.begin("start", &mut game, true);
    let mut game = host.advance_to(game, &session.side)?;
    screen.end(&mut game);
    session.start_dice = lock(&dice).record.take().unwrap_or_default();
    session.start_choices = lock(&dice).choice_record.take().unwrap_or_default();
    Ok(game)
}

fn play_loop(mut t: Table, input: &mut Input, words: &Completions, fresh: bool) -> Result<(), String> {
    t.save_now().map_err(|e| format!("error: {e}"))?;
    t.header(fresh);
    let mut told_over = false;
    loop {
        *lock(words) = completions(&t.game);
        let over = t.game.state.over.is_some();
        if over && !told_over && !t.json {
            super::emitln(&table::final_line(&t.game));
            if t.campaign.is_some() {
                super::emitln(
                    "`next` ends this mission for the campaign and goes on to the next; `undo` takes the last command back; `quit` (or the end of input) leaves.",
                );
            } else {
                super::emitln("`undo` takes the last command back; `quit` (or the end of input) leaves.");
            }
        }
        told_over = over;
        let prompt = if over {
            "game over> ".to_string()
        } else {
            format!("{} turn {}> ", t.session.side, t.game.state.turn)
        };
        let Some(line) = input.line(&prompt) else { return Ok(()) };
        let line = match line {
            Ok(line) => line.trim().to_string(),
            Err(why) => {
                // Refused before it is kept, echoed, or run.
                t.respond("", false, t.game.events.len(), Some(format!("{why} — nothing changed")));
                continue;
            }
        };
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if !t.json && !matches!(input, Input::Editor(_)) {
            super::emitln(&format!("{prompt}{line}"));
        }
        if line == "quit" {
            if !t.json
                && let Some((path, _)) = &t.campaign
            {
                super::emitln(&format!(
                    "saved in {}: go on with `servitor play --campaign {}`",
                    path.display(),
                    path.display()
                ));
            } else if !t.json {
                super::emitln(&match &t.save {
                    Some(path) => format!(
                        "saved in {}: go on with `servitor play --resume {}`",
                        path.display(),
                        path.display()
                    ),
                    None => "this game is not saved (start with `--save FILE` to keep one)".to_string(),
                });
            }
            return Ok(());
        }
        if t.game.state.over.is_some()
            && !matches!(
                line.split_whitespace().next(),
                Some("undo" | "redo" | "reload" | "board" | "status" | "why" | "sees" | "odds" | "help" | "next")
            )
        {
            t.respond(
                &line,
                false,
                t.game.events.len(),
                Some("the game is over: `undo` takes the last command back, `quit` leaves".into()),
            );
            continue;
        }
        if line == "next" && t.campaign.is_some() {
            if !t.next_mission()? {
                return Ok(());
            }
            continue;
        }
        t.handle(&line)?;
    }
}

impl Table {
    /// The session's first lines: what is played, and the instructions so far.
    fn header(&self, fresh: bool) {
        let t = self;
        if !t.json {
            if !t.titled {
                super::emitln(&title_line(&t.session, &t.game.mission));
            }
            super::emitln("Type `help` for the commands.");
            if !fresh {
                // A resume: the last turns again.
                t.screen.caught_up(&t.game, 30);
            }
            t.screen.show(&t.game);
        } else {
            t.respond("start", true, 0, None);
        }
    }

    /// `next` (a campaign, its mission over): the campaign's `after` hook on the result, then
    /// the next mission's `before` hook and its game, saved; `false` once the campaign is over.
    fn next_mission(&mut self) -> Result<bool, String> {
        if self.game.state.over.is_none() {
            self.respond(
                "next",
                false,
                self.game.events.len(),
                Some("the mission is not over yet: play it to its end, then `next`".into()),
            );
            return Ok(true);
        }
        let Some((path, campaign)) = self.campaign.clone() else {
            return Ok(true);
        };
        let ruleset = self.host.ruleset().clone();
        // A hook or the next mission's start that fails refuses `next`: the campaign and the
        // mission at the table stay as they were, and the session goes on.
        let refuse = |t: &Self, e: CampaignError| {
            let why = super::campaign::error_text(&ruleset, e);
            t.respond(
                "next",
                false,
                t.game.events.len(),
                Some(format!(
                    "the campaign cannot go on: {}",
                    servitor::escape::one_line(&why)
                )),
            );
            Ok(true)
        };
        let setup = self.session.setup();
        let summary = servitor::game::host::summary(&self.game);
        let mut next = campaign.clone();
        let before = std::mem::take(&mut next.before_notes);
        let shown = before.len();
        if let Err(e) = next.finish(&ruleset, &setup, summary, before) {
            return refuse(self, e);
        }
        let after: Vec<String> = next
            .played
            .last()
            .map(|p| p.notes[shown..].to_vec())
            .unwrap_or_default();
        if next.ended.is_some() {
            let text = servitor::game::host::encode(&next)?;
            super::savefile::write_atomically(&path, text.as_bytes())?;
            self.campaign = Some((path.clone(), next.clone()));
            self.writes += 1;
            self.say_notes(
                &format!("· mission {} played", next.played.len()),
                &after,
                next.ended.as_deref(),
            );
            return Ok(false);
        }
        let (setup, notes) = match next.prepare(&ruleset) {
            Ok(prepared) => prepared,
            Err(e) => return refuse(self, e),
        };
        next.before_notes = notes.clone();
        let mut session = next.session(&setup, self.session.side.clone());
        let game = match start_game(&mut self.host, &mut session, &self.dice_ran_out, false, &self.screen) {
            Ok(game) => game,
            Err(e) => return refuse(self, CampaignError::Game(e)),
        };
        self.say_notes(&format!("· mission {} played", next.played.len()), &after, None);
        let number = next.played.len() + 1;
        let total = next.def(&ruleset).map_or(0, |d| d.missions.len());
        self.session = session;
        self.game = game;
        self.campaign = Some((path, next));
        self.save_now()?;
        let heading = self
            .campaign
            .as_ref()
            .map(|(_, c)| format!("{} · seed {} · mission {number} of {total}", c.campaign, c.seed))
            .unwrap_or_default();
        self.say_notes(&heading, &notes, None);
        self.header(true);
        Ok(true)
    }

    /// What a campaign's hooks said, as a heading and its lines (a JSON line with --json).
    fn say_notes(&self, heading: &str, notes: &[String], ended: Option<&str>) {
        if self.json {
            super::emit_json(&serde_json::json!({
                "command": "campaign", "ok": true, "heading": heading, "notes": notes, "ended": ended,
            }));
            return;
        }
        super::emitln(&format!("campaign {heading}"));
        for n in notes {
            super::emitln(&format!("  · {n}"));
        }
        if let Some(end) = ended {
            super::emitln(&format!("campaign over: {end}"));
        }
    }

    fn handle(&mut self, line: &str) -> Result<(), String> {
        let mut parts = line.split_whitespace();
        let first = parts.next().unwrap_or_default();
        let rest: Vec<&str> = parts.collect();
        match first {
            "help" => {
                let mut text = table::help(&self.game);
                if self.campaign.is_some() {
                    text.push_str(
                        "  next             once the mission is over: score it for the campaign and set up the next mission\n",
                    );
                }
                text.push_str(RELOAD_HELP);
                self.say(&text)
            }
            "board" => match board(&self.game, rest.first().copied(), &self.session.side) {
                Ok(text) => self.say_painted(&text),
                Err(why) => self.respond(
                    line,
                    false,
                    self.game.events.len(),
                    Some(format!("{why} — nothing changed")),
                ),
            },
            "status" => {
                let text = table::status_at_the_table(&self.game, &mut self.host);
                self.say(&text)
            }
            "why" => self.say(&table::why(&self.game, rest.first().copied())),
            "sees" => self.say(&table::sees(&self.game, rest.first().copied())),
            "odds" => self.say(&odds(&self.game, rest.first().copied())),
            "pace" => match rest.as_slice() {
                ["activation"] => {
                    self.screen.set_pace(Pace::Activation);
                    self.say("pace: the enemy's turn one activation at a time (Enter shows the next, `all` the rest)\n");
                }
                ["turn"] => {
                    self.screen.set_pace(Pace::Turn);
                    self.say("pace: the enemy's turn all at once\n");
                }
                _ => self.respond(
                    line,
                    false,
                    self.game.events.len(),
                    Some(format!(
                        "`pace activation` shows the enemy's turn one activation at a time, `pace turn` all at once (now: {})",
                        match self.screen.pace() {
                            Pace::Activation => "activation",
                            Pace::Turn => "turn",
                        }
                    )),
                ),
            },
            "undo" => self.undo()?,
            "redo" => self.redo()?,
            "reload" if rest.is_empty() => self.reload(),
            _ => {
                // A new command after an undo: what was taken back cannot come back any more.
                let redo = std::mem::take(&mut self.session.redo);
                if !self.command(line, None)? {
                    self.session.redo = redo;
                }
            }
        }
        Ok(())
    }

    fn say(&self, text: &str) {
        if self.json {
            super::emit_json(&serde_json::json!({ "command": "info", "ok": true, "text": text }));
        } else {
            super::emit(text);
        }
    }

    /// [`Self::say`] for the board, which keeps its colours (its package text made visible).
    fn say_painted(&self, text: &str) {
        if self.json {
            self.say(text);
        } else {
            super::emit_painted(text);
        }
    }

    /// Runs a command; `saved` is a redone command, replayed with its dice and answers.
    /// Whether it was accepted: a command is accepted once the save that keeps it is written
    /// (one write), and a command whose save cannot be written is refused, the game and the
    /// save as they were.
    fn command(&mut self, line: &str, saved: Option<&Entry>) -> Result<bool, String> {
        let before = self.game.events.len();
        let forced = match saved {
            Some(_) => Arc::new(Mutex::new(Forced::default())),
            None => at_the_table(
                self.session.manual_now(),
                self.dice_ran_out.clone(),
                self.screen.clone(),
            ),
        };
        *lock(&self.dice_ran_out) = false;
        let placeholder = self.placeholder()?;
        let mut game = std::mem::replace(&mut self.game, placeholder);
        self.screen.begin(line, &mut game, false);
        let played = session::play_line(&mut self.host, game, &self.session, line, &forced, saved);
        match played {
            Ok((mut game, entry)) if !*lock(&self.dice_ran_out) => {
                self.screen.end(&mut game);
                self.game = game;
                let switched = session::dice_switch(&entry.line);
                self.session.entries.push(entry);
                if let Err(why) = self.save_now() {
                    self.session.entries.pop();
                    self.restore()?;
                    self.respond(line, false, before, Some(format!("{why} — nothing changed")));
                    return Ok(false);
                }
                let note = switched.map(|manual| {
                    if manual {
                        "dice: manual from the next command on (servitor asks for every die; `auto` at a prompt lets it roll one)"
                            .to_string()
                    } else {
                        "dice: auto from the next command on (`dice manual` gives them back to you)".to_string()
                    }
                });
                self.respond(line, true, before, note);
                Ok(true)
            }
            Ok(_) => {
                self.restore()?;
                self.respond(
                    line,
                    false,
                    before,
                    Some("input ended while a die or an answer was asked for: nothing changed".into()),
                );
                Ok(false)
            }
            Err(error) => {
                self.restore()?;
                let reason = error.refusal_line(self.host.ruleset());
                self.respond(line, false, before, Some(format!("{reason} — nothing changed")));
                Ok(false)
            }
        }
    }

    fn undo(&mut self) -> Result<(), String> {
        let Some(entry) = self.session.entries.pop() else {
            self.respond("undo", false, self.game.events.len(), Some("nothing to undo".into()));
            return Ok(());
        };
        self.session.redo.push(entry.clone());
        if let Err(why) = self.save_now() {
            self.session.redo.pop();
            self.session.entries.push(entry);
            self.respond(
                "undo",
                false,
                self.game.events.len(),
                Some(format!("{why} — nothing changed")),
            );
            return Ok(());
        }
        let before = std::mem::take(&mut self.game.events);
        self.restore()?;
        let message = servitor::game::session::took_back(&entry.line, &before, self.game.events.len());
        self.respond("undo", true, self.game.events.len(), Some(message));
        Ok(())
    }

    /// `reload`: the package loaded again from where it was found, and the session's commands
    /// replayed on it with their saved dice and answers (as a resume does). The same game
    /// goes on with the package as it is now; a package that does not load, or plays the
    /// session otherwise, is said so (from which command, and what differs), and the game
    /// goes on as it was, with the package as it was.
    fn reload(&mut self) {
        let from = self.game.events.len();
        let refuse = |t: &Self, why: String| t.respond("reload", false, from, Some(why));
        let loaded = match servitor::load(&self.package) {
            Ok(loaded) => loaded,
            Err(error) => {
                if !self.json {
                    super::eprint_safe(&super::load_failure(&error));
                }
                return refuse(
                    self,
                    format!(
                        "{} does not load as it is now (see above); the game goes on with the package as it was",
                        self.package
                    ),
                );
            }
        };
        if !loaded.warnings.diagnostics.is_empty() && !self.json {
            super::eprint_safe(&loaded.warnings.render(&loaded.ruleset.sources, super::color()));
        }
        if loaded.ruleset.name() != self.session.package {
            return refuse(
                self,
                format!(
                    "{} is now the package `{}`, not `{}`; the game goes on with the package as it was",
                    self.package,
                    loaded.ruleset.name(),
                    self.session.package
                ),
            );
        }
        let mut host = Host::new(&Arc::new(loaded.ruleset));
        match self.session.replay_again(&mut self.host, &mut host) {
            Ok(Ok(game)) => {
                let n = self.session.entries.len();
                self.host = host;
                self.game = game;
                self.screen.caught_up(&self.game, 0);
                self.respond(
                    "reload",
                    true,
                    self.game.events.len(),
                    Some(format!(
                        "reloaded: {n} command{} replayed, the same game",
                        if n == 1 { "" } else { "s" }
                    )),
                );
            }
            Ok(Err(parting)) => {
                let whence = match &parting.line {
                    Some(line) => format!("command {} (`{line}`)", parting.step),
                    None => "the set-up".to_string(),
                };
                refuse(
                    self,
                    format!(
                        "the package as it is now plays this game otherwise from {whence}: {}; the game goes on with the package as it was",
                        servitor::escape::one_line(&parting.what)
                    ),
                );
            }
            Err(e) => {
                let why = e.refusal_line(self.host.ruleset());
                refuse(self, format!("the game played cannot be replayed: {why}"));
            }
        }
    }

    /// Puts back the command `undo` took last: run again with its dice, and saved once with
    /// what is left to redo.
    fn redo(&mut self) -> Result<(), String> {
        let Some(entry) = self.session.redo.pop() else {
            self.respond("redo", false, self.game.events.len(), Some("nothing to redo".into()));
            return Ok(());
        };
        if !self.command(&entry.line, Some(&entry))? {
            // Refused: it stays to redo, as nothing changed.
            self.session.redo.push(entry);
        }
        Ok(())
    }

    /// The game as the accepted commands leave it, shown as it stands.
    fn restore(&mut self) -> Result<(), String> {
        self.game = self
            .session
            .replay(&mut self.host)
            .map_err(|e| failure(self.host.ruleset(), e))?;
        self.screen.caught_up(&self.game, 0);
        Ok(())
    }

    fn placeholder(&mut self) -> Result<Game, String> {
        // Only while a command runs: the real game is moved into the host.
        self.host
            .start(&self.session.setup(), Some(0))
            .map_err(|e| failure(self.host.ruleset(), e))
    }

    /// Writes the session to its save, if it has one (see `savefile`): the reason when it
    /// cannot, the previous save kept.
    fn save_now(&mut self) -> Result<(), String> {
        if let Some((path, campaign)) = &mut self.campaign {
            campaign.session = Some(self.session.clone());
            let text = servitor::game::host::encode(campaign)?;
            super::savefile::write_atomically(path, text.as_bytes())
                .map_err(|e| e.trim_start_matches("error: ").to_string())?;
            self.writes += 1;
            return Ok(());
        }
        if let Some(path) = &self.save {
            let text = servitor::game::host::encode(&self.session)?;
            super::savefile::write_atomically(path, text.as_bytes())
                .map_err(|e| e.trim_start_matches("error: ").to_string())?;
            self.writes += 1;
        }
        Ok(())
    }

    fn respond(&self, line: &str, ok: bool, from: usize, note: Option<String>) {
        // The player's view: never what the player may not know (face-down identities,
        // secret pools, the order of decks).
        let events = self.screen.seen_from(&self.game, from);
        if self.json {
            let json = serde_json::json!({
                "command": line,
                "log_version": servitor::game::event::LOG_VERSION,
                "ok": ok,
                "note": note,
                "events": events,
                "turn": self.game.state.turn,
                "over": self.game.state.over,
            });
            super::emit_json(&json);
            return;
        }
        if let Some(note) = note {
            super::emitln(&if ok { note } else { format!("refused: {note}") });
        }
        if ok {
            self.screen.show(&self.game);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn game_error_text(e: GameError) -> String {
    match e {
        GameError::Usage(m) | GameError::Save(m) | GameError::Refused(m) | GameError::Scenario(m) => {
            format!("error: {m}")
        }
        GameError::Script { diagnostic, .. } => diagnostic.message.clone(),
    }
}

fn failure(ruleset: &servitor::Ruleset, e: GameError) -> String {
    match e {
        GameError::Script { diagnostic, .. } => {
            let report = servitor::diagnostic::Report {
                diagnostics: vec![*diagnostic],
            };
            report.render(&ruleset.sources, super::color())
        }
        other => game_error_text(other),
    }
}

/// What `help` says of `reload` (a command of `servitor play`, not of the game).
const RELOAD_HELP: &str = "  reload           load the package again from disk (after editing it) and replay this game on it: the same game goes on with the edited package, or servitor says from which command it would differ and keeps the game as it was\n";

/// What `help` at a dice prompt says.
const DICE_HELP: &str = "type the face the die shows (for a die by faces, as listed: `0`, `hit`); several at once, \
one per die in the order asked, separated by spaces (`2 1`); `auto` lets servitor roll this die, `auto roll` the \
rest of this roll, `auto all` every die left of this command; `help` shows this again\n";

/// Which dice servitor rolls by itself for the rest of a command.
#[derive(Clone, PartialEq)]
enum Auto {
    Ask,
    /// Up to the last die of the roll (its expression and count).
    Roll(Option<String>, usize),
    Command,
}

/// The line that says what a die is for: the roll it belongs to, its place in it, the table
/// rolled on and the purpose of the game's stream (the phase or trigger rolling it).
fn die_for(die: &DieAsk) -> Option<String> {
    let Some(roll) = die.roll.as_ref() else {
        // A die with no dice expression: a random pick the rules leave to a die.
        return die.about.as_ref().map(|about| format!("{} for {about}", die.die));
    };
    let mut line = match &die.about {
        Some(about) => format!("{roll} for {about}"),
        None => roll.clone(),
    };
    if let Some(t) = &die.table {
        line.push_str(&format!(" on table {t}"));
    }
    if die.count > 1 {
        line.push_str(&format!(", die {} of {}", die.index, die.count));
    }
    if let Some(p) = &die.purpose {
        // Streams are named after a phase id, or `on-<event>` for a trigger.
        match p.strip_prefix("on-") {
            Some(event) => line.push_str(&format!(" — rolled for the {event} trigger")),
            None => line.push_str(&format!(" — rolled for {p}")),
        }
    }
    Some(line)
}

/// What a command asks of the player at the table: the dice, with manual dice; the answers to
/// the game's questions (`game.ask`) always, each recorded for the save.
fn at_the_table(manual: bool, ran_out: Arc<Mutex<bool>>, screen: Arc<Screen>) -> Arc<Mutex<Forced>> {
    let forced = if manual {
        manual_dice(ran_out.clone(), screen.clone())
    } else {
        Arc::new(Mutex::new(Forced::default()))
    };
    {
        let mut f = lock(&forced);
        f.asks_picks = true;
        f.choose = Some(ask_choice(ran_out, screen));
        f.choice_record = Some(Vec::new());
    }
    forced
}

/// A question of the game put to the player: the question and its choices numbered, then
/// "choose 1-3, or auto:"; a number, a choice as written, or `auto` (servitor's answer: the
/// stand-in player's).
fn ask_choice(ran_out: Arc<Mutex<bool>>, screen: Arc<Screen>) -> servitor::dice::rng::AskChoice {
    Box::new(move |q: &servitor::dice::rng::ChoiceAsk| -> Option<u64> {
        // What happened before the question, first.
        screen.flush();
        let mut text = format!("  {}\n", q.question);
        for (k, c) in q.choices.iter().enumerate() {
            let mark = if k == q.default {
                " (servitor's answer: auto)"
            } else {
                ""
            };
            text.push_str(&format!("    {}. {c}{mark}\n", k + 1));
        }
        super::eprint_safe(&servitor::escape::visible(&text));
        loop {
            let prompt = format!("choose 1-{} (or type it), or auto: ", q.choices.len());
            super::eprint_safe(&servitor::escape::visible(&prompt));
            let Some(line) = servitor::script::outside_the_deadline(read_stdin_line) else {
                *ran_out.lock().unwrap_or_else(|p| p.into_inner()) = true;
                return None;
            };
            let answer = match line {
                Ok(line) => line.trim().to_string(),
                Err(why) => {
                    super::eprint_safe(&format!("{why}\n"));
                    continue;
                }
            };
            if answer.is_empty() {
                continue;
            }
            if answer == "auto" {
                return None;
            }
            if let Some(k) = q.choices.iter().position(|c| *c == answer) {
                return Some(k as u64 + 1);
            }
            if let Ok(k) = answer.parse::<u64>()
                && (1..=q.choices.len() as u64).contains(&k)
            {
                return Some(k);
            }
            super::eprint_safe(&servitor::escape::visible(&format!(
                "`{answer}` is not one of the choices: type its number (1-{}), the choice itself, or auto\n",
                q.choices.len()
            )));
        }
    })
}

/// Dice asked of the player: a line saying what the die is for, then "roll 1 red die (faces
/// 0 0 0 1 2 3), or auto:"; a face the die has (several, for the next dice too), `auto`
/// (this die), `auto roll`, `auto all`, or `help`.
fn manual_dice(ran_out: Arc<Mutex<bool>>, screen: Arc<Screen>) -> Arc<Mutex<Forced>> {
    let mut pending: std::collections::VecDeque<String> = std::collections::VecDeque::new();
    let mut auto = Auto::Ask;
    let ask = move |die: &DieAsk| -> Option<u64> {
        match &auto {
            Auto::Command => return None,
            Auto::Roll(roll, count) if *roll == die.roll && die.index > 1 && die.index <= *count => return None,
            Auto::Roll(..) => auto = Auto::Ask,
            Auto::Ask => {}
        }
        // What happened before the die, first: a die is asked where the rules roll it (with
        // `--pace activation`, after the pause that begins its piece's activation).
        screen.before_die(die.piece.as_deref());
        let plain = die
            .die
            .strip_prefix('d')
            .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()));
        let what = if plain {
            let n: u64 = die.die[1..].parse().unwrap_or(6);
            match [2, 3, 4, 6, 8, 10, 12, 20, 100].iter().find(|&&d| d >= n) {
                // A die no table has: the next one up, rolled again past its last face.
                Some(&bigger) if bigger != n => format!("a {} (a d{bigger}, again on {} or more)", die.die, n + 1),
                _ => format!("a {}", die.die),
            }
        } else {
            format!("1 {} die", die.die)
        };
        if let Some(line) = die_for(die) {
            super::eprint_safe(&servitor::escape::visible(&format!("  {line}\n")));
        }
        loop {
            let prompt = format!("roll {what} (faces {}), help, or auto: ", die.faces.join(" "));
            super::eprint_safe(&servitor::escape::visible(&prompt));
            let answer = match pending.pop_front() {
                Some(face) => {
                    super::eprint_safe(&servitor::escape::visible(&format!("{face} (typed before)\n")));
                    face
                }
                None => {
                    // The player may take their time: the script that asked does not run meanwhile.
                    let Some(line) = servitor::script::outside_the_deadline(read_stdin_line) else {
                        *ran_out.lock().unwrap_or_else(|p| p.into_inner()) = true;
                        return None;
                    };
                    let line = match line {
                        Ok(line) => line,
                        Err(why) => {
                            super::eprint_safe(&format!("{why}\n"));
                            continue;
                        }
                    };
                    let mut words = line
                        .split([' ', ',', '\t'])
                        .filter(|w| !w.is_empty())
                        .map(str::to_string);
                    let Some(first) = words.next() else { continue };
                    match (first.as_str(), words.clone().next().as_deref()) {
                        ("auto", None) => return None,
                        ("auto", Some("roll")) => {
                            auto = Auto::Roll(die.roll.clone(), die.count);
                            return None;
                        }
                        ("auto", Some("all")) => {
                            auto = Auto::Command;
                            return None;
                        }
                        ("help", None) => {
                            super::eprint_safe(DICE_HELP);
                            continue;
                        }
                        _ => {}
                    }
                    pending.extend(words);
                    first
                }
            };
            if let Some(position) = die.faces.iter().position(|f| *f == answer) {
                return Some(position as u64 + 1);
            }
            pending.clear();
            super::eprint_safe(&servitor::escape::visible(&format!(
                "{what} has no face `{answer}`: its faces are {} (type `help` for what else a die takes)\n",
                die.faces.join(" ")
            )));
        }
    };
    Arc::new(Mutex::new(Forced {
        ask: Some(Box::new(ask)),
        record: Some(Vec::new()),
        ..Forced::default()
    }))
}

fn completions(game: &Game) -> Vec<String> {
    let mut words: Vec<String> = [
        "end", "undo", "redo", "reload", "board", "status", "why", "sees", "odds", "help", "quit",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    words.extend(game.def.commands.keys().cloned());
    for p in game.state.pieces.iter().filter(|p| p.on_board() || p.status == "off") {
        words.push(p.id.clone());
        words.extend(p.at.map(|s| s.to_string()));
    }
    words.extend(game.ruleset.tables.keys().cloned());
    words
}

/// The board with one character per piece — digits for the player's pieces, small letters
/// for the others (map marks are capitals) — and a legend naming each.
fn board(game: &Game, svg: Option<&str>, human: &str) -> Result<String, String> {
    if let Some((field, legend)) = game.field_picture() {
        // A battlefield in inches: the pieces as lettered markers, objectives by their number.
        let mut out = render::battlefield_text(&field);
        let legend: Vec<String> = legend
            .iter()
            .map(|l| servitor::escape::one_line(l).into_owned())
            .collect();
        out.push_str(&format!("{}\n", legend.join("; ")));
        if let Some(path) = svg {
            std::fs::write(path, render::battlefield_svg(&field, &game.mission, &[]))
                .map_err(|e| format!("cannot write {}: {e}", servitor::escape::one_line(path)))?;
            out.push_str(&format!("written to {path}\n"));
        }
        return Ok(out);
    }
    let mut overlay = Overlay::default();
    let mut legend = Vec::new();
    // `board MODEL`: the squares that piece can see, marked; any other word is an SVG file.
    let mut svg = svg;
    if let Some(i) = svg.and_then(|id| game.state.index_of(id)) {
        let p = &game.state.pieces[i];
        if !p.on_board() || p.at.is_none() {
            return Err(format!(
                "{} is not on the board ({})",
                servitor::escape::one_line(&p.id),
                p.status
            ));
        }
        overlay.seen = game.view.squares_seen(&game.state.pieces, i);
        legend.push(format!(
            "∘ what {} can see ({} squares)",
            servitor::escape::one_line(&p.id),
            overlay.seen.len()
        ));
        svg = None;
    } else if let Some(word) = svg.filter(|w| !w.ends_with(".svg")) {
        let hint = servitor::diagnostic::did_you_mean(word, game.state.pieces.iter().map(|p| p.id.as_str()))
            .map(|h| format!(": {h}"))
            .unwrap_or_default();
        return Err(format!(
            "no piece `{}`{hint} (`board MODEL` marks what it sees; `board FILE.svg` writes a picture)",
            servitor::escape::one_line(word)
        ));
    }
    let (mut mine, mut theirs) = ("123456789".chars(), "abcdefghijklmnopqrstuvwxyz".chars());
    for p in game.state.pieces.iter().filter(|p| p.on_board()) {
        let next = if p.side == human { mine.next() } else { theirs.next() };
        let letter = next.unwrap_or('*');
        for s in p.squares() {
            overlay.labels.insert(s, letter);
        }
        let facing = p
            .facing
            .map(|f| format!(" facing {}", servitor::board::facing::FACING_NAMES[usize::from(f) % 4]))
            .unwrap_or_default();
        let ap = p.ap.map(|n| format!(", {n} AP")).unwrap_or_default();
        let watch = p
            .watch
            .as_deref()
            .map(|w| format!(", {}", servitor::escape::one_line(w)))
            .unwrap_or_default();
        legend.push(format!(
            "{} {} on {}{facing}{ap}{watch}",
            letter,
            servitor::escape::one_line(&p.id),
            p.at.map(|s| s.to_string()).unwrap_or_default()
        ));
    }
    let color = std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal();
    let mut out = render::text(&game.view.grid, &overlay, color);
    if !legend.is_empty() {
        out.push_str(&format!("{}\n", legend.join("; ")));
    }
    out.push_str(&format!("{}\n", render::legend_line(&game.view.grid)));
    if let Some(path) = svg {
        std::fs::write(path, render::svg(&game.view.grid, &game.mission, &overlay))
            .map_err(|e| format!("cannot write {}: {e}", servitor::escape::one_line(path)))?;
        out.push_str(&format!("written to {path}\n"));
    }
    Ok(out)
}

fn odds(game: &Game, table: Option<&str>) -> String {
    let Some(id) = table else {
        return "say which table: `odds <table>`\n".into();
    };
    let r = &game.ruleset;
    match super::find_table(r, id) {
        Err(e) => format!("{}\n", e.message()),
        Ok(t) => {
            let args = super::AvailabilityArgs::default();
            let args = super::AvailabilityArgs { times: 1, ..args };
            match servitor::tables::odds::table_odds(&r.tables, t, 1, &args.availability()) {
                Ok(odds) => super::render::odds(t, &args, &odds),
                Err(e) => format!("{e}\n"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `redo` once wrote the save twice, the first time without its redo list (a kill between
    /// the two lost the history): one command, one write.
    #[test]
    fn redo_writes_the_save_once() {
        let dir = tempfile::tempdir().unwrap();
        let package = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/games/skirmish");
        let ruleset = Arc::new(servitor::load(package).unwrap().ruleset);
        let mut host = Host::new(&ruleset);
        let session = Session {
            format: SESSION_FORMAT.into(),
            version: SESSION_VERSION,
            package: ruleset.name().to_string(),
            found_at: None,
            game: None,
            mission: "hall-fight".into(),
            seed: 3,
            options: Vec::new(),
            side: "hunters".into(),
            manual_dice: false,
            start_dice: Vec::new(),
            start_choices: Vec::new(),
            entries: Vec::new(),
            redo: Vec::new(),
        };
        let game = session.replay(&mut host).unwrap();
        let mut t = Table {
            host,
            session,
            game,
            save: Some(dir.path().join("s.json")),
            json: true,
            dice_ran_out: Arc::new(Mutex::new(false)),
            writes: 0,
            campaign: None,
            titled: false,
            screen: Screen::new("hunters", false, true, Pace::Turn),
            package: String::new(),
        };
        for line in ["move hunter-1 2,1 3,1", "end", "undo", "undo"] {
            t.handle(line).unwrap();
        }
        assert_eq!(t.writes, 4);
        t.handle("redo").unwrap();
        assert_eq!(t.writes, 5, "one redo, one write");
        let saved: Session = serde_json::from_slice(&std::fs::read(dir.path().join("s.json")).unwrap()).unwrap();
        assert_eq!(saved.entries.len(), 1);
        assert_eq!(saved.redo.len(), 1, "written with what is left to redo");
    }
}
