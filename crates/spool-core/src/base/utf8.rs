//! Streaming character arithmetic over bytes that may not be valid UTF-8.
//!
//! A "char" is a unit of the lossy decoding that `String::from_utf8_lossy` performs: a valid
//! scalar value, or one maximal invalid subsequence (which shows as U+FFFD). Counting this way
//! makes char offsets agree with the text the reader is shown, while every byte stays
//! addressable by byte offsets.

/// Number of lossy-decoded chars in a buffer that starts and ends on unit boundaries.
pub fn count_chars(buf: &[u8]) -> u64 {
    chunks(buf)
        .map(|(valid, invalid)| {
            bytecount::num_chars(valid.as_bytes()) as u64 + u64::from(!invalid.is_empty())
        })
        .sum()
}

/// The pieces `<[u8]>::utf8_chunks` gives (a valid run, then one invalid unit or nothing),
/// found by `str::from_utf8`, which checks ASCII a word at a time. `Utf8Chunks` looks at one
/// byte at a time: counting the chars of a search's long hit lines took a tenth of the
/// search's time with it.
pub fn chunks(buf: &[u8]) -> impl Iterator<Item = (&str, &[u8])> {
    let mut rest = buf;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                rest = &[];
                Some((valid, &[][..]))
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                // No length: a sequence cut short by the end, which is one unit.
                let (invalid, next) = after.split_at(e.error_len().unwrap_or(after.len()));
                rest = next;
                // Checked again (fast) rather than taken unchecked: no `unsafe` here.
                Some((std::str::from_utf8(valid).unwrap_or_default(), invalid))
            }
        }
    })
}

/// Length of a trailing, still incomplete but valid, UTF-8 sequence prefix (0 to 3 bytes).
pub fn incomplete_tail_len(buf: &[u8]) -> usize {
    let start = buf.len().saturating_sub(3);
    for i in (start..buf.len()).rev() {
        if !is_continuation(buf[i]) {
            return match std::str::from_utf8(&buf[i..]) {
                Err(e) if e.error_len().is_none() && e.valid_up_to() == 0 => buf.len() - i,
                _ => 0,
            };
        }
    }
    0
}

pub fn is_continuation(b: u8) -> bool {
    (b as i8) < -0x40
}

/// Counts chars of a byte stream fed in arbitrary pieces, carrying incomplete sequences.
#[derive(Debug, Default, Clone)]
pub struct CharCounter {
    carry: Vec<u8>,
    chars: u64,
}

impl CharCounter {
    pub fn feed(&mut self, mut buf: &[u8]) {
        if self.carry.is_empty() && buf.is_ascii() {
            // The common case, one fast pass: every byte is a char.
            self.chars += buf.len() as u64;
            return;
        }
        // Finish a sequence split by the previous piece, one byte at a time.
        while !self.carry.is_empty() && !buf.is_empty() {
            self.carry.push(buf[0]);
            match std::str::from_utf8(&self.carry) {
                Ok(_) => {
                    self.chars += 1;
                    self.carry.clear();
                    buf = &buf[1..];
                }
                Err(e) if e.error_len().is_none() => buf = &buf[1..],
                Err(_) => {
                    // The carried prefix is one invalid unit; the new byte starts afresh.
                    self.carry.pop();
                    self.carry.clear();
                    self.chars += 1;
                }
            }
        }
        let tail = incomplete_tail_len(buf);
        self.chars += count_chars(&buf[..buf.len() - tail]);
        self.carry.extend_from_slice(&buf[buf.len() - tail..]);
    }

    /// Chars counted so far, not counting a pending incomplete sequence.
    pub fn chars(&self) -> u64 {
        self.chars
    }

    /// Bytes held back because they may still become one char.
    pub fn pending(&self) -> usize {
        self.carry.len()
    }

    /// Total chars at the end of the stream: a pending prefix counts as one invalid unit.
    pub fn finish(&self) -> u64 {
        self.chars + u64::from(!self.carry.is_empty())
    }
}

/// Byte length of the first `n` chars of `buf` (or of all of it, if it holds fewer), and how
/// many chars that is. `buf` must start on a unit boundary.
pub fn take_chars(buf: &[u8], n: u64, at_eof: bool) -> (usize, u64) {
    let mut bytes = 0usize;
    let mut chars = 0u64;
    for (valid, invalid) in chunks(buf) {
        let have = bytecount::num_chars(valid.as_bytes()) as u64;
        if chars + have >= n {
            let want = (n - chars) as usize;
            let len = valid
                .char_indices()
                .nth(want)
                .map_or(valid.len(), |(i, _)| i);
            return (bytes + len, n);
        }
        chars += have;
        bytes += valid.len();
        if !invalid.is_empty() {
            let is_last = bytes + invalid.len() == buf.len();
            // A truncated sequence at the end of the buffer may continue beyond it.
            if is_last && !at_eof && incomplete_tail_len(invalid) == invalid.len() {
                return (bytes, chars);
            }
            if chars == n {
                return (bytes, chars);
            }
            chars += 1;
            bytes += invalid.len();
        }
    }
    (bytes, chars)
}

