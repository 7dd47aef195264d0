//! A shared store behind the local one: artifacts are published to it as they are written
//! (with what failed recorded and shown), cursors are signed with its key, and a ref this
//! machine never made is read through from it (`read_through`). The core stays sync and knows
//! no storage protocol: the shared store implements [`Remote`].

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
    fn ship_audit(&self, machine: &str, rows: &[crate::audit_rows::SharedRow]) -> Result<()>;
    /// At least the newest `limit` audit rows of every machine (possibly more, unsorted).
    fn audit_recent(&self, limit: usize) -> Result<Vec<crate::audit_rows::SharedRow>>;
    /// Every machine's audit rows about `reference`.
    fn audit_of(&self, reference: &str) -> Result<Vec<crate::audit_rows::SharedRow>>;
}

/// How long after failing to get the shared store's cursor key it is asked for again.
const SECRET_RETRY_MS: i64 = 60_000;

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

    fn shared_secret(&self) -> Option<&[u8; 32]> {
        use std::sync::atomic::Ordering;
        if let Some(key) = self.shared_secret.get() {
            return Some(key);
        }
        let remote = self.remote()?;
        let now = crate::clock::now_ms();
        if now < self.shared_secret_retry_at.load(Ordering::Relaxed) {
            return None;
        }
        match remote.secret() {
            Ok(key) => Some(self.shared_secret.get_or_init(|| key)),
            Err(e) => {
                // Asked again a minute later: a server started during an outage signs with the
                // shared key once the bucket is back.
                self.shared_secret_retry_at
                    .store(now + SECRET_RETRY_MS, Ordering::Relaxed);
                tracing::warn!(error = %e, "cursors are signed with this machine's key for now: the shared store's key is unavailable");
                None
            }
        }
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
        let id = crate::refs::digest(&[&String::from_utf8_lossy(&self.secret)]);
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
}

impl crate::cursor::Keys for Store {
    /// The key that signs new cursors: the shared store's, so a cursor continues on any machine
    /// using it; this store's own when there is none or it cannot be reached.
    fn signing_secret(&self) -> &[u8; 32] {
        self.shared_secret().unwrap_or(&self.secret)
    }

    /// The keys a cursor may be signed with: the shared one, and this store's own (cursors
    /// issued here before the shared store was set, or while it was unreachable).
    fn verifying_secrets(&self) -> Vec<&[u8; 32]> {
        self.shared_secret()
            .into_iter()
            .chain(std::iter::once(&self.secret))
            .collect()
    }
}
