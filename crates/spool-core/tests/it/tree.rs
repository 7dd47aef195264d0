//! Directory search and listings: the walker's rules, the scope block, pages from one
//! snapshot, keyset listing under churn, roots.

use std::collections::HashSet;
use std::time::Duration;

use spool_core::ErrorCode;
use spool_core::listing::{ListQuery, list};

/// A plain listing of `path`.
fn at(path: &str) -> ListQuery<'_> {
    ListQuery {
        path,
        ..ListQuery::default()
    }
}
use spool_core::search::tree::{DEFAULT_BUDGET, search_path};
use spool_core::search::{Paging, Query};
use spool_walk::roots::Roots;

use crate::support::{git, store, write};

fn q(p: &str) -> Query {
    Query {
        pattern: p.into(),
        literal: false,
        case_insensitive: false,
        words: None,
    }
}

/// Every page of a search of `roots` for `needle`, `limit` hits a page, each seen as it comes.
fn each_page(
    store: &spool_core::Store,
    roots: &Roots,
    limit: usize,
    mut each: impl FnMut(&spool_core::search::SearchAnswer),
) {
    let mut paging = Paging {
        limit: Some(limit),
        ..Paging::default()
    };
    loop {
        let a = search_path(
            store,
            roots,
            ".",
            &q("needle"),
            &[],
            &paging,
            DEFAULT_BUDGET,
        )
        .unwrap();
        each(&a);
        match a.next_cursor {
            Some(c) => paging.cursor = Some(c),
            None => break,
        }
    }
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", b"target/\n");
    write(root, "src/a.rs", b"fn main() {\n    let timeout = 5;\n}\n");
    write(
        root,
        "config/production.yaml",
        b"name: checkout\ntimeout: 10s\n",
    );
    write(root, "target/debug/gen.rs", b"timeout generated\n");
    write(root, ".hidden/notes.txt", b"timeout hidden\n");
    write(root, "assets/blob.bin", b"\x00\x01timeout\x00");
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "init"]);
    // Past the racy window: a stored search over files changed within a tick of its look
    // is not reused.
    crate::support::settle();
    dir
}

