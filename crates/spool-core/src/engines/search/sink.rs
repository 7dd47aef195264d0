//! The sinks of a search: one that counts every hit and keeps one page of them, with context
//! (`HitSink`), and one that encodes each hit of a walked file straight into the hit list's
//! line (`EncodingSink`).

use std::borrow::Cow;

use grep_matcher::Matcher;
use grep_regex::RegexMatcher;
use grep_searcher::{Searcher, Sink, SinkContext, SinkContextKind, SinkMatch};

use super::{ContextLine, Hit, LONG_LINE, Trim};
use crate::utf8;

/// Where a sink that keeps every hit (a directory search) sends each one once its context is
/// whole, instead of holding them all: a file of a million hits is not held in memory.
pub type Spill<'s> = &'s mut dyn FnMut(Hit);

pub struct HitSink<'m> {
    /// Set on every hit kept (tree search fills it in per file).
    pub path: Option<String>,
    /// Each hit, once the next one begins (its after-context is then whole), and the last at
    /// `finish`.
    pub spill: Option<Spill<'m>>,
    matcher: &'m RegexMatcher,
    after_line: u64,
    /// Set when lines are not numbered (a search in parts): hits kept start at this byte.
    from_byte: Option<u64>,
    limit: usize,
    /// Set when the total is already known (a later page): stop once the page is full.
    known_total: Option<u64>,
    /// Added to the searcher's byte offsets: where the slice it searches starts.
    shift: u64,
    count: u64,
    hits: Vec<Hit>,
    pending_before: Vec<ContextLine>,
    keeping_after: bool,
    /// A line longer than a window, being searched a window at a time.
    window: Option<Windowed>,
    /// Lines searched in windows.
    windowed_lines: u64,
}

/// A line searched in windows (see `blocks`): where it starts in the stream, its chars before
/// the window searched now, and whether a hit of it was counted.
#[derive(Debug, Clone, Copy)]
struct Windowed {
    start: u64,
    chars_before: u64,
    counted: bool,
}

impl<'m> HitSink<'m> {
    pub fn new(
        matcher: &'m RegexMatcher,
        after_line: u64,
        limit: usize,
        known_total: Option<u64>,
    ) -> Self {
        Self {
            path: None,
            spill: None,
            matcher,
            after_line,
            from_byte: None,
            limit,
            known_total,
            shift: 0,
            count: 0,
            hits: Vec::new(),
            pending_before: Vec::new(),
            keeping_after: false,
            window: None,
            windowed_lines: 0,
        }
    }

    /// The slice searched next begins inside a line starting at `start`, `chars_before` chars
    /// into it: its hits there are the line's, counted once, placed at its start.
    pub fn window(&mut self, start: u64, chars_before: u64) {
        match &mut self.window {
            Some(w) if w.start == start => w.chars_before = chars_before,
            _ => {
                self.windowed_lines += 1;
                self.window = Some(Windowed {
                    start,
                    chars_before,
                    counted: false,
                });
            }
        }
    }

    /// The windowed line ended, `line_chars` long: its hit says so, and later hits are others.
    pub fn end_window(&mut self, line_chars: u64) {
        // (Hits of the lines after it, in the same slice, may follow its own.)
        if let Some(w) = self.window.take()
            && let Some(hit) = self
                .hits
                .iter_mut()
                .rev()
                .find(|h| h.byte_offset == w.start)
            && let Some(trim) = hit.trimmed.as_mut()
        {
            trim.line_chars = line_chars;
        }
    }

    /// Lines searched in windows, longer than `blocks::LINE_WINDOW`.
    pub fn windowed_lines(&self) -> u64 {
        self.windowed_lines
    }

    /// Keeps hits from byte `from` on, for a searcher that does not number lines (the lines of
    /// the hits kept are found afterwards).
    pub fn keeping_from_byte(mut self, from: u64) -> Self {
        self.from_byte = Some(from);
        self
    }

    /// Offsets the hits from here on by `start`: the searcher's next slice starts there.
    pub fn shift_to(&mut self, start: u64) {
        self.shift = start;
    }

    /// Whether a later page's search can stop: its page is full (the total is known).
    pub fn has_its_page(&self) -> bool {
        self.known_total.is_some() && self.hits.len() > self.limit
    }

    /// Hits kept (at most limit + 1, to know whether more exist; none when spilled) and hits
    /// counted.
    pub fn finish(mut self) -> (Vec<Hit>, u64) {
        if let Some(spill) = self.spill.as_mut() {
            for hit in self.hits.drain(..) {
                spill(hit);
            }
        }
        (self.hits, self.count)
    }
}

/// A hit's line as shown: the whole line, or for a long one the part around the match, and
/// which of its chars that part is (invalid UTF-8 replaced).
fn hit_text<'l>(matcher: &RegexMatcher, line: &'l [u8]) -> (Cow<'l, str>, Option<Trim>) {
    if line.len() <= LONG_LINE {
        return (utf8::lossy_str(line), None);
    }
    let line_chars = utf8::count_chars(line);
    if line_chars <= LONG_LINE as u64 {
        return (utf8::lossy_str(line), None);
    }
    let (m_start, m_end) = match matcher.find(line) {
        Ok(Some(m)) => (m.start(), m.end()),
        _ => (0, 0),
    };
    // Up to 100 chars before the match and 200 after its end, on char boundaries; a match
    // itself longer than that (`a+` over a 10 MB line) is shown for its first 400 chars.
    let start = char_boundary_back(line, m_start, 100);
    let end = char_boundary_forward(line, m_end.max(start), 200).min(char_boundary_forward(
        line,
        m_start.max(start),
        400,
    ));
    let start_char = utf8::count_chars(&line[..start]);
    let shown_chars = utf8::count_chars(&line[start..end]);
    (
        utf8::lossy_str(&line[start..end]),
        Some(Trim {
            line_chars,
            start_char,
            end_char: start_char + shown_chars,
        }),
    )
}

