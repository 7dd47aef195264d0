//! Turns core answers into MCP tool results.
//!
//! Hosts forward one part of a result to the model: Claude Code, Codex and others the
//! structured content alone, text-only hosts the text blocks alone (CONTRACT.md, "What the model
//! receives"). So each part carries everything: the text blocks are the banner, then one block
//! per shown range (the gap marker a block of its own); the structured content is the whole
//! answer, `notice` first and the content last. With structured content off (a host that
//! forwards both parts), only the text blocks are sent.

use rmcp::model::{CallToolResult, ContentBlock};
use spool_core::Error;
use spool_core::answer::{Answer, Rendered, rendered};
use spool_core::envelope::Envelope;
use spool_core::items::ItemPage;
use spool_core::render::{self, Dialect};

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

/// An answer as a tool result (it was audited when it was made: `spool_core::answer`).
pub fn into_result(answer: &Answer, parts: Parts) -> CallToolResult {
    match spool_core::answer::rendered(answer, Dialect::Mcp) {
        Some(r) => sent(r, parts),
        // Answers of the CLI alone; a server never makes them, and would not send one as if it
        // were a tool's answer.
        None => CallToolResult::error(vec![ContentBlock::text(
            "[ERROR internal: this answer is the CLI's alone]",
        )]),
    }
}

/// A successful result of the text blocks, and the structured content when it is sent.
fn sent(rendered: Rendered, parts: Parts) -> CallToolResult {
    let mut r = CallToolResult::success(
        rendered
            .blocks
            .into_iter()
            .map(ContentBlock::text)
            .collect(),
    );
    if parts == Parts::Both {
        r.structured_content = Some(rendered.structured);
    }
    r
}

/// The envelope as a tool result.
pub fn envelope_result(e: &Envelope, parts: Parts) -> CallToolResult {
    sent(rendered::envelope(e, Dialect::Mcp), parts)
}

/// A page of items as a tool result: the banner, then the items one per line; structured, the
/// page with its items (their text lines are not sent twice).
pub fn items_result(p: &ItemPage, parts: Parts) -> CallToolResult {
    sent(rendered::items(p, Dialect::Mcp), parts)
}

/// An error as a tool result marked `isError`, its text ending with what to do.
pub fn error_result(err: &Error, parts: Parts) -> CallToolResult {
    let mut r = CallToolResult::error(vec![ContentBlock::text(render::error_text(
        err,
        Dialect::Mcp,
    ))]);
    if parts == Parts::Both {
        r.structured_content = serde_json::to_value(err.to_wire(Dialect::Mcp)).ok();
    }
    r
}
