//! Files in `content/` that no artifact names: what a power cut can leave behind.
//!
//! An artifact's row is saved before its files are made, but only a sealed row is synced as
//! it is saved (`save_meta_synced`); the others are as durable as `synchronous = NORMAL`
//! makes them. A power cut can therefore take back the row of a capture under way, or the
//! tombstone of an expiry, and leave files that no row names: they would hold their disk
//! space for ever, outside the quota, which counts rows. `spool gc` removes them.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use rusqlite::OptionalExtension;

use super::Store;
use crate::error::Result;

/// A file younger than this is never taken, whatever the rows say. A read-through copy's file
/// is laid out just before its row is saved, and another process may be between the two.
pub(super) const ORPHAN_AGE: Duration = Duration::from_hours(1);

/// The endings of an artifact's files in `content/`, after its ref (the content has none).
const ENDINGS: [&str; 9] = [
    "", ".partial", ".idx", ".sum", ".streams", ".words", ".have", ".orphan", ".recover",
];

/// What the sweep removed.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Swept {
    /// Artifacts (by ref) some of whose files were removed.
    pub artifacts: u64,
    pub bytes: u64,
}

impl Store {
    /// Removes the files in `content/` of artifacts without a row, or with only a tombstone
    /// (whose content is gone by definition), untouched for [`ORPHAN_AGE`].
    pub(super) fn sweep_orphans(&self) -> Result<Swept> {
        let dir = self.root.join("content");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Ok(Swept::default());
        };
        // Listed before the rows are asked: a file seen here had its row saved first (unless
        // the row was lost), so a new artifact is never taken for an orphan.
        let now = SystemTime::now();
        let mut files: HashMap<String, Vec<(PathBuf, u64)>> = HashMap::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let (reference, ending) = name.split_at(name.find('.').unwrap_or(name.len()));
            if !crate::refs::looks_like_ref(reference) || !ENDINGS.contains(&ending) {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            let old = meta
                .modified()
                .ok()
                .and_then(|m| now.duration_since(m).ok())
                .is_some_and(|age| age >= ORPHAN_AGE);
            if meta.is_file() && old {
                files
                    .entry(reference.to_owned())
                    .or_default()
                    .push((entry.path(), meta.len()));
            }
        }
        let mut swept = Swept::default();
        for (reference, paths) in files {
            let state: Option<String> = self
                .conn()
                .query_row(
                    "SELECT state FROM artifacts WHERE ref = ?1",
                    [&reference],
                    |r| r.get(0),
                )
                .optional()?;
            if state.as_deref().is_some_and(|s| s != "expired") {
                continue;
            }
            let mut removed = false;
            for (path, len) in paths {
                match std::fs::remove_file(&path) {
                    Ok(()) => {
                        removed = true;
                        swept.bytes += len;
                    }
                    // Another `gc` took it first.
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => {
                        tracing::warn!(path = %path.display(), error = %e, "could not remove a file no artifact names");
                    }
                }
            }
            if removed {
                tracing::info!(reference = %reference, "removed files no artifact names");
                swept.artifacts += 1;
            }
        }
        Ok(swept)
    }
}
