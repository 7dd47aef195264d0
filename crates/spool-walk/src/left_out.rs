//! What a directory search states beside its hits that no file's reading gives: how many files
//! there are in all, ignored and hidden ones too (the left-out counts), and whether a file git
//! neither tracks nor ignores is there (a dirty tree).
//!
//! The search's own walk (`walk`) counts the files of the directories it reads and
//! notes what it reads past there ([`LeftOut`]); the survey then reads only the directories it
//! left out (ignored, hidden, or outside the globs) and compares what was noted with the index.
//! A survey with no search before it starts from the top ([`LeftOut::everything`]). Git's
//! rules are matched against directories and against the files the index does not track, not
//! against every name.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::ignore_rules::{Context, Level, Present};

/// What the survey compares with the repository: the index entries under the surveyed
/// directory, found by their paths below it.
pub struct Tracked<'a>(pub &'a crate::git::DirtyCheck);

impl Tracked<'_> {
    /// The index entry that tracks the path under the surveyed directory that `parts` spell.
    fn entry_of(&self, parts: [&str; 2], scratch: &mut String) -> Option<usize> {
        if parts[1].is_empty() {
            return self.0.entry_of(parts[0]);
        }
        scratch.clear();
        scratch.push_str(parts[0]);
        scratch.push_str(parts[1]);
        self.0.entry_of(scratch)
    }
}

/// What the survey found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Survey {
    /// Every regular file under the directory (`.git` left out), how many of them are hidden
    /// and how many only the globs left out; `None` when not asked for, or not counted within
    /// the time given.
    pub counts: Option<Counts>,
    /// A file (or symlink) neither tracked nor ignored is there.
    pub untracked: bool,
    /// A name the index cannot be asked about (not UTF-8) may be untracked.
    pub unknown: bool,
    /// The symlinks the walk's rules let through, which it did not follow (see
    /// [`LeftOut::links`]).
    pub links: Vec<PathBuf>,
    /// The walked files it compared with the index (not those git ignores, which a glob or
    /// a rule let through) that the index tracks: (the entry, the file's place in the walk).
    /// A tracked file walked but not compared is looked at by the dirty check on its own.
    pub tracked_walked: Vec<(usize, usize)>,
    /// The files the walk read past that the index tracks, with their size and time as the
    /// walk saw them: (the entry, the size and time).
    pub tracked_passed: Vec<(usize, crate::git::SeenStat)>,
}

/// The files under a surveyed directory, by what left them out. A symlink counts as a file:
/// regression (issue 57), a symlinked folder was neither searched nor counted, and a search
/// found nothing under `app` while `grep -R` found the answer in `app/config/prod.yaml`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Every regular file and symlink (`.git` left out).
    pub all: u64,
    /// The symlinks the walk's rules let through, not followed.
    pub links: u64,
    /// Those with a hidden name on their path (a name that starts with `.`).
    pub hidden: u64,
    /// Those the walk's rules would have read and only its globs left out: (not hidden,
    /// hidden).
    pub outside: (u64, u64),
}

/// A directory still to read.
#[expect(
    clippy::struct_excessive_bools,
    reason = "what the walk knows of a directory on its way, each a fact of its own"
)]
pub struct Pending {
    pub path: PathBuf,
    /// The rules of the directory it is in (for the top, of the one above it).
    pub parent: Option<Arc<Level>>,
    /// Its path under the walked directory with a trailing `/` (empty at the top); `None`
    /// under a name that is not UTF-8.
    pub rel: Option<String>,
    /// A name on the way is hidden.
    pub hidden: bool,
    /// Its files are compared with the index (not inside a repository within).
    pub checked: bool,
    /// Git ignores it or a directory it is in.
    pub git_ignored: bool,
    /// Only the globs left it out: its files are outside them, unless the rules leave them
    /// out too.
    pub outside_glob: bool,
}

/// A directory read: its entries and its rules.
pub struct Listed {
    pub entries: crate::dir_reader::Entries,
    pub level: Arc<Level>,
    /// It is the top of a repository inside the walked directory.
    pub repo_inside: bool,
}

impl Pending {
    /// The walked directory `dir`, and what its walk shares.
    pub fn top(dir: &Path) -> (Arc<Context>, Self) {
        let (context, above) = Context::new(dir);
        let top = Self {
            path: dir.to_owned(),
            parent: above,
            rel: Some(String::new()),
            hidden: false,
            checked: true,
            git_ignored: false,
            outside_glob: false,
        };
        (context, top)
    }

    /// Reads the directory and its rules (`None`: it cannot be read).
    pub fn list(&mut self) -> Option<Listed> {
        let entries = crate::dir_reader::entries_of(&self.path)?;
        let mut present = Present::default();
        for e in entries.iter() {
            present.note(e.name().as_encoded_bytes());
        }
        let level = Level::read(
            &self.path,
            self.parent.take(),
            present,
            false,
            self.git_ignored,
        );
        Some(Listed {
            entries,
            level: Arc::new(level),
            repo_inside: present.git && self.rel.as_deref() != Some(""),
        })
    }
}

