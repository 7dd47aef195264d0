//! A first read on a filesystem whose files can share blocks (XFS, Btrfs) clones the file
//! instead of copying it. These tests need one: `scripts/test` mounts an XFS image made with
//! reflink, names a directory on it in `SPOOL_TEST_REFLINK_DIR` and runs them with `--ignored`
//! (a plain `cargo test` lists them as ignored, not passed).

use std::path::PathBuf;

use spool_core::store::{Store, StoreConfig};
use spool_core::window::{WindowRequest, read_window};

use crate::support::sha256_hex;

/// The directory `SPOOL_TEST_REFLINK_DIR` names, on a filesystem with reflink.
fn reflink_dir() -> PathBuf {
    let dir = std::env::var_os("SPOOL_TEST_REFLINK_DIR");
    assert!(
        dir.is_some(),
        "SPOOL_TEST_REFLINK_DIR names no directory: scripts/test mounts one"
    );
    PathBuf::from(dir.unwrap())
}

fn free_bytes(dir: &std::path::Path) -> u64 {
    let stat = rustix::fs::statvfs(dir).unwrap();
    stat.f_bavail * stat.f_frsize
}

/// 48 MiB of numbered lines, and how many: a copy would take 48 MiB of free space.
fn lines() -> (Vec<u8>, u64) {
    let mut bytes = Vec::new();
    let mut n = 0u64;
    while bytes.len() < 48 << 20 {
        n += 1;
        bytes.extend_from_slice(format!("line {n} of a file read once, then cloned\n").as_bytes());
    }
    (bytes, n)
}

#[test]
#[ignore = "needs a filesystem with reflink: scripts/test mounts one and runs it"]
fn a_first_read_clones_the_file_and_stores_what_the_clone_holds() {
    let dir = tempfile::tempdir_in(reflink_dir()).unwrap();
    let store = Store::open(&dir.path().join("home"), StoreConfig::default()).unwrap();
    let path = dir.path().join("data.txt");
    let (bytes, line_count) = lines();
    std::fs::write(&path, &bytes).unwrap();
    std::fs::File::open(&path).unwrap().sync_all().unwrap();
    let free_before = free_bytes(dir.path());

    let meta = spool_core::files::snapshot(&store, &path).unwrap();

    let used = free_before.saturating_sub(free_bytes(dir.path()));
    assert!(
        used < 4 << 20,
        "the content was copied, not cloned: {used} bytes of free space went"
    );
    let version = meta.source.version.file().unwrap();
    assert_eq!(version.sha256.as_deref(), Some(sha256_hex(&bytes).as_str()));
    assert_eq!(meta.bytes, bytes.len() as u64);
    assert_eq!(meta.lines, line_count);
    let stored = dir
        .path()
        .join("home/store-v1/content")
        .join(&meta.reference);
    assert!(
        std::fs::read(&stored).unwrap() == bytes,
        "stored bytes differ"
    );

    // The line index was made from the clone: a window deep in it is the file's lines.
    let at = line_count * 9 / 10;
    let window = read_window(
        &store,
        &meta.reference,
        WindowRequest::Lines {
            line: at,
            limit: Some(2),
        },
        4000,
    )
    .unwrap();
    let text = window.content(spool_core::render::Dialect::Mcp);
    assert!(
        text.contains(&format!("line {at} of a file"))
            && text.contains(&format!("line {} of", at + 1)),
        "{text}"
    );

    // Copy on write: the file changed in place leaves the stored copy as it was read.
    let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    std::io::Write::write_all(&mut file, b"LINE").unwrap();
    file.sync_all().unwrap();
    assert!(
        std::fs::read(&stored).unwrap() == bytes,
        "the clone changed with its source"
    );
    let again = spool_core::files::snapshot(&store, &path).unwrap();
    assert_ne!(
        again.reference, meta.reference,
        "a changed file is read again"
    );
}
