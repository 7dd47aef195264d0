//! Search over a whole artifact: every hit counted, a page of them returned, the rest by cursor.

mod artifact;
mod artifact_parts;
mod blocks;
mod counts;
mod file_hits;
mod find;
mod hitlist;
mod links;
mod parallel;
mod passages;
mod ranked;
mod ranked_tree;
mod scope;
mod since;
mod sink;
mod streamed;
mod text;
pub mod tree;

pub use counts::FileCount;
pub use scope::{ArtifactScope, Scope, Skipped, TreeScope, TreeVersion};

pub use artifact::search_artifact;
pub use find::{BEST, Find, find};
pub use ranked::{MAX_QUERY_WORDS, QueryWords, search_words, words_of};
pub use text::{notice, render_answer, structured};

use grep_regex::RegexMatcherBuilder;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::calls::{SearchParams, Target, ToolName};
use crate::cursor;
use crate::dialect::Words;
use crate::envelope::{NextCall, Reason, ReasonCode};
use crate::error::{Error, Result};
use crate::fit::{self, Cap};
use crate::render::Dialect;

use crate::store::Store;

/// Hits per file of artifact `reference` (`count`): the artifact is its one entry.
pub fn count_of_ref(
    store: &Store,
    reference: &str,
    query: &Query,
    paging: &Paging,
) -> Result<SearchAnswer> {
    page_limit(paging)?;
    let one = Paging {
        context: 0,
        limit: Some(1),
        cursor: None,
    };
    let answer = search_artifact(store, reference, query, &one)?;
    Ok(counts::of_one(answer, reference))
}

/// Default and largest page of hits.
pub const DEFAULT_LIMIT: usize = 50;
pub const MAX_LIMIT: usize = crate::calls::MAX_HITS;
/// Lines longer than this are trimmed around the match.
pub const LONG_LINE: usize = 300;

/// What to look for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Query {
    pub pattern: String,
    #[serde(default)]
    pub literal: bool,
    #[serde(default)]
    pub case_insensitive: bool,
    /// A ranked word search: the words looked for (`pattern` holds them as given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub words: Option<WordQuery>,
}

/// What a ranked word search looked for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WordQuery {
    /// The words, lowercased, names split into their parts (stemmed when matched).
    pub looked_for: Vec<String>,
    /// Words left out as too common to rank by.
    pub left_out: Vec<String>,
    /// Words past the most a query looks for ([`MAX_QUERY_WORDS`]), not used.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_used: u64,
    /// How passages are ranked: `bm25`.
    pub ranked_by: String,
}

/// How much of it to return.
#[derive(Debug, Clone, Default)]
pub struct Paging {
    pub context: u64,
    pub limit: Option<usize>,
    pub cursor: Option<String>,
}

