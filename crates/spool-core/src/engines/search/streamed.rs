//! A walked file too large to read whole, searched as it is read, without counting the lines
//! of the part before its first hit.
//!
//! A numbered search counts the lines of every buffer it reads, hit or not, and most large
//! files hold no hit: 66 of the 73 files over 256 KiB of a 20,000-file repository, for a
//! common word. Their line counting was 3.5% of the search's CPU time (`perf`). So the file is
//! first searched unnumbered, up to its first hit; a file without one is done. The lines before
//! that hit's line are then counted (read again, from the page cache), and the numbered search
//! goes on from that line, its line numbers and byte offsets shifted by what came before.

use std::fs::File;
use std::io::Read;

use grep_regex::RegexMatcher;
use grep_searcher::{Searcher, Sink, SinkMatch};

use super::sink::EncodingSink;
use spool_walk::walk::ReadFrom;

/// Searches `opened` (its first bytes `head` read already) into `sink`: whether it was read
/// to its end. `scratch` is a buffer to read into.
pub(super) fn search(
    searchers: &mut Searchers,
    matcher: &RegexMatcher,
    (opened, head): (&File, &[u8]),
    scratch: &mut Vec<u8>,
    sink: &mut EncodingSink<'_>,
) -> bool {
    // A searcher that meets a byte-order mark at the start decodes what follows it: its
    // offsets are then not the file's, and no search can start part way in. Such a file is
    // searched in one numbered pass, as are files whose lines before the first hit cannot be
    // counted (the file shrank, a read failed): that pass stores what it reads before a
    // failure, as it did before there were two passes.
    let whole = |searcher: &mut Searcher, sink: &mut EncodingSink<'_>| {
        searcher
            .search_reader(matcher, from(opened, head, 0), sink)
            .is_ok()
    };
    if has_bom(head) {
        return whole(&mut searchers.from_start, sink);
    }
    let mut first = FirstHit(None);
    if searchers
        .unnumbered
        .search_reader(matcher, from(opened, head, 0), &mut first)
        .is_err()
    {
        return false;
    }
    let Some(line_start) = first.0 else {
        return true;
    };
    let Some(lines) = lines_before(opened, head, line_start, scratch) else {
        return whole(&mut searchers.from_start, sink);
    };
    sink.shift = (lines, line_start);
    let read = searchers
        .resumed
        .search_reader(matcher, from(opened, head, line_start), &mut *sink)
        .is_ok();
    sink.shift = (0, 0);
    read
}

/// The searchers of a streamed file.
pub(super) struct Searchers {
    /// Numbered, from the file's start (as every other file is searched).
    pub from_start: Searcher,
    /// Up to the first hit: no line numbers.
    unnumbered: Searcher,
    /// From the first hit's line on: numbered. A mark there is the file's bytes, not a
    /// byte-order mark: grep-searcher looks for one at the start of what it is given, and
    /// would strip it (shifting every offset after it) or decode the rest as UTF-16.
    resumed: Searcher,
}

impl Searchers {
    /// `from_start` is the searcher every walked file is searched with (line numbers, no
    /// context, no binary detection); the others are it without what does not apply.
    pub fn new(from_start: Searcher) -> Self {
        let builder = || {
            let mut b = grep_searcher::SearcherBuilder::new();
            b.binary_detection(grep_searcher::BinaryDetection::none())
                .bom_sniffing(false)
                .heap_limit(Some(super::FILE_LINE_HEAP));
            b
        };
        Self {
            from_start,
            unnumbered: builder().line_number(false).build(),
            resumed: builder().line_number(true).build(),
        }
    }
}

/// Whether `head` starts with a byte-order mark grep-searcher sniffs (UTF-8, UTF-16).
fn has_bom(head: &[u8]) -> bool {
    [&b"\xEF\xBB\xBF"[..], b"\xFF\xFE", b"\xFE\xFF"]
        .iter()
        .any(|bom| head.starts_with(bom))
}

/// The file from byte `at` on: what is left of `head` past it, then the rest read from where
/// the head ends (reading the file again from its start copied its first 8 KiB twice: a sixth
/// of the bytes of a 20,000-file repository).
pub(super) fn from<'f>(opened: &'f File, head: &'f [u8], at: u64) -> impl Read + 'f {
    let in_head = usize::try_from(at)
        .ok()
        .and_then(|at| head.get(at..))
        .unwrap_or_default();
    let rest = ReadFrom {
        file: opened,
        at: at.max(head.len() as u64),
    };
    in_head.chain(rest)
}

/// The line feeds in the file's first `end` bytes; `None` when they cannot be read (the file
/// shrank, a read failed).
fn lines_before(opened: &File, head: &[u8], end: u64, scratch: &mut Vec<u8>) -> Option<u64> {
    /// How much is read at a time.
    const CHUNK: usize = 256 << 10;
    let mut reader = from(opened, head, 0).take(end);
    if scratch.len() < CHUNK {
        scratch.resize(CHUNK, 0);
    }
    let (mut lines, mut read) = (0u64, 0u64);
    while read < end {
        let n = match reader.read(scratch) {
            Ok(0) | Err(_) => return None,
            Ok(n) => n,
        };
        lines += memchr::memchr_iter(b'\n', scratch.get(..n)?).count() as u64;
        read += n as u64;
    }
    Some(lines)
}

/// A sink that notes where the first matching line starts, and stops the search there.
struct FirstHit(Option<u64>);

impl Sink for FirstHit {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        self.0 = Some(mat.absolute_byte_offset());
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_marks_the_searcher_decodes_are_marks() {
        assert!(has_bom(b"\xEF\xBB\xBFtext"));
        assert!(has_bom(b"\xFF\xFEt\0"));
        assert!(has_bom(b"\xFE\xFF\0t"));
        assert!(!has_bom(b"\xEF\xBBtext"));
        assert!(!has_bom(b""));
        assert!(!has_bom(b"text\xEF\xBB\xBF"));
    }

    #[test]
    fn lines_are_counted_across_the_head_and_the_chunks_after_it() {
        let mut bytes = Vec::new();
        for i in 0..100_000 {
            bytes.extend_from_slice(format!("line {i}\n").as_bytes());
        }
        let mut named = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut named, &bytes).unwrap();
        let opened = File::open(named.path()).unwrap();
        let head = &bytes[..8192];
        let mut scratch = Vec::new();
        for end in [0, 1, 8191, 8192, 8193, 300_000, bytes.len()] {
            // Counted another way than the code counts them.
            let want = bytes[..end].split(|&b| b == b'\n').count() as u64 - 1;
            let got = lines_before(&opened, head, end as u64, &mut scratch);
            assert_eq!(got, Some(want), "{end}");
        }
        // Past the end: the file is not that long.
        assert_eq!(
            lines_before(&opened, head, bytes.len() as u64 + 1, &mut scratch),
            None
        );
    }
}
