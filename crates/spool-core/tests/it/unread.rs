//! A file a directory search did not read is named with why, and a search that found nothing
//! offers the search of it alone (issue 57, case 4): a binary file, and a one-line JSON file
//! longer than a search holds at once, which was called "unreadable" though a search of it
//! alone reads it. Checked against `grep -a -l` (which reads both).

use std::path::Path;
use std::process::Command;

use spool_core::calls::NextCall;
use spool_core::search::{Paging, SearchAnswer};

use crate::support::{store, write};

fn search(root: &Path, path: &str) -> (SearchAnswer, String) {
    let s = store();
    crate::support::search_words(&s.store, root, path, "NEEDLE", &Paging::default())
}

#[test]
fn files_left_unread_are_named_and_each_is_offered_alone() {
    let dir = tempfile::tempdir().unwrap();
    let root = &dir.path().canonicalize().unwrap();
    write(root, "d/notes.txt", "nothing here\n");
    write(
        root,
        "d/blob.dat",
        b"abc\0def\nNEEDLE in a binary\n".as_slice(),
    );
    // One line of 33 MiB, the answer at its end.
    let mut line = "x".repeat(33 << 20);
    line.push_str("NEEDLE\n");
    write(root, "d/dump.json", line);
    let grep = Command::new("grep")
        .args(["-a", "-l", "-r", "NEEDLE", "d"])
        .current_dir(root)
        .output()
        .unwrap();
    let mut truth: Vec<String> = String::from_utf8_lossy(&grep.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    truth.sort();
    assert_eq!(truth, ["d/blob.dat", "d/dump.json"]);

    let (a, text) = search(root, "d");
    assert_eq!(a.hit_count, 0);
    let s = serde_json::to_value(&a.scope).unwrap();
    let k = &s["files_skipped"];
    assert_eq!(
        (k["binary"].as_u64(), k["long_lines"].as_u64()),
        (Some(1), Some(1)),
        "{s}"
    );
    assert_eq!(k["unreadable"], 0, "not unreadable: {s}");
    assert!(text.contains("1 with a line over 32.0 MiB"), "{text}");
    assert!(text.contains("absent here is not absent there"), "{text}");
    let mut offered: Vec<String> = a
        .next
        .iter()
        .filter_map(|c| match c {
            NextCall::Search(p) => p.path.clone(),
            _ => None,
        })
        .collect();
    offered.sort();
    assert_eq!(offered, truth, "{text}");
    // Each, run as offered, finds its hit.
    for path in &offered {
        let (b, _) = search(root, path);
        assert_eq!(b.hit_count, 1, "{path}");
    }
}
