//! `spool ls [PATH]`

use spool_core::answer::params::ListParams;
use spool_core::answer::tools;
use spool_core::{Error, Store};

use crate::cli::LsArgs;
use crate::output;

pub fn ls(store: &Store, args: &LsArgs) -> Result<u8, Error> {
    let json = args.common.json;
    let params = || -> Result<ListParams, Error> {
        Ok(ListParams {
            path: Some(super::absolute(&args.path)?),
            glob: args.glob.clone(),
            recursive: args.recursive,
            hidden: args.hidden,
            limit: args.limit,
            cursor: args.cursor.clone(),
            max_tokens: Some(args.max_tokens),
        })
    };
    let answer = super::answered(store, "list", json, params, tools::list)?;
    output::answer(&answer, json);
    Ok(0)
}
