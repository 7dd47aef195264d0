//! The ignore rules of a directory tree, a directory at a time: what ripgrep's walker (the
//! `ignore` crate's `WalkBuilder` with its defaults) skips, and what git ignores, both answered
//! by one pass over the rules of a directory and the directories above it.
//!
//! Our own walk applies them (see `dir_reader` and `walk`) so that a directory search reads
//! each directory once: ripgrep's walker reports only what it does not skip, and the counts of
//! what a search left out and the dirty check needed a second walk of the whole tree, a third
//! of a 20,000-file search's time. A test walks random trees with both and compares.
//!
//! The precedence is the `ignore` crate's (0.4.35, `dir.rs`): for each kind of rule file the
//! deepest directory whose file has a rule for the path decides (its last matching rule);
//! `.ignore` files come before `.gitignore` files, those before the repository's
//! `info/exclude`, those before the user's `core.excludesFile`. Git's files count only inside
//! a repository (a directory holding `.git` or `.jj`, here or above) and not past the top of
//! the repository a path is in. Rules from the directories above the walked one match its
//! canonical path.

use std::borrow::Cow;
use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// What the rule files of a directory's listing are: found from the names it holds, so that
/// a directory without them costs no `stat`.
#[derive(Debug, Default, Clone, Copy)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "four names a listing holds or not"
)]
pub struct Present {
    pub ignore: bool,
    pub gitignore: bool,
    pub git: bool,
    pub jj: bool,
}

impl Present {
    /// Notes `name` if it is a rule file or a repository's marker.
    pub fn note(&mut self, name: &[u8]) {
        match name {
            b".ignore" => self.ignore = true,
            b".gitignore" => self.gitignore = true,
            b".git" => self.git = true,
            b".jj" => self.jj = true,
            _ => {}
        }
    }
}

/// One directory's rules, with the directory it is in.
#[expect(
    clippy::struct_excessive_bools,
    reason = "what the rules need to know of a directory, each found once"
)]
pub struct Level {
    pub path: PathBuf,
    parent: Option<Arc<Level>>,
    /// Above the walked directory: its rules match the walked path made canonical.
    above: bool,
    /// It is the top of a repository (holds `.git` or `.jj`).
    pub has_git: bool,
    /// It or a directory above it is the top of a repository.
    any_git: bool,
    ignore: Option<Gitignore>,
    gitignore: Option<Gitignore>,
    exclude: Option<Gitignore>,
    /// Git ignores this directory or one it is in (found when it was reached).
    pub git_ignored: bool,
}

/// What the rules say of one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Said {
    /// ripgrep's walker: `Some(true)` skips it, `Some(false)` takes it back in (a hidden name
    /// too), `None` leaves it to the hidden rule.
    pub search: Option<bool>,
    /// Git ignores it (or a directory it is in).
    pub git_ignored: bool,
}

/// What every directory of one walk shares.
pub struct Context {
    /// The walked directory as given, and made canonical (rules above it match this).
    root: PathBuf,
    canonical: PathBuf,
    /// The user's `core.excludesFile` as ripgrep reads it (relative to the current directory).
    search_global: Gitignore,
    /// The same file as git reads it (relative to the top of the repository holding the walked
    /// directory), read when needed.
    git_global: OnceLock<Gitignore>,
    /// The top of the repository holding the walked directory: it, or the nearest directory
    /// above it that holds `.git`.
    git_top: Option<PathBuf>,
    /// Some directory above the walked one has rules.
    rules_above: bool,
}

impl Context {
    /// The context of a walk of `root`, and the rules of the directories above it (the last of
    /// them `root`'s parent; `None` for `/`).
    /// Whether the walked directory is in a git repository (so a dirty check may follow).
    pub fn in_repository(&self) -> bool {
        self.git_top.is_some()
    }

    pub fn new(root: &Path) -> (Arc<Self>, Option<Arc<Level>>) {
        let canonical = root.canonicalize().unwrap_or_else(|_| root.to_owned());
        let search_global = std::env::current_dir().map_or_else(
            |_| Gitignore::empty(),
            |cwd| GitignoreBuilder::new(cwd).build_global().0,
        );
        let mut above: Option<Arc<Level>> = None;
        let mut ancestors: Vec<&Path> = canonical.ancestors().skip(1).collect();
        ancestors.reverse();
        let mut rules_above = false;
        for dir in ancestors {
            let present = Present {
                ignore: dir.join(".ignore").exists(),
                gitignore: dir.join(".gitignore").exists(),
                git: std::fs::symlink_metadata(dir.join(".git")).is_ok(),
                jj: true,
            };
            let level = Level::read(dir, above.take(), present, true, false);
            rules_above |= level.ignore.is_some() || level.gitignore.is_some();
            rules_above |= level.exclude.is_some();
            above = Some(Arc::new(level));
        }
        let git_top = if std::fs::symlink_metadata(canonical.join(".git")).is_ok() {
            Some(canonical.clone())
        } else {
            std::iter::successors(above.as_deref(), |l| l.parent.as_deref())
                .find(|l| l.has_git)
                .map(|l| l.path.clone())
        };
        let context = Self {
            root: root.to_owned(),
            canonical,
            search_global,
            git_global: OnceLock::new(),
            git_top,
            rules_above,
        };
        (Arc::new(context), above)
    }

