//! `servitor lsp`: a language server for packages — rules files and their scripts — on
//! stdin and stdout (the Language Server Protocol: JSON-RPC messages behind `Content-Length`
//! headers). It answers what the command line answers:
//! - diagnostics as you type: `check`'s, the package loaded with the editor's unsaved texts
//!   (`package::load_with`), each at its file, line and column with its label and help;
//! - hover on a table, a dice constant or a record: its exact odds, as `odds` prints them; on a
//!   string that reads as dice (a script's `roll_dice("count 6 in 2d6", …)`), that roll's odds;
//! - go to definition: where an item is defined — from a variant's `override`, the base's
//!   item, across `extends`;
//! - completion: the package's item names, and in scripts the package's own functions (the
//!   hooks a variant may replace, with their parameters) and the game API's functions.
//!
//! One package at a time is whatever package holds the file asked about (the folder with a
//! `package.rules` above it). Requests run one after another; a load takes milliseconds.
//! The protocol is written by hand (no LSP dependency); `tests/lsp.rs` drives it over the wire
//! as an editor would.

use serde_json::{Value as Json, json};
use servitor::Ruleset;
use servitor::diagnostic::Severity;
use servitor::package::{self, LoadError, Overlay};
use servitor::source::{SourceMap, Span};
use std::collections::{BTreeSet, HashMap};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// The largest message read (an editor sends whole files; a package file is at most
/// `MAX_FILE_BYTES`, well under this).
const MAX_MESSAGE_BYTES: usize = 64 << 20;

#[derive(clap::Args)]
pub struct LspArgs {}

pub fn run(_: LspArgs) -> Result<(), super::Failure> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut output = std::io::stdout().lock();
    let mut server = Server::default();
    loop {
        let message = match read_message(&mut input) {
            Ok(Some(m)) => m,
            Ok(None) => return Ok(()),
            Err(why) => return Err(super::Failure::Failed(format!("error: lsp: {why}"))),
        };
        let method = message.get("method").and_then(Json::as_str).unwrap_or("");
        if method == "exit" {
            return Ok(());
        }
        for reply in server.handle(method, &message) {
            write_message(&mut output, &reply).map_err(|e| super::Failure::Failed(format!("error: lsp: {e}")))?;
        }
    }
}

