//! What a repository map covers (CONTRACT.md, `map`: root, version, files counted, mapped,
//! skipped), and which of its files one page shows. Built from the map's stored version, so
//! every page of one map states the same scope.

use serde::Serialize;

use super::{MapVersion, TreeVersion};

/// The scope of a map answer.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct MapScope {
    /// The directory (or file) mapped, as the caller named it.
    pub root: String,
    pub version: TreeVersion,
    /// Every file the walk found; each is listed in the map once, in rank order.
    pub files_counted: u64,
    /// Parsed with a grammar: their definitions are in the map.
    pub files_mapped: u64,
    pub files_skipped: MapSkipped,
    /// Definitions found in the mapped files, and how many the map lists.
    pub definitions: u64,
    pub definitions_listed: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub focus: Vec<String>,
    /// The files this page shows, by their place in the map (1-based, inclusive).
    pub files_shown: FilesShown,
}

/// The files a map did not parse, by why (a reason no file had is left out); and those the walk
/// left out (`ignored`, `hidden`: absent when not counted).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct MapSkipped {
    /// No grammar for their language: listed by name.
    #[serde(skip_serializing_if = "is_zero")]
    pub no_grammar: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub binary: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub too_large: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub unparsable: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub unreadable: u64,
    /// Not parsed before the map ran out of time.
    #[serde(skip_serializing_if = "is_zero")]
    pub not_parsed: u64,
    /// Left out by `.gitignore` and the other ignore files (absent when not counted in time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignored: Option<u64>,
    /// Dotfiles (absent when not counted in time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden: Option<u64>,
}

/// A span of files in the map's order, 1-based and inclusive (`end < start`: none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FilesShown {
    pub start: u64,
    pub end: u64,
}

impl MapScope {
    /// The scope a map's version states, with the files one page shows.
    pub fn of(v: &MapVersion, shown: FilesShown) -> Self {
        let f = &v.files;
        Self {
            root: v.root.clone(),
            version: TreeVersion {
                commit: v.commit.clone(),
                dirty: v.dirty,
                staged: v.staged,
                // A clean checkout is pinned by its commit; the digest pins the rest.
                files_digest: if v.clean() {
                    String::new()
                } else {
                    v.files_digest.clone()
                },
            },
            files_counted: f.counted,
            files_mapped: f.mapped,
            files_skipped: MapSkipped {
                no_grammar: f.no_grammar,
                binary: f.binary,
                too_large: f.too_large,
                unparsable: f.unparsable,
                unreadable: f.unreadable,
                not_parsed: f.not_parsed,
                ignored: f.ignored,
                hidden: f.hidden,
            },
            definitions: v.definitions,
            definitions_listed: v.definitions_listed,
            focus: v.focus.clone(),
            files_shown: shown,
        }
    }

    /// Whether the map itself (all pages) leaves something out: definitions past each file's
    /// share, or files that hold code but were not parsed.
    pub fn leaves_out(&self) -> bool {
        let s = &self.files_skipped;
        self.definitions_listed < self.definitions
            || s.too_large + s.unparsable + s.unreadable + s.not_parsed > 0
    }
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes fields by reference"
)]
fn is_zero(n: &u64) -> bool {
    *n == 0
}
