//! `spool ls [PATH]`

use spool_core::render::{Dialect, entries_notice, entries_text};
use spool_core::{Error, Store};

use crate::cli::LsArgs;
use crate::output;

pub fn ls(store: &Store, args: &LsArgs) -> Result<u8, Error> {
    let path = super::absolute(&args.path)?;
    let mut page = spool_core::listing::list(
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
    spool_core::page::fit(
        &mut page,
        super::cap(args.max_tokens, args.common.json),
        |p, d| {
            (
                entries_text(p, &args.path, d),
                entries_notice(p, &args.path, d),
            )
        },
    )?;
    if args.common.json {
        output::json(&spool_core::page::structured(
            &page,
            entries_notice(&page, &args.path, Dialect::Cli),
        ));
    } else {
        output::text(&entries_text(&page, &args.path, Dialect::Cli));
    }
    Ok(0)
}
