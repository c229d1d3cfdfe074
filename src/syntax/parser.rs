//! Reads rules text with the pest grammar in `grammar/servitor.pest` and builds the
//! [`ast`](super::ast). The only place pest types exist: they never leave this file.

use super::ast::*;
use crate::diagnostic::Diagnostic;
use crate::limits::MAX_NESTING;
use crate::source::{FileId, Span};
use pest::Parser as _;
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/servitor.pest"]
struct Grammar;

/// Parses one file. Returns every item that parsed, and a diagnostic for each part that did
/// not: after an error, parsing resumes at the next line that starts an item in column 1.
pub fn parse(file: FileId, text: &str) -> (File, Vec<Diagnostic>) {
    // Deep nesting would exhaust the stack of the parser and of every walk over the tree:
    // it is refused before pest sees the text.
    if let Some(too_deep) = nesting_error(file, text) {
        return (File { items: Vec::new() }, vec![too_deep]);
    }
    match parse_chunk(file, text, 0) {
        Ok(items) => (File { items }, Vec::new()),
        Err(first_error) => {
            let mut items = Vec::new();
            let mut diagnostics = Vec::new();
            let starts = item_starts(text);
            for (i, &start) in starts.iter().enumerate() {
                let end = starts.get(i + 1).copied().unwrap_or(text.len());
                match parse_chunk(file, &text[start..end], start) {
                    Ok(mut parsed) => items.append(&mut parsed),
                    Err(d) => diagnostics.push(d),
                }
            }
            if diagnostics.is_empty() {
                // The chunks parse on their own but not together (e.g. an unclosed block
                // swallowed the rest of the file): the first error is the true one.
                diagnostics.push(first_error);
            }
            (File { items }, diagnostics)
        }
    }
}

/// Parses a dice expression given as text (by a script or on the command line).
pub fn parse_dice_text(text: &str) -> Result<Expr, String> {
    let file = FileId(u32::MAX);
    let pairs = Grammar::parse(Rule::dice_text, text).map_err(|e| {
        let d = pest_error(file, text, 0, e);
        format!("cannot read `{text}` as dice: {}", d.message)
    })?;
    let reader = Reader { file, base: 0 };
    let expr = pairs
        .into_iter()
        .next()
        .and_then(|p| inner(p).next())
        .expect("dice_text holds an expr");
    reader.expr(expr).map_err(|d| d.message.clone())
}

/// The first `{` or `[` nested deeper than [`MAX_NESTING`], as a diagnostic. Texts in quotes
/// and comments are skipped the way the grammar reads them.
fn nesting_error(file: FileId, text: &str) -> Option<Diagnostic> {
    let mut depth = 0usize;
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                while let Some((_, c)) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '#' => {
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '{' | '[' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(
                        Diagnostic::error(
                            Span::new(file, i, i + 1),
                            format!("blocks and lists nest more than {MAX_NESTING} deep here"),
                            "too deep",
                        )
                        .with_help(format!(
                            "a rules file may nest `{{ }}` and `[ ]` at most {MAX_NESTING} deep (see \"Limits\" in grammar/README.md): flatten the data"
                        )),
                    );
                }
            }
            '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Byte offsets of lines that begin with a letter in column 1: where items usually start.
fn item_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if offset > 0 && line.starts_with(|c: char| c.is_ascii_alphabetic()) {
            starts.push(offset);
        }
        offset += line.len();
    }
    starts
}

fn parse_chunk(file: FileId, text: &str, base: usize) -> Result<Vec<Item>, Diagnostic> {
    let pairs = Grammar::parse(Rule::file, text).map_err(|e| pest_error(file, text, base, e))?;
    let reader = Reader { file, base };
    let file_pair = pairs.into_iter().next().expect("the file rule always yields one pair");
    let mut items = Vec::new();
    for pair in file_pair.into_inner() {
        match pair.as_rule() {
            Rule::EOI => {}
            _ => items.push(reader.item(pair)?),
        }
    }
    Ok(items)
}

/// Words for grammar rules in "expected …" messages.
fn describe(rule: &Rule) -> &'static str {
    match rule {
        Rule::EOI => "end of file",
        Rule::dice_text => "a dice expression",
        Rule::file | Rule::define_item => "an item (`table x { … }`, `const x = …`, …)",
        Rule::const_item => "`const`",
        Rule::remove_item | Rule::remove_kw | Rule::remove_entry => "`remove`",
        Rule::override_kw => "`override`",
        Rule::const_kw => "`const`",
        Rule::block => "a block `{ … }`",
        Rule::row => "a table row (`2-5 => result`)",
        Rule::row_key => "a roll value or range (`3`, `2-5`)",
        Rule::property => "an entry (`name value`)",
        Rule::list => "a list `[ … ]`",
        Rule::expr => "a value",
        Rule::op => "`+` or `-`",
        Rule::minus => "`-`",
        Rule::std_die => "a die (`d6`, `2d6`)",
        Rule::pool_die => "dice (`2 red`)",
        Rule::tagged => "a tagged value (`arrow(90)`)",
        Rule::placement_word => "`at`, `size` or `times`",
        Rule::die_count | Rule::die_sides | Rule::number => "a number",
        Rule::ident => "a name",
        Rule::text | Rule::text_body => "a text in quotes",
        Rule::arrow => "`=>`",
        Rule::equals => "`=`",
        Rule::open_brace => "`{`",
        Rule::close_brace => "`}`",
        Rule::close_bracket => "`]` or `,`",
        _ => "something else",
    }
}

