//! Integration tests of spool-core: one binary, one module per area.
#![expect(clippy::unwrap_used, reason = "test helpers fail loudly")]

mod claims;
mod escape;
mod exec;
mod found;
mod fuzz;
mod git;
mod integrity;
mod items;
mod jq_bounds;
mod layers;
mod links;
mod long_lines;
mod pages_since;
mod query;
mod ranked;
mod reflink;
mod render;
mod schemas;
mod search;
mod search_parts;
mod staged;
mod store;
mod support;
mod tree;
mod unread;
mod untracked;
mod walker;
mod windows;
mod word_bounds;

// The box a jq program runs in is this test binary started again (`it __spool_box`).
spool_core::box_entry_for_tests!();
