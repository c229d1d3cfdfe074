//! A procedure's args as the command line gives them (`--arg name=value`): each text is read
//! by the type of the arg's declared default, and anything that does not read cleanly is
//! refused — a value silently taken as something else would be a wrong answer.
//!
//! Lists are accepted in the form servitor prints them (`[0, 2]`, `[purple, black]`, `[]`) and
//! as bare comma-separated items (`0,2`). An item is a whole number, a name (`scout-3`) or a
//! quoted text (`"two words"`). A game's `--set` options are declared and read the same way;
//! a name is checked against the arg's `of …` choices.

use crate::diagnostic::did_you_mean;
use crate::ruleset::{ProcArg, Procedure, Ruleset, Value};
use crate::value::DiceText;
use indexmap::IndexMap;

/// Applies `name=value` texts over the procedure's declared defaults, typed by each default.
pub fn typed_args(
    ruleset: &Ruleset,
    procedure: &Procedure,
    given: &[(String, String)],
) -> Result<IndexMap<String, Value>, String> {
    let mut values: IndexMap<String, Value> = procedure
        .args
        .iter()
        .map(|a| (a.name.clone(), a.default.clone()))
        .collect();
    for (name, text) in given {
        let Some(default) = values.get(name) else {
            let names: Vec<&str> = procedure.args.iter().map(|a| a.name.as_str()).collect();
            let help = did_you_mean(name, names.iter().copied())
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            return Err(format!(
                "procedure `{}` has no arg `{name}`{help}\nargs: {}",
                procedure.id,
                if names.is_empty() {
                    "(none)".into()
                } else {
                    names.join(", ")
                }
            ));
        };
        let value = match procedure.args.iter().find(|a| a.name == *name) {
            Some(arg) => typed_value(ruleset, arg, text, "arg")?,
            None => parse_value(ruleset, default, text)
                .map_err(|why| format!("arg `{name}` expects {}, got `{text}`{why}", describe(default)))?,
        };
        values.insert(name.clone(), value);
    }
    Ok(values)
}

/// `text` read by the type of `arg`'s default and checked against its `of …`; `what` names
/// it in the message (`arg` of a procedure, `option` of a game).
pub fn typed_value(ruleset: &Ruleset, arg: &ProcArg, text: &str, what: &str) -> Result<Value, String> {
    let value = parse_value(ruleset, &arg.default, text).map_err(|why| {
        format!(
            "{what} `{}` expects {}, got `{text}`{why}",
            arg.name,
            describe(&arg.default)
        )
    })?;
    check_choices(ruleset, arg, &value, what)?;
    Ok(value)
}

/// A value (each item of a list) must be one of what the arg's `of …` allows.
fn check_choices(ruleset: &Ruleset, arg: &ProcArg, value: &Value, what: &str) -> Result<(), String> {
    let Some(choices) = ruleset.arg_choices(arg) else {
        return Ok(());
    };
    let items = match value {
        Value::List(items) => items.as_slice(),
        one => std::slice::from_ref(one),
    };
    let shown: Vec<String> = choices.iter().map(Value::show).collect();
    if let Some(item) = items.iter().find(|i| !choices.contains(i)) {
        let help = match item {
            Value::Number(_) => None,
            _ => did_you_mean(&item.show(), shown.iter().map(String::as_str)),
        }
        .map(|h| format!("\n  help: {h}"))
        .unwrap_or_default();
        return Err(format!(
            "{what} `{}` has no choice `{}`{help}\n  choices: {}",
            arg.name,
            item.show(),
            shown.join(", ")
        ));
    }
    Ok(())
}

fn describe(v: &Value) -> String {
    match v {
        Value::Number(_) => "a whole number".into(),
        Value::Flag(_) => "yes or no".into(),
        Value::List(items) => match items.first() {
            Some(Value::Number(_)) => "a list of whole numbers, such as [0, 2] or 0,2".into(),
            Some(Value::Name(_)) => "a list of names, such as [green, blue] or green,blue".into(),
            _ => "a list, such as [0, 2], [green, blue], green,blue or []".into(),
        },
        Value::Dice(_) => "a dice expression".into(),
        Value::Text(_) => "a text".into(),
        _ => "a name (letters, digits and `-`)".into(),
    }
}

/// Reads `text` as a value of the default's type; `Err` carries the reason (`: …`), if any.
fn parse_value(ruleset: &Ruleset, default: &Value, text: &str) -> Result<Value, String> {
    let text = text.trim();
    match default {
        Value::Number(_) => text.parse().map(Value::Number).map_err(|_| String::new()),
        Value::Flag(_) => match text {
            "yes" | "true" | "1" => Ok(Value::Flag(true)),
            "no" | "false" | "0" => Ok(Value::Flag(false)),
            _ => Err(String::new()),
        },
        Value::List(items) => {
            let list = parse_list(text)?;
            if let Some(first) = items.first() {
                for item in &list {
                    let fits = matches!(
                        (first, item),
                        (Value::Number(_), Value::Number(_))
                            | (Value::Name(_), Value::Name(_))
                            | (Value::Text(_), Value::Text(_) | Value::Name(_))
                    );
                    if !fits {
                        let kind = match first {
                            Value::Number(_) => "a whole number",
                            Value::Name(_) => "a name",
                            _ => "a text",
                        };
                        return Err(format!(": `{}` is not {kind}", item.show()));
                    }
                }
            }
            Ok(Value::List(list))
        }
        Value::Text(_) => Ok(Value::Text(text.to_string())),
        Value::Dice(_) => ruleset
            .parse_dice(text)
            .map(|expr| {
                Value::Dice(DiceText {
                    text: expr.to_string(),
                    expr,
                })
            })
            .map_err(|e| format!(": {e}")),
        _ if is_name(text) => Ok(Value::Name(text.to_string())),
        _ => Err(String::new()),
    }
}

