//! Scripts checked at load, before anything runs: every function a script calls is one the
//! engine gives it or one the package's scripts define, and every id written as a literal in
//! a call that names a table, a record, a constant, a pool or a mission exists. Each problem
//! is a diagnostic at the call's file:line:col with "did you mean".
//!
//! What cannot be known before running is not judged: a name held in a variable, a property
//! of a map, a method of a value whose type is only known at run time (any method name the
//! engine knows passes).
//!
//! The names checked against are every function an engine is given: `servitor::load` adds
//! the game API's (`game::api::function_names`) to the procedures'. Literal ids are checked
//! in calls and in the fields read from records of a kind the script names.
//!
//! [`unused`] warns of what a variant writes that changes nothing: a `fn` that replaces no
//! base function and that nothing calls, an `override` of a constant or record field that no
//! script reads (`Ruleset::overrides`, kept by `package/merge.rs`; `Script::package` says
//! whose script it is). Fields the engine itself reads (`ruleset::ENGINE_STATS_FIELDS`)
//! count as read.

use super::{Script, span_at};
use crate::Ruleset;
use crate::diagnostic::{Diagnostic, did_you_mean};
use crate::source::Span;
use rhai::{ASTNode, Expr, Stmt};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

/// Functions Rhai itself handles while running, never registered with an engine.
const SPECIAL: [&str; 11] = [
    "Fn",
    "call",
    "curry",
    "is_shared",
    "is_def_var",
    "is_def_fn",
    "type_of",
    "print",
    "debug",
    "eval",
    "this",
];

/// Every function name an engine made by `engine` knows, Rhai's own packages included.
pub fn names_of(engine: &rhai::Engine) -> HashSet<String> {
    let mut names: HashSet<String> = engine
        .collect_fn_metadata(None, |info| Some(info.metadata.name.to_string()), true)
        .into_iter()
        .collect();
    names.extend(SPECIAL.iter().map(|s| s.to_string()));
    names
}

/// The names of every function a procedure's engine has (`engine_for`): dice, tables, data,
/// board and battlefield questions, and Rhai's own. Made once.
pub fn procedure_functions() -> &'static HashSet<String> {
    static NAMES: OnceLock<HashSet<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let ruleset = Arc::new(Ruleset::default());
        let state = Arc::new(Mutex::new(super::RunState {
            rng: crate::dice::Rng::seeded(0),
            steps: Vec::new(),
            dice_cache: Default::default(),
            show: None,
        }));
        names_of(&super::engine_for(&ruleset, &state))
    })
}

/// What a literal argument of an engine function names.
#[derive(Clone, Copy)]
enum Names {
    Table,
    /// A record kind; the next argument, an id of that kind.
    Kind,
    Const,
    Pool,
    Mission,
    Battlefield,
}

/// The engine functions (called as `f(…)`, not as a method) whose first argument is an id.
fn first_argument(name: &str) -> Option<Names> {
    Some(match name {
        "roll_table" | "roll_table_times" | "table_results" => Names::Table,
        "record" | "records" | "read_record" | "record_field" => Names::Kind,
        "constant" => Names::Const,
        "pool" => Names::Pool,
        "mission" | "marked" | "los" | "visible_from" | "distance" | "nearest" | "move_towards" | "move_away"
        | "line" | "blast" | "region" | "section" | "facing_path" => Names::Mission,
        "battlefield" | "scatter" | "advance" | "in_zone" | "in_terrain" => Names::Battlefield,
        _ => return None,
    })
}

/// Problems in `ruleset`'s scripts, given every function name the engines running them know
/// (`engine`) besides the scripts' own.
pub fn check(ruleset: &Ruleset, engine: &HashSet<String>) -> Vec<Diagnostic> {
    let mut defined: HashSet<String> = HashSet::new();
    for script in &ruleset.scripts {
        defined.extend(script.functions.iter().map(|(name, _)| name.clone()));
    }
    let mut out = Vec::new();
    for script in &ruleset.scripts {
        check_script(ruleset, script, engine, &defined, &mut out);
        check_fields(ruleset, script, &mut out);
    }
    out.extend(unused(ruleset));
    out
}