/// One message: its headers up to a blank line, then `Content-Length` bytes of JSON. `None`
/// at the end of input.
fn read_message(input: &mut impl BufRead) -> std::io::Result<Option<Json>> {
    let invalid = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
    loop {
        let mut length = None;
        let mut any = false;
        loop {
            let mut line = String::new();
            if input.read_line(&mut line)? == 0 {
                return if any {
                    Err(invalid("the input ended inside a message's headers"))
                } else {
                    Ok(None)
                };
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            any = true;
            if let Some(n) = line.strip_prefix("Content-Length:") {
                length = Some(
                    n.trim()
                        .parse::<usize>()
                        .map_err(|_| invalid("a Content-Length that is no number"))?,
                );
            }
        }
        let Some(n) = length else {
            if any {
                return Err(invalid("a message without Content-Length"));
            }
            continue;
        };
        if n > MAX_MESSAGE_BYTES {
            return Err(invalid("a message larger than 64 MiB"));
        }
        let mut body = vec![0; n];
        input.read_exact(&mut body)?;
        // A message that is no JSON is skipped, as the protocol allows no answer to it.
        if let Ok(json) = serde_json::from_slice(&body) {
            return Ok(Some(json));
        }
    }
}

fn write_message(output: &mut impl Write, message: &Json) -> std::io::Result<()> {
    let body = message.to_string();
    write!(output, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    output.flush()
}

#[derive(Default)]
struct Server {
    /// The texts the editor holds open, by absolute path.
    open: Overlay,
    /// Each package's last good load, by its folder (or single file).
    loaded: HashMap<PathBuf, Ruleset>,
    /// The files each package was last given diagnostics for, to clear them when fixed.
    published: HashMap<PathBuf, BTreeSet<PathBuf>>,
}

impl Server {
    /// The replies and notifications one message calls for.
    fn handle(&mut self, method: &str, message: &Json) -> Vec<Json> {
        let params = message.get("params").cloned().unwrap_or(Json::Null);
        let id = message.get("id").cloned();
        let reply = |result: Json| match &id {
            Some(id) => vec![json!({"jsonrpc": "2.0", "id": id, "result": result})],
            None => Vec::new(),
        };
        let document = params
            .pointer("/textDocument/uri")
            .and_then(Json::as_str)
            .and_then(path_of_uri);
        match method {
            "initialize" => reply(json!({
                "capabilities": {
                    "textDocumentSync": 1,
                    "hoverProvider": true,
                    "definitionProvider": true,
                    "completionProvider": { "triggerCharacters": ["."] },
                },
                "serverInfo": { "name": "servitor", "version": env!("CARGO_PKG_VERSION") },
            })),
            "shutdown" => reply(Json::Null),
            "textDocument/didOpen" => {
                let text = params.pointer("/textDocument/text").and_then(Json::as_str);
                match (document, text) {
                    (Some(path), Some(text)) => {
                        self.open.insert(path.clone(), text.to_string());
                        self.check(&path)
                    }
                    _ => Vec::new(),
                }
            }
            "textDocument/didChange" => {
                // Whole texts only (`textDocumentSync: 1`): the last change is the text.
                let text = params
                    .get("contentChanges")
                    .and_then(Json::as_array)
                    .and_then(|c| c.last())
                    .and_then(|c| c.get("text"))
                    .and_then(Json::as_str);
                match (document, text) {
                    (Some(path), Some(text)) => {
                        self.open.insert(path.clone(), text.to_string());
                        self.check(&path)
                    }
                    _ => Vec::new(),
                }
            }
            "textDocument/didSave" => document.map(|p| self.check(&p)).unwrap_or_default(),
            "textDocument/didClose" => match document {
                Some(path) => {
                    self.open.remove(&path);
                    self.check(&path)
                }
                None => Vec::new(),
            },
            "textDocument/hover" => reply(self.hover(document, &params)),
            "textDocument/definition" => reply(self.definition(document, &params)),
            "textDocument/completion" => reply(self.completion(document)),
            // Requests this server does not answer get an error; notifications nothing.
            _ => match id {
                Some(id) => vec![json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32601, "message": format!("servitor lsp does not answer `{method}`")}})],
                None => Vec::new(),
            },
        }
    }

    /// Loads the package holding `file` with the open texts and publishes its diagnostics,
    /// clearing those of files that have none now.
    fn check(&mut self, file: &Path) -> Vec<Json> {
        let Some(root) = package_of(file) else {
            return Vec::new();
        };
        let (sources, report, ruleset) = match package::load_with(&root.to_string_lossy(), self.open.clone()) {
            Ok(loaded) => {
                let mut ruleset = loaded.ruleset;
                let sources = std::mem::take(&mut ruleset.sources);
                (sources, loaded.warnings, Some(ruleset))
            }
            Err(LoadError::Invalid { sources, report }) => (sources, report, None),
            Err(not_found) => {
                let message = not_found.render(false);
                let diagnostic = json!({"range": range_at(0, 0, 0, 1), "severity": 1, "source": "servitor", "message": message.trim()});
                return vec![publish(file, vec![diagnostic])];
            }
        };
        let mut by_file: HashMap<PathBuf, Vec<Json>> = HashMap::new();
        for d in &report.diagnostics {
            if let Some(path) = disk_path(&sources, d.span) {
                by_file.entry(path).or_default().push(diagnostic_json(&sources, d));
            }
        }
        if let Some(mut ruleset) = ruleset {
            ruleset.sources = sources;
            self.loaded.insert(root.clone(), ruleset);
        }
        let before = self.published.remove(&root).unwrap_or_default();
        let mut out = Vec::new();
        for path in before.iter().filter(|p| !by_file.contains_key(*p)) {
            out.push(publish(path, Vec::new()));
        }
        let now: BTreeSet<PathBuf> = by_file.keys().cloned().collect();
        for (path, list) in by_file {
            out.push(publish(&path, list));
        }
        if !now.contains(file) && !before.contains(file) {
            out.push(publish(file, Vec::new()));
        }
        self.published.insert(root, now);
        out
    }

    /// The package holding `file`, loaded (the last good load, or one made now).
    fn ruleset_of(&mut self, file: &Path) -> Option<&Ruleset> {
        let root = package_of(file)?;
        if !self.loaded.contains_key(&root) {
            // The texts being edited may not load yet (a call half typed): then as saved.
            let name = root.to_string_lossy();
            let loaded = package::load_with(&name, self.open.clone())
                .or_else(|_| package::load_with(&name, Overlay::new()))
                .ok()?;
            self.loaded.insert(root.clone(), loaded.ruleset);
        }
        self.loaded.get(&root)
    }

    /// The line under the cursor, in the text the editor holds (or the file on disk), and the
    /// cursor's place in it.
    fn line_at(&self, file: &Path, params: &Json) -> Option<(Vec<char>, usize)> {
        let line = params.pointer("/position/line")?.as_u64()? as usize;
        let character = params.pointer("/position/character")?.as_u64()? as usize;
        let text = match self.open.get(file) {
            Some(t) => t.clone(),
            None => std::fs::read_to_string(file).ok()?,
        };
        Some((text.lines().nth(line)?.chars().collect(), character))
    }

    /// The word under the cursor, in the text the editor holds (or the file on disk).
    fn word_at(&self, file: &Path, params: &Json) -> Option<String> {
        let (chars, character) = self.line_at(file, params)?;
        let is_word = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
        let at = character.min(chars.len());
        let start = (0..at).rev().take_while(|&i| is_word(chars[i])).last().unwrap_or(at);
        let end = (at..chars.len())
            .take_while(|&i| is_word(chars[i]))
            .last()
            .map_or(at, |i| i + 1);
        let word: String = chars[start..end].iter().collect();
        (!word.is_empty()).then_some(word)
    }

    /// The text of the string literal (`"…"`, `'…'` or `` `…` ``) under the cursor, on one line.
    fn string_at(&self, file: &Path, params: &Json) -> Option<String> {
        let (chars, character) = self.line_at(file, params)?;
        // Quotes pair up from the line's start; the pair around the cursor holds the string.
        let mut open: Option<(char, usize)> = None;
        for (i, &c) in chars.iter().enumerate() {
            match open {
                None if matches!(c, '"' | '\'' | '`') => open = Some((c, i)),
                Some((q, start)) if c == q && (i == 0 || chars[i - 1] != '\\') => {
                    if (start..=i).contains(&character) {
                        return Some(chars[start + 1..i].iter().collect());
                    }
                    open = None;
                }
                _ => {}
            }
        }
        None
    }

    /// A table's, a dice constant's or a record's exact odds; in a string that reads as dice
    /// (a script's `roll_dice("2d6 + 1", …)`), that roll's.
    fn hover(&mut self, file: Option<PathBuf>, params: &Json) -> Json {
        let Some(file) = file else { return Json::Null };
        let string = self.string_at(&file, params);
        let word = self.word_at(&file, params);
        let Some(ruleset) = self.ruleset_of(&file) else {
            return Json::Null;
        };
        if let Some(text) = string
            && let Some(odds) = super::odds::hover_dice(ruleset, &text)
        {
            return json!({"contents": {"kind": "markdown", "value": format!("**{}**\n\n```text\n{}\n```", text.trim(), odds.trim_end())}});
        }
        let Some(word) = word else {
            return Json::Null;
        };
        let mut subjects = vec![word.clone()];
        subjects.extend(
            ruleset
                .records
                .iter()
                .filter(|(_, of_kind)| of_kind.contains_key(&word))
                .map(|(kind, _)| format!("{kind}.{word}")),
        );
        for what in subjects {
            if let Some(odds) = super::odds::hover(ruleset, &what) {
                return json!({"contents": {"kind": "markdown", "value": format!("**{what}**\n\n```text\n{}\n```", odds.trim_end())}});
            }
        }
        Json::Null
    }

    /// Where the item named under the cursor is defined (an overridden item: in the base).
    fn definition(&mut self, file: Option<PathBuf>, params: &Json) -> Json {
        let Some(file) = file else { return Json::Null };
        let Some(word) = self.word_at(&file, params) else {
            return Json::Null;
        };
        let Some(ruleset) = self.ruleset_of(&file) else {
            return Json::Null;
        };
        let span = item_span(ruleset, &word);
        match span.and_then(|s| location(&ruleset.sources, s)) {
            Some(place) => place,
            None => Json::Null,
        }
    }

    /// The package's item names; in a script, the game API's functions too.
    fn completion(&mut self, file: Option<PathBuf>) -> Json {
        let Some(file) = file else { return Json::Null };
        let script = file.extension().is_some_and(|e| e == "rhai");
        let Some(ruleset) = self.ruleset_of(&file) else {
            return json!([]);
        };
        let mut items: Vec<Json> = Vec::new();
        let mut add = |label: &str, kind: u8, detail: &str| {
            items.push(json!({"label": label, "kind": kind, "detail": detail}));
        };
        // Completion item kinds: 3 function, 6 variable, 21 constant, 7 class.
        for name in ruleset.tables.keys() {
            add(name, 7, "table");
        }
        for name in ruleset.consts.keys() {
            add(name, 21, "const");
        }
        for name in ruleset.dice.keys() {
            add(name, 7, "die");
        }
        for (kind, of_kind) in &ruleset.records {
            for id in of_kind.keys() {
                add(id, 6, kind);
            }
        }
        for name in ruleset.missions.keys() {
            add(name, 6, "mission");
        }
        if script {
            // The package's own functions, with their parameters: the hooks and entry points a
            // variant may replace, and the helpers a script may call.
            let mut own: BTreeSet<(String, String)> = BTreeSet::new();
            for f in ruleset.scripts.iter().flat_map(|s| s.ast.iter_functions()) {
                let params: Vec<String> = f.params.iter().map(|p| p.to_string()).collect();
                own.insert((f.name.to_string(), format!("fn {}({})", f.name, params.join(", "))));
            }
            for (name, signature) in &own {
                add(name, 3, signature);
            }
            let mut names: Vec<&String> = servitor::game::api::function_names().iter().collect();
            names.sort();
            for name in names {
                add(name, 3, "game API");
            }
        }
        Json::Array(items)
    }
}

