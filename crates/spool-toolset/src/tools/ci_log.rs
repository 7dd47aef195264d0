//! `ci_log`: a GitHub Actions job's log, pinned to its run and attempt. The engine and its
//! arguments are spool-fetch's.

use spool_core::Result;
use spool_core::answer::Answer;
use spool_fetch::CiLogParams;

use crate::tool::{Call, Hints, Output, Tool};

/// `ci_log`.
pub struct CiLog;

const DESCRIPTION: &str = "Read a GitHub Actions job's log, pinned to its run and attempt. Without `attempt` the \
run's latest is read first and pinned; a re-run is a new attempt under the same run id, and \
reading on (`read` the ref) stays on the attempt stored, never splicing two executions. The \
answer shows the log's tail, names the step that failed and the first `##[error]` line, lists \
the attempt's jobs (failed first) and the other attempts, each as a ready call. A finished \
job's log is stored once and reused. Token from GITHUB_TOKEN or GH_TOKEN; API from \
GITHUB_API_URL.";

impl Tool for CiLog {
    type Params = CiLogParams;
    const TITLE: &'static str = "Read a CI job's log, pinned to its attempt";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const HINTS: Hints = Hints::READS_THE_WORLD;
    const OUTPUT: Output = Output::Envelope;

    fn answer(call: Call<'_>, p: CiLogParams) -> Result<Answer> {
        let Call { cx, setup, control } = call;
        let mut opts = setup.ci_options()?;
        opts.fetch.cancel = Some(control.cancel);
        spool_fetch::github::answer(cx.store, &p, &opts, (cx.cap)(p.max_tokens))
    }
}
