//! `spool fetch URL`

use std::sync::Arc;

use spool_core::answer::Answer;
use spool_core::calls::NextCall;
use spool_core::{Error, Store};
use spool_toolset::Control;
use spool_toolset::tools::Fetch;

use crate::cli::FetchArgs;
use crate::output;

/// The exit code of a fetch whose server answered with an error status (`curl --fail` uses the
/// same): the page is stored and shown, but it is not the page that was asked for.
const HTTP_ERROR: u8 = 22;

/// The fetches an answer prints carry the permission this one was given: the call to the rest
/// of the page (its coverage) and the calls to go on.
fn carry_permission(answer: &mut Answer) {
    let Answer::Envelope(e) = answer else {
        return;
    };
    let mark = |call: &mut NextCall| {
        if let NextCall::Fetch(p) = call {
            p.allow_private_network = true;
        }
    };
    e.next.iter_mut().for_each(mark);
    let mut coverage = e.source.coverage();
    if let Some(rest) = &mut coverage.rest {
        mark(rest);
        e.source.coverage = Some(coverage);
    }
}

pub fn fetch(store: &Arc<Store>, args: &FetchArgs) -> Result<u8, Error> {
    let json = args.common.json;
    let params = || Ok(args.call.clone());
    let mut answer = super::answered::<Fetch>(
        store,
        json,
        args.call.allow_private_network,
        params,
        Control::default(),
    )?;
    if args.call.allow_private_network {
        carry_permission(&mut answer);
    }
    super::note_terminal_size(&mut answer, args.call.max_tokens, json);
    output::answer(&answer, json);
    let status = match &answer {
        Answer::Envelope(e) => e.source.version.fetch().map(|f| u64::from(f.status)),
        _ => None,
    };
    Ok(if status.is_some_and(|s| s >= 400) {
        HTTP_ERROR
    } else {
        0
    })
}
