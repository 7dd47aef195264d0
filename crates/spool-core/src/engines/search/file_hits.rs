//! One walked file searched for a directory search: its hits encoded as the hit list stores
//! them, with their line numbers.

use super::sink::{EncodingSink, HitSink};
use spool_walk::walk;

use super::{Hit, Paging, hitlist, parallel};

/// The largest file read whole into memory before it is searched; a larger one is searched as
/// it is read, through grep-searcher's line buffer.
///
/// Searched whole, a file's newlines are counted only up to its last hit (grep-searcher counts
/// a slice's lines as it reaches each match, but every line a reader's buffer moves past), and
/// its bytes are not moved about a line buffer: on a 20,000-file repository the counting alone
/// was 4% of the search's CPU. Larger files are streamed: a buffer this size stays in
/// the core's cache between the copy from the page cache and the search, and one of megabytes
/// did not (the search then used more CPU, not less).
const WHOLE_BYTES: usize = 256 << 10;

/// The most of one file's encoded hits a worker holds until the file's turn: a file with more
/// is searched again in its turn, straight into the hit list (what is held stays bounded).
pub(super) const HELD_PER_FILE: usize = 256 << 10;

/// A searching thread's own tools: its searcher, and the buffers a file is read whole into and
/// its hits gathered in (kept from file to file, so that each is allocated once per thread).
pub(super) struct FileSearcher {
    /// The searcher and those a file too large to read whole is searched with (see
    /// [`super::streamed`]).
    searchers: super::streamed::Searchers,
    /// Lines of context are asked for around each hit.
    context: bool,
    /// The line a hit is encoded into.
    line: Vec<u8>,
    whole: Vec<u8>,
    /// A file's encoded hits while it is searched (at most [`HELD_PER_FILE`] bytes).
    held: Vec<u8>,
}

impl FileSearcher {
    pub fn new(paging: &Paging) -> Self {
        FileSearcher {
            searchers: super::streamed::Searchers::new(super::searcher(paging)),
            context: paging.context > 0,
            line: Vec::new(),
            whole: Vec::new(),
            held: Vec::new(),
        }
    }

    /// A file's hits, encoded as the hit list stores them, written to `out` a line at a time:
    /// how many, and whether the file was read whole.
    pub fn search(
        &mut self,
        matcher: &grep_regex::RegexMatcher,
        file: &walk::Candidate,
        (opened, head): (&std::fs::File, &[u8]),
        out: &mut dyn FnMut(&[u8]),
    ) -> (u64, bool) {
        if self.context {
            return self.search_with_context(matcher, file, (opened, head), out);
        }
        let mut sink = EncodingSink {
            matcher,
            path: &file.rel,
            out,
            stored: 0,
            line: std::mem::take(&mut self.line),
            shift: (0, 0),
        };
        let read = match whole_of(opened, head, &mut self.whole) {
            Some(bytes) => self
                .searchers
                .from_start
                .search_slice(matcher, bytes, &mut sink)
                .is_ok(),
            None => super::streamed::search(
                &mut self.searchers,
                matcher,
                (opened, head),
                &mut self.whole,
                &mut sink,
            ),
        };
        self.line = sink.line;
        (sink.stored, read)
    }

    /// [`FileSearcher::search`] with lines of context: a [`Hit`] is built for each, its
    /// context gathered, then encoded.
    fn search_with_context(
        &mut self,
        matcher: &grep_regex::RegexMatcher,
        file: &walk::Candidate,
        opened: (&std::fs::File, &[u8]),
        out: &mut dyn FnMut(&[u8]),
    ) -> (u64, bool) {
        let mut stored = 0u64;
        let line = &mut self.line;
        let mut store_hit = |hit: Hit| {
            stored += 1;
            line.clear();
            hitlist::encode_into(&hit, line);
            line.push(b'\n');
            out(line);
        };
        let mut sink = HitSink::new(matcher, 0, usize::MAX - 1, None);
        sink.path = Some(file.rel.clone());
        sink.spill = Some(&mut store_hit);
        let read = search_file(
            &mut self.searchers.from_start,
            matcher,
            opened,
            &mut self.whole,
            &mut sink,
        );
        sink.finish();
        (stored, read)
    }

