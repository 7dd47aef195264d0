//! A real git repository for a test: commands run with a fixed identity, their output read.

#![expect(
    clippy::missing_panics_doc,
    reason = "a test helper: a git that fails fails the test"
)]

use std::path::Path;
use std::process::Command;

/// Runs `git ARGS` in `dir` (author and committer `t`), panicking with its output unless it
/// succeeds; returns its standard output, trimmed.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .output()
        .unwrap_or_else(|e| panic!("git {args:?}: {e}"));
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A repository in `dir` holding what `dir` holds, committed: its `HEAD`.
pub fn commit_all(dir: &Path) -> String {
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "tree"]);
    git(dir, &["rev-parse", "HEAD"])
}