#[test]
fn directory_search_respects_the_walker_and_reports_its_scope() {
    let s = store();
    let dir = repo();
    let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
    let a = search_path(
        &s.store,
        &roots,
        ".",
        &q("timeout"),
        &[],
        &Paging::default(),
        DEFAULT_BUDGET,
    )
    .unwrap();
    let paths: Vec<&str> = a.hits.iter().map(|h| h.path.as_deref().unwrap()).collect();
    assert_eq!(paths, vec!["config/production.yaml", "src/a.rs"]);
    assert_eq!(a.hit_count, 2);
    assert!(!a.truncated);
    let scope = &serde_json::to_value(&a.scope).unwrap();
    assert_eq!(scope["files_skipped"]["binary"], 1);
    // target/debug/gen.rs is ignored; .hidden/notes.txt and .gitignore itself are hidden (and
    // said to be: hidden is not ignored).
    assert_eq!(scope["files_skipped"]["ignored"], 1);
    assert_eq!(scope["files_skipped"]["hidden"], 2);
    assert_eq!(scope["files_skipped"]["unreadable"], 0);
    assert!(
        scope["version"]["files_digest"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    assert_eq!(scope["version"]["dirty"], false);
    assert_eq!(scope["version"]["commit"].as_str().unwrap().len(), 40);
    assert!(
        a.reference.as_deref().unwrap().starts_with("sp_"),
        "the hit list is stored"
    );
    // Globs narrow the walk; a dirty tree says so.
    write(dir.path(), "src/b.rs", b"timeout again\n");
    let a = search_path(
        &s.store,
        &roots,
        ".",
        &q("timeout"),
        &["*.yaml".to_owned()],
        &Paging::default(),
        DEFAULT_BUDGET,
    )
    .unwrap();
    assert_eq!(a.hit_count, 1);
    assert_eq!(
        serde_json::to_value(&a.scope).unwrap()["version"]["dirty"],
        true
    );
}

#[test]
fn pages_of_hits_come_from_one_stored_snapshot() {
    let s = store();
    let dir = tempfile::tempdir().unwrap();
    for i in 0..30 {
        let body = (0..10).fold(String::new(), |mut b, j| {
            b.push_str(&format!("needle {i} {j}\n"));
            b
        });
        write(dir.path(), &format!("f{i:02}.txt"), body.as_bytes());
    }
    let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
    let mut seen = Vec::new();
    let mut hits_ref = None;
    each_page(&s.store, &roots, 70, |a| {
        assert_eq!(a.hit_count, 300);
        if let Some(r) = &hits_ref {
            assert_eq!(
                a.reference.as_ref(),
                Some(r),
                "every page reads the same hit list"
            );
        }
        hits_ref.clone_from(&a.reference);
        seen.extend(a.hits.iter().map(|h| (h.path.clone().unwrap(), h.line)));
        // Changing the tree between pages changes nothing in the pages.
        write(dir.path(), "f00.txt", b"gone\n");
    });
    assert_eq!(seen.len(), 300);
    assert_eq!(seen.iter().collect::<HashSet<_>>().len(), 300);
}

#[test]
fn a_search_out_of_time_says_what_it_covered() {
    let s = store();
    let dir = tempfile::tempdir().unwrap();
    for i in 0..5 {
        write(dir.path(), &format!("f{i}.txt"), b"needle\n");
    }
    let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
    let a = search_path(
        &s.store,
        &roots,
        ".",
        &q("needle"),
        &[],
        &Paging::default(),
        Duration::ZERO,
    )
    .unwrap();
    let reason = a.reason.unwrap();
    assert_eq!(reason.code, spool_core::envelope::ReasonCode::Timeout);
    assert!(reason.detail.contains("`f0.txt`"), "{}", reason.detail);
    assert!(!a.hit_count_exact);
    assert_eq!(serde_json::to_value(&a.scope).unwrap()["files_searched"], 1);
    assert!(
        serde_json::to_value(&a.scope).unwrap()["files_skipped"]
            .get("ignored")
            .is_none(),
        "unknown, so absent"
    );
}

#[test]
fn search_and_list_stay_inside_the_roots() {
    let s = store();
    let dir = repo();
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.txt", b"timeout secret\n");
    std::os::unix::fs::symlink(outside.path(), dir.path().join("escape")).unwrap();
    let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
    for path in ["..", "/etc", "escape"] {
        let err = search_path(
            &s.store,
            &roots,
            path,
            &q("x"),
            &[],
            &Paging::default(),
            DEFAULT_BUDGET,
        )
        .unwrap_err();
        assert_eq!(err.code(), ErrorCode::Forbidden, "{path}");
        let err = list(&s.store, &roots, at(path), None, None).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Forbidden, "{path}");
    }
    let err = list(&s.store, &roots, at("missing"), None, None).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    // A single file inside the roots is searched as a snapshot artifact.
    let a = search_path(
        &s.store,
        &roots,
        "config/production.yaml",
        &q("timeout"),
        &[],
        &Paging::default(),
        DEFAULT_BUDGET,
    )
    .unwrap();
    assert_eq!(a.hit_count, 1);
}

#[test]
fn listing_2500_entries_under_churn_shows_each_survivor_once() {
    let s = store();
    let dir = tempfile::tempdir().unwrap();
    for i in 0..2500 {
        write(dir.path(), &format!("e{i:05}"), b"");
    }
    let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
    let mut cursor: Option<String> = None;
    let mut seen: Vec<String> = Vec::new();
    let mut deleted = HashSet::new();
    let mut page_no = 0;
    loop {
        let page = list(&s.store, &roots, at("."), Some(100), cursor.as_deref()).unwrap();
        assert!(page.items.len() <= 100);
        seen.extend(page.items.iter().map(|e| e.name.clone()));
        page_no += 1;
        // Between pages: new entries before and after the cursor, and deletions of entries
        // already seen and not yet seen.
        write(dir.path(), &format!("a-new-{page_no}"), b"");
        write(dir.path(), &format!("z-new-{page_no}"), b"");
        for victim in [
            format!("e{:05}", page_no * 7),
            format!("e{:05}", 2499 - page_no * 3),
        ] {
            if std::fs::remove_file(dir.path().join(&victim)).is_ok() {
                deleted.insert(victim);
            }
        }
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    let counts = seen
        .iter()
        .fold(std::collections::HashMap::new(), |mut m, n| {
            *m.entry(n.clone()).or_insert(0) += 1;
            m
        });
    for i in 0..2500 {
        let name = format!("e{i:05}");
        if !deleted.contains(&name) {
            assert_eq!(
                counts.get(&name),
                Some(&1),
                "{name} must appear exactly once"
            );
        }
    }
    assert!(counts.values().all(|&c| c == 1), "nothing repeats");
    // A tampered cursor is an error, not a restart.
    let page = list(&s.store, &roots, at("."), Some(10), None).unwrap();
    let mut bad = page.next_cursor.unwrap().into_bytes();
    bad[3] ^= 1;
    let err = list(
        &s.store,
        &roots,
        at("."),
        Some(10),
        Some(std::str::from_utf8(&bad).unwrap()),
    )
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
}

#[test]
fn directory_search_answers_in_words() {
    let s = store();
    let dir = repo();
    let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
    let a = search_path(
        &s.store,
        &roots,
        ".",
        &q("timeout"),
        &[],
        &Paging {
            limit: Some(1),
            ..Paging::default()
        },
        DEFAULT_BUDGET,
    )
    .unwrap();
    let commit = serde_json::to_value(&a.scope).unwrap()["version"]["commit"]
        .as_str()
        .unwrap()[..12]
        .to_owned();
    let cursor = a.next_cursor.clone().unwrap();
    let stable = |t: String| t.replace(&commit, "[COMMIT]").replace(&cursor, "[CURSOR]");
    insta::assert_snapshot!(
        "tree_mcp",
        stable(spool_core::search::render_answer(
            &a,
            spool_core::render::Dialect::Mcp
        ))
    );
    insta::assert_snapshot!(
        "tree_cli",
        stable(spool_core::search::render_answer(
            &a,
            spool_core::render::Dialect::Cli
        ))
    );
    let none = search_path(
        &s.store,
        &roots,
        "src",
        &q("absent"),
        &[],
        &Paging::default(),
        DEFAULT_BUDGET,
    )
    .unwrap();
    insta::assert_snapshot!(
        "tree_none",
        stable(spool_core::search::render_answer(
            &none,
            spool_core::render::Dialect::Mcp
        ))
    );
}

#[test]
fn a_recursive_listing_counts_the_hidden_and_ignored_entries_it_left_out() {
    let s = store();
    let dir = tempfile::tempdir().unwrap();
    for (name, body) in [
        ("a.txt", &b"a"[..]),
        (".hidden", b"h"),
        (".config/x", b"x"),
        ("sub/b.txt", b"b"),
        ("sub/ignored.log", b"i"),
        (".ignore", b"*.log\n"),
    ] {
        write(dir.path(), name, body);
    }
    let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
    let walked = ListQuery {
        path: ".",
        recursive: true,
        ..ListQuery::default()
    };
    let page = list(&s.store, &roots, walked, None, None).unwrap();
    let paths: Vec<&str> = page.items.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["a.txt", "sub", "sub/b.txt"]);
    // .hidden, .config, .config/x, .ignore and sub/ignored.log
    assert_eq!(page.skipped.as_ref().unwrap()["hidden_or_ignored"], 5);
    let text = format!(
        "{}{}",
        spool_core::list_text::entries_text(&page, ".", spool_core::render::Dialect::Mcp),
        spool_core::list_text::entries_text(&page, ".", spool_core::render::Dialect::Cli)
    );
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", "[TIME]");
    settings.bind(|| insta::assert_snapshot!(text));
    // Asked for, they are listed, and nothing is said to be left out.
    let all = list(
        &s.store,
        &roots,
        ListQuery {
            hidden: true,
            ..walked
        },
        None,
        None,
    )
    .unwrap();
    assert_eq!(all.items.len(), 8);
    assert!(all.skipped.is_none());
}

/// Regression (issue 13): an empty directory answered "no entries at this position of 0", as
/// if a cursor had run past the end.
#[test]
fn an_empty_listing_says_why_it_is_empty() {
    let s = store();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    write(dir.path(), "only-hidden/.h", b"h");
    write(dir.path(), "texts/a.txt", b"a");
    let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
    let notice = |query: ListQuery<'_>| {
        let page = list(&s.store, &roots, query, None, None).unwrap();
        assert_eq!(page.total, Some(0));
        spool_core::list_text::entries_notice(&page, query.path, spool_core::render::Dialect::Cli)
    };
    let text = [
        notice(ListQuery {
            path: "empty",
            ..ListQuery::default()
        }),
        notice(ListQuery {
            path: "only-hidden",
            recursive: true,
            ..ListQuery::default()
        }),
        notice(ListQuery {
            path: "texts",
            glob: Some("*.rs"),
            ..ListQuery::default()
        }),
    ]
    .join("\n");
    insta::assert_snapshot!(text);
}

