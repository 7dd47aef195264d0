//! Integration tests of spool-core: one binary, one module per area.

mod exec;
mod render;
mod search;
mod store;
mod support;
mod windows;
