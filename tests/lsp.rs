//! `servitor lsp` driven over JSON-RPC as an editor drives it (issue 38): a variant of a small
//! base package is opened, edited into an error and back, a table is hovered (its odds are
//! the ones `servitor odds` prints), the variant's `override` leads to the base's table, a
//! script completes a game API call and the package's own functions, and a dice string in a
//! script is hovered.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

const BASE: &str = r#"package lsp-base "A base package for the language server test" {
  version "0.1.0"
  script "scripts/base.rhai"
}

table loot "What a search turns up" {
  dice 2d6
  2-6  => nothing "Nothing"
  7-12 => ammo "Ammunition"
}
"#;

const SCRIPT: &str = "fn found(game) {\n    game.\n}\n";

const VARIANT: &str = r#"package lsp-variant "Searches find less" {
  version "0.1.0"
  extends "../base"
}

override table loot {
  2-8  => nothing "Nothing"
  9-12 => ammo "Ammunition"
}
"#;

struct Editor {
    child: Child,
    input: ChildStdin,
    messages: Receiver<Value>,
    next_id: u64,
}

impl Editor {
    fn start(dir: &Path) -> Editor {
        let mut child = Command::new(env!("CARGO_BIN_EXE_servitor"))
            .arg("lsp")
            .current_dir(dir)
            .env_remove("SERVITOR_RULESETS")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("servitor lsp starts");
        let input = child.stdin.take().unwrap();
        let mut output = BufReader::new(child.stdout.take().unwrap());
        let (send, messages) = channel();
        std::thread::spawn(move || {
            loop {
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if output.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length:") {
                        length = n.trim().parse().unwrap();
                    }
                }
                let mut body = vec![0; length];
                output.read_exact(&mut body).unwrap();
                if send.send(serde_json::from_slice(&body).unwrap()).is_err() {
                    return;
                }
            }
        });
        Editor {
            child,
            input,
            messages,
            next_id: 1,
        }
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.input, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.input.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// A request's result (notifications on the way are dropped).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let m = self.next();
            if m.get("id") == Some(&json!(id)) {
                assert!(m.get("error").is_none(), "{method}: {m}");
                return m["result"].clone();
            }
        }
    }

    fn next(&self) -> Value {
        self.messages
            .recv_timeout(Duration::from_secs(60))
            .expect("the server answers within a minute")
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics_for(&self, uri: &str) -> Vec<Value> {
        loop {
            let m = self.next();
            if m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri {
                return m["params"]["diagnostics"].as_array().unwrap().clone();
            }
        }
    }
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.canonicalize().unwrap().display())
}

/// A temporary folder with `base/scripts/` and `variant/` in it.
fn folders() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (base, variant) = (dir.path().join("base"), dir.path().join("variant"));
    std::fs::create_dir_all(base.join("scripts")).unwrap();
    std::fs::create_dir_all(&variant).unwrap();
    (dir, base, variant)
}

fn errors(diagnostics: &[Value]) -> Vec<&Value> {
    diagnostics.iter().filter(|d| d["severity"] == 1).collect()
}