    /// A file's hits, held for their turn (at most [`HELD_PER_FILE`] bytes of them: a file
    /// with more is searched again in its turn, its hits written as found).
    pub fn held_hits(
        &mut self,
        matcher: &grep_regex::RegexMatcher,
        file: &walk::Candidate,
        opened: (&std::fs::File, &[u8]),
    ) -> parallel::Worked<(Vec<u8>, u64, bool)> {
        // Gathered in the thread's own buffer, then copied out at their size: a list grown hit
        // by hit for each file was copied at each doubling, 3 in 10 of the time the hits were
        // handled in (`perf`, 20,000-file repository, 32,790 hits).
        let mut bytes = std::mem::take(&mut self.held);
        bytes.clear();
        let mut too_many = false;
        let (stored, whole) = self.search(matcher, file, opened, &mut |line| {
            too_many |= bytes.len() + line.len() > HELD_PER_FILE;
            if !too_many {
                bytes.extend_from_slice(line);
            }
        });
        let worked = if too_many {
            parallel::Worked::InTurn
        } else {
            parallel::Worked::Answer((bytes.clone(), stored, whole), bytes.len())
        };
        self.held = bytes;
        worked
    }
}

/// Searches an opened file (its `head` read already) into `sink`: whether it was read whole.
fn search_file<S: grep_searcher::Sink<Error = std::io::Error>>(
    searcher: &mut grep_searcher::Searcher,
    matcher: &grep_regex::RegexMatcher,
    (opened, head): (&std::fs::File, &[u8]),
    whole: &mut Vec<u8>,
    sink: &mut S,
) -> bool {
    let outcome = if let Some(whole) = whole_of(opened, head, whole) {
        searcher.search_slice(matcher, whole, sink)
    } else {
        searcher.search_reader(matcher, super::streamed::from(opened, head, 0), sink)
    };
    outcome.is_ok()
}

/// The whole file when it is at most [`WHOLE_BYTES`]: its `head` when that is all of it (most
/// source files: searched as read, without reading the file again), else read into `buf`.
fn whole_of<'b>(file: &std::fs::File, head: &'b [u8], buf: &'b mut Vec<u8>) -> Option<&'b [u8]> {
    if head.len() < walk::HEAD_BYTES {
        Some(head)
    } else {
        read_whole(file, head, buf)
    }
}

