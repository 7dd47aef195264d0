//! Token counts with the `o200k_base` encoding (the `spool-tokens` crate), and the totals of
//! artifacts.
//!
//! Only windows are tokenized. A whole artifact's token total is exact when the artifact is
//! small enough to have been counted during capture, and otherwise extrapolated from its head
//! and marked as estimated.

pub use spool_tokens::{count, prefix_bound, suffix_bound, token_ends};

/// Bytes of an artifact's head counted exactly at capture; past this the total is estimated.
pub const EXACT_TOKEN_LIMIT: usize = 256 << 10;

/// Token total of an artifact, exact or extrapolated from its counted head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenTotal {
    pub tokens: u64,
    pub estimated: bool,
}

pub fn total_from_head(head: &[u8], total_bytes: u64) -> TokenTotal {
    total_from_counted(head_tokens(head), head.len(), total_bytes)
}

/// The tokens of `head`, the first bytes of an artifact (a character cut at its end is left
/// out).
pub fn head_tokens(head: &[u8]) -> u64 {
    let tail = crate::utf8::incomplete_tail_len(head);
    count(&crate::utf8::lossy_str(&head[..head.len() - tail]))
}

/// Token total of an artifact of `total_bytes` whose first `head_len` bytes hold `counted`
/// tokens: exact when the head is all of it, else extrapolated.
pub fn total_from_counted(counted: u64, head_len: usize, total_bytes: u64) -> TokenTotal {
    if head_len as u64 >= total_bytes {
        return TokenTotal {
            tokens: counted,
            estimated: false,
        };
    }
    let per_byte = counted as f64 / head_len.max(1) as f64;
    TokenTotal {
        tokens: (per_byte * total_bytes as f64).round() as u64,
        estimated: true,
    }
}
