//! A shared store behind the local one: finished artifacts are published to it, and a ref this
//! machine never made is found there and read through, chunk by chunk.
//!
//! A remote artifact is kept locally as a sparse content file of its full size, its line index
//! and a row saying which chunks have arrived. A read first fetches the chunks it touches (each
//! checked by the shared store against its hash), then reads the file as for any artifact. So
//! windows move only the chunks they touch, and what was fetched once is read locally after.
//! The core stays sync and knows no storage protocol: the shared store implements [`Remote`].

use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use rusqlite::{OptionalExtension, params};

use super::{ArtifactMeta, Store};
use crate::error::{Error, Result};

/// An artifact found in the shared store.
pub struct RemoteArtifact {
    pub meta: ArtifactMeta,
    /// The line index, as the local store lays it.
    pub index: Vec<u8>,
    pub chunk_size: u64,
}

/// What the local store needs from a shared one.
pub trait Remote: Send + Sync {
    /// Publishes a finished local artifact.
    fn publish(&self, store: &Store, reference: &str) -> Result<()>;
    /// The artifact `reference`, if the shared store has it.
    fn find(&self, reference: &str) -> Result<Option<RemoteArtifact>>;
    /// Chunk `n` of `reference`, checked against its hash.
    fn chunk(&self, reference: &str, n: u64) -> Result<Vec<u8>>;
    /// Applies expiry in the shared store; how many artifacts it expired.
    fn gc(&self) -> Result<u64>;
}

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS remote_chunks (
    ref TEXT PRIMARY KEY,
    chunk_size INTEGER NOT NULL
);
";

/// Fetches the chunks of a remote artifact into its sparse local file before they are read.
pub(crate) struct Filler {
    remote: Arc<dyn Remote>,
    reference: String,
    chunk_size: u64,
    content: std::path::PathBuf,
    /// One byte per chunk, 1 once it is on disk (`content/REF.have`).
    have: std::path::PathBuf,
}

impl Store {
    /// Puts a shared store behind this one (once; later calls are ignored).
    pub fn set_remote(&self, remote: Arc<dyn Remote>) {
        let _ = self.remote.set(remote);
    }

    /// Applies expiry in the shared store, if one is set: how many artifacts it expired.
    pub fn gc_shared(&self) -> Result<Option<u64>> {
        self.remote().map(|r| r.gc()).transpose()
    }

    pub(crate) fn remote(&self) -> Option<&Arc<dyn Remote>> {
        self.remote.get()
    }

    /// Publishes a just-finished artifact, if a shared store is set. A failure is logged: the
    /// local copy stays complete and readable here.
    pub(crate) fn publish_if_shared(&self, reference: &str) {
        if let Some(remote) = self.remote()
            && let Err(e) = remote.publish(self, reference)
        {
            tracing::warn!(reference, error = %e, "could not publish the artifact to the shared store");
        }
    }

    /// A ref unknown here, looked up in the shared store and set up for reading through.
    pub(crate) fn adopt_remote(&self, reference: &str) -> Result<Option<ArtifactMeta>> {
        let Some(remote) = self.remote() else {
            return Ok(None);
        };
        let Some(found) = remote.find(reference)? else {
            return Ok(None);
        };
        if found.meta.state == crate::envelope::ArtifactState::Expired {
            // A tombstone in the shared store is one here too: it answers `expired`.
            let mut meta = found.meta;
            meta.owner_pid = None;
            self.save_meta(&meta)?;
            return Ok(Some(meta));
        }
        let content = self.content_path(reference);
        let file = std::fs::File::create(&content).map_err(|e| Error::io(&content, e))?;
        file.set_len(found.meta.bytes)
            .map_err(|e| Error::io(&content, e))?;
        let index = self.index_path(reference);
        std::fs::write(&index, &found.index).map_err(|e| Error::io(&index, e))?;
        let chunks = found.meta.bytes.div_ceil(found.chunk_size.max(1));
        let have = self.have_path(reference);
        std::fs::write(&have, vec![0u8; chunks as usize]).map_err(|e| Error::io(&have, e))?;
        self.conn().execute(
            "INSERT OR REPLACE INTO remote_chunks (ref, chunk_size) VALUES (?1, ?2)",
            params![reference, found.chunk_size.max(1) as i64],
        )?;
        let mut meta = found.meta;
        meta.owner_pid = None;
        self.save_meta(&meta)?;
        Ok(Some(meta))
    }

    pub(crate) fn filler(&self, reference: &str) -> Result<Option<Filler>> {
        let Some(remote) = self.remote() else {
            return Ok(None);
        };
        let size: Option<i64> = self
            .conn()
            .query_row(
                "SELECT chunk_size FROM remote_chunks WHERE ref = ?1",
                [reference],
                |r| r.get(0),
            )
            .optional()?;
        Ok(size.map(|s| Filler {
            remote: Arc::clone(remote),
            reference: reference.to_owned(),
            chunk_size: s as u64,
            content: self.content_path(reference),
            have: self.have_path(reference),
        }))
    }

    pub(crate) fn have_path(&self, reference: &str) -> std::path::PathBuf {
        self.root.join("content").join(format!("{reference}.have"))
    }
}

impl Filler {
    /// Fetches every chunk `range` touches that has not arrived yet.
    pub(crate) fn ensure(&self, range: Range<u64>) -> Result<()> {
        if range.start >= range.end {
            return Ok(());
        }
        let first = range.start / self.chunk_size;
        let last = (range.end - 1) / self.chunk_size;
        let mut have = std::fs::read(&self.have).map_err(|e| Error::io(&self.have, e))?;
        for n in first..=last {
            if have.get(n as usize).copied().unwrap_or(0) == 1 {
                continue;
            }
            let bytes = self.remote.chunk(&self.reference, n)?;
            let writer = std::fs::OpenOptions::new()
                .write(true)
                .open(&self.content)
                .map_err(|e| Error::io(&self.content, e))?;
            writer
                .write_all_at(&bytes, n * self.chunk_size)
                .map_err(|e| Error::io(&self.content, e))?;
            writer
                .sync_data()
                .map_err(|e| Error::io(&self.content, e))?;
            // Marked only once the bytes are on disk: a crash refetches, never reads zeros.
            if let Some(slot) = have.get_mut(n as usize) {
                *slot = 1;
            }
            let have_file = std::fs::OpenOptions::new()
                .write(true)
                .open(&self.have)
                .map_err(|e| Error::io(&self.have, e))?;
            have_file
                .write_all_at(&[1], n)
                .map_err(|e| Error::io(&self.have, e))?;
        }
        Ok(())
    }
}
