//! Reading a file or searching a tree inside a repository someone else made runs none of its
//! programs (`core.fsmonitor`, clean filters, hooks): the commit and whether the tree is dirty
//! come from git's own files. Regression: `read` and `search` ran `git status`, and git ran the
//! repository's `core.fsmonitor` program, even on `spool serve --no-run`.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Command;

use spool_core::search::Paging;
use spool_core::search::Query;
use spool_core::search::tree::{DEFAULT_BUDGET, search_path};
use spool_walk::roots::Roots;

use crate::support::{git, store};

struct Hostile {
    _dir: tempfile::TempDir,
    repo: PathBuf,
    /// Every program the repository names appends a line here when it runs.
    ran: PathBuf,
    head: String,
}

/// A repository with one commit, then configured to run a program from every hook it has:
/// fsmonitor, a clean and smudge filter on every file, and the hooks git runs on its own.
fn hostile() -> Hostile {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(
        repo.join("src/a.rs"),
        "fn main() {\n    let timeout = 5;\n}\n",
    )
    .unwrap();
    std::fs::write(repo.join("README.md"), "a readme\n").unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "init"]);
    let head = git(&repo, &["rev-parse", "HEAD"]);
    let ran = dir.path().join("ran");
    let evil = dir.path().join("evil.sh");
    std::fs::write(
        &evil,
        format!("#!/bin/sh\necho \"$0 $*\" >> {}\ncat\n", ran.display()),
    )
    .unwrap();
    std::fs::set_permissions(&evil, std::fs::Permissions::from_mode(0o755)).unwrap();
    let hooks = dir.path().join("hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    for hook in [
        "post-index-change",
        "pre-commit",
        "post-checkout",
        "reference-transaction",
    ] {
        let path = hooks.join(hook);
        std::fs::copy(&evil, &path).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let e = evil.display().to_string();
    for (key, value) in [
        ("core.fsmonitor", e.as_str()),
        ("filter.evil.clean", e.as_str()),
        ("filter.evil.smudge", e.as_str()),
        ("filter.evil.required", "true"),
        ("core.hooksPath", hooks.to_str().unwrap()),
    ] {
        git(&repo, &["config", key, value]);
    }
    std::fs::write(repo.join(".git/info/attributes"), "* filter=evil\n").unwrap();
    Hostile {
        _dir: dir,
        repo,
        ran,
        head,
    }
}

fn ran(h: &Hostile) -> String {
    std::fs::read_to_string(&h.ran).unwrap_or_default()
}

#[test]
fn a_read_in_a_hostile_repository_runs_none_of_its_programs() {
    let h = hostile();
    // Changed since the commit: git would refresh its index, and run the filter and fsmonitor.
    std::fs::write(
        h.repo.join("src/a.rs"),
        "fn main() {\n    let timeout = 6;\n}\n",
    )
    .unwrap();
    let s = store();
    let meta = spool_core::files::snapshot(&s.store, &h.repo.join("src/a.rs")).unwrap();
    let v = meta.source.version.file().unwrap();
    assert_eq!(
        v.commit.as_deref(),
        Some(h.head.as_str()),
        "the commit, read from git's files"
    );
    assert_eq!(v.dirty, Some(true), "the file differs from the commit");
    let clean = spool_core::files::snapshot(&s.store, &h.repo.join("README.md")).unwrap();
    assert_eq!(clean.source.version.file().unwrap().dirty, Some(false));
    assert_eq!(ran(&h), "", "no program of the repository ran");
}

