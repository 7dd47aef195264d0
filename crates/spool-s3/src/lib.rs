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

mod audit;
mod breaker;
mod config;
mod error;
mod layout;
mod live;

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};
use spool_core::Store;

pub use config::{DEFAULT_STALE_AFTER, S3Settings, StoreSection};
pub use error::S3Error;
pub use layout::{ChunkInfo, Manifest, TailInfo};

/// Bytes per content chunk: a window moves at most two of them.
pub const CHUNK: u64 = 4 << 20;
/// Chunks uploaded at once.
const PARALLEL_PUTS: usize = 4;

/// A bucket (and prefix) holding spool artifacts. Clones share one connection pool and runtime
/// (a live upload's thread holds one).
#[derive(Clone)]
pub struct SharedStore {
    bucket: Arc<dyn ObjectStore>,
    root: Path,
    /// Where it is, for messages (never credentials).
    endpoint: String,
    runtime: Arc<tokio::runtime::Runtime>,
    /// Content bytes downloaded so far (what a benchmark or a test checks).
    fetched: Arc<AtomicU64>,
    /// Manifests read, by ref: chunk hashes are checked against them.
    manifests: Arc<std::sync::Mutex<std::collections::HashMap<String, Manifest>>>,
    stale_after: std::time::Duration,
    /// Fails requests at once for a while after the bucket did not answer.
    breaker: Arc<breaker::Breaker>,
}

/// A manifest as read, with the version a conditional update names.
#[derive(Debug, Clone)]
pub struct Versioned {
    pub manifest: Manifest,
    pub version: UpdateVersion,
    /// When the bucket last stored it (its own clock), when known.
    pub modified_ms: Option<i64>,
}

