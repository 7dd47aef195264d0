//! `spool-s3`: artifacts on S3-compatible object storage, so a ref made on one machine reads on
//! another.
//!
//! Layout under `PREFIX/spool-v1/artifacts/REF/`:
//!
//! ```text
//! manifest.json   source, version, totals, state, hashes (visible only once the content is)
//! index           the line index, as the local store lays it
//! chunk-000000    content in chunks of `CHUNK` bytes, each with its xxh3 in the manifest
//! ```
//!
//! The manifest is written last and only if absent, so no reader ever sees a complete-looking
//! artifact with content missing; state changes are conditional on the manifest's etag, so two
//! processes never overwrite each other's state. Reads fetch only the chunks a range touches.
//!
//! This crate is sync to its callers (like `spool-core`): it runs `object_store` on a runtime of
//! its own.

mod config;
mod error;
mod layout;

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};
use spool_core::Store;

pub use config::S3Settings;
pub use error::S3Error;
pub use layout::{ChunkInfo, Manifest};

/// Bytes per content chunk: a window moves at most two of them.
pub const CHUNK: u64 = 4 << 20;

/// A bucket (and prefix) holding spool artifacts.
pub struct SharedStore {
    bucket: Arc<dyn ObjectStore>,
    root: Path,
    /// Where it is, for messages (never credentials).
    endpoint: String,
    runtime: tokio::runtime::Runtime,
    /// Content bytes downloaded so far (what a benchmark or a test checks).
    fetched: AtomicU64,
    /// Manifests read, by ref: chunk hashes are checked against them.
    manifests: std::sync::Mutex<std::collections::HashMap<String, Manifest>>,
}

/// A manifest as read, with the version a conditional update names.
#[derive(Debug, Clone)]
pub struct Versioned {
    pub manifest: Manifest,
    pub version: UpdateVersion,
}

