//! The walk itself: each directory read once, on every core, ripgrep's walker's rules applied
//! to what it holds (see [`crate::ignore_rules`]), the files let through handed to a visitor as they
//! are found, and what the survey needs of the rest noted on the way.

use std::path::Path;
use std::sync::Arc;

use super::{Candidate, Seen};
use crate::error::{Result, WalkError};
use crate::left_out::{LeftOut, Pending};

/// One file a walk found, with what the walk's visitor made of it.
struct Found<P> {
    /// Its place in the walk is set once the walk is in path order.
    file: Candidate,
    /// Looked at only when asked for.
    seen: Option<Seen>,
    visited: P,
    /// Where the [`crate::paths::push_order_key`] of its path below the walked directory is
    /// in its walking thread's keys: made by that thread (made after the walk, on one thread,
    /// the keys took longer than the sort), and kept in one buffer per thread (a key of its
    /// own for each file cost a free for each, after the walk, on its critical path).
    key: std::ops::Range<usize>,
    /// The dirty check compares it with the index.
    check: bool,
}

/// What a walk found, in path order: each file, its size and time (when asked for), and what
/// the visitor made of it.
pub(super) struct Gathered<P> {
    pub files: Vec<Candidate>,
    pub seen: Vec<Option<Seen>>,
    pub visited: Vec<P>,
}

impl<P> Default for Gathered<P> {
    fn default() -> Self {
        Gathered {
            files: Vec::new(),
            seen: Vec::new(),
            visited: Vec::new(),
        }
    }
}

/// How a walk runs: what it skips and what it looks at.
pub(super) struct Rules<'a> {
    pub globs: &'a [String],
    pub skip_hidden: bool,
    /// The ignore files are applied (not with `no_ignore`).
    pub ignore_files: bool,
    /// Size and modification time of each file (one `stat` each).
    pub stat: bool,
}

/// The globs as the walker applies them under `dir`, or why one is not a glob.
fn overrides(dir: &Path, globs: &[String]) -> Result<ignore::overrides::Override> {
    let mut overrides = ignore::overrides::OverrideBuilder::new(dir);
    for g in globs {
        overrides.add(g).map_err(|e| WalkError::Glob {
            glob: g.clone(),
            why: e.to_string(),
        })?;
    }
    overrides
        .build()
        .map_err(|e| WalkError::Globs(e.to_string()))
}

/// Whether the walk of `dir` can take these globs (the error it would give, before it starts).
pub fn check_globs(dir: &Path, globs: &[String]) -> Result<()> {
    overrides(dir, globs).map(drop)
}

/// The files under `dir` that the rules let through, in path order, each handed to a visitor
/// as the walk finds it (`visitor` makes one for each walking thread), and what the survey
/// needs of the rest (see [`crate::left_out::LeftOut`]).
///
/// The rules are ripgrep's walker's (`.gitignore`, `.ignore`, `info/exclude`, the user's
/// excludes file, the hidden rule, the globs; see [`crate::ignore_rules`]), applied by a walk of our
/// own: ripgrep's reports only what it lets through, and the survey then read every directory
/// again. Each directory is read once, by plain directory reads, on every core.
pub(super) fn gather<P, V>(
    dir: &Path,
    rules: &Rules<'_>,
    visitor: &(impl Fn() -> V + Sync),
) -> Result<(Gathered<P>, LeftOut)>
where
    P: Send,
    V: FnMut(&Candidate) -> P + Send,
{
    let overrides = overrides(dir, rules.globs)?;
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        // A file asked for by name is read whatever the rules say, as ripgrep reads it.
        Ok(meta) if meta.is_file() => {
            let file = Candidate {
                rel: rel_of(dir, dir),
                path: dir.to_owned(),
                len: rules.stat.then_some(meta.len()),
                index: 0,
            };
            let visited = visitor()(&file);
            let found = Gathered {
                files: vec![file],
                seen: vec![rules.stat.then(|| Seen::of(&meta))],
                visited: vec![visited],
            };
            return Ok((found, LeftOut::default()));
        }
        _ => return Ok((Gathered::default(), LeftOut::default())),
    }
    let (context, top) = Pending::top(dir);
    let walk = Walk {
        root: dir,
        overrides: &overrides,
        rules,
        context: &context,
    };
    // The walk reads directories by name: one swapped for a symlink between its listing and
    // its reading hands back another directory's names. A walk that states its files (the
    // map lists every one, opened or not) looks each up again below the walked directory,
    // held open, without crossing a symlink, and drops what is not a regular file there
    // (regression, issue 39: 48 of 600 maps named files outside the root).
    let held = if rules.stat {
        Some(
            crate::confined::open_dir_nofollow(dir).map_err(|refused| WalkError::Forbidden {
                path: dir.to_owned(),
                reason: format!("it could not be held open to walk ({refused:?})"),
            })?,
        )
    } else {
        None
    };
    let states = crate::dir_reader::each_dir(
        vec![top],
        || {
            let below = held
                .as_ref()
                .and_then(|fd| fd.try_clone().ok())
                .map(crate::confined::Below::new);
            (Vec::new(), Vec::new(), visitor(), LeftOut::default(), below)
        },
        |(found, keys, visit, left, below), d, next| {
            walk.read(d, next, left, &mut |mut file, check| {
                let seen = if rules.stat {
                    let rel = file.path.strip_prefix(dir).unwrap_or(&file.path);
                    match below.as_mut().and_then(|b| b.stat(rel)) {
                        Some(st) if is_regular(&st) => Some(Seen::of_stat(&st)),
                        _ => return,
                    }
                } else {
                    None
                };
                file.len = seen.map(|s| s.len);
                let visited = visit(&file);
                let start = keys.len();
                crate::paths::push_order_key(below_root(dir, &file.path), keys);
                found.push(Some(Found {
                    key: start..keys.len(),
                    file,
                    seen,
                    visited,
                    check,
                }));
            });
        },
    );
    let mut all = LeftOut {
        context: Some(Arc::clone(&context)),
        skip_hidden: rules.skip_hidden,
        ignore_files: rules.ignore_files,
        ..LeftOut::default()
    };
    let mut lists = Vec::with_capacity(states.len());
    for (mine, keys, _, left, _) in states {
        lists.push((mine, keys));
        all.add(left);
    }
    let (found, checked) = in_path_order(lists);
    all.checked = checked;
    Ok((found, all))
}

