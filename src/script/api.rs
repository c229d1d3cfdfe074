//! The functions scripts may call: dice, tables, package data, the seeded RNG and the log.
//! Each is a thin wrapper over the engine layers; each roll is logged as a step.
//!
//! `read_roll` and `read_record` read dice die by die through `dice::read`, as `odds` and
//! `roll` do, and log a `Step::Read` (a roll with every die and the readings in words).
//! `record_field(kind, id, field)` is one field of a record or `()`, read from the record's
//! shared view without a handle made for the script (what `if f in r { r[f] } else { () }`
//! would do).

use super::handles::RecordView;
use super::run::Step;
use super::sandbox::Budget;
use crate::diagnostic::did_you_mean;
use crate::dice::read::{self, Rolled};
use crate::dice::{DiceExpr, DiceRoll, Rng, Roll};
use crate::ruleset::{Record, Ruleset, Value};
use crate::tables::Availability;
use crate::tables::roll::{TableRoll, roll_series};
use rhai::{Array, Dynamic, Engine, EvalAltResult, INT, ImmutableString, Map};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

/// What a run changes: its RNG and its log.
pub struct RunState {
    pub rng: Rng,
    pub steps: Vec<Step>,
    /// Dice texts already parsed in this run.
    pub dice_cache: HashMap<String, DiceExpr>,
    /// Where the run's steps go before a die that may be asked of a player is rolled (a
    /// game's log, so that a die is asked after the rolls and notes it follows are shown);
    /// it gives back the steps it could not take.
    pub show: Option<ShowSteps>,
}

/// See [`RunState::show`].
pub type ShowSteps = Arc<dyn Fn(Vec<Step>) -> Vec<Step> + Send + Sync>;

/// Before a die a player may be asked for: the run's steps so far go where they are shown.
fn show_before_asking(state: &Shared) {
    let (show, steps) = {
        let mut st = lock(state);
        if st.steps.is_empty() || !st.rng.has_forced() {
            return;
        }
        let Some(show) = st.show.clone() else {
            return;
        };
        (show, std::mem::take(&mut st.steps))
    };
    let left = show(steps);
    if !left.is_empty() {
        let mut st = lock(state);
        let later = std::mem::replace(&mut st.steps, left);
        st.steps.extend(later);
    }
}

type Shared = Arc<Mutex<RunState>>;
type Res<T> = Result<T, Box<EvalAltResult>>;

fn fail<T>(message: String) -> Res<T> {
    Err(message.into())
}