/// Every name the scripts mention: the functions they call (plainly, as methods, or by `Fn`),
/// the properties they read, and every text they hold (an id, a field, a function's name).
fn mentions(ruleset: &Ruleset) -> HashSet<String> {
    let mut names = HashSet::new();
    for script in &ruleset.scripts {
        script.ast.walk(&mut |path: &[ASTNode]| {
            match path.last() {
                Some(ASTNode::Expr(Expr::FnCall(call, _) | Expr::MethodCall(call, _)))
                | Some(ASTNode::Stmt(Stmt::FnCall(call, _))) => {
                    names.insert(call.name.to_string());
                }
                Some(ASTNode::Expr(Expr::StringConstant(text, _))) => {
                    names.insert(text.to_string());
                }
                Some(ASTNode::Expr(Expr::Property(p, _))) => {
                    names.insert(p.2.to_string());
                }
                Some(ASTNode::Expr(Expr::DynamicConstant(value, _))) => {
                    if let Some(f) = value.clone().try_cast::<rhai::FnPtr>() {
                        names.insert(f.fn_name().to_string());
                    }
                }
                _ => {}
            }
            true
        });
    }
    names
}

/// Entries every record may carry that are for people, not for rules.
const RECORD_NOTES: [&str; 4] = ["source", "text", "label", "provisional"];

/// Warnings on what a variant adds that can change nothing: a script function that overrides
/// no base function and that nothing calls (a misspelled hook: `fn choose_tagret(`), and an
/// `override` of a constant or of a record's field that no script reads.
pub fn unused(ruleset: &Ruleset) -> Vec<Diagnostic> {
    let mentioned = mentions(ruleset);
    let mut called: HashSet<&str> = HashSet::new();
    for p in ruleset.procedures.values() {
        called.insert(&p.function);
    }
    for g in ruleset.games.values() {
        called.extend(g.setup.iter().chain(g.status.iter()).map(String::as_str));
        called.extend(g.watches.values().map(|w| w.function.as_str()));
        called.extend(g.phases.iter().map(|p| p.function.as_str()));
        called.extend(g.triggers.iter().map(|t| t.function.as_str()));
        called.extend(g.commands.values().map(|c| c.function.as_str()));
    }
    for c in ruleset.campaigns.values() {
        called.extend([&c.before, &c.after, &c.end].into_iter().flatten().map(String::as_str));
    }
    let mut out = Vec::new();
    // Functions: a script of a package that extends another (`package` > 0).
    for script in ruleset.scripts.iter().filter(|s| s.package > 0) {
        let earlier: Vec<&str> = ruleset
            .scripts
            .iter()
            .filter(|s| s.package < script.package)
            .flat_map(|s| s.functions.iter().map(|(n, _)| n.as_str()))
            .collect();
        let text = &ruleset.sources.get(script.file).text;
        for (name, _) in &script.functions {
            if earlier.contains(&name.as_str()) || called.contains(name.as_str()) || mentioned.contains(name) {
                continue;
            }
            let at = definition(text, name);
            let base = &ruleset.packages[script.package - 1].name;
            let mut d = Diagnostic::warning(
                Span::new(script.file, at, at + name.len()),
                format!("`{name}` replaces no function of `{base}` or what it extends, and nothing calls it"),
                "changes nothing",
            );
            d = match did_you_mean(name, earlier.iter().copied()) {
                Some(hint) => d.with_help(format!("{hint} (to replace a base's function, use its exact name)")),
                None => d.with_help(
                    "a variant's function changes a game when it has the name of a base's function (a hook: see \"Hooks\" in docs/hooks.md) or when something calls it",
                ),
            };
            out.push(d);
        }
    }
    // Overrides of constants and of record fields that no script reads.
    let stats_kinds: HashSet<&str> = ruleset.games.values().filter_map(|g| g.stats.as_deref()).collect();
    // The stats fields the engine reads: its own (life, size, the action-point prices…) and
    // each game's `action-points FIELD`. A field the engine reads is read.
    let engine_fields: HashSet<&str> = crate::ruleset::ENGINE_STATS_FIELDS
        .into_iter()
        .chain(ruleset.games.values().filter_map(|g| g.action_points.as_deref()))
        .collect();
    for o in &ruleset.overrides {
        let (what, name, read_by) = match &o.entry {
            None => (
                format!("constant `{}`", o.id),
                o.id.as_str(),
                format!("a script reads a constant with `constant(\"{}\")`", o.id),
            ),
            Some(field) if ruleset.schemas.contains_key(&o.kind) => {
                if RECORD_NOTES.contains(&field.as_str())
                    || (stats_kinds.contains(o.kind.as_str()) && engine_fields.contains(field.as_str()))
                {
                    continue;
                }
                (
                    format!("field `{field}` of {} `{}`", o.kind, o.id),
                    field.as_str(),
                    format!("a script reads a field with `.{field}` or `[\"{field}\"]`"),
                )
            }
            // Tables, procedures, games and the like: the engine reads every entry.
            Some(_) => continue,
        };
        if mentioned.contains(name) {
            continue;
        }
        out.push(
            Diagnostic::warning(
                o.span,
                format!("no script reads the {what}: overriding it changes no game"),
                "read by nothing",
            )
            .with_help(format!(
                "{read_by}, and none does; it may be there for people to read (a rule the scripts do not play), or a name the scripts spell otherwise"
            )),
        );
    }
    out
}

