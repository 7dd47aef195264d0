//! Where a search looked, typed: the whole of one artifact, or the files of a directory. Its
//! JSON is the contract's `scope`, field for field and in the same order.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::envelope::Source;
pub use crate::envelope::TreeVersion;

/// The scope of a search answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
#[expect(
    clippy::large_enum_variant,
    reason = "one answer holds one scope; the tree's is the common one"
)]
pub enum Scope {
    /// Every file a directory search read (tried first: it alone has `files_searched`).
    Tree(TreeScope),
    /// The whole of one stored artifact.
    Artifact(Box<ArtifactScope>),
}

/// The whole of one artifact (a file is snapshotted first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(into = "ArtifactScopeWire", from = "ArtifactScopeWire")]
pub struct ArtifactScope {
    /// The path the caller named, for a file; `null` for a ref.
    pub root: Option<String>,
    #[serde(rename = "ref")]
    pub reference: String,
    /// The artifact's source; its version is repeated beside it, as the contract has it.
    pub source: Source,
    pub lines_searched: u64,
    pub bytes_searched: u64,
    /// Always true: a search reads the whole artifact.
    pub whole: bool,
    /// How many hits came before this page.
    pub first_hit_index: u64,
    pub duration_ms: u64,
}

impl ArtifactScope {
    /// All of the artifact `meta`, searched since `started`; `first` hits came before this page.
    pub(crate) fn whole(
        meta: &crate::store::ArtifactMeta,
        first: u64,
        started: std::time::Instant,
    ) -> Self {
        Self {
            root: None,
            reference: meta.reference.clone(),
            source: meta.source.shown(),
            lines_searched: meta.lines,
            bytes_searched: meta.bytes,
            whole: true,
            first_hit_index: first,
            duration_ms: started.elapsed().as_millis() as u64,
        }
    }
}

/// An [`ArtifactScope`] as it is written: the source's version repeated beside it.
#[derive(Serialize, Deserialize, schemars::JsonSchema)]
struct ArtifactScopeWire {
    root: Option<String>,
    #[serde(rename = "ref")]
    reference: String,
    source: Source,
    #[serde(default)]
    version: Value,
    lines_searched: u64,
    bytes_searched: u64,
    whole: bool,
    first_hit_index: u64,
    duration_ms: u64,
}

impl From<ArtifactScope> for ArtifactScopeWire {
    fn from(a: ArtifactScope) -> Self {
        Self {
            version: serde_json::to_value(&a.source.version).unwrap_or(Value::Null),
            root: a.root,
            reference: a.reference,
            source: a.source,
            lines_searched: a.lines_searched,
            bytes_searched: a.bytes_searched,
            whole: a.whole,
            first_hit_index: a.first_hit_index,
            duration_ms: a.duration_ms,
        }
    }
}

impl From<ArtifactScopeWire> for ArtifactScope {
    fn from(w: ArtifactScopeWire) -> Self {
        Self {
            root: w.root,
            reference: w.reference,
            source: w.source,
            lines_searched: w.lines_searched,
            bytes_searched: w.bytes_searched,
            whole: w.whole,
            first_hit_index: w.first_hit_index,
            duration_ms: w.duration_ms,
        }
    }
}

/// The files of a directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TreeScope {
    pub root: String,
    /// Always `null`: the hit list's ref is the answer's.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub version: TreeVersion,
    /// The globs the files searched match (`!` excludes): the search is not of the whole
    /// root when there are any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub globs: Vec<String>,
    /// Hidden files were searched too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
    /// The ignore files were not applied: ignored files were searched too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_ignore: bool,
    pub files_searched: u64,
    pub files_skipped: Skipped,
    /// The first symlinks not followed (see `files_skipped.symlinks`), each with where it
    /// leads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<super::links::LinkNotFollowed>,
    /// The first files the search did not read (binary, too large, a line too long,
    /// unreadable), each with why: a search that found nothing offers the search of each alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<UnreadFile>,
    pub duration_ms: u64,
    /// What a search that ran out of time covered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered: Option<String>,
    /// How many hits came before this page (0 in the stored hit list).
    #[serde(default)]
    pub first_hit_index: u64,
    /// A cursor page: when the search it pages ran (its hits are the tree as it was then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub searched_at: Option<String>,
    /// A cursor page: this page's files deleted or changed since the search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed_since: Option<super::since::ChangedSince>,
}

/// The files a directory search did not read, by why.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Skipped {
    pub binary: u64,
    /// Left out by `.gitignore` and the other ignore files (absent when not counted in time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignored: Option<u64>,
    /// Dotfiles (absent when they were searched, or not counted in time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<u64>,
    /// Files the ignore rules and the hidden rule would have searched and only the globs left
    /// out (absent without globs, or when not counted in time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside_glob: Option<u64>,
    pub too_large: u64,
    /// Could not be opened or read.
    #[serde(default)]
    pub unreadable: u64,
    /// Symlinks (to files or folders) the rules let through and the walk did not follow.
    #[serde(default)]
    pub symlinks: u64,
    /// Read, but holding a line longer than a directory search holds at once (32 MiB); a
    /// search of the file alone reads it in windows.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub long_lines: u64,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A file a directory search did not read, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UnreadFile {
    /// Its path under the searched directory.
    pub path: String,
    /// `binary`, `too large`, `a line too long` or `unreadable`.
    pub why: String,
}

impl Scope {
    /// How many hits came before this page.
    pub fn first_hit_index(&self) -> u64 {
        match self {
            Self::Tree(t) => t.first_hit_index,
            Self::Artifact(a) => a.first_hit_index,
        }
    }
}