fn lock(state: &Shared) -> std::sync::MutexGuard<'_, RunState> {
    // A panic while holding the lock cannot happen in these short sections; recover anyway.
    state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub fn register(engine: &mut Engine, ruleset: &Arc<Ruleset>, state: &Shared, budget: &Arc<Budget>) {
    let (r, s, b) = (ruleset.clone(), state.clone(), budget.clone());
    engine.register_fn("roll", move |text: &str| -> Res<INT> {
        Ok(roll(&r, &s, &b, text)?.total)
    });
    let (r, s, b) = (ruleset.clone(), state.clone(), budget.clone());
    engine.register_fn("roll", move |text: &str, about: Map| -> Res<INT> {
        let (piece, why) = piece_and_why("roll", &about)?;
        Ok(roll_about(&r, &s, &b, text, piece, why)?.total)
    });
    let (r, s, b) = (ruleset.clone(), state.clone(), budget.clone());
    engine.register_fn("roll_dice", move |text: &str| -> Res<Map> {
        Ok(dice_map(&roll(&r, &s, &b, text)?))
    });
    let (r, s, b) = (ruleset.clone(), state.clone(), budget.clone());
    engine.register_fn("roll_dice", move |text: &str, about: Map| -> Res<Map> {
        let (piece, why) = piece_and_why("roll_dice", &about)?;
        Ok(dice_map(&roll_about(&r, &s, &b, text, piece, why)?))
    });

    // Dice read die by die, through the same definition `odds` computes: a roll given as
    // text, or a record's rolls (the readings of one dice field see one roll of it).
    let (r, s, b) = (ruleset.clone(), state.clone(), budget.clone());
    // Rolls depend only on the package: each text is read once per engine.
    let parsed: Arc<Mutex<HashMap<String, Roll>>> = Arc::default();
    let p = parsed.clone();
    engine.register_fn("read_roll", move |text: &str| -> Res<Map> {
        read_roll(&r, &s, &b, &p, text, None, None)
    });
    // With whose roll it is and what it decides: said in the die prompt at the table and
    // after the roll in the log.
    let (r, s, b) = (ruleset.clone(), state.clone(), budget.clone());
    engine.register_fn("read_roll", move |text: &str, about: Map| -> Res<Map> {
        let (piece, why) = piece_and_why("read_roll", &about)?;
        read_roll(&r, &s, &b, &parsed, text, piece, why)
    });
    let (r, s, b) = (ruleset.clone(), state.clone(), budget.clone());
    engine.register_fn("read_record", move |kind: &str, id: &str| -> Res<Map> {
        read_record(&r, &s, &b, kind, id, (None, None))
    });
    let (r, s, b) = (ruleset.clone(), state.clone(), budget.clone());
    engine.register_fn("read_record", move |kind: &str, id: &str, about: Map| -> Res<Map> {
        let (piece, why) = piece_and_why("read_record", &about)?;
        read_record(&r, &s, &b, kind, id, (piece, why))
    });

    let (r, s, b) = (ruleset.clone(), state.clone(), budget.clone());
    engine.register_fn("roll_table", move |id: &str| -> Res<Map> {
        Ok(table_map(&roll_table(&r, &s, &b, id, 1, &Map::new())?.remove(0)))
    });
    let (r, s, b) = (ruleset.clone(), state.clone(), budget.clone());
    engine.register_fn("roll_table", move |id: &str, ctx: Map| -> Res<Map> {
        Ok(table_map(&roll_table(&r, &s, &b, id, 1, &ctx)?.remove(0)))
    });
    let (r, s, b) = (ruleset.clone(), state.clone(), budget.clone());
    engine.register_fn("roll_table_times", move |id: &str, n: INT, ctx: Map| -> Res<Array> {
        let rolls = roll_table(&r, &s, &b, id, n, &ctx)?;
        Ok(rolls.iter().map(|t| Dynamic::from_map(table_map(t))).collect())
    });
    let (r, s, b) = (ruleset.clone(), state.clone(), budget.clone());
    engine.register_fn("roll_table_times", move |id: &str, n: INT| -> Res<Array> {
        let rolls = roll_table(&r, &s, &b, id, n, &Map::new())?;
        Ok(rolls.iter().map(|t| Dynamic::from_map(table_map(t))).collect())
    });
    let r = ruleset.clone();
    engine.register_fn("table_results", move |id: &str| -> Res<Array> {
        let table = find_table(&r, id)?;
        Ok(table
            .results()
            .into_iter()
            .map(|r| Dynamic::from(r.to_string()))
            .collect())
    });

    // Records never change while a package is loaded; behaviours ask for the same few (a
    // unit's stats, a weapon's dice) every decision, so each record's view is built once and
    // shared: a script gets a read-only handle to it, not a copy.
    let views = Arc::new(RecordViews::default());
    let mut names: BTreeSet<&str> = super::handles::RECORD_FIELDS.into_iter().collect();
    for records in ruleset.records.values() {
        for record in records.values() {
            names.extend(record.fields.keys().map(String::as_str));
        }
    }
    for mission in ruleset.missions.values() {
        names.extend(mission.fields.keys().map(String::as_str));
    }
    super::handles::register_record_fields(engine, names);
    let (r, v) = (ruleset.clone(), views.clone());
    engine.register_fn("record", move |kind: &str, id: &str| -> Res<RecordView> {
        let records = find_kind(&r, kind)?;
        match records.get_full(id) {
            Some((i, _, record)) => Ok(v.get(kind, records.len(), i, record)),
            None => fail(format!(
                "no {kind} `{id}`{}",
                hint(did_you_mean(id, records.keys().map(String::as_str)))
            )),
        }
    });
    // Issue 39: one field of a record, `()` when it has none — what `let r = record(kind,
    // id); if field in r { r[field] } else { () }` says, in one call.
    let (r, v) = (ruleset.clone(), views.clone());
    engine.register_fn(
        "record_field",
        move |kind: &str, id: &str, field: &str| -> Res<Dynamic> {
            let records = find_kind(&r, kind)?;
            match records.get_full(id) {
                Some((i, _, record)) => Ok(v
                    .get(kind, records.len(), i, record)
                    .field(field)
                    .cloned()
                    .unwrap_or(Dynamic::UNIT)),
                None => fail(format!(
                    "no {kind} `{id}`{}",
                    hint(did_you_mean(id, records.keys().map(String::as_str)))
                )),
            }
        },
    );
    let (r, b, v) = (ruleset.clone(), budget.clone(), views);
    engine.register_fn("records", move |kind: &str| -> Res<Array> {
        let records = find_kind(&r, kind)?;
        b.charge(records.len() as u64)?;
        Ok(records
            .values()
            .enumerate()
            .map(|(i, rec)| Dynamic::from(v.get(kind, records.len(), i, rec)))
            .collect())
    });
    let r = ruleset.clone();
    engine.register_fn("constant", move |id: &str| -> Res<Dynamic> {
        match r.consts.get(id) {
            Some(c) => Ok(to_dynamic(&c.value)),
            None => fail(format!(
                "no const `{id}`{}",
                hint(did_you_mean(id, r.consts.keys().map(String::as_str)))
            )),
        }
    });
    let r = ruleset.clone();
    engine.register_fn("pool", move |id: &str| -> Res<Map> {
        match r.pools.get(id) {
            Some(p) => Ok(p
                .entries
                .iter()
                .map(|(k, v)| (k.as_str().into(), Dynamic::from_int(*v)))
                .collect()),
            None => fail(format!(
                "no pool or deck `{id}`{}",
                hint(did_you_mean(id, r.pools.keys().map(String::as_str)))
            )),
        }
    });

    let (s, b) = (state.clone(), budget.clone());
    engine.register_fn("random", move |lo: INT, hi: INT| -> Res<INT> {
        random(&s, &b, lo, hi, None)
    });
    let (s, b) = (state.clone(), budget.clone());
    engine.register_fn("random", move |lo: INT, hi: INT, why: &str| -> Res<INT> {
        random(&s, &b, lo, hi, Some(why.to_string()))
    });
    // An array is copied into a call and walked: charged by its length (a loop of shuffles of
    // 10,000 items stops at MAX_SCRIPT_WORK, the same on every machine, not at the deadline).
    let (s, b) = (state.clone(), budget.clone());
    engine.register_fn("pick", move |items: Array| -> Res<Dynamic> {
        b.charge(items.len() as u64)?;
        if items.is_empty() {
            return fail("pick([]): nothing to pick from".into());
        }
        let n = items.len() as u64;
        let i = lock(&s).rng.pick(crate::dice::rng::Kind::Pick, n, &|| {
            let shown: Vec<String> = items.iter().take(12).map(|v| v.to_string()).collect();
            (
                (1..=n).map(|k| k.to_string()).collect(),
                format!(
                    "one of {n} at random, in this order: {}{}",
                    shown.join(", "),
                    if n > 12 { ", …" } else { "" }
                ),
            )
        }) as usize;
        Ok(items[i].clone())
    });
    let (s, b) = (state.clone(), budget.clone());
    engine.register_fn("shuffle", move |items: Array| -> Res<Array> {
        // A draw from the RNG per item, dearer than a square visited.
        b.charge((items.len() as u64).saturating_mul(16))?;
        let mut items = items;
        let n = items.len();
        lock(&s)
            .rng
            .shuffle_as(crate::dice::rng::Kind::Shuffle, &mut items, &|| {
                format!("a list of {n} shuffled")
            });
        Ok(items)
    });
    let (s, b) = (state.clone(), budget.clone());
    engine.register_fn("step", move |text: &str| -> Res<()> {
        let step = Step::Note {
            text: text.to_string(),
            source: None,
        };
        push(&mut lock(&s), &b, step)
    });
    let (s, b) = (state.clone(), budget.clone());
    engine.register_fn("step", move |text: &str, source: &str| -> Res<()> {
        let step = Step::Note {
            text: text.to_string(),
            source: Some(source.to_string()),
        };
        push(&mut lock(&s), &b, step)
    });
}

