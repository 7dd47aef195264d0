//! The artifacts table: its schema, saving, loading, listing, and recovery of dead captures.

use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use super::Store;
use super::meta::ArtifactMeta;
use crate::clock;
use crate::envelope::{ArtifactState, SourceKind};
use crate::error::{Error, Result};

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS artifacts (
    ref TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    source TEXT NOT NULL,
    redo TEXT,
    state TEXT NOT NULL,
    bytes INTEGER NOT NULL DEFAULT 0,
    lines INTEGER NOT NULL DEFAULT 0,
    chars INTEGER NOT NULL DEFAULT 0,
    tokens INTEGER,
    tokens_estimated INTEGER NOT NULL DEFAULT 0,
    binary INTEGER NOT NULL DEFAULT 0,
    hash TEXT,
    preview TEXT NOT NULL,
    capture_detail TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    last_read_at INTEGER NOT NULL,
    owner_pid INTEGER,
    dedup_key TEXT,
    made_by TEXT,
    evicted_at INTEGER
);
CREATE INDEX IF NOT EXISTS artifacts_created ON artifacts(created_at DESC, ref DESC);
CREATE INDEX IF NOT EXISTS artifacts_lru ON artifacts(last_read_at);
CREATE INDEX IF NOT EXISTS artifacts_dedup ON artifacts(dedup_key);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at INTEGER NOT NULL,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    ref TEXT,
    total TEXT,
    delivered TEXT NOT NULL,
    complete INTEGER NOT NULL,
    reason TEXT,
    duration_ms INTEGER NOT NULL,
    made_by TEXT
);
CREATE INDEX IF NOT EXISTS audit_ref ON audit(ref, id);
CREATE TABLE IF NOT EXISTS audit_shipped (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    last_id INTEGER NOT NULL
);
";

/// Columns added after the first schema (table, column, type): a store made by an earlier
/// version gains them. An audit row's `made_by` is the process that gave the answer.
const ADDED_COLUMNS: [(&str, &str, &str); 4] = [
    ("artifacts", "made_by", "TEXT"),
    ("artifacts", "evicted_at", "INTEGER"),
    ("audit", "made_by", "TEXT"),
    ("artifacts", "content_key", "TEXT"),
];

/// Brings a store made by an earlier version up to this schema.
pub(super) fn migrate(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    for (table, name, kind) in ADDED_COLUMNS {
        let has = conn
            .prepare("SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2")?
            .exists([table, name])?;
        if has {
            continue;
        }
        // Another process opening the store may add it first: that is success too.
        match conn.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {name} {kind}")) {
            Err(e) if e.to_string().contains("duplicate column") => {}
            other => other?,
        }
    }
    // (Indexes on added columns: a store made before them has no such column until now.)
    conn.execute_batch(
        "CREATE INDEX IF NOT EXISTS artifacts_content ON artifacts(content_key)
         WHERE content_key IS NOT NULL",
    )
}

fn to_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

fn insert_meta(conn: &rusqlite::Connection, m: &ArtifactMeta) -> Result<()> {
    conn.execute(
        "INSERT OR REPLACE INTO artifacts (ref, kind, source, redo, state, bytes, lines, chars,
            tokens, tokens_estimated, binary, hash, preview, capture_detail, created_at,
            expires_at, last_read_at, owner_pid, dedup_key, made_by, evicted_at, content_key)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
        params![
            m.reference,
            m.source.kind().as_str(),
            to_json(&m.source),
            m.redo.as_ref().map(to_json),
            m.state.as_str(),
            m.bytes as i64,
            m.lines as i64,
            m.chars as i64,
            m.tokens.map(|t| t as i64),
            m.tokens_estimated,
            m.binary,
            m.hash,
            m.preview.as_str(),
            m.capture_detail,
            m.created_at,
            m.expires_at,
            m.last_read_at,
            m.owner_pid,
            m.dedup_key,
            m.made_by,
            m.evicted_at,
            m.content_key,
        ],
    )?;
    Ok(())
}