/// Whether a stat is a regular file's.
fn is_regular(st: &nix::sys::stat::FileStat) -> bool {
    use nix::sys::stat::SFlag;
    SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT == SFlag::S_IFREG
}

/// The bytes of `path` below the walked directory `root` (every path the walk makes begins
/// with them): the part that orders it.
fn below_root<'p>(root: &Path, path: &'p Path) -> &'p [u8] {
    use std::os::unix::ffi::OsStrExt as _;
    let bytes = path.as_os_str().as_bytes();
    bytes
        .strip_prefix(root.as_os_str().as_bytes())
        .unwrap_or(bytes)
}

/// The files of every walking thread's list, taken out in path order (each list holds each of
/// its files until taken), with whether the dirty check compares each.
///
/// Each list's keys are sorted on a thread of its own, and the sorted runs then merged (a stable
/// sort finds and merges runs): appending the lists and sorting every file on one thread,
/// moving each file's 200 bytes about, took 13.5 ms of a 20,000-file repository's search, on
/// its critical path.
fn in_path_order<P>(lists: Vec<ThreadFound<P>>) -> (Gathered<P>, Vec<bool>) {
    let (mut lists, keys): (Vec<_>, Vec<_>) = lists.into_iter().unzip();
    let n = lists.iter().map(Vec::len).sum();
    let mut order: Vec<(&[u8], usize, usize)> = Vec::with_capacity(n);
    let mut runs = Vec::with_capacity(lists.len());
    for (l, (list, keys)) in lists.iter().zip(&keys).enumerate() {
        let start = order.len();
        order.extend(list.iter().enumerate().filter_map(|(i, f)| {
            Some((keys.get(f.as_ref()?.key.clone()).unwrap_or_default(), l, i))
        }));
        runs.push(order.len() - start);
    }
    std::thread::scope(|scope| {
        let mut rest = order.as_mut_slice();
        for len in runs {
            let (run, after) = rest.split_at_mut(len);
            rest = after;
            // No two paths have the same key.
            let mut sort = move || run.sort_unstable_by(|a, b| a.0.cmp(b.0));
            // A short run is sorted sooner than a thread starts.
            if rest.is_empty() || len < 4096 {
                sort();
            } else if let Err(e) = crate::workers::spawn_scoped(scope, "sort", sort) {
                // With no thread to be had, the merge below sorts what is left unsorted.
                tracing::debug!(error = %e, "a sorting thread could not start");
            }
        }
    });
    order.sort_by(|a, b| a.0.cmp(b.0));
    let places: Vec<(usize, usize)> = order.into_iter().map(|(_, l, i)| (l, i)).collect();
    let mut found = Gathered {
        files: Vec::with_capacity(n),
        seen: Vec::with_capacity(n),
        visited: Vec::with_capacity(n),
    };
    let mut checked = Vec::with_capacity(n);
    for (l, i) in places {
        let Some(mut f) = lists.get_mut(l).and_then(|list| list.get_mut(i)?.take()) else {
            continue;
        };
        f.file.index = found.files.len();
        found.files.push(f.file);
        found.seen.push(f.seen);
        found.visited.push(f.visited);
        checked.push(f.check);
    }
    (found, checked)
}

