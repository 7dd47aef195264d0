//! Artifact metadata rows: saving, loading, listing, expiry and recovery of dead captures.

use std::time::Duration;

use rusqlite::{OptionalExtension, Row, params};
use serde::Serialize;

use super::Store;
use crate::clock;
use crate::envelope::Preview;
use crate::envelope::{ArtifactState, NextCall, Source, SourceKind, Totals};
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
    duration_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_ref ON audit(ref, id);
CREATE TABLE IF NOT EXISTS audit_shipped (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    last_id INTEGER NOT NULL
);
";

/// Columns added after the first schema: a store made by an earlier version gains them.
const ADDED_COLUMNS: [(&str, &str); 2] = [("made_by", "TEXT"), ("evicted_at", "INTEGER")];

/// Brings a store made by an earlier version up to this schema.
pub(super) fn migrate(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    for (name, kind) in ADDED_COLUMNS {
        let has = conn
            .prepare("SELECT 1 FROM pragma_table_info('artifacts') WHERE name = ?1")?
            .exists([name])?;
        if has {
            continue;
        }
        // Another process opening the store may add it first: that is success too.
        match conn.execute_batch(&format!("ALTER TABLE artifacts ADD COLUMN {name} {kind}")) {
            Err(e) if e.to_string().contains("duplicate column") => {}
            other => other?,
        }
    }
    Ok(())
}

/// One artifact as `artifacts` lists it (CONTRACT.md: `ref`, `source`, `total`, `created_at`,
/// `expires_at`, `state`, and how a copy that is not whole ended).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArtifactSummary {
    #[serde(rename = "ref")]
    pub reference: String,
    pub source: Source,
    pub total: Totals,
    pub created_at: String,
    pub expires_at: String,
    pub state: ArtifactState,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// What a new artifact is, before any of its content exists.
#[derive(Debug, Clone)]
pub struct NewArtifact {
    pub source: Source,
    /// The call that produces a fresh copy (shown when the artifact has expired).
    pub redo: Option<NextCall>,
    /// The preview a plain read gets.
    pub preview: Preview,
    /// Lets a later request find this copy again (a file's path, size and mtime).
    pub dedup_key: Option<String>,
}

impl NewArtifact {
    pub fn new(source: Source) -> Self {
        let preview = match source.kind() {
            SourceKind::Exec => Preview::HeadTail,
            _ => Preview::Head,
        };
        Self {
            source,
            redo: None,
            preview,
            dedup_key: None,
        }
    }
}

/// Everything known about one artifact.
#[derive(Debug, Clone, Serialize)]
pub struct ArtifactMeta {
    #[serde(rename = "ref")]
    pub reference: String,
    pub source: Source,
    #[serde(skip)]
    pub redo: Option<NextCall>,
    pub state: ArtifactState,
    #[serde(skip)]
    pub bytes: u64,
    #[serde(skip)]
    pub lines: u64,
    #[serde(skip)]
    pub chars: u64,
    #[serde(skip)]
    pub tokens: Option<u64>,
    #[serde(skip)]
    pub tokens_estimated: bool,
    #[serde(skip)]
    pub binary: bool,
    #[serde(skip)]
    pub hash: Option<String>,
    #[serde(skip)]
    pub preview: Preview,
    #[serde(skip)]
    pub capture_detail: Option<String>,
    #[serde(skip)]
    pub created_at: i64,
    #[serde(skip)]
    pub expires_at: i64,
    #[serde(skip)]
    pub last_read_at: i64,
    #[serde(skip)]
    pub owner_pid: Option<u32>,
    #[serde(skip)]
    pub dedup_key: Option<String>,
    /// Which process made it (its principal: `cli`, `serve:ROOTS`, `wrap:COMMAND`, ...): a
    /// server answers only from what it, or a process it trusts, made (and its roots' files).
    #[serde(skip)]
    pub made_by: Option<String>,
    /// When the quota evicted it (unix ms): gone for space, not because its time ran out.
    #[serde(skip)]
    pub evicted_at: Option<i64>,
    /// Why this artifact, made here, is not in the shared store (filled in when it is opened).
    #[serde(skip)]
    pub share_failure: Option<String>,
}

