//! What pins a file or a tree to git: the commit checked out, and whether the working tree
//! differs from it, read from the repository's own files, never by running git.
//!
//! A repository's configuration names programs that git runs on its own (`core.fsmonitor`,
//! clean and smudge filters, hooks such as `post-index-change`), so `git status` on a
//! repository someone else made runs their program: a read must not. This reads `HEAD`, the
//! refs (loose and packed) and the index; a tracked file whose size or mtime differ from its
//! index entry is hashed as git hashes a blob and compared, and a file neither tracked nor
//! ignored makes a tree dirty. The index is compared with `HEAD`'s tree too (`staged.rs`, from
//! the objects `objects.rs` reads): a change staged but not committed is not the commit.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use sha1::{Digest, Sha1};

mod objects;
mod staged;

/// A repository: where its git files are and the working tree they describe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repo {
    /// `.git`, or the directory a `.git` file names (a worktree, a submodule).
    pub git_dir: PathBuf,
    /// Where refs and objects live (`commondir` of a worktree; else `git_dir`).
    pub common_dir: PathBuf,
    pub work_tree: PathBuf,
}

/// The repository holding `path` (a file or a directory), looking up from it.
pub fn find(path: &Path) -> Option<Repo> {
    let start = if path.is_dir() { path } else { path.parent()? };
    for dir in start.ancestors() {
        let dot = dir.join(".git");
        let git_dir = if dot.is_dir() {
            dot
        } else if dot.is_file() {
            let text = fs::read_to_string(&dot).ok()?;
            let named = text.strip_prefix("gitdir:")?.trim();
            let named = Path::new(named);
            if named.is_absolute() {
                named.to_owned()
            } else {
                dir.join(named)
            }
        } else {
            continue;
        };
        let common_dir = fs::read_to_string(git_dir.join("commondir"))
            .ok()
            .map_or_else(|| git_dir.clone(), |c| git_dir.join(c.trim()));
        return Some(Repo {
            git_dir,
            common_dir,
            work_tree: dir.to_owned(),
        });
    }
    None
}