impl SharedStore {
    /// Connects (lazily: nothing is sent until the first request).
    pub fn connect(settings: &S3Settings) -> Result<Self, S3Error> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| S3Error::Unavailable {
                endpoint: settings.describe(),
                cause: format!("cannot start an async runtime: {e}"),
            })?;
        // TLS for https endpoints: the same provider the rest of spool uses.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let bucket = settings.build()?;
        Ok(Self {
            bucket: Arc::new(bucket),
            root: Path::from(settings.prefix.as_str()).join("spool-v1"),
            endpoint: settings.describe(),
            runtime,
            fetched: AtomicU64::new(0),
            manifests: std::sync::Mutex::new(std::collections::HashMap::new()),
        })
    }

    /// Content bytes downloaded by this handle.
    pub fn fetched_bytes(&self) -> u64 {
        self.fetched.load(Ordering::Relaxed)
    }

    fn key(&self, reference: &str, name: &str) -> Path {
        self.root
            .clone()
            .join("artifacts")
            .join(reference)
            .join(name)
    }

    fn unavailable(&self, e: &object_store::Error) -> S3Error {
        S3Error::Unavailable {
            endpoint: self.endpoint.clone(),
            cause: e.to_string(),
        }
    }

    /// Uploads a finished local artifact: its chunks and index, then its manifest (only if
    /// none exists). Nothing is visible to readers until every chunk is stored.
    pub fn publish(&self, store: &Store, reference: &str) -> Result<Manifest, S3Error> {
        let reader = store.open_artifact(reference)?;
        let meta = reader.meta().clone();
        let mut chunks = Vec::new();
        let mut at = 0;
        while at < meta.bytes {
            let len = CHUNK.min(meta.bytes - at);
            let bytes = reader.read_at(at, len as usize)?;
            let info = ChunkInfo {
                bytes: bytes.len() as u64,
                xxh3: layout::hash(&bytes),
            };
            let key = self.key(reference, &layout::chunk_name(chunks.len()));
            self.runtime
                .block_on(self.bucket.put(&key, PutPayload::from(bytes)))
                .map_err(|e| self.unavailable(&e))?;
            chunks.push(info);
            at += len;
        }
        let index = std::fs::read(store.index_file(reference)).map_err(|e| S3Error::Local {
            what: format!("the index of `{reference}`"),
            cause: e.to_string(),
        })?;
        self.runtime
            .block_on(
                self.bucket
                    .put(&self.key(reference, "index"), PutPayload::from(index)),
            )
            .map_err(|e| self.unavailable(&e))?;
        let manifest = Manifest::of(&meta, CHUNK, chunks);
        let body = serde_json::to_vec_pretty(&manifest).map_err(|e| S3Error::Local {
            what: "the manifest".into(),
            cause: e.to_string(),
        })?;
        let opts = PutOptions {
            mode: PutMode::Create,
            ..PutOptions::default()
        };
        match self.runtime.block_on(self.bucket.put_opts(
            &self.key(reference, "manifest.json"),
            PutPayload::from(body),
            opts,
        )) {
            Ok(_) => Ok(manifest),
            Err(object_store::Error::AlreadyExists { .. }) => Err(S3Error::Conflict {
                key: self.key(reference, "manifest.json").to_string(),
                why: "another process already published this ref".into(),
            }),
            Err(e) => Err(self.unavailable(&e)),
        }
    }

    /// The manifest of `reference` and its version, or `None` when the bucket has no such ref.
    pub fn manifest(&self, reference: &str) -> Result<Option<Versioned>, S3Error> {
        let key = self.key(reference, "manifest.json");
        let got = match self.runtime.block_on(self.bucket.get(&key)) {
            Ok(g) => g,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(self.unavailable(&e)),
        };
        let version = UpdateVersion {
            e_tag: got.meta.e_tag.clone(),
            version: got.meta.version.clone(),
        };
        let bytes = self
            .runtime
            .block_on(got.bytes())
            .map_err(|e| self.unavailable(&e))?;
        let manifest: Manifest = serde_json::from_slice(&bytes).map_err(|e| S3Error::Corrupt {
            key: key.to_string(),
            why: format!("the manifest is not valid: {e}"),
        })?;
        Ok(Some(Versioned { manifest, version }))
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
        let body = serde_json::to_vec_pretty(new).map_err(|e| S3Error::Local {
            what: "the manifest".into(),
            cause: e.to_string(),
        })?;
        let opts = PutOptions {
            mode: PutMode::Update(read.version.clone()),
            ..PutOptions::default()
        };
        match self
            .runtime
            .block_on(self.bucket.put_opts(&key, PutPayload::from(body), opts))
        {
            Ok(put) => Ok(Versioned {
                manifest: new.clone(),
                version: UpdateVersion::from(put),
            }),
            Err(object_store::Error::Precondition { .. }) => Err(S3Error::Conflict {
                key: key.to_string(),
                why: "it changed since it was read (a stale etag)".into(),
            }),
            Err(e) => Err(self.unavailable(&e)),
        }
    }

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
        let key = self.key(reference, &layout::chunk_name(n));
        let info = manifest.chunks.get(n).ok_or_else(|| S3Error::Corrupt {
            key: key.to_string(),
            why: format!("the manifest lists {} chunks", manifest.chunks.len()),
        })?;
        let bytes = match self.runtime.block_on(self.bucket.get(&key)) {
            Ok(got) => self
                .runtime
                .block_on(got.bytes())
                .map_err(|e| self.unavailable(&e))?,
            Err(object_store::Error::NotFound { .. }) => {
                return Err(S3Error::Corrupt {
                    key: key.to_string(),
                    why: "the chunk is missing".into(),
                });
            }
            Err(e) => return Err(self.unavailable(&e)),
        };
        self.fetched
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        let actual = layout::hash(&bytes);
        if bytes.len() as u64 != info.bytes || actual != info.xxh3 {
            return Err(S3Error::Corrupt {
                key: key.to_string(),
                why: format!(
                    "its hash is {actual} ({} bytes), the manifest says {} ({} bytes)",
                    bytes.len(),
                    info.xxh3,
                    info.bytes
                ),
            });
        }
        Ok(bytes.to_vec())
    }

    /// Expires `reference` in the bucket: the manifest becomes a tombstone (state `expired`,
    /// changed only from the version read) and the content and index are deleted. Returns false
    /// when the bucket has no such ref or it was already expired.
    pub fn expire(&self, reference: &str) -> Result<bool, S3Error> {
        let Some(read) = self.manifest(reference)? else {
            return Ok(false);
        };
        if read.manifest.state == spool_core::envelope::ArtifactState::Expired {
            return Ok(false);
        }
        let mut tomb = read.manifest.clone();
        tomb.state = spool_core::envelope::ArtifactState::Expired;
        // The tombstone first: no reader is sent to chunks that are being deleted.
        self.update_manifest(reference, &read, &tomb)?;
        let mut keys = vec![self.key(reference, "index")];
        keys.extend(
            (0..read.manifest.chunks.len()).map(|n| self.key(reference, &layout::chunk_name(n))),
        );
        for key in keys {
            match self.runtime.block_on(self.bucket.delete(&key)) {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(self.unavailable(&e)),
            }
        }
        Ok(true)
    }

    /// Applies expiry to the bucket: every artifact whose `expires_at` has passed is expired
    /// (content deleted, tombstone kept). Returns how many were.
    pub fn gc(&self) -> Result<u64, S3Error> {
        let now = spool_core::clock::now_ms();
        let listed = self
            .runtime
            .block_on(
                self.bucket
                    .list_with_delimiter(Some(&self.root.clone().join("artifacts"))),
            )
            .map_err(|e| self.unavailable(&e))?;
        let mut expired = 0;
        for prefix in listed.common_prefixes {
            let Some(reference) = prefix.filename() else {
                continue;
            };
            let reference = reference.to_owned();
            if let Some(found) = self.manifest(&reference)?
                && found.manifest.state != spool_core::envelope::ArtifactState::Expired
                && found.manifest.expires_at <= now
                && self.expire(&reference)?
            {
                expired += 1;
            }
        }
        Ok(expired)
    }

    /// Writes raw bytes at a key under this store's root (tests use it to damage a chunk).
    pub fn put_raw(&self, reference: &str, name: &str, bytes: Vec<u8>) -> Result<(), S3Error> {
        self.runtime
            .block_on(
                self.bucket
                    .put(&self.key(reference, name), PutPayload::from(bytes)),
            )
            .map(|_| ())
            .map_err(|e| self.unavailable(&e))
    }
}

