//! Building a map: the tree walked as directory search walks it (`.gitignore` respected, hidden
//! files skipped), each file with a grammar opened beneath its root and read, its tags taken
//! from the parse cache or parsed on worker threads while the walk reads on, the files and
//! definitions ranked, and the map written once as an artifact. The same map of an unchanged
//! tree (by path, size and modification time) is that artifact again.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::io::Read as _;
use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use spool_core::envelope::{ArtifactState, MapFiles, MapVersion, NextCall, Source, Version};
use spool_core::roots::Roots;
use spool_core::search::walk::{self, Skip, Walked};
use spool_core::store::{ArtifactMeta, NewArtifact};
use spool_core::{Error, Result, Store};

use crate::cache::{self, Cache};
use crate::lang::Lang;
use crate::rank::{self, Input};
use crate::tags::{self, FileTags, ParseFailure};
use crate::text::{self, Why};

/// Bumped when the map's text or what it is built from changes: an older map is not reused.
const MAP_FORMAT: u32 = 1;
/// Files larger than this are not parsed (counted as too large): generated code, vendored
/// bundles. A map is of what people wrote.
pub const MAX_FILE_BYTES: u64 = 1 << 20;
/// One file's parse may take this long; past it the file is unparsable.
const PER_FILE: Duration = Duration::from_secs(2);
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

/// What became of one file the walk found.
enum Outcome {
    Mapped(FileTags),
    Listed(Why),
}