/// Regression (issue 13): the hit list of a directory search was stored as one JSON object a
/// hit, keys and all: 6x the size of a file of short lines. Stored as compact arrays it is
/// under 4x, and a page of it reads back the same hits.
#[test]
fn a_hit_list_of_short_lines_is_stored_compactly() {
    use std::fmt::Write as _;
    let s = store();
    let dir = tempfile::tempdir().unwrap();
    let mut nums = String::new();
    for i in 1..=200_000 {
        let _ = writeln!(nums, "{i}");
    }
    std::fs::write(dir.path().join("nums.txt"), &nums).unwrap();
    let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
    let a = search_path(
        &s.store,
        &roots,
        ".",
        &q("7"),
        &[],
        &Paging::default(),
        DEFAULT_BUDGET,
    )
    .unwrap();
    assert_eq!(
        a.hit_count,
        nums.lines().filter(|l| l.contains('7')).count() as u64
    );
    let list = s.store.meta(a.reference.as_deref().unwrap()).unwrap();
    let ratio = list.bytes as f64 / nums.len() as f64;
    assert!(ratio < 4.0, "the hit list is {ratio:.1}x the file");
    assert_eq!(a.hits[0].line, 7);
    assert_eq!(a.hits[0].text, "7");
    assert_eq!(a.hits[0].path.as_deref(), Some("nums.txt"));
}

