//! Control characters from a package made visible before they reach a terminal.
//!
//! A package's texts, labels, names and source lines are untrusted: `\x1b]0;…\x07` would set
//! the window title, `\x1b[2J` clear the screen, a lone `\r` overwrite what was printed, and
//! the bidirectional overrides reorder what the reader sees. Everything printed goes through
//! [`visible`] (one piece of package text; [`one_line`] also keeps it on one line) or
//! [`terminal`] (a whole output, keeping only the colour sequences servitor writes itself).
//! JSON output is escaped by its encoder only
//! ([`json`]): those characters become `\uXXXX` escapes, so it stays valid JSON that a parser
//! reads back exactly and still shows nothing raw on a terminal.

use std::borrow::Cow;

/// Whether `c` may not be printed as it is. Newlines and tabs may.
fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_bidi(c)
}

/// Characters that reorder the text around them (the "Trojan Source" set).
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// How an unsafe character is shown: the control pictures (`␛`, `␇`, `␍`…) for the ASCII
/// controls and DEL, one column wide like the character they stand for; `\u{…}` otherwise.
fn picture(c: char, out: &mut String) {
    match c {
        '\0'..='\u{1f}' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('?')),
        '\u{7f}' => out.push('\u{2421}'),
        _ => {
            use std::fmt::Write;
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `text` with every control character (but newline and tab) made visible.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe(c) {
            picture(c, &mut out);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Like [`visible`], for one line: a newline is made visible too.
pub fn one_line(text: &str) -> Cow<'_, str> {
    if !text.contains('\n') {
        return visible(text);
    }
    Cow::Owned(visible(&text.replace('\n', "\u{2424}")).into_owned())
}

/// Characters of a text a message quotes whole; a longer one is cut there.
pub const QUOTED_CHARS: usize = 100;

/// A text a message quotes, between backticks: whole up to [`QUOTED_CHARS`] characters, else
/// cut there and its length said (`` `1d6+1d6+…` (120,001 characters) ``), so a message never
/// echoes a huge input in full.
pub fn quoted(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS) {
        None => format!("`{text}`"),
        Some((at, _)) => format!(
            "`{}…` ({} characters)",
            &text[..at],
            crate::diagnostic::thousands(text.chars().count() as u64)
        ),
    }
}

/// A whole output on its way to a terminal: every control character made visible, except that
/// with `colour` on the colour sequences (`ESC [ digits ; … m`) pass.
pub fn terminal(text: &str, colour: bool) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if colour && c == '\u{1b}' {
            let sgr = rest[1..]
                .strip_prefix('[')
                .and_then(|r| r.find(|c: char| !(c.is_ascii_digit() || c == ';')).map(|n| (r, n)))
                .filter(|(r, n)| r[*n..].starts_with('m'))
                .map(|(_, n)| n + 3);
            if let Some(len) = sgr {
                out.push_str(&rest[..len]);
                rest = &rest[len..];
                continue;
            }
        }
        if is_unsafe(c) {
            picture(c, &mut out);
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    Cow::Owned(out)
}

/// `value` as one line of JSON in which every character [`visible`] would picture — and the
/// line and paragraph separators, which end a line in JavaScript — is a `\uXXXX` escape:
/// valid JSON (a parser reads back exactly the text the package wrote) that puts nothing raw
/// on a terminal. The only escaping JSON output gets: [`terminal`]'s pictures are not JSON.
pub fn json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::new();
    let mut writer = serde_json::Serializer::with_formatter(&mut out, Escaping);
    // Serializing to memory fails only for a value JSON cannot hold (a map with non-text
    // keys), which servitor's outputs never are; say so rather than print nothing.
    if let Err(e) = value.serialize(&mut writer) {
        return serde_json::json!({ "error": format!("cannot write this output as JSON: {e}") }).to_string();
    }
    String::from_utf8(out).unwrap_or_default()
}

/// The compact formatter with [`json`]'s escapes.
struct Escaping;

impl serde_json::ser::Formatter for Escaping {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if is_unsafe(c) || matches!(c, '\u{2028}' | '\u{2029}') {
                writer.write_all(&fragment.as_bytes()[start..i])?;
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{unit:04x}")?;
                }
                start = i + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_become_pictures() {
        assert_eq!(visible("a\x1b]0;owned\x07b"), "a␛]0;owned␇b");
        assert_eq!(visible("x\r\ny\tz\u{7f}"), "x␍\ny\tz␡");
        assert_eq!(visible("\u{202e}abc\u{9b}"), "\\u{202e}abc\\u{9b}");
        assert!(matches!(visible("plain é"), Cow::Borrowed(_)));
        assert_eq!(one_line("a\nb"), "a␤b");
    }

    #[test]
    fn only_colour_sequences_pass_and_only_with_colour() {
        let text = "\x1b[1;31mred\x1b[0m \x1b[2J\x1b]0;t\x07";
        assert_eq!(terminal(text, true), "\x1b[1;31mred\x1b[0m ␛[2J␛]0;t␇");
        assert_eq!(terminal(text, false), "␛[1;31mred␛[0m ␛[2J␛]0;t␇");
        assert_eq!(terminal("\x1b", true), "␛");
    }

    #[test]
    fn json_escapes_every_unsafe_character_and_reads_back_exactly() {
        let all: String = ('\0'..='\u{a0}')
            .chain(['\u{200e}', '\u{200f}', '\u{2028}', '\u{2029}'])
            .chain('\u{202a}'..='\u{202e}')
            .chain('\u{2066}'..='\u{2069}')
            .chain(['é', '😀'])
            .collect();
        let text = json(&serde_json::json!({ "text": all, all.clone(): 1 }));
        assert!(!text.chars().any(|c| is_unsafe(c) || c == '\u{2028}'), "{text}");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["text"], all.as_str());
        assert_eq!(back[all.as_str()], 1);
        assert!(text.contains("\\u202e") && text.contains("\\u009b") && text.contains('😀'));
    }
}
