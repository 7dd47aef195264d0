//! `spool map [PATH] [--focus FILE|SYMBOL]... [--cursor C] [--max-tokens N]`

use spool_core::answer::params::MapParams;
use spool_core::{Error, Store};

use crate::cli::MapArgs;
use crate::output;

pub fn map(store: &Store, args: &MapArgs) -> Result<u8, Error> {
    let json = args.common.json;
    // The path as typed (relative to the working directory): the map prints its files under
    // it, so that each `spool read PATH` it shows runs from here.
    let params = || {
        Ok(MapParams {
            path: Some(args.path.clone()),
            max_tokens: args.max_tokens,
            focus: args.focus.clone(),
            cursor: args.cursor.clone(),
        })
    };
    let answer = super::answered(store, "map", json, params, spool_map::answer)?;
    output::answer(&answer, json);
    Ok(0)
}