/// What one walking thread found: its files (each held until taken), and their order keys.
type ThreadFound<P> = (Vec<Option<Found<P>>>, Vec<u8>);

/// One walk's rules and what its directories share.
struct Walk<'a> {
    root: &'a Path,
    overrides: &'a ignore::overrides::Override,
    rules: &'a Rules<'a>,
    context: &'a Arc<crate::ignore_rules::Context>,
}

impl Walk<'_> {
    /// Reads directory `d`: hands each file the rules let through to `take` (with whether the
    /// dirty check compares it with the index), pushes the directories they let through onto
    /// `next`, and notes in `left` what the survey needs of the rest.
    fn read(
        &self,
        mut d: Pending,
        next: &mut Vec<Pending>,
        left: &mut LeftOut,
        take: &mut impl FnMut(Candidate, bool),
    ) {
        let Some(listed) = d.list() else {
            return;
        };
        let (entries, level) = (&listed.entries, &listed.level);
        let mut checked = d.checked;
        // A repository inside: git tracks its commit (a submodule) or not, not its files.
        if checked && listed.repo_inside {
            if !d.git_ignored {
                left.repos.push(d.rel.clone());
            }
            checked = false;
        }
        for e in entries.iter() {
            let name = e.name();
            // Version-control metadata is never content, hidden files asked for or not.
            if name == ".git" {
                continue;
            }
            let kind = e.kind();
            let path = level.path.join(name);
            let hidden_name = name.as_encoded_bytes().starts_with(b".");
            let hidden = d.hidden || hidden_name;
            let file_or_link = kind.is_file() || kind.is_symlink();
            if file_or_link {
                left.counted.0 += 1;
                left.counted.1 += u64::from(hidden);
            }
            let said = level.said(&path, kind.is_dir(), self.context);
            let by_glob = if self.overrides.is_empty() {
                ignore::Match::None
            } else {
                self.overrides.matched(&path, kind.is_dir())
            };
            // What the rules say without the globs: a file they leave out is counted as
            // ignored or hidden, one that only a glob leaves out as outside the globs.
            let rules_out = match said.search.filter(|_| self.rules.ignore_files) {
                Some(ignored) => ignored,
                None => self.rules.skip_hidden && hidden_name,
            };
            let (searched, outside) = match by_glob {
                ignore::Match::Ignore(_) => (false, !rules_out),
                ignore::Match::Whitelist(_) => (true, false),
                ignore::Match::None => (!rules_out, false),
            };
            let rel = d.rel.as_deref().zip(name.to_str());
            // What the dirty check compares with the index: not what git ignores, not what is
            // in a repository inside; a name that is not UTF-8 cannot be asked about.
            let compared = checked && !said.git_ignored;
            if kind.is_dir() {
                let pending = Pending {
                    rel: rel.map(|(r, n)| format!("{r}{n}/")),
                    path,
                    parent: Some(Arc::clone(level)),
                    hidden,
                    checked,
                    git_ignored: said.git_ignored,
                    outside_glob: outside,
                };
                if searched {
                    next.push(pending);
                } else {
                    left.dirs.push(pending);
                }
                continue;
            }
            if !(kind.is_file() || kind.is_symlink()) {
                continue;
            }
            if compared && rel.is_none() {
                left.unknown = true;
            }
            if file_or_link && outside {
                if hidden {
                    left.outside.1 += 1;
                } else {
                    left.outside.0 += 1;
                }
            }
            if kind.is_symlink() && searched {
                // Let through, not followed: counted apart (and compared below, as git
                // tracks a symlink itself).
                left.walked_hidden += u64::from(hidden);
                left.links.push(path.clone());
            }
            if kind.is_file() && searched {
                left.walked_hidden += u64::from(hidden);
                let file = Candidate {
                    rel: rel_of(self.root, &path),
                    path,
                    len: None,
                    index: 0,
                };
                take(file, compared && rel.is_some());
            } else if compared && let Some((r, n)) = rel {
                // A regular file's size and time, for the dirty check, in a repository only (it
                // does not compare a symlink by them; a file swapped for one since it was
                // listed is looked at after the walk).
                let seen = (kind.is_file() && self.context.in_repository())
                    .then(|| std::fs::symlink_metadata(&path).ok())
                    .flatten()
                    .filter(std::fs::Metadata::is_file)
                    .map(|m| Seen::of(&m));
                left.unsearched.push((format!("{r}{n}"), seen));
            }
        }
    }
}

fn rel_of(dir: &Path, path: &Path) -> String {
    crate::paths::below(path, dir)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}
