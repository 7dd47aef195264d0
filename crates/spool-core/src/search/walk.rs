//! The files a directory search reads: ripgrep's walker with the search's globs and its hidden
//! rule, each file's size and modification time, and a digest of that list. The digest is the
//! version of a tree that is not a git repository, and, with the query, the key under which a
//! repeat of the same search of the same tree reuses the hit list it stored.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest as _, Sha256};

use crate::error::{Error, Result};

/// A file the walk found, not yet opened.
pub struct Candidate {
    pub path: PathBuf,
    /// Its path under the searched directory.
    pub rel: String,
    pub len: u64,
    /// Its place in the walk (a lossy `rel` of two non-UTF-8 names can be the same).
    pub index: usize,
}

/// What the walk found.
pub struct Walked {
    pub files: Vec<Candidate>,
    /// `sha256:` of every file's path, size and modification time, in walk order.
    pub digest: String,
}

/// The files under `dir` a search reads, in path order: `.gitignore` and the other ignore files
/// respected, globs applied, hidden files skipped unless `hidden`.
pub fn walk(dir: &Path, globs: &[String], hidden: bool) -> Result<Walked> {
    let mut overrides = ignore::overrides::OverrideBuilder::new(dir);
    for g in globs {
        overrides.add(g).map_err(|e| {
            Error::invalid(
                format!("invalid glob `{g}`: {e}"),
                Some("for example `*.rs` or `!target/**`".to_owned()),
            )
        })?;
    }
    let overrides = overrides
        .build()
        .map_err(|e| Error::invalid(format!("invalid globs: {e}"), None))?;
    let walk = ignore::WalkBuilder::new(dir)
        .overrides(overrides)
        .hidden(!hidden)
        // Version-control metadata is never content, hidden files asked for or not.
        .filter_entry(|e| e.file_name() != ".git")
        .sort_by_file_name(std::cmp::Ord::cmp)
        .build();
    let mut files = Vec::new();
    let mut hasher = Sha256::new();
    for entry in walk {
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path().to_owned();
        let rel = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        let (len, mtime) = entry.metadata().map_or((0, 0), |m| {
            (m.len(), m.mtime_nsec() + m.mtime() * 1_000_000_000)
        });
        hasher.update(rel.as_bytes());
        hasher.update([0]);
        hasher.update(len.to_le_bytes());
        hasher.update(mtime.to_le_bytes());
        files.push(Candidate {
            path,
            rel,
            len,
            index: files.len(),
        });
    }
    let digest = hasher
        .finalize()
        .iter()
        .take(16)
        .fold(String::from("sha256:"), |mut s, b| {
            use std::fmt::Write as _;
            let _ = write!(s, "{b:02x}");
            s
        });
    Ok(Walked { files, digest })
}

/// Every regular file under `dir` with the ignore rules off (`.git` left out), and how many of
/// them are hidden (a name on their path starts with `.`), if counted within `limit`.
pub fn count_all(dir: &Path, limit: Duration) -> Option<(u64, u64)> {
    let started = Instant::now();
    let (mut all, mut hidden) = (0u64, 0u64);
    let walk = ignore::WalkBuilder::new(dir)
        .standard_filters(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    for entry in walk.flatten() {
        if started.elapsed() > limit {
            return None;
        }
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        all += 1;
        let rel = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        if rel
            .components()
            .any(|c| c.as_os_str().as_encoded_bytes().starts_with(b"."))
        {
            hidden += 1;
        }
    }
    Some((all, hidden))
}

/// What a search of a tree did with the files the walk found.
#[derive(Debug, Default)]
pub struct Counts {
    pub searched: u64,
    pub binary: u64,
    pub too_large: u64,
    /// Could not be opened or read (permissions, gone since the walk).
    pub unreadable: u64,
}

impl Counts {
    fn looked_at(&self) -> u64 {
        self.searched + self.binary + self.too_large + self.unreadable
    }
}

/// Why [`each_file`] left a file out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    TooLarge,
    Binary,
    /// Could not be opened (gone since the walk, permissions) or read.
    Unreadable,
}

/// Opens each walked file in path order, beneath its root, and hands it (with its first 8 KiB)
/// to `read`, which answers whether it read it whole: files larger than `max_bytes` and binary
/// ones (a NUL in the first 8 KiB) are counted and left out, and told to `skipped`. Stops once
/// `budget` has passed (after at least one file) and returns the last file looked at then; an
/// error of `read` ends the walk.
pub fn each_file(
    walked: &Walked,
    roots: &crate::roots::Roots,
    max_bytes: u64,
    budget: Duration,
    mut read: impl FnMut(&Candidate, &std::fs::File, &[u8]) -> Result<bool>,
    mut skipped: impl FnMut(&Candidate, Skip),
) -> Result<(Counts, Option<String>)> {
    use std::os::unix::fs::FileExt as _;
    let started = Instant::now();
    let mut n = Counts::default();
    let mut last_path = String::new();
    for file in &walked.files {
        if n.looked_at() > 0 && started.elapsed() >= budget {
            return Ok((n, Some(last_path)));
        }
        last_path.clone_from(&file.rel);
        if file.len > max_bytes {
            n.too_large += 1;
            skipped(file, Skip::TooLarge);
            continue;
        }
        // Opened again beneath its root, not by name: a directory swapped for a symlink while
        // the walk runs cannot lead the search outside (see `beneath.rs`).
        let Some(opened) = roots
            .split(&file.path)
            .ok()
            .and_then(|(root, rel)| crate::beneath::open_file(root, rel).ok())
        else {
            n.unreadable += 1;
            skipped(file, Skip::Unreadable);
            continue;
        };
        // Read at its offset: the file's position stays at 0 for `read`.
        let mut head = vec![0u8; 8192];
        let got = opened.read_at(&mut head, 0).unwrap_or(0);
        head.truncate(got);
        if memchr::memchr(0, &head).is_some() {
            n.binary += 1;
            skipped(file, Skip::Binary);
            continue;
        }
        if read(file, &opened, &head)? {
            n.searched += 1;
        } else {
            n.unreadable += 1;
            skipped(file, Skip::Unreadable);
        }
    }
    Ok((n, None))
}
