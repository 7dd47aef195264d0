//! Turns core answers into MCP tool results: the banner first, one text block per shown range,
//! and the structured answer without the text, so nothing is sent twice.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;
use spool_core::envelope::Envelope;
use spool_core::items::ItemPage;
use spool_core::render::{self, Dialect};
use spool_core::search::SearchAnswer;
use spool_core::{Error, Store, audit};

/// What a tool answered, before it becomes a tool result.
pub enum Answer {
    Envelope(Box<Envelope>),
    Search(Box<SearchAnswer>),
    /// A page of a list: its structured form and its text.
    Page(Value, String),
    /// A page of a list of items (an upstream JSON array).
    Items(Box<ItemPage>),
}

impl Answer {
    /// Records the answer in the audit (never failing the answer) and converts it.
    pub fn into_result(
        self,
        store: &Store,
        tool: &str,
        arguments: &Value,
        duration_ms: u64,
    ) -> CallToolResult {
        let recorded = match &self {
            Answer::Envelope(e) => audit::record_envelope(store, tool, arguments, e, duration_ms),
            Answer::Items(p) => {
                audit::record_envelope(store, tool, arguments, &p.envelope, duration_ms)
            }
            Answer::Search(a) => audit::record_search(store, tool, arguments, a, duration_ms),
            Answer::Page(v, _) => {
                let items = v.get("items").and_then(Value::as_array).map_or(0, Vec::len);
                let complete = v.get("has_more").and_then(Value::as_bool) != Some(true);
                audit::record_other(
                    store,
                    tool,
                    arguments,
                    &serde_json::json!({ "items": items }),
                    complete,
                    duration_ms,
                )
            }
        };
        if let Err(e) = recorded {
            tracing::warn!(error = %e, "could not record the answer in the audit");
        }
        match self {
            Answer::Envelope(e) => envelope_result(&e),
            Answer::Items(p) => items_result(&p),
            Answer::Search(a) => {
                let mut r = CallToolResult::success(vec![ContentBlock::text(
                    spool_core::search::render_answer(&a, Dialect::Mcp),
                )]);
                r.structured_content = serde_json::to_value(&*a).ok();
                r
            }
            Answer::Page(v, text) => {
                let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
                r.structured_content = Some(v);
                r
            }
        }
    }
}

/// The envelope as a tool result.
pub fn envelope_result(e: &Envelope) -> CallToolResult {
    let mut blocks = vec![ContentBlock::text(render::banner(e, Dialect::Mcp))];
    blocks.extend(
        e.pieces
            .iter()
            .filter(|p| !p.is_empty())
            .map(|p| ContentBlock::text(p.clone())),
    );
    let mut structured = serde_json::to_value(e).unwrap_or(Value::Null);
    if let Some(obj) = structured.as_object_mut() {
        obj.remove("content");
    }
    let mut r = CallToolResult::success(blocks);
    r.structured_content = Some(structured);
    r
}

/// A page of items as a tool result: the banner, then the items one per line.
pub fn items_result(p: &ItemPage) -> CallToolResult {
    let mut r = envelope_result(&p.envelope);
    r.structured_content = Some(spool_core::items::structured(p));
    r
}

/// An error as a tool result marked `isError`, its text ending with what to do.
pub fn error_result(
    store: &Store,
    tool: &str,
    arguments: &Value,
    err: &Error,
    duration_ms: u64,
) -> CallToolResult {
    if let Err(e) = audit::record_error(store, tool, arguments, err, duration_ms) {
        tracing::warn!(error = %e, "could not record the answer in the audit");
    }
    let mut r = CallToolResult::error(vec![ContentBlock::text(render::error_text(err))]);
    r.structured_content = serde_json::to_value(err.to_wire()).ok();
    r
}
