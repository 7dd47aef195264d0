//! Whether the index differs from `HEAD` below a path: a change staged (`git add`) but not
//! committed. Regression (issue 57): after `git add prod.yaml`, a read said "commit 69462160",
//! `dirty: false`, and showed the staged text, which `git show HEAD:prod.yaml` does not hold.
//!
//! The index's cache-tree extension records, for each directory whose entries have not changed
//! since its tree was last written, that tree's id: a directory whose recorded tree is `HEAD`'s
//! has nothing staged below it, and is not read further. `git commit` and `git checkout` leave
//! every directory recorded, so a clean checkout is told by reading one commit and the trees on
//! the way to the searched directory; `git add` drops the record of the directories above what
//! it staged, and only those are compared entry by entry with `HEAD`'s trees.

use std::collections::{HashMap, HashSet};

use super::objects::{self, Kind, Objects};
use super::{Entry, Index, Repo};

/// The mode of a tree entry that is a directory.
const TREE_MODE: u32 = 0o040_000;

/// The directories the cache-tree extension (`TREE`) records as valid, with their trees' ids,
/// from the index's extensions `ext`. Nothing when there is none or it does not parse.
pub(super) fn cache_trees(ext: &[u8]) -> HashMap<String, [u8; 20]> {
    let mut rest = ext;
    while rest.len() >= 8 {
        let size = u32::from_be_bytes([rest[4], rest[5], rest[6], rest[7]]) as usize;
        let Some(body) = rest.get(8..8 + size) else {
            break;
        };
        if &rest[..4] == b"TREE" {
            return parse_cache_tree(body).unwrap_or_default();
        }
        rest = &rest[8 + size..];
    }
    HashMap::new()
}

/// The nodes of a cache tree, in pre-order: each a path component, the entries it covers (-1
/// when invalid), its number of subtrees, then its tree id when valid.
fn parse_cache_tree(mut body: &[u8]) -> Option<HashMap<String, [u8; 20]>> {
    let mut out = HashMap::new();
    // The path of each open node and how many of its subtrees are still to come.
    let mut open: Vec<(String, usize)> = Vec::new();
    while !body.is_empty() {
        let nul = memchr::memchr(0, body)?;
        let name = std::str::from_utf8(&body[..nul]).ok()?;
        let newline = nul + memchr::memchr(b'\n', body.get(nul..)?)?;
        let counts = std::str::from_utf8(body.get(nul + 1..newline)?).ok()?;
        let (entries, subtrees) = counts.split_once(' ')?;
        let entries: i64 = entries.parse().ok()?;
        let subtrees: usize = subtrees.parse().ok()?;
        body = body.get(newline + 1..)?;
        while open.last().is_some_and(|(_, left)| *left == 0) {
            open.pop();
        }
        let path = match open.last_mut() {
            None => String::new(),
            Some((parent, left)) => {
                *left -= 1;
                if parent.is_empty() {
                    name.to_owned()
                } else {
                    format!("{parent}/{name}")
                }
            }
        };
        if entries >= 0 {
            let id: [u8; 20] = body.get(..20)?.try_into().ok()?;
            body = &body[20..];
            out.insert(path.clone(), id);
        }
        open.push((path, subtrees));
    }
    Some(out)
}

/// The ids of `HEAD`'s objects, read as they are needed.
struct HeadTree {
    objects: Objects,
    root: [u8; 20],
}

impl HeadTree {
    fn open(repo: &Repo) -> Option<Self> {
        let commit = objects::parse_hex(super::head(repo)?.as_bytes())?;
        let objects = Objects::open(&repo.common_dir);
        let (kind, body) = objects.read(&commit)?;
        let root = (kind == Kind::Commit)
            .then(|| objects::tree_of_commit(&body))
            .flatten()?;
        Some(Self { objects, root })
    }

    fn tree(&self, id: &[u8; 20]) -> Option<Vec<u8>> {
        match self.objects.read(id)? {
            (Kind::Tree, body) => Some(body),
            _ => None,
        }
    }