#[test]
fn an_editor_checks_hovers_goes_to_the_base_and_completes() {
    let (dir, base, variant) = folders();
    std::fs::write(base.join("package.rules"), BASE).unwrap();
    std::fs::write(
        base.join("scripts/base.rhai"),
        SCRIPT.replace("game.\n", "game.say(\"found\", \"test\");\n"),
    )
    .unwrap();
    std::fs::write(variant.join("package.rules"), VARIANT).unwrap();
    let variant_file = variant.join("package.rules");
    let variant_uri = uri(&variant_file);

    let mut editor = Editor::start(dir.path());
    let init = editor.request(
        "initialize",
        json!({"processId": null, "rootUri": uri(dir.path()), "capabilities": {}}),
    );
    assert_eq!(init["capabilities"]["hoverProvider"], true, "{init}");
    editor.notify("initialized", json!({}));

    // Opened as it is: no error.
    editor.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": variant_uri, "languageId": "servitor", "version": 1, "text": VARIANT}}),
    );
    let opened = editor.diagnostics_for(&variant_uri);
    assert!(errors(&opened).is_empty(), "{opened:?}");

    // Edited into an error (unsaved: the file on disk is unchanged), at its line.
    let broken = VARIANT.replace("9-12 => ammo", "9-12 => => ammo");
    editor.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": variant_uri, "version": 2}, "contentChanges": [{"text": broken}]}),
    );
    let edited = editor.diagnostics_for(&variant_uri);
    let found = errors(&edited);
    assert_eq!(found.len(), 1, "{edited:?}");
    assert_eq!(found[0]["range"]["start"]["line"], 7, "{edited:?}");
    assert!(found[0]["message"].as_str().unwrap().contains("expected"), "{edited:?}");

    // And back: the error is cleared.
    editor.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": variant_uri, "version": 3}, "contentChanges": [{"text": VARIANT}]}),
    );
    let fixed = editor.diagnostics_for(&variant_uri);
    assert!(errors(&fixed).is_empty(), "{fixed:?}");

    // Hover on the table's name in `override table loot`: the odds `servitor odds` prints.
    let hover = editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": variant_uri}, "position": {"line": 5, "character": 17}}),
    );
    let shown = hover["contents"]["value"].as_str().unwrap_or_default().to_string();
    let odds = Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args(["odds", "variant", "loot"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let odds = String::from_utf8(odds.stdout).unwrap();
    assert!(odds.contains("ammo"), "{odds}");
    assert!(shown.contains(odds.trim_end()), "hover:\n{shown}\nodds:\n{odds}");

    // From the override to the base's table.
    let definition = editor.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": variant_uri}, "position": {"line": 5, "character": 17}}),
    );
    assert_eq!(definition["uri"], uri(&base.join("package.rules")), "{definition}");
    assert_eq!(definition["range"]["start"]["line"], 5, "{definition}");

    // A script completes a game API call, and the package's items.
    let script = base.join("scripts/base.rhai");
    let script_uri = uri(&script);
    editor.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": script_uri, "languageId": "rhai", "version": 1, "text": SCRIPT}}),
    );
    let completion = editor.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": script_uri}, "position": {"line": 1, "character": 9}}),
    );
    let labels: Vec<&str> = completion
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["label"].as_str())
        .collect();
    for want in ["say", "move_priced", "loot", "found"] {
        assert!(labels.contains(&want), "no `{want}` among {} completions", labels.len());
    }
    // The package's own function comes with its parameters (a hook a variant may replace).
    let found = completion
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["label"] == "found")
        .unwrap();
    assert_eq!(found["detail"], "fn found(game)", "{found}");

    // A string in a script that reads as dice: hovered, its odds as `odds --dice` prints them.
    let with_dice = "fn found(game) {\n    let dice = \"count 6 in 3d6\";\n}\n";
    editor.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": script_uri, "version": 2}, "contentChanges": [{"text": with_dice}]}),
    );
    let hover = editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": script_uri}, "position": {"line": 1, "character": 22}}),
    );
    let shown = hover["contents"]["value"].as_str().unwrap_or_default().to_string();
    let odds = Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args(["odds", "base", "--dice", "count 6 in 3d6"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let odds = String::from_utf8(odds.stdout).unwrap();
    assert!(odds.contains("125/216"), "{odds}");
    assert!(shown.contains(odds.trim_end()), "hover:\n{shown}\nodds:\n{odds}");
    // Beside the string, a word that names nothing: no hover.
    let nothing = editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": script_uri}, "position": {"line": 1, "character": 9}}),
    );
    assert_eq!(nothing, Value::Null);

    assert_eq!(editor.request("shutdown", Value::Null), Value::Null);
    editor.notify("exit", Value::Null);
    let status = editor.child.wait().unwrap();
    assert!(status.success(), "{status}");
}

