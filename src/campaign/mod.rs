//! Campaigns: the missions a package's `campaign` item names, played in order, with a plain
//! map (the campaign's *state*) carried from one mission to the next.
//!
//! Before each mission the item's `before(state, mission)` hook gives that mission's game
//! options (checked as `--set` is; the player's own `--set` options apply to every mission and
//! the hook's win); after it, `after(state, result)` reads the finished game's result and
//! gives the new state; once the last mission is played, `end(state)` gives one line saying
//! how the campaign ended. Each hook runs in the sandbox a procedure runs in, on its own
//! stream derived from the campaign's seed, and mission k plays with `sim::game_seed(seed,
//! k)`: the same seed plays the same campaign.
//!
//! A [`Campaign`] is also the campaign file `play --campaign FILE` keeps: versioned JSON,
//! with the mission at the table as a play session (`game::session`), read back through
//! [`Campaign::read`], which refuses anything servitor did not write in this format
//! ([`CAMPAIGN_FORMAT`], versioned).
//!
//! - [`Campaign::check`] refuses a file that no longer fits the package (its missions, its
//!   side, the mission at the table); [`Campaign::check_played`] re-derives what the file
//!   says was decided: seeds from the campaign's seed, results a game can end with, and the
//!   options, notes, state and end the package's hooks give when run again over the results
//!   from the empty state.
//! - [`Campaign::prepare`] runs `before` (its options over the player's),
//!   [`Campaign::finish`] runs `after` on a game's summary (and `end` after the last),
//!   [`Campaign::play_out`] plays the rest headless with a `Host`, and
//!   [`Campaign::session`] is the mission at the table, for `play --campaign` and the page.
//! - Hooks run through `script::call_function` (a procedure's sandbox, any JSON arguments).
//!   This module uses `game`, `script` and `sim::game_seed`, and nothing of the front ends.

use crate::game::Host;
use crate::game::host::{GameError, Setup, Summary};
use crate::game::session::Session;
use crate::ruleset::{CampaignDef, Ruleset};
use crate::script::Step;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::sync::Arc;

pub const CAMPAIGN_FORMAT: &str = "servitor-campaign";
pub const CAMPAIGN_VERSION: u32 = 1;

/// One mission of a campaign, played.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Played {
    pub mission: String,
    /// Its place in the campaign, from 1.
    pub number: usize,
    pub seed: u64,
    /// The options it was played with (`name=value`, as `--set` takes them).
    pub options: Vec<(String, String)>,
    pub result: Summary,
    /// What the hooks said before and after it (their steps, as text).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// A campaign between two missions (or with one at the table): everything needed to go on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Campaign {
    pub format: String,
    pub version: u32,
    pub package: String,
    /// Where the package was found (as a play session keeps it), so that a campaign file
    /// needs no package argument; absent for a bundled package.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_at: Option<String>,
    pub campaign: String,
    pub seed: u64,
    /// The player's own options, for every mission.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<(String, String)>,
    /// The carried state: a map the hooks read and write.
    pub state: Json,
    pub played: Vec<Played>,
    /// How the campaign ended (the `end` hook's line), once its last mission is played.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
    /// The side the player plays at the table (`play --campaign`), and whether each new
    /// mission asks for the dice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<String>,
    #[serde(default)]
    pub manual_dice: bool,
    /// The mission at the table (`play --campaign`): its session, and what the `before`
    /// hook said for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<Session>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub before_notes: Vec<String>,
}

/// Why a campaign could not go on.
#[derive(Debug)]
pub enum CampaignError {
    /// The command line or the campaign file asks for something wrong.
    Usage(String),
    /// A hook failed: a diagnostic at its script line.
    Hook(Box<crate::script::Failure>),
    /// A mission's game failed.
    Game(GameError),
}

impl From<GameError> for CampaignError {
    fn from(e: GameError) -> Self {
        CampaignError::Game(e)
    }
}

