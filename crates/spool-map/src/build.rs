//! Building a map: the tree walked as directory search walks it (`.gitignore` respected, hidden
//! files skipped), its code read and parsed (`read.rs`), the files and definitions ranked
//! (`rank.rs`), and the map written once as an artifact, one block per file, best first
//! (`text.rs`). The same map of an unchanged tree (by path, size and modification time) is that
//! artifact again.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use spool_core::calls::MapParams;
use spool_core::envelope::{ArtifactState, MapFiles, MapVersion, NextCall, Source, Version};
use spool_core::store::{ArtifactMeta, NewArtifact};
use spool_core::{Error, Result, Store};
use spool_walk::roots::Roots;
use spool_walk::walk::{self, Walked};

use crate::focus::Focus;
use crate::lean::{Lean, Names};
use crate::rank::{self, Input};
use crate::read::{Outcome, read_and_parse};
use crate::text::{self, Why};

/// Bumped when the map's text or what it is built from changes: an older map is not reused.
const MAP_FORMAT: u32 = 2;
/// The definitions a file lists at most in a map of many files, and in a file the agent named.
const LISTED: usize = 5;
const LISTED_FOCUS: usize = 25;
/// The tree's most referred-to definitions are listed: this many per file that has any, on
/// average, and at least this many in all.
const LISTED_PER_FILE: usize = 1;
const LISTED_AT_LEAST: usize = 40;

/// What to map.
pub struct Request<'a> {
    /// The directory (or file), as the caller named it.
    pub path: &'a str,
    pub focus: &'a [String],
    /// How long walking, reading and parsing may take; past it the files not parsed are
    /// listed as such, and the next map of the tree parses on from the cache.
    pub budget: Duration,
}