    /// `path` (under the walked directory) as the rules above it see it: the path itself when
    /// the walked directory was named by its canonical path (no copy made).
    fn canonical<'p>(&self, path: &'p Path) -> Cow<'p, Path> {
        if self.root == self.canonical {
            return Cow::Borrowed(path);
        }
        match crate::paths::below(path, &self.root) {
            Some(rel) if !rel.as_os_str().is_empty() => Cow::Owned(self.canonical.join(rel)),
            Some(_) => Cow::Owned(self.canonical.clone()),
            None => Cow::Borrowed(path),
        }
    }

    /// The user's excludes file as git reads it, for the repository holding the walked
    /// directory (the survey does not look into repositories inside it).
    fn git_global(&self) -> &Gitignore {
        self.git_global.get_or_init(|| match &self.git_top {
            Some(top) => GitignoreBuilder::new(top).build_global().0,
            None => Gitignore::empty(),
        })
    }
}

impl Level {
    /// The rules of directory `path`, in `parent`, from what its listing holds (`present`).
    pub fn read(
        path: &Path,
        parent: Option<Arc<Level>>,
        present: Present,
        above: bool,
        git_ignored: bool,
    ) -> Self {
        // `.git` is asked about (following a symlink), as ripgrep does, only when it is there.
        let git = present
            .git
            .then(|| std::fs::metadata(path.join(".git")).ok())
            .flatten();
        let has_git = git.is_some() || (present.jj && path.join(".jj").exists());
        let exclude = git
            .and_then(|meta| common_dir(path, meta.is_file()))
            .and_then(|common| rules_of(path, &common.join("info").join("exclude")));
        Self {
            path: path.to_owned(),
            any_git: has_git || parent.as_ref().is_some_and(|p| p.any_git),
            parent,
            above,
            has_git,
            ignore: present
                .ignore
                .then(|| rules_of(path, &path.join(".ignore")))
                .flatten(),
            gitignore: present
                .gitignore
                .then(|| rules_of(path, &path.join(".gitignore")))
                .flatten(),
            exclude,
            git_ignored,
        }
    }

    /// What the rules of this directory and those above it say of `path`, an entry in it.
    pub fn said(&self, path: &Path, is_dir: bool, context: &Context) -> Said {
        let (mut by_ignore, mut by_gitignore, mut by_exclude) = (None, None, None);
        let mut saw_git = false;
        let mut canonical = None;
        let mut at = Some(self);
        while let Some(level) = at {
            if level.above && !context.rules_above {
                break;
            }
            let git_open = self.any_git && !saw_git;
            // A level whose rules are not asked (none there, or a nearer one decided) costs no
            // path: every entry of a walk below a repository's top passes the levels above it.
            let asked = (by_ignore.is_none() && level.ignore.is_some())
                || (git_open && by_gitignore.is_none() && level.gitignore.is_some())
                || (git_open && by_exclude.is_none() && level.exclude.is_some());
            if asked {
                let seen: &Path = if level.above {
                    canonical.get_or_insert_with(|| context.canonical(path))
                } else {
                    path
                };
                if by_ignore.is_none() {
                    by_ignore = decided(level.ignore.as_ref(), seen, is_dir);
                }
                if git_open {
                    if by_gitignore.is_none() {
                        by_gitignore = decided(level.gitignore.as_ref(), seen, is_dir);
                    }
                    if by_exclude.is_none() {
                        by_exclude = decided(level.exclude.as_ref(), seen, is_dir);
                    }
                }
            }
            saw_git |= level.has_git;
            at = level.parent.as_deref();
        }
        let search_global = || {
            self.any_git
                .then(|| decided(Some(&context.search_global), path, is_dir))
                .flatten()
        };
        let git_global = || {
            self.any_git
                .then(|| decided(Some(context.git_global()), path, is_dir))
                .flatten()
        };
        let by_git = by_gitignore.or(by_exclude);
        Said {
            search: by_ignore.or(by_git).or_else(search_global),
            git_ignored: self.git_ignored || by_git.or_else(git_global).unwrap_or(false),
        }
    }
}

/// What one rule file says of `path`: ignored, taken back in, or nothing.
fn decided(rules: Option<&Gitignore>, path: &Path, is_dir: bool) -> Option<bool> {
    match rules?.matched(path, is_dir) {
        Match::Ignore(_) => Some(true),
        Match::Whitelist(_) => Some(false),
        Match::None => None,
    }
}

/// The rules of the file at `file`, matched under `dir`; `None` when it holds none or cannot
/// be read (a line that does not parse is skipped, the others kept, as ripgrep does).
fn rules_of(dir: &Path, file: &Path) -> Option<Gitignore> {
    if !file.exists() {
        return None;
    }
    let mut builder = GitignoreBuilder::new(dir);
    let _ = builder.add(file);
    let rules = builder.build().ok()?;
    (!rules.is_empty()).then_some(rules)
}

/// Where the repository whose top is `dir` keeps `info/exclude`: `.git`, or for a `.git` file
/// (a worktree) the `commondir` its `gitdir:` line names, read as ripgrep reads it.
fn common_dir(dir: &Path, dot_git_is_file: bool) -> Option<PathBuf> {
    let dot_git = dir.join(".git");
    if !dot_git_is_file {
        return Some(dot_git);
    }
    let first_line = |path: &Path| -> Option<String> {
        let file = std::fs::File::open(path).ok()?;
        std::io::BufReader::new(file).lines().next()?.ok()
    };
    let line = first_line(&dot_git)?;
    let real = PathBuf::from(line.strip_prefix("gitdir: ")?);
    let common = first_line(&real.join("commondir"))?;
    Some(if common.starts_with('.') {
        real.join(common)
    } else {
        PathBuf::from(common)
    })
}
