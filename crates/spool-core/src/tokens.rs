//! Token counts with the `o200k_base` encoding.
//!
//! Only windows are tokenized. A whole artifact's token total is exact when the artifact is
//! small enough to have been counted during capture, and otherwise extrapolated from its head
//! and marked as estimated.
//!
//! The encoder is spool's own, token for token tiktoken's (tested against tiktoken-rs): the
//! vocabulary is static data laid out at build time (`build.rs`, `vocab.rs`), ASCII is split by
//! hand (`split.rs`), and nothing is built when a process starts. tiktoken-rs builds a hash
//! map of 200,000 tokens and compiles its regex on first use, about 130 ms and 50 MiB: a CLI
//! that reads one window paid that on every call.

mod merge;
mod split;
mod vocab;

/// Bytes of an artifact's head counted exactly at capture; past this the total is estimated.
pub const EXACT_TOKEN_LIMIT: usize = 256 << 10;

/// The `o200k_base` tokens of `text`, counted.
pub fn count(text: &str) -> u64 {
    let mut n = 0u64;
    split::each_piece(text, |piece| {
        merge::each_token_end(piece.as_bytes(), |_| n += 1);
    });
    n
}

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
    count(&String::from_utf8_lossy(&head[..head.len() - tail]))
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

/// Byte offsets in `text` where each token ends (so `len()` is the token count).
pub fn token_ends(text: &str) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut at = 0;
    split::each_piece(text, |piece| {
        merge::each_token_end(piece.as_bytes(), |end| ends.push(at + end));
        at += piece.len();
    });
    ends
}

/// At most how many tokens the text `text[..pos]` holds, judged from the tokens of the whole:
/// the tokens that end by `pos`, plus one for a token cut at `pos`. Re-tokenizing the prefix
/// can differ from this near the cut, so callers check the final text exactly.
pub fn prefix_bound(ends: &[usize], pos: usize) -> u64 {
    let whole = ends.partition_point(|&e| e <= pos);
    let cut = usize::from(whole > 0 && ends[whole - 1] != pos || whole == 0 && pos > 0);
    (whole + cut) as u64
}

/// At most how many tokens `text[pos..]` holds, judged the same way.
pub fn suffix_bound(ends: &[usize], pos: usize) -> u64 {
    (ends.len() - ends.partition_point(|&e| e <= pos)) as u64
}
