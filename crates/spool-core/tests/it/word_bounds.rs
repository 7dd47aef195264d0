//! Word search under hostile input (issue 39): a query of 200,000 distinct words took 237 s of
//! CPU (the words were deduplicated by a linear scan each, and all were looked for); the word
//! index was created 0644 beside 0600 content; a word search over a corrupt artifact answered
//! `internal`.

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use spool_core::ErrorCode;
use spool_core::render::Dialect;
use spool_core::search::tree::Filter;
use spool_core::search::{MAX_QUERY_WORDS, Paging, notice, search_words};
use spool_walk::roots::Roots;

use crate::support::{put, settings_page, store, write};

fn huge_query() -> String {
    (0..200_000).fold(String::new(), |mut s, i| {
        use std::fmt::Write as _;
        let _ = write!(s, "w{i}x ");
        s
    })
}

#[test]
fn a_query_of_200_000_words_looks_for_the_first_32_and_says_so() {
    let s = store();
    let meta = put(&s.store, settings_page().as_bytes());
    let started = Instant::now();
    let text = format!("startup {}", huge_query());
    let a = search_words(&s.store, &meta.reference, &text, &Paging::default()).unwrap();
    // Not a speed claim: a bound on work that was quadratic (minutes), far from the limit.
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    let words = a.query.words.as_ref().unwrap();
    assert_eq!(words.looked_for.len(), MAX_QUERY_WORDS);
    assert_eq!(words.looked_for[0], "startup");
    assert_eq!(words.not_used, 200_001 - MAX_QUERY_WORDS as u64);
    let said = notice(&a, Dialect::Cli);
    assert!(
        said.contains(
            "(the first 32: 199,969 more words were not used, a query looks for at most 32)"
        ),
        "{said}"
    );
    // The passage holding the one real word is still found.
    assert!(a.hit_count >= 1, "{said}");
}

#[test]
fn a_directory_word_search_caps_its_words_too() {
    let s = store();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.md", b"the retry backs off\n");
    crate::support::settle();
    let roots = Roots::new(&[dir.path().to_path_buf()]).unwrap();
    let filter = Filter {
        globs: &[],
        hidden: false,
        no_ignore: false,
    };
    let text = format!("retry {}", huge_query());
    let a = spool_core::search::tree::TreeSearch::new(&s.store, &roots, ".", &Paging::default())
        .filtered(filter)
        .passages(&text)
        .unwrap();
    let words = a.query.words.as_ref().unwrap();
    assert_eq!(words.looked_for.len(), MAX_QUERY_WORDS);
    assert_eq!(words.not_used, 200_001 - MAX_QUERY_WORDS as u64);
    assert_eq!(a.hit_count, 1);
}

#[test]
fn word_indexes_are_private_like_the_content() {
    let s = store();
    let meta = put(&s.store, settings_page().as_bytes());
    search_words(&s.store, &meta.reference, "startup", &Paging::default()).unwrap();
    let content = s.store.root().join("content");
    let mut indexes = 0;
    for entry in std::fs::read_dir(&content).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().extension().is_some_and(|e| e == "words") {
            indexes += 1;
            let mode = entry.metadata().unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{name}: {mode:o}");
        }
    }
    assert_eq!(indexes, 1);
}

#[test]
fn a_word_search_over_a_corrupt_artifact_answers_corrupt() {
    let s = store();
    let meta = put(&s.store, settings_page().as_bytes());
    let path = s.store.root().join("content").join(&meta.reference);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[10] ^= 0x01;
    std::fs::write(&path, bytes).unwrap();
    let e = search_words(&s.store, &meta.reference, "startup", &Paging::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Corrupt, "{e}");
}
