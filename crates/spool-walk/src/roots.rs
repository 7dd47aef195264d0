//! Allowed roots: the directories a server may read, checked after symlinks are resolved.
//!
//! Three answers never look alike: outside the roots is `forbidden`, missing is `not_found`,
//! refused by the operating system is `forbidden` with that cause.

use std::path::{Component, Path, PathBuf};

use crate::error::{Result, WalkError};

#[derive(Debug, Clone)]
pub struct Roots {
    roots: Vec<PathBuf>,
}

impl Roots {
    /// Canonical forms of `dirs`; each must exist and be a directory.
    pub fn new(dirs: &[PathBuf]) -> Result<Self> {
        let mut roots = Vec::with_capacity(dirs.len());
        for dir in dirs {
            let real = std::fs::canonicalize(dir).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => WalkError::NotFound { path: dir.clone() },
                _ => WalkError::Io {
                    path: dir.clone(),
                    source: e,
                },
            })?;
            if !real.is_dir() {
                return Err(WalkError::RootNotDirectory { path: dir.clone() });
            }
            roots.push(real);
        }
        if roots.is_empty() {
            return Err(WalkError::NoRoots);
        }
        Ok(Self { roots })
    }

    /// The roots, each its real path.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The first root, against which relative paths are resolved.
    pub fn primary(&self) -> &Path {
        &self.roots[0]
    }

    fn inside(&self, path: &Path) -> bool {
        self.roots.iter().any(|r| path.starts_with(r))
    }

    fn refused(&self, path: &Path, why: &str) -> WalkError {
        let roots: Vec<String> = self.roots.iter().map(|r| r.display().to_string()).collect();
        WalkError::Forbidden {
            path: path.to_owned(),
            reason: format!("{why}; the allowed roots are {}", roots.join(", ")),
        }
    }

    /// The real path of `path` (relative to the first root when relative), if it exists and
    /// lies inside a root once every symlink is resolved.
    pub fn resolve(&self, path: &str) -> Result<PathBuf> {
        /// Linux's limits: a whole path, and one name in it.
        const PATH_MAX: usize = 4096;
        const NAME_MAX: usize = 255;
        if path.len() >= PATH_MAX || path.split('/').any(|name| name.len() > NAME_MAX) {
            return Err(WalkError::TooLong { len: path.len() });
        }
        let joined = self.primary().join(path);
        let lexical = normalize(&joined);
        if !self.inside(&lexical) {
            return Err(self.refused(&lexical, "it is outside the allowed roots"));
        }
        let real = std::fs::canonicalize(&lexical).map_err(|e| path_error(&lexical, e))?;
        if !self.inside(&real) {
            return Err(self.refused(
                &lexical,
                &format!(
                    "it resolves to `{}`, outside the allowed roots",
                    real.display()
                ),
            ));
        }
        Ok(real)
    }

    /// The regular file at `path`, open for reading, and its real path: resolved as
    /// [`Roots::resolve`] does, then opened confined beneath its root, so that a symlink
    /// swapped in between cannot lead outside (see `confined.rs`).
    pub fn open_file(&self, path: &str) -> Result<(std::fs::File, PathBuf)> {
        let real = self.resolve(path)?;
        let (root, inside) = self.split(&real)?;
        match crate::confined::open_file(root, inside) {
            Ok(file) => Ok((file, real)),
            Err(refusal) => Err(self.refusal(&real, refusal)),
        }
    }

    /// The directory at `path`, as a descriptor confined the same way, and its real path.
    pub fn open_dir(&self, path: &str) -> Result<(std::os::fd::OwnedFd, PathBuf)> {
        let real = self.resolve(path)?;
        let (root, inside) = self.split(&real)?;
        match crate::confined::open_dir(root, inside) {
            Ok(fd) => Ok((fd, real)),
            Err(refusal) => Err(self.refusal(&real, refusal)),
        }
    }

    /// The root holding `real`, and the path inside it.
    pub fn split<'p>(&'p self, real: &'p Path) -> Result<(&'p Path, &'p Path)> {
        self.roots
            .iter()
            .find_map(|r| crate::paths::below(real, r).map(|rel| (r.as_path(), rel)))
            .ok_or_else(|| self.refused(real, "it is outside the allowed roots"))
    }

    fn refusal(&self, real: &Path, refusal: crate::confined::Refusal) -> WalkError {
        use crate::confined::Refusal;
        match refusal {
            Refusal::Escaped => self.refused(
                real,
                "a symlink on its way leads outside the allowed roots (it changed since it was checked)",
            ),
            Refusal::Changed => WalkError::Changed {
                path: real.to_owned(),
            },
            Refusal::NotRegular("a directory") => WalkError::IsDirectory {
                path: real.to_owned(),
            },
            Refusal::NotRegular(what) => WalkError::NotRegular {
                path: real.to_owned(),
                what,
            },
            Refusal::Io(e) => path_error(real, e),
        }
    }

    /// The path as shown to the reader: relative to the root that holds it.
    pub fn display(&self, real: &Path) -> String {
        self.roots
            .iter()
            .find_map(|r| real.strip_prefix(r).ok())
            .map_or_else(|| real.display().to_string(), |p| p.display().to_string())
    }
}

/// What the operating system said of `path`, typed: missing, refused, a path that cannot be
/// one (a loop of symlinks, a NUL byte, too long, a file where a directory must be); only the
/// rest is an i/o error.
pub fn path_error(path: &Path, e: std::io::Error) -> WalkError {
    let invalid = |what: &'static str| WalkError::Unusable {
        path: path.to_owned(),
        what,
    };
    match (e.kind(), e.raw_os_error()) {
        (std::io::ErrorKind::NotFound, _) => WalkError::NotFound {
            path: path.to_owned(),
        },
        (std::io::ErrorKind::PermissionDenied, _) => WalkError::Forbidden {
            path: path.to_owned(),
            reason: "permission denied by the operating system".into(),
        },
        (_, Some(code)) if code == nix::errno::Errno::ELOOP as i32 => {
            invalid("goes through a loop of symbolic links")
        }
        (_, Some(code)) if code == nix::errno::Errno::ENAMETOOLONG as i32 => {
            invalid("is longer than paths may be")
        }
        (_, Some(code)) if code == nix::errno::Errno::ENOTDIR as i32 => {
            invalid("has a file where a directory must be")
        }
        (std::io::ErrorKind::InvalidInput, _) => {
            invalid("is not a usable path (a NUL byte in it?)")
        }
        _ => WalkError::Io {
            path: path.to_owned(),
            source: e,
        },
    }
}

/// `a/./b/../c` as `a/c`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_missing_and_symlink_escapes_are_told_apart() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("in.txt"), "x").unwrap();
        std::fs::write(outside.path().join("secret.txt"), "s").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.path().join("link"))
            .unwrap();
        let roots = Roots::new(&[root.path().to_owned()]).unwrap();
        assert!(roots.resolve("in.txt").is_ok());
        assert!(matches!(
            roots.resolve("nope.txt").unwrap_err(),
            WalkError::NotFound { .. }
        ));
        assert!(matches!(
            roots.resolve("../../etc/passwd").unwrap_err(),
            WalkError::Forbidden { .. }
        ));
        assert!(matches!(
            roots.resolve("/etc/passwd").unwrap_err(),
            WalkError::Forbidden { .. }
        ));
        let escape = roots.resolve("link").unwrap_err();
        assert!(matches!(escape, WalkError::Forbidden { .. }));
        assert!(
            escape.to_string().contains("outside the allowed roots"),
            "{escape}"
        );
    }
}
