//! The envelope: the structured answer of every content tool (see CONTRACT.md).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod coverage;
mod map_scope;
mod version;
pub use coverage::{Coverage, FirstBytes, MainContent, UpstreamPage};
pub use map_scope::{FilesShown, MapScope, MapSkipped};
pub use version::{
    CiVersion, ExecVersion, FetchVersion, FileVersion, MapFiles, MapVersion, McpVersion,
    QueryVersion, SearchVersion, TextVersion, Version, ViewOf,
};

/// What kind of thing an artifact holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    Exec,
    Fetch,
    File,
    Mcp,
    Search,
    Text,
    Query,
    /// A CI job's log (GitHub Actions), pinned to its run and attempt.
    Ci,
    /// A repository map: a tree's definitions, ranked by what refers to them.
    Map,
}

impl SourceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Exec => "exec",
            Self::Fetch => "fetch",
            Self::File => "file",
            Self::Mcp => "mcp",
            Self::Search => "search",
            Self::Text => "text",
            Self::Query => "query",
            Self::Ci => "ci",
            Self::Map => "map",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "exec" => Self::Exec,
            "fetch" => Self::Fetch,
            "file" => Self::File,
            "mcp" => Self::Mcp,
            "search" => Self::Search,
            "text" => Self::Text,
            "query" => Self::Query,
            "ci" => Self::Ci,
            "map" => Self::Map,
            _ => return None,
        })
    }
}

/// Which part of a document a plain read shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Preview {
    Head,
    Tail,
    HeadTail,
}

impl Preview {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Head => "head",
            Self::Tail => "tail",
            Self::HeadTail => "head_tail",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "head" => Self::Head,
            "tail" => Self::Tail,
            "head_tail" => Self::HeadTail,
            _ => return None,
        })
    }
}

/// Where an artifact came from, what pins its version, and what of it the copy holds. Its JSON
/// is `{"kind", "desc", "version", "coverage"}`; the kind is the version's.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub desc: String,
    pub version: Version,
    /// What the copy holds of its source, when the maker said; else [`Source::coverage`]
    /// derives it (a copy stored before coverage was recorded).
    pub coverage: Option<Coverage>,
}

/// The most chars of each string of a source's version an answer shows (most URLs, query
/// strings and all, stay whole; a script given as a command does not; the stored row and a
/// redo keep every string whole).
pub const SHOWN_CHARS: usize = 500;

/// The most chars of a source's description an answer (and its banner) shows.
pub const DESC_CHARS: usize = 200;

impl Source {
    pub fn new(desc: impl Into<String>, version: Version) -> Self {
        Self {
            desc: desc.into(),
            version,
            coverage: None,
        }
    }

    /// The source as an answer shows it: each string of its version cut to [`SHOWN_CHARS`] and
    /// its description to [`DESC_CHARS`], in the middle, saying how much was left out. The stored row keeps it
    /// all (a redo runs the whole command); a 100,000-char command or CI job name no longer
    /// leaves an answer no room, which made a capture whose command had run answer an error
    /// with no ref (issue 39).
    #[must_use]
    pub fn shown(&self) -> Self {
        // Through its JSON (the version's kind is told by the source's own fields).
        let mut shown: Self = serde_json::to_value(self)
            .ok()
            .map(|v| crate::clip::clipped_json(&v, SHOWN_CHARS))
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_else(|| self.clone());
        // The description as the banner says it.
        shown.desc = crate::clip::clipped(self.desc.clone(), DESC_CHARS);
        shown
    }

    /// The same source, its copy holding `coverage` of it.
    #[must_use]
    pub fn with_coverage(mut self, coverage: Coverage) -> Self {
        self.coverage = Some(coverage.settled());
        self
    }

    pub fn kind(&self) -> SourceKind {
        self.version.kind()
    }

    /// What the stored copy holds of its source: as recorded, or for a copy stored before it
    /// was, what its version says (a page kept as its main content), else the whole.
    pub fn coverage(&self) -> Coverage {
        if let Some(c) = &self.coverage {
            return c.clone();
        }
        match self.version.fetch() {
            Some(f) if f.main_content.is_some() => Coverage {
                main_content: f.main_content.clone().map(|element| MainContent {
                    element,
                    text_percent: f.main_text_percent.unwrap_or(0),
                }),
                rest: Some(NextCall::Fetch(crate::calls::FetchParams::new(
                    self.desc.clone(),
                    crate::calls::FormatArg::Raw,
                ))),
                ..Coverage::whole()
            }
            .settled(),
            _ => Coverage::whole(),
        }
    }
}

