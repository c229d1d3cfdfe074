//! Reads rules text with the pest grammar in `grammar/servitor.pest` and builds the
//! [`ast`](super::ast). The only place pest types exist: they never leave this file.
//! After an error, parsing resumes at the next line that starts an item, so one run reports
//! every broken item.

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
    match parse_roll_text(text)?.kind {
        ValueKind::Expr(e) => Ok(e),
        _ => Err(format!(
            "{} reads dice die by die, which gives no total to roll here: write a dice expression (`2d6+1`)",
            crate::escape::quoted(text)
        )),
    }
}

/// Parses dice given as text (by a script or on the command line): a dice expression
/// (`ValueKind::Expr`) or dice read die by die (`ValueKind::Roll`).
pub fn parse_roll_text(text: &str) -> Result<Value, String> {
    let file = FileId(u32::MAX);
    let pairs = Grammar::parse(Rule::dice_text, text).map_err(|e| {
        let d = pest_error(file, text, 0, e);
        let help = d.help.as_deref().map(|h| format!(" ({h})")).unwrap_or_default();
        format!(
            "cannot read {} as dice: {}{help}",
            crate::escape::quoted(text),
            d.message
        )
    })?;
    let reader = Reader { file, base: 0 };
    let pair = pairs
        .into_iter()
        .next()
        .and_then(|p| inner(p).next())
        .expect("dice_text holds an expr or a roll");
    reader.value(pair).map_err(|d| d.message.clone())
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
                            "a rules file may nest `{{ }}` and `[ ]` at most {MAX_NESTING} deep (see \"Limits\" in docs/limits.md): flatten the data"
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
        Rule::die_count | Rule::die_sides | Rule::number | Rule::decimal => "a number",
        Rule::ident => "a name",
        Rule::text | Rule::text_body => "a text in quotes",
        Rule::arrow => "`=>`",
        Rule::equals => "`=`",
        Rule::open_brace => "`{`",
        Rule::close_brace => "`}`",
        Rule::close_bracket => "`]` or `,`",
        Rule::roll | Rule::reading | Rule::side => "a value",
        Rule::chain | Rule::opposed | Rule::clamped | Rule::product | Rule::sequence | Rule::repeated => {
            "dice read die by die"
        }
        Rule::times_op => "`*`",
        Rule::times_kw => "`times`",
        Rule::total_kw => "`total`",
        Rule::given_kw => "`given`",
        Rule::rerolls_kw => "`rerolls`",
        Rule::unless_kw => "`unless`",
        Rule::explode_kw => "`explode`",
        Rule::clamp => "`at least N` or `at most N`",
        // After a value, `at least` may follow: the value is what was expected.
        Rule::at_kw => "a value",
        Rule::least_kw | Rule::most_kw => "`least` or `most`",
        Rule::modifier => "`+ N` or `- N`",
        Rule::keep_read | Rule::keep_word => "`highest … of` or `lowest … of`",
        Rule::keep_count => "how many dice to keep",
        Rule::count_read => "`count … in`",
        Rule::any_read => "`any … in`",
        Rule::all_read => "`all … in`",
        Rule::same_read => "`double in`, `triple in` or `same N in`",
        Rule::rerolled => "dice with a re-roll rule",
        Rule::pool => "dice (`3d6`, `2 red + 1 white`)",
        Rule::die_name => "a die's name",
        Rule::reroll => "a re-roll rule (`reroll 1`, `reroll one 0`, `reroll highest`, `reroll failed`)",
        Rule::reroll_die => "`highest` or `lowest`",
        Rule::target => "a target (`5+`, `6`, `1..2`, a face's name)",
        Rule::at_least | Rule::range | Rule::exact | Rule::signed => "a target (`5+`, `6`, `1..2`)",
        Rule::chart_cell => "a chart's cell (`to-wound(4, 5)`)",
        Rule::face_name => "a face's name",
        Rule::ties_rule => "`ties none`, `ties first`, `ties second` or `ties reroll`",
        Rule::force_rule | Rule::force_side => "`first forces reroll …` or `second forces reroll …`",
        Rule::stage => "`then <target>`",
        Rule::highest_kw => "`highest`",
        Rule::lowest_kw => "`lowest`",
        Rule::drop_kw => "`drop`",
        Rule::of_kw => "`of`",
        Rule::in_kw => "`in`",
        Rule::count_kw => "`count`",
        Rule::any_kw => "`any`",
        Rule::all_kw => "`all`",
        Rule::double_kw => "`double`",
        Rule::triple_kw => "`triple`",
        Rule::same_kw => "`same`",
        Rule::reroll_kw => "`reroll`",
        Rule::one_kw => "`one`",
        Rule::failed_kw => "`failed`",
        Rule::fail_kw => "`fail`",
        Rule::vs_kw => "`vs`",
        Rule::ties_kw => "`ties`",
        Rule::first_kw => "`first`",
        Rule::second_kw => "`second`",
        Rule::forces_kw => "`forces`",
        Rule::then_kw => "`then`",
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
            // After a plain dice expression (where `+` or `-` may come), the words that would
            // turn it into a roll read die by die are possible too, but name nothing the
            // author was writing: they are left out.
            let after_expr = positives.contains(&Rule::op);
            let positives: Vec<Rule> = positives
                .iter()
                .copied()
                .filter(|r| !(after_expr && matches!(r, Rule::vs_kw | Rule::reroll_kw)))
                .collect();
            let mut words: Vec<&str> = positives.iter().map(describe).collect();
            words.sort();
            words.dedup();
            let expected = join_or(&words);
            let help = hint(&found, &positives);
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
    if (found.starts_with("`.") || found.starts_with("`/")) && expected.contains(&Rule::text) {
        return Some("a path goes in quotes: `extends \"../base\"` (a bare package name needs none)".into());
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
            Rule::roll => ValueKind::Roll(Box::new(self.roll(pair)?)),
            _ => ValueKind::Expr(self.expr(pair)?),
        };
        Ok(Value { kind, span })
    }

    fn chain(&self, form: Pair<Rule>) -> Res<RollExpr> {
        let mut parts = inner(form);
        let first = Box::new(self.read(parts.next().expect("a chain starts with a count"), Vec::new())?);
        let stages = parts.map(|s| self.stage(s)).collect::<Res<Vec<_>>>()?;
        Ok(RollExpr::Chain { first, stages })
    }

    fn roll(&self, pair: Pair<Rule>) -> Res<RollExpr> {
        let form = inner(pair).next().expect("a roll has a form");
        Ok(match form.as_rule() {
            Rule::chain => self.chain(form)?,
            Rule::repeated => {
                let span = self.span(&form);
                let mut parts = inner(form);
                let first = parts.next().expect("a count");
                let count = match first.as_rule() {
                    Rule::chain => self.chain(first)?,
                    _ => {
                        let span = self.span(&first);
                        RollExpr::Clamp {
                            inner: self.side(first)?,
                            least: None,
                            most: None,
                            span,
                        }
                    }
                };
                parts.next(); // times
                let each = self.side(parts.next().expect("a roll made each time"))?;
                RollExpr::Times {
                    count: Box::new(count),
                    each,
                    span,
                }
            }
            Rule::opposed => {
                let mut parts = inner(form);
                let first = self.side(parts.next().expect("a first side"))?;
                parts.next(); // vs
                let second = self.side(parts.next().expect("a second side"))?;
                let mut ties = None;
                let mut force = None;
                for clause in parts {
                    let span = self.span(&clause);
                    match clause.as_rule() {
                        Rule::ties_rule => ties = inner(clause).nth(1).map(|p| self.name(p)),
                        _ => {
                            let words: Vec<_> = inner(clause).collect();
                            let side = words.first().expect("a side").as_str();
                            let die = words.last().expect("a die").as_str();
                            force = Some(ForceExpr {
                                by_second: side == "second",
                                highest: die == "highest",
                                own: words.iter().any(|w| w.as_rule() == Rule::rerolls_kw),
                                span,
                            });
                        }
                    }
                }
                RollExpr::Opposed {
                    first,
                    second,
                    ties,
                    force,
                }
            }
            Rule::clamped => {
                let span = self.span(&form);
                let mut parts = inner(form);
                let inner_side = self.side(parts.next().expect("a clamped side"))?;
                let (mut least, mut most) = (None, None);
                for clamp in parts {
                    let mut words = inner(clamp);
                    words.next(); // at
                    let bound = words.next().expect("least or most").as_str() == "least";
                    let n = self.number(words.next().expect("a bound"))?;
                    if bound {
                        least = Some(n);
                    } else {
                        most = Some(n);
                    }
                }
                RollExpr::Clamp {
                    inner: inner_side,
                    least,
                    most,
                    span,
                }
            }
            Rule::product => {
                let span = self.span(&form);
                let mut parts = inner(form);
                let first = self.side(parts.next().expect("a first factor"))?;
                parts.next(); // *
                let second = self.side(parts.next().expect("a second factor"))?;
                RollExpr::Product { first, second, span }
            }
            Rule::given => {
                let span = self.span(&form);
                let mut parts = inner(form);
                let first = self.side(parts.next().expect("a reading"))?;
                parts.next(); // given
                let condition = Box::new(self.reading(parts.next().expect("a condition"))?);
                RollExpr::Given { first, condition, span }
            }
            Rule::sequence => {
                let span = self.span(&form);
                let parts = inner(form)
                    .filter(|p| p.as_rule() == Rule::reading)
                    .map(|p| self.reading(p))
                    .collect::<Res<Vec<_>>>()?;
                RollExpr::Sequence { parts, span }
            }
            _ => RollExpr::Read(Box::new(self.reading(form)?)),
        })
    }

    fn side(&self, pair: Pair<Rule>) -> Res<Side> {
        let part = inner(pair).next().expect("a side holds a reading or an expression");
        let span = self.span(&part);
        Ok(match part.as_rule() {
            Rule::reading => Side::Read(Box::new(self.reading(part)?)),
            _ => Side::Total(self.expr(part)?, span),
        })
    }

    /// `reading`: one form, then modifiers.
    fn reading(&self, pair: Pair<Rule>) -> Res<ReadExpr> {
        let span = self.span(&pair);
        let mut parts = inner(pair);
        let form = parts.next().expect("a reading has a form");
        let mut modifiers = Vec::new();
        for m in parts {
            let mspan = self.span(&m);
            let mut mi = inner(m);
            let negative = mi.next().is_some_and(|op| op.as_str() == "-");
            let n = self.number(mi.next().expect("a modifier has a number"))?;
            modifiers.push((if negative { -n } else { n }, mspan));
        }
        let mut read = self.read(form, modifiers)?;
        read.span = span;
        Ok(read)
    }

    /// One form of reading (`keep_read`, `count_read`, …, `rerolled`).
    fn read(&self, pair: Pair<Rule>, modifiers: Vec<(i64, Span)>) -> Res<ReadExpr> {
        let span = self.span(&pair);
        let rule = pair.as_rule();
        let mut parts = inner(pair).peekable();
        let how = match rule {
            Rule::keep_read => {
                let word = parts.next().expect("highest or lowest");
                let drop = word.as_str().starts_with("drop");
                let highest = word.as_str().ends_with("highest");
                let n = match parts.next_if(|p| p.as_rule() == Rule::keep_count) {
                    Some(p) => {
                        let s = self.span(&p);
                        Some((self.small(p)?, s))
                    }
                    None => None,
                };
                parts.next(); // of
                How::Keep { highest, drop, n }
            }
            Rule::count_read | Rule::any_read | Rule::all_read | Rule::total_read => {
                parts.next(); // the word
                let target = self.target(parts.next().expect("a target"))?;
                parts.next(); // in
                match rule {
                    Rule::count_read => How::Count(target),
                    Rule::any_read => How::Any(target),
                    Rule::total_read => How::Total(target),
                    _ => How::All(target),
                }
            }
            Rule::same_read => {
                let word = parts.next().expect("double, triple or same");
                let wspan = self.span(&word);
                let n = match word.as_rule() {
                    Rule::double_kw => 2,
                    Rule::triple_kw => 3,
                    _ => {
                        let p = parts.next().expect("same N");
                        let n = self.number(p)?;
                        u32::try_from(n).unwrap_or(u32::MAX)
                    }
                };
                parts.next(); // in
                How::Same(n, wspan)
            }
            _ => {
                // `rerolled`: the dice, then the rule; `explode_read`: the dice, then `explode`.
                let mut dice = Vec::new();
                let mut reroll = None;
                let mut pool_span = span;
                let mut explode = None;
                for p in parts {
                    if p.as_rule() == Rule::reroll {
                        reroll = Some(self.reroll(p)?);
                    } else if p.as_rule() == Rule::explode_kw {
                        explode = Some(None);
                    } else if p.as_rule() == Rule::explode_depth {
                        let s = self.span(&p);
                        explode = Some(Some((self.small(p)?, s)));
                    } else {
                        let s = self.span(&p);
                        pool_span = Span::new(self.file, span.start, s.end);
                        dice.push(SignedTerm {
                            negative: false,
                            term: self.term(p)?,
                            span: s,
                        });
                    }
                }
                return Ok(ReadExpr {
                    how: explode.map_or(How::Sum, How::Explode),
                    pool: PoolExpr {
                        dice,
                        reroll,
                        span: pool_span,
                    },
                    modifiers,
                    span,
                });
            }
        };
        let pool = self.pool(parts.next().expect("a reading has a pool"))?;
        Ok(ReadExpr {
            how,
            pool,
            modifiers,
            span,
        })
    }

    fn pool(&self, pair: Pair<Rule>) -> Res<PoolExpr> {
        let span = self.span(&pair);
        let mut dice = Vec::new();
        let mut reroll = None;
        for p in inner(pair) {
            if p.as_rule() == Rule::reroll {
                reroll = Some(self.reroll(p)?);
            } else {
                let s = self.span(&p);
                dice.push(SignedTerm {
                    negative: false,
                    term: self.term(p)?,
                    span: s,
                });
            }
        }
        Ok(PoolExpr { dice, reroll, span })
    }

    fn reroll(&self, pair: Pair<Rule>) -> Res<RerollExpr> {
        let span = self.span(&pair);
        let mut parts = inner(pair);
        parts.next(); // reroll
        let first = parts.next().expect("a re-roll rule");
        let how = match first.as_rule() {
            Rule::one_kw => RerollHow::One(self.target(parts.next().expect("a target"))?),
            Rule::reroll_die => {
                if first.as_str() == "highest" {
                    RerollHow::Highest
                } else {
                    RerollHow::Lowest
                }
            }
            Rule::failed_kw => RerollHow::Failed,
            _ => RerollHow::Each(self.target(first)?),
        };
        Ok(RerollExpr { how, span })
    }

    fn target(&self, pair: Pair<Rule>) -> Res<TargetExpr> {
        let span = self.span(&pair);
        let mut fail = false;
        let mut test = None;
        for p in inner(pair) {
            match p.as_rule() {
                Rule::fail_kw => fail = true,
                Rule::at_least => {
                    let n = self.signed(inner(p).next().expect("a number"))?;
                    test = Some(TestExpr::AtLeast(n));
                }
                Rule::range => {
                    let mut ns = inner(p);
                    let lo = self.signed(ns.next().expect("a low end"))?;
                    let hi_pair = ns.next().expect("a high end");
                    let hi_span = self.span(&hi_pair);
                    let hi = self.signed(hi_pair)?;
                    if hi < lo {
                        return Err(Diagnostic::error(
                            hi_span,
                            format!("the range {lo}..{hi} runs backwards"),
                            "empty range",
                        )
                        .with_help(format!("write the smaller value first: `{hi}..{lo}`")));
                    }
                    test = Some(TestExpr::Between(lo, hi));
                }
                Rule::exact => {
                    let n = self.signed(inner(p).next().expect("a number"))?;
                    test = Some(TestExpr::Between(n, n));
                }
                Rule::chart_cell => {
                    let mut parts = inner(p);
                    let chart = self.name(parts.next().expect("a chart"));
                    let keys = parts.map(|k| self.signed(k)).collect::<Res<Vec<_>>>()?;
                    test = Some(TestExpr::Chart { chart, keys });
                }
                _ => test = Some(TestExpr::Face(p.as_str().to_string())),
            }
        }
        Ok(TargetExpr {
            fail,
            test: test.expect("a target has a test"),
            span,
        })
    }

    fn signed(&self, pair: Pair<Rule>) -> Res<i64> {
        self.number(pair)
    }

    fn stage(&self, pair: Pair<Rule>) -> Res<StageExpr> {
        let span = self.span(&pair);
        let mut parts = inner(pair);
        parts.next(); // then
        let target = self.target(parts.next().expect("a stage has a target"))?;
        let mut reroll = None;
        let mut unless = None;
        for p in parts {
            match p.as_rule() {
                Rule::reroll => reroll = Some(self.reroll(p)?),
                Rule::target => unless = Some(self.target(p)?),
                _ => {} // unless
            }
        }
        Ok(StageExpr {
            target,
            reroll,
            unless,
            span,
        })
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
            Rule::die_name => Term::Name(text.to_string()),
            Rule::decimal => Term::Decimal(text.to_string()),
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
