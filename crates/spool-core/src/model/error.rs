//! The one error type of `spool-core`, and the wire shape every tool returns for it.

use std::path::PathBuf;

use serde::Serialize;

mod walk;

use crate::dialect::{Dialect, Words};
use crate::envelope::NextCall;

/// Result with the crate's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The codes of the contract's error object (`error.code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    NotFound,
    Expired,
    Forbidden,
    InvalidArgument,
    Unavailable,
    Timeout,
    Corrupt,
    Internal,
}

impl ErrorCode {
    /// Every code, in the contract's order: the one list the output schemas, the Python
    /// package's types and the CLI's exit codes are checked against.
    pub const ALL: [Self; 8] = [
        Self::NotFound,
        Self::Expired,
        Self::Forbidden,
        Self::InvalidArgument,
        Self::Unavailable,
        Self::Timeout,
        Self::Corrupt,
        Self::Internal,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotFound => "not_found",
            Self::Expired => "expired",
            Self::Forbidden => "forbidden",
            Self::InvalidArgument => "invalid_argument",
            Self::Unavailable => "unavailable",
            Self::Timeout => "timeout",
            Self::Corrupt => "corrupt",
            Self::Internal => "internal",
        }
    }
}

/// Everything that can go wrong in the core. Each variant carries what its reader needs to act.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("no artifact `{reference}` in this store")]
    NotFound { reference: String },

    #[error("no file or directory at `{}`", path.display())]
    PathNotFound { path: PathBuf },

    #[error("{}", gone_text(reference, what, evicted_at.as_deref()))]
    Expired {
        reference: String,
        /// What the artifact was (source and version, in words).
        what: String,
        /// The call that produces a fresh copy.
        redo: Option<Box<NextCall>>,
        /// When the store's quota evicted it (absent: its time to live ran out).
        evicted_at: Option<String>,
        /// The source and version, for machines.
        source_json: serde_json::Value,
    },

    #[error("`{}` is not readable: {reason}", path.display())]
    Forbidden { path: PathBuf, reason: String },

    /// A fetch that would reach a private, loopback or other special-purpose address.
    #[error("`{url}` is not fetched: {refused}; fetching private networks is off")]
    PrivateAddress { url: String, refused: String },

    #[error(
        "artifact `{reference}` was made by another spool process, which this one does not answer from"
    )]
    NotYours { reference: String },

    #[error("{message}")]
    InvalidArgument { message: Words, hint: Option<Words> },

    #[error("artifact `{reference}` is corrupt: expected {expected}, found {actual}")]
    Corrupt {
        reference: String,
        expected: String,
        actual: String,
    },

    #[error("artifact `{reference}` is still being captured ({bytes} bytes so far)")]
    Capturing { reference: String, bytes: u64 },

    #[error("{what} is unavailable: {cause}")]
    Unavailable { what: String, cause: String },

    #[error("{what} timed out after {seconds} s")]
    Timeout { what: String, seconds: f64 },

    /// A call that could not start: the work it waits for is taken by other calls (of its own
    /// session first). Nothing was done; the same call may be made again.
    #[error("{what} did not start: {why}")]
    Busy {
        what: String,
        why: String,
        retry_after_s: u64,
    },

    /// An upstream MCP server that is down (crashed, unreachable, closed its transport).
    #[error("{what} is unavailable: {cause}")]
    UpstreamUnavailable {
        what: String,
        cause: String,
        hint: String,
    },

    /// An upstream MCP server that did not answer in time.
    #[error("{what} did not answer within {seconds} s")]
    UpstreamTimeout {
        what: String,
        seconds: f64,
        hint: String,
    },

    /// A remote service's refusal or absence (a CI provider's 401, 404, 410, rate limit),
    /// said as the contract's code, with what to check.
    #[error("{message}")]
    Remote {
        code: ErrorCode,
        message: String,
        hint: String,
    },

    #[error("i/o error at `{}`: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("store database error: {0}")]
    Db(#[from] rusqlite::Error),

    #[error("cannot open the store at `{}`: {cause}", path.display())]
    StoreOpen { path: PathBuf, cause: String },

    /// The disk filled while an artifact was sealed: what reached the disk stays.
    #[error("the disk is full: `{reference}` could not be sealed after {bytes} bytes ({cause})")]
    StoreFull {
        reference: String,
        bytes: u64,
        cause: String,
    },
}

