//! What the store knows of an artifact: its metadata, the summary `artifacts` lists, and what
//! a new capture starts from. The table they are kept in is `rows.rs`.

use std::time::Duration;

use rusqlite::Row;
use serde::Serialize;

use crate::clock;
use crate::envelope::Preview;
use crate::envelope::{ArtifactState, NextCall, Source, SourceKind, Totals};
use crate::error::Result;

/// One artifact as `artifacts` lists it (CONTRACT.md: `ref`, `source`, `total`, `created_at`,
/// `expires_at`, `state`, and how a copy that is not whole ended).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
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
            // A CI log is read as a log: its end says how the job ended.
            SourceKind::Ci => Preview::Tail,
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
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
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
    /// Finds this copy again by what it holds when its dedup key no longer matches (a file
    /// git says is the blob it was, rewritten since with new times).
    #[serde(skip)]
    pub content_key: Option<String>,
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
            content_key: None,
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
            source: self.source.shown(),
            total: self.totals(),
            created_at: clock::rfc3339(self.created_at),
            expires_at: clock::rfc3339(self.expires_at),
            state: self.state,
            detail: self.capture_detail.clone(),
        }
    }

    pub(super) fn from_row(row: &Row<'_>) -> rusqlite::Result<Self> {
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
            content_key: row.get("content_key")?,
            made_by: row.get("made_by")?,
            evicted_at: row.get("evicted_at")?,
            share_failure: None,
        })
    }
}
