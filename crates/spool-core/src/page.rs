//! Pages of lists: keyset cursors, `has_more`, one shape for every list.

use serde::{Deserialize, Serialize};

use crate::cursor;
use crate::envelope::SourceKind;
use crate::error::{Error, Result};
use crate::store::Store;

pub const ARTIFACTS_MAX_PAGE: usize = 1_000;

/// `{ items, next_cursor, has_more, page_size, max_page_size }`
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Page<T> {
    pub items: Vec<T>,
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
}

#[derive(Serialize, Deserialize)]
struct ArtifactsCursor {
    k: String,
    kind: Option<String>,
    at: i64,
    r: String,
}

/// A page of artifact summaries, newest first, continuing after the last one returned.
pub fn artifacts(
    store: &Store,
    kind: Option<&str>,
    limit: usize,
    cursor: Option<&str>,
) -> Result<Page<serde_json::Value>> {
    if limit == 0 || limit > ARTIFACTS_MAX_PAGE {
        return Err(Error::invalid(
            format!("`limit` must be between 1 and {ARTIFACTS_MAX_PAGE} (got {limit})"),
            Some("ask for `limit` 100".to_owned()),
        ));
    }
    let parsed_kind = match kind {
        Some(k) => Some(SourceKind::parse(k).ok_or_else(|| {
            Error::invalid(
                format!("unknown artifact kind `{k}`"),
                Some("use one of exec, fetch, file, mcp, search, text".to_owned()),
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
    let mut rows = store.list(parsed_kind, after, limit + 1)?;
    let has_more = rows.len() > limit;
    rows.truncate(limit);
    let next_cursor = if has_more {
        rows.last().map(|m| {
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
    } else {
        None
    };
    Ok(Page {
        items: rows
            .iter()
            .map(crate::store::ArtifactMeta::summary)
            .collect(),
        next_cursor,
        has_more,
        page_size: limit,
        max_page_size: ARTIFACTS_MAX_PAGE,
        total: None,
        skipped: None,
    })
}