/// Issue 14: a ranked word search of a directory reads the files a regex search would (ignored,
/// hidden and binary files left out and counted), stores their passages once, finds the
/// passage a question describes, pages by cursor from that copy, and makes a new copy only
/// when a file changed.
#[test]
fn a_word_search_of_a_directory_ranks_passages_of_every_file_it_reads() {
    use spool_core::search::tree::Filter;
    let s = store();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    write(root, ".gitignore", b"target/\n");
    write(
        root,
        "src/retry.rs",
        b"/// Retries with exponential backoff when the upstream times out.\nfn backoff() {}\n",
    );
    write(
        root,
        "docs/config.md",
        b"# Config\n\n| Name | Use |\n|---|---|\n| UPSTREAM_TIMEOUT | How long the upstream may take. |\n",
    );
    write(root, "target/out.txt", b"exponential backoff upstream\n");
    write(root, ".env.md", b"exponential backoff upstream\n");
    write(root, "blob.bin", b"exponential\0backoff upstream\n");
    crate::support::settle();
    let roots = Roots::new(&[root.to_path_buf()]).unwrap();
    let filter = Filter {
        globs: &[],
        hidden: false,
        no_ignore: false,
    };
    let question = "exponential backoff when upstream times out";
    let a = spool_core::search::tree::TreeSearch::new(&s.store, &roots, ".", &Paging::default())
        .filtered(filter)
        .passages(question)
        .unwrap();
    assert_eq!(
        a.hits[0].path.as_deref(),
        Some("src/retry.rs"),
        "{:#?}",
        a.hits
    );
    assert_eq!(a.hits[0].line, 1);
    assert!(
        a.hits[0]
            .text
            .starts_with("/// Retries with exponential backoff")
    );
    // The docs row shares "upstream" and "timeout" (stemmed "times"): counted, ranked lower.
    assert_eq!(a.hit_count, 2, "{:#?}", a.hits);
    assert_eq!(a.hits[1].path.as_deref(), Some("docs/config.md"));
    let spool_core::search::Scope::Tree(scope) = &a.scope else {
        panic!("not a tree scope: {:?}", a.scope)
    };
    // src/retry.rs and docs/config.md; .gitignore and .env.md are hidden.
    assert_eq!(scope.files_searched, 2, "{scope:?}");
    assert_eq!(scope.files_skipped.binary, 1);
    assert_eq!(scope.files_skipped.hidden, Some(2));
    assert!(scope.files_skipped.ignored.unwrap() >= 1, "{scope:?}");
    let notice = spool_core::search::notice(&a, spool_core::render::Dialect::Cli);
    assert!(
        notice.contains(
            "2 passages holding any of the words exponential, backoff, upstream, times, out"
        ),
        "{notice}"
    );
    assert!(notice.contains("2 files under `.`"), "{notice}");
    // Unchanged files: the same stored copy answers; a page continues from it.
    let paging = Paging {
        limit: Some(1),
        ..Paging::default()
    };
    let first = spool_core::search::tree::TreeSearch::new(&s.store, &roots, ".", &paging)
        .filtered(filter)
        .passages(question)
        .unwrap();
    assert_eq!(first.reference, a.reference);
    assert!(first.truncated);
    let second = spool_core::search::tree::TreeSearch::new(
        &s.store,
        &roots,
        ".",
        &Paging {
            cursor: first.next_cursor.clone(),
            ..paging.clone()
        },
    )
    .filtered(filter)
    .passages(question)
    .unwrap();
    assert_eq!(second.hits[0].path.as_deref(), Some("docs/config.md"));
    assert!(!second.truncated);
    // A cursor of another query is refused, not restarted.
    let err = spool_core::search::tree::TreeSearch::new(
        &s.store,
        &roots,
        ".",
        &Paging {
            cursor: first.next_cursor.clone(),
            ..paging.clone()
        },
    )
    .filtered(filter)
    .passages("config name")
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    // A changed file makes a new copy, and its words are found.
    write(
        root,
        "src/retry.rs",
        b"fn jitter() {} // adds exponential jitter\n",
    );
    let changed =
        spool_core::search::tree::TreeSearch::new(&s.store, &roots, ".", &Paging::default())
            .filtered(filter)
            .passages("jitter")
            .unwrap();
    assert_ne!(changed.reference, a.reference);
    assert_eq!(changed.hit_count, 1);
    // Hidden files when asked for.
    let hidden = Filter {
        globs: &[],
        hidden: true,
        no_ignore: false,
    };
    let with_hidden =
        spool_core::search::tree::TreeSearch::new(&s.store, &roots, ".", &Paging::default())
            .filtered(hidden)
            .passages("exponential")
            .unwrap();
    assert!(
        with_hidden
            .hits
            .iter()
            .any(|h| h.path.as_deref() == Some(".env.md")),
        "{:#?}",
        with_hidden.hits
    );
    // Out of time: the answer says what the index covered, and that the count is not exact.
    let late = spool_core::search::tree::TreeSearch::new(&s.store, &roots, ".", &Paging::default())
        .filtered(Filter {
            globs: &["*.md".to_owned()],
            hidden: true,
            no_ignore: false,
        })
        .within(Duration::ZERO)
        .passages("config")
        .unwrap();
    assert!(!late.hit_count_exact);
    assert_eq!(
        late.reason.as_ref().unwrap().code,
        spool_core::envelope::ReasonCode::Timeout
    );
    // Regression: a build that ran out of time was reused for every later search of the same
    // tree; the next search with time to spare indexes it whole.
    let whole =
        spool_core::search::tree::TreeSearch::new(&s.store, &roots, ".", &Paging::default())
            .filtered(Filter {
                globs: &["*.md".to_owned()],
                hidden: true,
                no_ignore: false,
            })
            .passages("config")
            .unwrap();
    assert!(whole.hit_count_exact && whole.reason.is_none());
    assert_ne!(whole.reference, late.reference);
}

