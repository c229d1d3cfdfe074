//! What the companion says at the table, whichever front end shows it (`servitor play` in a
//! terminal, the web page of `web/`): the events of a command as instructions — the engine's
//! turns numbered, one number per thing to do on the table — and the answers to `status`,
//! `why`, `help`, and the final line. Plain text, or (for instructions) [`Line`]s a front end
//! lays out its own way; both come from the one walk in [`lines`].
//!
//! The engine's steps are numbered; bookkeeping events are kept in the log but shown only
//! when verbose. [`status`] gives turn, scores, pieces, pools and decks (secret ones only
//! counted), each side's face-up pieces still to enter and the variables the game item
//! declares with `show`; [`status_at_the_table`] adds the package's own `status` lines.
//! [`why`] reads the player's view of the log. [`activations`] cuts a command's events into
//! one activation per piece (`Aliases::actor` says whose an event is: a piece's decisions
//! and rolls its own, a kill or a turn the activation's in progress), for `--pace activation`.

use super::{Event, Game};

/// One line of the instructions.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "line", rename_all = "kebab-case")]
pub enum Line {
    /// The setup begins.
    Setup,
    /// A side's phase begins: its steps are numbered from 1.
    Turn { turn: u32, side: String, phase: String },
    /// Something to do or to know.
    Step {
        /// The step's number, when it is a thing to do on the table for the engine's side.
        #[serde(skip_serializing_if = "Option::is_none")]
        number: Option<usize>,
        /// The event's kind (`move`, `roll`, `decision`, …).
        kind: String,
        text: String,
        /// The rule it follows.
        #[serde(skip_serializing_if = "Option::is_none")]
        source: Option<String>,
        /// The piece it concerns.
        #[serde(skip_serializing_if = "Option::is_none")]
        piece: Option<String>,
    },
}

/// The events since the last command as [`Line`]s: `human` plays one side, the engine the
/// others; the engine's turns are numbered.
pub fn lines(events: &[Event], human: &str, verbose: bool) -> Vec<Line> {
    lines_numbered(events, human, verbose, &mut 0)
}

/// [`lines`] going on from step `n` (a command's events shown a part at a time keep one
/// numbering); `n` is left at the last number given.
pub fn lines_numbered(events: &[Event], human: &str, verbose: bool, n: &mut usize) -> Vec<Line> {
    let mut out = Vec::new();
    // The engine's bookkeeping (script variables, piece fields, counters that did not move)
    // is nothing to do on the table: kept in the log and the save, shown only when `verbose`.
    for e in events.iter().filter(|e| verbose || !e.is_bookkeeping()) {
        match e.kind.as_str() {
            "phase" if e.turn == 0 => out.push(Line::Setup),
            "phase" => {
                *n = 0;
                out.push(Line::Turn {
                    turn: e.turn,
                    side: e.side.clone(),
                    phase: e.phase.clone(),
                });
            }
            kind => {
                // Counters, scores and action points handed out or spent are notes beside the
                // instructions, not steps of their own.
                let numbered = e.side != human
                    && !matches!(
                        kind,
                        "roll" | "table" | "decision" | "note" | "pool" | "take" | "give" | "score" | "collect" | "ap"
                    );
                let number = numbered.then(|| {
                    *n += 1;
                    *n
                });
                out.push(Line::Step {
                    number,
                    kind: kind.to_string(),
                    text: e.text.clone(),
                    source: e.source.clone(),
                    piece: e.piece.clone(),
                });
            }
        }
    }
    out
}

/// `events` without the phases in which nothing reached the table (a side's phase that only
/// plays in other turns, an Alien phase with nothing to move): at the table such a heading
/// would stand alone, straight before the next one. A phase that ends `events` is kept — what
/// follows it comes with the next command. ([`lines`] keeps every heading: the web page's
/// cards are built event by event.)
pub fn without_empty_phases(events: Vec<Event>, verbose: bool) -> Vec<Event> {
    let shown = |e: &Event| verbose || !e.is_bookkeeping();
    let is_phase = |e: &Event| e.kind == "phase";
    let mut keep = vec![true; events.len()];
    let mut next_shown_is_phase = false;
    for (k, e) in events.iter().enumerate().rev() {
        if !shown(e) {
            continue;
        }
        if is_phase(e) {
            keep[k] = e.turn == 0 || !next_shown_is_phase;
        }
        next_shown_is_phase = is_phase(e);
    }
    events
        .into_iter()
        .zip(keep)
        .filter_map(|(e, k)| k.then_some(e))
        .collect()
}