fn hint(h: Option<String>) -> String {
    h.map(|h| format!("; {h}")).unwrap_or_default()
}

/// Adds a step to the run's log, charged to its budget.
pub(super) fn push(st: &mut RunState, budget: &Budget, step: Step) -> Res<()> {
    budget.log(step.log_bytes())?;
    st.steps.push(step);
    Ok(())
}

/// A record's declared rolls, rolled once and read (`read_record(kind, id)`), `about` whose
/// roll it is and what for: the die prompt at the table and the log's roll events say it.
fn read_record(
    ruleset: &Ruleset,
    state: &Shared,
    budget: &Budget,
    kind: &str,
    id: &str,
    (piece, why): (Option<String>, Option<String>),
) -> Res<Map> {
    let records = find_kind(ruleset, kind)?;
    let Some(record) = records.get(id) else {
        return fail(format!(
            "no {kind} `{id}`{}",
            hint(did_you_mean(id, records.keys().map(String::as_str)))
        ));
    };
    let declared: Vec<read::Declared> = record
        .fields
        .iter()
        .filter_map(|(name, v)| match v {
            Value::Roll(rt) => Some(read::Declared {
                name,
                roll: &rt.roll,
                reads: rt.reads.as_deref(),
            }),
            _ => None,
        })
        .collect();
    if declared.is_empty() {
        return fail(format!(
            "{kind} `{id}` declares no roll: give its schema a field of type `roll` (`kill any 6 in dice`), or roll its dice with roll_dice"
        ));
    }
    show_before_asking(state);
    let mut st = lock(state);
    let before = st
        .rng
        .rolling_about(about_text(piece.as_deref(), why.as_deref()), piece.clone());
    let rolled = read::roll_declared(&declared, &mut st.rng);
    st.rng.rolling_about(before.0, before.1);
    for line in read::declared_lines(&declared, &rolled) {
        let text = format!("{kind} {id}: {}", line.text);
        let source = record.source.clone();
        // Dice read die by die are a roll in the log, with every die (issue 35 item 4).
        let step = match line.dice {
            Some(roll) => Step::Read {
                roll,
                text,
                why: why.clone(),
                piece: piece.clone(),
                source,
            },
            None => Step::Note { text, source },
        };
        push(&mut st, budget, step)?;
    }
    let mut map = Map::new();
    let mut shown = Map::new();
    for (d, (field, result)) in declared.iter().zip(&rolled) {
        map.insert(field.as_str().into(), reading_value(result));
        if let (Some(f), Rolled::Read { reading, .. }) = (d.reads, result) {
            shown.insert(f.into(), faces(reading.dice()).into());
        }
    }
    map.insert("rolled".into(), shown.into());
    Ok(map)
}