#[test]
fn a_search_in_a_hostile_repository_runs_none_of_its_programs() {
    let h = hostile();
    let s = store();
    let roots = Roots::new(std::slice::from_ref(&h.repo)).unwrap();
    let query = Query {
        pattern: "timeout".into(),
        ..Query::default()
    };
    let search_in = |path: &str| {
        search_path(
            &s.store,
            &roots,
            path,
            &query,
            &[],
            &Paging::default(),
            DEFAULT_BUDGET,
        )
        .unwrap()
    };
    let a = search_in(".");
    assert_eq!(a.hit_count, 1);
    assert_eq!(
        serde_json::to_value(&a.scope).unwrap()["version"]["commit"],
        h.head.as_str()
    );
    assert_eq!(
        serde_json::to_value(&a.scope).unwrap()["version"]["dirty"],
        false,
        "nothing changed since the commit"
    );
    // Touched but the same bytes: still clean (compared by content, as git does).
    let same = std::fs::read(h.repo.join("src/a.rs")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(h.repo.join("src/a.rs"), &same).unwrap();
    let a = search_in("src");
    assert_eq!(
        serde_json::to_value(&a.scope).unwrap()["version"]["dirty"],
        false
    );
    // A new file git does not ignore makes the tree dirty.
    std::fs::write(h.repo.join("src/b.rs"), "new\n").unwrap();
    let a = search_in(".");
    assert_eq!(
        serde_json::to_value(&a.scope).unwrap()["version"]["dirty"],
        true
    );
    assert_eq!(ran(&h), "", "no program of the repository ran");
    // The repository is as hostile as it looks: git itself runs its programs.
    let _ = Command::new("git")
        .arg("-C")
        .arg(&h.repo)
        .args(["status", "--porcelain"])
        .output();
    assert!(
        !ran(&h).is_empty(),
        "git status runs the repository's programs"
    );
}

/// A tracked file rewritten with what it held, which git's index vouches for again (its entry
/// refreshed, as a checkout does), is the snapshot it was: no second copy. One git cannot
/// vouch for by its stat, or that holds another blob, is read again.
#[test]
fn a_tracked_file_rewritten_unchanged_is_the_snapshot_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let file = repo.join("notes.txt");
    write_aged(&file, "the first words\n", 30);
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "init"]);
    let s = store();
    let first = spool_core::files::snapshot(&s.store, &file).unwrap();
    assert_eq!(first.source.version.file().unwrap().dirty, Some(false));

    // Rewritten unchanged: new times, and git's refreshed index vouches for the blob.
    write_aged(&file, "the first words\n", 20);
    git(&repo, &["update-index", "--refresh"]);
    let again = spool_core::files::snapshot(&s.store, &file).unwrap();
    assert_eq!(
        again.reference, first.reference,
        "the same blob is the same snapshot"
    );

    // Other words of the same size, the mtime git saw put back (`touch -d`, `cp -p`): the
    // change time differs, so the index cannot vouch, and the new words are read.
    let seen = std::fs::metadata(&file).unwrap().modified().unwrap();
    std::fs::write(&file, "the first wordz\n").unwrap();
    let handle = std::fs::File::options().write(true).open(&file).unwrap();
    handle.set_modified(seen).unwrap();
    let forged = spool_core::files::snapshot(&s.store, &file).unwrap();
    assert_ne!(
        forged.reference, first.reference,
        "other words are not the old snapshot"
    );
    assert_eq!(
        forged.source.version.file().unwrap().sha256.as_deref(),
        Some(crate::support::sha256_hex(b"the first wordz\n").as_str())
    );

    // Rewritten unchanged, the index not refreshed: git cannot vouch by stat; read again.
    write_aged(&file, "the first words\n", 10);
    let unvouched = spool_core::files::snapshot(&s.store, &file).unwrap();
    assert_ne!(unvouched.reference, first.reference);
    assert_eq!(unvouched.source.version.file().unwrap().dirty, Some(false));

    // Another blob, staged so the index vouches for it: a new snapshot of the new words.
    write_aged(&file, "other words\n", 5);
    git(&repo, &["add", "notes.txt"]);
    let changed = spool_core::files::snapshot(&s.store, &file).unwrap();
    assert_ne!(changed.reference, first.reference);
    assert_ne!(changed.reference, unvouched.reference);
    assert_eq!(changed.bytes, "other words\n".len() as u64);
}

/// Writes `text` to `path`, modified `secs_ago` seconds ago: git trusts the stat of an entry
/// only when its file was modified before the index was written (else it is racily clean),
/// and git without nanosecond times compares whole seconds.
fn write_aged(path: &std::path::Path, text: &str, secs_ago: u64) {
    std::fs::write(path, text).unwrap();
    let then = std::time::SystemTime::now() - std::time::Duration::from_secs(secs_ago);
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(then).unwrap();
}
