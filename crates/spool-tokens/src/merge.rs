//! One piece into tokens: tiktoken's byte-pair merge, the pair of lowest rank merged first (the
//! leftmost among equals), until no pair is a token. Pieces under 100 bytes merge in a list, as
//! tiktoken merges them; longer ones through a heap, as tiktoken does, so the results agree
//! token for token.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::vocab::rank;

const NONE: u32 = u32::MAX;

/// Calls `end` with the end of each token of `piece` (offsets into it), in order.
pub fn each_token_end(piece: &[u8], mut end: impl FnMut(usize)) {
    if piece.len() <= 1 || rank(piece).is_some() {
        end(piece.len());
        return;
    }
    if piece.len() < 100 {
        let parts = merge_small(piece);
        for p in &parts[1..] {
            end(p.0);
        }
    } else {
        for e in merge_large(piece) {
            end(e);
        }
    }
}

/// tiktoken's `_byte_pair_merge`: `(start, rank of the pair starting here)` of each part, and a
/// last one at the end.
fn merge_small(piece: &[u8]) -> Vec<(usize, u32)> {
    let pair = |a: usize, b: usize| rank(&piece[a..b]).unwrap_or(NONE);
    let mut parts: Vec<(usize, u32)> = Vec::with_capacity(piece.len() + 1);
    let mut min = (NONE, usize::MAX);
    for i in 0..piece.len() - 1 {
        let r = pair(i, i + 2);
        if r < min.0 {
            min = (r, i);
        }
        parts.push((i, r));
    }
    parts.push((piece.len() - 1, NONE));
    parts.push((piece.len(), NONE));
    // The rank of the part starting at `i` merged with the next, once the one after it is
    // gone (so it spans to `parts[i + 3]`).
    let spanning = |parts: &[(usize, u32)], i: usize| {
        if i + 3 < parts.len() {
            pair(parts[i].0, parts[i + 3].0)
        } else {
            NONE
        }
    };
    while min.0 != NONE {
        let i = min.1;
        if i > 0 {
            parts[i - 1].1 = spanning(&parts, i - 1);
        }
        parts[i].1 = spanning(&parts, i);
        parts.remove(i + 1);
        min = (NONE, usize::MAX);
        for (i, &(_, r)) in parts[..parts.len() - 1].iter().enumerate() {
            if r < min.0 {
                min = (r, i);
            }
        }
    }
    parts
}

/// tiktoken's `_byte_pair_merge_large`: the same merges through a heap; the token ends.
fn merge_large(piece: &[u8]) -> Vec<usize> {
    struct Part {
        /// Where this part ends, and where the part after it ends.
        end: usize,
        next_end: usize,
        /// The rank of this part merged with the next (`NONE`: not a token).
        next_rank: u32,
        /// The start of the part before.
        prev: usize,
    }
    let pair = |a: usize, b: usize| rank(&piece[a..b]).unwrap_or(NONE);
    let mut parts: Vec<Part> = (0..piece.len())
        .map(|i| Part {
            end: i + 1,
            next_end: i + 2,
            next_rank: NONE,
            prev: i.wrapping_sub(1),
        })
        .collect();
    // Lowest rank first, then the leftmost start.
    let mut heap: BinaryHeap<Reverse<(u32, usize)>> = BinaryHeap::with_capacity(piece.len());
    for (i, part) in parts.iter_mut().enumerate().take(piece.len() - 1) {
        let r = pair(i, i + 2);
        if r != NONE {
            heap.push(Reverse((r, i)));
            part.next_rank = r;
        }
    }
    let potential = |parts: &mut Vec<Part>,
                     heap: &mut BinaryHeap<Reverse<(u32, usize)>>,
                     start: usize,
                     next_end: usize| {
        parts[start].next_end = next_end;
        parts[start].next_rank = NONE;
        if next_end <= piece.len() {
            let r = pair(start, next_end);
            if r != NONE {
                heap.push(Reverse((r, start)));
                parts[start].next_rank = r;
            }
        }
    };
    while let Some(Reverse((r, left))) = heap.pop() {
        if r != parts[left].next_rank {
            continue; // merged away since it was pushed
        }
        let right = parts[left].end;
        let right_end = parts[left].next_end;
        let right_next_end = parts[right].next_end;
        parts[left].end = right_end;
        potential(&mut parts, &mut heap, left, right_next_end);
        if right_end < parts.len() {
            parts[right_end].prev = left;
        }
        if left > 0 {
            let prev = parts[left].prev;
            potential(&mut parts, &mut heap, prev, right_end);
        }
        parts[right].next_rank = NONE;
    }
    let mut ends = Vec::new();
    let mut i = 0;
    while i < piece.len() {
        i = parts[i].end;
        ends.push(i);
    }
    ends
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ends(piece: &[u8]) -> Vec<usize> {
        let mut out = Vec::new();
        each_token_end(piece, |e| out.push(e));
        out
    }

    #[test]
    fn a_piece_in_the_vocabulary_is_one_token_and_others_merge() {
        assert_eq!(ends(b" hello"), [6]);
        assert_eq!(ends(b"x"), [1]);
        let e = ends(b"zqxjzqxjzqxj");
        assert_eq!(*e.last().unwrap(), 12);
        assert!(e.len() > 1);
    }

    #[test]
    fn the_heap_and_the_list_agree() {
        let text: Vec<u8> = (0..400u32)
            .map(|i| b"aZq9x_-.~ \t"[(i * 7 + i / 3) as usize % 11])
            .collect();
        for len in [2, 5, 17, 64, 99] {
            let piece = &text[..len];
            if rank(piece).is_some() {
                continue;
            }
            let small: Vec<usize> = merge_small(piece)[1..].iter().map(|p| p.0).collect();
            assert_eq!(
                small,
                merge_large(piece),
                "{:?}",
                String::from_utf8_lossy(piece)
            );
        }
    }
}