impl Serialize for Source {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = s.serialize_struct("Source", 4)?;
        out.serialize_field("kind", &self.kind())?;
        out.serialize_field("desc", &self.desc)?;
        out.serialize_field("version", &self.version)?;
        out.serialize_field("coverage", &self.coverage())?;
        out.end()
    }
}

impl schemars::JsonSchema for Source {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Source".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "properties": {
                "kind": generator.subschema_for::<SourceKind>(),
                "desc": { "type": "string" },
                "version": generator.subschema_for::<Version>(),
                "coverage": generator.subschema_for::<Coverage>(),
            },
            "required": ["kind", "desc", "version", "coverage"]
        })
    }
}

impl<'de> Deserialize<'de> for Source {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Stored {
            kind: SourceKind,
            desc: String,
            #[serde(default)]
            version: Map<String, Value>,
            #[serde(default)]
            coverage: Option<Value>,
        }
        let s = Stored::deserialize(d)?;
        Ok(Self {
            desc: s.desc,
            version: Version::from_fields(s.kind, s.version),
            // A coverage that does not read is derived again, not the row lost.
            coverage: s.coverage.and_then(|c| serde_json::from_value(c).ok()),
        })
    }
}

/// The version of a tree (searched or mapped): the git commit (and whether the tree differs
/// from it) when there is one, and always the digest of the files read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TreeVersion {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Whether the tree differs from `commit` (`None`: it cannot be told).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty: Option<bool>,
    /// Whether git's index differs from `commit` under the tree: a change staged and not
    /// committed (which makes it dirty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staged: Option<bool>,
    /// Absent only from a map of a clean checkout, which its commit pins.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub files_digest: String,
}

/// Units an answer is measured in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    Lines,
    Chars,
    Bytes,
    Tokens,
    Items,
    Hits,
}

impl Unit {
    /// Every unit, in the contract's order.
    pub const ALL: [Self; 6] = [
        Self::Lines,
        Self::Chars,
        Self::Bytes,
        Self::Tokens,
        Self::Items,
        Self::Hits,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Lines => "lines",
            Self::Chars => "chars",
            Self::Bytes => "bytes",
            Self::Tokens => "tokens",
            Self::Items => "items",
            Self::Hits => "hits",
        }
    }
}

/// One shown range. Lines are 1-based and inclusive; chars, bytes and items 0-based, end
/// exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Range {
    pub unit: Unit,
    pub start: u64,
    pub end: u64,
    /// The bytes `[start, end)` a range of lines, chars or items covers: any window can be
    /// asked for again by bytes (`byte_offset`, `max_bytes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<[u64; 2]>,
}

/// Every known size of the whole. Unknown sizes are absent, never guessed.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct Totals {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chars: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tokens_estimated: bool,
    /// Items of a list (an upstream JSON array paged by items).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<u64>,
}

/// Why an answer is partial.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReasonCode {
    SizeCap,
    TokenCap,
    Timeout,
    RequestedRange,
    UpstreamPartial,
    Binary,
    Cancelled,
}

impl ReasonCode {
    /// Every reason, in the contract's order.
    pub const ALL: [Self; 7] = [
        Self::SizeCap,
        Self::TokenCap,
        Self::Timeout,
        Self::RequestedRange,
        Self::UpstreamPartial,
        Self::Binary,
        Self::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::SizeCap => "size_cap",
            Self::TokenCap => "token_cap",
            Self::Timeout => "timeout",
            Self::RequestedRange => "requested_range",
            Self::UpstreamPartial => "upstream_partial",
            Self::Binary => "binary",
            Self::Cancelled => "cancelled",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Reason {
    pub code: ReasonCode,
    pub detail: String,
}

pub use crate::calls::{NextCall, PLACEHOLDER, is_placeholder};

/// Lifecycle of an artifact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ArtifactState {
    Capturing,
    Complete,
    Interrupted,
    Cancelled,
    Expired,
}

impl ArtifactState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Capturing => "capturing",
            Self::Complete => "complete",
            Self::Interrupted => "interrupted",
            Self::Cancelled => "cancelled",
            Self::Expired => "expired",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "capturing" => Self::Capturing,
            "complete" => Self::Complete,
            "interrupted" => Self::Interrupted,
            "cancelled" => Self::Cancelled,
            "expired" => Self::Expired,
            _ => return None,
        })
    }
}