    /// What `HEAD` has at `path` (`/`-separated; empty for the top): its mode and id, or
    /// nothing. `None` when a tree on the way does not read.
    fn at(&self, path: &str) -> Option<At> {
        let mut here = (TREE_MODE, self.root);
        for name in path.split('/').filter(|n| !n.is_empty()) {
            if here.0 != TREE_MODE {
                return Some(At::Nothing);
            }
            let tree = self.tree(&here.1)?;
            let found = objects::tree_entries(&tree)?
                .into_iter()
                .find(|e| e.name == name.as_bytes())
                .map(|e| (e.mode, e.id));
            match found {
                Some(next) => here = next,
                None => return Some(At::Nothing),
            }
        }
        Some(At::Entry(here.0, here.1))
    }
}

/// What a commit has at a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    Nothing,
    /// Its mode and id.
    Entry(u32, [u8; 20]),
}

/// Whether the index differs from `HEAD` at the file `rel`: its entry's mode or blob not
/// `HEAD`'s, added, removed (`git rm --cached`), or in conflict. `None` when it cannot tell
/// (no commit, an object that does not read).
pub(super) fn file_staged(repo: &Repo, index: &Index, rel: &str) -> Option<bool> {
    let mine: Vec<&Entry> = index.entries.iter().filter(|e| e.path == rel).collect();
    if mine.iter().any(|e| e.stage != 0) {
        return Some(true);
    }
    let staged = mine
        .iter()
        .find(|e| !e.intent_to_add)
        .map(|e| (e.mode, e.id));
    let head = match HeadTree::open(repo)?.at(rel)? {
        At::Entry(mode, id) if mode != TREE_MODE => Some((mode, id)),
        _ => None,
    };
    Some(staged != head)
}

/// Whether the index differs from `HEAD` anywhere below the directory `dir` (its path in the
/// index, empty for the top). `None` when it cannot tell.
pub(super) fn dir_staged(repo: &Repo, index: &Index, dir: &str) -> Option<bool> {
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    let below: Vec<&Entry> = index
        .entries
        .iter()
        .filter(|e| e.path.starts_with(&prefix))
        .collect();
    if below.iter().any(|e| e.stage != 0) {
        return Some(true);
    }
    let head = HeadTree::open(repo)?;
    let At::Entry(TREE_MODE, top) = head.at(dir)? else {
        // Nothing of `HEAD` here: anything the index holds below it is staged.
        return Some(below.iter().any(|e| !e.intent_to_add));
    };
    if index.trees.get(dir) == Some(&top) {
        return Some(false);
    }
    // `HEAD`'s files below `dir`, but for the directories whose recorded tree is `HEAD`'s.
    // Bounded by the index: a `HEAD` with far more files than it differs anyway.
    let limit = below.len().saturating_mul(2) + 10_000;
    let mut files: HashMap<String, (u32, [u8; 20])> = HashMap::new();
    let mut same_dirs: HashSet<String> = HashSet::new();
    let mut todo = vec![(dir.to_owned(), top)];
    while let Some((path, id)) = todo.pop() {
        if index.trees.get(&path) == Some(&id) {
            same_dirs.insert(path);
            continue;
        }
        let tree = head.tree(&id)?;
        for e in objects::tree_entries(&tree)? {
            let name = std::str::from_utf8(e.name).ok()?;
            let full = if path.is_empty() {
                name.to_owned()
            } else {
                format!("{path}/{name}")
            };
            if e.mode == TREE_MODE {
                todo.push((full, e.id));
            } else {
                files.insert(full, (e.mode, e.id));
            }
            if files.len() + todo.len() > limit {
                return Some(true);
            }
        }
    }
    let in_same_dir = |path: &str| {
        path.match_indices('/')
            .any(|(at, _)| same_dirs.contains(&path[..at]))
    };
    let mut matched = 0;
    for e in below {
        if in_same_dir(&e.path) {
            continue;
        }
        match files.get(&e.path) {
            Some(&(mode, id)) if !e.intent_to_add && (mode, id) == (e.mode, e.id) => matched += 1,
            // Named with intent to add, nothing staged: not in `HEAD` either.
            None if e.intent_to_add => {}
            _ => return Some(true),
        }
    }
    // A file of `HEAD` the index no longer has: a staged deletion.
    Some(matched != files.len())
}

