//! Whether a tree is dirty by a file git neither tracks nor ignores, as `git status` says it:
//! one survey of the tree matches git's ignore rules (nested `.gitignore` files and their
//! whitelists, `info/exclude`, a parent's rules when a subdirectory is asked about) only
//! against what the index does not track. Each case is checked against git itself, with the
//! survey counting every file (a search) and without (a stored answer's check).

use std::path::Path;

use spool_core::search::tree::{Filter, left_out_and_version, tree_version};
use spool_walk::walk;

use crate::support::{git, write};

/// A committed repository with ignore rules at the top, in a subdirectory (with a whitelist
/// of a hidden name), for a subdirectory from the top, and in `info/exclude`.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", "build/\n*.log\n!keep.log\nsub/gen/\n");
    write(root, "src/a.rs", "fn main() {}\n");
    write(root, "sub/.gitignore", "tmp/\n!.keep\n.*\n");
    write(root, "sub/x.txt", "x\n");
    git(root, &["init", "-q"]);
    write(root, ".git/info/exclude", "local-only/\n");
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "init"]);
    dir
}

/// Whether git shows a change under `scope` (`.` or a subdirectory).
fn git_says_dirty(root: &Path, scope: &str) -> bool {
    !git(
        root,
        &[
            "status",
            "--porcelain",
            "--untracked-files=all",
            "--",
            scope,
        ],
    )
    .trim()
    .is_empty()
}

/// (counted, not counted) dirty flags for `scope`.
fn spool_says_dirty(root: &Path, scope: &str) -> (Option<bool>, Option<bool>) {
    let dir = root.canonicalize().unwrap().join(scope);
    let dir = dir.canonicalize().unwrap();
    let mut walked = walk::walk(&dir, &[], false).unwrap();
    let filter = Filter {
        globs: &[],
        hidden: false,
        no_ignore: false,
    };
    let (_, counted) = left_out_and_version(
        &dir,
        &filter,
        &mut walked,
        Some(std::time::Duration::from_secs(30)),
    );
    let looked = tree_version(&dir, &walked.digest);
    (counted.dirty, looked.dirty)
}

#[test]
fn untracked_files_make_a_tree_dirty_exactly_when_git_says_so() {
    // (files added, the scope asked about)
    let cases: &[(&[&str], &str)] = &[
        (&[], "."),
        (&["new.txt"], "."),
        (&["build/out.bin", "build/deep/x.o"], "."),
        (&["src/debug.log", "sub/deep/trace.log"], "."),
        (&["src/keep.log"], "."),
        (&["sub/tmp/scratch.txt"], "."),
        (&["sub/.keep"], "."),
        (&["sub/.other"], "."),
        (&["local-only/a.txt"], "."),
        (&[".hidden-new"], "."),
        (&["sub/gen/made.rs"], "."),
        (&["sub/gen/made.rs"], "sub"),
        (&["new.txt"], "sub"),
        (&["sub/new.txt"], "sub"),
        (&["sub/tmp/scratch.txt", "sub/.other"], "sub"),
        (&["sub/.keep"], "sub"),
    ];
    for (added, scope) in cases {
        let dir = repo();
        let root = dir.path();
        for rel in *added {
            write(root, rel, "new\n");
        }
        let want = git_says_dirty(root, scope);
        assert_eq!(
            spool_says_dirty(root, scope),
            (Some(want), Some(want)),
            "{added:?} in {scope}: git says dirty = {want}"
        );
    }
}

/// A repository inside the tree that git does not track is an untracked directory to git
/// (dirty); inside an ignored directory it is nothing.
#[test]
fn a_repository_inside_is_untracked_unless_ignored() {
    for inner in ["vendor/lib", "build/cache"] {
        let dir = repo();
        let root = dir.path();
        write(root, &format!("{inner}/f.txt"), "inner\n");
        git(&root.join(inner), &["init", "-q"]);
        let want = git_says_dirty(root, ".");
        assert_eq!(
            spool_says_dirty(root, "."),
            (Some(want), Some(want)),
            "a repository at {inner}: git says dirty = {want}"
        );
    }
}

/// The survey's counts: every file under the directory, `.git` left out, hidden ones counted
/// apart, ignored directories read too.
#[test]
fn the_left_out_counts_cover_ignored_directories() {
    let dir = repo();
    let root = dir.path();
    write(root, "build/a.o", "o\n");
    write(root, "build/deep/b.o", "o\n");
    write(root, "src/.env", "hidden\n");
    let real = root.canonicalize().unwrap();
    let mut walked = walk::walk(&real, &[], false).unwrap();
    let filter = Filter {
        globs: &[],
        hidden: false,
        no_ignore: false,
    };
    let ((ignored, hidden), _) = left_out_and_version(
        &real,
        &filter,
        &mut walked,
        Some(std::time::Duration::from_secs(30)),
    );
    // Walked: src/a.rs, sub/x.txt. Hidden: .gitignore, sub/.gitignore, src/.env. Ignored:
    // the two in build/.
    assert_eq!(walked.files.len(), 2);
    assert_eq!((ignored, hidden), (Some(2), Some(3)));
}

/// Git's index version 4 stores each path as a cut of the one before plus a suffix, and the cut
/// can fall inside a character (`é` and `è` share their first byte): the index is read whole,
/// so a change to a file is seen as git sees it.
#[test]
fn an_index_of_version_4_is_read_whole() {
    let dir = repo();
    let root = dir.path();
    for name in ["src/é.rs", "src/è.rs", "src/éa.rs", "src/z.rs"] {
        write(root, name, "fn f() {}\n");
    }
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "names"]);
    git(root, &["update-index", "--index-version", "4"]);
    assert_eq!(
        git(root, &["update-index", "--show-index-version"]).trim(),
        "4"
    );
    assert!(!git_says_dirty(root, "."));
    assert_eq!(spool_says_dirty(root, "."), (Some(false), Some(false)));
    // Same size, other content, a time git cannot tell from the staged one: only the content
    // tells, and only an index read whole names the file.
    write(root, "src/è.rs", "fn g() {}\n");
    assert!(git_says_dirty(root, "."));
    assert_eq!(spool_says_dirty(root, "."), (Some(true), Some(true)));
}
