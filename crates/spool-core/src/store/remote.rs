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

/// What `spool gc` did in the shared store.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct SharedGc {
    /// Artifacts whose time had come: content deleted, tombstone kept.
    pub expired: u64,
    /// Artifacts made here that had not reached it before and now have.
    pub published: u64,
    /// Artifacts made here that still have not...
    pub unpublished: u64,
    /// ...and why (the first failure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unpublished_because: Option<String>,
    /// Why expiry could not be applied there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// An artifact found in the shared store.
pub struct RemoteArtifact {
    pub meta: ArtifactMeta,
    /// The line index, as the local store lays it.
    pub index: Vec<u8>,
    pub chunk_size: u64,
}

/// How far a capture has got: what a live upload may publish.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub bytes: u64,
    pub lines: u64,
    pub chars: u64,
}

/// An artifact published while it is written, so other machines can read it as it grows.
pub trait Upload: Send {
    /// The capture has reached `progress` (bytes in the partial file, checkpoints flushed up to
    /// at most a chunk before). Called on every write: it must return at once.
    fn progress(&self, progress: Progress);
    /// The artifact is sealed (`meta` is final): publishes the rest and its final state.
    fn finish(self: Box<Self>, store: &Store, meta: &ArtifactMeta) -> Result<()>;
}

