//! Diagnostics: what went wrong, where (a [`Span`]), a label on the span, and help.
//!
//! Every layer collects `Diagnostic`s instead of stopping at the first problem; a
//! [`Report`] holds all of them and renders them with miette, one block per diagnostic,
//! each headed by `file:line:col`.
//!
//! A [`Diagnostic`] carries its span, message, label, help and notes (other spans). It is
//! drawn from an `Excerpt`: only the lines it quotes, never a copy of the whole shared
//! source; a long line is cut round the label, control characters are made visible, and
//! columns count characters. At most `MAX_DIAGNOSTICS_PER_FILE` are drawn for a file, the
//! rest counted; one quoting a `<bundled>/…` file says where such files come from
//! ([`bundled_hint`]). `check --json` gives each as data ([`Diagnostic::to_json`]).
//! [`did_you_mean`] proposes the nearest known name.

use crate::escape;
use crate::limits::MAX_DIAGNOSTICS_PER_FILE;
use crate::source::{FileId, SourceFile, SourceMap, Span};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode, SpanContents};
use std::fmt::{self, Write as _};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    /// Only used for the related notes drawn under a diagnostic.
    Note,
}

/// One problem found in a package or a script. Boxed, so that `Result<_, Diagnostic>` stays
/// small on the happy path; the fields are reached through `Deref`.
#[derive(Debug, Clone)]
pub struct Diagnostic(Box<DiagnosticData>);

#[derive(Debug, Clone)]
pub struct DiagnosticData {
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    pub label: String,
    pub help: Option<String>,
    /// Other places that explain this one ("first defined here"), each with its own label.
    pub notes: Vec<(Span, String)>,
}

impl Diagnostic {
    /// This diagnostic as a JSON object (see [`Report::to_json`]).
    pub fn to_json(&self, sources: &SourceMap) -> serde_json::Value {
        let place = |span: Span| {
            let file = sources.get(span.file);
            let (line, column) = file.line_col(span.start);
            let (end_line, end_column) = file.line_col(span.end);
            serde_json::json!({
                "file": file.name, "line": line, "column": column,
                "end_line": end_line, "end_column": end_column,
            })
        };
        let mut json = place(self.span);
        json["severity"] = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
        .into();
        json["message"] = self.message.clone().into();
        json["label"] = self.label.clone().into();
        json["help"] = self.help.clone().into();
        json["notes"] = self
            .notes
            .iter()
            .map(|(span, label)| {
                let mut note = place(*span);
                note["label"] = label.clone().into();
                note
            })
            .collect();
        json
    }
}

impl std::ops::Deref for Diagnostic {
    type Target = DiagnosticData;
    fn deref(&self) -> &DiagnosticData {
        &self.0
    }
}

impl std::ops::DerefMut for Diagnostic {
    fn deref_mut(&mut self) -> &mut DiagnosticData {
        &mut self.0
    }
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>, label: impl Into<String>) -> Self {
        Diagnostic(Box::new(DiagnosticData {
            severity: Severity::Error,
            message: message.into(),
            span,
            label: label.into(),
            help: None,
            notes: Vec::new(),
        }))
    }

    pub fn warning(span: Span, message: impl Into<String>, label: impl Into<String>) -> Self {
        let mut d = Diagnostic::error(span, message, label);
        d.severity = Severity::Warning;
        d
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_help_opt(mut self, help: Option<String>) -> Self {
        if help.is_some() {
            self.help = help;
        }
        self
    }

    pub fn with_note(mut self, span: Span, label: impl Into<String>) -> Self {
        self.notes.push((span, label.into()));
        self
    }
}

/// "did you mean `x`?" for a misspelt name, when one candidate is close enough.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut best: Option<(f64, &str)> = None;
    for candidate in candidates {
        let score = strsim::jaro_winkler(name, candidate);
        if score > 0.8 && best.is_none_or(|(b, _)| score > b) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, c)| format!("did you mean `{c}`?"))
}

/// Looks `id` up in a map of named items; the error names the kind and suggests a near name:
/// "no table `reinforcement`; did you mean `reinforcements`?".
pub fn find<'m, T>(items: &'m indexmap::IndexMap<String, T>, kind: &str, id: &str) -> Result<&'m T, String> {
    items.get(id).ok_or_else(|| {
        let hint = did_you_mean(id, items.keys().map(String::as_str))
            .map(|h| format!("; {h}"))
            .unwrap_or_default();
        format!("no {kind} `{id}`{hint}")
    })
}

