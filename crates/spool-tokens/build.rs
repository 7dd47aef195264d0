//! The `o200k_base` vocabulary as tables the binary carries ready to use: each token's bytes
//! (`o200k.bytes`), where each starts (`o200k.starts`), and an open-addressing hash table from
//! bytes to rank (`o200k.slots`). Made here from tiktoken-rs's own copy of the encoding, once
//! per build, so that counting tokens costs a process nothing to start (tiktoken-rs builds a
//! hash map of 200,000 entries and compiles its regex on first use: ~130 ms).

#![expect(
    clippy::expect_used,
    reason = "a build script that cannot make its tables fails the build, saying why"
)]

use std::io::Write as _;
use std::path::Path;

/// The hash table's size: a power of two, under half full.
const SLOTS: usize = 1 << 19;

/// The hash of a token's bytes; `src/vocab.rs` computes the same.
fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let bpe = tiktoken_rs::o200k_base().expect("tiktoken-rs carries o200k_base");
    let mut bytes = Vec::new();
    let mut starts: Vec<u32> = vec![0];
    // The ordinary ranks are 0..=199,997; the special tokens come after a gap.
    let mut rank = 0u32;
    while let Ok(token) = bpe.decode_bytes(&[rank]) {
        bytes.extend_from_slice(&token);
        starts.push(u32::try_from(bytes.len()).expect("the vocabulary is small"));
        rank += 1;
    }
    assert!(
        rank > 199_000,
        "o200k_base has about 200,000 ordinary tokens, got {rank}"
    );
    let mut slots = vec![u32::MAX; SLOTS];
    for r in 0..rank {
        let token = &bytes[starts[r as usize] as usize..starts[r as usize + 1] as usize];
        let mut at = (fnv(token) as usize) & (SLOTS - 1);
        while slots[at] != u32::MAX {
            at = (at + 1) & (SLOTS - 1);
        }
        slots[at] = r;
    }
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let write = |name: &str, data: &[u8]| {
        let mut f = std::fs::File::create(Path::new(&out).join(name)).expect("OUT_DIR is writable");
        f.write_all(data).expect("OUT_DIR is writable");
    };
    let le = |words: &[u32]| {
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>()
    };
    write("o200k.bytes", &bytes);
    write("o200k.starts", &le(&starts));
    write("o200k.slots", &le(&slots));
}
