//! `spool ls [PATH]`

use spool_core::{Error, Store};

use crate::cli::LsArgs;
use crate::output;

pub fn ls(store: &Store, args: &LsArgs) -> Result<u8, Error> {
    let path = super::absolute(&args.path)?;
    let page = spool_core::listing::list(
        store,
        &super::everything()?,
        spool_core::listing::ListQuery {
            path: &path,
            glob: args.glob.as_deref(),
            recursive: args.recursive,
            hidden: args.hidden,
        },
        args.limit,
        args.cursor.as_deref(),
    )?;
    if args.common.json {
        output::json(&page);
    } else {
        output::text(&spool_core::render::entries_text(
            &page,
            &args.path,
            spool_core::render::Dialect::Cli,
        ));
    }
    Ok(0)
}