/// The package a file belongs to: the nearest folder above it with a `package.rules`, or a
/// rules file standing alone.
fn package_of(file: &Path) -> Option<PathBuf> {
    for dir in file.ancestors().skip(1) {
        if dir.join(package::MANIFEST).is_file() {
            return Some(dir.to_path_buf());
        }
    }
    file.extension()
        .is_some_and(|e| e == "rules")
        .then(|| file.to_path_buf())
}

/// Where an item is defined: a table, constant, die, record, mission or board of that id.
fn item_span(ruleset: &Ruleset, id: &str) -> Option<Span> {
    if let Some(t) = ruleset.tables.get(id) {
        return Some(t.span);
    }
    if let Some(c) = ruleset.consts.get(id) {
        return Some(c.span);
    }
    if let Some(d) = ruleset.dice.get(id) {
        return Some(d.span);
    }
    ruleset
        .records
        .values()
        .find_map(|of_kind| of_kind.get(id))
        .map(|r| r.span)
}

/// A span's file on disk (a bundled file has none), absolute.
fn disk_path(sources: &SourceMap, span: Span) -> Option<PathBuf> {
    let name = &sources.get(span.file).name;
    if name.starts_with('<') {
        return None;
    }
    let path = Path::new(name);
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    Some(absolute.canonicalize().unwrap_or(absolute))
}

