//! Writing to the bucket: a sealed artifact's chunks (a few at a time) and its index, and the
//! manifest under a condition (create-if-absent, or only over the version read), so a finished
//! artifact is never overwritten and a reader never sees one whose content is missing.

use std::sync::Arc;

use object_store::path::Path;
use object_store::{ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};
use spool_core::Store;

use crate::layout::{self, ChunkInfo, Manifest};
use crate::{CHUNK, PARALLEL_PUTS, S3Error, SharedStore, Versioned};

impl SharedStore {
    /// Uploads a finished local artifact: its chunks and index, then its manifest (only if
    /// none exists, or over a `capturing` one). Nothing is visible to readers until every chunk
    /// is stored.
    pub fn publish(&self, store: &Store, reference: &str) -> Result<Manifest, S3Error> {
        let reader = store.inspect_artifact(reference)?;
        let meta = reader.meta().clone();
        // Asked first, so nothing is uploaded for a ref that is finished or expired there.
        if let Some(there) = self.manifest(reference)? {
            let key = self.key(reference, "manifest.json").to_string();
            match there.manifest.state {
                spool_core::envelope::ArtifactState::Capturing => {}
                spool_core::envelope::ArtifactState::Expired => {
                    return Err(S3Error::Conflict {
                        key,
                        why: "it has expired in the shared store".into(),
                    });
                }
                // Already there (a publish whose answer was lost, or a second try).
                _ if there.manifest.hash == meta.hash && there.manifest.bytes == meta.bytes => {
                    return Ok(there.manifest);
                }
                _ => {
                    return Err(S3Error::Conflict {
                        key,
                        why: "another process already published this ref".into(),
                    });
                }
            }
        }
        let mut chunks = Vec::new();
        self.put_rest(&reader, &mut chunks)?;
        self.put_index(store, reference, None)?;
        let manifest = Manifest::of(&meta, CHUNK, chunks);
        self.create_manifest(reference, &manifest)?;
        Ok(manifest)
    }

    /// Stores consecutive chunks from `first` at once (a single stream of puts leaves most of
    /// the connection's time waiting for answers).
    pub(crate) fn put_chunks(
        &self,
        reference: &str,
        first: usize,
        chunks: Vec<Vec<u8>>,
    ) -> Result<Vec<ChunkInfo>, S3Error> {
        let infos: Vec<ChunkInfo> = chunks
            .iter()
            .map(|bytes| ChunkInfo {
                bytes: bytes.len() as u64,
                xxh3: layout::hash(bytes),
            })
            .collect();
        let puts = chunks.into_iter().enumerate().map(|(i, bytes)| {
            let key = self.key(reference, &layout::chunk_name(first + i));
            let bucket = Arc::clone(&self.bucket);
            async move { bucket.put(&key, PutPayload::from(bytes)).await }
        });
        self.run(futures::future::try_join_all(puts))
            .map_err(|e| self.unavailable(&e))?;
        Ok(infos)
    }

    /// Stores the chunks of a sealed artifact after the `done` ones already stored, a few at a
    /// time (at most `PARALLEL_PUTS` chunks in memory).
    pub(crate) fn put_rest(
        &self,
        reader: &spool_core::store::ArtifactReader,
        done: &mut Vec<ChunkInfo>,
    ) -> Result<(), S3Error> {
        let size = reader.meta().bytes;
        let reference = reader.meta().reference.clone();
        let mut at = done.len() as u64 * CHUNK;
        while at < size {
            let mut batch = Vec::new();
            while at < size && batch.len() < PARALLEL_PUTS {
                let len = CHUNK.min(size - at);
                batch.push(reader.read_at(at, len as usize)?);
                at += len;
            }
            let stored = self.put_chunks(&reference, done.len(), batch)?;
            done.extend(stored);
        }
        Ok(())
    }

    /// Stores the line index of a local artifact (only its checkpoints within the first
    /// `within` bytes, for a capture still being written).
    pub(crate) fn put_index(
        &self,
        store: &Store,
        reference: &str,
        within: Option<u64>,
    ) -> Result<(), S3Error> {
        self.put_index_file(&store.index_file(reference), reference, within)
    }

