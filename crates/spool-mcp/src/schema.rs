//! Each tool's output schema, and its `_meta`.
//!
//! The schemas are spool-core's, derived from the answer types (`spool_core::answer::schema`):
//! each admits the tool's answers and the contract's error object. A wrapped upstream's tool
//! keeps its own schema beside spool's envelope (the answer that replaces one too large).

use std::sync::Arc;

use rmcp::model::{JsonObject, MetaObject};
use serde_json::{Value, json};
use spool_core::answer::schema::{AnswerKind, output_schema};
use spool_toolset::Output;

pub const MAX_RESULT_SIZE_CHARS: u64 = 200_000;

/// What a tool whose answers are `output` may answer.
fn kinds(output: Output) -> &'static [AnswerKind] {
    match output {
        Output::Envelope | Output::Map => &[AnswerKind::Envelope],
        Output::Window => &[AnswerKind::Envelope, AnswerKind::Items],
        Output::Search => &[AnswerKind::Search],
        Output::Entries => &[AnswerKind::Entries],
        Output::Artifacts => &[AnswerKind::Artifacts],
    }
}

fn object(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(o) => Arc::new(o),
        _ => Arc::default(),
    }
}

/// The output schema of a tool whose answers are `output`.
pub fn output(output: Output) -> Arc<JsonObject> {
    object(output_schema(kinds(output)))
}

/// A wrapped upstream tool's output schema: its own answer, or spool's envelope (and page of
/// items) that replaces one too large, or the error object. The upstream's definitions move
/// to the root, where its `#/$defs/..` references find them; spool's are named `spool.*`, out of
/// their way.
pub fn wrapped(upstream: &JsonObject) -> Arc<JsonObject> {
    let mut theirs = upstream.clone();
    theirs.remove("$schema");
    let mut defs = serde_json::Map::new();
    let mut legacy = None;
    if let Some(Value::Object(d)) = theirs.remove("$defs") {
        defs.extend(d);
    }
    if let Some(Value::Object(d)) = theirs.remove("definitions") {
        legacy = Some(Value::Object(d));
    }
    let mut ours = output_schema(&[AnswerKind::Envelope, AnswerKind::Items]);
    prefix_refs(&mut ours, "spool.");
    let mut any_of = vec![Value::Object(theirs)];
    if let Some(Value::Array(a)) = ours.get_mut("anyOf").map(Value::take) {
        any_of.extend(a);
    }
    if let Some(Value::Object(d)) = ours.get_mut("$defs").map(Value::take) {
        defs.extend(d);
    }
    let mut schema = json!({ "type": "object", "anyOf": any_of, "$defs": defs });
    if let Some(legacy) = legacy {
        schema["definitions"] = legacy;
    }
    object(schema)
}

/// Names every definition of `schema` with `prefix`, and every reference to one.
fn prefix_refs(schema: &mut Value, prefix: &str) {
    const DEFS: &str = "#/$defs/";
    match schema {
        Value::Object(o) => {
            if let Some(Value::String(r)) = o.get_mut("$ref")
                && let Some(name) = r.strip_prefix(DEFS)
            {
                *r = format!("{DEFS}{prefix}{name}");
            }
            if let Some(Value::Object(defs)) = o.get_mut("$defs") {
                *defs = std::mem::take(defs)
                    .into_iter()
                    .map(|(k, v)| (format!("{prefix}{k}"), v))
                    .collect();
            }
            o.values_mut().for_each(|v| prefix_refs(v, prefix));
        }
        Value::Array(a) => a.iter_mut().for_each(|v| prefix_refs(v, prefix)),
        _ => {}
    }
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
