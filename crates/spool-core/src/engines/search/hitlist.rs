//! How a directory search's hits are stored: one compact JSON array a line,
//! `[line, byte_offset, "path", "text"]`, then only what the hit has of `trimmed` (as
//! `[line_chars, start_char, end_char]`), `before` and `after` (as `[[line, "text"], ...]`).
//! Object keys repeated for every hit made a list of short lines five times the size of what
//! was searched; a list stored as objects by an earlier version still reads.

use serde_json::Value;

use super::{ContextLine, Hit, Trim};

/// A hit list's lines on their way to its artifact, written a few hundred KiB at a time: a
/// write per file with hits (or per hit, for a large file) was a system call each, 2,500 of
/// them for a search of a 20,000-file repository.
pub(super) struct Batched<'s> {
    writer: crate::store::ArtifactWriter<'s>,
    pending: Vec<u8>,
}

/// Bytes held before they are written.
const BATCH_BYTES: usize = 256 << 10;

impl<'s> Batched<'s> {
    pub(super) fn new(writer: crate::store::ArtifactWriter<'s>) -> Self {
        Self {
            writer,
            pending: Vec::with_capacity(BATCH_BYTES),
        }
    }

    pub(super) fn write(&mut self, bytes: &[u8]) {
        if self.pending.len() + bytes.len() > BATCH_BYTES {
            self.flush();
        }
        if bytes.len() >= BATCH_BYTES {
            self.writer.write(bytes);
        } else {
            self.pending.extend_from_slice(bytes);
        }
    }

    fn flush(&mut self) {
        if !self.pending.is_empty() {
            self.writer.write(&self.pending);
            self.pending.clear();
        }
    }

    /// Writes what is held and starts syncing it (see
    /// [`crate::store::ArtifactWriter::start_sync`]): nothing more is to come.
    pub(super) fn written(&mut self) {
        self.flush();
        self.writer.start_sync();
    }

    /// The writer, everything written to it.
    pub(super) fn into_writer(mut self) -> crate::store::ArtifactWriter<'s> {
        self.flush();
        self.writer
    }
}

/// One hit as a stored line (without the newline).
#[cfg(test)]
pub(super) fn encode(hit: &Hit) -> Vec<u8> {
    let mut line = Vec::new();
    encode_into(hit, &mut line);
    line
}

/// One hit as a stored line (without the newline), appended to `out`: written as it is
/// serialized, with no JSON value built first (a value per field, and a copy of the path and
/// the text in them, were most of a directory search's allocations).
pub(super) fn encode_into(hit: &Hit, out: &mut Vec<u8>) {
    let parts = Parts {
        line: hit.line,
        byte_offset: hit.byte_offset,
        path: hit.path.as_deref(),
        text: &hit.text,
        trimmed: hit.trimmed,
        before: &hit.before,
        after: &hit.after,
    };
    parts.encode_into(out);
}

/// A hit's stored fields, borrowed: what a sink that builds no [`Hit`] encodes (see
/// [`super::sink::EncodingSink`]), and what [`encode_into`] encodes of a `Hit`, so the two
/// write the same line.
pub(super) struct Parts<'a> {
    pub line: u64,
    pub byte_offset: u64,
    pub path: Option<&'a str>,
    pub text: &'a str,
    pub trimmed: Option<Trim>,
    pub before: &'a [ContextLine],
    pub after: &'a [ContextLine],
}

impl Parts<'_> {
    /// The stored line (without the newline), appended to `out`.
    pub(super) fn encode_into(&self, out: &mut Vec<u8>) {
        use serde::ser::{SerializeSeq as _, Serializer as _};
        /// `[[line, "text"], ...]`.
        struct Context<'a>(&'a [ContextLine]);
        impl serde::Serialize for Context<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.iter().map(|c| (c.line, c.text.as_str())))
            }
        }
        let trimmed = self
            .trimmed
            .map(|t| [t.line_chars, t.start_char, t.end_char]);
        // Trailing fields a hit does not have are left out.
        let used = if !self.after.is_empty() {
            3
        } else if !self.before.is_empty() {
            2
        } else {
            usize::from(trimmed.is_some())
        };
        let mut ser = serde_json::Serializer::new(out);
        // Writing to a `Vec` does not fail, nor does serializing numbers and strings.
        let _ = (|| {
            let mut seq = ser.serialize_seq(Some(4 + used))?;
            seq.serialize_element(&self.line)?;
            seq.serialize_element(&self.byte_offset)?;
            seq.serialize_element(&self.path)?;
            seq.serialize_element(self.text)?;
            if used >= 1 {
                seq.serialize_element(&trimmed)?;
            }
            if used >= 2 {
                seq.serialize_element(&Context(self.before))?;
            }
            if used >= 3 {
                seq.serialize_element(&Context(self.after))?;
            }
            seq.end()
        })();
    }
}

