//! Reading from the bucket: the chunks a range touches, each checked against its hash; a chunk
//! the manifest read before does not name (a capture that grew or finished since) is looked up
//! in the bucket's current manifest.

use std::ops::Range;
use std::sync::atomic::Ordering;

use crate::layout::{self, Manifest};
use crate::{S3Error, SharedStore};

impl SharedStore {
    /// Bytes `range` of the artifact's content: only the chunks it touches are fetched, each
    /// checked against its hash.
    pub fn read_range(
        &self,
        reference: &str,
        manifest: &Manifest,
        range: Range<u64>,
    ) -> Result<Vec<u8>, S3Error> {
        let end = range.end.min(manifest.bytes);
        let mut out = Vec::with_capacity(end.saturating_sub(range.start) as usize);
        if range.start >= end {
            return Ok(out);
        }
        let size = manifest.chunk_size;
        for n in (range.start / size)..=((end - 1) / size) {
            let chunk = self.chunk(reference, manifest, n as usize)?;
            let base = n * size;
            let from = range.start.max(base) - base;
            let to = end.min(base + chunk.len() as u64) - base;
            out.extend_from_slice(&chunk[from as usize..to as usize]);
        }
        Ok(out)
    }

    fn chunk(&self, reference: &str, manifest: &Manifest, n: usize) -> Result<Vec<u8>, S3Error> {
        self.chunk_at_least(reference, manifest, n, 0)
    }

    /// Chunk `n`, at least `min_len` bytes of it. When the manifest read before does not name
    /// it whole (a growing capture's newer tail, a filled chunk, a finished capture) or the
    /// object it names is gone, the bucket's current manifest is read and used.
    pub(crate) fn chunk_at_least(
        &self,
        reference: &str,
        manifest: &Manifest,
        n: usize,
        min_len: u64,
    ) -> Result<Vec<u8>, S3Error> {
        let mut current = std::borrow::Cow::Borrowed(manifest);
        for attempt in 0..4 {
            if part(&current, n).is_some_and(|(_, len, _)| len >= min_len)
                && let Some(bytes) = self.fetch_part(reference, &current, n)?
            {
                return Ok(bytes);
            }
            if attempt == 3 {
                break;
            }
            let Some(now) = self.manifest(reference)? else {
                break;
            };
            if now.manifest.state == spool_core::envelope::ArtifactState::Expired {
                return Err(S3Error::Expired(Box::new(
                    now.manifest.to_meta(self.stale_after, now.modified_ms),
                )));
            }
            if let Ok(mut known) = self.manifests.lock() {
                known.insert(reference.to_owned(), now.manifest.clone());
            }
            current = std::borrow::Cow::Owned(now.manifest);
        }
        Err(S3Error::Corrupt {
            key: self.key(reference, &layout::chunk_name(n)).to_string(),
            why: format!("the chunk is missing (at least {min_len} bytes were expected)"),
        })
    }

    /// Chunk `n` as `manifest` names it (the tail, past the full chunks of a capture),
    /// checked against its hash; `None` when the bucket has no such object.
    fn fetch_part(
        &self,
        reference: &str,
        manifest: &Manifest,
        n: usize,
    ) -> Result<Option<Vec<u8>>, S3Error> {
        // Past what this manifest names: a newer one may name it.
        let Some((name, bytes, xxh3)) = part(manifest, n) else {
            return Ok(None);
        };
        let key = self.key(reference, &name);
        let got = match self.get_whole(&key) {
            Ok(got) => got,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(self.unavailable(&e)),
        };
        self.fetched.fetch_add(got.len() as u64, Ordering::Relaxed);
        let actual = layout::hash(&got);
        if got.len() as u64 != bytes || actual != xxh3 {
            return Err(S3Error::Corrupt {
                key: key.to_string(),
                why: format!(
                    "its hash is {actual} ({} bytes), the manifest says {xxh3} ({bytes} bytes)",
                    got.len(),
                ),
            });
        }
        Ok(Some(got.to_vec()))
    }
}

/// The object name, length and hash of chunk `n` as `manifest` names it (the tail past the
/// full chunks).
fn part(manifest: &Manifest, n: usize) -> Option<(String, u64, String)> {
    match (manifest.chunks.get(n), &manifest.tail) {
        (Some(info), _) => Some((layout::chunk_name(n), info.bytes, info.xxh3.clone())),
        (None, Some(tail)) if n == manifest.chunks.len() => {
            Some((tail.name.clone(), tail.bytes, tail.xxh3.clone()))
        }
        _ => None,
    }
}