/// The campaign item `id` names, or the package's only one.
pub fn def<'r>(ruleset: &'r Ruleset, id: Option<&str>) -> Result<&'r CampaignDef, String> {
    let all = &ruleset.campaigns;
    match id {
        Some(id) => all.get(id).ok_or_else(|| {
            let hint = crate::diagnostic::did_you_mean(id, all.keys().map(String::as_str))
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            format!("no campaign `{id}` in {}{hint}", ruleset.name())
        }),
        None => match all.len() {
            1 => Ok(&all[0]),
            0 => Err(format!(
                "{} declares no `campaign`: its missions are played one at a time",
                ruleset.name()
            )),
            _ => Err(format!(
                "{} declares several campaigns: name one (`sim`/`game --campaign ID`, `play --campaign-id ID`): {}",
                ruleset.name(),
                all.keys().cloned().collect::<Vec<_>>().join(", ")
            )),
        },
    }
}

impl Campaign {
    /// The play session of the mission `setup` starts (`prepare`'s), played as `side`, with
    /// the campaign's dice: what `play --campaign` and the page play between `next`s.
    pub fn session(&self, setup: &Setup, side: String) -> Session {
        Session {
            format: crate::game::session::SESSION_FORMAT.into(),
            version: crate::game::session::SESSION_VERSION,
            package: self.package.clone(),
            game: setup.game.clone(),
            mission: setup.mission.clone(),
            seed: setup.seed,
            options: setup.options.clone(),
            side,
            manual_dice: self.manual_dice,
            found_at: None,
            start_dice: Vec::new(),
            start_choices: Vec::new(),
            entries: Vec::new(),
            redo: Vec::new(),
        }
    }

    /// A new campaign of `id` (or the package's only one), nothing played yet.
    pub fn new(
        ruleset: &Ruleset,
        id: Option<&str>,
        seed: u64,
        options: Vec<(String, String)>,
    ) -> Result<Campaign, String> {
        let def = def(ruleset, id)?;
        Ok(Campaign {
            format: CAMPAIGN_FORMAT.into(),
            version: CAMPAIGN_VERSION,
            package: ruleset.name().to_string(),
            found_at: None,
            campaign: def.id.clone(),
            seed,
            options,
            state: Json::Object(Default::default()),
            played: Vec::new(),
            ended: None,
            side: None,
            manual_dice: false,
            session: None,
            before_notes: Vec::new(),
        })
    }

    /// Reads a campaign file's text: refused, saying why, unless it is a campaign servitor
    /// wrote in this format (a play save, a game save or any other file is not one).
    pub fn read(text: &str) -> Result<Campaign, String> {
        let json: Json = serde_json::from_str(text).map_err(|e| format!("it is not a servitor campaign file: {e}"))?;
        match json.get("format").and_then(Json::as_str) {
            Some(CAMPAIGN_FORMAT) => {}
            Some(other) => {
                return Err(format!(
                    "it is a `{other}` file, not a servitor campaign (`{CAMPAIGN_FORMAT}`)"
                ));
            }
            None => {
                return Err(format!(
                    "it is not a servitor campaign file (no `format: {CAMPAIGN_FORMAT}`)"
                ));
            }
        }
        let version = json.get("version").and_then(Json::as_u64);
        if version != Some(u64::from(CAMPAIGN_VERSION)) {
            return Err(format!(
                "it is a campaign file of version {}; this servitor reads version {CAMPAIGN_VERSION}",
                version.map_or("(none)".to_string(), |v| v.to_string())
            ));
        }
        // From the text, not from `json`: a map there has lost its order (scores by side).
        serde_json::from_str(text).map_err(|e| format!("it is a damaged servitor campaign file: {e}"))
    }

