//! Layer 5, the engines: what the tools do, on the store and the file tree. Windows of an
//! artifact (`window`), pages of items and lists (`items`, `page`, `listing`, `list_text`),
//! search over all of it (`search`), jq in its box (`query`, `jq_box`), commands run and
//! captured (`exec`), files snapshotted (`files`), one stream of a capture (`streams`), which
//! way a log's times run (`time_order`), and the audit of what was delivered (`audit`).

pub mod audit;
pub mod exec;
pub mod files;
pub mod items;
pub mod jq_box;
pub mod list_text;
pub mod listing;
pub mod page;
pub mod query;
pub mod search;
pub mod streams;
pub mod time_order;
pub mod window;
