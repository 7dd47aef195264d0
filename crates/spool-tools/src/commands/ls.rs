//! `spool ls [PATH]`

use std::sync::Arc;

use spool_core::{Error, Store};
use spool_toolset::Control;
use spool_toolset::tools::{List, ListParams};

use crate::cli::LsArgs;
use crate::output;

pub fn ls(store: &Arc<Store>, args: &LsArgs) -> Result<u8, Error> {
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
    let answer = super::answered::<List>(store, json, false, params, Control::default())?;
    output::answer(&answer, json);
    Ok(0)
}