#[cfg(test)]
mod tests {
    //! Each case is checked against git itself: `git diff --cached --quiet -- PATH` exits 1
    //! when the index differs from `HEAD` there (tests may run git; spool never does).
    use std::path::Path;
    use std::process::Command;

    use super::super::{find, read_index, relative};
    use super::tests_support::{git, repo, write};
    use super::{dir_staged, file_staged};

    /// Git's answer: whether the index differs from `HEAD` at `path`.
    fn git_says(dir: &Path, path: &str) -> bool {
        let status = Command::new("git")
            .args(["diff", "--cached", "--quiet", "--", path])
            .current_dir(dir)
            .status()
            .unwrap();
        !status.success()
    }

    /// spool's answer, for a file or a directory (`.` the top).
    fn spool_says(dir: &Path, path: &str) -> Option<bool> {
        let repo = find(dir).unwrap();
        let index = read_index(&repo).unwrap();
        let full = dir.join(path);
        let rel = relative(&repo, &full).unwrap();
        let rel = rel
            .trim_start_matches("./")
            .trim_end_matches(['.', '/'])
            .to_owned();
        if full.is_dir() || !full.exists() && path.ends_with('/') {
            dir_staged(&repo, &index, &rel)
        } else {
            file_staged(&repo, &index, &rel)
        }
    }

    const PATHS: [&str; 6] = [
        ".",
        "services",
        "services/checkout",
        "services/checkout/config/prod.yaml",
        "services/other",
        "README",
    ];

    fn agree(d: &Path, case: &str) {
        for path in PATHS {
            let want = git_says(d, path);
            assert_eq!(spool_says(d, path), Some(want), "{case}: {path}");
        }
    }

    #[test]
    fn what_is_staged_is_what_git_diff_cached_finds_loose_and_packed() {
        for packed in [false, true] {
            let t = repo();
            let d = t.path();
            if packed {
                git(d, &["repack", "-adfq", "--depth=50", "--window=50"]);
                git(d, &["prune-packed"]);
                let pack = std::fs::read_dir(d.join(".git/objects/pack"))
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .find(|p| p.extension().is_some_and(|e| e == "idx"))
                    .unwrap();
                // Deltas among the objects read: the chains are followed.
                let verified = git(d, &["verify-pack", "-v", pack.to_str().unwrap()]);
                assert!(verified.contains("chain length = 1"), "{verified}");
            }
            let case = |what: &str| format!("{what} (packed: {packed})");
            agree(d, &case("clean"));
            // The commit left every directory's tree recorded: told without reading a tree.
            let repo = find(d).unwrap();
            assert!(read_index(&repo).unwrap().trees.contains_key(""));

            write(d, "services/checkout/config/prod.yaml", "timeout: 10\n");
            agree(d, &case("edited, not staged"));
            git(d, &["add", "services/checkout/config/prod.yaml"]);
            assert!(git_says(d, "services/checkout/config/prod.yaml"));
            agree(d, &case("edited and staged"));
            git(d, &["reset", "-q"]);
            agree(d, &case("unstaged again"));

            write(d, "services/other/new.txt", "n\n");
            git(d, &["add", "services/other/new.txt"]);
            agree(d, &case("a new file staged"));
            git(d, &["reset", "-q"]);

            git(d, &["rm", "-q", "--cached", "README"]);
            agree(d, &case("a deletion staged"));
            git(d, &["reset", "-q"]);

            git(d, &["update-index", "--chmod=+x", "services/other/x.txt"]);
            agree(d, &case("a mode staged"));
            git(d, &["reset", "-q"]);

            write(d, "services/other/later.txt", "l\n");
            git(d, &["add", "-N", "services/other/later.txt"]);
            agree(d, &case("added with intent to add"));
            git(d, &["reset", "-q"]);
            std::fs::remove_file(d.join("services/other/later.txt")).unwrap();

            // A commit of the staged change: nothing staged again.
            write(d, "services/checkout/config/prod.yaml", "timeout: 11\n");
            git(d, &["commit", "-qam", "fix"]);
            agree(d, &case("committed"));
            // A soft reset: the index is the later commit's, `HEAD` the earlier one.
            git(d, &["reset", "-q", "--soft", "HEAD~1"]);
            agree(d, &case("after a soft reset"));
        }
    }

