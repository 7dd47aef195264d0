//! `spool-core`: the store that keeps every output whole, the windows that show part of it
//! honestly, search over all of it, cursors, envelopes and their rendering.
//!
//! Sync by design: no async runtime, no protocol. The MCP server and the CLI call into it.

pub mod access;
pub mod answer;
pub mod audit;
mod beneath;
pub mod clock;
pub mod cursor;
pub mod envelope;
pub mod error;
pub mod exec;
pub mod files;
pub mod fit;
pub mod git;
pub mod items;
mod ledger;
pub mod list_text;
pub mod listing;
pub mod order;
pub mod page;
pub mod query;
pub mod refs;
pub mod render;
pub mod roots;
pub mod search;
pub mod spell;
pub mod store;
pub mod streams;
pub mod tokens;
pub mod utf8;
pub mod window;
pub mod wire;
pub mod words;

pub use envelope::{Envelope, NextCall, Source, SourceKind, Version};
pub use error::{Error, ErrorCode, Result};
pub use fit::Cap;
pub use store::{Store, StoreConfig};
pub use window::{DEFAULT_MAX_TOKENS, Preview, WindowRequest};