/// Where `fn NAME(` is written in a script's text (the name's byte offset).
fn definition(text: &str, name: &str) -> usize {
    let mut from = 0;
    while let Some(i) = text[from..].find(name) {
        let at = from + i;
        let before = text[..at].trim_end();
        let after = text[at + name.len()..].trim_start();
        if before.ends_with("fn")
            && before[..before.len() - 2]
                .chars()
                .last()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
            && after.starts_with('(')
        {
            return at;
        }
        from = at + name.len();
    }
    0
}

/// The names a record's map holds besides its schema's fields.
const RECORD_KEYS: [&str; 4] = ["id", "label", "source", "text"];

/// The kind of record `expr` gives, when that is written in it: `record("unit", …)`, or a
/// variable bound to one (`bound`).
fn record_kind<'a>(expr: &'a Expr, bound: &'a HashMap<String, String>) -> Option<&'a str> {
    match expr {
        Expr::FnCall(call, _) if call.name.as_str() == "record" && call.namespace.is_empty() => {
            match call.args.first() {
                Some(Expr::StringConstant(kind, _)) => Some(kind.as_str()),
                _ => None,
            }
        }
        other => variable_name(other)
            .and_then(|name| bound.get(name))
            .map(String::as_str),
    }
}

/// The name of a plain variable (not one in a module).
fn variable_name(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Variable(x, ..) if x.2.is_empty() => Some(x.1.as_str()),
        _ => None,
    }
}

/// A position as (line, column), to compare.
fn at(pos: rhai::Position) -> (usize, usize) {
    (pos.line().unwrap_or(0), pos.position().unwrap_or(0))
}

