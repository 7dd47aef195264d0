//! A symlink under a searched directory is never silent (issue 57, case 2): it is counted as
//! not followed, named with where it leads, and a search that found nothing offers the search
//! of its target when that lies inside the roots, with the caveat. Checked against `grep -R`
//! (which follows links) and `find` (which counts them).

use std::path::Path;
use std::process::Command;

use spool_core::calls::NextCall;
use spool_core::search::{Paging, SearchAnswer};

use crate::support::{git, store, write};

fn search(roots: &[&Path], path: &str, pattern: &str) -> (SearchAnswer, String) {
    let s = store();
    crate::support::search_words(&s.store, roots[0], path, pattern, &Paging::default())
}

fn scope(a: &SearchAnswer) -> serde_json::Value {
    serde_json::to_value(&a.scope).unwrap()
}

/// `grep -R`'s word: the files under `dir` (links followed) holding `pattern`.
fn grep_r(dir: &Path, pattern: &str) -> Vec<String> {
    let out = Command::new("grep")
        .args(["-R", "-l", pattern, "."])
        .current_dir(dir)
        .output()
        .unwrap();
    let mut files: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim_start_matches("./").to_owned())
        .collect();
    files.sort();
    files
}

/// The checkout repository with its config folder reached through a symlink.
fn linked() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "app/main.py", "load('config/prod.yaml')\n");
    write(root, "shared-config/prod.yaml", "CHECKOUT_TIMEOUT: 10\n");
    std::os::unix::fs::symlink("../shared-config", root.join("app/config")).unwrap();
    dir
}

#[test]
fn a_folder_behind_a_symlink_is_counted_named_and_offered_never_silent() {
    let dir = linked();
    let root = &dir.path().canonicalize().unwrap();
    // The truth: grep -R follows the link and finds the answer under `app`.
    assert_eq!(
        grep_r(&root.join("app"), "CHECKOUT_TIMEOUT"),
        ["config/prod.yaml"]
    );

    let (a, text) = search(&[root.as_path()], "app", "CHECKOUT_TIMEOUT");
    assert_eq!(a.hit_count, 0);
    let s = scope(&a);
    assert_eq!(s["files_searched"], 1, "{s}");
    assert_eq!(s["files_skipped"]["symlinks"], 1, "{s}");
    assert_eq!(s["links"][0]["path"], "config", "{s}");
    // Its real path: a relative one, printed by a CLI run from another directory, did not
    // run as printed.
    let target = root.join("shared-config").to_string_lossy().into_owned();
    assert_eq!(s["links"][0]["leads_to"], target.as_str(), "{s}");
    assert!(text.contains("1 symlink not followed"), "{text}");
    assert!(text.contains("absent here is not absent there"), "{text}");
    assert!(text.contains("where the symlink `config` leads"), "{text}");
    // The call offered, run as given, finds what grep -R found.
    let offered: Vec<_> = a
        .next
        .iter()
        .filter_map(|c| match c {
            NextCall::Search(p) => p.path.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(offered, std::slice::from_ref(&target));
    let (b, _) = search(&[root.as_path()], &offered[0], "CHECKOUT_TIMEOUT");
    assert_eq!(b.hit_count, 1);
    assert_eq!(b.hits[0].text.trim_end(), "CHECKOUT_TIMEOUT: 10");
}

/// A link that leads outside the roots, or to nothing, or back into the searched folder: named
/// with why no search of it is offered, and the caveat still said.
#[test]
fn a_symlink_no_search_can_follow_says_why_and_keeps_the_caveat() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.yaml", "CHECKOUT_TIMEOUT: 99\n");
    let dir = tempfile::tempdir().unwrap();
    let root = &dir.path().canonicalize().unwrap();
    write(root, "app/main.py", "nothing here\n");
    write(root, "app/v2/x.txt", "x\n");
    std::os::unix::fs::symlink(outside.path(), root.join("app/ext")).unwrap();
    std::os::unix::fs::symlink("missing", root.join("app/broken")).unwrap();
    std::os::unix::fs::symlink("v2", root.join("app/current")).unwrap();
    let (a, text) = search(&[root.as_path()], "app", "CHECKOUT_TIMEOUT");
    assert_eq!(a.hit_count, 0);
    let s = scope(&a);
    assert_eq!(s["files_skipped"]["symlinks"], 3, "{s}");
    let why: Vec<(String, String)> = s["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            assert!(l.get("leads_to").is_none(), "{l}");
            (
                l["path"].as_str().unwrap().to_owned(),
                l["not_offered"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        why,
        [
            ("broken".to_owned(), "nothing there".to_owned()),
            (
                "current".to_owned(),
                "inside the directory searched".to_owned()
            ),
            ("ext".to_owned(), "outside the allowed roots".to_owned()),
        ]
    );
    assert!(a.next.is_empty(), "{:?}", a.next);
    assert!(text.contains("`ext` (outside the allowed roots)"), "{text}");
    assert!(text.contains("absent here is not absent there"), "{text}");
}

/// Every entry `find` sees under the scope is accounted for: searched, or counted by why it
/// was not (ignored, hidden, binary, a symlink), a tracked symlink to a file among them.
#[test]
fn the_counts_add_up_to_what_find_sees() {
    let dir = linked();
    let root = &dir.path().canonicalize().unwrap();
    write(root, ".gitignore", "build/\n");
    write(root, "build/out.txt", "CHECKOUT_TIMEOUT\n");
    write(root, "app/.env", "x\n");
    write(root, "app/logo.bin", b"\0\x01\x02".as_slice());
    std::os::unix::fs::symlink("main.py", root.join("app/current.py")).unwrap();
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "init"]);
    let find = Command::new("find")
        .args([
            ".", "-path", "./.git", "-prune", "-o", "(", "-type", "f", "-o", "-type", "l", ")",
            "-print",
        ])
        .current_dir(root)
        .output()
        .unwrap();
    let found = String::from_utf8_lossy(&find.stdout).lines().count() as u64;
    let (a, _) = search(&[root.as_path()], ".", "CHECKOUT_TIMEOUT");
    let s = scope(&a);
    let k = &s["files_skipped"];
    let n = |v: &serde_json::Value| v.as_u64().unwrap_or(0);
    let accounted = n(&s["files_searched"])
        + n(&k["binary"])
        + n(&k["too_large"])
        + n(&k["unreadable"])
        + n(&k["ignored"])
        + n(&k["hidden"])
        + n(&k["symlinks"]);
    assert_eq!(accounted, found, "{s}");
    assert_eq!(n(&k["symlinks"]), 2, "app/config and app/current.py: {s}");
    assert_eq!(s["version"]["dirty"], false, "{s}");
}