impl Store {
    pub(crate) fn save_meta(&self, m: &ArtifactMeta) -> Result<()> {
        insert_meta(&self.conn(), m)
    }

    /// As [`Self::save_meta`], the log synced before it returns: a sealed artifact's row is on
    /// the disk before the answer that names it is given (the store does not sync its log at
    /// other commits, nor on close: see [`Store::open`]).
    pub(crate) fn save_meta_synced(&self, m: &ArtifactMeta) -> Result<()> {
        let conn = self.conn();
        conn.pragma_update(None, "synchronous", "FULL")?;
        let saved = insert_meta(&conn, m);
        let normal = conn.pragma_update(None, "synchronous", "NORMAL");
        saved?;
        Ok(normal?)
    }

    /// The row as stored, whatever its state.
    pub fn meta(&self, reference: &str) -> Result<ArtifactMeta> {
        self.conn()
            .query_row(
                "SELECT * FROM artifacts WHERE ref = ?1",
                [reference],
                ArtifactMeta::from_row,
            )
            .optional()?
            .ok_or_else(|| Error::NotFound {
                reference: reference.to_owned(),
            })
    }

    /// The row of an artifact whose content can be read: expired ones answer `expired`, dead
    /// captures are recovered as `interrupted`, live ones answer `capturing`.
    pub(crate) fn live_meta(&self, reference: &str) -> Result<ArtifactMeta> {
        if !crate::refs::looks_like_ref(reference) {
            return Err(Error::NotFound {
                reference: reference.to_owned(),
            });
        }
        let mut meta = match self.meta(reference) {
            Err(Error::NotFound { .. }) => match self.adopt_remote(reference)? {
                Some(meta) => meta,
                None => {
                    return Err(Error::NotFound {
                        reference: reference.to_owned(),
                    });
                }
            },
            other => other?,
        };
        // Before anything about it is said, even that it expired.
        if !self.may_read(&meta)? {
            return Err(Error::NotYours {
                reference: reference.to_owned(),
            });
        }
        if meta.state != ArtifactState::Expired && meta.expires_at <= clock::now_ms() {
            // Being read right now: served this once more, expired by a later pass.
            let _ = self.expire(&mut meta, false)?;
        }
        // Still being written on another machine (or seen stopped, which may have been a slow
        // writer): what the shared store holds now.
        let elsewhere = matches!(
            meta.state,
            ArtifactState::Capturing | ArtifactState::Interrupted
        ) && self.is_read_through(reference)?;
        if elsewhere {
            meta = match self.refresh_remote(meta.clone()) {
                Ok(fresh) => fresh,
                Err(e) => {
                    // The bytes already here still read; the answer says more may exist.
                    tracing::warn!(reference, error = %e, "could not look for more of a growing copy");
                    meta.capture_detail = Some(format!(
                        "{}; the shared store could not be asked for more: {e}",
                        meta.capture_detail
                            .as_deref()
                            .unwrap_or("still being captured on another machine")
                    ));
                    meta
                }
            };
        }
        match meta.state {
            ArtifactState::Expired => Err(expired_error(&meta)),
            ArtifactState::Capturing if elsewhere => Ok(meta),
            ArtifactState::Capturing if super::recovery::owner_alive(meta.owner_pid) => {
                Err(Error::Capturing {
                    reference: meta.reference.clone(),
                    bytes: std::fs::metadata(self.partial_path(reference)).map_or(0, |m| m.len()),
                })
            }
            ArtifactState::Capturing => self.recover(&meta),
            _ => Ok(meta),
        }
    }

    /// The newest live copy with this dedup key that this process may read (another
    /// process's copy it may not read is made again, not reused).
    pub fn find_by_dedup(&self, key: &str) -> Result<Option<ArtifactMeta>> {
        self.find_live(
            "SELECT * FROM artifacts WHERE dedup_key = ?1 AND state = 'complete' AND expires_at > ?2
             ORDER BY created_at DESC LIMIT 16",
            key,
        )
    }

