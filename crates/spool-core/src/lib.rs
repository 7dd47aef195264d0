//! `spool-core`: the store that keeps every output whole, the windows that show part of it
//! honestly, search over all of it, cursors, envelopes and their rendering.
//!
//! Sync by design: no async runtime, no protocol. The MCP server, the CLI and the Python
//! package call into it.
//!
//! The entry points:
//!
//! - [`Store::open`] opens a store; [`Store::put`] stores an output whole (or
//!   [`Store::create`] streams one in), with its [`Source`] and [`Version`].
//! - [`window::read_window`] answers a [`WindowRequest`] (a preview, lines, chars, bytes)
//!   within a [`Cap`], as an [`Envelope`]: what was shown, of how much, why, and the `next`
//!   calls that read on.
//! - The tools are defined once, in spool-toolset's table; each runs its engine here in an
//!   [`answer::Context`] and answers an [`answer::Answer`]; [`answer::respond`] times and
//!   audits one, and [`answer::rendered`] turns it into the text and the structured form a
//!   model receives.
//! - [`render`] and [`structured`] write an envelope in a caller's [`render::Dialect`] (MCP calls or
//!   CLI syntax).
//!
//! ```
//! use spool_core::envelope::TextVersion;
//! use spool_core::render::{Dialect, banner};
//! use spool_core::store::NewArtifact;
//! use spool_core::window::read_window;
//! use spool_core::{Cap, NextCall, Source, Store, StoreConfig, Version, WindowRequest};
//!
//! # fn main() -> spool_core::Result<()> {
//! # let dir = tempfile::tempdir().map_err(|e| spool_core::Error::Unavailable { what: "a temporary directory".into(), cause: e.to_string() })?;
//! let store = Store::open(dir.path(), StoreConfig::default())?;
//! let output: String = (1..=5000).map(|i| format!("row {i}\n")).collect();
//! let source = Source::new("my_tool q=rows", Version::Text(TextVersion::default()));
//! let meta = store.put(NewArtifact::new(source), output.as_bytes())?;
//!
//! let first = read_window(&store, &meta.reference, WindowRequest::Preview(None), Cap::new(1000))?;
//! assert!(!first.complete);
//! assert_eq!(first.total.lines, Some(5000));
//! // The banner says what was shown, of how much, and the call that reads on.
//! let words = banner(&first, Dialect::Mcp);
//! assert!(words.starts_with("[PARTIAL: lines 1-"));
//! // The call is typed: a read, whose `line` is where the rest begins.
//! let NextCall::Read(call) = &first.next[0] else { panic!("a window reads on") };
//! let line = call.line.unwrap_or(1);
//! let rest = read_window(&store, &meta.reference, WindowRequest::Lines { line, limit: Some(10) }, Cap::new(1000))?;
//! assert_eq!(rest.shown[0].start, line);
//! # Ok(())
//! # }
//! ```

// The layers, lowest first: base, model, storage, rendering, engines, answer. A layer uses only
// the layers before it (a test reads the sources and holds them to it); rustfmt sorts the lines
// below by name. Each module keeps its path at the root (`spool_core::store`).
pub mod answer;
mod base;
mod engines;
mod model;
mod rendering;
mod storage;

pub use base::{clip, clock, numbers, tokens, utf8};
pub use engines::{
    audit, exec, files, items, jq_box, list_text, listing, page, query, search, streams,
    time_order, window,
};
pub use model::{calls, cursor, dialect, envelope, error, in_words, refs};
pub use rendering::{fit, render, structured};
use storage::audit_rows;
pub use storage::{access, store};

pub use envelope::{Envelope, NextCall, Source, SourceKind, Version};
pub use error::{Error, ErrorCode, Result};
pub use fit::Cap;
pub use store::{Store, StoreConfig};
pub use window::{DEFAULT_MAX_TOKENS, Preview, WindowRequest};
