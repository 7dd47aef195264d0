//! Turns core answers into MCP tool results.
//!
//! Hosts forward one part of a result to the model: Claude Code, Codex and others the
//! structured content alone, text-only hosts the text blocks alone (CONTRACT.md, "What the model
//! receives"). So each part carries everything: the text blocks are the banner, then one block
//! per shown range (the gap marker a block of its own); the structured content is the whole
//! answer, `notice` first and the content last. With structured content off (a host that
//! forwards both parts), only the text blocks are sent.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Value, json};
use spool_core::envelope::Envelope;
use spool_core::items::ItemPage;
use spool_core::listing::Entry;
use spool_core::page::Page;
use spool_core::render::{self, Dialect};
use spool_core::search::SearchAnswer;
use spool_core::{Error, Store, audit, wire};

/// What a tool answered, before it becomes a tool result.
pub enum Answer {
    Envelope(Box<Envelope>),
    Search(Box<SearchAnswer>),
    /// A page of a directory listing, and the directory as the caller named it.
    List(Box<Page<Entry>>, String),
    /// A page of stored artifacts.
    Artifacts(Box<Page<Value>>),
    /// A page of a list of items (an upstream JSON array).
    Items(Box<ItemPage>),
}

/// Which parts a result carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parts {
    /// Text blocks and structured content, each complete on its own.
    Both,
    /// Text blocks only (`--structured off`).
    TextOnly,
}

impl Parts {
    pub fn from_structured(on: bool) -> Self {
        if on { Self::Both } else { Self::TextOnly }
    }
}

impl Answer {
    /// Records the answer in the audit (never failing the answer) and converts it.
    pub fn into_result(
        self,
        store: &Store,
        tool: &str,
        arguments: &Value,
        duration_ms: u64,
        parts: Parts,
    ) -> CallToolResult {
        let recorded = match &self {
            Answer::Envelope(e) => audit::record_envelope(store, tool, arguments, e, duration_ms),
            Answer::Items(p) => {
                audit::record_envelope(store, tool, arguments, &p.envelope, duration_ms)
            }
            Answer::Search(a) => audit::record_search(store, tool, arguments, a, duration_ms),
            Answer::List(p, _) => record_page(store, tool, arguments, p, duration_ms),
            Answer::Artifacts(p) => record_page(store, tool, arguments, p, duration_ms),
        };
        if let Err(e) = recorded {
            tracing::warn!(error = %e, "could not record the answer in the audit");
        }
        match self {
            Answer::Envelope(e) => envelope_result(&e, parts),
            Answer::Items(p) => items_result(&p, parts),
            Answer::Search(a) => with_parts(
                vec![spool_core::search::render_answer(&a, Dialect::Mcp)],
                || spool_core::search::structured(&a, Dialect::Mcp),
                parts,
            ),
            Answer::List(p, dir) => with_parts(
                vec![render::entries_text(&p, &dir, Dialect::Mcp)],
                || spool_core::page::structured(&p, render::entries_notice(&p, &dir, Dialect::Mcp)),
                parts,
            ),
            Answer::Artifacts(p) => with_parts(
                vec![render::artifacts_text(&p, Dialect::Mcp)],
                || spool_core::page::structured(&p, render::artifacts_notice(&p, Dialect::Mcp)),
                parts,
            ),
        }
    }
}

fn record_page<T>(
    store: &Store,
    tool: &str,
    arguments: &Value,
    page: &Page<T>,
    duration_ms: u64,
) -> spool_core::Result<()> {
    audit::record_other(
        store,
        tool,
        arguments,
        &json!({ "items": page.items.len() }),
        !page.has_more,
        duration_ms,
    )
}

/// A successful result of these text blocks, and the structured content when it is sent.
fn with_parts(
    texts: Vec<String>,
    structured: impl FnOnce() -> Value,
    parts: Parts,
) -> CallToolResult {
    let mut r = CallToolResult::success(texts.into_iter().map(ContentBlock::text).collect());
    if parts == Parts::Both {
        r.structured_content = Some(structured());
    }
    r
}

/// The text blocks of an envelope: the banner, then each shown range and gap marker.
fn envelope_blocks(e: &Envelope) -> Vec<String> {
    let mut blocks = vec![render::banner(e, Dialect::Mcp)];
    blocks.extend(e.pieces.iter().filter(|p| !p.is_empty()).cloned());
    blocks
}

/// The envelope as a tool result.
pub fn envelope_result(e: &Envelope, parts: Parts) -> CallToolResult {
    with_parts(
        envelope_blocks(e),
        || wire::envelope(e, Dialect::Mcp),
        parts,
    )
}

/// A page of items as a tool result: the banner, then the items one per line; structured, the
/// page with its items (their text lines are not sent twice).
pub fn items_result(p: &ItemPage, parts: Parts) -> CallToolResult {
    with_parts(
        envelope_blocks(&p.envelope),
        || spool_core::items::structured(p, Dialect::Mcp),
        parts,
    )
}

/// An error as a tool result marked `isError`, its text ending with what to do.
pub fn error_result(
    store: &Store,
    tool: &str,
    arguments: &Value,
    err: &Error,
    duration_ms: u64,
    parts: Parts,
) -> CallToolResult {
    if let Err(e) = audit::record_error(store, tool, arguments, err, duration_ms) {
        tracing::warn!(error = %e, "could not record the answer in the audit");
    }
    let mut r = CallToolResult::error(vec![ContentBlock::text(render::error_text(err))]);
    if parts == Parts::Both {
        r.structured_content = serde_json::to_value(err.to_wire()).ok();
    }
    r
}