/// The events since the last command as instructions in plain text.
pub fn instructions(events: &[Event], human: &str, verbose: bool) -> String {
    instructions_numbered(events, human, verbose, &mut 0)
}

/// [`instructions`] going on from step `n`, as [`lines_numbered`].
pub fn instructions_numbered(events: &[Event], human: &str, verbose: bool, n: &mut usize) -> String {
    let mut out = String::new();
    for line in lines_numbered(events, human, verbose, n) {
        match line {
            Line::Setup => out.push_str("Setup\n"),
            Line::Turn { turn, side, phase } => out.push_str(&format!("\nTurn {turn} · {side} · {phase}\n")),
            Line::Step {
                number,
                kind,
                text,
                source,
                ..
            } => {
                let source = source.map(|s| format!("  [{s}]")).unwrap_or_default();
                let mark = match (number, kind.as_str()) {
                    (Some(n), _) => format!("{n:>3}. "),
                    (None, "decision") => "   → ".into(),
                    (None, "roll" | "table") => "   ⚄ ".into(),
                    _ => "     ".into(),
                };
                out.push_str(&format!("{mark}{text}{source}\n"));
            }
        }
    }
    out
}

/// The events of a command split into activations, for a player who moves the minis as they
/// read: a new activation begins at each thing to do on the table (a step servitor numbers)
/// done by another piece than the one before — the attacker of a hit, else the piece the
/// event concerns —, with the rolls and decisions since the other piece's last step. `last`
/// is the piece acting when the events begin, and is left at the last one.
pub fn activations<'e>(
    events: &'e [Event],
    human: &str,
    last: &mut Option<String>,
    aliases: &mut Aliases,
) -> Vec<&'e [Event]> {
    let mut out = Vec::new();
    let mut start = 0;
    // Just after the last step of the piece acting now.
    let mut boundary = 0;
    for (k, e) in events.iter().enumerate() {
        aliases.follow(e);
        let Some(actor) = aliases.actor(e, human) else {
            // What follows from the activation in progress (a model it kills, the score for
            // it, a model turning; straight after its last step, the roll of a shot that
            // missed, having no step of its own, or a line of no piece — the result of a
            // morale check its shots caused, a phase announced) ends it, rather than opening
            // the next.
            let follows = matches!(
                e.action,
                Some(super::state::Action::Remove { .. } | super::state::Action::Face { .. })
            ) || e.kind == "score"
                || (boundary == k
                    && (e.kind == "roll" || (e.piece.is_none() && matches!(e.kind.as_str(), "note" | "decision"))));
            if follows && last.is_some() {
                boundary = k + 1;
            }
            continue;
        };
        let actor = Some(actor);
        if *last != actor {
            if last.is_some() && boundary > start {
                out.push(&events[start..boundary]);
                start = boundary;
            }
            last.clone_from(&actor);
        }
        boundary = k + 1;
    }
    if start < events.len() {
        out.push(&events[start..]);
    }
    out
}

/// Who is who in a log, as an activation sees it: the side each piece is on, and the names a
/// piece went by (a token revealed under a new id — `reveal-ids by-kind` — is the same piece
/// acting on).
#[derive(Debug, Default, Clone)]
pub struct Aliases {
    first_names: std::collections::HashMap<String, String>,
    sides: std::collections::HashMap<String, String>,
    /// The piece (first name) turned over last, until something else happens at the table:
    /// the models placed meanwhile are its own (a token revealed as several models).
    revealing: Option<String>,
}

impl Aliases {
    /// Takes note of a piece added, and of a reveal that renames one.
    pub fn follow(&mut self, e: &Event) {
        use super::state::Action;
        match &e.action {
            Some(Action::Add { piece }) => {
                self.sides.insert(piece.id.clone(), piece.side.clone());
            }
            Some(Action::Reveal { id, rename, .. }) => {
                let first = self.first_name(id);
                if let Some(new) = rename {
                    if let Some(side) = self.sides.get(id).cloned() {
                        self.sides.insert(new.clone(), side);
                    }
                    self.first_names.insert(new.clone(), first.clone());
                }
                self.revealing = Some(first);
            }
            Some(Action::Face { .. } | Action::Remove { .. }) | None => {}
            Some(_) => self.revealing = None,
        }
    }

