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
        }
    }

    /// The local store's row for this artifact, read through from the shared store.
    pub fn to_meta(&self) -> ArtifactMeta {
        ArtifactMeta {
            reference: self.reference.clone(),
            source: self.source.clone(),
            redo: self.redo.clone(),
            state: self.state,
            bytes: self.bytes,
            lines: self.lines,
            chars: self.chars,
            tokens: self.tokens,
            tokens_estimated: self.tokens_estimated,
            binary: self.binary,
            hash: self.hash.clone(),
            preview: Preview::parse(&self.preview).unwrap_or(Preview::Head),
            capture_detail: self.capture_detail.clone(),
            created_at: self.created_at,
            expires_at: self.expires_at,
            last_read_at: spool_core::clock::now_ms(),
            owner_pid: None,
            dedup_key: None,
        }
    }
}

pub fn hash(bytes: &[u8]) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes))
}

pub fn chunk_name(n: usize) -> String {
    format!("chunk-{n:06}")
}
