//! The manifest: what an artifact is, how far it got, and the hash of every chunk.

use serde::{Deserialize, Serialize};
use spool_core::envelope::{ArtifactState, Source};
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
            chunk_size,
            chunks,
        }
    }
}

pub fn hash(bytes: &[u8]) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes))
}

pub fn chunk_name(n: usize) -> String {
    format!("chunk-{n:06}")
}
