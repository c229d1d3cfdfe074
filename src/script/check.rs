//! Scripts checked at load, before anything runs: every function a script calls is one the
//! engine gives it or one the package's scripts define, and every id written as a literal in
//! a call that names a table, a record, a constant, a pool or a mission exists. Each problem
//! is a diagnostic at the call's file:line:col with "did you mean".
//!
//! What cannot be known before running is not judged: a name held in a variable, a property
//! of a map, a method of a value whose type is only known at run time (any method name the
//! engine knows passes).

use super::{Script, span_at};
use crate::Ruleset;
use crate::diagnostic::{Diagnostic, did_you_mean};
use rhai::{ASTNode, Expr, Stmt};
use std::collections::HashSet;
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
        "record" | "records" => Names::Kind,
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
    }
    out
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
                    "{hint} (the functions a script may call are in grammar/README.md)"
                )),
                    None => d.with_help(
                        "the functions a script may call are in grammar/README.md; a package's own are the `fn`s of its scripts",
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
                Some(records) if name == "record" => literal(1).and_then(|(rid, rat): (String, rhai::Position)| {
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
