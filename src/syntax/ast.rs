//! The syntax tree of one rules file. Plain data with byte spans; no pest types.

use crate::source::Span;

/// A name with the place it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    pub text: String,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct File {
    pub items: Vec<Item>,
}

#[derive(Debug, Clone)]
pub enum Item {
    /// `[override] <kind> <id> ["Label"] { … }`
    Define(ItemDef),
    /// `remove <kind> <id>`
    Remove { kind: Name, id: Name, span: Span },
    /// `[override] const <id> = <value>`
    Const {
        is_override: bool,
        id: Name,
        value: Value,
        span: Span,
    },
}

#[derive(Debug, Clone)]
pub struct ItemDef {
    pub is_override: bool,
    pub kind: Name,
    pub id: Name,
    pub label: Option<Text>,
    pub body: Block,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Text {
    pub text: String,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Block {
    pub entries: Vec<Entry>,
    pub span: Span,
}

impl Block {
    pub fn properties(&self) -> impl Iterator<Item = &Property> {
        self.entries.iter().filter_map(|e| match e {
            Entry::Property(p) => Some(p),
            _ => None,
        })
    }

    pub fn rows(&self) -> impl Iterator<Item = &Row> {
        self.entries.iter().filter_map(|e| match e {
            Entry::Row(r) => Some(r),
            _ => None,
        })
    }
}

#[derive(Debug, Clone)]
pub enum Entry {
    Property(Property),
    Row(Row),
    Remove(RemoveTarget, Span),
}

#[derive(Debug, Clone)]
pub enum RemoveTarget {
    Rows(RowKey),
    Entry(Name),
}

/// `key value value …`
#[derive(Debug, Clone)]
pub struct Property {
    pub key: Name,
    pub values: Vec<Value>,
    pub span: Span,
}

/// `<key> => <result> ["Label"] [{ … }]`
#[derive(Debug, Clone)]
pub struct Row {
    pub key: RowKey,
    pub result: Name,
    pub label: Option<Text>,
    pub body: Option<Block>,
    pub span: Span,
}

/// An inclusive range of roll totals; a single value has `lo == hi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowKey {
    pub lo: i64,
    pub hi: i64,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Value {
    pub kind: ValueKind,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum ValueKind {
    Text(String),
    List(Vec<Value>),
    Block(Block),
    Expr(Expr),
    /// Dice read die by die: `highest of 3d6`, `any 6 in 2d6`, `… vs …`, chains.
    Roll(Box<RollExpr>),
}

/// Terms joined by `+` / `-`: a dice expression, a number, a name or a tagged value.
#[derive(Debug, Clone)]
pub struct Expr {
    pub terms: Vec<SignedTerm>,
}

#[derive(Debug, Clone)]
pub struct SignedTerm {
    pub negative: bool,
    pub term: Term,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    /// `NdS`; `count` is 1 when omitted.
    Die {
        count: u32,
        sides: u32,
    },
    /// `N name`: N dice of a die defined by its faces.
    Pool {
        count: u32,
        die: String,
    },
    /// `name(n)`
    Tagged {
        name: String,
        number: i64,
    },
    Number(i64),
    /// A number with a decimal point, as written (`12.5`): inches on a battlefield.
    Decimal(String),
    Name(String),
}

/// Dice read die by die, as written (see `dice::read` for what each form means).
#[derive(Debug, Clone)]
pub enum RollExpr {
    Read(Box<ReadExpr>),
    Opposed {
        first: Side,
        second: Side,
        /// `ties none|first|second|reroll`, as written (checked when lowered).
        ties: Option<Name>,
        force: Option<ForceExpr>,
    },
    Chain {
        first: Box<ReadExpr>,
        stages: Vec<StageExpr>,
    },
    /// `2d6 - 4 at least 0`: a number read, held within bounds.
    Clamp {
        inner: Side,
        least: Option<i64>,
        most: Option<i64>,
        span: Span,
    },
    /// `d12 * d12`: one number times another.
    Product {
        first: Side,
        second: Side,
        span: Span,
    },
    /// `any 6 in 2d6 then any 5+ in 2d6`: yes or no rolls, each made while those before came
    /// to no.
    Sequence {
        parts: Vec<ReadExpr>,
        span: Span,
    },
    /// `count 3+ in 10d6 then 4+ then fail 3+ times d3`: the second roll made once for each the
    /// first reads (a plain first side is a `Clamp` with no bounds); `least` and `most` hold each
    /// roll made (`any arrow in scatter times 2d6 - 4 at least 0`).
    Times {
        count: Box<RollExpr>,
        each: Side,
        least: Option<i64>,
        most: Option<i64>,
        span: Span,
    },
    /// `total 10+ in 2d6 given any 6 in 2d6`: a reading of dice that met a condition read
    /// from the same dice.
    Given {
        first: Side,
        condition: Box<ReadExpr>,
        span: Span,
    },
}

/// One side of `… vs …`: a reading, or a plain dice total.
#[derive(Debug, Clone)]
pub enum Side {
    Read(Box<ReadExpr>),
    Total(Expr, Span),
}

/// A pool and how it is read, with modifiers (`highest of d6 + 1`).
#[derive(Debug, Clone)]
pub struct ReadExpr {
    pub how: How,
    pub pool: PoolExpr,
    pub modifiers: Vec<(i64, Span)>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum How {
    /// `highest 2 of`, `lowest of`, `drop lowest of` (`n` is `None` when not written: 1).
    Keep {
        highest: bool,
        drop: bool,
        n: Option<(u32, Span)>,
    },
    Count(TargetExpr),
    Any(TargetExpr),
    All(TargetExpr),
    /// `total 10+ in 2d6`: yes when the total meets the target.
    Total(TargetExpr),
    /// `d6 explode 3`: the total, each die at its highest face rolled again (the depth, when
    /// written).
    Explode(Option<(u32, Span)>),
    /// `double` (2), `triple` (3), `same N`.
    Same(u32, Span),
    /// A pool with a re-roll rule, summed (`2d6 reroll 1`).
    Sum,
}

/// Dice (only dice: `3d6`, `2 red + 1 white`) and their re-roll rule.
#[derive(Debug, Clone)]
pub struct PoolExpr {
    pub dice: Vec<SignedTerm>,
    pub reroll: Option<RerollExpr>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct RerollExpr {
    pub how: RerollHow,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum RerollHow {
    Each(TargetExpr),
    One(TargetExpr),
    Highest,
    Lowest,
    Failed,
}

/// `5+`, `6`, `1..2`, a face's name, a chart's cell; `fail` in front turns it round.
#[derive(Debug, Clone)]
pub struct TargetExpr {
    pub fail: bool,
    pub test: TestExpr,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum TestExpr {
    AtLeast(i64),
    Between(i64, i64),
    Face(String),
    /// `to-wound(4, 5)`: the chart's value for those keys, read as `N+`.
    Chart {
        chart: Name,
        keys: Vec<i64>,
    },
}

/// `second forces reroll highest`.
#[derive(Debug, Clone)]
pub struct ForceExpr {
    pub by_second: bool,
    pub highest: bool,
    /// `second rerolls highest`: the side re-rolls its own die (when it would lose).
    pub own: bool,
    pub span: Span,
}

/// `then 4+ [reroll …]`.
#[derive(Debug, Clone)]
pub struct StageExpr {
    pub target: TargetExpr,
    pub reroll: Option<RerollExpr>,
    /// `unless 6`: the stage before's dice showing it come through this stage unrolled.
    pub unless: Option<TargetExpr>,
    pub span: Span,
}

impl Value {
    /// The single term of a one-term expression, with its sign applied to numbers.
    fn single_term(&self) -> Option<&SignedTerm> {
        match &self.kind {
            ValueKind::Expr(e) if e.terms.len() == 1 => e.terms.first(),
            _ => None,
        }
    }

    pub fn as_number(&self) -> Option<i64> {
        let t = self.single_term()?;
        match t.term {
            Term::Number(n) => Some(if t.negative { -n } else { n }),
            _ => None,
        }
    }

    /// A whole number or one with a decimal point (`12.5`), as inches on a battlefield.
    pub fn as_inches(&self) -> Option<f64> {
        let t = self.single_term()?;
        let n = match &t.term {
            Term::Number(n) => *n as f64,
            Term::Decimal(text) => text.parse::<f64>().ok().filter(|v| v.is_finite())?,
            _ => return None,
        };
        Some(if t.negative { -n } else { n })
    }

    pub fn as_name(&self) -> Option<&str> {
        let t = self.single_term()?;
        match &t.term {
            Term::Name(n) if !t.negative => Some(n),
            _ => None,
        }
    }

    pub fn as_text(&self) -> Option<&str> {
        match &self.kind {
            ValueKind::Text(t) => Some(t),
            _ => None,
        }
    }

    pub fn as_expr(&self) -> Option<&Expr> {
        match &self.kind {
            ValueKind::Expr(e) => Some(e),
            _ => None,
        }
    }

    /// What kind of value this is, for "expected …, found …" messages.
    pub fn describe(&self) -> &'static str {
        match &self.kind {
            ValueKind::Text(_) => "a text",
            ValueKind::List(_) => "a list",
            ValueKind::Block(_) => "a block",
            ValueKind::Roll(_) => "dice read die by die",
            ValueKind::Expr(e) => match e.terms.as_slice() {
                [t] => match t.term {
                    Term::Number(_) => "a number",
                    Term::Decimal(_) => "a number with a decimal point",
                    Term::Name(_) => "a name",
                    Term::Tagged { .. } => "a tagged value",
                    _ => "a dice expression",
                },
                _ => "an expression",
            },
        }
    }
}
