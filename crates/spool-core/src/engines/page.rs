//! Pages of lists: keyset cursors, `has_more`, one shape for every list.

use serde::{Deserialize, Serialize};

use serde_json::Value;

use crate::calls::{ArtifactsParams, ToolName};
use crate::cursor;
use crate::dialect::Words;
use crate::envelope::{NextCall, Reason, SourceKind};
use crate::error::{Error, Result};
use crate::fit::{self, Cap};
use crate::render::Dialect;
use crate::store::ArtifactSummary;
use crate::store::Store;

pub const ARTIFACTS_MAX_PAGE: usize = crate::calls::MAX_ARTIFACTS;

/// `{ next_cursor, has_more, page_size, max_page_size, .., items }`: the page's facts, then its
/// items (its content), so that a host that cuts the JSON still shows the facts.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "Page_{T}")]
pub struct Page<T> {
    pub next_cursor: Option<String>,
    pub has_more: bool,
    pub page_size: usize,
    pub max_page_size: usize,
    /// How many items the whole list holds, when that is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// What the list leaves out by design, and how to include it (a recursive directory
    /// listing's hidden and ignored entries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<serde_json::Value>,
    /// The call for the next page, every argument of this one kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub next: Vec<NextCall>,
    /// Why this page holds fewer items than asked for (the answer's cap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    pub items: Vec<T>,
    /// The call that asked for this page, without its cursor.
    #[serde(skip)]
    pub repeat: Option<NextCall>,
    /// For each item, the cursor that continues after it.
    #[serde(skip)]
    pub after: Vec<String>,
}

impl<T> Page<T> {
    /// `next` from `repeat` and `next_cursor`.
    pub fn set_next(&mut self) {
        self.next.clear();
        if let (Some(c), Some(repeat)) = (&self.next_cursor, &self.repeat) {
            self.next.push(repeat.clone().with_cursor(c));
        }
    }

    /// Keeps the first `kept` items (at least one), saying why and continuing after them.
    fn keep_first(&mut self, kept: usize, why: Reason) {
        if kept == 0 || kept >= self.items.len() {
            return;
        }
        self.items.truncate(kept);
        self.next_cursor = self.after.get(kept - 1).cloned();
        self.has_more = true;
        self.reason = Some(why);
        self.set_next();
    }
}

/// The structured page: `notice`, the page's facts, then the items (its content).
pub fn structured<T: Serialize>(page: &Page<T>, notice: String) -> Value {
    crate::structured::notice_first(notice, page)
}

/// Fits a page under `cap` in every form it is sent in. `forms` gives a page's text and its
/// notice in a dialect; a page too large keeps fewer items and continues after the last kept.
pub fn fit<T: Serialize>(
    page: &mut Page<T>,
    cap: impl Into<Cap>,
    forms: impl Fn(&Page<T>, Dialect) -> (String, String),
) -> Result<()> {
    let cap = cap.into();
    crate::window::check_cap(cap.tokens)?;
    let hint = Words::text("ask for a larger ").arg(ToolName::List, "max_tokens");
    fit::fit_entries(
        page,
        cap,
        |page, d| {
            let (text, notice) = forms(page, d);
            cap.forms.pick(
                || fit::measure(&text, "", cap),
                || {
                    fit::measure(
                        &crate::structured::compact(&structured(page, notice)),
                        "",
                        cap,
                    )
                },
            )
        },
        |page| page.items.len(),
        ("one item of this list", &hint),
        Page::keep_first,
    )
}

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
struct ArtifactsCursor {
    k: String,
    kind: Option<String>,
    at: i64,
    r: String,
}

/// Up to `want` artifacts after `after`, newest first, of those this process may read (a
/// confined server lists only what it may answer from).
fn visible(
    store: &Store,
    kind: Option<SourceKind>,
    mut after: Option<(i64, String)>,
    want: usize,
) -> Result<Vec<crate::store::ArtifactMeta>> {
    let mut out = Vec::with_capacity(want);
    loop {
        let batch = store.list(kind, after.clone(), want.max(64))?;
        let exhausted = batch.len() < want.max(64);
        if let Some(last) = batch.last() {
            after = Some((last.created_at, last.reference.clone()));
        }
        for meta in batch {
            if store.may_read(&meta)? {
                out.push(meta);
                if out.len() == want {
                    return Ok(out);
                }
            }
        }
        if exhausted {
            return Ok(out);
        }
    }
}

/// A page of artifact summaries, newest first, continuing after the last one returned.
pub fn artifacts(
    store: &Store,
    kind: Option<&str>,
    limit: usize,
    cursor: Option<&str>,
) -> Result<Page<ArtifactSummary>> {
    if limit == 0 || limit > ARTIFACTS_MAX_PAGE {
        return Err(Error::invalid_words(
            Words::default()
                .arg(ToolName::Artifacts, "limit")
                .then(format!(
                    " must be between 1 and {ARTIFACTS_MAX_PAGE} (got {limit})"
                )),
            Words::text("ask for ").arg_value(ToolName::Artifacts, "limit", 100),
        ));
    }
    let parsed_kind = match kind {
        Some(k) => Some(SourceKind::parse(k).ok_or_else(|| {
            Error::invalid(
                format!("unknown artifact kind `{k}`"),
                Some("use one of exec, fetch, file, mcp, search, text, query".to_owned()),
            )
        })?),
        None => None,
    };
    let after = match cursor {
        Some(c) => {
            let p: ArtifactsCursor = cursor::open(store, c)?;
            if p.k != "artifacts" || p.kind.as_deref() != kind {
                return Err(cursor::mismatch("another list"));
            }
            Some((p.at, p.r))
        }
        None => None,
    };
    let mut rows = visible(store, parsed_kind, after, limit + 1)?;
    let has_more = rows.len() > limit;
    rows.truncate(limit);
    let after: Vec<String> = rows
        .iter()
        .map(|m| {
            cursor::seal(
                store,
                &ArtifactsCursor {
                    k: "artifacts".into(),
                    kind: kind.map(str::to_owned),
                    at: m.created_at,
                    r: m.reference.clone(),
                },
            )
        })
        .collect();
    let next_cursor = if has_more {
        after.last().cloned()
    } else {
        None
    };
    let repeat = ArtifactsParams {
        kind: kind.map(str::to_owned),
        limit: Some(limit),
        ..ArtifactsParams::default()
    };
    let mut page = Page {
        items: rows
            .iter()
            .map(crate::store::ArtifactMeta::summary)
            .collect(),
        next_cursor,
        has_more,
        page_size: limit,
        max_page_size: ARTIFACTS_MAX_PAGE,
        // A first page with nothing on it is the whole list: none stored, which is not the
        // same answer as a cursor past the end.
        total: (cursor.is_none() && rows.is_empty()).then_some(0),
        skipped: None,
        next: Vec::new(),
        reason: None,
        repeat: Some(NextCall::Artifacts(repeat)),
        after,
    };
    page.set_next();
    Ok(page)
}