/// A span as an LSP location.
fn location(sources: &SourceMap, span: Span) -> Option<Json> {
    let path = disk_path(sources, span)?;
    Some(json!({"uri": uri_of(&path), "range": range_of(sources, span)}))
}

fn range_of(sources: &SourceMap, span: Span) -> Json {
    let file = sources.get(span.file);
    let (line, col) = file.line_col(span.start);
    let (end_line, end_col) = file.line_col(span.end.max(span.start));
    range_at(line - 1, col - 1, end_line - 1, end_col - 1)
}

fn range_at(line: usize, col: usize, end_line: usize, end_col: usize) -> Json {
    json!({"start": {"line": line, "character": col}, "end": {"line": end_line, "character": end_col}})
}

/// A diagnostic as the editor shows it: the message, then its label and help.
fn diagnostic_json(sources: &SourceMap, d: &servitor::diagnostic::Diagnostic) -> Json {
    let mut message = d.message.clone();
    if !d.label.is_empty() {
        message.push_str(&format!(" ({})", d.label));
    }
    if let Some(help) = &d.help {
        message.push_str(&format!("\nhelp: {help}"));
    }
    let severity = match d.severity {
        Severity::Error => 1,
        Severity::Warning => 2,
        Severity::Note => 3,
    };
    let related: Vec<Json> = d
        .notes
        .iter()
        .filter_map(|(span, label)| Some(json!({"location": location(sources, *span)?, "message": label})))
        .collect();
    json!({"range": range_of(sources, d.span), "severity": severity, "source": "servitor",
        "message": message, "relatedInformation": related})
}

fn publish(path: &Path, diagnostics: Vec<Json>) -> Json {
    json!({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
        "params": {"uri": uri_of(path), "diagnostics": diagnostics}})
}

/// `file:///a/b c` for a path (spaces and other reserved bytes percent-encoded).
fn uri_of(path: &Path) -> String {
    let mut out = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The path of a `file://` URI, absolute and without `..`; `None` for any other scheme.
fn path_of_uri(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?, 16)
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let path = PathBuf::from(String::from_utf8(out).ok()?);
    Some(path.canonicalize().unwrap_or(path))
}
