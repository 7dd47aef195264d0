//! The fake upstream's tools, as `tools/list` describes them.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use serde_json::{Value, json};

fn schema(v: &Value) -> Arc<JsonObject> {
    Arc::new(v.as_object().cloned().unwrap_or_default())
}

fn int_arg(name: &str) -> Arc<JsonObject> {
    schema(&json!({
        "type": "object",
        "properties": { name: { "type": "integer" } }
    }))
}

pub(super) fn tools() -> Vec<Tool> {
    let none = schema(&json!({ "type": "object" }));
    let mut query = Tool::new(
        "query_rows",
        "Rows as structured content: { rows, count }.",
        int_arg("n"),
    );
    query.output_schema = Some(schema(&json!({
        "type": "object",
        "properties": { "rows": { "type": "array" }, "count": { "type": "integer" } },
        "required": ["rows", "count"]
    })));
    vec![
        Tool::new(
            "echo",
            "Answers with the text it is given.",
            schema(
                &json!({ "type": "object", "properties": { "text": { "type": "string" } }, "required": ["text"] }),
            ),
        ),
        Tool::new(
            "big_text",
            "Answers with `lines` numbered lines of text.\nSecond line of the description.",
            int_arg("lines"),
        ),
        Tool::new(
            "tail_logs",
            "A log of `lines` lines, ending in a fatal error.",
            int_arg("lines"),
        ),
        Tool::new("list_rows", "Rows as a JSON array in text.", int_arg("n")),
        query,
        Tool::new(
            "blob",
            "An embedded binary resource of `bytes` bytes.",
            int_arg("bytes"),
        ),
        Tool::new(
            "image",
            "A PNG image of about `bytes` bytes and a caption.",
            int_arg("bytes"),
        ),
        Tool::new("fail", "A tool error.", none.clone()),
        Tool::new(
            "fail_long",
            "A tool error of `lines` lines of trace, its cause on the last.",
            int_arg("lines"),
        ),
        Tool::new("reject", "A JSON-RPC error.", none.clone()),
        Tool::new(
            "slow",
            "Reports progress for `steps` steps of 100 ms.",
            int_arg("steps"),
        ),
        Tool::new("crash", "Exits the server mid-call.", none.clone()),
        Tool::new("hang", "Never answers.", none.clone()),
        Tool::new("pid", "The server's process id.", none.clone()),
        Tool::new(
            "mixed",
            "A one-line text beside `n` rows of structured content.",
            int_arg("n"),
        ),
        Tool::new(
            "doc_with_tags",
            "An object with a 200 KB body and a list of two tags.",
            none.clone(),
        ),
        Tool::new(
            "paged_rows",
            "`n` rows and the upstream's own next cursor.",
            int_arg("n"),
        ),
        Tool::new(
            "paged_list",
            "`per_page` of `n` rows from `cursor` (or `page`, or `offset`), saying more exist in \
             the convention `style` names: mcp (nextCursor, hasMore), snake (next_cursor, \
             has_more), token (nextPageToken, by pageToken), links (links.next), github \
             (total_count, incomplete_results; by page), truncated, total (by offset).",
            schema(&json!({
                "type": "object",
                "properties": {
                    "n": { "type": "integer" },
                    "per_page": { "type": "integer", "default": 10 },
                    "style": { "type": "string" },
                    "cursor": { "type": "string" },
                    "pageToken": { "type": "string" },
                    "page": { "type": "integer", "minimum": 1, "default": 1 },
                    "offset": { "type": "integer", "minimum": 0, "default": 0 }
                }
            })),
        ),
        Tool::new(
            "blob_and_text",
            "A small embedded blob beside a large text.",
            none.clone(),
        ),
        Tool::new(
            "wrapped_text",
            "`lines` lines as text, and as structured content { content } (as server-filesystem does).",
            int_arg("lines"),
        ),
        Tool::new(
            "fake_read",
            "A tool named like a prefixed `read`.",
            none.clone(),
        ),
        Tool::new("read", "A tool whose name spool also uses.", none.clone()),
        Tool::new(
            "huge_text",
            "One text block of at least `bytes` bytes of numbered lines.",
            int_arg("bytes"),
        ),
        Tool::new(
            "huge_image",
            "A PNG image of `bytes` bytes.",
            int_arg("bytes"),
        ),
        Tool::new(
            "db_rows",
            "`n` rows nested as @bytebase/dbhub nests them: data.statements[0].rows.",
            int_arg("n"),
        ),
        Tool::new(
            "py_list",
            "`n` rows as the Python SDK sends a returned list: a text block per row beside { result }.",
            int_arg("n"),
        ),
        Tool::new(
            "ask_sampling",
            "Asks its client to sample a message (sampling/createMessage) and answers with the reply.",
            none.clone(),
        ),
        Tool::new(
            "ask_elicitation",
            "Asks its client for the user's name (elicitation/create) and answers with the reply.",
            none.clone(),
        ),
        Tool::new(
            "ask_roots",
            "Asks its client for its roots (roots/list) and answers with them.",
            none.clone(),
        ),
        Tool::new(
            "git_log",
            "`n` commits, newest first, as mcp-server-git's git_log writes them.",
            int_arg("n"),
        ),
    ]
}
