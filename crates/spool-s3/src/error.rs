//! What can go wrong with the shared store, and how each becomes a contract error.

/// Errors of the shared store. Messages name the bucket and key, never credentials.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum S3Error {
    #[error("the shared store is misconfigured: {message}")]
    Config { message: String },

    #[error("the shared store {endpoint} is unavailable: {cause}")]
    Unavailable { endpoint: String, cause: String },

    #[error("`{key}` was not written: {why}")]
    Conflict { key: String, why: String },

    #[error("`{key}` in the shared store is corrupt: {why}")]
    Corrupt { key: String, why: String },

    #[error("{}", stopped_text(*visible, cause))]
    Stopped {
        /// The bytes other machines can read there, when a `capturing` manifest was stored.
        visible: Option<u64>,
        cause: Box<S3Error>,
    },

    #[error("`{}` has expired in the shared store", .0.reference)]
    Expired(Box<spool_core::store::ArtifactMeta>),

    #[error("cannot read {what}: {cause}")]
    Local { what: String, cause: String },

    #[error(transparent)]
    Core(#[from] spool_core::Error),
}

fn stopped_text(visible: Option<u64>, cause: &S3Error) -> String {
    match visible {
        Some(bytes) => format!(
            "the upload stopped after {} had been stored ({}); there the copy stays `capturing`, never complete",
            spool_core::render::human_bytes(bytes),
            cause.brief()
        ),
        None => format!(
            "the upload stopped before other machines could see any of it ({})",
            cause.brief()
        ),
    }
}

impl S3Error {
    /// The message without the words an enclosing message already says.
    fn brief(&self) -> String {
        match self {
            Self::Unavailable { endpoint, cause } => format!("{endpoint}: {cause}"),
            other => other.to_string(),
        }
    }

    /// The contract's error for an answer.
    pub fn into_core(self) -> spool_core::Error {
        match self {
            Self::Core(e) => e,
            Self::Unavailable { endpoint, cause } => spool_core::Error::Unavailable {
                what: format!("the shared store {endpoint}"),
                cause,
            },
            Self::Corrupt { key, why } => spool_core::Error::Corrupt {
                reference: key,
                expected: "the content the manifest describes".into(),
                actual: why,
            },
            Self::Expired(meta) => spool_core::store::expired_error(&meta),
            Self::Stopped { .. } => spool_core::Error::Unavailable {
                what: "the shared store".into(),
                cause: self.to_string(),
            },
            other => spool_core::Error::InvalidArgument {
                message: other.to_string().into(),
                hint: None,
            },
        }
    }
}