/// A roll's `#{ piece, why }`: whose roll it is and what for, both texts, both optional.
fn piece_and_why(function: &str, about: &Map) -> Res<(Option<String>, Option<String>)> {
    let text_of = |key: &str| -> Res<Option<String>> {
        match about.get(key) {
            None => Ok(None),
            Some(v) if v.is_string() => Ok(Some(v.to_string())),
            Some(v) => fail(format!(
                "{function}: `{key}` is a text (a piece's id, a reason), not {v}"
            )),
        }
    };
    if let Some(key) = about.keys().find(|k| !["piece", "why"].contains(&k.as_str())) {
        return fail(format!(
            "{function}: no `{key}` for a roll; say whose roll it is and why: #{{ piece: id, why: \"to hit\" }}"
        ));
    }
    Ok((text_of("piece")?, text_of("why")?))
}

/// What a die prompt says the roll is for: `piece: why`, either alone, or nothing.
fn about_text(piece: Option<&str>, why: Option<&str>) -> Option<String> {
    match (piece, why) {
        (Some(p), Some(w)) => Some(format!("{p}: {w}")),
        (Some(p), None) => Some(p.to_string()),
        (None, Some(w)) => Some(w.to_string()),
        (None, None) => None,
    }
}

/// A whole number from `lo` to `hi` the rules leave to a die (`random(lo, hi)`, and with
/// `why`, what it decides: said in the die prompt at the table and logged as the purpose).
fn random(state: &Shared, budget: &Budget, lo: INT, hi: INT, why: Option<String>) -> Res<INT> {
    if hi < lo {
        return fail(format!("random({lo}, {hi}): the upper bound is below the lower"));
    }
    show_before_asking(state);
    let mut st = lock(state);
    // A number the rules leave to a die: at the table, the player may roll it.
    let value = match u64::try_from(hi as i128 - lo as i128 + 1) {
        Ok(width) if width > 1 => {
            lo + st.rng.pick_from(crate::dice::rng::Kind::Random, width, lo, &|| {
                let about = why
                    .clone()
                    .unwrap_or_else(|| format!("a number from {lo} to {hi} at random"));
                ((lo..=hi).map(|v| v.to_string()).collect(), about)
            }) as INT
        }
        _ => st.rng.range(lo, hi),
    };
    let roll = DiceRoll::random(lo, hi, value);
    push(&mut st, budget, Step::Roll { roll, why, piece: None })?;
    Ok(value)
}

