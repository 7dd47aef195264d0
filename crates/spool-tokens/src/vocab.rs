//! The `o200k_base` vocabulary, as `build.rs` laid it out: each ordinary token's bytes, where
//! each starts, and an open-addressing table from bytes to rank. Static data: nothing is built
//! when a process starts, and only the pages a lookup touches are read.

static BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k.bytes"));
static STARTS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k.starts"));
static SLOTS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k.slots"));

/// The table's size less one (it is a power of two).
const MASK: usize = (1 << 19) - 1;
const EMPTY: u32 = u32::MAX;

/// The hash of a token's bytes: the one `build.rs` laid the table out with.
fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The `i`th little-endian word of `table`.
fn word(table: &[u8], i: usize) -> u32 {
    table
        .get(4 * i..4 * i + 4)
        .and_then(|w| w.try_into().ok())
        .map_or(EMPTY, u32::from_le_bytes)
}

/// The bytes of the token of rank `rank`.
fn token(rank: u32) -> &'static [u8] {
    let start = word(STARTS, rank as usize) as usize;
    let end = word(STARTS, rank as usize + 1) as usize;
    BYTES.get(start..end).unwrap_or_default()
}

/// The rank of the token whose bytes are `piece`, if there is one.
pub fn rank(piece: &[u8]) -> Option<u32> {
    let mut at = (fnv(piece) as usize) & MASK;
    loop {
        let r = word(SLOTS, at);
        if r == EMPTY {
            return None;
        }
        if token(r) == piece {
            return Some(r);
        }
        at = (at + 1) & MASK;
    }
}

/// How many ordinary tokens the vocabulary holds.
#[cfg(test)]
pub fn len() -> usize {
    STARTS.len() / 4 - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_token_is_found_by_its_bytes_and_nothing_else_is() {
        assert_eq!(len(), 199_998);
        for r in [0u32, 1, 255, 256, 1000, 100_000, 199_997] {
            assert_eq!(rank(token(r)), Some(r));
        }
        assert_eq!(rank(b" hello"), Some(40617));
        assert_eq!(rank(b"no such token in the vocabulary"), None);
        assert_eq!(rank(b""), None);
    }
}