/// The structured answer of every content tool.
///
/// Fields serialize in the contract's order, facts before the content, so a host that cuts the
/// JSON still shows the facts: `ref`, `shown`, `total`, `complete`, `reason`, `next` (and
/// `next_templates`), `source`, then `content` (`wire::envelope` puts the banner's words, `notice`, before all of them, and
/// the blocks' text, in the caller's dialect, as `content` after them).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Envelope {
    #[serde(rename = "ref")]
    pub reference: String,
    pub shown: Vec<Range>,
    pub total: Totals,
    pub complete: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    pub next: Vec<NextCall>,
    /// Calls that need a value of the reader's own in place of [`PLACEHOLDER`] (the search
    /// of the whole copy by a regex): offered apart, so that every call in `next` runs as
    /// printed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub next_templates: Vec<NextCall>,
    pub source: Source,
    /// How the stored copy itself ended, when that is not `complete`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capture: Option<CaptureNote>,
    /// Facts about the window the reader should know (a long line windowed by chars, ...).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// What a read or fetch given words or a pattern found in the whole artifact, and which of
    /// it this answer shows beside the preview.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found: Option<Found>,
    /// A map's scope: the tree, its version, the files counted, mapped and skipped, and which
    /// of them this page shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<Box<MapScope>>,
    /// What is shown, in order: each shown range's text, and between two ranges the gap. The
    /// gap's marker is words and a call, written only once the dialect is known.
    #[serde(skip)]
    pub blocks: Vec<Block>,
    /// What was delivered, for the audit.
    #[serde(skip)]
    pub delivered: Delivery,
    /// When the artifact was stored (unix ms), for the banner.
    #[serde(skip)]
    pub created_at: i64,
    /// The call that produces a fresh copy.
    #[serde(skip)]
    pub redo: Option<NextCall>,
}

/// What a read or a fetch that was asked for words (`query`) or a `pattern` found in the whole
/// artifact: how many passages (or matching lines) hold it, and where the best of them are.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Found {
    /// The words asked for, as given (a ranked word search).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// The regex (or, with `literal`, the text) asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub literal: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub case_insensitive: bool,
    /// The words looked for (names split into their parts), and those left out as too common.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub looked_for: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
    /// Every passage (for words) or line (for a pattern) of the whole artifact that matched.
    pub hit_count: u64,
    /// The best of them, best first (for a pattern: the first), and whether this answer shows
    /// each.
    pub best: Vec<FoundAt>,
    /// The search that lists them all (offered first when this answer does not show them all).
    #[serde(skip)]
    pub search: Option<NextCall>,
}

impl Found {
    /// What was counted: passages for words, lines for a pattern.
    pub fn unit(&self) -> (&'static str, &'static str) {
        if self.query.is_some() {
            ("passage", "passages")
        } else {
            ("line", "lines")
        }
    }
}

/// One passage (or matching line) found, its lines, and whether the answer shows it.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct FoundAt {
    pub start_line: u64,
    pub end_line: u64,
    /// BM25, higher is better (words only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    pub shown: bool,
    /// The lines to show (for a pattern, a line around the one that matched), and their bytes
    /// `[start, end)` (the end before the last line's newline, as a passage's).
    #[serde(skip)]
    pub around: (u64, u64),
    #[serde(skip)]
    pub span: (u64, u64),
}

/// One part of what an envelope shows.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// A shown range's text, byte for byte (invalid UTF-8 aside).
    Shown(String),
    /// What stands between two shown ranges (boxed: a typed next call makes it ten times
    /// the size of a shown range's handle, and a window holds few gaps).
    Gap(Box<Gap>),
}

/// A part of the whole that is not shown, between two parts that are.
#[derive(Debug, Clone, PartialEq)]
pub struct Gap {
    /// `Lines` (1-based, `start..=end`) or `Chars` (0-based, `start..end`).
    pub unit: Unit,
    pub start: u64,
    pub end: u64,
    /// Its size: lines (for a gap of lines) and chars.
    pub lines: u64,
    pub chars: u64,
    /// The read that starts where the gap starts.
    pub read: NextCall,
}

/// Sizes of what an answer delivered, and the byte spans it came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Delivery {
    pub byte_spans: Vec<(u64, u64)>,
    pub bytes: u64,
    pub chars: u64,
    /// Exact tokens delivered, when they were counted (small answers are proven under the cap
    /// by their byte length and never tokenized).
    pub tokens: Option<u64>,
}

/// The state of a stored copy that is not whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CaptureNote {
    pub state: ArtifactState,
    pub detail: String,
}
