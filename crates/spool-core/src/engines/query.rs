//! jq over a stored JSON answer (jaq, the Rust jq): find one record, or count, without paging
//! through the whole list. The program's output is stored as an artifact, one compact JSON
//! value a line, so a large output pages honestly, and the same program over the same ref is
//! answered from that copy.
//!
//! A stored artifact never changes, so its ref and the program pin the output. The program
//! runs on the parsed document, which is the one place spool holds a whole artifact in memory:
//! inputs past [`MAX_INPUT`] are refused with the search that reads them instead. The program
//! cannot read the environment (`env` is not offered: it would hand out the server's secrets)
//! nor end the process (`halt` ends the query, not spool).

use std::sync::atomic::AtomicBool;

use crate::calls::{QueryParams, Target};
use crate::clock;
use crate::dialect::Words;
use crate::envelope::{NextCall, QueryVersion, Source, Version};
use crate::error::{Error, Result};
use crate::jq_box::{self, Bound, Ended};
use crate::render::{human_bytes, thousands};
use crate::store::{ArtifactMeta, NewArtifact, Store};

/// The largest artifact a program runs over: parsed, a document takes several times its size.
pub const MAX_INPUT: u64 = 256 << 20;

/// The most output a program may make before it is stopped.
pub const MAX_OUTPUT: usize = jq_box::MAX_OUTPUT;

fn not_json(reference: &str, why: &dyn std::fmt::Display) -> Error {
    Error::invalid_words(
        format!("`{reference}` is not JSON, nor JSON lines: {why}").into(),
        Words::text("search it instead, e.g. ")
            .call(NextCall::search_template(Target::reference(reference))),
    )
}

/// Runs `program` over the JSON stored as `reference`, stores its output (or finds it stored),
/// and returns the output's artifact.
pub fn run_query(
    store: &Store,
    reference: &str,
    program: &str,
    cancel: Option<&AtomicBool>,
) -> Result<ArtifactMeta> {
    let reader = store.open_artifact(reference)?;
    let meta = reader.meta().clone();
    let key = format!("query:{reference}:{}", crate::refs::digest(&[program]));
    if let Some(found) = store.find_by_dedup(&key)? {
        return Ok(found);
    }
    if meta.bytes > MAX_INPUT {
        return Err(Error::invalid_words(
            format!(
                "`{reference}` is {}, more than the {} a jq program runs over",
                human_bytes(meta.bytes),
                human_bytes(MAX_INPUT)
            )
            .into(),
            Words::text("find the records by search instead, e.g. ")
                .call(NextCall::search_template(Target::reference(reference))),
        ));
    }
    let mut stream = reader.verified_stream()?;
    let ended = jq_box::run(program, &mut stream, cancel).map_err(|e| Error::io(reference, e))?;
    let (out, read_as, values) = match ended {
        Ended::Done {
            out,
            read_as,
            values,
        } => (out, read_as, values),
        other => return Err(refusal(other, reference)),
    };
    let version = QueryVersion {
        of: reference.to_owned(),
        jq: program.to_owned(),
        read_as,
        values,
        ran_at: clock::rfc3339(clock::now_ms()),
        ..QueryVersion::default()
    };
    // The output is of the stored copy: what the copy holds of its source, it holds of it.
    let mut new = NewArtifact::new(
        Source::new(
            format!("jq {program} over {reference}"),
            Version::Query(version),
        )
        .with_coverage(meta.source.coverage()),
    );
    new.dedup_key = Some(key);
    new.redo = Some(NextCall::Query(QueryParams::new(reference, program)));
    store.put(new, &out)
}

/// The error for a program that did not end with its output, saying which bound or fault.
fn refusal(ended: Ended, reference: &str) -> Error {
    let fix = || {
        Words::text("fix the program (jq syntax, as `jq` takes it), e.g. ")
            .call(NextCall::Query(QueryParams::new(reference, "length")))
    };
    let narrow = "narrow it (`select`, `limit(n; f)`, `first(f)`) or count with `length`";
    match ended {
        Ended::Compile(why) => Error::invalid_words(
            format!("the jq program does not compile: {why}").into(),
            fix(),
        ),
        Ended::NotJson(why) => not_json(reference, &why),
        Ended::TooDeep { line, .. } => Error::invalid_words(
            format!(
                "`{reference}` nests deeper than the {} levels a jq program runs over (line {})",
                thousands(jq_box::depth::MAX_DEPTH as u64),
                thousands(line as u64)
            )
            .into(),
            Words::text("search it instead, e.g. ")
                .call(NextCall::search_template(Target::reference(reference))),
        ),
        Ended::Failed { values, why } => Error::invalid(
            format!(
                "the jq program failed after {} values: {why}",
                thousands(values)
            ),
            Some("check the program against the data's shape, e.g. with `.[0] | keys`".into()),
        ),
        Ended::Bound {
            bound: Bound::Time,
            values,
        } => Error::Timeout {
            what: format!(
                "the jq program ({} values made so far; it was stopped)",
                thousands(values)
            ),
            seconds: jq_box::MAX_TIME.as_secs_f64(),
        },
        Ended::Bound {
            bound: Bound::Output,
            values,
        } => Error::invalid(
            format!(
                "the jq program's output passed {} after {} values; it was stopped",
                human_bytes(MAX_OUTPUT as u64),
                thousands(values)
            ),
            Some(narrow.into()),
        ),
        Ended::Bound {
            bound: Bound::Memory,
            values,
        } => Error::invalid(
            format!(
                "the jq program needed more than the {} of memory a program gets (after {} values); it was stopped",
                human_bytes(jq_box::MAX_MEMORY),
                thousands(values)
            ),
            Some(format!(
                "{narrow}; a large input is found by `search` instead"
            )),
        ),
        Ended::Bound {
            bound: Bound::Stack,
            values,
        } => Error::invalid(
            format!(
                "the jq program recursed deeper than the {} of stack a program gets (after {} values); it was stopped",
                human_bytes(jq_box::STACK as u64),
                thousands(values)
            ),
            Some("end its recursion sooner, or walk the data with `..` or `paths`".into()),
        ),
        Ended::Cancelled => Error::Unavailable {
            what: "the jq program".into(),
            cause: "the call was cancelled; the program was stopped".into(),
        },
        Ended::BoxFailed(why) => Error::Unavailable {
            what: "the box jq programs run in".into(),
            cause: why,
        },
        Ended::Broke(why) => Error::invalid(
            format!("the jq program could not be run: {why}"),
            Some("simplify the program; this one is not one jq runs".into()),
        ),
        Ended::Done { .. } => Error::Unavailable {
            what: "the jq program".into(),
            cause: "it ended with output where none was expected".into(),
        },
    }
}
