//! A tool called by its name with JSON arguments, as a model calls it through a harness that
//! is not an MCP client (the Python package): the arguments are parsed into the tool's typed
//! parameters here, so a bad one is an `invalid_argument` naming it.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Answer;
use super::params::{
    ArtifactsParams, ListParams, PutParams, QueryParams, ReadParams, RunParams, SearchParams,
};
use super::tools::{self, Context};
use crate::envelope::TextVersion;
use crate::error::{Error, Result};
use crate::exec::RunControl;
use crate::store::NewArtifact;
use crate::window::{WindowRequest, read_window};
use crate::{Source, Version};

/// The tools the core answers by name (`fetch` and `ci_log` live in spool-fetch).
pub const CORE_TOOLS: [&str; 6] = ["read", "search", "query", "list", "artifacts", "run"];

/// Parses `args` (a JSON object) as the arguments of `tool`.
pub fn parse<P: DeserializeOwned>(tool: &str, args: &Value) -> Result<P> {
    let args = if args.is_null() {
        Value::Object(serde_json::Map::new())
    } else {
        args.clone()
    };
    serde_path_to_error::deserialize(args).map_err(|e| {
        // The argument it is about, when serde knows it (an unknown one is named in the text).
        let path = format!("`{}`", e.path());
        let said = e.inner().to_string();
        let at = if path == "`.`" || said.contains(&path) {
            String::new()
        } else {
            format!("{path}: ")
        };
        Error::invalid(
            format!("`{tool}`: {at}{said}"),
            Some(format!("fix that argument and call `{tool}` again")),
        )
    })
}

/// Answers `tool` of [`CORE_TOOLS`] called with `args`; `control` stops a running command.
pub fn call(cx: &Context<'_>, tool: &str, args: &Value, control: RunControl) -> Result<Answer> {
    match tool {
        "read" => tools::read(cx, &parse::<ReadParams>(tool, args)?),
        "search" => tools::search(cx, &parse::<SearchParams>(tool, args)?),
        "query" => tools::query_with(
            cx,
            &parse::<QueryParams>(tool, args)?,
            Some(&control.cancel),
        ),
        "list" => tools::list(cx, &parse::<ListParams>(tool, args)?),
        "artifacts" => tools::artifacts(cx, &parse::<ArtifactsParams>(tool, args)?),
        "run" => tools::run(cx, parse::<RunParams>(tool, args)?, control).map(|(a, _)| a),
        other => Err(unknown(other, &CORE_TOOLS)),
    }
}

/// The error for a tool that does not exist, naming those that do.
pub fn unknown(tool: &str, known: &[&str]) -> Error {
    Error::invalid(
        format!("there is no tool `{tool}`"),
        Some(format!("the tools are {}", known.join(", "))),
    )
}

/// `put`: `data` stored whole as the output `p.desc` names, with the caller's version, and its
/// first window.
pub fn put(cx: &Context<'_>, p: &PutParams, data: &[u8]) -> Result<Answer> {
    let cap = (cx.cap)(p.max_tokens);
    crate::window::check_cap(cap.tokens)?;
    let version = Version::Text(TextVersion {
        fields: p.version.clone(),
        ..TextVersion::default()
    });
    let mut new = NewArtifact::new(Source::new(p.desc.clone(), version));
    if let Some(preview) = p.preview {
        new.preview = preview.into();
    }
    let meta = cx.store.put(new, data)?;
    let first = read_window(cx.store, &meta.reference, WindowRequest::Preview(None), cap)?;
    Ok(Answer::Envelope(Box::new(first)))
}
