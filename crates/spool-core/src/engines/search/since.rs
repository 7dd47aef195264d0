//! A cursor page of a directory search pages the hit list stored when the search ran: the tree
//! may have changed since. The page states when that was, and looks at the files its own hits
//! are in: a file deleted since, or changed since, has its hits marked, and the page says how
//! many, with the call that searches the tree as it is now. Regression (issue 57): after page 1,
//! two files were deleted and one edited; page 2 by cursor listed hits in the deleted files and
//! the old line, with no time and no "changed since".
//!
//! Only the page's own files are looked at (a `stat` each, at most a page's worth): what the
//! rest of the list holds is said by the pages that show it.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{Scope, SearchAnswer};

/// What changed, since the search, of the files a page's hits are in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ChangedSince {
    /// This page's files gone since the search.
    pub deleted: u64,
    /// This page's files modified since the search began.
    pub changed: u64,
}

impl ChangedSince {
    pub fn any(&self) -> bool {
        self.deleted + self.changed > 0
    }
}

/// Marks the hits of `answer` (a page of the hit list stored at `searched_at_ms` for the
/// directory `real`) whose files were deleted or changed since, and states the time and the
/// counts in its scope.
pub fn mark(answer: &mut SearchAnswer, real: &Path, searched_at_ms: i64) {
    let mut seen: HashMap<String, Option<&'static str>> = HashMap::new();
    let mut since = ChangedSince::default();
    for hit in &mut answer.hits {
        let Some(path) = &hit.path else { continue };
        let state = *seen.entry(path.clone()).or_insert_with(|| {
            let state = match std::fs::symlink_metadata(real.join(path)) {
                Err(_) => Some("deleted since the search"),
                // The later of its modification and change times: a rewrite whose mtime was
                // put back (`touch -r`, a copy that keeps times) still has a new ctime, which
                // no one can set. Found by the claims oracle (issue 57).
                Ok(m) => {
                    use std::os::unix::fs::MetadataExt as _;
                    let ms =
                        |s: i64, ns: i64| s.saturating_mul(1000).saturating_add(ns / 1_000_000);
                    let latest = ms(m.mtime(), m.mtime_nsec()).max(ms(m.ctime(), m.ctime_nsec()));
                    (latest >= searched_at_ms).then_some("changed since the search")
                }
            };
            match state {
                Some("deleted since the search") => since.deleted += 1,
                Some(_) => since.changed += 1,
                None => {}
            }
            state
        });
        hit.since = state.map(str::to_owned);
    }
    if let Scope::Tree(t) = &mut answer.scope {
        t.searched_at = Some(crate::clock::rfc3339(searched_at_ms));
        t.changed_since = since.any().then_some(since);
    }
}
