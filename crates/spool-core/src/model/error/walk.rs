//! A walk's refusal (spool-walk's typed `WalkError`) as the answer a model reads: its code, its
//! words, and where another call works, that call.

use spool_walk::WalkError;

use super::Error;
use crate::calls::{ListParams, Target};
use crate::dialect::Words;
use crate::envelope::NextCall;

/// Linux's limits on a path, and on one name in it (what `TooLong` was measured against).
const PATH_MAX: usize = 4096;
const NAME_MAX: usize = 255;

impl From<WalkError> for Error {
    fn from(e: WalkError) -> Self {
        match e {
            WalkError::NotFound { path } => Self::PathNotFound { path },
            WalkError::Forbidden { path, reason } => Self::Forbidden { path, reason },
            WalkError::Unusable { path, what } => Self::invalid(
                format!("`{}` {what}", path.display()),
                Some("give a path that names an existing file or directory".to_owned()),
            ),
            WalkError::TooLong { len } => Self::invalid(
                format!(
                    "the path is longer than paths may be ({len} bytes; at most {PATH_MAX}, and {NAME_MAX} a name)"
                ),
                Some("give a shorter path".to_owned()),
            ),
            WalkError::RootNotDirectory { path } => Self::invalid(
                format!("root `{}` is not a directory", path.display()),
                Some("give `--root` a directory".to_owned()),
            ),
            WalkError::NoRoots => Self::invalid(
                "no allowed roots",
                Some("give at least one `--root DIR`".to_owned()),
            ),
            WalkError::Changed { path } => Self::invalid(
                format!("`{}` changed while it was being opened", path.display()),
                Some("read it again".to_owned()),
            ),
            WalkError::IsDirectory { path } => {
                let shown = path.display().to_string();
                Self::invalid_words(
                    format!("`{}` is a directory, not a file", path.display()).into(),
                    Words::text("search it with ")
                        .call(NextCall::search_template(Target::path(shown.clone())))
                        .then(", or list it with ")
                        .call(NextCall::List(ListParams::of(shown))),
                )
            }
            WalkError::NotRegular { path, what } => Self::invalid(
                format!(
                    "`{}` is {what}, not a regular file: only regular files are read",
                    path.display()
                ),
                Some("read a regular file".to_owned()),
            ),
            WalkError::Glob { glob, why } => Self::invalid(
                format!("invalid glob `{glob}`: {why}"),
                Some("for example `*.rs` or `!target/**`".to_owned()),
            ),
            WalkError::Globs(why) => Self::invalid(format!("invalid globs: {why}"), None),
            WalkError::Io { path, source } => Self::io(path, source),
            // A refusal a later spool-walk adds says what it is.
            other => Self::Io {
                path: std::path::PathBuf::new(),
                source: std::io::Error::other(other.to_string()),
            },
        }
    }
}
