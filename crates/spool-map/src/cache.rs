//! What a file's parse gave, kept by the hash of its content (and its language and the format
//! of what is kept), so a second map of the same tree parses nothing, and a map of a changed
//! tree parses only what changed. One `SQLite` file beside the store's metadata; rows not used
//! for 30 days are dropped after a map is built.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension as _, params};
use spool_core::{Error, Result};

use crate::lang::Lang;
use crate::tags::{FileTags, TAGS_FORMAT};

/// Its file name: a new format gets a new file, not a migration.
const FILE: &str = "map-tags-v1.sqlite";
/// Rows unused this long are dropped.
const KEEP_UNUSED_MS: i64 = 30 * 24 * 3600 * 1000;

/// The parse cache of one store.
pub struct Cache {
    conn: Connection,
    path: PathBuf,
    now_ms: i64,
}

/// What is kept of a file's tags.
pub fn encode(tags: &FileTags) -> Vec<u8> {
    serde_json::to_vec(tags).unwrap_or_default()
}

/// The key of a file's tags: its language, the format kept and the query that found them (an
/// edited query parses every file again), and its content's hash.
pub fn key(lang: Lang, content: &[u8]) -> String {
    let hash = twox_hash::XxHash3_128::oneshot(content);
    let query = twox_hash::XxHash3_64::oneshot(lang.query_source().as_bytes());
    format!("{}:{TAGS_FORMAT}:{query:016x}:{hash:032x}", lang.name())
}

impl Cache {
    /// Opens (or makes) the cache in `dir`, the store's folder.
    pub fn open(dir: &Path) -> Result<Self> {
        let path = dir.join(FILE);
        let failed = |e: rusqlite::Error| Error::Unavailable {
            what: "the map's parse cache".into(),
            cause: format!("{}: {e}", path.display()),
        };
        let conn = Connection::open(&path).map_err(failed)?;
        let setup = || -> rusqlite::Result<()> {
            conn.busy_timeout(Duration::from_secs(30))?;
            conn.pragma_update(None, "journal_mode", "WAL")?;
            conn.pragma_update(None, "synchronous", "NORMAL")?;
            conn.execute_batch(
                "CREATE TABLE IF NOT EXISTS tags (
                    key TEXT PRIMARY KEY,
                    tags BLOB NOT NULL,
                    used_at INTEGER NOT NULL
                 ) WITHOUT ROWID;",
            )
        };
        setup().map_err(failed)?;
        // What code defines is the user's alone, as the store's own files are.
        for suffix in ["", "-wal", "-shm"] {
            let file = dir.join(format!("{FILE}{suffix}"));
            let _ = std::fs::set_permissions(
                &file,
                std::os::unix::fs::PermissionsExt::from_mode(0o600),
            );
        }
        Ok(Self {
            conn,
            path,
            now_ms: spool_core::clock::now_ms(),
        })
    }

    fn failed(&self, e: &rusqlite::Error) -> Error {
        Error::Unavailable {
            what: "the map's parse cache".into(),
            cause: format!("{}: {e}", self.path.display()),
        }
    }

    /// The tags kept under `key`, marking them used; `None` when there are none, or when what
    /// is kept does not read (it is then parsed again).
    pub fn get(&self, key: &str) -> Result<Option<FileTags>> {
        let blob: Option<Vec<u8>> = self
            .conn
            .prepare_cached("SELECT tags FROM tags WHERE key = ?1")
            .and_then(|mut s| s.query_row([key], |r| r.get(0)).optional())
            .map_err(|e| self.failed(&e))?;
        let Some(blob) = blob else { return Ok(None) };
        // Marked used at most once a day: a map of a large tree writes little.
        self.conn
            .prepare_cached("UPDATE tags SET used_at = ?2 WHERE key = ?1 AND used_at < ?3")
            .and_then(|mut s| s.execute(params![key, self.now_ms, self.now_ms - 86_400_000]))
            .map_err(|e| self.failed(&e))?;
        Ok(serde_json::from_slice(&blob).ok())
    }

    /// Keeps each `(key, tags)` in one short transaction: another process mapping into the same
    /// store waits a moment for it, not for a whole map.
    pub fn put_many(&self, rows: &[(String, Vec<u8>)]) -> Result<()> {
        let write = || -> rusqlite::Result<()> {
            self.conn.execute_batch("BEGIN IMMEDIATE")?;
            let mut insert = self.conn.prepare_cached(
                "INSERT OR REPLACE INTO tags (key, tags, used_at) VALUES (?1, ?2, ?3)",
            )?;
            for (key, blob) in rows {
                if let Err(e) = insert.execute(params![key, blob, self.now_ms]) {
                    drop(insert);
                    let _ = self.conn.execute_batch("ROLLBACK");
                    return Err(e);
                }
            }
            drop(insert);
            self.conn.execute_batch("COMMIT")
        };
        write().map_err(|e| self.failed(&e))
    }

    /// Drops rows not used for a while.
    pub fn trim(&self) -> Result<()> {
        self.conn
            .execute(
                "DELETE FROM tags WHERE used_at < ?1",
                [self.now_ms - KEEP_UNUSED_MS],
            )
            .map_err(|e| self.failed(&e))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_come_back_by_content_and_language() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let tags = FileTags {
            refs: vec![("Store".into(), 2)],
            ..FileTags::default()
        };
        let k = key(Lang::Rust, b"fn main() {}");
        assert_eq!(cache.get(&k).unwrap(), None);
        cache.put_many(&[(k.clone(), encode(&tags))]).unwrap();
        assert_eq!(cache.get(&k).unwrap(), Some(tags));
        assert_ne!(k, key(Lang::C, b"fn main() {}"));
        assert_ne!(k, key(Lang::Rust, b"fn main() { }"));
        // Another process opening the same cache sees it.
        let again = Cache::open(dir.path()).unwrap();
        assert!(again.get(&k).unwrap().is_some());
    }
}
