//! A change staged and not committed is not the commit (issue 57, cases 1 and 6): a read or a
//! search after `git add` says the file or tree differs from `HEAD` and that the difference is
//! staged; a tracked symlink retargeted is dirty; and a stored snapshot is not found again once
//! `HEAD` or the index moved under it. Each case is checked against git itself (`git diff
//! --cached`, `git status --porcelain`), which the tests may run and spool never does.

use std::path::Path;

use spool_core::search::Paging;

use crate::support::{git, store, write};

/// The checkout-timeout repository mid-fix: two configs and a loader, committed twice.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "config/default.yaml", "timeout: 30\n");
    write(root, "config/prod.yaml", "timeout: 30\n");
    write(root, "src/loader.py", "load('config')\n");
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "one"]);
    write(root, "config/prod.yaml", "timeout: 20\n");
    git(root, &["commit", "-q", "-am", "two"]);
    dir
}

/// Git's word on whether the index differs from `HEAD` at `path`.
fn git_staged(root: &Path, path: &str) -> bool {
    !std::process::Command::new("git")
        .args(["diff", "--cached", "--quiet", "--", path])
        .current_dir(root)
        .status()
        .unwrap()
        .success()
}

fn search_version(root: &Path, dir: &str) -> (serde_json::Value, String) {
    let s = store();
    let path = root.join(dir).to_string_lossy().into_owned();
    let (a, _) = crate::support::search_words(&s.store, root, &path, "timeout", &Paging::default());
    let text = spool_core::search::render_answer(&a, spool_core::render::Dialect::Cli);
    (
        serde_json::to_value(&a.scope).unwrap()["version"].clone(),
        text,
    )
}

#[test]
fn a_staged_change_is_dirty_and_named_staged_in_a_read_and_a_search() {
    let dir = repo();
    let root = &dir.path().canonicalize().unwrap();
    let head = git(root, &["rev-parse", "HEAD"]);
    let s = store();
    let prod = root.join("config/prod.yaml");
    let clean = spool_core::files::snapshot(&s.store, &prod).unwrap();
    let v = clean.source.version.file().unwrap();
    assert_eq!((v.dirty, v.staged), (Some(false), Some(false)));
    assert!(!git_staged(root, "config/prod.yaml"));

    write(root, "config/prod.yaml", "timeout: 10\n");
    git(root, &["add", "config/prod.yaml"]);
    assert!(git_staged(root, "config/prod.yaml"), "git: staged");
    let staged = spool_core::files::snapshot(&s.store, &prod).unwrap();
    let v = staged.source.version.file().unwrap();
    assert_eq!(v.commit.as_deref(), Some(head.as_str()));
    assert_eq!((v.dirty, v.staged), (Some(true), Some(true)));
    let words = spool_core::render::describe_source(&staged.source);
    assert!(
        words.contains(&format!("commit {} (dirty: a change staged", &head[..12])),
        "{words}"
    );
    // The file beside it is clean, staged or not.
    let default = spool_core::files::snapshot(&s.store, &root.join("config/default.yaml")).unwrap();
    let v = default.source.version.file().unwrap();
    assert_eq!((v.dirty, v.staged), (Some(false), Some(false)));

    for (dir, has_it) in [(".", true), ("config", true), ("src", false)] {
        let (version, text) = search_version(root, dir);
        assert_eq!(version["staged"], has_it, "{dir}: {version}");
        assert_eq!(version["dirty"], has_it, "{dir}: {version}");
        assert_eq!(git_staged(root, dir), has_it, "git, {dir}");
        assert_eq!(
            text.contains("with changes staged and not committed"),
            has_it,
            "{dir}: {text}"
        );
    }
}

/// A snapshot stored at one commit is not the answer once `HEAD` moved and the file did not:
/// after `git reset --soft HEAD~1` the same bytes are staged against the earlier commit.
#[test]
fn a_snapshot_is_not_found_again_once_head_moved_under_it() {
    let dir = repo();
    let root = &dir.path().canonicalize().unwrap();
    let s = store();
    let prod = root.join("config/prod.yaml");
    let first = spool_core::files::snapshot(&s.store, &prod).unwrap();
    assert_eq!(first.source.version.file().unwrap().dirty, Some(false));
    git(root, &["reset", "-q", "--soft", "HEAD~1"]);
    let earlier = git(root, &["rev-parse", "HEAD"]);
    assert!(git_staged(root, "config/prod.yaml"));
    let again = spool_core::files::snapshot(&s.store, &prod).unwrap();
    assert_ne!(again.reference, first.reference, "not the stored snapshot");
    let v = again.source.version.file().unwrap();
    assert_eq!(v.commit.as_deref(), Some(earlier.as_str()));
    assert_eq!((v.dirty, v.staged), (Some(true), Some(true)));
}

/// A tracked symlink retargeted is a change (`git status`: ` M current.yaml`): the tree is
/// dirty, never "at commit X" as if clean.
#[test]
fn a_tracked_symlink_retargeted_makes_the_tree_dirty() {
    let dir = repo();
    let root = &dir.path().canonicalize().unwrap();
    std::os::unix::fs::symlink("default.yaml", root.join("config/current.yaml")).unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "link"]);
    let (version, text) = search_version(root, "config");
    assert_eq!(version["dirty"], false, "{version}");
    assert!(!text.contains("can't tell"), "{text}");

    std::fs::remove_file(root.join("config/current.yaml")).unwrap();
    std::os::unix::fs::symlink("prod.yaml", root.join("config/current.yaml")).unwrap();
    let porcelain = git(root, &["status", "--porcelain", "--", "config"]);
    assert_eq!(porcelain, "M config/current.yaml", "git's word");
    let (version, text) = search_version(root, "config");
    assert_eq!(version["dirty"], true, "{version}");
    assert_eq!(version["staged"], false, "{version}");
    assert!(text.contains("with local changes"), "{text}");
}