    /// As [`Self::find_by_dedup`], by content key (see [`ArtifactMeta::content_key`]).
    pub fn find_by_content(&self, key: &str) -> Result<Option<ArtifactMeta>> {
        self.find_live(
            "SELECT * FROM artifacts WHERE content_key = ?1 AND state = 'complete' AND expires_at > ?2
             ORDER BY created_at DESC LIMIT 16",
            key,
        )
    }

    /// The first row `query` (over a key and the time now) finds that this process may read.
    fn find_live(&self, query: &str, key: &str) -> Result<Option<ArtifactMeta>> {
        let found: Vec<ArtifactMeta> = {
            let conn = self.conn();
            let mut stmt = conn.prepare(query)?;
            stmt.query_map(params![key, clock::now_ms()], ArtifactMeta::from_row)?
                .collect::<rusqlite::Result<_>>()?
        };
        for meta in found {
            if self.may_read(&meta)? {
                return Ok(Some(meta));
            }
        }
        Ok(None)
    }

    /// Whether a complete, unexpired artifact has a dedup key starting with `prefix`.
    pub(crate) fn has_dedup_prefix(&self, prefix: &str) -> Result<bool> {
        // A range on the indexed key: every string that starts with `prefix` sorts in it.
        let end = format!("{prefix}\u{10FFFF}");
        let found: Option<i64> = self
            .conn()
            .query_row(
                "SELECT 1 FROM artifacts WHERE dedup_key >= ?1 AND dedup_key < ?2
                 AND state = 'complete' AND expires_at > ?3 LIMIT 1",
                params![prefix, end, clock::now_ms()],
                |row| row.get(0),
            )
            .optional()?;
        Ok(found.is_some())
    }

    /// Whether this process may read `meta` (always, unless it was confined).
    pub fn may_read(&self, meta: &ArtifactMeta) -> Result<bool> {
        let Some(access) = self.access() else {
            return Ok(true);
        };
        let file = meta
            .source
            .version
            .file()
            .map(|f| std::path::Path::new(&f.path));
        let made_here = !self.is_read_through(&meta.reference)?;
        Ok(access.allows(meta.made_by.as_deref(), made_here, file))
    }

    pub(crate) fn touch(&self, reference: &str) -> Result<()> {
        self.conn().execute(
            "UPDATE artifacts SET last_read_at = ?2 WHERE ref = ?1",
            params![reference, clock::now_ms()],
        )?;
        Ok(())
    }

    /// Artifacts, newest first, after the keyset position `after` (`created_at`, `ref`).
    pub fn list(
        &self,
        kind: Option<SourceKind>,
        after: Option<(i64, String)>,
        limit: usize,
    ) -> Result<Vec<ArtifactMeta>> {
        let (at, reference) = after.unwrap_or((i64::MAX, String::new()));
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT * FROM artifacts
             WHERE (?1 IS NULL OR kind = ?1)
               AND (created_at < ?2 OR (created_at = ?2 AND (?3 = '' OR ref < ?3)))
             ORDER BY created_at DESC, ref DESC LIMIT ?4",
        )?;
        let rows = stmt.query_map(
            params![kind.map(SourceKind::as_str), at, reference, limit as i64],
            ArtifactMeta::from_row,
        )?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }
}

/// The `expired` answer for an artifact: what it was and how to make it again.
pub fn expired_error(meta: &ArtifactMeta) -> Error {
    let what = crate::in_words::describe_source(&meta.source);
    Error::Expired {
        reference: meta.reference.clone(),
        what,
        redo: meta.redo.clone().map(Box::new),
        evicted_at: meta.evicted_at.map(clock::rfc3339),
        source_json: serde_json::json!({
            "source": meta.source,
            "total": meta.totals(),
            "created_at": clock::rfc3339(meta.created_at),
            "expired_at": clock::rfc3339(meta.evicted_at.unwrap_or(meta.expires_at.min(clock::now_ms()))),
            "evicted": meta.evicted_at.is_some(),
        }),
    }
}