    /// Checks a campaign read from a file against the package loaded for it: its campaign
    /// item, the missions it says were played (in the item's order), its state a map.
    pub fn check(&self, ruleset: &Ruleset) -> Result<(), String> {
        if self.package != ruleset.name() {
            return Err(format!(
                "the campaign is one of `{}`, not of `{}`",
                self.package,
                ruleset.name()
            ));
        }
        let def = def(ruleset, Some(&self.campaign))?;
        if self.played.len() > def.missions.len() {
            return Err(format!(
                "it says {} missions were played; campaign `{}` has {}",
                self.played.len(),
                def.id,
                def.missions.len()
            ));
        }
        for (k, p) in self.played.iter().enumerate() {
            if p.mission != def.missions[k] || p.number != k + 1 {
                return Err(format!(
                    "mission {} of the file is `{}`; campaign `{}` plays `{}` there",
                    k + 1,
                    p.mission,
                    def.id,
                    def.missions[k]
                ));
            }
        }
        if !self.state.is_object() {
            return Err("its state is not a map".into());
        }
        let done = self.played.len() == def.missions.len();
        if self.ended.is_some() != done {
            return Err("it says the campaign ended, but not after its last mission".into());
        }
        if let Some(session) = &self.session {
            if done {
                return Err("it has a mission at the table after the last one".into());
            }
            session.check(ruleset.name())?;
            if Some(&session.side) != self.side.as_ref() {
                return Err(format!(
                    "the mission at the table plays side `{}`; the campaign's player plays `{}`",
                    session.side,
                    self.side.as_deref().unwrap_or("(none)")
                ));
            }
            if session.game != def.game {
                return Err("the mission at the table is of another game than the campaign's".into());
            }
            let due = self.next_setup_parts(def);
            if session.mission != due.0 || session.seed != due.1 {
                return Err(format!(
                    "the mission at the table is `{}` (seed {}); the campaign's next is `{}` (seed {})",
                    session.mission, session.seed, due.0, due.1
                ));
            }
        }
        Ok(())
    }

    /// Checks what the file says was decided against what decides it: each mission's seed
    /// (the campaign's seed gives it), its result (one the game could end with: a side or
    /// `none`, a score for each side, a turn within the game's limit), its options and the
    /// hooks' notes (what the `before` hook gives), the state and the end (what the package's
    /// own hooks make of the results, from the empty state), and the options of the mission at
    /// the table. The first thing that differs refuses the file, in one line.
    pub fn check_played(&self, ruleset: &Arc<Ruleset>) -> Result<(), String> {
        let def = self.def(ruleset)?;
        let game = match &def.game {
            Some(id) => ruleset.games.get(id),
            None => ruleset.games.first().map(|(_, g)| g),
        }
        .ok_or_else(|| "the campaign's game is not in the package".to_string())?;
        let hook = |e: CampaignError| match e {
            CampaignError::Hook(f) => format!(
                "the package's hooks cannot replay it: {}",
                crate::escape::one_line(&f.diagnostic.message)
            ),
            CampaignError::Usage(m) => format!("the package's hooks cannot replay it: {m}"),
            CampaignError::Game(GameError::Script { diagnostic, .. }) => format!(
                "the package's hooks cannot replay it: {}",
                crate::escape::one_line(&diagnostic.message)
            ),
            CampaignError::Game(
                GameError::Usage(m) | GameError::Save(m) | GameError::Refused(m) | GameError::Scenario(m),
            ) => format!("the package's hooks cannot replay it: {m}"),
        };
        let mut again = Campaign {
            state: Json::Object(Default::default()),
            played: Vec::new(),
            ended: None,
            session: None,
            before_notes: Vec::new(),
            ..self.clone()
        };
        for (k, p) in self.played.iter().enumerate() {
            let n = k + 1;
            let due = crate::sim::game_seed(self.seed, k as u64);
            if p.seed != due {
                return Err(format!(
                    "mission {n} says it was played with seed {}; the campaign's seed gives {due}",
                    p.seed
                ));
            }
            let r = &p.result;
            if r.winner != "none" && !game.sides.contains(&r.winner) {
                return Err(format!(
                    "mission {n}'s winner is `{}`, which is neither a side of the game ({}) nor `none`",
                    crate::escape::one_line(&r.winner),
                    game.sides.join(", ")
                ));
            }
            let (mut given, mut sides): (Vec<&String>, Vec<&String>) =
                (r.scores.keys().collect(), game.sides.iter().collect());
            given.sort();
            sides.sort();
            if given != sides {
                return Err(format!(
                    "mission {n}'s scores are for {}; the game's sides are {}",
                    crate::escape::one_line(&r.scores.keys().cloned().collect::<Vec<_>>().join(", ")),
                    game.sides.join(", ")
                ));
            }
            if r.turns > game.max_turns.saturating_add(1) {
                return Err(format!(
                    "mission {n} says it lasted {} turns; the game ends after {}",
                    r.turns, game.max_turns
                ));
            }
            let (setup, notes) = again.prepare(ruleset).map_err(hook)?;
            if p.options != setup.options {
                return Err(format!(
                    "mission {n} says it was played with options {}; the campaign gives {}",
                    options_words(&p.options),
                    options_words(&setup.options)
                ));
            }
            again.finish(ruleset, &setup, r.clone(), notes).map_err(hook)?;
            if again.played[k].notes != p.notes {
                return Err(format!(
                    "what the hooks said around mission {n} is not what the package's hooks say"
                ));
            }
        }
        if again.state != self.state {
            let key = match (&again.state, &self.state) {
                (Json::Object(a), Json::Object(b)) => a
                    .keys()
                    .chain(b.keys())
                    .find(|k| a.get(*k) != b.get(*k))
                    .map(|k| format!(" (`{}`)", crate::escape::one_line(k))),
                _ => None,
            };
            return Err(format!(
                "its state{} is not what the package's hooks make of the results of its missions",
                key.unwrap_or_default()
            ));
        }
        if again.ended != self.ended {
            return Err("how it says the campaign ended is not what the package's `end` hook says".into());
        }
        if let Some(session) = &self.session {
            let (setup, notes) = again.prepare(ruleset).map_err(hook)?;
            if session.options != setup.options {
                return Err(format!(
                    "the mission at the table is played with options {}; the campaign gives {}",
                    options_words(&session.options),
                    options_words(&setup.options)
                ));
            }
            if notes != self.before_notes {
                return Err("what the `before` hook said for the mission at the table is not what it says".into());
            }
        }
        Ok(())
    }

