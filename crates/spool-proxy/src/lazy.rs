//! The lazy tool surface: each upstream tool as its name and one line, and `describe_tool` for
//! the full description and schema, so many servers' tools do not fill the context up front.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde_json::{Value, json};

pub const DESCRIBE_TOOL: &str = "describe_tool";

/// The longest one-line description shown.
const LINE: usize = 160;

fn object(v: &Value) -> Arc<rmcp::model::JsonObject> {
    Arc::new(v.as_object().cloned().unwrap_or_default())
}

/// The tool in short: its first line and an open input schema.
pub fn short(full: &Tool) -> Tool {
    let mut t = full.clone();
    let first = full
        .description
        .as_deref()
        .and_then(|d| d.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("")
        .trim();
    let line: String = if first.chars().count() > LINE {
        let cut: String = first.chars().take(LINE).collect();
        format!("{cut}...")
    } else {
        first.to_owned()
    };
    t.description = Some(
        format!(
            "{line} [arguments: call {DESCRIBE_TOOL} name={}]",
            full.name
        )
        .into(),
    );
    t.input_schema = object(&json!({ "type": "object", "additionalProperties": true }));
    t.output_schema = None;
    t
}

/// The `describe_tool` tool.
pub fn describe_tool() -> Tool {
    let mut t = Tool::new(
        DESCRIBE_TOOL,
        "The full description, input schema and output schema of a tool listed in short form. \
         Call it once before the first call of a tool whose arguments you do not know.",
        object(&json!({
            "type": "object",
            "properties": { "name": { "type": "string", "description": "the tool's name as listed" } },
            "required": ["name"],
            "additionalProperties": false
        })),
    );
    t.annotations = Some(
        rmcp::model::ToolAnnotations::new()
            .read_only(true)
            .open_world(false),
    );
    t
}

/// The answer of `describe_tool`.
pub fn describe(name: &str, tool: Option<&Tool>) -> CallToolResult {
    let Some(tool) = tool else {
        let err = spool_core::Error::InvalidArgument {
            message: format!("no tool `{name}` is listed").into(),
            hint: Some("pass a name exactly as `tools/list` shows it".into()),
        };
        let mut r = CallToolResult::error(vec![ContentBlock::text(
            spool_core::render::error_text(&err, spool_core::render::Dialect::Mcp),
        )]);
        r.structured_content =
            serde_json::to_value(err.to_wire(spool_core::render::Dialect::Mcp)).ok();
        return r;
    };
    let v = serde_json::to_value(tool).unwrap_or(Value::Null);
    let mut r = CallToolResult::success(vec![ContentBlock::text(
        serde_json::to_string_pretty(&v).unwrap_or_default(),
    )]);
    r.structured_content = Some(v);
    r
}
