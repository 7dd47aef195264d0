//! Output schemas and tool `_meta`, built by hand: each admits the tool's answer and the
//! contract's error object. The codes they list (errors, reasons, units) come from the core's
//! enums, the one list of each.

use std::sync::Arc;

use rmcp::model::{JsonObject, MetaObject};
use serde_json::{Value, json};
use spool_core::ErrorCode;
use spool_core::envelope::{ReasonCode, Unit};

pub const MAX_RESULT_SIZE_CHARS: u64 = 200_000;

fn error_shape() -> Value {
    json!({
        "type": "object",
        "properties": {
            "error": {
                "type": "object",
                "properties": {
                    "code": { "type": "string", "enum": ErrorCode::ALL.map(ErrorCode::as_str) },
                    "message": { "type": "string" },
                    "hint": { "type": "string" },
                    "source": { "type": "object" }
                },
                "required": ["code", "message"]
            }
        },
        "required": ["error"]
    })
}

/// The error object every tool may answer, as a schema.
pub fn error_schema() -> Value {
    error_shape()
}

fn one_of(answer: &Value) -> Arc<JsonObject> {
    let schema = json!({ "type": "object", "oneOf": [answer, error_shape()] });
    Arc::new(schema.as_object().cloned().unwrap_or_default())
}

/// The output schema of a tool whose answers are `output`.
pub fn output(output: spool_toolset::Output) -> Arc<JsonObject> {
    match output {
        spool_toolset::Output::Envelope => envelope(),
        spool_toolset::Output::Search => search(),
        spool_toolset::Output::Page => page(),
        spool_toolset::Output::Map => map(),
    }
}

/// The envelope, `content` included.
pub fn envelope() -> Arc<JsonObject> {
    one_of(&envelope_shape())
}

/// A map's answer: the envelope and its `scope`.
pub fn map() -> Arc<JsonObject> {
    let mut shape = envelope_shape();
    shape["properties"]["scope"] = json!({
        "type": "object",
        "description": "the tree and its version, the files counted, mapped and skipped by why, the definitions found and listed, and which files (by their place in the map) this page shows",
        "properties": {
            "root": { "type": "string" },
            "version": { "type": "object" },
            "files_counted": { "type": "integer" },
            "files_mapped": { "type": "integer" },
            "files_skipped": { "type": "object" },
            "definitions": { "type": "integer" },
            "definitions_listed": { "type": "integer" },
            "files_shown": {
                "type": "object",
                "properties": { "start": { "type": "integer" }, "end": { "type": "integer" } }
            }
        },
        "required": ["root", "version", "files_counted", "files_mapped", "files_skipped", "files_shown"]
    });
    one_of(&shape)
}

/// The envelope's own schema; a page of items adds the page's fields to it.
pub fn envelope_shape() -> Value {
    json!({
        "type": "object",
        "properties": {
            "notice": { "type": "string", "description": "the banner: what was shown of how much, why, and the calls for the rest" },
            "ref": { "type": "string", "description": "the stored artifact; pass it to read and search" },
            "source": {
                "type": "object",
                "properties": {
                    "kind": { "type": "string" },
                    "desc": { "type": "string" },
                    "version": { "type": "object" }
                },
                "required": ["kind", "desc", "version"]
            },
            "shown": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "unit": { "type": "string", "enum": Unit::ALL.map(Unit::as_str) },
                        "start": { "type": "integer" },
                        "end": { "type": "integer" }
                    },
                    "required": ["unit", "start", "end"]
                }
            },
            "total": {
                "type": "object",
                "properties": {
                    "lines": { "type": "integer" },
                    "chars": { "type": "integer" },
                    "bytes": { "type": "integer" },
                    "tokens": { "type": "integer" },
                    "tokens_estimated": { "type": "boolean" },
                    "items": { "type": "integer" }
                }
            },
            "complete": { "type": "boolean" },
            "reason": {
                "type": "object",
                "properties": {
                    "code": { "type": "string", "enum": ReasonCode::ALL.map(ReasonCode::as_str) },
                    "detail": { "type": "string" }
                },
                "required": ["code", "detail"]
            },
            "next": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": { "tool": { "type": "string" }, "arguments": { "type": "object" } },
                    "required": ["tool", "arguments"]
                }
            },
            "capture": { "type": "object" },
            "notes": { "type": "array", "items": { "type": "string" } },
            "found": {
                "type": "object",
                "description": "what a read or fetch given `query` or `pattern` found in the whole artifact: every passage (or line) counted, the best with their lines and whether shown here",
                "properties": {
                    "query": { "type": "string" },
                    "pattern": { "type": "string" },
                    "hit_count": { "type": "integer" },
                    "best": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "start_line": { "type": "integer" },
                                "end_line": { "type": "integer" },
                                "score": { "type": "number" },
                                "shown": { "type": "boolean" }
                            },
                            "required": ["start_line", "end_line", "shown"]
                        }
                    }
                },
                "required": ["hit_count", "best"]
            },
            "content": { "type": "string", "description": "the text of the shown ranges, a gap marker line between two" },
            "items": { "type": "array", "description": "a page of a list: the items shown" },
            "next_cursor": { "type": ["string", "null"], "description": "a page of a list: pass to read with the same ref for the next page" },
            "has_more": { "type": "boolean" },
            "page_size": { "type": "integer" },
            "max_page_size": { "type": "integer" }
        },
        "required": ["notice", "ref", "source", "shown", "total", "complete", "next"]
    })
}

