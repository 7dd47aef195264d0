//! `spool artifacts`

use spool_core::render::{Dialect, artifacts_text};
use spool_core::{Error, Store};

use crate::cli::ArtifactsArgs;
use crate::output;

pub fn artifacts(store: &Store, args: &ArtifactsArgs) -> Result<u8, Error> {
    let page = spool_core::page::artifacts(
        store,
        args.kind.as_deref(),
        args.limit,
        args.cursor.as_deref(),
    )?;
    if args.common.json {
        output::json(&page);
    } else {
        output::text(&artifacts_text(&page, args.kind.as_deref(), Dialect::Cli));
    }
    Ok(0)
}
