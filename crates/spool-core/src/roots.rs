//! Allowed roots: the directories a server may read, checked after symlinks are resolved.
//!
//! Three answers never look alike: outside the roots is `forbidden`, missing is `not_found`,
//! refused by the operating system is `forbidden` with that cause.

use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

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
                std::io::ErrorKind::NotFound => Error::PathNotFound { path: dir.clone() },
                _ => Error::io(dir, e),
            })?;
            if !real.is_dir() {
                return Err(Error::invalid(
                    format!("root `{}` is not a directory", dir.display()),
                    Some("give `--root` a directory".to_owned()),
                ));
            }
            roots.push(real);
        }
        if roots.is_empty() {
            return Err(Error::invalid(
                "no allowed roots",
                Some("give at least one `--root DIR`".to_owned()),
            ));
        }
        Ok(Self { roots })
    }

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

    fn refused(&self, path: &Path, why: &str) -> Error {
        let roots: Vec<String> = self.roots.iter().map(|r| r.display().to_string()).collect();
        Error::Forbidden {
            path: path.to_owned(),
            reason: format!("{why}; the allowed roots are {}", roots.join(", ")),
        }
    }

    /// The real path of `path` (relative to the first root when relative), if it exists and
    /// lies inside a root once every symlink is resolved.
    pub fn resolve(&self, path: &str) -> Result<PathBuf> {
        let joined = self.primary().join(path);
        let lexical = normalize(&joined);
        if !self.inside(&lexical) {
            return Err(self.refused(&lexical, "it is outside the allowed roots"));
        }
        let real = std::fs::canonicalize(&lexical).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::PathNotFound {
                path: lexical.clone(),
            },
            std::io::ErrorKind::PermissionDenied => Error::Forbidden {
                path: lexical.clone(),
                reason: "permission denied by the operating system".into(),
            },
            _ => Error::io(&lexical, e),
        })?;
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

    /// The path as shown to the reader: relative to the root that holds it.
    pub fn display(&self, real: &Path) -> String {
        self.roots
            .iter()
            .find_map(|r| real.strip_prefix(r).ok())
            .map_or_else(|| real.display().to_string(), |p| p.display().to_string())
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
        assert_eq!(
            roots.resolve("nope.txt").unwrap_err().code(),
            crate::ErrorCode::NotFound
        );
        assert_eq!(
            roots.resolve("../../etc/passwd").unwrap_err().code(),
            crate::ErrorCode::Forbidden
        );
        assert_eq!(
            roots.resolve("/etc/passwd").unwrap_err().code(),
            crate::ErrorCode::Forbidden
        );
        let escape = roots.resolve("link").unwrap_err();
        assert_eq!(escape.code(), crate::ErrorCode::Forbidden);
        assert!(
            escape.to_string().contains("outside the allowed roots"),
            "{escape}"
        );
    }
}
