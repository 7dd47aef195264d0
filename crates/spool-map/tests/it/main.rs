//! The map through its answer: built, stored, paged, cached, focused, and refusing what it must.
#![expect(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod bad_input;
mod cache;
mod escape;
mod focus;
mod pages;
mod support;
mod words;
