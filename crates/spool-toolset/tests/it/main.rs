//! Integration tests of the tool table: tools called by name as every front end calls them,
//! their schemas, and the claims of their answers checked against ripgrep and git.
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers fail loudly"
)]

mod by_name;
mod error_words;
mod oracle;
mod support;
mod table;

// The box a jq program runs in is this test binary started again (`it __spool_box`).
spool_core::box_entry_for_tests!();