/// The stored map of the tree `req` names, as it is now: reused when the tree is unchanged.
pub fn stored_map(store: &Store, roots: &Roots, req: &Request<'_>) -> Result<ArtifactMeta> {
    let started = Instant::now();
    let real = roots.resolve(req.path)?;
    let single = !real.is_dir();
    if single {
        // A file maps as its outline: a regular file inside the roots (a FIFO or a device is
        // refused as `read` refuses it, never opened).
        roots.open_file(req.path)?;
    }
    let mut walked = if single {
        // A file maps as its outline; it is walked alone, dotfile or not.
        let mut w = walk::walk(&real, &[], true)?;
        for f in &mut w.files {
            req.path.clone_into(&mut f.rel);
        }
        w
    } else {
        walk::walk(&real, &[], false)?
    };
    let key = format!("{}{}", key_prefix(&real, req), walked.digest);
    // The same files (their digest is in the key); a map that would state the repository's
    // commit, dirty flag or left-out counts as they no longer are is made again (review,
    // issue 38: a new ignored file left a reused map saying "0 ignored").
    if let Some(found) = store.find_by_dedup(&key)?
        && !found.source.version.timed_out()
        && let Some(then) = found.source.version.map()
    {
        let current = if single {
            spool_core::search::tree::is_current(
                &real,
                &walked.digest,
                then.commit.as_deref(),
                (then.dirty, then.staged),
            )
        } else {
            let within = started
                .checked_add(req.budget)
                .map(|d| d.saturating_duration_since(Instant::now()));
            let ((ignored, hidden), now) = spool_core::search::tree::left_out_and_version(
                &real,
                &spool_core::search::tree::Filter::default(),
                &mut walked,
                within,
            );
            (
                then.commit.as_deref(),
                (then.dirty, then.staged),
                then.files.ignored,
                then.files.hidden,
            ) == (
                now.commit.as_deref(),
                (now.dirty, now.staged),
                ignored,
                hidden,
            )
        };
        if current {
            return Ok(found);
        }
    }
    let deadline = started + req.budget;
    let mut names = Names::default();
    let gathered = read_and_parse(store, roots, &walked, deadline, &mut names)?;
    let shown_path = |rel: &str| {
        if single {
            rel.to_owned()
        } else {
            joined(req.path, rel)
        }
    };
    let focus = Focus::resolve(req.focus, &walked, &gathered.outcomes, &names, &shown_path);
    let files: Vec<Option<&Lean>> = gathered
        .outcomes
        .iter()
        .map(|o| match o {
            Outcome::Mapped(t) => Some(t),
            Outcome::Listed(_) => None,
        })
        .collect();
    let ranks = rank::rank(&Input {
        files: &files,
        names: &names,
        focus_files: &focus.personal,
        focus_names: &focus.names,
    });
    // Each file's definitions, best first.
    let ranked: Vec<Vec<text::Ranked>> = files
        .iter()
        .enumerate()
        .map(|(i, tags)| {
            tags.map_or_else(Vec::new, |tags| {
                text::ranked(tags, |name| ranks.def(i, name), &focus.names)
            })
        })
        .collect();
    let order = order(&ranked, &ranks.file, &focus.files, &walked);
    let mut text = String::new();
    let (mut definitions, mut listed) = (0u64, 0u64);
    let limits = listed_per_file(&ranked);
    for &i in &order {
        let Some(tags) = files[i] else { continue };
        let limit = if single {
            None
        } else if focus.files.contains(&i) {
            Some(LISTED_FOCUS)
        } else {
            Some(limits[i])
        };
        let chosen = text::choose(tags, &ranked[i], limit);
        definitions += chosen.total as u64;
        listed += chosen.items.len() as u64;
        text.push_str(&text::mapped_block(
            &shown_path(&walked.files[i].rel),
            tags,
            &chosen,
        ));
    }
    // Then every other file, by name, grouped by why (each group in path order).
    for group in [
        Why::NoDefinitions,
        Why::NoGrammar,
        Why::Binary,
        Why::TooLarge(0),
        Why::Unparsable,
        Why::Unreadable,
        Why::NotParsed,
    ] {
        for (i, o) in gathered.outcomes.iter().enumerate() {
            let why = match o {
                Outcome::Mapped(t) if t.defs().next().is_none() => Why::NoDefinitions,
                Outcome::Mapped(_) => continue,
                Outcome::Listed(w) => w.clone(),
            };
            if std::mem::discriminant(&why) == std::mem::discriminant(&group) {
                text.push_str(&text::listed_line(&shown_path(&walked.files[i].rel), &why));
            }
        }
    }
    let mut counts = counted(&gathered.outcomes);
    let filter = spool_core::search::tree::Filter::default();
    // A single file's map counts nothing left out; its version is found all the same.
    let within = (!single).then(|| deadline.saturating_duration_since(Instant::now()));
    let ((ignored, hidden), tree) =
        spool_core::search::tree::left_out_and_version(&real, &filter, &mut walked, within);
    if !single {
        (counts.ignored, counts.hidden) = (ignored, hidden);
    }
    let version = MapVersion {
        root: req.path.to_owned(),
        commit: tree.commit,
        dirty: tree.dirty,
        staged: tree.staged,
        files_digest: tree.files_digest,
        focus: req.focus.to_vec(),
        focus_unmatched: focus.unmatched,
        focus_not_code: focus.not_code,
        mapped_at: spool_core::clock::rfc3339(spool_core::clock::now_ms()),
        timed_out: counts.not_parsed > 0,
        files: counts,
        definitions,
        definitions_listed: listed,
        parsed: gathered.parsed,
        ..MapVersion::default()
    };
    let mut new = NewArtifact::new(Source::new(
        format!("map of {}", req.path),
        Version::Map(version),
    ));
    new.redo = Some(map_call(req.path, req.focus));
    // A file changed within a tick of the walk may change again unseen: stored, not reused
    // (a key no lookup names, that still names the tree and focus a cursor checks).
    new.dedup_key = Some(if walked.racy {
        format!("{key}~racy~{}", spool_core::clock::now_ms())
    } else {
        key
    });
    let meta = store.put(new, text.as_bytes())?;
    if meta.state != ArtifactState::Complete {
        return Err(Error::Unavailable {
            what: "the store".into(),
            cause: format!(
                "the map could not be stored whole: {}",
                meta.capture_detail.as_deref().unwrap_or("the write failed")
            ),
        });
    }
    Ok(meta)
}

