//! `spool artifacts`

use spool_core::render::{Dialect, artifacts_notice, artifacts_text};
use spool_core::{Error, Store};

use crate::cli::ArtifactsArgs;
use crate::output;

pub fn artifacts(store: &Store, args: &ArtifactsArgs) -> Result<u8, Error> {
    let mut page = spool_core::page::artifacts(
        store,
        args.kind.as_deref(),
        args.limit,
        args.cursor.as_deref(),
    )?;
    spool_core::page::fit(
        &mut page,
        super::cap(args.max_tokens, args.common.json),
        |p, d| (artifacts_text(p, d), artifacts_notice(p, d)),
    )?;
    if args.common.json {
        output::json(&spool_core::page::structured(
            &page,
            artifacts_notice(&page, Dialect::Cli),
        ));
    } else {
        output::text(&artifacts_text(&page, Dialect::Cli));
    }
    Ok(0)
}
