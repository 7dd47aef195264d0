//! A directory search walks the tree with a walk of its own (each directory read once; see
//! `rules.rs`): on random trees of ignore files (`.gitignore`, `.ignore`, `info/exclude`),
//! whitelists, hidden names, globs and repositories inside, it lets through exactly the files
//! ripgrep's walker lets through, and the search states the same left-out counts and dirty
//! flag as a survey of the whole tree, and as `git status` says.

use std::path::Path;

use proptest::prelude::*;
use spool_core::search::tree::{Filter, left_out_and_version};
use spool_core::search::{Paging, Query};
use spool_walk::roots::Roots;
use spool_walk::walk;

use crate::support::{git, store, write};

const DIRS: &[&str] = &[
    "", "a/", "a/b/", ".h/", "build/", "a/.h2/", "sub/", "build/x/",
];
const FILES: &[&str] = &[
    "x.rs", "y.log", "keep.log", ".env", "top.txt", "n.txt", "b.dat",
];
const RULES: &[&str] = &[
    "*.log",
    "!keep.log",
    "build/",
    "/top.txt",
    ".h*",
    "!.env",
    "a/b/",
    "*.txt",
    "!n.txt",
    "b",
    "sub",
    "!.h/",
    "!build/",
    "x/",
    "!*.rs",
    "**/b/**",
    "!a/b/",
    ".*",
    "*.dat",
    "!*.log",
    "!*.txt",
    "y.log",
    "!y.log",
];
const RULE_FILES: &[&str] = &[".gitignore", ".ignore"];
const GLOBS: &[&[&str]] = &[
    &[],
    &["*.rs"],
    &["!*.log"],
    &["*.rs", "!a/**"],
    &["!build/**"],
    &["*.txt", "*.log"],
];

/// A tree to build: files (directory, name), rule files (directory, which, rules), the
/// repository's `info/exclude`, whether it is a committed repository, a directory given a
/// `.git` of its own after the commit, files written after it, and the search's globs and
/// hidden flag.
#[derive(Debug, Clone)]
struct Tree {
    files: Vec<(usize, usize)>,
    rules: Vec<(usize, usize, Vec<usize>)>,
    exclude: Vec<usize>,
    repo: bool,
    inner_repo: Option<usize>,
    untracked: Vec<(usize, usize)>,
    globs: usize,
    hidden: bool,
}

fn tree() -> impl Strategy<Value = Tree> {
    let file = || (0..DIRS.len(), 0..FILES.len());
    (
        prop::collection::vec(file(), 1..14),
        prop::collection::vec(
            (
                0..DIRS.len(),
                0..RULE_FILES.len(),
                prop::collection::vec(0..RULES.len(), 1..5),
            ),
            0..6,
        ),
        prop::collection::vec(0..RULES.len(), 0..2),
        any::<bool>(),
        prop::option::weighted(0.2, 1..DIRS.len()),
        prop::collection::vec(file(), 0..3),
        (0..GLOBS.len(), any::<bool>()),
    )
        .prop_map(
            |(files, rules, exclude, repo, inner_repo, untracked, (globs, hidden))| Tree {
                files,
                rules,
                exclude,
                repo,
                inner_repo,
                untracked,
                globs,
                hidden,
            },
        )
}

/// The rules named by `rules`, a line each.
fn lines(rules: &[usize]) -> String {
    rules
        .iter()
        .map(|&r| RULES[r])
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

fn build(t: &Tree, root: &Path) {
    for &(d, f) in &t.files {
        write(root, &format!("{}{}", DIRS[d], FILES[f]), "hit\n");
    }
    for (d, which, rules) in &t.rules {
        let text = lines(rules);
        write(root, &format!("{}{}", DIRS[*d], RULE_FILES[*which]), &text);
    }
    if t.repo {
        git(root, &["init", "-q"]);
        let text = lines(&t.exclude);
        write(root, ".git/info/exclude", &text);
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "--allow-empty", "-m", "init"]);
    }
    for &(d, f) in &t.untracked {
        write(root, &format!("{}new-{}", DIRS[d], FILES[f]), "hit\n");
    }
    if let Some(d) = t.inner_repo {
        std::fs::create_dir_all(root.join(DIRS[d]).join(".git")).unwrap();
    }
}

/// The files ripgrep's walker (the `ignore` crate's, as spool used it) lets through, by path
/// under `dir`, in path order.
fn ripgrep_walks(dir: &Path, globs: &[String], hidden: bool) -> Vec<String> {
    let mut overrides = ignore::overrides::OverrideBuilder::new(dir);
    for g in globs {
        overrides.add(g).unwrap();
    }
    let mut files: Vec<_> = ignore::WalkBuilder::new(dir)
        .overrides(overrides.build().unwrap())
        .hidden(!hidden)
        .filter_entry(|e| e.file_name() != ".git")
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .map(|e| e.path().strip_prefix(dir).unwrap().to_owned())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect()
}

