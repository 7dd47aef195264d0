//! File snapshots: a file read through spool is stored once, with what pins its version.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use sha2::{Digest, Sha256};

use crate::calls::{ReadParams, Target};
use crate::clock;
use crate::envelope::{ArtifactState, FileVersion, NextCall, Source, Version};
use crate::error::{Error, Result};
use crate::store::{ArtifactMeta, NewArtifact, Store};

/// Stores a snapshot of the file at `path` (or finds the stored one, if the file is unchanged),
/// anywhere on the file system (the CLI's reads: a person may read what they can).
pub fn snapshot(store: &Store, path: &Path) -> Result<ArtifactMeta> {
    let everything = spool_walk::roots::Roots::new(&[PathBuf::from("/")])?;
    let absolute = std::path::absolute(path).map_err(|e| path_error(path, e))?;
    let (file, real) = everything.open_file(&absolute.to_string_lossy())?;
    snapshot_file(store, file, &real)
}

/// Stores a snapshot of `file`, open for reading (see [`spool_walk::roots::Roots::open_file`]),
/// whose real path is `real`; or finds the stored one, if the file is unchanged.
pub fn snapshot_file(store: &Store, mut file: std::fs::File, real: &Path) -> Result<ArtifactMeta> {
    let real = real.to_owned();
    // The open file's own metadata: what is read is what is described.
    let stat = file.metadata().map_err(|e| path_error(&real, e))?;
    let mtime_ns = mtime_ns(&stat);
    let file_key = unchanged_key(&real, &stat);
    // The commit checked out, read from git's files (running git would run the repository's
    // configured programs).
    let repo = spool_walk::git::find(&real);
    let commit = repo.as_ref().and_then(spool_walk::git::head);
    // The same file in the same git state: `git add`, a commit or a reset change what its
    // version says without touching the file (regression, issue 57: a snapshot stored before
    // `git reset --soft` was found again and said the commit it no longer is).
    let key = match &repo {
        Some(repo) => format!(
            "{file_key}@{}:{:?}",
            commit.as_deref().unwrap_or("-"),
            spool_walk::git::index_stamp(repo)
        ),
        None => file_key.clone(),
    };
    if let Some(found) = store.find_by_dedup(&key)? {
        return Ok(found);
    }
    // A tracked file rewritten with what it held (a checkout and back, a stash and its pop)
    // has new times but the blob it had, which git's index vouches for by git's own check:
    // the copy stored of that blob at this commit, when nothing of it is staged.
    let says = repo
        .as_ref()
        .map(|repo| spool_walk::git::index_says(repo, &real, &stat));
    let blob_key = says
        .as_ref()
        .filter(|says| says.staged == Some(false))
        .and_then(|says| Some((says.vouched_blob.as_ref()?, commit.as_deref()?)))
        .map(|(blob, commit)| format!("git-blob:{}:{blob}@{commit}", real.display()));
    if let Some(blob_key) = &blob_key
        && let Some(found) = store.find_by_content(blob_key)?
    {
        return Ok(found);
    }
    let mut version = FileVersion {
        path: real.display().to_string(),
        mtime: clock::rfc3339(i64::try_from(mtime_ns / 1_000_000).unwrap_or(i64::MAX)),
        ..FileVersion::default()
    };
    let mut new = NewArtifact::new(Source::new(
        real.display().to_string(),
        Version::File(version.clone()),
    ));
    // A log is read from its end: what happened last is what is asked about.
    let mut head = vec![0u8; SNIFF];
    let sniffed = read_some(&mut file, &mut head).map_err(|e| Error::io(&real, e))?;
    head.truncate(sniffed);
    if reads_as_log(&real, &head) {
        new.preview = crate::envelope::Preview::Tail;
    }
    // A file changed within a tick of this look may change again keeping its whole stat:
    // the snapshot is stored, not offered for reuse (git's racily clean rule).
    let seen = spool_walk::git::SeenStat::of(&stat);
    new.dedup_key = (!seen.racy(clock::now_ms().saturating_mul(1_000_000))).then(|| key.clone());
    new.redo = Some(NextCall::Read(ReadParams::of(Target::path(
        real.display().to_string(),
    ))));
    let mut writer = store.create(new)?;
    // A file larger than one capture keeps is read no further than it keeps: its first bytes
    // are the copy (a 100 GB sparse file was read and written until the disk was full).
    let limit = writer.limit();
    let sha256 = if let Some(mut clone) = writer.clone_content(&file) {
        // No copy: the clone is read to count, index and hash what is stored.
        hash_through(&mut clone, &real, Vec::new(), limit, &mut |buf| {
            writer.account_cloned(buf);
        })
    } else {
        writer.write(&head);
        hash_through(&mut file, &real, head, limit, &mut |buf| writer.write(buf))
    };
    let sha256 = sha256?;
    // Its size now too: a file that grew past the limit while it was copied was cut there.
    let longest = stat.len().max(file.metadata().map_or(0, |now| now.len()));
    if longest > limit {
        // The hash is of the part kept, not of the file: none is stated.
        writer.stopped_at_limit(longest);
    } else {
        version.sha256 = Some(sha256);
    }
    // Whether the file differs from the commit: from its index entry, or its entry from the
    // commit's (staged).
    if let Some(repo) = &repo
        && let Some(commit) = commit
    {
        version.commit = Some(commit);
        // Unchanged while copied: what the index said before holds for what is stored (and
        // what is stored is the blob it vouched for, if it did).
        let unchanged = file
            .metadata()
            .is_ok_and(|now| unchanged_key(&real, &now) == file_key);
        (version.dirty, version.staged) = match says {
            Some(says) if unchanged => {
                if let Some(blob_key) = blob_key {
                    writer.set_content_key(blob_key);
                }
                (says.dirty, says.staged)
            }
            _ => (
                spool_walk::git::file_dirty(repo, &real),
                spool_walk::git::staged(repo, &real),
            ),
        };
    }
    writer.finish(ArtifactState::Complete, None, Some(Version::File(version)))
}

