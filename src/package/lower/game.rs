//! Lowering a `game` item: sides, the phases of a turn, triggers, options and commands, each
//! bound to a script function of the right arity; and the game's declared rules (doors,
//! sight, action points, watches), its `show` variables and its `entry` points. A phase may
//! be `first-turn` (a set-up step of turn 1 only, skipped after it).

use super::{Lower, Props};
use crate::diagnostic::{Diagnostic, did_you_mean};
use crate::package::merge::MergedItem;
use crate::ruleset::{CommandDef, DoorRules, GameDef, PhaseDef, TriggerDef, TriggerEvent, TriggerTiming, WatchDef};
use crate::script::Script;
use crate::source::{SourceMap, Span};
use crate::syntax::ast;
use indexmap::IndexMap;

/// Words `servitor play` keeps for itself.
pub const RESERVED_COMMANDS: [&str; 14] = [
    "end", "undo", "redo", "board", "status", "why", "odds", "help", "quit", "save", "auto", "dice", "pace", "fix",
];

/// Turns a game never ends by itself unless `max-turns` says otherwise.
const DEFAULT_MAX_TURNS: u32 = 100;

impl Lower<'_> {
    pub(super) fn game(&mut self, item: &MergedItem, scripts: &[Script], sources: &SourceMap) -> Option<GameDef> {
        let known = [
            "sides",
            "stats",
            "setup",
            "status",
            "phase",
            "on",
            "option",
            "command",
            "max-turns",
            "doors",
            "doorways",
            "door-opener",
            "reveal-ids",
            "action-points",
            "reserve",
            "watch",
            "sight",
            "sight-diagonals",
            "sight-models",
            "sight-tokens",
            "sight-doors",
            "friends",
            "needs-marks",
            "show",
            "draw",
            "entry",
            "source",
            "text",
            "label",
        ];
        let repeatable = [
            "phase", "on", "option", "command", "reserve", "watch", "show", "draw", "entry",
        ];
        let props = self.props(&item.entries, "a game", &known, &repeatable, false);
        let label = self.label(item, &props);
        let source = self.text(props.get("source"));
        let text = self.text(props.get("text"));
        let sides = self.game_sides(item, &props)?;
        let stats = props.get("stats").and_then(|p| self.name(p)).map(|(n, _)| n);
        let setup = match props.get("setup") {
            Some(p) => {
                let (name, span) = self.name(p)?;
                self.bound_function(&name, span, 1, "fn NAME(game)", scripts, sources);
                Some(name)
            }
            None => None,
        };
        // `status FUNCTION`: what the player's `status` shows beyond the engine's own lines.
        let status = match props.get("status") {
            Some(p) => {
                let (name, span) = self.name(p)?;
                self.bound_function(&name, span, 1, "fn NAME(game)", scripts, sources);
                Some(name)
            }
            None => None,
        };
        let mut phases = Vec::new();
        for p in props.all("phase") {
            let words: Vec<Option<&str>> = p.values.iter().map(ast::Value::as_name).collect();
            let (side, id, function, first_turn) = match words[..] {
                [Some(side), Some(id), Some(function)] => (side, id, function, false),
                [Some(side), Some(id), Some(function), Some("first-turn")] => (side, id, function, true),
                _ => {
                    self.err(
                        Diagnostic::error(
                            p.span,
                            "`phase` takes a side, a phase id and a function (and `first-turn` for a phase of turn 1 only)",
                            "not understood",
                        )
                        .with_help(
                            "write `phase monsters monsters-turn monsters_turn` (side, phase id, function), or \
                             `phase player deployment deploy_army first-turn`",
                        ),
                    );
                    continue;
                }
            };
            if !sides.iter().any(|s| s == side) {
                self.err(
                    Diagnostic::error(
                        p.values[0].span,
                        format!("`{side}` is not one of the game's sides"),
                        "unknown side",
                    )
                    .with_help(
                        did_you_mean(side, sides.iter().map(String::as_str))
                            .unwrap_or_else(|| format!("sides: {}", sides.join(", "))),
                    ),
                );
            }
            self.bound_function(function, p.values[2].span, 1, "fn NAME(game)", scripts, sources);
            phases.push(PhaseDef {
                side: side.to_string(),
                id: id.to_string(),
                function: function.to_string(),
                first_turn,
            });
        }
        if phases.is_empty() {
            self.err(
                Diagnostic::error(
                    item.id.span,
                    format!("game `{}` has no phases", item.id.text),
                    "no `phase`",
                )
                .with_help("add one `phase <side> <id> <function>` line per phase of the turn, in play order"),
            );
        } else if phases.iter().all(|p: &PhaseDef| p.first_turn) {
            self.err(
                Diagnostic::error(
                    item.id.span,
                    format!(
                        "game `{}` has only `first-turn` phases: nothing plays after turn 1",
                        item.id.text
                    ),
                    "no phase of every turn",
                )
                .with_help("`first-turn` marks a set-up step of turn 1; add the phases every turn plays"),
            );
        }
        let triggers = props
            .all("on")
            .filter_map(|p| self.trigger(p, &sides, scripts, sources))
            .collect();
        let mut options = IndexMap::new();
        for p in props.all("option") {
            if let Some(option) = self.proc_arg(p, "option") {
                options.insert(option.name.clone(), option);
            }
        }
        let mut commands = IndexMap::new();
        let mut shown = Vec::new();
        for p in props.all("show") {
            match (
                p.values.first().and_then(ast::Value::as_name),
                p.values.get(1).and_then(ast::Value::as_text),
            ) {
                (Some(var), Some(label)) if p.values.len() == 2 => shown.push((var.to_string(), label.to_string())),
                _ => self.err(
                    Diagnostic::error(p.span, "`show` takes a game variable and its label", "not understood")
                        .with_help(
                            "write `show hand \"Cards in your hand\"`: `status` shows the variable with that label",
                        ),
                ),
            }
        }
        // `draw VAR "label"`: a variable the page draws on its board (the squares and board
        // sections it names) and `status` leaves to the package's own `status` function.
        let mut drawn = Vec::new();
        for p in props.all("draw") {
            match (
                p.values.first().and_then(ast::Value::as_name),
                p.values.get(1).and_then(ast::Value::as_text),
            ) {
                (Some(var), Some(label)) if p.values.len() == 2 => drawn.push((var.to_string(), label.to_string())),
                _ => self.err(
                    Diagnostic::error(p.span, "`draw` takes a game variable and its label", "not understood")
                        .with_help(
                            "write `draw lurking \"Blips lurking\"`: the page draws the squares and sections the variable names",
                        ),
                ),
            }
        }
        // `entry FUNCTION "what it plays, its arguments, the state it reads"`: a function a
        // scenario or a variant may call on its own (`servitor tables PKG --entry-points`).
        let mut entries = Vec::new();
        for p in props.all("entry") {
            match (
                p.values.first().and_then(ast::Value::as_name),
                p.values.get(1).and_then(ast::Value::as_text),
            ) {
                (Some(function), Some(text)) if p.values.len() == 2 => {
                    let known = scripts.iter().any(|s| s.functions.iter().any(|(n, _)| n == function));
                    if !known && !self.scripts_failed {
                        let names = scripts.iter().flat_map(|s| s.functions.iter().map(|(n, _)| n.as_str()));
                        let help = did_you_mean(function, names).unwrap_or_else(|| {
                            format!("define `fn {function}(game) {{ … }}` in one of the package's scripts")
                        });
                        self.err(
                            Diagnostic::error(
                                p.values[0].span,
                                format!("no script function `{function}`"),
                                "not found",
                            )
                            .with_help(help),
                        );
                    }
                    entries.push(crate::ruleset::EntryDef {
                        function: function.to_string(),
                        text: text.to_string(),
                    });
                }
                _ => self.err(
                    Diagnostic::error(
                        p.span,
                        "`entry` takes a script function and what it does",
                        "not understood",
                    )
                    .with_help(
                        "write `entry invade \"invade(game, n): n reinforcements arrive; reads the pool `blips`\"`",
                    ),
                ),
            }
        }
        for p in props.all("command") {
            let words: Vec<Option<&str>> = p.values.iter().take(2).map(ast::Value::as_name).collect();
            let help = p.values.get(2).and_then(ast::Value::as_text).map(str::to_string);
            // `any-piece` last: the first piece the command names may be another side's (a
            // foe it reports wounds on); otherwise it must be the player's own.
            let any_piece = p.values.len() == 4 && p.values[3].as_name() == Some("any-piece");
            match (words.as_slice(), p.values.len()) {
                ([Some(name), Some(function)], 2 | 3) | ([Some(name), Some(function)], 4) if p.values.len() < 4 || any_piece => {
                    if RESERVED_COMMANDS.contains(name) {
                        self.err(
                            Diagnostic::error(
                                p.values[0].span,
                                format!("`{name}` is a command of servitor play itself"),
                                "taken",
                            )
                            .with_help(format!(
                                "choose another word; these are taken: {}",
                                RESERVED_COMMANDS.join(", ")
                            )),
                        );
                        continue;
                    }
                    self.bound_function(function, p.values[1].span, 2, "fn NAME(game, words)", scripts, sources);
                    commands.insert(
                        name.to_string(),
                        CommandDef {
                            function: function.to_string(),
                            help,
                            any_piece,
                        },
                    );
                }
                _ => self.err(
                    Diagnostic::error(
                        p.span,
                        "`command` takes a word, a function, a help text and, last, `any-piece` if it may name another side's piece first",
                        "not understood",
                    )
                    .with_help("write `command fire player_fire \"fire <piece> <target>: shoot\"`"),
                ),
            }
        }
        let max_turns = match props.get("max-turns") {
            None => DEFAULT_MAX_TURNS,
            Some(p) => match self.one(p, "a number").and_then(ast::Value::as_number) {
                Some(n @ 1..=10_000) => n as u32,
                _ => {
                    self.err(
                        Diagnostic::error(
                            p.span,
                            "`max-turns` takes a whole number from 1 to 10000",
                            "not a turn count",
                        )
                        .with_help("write `max-turns 40`"),
                    );
                    DEFAULT_MAX_TURNS
                }
            },
        };
        let doors = DoorRules {
            open_on_step: self.choice(&props, "doors", &["open-on-step", "by-action"]) != Some(1),
            straight: self.choice(&props, "doorways", &["any", "straight"]) == Some(1),
            from_front: self.choice(&props, "door-opener", &["any", "front"]) == Some(1),
        };
        let reveal_renames = self.choice(&props, "reveal-ids", &["kept", "by-kind"]) == Some(1);
        let action_points = props.get("action-points").and_then(|p| self.name(p)).map(|(n, _)| n);
        let mut reserves = IndexMap::new();
        for p in props.all("reserve") {
            let words: Vec<Option<&str>> = p.values.iter().map(ast::Value::as_name).collect();
            match words[..] {
                [Some(side), Some(pool)] if sides.iter().any(|s| s == side) => {
                    reserves.insert(side.to_string(), pool.to_string());
                }
                _ => self.err(
                    Diagnostic::error(p.span, "`reserve` takes one of the game's sides and a pool id", "not understood")
                        .with_help(format!(
                            "write `reserve {} command-points`: that side's pieces draw on the pool when their own action points run short",
                            sides.first().map_or("heroes", String::as_str)
                        )),
                ),
            }
        }
        let mut watches = IndexMap::new();
        for p in props.all("watch") {
            let mode = p.values.first().and_then(ast::Value::as_name);
            let function = p.values.get(1).and_then(ast::Value::as_name);
            let arc = p.values.get(2).and_then(ast::Value::as_name);
            let range = p.values.get(3).and_then(ast::Value::as_number);
            match (mode, function, range, arc, p.values.len()) {
                (Some(mode), Some(function), Some(range @ 0..=1000), Some(arc @ ("front" | "all")), 4) => {
                    self.bound_function(function, p.values[1].span, 2, "fn NAME(game, event)", scripts, sources);
                    watches.insert(
                        mode.to_string(),
                        WatchDef {
                            function: function.to_string(),
                            range: range as u32,
                            front: arc == "front",
                        },
                    );
                }
                _ => self.err(
                    Diagnostic::error(
                        p.span,
                        "`watch` takes a mode, a function, an arc (`front` or `all`) and a range in squares (0 to 1000)",
                        "not understood",
                    )
                    .with_help("write `watch sentry take_shot front 12`"),
                ),
            }
        }
        let sight = crate::ruleset::SightRule {
            front_arc: self.choice(&props, "sight", &["all", "front-arc"]) == Some(1),
            los: crate::board::los::LosRule {
                diagonals: self.choice(&props, "sight-diagonals", &["blind", "see"]) == Some(1),
                doors_block: self.choice(&props, "sight-doors", &["block", "pass"]) != Some(1),
            },
            models: match self.choice(&props, "sight-models", &["shots", "always", "never"]) {
                Some(1) => crate::ruleset::ModelsBlock::Always,
                Some(2) => crate::ruleset::ModelsBlock::Never,
                _ => crate::ruleset::ModelsBlock::Shots,
            },
            tokens_pass: self.choice(&props, "sight-tokens", &["block", "pass"]) == Some(1),
        };
        let friends_block = self.choice(&props, "friends", &["pass", "block"]) == Some(1);
        let needs_marks = self.needs_marks(&props);
        Some(GameDef {
            id: item.id.text.clone(),
            label,
            sides,
            stats,
            setup,
            status,
            phases,
            triggers,
            options,
            commands,
            max_turns,
            doors,
            reveal_renames,
            action_points,
            reserves,
            watches,
            sight,
            friends_block,
            needs_marks,
            shown,
            drawn,
            entries,
            source,
            text,
            span: item.span,
        })
    }

    /// `needs-marks [entry, airlock]`: the marks every mission the game plays must put on at
    /// least one square (its scripts look for them), each with where it was written.
    fn needs_marks(&mut self, props: &Props) -> Vec<(String, Span)> {
        let Some(p) = props.get("needs-marks") else {
            return Vec::new();
        };
        let Some(value) = self.one(p, "[mark, mark]") else {
            return Vec::new();
        };
        let names: Option<Vec<(String, Span)>> = match &value.kind {
            ast::ValueKind::List(items) => items
                .iter()
                .map(|v| v.as_name().map(|n| (n.to_string(), v.span)))
                .collect(),
            _ => None,
        };
        names.unwrap_or_else(|| {
            self.err(
                Diagnostic::error(value.span, "`needs-marks` takes a list of mark names", value.describe()).with_help(
                    "write `needs-marks [entry]`: the marks (a board legend's names) every mission must have",
                ),
            );
            Vec::new()
        })
    }

    /// Which of `choices` a one-word property names (its index); `None` when absent or wrong
    /// (reported).
    fn choice(&mut self, props: &Props, key: &str, choices: &[&str]) -> Option<usize> {
        let p = props.get(key)?;
        let word = self.one(p, "a word").and_then(ast::Value::as_name);
        match word.and_then(|w| choices.iter().position(|c| *c == w)) {
            Some(i) => Some(i),
            None => {
                let help = word
                    .and_then(|w| did_you_mean(w, choices.iter().copied()))
                    .unwrap_or_else(|| format!("write `{key} {}`", choices.join("` or `")));
                self.err(
                    Diagnostic::error(
                        p.span,
                        format!("`{key}` takes one of: {}", choices.join(", ")),
                        "not understood",
                    )
                    .with_help(help),
                );
                None
            }
        }
    }

    fn game_sides(&mut self, item: &MergedItem, props: &Props) -> Option<Vec<String>> {
        let Some(p) = props.get("sides") else {
            self.err(
                Diagnostic::error(
                    item.id.span,
                    format!("game `{}` names no sides", item.id.text),
                    "no `sides`",
                )
                .with_help("add `sides [first, second]`: the sides in turn order"),
            );
            return None;
        };
        let value = self.one(p, "[side, side]")?;
        let names: Option<Vec<String>> = match &value.kind {
            ast::ValueKind::List(items) => items.iter().map(|v| v.as_name().map(str::to_string)).collect(),
            _ => None,
        };
        match names {
            Some(names) if !names.is_empty() => Some(names),
            _ => {
                self.err(
                    Diagnostic::error(value.span, "`sides` takes a list of side names", value.describe())
                        .with_help("write `sides [heroes, monsters]`, in turn order"),
                );
                None
            }
        }
    }

    fn trigger(
        &mut self,
        p: &ast::Property,
        sides: &[String],
        scripts: &[Script],
        sources: &SourceMap,
    ) -> Option<TriggerDef> {
        let words: Vec<Option<&str>> = p.values.iter().map(ast::Value::as_name).collect();
        let not_understood = |at: Span| {
            Diagnostic::error(
                at,
                "`on` takes an event, a function, an optional side, then any of `after-activation`, `beside SIDE` and `while VARIABLE`",
                "not understood",
            )
            .with_help(
                "write `on removed piece_removed`, `on entered-section explore heroes after-activation` or `on moved react aliens beside heroes`",
            )
        };
        let (event, function) = match words[..] {
            [Some(e), Some(f), ..] => (e, f),
            _ => {
                self.err(not_understood(p.span));
                return None;
            }
        };
        const QUALIFIERS: [&str; 3] = ["after-activation", "beside", "while"];
        let mut k = 2;
        let side = match words.get(2) {
            Some(Some(w)) if !QUALIFIERS.contains(w) => {
                k = 3;
                Some(*w)
            }
            _ => None,
        };
        let (mut timing, mut beside, mut while_var) = (TriggerTiming::AfterMove, None, None);
        let mut after_at = p.span;
        while k < words.len() {
            let at = p.values[k].span;
            match (words[k], words.get(k + 1).copied().flatten()) {
                (Some("after-activation"), _) => {
                    timing = TriggerTiming::AfterActivation;
                    after_at = at;
                    k += 1;
                }
                (Some("beside"), Some(other)) => {
                    beside = Some((other.to_string(), p.values[k + 1].span));
                    k += 2;
                }
                (Some("while"), Some(var)) => {
                    while_var = Some(var.to_string());
                    k += 2;
                }
                _ => {
                    self.err(not_understood(at));
                    return None;
                }
            }
        }
        let Some(&(_, kind)) = TriggerEvent::ALL.iter().find(|(name, _)| *name == event) else {
            let names = TriggerEvent::ALL.map(|(n, _)| n);
            self.err(
                Diagnostic::error(p.values[0].span, format!("no game event `{event}`"), "unknown event").with_help(
                    did_you_mean(event, names.iter().copied())
                        .unwrap_or_else(|| format!("events: {}", names.join(", "))),
                ),
            );
            return None;
        };
        if let Some(side) = side.filter(|s| !sides.iter().any(|x| x == s)) {
            self.err(
                Diagnostic::error(
                    p.values[2].span,
                    format!("`{side}` is not one of the game's sides"),
                    "unknown side",
                )
                .with_help(format!("sides: {}", sides.join(", "))),
            );
        }
        if let Some((other, at)) = beside.as_ref().filter(|(o, _)| !sides.iter().any(|x| x == o)) {
            self.err(
                Diagnostic::error(*at, format!("`{other}` is not one of the game's sides"), "unknown side").with_help(
                    format!(
                        "`beside` names the side whose pieces the mover ends beside; sides: {}",
                        sides.join(", ")
                    ),
                ),
            );
        }
        if let Some((_, at)) = &beside
            && kind != TriggerEvent::Moved
        {
            self.err(
                Diagnostic::error(
                    *at,
                    format!("`beside` is for `moved`, not `{event}`"),
                    "not for this event",
                )
                .with_help("only a step has a piece that ends beside another; remove `beside SIDE`"),
            );
        }
        self.bound_function(function, p.values[1].span, 2, "fn NAME(game, event)", scripts, sources);
        if timing == TriggerTiming::AfterActivation && kind != TriggerEvent::EnteredSection {
            self.err(
                Diagnostic::error(
                    after_at,
                    format!("`after-activation` is for `entered-section`, not `{event}`"),
                    "not for this event",
                )
                .with_help("only a section entered can wait for the piece to finish acting; remove `after-activation`"),
            );
        }
        Some(TriggerDef {
            event: kind,
            function: function.to_string(),
            side: side.map(str::to_string),
            timing,
            beside: beside.map(|(side, _)| side),
            while_var,
        })
    }

    /// Checks that a script function `name` exists with `arity` parameters.
    pub(super) fn bound_function(
        &mut self,
        name: &str,
        span: Span,
        arity: usize,
        shape: &str,
        scripts: &[Script],
        sources: &SourceMap,
    ) {
        let found = scripts
            .iter()
            .rev()
            .find_map(|s| s.functions.iter().find(|(n, _)| n == name).map(|(_, a)| (s.file, *a)));
        let shape = shape.replace("NAME", name);
        match found {
            Some((_, a)) if a == arity => {}
            Some((file, a)) => self.err(
                Diagnostic::error(
                    span,
                    format!(
                        "`{name}` in {} takes {a} parameters; here it needs {arity}",
                        sources.get(file).name
                    ),
                    "wrong arity",
                )
                .with_help(format!("declare it as `{shape}`")),
            ),
            None if self.scripts_failed => {}
            None => {
                let names = scripts.iter().flat_map(|s| s.functions.iter().map(|(n, _)| n.as_str()));
                let help = did_you_mean(name, names)
                    .unwrap_or_else(|| format!("define `{shape} {{ … }}` in one of the package's scripts"));
                self.err(Diagnostic::error(span, format!("no script function `{name}`"), "not found").with_help(help));
            }
        }
    }
}