    /// The side of a piece by any name it went by, once its arrival was followed.
    pub fn side_of(&self, id: &str) -> Option<&str> {
        self.sides.get(id).map(String::as_str)
    }

    /// The first name the piece went by.
    pub fn first_name(&self, id: &str) -> String {
        self.first_names.get(id).cloned().unwrap_or_else(|| id.to_string())
    }

    /// Whose activation an event belongs to, by the first name the piece went by: the
    /// attacker of a hit, else the piece it concerns — a piece of the engine's side, as the
    /// player's own pieces' reactions (a shot at a piece moving, and what it hits) belong to
    /// the activation they react to. A piece's decisions and rolls are its own (its first
    /// decision begins its activation). A piece placed is its own arrival, but one placed as a
    /// token turns over is that token's (it was several models); a piece removed, or turning
    /// without a step, belongs to the activation in progress (a model a reaction kills;
    /// models revealed all facing the way they came). `None` for an event of no piece of the
    /// engine's side, or bookkeeping.
    pub fn actor(&self, e: &Event, human: &str) -> Option<String> {
        use super::state::Action;
        let owned = e.side != human
            && !e.is_bookkeeping()
            && !matches!(e.action, Some(Action::Face { .. } | Action::Remove { .. }))
            && !matches!(
                e.kind.as_str(),
                "phase" | "pool" | "take" | "give" | "score" | "collect"
            );
        if !owned {
            return None;
        }
        let engines = |id: &String| self.sides.get(id.as_str()).is_none_or(|side| side != human);
        if let (Some(Action::Add { .. }), Some(revealed)) = (&e.action, &self.revealing) {
            return Some(revealed.clone());
        }
        match &e.attacker {
            // A hit by the player's piece (a reaction: overwatch, a flamer) is part of the
            // activation it answers, whichever piece it hits.
            Some(a) if !engines(a) => None,
            Some(a) => Some(self.first_name(a)),
            None => e.piece.as_ref().filter(|p| engines(p)).map(|p| self.first_name(p)),
        }
    }
}

/// How the game ended, and the scores.
pub fn final_line(game: &Game) -> String {
    let r = super::host::summary(game);
    let scores: Vec<String> = r.scores.iter().map(|(s, p)| format!("{s} {p}")).collect();
    format!(
        "\nThe game is over: {} ({}). Scores: {}.",
        r.winner,
        r.reason,
        scores.join(", ")
    )
}

/// The commands a player may type: the game's own, then those of every session.
pub fn help(game: &Game) -> String {
    let mut out = String::from("Your commands (this game's):\n");
    for (name, c) in &game.def.commands {
        out.push_str(&format!("  {name:<10} {}\n", c.help.as_deref().unwrap_or("")));
    }
    out.push_str(
        "  end        end your turn: servitor plays the other side and says what to do\n\
         At any time:\n\
         \x20 board [FILE.svg]  the board now (and as SVG)\n\
         \x20 board PIECE      the board with the squares that piece can see marked ∘\n\
         \x20 status           turn, scores, pools and decks\n\
         \x20 why PIECE        the reasons for that piece's last actions, e.g. `why raider-2`\n\
         \x20 sees PIECE       what that piece can see of the other side, nearest first, e.g. `sees scout-2`\n\
         \x20 odds TABLE       the exact odds of one of this package's tables (`servitor tables` lists them)\n\
         \x20 undo / redo      take back the last command (an engine turn it started too) / put it back\n\
         \x20 dice manual|auto from the next command on, you roll every die (servitor asks, saying what it is for) or servitor does\n\
         \x20 pace activation|turn  the enemy's turn one activation at a time (Enter for the next) or all at once\n\
         \x20 fix …            the table is the truth: fix PIECE at X,Y | facing up|right|down|left | life N | remove | restore X,Y; fix door X,Y X,Y open|shut; end with `because …`\n\
         \x20 quit             stop; the save keeps the game (`servitor play --resume FILE`)\n",
    );
    out
}

/// Whether `text` names `id` as a whole word (`token-1` is not in `token-10`).
fn mentions_word(text: &str, id: &str) -> bool {
    text.match_indices(id).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + id.len()..].chars().next();
        let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_');
        !part(before) && !part(after)
    })
}