/// A list as servitor prints it (`[a, b]`, `[]`) or bare (`a,b`, `a`); empty text is `[]`.
pub fn parse_list(text: &str) -> Result<Vec<Value>, String> {
    let text = text.trim();
    let inner = match (text.strip_prefix('['), text.ends_with(']')) {
        (Some(rest), true) => &rest[..rest.len() - 1],
        (Some(_), false) => return Err(": the list has no closing `]`".into()),
        (None, true) => return Err(": the list has no opening `[`".into()),
        (None, false) => text,
    };
    if inner.trim().is_empty() {
        return Ok(Vec::new());
    }
    split_items(inner)?.into_iter().map(parse_item).collect()
}

/// Splits at commas outside quotes.
fn split_items(text: &str) -> Result<Vec<&str>, String> {
    let mut items = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => {
                items.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if quoted {
        return Err(": a quoted text has no closing `\"`".into());
    }
    items.push(&text[start..]);
    Ok(items)
}

fn parse_item(item: &str) -> Result<Value, String> {
    let item = item.trim();
    if item.is_empty() {
        return Err(": an item is empty (two commas in a row, or a comma at an end)".into());
    }
    if let Some(body) = item.strip_prefix('"') {
        let Some(body) = body.strip_suffix('"') else {
            return Err(format!(": `{item}` has text after its closing quote"));
        };
        let mut out = String::new();
        let mut chars = body.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(other) => out.push(other),
                    None => return Err(format!(": `{item}` ends in a lone `\\`")),
                }
            } else if c == '"' {
                return Err(format!(": `{item}` has a quote inside; write it `\\\"`"));
            } else {
                out.push(c);
            }
        }
        return Ok(Value::Text(out));
    }
    if let Ok(n) = item.parse::<i64>() {
        return Ok(Value::Number(n));
    }
    if is_name(item) {
        return Ok(Value::Name(item.to_string()));
    }
    let why = if item.contains(['[', ']']) {
        "lists do not nest"
    } else {
        "an item is a whole number, a name (letters, digits and `-`) or a quoted text"
    };
    Err(format!(": `{item}` is not an item ({why})"))
}

/// A name as the rules language writes one: a letter, then letters, digits, `_` and single `-`.
pub fn is_name(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.first().is_some_and(u8::is_ascii_alphabetic)
        && !text.ends_with('-')
        && !text.contains("--")
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(text: &str) -> String {
        match parse_list(text) {
            Ok(list) => Value::List(list).show(),
            Err(why) => format!("refused{why}"),
        }
    }

    #[test]
    fn lists_read_as_servitor_prints_them_and_bare() {
        let cases = [
            ("[0, 2]", "[0, 2]"),
            ("[0,2]", "[0, 2]"),
            ("0,2", "[0, 2]"),
            (" 0 , 2 ", "[0, 2]"),
            ("[purple, black]", "[purple, black]"),
            ("purple", "[purple]"),
            ("[]", "[]"),
            ("[ ]", "[]"),
            ("", "[]"),
            ("[-1, scout-3]", "[-1, scout-3]"),
            (r#"["two words", "a, b"]"#, r#"["two words", "a, b"]"#),
            ("[0", "refused: the list has no closing `]`"),
            ("2]", "refused: the list has no opening `[`"),
            ("[[0]]", "refused: `[0]` is not an item (lists do not nest)"),
            (
                "a,,b",
                "refused: an item is empty (two commas in a row, or a comma at an end)",
            ),
            (
                "[a,]",
                "refused: an item is empty (two commas in a row, or a comma at an end)",
            ),
            (
                "a b",
                "refused: `a b` is not an item (an item is a whole number, a name (letters, digits and `-`) or a quoted text)",
            ),
            (r#""open, b"#, "refused: a quoted text has no closing `\"`"),
        ];
        let got: Vec<(&str, String)> = cases.iter().map(|(t, _)| (*t, show(t))).collect();
        let want: Vec<(&str, String)> = cases.iter().map(|(t, w)| (*t, w.to_string())).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn what_servitor_prints_reads_back_the_same() {
        for list in [
            Value::List(vec![]),
            Value::List(vec![Value::Number(0), Value::Number(-2)]),
            Value::List(vec![Value::Name("purple".into()), Value::Name("scout-3".into())]),
            Value::List(vec![Value::Text("say \"hi\", \\ then".into())]),
        ] {
            assert_eq!(Value::List(parse_list(&list.show()).unwrap()), list);
        }
    }
}
