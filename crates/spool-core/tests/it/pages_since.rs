//! A cursor page of a directory search knows its snapshot (issue 57, case 5): it states when
//! the search ran, and the hits of its own files deleted or changed since are marked, with the
//! call that searches the tree as it is now. Checked against the files themselves (`rg`'s view
//! of the tree now: which of the page's hits still hold).

use std::path::Path;
use std::process::Command;

use spool_core::calls::NextCall;
use spool_core::search::{Paging, SearchAnswer};

use crate::support::{store, write};

fn page(s: &spool_core::store::Store, root: &Path, cursor: Option<String>) -> SearchAnswer {
    let paging = Paging {
        context: 0,
        limit: Some(3),
        cursor,
    };
    crate::support::search_words(s, root, ".", "timeout", &paging).0
}

/// The lines `rg` finds now in `path` under `root`.
fn rg_now(root: &Path, path: &str) -> Vec<String> {
    let out = Command::new("rg")
        .args(["--no-heading", "-N", "timeout", path])
        .current_dir(root)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_cursor_page_states_its_time_and_marks_hits_of_files_changed_since() {
    let dir = tempfile::tempdir().unwrap();
    let root = &dir.path().canonicalize().unwrap();
    for i in 0..9 {
        write(root, &format!("f{i}.yaml"), format!("timeout: {i}\n"));
    }
    crate::support::settle();
    let s = store();
    let first = page(&s.store, root, None);
    assert_eq!(first.hit_count, 9);
    assert_eq!(first.hits.len(), 3);
    let cursor = first.next_cursor.clone().unwrap();
    // The first page is the search itself: no "as it was" to state.
    let scope = serde_json::to_value(&first.scope).unwrap();
    assert!(scope.get("searched_at").is_none(), "{scope}");

    // Page 2 holds f3, f4, f5: two deleted, one edited.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::remove_file(root.join("f3.yaml")).unwrap();
    std::fs::remove_file(root.join("f4.yaml")).unwrap();
    write(root, "f5.yaml", "timeout: 50\n");
    let second = page(&s.store, root, Some(cursor));
    let paths: Vec<_> = second
        .hits
        .iter()
        .map(|h| h.path.clone().unwrap())
        .collect();
    assert_eq!(paths, ["f3.yaml", "f4.yaml", "f5.yaml"]);
    // The truth, file by file: gone, gone, and a line that is no longer the hit's.
    assert!(!root.join("f3.yaml").exists() && !root.join("f4.yaml").exists());
    assert_eq!(rg_now(root, "f5.yaml"), ["timeout: 50"]);
    assert_ne!(second.hits[2].text.trim_end(), "timeout: 50");
    let marks: Vec<_> = second.hits.iter().map(|h| h.since.as_deref()).collect();
    assert_eq!(
        marks,
        [
            Some("deleted since the search"),
            Some("deleted since the search"),
            Some("changed since the search")
        ]
    );
    let scope = serde_json::to_value(&second.scope).unwrap();
    assert!(scope["searched_at"].as_str().is_some(), "{scope}");
    assert_eq!(scope["changed_since"]["deleted"], 2, "{scope}");
    assert_eq!(scope["changed_since"]["changed"], 1, "{scope}");
    let text = spool_core::search::render_answer(&second, spool_core::render::Dialect::Cli);
    assert!(
        text.contains("Since then, of this page's files, 2 deleted and 1 changed"),
        "{text}"
    );
    assert!(
        text.contains("f3.yaml:1:timeout: 3 [file deleted since the search]"),
        "{text}"
    );
    // The call that reads the tree as it is now: the same search, no cursor.
    let fresh = second.next.iter().find_map(|c| match c {
        NextCall::Search(p) if p.cursor.is_none() => Some(p.clone()),
        _ => None,
    });
    assert!(fresh.is_some(), "{:?}", second.next);
    let now = page(&s.store, root, None);
    assert_eq!(now.hit_count, 7, "the tree as it is now");

    // A page of files untouched since: its time, and nothing marked.
    let third = page(&s.store, root, second.next_cursor.clone());
    assert!(third.hits.iter().all(|h| h.since.is_none()));
    let scope = serde_json::to_value(&third.scope).unwrap();
    assert!(scope["searched_at"].as_str().is_some() && scope.get("changed_since").is_none());
}
