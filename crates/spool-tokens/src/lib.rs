//! Token counts with the `o200k_base` encoding, token for token tiktoken's (tested against
//! tiktoken-rs in `tests/it/encoder.rs`).
//!
//! The vocabulary is static data laid out at build time (`build.rs`, `vocab.rs`), ASCII is
//! split by hand (`split.rs`), and nothing is built when a process starts. tiktoken-rs builds a
//! hash map of 200,000 tokens and compiles its regex on first use, about 130 ms and 50 MiB: a
//! CLI that reads one window paid that on every call.

mod merge;
mod split;
mod vocab;

/// The `o200k_base` tokens of `text`, counted.
pub fn count(text: &str) -> u64 {
    let mut n = 0u64;
    split::each_piece(text, |piece| {
        merge::each_token_end(piece.as_bytes(), |_| n += 1);
    });
    n
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