impl spool_core::store::Remote for SharedStore {
    fn publish(&self, store: &Store, reference: &str) -> spool_core::Result<()> {
        SharedStore::publish(self, store, reference)
            .map(|_| ())
            .map_err(S3Error::into_core)
    }

    fn find(
        &self,
        reference: &str,
    ) -> spool_core::Result<Option<spool_core::store::RemoteArtifact>> {
        let Some(found) = self.manifest(reference).map_err(S3Error::into_core)? else {
            return Ok(None);
        };
        if found.manifest.state == spool_core::envelope::ArtifactState::Expired {
            // A tombstone: what it was, no content to read.
            return Ok(Some(spool_core::store::RemoteArtifact {
                meta: found.manifest.to_meta(),
                index: Vec::new(),
                chunk_size: found.manifest.chunk_size,
            }));
        }
        let key = self.key(reference, "index");
        let index = match self.runtime.block_on(self.bucket.get(&key)) {
            Ok(got) => self
                .runtime
                .block_on(got.bytes())
                .map_err(|e| self.unavailable(&e).into_core())?
                .to_vec(),
            Err(e) => return Err(self.unavailable(&e).into_core()),
        };
        let manifest = found.manifest;
        if let Ok(mut m) = self.manifests.lock() {
            m.insert(reference.to_owned(), manifest.clone());
        }
        Ok(Some(spool_core::store::RemoteArtifact {
            meta: manifest.to_meta(),
            index,
            chunk_size: manifest.chunk_size,
        }))
    }

    fn chunk(&self, reference: &str, n: u64) -> spool_core::Result<Vec<u8>> {
        let known = self
            .manifests
            .lock()
            .ok()
            .and_then(|m| m.get(reference).cloned());
        let manifest = match known {
            Some(m) => m,
            None => {
                self.manifest(reference)
                    .map_err(S3Error::into_core)?
                    .ok_or_else(|| spool_core::Error::NotFound {
                        reference: reference.to_owned(),
                    })?
                    .manifest
            }
        };
        SharedStore::chunk(self, reference, &manifest, n as usize).map_err(S3Error::into_core)
    }

    fn gc(&self) -> spool_core::Result<u64> {
        SharedStore::gc(self).map_err(S3Error::into_core)
    }
}
