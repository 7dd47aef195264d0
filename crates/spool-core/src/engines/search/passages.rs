//! An artifact cut into passages small enough to read in one window, for ranked word search:
//! a table row, a list item, a heading, a paragraph, a fenced code block, a log line. Each
//! passage knows its lines and bytes, so a hit is shown from the stored copy, byte for byte.
//! A line longer than a passage holds is cut into pieces of its own: every byte is indexed.

use std::io::{BufRead, BufReader, Read};

use crate::error::Result;

/// Lines and chars a paragraph passage holds before the next one starts.
const MAX_LINES: u64 = 20;
const MAX_CHARS: usize = 2_000;
/// A fenced code block is one passage up to this many lines.
const FENCE_LINES: u64 = 40;
/// Bytes of one line a passage holds: a longer line is cut into pieces of this size.
const PIECE: usize = 4_096;

/// One passage: lines `start_line..=end_line` (1-based), bytes `start_byte..end_byte`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    pub start_line: u64,
    pub end_line: u64,
    pub start_byte: u64,
    pub end_byte: u64,
    pub text: String,
}

/// How a line starts a passage, or goes on with one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Blank,
    Fence(u8, usize),
    /// A heading or a table row: a passage alone.
    Alone,
    /// A table's `|---|` rule: no words, no passage.
    Rule,
    ListItem,
    Text,
}

fn kind(line: &str) -> Kind {
    let body = line.trim_start();
    if body.is_empty() {
        return Kind::Blank;
    }
    for c in [b'`', b'~'] {
        let n = body.bytes().take_while(|b| *b == c).count();
        if n >= 3 {
            return Kind::Fence(c, n);
        }
    }
    if body.starts_with('|') {
        let rule = body
            .chars()
            .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'));
        return if rule { Kind::Rule } else { Kind::Alone };
    }
    if body.starts_with('#') {
        return Kind::Alone;
    }
    let digits = body.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &body.as_bytes()[digits..];
    let numbered = digits > 0 && matches!(rest, [b'.' | b')', b' ', ..]);
    if numbered || matches!(body.as_bytes(), [b'-' | b'*' | b'+', b' ', ..]) {
        return Kind::ListItem;
    }
    Kind::Text
}

/// Cuts passages as lines arrive.
struct Cutter<'a> {
    log: bool,
    current: Option<Passage>,
    /// The open fence's character and length.
    fence: Option<(u8, usize)>,
    emit: &'a mut dyn FnMut(Passage) -> Result<()>,
}

impl Cutter<'_> {
    fn flush(&mut self) -> Result<()> {
        match self.current.take() {
            Some(p) => (self.emit)(p),
            None => Ok(()),
        }
    }

    fn append(&mut self, line: u64, span: (u64, u64), text: &str) {
        match &mut self.current {
            Some(p) => {
                p.end_line = line;
                p.end_byte = span.1;
                p.text.push('\n');
                p.text.push_str(text);
            }
            None => {
                self.current = Some(Passage {
                    start_line: line,
                    end_line: line,
                    start_byte: span.0,
                    end_byte: span.1,
                    text: text.to_owned(),
                });
            }
        }
    }

    fn lines_held(&self) -> u64 {
        self.current
            .as_ref()
            .map_or(0, |p| p.end_line - p.start_line + 1)
    }

    /// One whole line, without its newline.
    fn line(&mut self, line: u64, span: (u64, u64), text: &str) -> Result<()> {
        if let Some((c, n)) = self.fence {
            self.append(line, span, text);
            let closes = matches!(kind(text), Kind::Fence(k, m) if k == c && m >= n);
            if closes {
                self.fence = None;
                self.flush()?;
            } else if self.lines_held() >= FENCE_LINES {
                self.flush()?;
            }
            return Ok(());
        }
        if self.log {
            if !text.trim().is_empty() {
                self.append(line, span, text);
            }
            return self.flush();
        }
        match kind(text) {
            Kind::Blank => self.flush(),
            Kind::Rule => Ok(()),
            Kind::Fence(c, n) => {
                self.flush()?;
                self.fence = Some((c, n));
                self.append(line, span, text);
                Ok(())
            }
            Kind::Alone => {
                self.flush()?;
                self.append(line, span, text);
                self.flush()
            }
            Kind::ListItem => {
                self.flush()?;
                self.append(line, span, text);
                Ok(())
            }
            Kind::Text => {
                self.append(line, span, text);
                let full = self
                    .current
                    .as_ref()
                    .is_some_and(|p| p.text.len() >= MAX_CHARS);
                if full || self.lines_held() >= MAX_LINES {
                    self.flush()?;
                }
                Ok(())
            }
        }
    }

    /// A piece of a line too long for one passage: a passage of its own.
    fn piece(&mut self, line: u64, span: (u64, u64), text: &str) -> Result<()> {
        self.flush()?;
        self.append(line, span, text);
        self.flush()
    }
}

