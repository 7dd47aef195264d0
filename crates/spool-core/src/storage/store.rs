//! The embedded store: artifact content on disk, metadata and audit in `SQLite`.
//!
//! Layout under `SPOOL_HOME`:
//!
//! ```text
//! store-v1/
//!   meta.sqlite          artifacts, audit (WAL)
//!   secret               key that signs cursors (0600)
//!   content/REF          the bytes, exactly as produced
//!   content/REF.idx      line index (see `index`)
//!   content/REF.streams  for commands: where stdout and stderr runs start
//!   content/REF.partial  content still being written
//! ```
//!
//! A new on-disk format gets a new folder name rather than a migration.

mod checked_range;
mod gc;
pub mod index;
mod limit;
pub mod meta;
mod orphans;
mod pin;
mod read_through;
mod reader;
mod recovery;
pub mod remote;
mod rows;
mod scan;
mod sums;
mod trash;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::Connection;

pub use gc::GcReport;
pub use limit::{CaptureLimit, DEFAULT_CAPTURE_LIMIT, LimitBy};
pub use meta::{ArtifactMeta, ArtifactSummary, NewArtifact};
pub use reader::ArtifactReader;
pub use remote::{Progress, Remote, RemoteArtifact, SharedGc, Upload};
pub use rows::expired_error;
pub(crate) use sums::ChunkSums;
pub use writer::{ArtifactWriter, Stream};

use crate::error::{Error, Result};

const FORMAT_DIR: &str = "store-v1";

/// Limits that govern expiry.
#[derive(Debug, Clone, Copy)]
pub struct StoreConfig {
    /// How long an artifact lives after it is created.
    pub ttl: Duration,
    /// Total content bytes kept before the least recently read artifacts are evicted.
    pub quota_bytes: u64,
    /// The most one capture keeps, never more than the disk has free (see `store::limit`).
    /// Unset: 512 MiB, and at most half the quota.
    pub capture_limit_bytes: Option<u64>,
    /// Bytes of read-through copies (chunks fetched from a shared store) kept before the least
    /// recently read copies are dropped (they are fetched again when next read).
    pub cache_bytes: u64,
    /// How long a copy just made or just read is never evicted for space, beside its pin (see
    /// `store::pin`): none by default, as a pin protects a copy while its answer is built; a
    /// store shared with older spool processes, which do not pin, may want a few seconds.
    pub eviction_grace: Duration,
}

impl Default for StoreConfig {
    fn default() -> Self {
        Self {
            ttl: Duration::from_hours(7 * 24),
            quota_bytes: 2 << 30,
            capture_limit_bytes: None,
            cache_bytes: 1 << 30,
            eviction_grace: Duration::ZERO,
        }
    }
}

/// The local artifact store. Safe to share between threads; several processes may use one
/// store at once.
pub struct Store {
    root: PathBuf,
    conn: Mutex<Connection>,
    secret: [u8; 32],
    config: StoreConfig,
    /// The shared store behind this one, if any.
    remote: std::sync::OnceLock<std::sync::Arc<dyn Remote>>,
    /// The shared store's cursor key, fetched once on first use (`None`: it was unreachable).
    shared_secret: std::sync::OnceLock<[u8; 32]>,
    /// When to ask the shared store for its key again after it could not be reached (ms).
    shared_secret_retry_at: std::sync::atomic::AtomicI64,
    /// Who this process is: stamped on every artifact it makes (`local` unless set).
    principal: std::sync::OnceLock<String>,
    /// Which artifacts this process may answer from (every one unless set).
    access: std::sync::OnceLock<crate::access::Access>,
    /// Copies just made, kept from eviction until their answer opens them.
    pins: pin::Pins,
}

impl Drop for Store {
    /// Empties the metadata's log when it is longer than [`Store::LOG_PAGES`]. A process that
    /// opens the store reads the log back and counts none of it as checkpointed: when the
    /// commit that passed the limit was its last, the next process checkpointed the whole log
    /// again at its own commit and appended to it, and a run of calls that commit once each
    /// (an error's audit row, a read's time) grew the log without end. Never waits: a reader
    /// elsewhere (a server) leaves it for a later close.
    fn drop(&mut self) {
        // Most closes find the log shorter than the limit at SQLite's smallest page (512
        // bytes): SQLite is asked its page size only when it could be longer.
        let Ok(log) = std::fs::metadata(self.root.join("meta.sqlite-wal")) else {
            return;
        };
        if log.len() <= (Self::LOG_PAGES * 512).unsigned_abs() {
            return;
        }
        let conn = self.conn();
        let page = conn
            .pragma_query_value(None, "page_size", |row| row.get::<_, i64>(0))
            .unwrap_or(4096);
        let longer = log.len() > (Self::LOG_PAGES * page).unsigned_abs();
        if longer && conn.busy_timeout(Duration::ZERO).is_ok() {
            // Reports its outcome as a row; busy or not, the close goes on.
            let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        }
    }
}