/// A roll read die by die (`read_roll`), each text parsed once per engine; `piece` and `why`
/// say whose roll it is and what it decides.
fn read_roll(
    ruleset: &Ruleset,
    state: &Shared,
    budget: &Budget,
    parsed: &Mutex<HashMap<String, Roll>>,
    text: &str,
    piece: Option<String>,
    why: Option<String>,
) -> Res<Map> {
    let cached = parsed.lock().unwrap_or_else(|p| p.into_inner()).get(text).cloned();
    let roll = match cached {
        Some(roll) => roll,
        None => {
            let roll = ruleset.parse_roll(text).map_err(Box::<EvalAltResult>::from)?;
            parsed
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(text.to_string(), roll.clone());
            roll
        }
    };
    let about = about_text(piece.as_deref(), why.as_deref());
    show_before_asking(state);
    let mut st = lock(state);
    let before = st.rng.rolling_about(about.clone(), piece.clone());
    let rolled = roll.roll(&mut st.rng);
    st.rng.rolling_about(before.0, before.1);
    let text = match &about {
        Some(about) => format!("{rolled} ({about})"),
        None => rolled.to_string(),
    };
    push(&mut st, budget, Step::Note { text, source: None })?;
    Ok(rolled_map(&rolled))
}

fn roll(ruleset: &Ruleset, state: &Shared, budget: &Budget, text: &str) -> Res<DiceRoll> {
    roll_about(ruleset, state, budget, text, None, None)
}

/// Rolls dice for a piece (`piece`), for a reason (`why`): both go into the log.
fn roll_about(
    ruleset: &Ruleset,
    state: &Shared,
    budget: &Budget,
    text: &str,
    piece: Option<String>,
    why: Option<String>,
) -> Res<DiceRoll> {
    show_before_asking(state);
    let mut st = lock(state);
    let expr = match st.dice_cache.get(text) {
        Some(e) => e.clone(),
        None => {
            let e = ruleset.parse_dice(text).map_err(Box::<EvalAltResult>::from)?;
            st.dice_cache.insert(text.to_string(), e.clone());
            e
        }
    };
    let before = st
        .rng
        .rolling_about(about_text(piece.as_deref(), why.as_deref()), piece.clone());
    let roll = expr.roll(&mut st.rng);
    st.rng.rolling_about(before.0, before.1);
    push(
        &mut st,
        budget,
        Step::Roll {
            roll: roll.clone(),
            why,
            piece,
        },
    )?;
    Ok(roll)
}

