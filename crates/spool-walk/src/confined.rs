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
    open_beneath(&HeldRoot::open(root)?.fd, rel, flags)
}

/// A root held open: the files under it are opened from its descriptor, without resolving
/// the root's own path again for each (a directory search opens thousands).
pub struct HeldRoot {
    fd: OwnedFd,
}

impl HeldRoot {
    pub fn open(root: &Path) -> Result<Self, Refusal> {
        Ok(Self {
            fd: open(
                root,
                OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
                Mode::empty(),
            )?,
        })
    }

    /// The regular file `rel` under this root, open for reading (as [`open_file`]).
    pub fn open_file(&self, rel: &Path) -> Result<File, Refusal> {
        open_file_from(&self.fd, rel)
    }

    /// A file a walk of this root listed as a regular file, open for reading, with its status.
    /// Opened without the type probe of [`open_file`], which the walk's listing stands for:
    /// the walk follows no symlink, so none may be on the way now (`RESOLVE_NO_SYMLINKS`, and
    /// `O_NOFOLLOW` for the walk without `openat2`): what is opened is the name the walk listed
    /// as a regular file, or a device node put at that very name since (which takes the
    /// privilege to make one), then refused by its type before anything is read. `O_NONBLOCK`:
    /// a FIFO put there never blocks; `O_NOCTTY`: a terminal never becomes this process's.
    /// Half the system calls of a directory search's open.
    pub fn open_walked(&self, rel: &Path) -> Result<(File, std::fs::Metadata), Refusal> {
        let file = File::from(open_resolving(
            &self.fd,
            rel,
            OFlag::O_RDONLY | OFlag::O_NONBLOCK | OFlag::O_NOCTTY | OFlag::O_NOFOLLOW,
            ResolveFlag::RESOLVE_NO_SYMLINKS,
        )?);
        let meta = file.metadata().map_err(Refusal::Io)?;
        if let Some(what) = kind(&meta) {
            return Err(Refusal::NotRegular(what));
        }
        Ok((file, meta))
    }
}

/// Opens `rel` beneath the root held by `root_fd`.
fn open_beneath(root_fd: &OwnedFd, rel: &Path, flags: OFlag) -> Result<OwnedFd, Refusal> {
    open_resolving(root_fd, rel, flags, ResolveFlag::RESOLVE_NO_MAGICLINKS)
}