impl Store {
    /// The store's home: `SPOOL_HOME`, or the platform's data directory.
    pub fn default_home() -> PathBuf {
        std::env::var_os("SPOOL_HOME").map_or_else(
            || {
                dirs::data_dir()
                    .unwrap_or_else(std::env::temp_dir)
                    .join("spool")
            },
            PathBuf::from,
        )
    }

    /// Pages the metadata's write-ahead log may hold before a commit checkpoints it (see
    /// [`Store::open`]).
    #[doc(hidden)]
    pub const LOG_PAGES: i64 = 128;

    pub fn open(home: &Path, config: StoreConfig) -> Result<Self> {
        let root = home.join(FORMAT_DIR);
        let content = root.join("content");
        let failed = |cause: String| Error::StoreOpen {
            path: home.to_owned(),
            cause,
        };
        std::fs::create_dir_all(&content).map_err(|e| failed(e.to_string()))?;
        // Command output, pages and file copies are the user's alone: the store's folders are
        // 0700 (an older store is tightened when it opens), and its files are made 0600.
        for dir in [&root, &content] {
            private_dir(dir).map_err(|e| failed(e.to_string()))?;
        }
        let db_path = root.join("meta.sqlite");
        let conn = Connection::open(&db_path).map_err(|e| failed(e.to_string()))?;
        for file in ["meta.sqlite", "meta.sqlite-wal", "meta.sqlite-shm"] {
            let _ = private_file(&root.join(file));
        }
        let setup = || -> rusqlite::Result<()> {
            conn.busy_timeout(Duration::from_secs(30))?;
            conn.pragma_update(None, "journal_mode", "WAL")?;
            conn.pragma_update(None, "synchronous", "NORMAL")?;
            // A process that closes the store leaves its log as it is. Checkpointing on close
            // made every CLI call create the log, sync its header and the folder, then sync the
            // log and the database and delete the log again: four syncs per call (a window read
            // took 9.3 ms with them and 4.9 ms without; a directory search 12-20 ms less, before
            // the sealed row's one sync below gave about 2 ms of that back).
            // What a call commits outlives it as before, with one sync: a sealed artifact's
            // row is synced as it is saved (`save_meta_synced`), so the answer that names it
            // survives a power cut. Other rows (when an artifact was last read, the audit) are
            // as durable as `synchronous = NORMAL` makes them, as a server's always were: a
            // killed process loses none; a power cut may lose the last few. The next process
            // reads the log back when it opens the store, so the log is kept short: a commit
            // that leaves it over `LOG_PAGES` checkpoints it (a server now checkpoints that
            // often too, against 1,000 pages before), and a store closed with it longer
            // empties it (see `Drop`).
            conn.set_db_config(
                rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
                true,
            )?;
            conn.pragma_update(None, "wal_autocheckpoint", Self::LOG_PAGES)?;
            conn.execute_batch(rows::SCHEMA)?;
            rows::migrate(&conn)?;
            conn.execute_batch(remote::SCHEMA)
        };
        // Two processes opening a fresh store race to switch it to WAL; SQLite answers the loser
        // `locked` at once rather than through the busy handler, so retry for a while.
        let mut attempt = 0;
        while let Err(e) = setup() {
            let locked = matches!(
                e.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
            );
            attempt += 1;
            if !locked || attempt > 200 {
                return Err(failed(e.to_string()));
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        let secret = load_secret(&root.join("secret")).map_err(|e| failed(e.to_string()))?;
        Ok(Self {
            root,
            conn: Mutex::new(conn),
            secret,
            config,
            remote: std::sync::OnceLock::new(),
            shared_secret: std::sync::OnceLock::new(),
            shared_secret_retry_at: std::sync::atomic::AtomicI64::new(0),
            principal: std::sync::OnceLock::new(),
            access: std::sync::OnceLock::new(),
            pins: pin::Pins::default(),
        })
    }

    /// Names this process (once; later calls are ignored): every artifact it makes says so.
    pub fn set_principal(&self, principal: impl Into<String>) {
        let _ = self.principal.set(principal.into());
    }

    /// Who this process is (`local` unless named).
    pub fn principal(&self) -> &str {
        self.principal.get().map_or("local", String::as_str)
    }

    /// Confines this process to the artifacts `access` allows (once; later calls are ignored):
    /// a server answering agents reads only its roots' files and what it, or a process it
    /// trusts, made. Every open, search and listing goes through it.
    pub fn confine(&self, access: crate::access::Access) {
        let _ = self.access.set(access);
    }

    pub(crate) fn access(&self) -> Option<&crate::access::Access> {
        self.access.get()
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn config(&self) -> StoreConfig {
        self.config
    }

    pub(crate) fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock leaves SQLite consistent; keep serving.
        self.conn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn content_path(&self, reference: &str) -> PathBuf {
        self.root.join("content").join(reference)
    }

    /// The content file of an artifact still being written (a live upload reads it).
    pub fn partial_file(&self, reference: &str) -> PathBuf {
        self.partial_path(reference)
    }

    pub(crate) fn partial_path(&self, reference: &str) -> PathBuf {
        self.root
            .join("content")
            .join(format!("{reference}.partial"))
    }

    /// The line index file of a stored artifact (the shared store uploads it beside the content).
    pub fn index_file(&self, reference: &str) -> PathBuf {
        self.index_path(reference)
    }

    pub(crate) fn index_path(&self, reference: &str) -> PathBuf {
        self.root.join("content").join(format!("{reference}.idx"))
    }

    pub(crate) fn sums_path(&self, reference: &str) -> PathBuf {
        self.root.join("content").join(format!("{reference}.sum"))
    }

    pub(crate) fn streams_path(&self, reference: &str) -> PathBuf {
        self.root
            .join("content")
            .join(format!("{reference}.streams"))
    }

    /// The word index of an artifact (ranked search builds it on first use).
    pub(crate) fn words_path(&self, reference: &str) -> PathBuf {
        self.root.join("content").join(format!("{reference}.words"))
    }

    /// Starts a new artifact. Its row says `capturing` until the writer finishes.
    pub fn create(&self, new: NewArtifact) -> Result<ArtifactWriter<'_>> {
        let mut meta = ArtifactMeta::new(new, self.config.ttl)?;
        meta.made_by = Some(self.principal().to_owned());
        self.save_meta(&meta)?;
        // What earlier evictions left is deleted while this one is written.
        self.empty_trash_in_background();
        ArtifactWriter::new(self, meta)
    }

    /// The most a capture holding `already` bytes keeps, and what set it.
    pub fn capture_limit(&self, already: u64) -> CaptureLimit {
        CaptureLimit::now(
            &self.root,
            self.config.capture_limit_bytes,
            self.config.quota_bytes,
            already,
        )
    }

    /// Stores `bytes` whole as a finished artifact.
    pub fn put(&self, new: NewArtifact, bytes: &[u8]) -> Result<ArtifactMeta> {
        let mut writer = self.create(new)?;
        writer.write(bytes);
        writer.finish(crate::envelope::ArtifactState::Complete, None, None)
    }

    /// Opens an artifact for reading: `not_found`, `expired` and `capturing` are answered here.
    pub fn open_artifact(&self, reference: &str) -> Result<ArtifactReader> {
        let reader = self.inspect_artifact(reference)?;
        // The reader holds its own lock on the content now: the maker's pin is let go.
        self.pins.release(reference);
        self.touch(reference)?;
        Ok(reader)
    }

    /// Pins `reference` (see `store::pin`) with `lock`, a shared lock on its content.
    pub(crate) fn hold_pin(&self, reference: &str, lock: nix::fcntl::Flock<std::fs::File>) {
        self.pins.hold(reference, lock);
    }

    /// Lets go of pins held past their time.
    pub(crate) fn expire_pins(&self) {
        self.pins.expire();
    }

    /// Opens an artifact without counting it as read: looking at it (the audit) must not
    /// change which artifacts the quota evicts first.
    pub fn inspect_artifact(&self, reference: &str) -> Result<ArtifactReader> {
        let meta = self.live_meta(reference)?;
        ArtifactReader::open(self, meta)
    }

    fn remove_content(&self, reference: &str) {
        // The chunk map first: a map left beside a removed file would vouch for zeros.
        for path in [
            self.have_path(reference),
            self.sums_path(reference),
            self.index_path(reference),
            self.streams_path(reference),
            self.words_path(reference),
            self.partial_path(reference),
        ] {
            if let Err(e) = std::fs::remove_file(&path)
                && e.kind() != std::io::ErrorKind::NotFound
            {
                tracing::warn!(path = %path.display(), error = %e, "could not remove artifact content");
            }
        }
        // After the chunk map: the content itself, the large one, is deleted off this path.
        self.discard_content(&self.content_path(reference));
    }
}

fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

fn private_file(file: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o600))
}

