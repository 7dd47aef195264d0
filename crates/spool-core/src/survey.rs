//! One plain walk of a searched directory's tree that answers what a directory search states
//! beside its hits and no file's reading gives: how many files there are in all, ignored and
//! hidden ones too (the left-out counts), and whether a file git neither tracks nor ignores is
//! there (a dirty tree).
//!
//! Every directory is read once with plain directory reads. Git's ignore rules (`.gitignore`
//! files, `info/exclude`, `core.excludesFile`) are matched against directories and against
//! the files the index does not track, not against every name. Two walks did this before,
//! one of them ripgrep's walker matching every name against the rules: on a 20,000-file
//! repository they cost more than half as much as the search itself.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::git::Repo;

/// What the survey compares with the repository: its tracked paths, as the index names them.
pub(crate) struct Tracked<'a> {
    pub repo: &'a Repo,
    /// The surveyed directory's path in the index, with a trailing `/` (empty at the top).
    pub prefix: &'a str,
    pub paths: &'a HashSet<&'a str>,
}

/// What the survey found.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Survey {
    /// Every regular file under the directory (`.git` left out) and how many of them are
    /// hidden (a name on their path starts with `.`); `None` when not asked for, or not
    /// counted within the time given.
    pub counts: Option<(u64, u64)>,
    /// A file (or symlink) neither tracked nor ignored is there.
    pub untracked: bool,
    /// A name the index cannot be asked about (not UTF-8) may be untracked.
    pub unknown: bool,
}

/// A directory still to read.
struct Dir {
    path: PathBuf,
    /// The directory it is in (`None`: the surveyed one).
    parent: Option<Arc<Node>>,
    /// Its path in the index with a trailing `/`; `None` under a name that is not UTF-8.
    rel: Option<String>,
    /// A name on the way is hidden.
    hidden: bool,
    /// Its files are compared with the index (not inside a submodule).
    checked: bool,
}

/// A directory read, with what git's rules say of it, each found only when a file git does
/// not track needs it: in a repository whose files are all tracked, no ignore file is read
/// and no rule matched.
struct Node {
    path: PathBuf,
    parent: Option<Arc<Node>>,
    /// It holds a `.gitignore`.
    has_rules: bool,
    rules: OnceLock<Gitignore>,
    /// Git ignores it (or a directory it is in).
    ignored: OnceLock<bool>,
}

impl Node {
    /// Whether git ignores `path`, in this directory: the deepest ignore file with a rule for
    /// it decides (within a file, its last rule), a whitelist (`!name`) taking it back; then
    /// the rules from above the surveyed directory.
    fn ignores(&self, path: &Path, is_dir: bool, above: &[Gitignore]) -> bool {
        let mut at = Some(self);
        while let Some(node) = at {
            if node.has_rules {
                let rules = node.rules.get_or_init(|| ignore_file(&node.path));
                if let Some(ignored) = decided(rules, path, is_dir) {
                    return ignored;
                }
            }
            at = node.parent.as_deref();
        }
        above
            .iter()
            .rev()
            .find_map(|rules| decided(rules, path, is_dir))
            .unwrap_or(false)
    }

    /// Whether git ignores this directory or one it is in.
    fn is_ignored(&self, above: &[Gitignore]) -> bool {
        *self
            .ignored
            .get_or_init(|| dir_ignored(self.parent.as_deref(), &self.path, above))
    }
}

/// What one ignore file says of `path`: ignored, taken back, or nothing.
fn decided(rules: &Gitignore, path: &Path, is_dir: bool) -> Option<bool> {
    match rules.matched(path, is_dir) {
        Match::Ignore(_) => Some(true),
        Match::Whitelist(_) => Some(false),
        Match::None => None,
    }
}

/// Whether git ignores the directory `path` in `parent` (the surveyed directory is not asked:
/// it is what was asked for).
fn dir_ignored(parent: Option<&Node>, path: &Path, above: &[Gitignore]) -> bool {
    parent.is_some_and(|p| p.is_ignored(above) || p.ignores(path, true, above))
}

/// What every surveying thread shares.
struct Shared<'a> {
    git: Option<&'a Tracked<'a>>,
    dir: &'a Path,
    /// The rules from above the surveyed directory, read when first needed.
    above: OnceLock<Vec<Gitignore>>,
    /// Counting stops (and the counts are unknown) once this has passed; `None`: no count.
    count_until: Option<Instant>,
    counting: AtomicBool,
    all: AtomicU64,
    hidden: AtomicU64,
    untracked: AtomicBool,
    unknown: AtomicBool,
}

