//! Lowering `procedure` items: typed arguments with their choices, each bound to a script
//! function of the right arity.

use super::Lower;
use crate::diagnostic::{Diagnostic, Report, did_you_mean};
use crate::package::merge::MergedItem;
use crate::ruleset::*;
use crate::script::Script;
use crate::source::SourceMap;
use crate::syntax::ast::{self, ValueKind};

impl Lower<'_> {
    /// `arg <name> <default> ["help"] [of <choice>…]`: a choice is a list of values, a record
    /// or item kind (its ids), or `table <id>` (that table's results). A game's `option` is
    /// written the same way (`keyword`).
    pub(super) fn proc_arg(&mut self, p: &ast::Property, keyword: &str) -> Option<ProcArg> {
        let mut values = p.values.iter().peekable();
        let name = values.next().and_then(|v| v.as_name());
        let default = values.next();
        let help = values.next_if(|v| v.as_text().is_some()).and_then(|v| v.as_text());
        let of = values.next_if(|v| v.as_name() == Some("of")).is_some();
        let rest: Vec<&ast::Value> = values.collect();
        let (Some(name), Some(default), true) = (name, default, of != rest.is_empty()) else {
            self.err(
                Diagnostic::error(
                    p.span,
                    format!("`{keyword}` takes a name, a default value, an optional help text and an optional `of …`"),
                    "not understood",
                )
                .with_help(format!(
                    "write `{keyword} boards-left 4 \"board sections not yet scanned\"`, or \
                     `{keyword} model base \"which table\" of [base, mission]`"
                )),
            );
            return None;
        };
        let default = self.untyped(default)?;
        let mut choices = Vec::new();
        let mut rest = rest.into_iter().peekable();
        while let Some(v) = rest.next() {
            match (&v.kind, v.as_name()) {
                (ValueKind::List(items), _) => {
                    choices.push(ArgChoice::Values(
                        items.iter().map(|i| self.untyped(i)).collect::<Option<_>>()?,
                    ));
                }
                (_, Some("table")) if rest.peek().is_some_and(|n| n.as_name().is_some()) => {
                    let table = rest.next().and_then(|n| n.as_name()).unwrap_or_default();
                    choices.push(ArgChoice::Results(table.to_string()));
                }
                (_, Some(kind)) => choices.push(ArgChoice::Ids(kind.to_string())),
                _ => {
                    self.err(
                        Diagnostic::error(
                            v.span,
                            "after `of`, expected a list, a kind or `table <id>`",
                            "not a choice",
                        )
                        .with_help("e.g. `of [2, 4]`, `of mission`, `of table reinforcement-type [none]`"),
                    );
                    return None;
                }
            }
        }
        Some(ProcArg {
            name: name.to_string(),
            default,
            help: help.map(str::to_string),
            of: choices,
            span: p.span,
        })
    }

    pub(super) fn procedure(
        &mut self,
        item: &MergedItem,
        scripts: &[Script],
        sources: &SourceMap,
    ) -> Option<Procedure> {
        let known = ["function", "arg", "source", "text", "label"];
        let props = self.props(&item.entries, "a procedure", &known, &["arg"], false);
        let label = self.label(item, &props);
        let source = self.text(props.get("source"));
        let text = self.text(props.get("text"));
        let mut args = Vec::new();
        for p in props.all("arg") {
            if let Some(arg) = self.proc_arg(p, "arg") {
                args.push(arg);
            }
        }
        let Some(function_prop) = props.get("function") else {
            self.err(
                Diagnostic::error(
                    item.id.span,
                    format!("procedure `{}` names no script function", item.id.text),
                    "no `function`",
                )
                .with_help(
                    "add `function my_function` naming a `fn my_function(args)` in one of the package's scripts",
                ),
            );
            return None;
        };
        let (function, span) = self.name(function_prop)?;
        // A later script (a variant's) wins over an earlier one (its base's).
        let found = scripts.iter().enumerate().rev().find_map(|(i, s)| {
            s.functions
                .iter()
                .find(|(name, _)| *name == function)
                .map(|(_, arity)| (i, *arity))
        });
        match found {
            Some((script, 1)) => Some(Procedure {
                id: item.id.text.clone(),
                label,
                function,
                script,
                args,
                source,
                text,
                span: item.span,
            }),
            Some((script, arity)) => {
                let file = sources.get(scripts[script].file).name.clone();
                self.err(
                    Diagnostic::error(
                        span,
                        format!("`{function}` in {file} takes {arity} parameters; a procedure takes one"),
                        "wrong arity",
                    )
                    .with_help(format!(
                        "declare it as `fn {function}(args)`; `args` is a map of the procedure's args"
                    )),
                );
                None
            }
            None if self.scripts_failed => None,
            None => {
                let names: Vec<&str> = scripts
                    .iter()
                    .flat_map(|s| s.functions.iter().map(|(n, _)| n.as_str()))
                    .collect();
                let help = did_you_mean(&function, names.iter().copied()).unwrap_or_else(|| {
                    if scripts.is_empty() {
                        "this package has no scripts: add `script \"scripts/….rhai\"` to package.rules".into()
                    } else {
                        format!("define `fn {function}(args) {{ … }}` in one of the package's scripts")
                    }
                });
                self.err(
                    Diagnostic::error(span, format!("no script function `{function}`"), "not found").with_help(help),
                );
                None
            }
        }
    }
}

/// An arg's (or a game option's) `of …` must name tables and kinds that exist, and its
/// default must be one of them.
pub(super) fn check_arg_choices(ruleset: &Ruleset, report: &mut Report) {
    let args = ruleset
        .procedures
        .values()
        .flat_map(|p| p.args.iter().map(move |a| (a, "arg", "procedure", &p.id)));
    let options = ruleset
        .games
        .values()
        .flat_map(|g| g.options.values().map(move |o| (o, "option", "game", &g.id)));
    for (arg, what, of_what, owner) in args.chain(options) {
        let mut known = true;
        for choice in &arg.of {
            let (missing, candidates) = match choice {
                ArgChoice::Results(table) if !ruleset.tables.contains_key(table) => (
                    format!("no table `{table}`"),
                    ruleset.tables.keys().map(String::as_str).collect(),
                ),
                ArgChoice::Ids(kind) if ruleset.ids_of(kind).is_none() => {
                    (format!("no kind of item `{kind}`"), ruleset.kinds())
                }
                _ => continue,
            };
            known = false;
            let help = did_you_mean(
                match choice {
                    ArgChoice::Results(t) | ArgChoice::Ids(t) => t,
                    ArgChoice::Values(_) => "",
                },
                candidates.iter().copied(),
            )
            .unwrap_or_else(|| format!("choose from: {}", candidates.join(", ")));
            report.push(
                Diagnostic::error(
                    arg.span,
                    format!("{what} `{}` of {of_what} `{owner}`: {missing}", arg.name),
                    "after `of`",
                )
                .with_help(help),
            );
        }
        let Some(choices) = ruleset.arg_choices(arg).filter(|_| known) else {
            continue;
        };
        let defaults = match &arg.default {
            Value::List(items) => items.clone(),
            one => vec![one.clone()],
        };
        for value in defaults.iter().filter(|v| !choices.contains(v)) {
            report.push(
                Diagnostic::error(
                    arg.span,
                    format!(
                        "the default of {what} `{}` names `{}`, which is not one of its choices",
                        arg.name,
                        value.show()
                    ),
                    "default outside `of`",
                )
                .with_help(format!(
                    "choices: {}",
                    choices.iter().map(Value::show).collect::<Vec<_>>().join(", ")
                )),
            );
        }
    }
}