/// Rename (issue 38): the base's table renamed from its definition reaches the variant's
/// `override` (a package the server has loaded) and the script's string naming it, and
/// nothing that is prose: a comment, a title, a script's sentence. Applied, both packages
/// still load. A name that is no item, or an item's name already taken, is refused.
#[test]
fn an_editor_renames_an_item_across_the_package_and_its_variant() {
    let (dir, base, variant) = folders();
    let base_text = BASE.replace(
        "table loot \"What a search turns up\"",
        "# loot is rolled at every search\ntable loot \"What a search turns up: loot\"",
    ) + "\nconst search = 3\n";
    std::fs::write(base.join("package.rules"), &base_text).unwrap();
    let script =
        "fn found(game) {\n    game.say(\"loot at last\", \"test\");\n    let t = \"loot\";\n    let loot = 1;\n}\n";
    std::fs::write(base.join("scripts/base.rhai"), script).unwrap();
    std::fs::write(variant.join("package.rules"), VARIANT).unwrap();
    let (base_file, variant_file) = (base.join("package.rules"), variant.join("package.rules"));
    let (base_uri, variant_uri, script_uri) = (
        uri(&base_file),
        uri(&variant_file),
        uri(&base.join("scripts/base.rhai")),
    );

    let mut editor = Editor::start(dir.path());
    let init = editor.request(
        "initialize",
        json!({"processId": null, "rootUri": uri(dir.path()), "capabilities": {}}),
    );
    assert_eq!(init["capabilities"]["renameProvider"], true, "{init}");
    // Both packages opened: the server knows the variant.
    for (u, text) in [(&variant_uri, VARIANT.to_string()), (&base_uri, base_text.clone())] {
        editor.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": u, "languageId": "servitor", "version": 1, "text": text}}),
        );
        let opened = editor.diagnostics_for(u);
        assert!(errors(&opened).is_empty(), "{opened:?}");
    }

    // `loot` at its definition in the base (line 6, after the comment): renamed to `spoils`.
    let edit = editor.request(
        "textDocument/rename",
        json!({"textDocument": {"uri": base_uri}, "position": {"line": 6, "character": 8}, "newName": "spoils"}),
    );
    let changes = edit["changes"].as_object().expect("a workspace edit");
    let lines = |u: &str| -> Vec<(u64, u64)> {
        changes[u]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                assert_eq!(e["newText"], "spoils", "{e}");
                (
                    e["range"]["start"]["line"].as_u64().unwrap(),
                    e["range"]["start"]["character"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(lines(&base_uri), vec![(6, 6)], "{edit}");
    assert_eq!(lines(&variant_uri), vec![(5, 15)], "{edit}");
    assert_eq!(lines(&script_uri), vec![(2, 13)], "{edit}");
    assert_eq!(changes.len(), 3, "{edit}");

    // Applied as an editor applies them, both packages load and the variant overrides `spoils`.
    let apply = |path: &Path, edits: &[(u64, u64)]| {
        let text = std::fs::read_to_string(path).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        for (line, col) in edits.iter().rev() {
            let l = &mut lines[*line as usize];
            l.replace_range(*col as usize..*col as usize + "loot".len(), "spoils");
        }
        std::fs::write(path, lines.join("\n") + "\n").unwrap();
    };
    apply(&base_file, &lines(&base_uri));
    apply(&variant_file, &lines(&variant_uri));
    apply(&base.join("scripts/base.rhai"), &lines(&script_uri));
    let renamed = std::fs::read_to_string(&base_file).unwrap();
    assert!(
        renamed.contains("# loot is rolled") && renamed.contains("turns up: loot\""),
        "{renamed}"
    );
    for package in ["base", "variant"] {
        let check = Command::new(env!("CARGO_BIN_EXE_servitor"))
            .args(["odds", package, "spoils"])
            .current_dir(dir.path())
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    }

    // Refused: a name that is no item's, a name already taken, a word that names no item.
    for (name, position) in [("2bad", (6, 8)), ("search", (6, 8)), ("spoils", (1, 3))] {
        let id = 100;
        editor.send(json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/rename",
            "params": {"textDocument": {"uri": base_uri}, "newName": name,
            "position": {"line": position.0, "character": position.1}}}));
        let answer = loop {
            let m = editor.next();
            if m.get("id") == Some(&json!(id)) {
                break m;
            }
        };
        assert!(answer["error"]["message"].is_string(), "{name}: {answer}");
    }

    assert_eq!(editor.request("shutdown", Value::Null), Value::Null);
    editor.notify("exit", Value::Null);
    assert!(editor.child.wait().unwrap().success());
}
