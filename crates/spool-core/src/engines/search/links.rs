//! The symlinks a directory search let through and did not follow, and where each leads, so
//! that "found nothing here" never stands for "found nothing" when a folder of the answer is
//! behind a link (issue 57: `app/config -> ../shared-config`, no hits under `app`, while
//! `grep -R` found the answer in `app/config/prod.yaml`).
//!
//! A link is not followed by the walk (it may lead out of the roots, or round in a cycle, and
//! the walk opens every file beneath its root without crossing one): it is counted, named, and
//! where it leads is offered as a search of its own when that lies inside the roots and outside
//! what this search read.

use std::path::Path;

use serde::{Deserialize, Serialize};
use spool_walk::roots::Roots;

/// The most links an answer names (each with its search); the count covers them all.
pub const NAMED: usize = 5;

/// A symlink a directory search did not follow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LinkNotFollowed {
    /// The link, by its path under the searched directory.
    pub path: String,
    /// Where it leads, its real path (absolute: it runs as printed from any working directory,
    /// in every dialect), when that is inside the allowed roots and not inside the directory
    /// searched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leads_to: Option<String>,
    /// Why where it leads is not offered: `outside the allowed roots`, `nothing there`, or
    /// `inside the directory searched`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_offered: Option<String>,
}

/// The first [`NAMED`] of `links` (paths under `dir`, sorted), each with where it leads.
pub fn not_followed(
    roots: &Roots,
    dir: &Path,
    links: &[std::path::PathBuf],
) -> Vec<LinkNotFollowed> {
    links
        .iter()
        .take(NAMED)
        .map(|link| {
            let path = spool_walk::paths::below(link, dir)
                .unwrap_or(link)
                .to_string_lossy()
                .into_owned();
            let (leads_to, not_offered) = match std::fs::canonicalize(link) {
                Err(_) => (None, Some("nothing there")),
                Ok(real) if real.starts_with(dir) => (None, Some("inside the directory searched")),
                Ok(real) => match roots.resolve(&real.to_string_lossy()) {
                    Ok(real) => (Some(real.to_string_lossy().into_owned()), None),
                    Err(_) => (None, Some("outside the allowed roots")),
                },
            };
            LinkNotFollowed {
                path,
                leads_to,
                not_offered: not_offered.map(str::to_owned),
            }
        })
        .collect()
}
