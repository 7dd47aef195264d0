//! `spool-walk`: the file tree as spool reads it, like ripgrep's `ignore` crate is to ripgrep.
//!
//! - [`roots`]: the directories reads stay inside, checked after symlinks are resolved;
//! - [`confined`]: opening below a root without a race (`openat2`, else one component at a time);
//! - [`ignore_rules`]: the ignore rules of a tree, a directory at a time, as ripgrep and git apply them;
//! - [`dir_reader`]: directories read on every core;
//! - [`git`]: the commit and the dirty flag, read from the repository's files (git never runs);
//! - [`left_out`]: what a walk left out, counted by why;
//! - [`walk`]: the files a search or a map reads, in path order, and each opened beneath its root;
//! - [`workers`]: every worker thread spool starts, named, and never a panic when none can be had.
//!
//! It knows nothing of artifacts or answers: its refusals are the typed [`WalkError`], which
//! spool-core turns into the words a model reads. spool-core's searches and spool-map's map walk
//! with it.

pub mod confined;
pub mod dir_reader;
mod error;
pub mod git;
pub mod hex;
pub mod ignore_rules;
pub mod left_out;
pub mod paths;
pub mod roots;
pub mod walk;
pub mod workers;

pub use error::{Result, WalkError};
pub use roots::Roots;
