//! The tools, one file each: its words and its handler (its arguments are typed in
//! spool-core's `calls`). What two of them share (a
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

use spool_core::{Error, Result};

pub use artifacts::{ARTIFACTS_PAGE, Artifacts};
pub use ci_log::CiLog;
pub use fetch::Fetch;
pub use list::List;
pub use map::Map;
pub use query::Query;
pub use read::Read;
pub use run::Run;
pub use search::Search;
// Each tool's arguments are typed in spool-core, where the calls that print them are made.
pub use spool_core::calls::{
    ArtifactsParams, CiLogParams, FetchParams, ListParams, MapParams, PreviewArg, QueryParams,
    ReadParams, RunParams, SearchParams,
};

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
