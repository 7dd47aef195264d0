//! Why a path was not read or walked. Typed, and worded for people only in `Display`: the
//! engines above turn each into the answer a model reads (its code, its hint, the calls that
//! work instead), so this crate says nothing in an agent's words.

use std::path::PathBuf;

/// Why a path was not read or walked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WalkError {
    /// Nothing is there.
    #[error("`{}` does not exist", path.display())]
    NotFound {
        /// The path as it was looked up.
        path: PathBuf,
    },
    /// Not allowed: outside the roots, or refused by the operating system.
    #[error("`{}` is forbidden: {reason}", path.display())]
    Forbidden {
        /// The path as it was looked up.
        path: PathBuf,
        /// Why, with the roots when it lies outside them.
        reason: String,
    },
    /// A path that cannot name a file (a loop of symlinks, too long, a file where a directory
    /// must be, a NUL byte): what is wrong with it.
    #[error("`{}` {what}", path.display())]
    Unusable {
        /// The path.
        path: PathBuf,
        /// What is wrong, as the end of a sentence that starts with the path.
        what: &'static str,
    },
    /// A path longer than Linux takes.
    #[error("the path is longer than paths may be ({len} bytes)")]
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// A root that is not a directory.
    #[error("root `{}` is not a directory", path.display())]
    RootNotDirectory {
        /// The root as given.
        path: PathBuf,
    },
    /// No roots were given.
    #[error("no allowed roots")]
    NoRoots,
    /// The path changed between its check and its opening.
    #[error("`{}` changed while it was being opened", path.display())]
    Changed {
        /// Its real path.
        path: PathBuf,
    },
    /// A directory where a file was asked for.
    #[error("`{}` is a directory, not a file", path.display())]
    IsDirectory {
        /// Its real path.
        path: PathBuf,
    },
    /// Something that is not a regular file (a socket, a device, a pipe).
    #[error("`{}` is {what}, not a regular file", path.display())]
    NotRegular {
        /// Its real path.
        path: PathBuf,
        /// What it is, with its article ("a socket").
        what: &'static str,
    },
    /// A glob the walk cannot take.
    #[error("invalid glob `{glob}`: {why}")]
    Glob {
        /// The glob as given.
        glob: String,
        /// What the glob parser said.
        why: String,
    },
    /// The globs together cannot be built.
    #[error("invalid globs: {0}")]
    Globs(String),
    /// Any other failure of the operating system.
    #[error("`{}`: {source}", path.display())]
    Io {
        /// The path it was about.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
}

/// A walk's result.
pub type Result<T, E = WalkError> = std::result::Result<T, E>;