impl Shared<'_> {
    fn above(&self) -> &[Gitignore] {
        self.above.get_or_init(|| {
            self.git
                .map_or_else(Vec::new, |g| rules_above(g.repo, self.dir))
        })
    }

    /// Whether counting goes on: not once the time given has passed.
    fn counting(&self) -> bool {
        let on = self.counting.load(Ordering::Relaxed)
            && self.count_until.is_some_and(|until| Instant::now() < until);
        if !on {
            self.counting.store(false, Ordering::Relaxed);
        }
        on
    }
}

/// Surveys `dir`: counts its files when `count_within` is given (within that time), and looks
/// for untracked files when `git` is given.
pub(crate) fn survey(
    dir: &Path,
    git: Option<&Tracked<'_>>,
    count_within: Option<Duration>,
) -> Survey {
    let shared = Shared {
        git,
        dir,
        above: OnceLock::new(),
        count_until: count_within.map(|d| Instant::now() + d),
        counting: AtomicBool::new(count_within.is_some()),
        all: AtomicU64::new(0),
        hidden: AtomicU64::new(0),
        untracked: AtomicBool::new(false),
        unknown: AtomicBool::new(false),
    };
    let top = Dir {
        path: dir.to_path_buf(),
        parent: None,
        rel: git.map(|g| g.prefix.to_owned()),
        hidden: false,
        checked: git.is_some(),
    };
    each_dir(top, |d, found| read_dir(&shared, d, found));
    let counted = shared.counting.load(Ordering::Relaxed) && count_within.is_some();
    Survey {
        counts: counted.then(|| (shared.all.into_inner(), shared.hidden.into_inner())),
        untracked: shared.untracked.into_inner(),
        unknown: shared.unknown.into_inner(),
    }
}

/// Reads one directory: counts its files, compares them with the index, and hands over the
/// directories in it that still need reading.
fn read_dir(shared: &Shared<'_>, d: Dir, found: &mut Vec<Dir>) {
    let counting = shared.counting();
    let mut git = shared
        .git
        .filter(|_| d.checked && !shared.untracked.load(Ordering::Relaxed));
    // Not counting, an ignored directory is not read: whether it is, is asked first.
    let ignored = OnceLock::new();
    if !counting
        && (git.is_none()
            || *ignored.get_or_init(|| dir_ignored(d.parent.as_deref(), &d.path, shared.above())))
    {
        return;
    }
    let Some(entries) = entries_of(&d.path) else {
        return;
    };
    let node = Arc::new(Node {
        has_rules: git.is_some()
            && entries
                .iter()
                .any(|(e, kind)| name_of(e) == ".gitignore" && kind.is_file()),
        path: d.path,
        parent: d.parent,
        rules: OnceLock::new(),
        ignored,
    });
    if let Some(g) = git {
        let rel = d.rel.as_deref().unwrap_or_default();
        // A repository inside: a submodule (its commit tracked, not its files) is not looked
        // into; one git does not track is an untracked directory, unless ignored.
        if rel != g.prefix && entries.iter().any(|(e, _)| name_of(e) == ".git") {
            if !g.paths.contains(rel.trim_end_matches('/')) && !node.is_ignored(shared.above()) {
                shared.untracked.store(true, Ordering::Relaxed);
            }
            git = None;
        }
    }
    let (mut files, mut hidden_files) = (0u64, 0u64);
    let mut rel_name = String::new();
    for (name, kind) in entries.iter().map(|(e, kind)| (name_of(e), *kind)) {
        if name == ".git" {
            continue;
        }
        let hidden = d.hidden || name.as_encoded_bytes().starts_with(b".");
        if kind.is_dir() {
            found.push(Dir {
                rel: d
                    .rel
                    .as_deref()
                    .zip(name.to_str())
                    .map(|(rel, name)| format!("{rel}{name}/")),
                path: node.path.join(name),
                parent: Some(node.clone()),
                hidden,
                checked: git.is_some(),
            });
            continue;
        }
        if kind.is_file() {
            files += 1;
            hidden_files += u64::from(hidden);
        }
        let Some(g) = git.filter(|_| kind.is_file() || kind.is_symlink()) else {
            continue;
        };
        let named = d.rel.as_deref().zip(name.to_str()).map(|(rel, name)| {
            rel_name.clear();
            rel_name.push_str(rel);
            rel_name.push_str(name);
            g.paths.contains(rel_name.as_str())
        });
        if named == Some(true) {
            continue;
        }
        let above = shared.above();
        if node.is_ignored(above) || node.ignores(&node.path.join(name), false, above) {
            continue;
        }
        match named {
            Some(_) => shared.untracked.store(true, Ordering::Relaxed),
            // Not UTF-8: the index cannot be asked about it.
            None => shared.unknown.store(true, Ordering::Relaxed),
        }
    }
    if counting {
        shared.all.fetch_add(files, Ordering::Relaxed);
        shared.hidden.fetch_add(hidden_files, Ordering::Relaxed);
    }
}