/// What a piece can see of the other sides, nearest first, with its distance in steps: the
/// question a player asks before naming a target (`sees scout-2`). Sight to shoot (pieces in
/// the way block it); a face-down piece shows as its token, never as what it hides.
pub fn sees(game: &Game, piece: Option<&str>) -> String {
    let Some(id) = piece else {
        return "say which piece: `sees scout-2`\n".into();
    };
    let pieces = &game.state.pieces;
    let Some(i) = game.state.index_of(id) else {
        let hint = crate::diagnostic::did_you_mean(id, pieces.iter().map(|p| p.id.as_str())).unwrap_or_default();
        return format!("no piece `{id}` {hint}\n");
    };
    let p = &pieces[i];
    if p.on_board()
        && let Some(point) = p.point
    {
        return sees_on_battlefield(game, i, point);
    }
    let Some(at) = p.at.filter(|_| p.on_board()) else {
        return format!("{} is not on the board ({})\n", p.id, p.status);
    };
    let mut seen = Vec::new();
    for side in game.def.sides.iter().filter(|s| **s != p.side) {
        seen.extend(game.view.visible(pieces, i, side));
    }
    seen.sort_by_key(|&(b, d)| (d, b));
    if seen.is_empty() {
        return format!("{} on {at} sees nothing of the other side\n", p.id);
    }
    let mut out = format!("{} on {at} sees (a model in the way blocks the shot):\n", p.id);
    for (b, d) in seen {
        let o = &pieces[b];
        let what = if o.hidden.is_some() {
            "face down".to_string()
        } else {
            o.kind.clone()
        };
        let place = o.at.map(|s| format!(" on {s}")).unwrap_or_default();
        out.push_str(&format!("  {} ({what}){place}, {d} away\n", o.id));
    }
    out
}

/// `sees` on a battlefield: the other sides' pieces standing at points, nearest first (base
/// edge to base edge, in inches), those terrain hides from every sight line apart; a piece
/// partly hidden says how many of the sight lines reach it.
fn sees_on_battlefield(game: &Game, i: usize, point: crate::board::field::Point) -> String {
    let pieces = &game.state.pieces;
    let p = &pieces[i];
    let mut others: Vec<(usize, f64, usize)> = Vec::new();
    for (j, o) in pieces.iter().enumerate() {
        if j == i || o.side == p.side || !o.on_board() || o.point.is_none() {
            continue;
        }
        let (Ok(gap), Ok(lines)) = (game.gap(i, j), game.sight_lines(i, j)) else {
            continue;
        };
        others.push((j, gap, lines));
    }
    others.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let name = |j: usize| {
        let o = &pieces[j];
        let what = if o.hidden.is_some() {
            "face down"
        } else {
            o.kind.as_str()
        };
        let at = o
            .point
            .map(|q| format!(" at {:.1},{:.1}", q.x, q.y))
            .unwrap_or_default();
        format!("{} ({what}){at}", o.id)
    };
    let all = crate::board::field::SIGHT_LINES;
    let (seen, hidden): (Vec<_>, Vec<_>) = others.iter().partition(|o| o.2 > 0);
    let mut out = format!(
        "{} at {:.1},{:.1} sees (nearest first, base to base; terrain in the way blocks sight):\n",
        p.id, point.x, point.y
    );
    if seen.is_empty() {
        out.push_str("  nothing of the other side\n");
    }
    for &&(j, gap, lines) in &seen {
        let part = if lines < all {
            format!(" (partly hidden: {lines} of {all} sight lines reach it)")
        } else {
            String::new()
        };
        out.push_str(&format!("  {}, {gap:.1}\" away{part}\n", name(j)));
    }
    if !hidden.is_empty() {
        let list: Vec<String> = hidden
            .iter()
            .map(|&&(j, gap, _)| format!("{} {gap:.1}\"", pieces[j].id))
            .collect();
        out.push_str(&format!("  out of sight: {}\n", list.join(", ")));
    }
    out
}