/// Opens `rel` beneath the root held by `root_fd`, resolving its path with `resolve` too.
fn open_resolving(
    root_fd: &OwnedFd,
    rel: &Path,
    flags: OFlag,
    resolve: ResolveFlag,
) -> Result<OwnedFd, Refusal> {
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
        .resolve(ResolveFlag::RESOLVE_BENEATH | resolve);
    match openat2(root_fd.as_fd(), rel, how) {
        Err(Errno::ENOSYS | Errno::EPERM) => {
            walk_nofollow(root_fd.try_clone().map_err(Refusal::Io)?, rel, flags)
        }
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
    HeldRoot::open(root)?.open_file(rel)
}

fn open_file_from(root_fd: &OwnedFd, rel: &Path) -> Result<File, Refusal> {
    // Its type first, from a descriptor that does not open it.
    let probe = File::from(open_beneath(root_fd, rel, OFlag::O_PATH)?);
    let before = probe.metadata().map_err(Refusal::Io)?;
    if let Some(what) = kind(&before) {
        return Err(Refusal::NotRegular(what));
    }
    let file = File::from(open_beneath(
        root_fd,
        rel,
        OFlag::O_RDONLY | OFlag::O_NONBLOCK,
    )?);
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

/// The directory at `path` (absolute and canonical: resolved a moment ago) held open, reached
/// from `/` without crossing a symlink: one swapped for a symlink since it was resolved is
/// refused, not followed.
pub fn open_dir_nofollow(path: &Path) -> Result<OwnedFd, Refusal> {
    let top = open(
        Path::new("/"),
        OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
        Mode::empty(),
    )?;
    let rel = path.strip_prefix("/").map_err(|_| Refusal::Escaped)?;
    walk_nofollow(top, rel, OFlag::O_PATH | OFlag::O_DIRECTORY)
}

/// What is below a directory held open, looked up without crossing a symlink.
///
/// A listing's walk reads directories by name, so a directory swapped for a symlink while it
/// walks can show it the names of one outside. Each name it found is looked up again here,
/// from the listed directory's descriptor, one component at a time with `O_NOFOLLOW`: a name
/// that is not (or no longer) below it is not there, and what it is comes from this lookup.
pub struct Below {
    dir: OwnedFd,
    /// The parent directories opened last, most recent first: a walk names siblings together.
    parents: Vec<(std::path::PathBuf, OwnedFd)>,
}

/// How many parent directories `Below` keeps open.
const PARENTS_KEPT: usize = 8;

impl Below {
    pub fn new(dir: OwnedFd) -> Self {
        Self {
            dir,
            parents: Vec::new(),
        }
    }

    /// The status of `rel` (relative, without `..`) below the directory, not following a
    /// final symlink; `None` when it is not there or the way to it is not a plain directory.
    pub fn stat(&mut self, rel: &Path) -> Option<nix::sys::stat::FileStat> {
        let name = rel.file_name()?;
        let parent = rel.parent().unwrap_or(Path::new(""));
        let at = if let Some(i) = self.parents.iter().position(|(p, _)| p == parent) {
            i
        } else {
            let fd = walk_nofollow(
                self.dir.try_clone().ok()?,
                parent,
                OFlag::O_PATH | OFlag::O_DIRECTORY,
            )
            .ok()?;
            self.parents.truncate(PARENTS_KEPT - 1);
            self.parents.insert(0, (parent.to_owned(), fd));
            0
        };
        nix::sys::stat::fstatat(
            self.parents[at].1.as_fd(),
            name,
            nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
        )
        .ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A walked name is opened only as the walk saw it: a directory on its way swapped for a
    /// symlink (even one inside the root, which `open_file` follows), or the name itself made
    /// a symlink, is refused; a FIFO put at the name is refused by its type without blocking.
    #[test]
    fn a_walked_file_is_opened_only_without_a_symlink_on_its_way() {
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let p = root.path();
        for dir in ["d", "e"] {
            std::fs::create_dir(p.join(dir)).unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(p.join(dir).join("f"), dir).unwrap_or_else(|e| panic!("{e}"));
        }
        let held = HeldRoot::open(p).unwrap_or_else(|e| panic!("{e:?}"));
        let (_, meta) = held
            .open_walked(Path::new("d/f"))
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(meta.len(), 1);
        std::fs::rename(p.join("d"), p.join("d-was")).unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::symlink("e", p.join("d")).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            held.open_file(Path::new("d/f")).is_ok(),
            "followed inside the root"
        );
        assert!(
            held.open_walked(Path::new("d/f")).is_err(),
            "not as the walk saw it"
        );
        std::os::unix::fs::symlink("e/f", p.join("g")).unwrap_or_else(|e| panic!("{e}"));
        assert!(held.open_walked(Path::new("g")).is_err());
        nix::unistd::mkfifo(&p.join("fifo"), nix::sys::stat::Mode::S_IRWXU)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            held.open_walked(Path::new("fifo")),
            Err(Refusal::NotRegular("a FIFO (named pipe)"))
        ));
    }

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

    #[test]
    fn below_finds_names_under_plain_directories_only() {
        let outside = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(outside.path().join("secret"), "s").unwrap_or_else(|e| panic!("{e}"));
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir(root.path().join("sub")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.path().join("sub/a"), "abc").unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::symlink(outside.path(), root.path().join("out"))
            .unwrap_or_else(|e| panic!("{e}"));
        let fd = open_dir(root.path(), Path::new("")).unwrap_or_else(|e| panic!("{e:?}"));
        let mut below = Below::new(fd);
        let a = below.stat(Path::new("sub/a"));
        assert_eq!(a.map(|s| s.st_size), Some(3));
        assert!(below.stat(Path::new("sub/none")).is_none());
        assert!(
            below.stat(Path::new("out/secret")).is_none(),
            "through a symlink"
        );
        let link = below
            .stat(Path::new("out"))
            .map(|s| s.st_mode & libc_s_ifmt());
        assert_eq!(
            link,
            Some(nix::sys::stat::SFlag::S_IFLNK.bits()),
            "the link itself"
        );
    }

    fn libc_s_ifmt() -> nix::sys::stat::mode_t {
        nix::sys::stat::SFlag::S_IFMT.bits()
    }
}
