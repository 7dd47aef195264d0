//! Which way the times in a text run: a log is oldest first (its news at the end), a history such
//! as `git log` newest first (its news at the start). A preview chosen from a tool's name alone
//! would show the oldest commits of a `git_log`; the data says which end is new.

use crate::error::Result;
use crate::store::ArtifactReader;

/// How much of each end of an artifact is looked at.
const LOOK: usize = 64 << 10;

/// The way an artifact's times run, with the first and the last time seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeOrder {
    NewestFirst { first: String, last: String },
    OldestFirst { first: String, last: String },
}

/// The order of the times at the two ends of the artifact, when both ends hold one and they
/// differ.
pub fn time_order(reader: &ArtifactReader) -> Result<Option<TimeOrder>> {
    let size = reader.size();
    let head = reader.read_at(0, LOOK)?;
    let tail_at = size.saturating_sub(LOOK as u64);
    let tail = if tail_at == 0 {
        head.clone()
    } else {
        reader.read_at(tail_at, LOOK)?
    };
    let (Some(first), Some(last)) = (times(&head).next(), times(&tail).last()) else {
        return Ok(None);
    };
    Ok(match first.cmp(&last) {
        std::cmp::Ordering::Greater => Some(TimeOrder::NewestFirst { first, last }),
        std::cmp::Ordering::Less => Some(TimeOrder::OldestFirst { first, last }),
        std::cmp::Ordering::Equal => None,
    })
}

/// The times in `bytes`, as `YYYY-MM-DD HH:MM:SS` (seconds and the separator as written), in
/// the order they stand. Dates alone count too (`YYYY-MM-DD`): ISO times sort as text.
pub fn times(bytes: &[u8]) -> impl Iterator<Item = String> + '_ {
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    let mut at = 0;
    std::iter::from_fn(move || {
        while at + 10 <= bytes.len() {
            let b = &bytes[at..];
            let date = digits(&b[0..4])
                && b[4] == b'-'
                && digits(&b[5..7])
                && b[7] == b'-'
                && digits(&b[8..10])
                && (at == 0 || !bytes[at - 1].is_ascii_digit());
            if !date {
                at += 1;
                continue;
            }
            let mut end = 10;
            // `T09:00` or ` 09:00`, then `:00` if given.
            if b.len() >= 16
                && (b[10] == b'T' || b[10] == b' ')
                && digits(&b[11..13])
                && b[13] == b':'
                && digits(&b[14..16])
            {
                end = 16;
                if b.len() >= 19 && b[16] == b':' && digits(&b[17..19]) {
                    end = 19;
                }
            }
            let mut found: Vec<u8> = b[..end].to_vec();
            if end > 10 {
                found[10] = b' ';
            }
            at += end;
            return Some(String::from_utf8_lossy(&found).into_owned());
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_found_as_written() {
        let text = b"Date: 2026-11-30 09:00:00+00:00\nat 2026-11-29T08:07Z and 2025-01-02.\nv1.2026-01-01x";
        let found: Vec<String> = times(text).collect();
        assert_eq!(
            found,
            [
                "2026-11-30 09:00:00",
                "2026-11-29 08:07",
                "2025-01-02",
                "2026-01-01"
            ]
        );
        assert_eq!(
            times(b"12026-11-30 no").count(),
            0,
            "not inside a longer number"
        );
    }
}