/// Files are read on several threads in batches, and large ones by the caller in their turn:
/// the hit list still comes in path order (component by component), every hit counted once,
/// binary files counted and left out.
#[test]
fn a_search_read_on_several_threads_lists_hits_in_path_order() {
    let s = store();
    let dir = tempfile::tempdir().unwrap();
    let mut expected = Vec::new();
    for i in 0..150 {
        // Names that sort differently as whole strings and as paths: `d1/...` before `d1.x`.
        let rel = match i % 3 {
            0 => format!("d{}/f{i:03}.txt", i % 7),
            1 => format!("d{}.x/f{i:03}.txt", i % 7),
            _ => format!("f{i:03}.txt"),
        };
        let mut body = format!("needle in {rel}\n").into_bytes();
        if i % 25 == 0 {
            // Over a worker's size: read by the caller, and its hit comes last in the file.
            body = vec![b'x'; 1_100_000];
            body.extend_from_slice(format!("\nneedle in {rel}\n").as_bytes());
        }
        if i % 40 == 7 {
            body.insert(0, 0);
        } else {
            expected.push(std::path::PathBuf::from(&rel));
        }
        write(dir.path(), &rel, &body);
    }
    expected.sort();
    let expected: Vec<String> = expected
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
    let mut seen = Vec::new();
    each_page(&s.store, &roots, 40, |a| {
        assert_eq!(a.hit_count, expected.len() as u64);
        seen.extend(a.hits.iter().map(|h| h.path.clone().unwrap()));
    });
    assert_eq!(seen, expected);
}

