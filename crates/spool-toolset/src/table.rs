//! The tool table: one line per tool. Adding a tool is its file in `tools/` and its line here;
//! every front end then lists it, dispatches to it, and audits it.

use serde_json::Value;
use spool_core::Result;
use spool_core::answer::Answer;

use crate::arguments::Wording;
use crate::misfit::JsonObject;
use crate::set::{ToolSet, call_as};
use crate::tool::{Control, Hints, Output, Tool};
use crate::tools::{Artifacts, CiLog, Fetch, List, Map, Query, Read, Run, Search};

/// Every tool, in the order their names are listed in words ("the tools are read, search, ...").
pub static TOOLS: [Entry; 9] = [
    entry::<Read>(),
    entry::<Search>(),
    entry::<Query>(),
    entry::<List>(),
    entry::<Artifacts>(),
    entry::<Run>(),
    entry::<Fetch>(),
    entry::<CiLog>(),
    entry::<Map>(),
];

/// A tool as the table holds it: its words, and its handler behind its arguments' parser.
pub struct Entry {
    /// The name a model calls it by.
    pub name: &'static str,
    /// What a host shows a person.
    pub title: &'static str,
    /// What the model reads about it.
    pub description: &'static str,
    /// What it may do to the world.
    pub hints: Hints,
    /// The shape of its answer.
    pub output: Output,
    /// The arguments' JSON Schema, as MCP lists it (draft 2020-12, without the root's title and
    /// description, which name the Rust type).
    schema: fn() -> JsonObject,
    pub(crate) call: fn(&ToolSet, &Value, Control, Wording, &JsonObject) -> Result<Answer>,
    audit: fn(&Value) -> Option<Value>,
}

impl Entry {
    /// `args` as this tool's audit records them (a fetch's URL without its password); as they
    /// are when they are not this tool's arguments.
    pub fn audited(&self, args: &Value) -> Value {
        (self.audit)(args).unwrap_or_else(|| args.clone())
    }

    /// The arguments' JSON Schema, made now (a tool set makes it once).
    pub fn input_schema(&self) -> JsonObject {
        (self.schema)()
    }
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("name", &self.name)
            .field("title", &self.title)
            .field("description", &self.description)
            .field("hints", &self.hints)
            .field("output", &self.output)
            .finish_non_exhaustive()
    }
}

/// The table's line for `T`.
const fn entry<T: Tool>() -> Entry {
    Entry {
        name: T::NAME,
        title: T::TITLE,
        description: T::DESCRIPTION,
        hints: T::HINTS,
        output: T::OUTPUT,
        schema: input_schema::<T>,
        call: call_as::<T>,
        audit: audited::<T>,
    }
}

/// `args` as `T` records its arguments, when they are `T`'s.
fn audited<T: Tool>(args: &Value) -> Option<Value> {
    let p: T::Params = serde_json::from_value(args.clone()).ok()?;
    Some(T::audited(&p))
}

/// `T`'s arguments as JSON Schema, made as rmcp makes an input schema (its tests compare the
/// two), so a host's tool list does not change with who builds it.
fn input_schema<T: Tool>() -> JsonObject {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T::Params>();
    match serde_json::to_value(schema) {
        Ok(Value::Object(mut object)) => {
            // Removed as rmcp removes them (the last key takes the place of each), so the keys
            // stand in the order hosts have always been shown.
            object.swap_remove("title");
            object.swap_remove("description");
            object
        }
        _ => JsonObject::new(),
    }
}