/// The search answer.
pub fn search() -> Arc<JsonObject> {
    one_of(&json!({
        "type": "object",
        "properties": {
            "notice": { "type": "string", "description": "the count, the query, where it looked, how to go on" },
            "query": { "type": "object" },
            "scope": { "type": "object" },
            "hits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "path": { "type": "string" },
                        "line": { "type": "integer" },
                        "byte_offset": { "type": "integer" },
                        "text": { "type": "string" }
                    },
                    "required": ["line", "text"]
                }
            },
            "hit_count": { "type": "integer" },
            "hit_count_exact": { "type": "boolean" },
            "truncated": { "type": "boolean" },
            "next_cursor": { "type": ["string", "null"] },
            "ref": { "type": ["string", "null"] },
            "reason": { "type": "object" },
            "page_reason": { "type": "object" },
            "next": { "type": "array", "items": { "type": "object" } },
            "windowed_lines": { "type": "integer", "description": "lines longer than 4 MiB, searched in overlapping windows" },
            "files": {
                "type": "array",
                "description": "hits per file (`count`), a page of them in path order: then there are no `hits`",
                "items": {
                    "type": "object",
                    "properties": { "path": { "type": "string" }, "hits": { "type": "integer" } },
                    "required": ["path", "hits"]
                }
            },
            "files_with_hits": { "type": "integer", "description": "how many files hold a hit, all of them (`count`)" },
            "first_file_index": { "type": "integer", "description": "how many files came before this page (`count`)" }
        },
        "required": ["notice", "query", "scope", "hit_count", "hit_count_exact", "truncated", "next_cursor"],
        // The hits, or (`count`) the files with how many each holds. Regression (issue 57):
        // `hits` was required, count mode sends `files`, and the Python SDK refused the answer.
        "anyOf": [{ "required": ["hits"] }, { "required": ["files", "files_with_hits"] }]
    }))
}

/// A page of a list.
pub fn page() -> Arc<JsonObject> {
    one_of(&json!({
        "type": "object",
        "properties": {
            "notice": { "type": "string", "description": "how many are shown, of how many, and the call for the next page" },
            "items": { "type": "array", "items": { "type": "object" } },
            "next_cursor": { "type": ["string", "null"] },
            "has_more": { "type": "boolean" },
            "page_size": { "type": "integer" },
            "max_page_size": { "type": "integer" },
            "total": { "type": "integer" },
            "skipped": { "type": "object" },
            "next": { "type": "array", "items": { "type": "object" } },
            "reason": { "type": "object" }
        },
        "required": ["notice", "items", "next_cursor", "has_more", "page_size", "max_page_size"]
    }))
}

/// `_meta` of every tool: hosts that cut tool results by chars (Claude Code) are told the most
/// one answer takes, so they never cut one that spool has already fitted.
pub fn tool_meta(result_chars: u64) -> MetaObject {
    let mut m = MetaObject::new();
    m.insert(
        "anthropic/maxResultSizeChars".to_owned(),
        json!(result_chars),
    );
    m
}