fn search_dot(s: &spool_core::Store, roots: &Roots, pattern: &str) -> serde_json::Value {
    let a = search_path(
        s,
        roots,
        ".",
        &q(pattern),
        &[],
        &Paging::default(),
        DEFAULT_BUDGET,
    )
    .unwrap();
    serde_json::to_value(&a.scope).unwrap()
}

/// The dirty flag a search for `timeout` in `roots` states.
fn dirty(s: &spool_core::Store, roots: &Roots) -> serde_json::Value {
    search_dot(s, roots, "timeout")["version"]["dirty"].clone()
}

/// A first search learns each file's size and time as it opens it (no `stat` of its own): its
/// version digest is the one a walk that looks finds, so its repeat reuses the stored list.
#[test]
fn a_first_search_states_the_digest_a_looking_walk_finds() {
    let s = store();
    let dir = repo();
    let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
    let first = search_dot(&s.store, &roots, "timeout");
    let real = dir.path().canonicalize().unwrap();
    let looked = spool_walk::walk::walk(&real, &[], false).unwrap();
    assert_eq!(first["version"]["files_digest"], looked.digest.as_str());
    let again = search_dot(&s.store, &roots, "timeout");
    assert_eq!(again, first, "the same scope, from the stored list");
}

/// The dirty check takes each searched file's size and time from the search and looks at the
/// tracked files the search does not read (hidden ones) itself.
#[test]
fn a_change_to_a_searched_or_an_unsearched_tracked_file_makes_the_tree_dirty() {
    let s = store();
    let dir = repo();
    let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
    assert_eq!(dirty(&s.store, &roots), false);
    // A hidden tracked file, not searched: found by the check's own look.
    write(
        dir.path(),
        ".hidden/notes.txt",
        b"timeout hidden, longer now\n",
    );
    assert_eq!(dirty(&s.store, &roots), true);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "notes"]);
    assert_eq!(dirty(&s.store, &roots), false);
    // A searched file: found from the size the search saw.
    write(dir.path(), "src/a.rs", b"fn main() {}\n");
    assert_eq!(dirty(&s.store, &roots), true);
}

