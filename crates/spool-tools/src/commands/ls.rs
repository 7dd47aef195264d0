//! `spool ls [PATH]`

use std::sync::Arc;

use spool_core::{Error, Store};
use spool_toolset::Control;
use spool_toolset::tools::{List, ListParams};

use crate::cli::LsArgs;
use crate::output;

/// The flags as the tool's arguments: the directory made absolute, the command line's cap where
/// none is given.
pub fn params(args: &LsArgs) -> Result<ListParams, Error> {
    Ok(ListParams {
        path: Some(super::absolute(args.call.path.as_deref().unwrap_or("."))?),
        max_tokens: Some(
            args.call
                .max_tokens
                .unwrap_or(spool_core::DEFAULT_MAX_TOKENS),
        ),
        ..args.call.clone()
    })
}

pub fn ls(store: &Arc<Store>, args: &LsArgs) -> Result<u8, Error> {
    let json = args.common.json;
    let params = || params(args);
    let answer = super::answered::<List>(store, json, false, params, Control::default())?;
    output::answer(&answer, json);
    Ok(0)
}