    pub(crate) fn put_index_file(
        &self,
        path: &std::path::Path,
        reference: &str,
        within: Option<u64>,
    ) -> Result<(), S3Error> {
        let mut index = std::fs::read(path).map_err(|e| S3Error::Local {
            what: format!("the index of `{reference}`"),
            cause: e.to_string(),
        })?;
        if let Some(bytes) = within {
            index.truncate(spool_core::store::index::prefix_within(&index, bytes));
        }
        self.put_raw(reference, "index", index)
    }

    /// Writes the first manifest of `reference`: only if there is none, or over a `capturing`
    /// one (a capture recovered after its process died), never over a finished artifact.
    pub(crate) fn create_manifest(
        &self,
        reference: &str,
        manifest: &Manifest,
    ) -> Result<Versioned, S3Error> {
        let key = self.key(reference, "manifest.json");
        match self.put_manifest(&key, manifest, PutMode::Create)? {
            Ok(written) => Ok(written),
            Err(object_store::Error::AlreadyExists { .. }) => match self.manifest(reference)? {
                // A retried request whose first attempt had landed.
                Some(read) if same(&read.manifest, manifest) => Ok(read),
                Some(read)
                    if read.manifest.state == spool_core::envelope::ArtifactState::Capturing =>
                {
                    self.update_manifest(reference, &read, manifest)
                }
                _ => Err(S3Error::Conflict {
                    key: key.to_string(),
                    why: "another process already published this ref".into(),
                }),
            },
            Err(e) => Err(self.unavailable(&e)),
        }
    }

    /// Writes a manifest under a condition; the store's own error is handed back for the caller
    /// to read (a refused condition is an answer, not a failure).
    fn put_manifest(
        &self,
        key: &Path,
        manifest: &Manifest,
        mode: PutMode,
    ) -> Result<Result<Versioned, object_store::Error>, S3Error> {
        let body = serde_json::to_vec_pretty(manifest).map_err(|e| S3Error::Local {
            what: "the manifest".into(),
            cause: e.to_string(),
        })?;
        let opts = PutOptions {
            mode,
            ..PutOptions::default()
        };
        Ok(self
            .run(self.bucket.put_opts(key, PutPayload::from(body), opts))
            .map(|put| Versioned {
                manifest: manifest.clone(),
                version: UpdateVersion::from(put),
                modified_ms: None,
            }))
    }

    /// The manifest of `reference` and its version, or `None` when the bucket has no such ref.
    pub fn manifest(&self, reference: &str) -> Result<Option<Versioned>, S3Error> {
        let key = self.key(reference, "manifest.json");
        let got = match self.run(self.bucket.get(&key)) {
            Ok(g) => g,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(self.unavailable(&e)),
        };
        let version = UpdateVersion {
            e_tag: got.meta.e_tag.clone(),
            version: got.meta.version.clone(),
        };
        let modified_ms = Some(got.meta.last_modified.timestamp_millis());
        let bytes = self.run(got.bytes()).map_err(|e| self.unavailable(&e))?;
        let manifest: Manifest = serde_json::from_slice(&bytes).map_err(|e| S3Error::Corrupt {
            key: key.to_string(),
            why: format!("the manifest is not valid: {e}"),
        })?;
        Ok(Some(Versioned {
            manifest,
            version,
            modified_ms,
        }))
    }

    /// Replaces the manifest only if it is still the version read (its etag): two processes
    /// changing one artifact's state never overwrite each other.
    pub fn update_manifest(
        &self,
        reference: &str,
        read: &Versioned,
        new: &Manifest,
    ) -> Result<Versioned, S3Error> {
        let key = self.key(reference, "manifest.json");
        match self.put_manifest(&key, new, PutMode::Update(read.version.clone()))? {
            Ok(written) => Ok(written),
            Err(object_store::Error::Precondition { .. }) => match self.manifest(reference)? {
                // A retried request whose first attempt had landed.
                Some(now) if same(&now.manifest, new) => Ok(now),
                _ => Err(S3Error::Conflict {
                    key: key.to_string(),
                    why: "it changed since it was read (a stale etag)".into(),
                }),
            },
            Err(e) => Err(self.unavailable(&e)),
        }
    }
}

/// Whether two manifests say the same, whenever each was written.
fn same(a: &Manifest, b: &Manifest) -> bool {
    let unstamped = |m: &Manifest| Manifest {
        updated_at: None,
        ..m.clone()
    };
    unstamped(a) == unstamped(b)
}