    /// A directory `HEAD` does not have: what the index holds below it is staged.
    #[test]
    fn a_directory_new_since_the_commit_is_staged_once_added() {
        let t = repo();
        let d = t.path();
        write(d, "fresh/a.txt", "a\n");
        assert_eq!(spool_says(d, "fresh"), Some(false));
        git(d, &["add", "fresh"]);
        assert_eq!(spool_says(d, "fresh"), Some(true));
        assert!(git_says(d, "fresh"));
    }

    /// No commit yet, or an object that is not there: it cannot tell, and says so.
    #[test]
    fn without_the_commit_s_objects_it_cannot_tell() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        git(d, &["init", "-q"]);
        write(d, "a", "a\n");
        git(d, &["add", "a"]);
        assert_eq!(spool_says(d, "a"), None);
        let t = repo();
        let d = t.path();
        let head = git(d, &["rev-parse", "HEAD"]);
        let head = head.trim();
        std::fs::remove_file(d.join(".git/objects").join(&head[..2]).join(&head[2..])).unwrap();
        assert_eq!(spool_says(d, "README"), None);
        assert_eq!(spool_says(d, "."), None);
    }
}

#[cfg(test)]
mod objects_tests {
    //! Every object of a packed repository, deltas and all, read as `git cat-file` reads it.
    use super::super::objects::{Kind, Objects, parse_hex};
    use super::tests_support::{git, repo};

    #[test]
    fn every_object_reads_as_git_cat_file_reads_it_loose_and_packed() {
        let t = repo();
        let d = t.path();
        for packed in [false, true] {
            if packed {
                git(d, &["repack", "-adfq", "--depth=50", "--window=50"]);
                git(d, &["prune-packed"]);
            }
            let objects = Objects::open(&d.join(".git"));
            let listed = git(d, &["rev-list", "--objects", "--all"]);
            let mut n = 0;
            for line in listed.lines() {
                let hex = &line[..40];
                let (kind, body) = objects.read(&parse_hex(hex.as_bytes()).unwrap()).unwrap();
                let name = match kind {
                    Kind::Commit => "commit",
                    Kind::Tree => "tree",
                    Kind::Blob => "blob",
                    Kind::Tag => "tag",
                };
                let out = std::process::Command::new("git")
                    .args(["cat-file", name, hex])
                    .current_dir(d)
                    .output()
                    .unwrap();
                assert!(out.status.success(), "{hex} is not a {name}");
                assert_eq!(body, out.stdout, "{hex} (packed: {packed})");
                n += 1;
            }
            assert!(n > 20, "{n} objects");
            // An id the repository does not have.
            assert!(objects.read(&[7; 20]).is_none());
        }
    }
}

#[cfg(test)]
mod tests_support {
    use std::path::Path;
    use std::process::Command;

    pub fn git(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "core.fsmonitor=false",
            ])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            out.status.success() || args[0] == "diff",
            "git {args:?}: {out:?}"
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn write(dir: &Path, path: &str, text: &str) {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// A repository with a few commits, so that packing makes deltas.
    pub fn repo() -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        git(d, &["init", "-q"]);
        for round in 0..4 {
            let mut long = String::new();
            for i in 0..200 {
                long.push_str(&format!(
                    "line {i} of a config that grows, round {}\n",
                    round.min(i)
                ));
            }
            write(d, "services/checkout/config/default.yaml", &long);
            write(
                d,
                "services/checkout/config/prod.yaml",
                &format!("timeout: {round}\n"),
            );
            write(d, "services/other/x.txt", "x\n");
            write(d, "README", "r\n");
            git(d, &["add", "-A"]);
            git(d, &["commit", "-q", "-m", &format!("c{round}")]);
        }
        t
    }
}
