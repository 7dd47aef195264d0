//! A search of a stream of whole lines read in big blocks, each searched as one slice up to
//! its last newline. grep-searcher's own reader fills a 64 KiB buffer and moves what is left
//! of it to the front on every fill; over lines of ~120 KB that move, and the search for each
//! fill's last newline, took 7% of a search's time. Here a block is 256 KiB and only a
//! line's unended start is carried to the next one.

use std::io::Read;

use grep_regex::RegexMatcher;
use grep_searcher::Searcher;

use super::sink::HitSink;

/// Bytes a block holds to begin with (measured on a 256 MiB log against 128 KiB to 2 MiB:
/// bigger blocks fall out of the cache between the read and the search); it doubles while a
/// line's start leaves less than a quarter of that (64 KiB) to read into.
const BLOCK: usize = 256 << 10;

/// Searches every line of `stream` for `matcher` into `sink`, whose hits are offset from the
/// stream's first byte. Stops early once the sink has its page (a later page's search).
pub(super) fn search_in_blocks(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    mut stream: impl Read,
    sink: &mut HitSink<'_>,
) -> std::io::Result<()> {
    let mut block = vec![0u8; BLOCK];
    // Bytes at the block's front: the start of a line whose newline is not read yet.
    let mut carried = 0;
    // Where the block's first byte is in the stream.
    let mut block_start = 0u64;
    loop {
        if block.len() - carried < BLOCK / 4 {
            // A long line fills most of the block: reads of what is left would be small.
            block.resize(block.len() * 2, 0);
        }
        let read = read_some(&mut stream, &mut block[carried..])?;
        if read == 0 {
            // The last line, if the stream does not end with a newline.
            if carried > 0 {
                sink.shift_to(block_start);
                searcher.search_slice(matcher, &block[..carried], &mut *sink)?;
            }
            return Ok(());
        }
        let filled = carried + read;
        // Only the new bytes can hold a newline: the carried ones had none.
        let Some(last) = memchr::memrchr(b'\n', &block[carried..filled]) else {
            carried = filled;
            continue;
        };
        let lines_end = carried + last + 1;
        sink.shift_to(block_start);
        searcher.search_slice(matcher, &block[..lines_end], &mut *sink)?;
        if sink.has_its_page() {
            return Ok(());
        }
        block.copy_within(lines_end..filled, 0);
        carried = filled - lines_end;
        block_start += lines_end as u64;
    }
}

/// One read, retried when a signal interrupts it.
fn read_some(stream: &mut impl Read, into: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match stream.read(into) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Paging;

    /// Reads at most `step` bytes at a time, and is interrupted before every third read.
    struct Trickle {
        bytes: Vec<u8>,
        at: usize,
        step: usize,
        calls: usize,
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.calls += 1;
            if self.calls.is_multiple_of(3) {
                return Err(std::io::ErrorKind::Interrupted.into());
            }
            let n = self.step.min(buf.len()).min(self.bytes.len() - self.at);
            buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    /// (byte offset, text) of every line holding `needle`, counted the plain way.
    fn expected(content: &[u8], needle: &str) -> Vec<(u64, String)> {
        let mut at = 0;
        let mut hits = Vec::new();
        for line in content.split_inclusive(|&b| b == b'\n') {
            let text = String::from_utf8_lossy(line.strip_suffix(b"\n").unwrap_or(line));
            if text.contains(needle) {
                hits.push((at, text.into_owned()));
            }
            at += line.len() as u64;
        }
        hits
    }

    fn search(
        content: &[u8],
        step: usize,
        limit: usize,
        known: Option<u64>,
    ) -> (Vec<(u64, String)>, u64) {
        let matcher = RegexMatcher::new("needle").unwrap();
        let mut sink = HitSink::new(&matcher, 0, limit, known).keeping_from_byte(0);
        let paging = Paging::default();
        let mut searcher = crate::search::stored_searcher(&paging, false);
        let stream = Trickle {
            bytes: content.to_vec(),
            at: 0,
            step,
            calls: 0,
        };
        search_in_blocks(&mut searcher, &matcher, stream, &mut sink).unwrap();
        let (hits, count) = sink.finish();
        (
            hits.into_iter().map(|h| (h.byte_offset, h.text)).collect(),
            count,
        )
    }

    /// Lines of every length from empty to several blocks, hits at their start, middle and
    /// end, so lines start and end on every side of block boundaries.
    fn lines_of_every_length() -> Vec<u8> {
        let mut content = Vec::new();
        let mut seed = 7u64;
        for i in 0..400u64 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let len = match i % 7 {
                0 => 0,
                1 => (seed >> 33) as usize % 80,
                2 => (seed >> 33) as usize % (3 * BLOCK),
                _ => (seed >> 33) as usize % 5000,
            };
            let mut line = vec![b'x'; len];
            match i % 5 {
                0 if len >= 6 => line[..6].copy_from_slice(b"needle"),
                1 if len >= 6 => line[len - 6..].copy_from_slice(b"needle"),
                2 if len >= 6 => line[len / 2 - 3..len / 2 + 3].copy_from_slice(b"needle"),
                _ => {}
            }
            content.extend_from_slice(&line);
            content.push(b'\n');
        }
        content
    }

    #[test]
    fn every_hit_across_block_boundaries_is_found_at_its_byte() {
        let content = lines_of_every_length();
        let want = expected(&content, "needle");
        assert!(
            want.len() > 100,
            "the content has hits to find: {}",
            want.len()
        );
        for step in [1 << 30, BLOCK - 1, 4096, 777] {
            let (hits, count) = search(&content, step, usize::MAX - 1, None);
            assert_eq!(count, want.len() as u64, "read {step} bytes at a time");
            let bytes = |hits: &[(u64, String)]| hits.iter().map(|h| h.0).collect::<Vec<_>>();
            assert!(
                bytes(&hits) == bytes(&want),
                "hits differ when read {step} bytes at a time"
            );
            for (hit, want) in hits.iter().zip(&want) {
                // (A long line's hit shows the part around its match.)
                if want.1.len() <= crate::search::LONG_LINE {
                    assert_eq!(hit.1, want.1);
                }
            }
        }
    }

    #[test]
    fn a_line_longer_than_many_blocks_and_a_last_line_without_newline_are_searched() {
        let mut content = vec![b'y'; 5 * BLOCK + 3];
        content.extend_from_slice(b"needle\nshort\nlast needle");
        let want = expected(&content, "needle");
        assert_eq!(want.len(), 2);
        let (hits, count) = search(&content, BLOCK, 100, None);
        assert_eq!(count, 2);
        assert_eq!(hits[0].0, want[0].0);
        assert!(hits[0].1.ends_with("yyneedle"), "{}", hits[0].1);
        assert_eq!(hits[1], want[1]);
        assert_eq!(hits[1].1, "last needle");
    }

    #[test]
    fn a_later_page_stops_reading_once_it_has_its_hits() {
        let content = "needle\n".repeat(3 * BLOCK / 7);
        let (hits, count) = search(content.as_bytes(), 4096, 5, Some(999));
        assert_eq!(hits.len(), 6, "a page of 5 and one to know more exist");
        // The search stopped at the hit that filled the page, not one more block was searched.
        assert_eq!(count, 6);
        let (_, all) = search(content.as_bytes(), 4096, 5, None);
        assert_eq!(all, (3 * BLOCK / 7) as u64, "a first page counts every hit");
    }
}
