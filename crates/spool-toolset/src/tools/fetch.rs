//! `fetch`: a web page fetched once and stored whole with its version, its head shown (or what
//! a question finds in all of it). The engine and its arguments are spool-fetch's.

use serde_json::Value;
use spool_core::Result;
use spool_core::answer::Answer;
use spool_fetch::{FetchOptions, FetchParams};

use crate::tool::{Call, Hints, Output, Progress, Tool};

/// `fetch`.
pub struct Fetch;

const DESCRIPTION: &str = "Fetch a web page once and keep it: the page is stored whole (HTML as markdown, JSON \
pretty-printed) with its version (fetch time, final URL after redirects, status, ETag, \
Last-Modified, sha256). The answer shows the head and says how long the page is; to find \
something in it, `search` the ref with your own `pattern` (the template in `next_templates`) \
rather than paging, then `read` around the hit. The same URL within 5 minutes reuses the stored copy; `refresh: true` asks the \
server again and says whether the page changed. HTTP errors are answers with their status; \
private and loopback addresses are refused unless the server allows them.";

impl Tool for Fetch {
    type Params = FetchParams;
    const TITLE: &'static str = "Fetch a page once";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const HINTS: Hints = Hints::READS_THE_WORLD;
    const OUTPUT: Output = Output::Envelope;

    /// A password in the URL is used, not recorded.
    fn audited(p: &FetchParams) -> Value {
        spool_fetch::audited_arguments(p)
    }

    fn answer(call: Call<'_>, p: FetchParams) -> Result<Answer> {
        let Call { cx, setup, control } = call;
        let opts = FetchOptions {
            allow_private: setup.allow_private_network,
            cancel: Some(control.cancel),
            ..FetchOptions::default()
        };
        let mut progress = control.progress;
        let mut report = |bytes, total| {
            if let Some(report) = progress.as_mut() {
                report(Progress::Download { bytes, total });
            }
        };
        spool_fetch::answer(cx.store, &p, &opts, (cx.cap)(p.max_tokens), &mut report)
    }
}
