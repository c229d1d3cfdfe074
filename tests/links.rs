//! Every relative Markdown link of the docs points at a file that exists and, for `#anchor`,
//! at a heading of that file: the authors' reference (`docs/`, `grammar/README.md`), the
//! README and the code map (`src/README.md`). A link to a web address is not followed.

use std::path::{Path, PathBuf};

fn checkout() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The docs whose links are checked: the README, the code map, and the reference.
fn docs() -> Vec<PathBuf> {
    let mut files = vec![
        checkout().join("README.md"),
        checkout().join("src/README.md"),
        checkout().join("grammar/README.md"),
    ];
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(checkout().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    chapters.sort();
    files.extend(chapters);
    files
}

/// `line` with its inline code spans emptied (a link written in code is no link).
fn without_code(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find('`') {
        out.push_str(&rest[..at]);
        let run = rest[at..].chars().take_while(|c| *c == '`').count();
        let after = &rest[at + run..];
        let fence = "`".repeat(run);
        match after.find(&fence) {
            Some(end) => rest = &after[end + run..],
            None => {
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The links of a Markdown text outside code: (line from 1, target).
fn links(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut fence = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let line = without_code(line);
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let target = &rest[at + 2..];
            let Some(end) = target.find(')') else { break };
            let target = target[..end].split_whitespace().next().unwrap_or("");
            found.push((n + 1, target.to_string()));
            rest = &rest[at + 2 + end..];
        }
    }
    found
}

/// The anchors of a Markdown text's headings, as GitHub makes them: lower case, every
/// character but letters, digits, spaces, `-` and `_` dropped, spaces made `-`; a repeated
/// one gets `-1`, `-2`, ….
fn anchors(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
            continue;
        }
        let Some(title) = line.strip_prefix('#').map(|t| t.trim_start_matches('#')) else {
            continue;
        };
        if fence || !title.starts_with(' ') {
            continue;
        }
        let slug: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let mut unique = slug.clone();
        let mut k = 1;
        while out.contains(&unique) {
            unique = format!("{slug}-{k}");
            k += 1;
        }
        out.push(unique);
    }
    out
}

/// Every link of `file` that points nowhere, as `file:line: target: why`.
fn broken(file: &Path, shown: &str) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut problems = Vec::new();
    for (line, target) in links(&text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let to = if path.is_empty() {
            file.to_path_buf()
        } else {
            file.parent().unwrap().join(path)
        };
        let problem = if !to.exists() {
            Some("no such file".to_string())
        } else if let Some(anchor) = anchor {
            let text = std::fs::read_to_string(&to).unwrap_or_default();
            (!anchors(&text).iter().any(|a| a == anchor)).then(|| format!("no heading `#{anchor}` there"))
        } else {
            None
        };
        if let Some(why) = problem {
            problems.push(format!("{shown}:{line}: {target}: {why}"));
        }
    }
    problems
}

#[test]
fn every_relative_link_of_the_docs_points_at_a_file_and_heading_that_exist() {
    let mut problems = Vec::new();
    let mut count = 0;
    for file in docs() {
        let shown = file.strip_prefix(checkout()).unwrap().display().to_string();
        count += links(&std::fs::read_to_string(&file).unwrap()).len();
        problems.extend(broken(&file, &shown));
    }
    assert!(
        problems.is_empty(),
        "links that point nowhere:\n{}",
        problems.join("\n")
    );
    // The index links every chapter, and the chapters and READMEs link each other.
    assert!(count >= 40, "only {count} links found");
}

#[test]
fn the_index_links_every_chapter() {
    let index = std::fs::read_to_string(checkout().join("docs/README.md")).unwrap();
    let linked: Vec<String> = links(&index).into_iter().map(|(_, t)| t).collect();
    for file in docs() {
        let Ok(chapter) = file.strip_prefix(checkout().join("docs")) else {
            continue;
        };
        let name = chapter.display().to_string();
        if name != "README.md" {
            assert!(linked.contains(&name), "docs/README.md does not link {name}");
        }
    }
}

/// The check can fail: a link to a missing file, to a missing heading, and one inside code
/// (not a link) in a small doc.
#[test]
fn a_broken_link_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("other.md"), "# Other\n\n## A part — with `code`\n").unwrap();
    std::fs::write(
        dir.path().join("doc.md"),
        "# Doc\n\nSee [there](other.md#a-part--with-code), [gone](missing.md),\n\
         [wrong](other.md#a-part), [here](#doc), and `[not](a-link.md)`.\n\
         ```\n[also not](x.md)\n```\n",
    )
    .unwrap();
    let problems = broken(&dir.path().join("doc.md"), "doc.md");
    assert_eq!(
        problems,
        [
            "doc.md:3: missing.md: no such file",
            "doc.md:4: other.md#a-part: no heading `#a-part` there"
        ]
    );
}