/// A new file only its owner can read (0600), truncated if it exists.
pub(crate) fn create_private(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
}

/// A new `SQLite` database only its owner can read: the file is made 0600 before `SQLite` opens it
/// (`SQLite` would make it 0644 less the umask: a word index holds the artifact's words).
pub(crate) fn open_private_db(path: &Path) -> Result<rusqlite::Connection> {
    create_private(path).map_err(|e| Error::io(path, e))?;
    Ok(rusqlite::Connection::open(path)?)
}

fn load_secret(path: &Path) -> Result<[u8; 32]> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    if let Ok(bytes) = std::fs::read(path)
        && let Ok(secret) = <[u8; 32]>::try_from(bytes.as_slice())
    {
        return Ok(secret);
    }
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).map_err(|e| Error::Unavailable {
        what: "the system random source".into(),
        cause: e.to_string(),
    })?;
    // A name no other process or thread uses: the key is written whole before it is linked.
    let tmp = path.with_extension(format!("tmp-{}", crate::refs::new_ref()?));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(|e| Error::io(&tmp, e))?;
    file.write_all(&secret).map_err(|e| Error::io(&tmp, e))?;
    file.sync_all().map_err(|e| Error::io(&tmp, e))?;
    // Two processes racing here: the first link wins and both read the winner's key.
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    if linked.is_err() {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        return <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| Error::Corrupt {
            reference: path.display().to_string(),
            expected: "32 bytes".into(),
            actual: format!("{} bytes", bytes.len()),
        });
    }
    Ok(secret)
}
