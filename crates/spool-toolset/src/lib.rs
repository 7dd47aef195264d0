//! `spool-toolset`: spool's tools, each defined once, and the one dispatch every front end
//! calls.
//!
//! A tool is one file in `tools/` (its arguments, words, hints and handler: [`Tool`]) and one
//! line in the table ([`TOOLS`]). The MCP server lists and dispatches from the table, the proxy
//! offers four of its tools, the CLI answers its commands through it, and the Python package
//! calls it by name: all through a [`ToolSet`], which builds the engines' context once and
//! times and audits every answer. The configuration they share (the store, the settings file,
//! where CI logs come from) is read in [`config`].
#![warn(missing_docs)]

mod arguments;
pub mod config;
mod misfit;
mod put;
mod set;
mod table;
mod tool;
pub mod tools;

pub use arguments::{Wording, parse, unknown};
pub use misfit::{JsonObject, invalid, misfit};
pub use put::PutParams;
pub use set::{CiFrom, Setup, ToolSet};
pub use table::{Entry, TOOLS};
pub use tool::{Call, Control, Hints, OnEnded, Output, Progress, Tool};