fn find_table<'r>(ruleset: &'r Ruleset, id: &str) -> Res<&'r crate::tables::Table> {
    Ok(crate::diagnostic::find(&ruleset.tables, "table", id)?)
}

fn find_kind<'r>(ruleset: &'r Ruleset, kind: &str) -> Res<&'r indexmap::IndexMap<String, Record>> {
    static EMPTY: std::sync::OnceLock<indexmap::IndexMap<String, Record>> = std::sync::OnceLock::new();
    match ruleset.records.get(kind) {
        Some(r) => Ok(r),
        None if ruleset.schemas.contains_key(kind) => Ok(EMPTY.get_or_init(Default::default)),
        None => fail(format!(
            "no record kind `{kind}`{}",
            hint(did_you_mean(kind, ruleset.schemas.keys().map(String::as_str)))
        )),
    }
}

/// Reads `#{ unavailable: [..], available: [..] }`; every name must be one of the table's
/// results (a misspelt colour would otherwise be silently ignored).
fn availability(table: &crate::tables::Table, ctx: &Map) -> Res<Availability> {
    let results = table.results();
    let names = |key: &str| -> Res<Option<BTreeSet<String>>> {
        match ctx.get(key) {
            None => Ok(None),
            Some(v) if v.is_unit() => Ok(None),
            Some(v) => match v.clone().try_cast::<Array>() {
                Some(items) => {
                    let names: BTreeSet<String> = items.iter().map(|d| d.to_string()).collect();
                    if let Some(name) = items
                        .iter()
                        .map(|d| d.to_string())
                        .find(|n| !results.contains(&n.as_str()))
                    {
                        let help = did_you_mean(&name, results.iter().copied())
                            .map(|h| format!(": {h}"))
                            .unwrap_or_default();
                        return fail(format!(
                            "`{key}`: table `{}` has no result `{name}`{help} (results: {})",
                            table.id,
                            results.join(", ")
                        ));
                    }
                    Ok(Some(names))
                }
                None => fail(format!("`{key}` must be an array of result names")),
            },
        }
    };
    for key in ctx.keys() {
        if !["unavailable", "available", "who", "why"].contains(&key.as_str()) {
            return fail(format!(
                "unknown roll option `{key}`: use `unavailable`, `available`, `who` (whose roll it is, for the log) or `why` (what it is for, for the die prompt)"
            ));
        }
    }
    Ok(Availability {
        unavailable: names("unavailable")?.unwrap_or_default(),
        available: names("available")?,
    })
}

fn roll_table(
    ruleset: &Ruleset,
    state: &Shared,
    budget: &Budget,
    id: &str,
    times: INT,
    ctx: &Map,
) -> Res<Vec<TableRoll>> {
    let table = find_table(ruleset, id)?;
    if !(1..=1000).contains(&times) {
        return fail(format!("roll_table_times: {times} rolls; give 1 to 1000"));
    }
    let avail = availability(table, ctx)?;
    // `who`: whose roll it is, said in the log line ("Movement for raider-2: …").
    let who = ctx.get("who").filter(|v| !v.is_unit()).map(|v| v.to_string());
    // `why`: what the roll decides, said in the die prompt at the table with `who`.
    let why = ctx.get("why").filter(|v| !v.is_unit()).map(|v| v.to_string());
    show_before_asking(state);
    let mut st = lock(state);
    let before = st
        .rng
        .rolling_about(about_text(who.as_deref(), why.as_deref()), who.clone());
    let rolls = roll_series(&ruleset.tables, table, times as usize, &avail, &mut st.rng);
    st.rng.rolling_about(before.0, before.1);
    let rolls = rolls?;
    for r in &rolls {
        let mut step = r.clone();
        if let Some(who) = &who {
            step.title = format!("{} for {who}", step.title);
        }
        step.piece.clone_from(&who);
        step.purpose.clone_from(&why);
        push(&mut st, budget, Step::Table(Box::new(step)))?;
    }
    Ok(rolls)
}