/// The commit `HEAD` names (a branch's tip, or a detached commit); `None` before the first
/// commit or when the files cannot be read.
pub fn head(repo: &Repo) -> Option<String> {
    let head = fs::read_to_string(repo.git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    let Some(name) = head.strip_prefix("ref:").map(str::trim) else {
        return is_hex_id(head).then(|| head.to_owned());
    };
    // A ref of one worktree lives in its own git dir; shared refs in the common dir.
    for dir in [&repo.git_dir, &repo.common_dir] {
        if let Ok(id) = fs::read_to_string(dir.join(name)) {
            let id = id.trim();
            if is_hex_id(id) {
                return Some(id.to_owned());
            }
        }
    }
    let packed = fs::read_to_string(repo.common_dir.join("packed-refs")).ok()?;
    packed.lines().find_map(|line| {
        let (id, r) = line.split_once(' ')?;
        (r == name && is_hex_id(id)).then(|| id.to_owned())
    })
}

fn is_hex_id(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A file's stat as git's own check compares it with an index entry (`core.trustctime` and
/// `core.checkStat` at their defaults): size, modification and change times (nanoseconds
/// since the epoch) and inode. A file rewritten in place with its size and mtime put back has
/// a new change time, which no one can set; one replaced by another has a new inode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SeenStat {
    pub len: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub ino: u64,
}

impl SeenStat {
    pub fn of(m: &fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt as _;
        // Wrapping, as release builds always computed it: a time past 2262 is no panic.
        let ns = |s: i64, n: i64| s.wrapping_mul(1_000_000_000).wrapping_add(n);
        Self {
            len: m.len(),
            mtime_ns: ns(m.mtime(), m.mtime_nsec()),
            ctime_ns: ns(m.ctime(), m.ctime_nsec()),
            ino: m.ino(),
        }
    }

    /// The same of a `stat` made by a file descriptor (a confined look-up).
    pub fn of_stat(st: &nix::sys::stat::FileStat) -> Self {
        let ns = |s: i64, n: i64| s.wrapping_mul(1_000_000_000).wrapping_add(n);
        Self {
            len: u64::try_from(st.st_size).unwrap_or(0),
            mtime_ns: ns(st.st_mtime, st.st_mtime_nsec),
            ctime_ns: ns(st.st_ctime, st.st_ctime_nsec),
            ino: st.st_ino,
        }
    }

    /// Whether the file changed within one tick of its file system's clock before `now_ns`
    /// (a time taken before it was seen): its stat cannot vouch that it did not change again
    /// since, in the same tick, keeping all of it (git's "racily clean" rule, with the time it
    /// was seen standing in for the index's). Times with nanoseconds come from a clock that
    /// ticks every few milliseconds (a jiffy); whole seconds, from one that may tick every
    /// second or two (FAT, HFS+, ext3): 20 ms and 2 s of margin.
    pub fn racy(&self, now_ns: i64) -> bool {
        let whole_seconds =
            self.ctime_ns % 1_000_000_000 == 0 && self.mtime_ns % 1_000_000_000 == 0;
        let tick = if whole_seconds {
            2_000_000_000
        } else {
            20_000_000
        };
        self.ctime_ns.max(self.mtime_ns) > now_ns.saturating_sub(tick)
    }
}

/// Nanoseconds since the epoch as the index writes a time: (seconds, nanoseconds); `None`
/// before the epoch.
fn index_time(ns: i64) -> Option<(u32, u32)> {
    let secs = u64::try_from(ns.div_euclid(1_000_000_000)).ok()?;
    Some((secs as u32, ns.rem_euclid(1_000_000_000) as u32))
}

/// One entry of the index: the path, its stat data when staged, and its blob id.
#[derive(Debug, Clone)]
struct Entry {
    path: String,
    mtime: (u32, u32),
    ctime: (u32, u32),
    /// The inode's number, its low 32 bits.
    ino: u32,
    size: u32,
    id: [u8; 20],
    /// Its mode as git records it (`0o100644`, `0o100755`, `0o120000` a symlink, `0o160000` a
    /// submodule).
    mode: u32,
    /// Its merge stage: 0, or 1-3 for the sides of a conflict.
    stage: u8,
    /// Added with intent to add (`git add -N`): named in the index, nothing staged.
    intent_to_add: bool,
    /// Its size and time can say the file is unchanged (see [`Entry::trusted`]); when not, the
    /// file is hashed.
    trusted: bool,
}

/// The mode of an index entry that is a symbolic link.
const SYMLINK_MODE: u32 = 0o120_000;

/// The id of the empty blob (`git hash-object -t blob /dev/null`).
const EMPTY_BLOB: [u8; 20] = [
    0xe6, 0x9d, 0xe2, 0x9b, 0xb2, 0xd1, 0xd6, 0x43, 0x4b, 0x8b, 0x29, 0xae, 0x77, 0x5a, 0xd8, 0xc2,
    0xe4, 0x8c, 0x53, 0x91,
];

impl Entry {
    /// Whether this entry's size and time can tell that its file is unchanged, as git's own
    /// check allows, given the index file's modification time `index_mtime`:
    /// - not an entry modified at or after the index was written (git's "racily clean"
    ///   entry: the file may have changed again within the same tick, keeping its size);
    /// - not a size of 0 for a blob that is not empty (how git marks a racily clean entry it
    ///   has seen change, and an entry whose stat data was never recorded).
    fn trusted(&self, index_mtime: Option<(u32, u32)>) -> bool {
        let racy = index_mtime.is_some_and(|index| self.mtime >= index);
        let smudged = self.size == 0 && self.id != EMPTY_BLOB;
        !racy && !smudged
    }

    /// Whether a file seen with `stat` is unchanged by git's own first check: its size, times
    /// and inode as staged, of an entry they can vouch for. A size and mtime put back after a
    /// rewrite leave the change time new (regression: such a file was `dirty: false` while
    /// `git status` said ` M`). A time before the epoch matches nothing.
    fn stat_matches(&self, stat: &SeenStat) -> bool {
        self.trusted
            && stat.len == u64::from(self.size)
            && index_time(stat.mtime_ns) == Some(self.mtime)
            && index_time(stat.ctime_ns) == Some(self.ctime)
            // The index keeps the inode's low 32 bits.
            && stat.ino as u32 == self.ino
    }
}

/// The index: its entries, in its order, and the trees it knows its directories to be.
struct Index {
    entries: Vec<Entry>,
    /// The directories whose tree the index's cache-tree extension records as valid, by path
    /// (empty for the top), with that tree's id: a directory whose tree is `HEAD`'s has nothing
    /// staged below it.
    trees: std::collections::HashMap<String, [u8; 20]>,
}

/// The index, `None` when it is missing or in a form this does not read.
fn read_index(repo: &Repo) -> Option<Index> {
    use std::io::Read as _;
    let mut file = fs::File::open(repo.git_dir.join("index")).ok()?;
    // The time of the file read: an entry staged within its last tick is checked by content.
    let index_mtime = file
        .metadata()
        .ok()
        .and_then(|m| index_time(SeenStat::of(&m).mtime_ns));
    let mut data = Vec::new();
    file.read_to_end(&mut data).ok()?;
    if data.len() < 12 || &data[..4] != b"DIRC" {
        return None;
    }
    let version = be32(&data[4..8]);
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = be32(&data[8..12]) as usize;
    let id_len = 20;
    let mut entries: Vec<Entry> = Vec::with_capacity(count.min(1 << 20));
    let mut at = 12;
    // The path of each entry ends at a NUL.
    let path_end = |from: usize| Some(from + memchr::memchr(0, data.get(from..)?)?);
    for _ in 0..count {
        let start = at;
        let fixed = 40 + id_len + 2;
        let head = data.get(at..at + fixed)?;
        let ctime = (be32(&head[0..4]), be32(&head[4..8]));
        let mtime = (be32(&head[8..12]), be32(&head[12..16]));
        let ino = be32(&head[20..24]);
        let mode = be32(&head[24..28]);
        let size = be32(&head[36..40]);
        let id = head[40..40 + id_len].try_into().ok()?;
        let flags = u16::from_be_bytes([head[40 + id_len], head[41 + id_len]]);
        at += fixed;
        // An entry added with intent to add (its id the empty blob's, whatever the file
        // holds) or kept out of the working tree (skip-worktree) says nothing by its stat.
        let mut said_by_stat = true;
        let mut intent_to_add = false;
        if version >= 3 && flags & 0x4000 != 0 {
            let extended = u16::from_be_bytes(data.get(at..at + 2)?.try_into().ok()?);
            said_by_stat = extended & (0x2000 | 0x4000) == 0;
            intent_to_add = extended & 0x2000 != 0;
            at += 2;
        }
        let path = if version == 4 {
            // The path is the previous one with N bytes cut from its end (a cut that can fall
            // inside a character), then this suffix.
            let previous = entries.last().map_or(&b""[..], |e| e.path.as_bytes());
            let (strip, used) = objects::offset_varint(data.get(at..)?)?;
            let strip = usize::try_from(strip).ok()?;
            at += used;
            let end = path_end(at)?;
            let keep = previous.len().checked_sub(strip)?;
            let mut path = previous[..keep].to_vec();
            path.extend_from_slice(&data[at..end]);
            at = end + 1;
            String::from_utf8(path).ok()?
        } else {
            let end = path_end(at)?;
            let path = std::str::from_utf8(&data[at..end]).ok()?.to_owned();
            // Entries are padded with NULs to a multiple of 8 bytes.
            at = start + (end - start + 8) / 8 * 8;
            path
        };
        let mut entry = Entry {
            path,
            mtime,
            ctime,
            ino,
            size,
            id,
            mode,
            stage: ((flags >> 12) & 3) as u8,
            intent_to_add,
            trusted: true,
        };
        entry.trusted = said_by_stat && entry.trusted(index_mtime);
        entries.push(entry);
    }
    // The extensions follow the entries, before the 20-byte checksum.
    let trees = staged::cache_trees(data.get(at..data.len().saturating_sub(20))?);
    Some(Index { entries, trees })
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// The id git gives `bytes` as a blob.
#[cfg(test)]
fn blob_id(bytes: &[u8]) -> [u8; 20] {
    blob_id_of(bytes, bytes.len() as u64).unwrap_or_default()
}

/// The id git gives the `len` bytes `content` holds as a blob, read a piece at a time (a
/// large file is not held in memory); `None` when it cannot be read or does not hold `len`
/// bytes (it changed while read).
fn blob_id_of(mut content: impl std::io::Read, len: u64) -> Option<[u8; 20]> {
    let mut h = Sha1::new();
    h.update(format!("blob {len}\0").as_bytes());
    let mut buf = vec![0u8; (64 << 10).min(usize::try_from(len).unwrap_or(usize::MAX).max(1))];
    let mut read = 0u64;
    loop {
        let n = match content.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        h.update(&buf[..n]);
        read += n as u64;
        if read > len {
            return None;
        }
    }
    (read == len).then(|| h.finalize().into())
}

/// Whether the working-tree file at `rel` differs from its index entry: stat first, as git
/// does, and its content hashed as a blob when the stat differs. `None` when it cannot tell.
fn entry_changed(repo: &Repo, entry: &Entry) -> Option<bool> {
    let path = repo.work_tree.join(&entry.path);
    let Ok(meta) = fs::symlink_metadata(&path) else {
        return Some(true);
    };
    if meta.file_type().is_symlink() {
        // Git stores a symlink as a blob of its target's path. Regression (issue 57): a
        // tracked symlink retargeted was "can't tell", and the words were a clean tree's.
        use std::os::unix::ffi::OsStrExt as _;
        let target = fs::read_link(&path).ok()?;
        let bytes = target.as_os_str().as_bytes();
        return Some(
            entry.mode != SYMLINK_MODE || blob_id_of(bytes, bytes.len() as u64)? != entry.id,
        );
    }
    if !meta.is_file() {
        // A submodule, or a file become a directory: not read here.
        return None;
    }
    if entry.mode == SYMLINK_MODE {
        // A symlink replaced by a file.
        return Some(true);
    }
    if entry.stat_matches(&SeenStat::of(&meta)) {
        return Some(false);
    }
    // The open file's own size: what is hashed is what was measured.
    let file = fs::File::open(&path).ok()?;
    let len = file.metadata().ok()?.len();
    Some(blob_id_of(file, len)? != entry.id)
}

/// The path of `path` inside the working tree, `/`-separated, as the index names it.
fn relative(repo: &Repo, path: &Path) -> Option<String> {
    // On Unix a path's separator is already `/`: a walked path is named by its bytes.
    if let Some(rel) = crate::paths::below(path, &repo.work_tree) {
        return rel.to_str().map(str::to_owned);
    }
    let rel = path.strip_prefix(&repo.work_tree).ok()?;
    let parts: Vec<&str> = rel.iter().map(|p| p.to_str()).collect::<Option<_>>()?;
    Some(parts.join("/"))
}

/// Whether `file` differs from the commit checked out: from its index entry (an untracked file
/// differs), or its entry from `HEAD`'s (see [`staged`]). `None` when it cannot tell.
pub fn file_dirty(repo: &Repo, file: &Path) -> Option<bool> {
    let rel = relative(repo, file)?;
    let index = read_index(repo)?;
    let worktree = match index.entries.iter().find(|e| e.path == rel) {
        Some(entry) => entry_changed(repo, entry),
        None => Some(true),
    };
    differs(worktree, staged::file_staged(repo, &index, &rel))
}

/// The index file's size, times and inode: any change to what it stages writes it anew.
pub fn index_stamp(repo: &Repo) -> Option<SeenStat> {
    fs::metadata(repo.git_dir.join("index"))
        .ok()
        .map(|m| SeenStat::of(&m))
}

/// Whether the index differs from `HEAD` at `path` (a file, or anywhere below a directory): a
/// change staged and not committed. `None` when it cannot tell.
pub fn staged(repo: &Repo, path: &Path) -> Option<bool> {
    let rel = relative(repo, path)?;
    let index = read_index(repo)?;
    if path.is_dir() {
        staged::dir_staged(repo, &index, &rel)
    } else {
        staged::file_staged(repo, &index, &rel)
    }
}

/// Whether a tree differs from its commit, from whether the working tree differs from the
/// index and whether the index differs from `HEAD`: either one that does says it does; it does
/// not only when neither does.
pub fn differs(worktree: Option<bool>, staged: Option<bool>) -> Option<bool> {
    match (worktree, staged) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

/// What git's index says of a tracked file, read once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexSays {
    /// The file's blob id (hex) when its entry vouches for it without reading it: the size,
    /// mtime, change time and inode of the open file's stat are the entry's, as git's own
    /// check compares them (`core.trustctime` and `core.checkStat` at their defaults). A file
    /// rewritten in place with its size and mtime put back has a new change time, which no
    /// one can set.
    pub vouched_blob: Option<String>,
    /// Whether the file differs from the commit (see [`file_dirty`]).
    pub dirty: Option<bool>,
    /// Whether its entry differs from `HEAD`'s (see [`staged`]).
    pub staged: Option<bool>,
}

/// What the index says of `file`, whose open handle's metadata is `stat`; one read of the
/// index for both (a first read in a 20,000-file repository read it twice, 2.6 ms more).
pub fn index_says(repo: &Repo, file: &Path, stat: &fs::Metadata) -> IndexSays {
    let Some((rel, index)) = relative(repo, file).zip(read_index(repo)) else {
        return IndexSays::default();
    };
    let staged = staged::file_staged(repo, &index, &rel);
    let Some(entry) = index.entries.iter().find(|e| e.path == rel) else {
        return IndexSays {
            vouched_blob: None,
            dirty: Some(true),
            staged,
        };
    };
    if entry.stat_matches(&SeenStat::of(stat)) {
        IndexSays {
            vouched_blob: Some(crate::hex::hex("", &entry.id)),
            dirty: differs(Some(false), staged),
            staged,
        }
    } else {
        IndexSays {
            vouched_blob: None,
            dirty: differs(entry_changed(repo, entry), staged),
            staged,
        }
    }
}

/// A dirty check in parts, so a directory search does them beside reading the files and
/// finishes it from what reading them found: nothing is looked at twice. The untracked files
/// are looked for by the survey of the tree, with [`DirtyCheck::entry_of`].
pub struct DirtyCheck {
    /// The index entries under the directory (once prepared, those the search reads).
    entries: Vec<Entry>,
    /// Each entry's number, found by its path below the directory (the first entry of a path
    /// named more than once, as a conflict's stages are). Made when the index is read, while
    /// the directory is walked: the survey's comparison of the walked files with it is then
    /// the only join between the two (a map of the walked files, made after the walk, was 5 ms
    /// of a 20,000-file repository's search, on its critical path).
    below: hashbrown::HashTable<u32>,
    hasher: foldhash::fast::RandomState,
    /// Once prepared, where the search finds each entry's file (its place in the walk).
    places: Vec<usize>,
    /// `dir`'s path in the index, with a trailing `/` (empty at the top).
    prefix: String,
    /// An untracked file, or a changed one among those checked already, was found.
    dirty: bool,
    unknown: bool,
    /// Whether the index differs from `HEAD` below the directory (see [`staged`]).
    staged: Option<bool>,
}

impl DirtyCheck {
    /// Reads the index entries under `dir`; `None` when the index cannot be read.
    pub fn load(repo: &Repo, dir: &Path) -> Option<Self> {
        let rel = relative(repo, dir)?;
        if !dir.is_dir() {
            // One file: its own entry, named below its directory. Regression (issue 39): it
            // was looked for under `file/`, found nothing, and a changed file was clean.
            let prefix = rel
                .rsplit_once('/')
                .map_or_else(String::new, |(parent, _)| format!("{parent}/"));
            let index = read_index(repo)?;
            let staged = staged::file_staged(repo, &index, &rel);
            let mut entries = index.entries;
            entries.retain(|e| e.path == rel);
            // Not in the index: untracked, which differs from the commit.
            let untracked = entries.is_empty();
            let mut check = Self::of(entries, prefix)?;
            check.dirty |= untracked;
            check.staged = staged;
            return Some(check);
        }
        let prefix = if rel.is_empty() {
            String::new()
        } else {
            format!("{rel}/")
        };
        let index = read_index(repo)?;
        let staged = staged::dir_staged(repo, &index, &rel);
        let mut entries = index.entries;
        entries.retain(|e| e.path.starts_with(&prefix));
        let mut check = Self::of(entries, prefix)?;
        check.staged = staged;
        Some(check)
    }

    /// Whether the index differs from `HEAD` below the directory: a change staged and not
    /// committed (`None`: it cannot tell).
    pub fn staged(&self) -> Option<bool> {
        self.staged
    }

    /// The check of `entries` (the index's, in its order), all under `prefix`.
    fn of(entries: Vec<Entry>, prefix: String) -> Option<Self> {
        use std::hash::BuildHasher as _;
        // More entries than a u32 counts: not a repository this reads.
        u32::try_from(entries.len()).ok()?;
        let hasher = foldhash::fast::RandomState::default();
        let below_of = |i: u32| below(&entries, &prefix, i as usize);
        let mut table = hashbrown::HashTable::with_capacity(entries.len());
        for i in 0..entries.len() as u32 {
            let path = below_of(i);
            let hash = hasher.hash_one(path);
            table
                .entry(
                    hash,
                    |&j| below_of(j) == path,
                    |&j| hasher.hash_one(below_of(j)),
                )
                .or_insert(i);
        }
        Some(Self {
            entries,
            below: table,
            hasher,
            places: Vec::new(),
            prefix,
            dirty: false,
            unknown: false,
            staged: None,
        })
    }

    /// The number of the index entry that tracks `rel` (a path below `dir`, `/`-separated).
    pub fn entry_of(&self, rel: &str) -> Option<usize> {
        use std::hash::BuildHasher as _;
        self.below
            .find(self.hasher.hash_one(rel), |&i| {
                below(&self.entries, &self.prefix, i as usize) == rel
            })
            .map(|&i| i as usize)
    }

    /// Takes what the survey found (`untracked`, `unknown`), and looks now at the tracked
    /// files the search will not read. `read` gives the entries whose files it reads (by
    /// [`DirtyCheck::entry_of`]), each with the file's place in the walk; `passed` those the
    /// walk passed without reading, each with the size and time (nanoseconds) it saw: one
    /// whose entry they match is not looked at again.
    #[must_use]
    pub fn prepare(
        mut self,
        repo: &Repo,
        (untracked, unknown): (bool, bool),
        read: impl IntoIterator<Item = (usize, usize)>,
        passed: &[(usize, SeenStat)],
    ) -> Self {
        let mut seen_same = vec![false; self.entries.len()];
        for &(entry, seen) in passed {
            if let (Some(e), Some(same)) = (self.entries.get(entry), seen_same.get_mut(entry)) {
                *same = e.stat_matches(&seen);
            }
        }
        let mut place_of = vec![usize::MAX; self.entries.len()];
        for (entry, place) in read {
            // The other stages of a conflicted path follow its first entry, and are read
            // from the same file.
            let (Some(from), Some(at_from)) =
                (self.entries.get(entry..), place_of.get_mut(entry..))
            else {
                continue;
            };
            let path = from.first().map(|e| e.path.as_str());
            for (e, at) in from.iter().zip(at_from) {
                if Some(e.path.as_str()) != path {
                    break;
                }
                *at = place;
            }
        }
        let (mut later, mut places, mut now) = (Vec::new(), Vec::new(), Vec::new());
        let taken = std::mem::take(&mut self.entries);
        for ((e, place), same) in taken.into_iter().zip(place_of).zip(seen_same) {
            if place == usize::MAX {
                // Unchanged by git's first check as the walk saw it, or looked at now.
                if !same {
                    now.push(e);
                }
            } else {
                later.push(e);
                places.push(place);
            }
        }
        let (changed, unknown_now) = if untracked {
            (true, false)
        } else {
            entries_changed(repo, &now.iter().collect::<Vec<_>>())
        };
        Self {
            entries: later,
            below: hashbrown::HashTable::new(),
            places,
            dirty: self.dirty || untracked || changed,
            unknown: unknown || unknown_now,
            ..self
        }
    }

    /// Whether the tree is dirty, given `seen`: the size and modification time (nanoseconds)
    /// the search found of the file at each place in its walk. A file whose size and time
    /// match its entry is unchanged (git's own check); any other is looked at. Nothing is
    /// looked up by path here: this runs after the search, while nothing else does.
    pub fn finish(self, repo: &Repo, seen: impl Fn(usize) -> Option<SeenStat>) -> Option<bool> {
        let staged = self.staged;
        differs(self.worktree_differs(repo, seen), staged)
    }

    /// Whether the working tree differs from the index (see [`DirtyCheck::finish`]).
    fn worktree_differs(
        self,
        repo: &Repo,
        seen: impl Fn(usize) -> Option<SeenStat>,
    ) -> Option<bool> {
        if self.dirty {
            return Some(true);
        }
        let left: Vec<&Entry> = self
            .entries
            .iter()
            .zip(&self.places)
            .filter(|&(e, &i)| !seen(i).is_some_and(|seen| e.stat_matches(&seen)))
            .map(|(e, _)| e)
            .collect();
        let (changed, unknown) = entries_changed(repo, &left);
        if changed {
            return Some(true);
        }
        (!(unknown || self.unknown)).then_some(false)
    }
}

/// Entry `i`'s path below the directory whose path in the index is `prefix`.
fn below<'e>(entries: &'e [Entry], prefix: &str, i: usize) -> &'e str {
    entries
        .get(i)
        .and_then(|e| e.path.get(prefix.len()..))
        .unwrap_or_default()
}

/// (any changed, any that cannot be told) among `entries`, looked at on every core: on one,
/// a 20,000-file repository took 87 ms, most of a directory search's own time.
fn entries_changed(repo: &Repo, entries: &[&Entry]) -> (bool, bool) {
    if entries.is_empty() {
        return (false, false);
    }
    let threads = crate::workers::count(12);
    let unknown = AtomicBool::new(false);
    let changed = AtomicBool::new(false);
    let check = |part: &[&Entry]| {
        for entry in part {
            if changed.load(Ordering::Relaxed) {
                return;
            }
            match entry_changed(repo, entry) {
                Some(true) => changed.store(true, Ordering::Relaxed),
                Some(false) => {}
                None => unknown.store(true, Ordering::Relaxed),
            }
        }
    };
    std::thread::scope(|scope| {
        for part in entries.chunks(entries.len().div_ceil(threads).max(1)) {
            let check = &check;
            if crate::workers::spawn_scoped(scope, "git-index", move || check(part)).is_err() {
                // No thread to be had: this one looks at the part.
                check(part);
            }
        }
    });
    (changed.into_inner(), unknown.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_ids_are_git_s() {
        // `printf 'hello\n' | git hash-object --stdin`
        let id = blob_id(b"hello\n");
        assert_eq!(
            crate::hex::hex("", &id),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
    }

    /// A file read in many pieces has the id of all its bytes; one that holds more or fewer
    /// bytes than measured (it changed while read) has none.
    #[test]
    fn a_large_file_is_hashed_in_pieces_and_a_changing_one_not_at_all() {
        let bytes: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let mut whole = Sha1::new();
        whole.update(b"blob 300000\0");
        whole.update(&bytes);
        let want: [u8; 20] = whole.finalize().into();
        assert_eq!(blob_id_of(&bytes[..], 300_000), Some(want));
        assert_eq!(blob_id_of(&bytes[..], 299_999), None, "grew while read");
        assert_eq!(blob_id_of(&bytes[..], 300_001), None, "shrank while read");
        assert_eq!(blob_id_of(&b""[..], 0), Some(EMPTY_BLOB));
    }

    /// A repository at `work` with nothing in its working tree.
    fn empty_repo(work: &Path) -> Repo {
        Repo {
            git_dir: work.join(".git"),
            common_dir: work.join(".git"),
            work_tree: work.to_owned(),
        }
    }

    fn entry(path: &str) -> Entry {
        Entry {
            path: path.to_owned(),
            mtime: (0, 0),
            ctime: (0, 0),
            ino: 0,
            size: 0,
            id: [0; 20],
            mode: 0o100_644,
            stage: 0,
            intent_to_add: false,
            trusted: true,
        }
    }

    /// Git's two reasons not to believe an entry's stat data: staged in the index's own last
    /// tick (racily clean), or a size of 0 for a blob that is not empty.
    #[test]
    fn an_entry_is_trusted_as_git_trusts_it() {
        let staged = |mtime, size, id| Entry {
            mtime,
            size,
            id,
            ..entry("a")
        };
        let index = Some((100, 500));
        assert!(staged((100, 499), 3, [1; 20]).trusted(index));
        assert!(!staged((100, 500), 3, [1; 20]).trusted(index));
        assert!(!staged((101, 0), 3, [1; 20]).trusted(index));
        assert!(!staged((50, 0), 0, [1; 20]).trusted(index));
        assert!(staged((50, 0), 0, EMPTY_BLOB).trusted(index));
        assert!(staged((500, 0), 3, [1; 20]).trusted(None));
        assert_eq!(blob_id(b""), EMPTY_BLOB);
        // Untrusted, a matching size and time say nothing.
        let racy = Entry {
            trusted: false,
            ..staged((100, 500), 3, [1; 20])
        };
        let seen = |mtime_ns| SeenStat {
            len: 3,
            mtime_ns,
            ..SeenStat::default()
        };
        assert!(!racy.stat_matches(&seen(100_000_000_500)));
        let good = staged((100, 499), 3, [1; 20]);
        assert!(good.stat_matches(&seen(100_000_000_499)));
        // The same size and mtime with another change time or inode: not unchanged.
        assert!(!good.stat_matches(&SeenStat {
            ctime_ns: 7,
            ..seen(100_000_000_499)
        }));
        assert!(!good.stat_matches(&SeenStat {
            ino: 9,
            ..seen(100_000_000_499)
        }));
    }

    #[test]
    fn entries_are_found_by_their_path_below_the_directory() {
        let check = DirtyCheck::of(
            vec![entry("sub/a"), entry("sub/b/c"), entry("sub/d")],
            "sub/".to_owned(),
        )
        .unwrap();
        assert_eq!(check.entry_of("a"), Some(0));
        assert_eq!(check.entry_of("b/c"), Some(1));
        assert_eq!(check.entry_of("d"), Some(2));
        for absent in ["sub/a", "b", "", "e"] {
            assert_eq!(check.entry_of(absent), None, "{absent}");
        }
    }

    /// A conflicted path has an entry per stage, one after the other: each is compared with
    /// the one file the search read there, and the tracked file it did not read is looked at.
    #[test]
    fn each_stage_of_a_conflicted_path_takes_the_walked_file_s_place() {
        let work = tempfile::tempdir().unwrap();
        let repo = empty_repo(work.path());
        let entries = vec![entry("a"), entry("a"), entry("a"), entry("b")];
        let check = DirtyCheck::of(entries, String::new()).unwrap();
        assert_eq!(
            (check.entry_of("a"), check.entry_of("b")),
            (Some(0), Some(3))
        );
        let prepared = check.prepare(&repo, (false, false), [(0, 7)], &[]);
        let later: Vec<&str> = prepared.entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(later, ["a", "a", "a"]);
        assert_eq!(prepared.places, [7, 7, 7]);
        // `b` was not read, and is not there: the tree is dirty.
        assert!(prepared.dirty);
        // An entry number past the entries names none.
        let check = DirtyCheck::of(vec![entry("a")], String::new()).unwrap();
        let prepared = check.prepare(&repo, (false, false), [(5, 1)], &[]);
        assert!(prepared.entries.is_empty() && prepared.dirty);
    }

    /// A tracked file the walk passed without reading, seen with its entry's size and time, is
    /// not looked at again: here it is gone from the disk since, so a second look would call
    /// the tree dirty. Seen with another size or time, or before the epoch, it is looked at.
    #[test]
    fn a_file_the_walk_passed_is_looked_at_again_only_when_its_stat_differs() {
        let work = tempfile::tempdir().unwrap();
        let repo = empty_repo(work.path());
        let staged = Entry {
            mtime: (1_700_000_000, 5),
            size: 12,
            ..entry(".hidden")
        };
        let at = 1_700_000_000 * 1_000_000_000 + 5;
        let dirty = |passed: &[(usize, SeenStat)]| {
            let check = DirtyCheck::of(vec![staged.clone()], String::new()).unwrap();
            check.prepare(&repo, (false, false), [], passed).dirty
        };
        let seen = |len, mtime_ns| SeenStat {
            len,
            mtime_ns,
            ..SeenStat::default()
        };
        assert!(!dirty(&[(0, seen(12, at))]));
        assert!(dirty(&[]));
        assert!(dirty(&[(0, seen(13, at))]));
        assert!(dirty(&[(0, seen(12, at + 1))]));
        assert!(dirty(&[(0, seen(12, -1))]));
        assert!(dirty(&[(
            0,
            SeenStat {
                ctime_ns: 1,
                ..seen(12, at)
            }
        )]));
        // An entry number past the entries is ignored.
        assert!(dirty(&[(1, seen(12, at))]));
    }
}
