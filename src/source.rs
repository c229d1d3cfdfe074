//! Source files and spans: every loaded byte keeps the file it came from, so any error —
//! parse, check or a script failing mid-run — can point at file:line:col.
//!
//! [`SourceMap`] holds the files, [`FileId`] names one, a [`Span`] is a byte range in it;
//! the map converts line and column to a byte offset and back. A Rhai position becomes a span
//! in one place only, `script::span_at`, which calls this.

use std::sync::Arc;

/// Index of a file in a [`SourceMap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range in one source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Self {
        Span { file, start, end }
    }

    /// The smallest span covering both (same file assumed).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn len(&self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// One loaded file: the name shown to users (a path relative to where the user pointed) and
/// its text.
#[derive(Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: Arc<str>,
    line_starts: Vec<usize>,
}

impl SourceFile {
    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let end = offset.min(self.text.len());
        let col = self.text.get(start..end).map_or(end - start, |s| s.chars().count());
        (line + 1, col + 1)
    }

    /// How many lines the file has (an empty file has one).
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The 0-based line holding byte offset `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= offset) - 1
    }

    /// Byte offset where 0-based line `line` starts.
    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts.get(line).copied().unwrap_or(self.text.len())
    }

    /// Byte offset where 0-based line `line` ends, before its newline.
    pub fn line_end(&self, line: usize) -> usize {
        self.line_starts.get(line + 1).map_or(self.text.len(), |&next| next - 1)
    }

    /// Byte offset of a 1-based line and column (in characters): the one place where
    /// Rhai's line/column positions become byte offsets.
    pub fn offset_of(&self, line: usize, col: usize) -> usize {
        let Some(&start) = self.line_starts.get(line.saturating_sub(1)) else {
            return self.text.len();
        };
        let rest = &self.text[start..];
        let line_text = rest.split('\n').next().unwrap_or("");
        let byte = line_text
            .char_indices()
            .nth(col.saturating_sub(1))
            .map_or(line_text.len(), |(i, _)| i);
        start + byte
    }
}

/// All files read while loading packages.
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn add(&mut self, name: String, text: String) -> FileId {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        self.files.push(SourceFile {
            name,
            text: Arc::from(text),
            line_starts,
        });
        FileId(self.files.len() as u32 - 1)
    }

    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn text_of(&self, span: Span) -> &str {
        let file = self.get(span.file);
        file.text.get(span.start..span.end).unwrap_or("")
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files.iter().enumerate().map(|(i, f)| (FileId(i as u32), f))
    }

    /// "file:line:col" for a span, as shown in one-line messages.
    pub fn locate(&self, span: Span) -> String {
        let file = self.get(span.file);
        let (line, col) = file.line_col(span.start);
        format!("{}:{}:{}", file.name, line, col)
    }
}