/// A line's text without its line end.
fn line_text(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    bytes.strip_suffix(b"\r").unwrap_or(bytes)
}

/// The sink of a directory search without context lines: each hit of one file encoded
/// straight into its stored line (see [`super::hitlist`]) and handed to `out`, no [`Hit`]
/// built. A `Hit` each, with its own copy of the path and of the line, then encoded, was a
/// twentieth of a 20,000-file repository's search.
pub struct EncodingSink<'a> {
    pub matcher: &'a RegexMatcher,
    /// The file's path below the searched directory.
    pub path: &'a str,
    pub out: &'a mut dyn FnMut(&[u8]),
    /// Hits stored.
    pub stored: u64,
    /// The line being encoded (kept from hit to hit).
    pub line: Vec<u8>,
    /// (lines, bytes) before where the search began: added to each hit's line number and
    /// offset (see [`super::streamed`]).
    pub shift: (u64, u64),
}

impl Sink for EncodingSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        self.stored += 1;
        let (text, trimmed) = hit_text(self.matcher, line_text(mat.bytes()));
        self.line.clear();
        super::hitlist::Parts {
            line: self.shift.0 + mat.line_number().unwrap_or(0),
            byte_offset: self.shift.1 + mat.absolute_byte_offset(),
            path: Some(self.path),
            text: &text,
            trimmed,
            before: &[],
            after: &[],
        }
        .encode_into(&mut self.line);
        self.line.push(b'\n');
        (self.out)(&self.line);
        Ok(true)
    }
}

/// The byte offset `n` chars before `at` (never splitting a char).
fn char_boundary_back(line: &[u8], at: usize, n: usize) -> usize {
    let mut i = at;
    let mut seen = 0;
    while i > 0 && seen < n {
        i -= 1;
        if !utf8::is_continuation(line[i]) {
            seen += 1;
        }
    }
    i
}

/// The byte offset `n` chars after `at` (never splitting a char).
fn char_boundary_forward(line: &[u8], at: usize, n: usize) -> usize {
    at + utf8::take_chars(&line[at..], n as u64, true).0
}

impl Sink for HitSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let mut byte_offset = self.shift + mat.absolute_byte_offset();
        let mut window_chars = None;
        // The slice's first line is the windowed line's (each slice starts at offset 0):
        // the hits after it are other lines'.
        if let Some(w) = self.window.as_mut()
            && mat.absolute_byte_offset() == 0
        {
            if w.counted {
                return Ok(!self.has_its_page());
            }
            w.counted = true;
            byte_offset = w.start;
            window_chars = Some(w.chars_before);
        }
        self.count += 1;
        let line = mat.line_number().unwrap_or(0);
        let before = std::mem::take(&mut self.pending_before);
        let after_cursor = match self.from_byte {
            Some(from) => byte_offset >= from,
            None => line > self.after_line,
        };
        if after_cursor && self.hits.len() <= self.limit {
            // The hit before this one has all its after-context now.
            if let Some(spill) = self.spill.as_mut() {
                for hit in self.hits.drain(..) {
                    spill(hit);
                }
            }
            let bytes = line_text(mat.bytes());
            let (text, mut trimmed) = hit_text(self.matcher, bytes);
            if let Some(before) = window_chars {
                // Chars of the line, not of the window (its length is set at its end).
                let t = trimmed.get_or_insert_with(|| Trim {
                    line_chars: 0,
                    start_char: 0,
                    end_char: utf8::count_chars(bytes),
                });
                t.start_char += before;
                t.end_char += before;
                t.line_chars = t.line_chars.max(t.end_char);
            }
            self.hits.push(Hit {
                path: self.path.clone(),
                line,
                byte_offset,
                text: text.into_owned(),
                trimmed,
                before,
                after: Vec::new(),
                end_line: None,
                score: None,
                since: None,
                end_byte: None,
            });
            self.keeping_after = true;
        } else {
            self.keeping_after = false;
        }
        Ok(!self.has_its_page())
    }

    fn context(
        &mut self,
        _searcher: &Searcher,
        ctx: &SinkContext<'_>,
    ) -> Result<bool, Self::Error> {
        let raw = line_text(ctx.bytes());
        let text = if raw.len() > LONG_LINE {
            // Context only frames a hit: a long context line is cut, and says so.
            let keep = utf8::take_chars(raw, LONG_LINE as u64, true).0;
            format!(
                "{} [... {} more bytes]",
                utf8::lossy(&raw[..keep]),
                raw.len() - keep
            )
        } else {
            utf8::lossy(raw)
        };
        let line = ContextLine {
            line: ctx.line_number().unwrap_or(0),
            text,
        };
        match ctx.kind() {
            SinkContextKind::Before => self.pending_before.push(line),
            SinkContextKind::After if self.keeping_after => {
                if let Some(hit) = self.hits.last_mut() {
                    hit.after.push(line);
                }
            }
            _ => {}
        }
        Ok(true)
    }
}
