//! Layer 3, storage: the store that keeps every output whole, once, with its version; who may
//! read an artifact (`access`); the audit's rows as the store ships them (`audit_rows`). It uses the
//! model and the base, never the renderer or the engines (a test holds it to that).

pub mod access;
pub(crate) mod audit_rows;
pub mod store;