fn pest_error(file: FileId, text: &str, base: usize, error: pest::error::Error<Rule>) -> Diagnostic {
    let pos = match error.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    // Point at the offending token (or the end of the line), not at a zero-width spot.
    let rest = &text[pos.min(text.len())..];
    let token_len = rest
        .char_indices()
        .find(|&(i, c)| i > 0 && (c.is_whitespace() || "{}[]();,=".contains(c)))
        .map_or(rest.len(), |(i, _)| i)
        .max(rest.chars().next().map_or(0, char::len_utf8));
    let span = Span::new(file, base + pos, base + pos + token_len.min(rest.len()));
    let found = match rest.chars().next() {
        None => "end of file".to_string(),
        Some('\n') => "end of line".to_string(),
        Some(_) => format!("`{}`", &rest[..token_len.min(rest.len())]),
    };
    let (message, help) = match &error.variant {
        ErrorVariant::ParsingError { positives, .. } => {
            let mut words: Vec<&str> = positives.iter().map(describe).collect();
            words.sort();
            words.dedup();
            let expected = join_or(&words);
            let help = hint(&found, positives);
            (format!("expected {expected}, found {found}"), help)
        }
        ErrorVariant::CustomError { message } => (message.clone(), None),
    };
    Diagnostic::error(span, message, "not understood here").with_help_opt(help)
}

fn hint(found: &str, expected: &[Rule]) -> Option<String> {
    if found == "end of file"
        && expected
            .iter()
            .any(|r| matches!(r, Rule::close_brace | Rule::row | Rule::property))
    {
        return Some("a block `{` is never closed: add the missing `}`".into());
    }
    if found.starts_with("`\"") {
        return Some("texts in quotes end at the next `\"`; write `\\\"` for a quote inside".into());
    }
    if found.starts_with("`d") && expected.contains(&Rule::ident) {
        return Some("names may not look like dice (`d6`, `d12x` are read as dice)".into());
    }
    None
}

