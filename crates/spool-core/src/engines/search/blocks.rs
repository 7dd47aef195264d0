//! A search of a stream of whole lines read in big blocks, each searched as one slice up to
//! its last newline. grep-searcher's own reader fills a 64 KiB buffer and moves what is left
//! of it to the front on every fill; over lines of ~120 KB that move, and the search for each
//! fill's last newline, took 7% of a search's time. Here a block is 256 KiB and only a
//! line's unended start is carried to the next one.
//!
//! A block never grows past [`LINE_WINDOW`] and a block: a longer line is searched in windows
//! of that size, each overlapping the one before by [`WINDOW_OVERLAP`] (a 1.2 GB one-line
//! artifact took 2.08 GB to search, and `ci_log` searches every log it stores; issue 39). The
//! line is still counted once, its hit placed at the line's start and its chars counted from
//! there; the search says when a line was windowed, as a match longer than the overlap across a
//! window's edge is not found and `^`/`$` also match at one.

use std::io::Read;

use grep_regex::RegexMatcher;
use grep_searcher::Searcher;

use super::sink::HitSink;

/// Bytes a block holds to begin with (measured on a 256 MiB log against 128 KiB to 2 MiB:
/// bigger blocks fall out of the cache between the read and the search); it doubles while a
/// line's start leaves less than a quarter of that (64 KiB) to read into.
const BLOCK: usize = 256 << 10;

/// The longest line searched whole; a longer one is searched in windows of this size.
pub(crate) const LINE_WINDOW: usize = 4 << 20;

/// How much each window of a long line repeats of the one before: a match up to this long
/// across a window's edge is found.
pub(crate) const WINDOW_OVERLAP: usize = 64 << 10;