/// Lossy text of a buffer, U+FFFD for each invalid unit.
pub fn lossy(buf: &[u8]) -> String {
    lossy_str(buf).into_owned()
}

/// [`lossy`], borrowing `buf` when it is valid UTF-8 (checked a word at a time, where
/// `String::from_utf8_lossy` looks at each byte).
pub fn lossy_str(buf: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(buf) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(buf),
    }
}

/// True when the content looks binary: a NUL byte, or mostly invalid UTF-8, in its first bytes.
pub fn looks_binary(head: &[u8]) -> bool {
    if memchr::memchr(0, head).is_some() {
        return true;
    }
    let check = &head[..head.len() - incomplete_tail_len(head)];
    let invalid: usize = chunks(check).map(|(_, bad)| bad.len()).sum();
    check.len() >= 32 && invalid * 10 > check.len()
}

/// Escaped rendering of binary bytes: printable ASCII and newlines as they are, others `\xNN`.
pub fn escape_binary(buf: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(buf.len() * 2);
    for &b in buf {
        match b {
            b'\n' | b'\t' | 0x20..=0x7e if b != b'\\' => out.push(b as char),
            b'\\' => out.push_str("\\\\"),
            _ => {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lossy_len(b: &[u8]) -> u64 {
        String::from_utf8_lossy(b).chars().count() as u64
    }

    #[test]
    fn counts_agree_with_std_lossy_decoding_for_any_split() {
        let samples: &[&[u8]] = &[
            "héllo wörld 日本語\n".as_bytes(),
            b"\xe2\x82",
            b"a\xe2\x82b\xff\xfe\xf0\x9f\x98\x80z",
            b"\xf0\x9f\x98",
            b"\xed\xa0\x80",
            b"",
        ];
        for s in samples {
            for split in 0..=s.len() {
                let mut c = CharCounter::default();
                c.feed(&s[..split]);
                c.feed(&s[split..]);
                assert_eq!(c.finish(), lossy_len(s), "{s:?} split at {split}");
            }
            for i in 0..s.len() {
                let mut c = CharCounter::default();
                for b in *s {
                    c.feed(std::slice::from_ref(b));
                }
                assert_eq!(c.finish(), lossy_len(s), "{s:?} bytewise {i}");
            }
        }
    }

    proptest::proptest! {
        /// The fast pieces are std's pieces, for bytes that are mostly valid and for noise.
        #[test]
        fn chunks_are_the_pieces_std_finds(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![
                    4 => proptest::prelude::any::<u8>(),
                    4 => proptest::sample::select(vec![b'a', 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xed, 0xa0, 0xff]),
                ],
                0..64,
            )
        ) {
            let ours: Vec<(&str, &[u8])> = chunks(&bytes).collect();
            let std: Vec<(&str, &[u8])> = bytes.utf8_chunks().map(|c| (c.valid(), c.invalid())).collect();
            proptest::prop_assert_eq!(ours, std);
            proptest::prop_assert_eq!(count_chars(&bytes), lossy_len(&bytes));
            proptest::prop_assert_eq!(lossy(&bytes), String::from_utf8_lossy(&bytes).into_owned());
        }
    }

    #[test]
    fn take_chars_stops_on_boundaries() {
        let s = "aé日😀b".as_bytes();
        assert_eq!(take_chars(s, 0, true), (0, 0));
        assert_eq!(take_chars(s, 2, true), (3, 2));
        assert_eq!(take_chars(s, 3, true), (6, 3));
        assert_eq!(take_chars(s, 10, true), (s.len(), 5));
        assert_eq!(take_chars(b"a\xffb", 2, true), (2, 2));
        assert_eq!(take_chars(b"a\xe2\x82", 5, false), (1, 1));
        assert_eq!(take_chars(b"a\xe2\x82", 5, true), (3, 2));
    }

    #[test]
    fn binary_detection() {
        assert!(looks_binary(b"abc\0def"));
        assert!(!looks_binary("plain text, 日本語".as_bytes()));
        assert!(looks_binary(&[0xff; 64]));
        assert_eq!(escape_binary(b"a\0\\\n"), "a\\x00\\\\\n");
    }
}
