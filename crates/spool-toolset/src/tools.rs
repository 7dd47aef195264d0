//! The tools, one file each: its arguments, its words, its handler. What two of them share (a
//! target given as a ref or a path, a preview) is here.

mod artifacts;
mod ci_log;
mod fetch;
mod list;
mod map;
mod query;
mod read;
mod run;
mod search;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use spool_core::{Error, Result};

pub use artifacts::{ARTIFACTS_PAGE, Artifacts, ArtifactsParams};
pub use ci_log::CiLog;
pub use fetch::Fetch;
pub use list::{List, ListParams};
pub use map::Map;
pub use query::{Query, QueryParams};
pub use read::{Read, ReadParams};
pub use run::{Run, RunParams};
pub use search::{Search, SearchParams};

// Which part of an artifact a plain read shows. (No doc comment: schemars would list it as
// the type's description, and the tool list is product copy.)
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum PreviewArg {
    Head,
    Tail,
    HeadTail,
}

impl From<PreviewArg> for spool_core::window::Preview {
    fn from(p: PreviewArg) -> Self {
        match p {
            PreviewArg::Head => Self::Head,
            PreviewArg::Tail => Self::Tail,
            PreviewArg::HeadTail => Self::HeadTail,
        }
    }
}

/// What a `read` or a `search` reads: a stored artifact, or a file (or directory) in the roots.
enum Target<'a> {
    Ref(&'a str),
    Path(&'a str),
}

/// The one target of `tool`'s call, which takes `ref` or `path`, exactly one.
fn one_of<'a>(
    reference: Option<&'a str>,
    path: Option<&'a str>,
    tool: &'static str,
) -> Result<Target<'a>> {
    match (reference, path) {
        (Some(r), None) => Ok(Target::Ref(r)),
        (None, Some(p)) => Ok(Target::Path(p)),
        _ => Err(Error::invalid(
            format!("`{tool}` takes either `ref` or `path`, exactly one of them"),
            Some(format!(
                "for example {tool} ref=sp_... or {tool} path=README.md"
            )),
        )),
    }
}