/// A stored line back into its hit: the compact array, or an object written by an earlier
/// version.
pub(super) fn decode(line: &[u8]) -> Result<Hit, String> {
    if line.first() != Some(&b'[') {
        return serde_json::from_slice(line).map_err(|e| e.to_string());
    }
    let v: Vec<Value> = serde_json::from_slice(line).map_err(|e| e.to_string())?;
    let num = |i: usize| {
        v.get(i)
            .and_then(Value::as_u64)
            .ok_or(format!("field {i} is not a number"))
    };
    let context = |i: usize| -> Vec<ContextLine> {
        v.get(i)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| {
                Some(ContextLine {
                    line: c.get(0)?.as_u64()?,
                    text: c.get(1)?.as_str()?.to_owned(),
                })
            })
            .collect()
    };
    let trimmed = v.get(4).and_then(Value::as_array).and_then(|t| {
        Some(Trim {
            line_chars: t.first()?.as_u64()?,
            start_char: t.get(1)?.as_u64()?,
            end_char: t.get(2)?.as_u64()?,
        })
    });
    Ok(Hit {
        line: num(0)?,
        byte_offset: num(1)?,
        path: v.get(2).and_then(Value::as_str).map(str::to_owned),
        text: v
            .get(3)
            .and_then(Value::as_str)
            .ok_or("field 3 is not text")?
            .to_owned(),
        trimmed,
        before: context(5),
        after: context(6),
        end_line: None,
        score: None,
        since: None,
        end_byte: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit() -> Hit {
        Hit {
            path: Some("src/a \"b\".rs".into()),
            line: 12,
            byte_offset: 345,
            text: "let x = \"y\";\t// tab".into(),
            trimmed: None,
            before: vec![ContextLine {
                line: 11,
                text: "fn f() {".into(),
            }],
            after: Vec::new(),
            end_line: None,
            score: None,
            since: None,
            end_byte: None,
        }
    }

    #[test]
    fn a_hit_reads_back_as_it_was_stored() {
        let mut h = hit();
        assert_eq!(decode(&encode(&h)).unwrap(), h);
        h.trimmed = Some(Trim {
            line_chars: 9000,
            start_char: 100,
            end_char: 400,
        });
        h.after = vec![ContextLine {
            line: 13,
            text: "}".into(),
        }];
        assert_eq!(decode(&encode(&h)).unwrap(), h);
        let bare = Hit {
            before: Vec::new(),
            ..hit()
        };
        assert_eq!(
            encode(&bare),
            br#"[12,345,"src/a \"b\".rs","let x = \"y\";\t// tab"]"#
        );
    }

    /// The encoding as it was made before (a JSON value built, then written): lists stored
    /// then and now are the same bytes.
    fn encode_by_value(hit: &Hit) -> Vec<u8> {
        use serde_json::json;
        let context = |lines: &[ContextLine]| -> Value {
            Value::Array(lines.iter().map(|c| json!([c.line, c.text])).collect())
        };
        let mut fields = vec![
            json!(hit.line),
            json!(hit.byte_offset),
            json!(hit.path),
            json!(hit.text),
        ];
        let trimmed = hit.trimmed.map_or(Value::Null, |t| {
            json!([t.line_chars, t.start_char, t.end_char])
        });
        let tail = [trimmed, context(&hit.before), context(&hit.after)];
        let used = tail
            .iter()
            .rposition(|v| !(v.is_null() || v.as_array().is_some_and(Vec::is_empty)))
            .map_or(0, |i| i + 1);
        fields.extend(tail.into_iter().take(used));
        serde_json::to_vec(&Value::Array(fields)).unwrap()
    }

    #[test]
    fn a_hit_is_stored_as_the_same_bytes_as_before() {
        let trim = Some(Trim {
            line_chars: 9000,
            start_char: 100,
            end_char: 400,
        });
        let line = |n, t: &str| ContextLine {
            line: n,
            text: t.into(),
        };
        let cases = [
            Hit {
                before: Vec::new(),
                ..hit()
            },
            hit(),
            Hit {
                trimmed: trim,
                before: Vec::new(),
                ..hit()
            },
            Hit {
                after: vec![line(13, "}"), line(14, "\u{1F600} \u{0}")],
                before: Vec::new(),
                ..hit()
            },
            Hit {
                trimmed: trim,
                after: vec![line(13, "}")],
                ..hit()
            },
            Hit {
                path: None,
                text: "\u{7f}\u{2028}é".into(),
                before: Vec::new(),
                ..hit()
            },
        ];
        for h in &cases {
            assert_eq!(
                String::from_utf8(encode(h)).unwrap(),
                String::from_utf8(encode_by_value(h)).unwrap()
            );
            assert_eq!(decode(&encode(h)).unwrap(), *h);
        }
    }

    #[test]
    fn a_list_stored_as_objects_still_reads() {
        let h = hit();
        let old = serde_json::to_vec(&h).unwrap();
        assert_eq!(decode(&old).unwrap(), h);
        assert!(decode(b"[1]").is_err());
    }
}