/// What a walk that read part of the tree leaves to the survey.
#[derive(Default)]
pub struct LeftOut {
    /// The files (and symlinks) of the directories the walk read, and how many of them are
    /// hidden.
    pub counted: (u64, u64),
    /// The hidden files and symlinks it let through (an ignore rule took them back in, or
    /// hidden files were asked for): counted here, as it walked, not by a look at each walked
    /// path after it.
    pub walked_hidden: u64,
    /// The symlinks its rules let through: not followed (a link may lead out of the roots, or
    /// round in a cycle), counted apart, so that a search can say so and offer the search of
    /// where each leads.
    pub links: Vec<PathBuf>,
    /// The files of the directories it read that only its globs left out: (not hidden,
    /// hidden).
    pub outside: (u64, u64),
    /// The walk's rules, which the survey applies to the files under a directory only the
    /// globs left out: hidden names skipped, the ignore files applied.
    pub skip_hidden: bool,
    pub ignore_files: bool,
    /// The directories it did not read.
    pub dirs: Vec<Pending>,
    /// Files and symlinks it read past that the dirty check compares with the index, by path
    /// under the walked directory, with a regular file's size and modification time
    /// (nanoseconds) as the walk saw it: the dirty check then need not look at it again, after
    /// the walk, while the answer waits (825 such files in a 20,000-file repository).
    pub unsearched: Vec<(String, Option<crate::git::SeenStat>)>,
    /// Repositories inside that git does not ignore, by path with a trailing `/` (`None`: not
    /// UTF-8).
    pub repos: Vec<Option<String>>,
    /// A name the dirty check cannot ask the index about.
    pub unknown: bool,
    /// Whether the dirty check compares each walked file with the index, in walk order.
    pub checked: Vec<bool>,
    /// What the walk's directories share; `None` when it read none (a file, or nothing there).
    pub context: Option<Arc<Context>>,
}

impl LeftOut {
    /// All of `dir`, for a survey no walk went before.
    pub fn everything(dir: &Path) -> Self {
        let (context, top) = Pending::top(dir);
        Self {
            dirs: vec![top],
            context: Some(context),
            ..Self::default()
        }
    }

    /// Adds what another walking thread left.
    pub fn add(&mut self, other: Self) {
        self.counted.0 += other.counted.0;
        self.counted.1 += other.counted.1;
        self.walked_hidden += other.walked_hidden;
        self.outside.0 += other.outside.0;
        self.outside.1 += other.outside.1;
        self.dirs.extend(other.dirs);
        self.links.extend(other.links);
        self.unsearched.extend(other.unsearched);
        self.repos.extend(other.repos);
        self.unknown |= other.unknown;
    }
}

/// What every surveying thread shares.
struct Shared<'a> {
    git: Option<&'a Tracked<'a>>,
    /// What the directories left share (`None`: none are left).
    context: Option<Arc<Context>>,
    /// Counting stops (and the counts are unknown) once this has passed; `None`: no count.
    count_until: Option<Instant>,
    counting: AtomicBool,
    all: AtomicU64,
    hidden: AtomicU64,
    outside: AtomicU64,
    outside_hidden: AtomicU64,
    /// The walk's rules (see [`LeftOut::skip_hidden`]).
    skip_hidden: bool,
    ignore_files: bool,
    untracked: AtomicBool,
    unknown: AtomicBool,
}

impl Shared<'_> {
    /// Whether counting goes on: not once the time given has passed.
    fn counting(&self) -> bool {
        let on = self.counting.load(Ordering::Relaxed)
            && self.count_until.is_some_and(|until| Instant::now() < until);
        if !on {
            self.counting.store(false, Ordering::Relaxed);
        }
        on
    }

    /// Notes that `rel` (a file, symlink or repository the dirty check compares) is untracked
    /// unless the index tracks it.
    fn compare(&self, rel: &str, scratch: &mut String) -> Option<usize> {
        let entry = self.git?.entry_of([rel, ""], scratch);
        if entry.is_none() {
            self.untracked.store(true, Ordering::Relaxed);
        }
        entry
    }
}

