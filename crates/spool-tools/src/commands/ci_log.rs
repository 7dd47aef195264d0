//! `spool ci-log OWNER/REPO RUN_ID [--attempt N] [--job J]`

use std::sync::Arc;

use spool_core::{Error, Store};
use spool_toolset::Control;
use spool_toolset::tools::CiLog;

use crate::cli::CiLogArgs;
use crate::output;

pub fn ci_log(store: &Arc<Store>, args: &CiLogArgs) -> Result<u8, Error> {
    let json = args.common.json;
    let params = || Ok(args.call.clone());
    let mut answer = super::answered::<CiLog>(
        store,
        json,
        args.allow_private_network,
        params,
        Control::default(),
    )?;
    super::note_terminal_size(&mut answer, args.call.max_tokens, json);
    output::answer(&answer, json);
    Ok(0)
}