impl SharedStore {
    /// Connects (lazily: nothing is sent until the first request).
    pub fn connect(settings: &S3Settings) -> Result<Self, S3Error> {
        // Two workers: a live upload and the reads of the answering thread go on side by side.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("spool-s3")
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
            runtime: Arc::new(runtime),
            fetched: Arc::new(AtomicU64::new(0)),
            manifests: Arc::default(),
            stale_after: settings.stale_after,
            breaker: Arc::default(),
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

    /// Runs one request on this store's runtime, unless the bucket did not answer a moment
    /// ago (see `breaker`).
    fn run<T>(
        &self,
        request: impl std::future::Future<Output = Result<T, object_store::Error>>,
    ) -> Result<T, object_store::Error> {
        self.breaker.check()?;
        let result = self.runtime.block_on(request);
        self.breaker.record(&result);
        result
    }

    fn unavailable(&self, e: &object_store::Error) -> S3Error {
        S3Error::Unavailable {
            endpoint: self.endpoint.clone(),
            cause: e.to_string(),
        }
    }

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

    /// Deletes an object that readers no longer need; a failure only leaves garbage behind.
    pub(crate) fn delete_quietly(&self, reference: &str, name: &str) {
        let key = self.key(reference, name);
        if let Err(e) = self.run(self.bucket.delete(&key)) {
            tracing::debug!(key = %key, error = %e, "could not delete a superseded object");
        }
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
    fn chunk_at_least(
        &self,
        reference: &str,
        manifest: &Manifest,
        n: usize,
        min_len: u64,
    ) -> Result<Vec<u8>, S3Error> {
        let mut current = std::borrow::Cow::Borrowed(manifest);
        for attempt in 0..4 {
            if part_len(&current, n).is_some_and(|len| len >= min_len)
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
        let (name, bytes, xxh3) = match (manifest.chunks.get(n), &manifest.tail) {
            (Some(info), _) => (layout::chunk_name(n), info.bytes, info.xxh3.clone()),
            (None, Some(tail)) if n == manifest.chunks.len() => {
                (tail.name.clone(), tail.bytes, tail.xxh3.clone())
            }
            // Past what this manifest names: a newer one may name it.
            _ => return Ok(None),
        };
        let key = self.key(reference, &name);
        let got = match self.run(self.bucket.get(&key)) {
            Ok(got) => self.run(got.bytes()).map_err(|e| self.unavailable(&e))?,
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
        // Everything but the tombstone and the audit rows: index, chunks, and any tail a
        // stopped capture left behind.
        let listed = self
            .run(
                self.bucket.list_with_delimiter(Some(
                    &self.root.clone().join("artifacts").join(reference),
                )),
            )
            .map_err(|e| self.unavailable(&e))?;
        let keys = listed
            .objects
            .into_iter()
            .map(|o| o.location)
            .filter(|k| k.filename() != Some("manifest.json"));
        for key in keys {
            match self.run(self.bucket.delete(&key)) {
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
            .run(
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

    /// The key cursors are signed with on every machine using this bucket: made by the first
    /// machine that needs it (create-if-absent, so two first machines agree on one key).
    pub fn cursor_secret(&self) -> Result<[u8; 32], S3Error> {
        let key = self.root.clone().join("secret");
        let read = |got: &[u8]| {
            <[u8; 32]>::try_from(got).map_err(|_| S3Error::Corrupt {
                key: key.to_string(),
                why: format!("the cursor key is {} bytes, not 32", got.len()),
            })
        };
        // Usually there already: one read.
        match self.run(async { self.bucket.get(&key).await?.bytes().await }) {
            Ok(got) => return read(&got),
            Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => return Err(self.unavailable(&e)),
        }
        let mut fresh = [0u8; 32];
        getrandom::fill(&mut fresh).map_err(|e| S3Error::Local {
            what: "the system random source".into(),
            cause: e.to_string(),
        })?;
        let opts = PutOptions {
            mode: PutMode::Create,
            ..PutOptions::default()
        };
        match self.run(
            self.bucket
                .put_opts(&key, PutPayload::from(fresh.to_vec()), opts),
        ) {
            Ok(_) => return Ok(fresh),
            Err(object_store::Error::AlreadyExists { .. }) => {}
            Err(e) => return Err(self.unavailable(&e)),
        }
        // Another machine made it first: theirs is the one.
        let got = self
            .run(async { self.bucket.get(&key).await?.bytes().await })
            .map_err(|e| self.unavailable(&e))?;
        read(&got)
    }

    /// Writes raw bytes at a key under this store's root (tests use it to damage a chunk).
    pub fn put_raw(&self, reference: &str, name: &str, bytes: Vec<u8>) -> Result<(), S3Error> {
        self.run(
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

    fn begin(
        &self,
        store: &Store,
        meta: &spool_core::store::ArtifactMeta,
    ) -> spool_core::Result<Box<dyn spool_core::store::Upload>> {
        live::LiveUpload::start(self, store, meta)
            .map(|u| Box::new(u) as Box<dyn spool_core::store::Upload>)
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
                meta: found.manifest.to_meta(self.stale_after, found.modified_ms),
                index: Vec::new(),
                chunk_size: found.manifest.chunk_size,
            }));
        }
        let key = self.key(reference, "index");
        let mut index = match self.run(self.bucket.get(&key)) {
            Ok(got) => self
                .run(got.bytes())
                .map_err(|e| self.unavailable(&e).into_core())?
                .to_vec(),
            Err(e) => return Err(self.unavailable(&e).into_core()),
        };
        let manifest = found.manifest;
        // A growing capture's index may already be newer than the manifest read before it.
        index.truncate(spool_core::store::index::prefix_within(
            &index,
            manifest.bytes,
        ));
        if let Ok(mut m) = self.manifests.lock() {
            m.insert(reference.to_owned(), manifest.clone());
        }
        Ok(Some(spool_core::store::RemoteArtifact {
            meta: manifest.to_meta(self.stale_after, found.modified_ms),
            index,
            chunk_size: manifest.chunk_size,
        }))
    }

    fn look(&self, reference: &str) -> spool_core::Result<Option<spool_core::store::ArtifactMeta>> {
        Ok(self
            .manifest(reference)
            .map_err(S3Error::into_core)?
            .map(|found| found.manifest.to_meta(self.stale_after, found.modified_ms)))
    }

    fn chunk(&self, reference: &str, n: u64, min_len: u64) -> spool_core::Result<Vec<u8>> {
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
        self.chunk_at_least(reference, &manifest, n as usize, min_len)
            .map_err(S3Error::into_core)
    }

    fn gc(&self) -> spool_core::Result<u64> {
        SharedStore::gc(self).map_err(S3Error::into_core)
    }

    fn secret(&self) -> spool_core::Result<[u8; 32]> {
        self.cursor_secret().map_err(S3Error::into_core)
    }

    fn ship_audit(
        &self,
        machine: &str,
        rows: &[spool_core::audit::SharedRow],
    ) -> spool_core::Result<()> {
        self.ship_audit_rows(machine, rows)
            .map_err(S3Error::into_core)
    }

    fn audit_recent(&self, limit: usize) -> spool_core::Result<Vec<spool_core::audit::SharedRow>> {
        self.audit_rows_recent(limit).map_err(S3Error::into_core)
    }

    fn audit_of(&self, reference: &str) -> spool_core::Result<Vec<spool_core::audit::SharedRow>> {
        self.audit_rows_of(reference).map_err(S3Error::into_core)
    }
}

/// The length of chunk `n` as `manifest` names it (the tail past the full chunks).
fn part_len(manifest: &Manifest, n: usize) -> Option<u64> {
    match (manifest.chunks.get(n), &manifest.tail) {
        (Some(info), _) => Some(info.bytes),
        (None, Some(tail)) if n == manifest.chunks.len() => Some(tail.bytes),
        _ => None,
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