/// Regression (git's "racily clean" entry): a file changed again within the tick it was staged
/// in keeps its size and time, and so matches its entry. Its entry's time is not before the
/// index's own, so git hashes it and says it is modified; the dirty check says so too (it
/// believed the size and time).
#[test]
fn a_file_changed_in_the_tick_it_was_staged_in_makes_the_tree_dirty() {
    let s = store();
    let dir = repo();
    let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
    let file = dir.path().join("src/a.rs");
    let staged_at = std::fs::metadata(&file).unwrap().modified().unwrap();
    let set_time = |path: &std::path::Path| {
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(staged_at)
            .unwrap();
    };
    // The same size, other bytes, the staged time; the index written in that same tick.
    write(
        dir.path(),
        "src/a.rs",
        b"fn main() {\n    let timeout = 6;\n}\n",
    );
    set_time(&file);
    set_time(&dir.path().join(".git/index"));
    assert_eq!(dirty(&s.store, &roots), true);
    // Git agrees (asked without letting it rewrite the index).
    let status = git(
        dir.path(),
        &["--no-optional-locks", "status", "--porcelain"],
    );
    assert!(status.contains("src/a.rs"), "{status}");
}

/// A merge that stopped at a conflict leaves an index entry per stage of the conflicted file:
/// the tree is dirty, as `git status` says, and clean again once the merge is committed. (Which
/// walked file each stage is compared with is held by `git::tests`: here the conflicted file
/// differs from every stage, so the tree is dirty however the stages are placed.)
#[test]
fn a_conflicted_merge_makes_the_tree_dirty_until_it_is_committed() {
    let s = store();
    let dir = repo();
    let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
    write(dir.path(), "c.txt", b"timeout one\n");
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "c"]);
    git(dir.path(), &["checkout", "-q", "-b", "side"]);
    write(dir.path(), "c.txt", b"timeout two\n");
    git(dir.path(), &["commit", "-q", "-am", "two"]);
    git(dir.path(), &["checkout", "-q", "-"]);
    write(dir.path(), "c.txt", b"timeout three\n");
    git(dir.path(), &["commit", "-q", "-am", "three"]);
    let merge = std::process::Command::new("git")
        .arg("-C")
        .arg(dir.path())
        .args(["merge", "-q", "side"])
        .output()
        .unwrap();
    assert!(!merge.status.success(), "the merge stops at the conflict");
    let stages = git(dir.path(), &["ls-files", "--stage", "c.txt"]);
    assert_eq!(stages.lines().count(), 3, "{stages}");
    assert!(git(dir.path(), &["status", "--porcelain"]).contains("UU c.txt"));
    assert_eq!(dirty(&s.store, &roots), true);
    write(dir.path(), "c.txt", b"timeout both\n");
    git(dir.path(), &["commit", "-q", "-am", "merged"]);
    assert_eq!(dirty(&s.store, &roots), false);
}

/// A file with more hits than a worker holds (256 KiB of them) is searched again in its turn:
/// every hit stored once, in path order, between the files before and after it.
#[test]
fn a_file_with_many_hits_is_stored_whole_and_in_order() {
    let s = store();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", b"needle a\n");
    let many = (1..=20_000).fold(String::new(), |mut s, i| {
        s.push_str(&format!("needle {i:05} ........\n"));
        s
    });
    write(dir.path(), "b.txt", many.as_bytes());
    write(dir.path(), "c.txt", b"needle c\n");
    let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
    let mut seen: Vec<(String, u64)> = Vec::new();
    each_page(&s.store, &roots, 1_000, |a| {
        assert_eq!(a.hit_count, 20_002);
        seen.extend(a.hits.iter().map(|h| (h.path.clone().unwrap(), h.line)));
    });
    let mut want = vec![("a.txt".to_owned(), 1)];
    want.extend((1..=20_000).map(|i| ("b.txt".to_owned(), i)));
    want.push(("c.txt".to_owned(), 1));
    assert_eq!(seen, want);
}