/// The stored map of the tree `req` names, as it is now: reused when the tree is unchanged.
pub fn stored_map(store: &Store, roots: &Roots, req: &Request<'_>) -> Result<ArtifactMeta> {
    let started = Instant::now();
    let real = roots.resolve(req.path)?;
    let single = !real.is_dir();
    let walked = if single {
        // A file maps as its outline; it is walked alone, dotfile or not.
        let mut w = walk::walk(&real, &[], true)?;
        for f in &mut w.files {
            req.path.clone_into(&mut f.rel);
        }
        w
    } else {
        walk::walk(&real, &[], false)?
    };
    let key = format!(
        "map:{MAP_FORMAT}:{}:{}:{}",
        real.display(),
        req.focus.join("\u{1}"),
        walked.digest
    );
    if let Some(found) = store.find_by_dedup(&key)?
        && !found.source.version.timed_out()
    {
        return Ok(found);
    }
    let deadline = started + req.budget;
    let (outcomes, parsed) = read_and_parse(store, roots, &walked, deadline)?;
    let timed_out = outcomes
        .iter()
        .any(|o| matches!(o, Outcome::Listed(Why::NotParsed)));
    let shown_path = |rel: &str| {
        if single {
            rel.to_owned()
        } else {
            joined(req.path, rel)
        }
    };
    let focus = Focus::resolve(req.focus, &walked, &outcomes, &shown_path);
    let files: Vec<Option<&FileTags>> = outcomes
        .iter()
        .map(|o| match o {
            Outcome::Mapped(t) => Some(t),
            Outcome::Listed(_) => None,
        })
        .collect();
    let defined: HashSet<&str> = files
        .iter()
        .flatten()
        .flat_map(|t| t.defs().map(|(_, _, n)| n))
        .collect();
    let mut focus_unmatched: Vec<String> = focus
        .names
        .iter()
        .filter(|n| !defined.contains(n.as_str()))
        .cloned()
        .collect();
    focus_unmatched.sort();
    let ranks = rank::rank(&Input {
        files: &files,
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
    let best = |i: usize| ranked[i].first().map_or(0.0, |r| r.rank);
    // Files with definitions: those asked about first, then those defining a name asked
    // about, then by their best definition's rank (as Aider orders its map), then by their own.
    let defines_focus = |i: usize| ranked[i].first().is_some_and(|r| r.focus);
    let mut order: Vec<usize> = (0..files.len())
        .filter(|&i| !ranked[i].is_empty())
        .collect();
    order.sort_by(|&a, &b| {
        focus
            .files
            .contains(&b)
            .cmp(&focus.files.contains(&a))
            .then(defines_focus(b).cmp(&defines_focus(a)))
            .then(best(b).total_cmp(&best(a)))
            .then(ranks.file[b].total_cmp(&ranks.file[a]))
            .then(walked.files[a].rel.cmp(&walked.files[b].rel))
    });
    for &i in order.iter().take(12) {
        tracing::debug!(rank = best(i), file = %walked.files[i].rel, "ranked");
    }
    let mut text = String::new();
    let mut counts = MapFiles {
        counted: walked.files.len() as u64,
        ..MapFiles::default()
    };
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
    for why in [
        Why::NoDefinitions,
        Why::NoGrammar,
        Why::Binary,
        Why::TooLarge(0),
        Why::Unparsable,
        Why::Unreadable,
        Why::NotParsed,
    ] {
        for (i, o) in outcomes.iter().enumerate() {
            let listed_why = match o {
                Outcome::Mapped(t) if t.defs().next().is_none() => Why::NoDefinitions,
                Outcome::Mapped(_) => continue,
                Outcome::Listed(w) => w.clone(),
            };
            if std::mem::discriminant(&listed_why) != std::mem::discriminant(&why) {
                continue;
            }
            text.push_str(&text::listed_line(
                &shown_path(&walked.files[i].rel),
                &listed_why,
            ));
        }
    }
    for o in &outcomes {
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
    if !single {
        let filter = spool_core::search::tree::Filter {
            globs: &[],
            hidden: false,
        };
        let left = deadline.saturating_duration_since(Instant::now());
        (counts.ignored, counts.hidden) =
            spool_core::search::tree::left_out(&real, &filter, walked.files.len(), left);
    }
    let tree = spool_core::search::tree::tree_version(&real, &walked.digest);
    let version = MapVersion {
        root: req.path.to_owned(),
        commit: tree.commit,
        dirty: tree.dirty,
        files_digest: tree.files_digest,
        focus: req.focus.to_vec(),
        focus_unmatched,
        mapped_at: spool_core::clock::rfc3339(spool_core::clock::now_ms()),
        files: counts,
        definitions,
        definitions_listed: listed,
        parsed,
        timed_out,
        ..MapVersion::default()
    };
    let mut new = NewArtifact::new(Source::new(
        format!("map of {}", req.path),
        Version::Map(version.clone()),
    ));
    new.redo = Some(map_call(req.path, req.focus));
    new.dedup_key = Some(key);
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

/// The `map` call that makes this map again.
pub fn map_call(path: &str, focus: &[String]) -> NextCall {
    let mut call = NextCall::new("map", [("path", Value::from(path))]);
    if !focus.is_empty() {
        call.arguments
            .insert("focus".into(), Value::from(focus.to_vec()));
    }
    call
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

/// A file to parse, handed to a worker.
struct Job {
    index: usize,
    lang: Lang,
    key: String,
    content: Vec<u8>,
}

/// Reads every walked file with a grammar beneath its root, and takes its tags from the cache
/// or has a worker parse it, until `deadline`; and how many it parsed.
fn read_and_parse(
    store: &Store,
    roots: &Roots,
    walked: &Walked,
    deadline: Instant,
) -> Result<(Vec<Outcome>, u64)> {
    let cache = Cache::open(store.root())
        .inspect_err(|e| tracing::warn!(error = %e, "mapping without the parse cache"))
        .ok();
    let mut langs: HashMap<&str, (usize, Lang)> = HashMap::new();
    let outcomes: RefCell<Vec<Option<Outcome>>> = RefCell::new(
        walked
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| match Lang::of(&f.path) {
                Some(lang) => {
                    langs.insert(&f.rel, (i, lang));
                    None
                }
                None => Some(Outcome::Listed(Why::NoGrammar)),
            })
            .collect(),
    );
    let code = Walked {
        files: walked
            .files
            .iter()
            .filter(|f| langs.contains_key(f.rel.as_str()))
            .map(|f| walk::Candidate {
                path: f.path.clone(),
                rel: f.rel.clone(),
                len: f.len,
            })
            .collect(),
        digest: walked.digest.clone(),
    };
    let workers = std::thread::available_parallelism()
        .map_or(2, std::num::NonZero::get)
        .clamp(1, 8);
    let (job_tx, job_rx) = mpsc::sync_channel::<Job>(workers * 4);
    let job_rx = Arc::new(Mutex::new(job_rx));
    let (done_tx, done_rx) = mpsc::channel::<(usize, String, Result<FileTags, ParseFailure>)>();
    let parsed: Vec<(usize, String, Result<FileTags, ParseFailure>)> = std::thread::scope(|s| {
        for _ in 0..workers {
            let jobs = Arc::clone(&job_rx);
            let done = done_tx.clone();
            s.spawn(move || {
                loop {
                    let job = {
                        let Ok(rx) = jobs.lock() else { return };
                        rx.recv()
                    };
                    let Ok(job) = job else { return };
                    let now = Instant::now();
                    let outcome = if now >= deadline {
                        Err(ParseFailure::TimedOut)
                    } else {
                        tags::extract(job.lang, &job.content, deadline.min(now + PER_FILE))
                    };
                    if done.send((job.index, job.key, outcome)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done_tx);
        let budget = deadline.saturating_duration_since(Instant::now());
        let walked_all = walk::each_file(
            &code,
            roots,
            MAX_FILE_BYTES,
            budget,
            |file, opened, _| {
                let Some(&(index, lang)) = langs.get(file.rel.as_str()) else {
                    return Ok(false);
                };
                let mut content = Vec::with_capacity(file.len as usize);
                let read = std::io::Read::by_ref(&mut &*opened)
                    .take(MAX_FILE_BYTES + 1)
                    .read_to_end(&mut content);
                if read.is_err() {
                    return Ok(false);
                }
                if content.len() as u64 > MAX_FILE_BYTES {
                    // It grew past the limit since the walk.
                    outcomes.borrow_mut()[index] =
                        Some(Outcome::Listed(Why::TooLarge(content.len() as u64)));
                    return Ok(true);
                }
                if memchr_nul(&content) {
                    outcomes.borrow_mut()[index] = Some(Outcome::Listed(Why::Binary));
                    return Ok(true);
                }
                let key = cache::key(lang, &content);
                if let Some(cache) = &cache
                    && let Ok(Some(tags)) = cache.get(&key)
                {
                    outcomes.borrow_mut()[index] = Some(Outcome::Mapped(tags));
                    return Ok(true);
                }
                let job = Job {
                    index,
                    lang,
                    key,
                    content,
                };
                // Blocks while the workers are behind: reading waits for parsing.
                let _ = job_tx.send(job);
                Ok(true)
            },
            |file, skip| {
                let Some(&(index, _)) = langs.get(file.rel.as_str()) else {
                    return;
                };
                outcomes.borrow_mut()[index] = Some(Outcome::Listed(match skip {
                    Skip::TooLarge => Why::TooLarge(file.len),
                    Skip::Binary => Why::Binary,
                    Skip::Unreadable => Why::Unreadable,
                }));
            },
        );
        drop(job_tx);
        let parsed: Vec<_> = done_rx.iter().collect();
        walked_all.map(|_| parsed)
    })?;
    let mut outcomes = outcomes.into_inner();
    let keep = |cache: &Cache| -> Result<()> {
        for (_, key, outcome) in &parsed {
            if let Ok(tags) = outcome {
                cache.put(key, tags)?;
            }
        }
        cache.trim()
    };
    if let Some(cache) = &cache
        && let Err(e) = cache.batch(keep)
    {
        tracing::warn!(error = %e, "the parse cache was not updated");
    }
    let late = Instant::now() >= deadline;
    // Parsed: given tags, or found unparsable (not given up for want of time).
    let count = parsed
        .iter()
        .filter(|(_, _, o)| !matches!(o, Err(ParseFailure::TimedOut)))
        .count() as u64;
    for (index, _, outcome) in parsed {
        outcomes[index] = Some(match outcome {
            Ok(tags) => Outcome::Mapped(tags),
            // Past the map's deadline it was not parsed; within it, its own time ran out.
            Err(ParseFailure::TimedOut) if late => Outcome::Listed(Why::NotParsed),
            Err(_) => Outcome::Listed(Why::Unparsable),
        });
    }
    // What the walk did not reach before the deadline was not parsed.
    let outcomes = outcomes
        .into_iter()
        .map(|o| o.unwrap_or(Outcome::Listed(Why::NotParsed)))
        .collect();
    Ok((outcomes, count))
}

fn memchr_nul(bytes: &[u8]) -> bool {
    bytes.contains(&0)
}

/// What the agent asked to rank first: files (by their path under the map's root, or as the
/// map prints them) and names (anything else).
struct Focus {
    /// Files named: listed first.
    files: HashSet<usize>,
    /// Files the walk starts from: those named, and those whose path holds a name asked for.
    personal: HashSet<usize>,
    names: HashSet<String>,
}

impl Focus {
    fn resolve(
        asked: &[String],
        walked: &Walked,
        outcomes: &[Outcome],
        shown: &dyn Fn(&str) -> String,
    ) -> Self {
        let mut files = HashSet::new();
        let mut names = HashSet::new();
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
                        || ((bare.contains('/') || bare.contains('.'))
                            && c.rel.ends_with(&format!("/{bare}")))
                })
                .map(|(i, _)| i)
                .collect();
            if hits.is_empty() {
                names.insert(f.to_owned());
            } else {
                files.extend(hits);
            }
        }
        // The walk starts from the files named, the files that define a name asked for, and
        // (as Aider's) the files whose path holds one.
        let mut personal = files.clone();
        for (i, c) in walked.files.iter().enumerate() {
            let Some(Outcome::Mapped(tags)) = outcomes.get(i) else {
                continue;
            };
            let path = Path::new(&c.rel);
            let stem = path.file_stem().and_then(|s| s.to_str());
            let mut parts = path.iter().filter_map(|p| p.to_str());
            if stem.is_some_and(|s| names.contains(s))
                || parts.any(|p| names.contains(p))
                || tags.defs().any(|(_, _, n)| names.contains(n))
            {
                personal.insert(i);
            }
        }
        Self {
            files,
            personal,
            names,
        }
    }
}