pub fn dice_map(roll: &DiceRoll) -> Map {
    let mut map = Map::new();
    map.insert("total".into(), Dynamic::from_int(roll.total));
    let dice: Array = roll
        .dice
        .iter()
        .map(|d| {
            let mut m = Map::new();
            m.insert("die".into(), d.die.clone().into());
            m.insert("value".into(), Dynamic::from_int(d.value));
            m.insert("face".into(), d.face.clone().map_or(Dynamic::UNIT, Dynamic::from));
            Dynamic::from_map(m)
        })
        .collect();
    map.insert("dice".into(), dice.into());
    map
}

/// The numbers the dice show (a face without a number shows its name).
fn faces(dice: &[crate::dice::RolledDie]) -> Array {
    dice.iter()
        .map(|d| match &d.face {
            Some(face) => Dynamic::from(face.clone()),
            None => Dynamic::from_int(d.value),
        })
        .collect()
}

/// What a roll comes to, as a script reads it: yes / no as a bool, a number as an int, an
/// opposed roll as `#{ winner, margin, first, second }`.
fn reading_value(rolled: &Rolled) -> Dynamic {
    match rolled {
        Rolled::Read { value, flag: true, .. }
        | Rolled::Parts { value, flag: true, .. }
        | Rolled::Given { value, flag: true, .. } => Dynamic::from_bool(*value != 0),
        Rolled::Read { value, .. }
        | Rolled::Chain { value, .. }
        | Rolled::Parts { value, .. }
        | Rolled::Given { value, .. }
        | Rolled::Times { value, .. } => Dynamic::from_int(*value),
        Rolled::Opposed {
            winner,
            margin,
            first,
            second,
            ..
        } => {
            let mut m = Map::new();
            m.insert("winner".into(), winner.word().into());
            m.insert("margin".into(), Dynamic::from_int(*margin));
            m.insert("first".into(), Dynamic::from_int(*first));
            m.insert("second".into(), Dynamic::from_int(*second));
            m.into()
        }
    }
}

/// A roll read die by die as a script gets it: `value` (what `reading_value` gives), `text`
/// (the roll in words), and the dice: `dice` for one reading, `first` / `second` dice of the
/// deciding round for an opposed roll (as `first_dice`, `second_dice`), `stages` (each
/// stage's count) for a chain.
fn rolled_map(rolled: &Rolled) -> Map {
    let mut map = Map::new();
    map.insert("value".into(), reading_value(rolled));
    map.insert("text".into(), rolled.to_string().into());
    match rolled {
        Rolled::Read { reading, .. } => {
            map.insert("dice".into(), faces(reading.dice()).into());
        }
        Rolled::Opposed {
            rounds, winner, margin, ..
        } => {
            map.insert("winner".into(), winner.word().into());
            map.insert("margin".into(), Dynamic::from_int(*margin));
            if let Some((a, b)) = rounds.last() {
                map.insert("first_dice".into(), faces(a.dice()).into());
                map.insert("second_dice".into(), faces(b.dice()).into());
            }
        }
        Rolled::Chain { stages, .. } => {
            let counts: Array = stages.iter().map(|s| Dynamic::from_int(s.passed)).collect();
            map.insert("stages".into(), counts.into());
        }
        Rolled::Parts { parts, .. } => {
            // Each reading made (a product's two, a sequence's up to the first yes): its dice.
            let dice: Array = parts.iter().map(|p| Dynamic::from(faces(p.dice()))).collect();
            map.insert("parts".into(), dice.into());
        }
        Rolled::Given { reading, discarded, .. } => {
            // The dice the condition took, and each roll it turned down.
            map.insert("dice".into(), faces(&reading.dice).into());
            let dice: Array = discarded.iter().map(|d| Dynamic::from(faces(d))).collect();
            map.insert("discarded".into(), dice.into());
        }
        Rolled::Times { count, each, .. } => {
            // The first roll's dice, then each roll made for it: its dice.
            map.insert("count_dice".into(), faces(&count.all_dice()).into());
            let dice: Array = each.iter().map(|p| Dynamic::from(faces(p.dice()))).collect();
            map.insert("parts".into(), dice.into());
        }
    }
    map
}