/// All diagnostics of one load or run, with the sources they point into.
#[derive(Debug, Default)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }

    pub fn error_count(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// Every diagnostic as a JSON object, for editors and scripts: `severity`, `file` (as it
    /// opens from the current folder), `line` and `column` (from 1, columns in characters) of
    /// its start and `end_line` / `end_column` of its end, `message`, `label`, `help` (or
    /// null) and `notes` (each with its own place and label). Unlike [`Report::render`], none
    /// are left out.
    pub fn to_json(&self, sources: &SourceMap) -> serde_json::Value {
        self.diagnostics.iter().map(|d| d.to_json(sources)).collect()
    }

    /// Renders every diagnostic as the user sees it. `color` adds ANSI colours. At most
    /// [`MAX_DIAGNOSTICS_PER_FILE`] are drawn for each file; the rest are counted in one line.
    pub fn render(&self, sources: &SourceMap, color: bool) -> String {
        let theme = if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        let handler = GraphicalReportHandler::new_themed(theme)
            .with_links(false)
            .with_width(100);
        let mut out = String::new();
        let mut shown: std::collections::BTreeMap<FileId, usize> = Default::default();
        for diagnostic in &self.diagnostics {
            let count = shown.entry(diagnostic.span.file).or_default();
            *count += 1;
            if *count > MAX_DIAGNOSTICS_PER_FILE {
                continue;
            }
            let rendered = Rendered::new(diagnostic, sources);
            // Writing into a String cannot fail.
            let _ = handler.render_report(&mut out, &rendered);
        }
        for (file, count) in shown {
            if count > MAX_DIAGNOSTICS_PER_FILE {
                let _ = writeln!(
                    out,
                    "  … and {} more in {} (at most {MAX_DIAGNOSTICS_PER_FILE} are shown for each file: fix these and check again)",
                    thousands((count - MAX_DIAGNOSTICS_PER_FILE) as u64),
                    escape::one_line(&sources.get(file).name),
                );
            }
        }
        out.push_str(&bundled_hint(self.diagnostics.iter().flat_map(|d| {
            std::iter::once(d.span)
                .chain(d.notes.iter().map(|(s, _)| *s))
                .map(|s| sources.get(s.file).name.as_str())
        })));
        out
    }
}

/// For file names shown as `<bundled>/NAME/…` (a ruleset inside the binary): how to get the
/// file, one line per package; empty when none is.
pub fn bundled_hint<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let mut packages: Vec<&str> = names
        .into_iter()
        .filter_map(|n| n.strip_prefix("<bundled>/")?.split('/').next())
        .collect();
    packages.sort_unstable();
    packages.dedup();
    packages
        .iter()
        .map(|p| {
            format!(
                "  note: <bundled>/{p}/… is a file of the ruleset `{p}` built into servitor: `servitor packages --export {p} DIR` copies it out to read (as DIR/{p}/…)\n",
                p = escape::one_line(p)
            )
        })
        .collect()
}