/// Regression (review): a first search walked hidden files and left them out itself, so a
/// hidden file the ignore rules take back in (`!.env.example`) was not searched, as ripgrep
/// and every repeat search do.
#[test]
fn a_hidden_file_an_ignore_rule_takes_back_in_is_searched() {
    let s = store();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".gitignore", b"!.env.example\nbuild/\n");
    write(dir.path(), ".env.example", b"needle env\n");
    write(dir.path(), ".secret", b"needle hidden\n");
    write(dir.path(), "a.txt", b"needle a\n");
    write(dir.path(), "build/x.txt", b"needle built\n");
    git(dir.path(), &["init", "-q"]);
    crate::support::settle();
    let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
    let mut refs = Vec::new();
    for _ in 0..2 {
        let mut paths = Vec::new();
        each_page(&s.store, &roots, 10, |a| {
            paths.extend(a.hits.iter().map(|h| h.path.clone().unwrap()));
            refs.push(a.reference.clone());
            // The file taken back in is searched, not counted as left out for being hidden
            // (regression: 3 hidden and 0 ignored).
            let skipped = &serde_json::to_value(&a.scope).unwrap()["files_skipped"];
            assert_eq!(
                (&skipped["hidden"], &skipped["ignored"]),
                (&2.into(), &1.into())
            );
        });
        assert_eq!(paths, [".env.example", "a.txt"]);
    }
    assert_eq!(refs[0], refs[1], "the repeat reuses the first list");
}

/// The same when the rule that takes a hidden file back in sits in a subdirectory's ignore
/// file; and a new hidden file git does not ignore makes the tree dirty (hidden files are not
/// searched, but count for the dirty check).
#[test]
fn hidden_files_count_for_the_dirty_check_and_a_nested_rule_takes_one_back() {
    let s = store();
    let dir = repo();
    let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
    write(dir.path(), "sub/.gitignore", b"!.keep\n");
    write(dir.path(), "sub/.keep", b"timeout kept\n");
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "keep"]);
    let a = search_path(
        &s.store,
        &roots,
        ".",
        &q("timeout"),
        &[],
        &Paging::default(),
        DEFAULT_BUDGET,
    )
    .unwrap();
    let paths: Vec<&str> = a.hits.iter().map(|h| h.path.as_deref().unwrap()).collect();
    assert_eq!(paths, ["config/production.yaml", "src/a.rs", "sub/.keep"]);
    assert_eq!(
        serde_json::to_value(&a.scope).unwrap()["version"]["dirty"],
        false
    );
    let s = store();
    write(dir.path(), "src/.new", b"untracked\n");
    assert_eq!(dirty(&s.store, &roots), true);
}

/// Regression: a word index of a directory was reused for the same files after a commit, and
/// its answers stated the old commit; it is built again when the repository's state moved.
#[test]
fn a_word_index_is_not_reused_across_a_commit() {
    use spool_core::search::tree::Filter;
    let s = store();
    let dir = repo();
    let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
    let filter = Filter {
        globs: &[],
        hidden: false,
        no_ignore: false,
    };
    let ask = || {
        spool_core::search::tree::TreeSearch::new(&s.store, &roots, ".", &Paging::default())
            .filtered(filter)
            .passages("timeout main")
            .unwrap()
    };
    let commit_of = |a: &spool_core::search::SearchAnswer| {
        serde_json::to_value(&a.scope).unwrap()["version"]["commit"].clone()
    };
    crate::support::settle();
    let first = ask();
    assert_eq!(ask().reference, first.reference, "unchanged: reused");
    git(
        dir.path(),
        &["commit", "-q", "--allow-empty", "-m", "empty"],
    );
    let after = ask();
    assert_ne!(after.reference, first.reference);
    assert_ne!(commit_of(&after), commit_of(&first));
}