/// Reads `content` to its end and hands each passage to `emit`, in order. `log` makes every
/// line a passage of its own.
pub fn split(
    content: impl Read,
    log: bool,
    emit: &mut dyn FnMut(Passage) -> Result<()>,
) -> Result<()> {
    let mut reader = BufReader::with_capacity(1 << 16, content);
    let mut cutter = Cutter {
        log,
        current: None,
        fence: None,
        emit,
    };
    let mut line = 1u64;
    let mut piece: Vec<u8> = Vec::new();
    let mut piece_start = 0u64;
    // Whether the line being read has already given a piece (it is long).
    let mut cut = false;
    loop {
        let buf = reader
            .fill_buf()
            .map_err(|e| crate::error::Error::io("the artifact", e))?;
        if buf.is_empty() {
            if !piece.is_empty() {
                let text = String::from_utf8_lossy(&piece).into_owned();
                let span = (piece_start, piece_start + piece.len() as u64);
                if cut {
                    cutter.piece(line, span, &text)?;
                } else {
                    cutter.line(line, span, &text)?;
                }
            }
            break;
        }
        let room = PIECE - piece.len();
        let take = &buf[..buf.len().min(room)];
        if let Some(i) = memchr::memchr(b'\n', take) {
            piece.extend_from_slice(&take[..i]);
            reader.consume(i + 1);
            let text = String::from_utf8_lossy(&piece).into_owned();
            let text = text.strip_suffix('\r').unwrap_or(&text);
            let span = (piece_start, piece_start + piece.len() as u64);
            if cut {
                // The rest of a long line (nothing, when the cut fell on its newline).
                if !piece.is_empty() {
                    cutter.piece(line, span, text)?;
                }
            } else {
                cutter.line(line, span, text)?;
            }
            line += 1;
            piece.clear();
            piece_start = span.1 + 1;
            cut = false;
        } else {
            let n = take.len();
            piece.extend_from_slice(take);
            reader.consume(n);
            if piece.len() >= PIECE {
                let text = String::from_utf8_lossy(&piece).into_owned();
                let span = (piece_start, piece_start + piece.len() as u64);
                cutter.piece(line, span, &text)?;
                piece_start = span.1;
                piece.clear();
                cut = true;
            }
        }
    }
    cutter.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(text: &str, log: bool) -> Vec<(u64, u64, String)> {
        let mut out = Vec::new();
        split(text.as_bytes(), log, &mut |p| {
            // The bytes name the text exactly.
            assert_eq!(
                &text.as_bytes()[p.start_byte as usize..p.end_byte as usize],
                p.text.as_bytes()
            );
            out.push((p.start_line, p.end_line, p.text));
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn rows_items_headings_paragraphs_and_code_are_passages() {
        let doc = "# Title\n\npara one\nstill one\n\n| a | b |\n|---|---|\n| MCP_X | skip |\n- item one\n  more of it\n- item two\n\n```\ncode\n\nstill code\n```\nafter\n";
        let got = cut(doc, false);
        let spans: Vec<(u64, u64)> = got.iter().map(|(a, b, _)| (*a, *b)).collect();
        assert_eq!(
            spans,
            [
                (1, 1),
                (3, 4),
                (6, 6),
                (8, 8),
                (9, 10),
                (11, 11),
                (13, 17),
                (18, 18)
            ]
        );
        assert_eq!(got[3].2, "| MCP_X | skip |");
    }

    #[test]
    fn a_log_is_a_passage_a_line_and_a_long_line_is_cut_into_pieces() {
        let got = cut("a\nb\n\nc", true);
        assert_eq!(got.len(), 3);
        let long = format!("x\n{}\ny", "z".repeat(PIECE * 2 + 10));
        let got = cut(&long, false);
        let lines: Vec<(u64, u64)> = got.iter().map(|(a, b, _)| (*a, *b)).collect();
        assert_eq!(lines, [(1, 1), (2, 2), (2, 2), (2, 2), (3, 3)]);
    }
}