/// Searches every line of `stream` for `matcher` into `sink`, whose hits are offset from the
/// stream's first byte. Stops early once the sink has its page (a later page's search).
/// Returns the most bytes its block held, never past [`LINE_WINDOW`] and a block.
pub(super) fn search_in_blocks(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    mut stream: impl Read,
    sink: &mut HitSink<'_>,
) -> std::io::Result<usize> {
    let mut block = vec![0u8; BLOCK];
    // Bytes at the block's front: the start of a line whose newline is not read yet.
    let mut carried = 0;
    // Where the block's first byte is in the stream.
    let mut block_start = 0u64;
    // A line being searched in windows: where it starts, and its chars before the block.
    let mut windowed: Option<(u64, u64)> = None;
    loop {
        if block.len() - carried < BLOCK / 4 && block.len() < LINE_WINDOW + BLOCK {
            // A long line fills most of the block: reads of what is left would be small.
            block.resize((block.len() * 2).min(LINE_WINDOW + BLOCK), 0);
        }
        let read = read_some(&mut stream, &mut block[carried..])?;
        if read == 0 {
            // The last line, if the stream does not end with a newline.
            if carried > 0 {
                sink.shift_to(block_start);
                if let Some((start, before)) = windowed {
                    // The last part of a windowed line that ends the stream.
                    sink.window(start, before);
                }
                searcher.search_slice(matcher, &block[..carried], &mut *sink)?;
            }
            if let Some((_, before)) = windowed {
                sink.end_window(before + crate::utf8::count_chars(&block[..carried]));
            }
            return Ok(block.len());
        }
        let filled = carried + read;
        // Only the new bytes can hold a newline: the carried ones had none.
        let Some(last) = memchr::memrchr(b'\n', &block[carried..filled]) else {
            if filled >= LINE_WINDOW {
                // A line longer than a window: this window of it is searched, and its last
                // bytes are searched again with the next.
                let (start, before) = *windowed.get_or_insert((block_start, 0));
                sink.shift_to(block_start);
                sink.window(start, before);
                searcher.search_slice(matcher, &block[..filled], &mut *sink)?;
                if sink.has_its_page() {
                    return Ok(block.len());
                }
                let keep = filled - WINDOW_OVERLAP;
                windowed = Some((start, before + crate::utf8::count_chars(&block[..keep])));
                block.copy_within(keep..filled, 0);
                carried = WINDOW_OVERLAP;
                block_start += keep as u64;
            } else {
                carried = filled;
            }
            continue;
        };
        let lines_end = carried + last + 1;
        sink.shift_to(block_start);
        if let Some((start, before)) = windowed.take() {
            // The long line ends in this block: its last part is the slice's first line.
            sink.window(start, before);
            searcher.search_slice(matcher, &block[..lines_end], &mut *sink)?;
            let first_end = memchr::memchr(b'\n', &block[..lines_end]).unwrap_or(lines_end);
            sink.end_window(before + crate::utf8::count_chars(&block[..first_end]));
        } else {
            searcher.search_slice(matcher, &block[..lines_end], &mut *sink)?;
        }
        if sink.has_its_page() {
            return Ok(block.len());
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

    /// A line of `len` bytes of `x` with `needle` at each of `at`, then two short lines.
    fn long_line(len: usize, at: &[usize]) -> Vec<u8> {
        let mut line = vec![b'x'; len];
        for &i in at {
            line[i..i + 6].copy_from_slice(b"needle");
        }
        line.extend_from_slice(b"\nshort needle line\nno match\n");
        line
    }

    #[test]
    fn a_line_longer_than_a_window_is_searched_in_windows_and_counted_once() {
        // Regression (issue 39): the block doubled until the line ended (a 1.2 GB line took a
        // 2 GiB block).
        let len = 3 * LINE_WINDOW + 12_345;
        // At the start, across the first window's edge, in the middle, at the very end.
        let content = long_line(len, &[0, LINE_WINDOW - 3, len / 2, len - 6]);
        let matcher = RegexMatcher::new("needle").unwrap();
        for step in [1 << 30, 1 << 20, 70_001] {
            let mut sink = HitSink::new(&matcher, 0, 100, None).keeping_from_byte(0);
            let mut searcher = crate::search::stored_searcher(&Paging::default(), false);
            let stream = Trickle {
                bytes: content.clone(),
                at: 0,
                step,
                calls: 0,
            };
            let peak = search_in_blocks(&mut searcher, &matcher, stream, &mut sink).unwrap();
            assert!(peak <= LINE_WINDOW + BLOCK, "a block of {peak} bytes");
            assert_eq!(sink.windowed_lines(), 1);
            let (hits, count) = sink.finish();
            assert_eq!(
                count, 2,
                "the long line once, the short one once (step {step})"
            );
            assert_eq!(hits[0].byte_offset, 0, "placed at its line's start");
            let trim = hits[0].trimmed.unwrap();
            assert_eq!((trim.start_char, trim.line_chars), (0, len as u64));
            assert_eq!(hits[1].byte_offset, len as u64 + 1);
            assert_eq!(hits[1].text, "short needle line");
        }
    }

    #[test]
    fn a_match_only_in_a_later_window_is_placed_by_its_chars_in_the_line() {
        let len = 2 * LINE_WINDOW + 100;
        let at = LINE_WINDOW + 500_000;
        let content = long_line(len, &[at]);
        let matcher = RegexMatcher::new("needle").unwrap();
        let mut sink = HitSink::new(&matcher, 0, 100, None).keeping_from_byte(0);
        let mut searcher = crate::search::stored_searcher(&Paging::default(), false);
        search_in_blocks(&mut searcher, &matcher, &content[..], &mut sink).unwrap();
        let (hits, count) = sink.finish();
        assert_eq!(count, 2);
        let trim = hits[0].trimmed.unwrap();
        // 100 chars of context before the match, counted from the line's start.
        assert_eq!(trim.start_char, at as u64 - 100);
        assert_eq!(trim.line_chars, len as u64);
        assert!(hits[0].text.contains("needle"));
    }

    #[test]
    fn a_windowed_line_that_ends_the_stream_without_a_newline_is_placed_right() {
        // Regression (review): the last part's chars were not set before its search.
        let len = 2 * LINE_WINDOW + 300_000;
        let mut content = vec![b'x'; len];
        content[len - 10..len - 4].copy_from_slice(b"needle");
        let matcher = RegexMatcher::new("needle").unwrap();
        let mut sink = HitSink::new(&matcher, 0, 100, None).keeping_from_byte(0);
        let mut searcher = crate::search::stored_searcher(&Paging::default(), false);
        search_in_blocks(&mut searcher, &matcher, &content[..], &mut sink).unwrap();
        let (hits, count) = sink.finish();
        assert_eq!(count, 1);
        let trim = hits[0].trimmed.unwrap();
        assert_eq!(trim.start_char, (len - 10 - 100) as u64);
        assert_eq!(trim.line_chars, len as u64);
    }
}
