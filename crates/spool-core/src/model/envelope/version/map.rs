//! The version of a repository map: the tree it maps (the commit and whether the tree differs
//! from it, and always a digest of its files), what the agent asked to rank first, when it was
//! mapped, and what the map covers of the files it counted.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ViewOf;

/// A map of the definitions of a tree's files, ranked by what refers to them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MapVersion {
    /// The directory (or file) mapped, as the caller named it (left out of what a page shows:
    /// its scope names it).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub root: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty: Option<bool>,
    /// A change staged and not committed under the tree (see `TreeVersion::staged`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staged: Option<bool>,
    /// `sha256:` of every file's path, size and modification time (left out of what a page
    /// shows when the tree is a clean checkout of `commit`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub files_digest: String,
    /// The files and symbols ranked first, as asked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub focus: Vec<String>,
    /// What of the focus names no file and no definition of the tree.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub focus_unmatched: Vec<String>,
    /// Files of the focus whose code the map does not read (listed by name, not ranked).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub focus_not_code: Vec<String>,
    pub mapped_at: String,
    /// What became of each file the walk found. (A map's answer states these in its `scope`,
    /// and leaves them out of the version it shows: [`MapVersion::pin`].)
    #[serde(default, skip_serializing_if = "MapFiles::is_empty")]
    pub files: MapFiles,
    /// Definitions found in the mapped files, and how many of them the map lists (each file
    /// lists its most referred-to).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub definitions: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub definitions_listed: u64,
    /// Files parsed to make this map; the others' definitions came from the parse cache.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub parsed: u64,
    /// Parsing ran out of time: the files not parsed are listed, not mapped.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    #[serde(flatten)]
    pub view: ViewOf,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Every file the walk found, by what the map did with it; and the files the walk itself left
/// out (ignored, hidden), when they were counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MapFiles {
    /// Files the walk found (each is listed in the map once).
    pub counted: u64,
    /// Parsed with a grammar: their definitions are in the map.
    pub mapped: u64,
    pub no_grammar: u64,
    pub binary: u64,
    pub too_large: u64,
    /// Read, but the grammar found nothing it could parse (or the parse gave up).
    pub unparsable: u64,
    /// Could not be opened or read.
    pub unreadable: u64,
    /// Not parsed before the map ran out of time.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_parsed: u64,
    /// Left out by `.gitignore` and the other ignore files (absent when not counted in time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignored: Option<u64>,
    /// Dotfiles (absent when not counted in time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<u64>,
}

impl MapVersion {
    /// What pins the map, without what its answer's `scope` states again (the root, the
    /// counts).
    #[must_use]
    pub fn pin(&self) -> Self {
        Self {
            root: String::new(),
            files: MapFiles::default(),
            definitions: 0,
            definitions_listed: 0,
            focus_unmatched: Vec::new(),
            focus_not_code: Vec::new(),
            parsed: 0,
            files_digest: if self.clean() {
                String::new()
            } else {
                self.files_digest.clone()
            },
            ..self.clone()
        }
    }

    /// Whether the tree is a checkout of `commit` with nothing changed.
    pub fn clean(&self) -> bool {
        self.commit.is_some() && self.dirty == Some(false)
    }
}

impl MapFiles {
    fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes fields by reference"
)]
fn is_zero(n: &u64) -> bool {
    *n == 0
}