/// One matching line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Hit {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub line: u64,
    pub byte_offset: u64,
    pub text: String,
    /// Present when a long line was cut around the match: which chars of the line are shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trimmed: Option<Trim>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub before: Vec<ContextLine>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<ContextLine>,
    /// A ranked passage's last line (it starts at `line`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u64>,
    /// A ranked passage's score (BM25; higher is better).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// On a cursor page of a directory search: its file was `deleted since the search` or
    /// `changed since the search` (the hit is as the search found it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// A ranked passage's end (exclusive) in the artifact's bytes: what a read shows of it.
    #[serde(skip)]
    pub end_byte: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Trim {
    pub line_chars: u64,
    pub start_char: u64,
    pub end_char: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ContextLine {
    pub line: u64,
    pub text: String,
}

/// The search answer of CONTRACT.md. Its fields serialize in the contract's order: the counts
/// and how to go on first, then the query and scope, then the hits (the content), so that a
/// host that cuts the JSON still shows the facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(transform = hits_or_files)]
pub struct SearchAnswer {
    pub hit_count: u64,
    pub hit_count_exact: bool,
    /// How many files hold a hit, all of them (`count`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_with_hits: Option<u64>,
    pub truncated: bool,
    pub next_cursor: Option<String>,
    /// The calls that go on from here: the next page, every argument of this search kept.
    #[serde(default)]
    pub next: Vec<NextCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    /// Why this page holds fewer hits than asked for (the answer's cap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_reason: Option<Reason>,
    pub query: Query,
    pub scope: Scope,
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub hits: Vec<Hit>,
    /// Lines longer than a window (4 MiB), searched in windows: each is counted once, but a
    /// match longer than the windows' overlap across an edge is not found, and a regex's `^`
    /// or `$` also matches at an edge.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub windowed_lines: u64,
    /// Hits per file (`count`), a page of them, in path order: then `hits` is empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<FileCount>>,
    /// How many files came before this page (`count`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub first_file_index: u64,
    /// The call that repeats this search, without its cursor.
    #[serde(skip)]
    pub repeat: Option<SearchParams>,
    /// How to make a cursor that continues after any hit of this page.
    #[serde(skip)]
    resume: Resume,
}

/// The schema of the search answer: the hits, or (`count`) the files with how many each
/// holds; an answer has one of the two.
fn hits_or_files(schema: &mut schemars::Schema) {
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.retain(|k| k != "hits");
    }
    schema.insert(
        "anyOf".into(),
        serde_json::json!([{ "required": ["hits"] }, { "required": ["files", "files_with_hits"] }]),
    );
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What a cursor continuing a page needs besides the position.
#[derive(Debug, Clone, Default, PartialEq)]
enum Resume {
    #[default]
    Nowhere,
    /// After a line of an artifact; `first` hits came before this page.
    Artifact {
        reference: String,
        digest: String,
        first: u64,
    },
    /// After a ranked passage of an artifact; `first` passages came before this page.
    Ranked {
        reference: String,
        digest: String,
        first: u64,
    },
    /// After a ranked passage of a tree's stored passages; `first` came before this page.
    RankedTree {
        passages: String,
        digest: String,
        first: u64,
    },
    /// After a hit of a stored hit list.
    Tree {
        hits: String,
        digest: String,
        first: u64,
    },
    /// After a file of stored hits per file; `first` files came before this page.
    Counts {
        counts: String,
        digest: String,
        first: u64,
    },
}

impl SearchAnswer {
    /// The cursor that continues after the first `kept` hits of this page.
    fn cursor_after(&self, store: &Store, kept: usize) -> Option<String> {
        match &self.resume {
            Resume::Nowhere => None,
            Resume::Artifact {
                reference,
                digest,
                first,
            } => self.hits.get(kept.checked_sub(1)?).map(|last| {
                cursor::seal(
                    store,
                    &CursorPayload {
                        k: "search".into(),
                        r: reference.clone(),
                        q: digest.clone(),
                        after: last.line,
                        n: self.hit_count,
                        i: first + kept as u64,
                    },
                )
            }),
            Resume::Tree {
                hits,
                digest,
                first,
            } => Some(tree::cursor(store, hits, digest, first + kept as u64)),
            Resume::Counts {
                counts,
                digest,
                first,
            } => Some(counts::cursor(store, counts, digest, first + kept as u64)),
            Resume::RankedTree {
                passages,
                digest,
                first,
            } => Some(ranked_tree::cursor(
                store,
                passages,
                digest,
                first + kept as u64,
            )),
            Resume::Ranked {
                reference,
                digest,
                first,
            } => Some(cursor::seal(
                store,
                &CursorPayload {
                    k: "words".into(),
                    r: reference.clone(),
                    q: digest.clone(),
                    after: 0,
                    n: self.hit_count,
                    i: first + kept as u64,
                },
            )),
        }
    }

    /// `next` from `repeat` and `next_cursor`; for a directory search that found nothing, the
    /// same search over what it left out (see [`Self::wider`]).
    fn set_next(&mut self) {
        self.next.clear();
        if let (Some(c), Some(repeat)) = (&self.next_cursor, &self.repeat) {
            self.next
                .push(NextCall::Search(repeat.clone()).with_cursor(c));
        }
        // A page of a tree that changed since its search: the same search, afresh.
        if let (Scope::Tree(t), Some(repeat)) = (&self.scope, &self.repeat)
            && t.changed_since.is_some()
        {
            let mut fresh = repeat.clone();
            fresh.cursor = None;
            self.next.push(NextCall::Search(fresh));
        }
        if self.hit_count == 0 && self.scope.first_hit_index() == 0 {
            let wider = self.wider();
            self.next.extend(wider.into_iter().map(|(call, _)| call));
            // Nothing in a copy that holds part of its source: the call to the rest.
            if let Scope::Artifact(a) = &self.scope {
                let c = a.source.coverage();
                if c.leaves_out()
                    && let Some(rest) = c.rest
                {
                    self.next.push(rest);
                }
            }
        }
    }

    /// The same search over the files a directory search left out by a restriction of its
    /// own (outside its globs, ignored, hidden), each with what it adds: "found nothing here"
    /// is not "found nothing", and these are the calls that look where it did not.
    pub fn wider(&self) -> Vec<(NextCall, String)> {
        let Scope::Tree(t) = &self.scope else {
            return Vec::new();
        };
        let Some(repeat) = &self.repeat else {
            return Vec::new();
        };
        let k = &t.files_skipped;
        let mut out = Vec::new();
        let mut with = |change: &dyn Fn(&mut SearchParams), adds: &str| {
            let mut wider = repeat.clone();
            wider.cursor = None;
            change(&mut wider);
            out.push((NextCall::Search(wider), adds.to_owned()));
        };
        if !t.globs.is_empty() && k.outside_glob != Some(0) {
            with(
                &|a| {
                    a.glob.clear();
                },
                if t.globs.len() == 1 {
                    "without the glob"
                } else {
                    "without the globs"
                },
            );
        }
        if !t.no_ignore && k.ignored != Some(0) {
            with(
                &|a| {
                    a.no_ignore = true;
                },
                "with the ignored files",
            );
        }
        if !t.hidden && k.hidden != Some(0) {
            with(
                &|a| {
                    a.hidden = true;
                },
                "with the hidden files",
            );
        }
        // Each file left unread that a search of it alone reads (in windows, whatever its
        // bytes): binary, too large, a line too long. Not one that could not be read.
        for unread in t.unread.iter().filter(|u| u.why != "unreadable").take(3) {
            let path = if t.root == "." || t.root.is_empty() {
                unread.path.clone()
            } else {
                format!("{}/{}", t.root.trim_end_matches('/'), unread.path)
            };
            with(
                &|a| {
                    a.path = Some(path.clone());
                    a.reference = None;
                    a.glob.clear();
                },
                &format!("of `{path}` alone (not read here: {})", unread.why),
            );
        }
        // Where each symlink not followed leads, searched in its own right.
        for link in &t.links {
            if let Some(to) = &link.leads_to {
                with(
                    &|a| {
                        a.path = Some(to.clone());
                        a.reference = None;
                    },
                    &format!("of `{to}` (where the symlink `{}` leads)", link.path),
                );
            }
        }
        out
    }

    /// Why this answer is not every hit, as its reason code: the search stopping early (its
    /// `reason`), the cap cutting the page (`page_reason`), the caller's own `limit`, or the
    /// default page size. `None` when every hit is here.
    pub fn partial_code(&self) -> Option<ReasonCode> {
        if let Some(r) = &self.reason {
            return Some(r.code);
        }
        if !self.truncated && self.scope.first_hit_index() == 0 && self.first_file_index == 0 {
            return None;
        }
        if let Some(r) = &self.page_reason {
            return Some(r.code);
        }
        // A page that starts after the first hit was asked for by its cursor.
        Some(
            if self.repeat.as_ref().is_some_and(|r| r.limit.is_some()) || !self.truncated {
                ReasonCode::RequestedRange
            } else {
                ReasonCode::SizeCap
            },
        )
    }

    /// How many entries this page holds: hits, or files with their counts.
    fn entries(&self) -> usize {
        self.files.as_ref().map_or(self.hits.len(), Vec::len)
    }

    /// Keeps the first `kept` hits (or files, for counts; at least one), saying why and
    /// continuing after them.
    fn keep_first(&mut self, store: &Store, kept: usize, why: Reason) {
        if kept >= self.entries() || kept == 0 {
            return;
        }
        self.next_cursor = self.cursor_after(store, kept);
        self.hits.truncate(kept);
        if let Some(files) = &mut self.files {
            files.truncate(kept);
        }
        self.truncated = true;
        self.page_reason = Some(why);
        self.set_next();
    }
}

/// The call that repeats a search: its target, the query and every flag (a cursor goes on
/// top).
pub(crate) fn repeat_args(
    target: Target,
    query: &Query,
    paging: &Paging,
    globs: &[String],
) -> SearchParams {
    SearchParams {
        literal: query.literal,
        case_insensitive: query.case_insensitive,
        glob: globs.to_vec(),
        context: (paging.context > 0).then_some(paging.context),
        limit: paging.limit,
        ..SearchParams::pattern(target, query.pattern.clone())
    }
}

/// Fits a search answer under `cap` in every form it is sent in (text and structured, MCP and
/// CLI): a page too large keeps fewer hits, says why, and continues after the last one kept.
pub fn fit(answer: &mut SearchAnswer, store: &Store, cap: impl Into<Cap>) -> Result<()> {
    let cap = cap.into();
    crate::window::check_cap(cap.tokens)?;
    let reference = answer.reference.clone().unwrap_or_default();
    // Only a `context` the caller asked for is named as the way to a smaller hit.
    let context = answer.repeat.as_ref().is_some_and(|r| r.context.is_some());
    let hint = if context {
        Words::text("ask for less ")
            .arg(ToolName::Search, "context")
            .then(", or a larger ")
            .arg(ToolName::Search, "max_tokens")
    } else {
        Words::text("ask for a larger ").arg(ToolName::Search, "max_tokens")
    };
    let one = if context {
        "one hit with its context"
    } else {
        "one hit"
    };
    let measure = |answer: &SearchAnswer, d| measured(answer, d, cap, &reference);
    // The facts alone (no hits) past the cap: no page fits, whatever it keeps, and the cause
    // is an argument every answer and every next call echoes. Regression (issue 58): a word
    // search of 3,000 words answered "one hit does not fit an answer of 8,000 tokens", with
    // no hit at all.
    let mut bare = answer.clone();
    bare.hits.clear();
    if let Some(files) = &mut bare.files {
        files.clear();
    }
    let bare_size = [Dialect::Mcp, Dialect::Cli]
        .into_iter()
        .map(|d| measure(&bare, d))
        .fold(fit::Size::default(), fit::Size::max);
    if !cap.holds(bare_size) {
        return Err(too_long_to_echo(answer, cap, bare_size));
    }
    fit::fit_entries(
        answer,
        cap,
        measure,
        SearchAnswer::entries,
        (one, &hint),
        |answer, kept, why| answer.keep_first(store, kept, why),
    )
}

/// The size of `answer` in dialect `d`, in the form `cap` sends it.
fn measured(answer: &SearchAnswer, d: Dialect, cap: Cap, reference: &str) -> fit::Size {
    cap.forms.pick(
        || {
            let hits = text::hit_lines(answer);
            fit::facts_and_content(&notice(answer, d), &hits, reference, cap, 4)
        },
        || {
            let mut v = text::structured(answer, d);
            for key in ["hits", "files"] {
                if let Some(entries) = v.get_mut(key) {
                    *entries = Value::Array(Vec::new());
                }
            }
            let hits = match &answer.files {
                Some(files) => serde_json::to_string(files).unwrap_or_default(),
                None => serde_json::to_string(&answer.hits).unwrap_or_default(),
            };
            let facts = crate::structured::compact(&v);
            fit::facts_and_content(&facts, &hits, reference, cap, 4)
        },
    )
}

/// The error of an answer whose echoed arguments alone (`size`) pass `cap`: it names the
/// longest of them (the words, the regex, the globs), its size, and the limit it passes.
fn too_long_to_echo(answer: &SearchAnswer, cap: Cap, size: fit::Size) -> Error {
    let globs: &[String] = match &answer.scope {
        Scope::Tree(t) => &t.globs,
        Scope::Artifact(_) => &[],
    };
    let glob_chars: u64 = globs.iter().map(|g| g.chars().count() as u64 + 1).sum();
    let pattern = answer.query.pattern.chars().count() as u64;
    let thousands = crate::render::thousands;
    let (arg, given) = if glob_chars > pattern {
        (
            "glob",
            format!(
                "{} globs, {} chars",
                thousands(globs.len() as u64),
                thousands(glob_chars)
            ),
        )
    } else if answer.query.words.is_some() {
        ("query", format!("{} chars", thousands(pattern)))
    } else {
        ("pattern", format!("{} chars", thousands(pattern)))
    };
    let limit = if size.chars > cap.chars {
        format!("the {} chars an answer may hold", thousands(cap.chars))
    } else {
        format!("{} tokens", thousands(cap.tokens))
    };
    let mut hint = Words::text("give a shorter ").arg(ToolName::Search, arg);
    if arg == "query" {
        hint = hint.then(format!(
            " (at most {} of its words are used)",
            ranked::MAX_QUERY_WORDS
        ));
    }
    if size.chars <= cap.chars {
        hint = hint
            .then(", or ask for a larger ")
            .arg(ToolName::Search, "max_tokens");
    }
    Error::invalid_words(
        Words::default().arg(ToolName::Search, arg).then(format!(
            " ({given}) is echoed in the answer and in the calls that go on from it, and leaves it no room within {limit}"
        )),
        hint,
    )
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct CursorPayload {
    k: String,
    r: String,
    q: String,
    after: u64,
    n: u64,
    i: u64,
}

/// The most a compiled pattern may take (the regex crate's own default; grep-regex raises it
/// to 100 MiB for ripgrep, whose user chose the pattern): a caller's pattern is hostile input.
/// Regression (issue 58): 8 searches of `(?i)\p{L}{2000}` at once peaked at 1,712 MB.
pub(crate) const REGEX_SIZE: usize = 10 << 20;

/// The lazy DFA's cache, per searching thread (grep-regex's default is 1,000 MiB; the regex
/// crate's 2 MiB): past it the cache is cleared and the search goes on, slower.
pub(crate) const REGEX_DFA_CACHE: usize = 16 << 20;

/// The engine for a query: regex or literal, case-sensitive or not.
pub(crate) fn build_matcher(query: &Query) -> Result<grep_regex::RegexMatcher> {
    if !query.literal && crate::envelope::is_placeholder(&query.pattern) {
        // A template followed without its blank filled in would answer "no hits; searched
        // all", a claim about a regex nobody meant.
        return Err(Error::invalid_words(
            format!(
                "`{}` is the blank of a printed call, not a regex: nothing was searched",
                query.pattern
            )
            .into(),
            Words::text("put the regex you are looking for in its place, e.g. ")
                .arg_value(ToolName::Search, "pattern", "timeout")
                .then("; to find the text itself, add ")
                .arg_value(ToolName::Search, "literal", true),
        ));
    }
    RegexMatcherBuilder::new()
        .case_insensitive(query.case_insensitive)
        .fixed_strings(query.literal)
        .size_limit(REGEX_SIZE)
        .dfa_size_limit(REGEX_DFA_CACHE)
        .build(&query.pattern)
        .map_err(|e| {
            if e.to_string().contains("size limit") {
                // Not a mistake in the regex: its repetitions and classes make it too large.
                return Error::invalid_words(
                    format!(
                        "the pattern compiles to more than the {} MiB a search may use (its repetitions and classes multiply: `\\p{{L}}{{2000}}` is 2,000 copies of every letter of every script)",
                        REGEX_SIZE >> 20
                    )
                    .into(),
                    Words::text("use smaller counted repetitions (`{1,50}` rather than `{2000}`) or narrower classes, or search for the text as it is with ")
                        .arg_value(ToolName::Search, "literal", true),
                );
            }
            Error::invalid_words(
                format!("invalid pattern: {e}").into(),
                Words::text("fix the regex, or search for the text as it is with ").arg_value(
                    ToolName::Search,
                    "literal",
                    true,
                ),
            )
        })
}

/// The searcher every search reads with: line numbers, the context asked for, and no binary
/// detection (every byte of what was stored is searched).
pub(crate) fn searcher(paging: &Paging) -> grep_searcher::Searcher {
    grep_searcher::SearcherBuilder::new()
        .line_number(true)
        .before_context(paging.context as usize)
        .after_context(paging.context as usize)
        .binary_detection(grep_searcher::BinaryDetection::none())
        .heap_limit(Some(FILE_LINE_HEAP))
        .build()
}

/// The most a directory search holds of one line of a file it streams (a file over 256 KiB):
/// a file with a longer line is counted unreadable, not searched. Before, the buffer grew to
/// the line, up to the 512 MiB a file may be, on every searching thread.
pub(crate) const FILE_LINE_HEAP: usize = 32 << 20;

/// A searcher of stored bytes as they are: no byte-order mark is sniffed (it was dropped, or
/// UTF-16 transcoded, at the start of a stream, so a hit's byte and line were not the stored
/// ones a read shows). Unnumbered (`numbered` false, no context): counting every newline is a
/// fifth of a search's time, and the few lines shown are found in the artifact's line index.
pub(crate) fn stored_searcher(paging: &Paging, numbered: bool) -> grep_searcher::Searcher {
    grep_searcher::SearcherBuilder::new()
        .line_number(numbered)
        .before_context(paging.context as usize)
        .after_context(paging.context as usize)
        .bom_sniffing(false)
        .binary_detection(grep_searcher::BinaryDetection::none())
        .heap_limit(Some(LINE_HEAP))
        .build()
}

/// The most a searcher that reads by lines (with context lines, or over a copy without chunk
/// sums, or a file of a directory) holds of one line: a longer line ends that search with
/// [`line_too_long`] rather than hold it whole (its memory grew with the longest line).
pub(crate) const LINE_HEAP: usize = 2 * blocks::LINE_WINDOW;

/// Whether a search ended at [`LINE_HEAP`].
pub(crate) fn is_line_too_long(e: &std::io::Error) -> bool {
    e.to_string().contains("configured allocation limit")
}

/// The error for a search of `reference` that met a line longer than it holds.
pub(crate) fn line_too_long(reference: &str) -> Error {
    Error::invalid_words(
        format!(
            "`{reference}` has a line longer than the {} a search with context lines holds",
            crate::render::human_bytes(LINE_HEAP as u64)
        )
        .into(),
        Words::text("search it without context lines, which reads long lines in windows, e.g. ")
            .call(NextCall::search_template(Target::reference(reference))),
    )
}

/// The page size a search asks for, checked.
pub(crate) fn page_limit(paging: &Paging) -> Result<usize> {
    let limit = paging.limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(Error::invalid_words(
            Words::default()
                .arg(ToolName::Search, "limit")
                .then(format!(" must be between 1 and {MAX_LIMIT} (got {limit})")),
            Words::text("ask for ").arg_value(ToolName::Search, "limit", DEFAULT_LIMIT),
        ));
    }
    Ok(limit)
}