impl Error {
    /// Whether this is the disk (or a file size limit) running out.
    pub fn is_disk_full(&self) -> bool {
        const ENOSPC: i32 = 28;
        const EFBIG: i32 = 27;
        const EDQUOT: i32 = 122;
        match self {
            Self::Io { source, .. } => {
                matches!(source.raw_os_error(), Some(ENOSPC | EFBIG | EDQUOT))
                    || source.kind() == std::io::ErrorKind::StorageFull
            }
            Self::Db(e) => e.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull),
            Self::StoreFull { .. } => true,
            _ => false,
        }
    }

    /// An i/o error at `path`; one that carries spool's own (a corrupt artifact found while it
    /// streamed) is that error, so it keeps its code (`corrupt`, not `internal`).
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        match source.downcast::<Self>() {
            Ok(ours) => ours,
            Err(source) => Self::Io {
                path: path.into(),
                source,
            },
        }
    }

    /// No thread could be started for `what` (the system's limit on threads): the call is
    /// answered `unavailable`, and the process goes on.
    pub fn no_thread(what: &str, e: &std::io::Error) -> Self {
        Self::Unavailable {
            what: format!("a thread for {what}"),
            cause: e.to_string(),
        }
    }

    pub fn invalid(message: impl Into<String>, hint: impl Into<Option<String>>) -> Self {
        Self::InvalidArgument {
            message: Words::text(message),
            hint: hint.into().map(Words::text),
        }
    }

    /// An invalid argument whose message and hint name arguments or calls, spelled in the
    /// caller's dialect when rendered.
    pub fn invalid_words(message: Words, hint: Words) -> Self {
        Self::InvalidArgument {
            message,
            hint: Some(hint),
        }
    }

    /// What went wrong, in `dialect`, at most [`MESSAGE_CHARS`] (an echoed argument is cut in
    /// its middle, and the cut says how much).
    pub fn message(&self, dialect: Dialect) -> String {
        let said = match self {
            Self::InvalidArgument { message, .. } => message.spell(dialect),
            Self::Io { .. } | Self::Db(_) if self.is_disk_full() => {
                format!("the disk is full: {self}")
            }
            other => other.to_string(),
        };
        crate::clip::clipped(said, MESSAGE_CHARS)
    }

    /// The contract's code for this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::NotFound { .. } | Self::PathNotFound { .. } => ErrorCode::NotFound,
            Self::Expired { .. } => ErrorCode::Expired,
            Self::Forbidden { .. } | Self::NotYours { .. } | Self::PrivateAddress { .. } => {
                ErrorCode::Forbidden
            }
            Self::InvalidArgument { .. } => ErrorCode::InvalidArgument,
            Self::Corrupt { .. } => ErrorCode::Corrupt,
            Self::Capturing { .. }
            | Self::Unavailable { .. }
            | Self::Busy { .. }
            | Self::StoreOpen { .. }
            | Self::StoreFull { .. }
            | Self::UpstreamUnavailable { .. } => ErrorCode::Unavailable,
            Self::Timeout { .. } | Self::UpstreamTimeout { .. } => ErrorCode::Timeout,
            Self::Remote { code, .. } => *code,
            Self::Io { source, .. } if source.kind() == std::io::ErrorKind::PermissionDenied => {
                ErrorCode::Forbidden
            }
            // The disk, not spool: the operator frees space and the call works again.
            Self::Io { .. } | Self::Db(_) if self.is_disk_full() => ErrorCode::Unavailable,
            Self::Io { .. } | Self::Db(_) => ErrorCode::Internal,
        }
    }

    /// What to do next, as a sentence that names the call that works; at most [`HINT_CHARS`].
    pub fn hint(&self, dialect: Dialect) -> Option<String> {
        if let (Self::PrivateAddress { url, .. }, Dialect::Cli) = (self, dialect) {
            return Some(crate::clip::clipped(
                format!(
                    "to reach it anyway: `spool fetch --allow-private-network {}`",
                    crate::dialect::shell_word(url)
                ),
                HINT_CHARS,
            ));
        }
        self.hint_words()
            .map(|w| crate::clip::clipped(w.spell(dialect), HINT_CHARS))
    }

    fn hint_words(&self) -> Option<Words> {
        match self {
            Self::NotFound { .. } => Some(
                Words::text("list the stored artifacts with ")
                    .call(NextCall::Artifacts(crate::calls::ArtifactsParams::default())),
            ),
            Self::PathNotFound { .. } => Some(Words::text(
                "check the path: it must name an existing file or directory",
            )),
            Self::Expired { redo, .. } => Some(match redo {
                Some(call) => Words::text("produce a fresh copy with ").call((**call).clone()),
                None => "the content is gone; produce it again from its source".into(),
            }),
            Self::InvalidArgument { hint, .. } => hint.clone(),
            Self::UpstreamUnavailable { hint, .. }
            | Self::UpstreamTimeout { hint, .. }
            | Self::Remote { hint, .. } => Some(hint.as_str().into()),
            Self::Corrupt { .. } => {
                Some("the stored copy cannot be trusted; produce it again from its source".into())
            }
            Self::Capturing { reference, .. } => Some(
                Words::text("read it again when the command has finished: ")
                    .call(NextCall::Read(crate::calls::ReadParams::of(
                        crate::calls::Target::reference(reference.as_str()),
                    ))),
            ),
            Self::Busy { retry_after_s, .. } => Some(Words::text(format!(
                "make the same call again in {retry_after_s} s; cancel the calls whose answers you no longer need first"
            ))),
            Self::Forbidden { .. } => Some("read only inside the allowed roots".into()),
            Self::PrivateAddress { .. } => Some(
                "fetch a public address; a server reaches private ones only when started with `--allow-private-network`".into(),
            ),
            Self::NotYours { .. } => Some(
                "make it again through this server (read its file, run its command, fetch its page); a server answers from other processes' artifacts only when started with `--trust`".into(),
            ),
            // An operator's step on the machine, in either dialect.
            Self::StoreFull { reference, .. } => Some(Words::text(format!(
                "free space on the disk, then run `spool gc`: it seals `{reference}` with what reached the disk"
            ))),
            Self::StoreOpen { .. } => Some(
                "set `SPOOL_HOME` to a directory this user can write, e.g. `export SPOOL_HOME=$HOME/.spool`".into(),
            ),
            Self::Io { source, .. } if source.kind() == std::io::ErrorKind::PermissionDenied => {
                Some("check the permissions of the path, or set `SPOOL_HOME` to a writable directory".into())
            }
            Self::Io { .. } | Self::Db(_) if self.is_disk_full() => Some(
                "free space on the disk, then run `spool gc` and call again".into(),
            ),
            _ => None,
        }
    }

    /// The contract's error object: `{ "error": { "code", "message", "hint" } }`, its calls
    /// in `dialect`.
    pub fn to_wire(&self, dialect: Dialect) -> ErrorAnswer {
        let details = match self {
            Self::Expired { source_json, .. } => {
                Some(crate::clip::clipped_json(source_json, SOURCE_CHARS))
            }
            _ => None,
        };
        ErrorAnswer {
            error: ErrorBody {
                code: self.code(),
                message: self.message(dialect),
                hint: self.hint(dialect),
                source: details,
            },
        }
    }
}

/// The most chars of an error's message that are sent: an argument it echoes (a 1 MB pattern,
/// a path, a job name) is cut in its middle (1.2 M chars were sent against a declared 200,000).
/// With [`HINT_CHARS`], an error stays well under the least cap a caller may set.
pub const MESSAGE_CHARS: usize = 1_000;

/// The most chars of an error's hint.
pub const HINT_CHARS: usize = 600;

/// The most chars of each string of a source an error carries.
pub const SOURCE_CHARS: usize = 200;

fn gone_text(reference: &str, what: &str, evicted_at: Option<&str>) -> String {
    match evicted_at {
        Some(at) => format!(
            "artifact `{reference}` is gone: it was evicted at {at}, before its expiry time, to keep the store within its quota; it was {what}"
        ),
        None => format!("artifact `{reference}` has expired: it was {what}"),
    }
}

/// The structured answer of a failed tool call.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ErrorAnswer {
    pub error: ErrorBody,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ErrorBody {
    pub code: ErrorCode,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// For `expired`: what the artifact was (its source and version).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<serde_json::Value>,
}
