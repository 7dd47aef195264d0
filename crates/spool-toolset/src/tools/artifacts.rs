//! `artifacts`: a page of the stored artifacts, newest first.

use spool_core::Result;
use spool_core::answer::Answer;
use spool_core::calls::ArtifactsParams;

use crate::tool::{Call, Hints, Output, Tool};

/// `artifacts`.
pub struct Artifacts;

/// The artifacts of a page when no `limit` is given.
pub const ARTIFACTS_PAGE: usize = 50;

const DESCRIPTION: &str = "List stored artifacts, newest first: ref, source and version, sizes, state (complete, \
cancelled, interrupted, expired) and expiry. Expired ones stay as tombstones that say what they \
were and how to make them again.";

impl Tool for Artifacts {
    type Params = ArtifactsParams;
    const TITLE: &'static str = "Stored artifacts";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const HINTS: Hints = Hints::READS;
    const OUTPUT: Output = Output::Artifacts;

    fn answer(call: Call<'_>, p: ArtifactsParams) -> Result<Answer> {
        let cx = call.cx;
        let mut page = spool_core::page::artifacts(
            cx.store,
            p.kind.as_deref(),
            p.limit.unwrap_or(ARTIFACTS_PAGE),
            p.cursor.as_deref(),
        )?;
        spool_core::page::fit(&mut page, (cx.cap)(p.max_tokens), |p, d| {
            (
                spool_core::list_text::artifacts_text(p, d),
                spool_core::list_text::artifacts_notice(p, d),
            )
        })?;
        Ok(Answer::Artifacts(Box::new(page)))
    }
}
