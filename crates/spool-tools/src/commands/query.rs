//! `spool query REF JQ [--limit N]`

use std::sync::Arc;

use spool_core::{Error, Store};
use spool_toolset::Control;
use spool_toolset::tools::Query;

use crate::cli::QueryArgs;
use crate::output;

pub fn query(store: &Arc<Store>, args: &QueryArgs) -> Result<u8, Error> {
    let json = args.common.json;
    let params = || Ok(args.call.clone());
    let mut answer = super::answered::<Query>(store, json, false, params, Control::default())?;
    super::note_terminal_size(&mut answer, args.call.max_tokens, json);
    output::answer(&answer, json);
    Ok(0)
}
