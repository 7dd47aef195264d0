//! What a command prints is scrubbed of the secrets spool knows (the values of the variables
//! withheld from it) before it is stored: a command that finds one another way (the server's
//! own `/proc/$PPID/environ`, readable by a superuser's command; a `.env` file holding the same
//! key) still shows `[withheld: NAME]`, never the value. Streamed: a secret split across two
//! reads is found, the end of a read that begins one held back until the next read.
//!
//! Each secret is looked for in the forms a program prints it in: as it is, and in base64
//! (standard and URL-safe) at each of the three alignments it can have inside a longer encoded
//! text, as an `Authorization: Basic` header holds `user:password`. Regression (issue 58): an
//! API that echoed the header it got showed `Basic dXNlcjpodW50ZXIy…`, the URL's password.

use std::borrow::Cow;

use crate::store::Stream;

/// Replaces known secret values in a command's output streams.
pub struct Scrubber {
    secrets: Vec<(String, Vec<u8>)>,
    /// The bytes that could begin a secret, held back, for stdout and stderr.
    held: [Vec<u8>; 2],
}

impl Scrubber {
    /// A scrubber of `secrets` (name, value) in every form [`forms`] gives; values shorter
    /// than 8 bytes are not looked for.
    pub fn new(secrets: Vec<(String, Vec<u8>)>) -> Self {
        let mut secrets: Vec<(String, Vec<u8>)> = secrets
            .into_iter()
            .filter(|(_, v)| v.len() >= 8)
            .flat_map(|(name, value)| {
                forms(&value)
                    .into_iter()
                    .map(move |form| (name.clone(), form))
            })
            .collect();
        // Longest first: where two forms overlap, the longer is replaced whole.
        secrets.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
        secrets.dedup_by(|a, b| a.1 == b.1);
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

/// The forms of `secret` to look for: itself, and the part of its base64 (standard and
/// URL-safe) that does not depend on what stands before or after it, at each of the three
/// offsets it can begin at inside an encoded text. A core shorter than 8 characters is left
/// out (it would match ordinary words).
pub fn forms(secret: &[u8]) -> Vec<Vec<u8>> {
    use base64::Engine as _;
    let mut out = vec![secret.to_vec()];
    for offset in 0..3usize {
        // `offset` bytes of something else before it; whole groups of three then hold only
        // its bytes from `skip` up to the last whole group.
        let skip = (3 - offset) % 3;
        if secret.len() <= skip {
            continue;
        }
        let rest = &secret[skip..];
        let whole = &rest[..rest.len() / 3 * 3];
        for engine in [
            &base64::engine::general_purpose::STANDARD,
            &base64::engine::general_purpose::URL_SAFE,
        ] {
            let core = engine.encode(whole).into_bytes();
            if core.len() >= 8 && !out.contains(&core) {
                out.push(core);
            }
        }
    }
    out
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

    #[test]
    fn a_secret_inside_base64_is_found_at_every_alignment() {
        use base64::Engine as _;
        let secret = b"hunter2-very-secret";
        for before in ["", "u", "us", "user:", "x-access-token:"] {
            for after in ["", "!", "\n\n"] {
                let text = [before.as_bytes(), secret, after.as_bytes()].concat();
                for engine in [
                    &base64::engine::general_purpose::STANDARD,
                    &base64::engine::general_purpose::URL_SAFE_NO_PAD,
                ] {
                    let header = format!("Authorization: Basic {}", engine.encode(&text));
                    let mut s = Scrubber::new(vec![("PW".into(), secret.to_vec())]);
                    let mut out = s.pass(Stream::Stdout, header.as_bytes()).into_owned();
                    out.extend_from_slice(&s.finish(Stream::Stdout));
                    let out = String::from_utf8(out).unwrap();
                    assert!(
                        out.contains("[withheld: PW]"),
                        "{before:?} {after:?}: {out}"
                    );
                    assert!(!out.contains(&engine.encode(&text)), "{out}");
                }
            }
        }
    }
}