fn check(t: &Tree) -> Result<(), TestCaseError> {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    build(t, &root);
    let globs: Vec<String> = GLOBS[t.globs].iter().map(|g| (*g).to_owned()).collect();
    let mut walked = walk::walk(&root, &globs, t.hidden).unwrap();
    let ours: Vec<&str> = walked.files.iter().map(|f| f.rel.as_str()).collect();
    prop_assert_eq!(ours, ripgrep_walks(&root, &globs, t.hidden));

    let filter = Filter {
        globs: &globs,
        hidden: t.hidden,
        no_ignore: false,
    };
    let s = store();
    let roots = Roots::new(std::slice::from_ref(&root)).unwrap();
    let query = Query {
        pattern: "hit".into(),
        literal: true,
        case_insensitive: false,
        words: None,
    };
    let answer =
        spool_core::search::tree::TreeSearch::new(&s.store, &roots, ".", &Paging::default())
            .filtered(filter)
            .hits(&query)
            .unwrap();
    let scope = serde_json::to_value(&answer.scope).unwrap();
    let ((ignored, hidden), version) = left_out_and_version(
        &root,
        &filter,
        &mut walked,
        Some(std::time::Duration::from_secs(30)),
    );
    prop_assert_eq!(
        &scope["files_skipped"]["ignored"],
        &serde_json::json!(ignored.unwrap())
    );
    if t.hidden {
        prop_assert!(
            scope["files_skipped"]
                .get("hidden")
                .is_none_or(serde_json::Value::is_null)
        );
    } else {
        prop_assert_eq!(
            &scope["files_skipped"]["hidden"],
            &serde_json::json!(hidden.unwrap())
        );
    }
    prop_assert_eq!(
        &scope["version"]["dirty"],
        &serde_json::json!(version.dirty)
    );
    if t.repo && t.inner_repo.is_none() {
        let git_says = !git(&root, &["status", "--porcelain", "--untracked-files=all"])
            .trim()
            .is_empty();
        prop_assert_eq!(version.dirty, Some(git_says));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn the_walk_lets_through_what_ripgrep_does_and_the_search_states_what_a_survey_finds(
        t in tree()
    ) {
        check(&t)?;
    }
}

/// The place of `name` in `list`.
fn at(list: &[&str], name: &str) -> usize {
    list.iter().position(|n| *n == name).unwrap()
}

/// Trees chosen for one rule each: `.ignore` before `.gitignore` (even a deeper one), git's
/// files only in a repository, a repository inside starting its own rules, a hidden name taken
/// back in, `info/exclude` after `.gitignore`.
#[test]
fn chosen_trees_walk_as_ripgrep_walks_them() {
    let file = |d: &str, f: &str| (at(DIRS, d), at(FILES, f));
    let rule_file = |d: &str, which: &str, rules: &[&str]| {
        (
            at(DIRS, d),
            at(RULE_FILES, which),
            rules.iter().map(|r| at(RULES, r)).collect::<Vec<_>>(),
        )
    };
    let files = vec![
        file("", "y.log"),
        file("", "keep.log"),
        file("a/", "y.log"),
        file("sub/", "n.txt"),
        file("", ".env"),
        file("", "top.txt"),
    ];
    let base = Tree {
        files,
        rules: Vec::new(),
        exclude: Vec::new(),
        repo: true,
        inner_repo: None,
        untracked: vec![file("", "x.rs")],
        globs: 0,
        hidden: false,
    };
    let trees = [
        Tree {
            rules: vec![
                rule_file("", ".gitignore", &["*.log"]),
                rule_file("", ".ignore", &["!*.log"]),
            ],
            ..base.clone()
        },
        Tree {
            rules: vec![
                rule_file("a/", ".gitignore", &["!y.log"]),
                rule_file("", ".ignore", &["*.log"]),
            ],
            ..base.clone()
        },
        Tree {
            rules: vec![rule_file("", ".gitignore", &["*.log", "*.txt"])],
            repo: false,
            ..base.clone()
        },
        Tree {
            rules: vec![rule_file("", ".gitignore", &["*.txt"])],
            inner_repo: Some(at(DIRS, "sub/")),
            ..base.clone()
        },
        Tree {
            rules: vec![rule_file("", ".gitignore", &["!.env"])],
            ..base.clone()
        },
        Tree {
            rules: vec![rule_file("", ".gitignore", &["!y.log"])],
            exclude: vec![at(RULES, "*.log")],
            ..base.clone()
        },
    ];
    for t in &trees {
        check(t).unwrap_or_else(|e| panic!("{t:?}: {e}"));
    }
}
