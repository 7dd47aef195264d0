//! `map` on a real codebase nobody here wrote: the `rusqlite` crate as the cargo registry holds
//! it (the lockfile pins 0.43.0, so every build of this workspace has it), committed to a
//! temporary git repository. What the model receives in every host: a partial map that says
//! so, pins the commit, states the files it chose from, fits the default budget of 1,024
//! tokens, and names most of the definitions the most other files refer to; and cursor pages
//! that reach every file once.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use spool_mcp::Settings;
use spool_test_support::git::commit_all;
use spool_test_support::hosts::{self, Host};

use crate::support::{start, structured};

/// The registry's copy of `rusqlite` 0.43.0.
fn rusqlite_source() -> PathBuf {
    let cargo_home = std::env::var_os("CARGO_HOME").map_or_else(
        || PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo"),
        PathBuf::from,
    );
    let src = cargo_home.join("registry").join("src");
    std::fs::read_dir(&src)
        .unwrap_or_else(|e| panic!("no cargo registry at {}: {e}", src.display()))
        .filter_map(|e| Some(e.ok()?.path().join("rusqlite-0.43.0")))
        .find(|p| p.join("src/lib.rs").is_file())
        .expect("rusqlite 0.43.0 in the cargo registry (the lockfile pins it)")
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The oracle, by text alone: the crate's `pub` types (and `pub fn`s with a compound name,
/// distinct enough to count by their text), each defined in one file, by the number of other
/// files whose text names them; the ten named by the most.
fn most_referred(dir: &Path) -> Vec<(String, usize)> {
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.file_name().unwrap() == ".git" {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
                files.insert(p.strip_prefix(dir).unwrap().display().to_string(), text);
            }
        }
    }
    let mut defined: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, text) in &files {
        for line in text.lines() {
            let Some(rest) = line.trim_start().strip_prefix("pub") else {
                continue;
            };
            let rest = if rest.starts_with('(') {
                rest.split_once(')').map_or("", |(_, r)| r)
            } else {
                rest
            };
            let mut words = rest.split_whitespace();
            let mut kind = words.next().unwrap_or("");
            if kind == "unsafe" {
                kind = words.next().unwrap_or("");
            }
            let name: String = words
                .next()
                .unwrap_or("")
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let wanted = matches!(kind, "struct" | "enum" | "trait" | "type")
                || (kind == "fn" && name.contains('_'));
            if wanted && !name.is_empty() {
                defined.entry(name).or_default().insert(path.clone());
            }
        }
    }
    let mut scored: Vec<(String, usize)> = defined
        .into_iter()
        .filter(|(_, at)| at.len() == 1)
        .map(|(name, at)| {
            let home = at.into_iter().next().unwrap();
            let users = files
                .iter()
                .filter(|(p, text)| **p != home && names_word(text, &name))
                .count();
            (name, users)
        })
        .collect();
    scored.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.truncate(10);
    scored
}

fn names_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        !text[..at].chars().next_back().is_some_and(ident)
            && !text[at + word.len()..].chars().next().is_some_and(ident)
    })
}

/// The paths of the files a page shows: its blocks' first lines.
fn files_on(content: &str) -> Vec<String> {
    content
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with(' '))
        .map(|l| l.rsplit_once(" (").map_or(l, |(p, _)| p).to_owned())
        .collect()
}

#[tokio::test]
async fn a_real_crate_maps_honestly_within_1024_tokens_and_its_pages_reach_every_file_once() {
    let h = start(Settings::default()).await;
    let repo = h.root.path().join("rusqlite");
    std::fs::create_dir_all(&repo).unwrap();
    copy_tree(&rusqlite_source(), &repo);
    let head = commit_all(&repo);

    let first = h.call("map", json!({ "path": "rusqlite" })).await;
    assert_eq!(first.is_error, Some(false), "{first:?}");
    let s = structured(&first).clone();
    // Partial, and says so, in every host's view; within the default budget.
    assert_eq!(s["complete"], false);
    assert_eq!(s["reason"]["code"], "token_cap");
    let views = hosts::check(
        &first,
        spool_map::DEFAULT_MAP_TOKENS,
        &["PARTIAL MAP", &head[..12], "files counted:"],
        &[],
    );
    // Pinned to the commit, clean; the files it chose from, by why.
    let scope = &s["scope"];
    assert_eq!(scope["version"]["commit"], head.as_str());
    assert_eq!(scope["version"]["dirty"], false);
    assert_eq!(s["source"]["version"]["commit"], head.as_str());
    let counted = scope["files_counted"].as_u64().unwrap();
    let mapped = scope["files_mapped"].as_u64().unwrap();
    let skipped: u64 = scope["files_skipped"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "ignored" | "hidden"))
        .map(|(_, v)| v.as_u64().unwrap())
        .sum();
    assert_eq!(mapped + skipped, counted, "{scope}");
    assert!(mapped >= 60, "{scope}");
    assert_eq!(scope["files_shown"]["start"], 1);

    // Most of the definitions the most other files refer to are named on this first page, as
    // the model receives it (the structured form: Claude Code and Codex).
    let content = s["content"].as_str().unwrap();
    let oracle = most_referred(&repo);
    let named: Vec<&str> = oracle
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| {
            content
                .lines()
                .filter(|l| l.starts_with(' '))
                .any(|l| names_word(l, n))
        })
        .collect();
    assert!(
        named.len() * 2 > oracle.len(),
        "the first page names {named:?} of the most referred to {oracle:?}:\n{content}"
    );
    for v in &views {
        if v.host != Host::TextOnly {
            v.assert_has(&head[..12]);
        }
    }

    // The cursor pages: every file once, each page within its cap, the same scope throughout.
    let mut seen: Vec<String> = files_on(content);
    let mut page = s;
    let mut pages = 1;
    while let Some(next) = page["next"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| {
            c["arguments"].get("cursor").is_some() && c["arguments"].get("max_tokens").is_none()
        })
        .cloned()
    {
        let r = h.call("map", next["arguments"].clone()).await;
        assert_eq!(r.is_error, Some(false), "{r:?}");
        hosts::check(&r, spool_map::DEFAULT_MAP_TOKENS, &["MAP"], &[]);
        page = structured(&r).clone();
        assert_eq!(page["scope"]["files_counted"], counted);
        assert_eq!(page["ref"], first_ref(&first));
        let on_page = files_on(page["content"].as_str().unwrap());
        assert_eq!(
            page["scope"]["files_shown"]["start"].as_u64().unwrap(),
            seen.len() as u64 + 1
        );
        seen.extend(on_page);
        pages += 1;
        assert!(pages < 500, "the pages do not end");
    }
    let distinct: BTreeSet<&String> = seen.iter().collect();
    assert_eq!(distinct.len(), seen.len(), "a file is listed twice");
    assert_eq!(seen.len() as u64, counted, "pages: {pages}");
    assert!(seen.iter().all(|p| p.starts_with("rusqlite/")));
    assert!(seen.contains(&"rusqlite/src/lib.rs".to_owned()));
    assert_eq!(page["reason"]["code"], "requested_range");
}

fn first_ref(r: &rmcp::model::CallToolResult) -> Value {
    structured(r)["ref"].clone()
}
