//! What a game counts besides its pieces: variables, scores, collected tokens, pools (a
//! secret one's entries never named in the log), decks (each shuffled and drawn on a stream
//! of its own), sections entered, and the end. Kernel methods on [`Game`]: typed arguments,
//! validated before anything changes, logged and applied through [`Game::act`]. No Rhai: the
//! binding (`api/tallies.rs`) converts a script's values and maps the errors.

use super::Game;
use super::state::Action;
use crate::dice::Rng;
use crate::ruleset::TriggerEvent;
use indexmap::IndexMap;
use serde_json::Value as Json;

/// Pool counts must add up to a whole number (`take_random` draws from their total).
pub fn pool_total(entries: &IndexMap<String, i64>) -> Option<i64> {
    entries.values().try_fold(0i64, |total, &n| total.checked_add(n))
}

/// The article before a word in the log: "an owl", "a cat".
pub fn a_or_an(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// `1 card`, `3 cards`.
pub fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

impl Game {
    pub fn set_var(&mut self, name: &str, value: Json) {
        self.act(
            "var",
            format!("{name} = {}", crate::value::words_of_json(&value)),
            None,
            Action::SetVar {
                name: name.into(),
                value,
            },
        );
    }

    /// Section `section` counts as entered by every side (a rule says so).
    pub fn set_entered(&mut self, section: &str) -> Result<(), String> {
        if !self.view.grid.sections.iter().any(|s| s == section) {
            return Err(format!("no board section `{section}` in this mission"));
        }
        self.mark_entered(section);
        Ok(())
    }

    fn check_side(&self, side: &str) -> Result<(), String> {
        if self.def.sides.iter().any(|s| s == side) {
            Ok(())
        } else {
            Err(format!("`{side}` is not a side of this game"))
        }
    }

    pub fn score(&mut self, side: &str, points: i64, reason: &str) -> Result<(), String> {
        self.check_side(side)?;
        let Some(total) = self.state.scores.get(side).copied().unwrap_or(0).checked_add(points) else {
            return Err(format!("the score of {side} would pass {}", i64::MAX));
        };
        let verb = if points < 0 { "loses" } else { "scores" };
        self.act(
            "score",
            format!("{side} {verb} {} ({total} in all): {reason}", points.unsigned_abs()),
            None,
            Action::Score {
                side: side.into(),
                points,
            },
        );
        Ok(())
    }

    pub fn collect(&mut self, side: &str, token: &str) {
        self.act(
            "collect",
            format!("{side} collects {} {token} token", a_or_an(token)),
            None,
            Action::Collect {
                side: side.into(),
                token: token.into(),
            },
        );
    }

    // ----- pools --------------------------------------------------------------------------

    /// A new pool of counted entries; a `secret` one's entries never reach the player's log.
    pub fn new_pool(&mut self, id: &str, counts: IndexMap<String, i64>, secret: bool) -> Result<(), String> {
        if let Some((k, n)) = counts.iter().find(|(_, n)| **n < 0) {
            return Err(format!("pool `{id}`: `{k}` has {n}, below zero"));
        }
        let Some(total) = pool_total(&counts) else {
            return Err(format!("pool `{id}`: its counts add up to more than {}", i64::MAX));
        };
        let text = if secret {
            format!("pool {id}: {} face down", plural(total as usize, "token"))
        } else {
            let list: Vec<String> = counts.iter().map(|(k, v)| format!("{k} {v}")).collect();
            format!(
                "pool {id}: {}",
                if list.is_empty() {
                    "none".into()
                } else {
                    list.join(", ")
                }
            )
        };
        self.act(
            "pool",
            text,
            None,
            Action::NewPool {
                id: id.into(),
                entries: counts,
                secret,
            },
        );
        Ok(())
    }

    pub fn pool(&self, id: &str) -> Result<&IndexMap<String, i64>, String> {
        self.state
            .pools
            .get(id)
            .ok_or_else(|| format!("no game pool `{id}`: make it with new_pool"))
    }

    /// What the log may say of `n` `entry` of pool `id`: a secret pool's entries go unnamed.
    fn pool_entry(&self, id: &str, entry: &str, n: i64) -> String {
        if self.state.secret_pools.contains(id) {
            plural(n.unsigned_abs() as usize, "token")
        } else {
            format!("{n} {entry}")
        }
    }

    /// Takes up to `n` of `entry` from pool `id`: how many it took.
    pub fn take(&mut self, id: &str, entry: &str, n: i64) -> Result<i64, String> {
        let p = self.pool(id)?;
        let Some(&have) = p.get(entry) else {
            let hint = crate::diagnostic::did_you_mean(entry, p.keys().map(String::as_str))
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            return Err(format!("pool `{id}` has no `{entry}`{hint}"));
        };
        if n < 0 {
            return Err(format!("take {n}: give 0 or more"));
        }
        let taken = n.min(have);
        // A secret pool's log counts the whole pool, never one of its names.
        let left = if self.state.secret_pools.contains(id) {
            pool_total(p).unwrap_or(have) - taken
        } else {
            have - taken
        };
        if taken > 0 {
            self.act(
                "take",
                format!("{} taken from {id} ({left} left)", self.pool_entry(id, entry, taken)),
                None,
                Action::Take {
                    pool: id.into(),
                    entry: entry.into(),
                    n: taken,
                },
            );
        }
        Ok(taken)
    }

    /// Puts `n` of `entry` back into pool `id`.
    pub fn give(&mut self, id: &str, entry: &str, n: i64) -> Result<(), String> {
        let p = self.pool(id)?;
        if n < 0 {
            return Err(format!("give {n}: give 0 or more (take removes)"));
        }
        let have = p.get(entry).copied().unwrap_or(0);
        if have.checked_add(n).is_none() || pool_total(p).and_then(|t| t.checked_add(n)).is_none() {
            return Err(format!("pool `{id}` cannot hold more `{entry}`"));
        }
        let now = if self.state.secret_pools.contains(id) {
            pool_total(p).unwrap_or(have) + n
        } else {
            have + n
        };
        if n > 0 {
            self.act(
                "give",
                format!("{} returned to {id} ({now} now)", self.pool_entry(id, entry, n)),
                None,
                Action::Take {
                    pool: id.into(),
                    entry: entry.into(),
                    n: -n,
                },
            );
        }
        Ok(())
    }

    /// One entry drawn at random from pool `id`, on the stream `pool-<id>`; `None` when it
    /// is empty. `run` holds the stream in use.
    pub fn take_random(&mut self, rng: &mut Rng, id: &str) -> Result<Option<String>, String> {
        let p = self.pool(id)?;
        let total = pool_total(p).ok_or_else(|| format!("pool `{id}` holds more than {} in all", i64::MAX))?;
        if total <= 0 {
            return Ok(None);
        }
        let previous = self.enter_stream(rng, &format!("pool-{id}"));
        let mut pick = rng.below(total as u64) as i64;
        let p = &self.state.pools[id];
        let entry = p
            .iter()
            .find(|(_, n)| {
                pick = pick.saturating_sub(**n);
                pick < 0
            })
            .map(|(k, _)| k.clone());
        let Some(entry) = entry else {
            self.leave_stream(rng, previous);
            return Err(format!("pool `{id}` has a count below zero"));
        };
        // A scenario may force the entry drawn (by name), as any random draw.
        let names: Vec<String> = p.iter().filter(|(_, n)| **n > 0).map(|(k, _)| k.clone()).collect();
        let rolled = names.iter().position(|k| *k == entry).unwrap_or_default();
        let at = rng.settle_named(crate::dice::rng::Kind::Draw, &names, rolled, &|| {
            format!("a token drawn from {id}")
        });
        let entry = names.get(at).cloned().unwrap_or(entry);
        self.leave_stream(rng, previous);
        let p = &self.state.pools[id];
        let left = p[&entry] - 1;
        self.act(
            "draw",
            if self.state.secret_pools.contains(id) {
                format!("a token drawn at random from {id} ({} left)", total - 1)
            } else {
                format!("one {entry} drawn at random from {id} ({left} left)")
            },
            None,
            Action::Take {
                pool: id.into(),
                entry: entry.clone(),
                n: 1,
            },
        );
        Ok(Some(entry))
    }

    // ----- decks --------------------------------------------------------------------------

    /// A new deck of `cards`, shuffled on the stream `deck-<id>`.
    pub fn new_deck(&mut self, rng: &mut Rng, id: &str, mut cards: Vec<String>) {
        let previous = self.enter_stream(rng, &format!("deck-{id}"));
        let n = cards.len();
        rng.shuffle_as(crate::dice::rng::Kind::Shuffle, &mut cards, &|| {
            format!("deck {id}: {n} cards shuffled")
        });
        self.leave_stream(rng, previous);
        self.act(
            "deck",
            format!("deck {id}: {} shuffled", plural(cards.len(), "card")),
            None,
            Action::NewDeck { id: id.into(), cards },
        );
    }

    pub fn cards_left(&self, id: &str) -> Result<usize, String> {
        Ok(self.deck(id)?.len())
    }

    fn deck(&self, id: &str) -> Result<&Vec<String>, String> {
        self.state
            .decks
            .get(id)
            .ok_or_else(|| format!("no deck `{id}`: make it with new_deck"))
    }

    /// The top card of deck `id`, or the card `wanted` wherever it lies; `None` when the
    /// deck has no such card (the script decides). The last card queues `deck-empty`.
    pub fn draw(&mut self, id: &str, wanted: Option<&str>) -> Result<Option<String>, String> {
        let d = self.deck(id)?;
        let card = match wanted {
            None => d.last().cloned(),
            Some(w) => d.iter().rfind(|c| *c == w).cloned(),
        };
        let Some(card) = card else {
            return Ok(None);
        };
        let left = d.len() - 1;
        let text = match wanted {
            None => format!("{card} drawn from {id} ({left} left)"),
            Some(_) => format!("{card}, the card named, taken from {id} ({left} left)"),
        };
        self.act(
            "draw",
            text,
            None,
            Action::Draw {
                deck: id.into(),
                card: wanted.map(str::to_string),
            },
        );
        if left == 0 {
            let side = self.state.side.clone();
            let args = super::TriggerArgs::default().text("deck", id);
            self.queue(TriggerEvent::DeckEmpty, &side, args);
        }
        Ok(Some(card))
    }

    // ----- the end --------------------------------------------------------------------------

    /// The game ends; `winner` `""` for none.
    pub fn end(&mut self, winner: &str, reason: &str) -> Result<(), String> {
        if self.state.over.is_some() {
            return Err("the game is already over".into());
        }
        let winner = if winner.is_empty() {
            None
        } else if self.def.sides.iter().any(|s| s == winner) {
            Some(winner.to_string())
        } else {
            return Err(format!(
                "`{winner}` is not a side of this game (sides: {})",
                self.def.sides.join(", ")
            ));
        };
        let text = match &winner {
            Some(w) => format!("the game ends: {w} wins ({reason})"),
            None => format!("the game ends with no winner ({reason})"),
        };
        self.act(
            "end",
            text,
            None,
            Action::End {
                winner,
                reason: reason.into(),
            },
        );
        Ok(())
    }
}