/// `15873` as `15,873`: limits and counts as people read them. A count that saturated at
/// `u128::MAX` is "more than 10^38".
pub fn thousands(n: impl Into<u128>) -> String {
    let n: u128 = n.into();
    if n == u128::MAX {
        return "more than 10^38".into();
    }
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// A diagnostic in the shape miette draws: an excerpt of its source file, labels and related
/// notes.
struct Rendered {
    message: String,
    severity: Severity,
    source: Excerpt,
    labels: Vec<LabeledSpan>,
    help: Option<String>,
    related: Vec<Rendered>,
}

/// Notes in the same file further than this many lines from the diagnostic are drawn under
/// it as notes of their own, so that one diagnostic never quotes a long stretch of a file.
const NOTE_GAP_LINES: usize = 12;

impl Rendered {
    fn new(diagnostic: &Diagnostic, sources: &SourceMap) -> Self {
        let file = sources.get(diagnostic.span.file);
        let line_of = |span: Span| file.line_col(span.start).0;
        let here = line_of(diagnostic.span);
        let (near, far): (Vec<_>, Vec<_>) = diagnostic.notes.iter().partition(|(span, _)| {
            span.file == diagnostic.span.file && line_of(*span).abs_diff(here) <= NOTE_GAP_LINES
        });
        let mut spans = vec![(diagnostic.span, diagnostic.label.as_str())];
        spans.extend(near.iter().map(|(span, label)| (*span, label.as_str())));
        let mut rendered = Self::at(sources, &spans, &diagnostic.message, diagnostic.severity);
        rendered.help = diagnostic.help.as_deref().map(|h| escape::visible(h).into_owned());
        for (span, label) in far {
            let note = Self::at(sources, &[(*span, label.as_str())], label, Severity::Note);
            rendered.related.push(note);
        }
        rendered
    }

    /// The first span is the diagnostic's own; all are in its file.
    fn at(sources: &SourceMap, spans: &[(Span, &str)], message: &str, severity: Severity) -> Self {
        let file = sources.get(spans[0].0.file);
        let (source, excerpt_spans) = Excerpt::new(file, spans.iter().map(|(s, _)| *s));
        let labels = spans
            .iter()
            .zip(excerpt_spans)
            .map(|((_, label), span)| LabeledSpan::new_with_span(Some(escape::one_line(label).into_owned()), span))
            .collect();
        Rendered {
            message: escape::visible(message).into_owned(),
            severity,
            source,
            labels,
            help: None,
            related: Vec::new(),
        }
    }
}

/// The lines of a source file one diagnostic quotes, made safe to print: control characters
/// made visible, lines longer than [`MAX_QUOTED_LINE`] characters cut to a window round the
/// label, spans over more than [`MAX_QUOTED_SPAN_LINES`] lines cut to their first line. Offsets
/// handed to miette are offsets in this excerpt; line numbers and the header's column (in
/// characters) are the file's.
struct Excerpt {
    name: String,
    text: String,
    /// The file's line (0-based) of the excerpt's first line.
    first_line: usize,
    /// Excerpt offsets where each of its lines starts.
    line_starts: Vec<usize>,
    /// (excerpt offset, file column in characters, 0-based) of each label's start.
    columns: Vec<(usize, usize)>,
}

/// Longest quoted line, in characters; longer lines are cut round the label.
const MAX_QUOTED_LINE: usize = 120;
/// Most lines of one label quoted; a longer span is shown by its first line.
const MAX_QUOTED_SPAN_LINES: usize = 12;

impl Excerpt {
    /// The excerpt for `spans` of `file`, and each span as an excerpt span.
    fn new(file: &SourceFile, spans: impl Iterator<Item = Span>) -> (Excerpt, Vec<miette::SourceSpan>) {
        let text = &*file.text;
        let lines = file.line_count();
        // Clamp each span into the text, at character boundaries, and cut long ones.
        let floor = |mut o: usize| {
            o = o.min(text.len());
            while !text.is_char_boundary(o) {
                o -= 1;
            }
            o
        };
        let spans: Vec<(usize, usize)> = spans
            .map(|s| {
                let start = floor(s.start);
                let mut end = floor(s.end).max(start);
                let first = file.line_of(start);
                if file.line_of(end.saturating_sub(1).max(start)) >= first + MAX_QUOTED_SPAN_LINES {
                    end = file.line_end(first).max(start);
                }
                (start, end)
            })
            .collect();
        let lo = spans
            .iter()
            .map(|s| file.line_of(s.0))
            .min()
            .unwrap_or(0)
            .saturating_sub(1);
        let hi = spans
            .iter()
            .map(|s| file.line_of(s.1))
            .max()
            .unwrap_or(0)
            .saturating_add(1)
            .min(lines.saturating_sub(1));
        let mut wanted: Vec<usize> = spans.iter().flat_map(|s| [s.0, s.1]).collect();
        wanted.sort_unstable();
        wanted.dedup();
        let mut at = std::collections::HashMap::new();
        let mut out = String::new();
        let mut line_starts = Vec::new();
        for line in lo..=hi.max(lo) {
            line_starts.push(out.len());
            let start = file.line_start(line);
            let end = file.line_end(line);
            let body = &text[start..end];
            let body = body.strip_suffix('\r').unwrap_or(body);
            let chars = body.chars().count();
            // The window of characters shown: round the first label that starts on this line.
            let (win_lo, win_hi) = if chars <= MAX_QUOTED_LINE {
                (0, chars)
            } else {
                let focus = wanted
                    .iter()
                    .find(|&&o| o >= start && o <= end)
                    .map_or(0, |&o| text[start..o].chars().count());
                let from = focus.saturating_sub(MAX_QUOTED_LINE / 3).min(chars - MAX_QUOTED_LINE);
                (from, from + MAX_QUOTED_LINE)
            };
            if win_lo > 0 {
                out.push('…');
            }
            let win_start = out.len();
            let mut win_end = None;
            for (idx, (i, c)) in body.char_indices().enumerate() {
                if idx == win_hi && win_end.is_none() {
                    win_end = Some(out.len());
                }
                let pos = if idx < win_lo {
                    win_start
                } else {
                    win_end.unwrap_or(out.len())
                };
                if wanted.binary_search(&(start + i)).is_ok() {
                    at.insert(start + i, pos);
                }
                if idx >= win_lo && idx < win_hi {
                    out.push_str(&escape::visible(c.encode_utf8(&mut [0; 4])));
                }
            }
            let line_end = win_end.unwrap_or(out.len());
            let next = if line + 1 < lines {
                file.line_start(line + 1)
            } else {
                text.len() + 1
            };
            for &o in wanted.iter().filter(|&&o| o >= start + body.len() && o < next) {
                at.insert(o, line_end);
            }
            if win_end.is_some() {
                out.push('…');
            }
            if line + 1 < lines {
                out.push('\n');
            }
        }
        let mut columns = Vec::new();
        let excerpt_spans = spans
            .iter()
            .map(|&(s, e)| {
                let from = at.get(&s).copied().unwrap_or(0);
                let to = at.get(&e).copied().unwrap_or(from).max(from);
                columns.push((from, file.line_col(s).1 - 1));
                miette::SourceSpan::from((from, to - from))
            })
            .collect();
        let excerpt = Excerpt {
            name: escape::one_line(&file.name).into_owned(),
            text: out,
            first_line: lo,
            line_starts,
            columns,
        };
        (excerpt, excerpt_spans)
    }

    /// The excerpt line (0-based) holding excerpt offset `offset`.
    fn line_at(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= offset).saturating_sub(1)
    }

    /// Where excerpt line `k` ends, with its newline.
    fn line_end(&self, k: usize) -> usize {
        self.line_starts.get(k + 1).copied().unwrap_or(self.text.len())
    }
}

