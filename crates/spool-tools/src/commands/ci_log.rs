//! `spool ci-log OWNER/REPO RUN_ID [--attempt N] [--job J]`

use spool_core::answer::params::CiLogParams;
use spool_core::{Error, Store};

use crate::cli::CiLogArgs;
use crate::output;

pub fn ci_log(store: &Store, args: &CiLogArgs) -> Result<u8, Error> {
    let json = args.common.json;
    let mut opts = crate::ci_options()?;
    opts.fetch.allow_private = args.allow_private_network;
    let params = || {
        Ok(CiLogParams {
            repo: args.repo.clone(),
            run_id: args.run_id,
            attempt: args.attempt,
            job: args.job.clone(),
            max_tokens: args.max_tokens,
        })
    };
    let mut answer = super::answered(store, "ci_log", json, params, |cx, p| {
        spool_fetch::github::answer(cx.store, p, &opts, (cx.cap)(p.max_tokens))
    })?;
    super::note_terminal_size(&mut answer, args.max_tokens, json);
    output::answer(&answer, json);
    Ok(0)
}