/// What a directory holds, each entry with its kind (`None`: the directory cannot be read). Read
/// with nix's directory stream, whose entries hold their names: std's gives each name its own
/// allocation, one per file of the tree, most of the survey's own time.
fn entries_of(path: &Path) -> Option<Vec<(nix::dir::Entry, Kind)>> {
    use nix::dir::{Dir, Type};
    use nix::fcntl::OFlag;
    let mut dir = Dir::open(
        path,
        OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
        nix::sys::stat::Mode::empty(),
    )
    .ok()?;
    let mut entries = Vec::new();
    for entry in dir.iter().flatten() {
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        let kind = match entry.file_type() {
            Some(Type::Directory) => Kind::Dir,
            Some(Type::File) => Kind::File,
            Some(Type::Symlink) => Kind::Symlink,
            Some(_) => Kind::Other,
            // The file system does not say (`DT_UNKNOWN`): asked of the entry itself.
            None => match std::fs::symlink_metadata(path.join(name_of(&entry))) {
                Ok(m) if m.is_dir() => Kind::Dir,
                Ok(m) if m.is_file() => Kind::File,
                Ok(m) if m.is_symlink() => Kind::Symlink,
                Ok(_) => Kind::Other,
                Err(_) => continue,
            },
        };
        entries.push((entry, kind));
    }
    Some(entries)
}

/// What a directory entry is, as the survey tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Dir,
    File,
    Symlink,
    Other,
}

impl Kind {
    fn is_dir(self) -> bool {
        self == Self::Dir
    }

    fn is_file(self) -> bool {
        self == Self::File
    }

    fn is_symlink(self) -> bool {
        self == Self::Symlink
    }
}

/// An entry's name.
fn name_of(entry: &nix::dir::Entry) -> &std::ffi::OsStr {
    std::os::unix::ffi::OsStrExt::from_bytes(entry.file_name().to_bytes())
}

/// The rules of one directory's `.gitignore` (none when it cannot be read or parsed: git
/// skips a bad line, not the file; `ignore` keeps the lines it could parse).
fn ignore_file(dir: &Path) -> Gitignore {
    let mut builder = GitignoreBuilder::new(dir);
    let _ = builder.add(dir.join(".gitignore"));
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

/// The rules that apply to `dir` from outside it, lowest precedence first: the user's
/// `core.excludesFile`, the repository's `info/exclude`, then the `.gitignore` of each
/// directory from the working tree's top down to `dir`'s parent.
fn rules_above(repo: &Repo, dir: &Path) -> Vec<Gitignore> {
    let (global, _) = GitignoreBuilder::new(&repo.work_tree).build_global();
    let mut exclude = GitignoreBuilder::new(&repo.work_tree);
    let _ = exclude.add(repo.common_dir.join("info").join("exclude"));
    let mut rules = vec![
        global,
        exclude.build().unwrap_or_else(|_| Gitignore::empty()),
    ];
    let mut above: Vec<&Path> = dir
        .ancestors()
        .skip(1)
        .take_while(|a| a.starts_with(&repo.work_tree))
        .collect();
    above.reverse();
    rules.extend(
        above
            .into_iter()
            .filter(|a| a.join(".gitignore").is_file())
            .map(ignore_file),
    );
    rules
}

/// Runs `read` on every directory from `top` down, on every core: `read` hands over the
/// directories it found in a directory.
fn each_dir(top: Dir, read: impl Fn(Dir, &mut Vec<Dir>) + Sync) {
    // Directories still to read, and how many are being read now (the walk ends when both
    // are none).
    let work = Mutex::new((vec![top], 0usize));
    let ready = Condvar::new();
    std::thread::scope(|scope| {
        for _ in 0..crate::cores::threads(12) {
            scope.spawn(|| {
                let mut found = Vec::new();
                loop {
                    let next = {
                        let mut w = work.lock().unwrap_or_else(PoisonError::into_inner);
                        loop {
                            if let Some(next) = w.0.pop() {
                                w.1 += 1;
                                break next;
                            }
                            if w.1 == 0 {
                                return;
                            }
                            w = ready.wait(w).unwrap_or_else(PoisonError::into_inner);
                        }
                    };
                    read(next, &mut found);
                    let mut w = work.lock().unwrap_or_else(PoisonError::into_inner);
                    w.0.append(&mut found);
                    w.1 -= 1;
                    ready.notify_all();
                }
            });
        }
    });
}