/// A file's modification time in nanoseconds since the epoch (0 if it has none).
fn mtime_ns(stat: &std::fs::Metadata) -> u128 {
    stat.modified()
        .ok()
        .and_then(|m| m.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

/// The key of a file unchanged since its snapshot: the same path, inode, size, modification
/// time and change time. A file rewritten in place with its size and mtime put back (`touch
/// -d`, a tool that keeps times) has a new change time, which no one can set, and a file
/// replaced by another has a new inode.
fn unchanged_key(real: &Path, stat: &std::fs::Metadata) -> String {
    use std::os::unix::fs::MetadataExt as _;
    let ctime_ns = i128::from(stat.ctime()) * 1_000_000_000 + i128::from(stat.ctime_nsec());
    format!(
        "file:{}:{}:{}:{}:{ctime_ns}",
        real.display(),
        stat.len(),
        mtime_ns(stat),
        stat.ino()
    )
}

/// Passes the rest of `file`, in order, to `write` on this thread while another thread reads
/// it and computes the SHA-256 of `head` and the rest. With the hash on the thread that wrote,
/// it was 44% of a first read's time; with the reads there too, that thread was the longer of
/// the two (the hash runs at the processor's speed, 1.4 GB/s here, as fast as `openssl speed
/// sha256`). Reads at most `max` bytes in all, `head` included. Its hex digest.
fn hash_through(
    file: &mut std::fs::File,
    real: &Path,
    head: Vec<u8>,
    max: u64,
    write: &mut dyn FnMut(&[u8]),
) -> Result<String> {
    const BUFFERS: usize = 4;
    const BUFFER: usize = 1 << 20;
    let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<(Vec<u8>, usize)>(BUFFERS);
    let (empty_tx, empty_rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(BUFFERS);
    for _ in 0..BUFFERS {
        let _ = empty_tx.send(vec![0u8; BUFFER]);
    }
    std::thread::scope(move |scope| {
        // Dropped with this closure, even by a panic: the reading thread then stops too.
        let empty_tx = empty_tx;
        let reading =
            spool_walk::workers::spawn_scoped(scope, "snapshot", move || -> std::io::Result<_> {
                let mut hasher = Sha256::new();
                hasher.update(&head);
                let mut left = max.saturating_sub(head.len() as u64);
                // The writing thread hands every buffer back until it stops.
                while let Ok(mut buf) = empty_rx.recv() {
                    let want = usize::try_from(left).map_or(buf.len(), |l| l.min(buf.len()));
                    let n = read_some(file, &mut buf[..want])?;
                    if n == 0 {
                        break;
                    }
                    left -= n as u64;
                    hasher.update(&buf[..n]);
                    if full_tx.send((buf, n)).is_err() {
                        break;
                    }
                }
                Ok(hasher.finalize())
            });
        let reading = reading.map_err(|e| Error::no_thread("reading a file", &e))?;
        for (buf, n) in full_rx {
            write(&buf[..n]);
            // Refused once the reading has stopped: the buffer is not needed then.
            let _ = empty_tx.send(buf);
        }
        let digest = reading
            .join()
            .map_err(|_| Error::io(real, std::io::Error::other("the reading thread panicked")))?
            .map_err(|e| Error::io(real, e))?;
        Ok(spool_walk::hex::hex("", &digest))
    })
}

/// How much of a file's start decides whether it reads as a log.
const SNIFF: usize = 4096;

/// Reads until `buf` is full or the file ends.
fn read_some(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// A log: named so (`*.log`, or rotated, `*.log.1`), or lines that begin with a timestamp
/// (ISO 8601 `2026-11-30T09:00:00` or `2026-11-30 09:00:00`, bracketed or not, or syslog's
/// `Nov 30 09:00:00`): at least three of the first lines, and all of them but one.
pub fn reads_as_log(path: &Path, head: &[u8]) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let named_log = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("log"))
        || name.contains(".log.");
    if named_log {
        return true;
    }
    // The last line may be cut by the sniff's end: only whole lines count.
    let whole = head
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(&head[..0], |end| &head[..end]);
    let lines: Vec<&[u8]> = whole
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .take(20)
        .collect();
    let stamped = lines.iter().filter(|l| starts_with_timestamp(l)).count();
    lines.len() >= 3 && stamped + 1 >= lines.len()
}

const MONTHS: [&[u8]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];

fn starts_with_timestamp(line: &[u8]) -> bool {
    let line = line.strip_prefix(b"[").unwrap_or(line);
    let digits =
        |s: &[u8], at: &[usize]| at.iter().all(|&i| s.get(i).is_some_and(u8::is_ascii_digit));
    let at = |s: &[u8], i: usize, c: u8| s.get(i) == Some(&c);
    // 2026-11-30T09:00:00 or 2026-11-30 09:00:00
    let iso = digits(line, &[0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15])
        && at(line, 4, b'-')
        && at(line, 7, b'-')
        && (at(line, 10, b'T') || at(line, 10, b' '))
        && at(line, 13, b':');
    // Nov 30 09:00:00 (the day may be space-padded)
    let syslog = MONTHS.iter().any(|m| line.starts_with(m))
        && at(line, 3, b' ')
        && digits(line, &[5, 7, 8, 10, 11, 13, 14])
        && at(line, 9, b':')
        && at(line, 12, b':');
    iso || syslog
}

fn path_error(path: &Path, e: std::io::Error) -> Error {
    match e.kind() {
        std::io::ErrorKind::NotFound => Error::PathNotFound {
            path: path.to_owned(),
        },
        std::io::ErrorKind::PermissionDenied => Error::Forbidden {
            path: path.to_owned(),
            reason: "permission denied by the operating system".into(),
        },
        _ => Error::io(path, e),
    }
}
