//! What a command prints is scrubbed of the secrets spool knows (the values of the variables
//! withheld from it) before it is stored: a command that finds one another way (the server's
//! own `/proc/$PPID/environ`, readable by a superuser's command; a `.env` file holding the same
//! key) still shows `[withheld: NAME]`, never the value. Streamed: a secret split across two
//! reads is found, the end of a read that begins one held back until the next read.

use std::borrow::Cow;

use crate::store::Stream;

/// Replaces known secret values in a command's output streams.
pub struct Scrubber {
    secrets: Vec<(String, Vec<u8>)>,
    /// The bytes that could begin a secret, held back, for stdout and stderr.
    held: [Vec<u8>; 2],
}

impl Scrubber {
    /// A scrubber of `secrets` (name, value); values shorter than 8 bytes are not looked for.
    pub fn new(secrets: Vec<(String, Vec<u8>)>) -> Self {
        let secrets: Vec<_> = secrets.into_iter().filter(|(_, v)| v.len() >= 8).collect();
        Self {
            secrets,
            held: [Vec::new(), Vec::new()],
        }
    }

    fn slot(stream: Stream) -> usize {
        match stream {
            Stream::Stdout => 0,
            Stream::Stderr => 1,
        }
    }

    /// The bytes of `stream` that can be stored now: what was held and `buf`, each secret
    /// replaced, less the last bytes that could begin one.
    pub fn pass<'b>(&mut self, stream: Stream, buf: &'b [u8]) -> Cow<'b, [u8]> {
        if self.secrets.is_empty() {
            return Cow::Borrowed(buf);
        }
        let slot = Self::slot(stream);
        let mut data = std::mem::take(&mut self.held[slot]);
        data.extend_from_slice(buf);
        // Held back: only an end of `data` that begins a secret (a command that prints a line
        // and waits shows the line at once, not when it next prints).
        let safe = data.len() - self.begun_at_end(&data);
        let (out, rest) = self.replaced(&data, safe);
        self.held[slot] = data[rest..].to_vec();
        Cow::Owned(out)
    }

    /// How many of the last bytes of `data` are the beginning of a secret (the most).
    fn begun_at_end(&self, data: &[u8]) -> usize {
        // Only where a secret's first byte stands in the tail can one begin: each such place
        // is checked once, so a long value (a PEM key in the environment) costs a scan of the
        // tail per read, not its square.
        self.secrets
            .iter()
            .filter_map(|(_, v)| {
                let tail = &data[data.len().saturating_sub(v.len() - 1)..];
                let base = data.len() - tail.len();
                memchr::memchr_iter(v[0], tail)
                    .find(|&at| v.starts_with(&tail[at..]))
                    .map(|at| data.len() - (base + at))
            })
            .max()
            .unwrap_or(0)
    }

    /// What is held of `stream`, scrubbed: its end.
    pub fn finish(&mut self, stream: Stream) -> Vec<u8> {
        let data = std::mem::take(&mut self.held[Self::slot(stream)]);
        let (out, _) = self.replaced(&data, data.len());
        out
    }

    /// `data` up to `safe` with each secret starting before it replaced, and where the rest
    /// (not yet written) starts.
    fn replaced(&self, data: &[u8], safe: usize) -> (Vec<u8>, usize) {
        let mut found: Vec<(usize, usize, &str)> = Vec::new();
        for (name, value) in &self.secrets {
            for at in memchr::memmem::find_iter(data, value) {
                if at < safe {
                    found.push((at, at + value.len(), name));
                }
            }
        }
        found.sort_unstable();
        let mut out = Vec::with_capacity(data.len());
        let mut at = 0;
        for (start, end, name) in found {
            if start < at {
                continue;
            }
            out.extend_from_slice(&data[at..start]);
            out.extend_from_slice(format!("[withheld: {name}]").as_bytes());
            at = end;
        }
        let until = safe.max(at);
        out.extend_from_slice(&data[at.min(until)..until]);
        (out, until)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_split_across_reads_is_found_and_the_rest_kept_whole() {
        let mut s = Scrubber::new(vec![("T".into(), b"sk-TEST-0123456789".to_vec())]);
        let text = b"before sk-TEST-0123456789 middle sk-TEST-0123456789 after".to_vec();
        for cut in 1..text.len() {
            let mut out = s.pass(Stream::Stdout, &text[..cut]).into_owned();
            out.extend_from_slice(&s.pass(Stream::Stdout, &text[cut..]));
            out.extend_from_slice(&s.finish(Stream::Stdout));
            assert_eq!(
                String::from_utf8(out).unwrap(),
                "before [withheld: T] middle [withheld: T] after",
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn output_that_begins_no_secret_is_passed_at_once() {
        let mut s = Scrubber::new(vec![("T".into(), b"sk-TEST-0123456789".to_vec())]);
        assert_eq!(&*s.pass(Stream::Stdout, b"100000\n"), b"100000\n");
        // An end that begins the secret waits for the next read.
        assert_eq!(&*s.pass(Stream::Stderr, b"key: sk-TE"), b"key: ");
        assert_eq!(&*s.pass(Stream::Stderr, b"ST!"), b"sk-TEST!");
    }
}