/// The kind of the records `expr` lists: `records("unit")`.
fn records_kind(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::FnCall(call, _) if call.name.as_str() == "records" && call.namespace.is_empty() => {
            match call.args.first() {
                Some(Expr::StringConstant(kind, _)) => Some(kind.as_str()),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The first property read from a record in `rhs` (`.a`, `.a[0]`, `.a.b`): a method call
/// is not judged.
fn first_property(rhs: &Expr) -> Option<(&str, rhai::Position)> {
    match rhs {
        Expr::Property(p, at) => Some((p.2.as_str(), *at)),
        Expr::Index(bin, ..) | Expr::Dot(bin, ..) => first_property(&bin.lhs),
        _ => None,
    }
}

/// A field read from a record whose kind is written in the script — `record("unit",
/// k).armor`, `r["armor"]` after `let r = record("unit", k)`, or `for r in records("unit")` —
/// must be a field of that kind's schema (or `id`, `label`, `source`, `text`). A variable
/// bound otherwise, or assigned again, is not judged.
fn check_fields(ruleset: &Ruleset, script: &Script, out: &mut Vec<Diagnostic>) {
    let sources = &ruleset.sources;
    // The functions' extents: a variable bound in one says nothing in another.
    let extents: Vec<((usize, usize), (usize, usize))> = script
        .ast
        .iter_fn_def()
        .map(|f| (at(f.body.start_position()), at(f.body.end_position())))
        .collect();
    let function_of = |node: &ASTNode| {
        let p = at(node.position());
        extents.iter().position(|(start, end)| *start <= p && p <= *end)
    };
    let mut current = None;
    let mut bound: HashMap<String, String> = HashMap::new();
    script.ast.walk(&mut |path: &[ASTNode]| {
        let function = path.first().and_then(&function_of);
        if function != current {
            current = function;
            bound.clear();
        }
        let read = match path.last() {
            Some(ASTNode::Stmt(Stmt::Var(v, ..))) => {
                let (name, value) = (v.0.name.to_string(), &v.1);
                match record_kind(value, &bound).map(str::to_string) {
                    Some(kind) => bound.insert(name, kind),
                    None => bound.remove(&name),
                };
                None
            }
            Some(ASTNode::Stmt(Stmt::For(f, _))) => {
                let name = f.0.name.to_string();
                match records_kind(&f.2.expr) {
                    Some(kind) => bound.insert(name, kind.to_string()),
                    None => bound.remove(&name),
                };
                None
            }
            Some(ASTNode::Stmt(Stmt::Assignment(a))) => {
                if let Some(name) = variable_name(&a.1.lhs) {
                    bound.remove(name);
                }
                None
            }
            Some(ASTNode::Expr(Expr::Dot(bin, ..))) => record_kind(&bin.lhs, &bound).zip(first_property(&bin.rhs)),
            Some(ASTNode::Expr(Expr::Index(bin, ..))) => match &bin.rhs {
                Expr::StringConstant(key, at) => record_kind(&bin.lhs, &bound).map(|k| (k, (key.as_str(), *at))),
                _ => None,
            },
            _ => None,
        };
        if let Some((kind, (field, at))) = read
            && let Some(schema) = ruleset.schemas.get(kind)
            && !schema.fields.contains_key(field)
            && !RECORD_KEYS.contains(&field)
        {
            let names: Vec<&str> = schema.fields.keys().map(String::as_str).chain(RECORD_KEYS).collect();
            let help = did_you_mean(field, names.iter().copied())
                .unwrap_or_else(|| format!("a `{kind}` has: {}", names.join(", ")));
            out.push(
                Diagnostic::error(
                    span_at(sources, script.file, at),
                    format!("a `{kind}` record has no field `{field}`"),
                    "no such field",
                )
                .with_help(help),
            );
        }
        true
    });
}

fn check_script(
    ruleset: &Ruleset,
    script: &Script,
    engine: &HashSet<String>,
    defined: &HashSet<String>,
    out: &mut Vec<Diagnostic>,
) {
    // Names that may hold a function pointer: a call through one is not judged.
    let mut variables: HashSet<String> = HashSet::new();
    for f in script.ast.iter_functions() {
        variables.extend(f.params.iter().map(|p| p.to_string()));
    }
    script.ast.walk(&mut |path: &[ASTNode]| {
        match path.last() {
            Some(ASTNode::Stmt(Stmt::Var(v, ..))) => {
                variables.insert(v.0.name.to_string());
            }
            Some(ASTNode::Stmt(Stmt::For(f, _))) => {
                variables.insert(f.0.name.to_string());
                if let Some(counter) = &f.1 {
                    variables.insert(counter.name.to_string());
                }
            }
            _ => {}
        }
        true
    });
    let known = |name: &str| engine.contains(name) || defined.contains(name);
    let suggest = |name: &str| {
        let candidates: Vec<&str> = engine
            .iter()
            .chain(defined.iter())
            .map(String::as_str)
            .filter(|n| n.chars().all(|c| c.is_alphanumeric() || c == '_') && !n.starts_with("get$"))
            .collect();
        did_you_mean(name, candidates)
    };
    let sources = &ruleset.sources;
    script.ast.walk(&mut |path: &[ASTNode]| {
        // `Fn("name")` of a literal is made a constant pointer when the script compiles.
        if let Some(ASTNode::Expr(Expr::DynamicConstant(value, at))) = path.last()
            && let Some(target) = value.clone().try_cast::<rhai::FnPtr>().map(|f| f.fn_name().to_string())
            && !known(&target)
        {
            let mut d = Diagnostic::error(
                span_at(sources, script.file, *at),
                format!("`Fn` names no function `{target}`"),
                "no such function",
            );
            if let Some(hint) = suggest(&target) {
                d = d.with_help(hint);
            }
            out.push(d);
            return true;
        }
        let (call, pos, method) = match path.last() {
            Some(ASTNode::Expr(Expr::FnCall(call, pos))) | Some(ASTNode::Stmt(Stmt::FnCall(call, pos))) => {
                (call, *pos, false)
            }
            Some(ASTNode::Expr(Expr::MethodCall(call, pos))) => (call, *pos, true),
            _ => return true,
        };
        let name = call.name.as_str();
        // Operators (`a + b`) and calls into a module (`m::f`) are Rhai's to judge.
        if call.op_token.is_some()
            || !call.namespace.is_empty()
            || !name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
        {
            return true;
        }
        // A plain call through a variable holding a function pointer is not judged.
        if !known(name) && (method || !variables.contains(name)) {
            let what = if method { "method" } else { "function" };
            let mut d = Diagnostic::error(
                span_at(sources, script.file, pos),
                format!("unknown {what} `{name}`"),
                "no such function",
            );
            d = match super::run::switched_off(name) {
                Some(why) => d.with_help(why),
                None => match suggest(name) {
                Some(hint) => d.with_help(format!(
                    "{hint} (the functions a script may call are in docs/language.md and docs/games.md)"
                )),
                    None => d.with_help(
                        "the functions a script may call are in docs/language.md and docs/games.md; a package's own are the `fn`s of its scripts",
                    ),
                },
            };
            out.push(d);
            return true;
        }
        if method || defined.contains(name) {
            return true;
        }
        // `Fn("name")`: a function pointer to a function that must exist.
        if name == "Fn" {
            if let Some(Expr::StringConstant(target, at)) = call.args.first()
                && !known(target)
            {
                let mut d = Diagnostic::error(
                    span_at(sources, script.file, *at),
                    format!("`Fn` names no function `{target}`"),
                    "no such function",
                );
                if let Some(hint) = suggest(target) {
                    d = d.with_help(hint);
                }
                out.push(d);
            }
            return true;
        }
        let Some(first) = first_argument(name) else {
            return true;
        };
        let literal = |i: usize| match call.args.get(i) {
            Some(Expr::StringConstant(s, p)) => Some((s.to_string(), *p)),
            _ => None,
        };
        let Some((id, at)) = literal(0) else {
            return true;
        };
        let span = span_at(sources, script.file, at);
        let problem = match first {
            Names::Table => missing("table", &id, ruleset.tables.keys()).map(|p| (span, p)),
            Names::Const => missing("constant", &id, ruleset.consts.keys()).map(|p| (span, p)),
            Names::Pool => missing("pool or deck", &id, ruleset.pools.keys()).map(|p| (span, p)),
            Names::Mission => missing("mission with a map", &id, ruleset.missions.keys()).map(|p| (span, p)),
            Names::Battlefield => missing("battlefield", &id, ruleset.battlefields.keys()).map(|p| (span, p)),
            Names::Kind => match ruleset.records.get(&id) {
                // A kind the package declares a schema for but has no records of yet.
                None if ruleset.schemas.contains_key(&id) => None,
                None => missing("record kind", &id, ruleset.records.keys()).map(|p| (span, p)),
                Some(records) if name == "record" || name == "read_record" || name == "record_field" => literal(1).and_then(|(rid, rat): (String, rhai::Position)| {
                    missing(&id, &rid, records.keys()).map(|p| (span_at(sources, script.file, rat), p))
                }),
                Some(_) => None,
            },
        };
        if let Some((span, (message, help))) = problem {
            out.push(with_help(Diagnostic::error(span, message, "not found"), help));
        }
        true
    });
}

fn with_help(d: Diagnostic, help: Option<String>) -> Diagnostic {
    match help {
        Some(h) => d.with_help(h),
        None => d,
    }
}

/// `Some((message, help))` when `id` is not among `ids`.
fn missing<'a>(
    what: &str,
    id: &str,
    ids: impl Iterator<Item = &'a String> + Clone,
) -> Option<(String, Option<String>)> {
    if ids.clone().any(|i| i == id) {
        return None;
    }
    let names: Vec<&str> = ids.map(String::as_str).collect();
    let help = match did_you_mean(id, names.iter().copied()) {
        Some(h) => Some(h),
        None if names.is_empty() => Some(format!("the package has no {what}")),
        None => Some(format!("the package has: {}", names.join(", "))),
    };
    Some((format!("no {what} `{id}`"), help))
}