/// What the local store needs from a shared one.
pub trait Remote: Send + Sync {
    /// Starts publishing an artifact that is about to be written (its partial file and index
    /// exist).
    fn begin(&self, store: &Store, meta: &ArtifactMeta) -> Result<Box<dyn Upload>>;
    /// Publishes a sealed local artifact whole (one whose upload failed before).
    fn publish(&self, store: &Store, reference: &str) -> Result<()>;
    /// The artifact `reference`, if the shared store has it.
    fn find(&self, reference: &str) -> Result<Option<RemoteArtifact>>;
    /// What the shared store says of `reference` now (its manifest alone, no index).
    fn look(&self, reference: &str) -> Result<Option<ArtifactMeta>>;
    /// Chunk `n` of `reference`, checked against its hash, at least `min_len` bytes long (a
    /// growing capture's last chunk: when the manifest read before holds less, the shared
    /// store's current one is read).
    fn chunk(&self, reference: &str, n: u64, min_len: u64) -> Result<Vec<u8>>;
    /// Applies expiry in the shared store; how many artifacts it expired.
    fn gc(&self) -> Result<u64>;
    /// The key every machine on the shared store signs cursors with (made by the first).
    fn secret(&self) -> Result<[u8; 32]>;
    /// Stores a batch of this machine's audit rows (in order of their ids).
    fn ship_audit(&self, machine: &str, rows: &[crate::audit::SharedRow]) -> Result<()>;
    /// At least the newest `limit` audit rows of every machine (possibly more, unsorted).
    fn audit_recent(&self, limit: usize) -> Result<Vec<crate::audit::SharedRow>>;
    /// Every machine's audit rows about `reference`.
    fn audit_of(&self, reference: &str) -> Result<Vec<crate::audit::SharedRow>>;
}

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS remote_chunks (
    ref TEXT PRIMARY KEY,
    chunk_size INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS share_failures (
    ref TEXT PRIMARY KEY,
    detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS published (
    ref TEXT PRIMARY KEY
);
";

/// Fetches the chunks of a remote artifact into its sparse local file before they are read.
pub(crate) struct Filler {
    remote: Arc<dyn Remote>,
    reference: String,
    chunk_size: u64,
    /// The size of the copy as opened: no chunk is read or written past it.
    size: u64,
    /// Still being captured elsewhere: a short last chunk will grow, so it is not marked as
    /// arrived (it is fetched again by the next read).
    growing: bool,
    content: std::path::PathBuf,
    /// One byte per chunk, 1 once it is on disk (`content/REF.have`).
    have: std::path::PathBuf,
}

impl Store {
    /// Puts a shared store behind this one (once; later calls are ignored).
    pub fn set_remote(&self, remote: Arc<dyn Remote>) {
        let _ = self.remote.set(remote);
    }

    /// With a shared store: publishes again what did not reach it before, then applies expiry
    /// there. `None` without one.
    pub fn gc_shared(&self) -> Result<Option<SharedGc>> {
        let Some(remote) = self.remote() else {
            return Ok(None);
        };
        let (published, unpublished, unpublished_because) = self.republish()?;
        // The local work is done whatever the bucket says: its failure is reported, not raised.
        let (expired, error) = match remote.gc() {
            Ok(n) => (n, None),
            Err(e) => (0, Some(e.to_string())),
        };
        Ok(Some(SharedGc {
            expired,
            published,
            unpublished,
            unpublished_because,
            error,
        }))
    }

    /// Publishes the artifacts made here whose upload failed; how many now are in the shared
    /// store, and how many still are not.
    fn republish(&self) -> Result<(u64, u64, Option<String>)> {
        let Some(remote) = self.remote() else {
            return Ok((0, 0, None));
        };
        let failed: Vec<String> = {
            let conn = self.conn();
            let mut stmt = conn.prepare("SELECT ref FROM share_failures ORDER BY ref")?;
            stmt.query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?
        };
        let (mut published, mut unpublished, mut cause) = (0, 0, None);
        for reference in failed {
            let sealed = match self.meta(&reference) {
                Ok(meta) => match meta.state {
                    crate::envelope::ArtifactState::Expired => None,
                    crate::envelope::ArtifactState::Capturing => Some(false),
                    _ => Some(true),
                },
                Err(Error::NotFound { .. }) => None,
                Err(e) => return Err(e),
            };
            match sealed {
                Some(true) => {}
                // Still being captured: its end publishes it (or records why not).
                Some(false) => continue,
                None => {
                    // Gone here: nothing to publish.
                    self.conn()
                        .execute("DELETE FROM share_failures WHERE ref = ?1", [&reference])?;
                    continue;
                }
            }
            let outcome = remote.publish(self, &reference);
            match &outcome {
                Ok(()) => published += 1,
                Err(e) => {
                    unpublished += 1;
                    cause.get_or_insert_with(|| e.to_string());
                }
            }
            self.record_share(&reference, outcome);
        }
        Ok((published, unpublished, cause))
    }

    /// The key that signs new cursors: the shared store's, so a cursor continues on any machine
    /// using it; this store's own when there is none or it cannot be reached.
    pub(crate) fn signing_secret(&self) -> &[u8; 32] {
        self.shared_secret().unwrap_or(&self.secret)
    }

    /// The keys a cursor may be signed with: the shared one, and this store's own (cursors
    /// issued here before the shared store was set, or while it was unreachable).
    pub(crate) fn verifying_secrets(&self) -> Vec<&[u8; 32]> {
        self.shared_secret()
            .into_iter()
            .chain(std::iter::once(&self.secret))
            .collect()
    }

    fn shared_secret(&self) -> Option<&[u8; 32]> {
        let remote = self.remote()?;
        self.shared_secret
            .get_or_init(|| match remote.secret() {
                Ok(key) => Some(key),
                Err(e) => {
                    tracing::warn!(error = %e, "cursors are signed with this machine's key: the shared store's key is unavailable");
                    None
                }
            })
            .as_ref()
    }

    /// This store's name in a shared store's audit: the host, and a short id of this home (two
    /// homes on one host are two machines).
    pub fn machine_name(&self) -> String {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .unwrap_or_default()
            .trim()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect::<String>();
        let id = crate::cursor::digest(&[&String::from_utf8_lossy(&self.secret)]);
        let id: String = id
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(6)
            .collect();
        if host.is_empty() {
            format!("home-{id}")
        } else {
            format!("{host}-{id}")
        }
    }

    /// Whether a shared store is behind this one.
    pub fn is_shared(&self) -> bool {
        self.remote.get().is_some()
    }

    pub(crate) fn remote(&self) -> Option<&Arc<dyn Remote>> {
        self.remote.get()
    }

    /// Starts publishing a new artifact, if a shared store is set. A failure to start is kept
    /// as the artifact's share failure; the capture goes on locally.
    pub(crate) fn begin_upload(&self, meta: &ArtifactMeta) -> Option<Box<dyn Upload>> {
        let remote = self.remote()?;
        match remote.begin(self, meta) {
            Ok(upload) => Some(upload),
            Err(e) => {
                self.record_share(&meta.reference, Err(e));
                None
            }
        }
    }

    /// Remembers whether an artifact reached the shared store; a failure is shown with it.
    pub(crate) fn record_share(&self, reference: &str, outcome: Result<()>) {
        let saved = match outcome {
            Ok(()) => {
                let conn = self.conn();
                conn.execute("DELETE FROM share_failures WHERE ref = ?1", [reference])
                    .and_then(|_| {
                        conn.execute(
                            "INSERT OR IGNORE INTO published (ref) VALUES (?1)",
                            [reference],
                        )
                    })
            }
            Err(e) => {
                tracing::warn!(reference, error = %e, "could not publish the artifact to the shared store");
                self.conn().execute(
                    "INSERT OR REPLACE INTO share_failures (ref, detail) VALUES (?1, ?2)",
                    params![reference, e.to_string()],
                )
            }
        };
        if let Err(e) = saved {
            tracing::warn!(reference, error = %e, "could not record the shared store's outcome");
        }
    }

    /// Why an artifact made here is not in the shared store, if it is not.
    pub(crate) fn share_failure(&self, reference: &str) -> Result<Option<String>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT detail FROM share_failures WHERE ref = ?1",
                [reference],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// A ref unknown here, looked up in the shared store and set up for reading through.
    pub(crate) fn adopt_remote(&self, reference: &str) -> Result<Option<ArtifactMeta>> {
        let Some(remote) = self.remote() else {
            return Ok(None);
        };
        let Some(found) = remote.find(reference)? else {
            return Ok(None);
        };
        self.lay_out_remote(found, None).map(Some)
    }

    /// A read-through copy of an artifact still being written on another machine, brought up
    /// to what the shared store holds now.
    pub(crate) fn refresh_remote(&self, meta: ArtifactMeta) -> Result<ArtifactMeta> {
        let Some(remote) = self.remote() else {
            return Ok(meta);
        };
        // Most reads of a growing copy find it as it was: one small request, no index.
        match remote.look(&meta.reference)? {
            None => return Ok(meta),
            Some(now) if now.bytes == meta.bytes && now.state == meta.state => {
                if now.capture_detail != meta.capture_detail {
                    let mut meta = meta;
                    meta.capture_detail = now.capture_detail;
                    self.save_meta(&meta)?;
                    return Ok(meta);
                }
                return Ok(meta);
            }
            Some(_) => {}
        }
        let Some(found) = remote.find(&meta.reference)? else {
            return Ok(meta);
        };
        if found.meta.bytes < meta.bytes {
            return Err(Error::Corrupt {
                reference: meta.reference.clone(),
                expected: format!("at least the {} bytes read before", meta.bytes),
                actual: format!("{} bytes in the shared store", found.meta.bytes),
            });
        }
        self.lay_out_remote(found, Some(&meta))
    }

    /// Whether `reference` is read through from the shared store rather than made here.
    pub(crate) fn is_read_through(&self, reference: &str) -> Result<bool> {
        Ok(self
            .conn()
            .query_row(
                "SELECT 1 FROM remote_chunks WHERE ref = ?1",
                [reference],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    /// Lays out (or grows, when `before` is the copy read so far) the sparse local file, the
    /// index and the chunk map of a remote artifact, and saves its row.
    fn lay_out_remote(
        &self,
        found: RemoteArtifact,
        before: Option<&ArtifactMeta>,
    ) -> Result<ArtifactMeta> {
        let reference = found.meta.reference.clone();
        let mut meta = found.meta;
        meta.owner_pid = None;
        if meta.state == crate::envelope::ArtifactState::Expired {
            // A tombstone in the shared store is one here too: it answers `expired`.
            self.remove_content(&reference);
            self.save_meta(&meta)?;
            return Ok(meta);
        }
        let chunk_size = found.chunk_size.max(1);
        let content = self.content_path(&reference);
        let existed = content.exists();
        // Never truncated: another reader (thread or process) may be adopting or reading the
        // same copy, and every byte in it was checked against its chunk's hash.
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&content)
            .map_err(|e| Error::io(&content, e))?;
        if file.metadata().map_err(|e| Error::io(&content, e))?.len() < meta.bytes {
            file.set_len(meta.bytes)
                .map_err(|e| Error::io(&content, e))?;
        }
        replace_file(&self.index_path(&reference), &found.index)?;
        let chunks = meta.bytes.div_ceil(chunk_size) as usize;
        let have_path = self.have_path(&reference);
        // A chunk map vouches only for a file that was already there.
        let mut have = if existed {
            std::fs::read(&have_path).unwrap_or_default()
        } else {
            Vec::new()
        };
        if let Some(before) = before
            && before.bytes % chunk_size != 0
            && let Some(slot) = have.get_mut((before.bytes / chunk_size) as usize)
        {
            // The chunk that ended the copy read so far has grown: fetch it again.
            *slot = 0;
        }
        have.resize(chunks, 0);
        replace_file(&have_path, &have)?;
        self.conn().execute(
            "INSERT OR REPLACE INTO remote_chunks (ref, chunk_size) VALUES (?1, ?2)",
            params![reference, chunk_size as i64],
        )?;
        self.save_meta(&meta)?;
        if before.is_none()
            && let Err(e) = self.trim_cache(Some(&reference))
        {
            tracing::warn!(error = %e, "could not keep the read-through cache within its size");
        }
        Ok(meta)
    }

    /// Whether the local copy of `reference` can be dropped rather than made a tombstone: the
    /// shared store has it (it was read through from there, or published there).
    pub(crate) fn in_shared_store(&self, reference: &str) -> Result<bool> {
        if self.remote().is_none() {
            return Ok(false);
        }
        Ok(self
            .conn()
            .query_row(
                "SELECT 1 FROM remote_chunks WHERE ref = ?1 UNION SELECT 1 FROM published WHERE ref = ?1",
                [reference],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    /// Drops the local copy of an artifact the shared store holds: the next read fetches it
    /// again (an eviction from a cache, not an expiry).
    pub(crate) fn forget(&self, reference: &str) -> Result<()> {
        self.remove_content(reference);
        let conn = self.conn();
        for table in ["artifacts", "remote_chunks", "published", "share_failures"] {
            conn.execute(&format!("DELETE FROM {table} WHERE ref = ?1"), [reference])?;
        }
        Ok(())
    }

    /// Keeps the chunks fetched into read-through copies within `cache_bytes`, dropping the
    /// least recently read copies first (never `keep`). Returns how many were dropped.
    pub(crate) fn trim_cache(&self, keep: Option<&str>) -> Result<u64> {
        let copies: Vec<(String, u64, u64)> = {
            let conn = self.conn();
            let mut stmt = conn.prepare(
                "SELECT r.ref, r.chunk_size, a.bytes FROM remote_chunks r JOIN artifacts a ON a.ref = r.ref
                 WHERE a.state != 'expired' ORDER BY a.last_read_at ASC",
            )?;
            stmt.query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get::<_, i64>(1)? as u64,
                    r.get::<_, i64>(2)? as u64,
                ))
            })?
            .collect::<rusqlite::Result<_>>()?
        };
        // What a copy takes on disk: the chunks that have arrived.
        let held = |reference: &str, chunk: u64, bytes: u64| -> u64 {
            let have = std::fs::read(self.have_path(reference)).unwrap_or_default();
            (bytecount::count(&have, 1) as u64 * chunk).min(bytes)
        };
        let sizes: Vec<u64> = copies.iter().map(|(r, c, b)| held(r, *c, *b)).collect();
        let mut used: u64 = sizes.iter().sum();
        let mut dropped = 0;
        for ((reference, _, _), size) in copies.iter().zip(sizes) {
            if used <= self.config.cache_bytes {
                break;
            }
            if Some(reference.as_str()) == keep {
                continue;
            }
            self.forget(reference)?;
            used -= size;
            dropped += 1;
        }
        Ok(dropped)
    }

    pub(crate) fn filler(&self, meta: &ArtifactMeta) -> Result<Option<Filler>> {
        let Some(remote) = self.remote() else {
            return Ok(None);
        };
        let reference = meta.reference.as_str();
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
            chunk_size: (s as u64).max(1),
            size: meta.bytes,
            growing: meta.state == crate::envelope::ArtifactState::Capturing,
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
        let end = range.end.min(self.size);
        if range.start >= end {
            return Ok(());
        }
        let first = range.start / self.chunk_size;
        let last = (end - 1) / self.chunk_size;
        let mut have = std::fs::read(&self.have).map_err(|e| Error::io(&self.have, e))?;
        for n in first..=last {
            if have.get(n as usize).copied().unwrap_or(0) == 1 {
                continue;
            }
            let at = n * self.chunk_size;
            let need = self.chunk_size.min(self.size - at);
            let mut bytes = self.remote.chunk(&self.reference, n, need)?;
            if (bytes.len() as u64) < need {
                return Err(Error::Corrupt {
                    reference: self.reference.clone(),
                    expected: format!("{need} bytes in chunk {n}"),
                    actual: format!("{} bytes", bytes.len()),
                });
            }
            // What the copy as opened holds, no more (the chunk may have grown since).
            bytes.truncate(need as usize);
            let writer = std::fs::OpenOptions::new()
                .write(true)
                .open(&self.content)
                .map_err(|e| Error::io(&self.content, e))?;
            writer
                .write_all_at(&bytes, at)
                .map_err(|e| Error::io(&self.content, e))?;
            writer
                .sync_data()
                .map_err(|e| Error::io(&self.content, e))?;
            if self.growing && need < self.chunk_size {
                // The growing end: fetched for this read, fetched again by the next.
                continue;
            }
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

/// Writes a file whole under a temporary name and renames it into place, so a reader that has
/// it open keeps the old one intact.
fn replace_file(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension(format!("tmp-{}", crate::refs::new_ref()?));
    let written = std::fs::write(&tmp, bytes)
        .map_err(|e| Error::io(&tmp, e))
        .and_then(|()| std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e)));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}