/// The files with definitions, in the map's order: those asked about first, then those
/// defining a name asked about, then by their best definition's rank (as Aider orders its
/// map), then by their own rank, then by path.
fn order(
    ranked: &[Vec<text::Ranked>],
    file_rank: &[f64],
    asked: &HashSet<usize>,
    walked: &Walked,
) -> Vec<usize> {
    let best = |i: usize| ranked[i].first().map_or(0.0, |r| r.rank);
    let defines_focus = |i: usize| ranked[i].first().is_some_and(|r| r.focus);
    let mut order: Vec<usize> = (0..ranked.len())
        .filter(|&i| !ranked[i].is_empty())
        .collect();
    order.sort_by(|&a, &b| {
        asked
            .contains(&b)
            .cmp(&asked.contains(&a))
            .then(defines_focus(b).cmp(&defines_focus(a)))
            .then(best(b).total_cmp(&best(a)))
            .then(file_rank[b].total_cmp(&file_rank[a]))
            .then(walked.files[a].rel.cmp(&walked.files[b].rel))
    });
    order
}

/// What became of the files, counted by why.
fn counted(outcomes: &[Outcome]) -> MapFiles {
    let mut counts = MapFiles {
        counted: outcomes.len() as u64,
        ..MapFiles::default()
    };
    for o in outcomes {
        match o {
            Outcome::Mapped(_) | Outcome::Listed(Why::NoDefinitions) => counts.mapped += 1,
            Outcome::Listed(Why::NoGrammar) => counts.no_grammar += 1,
            Outcome::Listed(Why::Binary) => counts.binary += 1,
            Outcome::Listed(Why::TooLarge(_)) => counts.too_large += 1,
            Outcome::Listed(Why::Unparsable) => counts.unparsable += 1,
            Outcome::Listed(Why::Unreadable) => counts.unreadable += 1,
            Outcome::Listed(Why::NotParsed) => counts.not_parsed += 1,
        }
    }
    counts
}

/// How many definitions each file lists (each file's definitions best first): those among the tree's most referred-to (as many as there are files),
/// the names asked about, and at least the file's best; at most [`LISTED`]. An important
/// file lists more, a file at the edge of the code one line.
fn listed_per_file(ranked: &[Vec<text::Ranked>]) -> Vec<usize> {
    let mut all: Vec<(f64, usize)> = ranked
        .iter()
        .enumerate()
        .flat_map(|(k, names)| names.iter().map(move |r| (r.rank, k)))
        .collect();
    all.sort_by(|a, b| b.0.total_cmp(&a.0));
    let with_definitions = ranked.iter().filter(|r| !r.is_empty()).count();
    let top = (with_definitions * LISTED_PER_FILE).max(LISTED_AT_LEAST);
    let mut limits = vec![1usize; ranked.len()];
    let mut counted = vec![0usize; ranked.len()];
    for &(_, k) in all.iter().take(top) {
        counted[k] += 1;
    }
    for (k, names) in ranked.iter().enumerate() {
        let asked = names.iter().filter(|r| r.focus).count();
        limits[k] = counted[k].max(asked).clamp(1, LISTED);
    }
    limits
}

/// What a stored map is found again by, before the digest of its files: the tree it maps (its
/// real path), the path as the caller spelled it (the map prints its files under it) and the
/// focus. A cursor continues only a map whose key starts so.
pub fn key_prefix(real: &std::path::Path, req: &Request<'_>) -> String {
    format!(
        "map:{MAP_FORMAT}:{}\u{1}{}\u{1}{}:",
        real.display(),
        req.path,
        req.focus.join("\u{2}")
    )
}

/// The `map` call that makes this map again.
pub fn map_call(path: &str, focus: &[String]) -> NextCall {
    NextCall::Map(MapParams::of(path, focus))
}

/// `rel` under the path the caller named, so that `read path=...` opens it as printed.
fn joined(root: &str, rel: &str) -> String {
    let root = root.trim_end_matches('/');
    if root.is_empty() || root == "." {
        rel.to_owned()
    } else {
        format!("{root}/{rel}")
    }
}
