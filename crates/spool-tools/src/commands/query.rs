//! `spool query REF JQ [--limit N]`

use spool_core::answer::params::QueryParams;
use spool_core::answer::tools;
use spool_core::{Error, Store};

use crate::cli::QueryArgs;
use crate::output;

pub fn query(store: &Store, args: &QueryArgs) -> Result<u8, Error> {
    let json = args.common.json;
    let params = || {
        Ok(QueryParams {
            reference: args.reference.clone(),
            jq: args.jq.clone(),
            limit: args.limit,
            max_tokens: args.max_tokens,
        })
    };
    let mut answer = super::answered(store, "query", json, params, tools::query)?;
    super::note_terminal_size(&mut answer, args.max_tokens, json);
    output::answer(&answer, json);
    Ok(0)
}
