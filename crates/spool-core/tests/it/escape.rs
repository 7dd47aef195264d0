//! Reads stay inside the roots while the tree changes under them, and only regular files are
//! read. Regressions: a symlink swapped between the check and the open returned a file outside
//! `--root` (1,698 of 9,000 reads) or started a command outside it (55 of 400); a character
//! device filled the store; a FIFO blocked for ever; loops and NULs answered `internal`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use spool_core::ErrorCode;
use spool_core::exec::{RunControl, RunSpec, run};
use spool_walk::roots::Roots;

use crate::support::store;

// The flipping root is shared with the other crates' confinement tests (spool-map's), from
// the test-support crate's source: spool-core cannot depend on that crate.
#[path = "../../../spool-test-support/src/flipping.rs"]
mod flipping;
use flipping::Flipping;

/// Whether the artifact holds the outside file's words.
fn holds_the_secret(store: &spool_core::Store, reference: &str) -> bool {
    spool_core::window::read_window(
        store,
        reference,
        spool_core::WindowRequest::Preview(None),
        8_000,
    )
    .unwrap()
    .content(spool_core::render::Dialect::Mcp)
    .contains("SECRET")
}

#[test]
fn a_symlink_swapped_mid_read_never_leads_outside_the_root() {
    let f = Flipping::start();
    let roots = Roots::new(std::slice::from_ref(&f.root)).unwrap();
    let s = store();
    let (mut inside, mut refused, mut outside) = (0, 0, 0);
    for _ in 0..3_000 {
        match roots.open_file("d/f.txt") {
            Ok((file, real)) => {
                let meta = spool_core::files::snapshot_file(&s.store, file, &real).unwrap();
                if holds_the_secret(&s.store, &meta.reference) {
                    outside += 1;
                } else {
                    inside += 1;
                }
            }
            Err(e) => {
                // What the model is answered.
                let e = spool_core::Error::from(e);
                assert!(
                    matches!(
                        e.code(),
                        ErrorCode::Forbidden | ErrorCode::InvalidArgument | ErrorCode::NotFound
                    ),
                    "{e}"
                );
                refused += 1;
            }
        }
    }
    // The race is real: the same check, then an open by name, as reads were made before. On a
    // loaded machine the race can take more than a few thousand tries to show, so this tries
    // until it sees one, for at most a minute.
    let deadline = std::time::Instant::now() + std::time::Duration::from_mins(1);
    let mut tries_by_name = 0u64;
    let escaped_by_name = loop {
        tries_by_name += 1;
        if let Ok(real) = roots.resolve("d/f.txt")
            && std::fs::read_to_string(&real).is_ok_and(|t| t.contains("SECRET"))
        {
            break true;
        }
        if std::time::Instant::now() > deadline {
            break false;
        }
    };
    assert!(
        escaped_by_name,
        "checked then opened by name, reads do escape: the test can see an escape \
         (none in {tries_by_name} tries)"
    );
    let flips = f.finish();
    assert!(
        flips > 100,
        "the tree changed under the reads ({flips} flips)"
    );
    assert_eq!(
        outside, 0,
        "{outside} reads returned the file outside ({inside} inside, {refused} refused)"
    );
    assert!(inside > 0, "reads inside still work");
}

#[test]
fn a_listing_never_names_an_entry_outside_the_root() {
    let f = Flipping::start();
    let roots = Roots::new(std::slice::from_ref(&f.root)).unwrap();
    let s = store();
    let (mut listed, mut outside) = (0, 0);
    for i in 0..1_200 {
        let (path, recursive) = if i % 2 == 0 {
            ("d", false)
        } else {
            (".", true)
        };
        let query = spool_core::listing::ListQuery {
            path,
            recursive,
            ..Default::default()
        };
        let Ok(page) = spool_core::listing::list(&s.store, &roots, query, None, None) else {
            continue;
        };
        listed += 1;
        let leaked = page.items.iter().any(|e| e.name == "only-outside.txt");
        outside += usize::from(leaked);
        assert_eq!(
            page.total,
            Some(page.items.len() as u64),
            "the total counts what is listed"
        );
    }
    let flips = f.finish();
    assert!(
        flips > 100,
        "the tree changed under the listings ({flips} flips)"
    );
    assert!(listed > 0);
    assert_eq!(
        outside, 0,
        "{outside} of {listed} listings named an entry outside the root"
    );
}

#[test]
fn a_command_never_starts_in_a_directory_swapped_outside() {
    let f = Flipping::start();
    let roots = Roots::new(std::slice::from_ref(&f.root)).unwrap();
    let s = store();
    let mut outside = 0;
    let mut ran = 0;
    // Most opens find `d` swapped out and are refused; on a busy machine 400 tries once found it
    // a directory never, so the tries go on (up to a minute) until some command has run.
    let until = std::time::Instant::now() + std::time::Duration::from_mins(1);
    let mut tries = 0;
    while tries < 400 || (ran == 0 && std::time::Instant::now() < until) {
        tries += 1;
        let Ok((fd, real)) = roots.open_dir("d") else {
            continue;
        };
        let spec = RunSpec {
            argv: vec!["cat".into(), "f.txt".into()],
            cwd: Some(real),
            cwd_fd: Some(Arc::new(fd)),
            ..RunSpec::default()
        };
        let Ok(outcome) = run(&s.store, &spec, RunControl::default()) else {
            continue;
        };
        ran += 1;
        if holds_the_secret(&s.store, &outcome.meta.reference) {
            outside += 1;
        }
    }
    f.finish();
    assert!(ran > 0);
    assert_eq!(
        outside, 0,
        "{outside} of {ran} commands ran outside the root"
    );
}

#[test]
fn only_regular_files_are_read() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("pipe");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let roots = Roots::new(&[tmp.path().to_owned()]).unwrap();
    // A FIFO blocked the read for ever; now it is refused at once, by its type.
    let err = spool_core::Error::from(roots.open_file("pipe").unwrap_err());
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.to_string().contains("a FIFO"), "{err}");
    // A character device filled the store at 300 MB/s.
    let dev = Roots::new(&[PathBuf::from("/dev")]).unwrap();
    let err = dev.open_file("zero").unwrap_err();
    assert!(err.to_string().contains("a character device"), "{err}");
    let s = store();
    let err = spool_core::files::snapshot(&s.store, Path::new("/dev/zero")).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument, "{err}");
    assert_eq!(
        s.store.list(None, None, 10).unwrap().len(),
        0,
        "nothing was stored"
    );
}

#[test]
fn impossible_paths_are_invalid_not_internal() {
    let tmp = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("loop-b", tmp.path().join("loop-a")).unwrap();
    std::os::unix::fs::symlink("loop-a", tmp.path().join("loop-b")).unwrap();
    std::fs::write(tmp.path().join("file.txt"), "x\n").unwrap();
    let roots = Roots::new(&[tmp.path().to_owned()]).unwrap();
    let long = "a/".repeat(3_000);
    for (path, said) in [
        ("loop-a", "loop of symbolic links"),
        ("bad\0name", "not a usable path"),
        (long.as_str(), "longer than paths may be"),
        ("file.txt/inner", "a file where a directory must be"),
    ] {
        let err = spool_core::Error::from(roots.open_file(path).unwrap_err());
        assert_eq!(err.code(), ErrorCode::InvalidArgument, "{path:.40}: {err}");
        assert!(err.to_string().contains(said), "{path:.40}: {err}");
    }
    // A file as a command's working directory.
    let err = spool_core::Error::from(roots.open_dir("file.txt").unwrap_err());
    assert_eq!(err.code(), ErrorCode::InvalidArgument, "{err}");
}
