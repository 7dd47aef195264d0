//! What the agent asked to rank first: files (by their path under the map's root, or as the
//! map prints them) and names (anything else); and what of it names nothing in the tree.

use std::collections::HashSet;
use std::path::Path;

use spool_walk::walk::Walked;

use crate::lean::Names;
use crate::read::Outcome;

/// The focus, resolved against the tree.
pub struct Focus {
    /// Files named: listed first.
    pub files: HashSet<usize>,
    /// Files the walk starts from: those named, those that define a name asked for, and (as
    /// Aider's) those whose path holds one.
    pub personal: HashSet<usize>,
    /// The names asked for that the tree defines or names, by number.
    pub names: HashSet<u32>,
    /// What was asked for that names no file and no definition of the tree, in order.
    pub unmatched: Vec<String>,
    /// Files asked for whose code the map did not read (no grammar, binary, ...): listed by
    /// name where their kind is, not ranked.
    pub not_code: Vec<String>,
}

impl Focus {
    /// `asked` against the walked files and what reading them gave; `shown` is how the map
    /// prints a file's path.
    pub fn resolve(
        asked: &[String],
        walked: &Walked,
        outcomes: &[Outcome],
        names: &Names,
        shown: &dyn Fn(&str) -> String,
    ) -> Self {
        let mut files = HashSet::new();
        let mut wanted: Vec<&str> = Vec::new();
        let mut not_code = Vec::new();
        for f in asked {
            let f = f.trim();
            let bare = f.trim_start_matches("./");
            let hits: Vec<usize> = walked
                .files
                .iter()
                .enumerate()
                .filter(|(_, c)| {
                    c.rel == bare
                        || shown(&c.rel) == f
                        || shown(&c.rel) == bare
                        || ((bare.contains('/') || bare.contains('.'))
                            && c.rel.ends_with(&format!("/{bare}")))
                })
                .map(|(i, _)| i)
                .collect();
            if hits.is_empty() {
                wanted.push(f);
            } else if hits
                .iter()
                .any(|&i| matches!(outcomes.get(i), Some(Outcome::Mapped(_))))
            {
                // Files whose code was read: ranked first, and the walk starts from them.
                files.extend(
                    hits.into_iter()
                        .filter(|&i| matches!(outcomes.get(i), Some(Outcome::Mapped(_)))),
                );
            } else {
                not_code.push(f.to_owned());
            }
        }
        let numbered: HashSet<u32> = wanted.iter().filter_map(|n| names.find(n)).collect();
        let mut personal = files.clone();
        let mut found = HashSet::new();
        for (i, c) in walked.files.iter().enumerate() {
            let Some(Outcome::Mapped(tags)) = outcomes.get(i) else {
                continue;
            };
            let path = Path::new(&c.rel);
            let stem = path.file_stem().and_then(|s| s.to_str());
            let mut parts = path.iter().filter_map(|p| p.to_str());
            let defines: Vec<u32> = tags
                .defs()
                .map(|(_, _, n)| n)
                .filter(|n| numbered.contains(n))
                .collect();
            if !defines.is_empty()
                || stem.is_some_and(|s| wanted.contains(&s))
                || parts.any(|p| wanted.contains(&p))
            {
                personal.insert(i);
            }
            found.extend(defines);
        }
        let unmatched = wanted
            .iter()
            .filter(|n| names.find(n).is_none_or(|id| !found.contains(&id)))
            .map(|n| (*n).to_owned())
            .collect();
        Self {
            files,
            personal,
            names: numbered,
            unmatched,
            not_code,
        }
    }
}