impl ArtifactMeta {
    pub(super) fn new(new: NewArtifact, ttl: Duration) -> Result<Self> {
        let now = clock::now_ms();
        Ok(Self {
            reference: crate::refs::new_ref()?,
            source: new.source,
            redo: new.redo,
            state: ArtifactState::Capturing,
            bytes: 0,
            lines: 0,
            chars: 0,
            tokens: None,
            tokens_estimated: false,
            binary: false,
            hash: None,
            preview: new.preview,
            capture_detail: None,
            created_at: now,
            expires_at: now.saturating_add(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX)),
            last_read_at: now,
            owner_pid: Some(std::process::id()),
            dedup_key: new.dedup_key,
            made_by: None,
            evicted_at: None,
            share_failure: None,
        })
    }

    pub fn totals(&self) -> Totals {
        Totals {
            lines: Some(self.lines),
            chars: Some(self.chars),
            bytes: Some(self.bytes),
            tokens: self.tokens,
            tokens_estimated: self.tokens_estimated,
            items: None,
        }
    }

    /// The artifact's summary as `artifacts` lists it.
    pub fn summary(&self) -> ArtifactSummary {
        ArtifactSummary {
            reference: self.reference.clone(),
            source: self.source.clone(),
            total: self.totals(),
            created_at: clock::rfc3339(self.created_at),
            expires_at: clock::rfc3339(self.expires_at),
            state: self.state,
            detail: self.capture_detail.clone(),
        }
    }

    fn from_row(row: &Row<'_>) -> rusqlite::Result<Self> {
        let json_err = |i: usize, e: serde_json::Error| {
            rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e))
        };
        let source: String = row.get("source")?;
        let redo: Option<String> = row.get("redo")?;
        let state: String = row.get("state")?;
        let preview: String = row.get("preview")?;
        Ok(Self {
            reference: row.get("ref")?,
            source: serde_json::from_str(&source).map_err(|e| json_err(2, e))?,
            redo: redo
                .map(|r| serde_json::from_str(&r))
                .transpose()
                .map_err(|e| json_err(3, e))?,
            state: ArtifactState::parse(&state).unwrap_or(ArtifactState::Interrupted),
            bytes: row.get::<_, i64>("bytes")? as u64,
            lines: row.get::<_, i64>("lines")? as u64,
            chars: row.get::<_, i64>("chars")? as u64,
            tokens: row.get::<_, Option<i64>>("tokens")?.map(|t| t as u64),
            tokens_estimated: row.get("tokens_estimated")?,
            binary: row.get("binary")?,
            hash: row.get("hash")?,
            preview: Preview::parse(&preview).unwrap_or(Preview::Head),
            capture_detail: row.get("capture_detail")?,
            created_at: row.get("created_at")?,
            expires_at: row.get("expires_at")?,
            last_read_at: row.get("last_read_at")?,
            owner_pid: row.get("owner_pid")?,
            dedup_key: row.get("dedup_key")?,
            made_by: row.get("made_by")?,
            evicted_at: row.get("evicted_at")?,
            share_failure: None,
        })
    }
}

fn to_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

impl Store {
    pub(crate) fn save_meta(&self, m: &ArtifactMeta) -> Result<()> {
        self.conn().execute(
            "INSERT OR REPLACE INTO artifacts (ref, kind, source, redo, state, bytes, lines, chars,
                tokens, tokens_estimated, binary, hash, preview, capture_detail, created_at,
                expires_at, last_read_at, owner_pid, dedup_key, made_by, evicted_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
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
            ],
        )?;
        Ok(())
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
            ArtifactState::Capturing if owner_alive(meta.owner_pid) => Err(Error::Capturing {
                reference: meta.reference.clone(),
                bytes: std::fs::metadata(self.partial_path(reference)).map_or(0, |m| m.len()),
            }),
            ArtifactState::Capturing => self.recover(meta),
            _ => Ok(meta),
        }
    }

    /// Finds the newest live copy made under `key`.
    /// The newest live copy with this dedup key that this process may read (another
    /// process's copy it may not read is made again, not reused).
    pub fn find_by_dedup(&self, key: &str) -> Result<Option<ArtifactMeta>> {
        let found: Vec<ArtifactMeta> = {
            let conn = self.conn();
            let mut stmt = conn.prepare(
                "SELECT * FROM artifacts WHERE dedup_key = ?1 AND state = 'complete' AND expires_at > ?2
                 ORDER BY created_at DESC LIMIT 16",
            )?;
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

    /// A capture whose process died: seal what reached the disk as `cancelled`.
    fn recover(&self, meta: ArtifactMeta) -> Result<ArtifactMeta> {
        let partial = self.partial_path(&meta.reference);
        let orphan = partial.with_extension("orphan");
        match std::fs::rename(&partial, &orphan) {
            Ok(()) => {}
            // Another process is recovering it, or it was never created.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let again = self.meta(&meta.reference)?;
                if again.state != ArtifactState::Capturing {
                    return Ok(again);
                }
                // Another process is recovering it right now.
                return Err(Error::Capturing {
                    reference: meta.reference.clone(),
                    bytes: 0,
                });
            }
            Err(e) => return Err(Error::io(&partial, e)),
        }
        // What reached the disk becomes the content as it is: no copy, which a full disk (the
        // likely reason the capture stopped) could not hold.
        let writer = super::ArtifactWriter::adopt(self, meta, &orphan)?;
        writer.finish(
            ArtifactState::Cancelled,
            Some("the capturing process died (killed, or out of disk); this is what reached the disk".into()),
            None,
        )
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

fn owner_alive(pid: Option<u32>) -> bool {
    let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) else {
        return false;
    };
    if pid == std::process::id() as i32 {
        return true;
    }
    match nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None) {
        Ok(()) | Err(nix::errno::Errno::EPERM) => true,
        Err(_) => false,
    }
}

/// The `expired` answer for an artifact: what it was and how to make it again.
pub fn expired_error(meta: &ArtifactMeta) -> Error {
    let what = crate::words::describe_source(&meta.source);
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
