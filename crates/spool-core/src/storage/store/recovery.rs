//! Captures whose process died are sealed with what reached the disk, by whichever process
//! comes first: a read of it, a list, or `gc`.
//!
//! A capture can die at any instant, and each leaves its bytes in a different place: while
//! writing, in `REF.partial`; between the seal's rename and its row, in the content file
//! itself with the row still `capturing`; and a recovery killed half-way leaves them wherever
//! it had got to. Regression (issue 58): recovery looked only for `REF.partial`, so a writer
//! killed after its rename was left `capturing` for good (reads said "still being captured",
//! `gc` ignored it and its bytes were outside the quota). Now one recoverer at a time holds a
//! lock beside the content (released by the kernel if it dies too) and adopts the bytes from
//! wherever they are. The crash-point test stops a capture at each named point below and at
//! random instants, and checks every artifact ends sealed with its bytes counted.

use std::fs::File;

use nix::fcntl::{Flock, FlockArg};

use super::Store;
use super::meta::ArtifactMeta;
use crate::envelope::ArtifactState;
use crate::error::{Error, Result};

/// The points at which a test may stop this process, as a crash would (`SPOOL_TEST_CRASH_AT`
/// names one; nothing else reads it). Named where the files are between two states.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum CrashPoint {
    /// The content is synced, still `REF.partial`.
    SealBeforeRename,
    /// The content is in place; its row still says `capturing`.
    SealAfterRename,
    /// A recovery has moved the bytes to `REF.partial` and not yet sealed them.
    RecoverAdopted,
}

impl CrashPoint {
    fn name(self) -> &'static str {
        match self {
            CrashPoint::SealBeforeRename => "seal-before-rename",
            CrashPoint::SealAfterRename => "seal-after-rename",
            CrashPoint::RecoverAdopted => "recover-adopted",
        }
    }

    /// Ends this process at once, without unwinding or flushing (as SIGKILL would), when the
    /// test asked for this point.
    pub(crate) fn reached(self) {
        static ASKED: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
        let asked = ASKED.get_or_init(|| {
            std::env::var("SPOOL_TEST_CRASH_AT")
                .ok()
                .filter(|s| !s.is_empty())
        });
        if asked.as_deref() == Some(self.name()) {
            std::process::abort();
        }
    }
}

impl Store {
    /// A capture whose process died: seal what reached the disk as `cancelled`. `Capturing`
    /// while another process is recovering it.
    pub(super) fn recover(&self, meta: &ArtifactMeta) -> Result<ArtifactMeta> {
        let reference = &meta.reference;
        let lock_path = self.recovery_lock_path(reference);
        let file = open_lock(&lock_path).map_err(|e| Error::io(&lock_path, e))?;
        let Ok(lock) = Flock::lock(file, FlockArg::LockExclusiveNonblock) else {
            return Err(Error::Capturing {
                reference: reference.clone(),
                bytes: 0,
            });
        };
        let sealed = self.recover_locked(reference);
        // Removed while held: a process that opened it before waits on nothing (its lock is
        // non-blocking), and one that opens it anew finds the row sealed.
        let _ = std::fs::remove_file(&lock_path);
        drop(lock);
        sealed
    }

    fn recover_locked(&self, reference: &str) -> Result<ArtifactMeta> {
        let meta = self.meta(reference)?;
        if meta.state != ArtifactState::Capturing {
            return Ok(meta);
        }
        let partial = self.partial_path(reference);
        // Where a dead writer, or a dead recovery of this version or the last, left the bytes.
        let candidates = [
            partial.clone(),
            self.content_path(reference),
            partial.with_extension("orphan"),
        ];
        let from = if let Some(found) = candidates.iter().find(|p| p.is_file()) {
            found.clone()
        } else {
            // Nothing reached the disk: an empty copy, sealed as what it is.
            super::create_private(&partial).map_err(|e| Error::io(&partial, e))?;
            partial
        };
        // What reached the disk becomes the content as it is: no copy, which a full disk (the
        // likely reason the capture stopped) could not hold.
        let writer = super::ArtifactWriter::adopt(self, meta, &from)?;
        CrashPoint::RecoverAdopted.reached();
        writer.finish(
            ArtifactState::Cancelled,
            Some("the capturing process died (killed, or out of disk); this is what reached the disk".into()),
            None,
        )
    }

    /// The live captures' bytes on disk: counted against the quota though not yet sealed.
    pub(super) fn capturing_bytes(&self) -> Result<u64> {
        let refs: Vec<String> = {
            let conn = self.conn();
            let mut stmt = conn.prepare(
                "SELECT ref FROM artifacts WHERE state = 'capturing'
                 AND ref NOT IN (SELECT ref FROM remote_chunks)",
            )?;
            stmt.query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?
        };
        Ok(refs
            .iter()
            .filter_map(|r| std::fs::metadata(self.partial_path(r)).ok())
            .map(|m| m.len())
            .sum())
    }

    /// Seals `meta` if it is a capture whose process died (used by `gc`, which recovers
    /// whatever it may or may not read). Whether it did.
    pub(super) fn recover_if_dead(&self, meta: &ArtifactMeta) -> Result<bool> {
        if meta.state != ArtifactState::Capturing || owner_alive(meta.owner_pid) {
            return Ok(false);
        }
        match self.recover(meta) {
            Ok(sealed) => Ok(sealed.state != ArtifactState::Capturing),
            // Another process is recovering it now.
            Err(Error::Capturing { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Removes the recovery locks left by recoverers that died after sealing (their row is no
    /// longer `capturing`, so no one would take the lock again). A lock held now is left.
    pub(super) fn sweep_recovery_locks(&self) {
        let dir = self.root.join("content");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(reference) = name.to_str().and_then(|n| n.strip_suffix(".recover")) else {
                continue;
            };
            let capturing: bool = self
                .conn()
                .query_row(
                    "SELECT state = 'capturing' FROM artifacts WHERE ref = ?1",
                    [reference],
                    |r| r.get(0),
                )
                .unwrap_or(false);
            if capturing {
                continue;
            }
            let path = entry.path();
            let Ok(file) = File::open(&path) else {
                continue;
            };
            if let Ok(lock) = Flock::lock(file, FlockArg::LockExclusiveNonblock) {
                let _ = std::fs::remove_file(&path);
                drop(lock);
            }
        }
    }

    fn recovery_lock_path(&self, reference: &str) -> std::path::PathBuf {
        self.root
            .join("content")
            .join(format!("{reference}.recover"))
    }
}

fn open_lock(path: &std::path::Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)
}

/// Whether the process that owns a capture is alive (this one always is).
pub(super) fn owner_alive(pid: Option<u32>) -> bool {
    let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) else {
        return false;
    };
    if pid == std::process::id() as i32 {
        return true;
    }
    match nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None) {
        Ok(()) | Err(nix::errno::Errno::EPERM) => true,
        Err(_) => false,
    }
}