/// Surveys what a walk left (`left`) beside the files it walked (`walked`, by path under the
/// walked directory, in walk order).
pub fn finish(
    left: LeftOut,
    walked: &[&str],
    git: Option<&Tracked<'_>>,
    count_within: Option<Duration>,
) -> Survey {
    let shared = Shared {
        git,
        context: left.context,
        count_until: count_within.map(|d| Instant::now() + d),
        counting: AtomicBool::new(count_within.is_some()),
        all: AtomicU64::new(left.counted.0),
        hidden: AtomicU64::new(left.counted.1),
        outside: AtomicU64::new(left.outside.0),
        outside_hidden: AtomicU64::new(left.outside.1),
        skip_hidden: left.skip_hidden,
        ignore_files: left.ignore_files,
        untracked: AtomicBool::new(false),
        unknown: AtomicBool::new(git.is_some() && left.unknown),
    };
    let (mut tracked_walked, mut tracked_passed) = (Vec::new(), Vec::new());
    if git.is_some() {
        let mut scratch = String::new();
        let compared = walked
            .iter()
            .zip(&left.checked)
            .enumerate()
            .filter_map(|(place, (rel, checked))| checked.then_some((place, *rel)));
        for (place, rel) in compared {
            if let Some(entry) = shared.compare(rel, &mut scratch) {
                tracked_walked.push((entry, place));
            }
        }
        for (rel, seen) in &left.unsearched {
            if let (Some(entry), Some(seen)) = (shared.compare(rel, &mut scratch), seen) {
                tracked_passed.push((entry, *seen));
            }
        }
        for repo in &left.repos {
            match repo {
                Some(rel) => {
                    shared.compare(rel.trim_end_matches('/'), &mut scratch);
                }
                None => shared.unknown.store(true, Ordering::Relaxed),
            }
        }
    }
    crate::dir_reader::each_dir(left.dirs, String::new, |scratch, d, found| {
        read_dir(&shared, d, found, scratch);
    });
    let counted = shared.counting.load(Ordering::Relaxed) && count_within.is_some();
    let mut links = left.links;
    links.sort();
    Survey {
        counts: counted.then(|| Counts {
            all: shared.all.into_inner(),
            links: links.len() as u64,
            hidden: shared.hidden.into_inner(),
            outside: (
                shared.outside.into_inner(),
                shared.outside_hidden.into_inner(),
            ),
        }),
        untracked: shared.untracked.into_inner(),
        unknown: shared.unknown.into_inner(),
        links,
        tracked_walked,
        tracked_passed,
    }
}

/// Reads one directory the walk left out: counts its files, compares them with the index, and
/// hands over the directories in it that still need reading.
fn read_dir(shared: &Shared<'_>, mut d: Pending, found: &mut Vec<Pending>, scratch: &mut String) {
    // A directory left comes with the walk's context.
    let Some(context) = shared.context.as_deref() else {
        return;
    };
    let counting = shared.counting();
    let mut checked = shared.git.is_some()
        && d.checked
        && !d.git_ignored
        && !shared.untracked.load(Ordering::Relaxed);
    // Not counting, a directory with nothing to compare is not read.
    if !counting && !checked {
        return;
    }
    let Some(Listed {
        entries,
        level,
        repo_inside,
    }) = d.list()
    else {
        return;
    };
    // A repository inside: git tracks its commit (a submodule) or not, not its files.
    if checked && repo_inside {
        match d.rel.as_deref() {
            Some(rel) => {
                shared.compare(rel.trim_end_matches('/'), scratch);
            }
            None => shared.unknown.store(true, Ordering::Relaxed),
        }
        checked = false;
    }
    let (mut files, mut hidden_files) = (0u64, 0u64);
    let mut outside = (0u64, 0u64);
    // Under a directory only the globs left out, what the walk's rules would leave out anyway
    // is counted by them, the rest as outside the globs.
    let rules_out = |path: &Path, is_dir: bool, name: &std::ffi::OsStr| match level
        .said(path, is_dir, context)
        .search
        .filter(|_| shared.ignore_files)
    {
        Some(ignored) => ignored,
        None => shared.skip_hidden && name.as_encoded_bytes().starts_with(b"."),
    };
    for e in entries.iter() {
        let name = e.name();
        if name == ".git" {
            continue;
        }
        let kind = e.kind();
        let hidden = d.hidden || name.as_encoded_bytes().starts_with(b".");
        let rel = d.rel.as_deref().zip(name.to_str());
        if kind.is_dir() {
            let path = level.path.join(name);
            let git_ignored = checked && level.said(&path, true, context).git_ignored;
            let outside_glob = d.outside_glob && counting && !rules_out(&path, true, name);
            found.push(Pending {
                rel: rel.map(|(r, n)| format!("{r}{n}/")),
                path,
                parent: Some(Arc::clone(&level)),
                hidden,
                checked,
                git_ignored,
                outside_glob,
            });
            continue;
        }
        if kind.is_file() || kind.is_symlink() {
            files += 1;
            hidden_files += u64::from(hidden);
            if d.outside_glob && counting && !rules_out(&level.path.join(name), false, name) {
                if hidden {
                    outside.1 += 1;
                } else {
                    outside.0 += 1;
                }
            }
        }
        if !checked || !(kind.is_file() || kind.is_symlink()) {
            continue;
        }
        if let Some((r, n)) = rel
            && shared
                .git
                .is_some_and(|g| g.entry_of([r, n], scratch).is_some())
        {
            continue;
        }
        if level
            .said(&level.path.join(name), false, context)
            .git_ignored
        {
            continue;
        }
        match rel {
            Some(_) => shared.untracked.store(true, Ordering::Relaxed),
            // Not UTF-8: the index cannot be asked about it.
            None => shared.unknown.store(true, Ordering::Relaxed),
        }
    }
    if counting {
        shared.all.fetch_add(files, Ordering::Relaxed);
        shared.hidden.fetch_add(hidden_files, Ordering::Relaxed);
        shared.outside.fetch_add(outside.0, Ordering::Relaxed);
        shared
            .outside_hidden
            .fetch_add(outside.1, Ordering::Relaxed);
    }
}
