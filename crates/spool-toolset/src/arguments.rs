//! A tool's arguments read from the JSON a caller sent. A misfit is an `invalid_argument` the
//! model can correct, said the way its front end says it: over MCP against the input schema the
//! host lists (`` `line` must be an integer (got the string "97") ``), in the library by the
//! path serde names (`` `read`: `line`: invalid type ... ``).

use serde::de::DeserializeOwned;
use serde_json::Value;
use spool_core::{Error, Result};

use crate::misfit::{self, JsonObject};

/// How a misfit is said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wording {
    /// By the path serde names (the library's words).
    ByPath,
    /// Against the input schema the tool lists (MCP's words, SEP-1303).
    BySchema,
}

/// Parses `args` (a JSON object, or null for none) as the arguments of `tool`, whose input
/// schema is `schema`.
pub fn parse<P: DeserializeOwned>(
    tool: &str,
    args: &Value,
    wording: Wording,
    schema: &JsonObject,
) -> Result<P> {
    // Read where they are: each string is copied once, into the parameters (two clones of
    // the whole made a 60 MB `stdin` cost 120 MB more, issue 58).
    let empty = Value::Object(serde_json::Map::new());
    let args = if args.is_null() { &empty } else { args };
    serde_path_to_error::deserialize(args).map_err(|e| {
        let said = e.inner().to_string();
        match wording {
            Wording::BySchema => {
                let named = args.as_object().and_then(|a| misfit::misfit(schema, a));
                misfit::invalid(tool, &named.unwrap_or(said), None)
            }
            Wording::ByPath => {
                // The argument it is about, when serde knows it (an unknown one is named in
                // the text).
                let path = format!("`{}`", e.path());
                let at = if path == "`.`" || said.contains(&path) {
                    String::new()
                } else {
                    format!("{path}: ")
                };
                Error::invalid(
                    format!("`{tool}`: {at}{said}"),
                    Some(format!("fix that argument and call `{tool}` again")),
                )
            }
        }
    })
}

/// The error for a tool that does not exist, naming those that do.
pub fn unknown(tool: &str, known: &[&str]) -> Error {
    Error::invalid(
        format!("there is no tool `{tool}`"),
        Some(format!("the tools are {}", known.join(", "))),
    )
}
