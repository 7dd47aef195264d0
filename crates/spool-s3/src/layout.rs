//! The manifest: what an artifact is, how far it got, and the hash of every chunk.

use serde::{Deserialize, Serialize};
use spool_core::Preview;
use spool_core::envelope::{ArtifactState, NextCall, Source};
use spool_core::store::ArtifactMeta;

/// One content chunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkInfo {
    pub bytes: u64,
    /// xxh3-128 of the chunk, hex.
    pub xxh3: String,
}

/// The growing end of an artifact still being captured: the bytes after its last full chunk,
/// under a name of their own (`tail-BYTES`), so a reader holding an older manifest never gets
/// different bytes under the name it was given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TailInfo {
    pub name: String,
    pub bytes: u64,
    pub xxh3: String,
}

/// `manifest.json`, format 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    #[serde(rename = "ref")]
    pub reference: String,
    pub source: Source,
    pub state: ArtifactState,
    pub bytes: u64,
    pub lines: u64,
    pub chars: u64,
    pub tokens: Option<u64>,
    pub tokens_estimated: bool,
    pub binary: bool,
    /// xxh3-128 of the whole content, as the local store keeps it.
    pub hash: Option<String>,
    pub created_at: i64,
    pub expires_at: i64,
    /// The call that produces a fresh copy.
    #[serde(default)]
    pub redo: Option<NextCall>,
    /// The preview a plain read gets: `head`, `tail` or `head_tail`.
    pub preview: String,
    #[serde(default)]
    pub capture_detail: Option<String>,
    pub chunk_size: u64,
    pub chunks: Vec<ChunkInfo>,
    /// While `capturing`: the bytes after the last full chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<TailInfo>,
    /// The principal of the process that made it: servers on other machines answer from it
    /// only when they trust that principal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub made_by: Option<String>,
    /// When the writing process last wrote this manifest (ms since the epoch): a capture
    /// whose manifest stops changing is one whose machine stopped.
    #[serde(default)]
    pub updated_at: Option<i64>,
}

impl Manifest {
    pub fn of(meta: &ArtifactMeta, chunk_size: u64, chunks: Vec<ChunkInfo>) -> Self {
        Self {
            format: 1,
            reference: meta.reference.clone(),
            source: meta.source.clone(),
            state: meta.state,
            bytes: meta.bytes,
            lines: meta.lines,
            chars: meta.chars,
            tokens: meta.tokens,
            tokens_estimated: meta.tokens_estimated,
            binary: meta.binary,
            hash: meta.hash.clone(),
            created_at: meta.created_at,
            expires_at: meta.expires_at,
            redo: meta.redo.clone(),
            preview: meta.preview.as_str().to_owned(),
            capture_detail: meta.capture_detail.clone(),
            chunk_size,
            chunks,
            tail: None,
            made_by: meta.made_by.clone(),
            updated_at: Some(spool_core::clock::now_ms()),
        }
    }

    /// The local store's row for this artifact, read through from the shared store. A capture
    /// whose manifest has not changed for `stale_after` reads as `interrupted`.
    /// `modified_ms` is when the bucket stored the manifest (its clock, not the writer's).
    pub fn to_meta(
        &self,
        stale_after: std::time::Duration,
        modified_ms: Option<i64>,
    ) -> ArtifactMeta {
        let now = spool_core::clock::now_ms();
        let (state, capture_detail) = match self.state {
            ArtifactState::Capturing => {
                let updated = modified_ms.or(self.updated_at).unwrap_or(self.created_at);
                let stored = spool_core::render::human_bytes(self.bytes);
                let at = spool_core::clock::rfc3339(updated);
                if now.saturating_sub(updated)
                    > i64::try_from(stale_after.as_millis()).unwrap_or(i64::MAX)
                {
                    (
                        ArtifactState::Interrupted,
                        Some(format!(
                            "the machine capturing it stopped updating the shared store at {at}; {stored} had been stored"
                        )),
                    )
                } else {
                    (
                        ArtifactState::Capturing,
                        Some(format!(
                            "still being captured on another machine: {stored} stored so far (at {at}); read again for more"
                        )),
                    )
                }
            }
            state => (state, self.capture_detail.clone()),
        };
        ArtifactMeta {
            reference: self.reference.clone(),
            source: self.source.clone(),
            redo: self.redo.clone(),
            state,
            bytes: self.bytes,
            lines: self.lines,
            chars: self.chars,
            tokens: self.tokens,
            tokens_estimated: self.tokens_estimated,
            binary: self.binary,
            hash: self.hash.clone(),
            preview: Preview::parse(&self.preview).unwrap_or(Preview::Head),
            capture_detail,
            created_at: self.created_at,
            expires_at: self.expires_at,
            last_read_at: spool_core::clock::now_ms(),
            owner_pid: None,
            dedup_key: None,
            content_key: None,
            made_by: self.made_by.clone(),
            evicted_at: None,
            share_failure: None,
        }
    }
}

pub fn hash(bytes: &[u8]) -> String {
    format!("{:032x}", twox_hash::XxHash3_128::oneshot(bytes))
}

pub fn chunk_name(n: usize) -> String {
    format!("chunk-{n:06}")
}

pub fn tail_name(bytes: u64) -> String {
    format!("tail-{bytes:012}")
}