fn table_map(roll: &TableRoll) -> Map {
    let mut map = Map::new();
    let text = |s: &Option<String>| s.clone().map_or(Dynamic::UNIT, Dynamic::from);
    map.insert("table".into(), roll.table.clone().into());
    map.insert(
        "roll".into(),
        Dynamic::from_int(roll.rolls.last().map_or(0, |r| r.total)),
    );
    map.insert(
        "notes".into(),
        roll.notes.iter().cloned().map(Dynamic::from).collect::<Array>().into(),
    );
    match &roll.outcome {
        None => {
            map.insert("result".into(), Dynamic::UNIT);
            map.insert("label".into(), Dynamic::UNIT);
            map.insert("amount".into(), Dynamic::UNIT);
            map.insert("fields".into(), Map::new().into());
            map.insert("follow".into(), Array::new().into());
            map.insert("row".into(), Dynamic::UNIT);
            map.insert("text".into(), Dynamic::UNIT);
            map.insert("source".into(), text(&roll.source));
        }
        Some(o) => {
            map.insert("result".into(), o.result.clone().into());
            map.insert("label".into(), text(&o.label));
            map.insert("row".into(), o.row.clone().into());
            map.insert("text".into(), text(&o.text));
            map.insert(
                "amount".into(),
                o.amount.as_ref().map_or(Dynamic::UNIT, |a| Dynamic::from_int(a.total)),
            );
            let fields: Map = o
                .fields
                .iter()
                .map(|(k, v)| (k.as_str().into(), to_dynamic(v)))
                .collect();
            map.insert("fields".into(), fields.into());
            let follow: Array = o.follow.iter().map(|f| Dynamic::from_map(table_map(f))).collect();
            map.insert("follow".into(), follow.into());
            map.insert("source".into(), text(&o.source.clone().or_else(|| roll.source.clone())));
        }
    }
    map
}

/// Each record's view, by kind and place in its kind, built the first time a script asks.
#[derive(Default)]
struct RecordViews(Mutex<HashMap<String, Vec<Option<RecordView>>>>);

impl RecordViews {
    fn get(&self, kind: &str, count: usize, i: usize, record: &Record) -> RecordView {
        let mut made = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(Some(view)) = made.get(kind).and_then(|m| m.get(i)) {
            return view.clone();
        }
        let slots = made.entry(kind.to_string()).or_default();
        slots.resize(count.max(slots.len()), None);
        slots[i]
            .get_or_insert_with(|| RecordView::new(record_map(record)))
            .clone()
    }
}

fn record_map(record: &Record) -> Map {
    let mut map: Map = record
        .fields
        .iter()
        .map(|(k, v)| (k.as_str().into(), to_dynamic(v)))
        .collect();
    map.insert("id".into(), record.id.clone().into());
    map.insert(
        "label".into(),
        record.label.clone().map_or(Dynamic::UNIT, Dynamic::from),
    );
    map.insert(
        "source".into(),
        record.source.clone().map_or(Dynamic::UNIT, Dynamic::from),
    );
    map.insert("text".into(), record.text.clone().map_or(Dynamic::UNIT, Dynamic::from));
    map
}

/// A package value as a Rhai value: names and texts become strings, dice their text.
pub fn to_dynamic(value: &Value) -> Dynamic {
    match value {
        Value::Number(n) => Dynamic::from_int(*n),
        Value::Flag(b) => Dynamic::from_bool(*b),
        Value::Text(t) | Value::Name(t) => Dynamic::from(ImmutableString::from(t.as_str())),
        Value::Dice(d) => Dynamic::from(ImmutableString::from(d.text.as_str())),
        Value::Roll(r) => Dynamic::from(ImmutableString::from(r.text.as_str())),
        Value::List(items) => items.iter().map(to_dynamic).collect::<Array>().into(),
        Value::Map(m) => Dynamic::from_map(m.iter().map(|(k, v)| (k.as_str().into(), to_dynamic(v))).collect()),
    }
}
