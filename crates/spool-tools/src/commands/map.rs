//! `spool map [PATH] [--focus FILE|SYMBOL]... [--cursor C] [--max-tokens N]`

use std::sync::Arc;

use spool_core::{Error, Store};
use spool_toolset::Control;
use spool_toolset::tools::Map;

use crate::cli::MapArgs;
use crate::output;

pub fn map(store: &Arc<Store>, args: &MapArgs) -> Result<u8, Error> {
    let json = args.common.json;
    // The path as typed (relative to the working directory): the map prints its files under
    // it, so that each `spool read PATH` it shows runs from here.
    let params = || Ok(args.call.clone());
    let answer = super::answered::<Map>(store, json, false, params, Control::default())?;
    output::answer(&answer, json);
    Ok(0)
}
