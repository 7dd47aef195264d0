//! Directories read on every core: each listed once with plain directory reads (nix's
//! directory stream, whose entries hold their names: std's gives each name an allocation of
//! its own, one per file of the tree), and the directories found handed back for reading.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::Path;
use std::sync::{Condvar, Mutex, PoisonError};

/// What a directory entry is, as a walk tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Dir,
    File,
    Symlink,
    Other,
}

impl Kind {
    pub fn is_dir(self) -> bool {
        self == Self::Dir
    }

    pub fn is_file(self) -> bool {
        self == Self::File
    }

    pub fn is_symlink(self) -> bool {
        self == Self::Symlink
    }
}

/// One entry of a directory: its name and kind.
pub(crate) struct Entry(nix::dir::Entry, Kind);

impl Entry {
    pub fn name(&self) -> &OsStr {
        OsStr::from_bytes(self.0.file_name().to_bytes())
    }

    pub fn kind(&self) -> Kind {
        self.1
    }
}

/// What the directory at `path` holds (`.` and `..` aside), or `None` when it cannot be read.
pub(crate) fn entries_of(path: &Path) -> Option<Vec<Entry>> {
    use nix::dir::{Dir, Type};
    use nix::fcntl::OFlag;
    let mut dir = Dir::open(
        path,
        OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
        nix::sys::stat::Mode::empty(),
    )
    .ok()?;
    let mut entries = Vec::new();
    for entry in dir.iter().flatten() {
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        let kind = match entry.file_type() {
            Some(Type::Directory) => Kind::Dir,
            Some(Type::File) => Kind::File,
            Some(Type::Symlink) => Kind::Symlink,
            Some(_) => Kind::Other,
            // The file system does not say (`DT_UNKNOWN`): asked of the entry itself.
            None => match std::fs::symlink_metadata(path.join(OsStr::from_bytes(name))) {
                Ok(m) if m.is_dir() => Kind::Dir,
                Ok(m) if m.is_file() => Kind::File,
                Ok(m) if m.is_symlink() => Kind::Symlink,
                Ok(_) => Kind::Other,
                Err(_) => continue,
            },
        };
        entries.push(Entry(entry, kind));
    }
    Some(entries)
}

/// Runs `read` on each of `tops` and on every directory it hands back, on up to twelve cores:
/// `read` pushes the directories it found in one onto the vector it is given. Each thread has
/// a state of its own, made by `state`; the states are returned when no directory is left.
pub(crate) fn each_dir<T: Send, S: Send>(
    tops: Vec<T>,
    state: impl Fn() -> S + Sync,
    read: impl Fn(&mut S, T, &mut Vec<T>) + Sync,
) -> Vec<S> {
    // Directories still to read, how many are being read now (the walk ends when both are
    // none), and how many threads wait for work: they are woken only when there is some, or
    // when the walk has ended (a wake-up after every directory cost a futex call each).
    let work: Work<T> = Mutex::new((tops, 0usize, 0usize));
    let ready = Condvar::new();
    std::thread::scope(|scope| {
        let threads: Vec<_> = (0..crate::cores::threads(12))
            .map(|_| {
                scope.spawn(|| {
                    let mut own = state();
                    let mut found = Vec::new();
                    loop {
                        let next = {
                            let mut w = work.lock().unwrap_or_else(PoisonError::into_inner);
                            loop {
                                if let Some(next) = w.0.pop() {
                                    w.1 += 1;
                                    break next;
                                }
                                if w.1 == 0 {
                                    return own;
                                }
                                w.2 += 1;
                                w = ready.wait(w).unwrap_or_else(PoisonError::into_inner);
                                w.2 -= 1;
                            }
                        };
                        let unwinding = Unwinding {
                            work: &work,
                            ready: &ready,
                        };
                        read(&mut own, next, &mut found);
                        drop(unwinding);
                        let mut w = work.lock().unwrap_or_else(PoisonError::into_inner);
                        w.0.append(&mut found);
                        w.1 -= 1;
                        if w.2 > 0 && (!w.0.is_empty() || w.1 == 0) {
                            ready.notify_all();
                        }
                    }
                })
            })
            .collect();
        // Every thread is joined first; a panic is then passed on, not a thread's states
        // silently dropped.
        let joined: Vec<_> = threads
            .into_iter()
            .map(std::thread::ScopedJoinHandle::join)
            .collect();
        joined
            .into_iter()
            .map(|j| j.unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    })
}

/// The work of [`each_dir`]: directories to read, how many are being read, how many threads
/// wait.
type Work<T> = Mutex<(Vec<T>, usize, usize)>;

/// Armed while a thread reads a directory: a panic there ends that read (the others are
/// woken and finish the walk, and the panic is passed on) instead of leaving them waiting for
/// it for ever.
struct Unwinding<'a, T> {
    work: &'a Work<T>,
    ready: &'a Condvar,
}

impl<T> Drop for Unwinding<'_, T> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut w = self.work.lock().unwrap_or_else(PoisonError::into_inner);
            w.1 -= 1;
            self.ready.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads a tree of 1,023 directories numbered as a heap (two below each of the first
    /// 511), failing at `panic_at`: how many reads were done.
    fn count(panic_at: Option<u32>) -> u32 {
        let states = each_dir(
            vec![1u32],
            || 0u32,
            |seen, d, found| {
                assert_ne!(Some(d), panic_at, "a read that fails");
                *seen += 1;
                if d < 512 {
                    found.extend([2 * d, 2 * d + 1]);
                }
            },
        );
        states.into_iter().sum()
    }

    #[test]
    fn every_directory_is_read_once() {
        assert_eq!(count(None), 1023);
    }

    /// Regression: a panic in one thread's read left the others waiting for it for ever.
    #[test]
    fn a_panic_in_a_read_is_passed_on_not_a_hang() {
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let result = std::panic::catch_unwind(|| count(Some(300)));
            let _ = done.send(result.is_err());
        });
        let panicked = finished
            .recv_timeout(std::time::Duration::from_mins(1))
            .expect("the walk ends");
        assert!(panicked, "the panic is passed on");
    }
}
