//! Where a search looked, typed: the whole of one artifact, or the files of a directory. Its
//! JSON is the contract's `scope`, field for field and in the same order.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::envelope::Source;

/// The scope of a search answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Scope {
    /// Every file a directory search read (tried first: it alone has `files_searched`).
    Tree(TreeScope),
    /// The whole of one stored artifact.
    Artifact(ArtifactScope),
}

/// The whole of one artifact (a file is snapshotted first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactScope {
    /// The path the caller named, for a file; `null` for a ref.
    pub root: Option<String>,
    #[serde(rename = "ref")]
    pub reference: String,
    pub source: Source,
    pub version: Map<String, Value>,
    pub lines_searched: u64,
    pub bytes_searched: u64,
    /// Always true: a search reads the whole artifact.
    pub whole: bool,
    /// How many hits came before this page.
    pub first_hit_index: u64,
    pub duration_ms: u64,
}

/// The files of a directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TreeScope {
    pub root: String,
    /// Always `null`: the hit list's ref is the answer's.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    /// The git commit (and whether the tree differs from it) when there is one, and always
    /// `files_digest`.
    pub version: Map<String, Value>,
    pub files_searched: u64,
    pub files_skipped: Skipped,
    pub duration_ms: u64,
    /// What a search that ran out of time covered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered: Option<String>,
    /// How many hits came before this page (0 in the stored hit list).
    #[serde(default)]
    pub first_hit_index: u64,
}

/// The files a directory search did not read, by why.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    pub binary: u64,
    /// Left out by `.gitignore` and the other ignore files (absent when not counted in time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignored: Option<u64>,
    /// Dotfiles (absent when they were searched, or not counted in time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<u64>,
    pub too_large: u64,
    /// Could not be opened or read.
    #[serde(default)]
    pub unreadable: u64,
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