    fn next_setup_parts(&self, def: &CampaignDef) -> (String, u64) {
        let k = self.played.len();
        (
            def.missions.get(k).cloned().unwrap_or_default(),
            crate::sim::game_seed(self.seed, k as u64),
        )
    }

    /// Whether every mission has been played.
    pub fn done(&self, ruleset: &Ruleset) -> bool {
        def(ruleset, Some(&self.campaign)).map_or(true, |d| self.played.len() >= d.missions.len())
    }

    /// The campaign's item.
    pub fn def<'r>(&self, ruleset: &'r Ruleset) -> Result<&'r CampaignDef, String> {
        def(ruleset, Some(&self.campaign))
    }

    /// The next mission's setup: the `before` hook run on the state, its options over the
    /// player's. Also what the hook said.
    pub fn prepare(&self, ruleset: &Arc<Ruleset>) -> Result<(Setup, Vec<String>), CampaignError> {
        let def = self.def(ruleset).map_err(CampaignError::Usage)?;
        let k = self.played.len();
        let Some(mission) = def.missions.get(k) else {
            return Err(CampaignError::Usage(format!(
                "campaign `{}` is over: its {} missions are played",
                def.id,
                def.missions.len()
            )));
        };
        let mut options = self.options.clone();
        let mut notes = Vec::new();
        if let Some(before) = &def.before {
            let arg = serde_json::json!({ "id": mission, "number": k + 1 });
            let seed = crate::dice::rng::mix(self.seed, &format!("campaign-before-{}", k + 1));
            let (value, steps) = crate::script::call_function(
                ruleset,
                before,
                &[self.state.clone(), arg],
                seed,
                &format!("campaign hook `{before}` (before mission {})", k + 1),
            )
            .map_err(CampaignError::Hook)?;
            notes.extend(steps.iter().map(step_text));
            match value {
                Json::Object(map) => {
                    for (name, v) in map {
                        let text = crate::script::words_of_json(&v);
                        options.retain(|(n, _)| n != &name);
                        options.push((name, text));
                    }
                }
                Json::Null => {}
                other => {
                    return Err(CampaignError::Usage(format!(
                        "campaign hook `{before}` gave `{other}`: it gives a map of the mission's options (name: value)"
                    )));
                }
            }
        }
        let (mission, seed) = self.next_setup_parts(def);
        Ok((
            Setup {
                game: def.game.clone(),
                mission,
                seed,
                options,
            },
            notes,
        ))
    }

    /// The mission `setup` has been played to `result`: the `after` hook gives the new
    /// state, and after the last mission the `end` hook says how the campaign ended.
    pub fn finish(
        &mut self,
        ruleset: &Arc<Ruleset>,
        setup: &Setup,
        result: Summary,
        mut notes: Vec<String>,
    ) -> Result<(), CampaignError> {
        let def = self.def(ruleset).map_err(CampaignError::Usage)?.clone();
        let number = self.played.len() + 1;
        if let Some(after) = &def.after {
            let arg = serde_json::json!({
                "mission": setup.mission,
                "number": number,
                "winner": result.winner,
                "reason": result.reason,
                "scores": result.scores,
                "turns": result.turns,
            });
            let seed = crate::dice::rng::mix(self.seed, &format!("campaign-after-{number}"));
            let (value, steps) = crate::script::call_function(
                ruleset,
                after,
                &[self.state.clone(), arg],
                seed,
                &format!("campaign hook `{after}` (after mission {number})"),
            )
            .map_err(CampaignError::Hook)?;
            notes.extend(steps.iter().map(step_text));
            if !value.is_object() {
                return Err(CampaignError::Usage(format!(
                    "campaign hook `{after}` gave `{value}`: it gives the campaign's new state, a map"
                )));
            }
            // The campaign file holds the state and must read back.
            crate::game::state::check_depth(&value)
                .map_err(|m| CampaignError::Usage(format!("campaign hook `{after}`: {m}")))?;
            self.state = value;
        }
        self.played.push(Played {
            mission: setup.mission.clone(),
            number,
            seed: setup.seed,
            options: setup.options.clone(),
            result,
            notes,
        });
        self.session = None;
        self.before_notes.clear();
        if self.played.len() == def.missions.len() {
            self.ended = Some(match &def.end {
                Some(end) => {
                    let seed = crate::dice::rng::mix(self.seed, "campaign-end");
                    let (value, _) = crate::script::call_function(
                        ruleset,
                        end,
                        std::slice::from_ref(&self.state),
                        seed,
                        &format!("campaign hook `{end}`"),
                    )
                    .map_err(CampaignError::Hook)?;
                    crate::script::words_of_json(&value)
                }
                None => "every mission played".into(),
            });
        }
        Ok(())
    }

    /// Plays the rest of the campaign headless (servitor plays every side).
    pub fn play_out(&mut self, host: &mut Host) -> Result<(), CampaignError> {
        let ruleset = host.ruleset().clone();
        while !self.done(&ruleset) {
            let (setup, notes) = self.prepare(&ruleset)?;
            let record = host.play(&setup)?;
            self.finish(&ruleset, &setup, record.result, notes)?;
        }
        Ok(())
    }
}

/// Options as `--set` takes them, in one line: `[a=1, b=x]`.
fn options_words(options: &[(String, String)]) -> String {
    let words: Vec<String> = options.iter().map(|(k, v)| format!("{k}={v}")).collect();
    crate::escape::one_line(&format!("[{}]", words.join(", "))).into_owned()
}

/// A hook's step as one line of text.
pub fn step_text(step: &Step) -> String {
    match step {
        Step::Note { text, .. } | Step::Read { text, .. } => text.clone(),
        Step::Roll { roll, why, .. } => match why {
            Some(why) => format!("{why}: {roll}"),
            None => roll.to_string(),
        },
        Step::Table(t) => format!("{}: rolled", t.title),
    }
}