/// The whole file, its `head` followed by the rest read from where the head ends, in `buf`;
/// `None` when it is larger than [`WHOLE_BYTES`] or a read failed (the caller then searches it
/// as it reads it, and meets the failure where the search does).
fn read_whole<'b>(file: &std::fs::File, head: &[u8], buf: &'b mut Vec<u8>) -> Option<&'b [u8]> {
    use std::os::unix::fs::FileExt as _;
    /// How much the buffer grows by when a file does not fit it (it keeps its size after).
    const STEP: usize = 64 << 10;
    if buf.len() < head.len() {
        buf.resize(head.len().max(STEP), 0);
    }
    buf[..head.len()].copy_from_slice(head);
    let mut filled = head.len();
    loop {
        if filled == buf.len() {
            if buf.len() > WHOLE_BYTES {
                return None;
            }
            // One byte past the limit: a file of exactly WHOLE_BYTES is seen to end.
            let grown = (buf.len() * 2).clamp(STEP, WHOLE_BYTES + 1);
            buf.resize(grown, 0);
        }
        match file.read_at(&mut buf[filled..], filled as u64) {
            Ok(0) => return Some(&buf[..filled]),
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    fn file_of(bytes: &[u8]) -> (tempfile::NamedTempFile, std::fs::File) {
        let mut named = tempfile::NamedTempFile::new().expect("temp file");
        named.write_all(bytes).expect("write");
        let opened = std::fs::File::open(named.path()).expect("open");
        (named, opened)
    }

    #[test]
    fn a_file_is_read_whole_across_the_buffers_growth() {
        // Sizes around the buffer's steps, and a buffer reused from a larger file before.
        let mut buf = Vec::new();
        for len in [
            8192,
            8193,
            64 << 10,
            (64 << 10) + 1,
            200_000,
            WHOLE_BYTES,
            10_000,
        ] {
            let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let (_named, opened) = file_of(&bytes);
            let head = &bytes[..8192];
            let whole = read_whole(&opened, head, &mut buf).expect("read whole");
            assert_eq!(whole, &bytes[..], "{len} bytes");
        }
    }

    fn piece() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        prop_oneof![
            Just(b"needle".to_vec()),
            Just(b"x".to_vec()),
            Just(b"\n".to_vec()),
            Just(b"\r\n".to_vec()),
            Just(b"\"\\\t\x01".to_vec()),
            Just("é\u{1F600}".as_bytes().to_vec()),
            // Invalid UTF-8: a lone continuation byte, a cut character, a byte never used.
            Just(vec![0x80, 0xc3, 0xff]),
            // Long lines are cut around the match.
            Just(vec![b'a'; 400]),
            Just("ü".repeat(200).into_bytes()),
            // Byte-order marks inside the file are its bytes, not marks.
            Just(b"\n\xEF\xBB\xBFneedle".to_vec()),
            Just(b"\n\xFF\xFEneedle\n".to_vec()),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

        /// A hit encoded straight from grep-searcher's match is the line the hit list stored
        /// for the `Hit` built from it: for short, long, cut and invalid lines, with any line
        /// ends, in files searched from their head alone, read whole, and streamed (from the
        /// first hit's line on, its lines before counted apart).
        #[test]
        fn hits_encoded_straight_are_the_hits_encoded_from_a_hit(
            pieces in proptest::collection::vec(piece(), 0..80),
            filler in 0usize..3,
            lead in proptest::bool::ANY,
            bom in 0usize..4,
        ) {
            // A file that starts with a byte-order mark (UTF-8, UTF-16), or none.
            let marks = [&b""[..], b"\xEF\xBB\xBF", b"\xFF\xFE", b"\xFE\xFF"];
            let mut bytes: Vec<u8> = marks[bom].to_vec();
            // Hits before the filler, or only after it (a streamed file's first hit far in).
            if lead {
                bytes.extend(pieces.concat());
            }
            // Past the head; past what is read whole.
            let lines = [0, 2_000, 40_000][filler];
            bytes.extend(b"filler line\n".repeat(lines));
            bytes.extend(pieces.concat());
            let (named, opened) = file_of(&bytes);
            let head = &bytes[..bytes.len().min(walk::HEAD_BYTES)];
            let file = walk::Candidate {
                path: named.path().to_owned(),
                rel: "dir/a \"q\" é.rs".to_owned(),
                len: None,
                index: 0,
            };
            let matcher = grep_regex::RegexMatcherBuilder::new()
                .build("needle|a+|ü+|\\\\")
                .expect("matcher");
            let mut searcher = FileSearcher::new(&Paging::default());
            assert!(!searcher.context);
            let (mut straight, mut built) = (Vec::new(), Vec::new());
            let got = searcher.search(&matcher, &file, (&opened, head), &mut |l| {
                straight.extend_from_slice(l);
            });
            let want =
                searcher.search_with_context(&matcher, &file, (&opened, head), &mut |l| {
                    built.extend_from_slice(l);
                });
            proptest::prop_assert_eq!(got, want);
            proptest::prop_assert_eq!(
                String::from_utf8_lossy(&straight),
                String::from_utf8_lossy(&built)
            );
            let stored = memchr::memchr_iter(b'\n', &straight).count() as u64;
            proptest::prop_assert_eq!(stored, got.0);
        }
    }

    /// Regression (review): the search that goes on from a streamed file's first hit took a
    /// mark at that line's start for a byte-order mark, stripping it (every offset after it
    /// 3 short) or reading the rest as UTF-16 (the hits lost).
    #[test]
    fn a_mark_at_the_first_hit_s_line_is_the_file_s_bytes() {
        for mark in [&b"\xEF\xBB\xBF"[..], b"\xFF\xFE", b"\xFE\xFF"] {
            let mut bytes = b"filler line\n".repeat(30_000);
            bytes.extend_from_slice(mark);
            bytes.extend_from_slice(b"needle one\nneedle two\n");
            let (named, opened) = file_of(&bytes);
            let file = walk::Candidate {
                path: named.path().to_owned(),
                rel: "a.txt".to_owned(),
                len: None,
                index: 0,
            };
            let matcher = grep_regex::RegexMatcher::new("needle").unwrap();
            let mut searcher = FileSearcher::new(&Paging::default());
            let mut lines = Vec::new();
            let head = &bytes[..walk::HEAD_BYTES];
            let got = searcher.search(&matcher, &file, (&opened, head), &mut |l| {
                lines.push(String::from_utf8_lossy(l).into_owned());
            });
            assert_eq!(got, (2, true));
            let at = 30_000 * 12;
            let text = String::from_utf8_lossy(mark).into_owned() + "needle one";
            let first = serde_json::json!([30_001, at, "a.txt", text]).to_string() + "\n";
            let second = format!(
                "[30002,{},\"a.txt\",\"needle two\"]\n",
                at + mark.len() + 11
            );
            assert_eq!(lines, [first, second]);
        }
    }

    #[test]
    fn a_file_past_the_limit_is_not_read_whole() {
        for (len, whole) in [(WHOLE_BYTES, true), (WHOLE_BYTES + 1, false)] {
            let bytes = vec![b'a'; len];
            let (_named, opened) = file_of(&bytes);
            let mut buf = Vec::new();
            let read = read_whole(&opened, &bytes[..8192], &mut buf);
            assert_eq!(read.is_some(), whole, "{len} bytes");
            assert!(buf.len() <= WHOLE_BYTES + 1);
        }
    }
}
