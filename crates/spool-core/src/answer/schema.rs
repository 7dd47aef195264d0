//! The JSON Schemas of the answers, derived from the types that are serialized to make them.
//!
//! A hand-written schema drifted from what was sent: `search` with `count: true` broke its own
//! `outputSchema`, and the Python SDK, which validates structured content against it, refused
//! the answer, so the model received nothing (issue 57). Here each schema comes from the answer
//! types by schemars, which reads their serde attributes (renames, skipped and optional fields),
//! through the same wrapper types the structured forms are written with (`notice` first, the
//! content last). The schemas are kept in `docs/schemas/answers.json` by a check/write test, and
//! every answer the MCP tests produce is validated against its tool's.
//!
//! Descriptions are left out: the doc comments are written for the code's readers, and the
//! contract (docs/CONTRACT.md) says what each field means. One schema of the nine tools is
//! about 9 KB.

use schemars::Schema;
use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value, json};

use crate::error::ErrorAnswer;
use crate::items::ItemPage;
use crate::listing::Entry;
use crate::page::Page;
use crate::search::SearchAnswer;
use crate::store::ArtifactSummary;
use crate::structured::{EnvelopeAnswer, Noticed};

/// The kinds of answer a tool gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerKind {
    /// A window of an artifact.
    Envelope,
    /// A page of a stored list of items (`read` of a JSON array).
    Items,
    /// A search.
    Search,
    /// A page of a directory's entries.
    Entries,
    /// A page of stored artifacts.
    Artifacts,
}

/// The schema of an answer of any of `kinds`, or of the contract's error object, with the
/// definitions they share. Its root is an object, as MCP asks of an `outputSchema`.
pub fn output_schema(kinds: &[AnswerKind]) -> Value {
    let mut generator = generator();
    let mut any_of: Vec<Value> = kinds
        .iter()
        .map(|k| match k {
            AnswerKind::Envelope => generator.subschema_for::<EnvelopeAnswer<'static>>(),
            AnswerKind::Items => generator.subschema_for::<Noticed<ItemPage>>(),
            AnswerKind::Search => generator.subschema_for::<Noticed<SearchAnswer>>(),
            AnswerKind::Entries => generator.subschema_for::<Noticed<Page<Entry>>>(),
            AnswerKind::Artifacts => generator.subschema_for::<Noticed<Page<ArtifactSummary>>>(),
        })
        .map(Schema::to_value)
        .collect();
    any_of.push(generator.subschema_for::<ErrorAnswer>().to_value());
    let mut definitions = generator.take_definitions(true);
    definitions.sort_keys();
    json!({
        "type": "object",
        "anyOf": any_of,
        "$defs": definitions,
    })
}

/// Draft 2020-12, describing what is serialized, every schema compacted by [`compact`].
fn generator() -> SchemaGenerator {
    let mut settings = SchemaSettings::draft2020_12().for_serialize();
    settings.meta_schema = None;
    settings
        .transforms
        .push(Box::new(schemars::transform::RecursiveTransform(compact)));
    settings.into_generator()
}

/// Leaves out what only a reader of the code needs (descriptions, titles, integer formats),
/// and writes a choice of constants (an enum whose variants carry doc comments) as an `enum`.
fn compact(schema: &mut Schema) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    for key in ["description", "title", "format"] {
        object.remove(key);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(constants) = object.get(key).and_then(constants_of) {
            object.remove(key);
            object.insert("type".into(), json!("string"));
            object.insert("enum".into(), Value::Array(constants));
        }
    }
}

/// The values of a list of string choices (`{"type": "string", "const": ..}`, or an `enum` of
/// the variants without doc comments), when it is only that.
fn constants_of(choices: &Value) -> Option<Vec<Value>> {
    let mut out = Vec::new();
    for c in choices.as_array()? {
        let c = c.as_object()?;
        if c.get("type") != Some(&json!("string"))
            || !c
                .keys()
                .all(|k| matches!(k.as_str(), "const" | "enum" | "type" | "description"))
        {
            return None;
        }
        match (c.get("const"), c.get("enum")) {
            (Some(v @ Value::String(_)), None) => out.push(v.clone()),
            (None, Some(Value::Array(values))) => out.extend(values.iter().cloned()),
            _ => return None,
        }
    }
    Some(out)
}

/// Every answer's schema by name, sharing one `$defs`, as `docs/schemas/answers.json` keeps
/// them (a tool's `outputSchema` is the answers it gives and the error, with their `$defs`).
pub fn all() -> Map<String, Value> {
    let mut generator = generator();
    let mut out = Map::new();
    for (name, schema) in [
        (
            "envelope",
            generator.subschema_for::<EnvelopeAnswer<'static>>(),
        ),
        ("items", generator.subschema_for::<Noticed<ItemPage>>()),
        ("search", generator.subschema_for::<Noticed<SearchAnswer>>()),
        ("entries", generator.subschema_for::<Noticed<Page<Entry>>>()),
        (
            "artifacts",
            generator.subschema_for::<Noticed<Page<ArtifactSummary>>>(),
        ),
        ("error", generator.subschema_for::<ErrorAnswer>()),
    ] {
        out.insert(name.into(), schema.to_value());
    }
    let mut definitions = generator.take_definitions(true);
    definitions.sort_keys();
    out.insert("$defs".into(), Value::Object(definitions));
    out
}