struct ExcerptContents<'a> {
    data: &'a [u8],
    span: miette::SourceSpan,
    name: &'a str,
    line: usize,
    column: usize,
    line_count: usize,
}

impl<'a> SpanContents<'a> for ExcerptContents<'a> {
    fn data(&self) -> &'a [u8] {
        self.data
    }
    fn span(&self) -> &miette::SourceSpan {
        &self.span
    }
    fn name(&self) -> Option<&str> {
        Some(self.name)
    }
    fn line(&self) -> usize {
        self.line
    }
    fn column(&self) -> usize {
        self.column
    }
    fn line_count(&self) -> usize {
        self.line_count
    }
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &miette::SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, miette::MietteError> {
        let start = span.offset().min(self.text.len());
        let end = (span.offset() + span.len()).min(self.text.len()).max(start);
        let first = self.line_at(start);
        let (from, to, line, column) = if before == 0 && after == 0 {
            let column = self
                .columns
                .iter()
                .find(|(o, _)| *o == start)
                .map_or_else(|| self.text[self.line_starts[first]..start].chars().count(), |c| c.1);
            (start, end, first, column)
        } else {
            let k0 = first.saturating_sub(before);
            let k1 = (self.line_at(end) + after).min(self.line_starts.len() - 1);
            (self.line_starts[k0], self.line_end(k1), k0, 0)
        };
        Ok(Box::new(ExcerptContents {
            data: &self.text.as_bytes()[from..to],
            span: (from, to - from).into(),
            name: &self.name,
            line: self.first_line + line,
            column,
            // Whole excerpts are drawn as one: every context reaches the next.
            line_count: self.first_line + self.line_starts.len(),
        }))
    }
}
impl fmt::Debug for Rendered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for Rendered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Rendered {}

impl miette::Diagnostic for Rendered {
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Note => miette::Severity::Advice,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        if self.related.is_empty() {
            None
        } else {
            Some(Box::new(self.related.iter().map(|r| r as &dyn miette::Diagnostic)))
        }
    }
}
