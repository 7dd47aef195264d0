//! Reading through: a ref this machine never made is found in the shared store and kept as a
//! sparse content file of its full size, its line index and a chunk map (`REF.have`, one byte
//! per chunk). A read first fetches the chunks it touches (each checked by the shared store
//! against its hash), then reads the file as for any artifact, so windows move only the chunks
//! they touch and what was fetched once is read locally after. A copy still being captured
//! elsewhere grows as the shared store's manifest does. The copies are kept within their own
//! bound (`cache_bytes`), and dropped, not made tombstones: the next read fetches them again.

use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::os::unix::fs::OpenOptionsExt as _;
use std::sync::Arc;

use rusqlite::{OptionalExtension, params};

use super::remote::{Remote, RemoteArtifact};
use super::{ArtifactMeta, Store};
use crate::error::{Error, Result};

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
    /// The local chunk sums, recorded as chunks arrive (`content/REF.sum`).
    sums: std::path::PathBuf,
}

impl Store {
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
            .mode(0o600)
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
            super::sums::forget_from(
                &self.sums_path(&reference),
                before.bytes / chunk_size * chunk_size,
            )?;
        }
        have.resize(chunks, 0);
        // The sums vouch, like the map, only for a file that was already there.
        super::sums::lay_out(&self.sums_path(&reference), meta.bytes, existed)?;
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
            sums: self.sums_path(reference),
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
            // In pieces, as an artifact's own writes are (see `writer::PIECE`).
            let mut written = 0;
            while written < bytes.len() {
                let len = (bytes.len() - written).min(super::writer::PIECE);
                writer
                    .write_all_at(&bytes[written..written + len], at + written as u64)
                    .map_err(|e| Error::io(&self.content, e))?;
                written += len;
            }
            writer
                .sync_data()
                .map_err(|e| Error::io(&self.content, e))?;
            if self.growing && need < self.chunk_size {
                // The growing end: fetched for this read, fetched again by the next.
                continue;
            }
            // The bytes were checked against the shared store's hash: their local sums let
            // every later read check them again.
            super::sums::record(&self.sums, at, &bytes, at + need == self.size)?;
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
    let written = crate::store::create_private(&tmp)
        .and_then(|mut f| std::io::Write::write_all(&mut f, bytes))
        .map_err(|e| Error::io(&tmp, e))
        .and_then(|()| std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e)));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}
