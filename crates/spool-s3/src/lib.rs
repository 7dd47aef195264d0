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
mod expiry;
mod layout;
mod live;
mod publish;
mod read;
mod remote_impl;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};

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

    /// Deletes an object that readers no longer need; a failure only leaves garbage behind.
    pub(crate) fn delete_quietly(&self, reference: &str, name: &str) {
        let key = self.key(reference, name);
        if let Err(e) = self.run(self.bucket.delete(&key)) {
            tracing::debug!(key = %key, error = %e, "could not delete a superseded object");
        }
    }

    /// The whole object at `key` (the store's own error, for the caller to read).
    pub(crate) fn get_whole(&self, key: &Path) -> Result<bytes::Bytes, object_store::Error> {
        self.run(async { self.bucket.get(key).await?.bytes().await })
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
        match self.get_whole(&key) {
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
        let got = self.get_whole(&key).map_err(|e| self.unavailable(&e))?;
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
