//! A root whose `d` flips between a directory of its own and a symlink to one outside, for the
//! tests that reads, searches, lists and maps stay inside their roots while the tree changes
//! (spool-core's escape tests include this file by path; other crates use it from here).

#![allow(
    clippy::unwrap_used,
    clippy::missing_panics_doc,
    reason = "a test fixture: a failed flip is a failed test (allow, not expect: the file is \
              also part of spool-core's tests, where unwrap is allowed already)"
)]

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A root whose `d` flips between a directory of its own and a symlink to one outside (one
/// atomic exchange each time); both hold `f.txt`, the outside one saying SECRET. A path
/// checked while `d` is the directory is then opened while it is the symlink.
pub struct Flipping {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
    stop: Arc<AtomicBool>,
    flipper: Option<std::thread::JoinHandle<u64>>,
}

impl Flipping {
    pub fn start() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(root.join("d")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(root.join("d/f.txt"), "inside\n").unwrap();
        std::fs::write(outside.join("f.txt"), "SECRET\n").unwrap();
        std::fs::write(outside.join("only-outside.txt"), "SECRET\n").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("e")).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let (d, e) = (root.join("d"), root.join("e"));
        let flipper = std::thread::spawn(move || {
            let mut flips = 0;
            while !flag.load(Ordering::Relaxed) {
                let swapped = nix::fcntl::renameat2(
                    nix::fcntl::AT_FDCWD,
                    &d,
                    nix::fcntl::AT_FDCWD,
                    &e,
                    nix::fcntl::RenameFlags::RENAME_EXCHANGE,
                );
                assert!(swapped.is_ok(), "{swapped:?}");
                flips += 1;
                // A pause after every flip, so that some opens find a steady tree and succeed,
                // and so that each state lasts a while: with pauses after every second flip a
                // reader on one core only ever saw `d` as the directory (the flipper ran both
                // flips in one time slice), and the race never showed (CI saw none in 3,000).
                std::thread::sleep(std::time::Duration::from_micros(50));
            }
            flips
        });
        Self {
            _tmp: tmp,
            root,
            stop,
            flipper: Some(flipper),
        }
    }

    pub fn finish(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.flipper.take().unwrap().join().unwrap()
    }
}

/// A test that fails before `finish` stops the flipper before the directory goes, so that the
/// failure is reported alone and not followed by the flipper's own ENOENT.
impl Drop for Flipping {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(flipper) = self.flipper.take() {
            let _ = flipper.join();
        }
    }
}
