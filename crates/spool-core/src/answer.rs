//! The one answer pipeline: every answer of every front end (the MCP server, the proxy, the
//! CLI) is one [`Answer`], produced by [`respond`], which times the request, records it in the
//! audit (an error too), and hands it back to be rendered in the caller's dialect.
//!
//! The tools themselves (their arguments, checks and defaults) are defined once, in the tool
//! table of spool-toolset; each runs its engine in a [`Context`] and answers here.

mod context;
mod found;
pub mod rendered;
pub mod schema;

pub use context::Context;
pub use found::found_window;
pub use rendered::{Rendered, rendered};

use std::time::Instant;

use serde_json::{Value, json};

use crate::audit::{self, AuditRow, Delivered, Entry, RefAudit};
use crate::envelope::{Envelope, ReasonCode};
use crate::error::{Error, Result};
use crate::items::ItemPage;
use crate::listing::Entry as ListEntry;
use crate::page::Page;
use crate::search::SearchAnswer;
use crate::store::{GcReport, SharedGc, Store};

/// What a tool answered, before it is rendered.
#[derive(Debug)]
pub enum Answer {
    Envelope(Box<Envelope>),
    Search(Box<SearchAnswer>),
    /// A page of a directory listing, and the directory as the caller named it.
    List(Box<Page<ListEntry>>, String),
    /// A page of stored artifacts.
    Artifacts(Box<Page<crate::store::ArtifactSummary>>),
    /// A page of a list of items (an upstream JSON array).
    Items(Box<ItemPage>),
    /// What `gc` did, here and in the shared store.
    Gc(GcReport, Option<SharedGc>),
    /// The most recent answers.
    Recent(Vec<AuditRow>),
    /// Everything delivered from one artifact.
    OfRef(Box<RefAudit>),
}

/// Runs `produce`, records its answer or its error in the audit (a failure to record never
/// fails the answer: it is logged), and returns it.
pub fn respond(
    store: &Store,
    tool: &str,
    arguments: &Value,
    produce: impl FnOnce() -> Result<Answer>,
) -> Result<Answer> {
    let started = Instant::now();
    let outcome = produce();
    let ms = elapsed_ms(started);
    match &outcome {
        Ok(answer) => record(store, tool, arguments, answer, ms),
        Err(err) => record_error(store, tool, arguments, err, ms),
    }
    outcome
}

/// Milliseconds since `since`.
pub fn elapsed_ms(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Records an answer produced elsewhere (the proxy builds its answers as the upstream's
/// result arrives).
pub fn record(store: &Store, tool: &str, arguments: &Value, answer: &Answer, ms: u64) {
    insert_as(store, entry(answer), tool, arguments, ms);
}

/// Records an envelope answer produced elsewhere (the proxy's preview of an upstream's result).
pub fn record_envelope(store: &Store, tool: &str, arguments: &Value, e: &Envelope, ms: u64) {
    insert_as(store, envelope_entry(e), tool, arguments, ms);
}

/// Inserts `entry` as the answer of `tool` to `arguments`, which took `ms`.
fn insert_as(store: &Store, entry: Entry<'_>, tool: &str, arguments: &Value, ms: u64) {
    let entry = Entry {
        tool,
        arguments,
        duration_ms: ms,
        ..entry
    };
    logged(audit::insert(store, &entry));
}

/// Records an error as the answer.
pub fn record_error(store: &Store, tool: &str, arguments: &Value, err: &Error, ms: u64) {
    let code = err.code().as_str();
    let entry = Entry {
        tool,
        arguments,
        reference: arguments
            .get("ref")
            .and_then(Value::as_str)
            .map(str::to_owned),
        total: None,
        delivered: Delivered::Error {
            error: code.to_owned(),
        },
        complete: false,
        reason: Some(code),
        duration_ms: ms,
    };
    logged(audit::insert(store, &entry));
}

/// Records an upstream's result that the proxy passed through as it came.
pub fn record_passed(store: &Store, tool: &str, arguments: &Value, bytes: usize, ms: u64) {
    let entry = Entry {
        tool,
        arguments,
        reference: None,
        total: None,
        delivered: Delivered::Passed {
            bytes: bytes as u64,
            passed_through: true,
        },
        complete: true,
        reason: None,
        duration_ms: ms,
    };
    logged(audit::insert(store, &entry));
}

fn logged(result: Result<()>) {
    if let Err(e) = result {
        tracing::warn!(error = %e, "could not record the answer in the audit");
    }
}

/// The audit's row for an answer (tool, arguments and duration filled in by the caller).
fn entry(answer: &Answer) -> Entry<'static> {
    let blank = Entry {
        tool: "",
        arguments: &Value::Null,
        reference: None,
        total: None,
        delivered: Delivered::Other(Value::Null),
        complete: true,
        reason: None,
        duration_ms: 0,
    };
    let page = |items: usize, has_more: bool| Entry {
        delivered: Delivered::Items {
            items: items as u64,
        },
        complete: !has_more,
        ..blank.clone()
    };
    match answer {
        Answer::Envelope(e) => envelope_entry(e),
        Answer::Items(p) => envelope_entry(&p.envelope),
        Answer::Search(a) => Entry {
            reference: a.reference.clone(),
            total: Some(json!({ "hits": a.hit_count })),
            delivered: Delivered::Hits {
                hits: a.hits.len() as u64,
                lines: a.hits.iter().map(|h| h.line).collect(),
            },
            complete: a.partial_code().is_none(),
            reason: a.partial_code().map(ReasonCode::as_str),
            ..blank
        },
        Answer::List(p, _) => page(p.items.len(), p.has_more),
        Answer::Artifacts(p) => page(p.items.len(), p.has_more),
        Answer::Gc(report, _) => Entry {
            delivered: Delivered::Gc {
                expired: report.expired,
                evicted: report.evicted,
                freed_bytes: report.freed_bytes,
            },
            ..blank
        },
        Answer::Recent(rows) => page(rows.len(), false),
        // Nothing of the artifact's content is delivered: the row names it in its arguments,
        // not as its ref, so that the artifact's own audit counts only what it gave.
        Answer::OfRef(a) => page(a.answers.len(), false),
    }
}

fn envelope_entry(e: &Envelope) -> Entry<'static> {
    let d = &e.delivered;
    Entry {
        tool: "",
        arguments: &Value::Null,
        reference: Some(e.reference.clone()),
        total: Some(serde_json::to_value(e.total).unwrap_or(Value::Null)),
        delivered: Delivered::Ranges {
            ranges: e.shown.clone(),
            byte_spans: d.byte_spans.clone(),
            bytes: d.bytes,
            chars: d.chars,
            tokens: d.tokens,
        },
        complete: e.complete,
        reason: e.reason.as_ref().map(|r| r.code.as_str()),
        duration_ms: 0,
    }
}
