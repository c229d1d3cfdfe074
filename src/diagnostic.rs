//! Diagnostics: what went wrong, where (a [`Span`]), a label on the span, and help.
//!
//! Every layer collects `Diagnostic`s instead of stopping at the first problem; a
//! [`Report`] holds all of them and renders them with miette, one block per diagnostic,
//! each headed by `file:line:col`.

use crate::source::{SourceMap, Span};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode};
use std::fmt;

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

    /// Renders every diagnostic as the user sees it. `color` adds ANSI colours.
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
        for diagnostic in &self.diagnostics {
            let rendered = Rendered::new(diagnostic, sources);
            // Writing into a String cannot fail.
            let _ = handler.render_report(&mut out, &rendered);
        }
        out
    }
}

/// A diagnostic in the shape miette draws: its source file, labels and related notes.
struct Rendered {
    message: String,
    severity: Severity,
    source: NamedSource<String>,
    labels: Vec<LabeledSpan>,
    help: Option<String>,
    related: Vec<Rendered>,
}

impl Rendered {
    fn new(diagnostic: &Diagnostic, sources: &SourceMap) -> Self {
        let mut rendered = Self::at(
            sources,
            diagnostic.span,
            diagnostic.message.clone(),
            diagnostic.severity,
            &diagnostic.label,
        );
        rendered.help = diagnostic.help.clone();
        for (span, label) in &diagnostic.notes {
            if span.file == diagnostic.span.file {
                rendered
                    .labels
                    .push(LabeledSpan::new_with_span(Some(label.clone()), to_miette(*span)));
            } else {
                let note = Self::at(sources, *span, label.clone(), Severity::Note, label);
                rendered.related.push(note);
            }
        }
        rendered
    }

    fn at(sources: &SourceMap, span: Span, message: String, severity: Severity, label: &str) -> Self {
        let file = sources.get(span.file);
        Rendered {
            message,
            severity,
            source: NamedSource::new(file.name.clone(), file.text.to_string()),
            labels: vec![LabeledSpan::new_with_span(Some(label.to_string()), to_miette(span))],
            help: None,
            related: Vec::new(),
        }
    }
}

fn to_miette(span: Span) -> miette::SourceSpan {
    (span.start, span.len()).into()
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
