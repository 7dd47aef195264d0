//! What a `read` or `fetch` asked to find: the search of the whole stored copy that runs
//! before its first answer, so that the answer can show the best passages beside the preview.

use super::{Paging, Query, build_matcher, search_artifact, search_words, words_of};
use crate::calls::{SearchParams, Target, ToolName};
use crate::dialect::Words;
use crate::envelope::{Found, FoundAt, NextCall};
use crate::error::{Error, Result};
use crate::store::Store;

/// How many passages (or matching lines) a first answer offers to show.
pub const BEST: usize = 5;

/// Lines shown around a line that matched a pattern.
const AROUND: u64 = 1;

/// What to find.
#[derive(Debug, Clone)]
pub enum Find {
    /// Words, ranked (as `search` with `query`).
    Words(String),
    /// A regex, or with `literal` a text (as `search` with `pattern`).
    Pattern(Query),
}

impl Find {
    /// From the arguments a tool takes: `query` (words) or `pattern` (with its flags), not both,
    /// checked before anything is fetched or stored.
    pub fn from_args(
        tool: ToolName,
        query: Option<&str>,
        pattern: Option<&str>,
        literal: bool,
        case_insensitive: bool,
    ) -> Result<Option<Self>> {
        let find = match (query, pattern) {
            (None, None) if literal || case_insensitive => Err(Error::invalid_words(
                Words::default()
                    .arg(tool, "literal")
                    .then(" and ")
                    .arg(tool, "case_insensitive")
                    .then(" go with a ")
                    .arg(tool, "pattern"),
                Words::text("give the ")
                    .arg(tool, "pattern")
                    .then(" to find"),
            )),
            (None, None) => Ok(None),
            (Some(words), None) => Ok(Some(Self::Words(words.to_owned()))),
            (None, Some(pattern)) => Ok(Some(Self::Pattern(Query {
                pattern: pattern.to_owned(),
                literal,
                case_insensitive,
                words: None,
            }))),
            (Some(_), Some(_)) => Err(Error::invalid_words(
                Words::default()
                    .arg(tool, "query")
                    .then(" (words) and ")
                    .arg(tool, "pattern")
                    .then(" (a regex or text) cannot be asked for together"),
                Words::text("give one of the two"),
            )),
        }?;
        if let Some(f) = &find {
            f.check(tool)?;
        }
        Ok(find)
    }

    /// A bad regex, or only common words, is an error the caller can fix.
    fn check(&self, tool: ToolName) -> Result<()> {
        match self {
            Self::Pattern(q) => build_matcher(q).map(|_| ()),
            Self::Words(text) if words_of(text).looked_for.is_empty() => Err(Error::invalid_words(
                format!("`{text}` has no words to look for (only words too common to rank by)")
                    .into(),
                Words::text("give the words the passage would hold in ")
                    .arg(tool, "query")
                    .then(", e.g. `timeout retry`"),
            )),
            Self::Words(_) => Ok(()),
        }
    }
}

/// Searches all of artifact `reference` for `find`: the count, the best passages (best first;
/// for a pattern the first lines that match, each with a line around it), and the search that
/// lists them all.
pub fn find(store: &Store, reference: &str, find: &Find) -> Result<Found> {
    let paging = Paging {
        context: 0,
        limit: Some(BEST),
        cursor: None,
    };
    let reader = store.open_artifact(reference)?;
    let meta = reader.meta();
    match find {
        Find::Words(text) => {
            let answer = search_words(store, reference, text, &paging)?;
            let words = answer.query.words.clone().unwrap_or_default();
            let best = answer
                .hits
                .iter()
                .map(|h| FoundAt {
                    start_line: h.line,
                    end_line: h.end_line.unwrap_or(h.line),
                    score: h.score,
                    shown: false,
                    around: (h.line, h.end_line.unwrap_or(h.line)),
                    span: (h.byte_offset, h.end_byte.unwrap_or(h.byte_offset)),
                })
                .collect();
            Ok(Found {
                query: Some(text.clone()),
                pattern: None,
                literal: false,
                case_insensitive: false,
                looked_for: words.looked_for,
                left_out: words.left_out,
                hit_count: answer.hit_count,
                best,
                search: Some(NextCall::Search(SearchParams::words(
                    Target::reference(reference),
                    text.as_str(),
                ))),
            })
        }
        Find::Pattern(query) => {
            let answer = search_artifact(store, reference, query, &paging)?;
            let mut best = Vec::with_capacity(answer.hits.len());
            for h in &answer.hits {
                let at = if let Some(t) = h.trimmed {
                    // A long line: the chars around the match, as the hit shows them.
                    let line = reader.line_start(h.line)?;
                    let from = reader.pos_at_char(line.char + t.start_char)?;
                    let to = reader.pos_at_char(line.char + t.end_char)?;
                    FoundAt {
                        start_line: h.line,
                        end_line: h.line,
                        score: None,
                        shown: false,
                        around: (h.line, h.line),
                        span: (from.byte, to.byte),
                    }
                } else {
                    let first = h.line.saturating_sub(AROUND).max(1);
                    let last = (h.line + AROUND).min(meta.lines.max(1));
                    let start = reader.line_start(first)?.byte;
                    // The span stops before the last line's newline, as a passage's does.
                    let end = if last >= meta.lines {
                        meta.bytes
                    } else {
                        reader.line_start(last + 1)?.byte - 1
                    };
                    FoundAt {
                        start_line: h.line,
                        end_line: h.line,
                        score: None,
                        shown: false,
                        around: (first, last),
                        span: (start, end),
                    }
                };
                best.push(at);
            }
            let search = NextCall::Search(SearchParams {
                literal: query.literal,
                case_insensitive: query.case_insensitive,
                ..SearchParams::pattern(Target::reference(reference), query.pattern.as_str())
            });
            Ok(Found {
                query: None,
                pattern: Some(query.pattern.clone()),
                literal: query.literal,
                case_insensitive: query.case_insensitive,
                looked_for: Vec::new(),
                left_out: Vec::new(),
                hit_count: answer.hit_count,
                best,
                search: Some(search),
            })
        }
    }
}