fn join_or(words: &[&str]) -> String {
    match words {
        [] => "something else".into(),
        [one] => (*one).into(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

/// A pair's children without punctuation.
fn inner(pair: Pair<Rule>) -> impl Iterator<Item = Pair<Rule>> {
    pair.into_inner().filter(|p| {
        !matches!(
            p.as_rule(),
            Rule::arrow | Rule::equals | Rule::open_brace | Rule::close_brace | Rule::close_bracket
        )
    })
}

struct Reader {
    file: FileId,
    base: usize,
}

type Res<T> = Result<T, Diagnostic>;

impl Reader {
    fn span(&self, pair: &Pair<Rule>) -> Span {
        let s = pair.as_span();
        Span::new(self.file, self.base + s.start(), self.base + s.end())
    }

    fn name(&self, pair: Pair<Rule>) -> Name {
        Name {
            span: self.span(&pair),
            text: pair.as_str().to_string(),
        }
    }

    fn item(&self, pair: Pair<Rule>) -> Res<Item> {
        let span = self.span(&pair);
        let rule = pair.as_rule();
        let mut inner = inner(pair).peekable();
        let is_override = inner.next_if(|p| p.as_rule() == Rule::override_kw).is_some();
        match rule {
            Rule::const_item => {
                inner.next(); // const_kw
                let id = self.name(inner.next().expect("const has an id"));
                let value = self.value(inner.next().expect("const has a value"))?;
                Ok(Item::Const {
                    is_override,
                    id,
                    value,
                    span,
                })
            }
            Rule::remove_item => {
                inner.next(); // remove_kw
                let kind = self.name(inner.next().expect("remove has a kind"));
                let id = self.name(inner.next().expect("remove has an id"));
                Ok(Item::Remove { kind, id, span })
            }
            _ => {
                let kind = self.name(inner.next().expect("item has a kind"));
                let id = self.name(inner.next().expect("item has an id"));
                let (label, body) = self.label_and_block(inner)?;
                let body = body.expect("item has a block");
                Ok(Item::Define(ItemDef {
                    is_override,
                    kind,
                    id,
                    label,
                    body,
                    span,
                }))
            }
        }
    }

    /// The optional `"Label"` and `{ block }` that end items and rows.
    fn label_and_block<'i>(&self, rest: impl Iterator<Item = Pair<'i, Rule>>) -> Res<(Option<Text>, Option<Block>)> {
        let mut label = None;
        let mut body = None;
        for p in rest {
            match p.as_rule() {
                Rule::text => label = Some(self.text(p)),
                _ => body = Some(self.block(p)?),
            }
        }
        Ok((label, body))
    }

    fn text(&self, pair: Pair<Rule>) -> Text {
        let span = self.span(&pair);
        let body = inner(pair).next().map_or("", |p| p.as_str());
        Text {
            text: unescape(body),
            span,
        }
    }

    fn block(&self, pair: Pair<Rule>) -> Res<Block> {
        let span = self.span(&pair);
        let mut entries = Vec::new();
        for p in inner(pair) {
            entries.push(match p.as_rule() {
                Rule::row => Entry::Row(self.row(p)?),
                Rule::remove_entry => {
                    let span = self.span(&p);
                    let target = inner(p).nth(1).expect("remove has a target");
                    let target = match target.as_rule() {
                        Rule::row_key => RemoveTarget::Rows(self.row_key(target)?),
                        _ => RemoveTarget::Entry(self.name(target)),
                    };
                    Entry::Remove(target, span)
                }
                _ => Entry::Property(self.property(p)?),
            });
        }
        Ok(Block { entries, span })
    }

    fn row(&self, pair: Pair<Rule>) -> Res<Row> {
        let span = self.span(&pair);
        let mut inner = inner(pair);
        let key = self.row_key(inner.next().expect("row has a key"))?;
        let result = self.name(inner.next().expect("row has a result"));
        let (label, body) = self.label_and_block(inner)?;
        Ok(Row {
            key,
            result,
            label,
            body,
            span,
        })
    }

    fn row_key(&self, pair: Pair<Rule>) -> Res<RowKey> {
        let span = self.span(&pair);
        let mut numbers = inner(pair);
        let lo = self.number(numbers.next().expect("row key has a number"))?;
        let hi = match numbers.next() {
            Some(p) => self.number(p)?,
            None => lo,
        };
        if hi < lo {
            return Err(
                Diagnostic::error(span, format!("the range {lo}-{hi} runs backwards"), "empty range")
                    .with_help(format!("write the smaller value first: `{hi}-{lo}`")),
            );
        }
        Ok(RowKey { lo, hi, span })
    }

    fn number(&self, pair: Pair<Rule>) -> Res<i64> {
        pair.as_str().parse().map_err(|_| {
            Diagnostic::error(self.span(&pair), "this number is too large", "too large")
                .with_help("numbers must lie between -9223372036854775808 and 9223372036854775807")
        })
    }

    fn small(&self, pair: Pair<Rule>) -> Res<u32> {
        pair.as_str().parse().map_err(|_| {
            Diagnostic::error(self.span(&pair), "this dice count is too large", "too large")
                .with_help("dice counts and sides must be below 4294967296")
        })
    }

    fn property(&self, pair: Pair<Rule>) -> Res<Property> {
        let span = self.span(&pair);
        let mut inner = inner(pair);
        let key = self.name(inner.next().expect("property has a key"));
        let values = inner.map(|p| self.value(p)).collect::<Res<Vec<_>>>()?;
        Ok(Property { key, values, span })
    }

    fn value(&self, pair: Pair<Rule>) -> Res<Value> {
        let span = self.span(&pair);
        let kind = match pair.as_rule() {
            Rule::text => ValueKind::Text(self.text(pair).text),
            Rule::list => ValueKind::List(inner(pair).map(|p| self.value(p)).collect::<Res<_>>()?),
            Rule::block => ValueKind::Block(self.block(pair)?),
            _ => ValueKind::Expr(self.expr(pair)?),
        };
        Ok(Value { kind, span })
    }

    fn expr(&self, pair: Pair<Rule>) -> Res<Expr> {
        let mut terms = Vec::new();
        let mut negative = false;
        for p in inner(pair) {
            match p.as_rule() {
                Rule::minus => negative = true,
                Rule::op => negative = p.as_str() == "-",
                _ => {
                    let span = self.span(&p);
                    terms.push(SignedTerm {
                        negative,
                        term: self.term(p)?,
                        span,
                    });
                    negative = false;
                }
            }
        }
        Ok(Expr { terms })
    }

    fn term(&self, pair: Pair<Rule>) -> Res<Term> {
        let rule = pair.as_rule();
        let span = self.span(&pair);
        let text = pair.as_str();
        let mut inner = inner(pair);
        Ok(match rule {
            Rule::std_die => {
                let mut count = 1;
                let mut sides = 0;
                for p in inner {
                    match p.as_rule() {
                        Rule::die_count => count = self.small(p)?,
                        _ => sides = self.small(p)?,
                    }
                }
                Term::Die { count, sides }
            }
            Rule::pool_die => {
                let count = self.small(inner.next().expect("pool has a count"))?;
                let die = inner.next().expect("pool has a die").as_str().to_string();
                Term::Pool { count, die }
            }
            Rule::tagged => {
                let name = inner.next().expect("tagged has a name").as_str().to_string();
                let mut negative = false;
                let mut number = 0;
                for p in inner {
                    match p.as_rule() {
                        Rule::minus => negative = true,
                        _ => number = self.number(p)?,
                    }
                }
                Term::Tagged {
                    name,
                    number: if negative { -number } else { number },
                }
            }
            Rule::number => Term::Number(
                text.parse()
                    .map_err(|_| Diagnostic::error(span, "this number is too large", "too large"))?,
            ),
            _ => Term::Name(text.to_string()),
        })
    }
}

fn unescape(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}
