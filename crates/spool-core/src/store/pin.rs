//! Content in use is not deleted: a reader holds a shared lock on the content file while it
//! lives, and eviction or expiry deletes only content it can lock exclusively at once. A copy
//! that was just made is also left alone for a while (`StoreConfig::eviction_grace`): the
//! answer about it is being built.
//!
//! Regression: with a small quota and 20 writers, 40 of 160 runs answered `expired` or `corrupt`
//! for output they had just captured.

use std::fs::File;
use std::path::Path;

use nix::fcntl::{Flock, FlockArg};

/// `file` with a shared lock held (waits for an eviction that is deleting it right now).
pub fn shared(file: File) -> std::io::Result<Flock<File>> {
    Flock::lock(file, FlockArg::LockShared).map_err(|(_, e)| std::io::Error::from(e))
}

/// What eviction may do with the content at `path`.
pub enum Evict {
    /// No one reads it: deleted while this lock is held.
    Free(Option<Flock<File>>),
    /// Being read: left for a later pass.
    InUse,
}

/// Whether the content at `path` may be deleted now.
pub fn try_evict(path: &Path) -> Evict {
    let Ok(file) = File::open(path) else {
        // Nothing there (or unreadable): nothing a reader could be holding.
        return Evict::Free(None);
    };
    match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(lock) => Evict::Free(Some(lock)),
        Err(_) => Evict::InUse,
    }
}