/// [`status`] with the lines the package's `status` function adds (the objective and its
/// score, cards held, points to spend): what the player's `status` command shows.
pub fn status_at_the_table(game: &Game, host: &mut super::Host) -> String {
    let mut out = status(game);
    for line in host.status_lines(game) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Turn, scores, the pieces on the board (with the life left of a face-up piece that has
/// more than one), pools (a secret one only counted) and decks (only counted).
pub fn status(game: &Game) -> String {
    let s = &game.state;
    let mut out = format!("turn {} · {} · {}\n", s.turn, s.side, s.phase);
    for side in &game.def.sides {
        let on: Vec<String> = s
            .pieces
            .iter()
            .filter(|p| &p.side == side && p.on_board())
            .map(|p| {
                let full = game.stats(&p.kind).0;
                if p.hidden.is_none() && full > 1 {
                    format!("{} ({} of {full} life)", p.id, p.life)
                } else {
                    p.id.clone()
                }
            })
            .collect();
        out.push_str(&format!(
            "{side}: {} points; on the board: {}\n",
            s.scores.get(side).copied().unwrap_or(0),
            if on.is_empty() { "none".into() } else { on.join(", ") }
        ));
        // Face-up pieces still to enter (reserves, an army not yet deployed): the player
        // knows them; face-down ones stay unsaid.
        let waiting: Vec<&str> = s
            .pieces
            .iter()
            .filter(|p| &p.side == side && p.status == "off" && p.hidden.is_none())
            .map(|p| p.id.as_str())
            .collect();
        if !waiting.is_empty() {
            out.push_str(&format!("{side}: still to enter: {}\n", waiting.join(", ")));
        }
    }
    // The variables the game shows the player (`show VAR "label"`), once set.
    for (var, label) in &game.def.shown {
        let Some(value) = s.vars.get(var) else { continue };
        let text = shown_value(value);
        if !text.is_empty() {
            out.push_str(&format!(
                "{}: {}\n",
                crate::escape::one_line(label),
                crate::escape::one_line(&text)
            ));
        }
    }
    for (id, pool) in &s.pools {
        if s.secret_pools.contains(id) {
            out.push_str(&format!("pool {id}: {} face down\n", pool.values().sum::<i64>()));
            continue;
        }
        let list: Vec<String> = pool.iter().map(|(k, v)| format!("{k} {v}")).collect();
        out.push_str(&format!("pool {id}: {}\n", list.join(", ")));
    }
    for (id, deck) in &s.decks {
        let n = deck.len();
        out.push_str(&format!("deck {id}: {n} card{} left\n", if n == 1 { "" } else { "s" }));
    }
    out
}

/// A game variable as `status` shows it: a list by commas (`none` when empty), a map as
/// `key value` pairs, text as it is; unset (`null`) as nothing.
fn shown_value(v: &serde_json::Value) -> String {
    use serde_json::Value as J;
    match v {
        J::Null => String::new(),
        J::String(t) => t.clone(),
        J::Array(a) if a.is_empty() => "none".into(),
        J::Array(a) => a.iter().map(shown_value).collect::<Vec<_>>().join(", "),
        J::Object(m) if m.is_empty() => "none".into(),
        J::Object(m) => m
            .iter()
            .map(|(k, v)| format!("{k} {}", shown_value(v)))
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

/// The last lines (12) of the log about a piece: the reasons for what it did.
pub fn why(game: &Game, piece: Option<&str>) -> String {
    let Some(id) = piece else {
        return "say which piece: `why raider-2`\n".into();
    };
    // The player's view of the log: a face-down piece's secrets stay secret here too.
    let seen = super::event::player_log(&game.events);
    // A piece revealed under a new id (`reveal-ids by-kind`) is asked about by either: its
    // lines from before the reveal come too.
    let now = game.state.piece(id).map_or(id, |p| p.id.as_str());
    let mut names: Vec<&str> = vec![now];
    names.extend(
        game.state
            .aliases
            .iter()
            .filter(|(_, new)| *new == now)
            .map(|(old, _)| old.as_str()),
    );
    let mentions = |e: &Event| {
        names
            .iter()
            .any(|n| e.piece.as_deref() == Some(*n) || mentions_word(&e.text, n))
    };
    let lines: Vec<&Event> = seen.iter().filter(|e| mentions(e)).collect();
    if lines.is_empty() {
        let ids = game.state.pieces.iter().map(|p| p.id.as_str());
        let hint = crate::diagnostic::did_you_mean(id, ids).unwrap_or_default();
        return format!("nothing is known of `{id}` {hint}\n");
    }
    let mut out = String::new();
    for e in lines.iter().rev().take(12).rev() {
        let source = e.source.as_deref().map(|s| format!("  [{s}]")).unwrap_or_default();
        out.push_str(&format!("turn {}: {}{source}\n", e.turn, e.text));
    }
    out
}
