//! `query`: a jq program over stored JSON, run in its box (bounded in time, memory and output),
//! its output stored and shown like a read.

use spool_core::Result;
use spool_core::answer::Answer;
use spool_core::calls::QueryParams;
use spool_core::window::{WindowRequest, read_window};

use crate::tool::{Call, Hints, Output, Tool};

/// `query`.
pub struct Query;

const DESCRIPTION: &str = "Run a jq program (`jq`, jq syntax) over stored JSON (`ref`): a JSON answer, a \
fetched JSON page, or a list of items. A ref whose lines are JSON values (an item list) is read \
as their array, as `jq --slurp`. Use it to find one record or count them instead of paging: \
`map(select(.status == 504)) | length`. The output is stored, one compact JSON value a line, \
and answered like `read` (`limit` values shown, the rest by the `next` read).";

impl Tool for Query {
    type Params = QueryParams;
    const TITLE: &'static str = "jq over stored JSON";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const HINTS: Hints = Hints::READS;
    const OUTPUT: Output = Output::Envelope;

    fn answer(call: Call<'_>, p: QueryParams) -> Result<Answer> {
        let cx = call.cx;
        let out = spool_core::query::run_query(
            cx.store,
            &p.reference,
            &p.jq,
            Some(&call.control.cancel),
        )?;
        let request = match p.limit {
            Some(limit) => WindowRequest::Lines {
                line: 1,
                limit: Some(limit),
            },
            None => WindowRequest::Preview(None),
        };
        Ok(Answer::Envelope(Box::new(read_window(
            cx.store,
            &out.reference,
            request,
            (cx.cap)(p.max_tokens),
        )?)))
    }
}
