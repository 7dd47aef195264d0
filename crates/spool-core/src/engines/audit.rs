//! The audit: every answer recorded, and for any artifact what was and was never delivered.
//! With a shared store, the rows of every machine (see `shared`).

mod shared;

use rusqlite::params;
use serde::Serialize;
use serde_json::Value;

use crate::clock;
use crate::envelope::Totals;
use crate::error::{Error, Result};
use crate::store::Store;

pub use crate::audit_rows::{AuditRow, Delivered, SharedRow};
pub use shared::ship;

/// One answer, as the audit table stores it (built by `answer`, the one place answers are
/// recorded).
#[derive(Debug, Clone)]
pub(crate) struct Entry<'a> {
    pub tool: &'a str,
    pub arguments: &'a Value,
    pub reference: Option<String>,
    pub total: Option<Value>,
    pub delivered: Delivered,
    pub complete: bool,
    pub reason: Option<&'a str>,
    pub duration_ms: u64,
}

/// The longest string of a call's arguments the audit keeps whole, and what it keeps of a
/// longer one; the most items of a list. The audit lives beside the quota, not in it: a `run`
/// whose 60 MB `stdin` was kept whole put 60 MB in the database per call (issue 58).
const ARG_CHARS: usize = 2048;
const ARG_KEPT: usize = 512;
const ARG_ITEMS: usize = 64;

/// `arguments` as the audit keeps them: a long string is its start and its size, a long list
/// its first items and how many more.
pub(crate) fn kept_arguments(arguments: &Value) -> Value {
    match arguments {
        Value::String(s) if s.len() > ARG_CHARS => {
            let start = s.floor_char_boundary(ARG_KEPT);
            Value::String(format!(
                "{}… [{} bytes in all; the audit keeps the first {start}]",
                &s[..start],
                crate::numbers::thousands(s.len() as u64)
            ))
        }
        Value::Array(items) if items.len() > ARG_ITEMS => {
            let mut kept: Vec<Value> = items[..ARG_ITEMS].iter().map(kept_arguments).collect();
            kept.push(Value::String(format!(
                "… [{} more items]",
                crate::numbers::thousands((items.len() - ARG_ITEMS) as u64)
            )));
            Value::Array(kept)
        }
        Value::Array(items) => Value::Array(items.iter().map(kept_arguments).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .take(ARG_ITEMS)
                .map(|(k, v)| (k.clone(), kept_arguments(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

pub(crate) fn insert(store: &Store, e: &Entry<'_>) -> Result<()> {
    store.conn().execute(
        "INSERT INTO audit (at, tool, arguments, ref, total, delivered, complete, reason, duration_ms, made_by)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            clock::now_ms(),
            e.tool,
            kept_arguments(e.arguments).to_string(),
            e.reference,
            e.total.as_ref().map(Value::to_string),
            serde_json::to_string(&e.delivered).unwrap_or_default(),
            e.complete,
            e.reason,
            e.duration_ms as i64,
            store.principal(),
        ],
    )?;
    Ok(())
}

pub(crate) fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<AuditRow> {
    fn parse<T: serde::de::DeserializeOwned>(s: Option<String>) -> Option<T> {
        s.and_then(|s| serde_json::from_str(&s).ok())
    }
    Ok(AuditRow {
        id: r.get("id")?,
        machine: None,
        at: clock::rfc3339(r.get("at")?),
        tool: r.get("tool")?,
        arguments: parse(r.get("arguments")?).unwrap_or(Value::Null),
        reference: r.get("ref")?,
        total: parse(r.get("total")?),
        delivered: parse(r.get("delivered")?).unwrap_or(Delivered::Other(Value::Null)),
        complete: r.get("complete")?,
        reason: r.get("reason")?,
        duration_ms: r.get::<_, i64>("duration_ms")? as u64,
        made_by: r.get("made_by")?,
    })
}

/// The most recent answers, newest first, before row `before` when given. With a shared store
/// (and no `before`), the answers of every machine: this machine's rows are shipped first.
///
/// A confined store (a server's, the Python package's) sees only the answers it gave and those
/// about artifacts it may read: the others' arguments (commands, paths, URLs) are not its to see.
pub fn recent(store: &Store, limit: usize, before: Option<i64>) -> Result<Vec<AuditRow>> {
    if store.access().is_none() {
        return recent_rows(store, limit, before);
    }
    // Rows about what this process may not read are skipped; a few rounds find `limit` others.
    let mut kept = Vec::new();
    let mut before = before;
    for _ in 0..8 {
        let rows = recent_rows(store, limit.max(1) * 4, before)?;
        let Some(last) = rows.last() else { break };
        let exhausted = rows.len() < limit.max(1) * 4;
        before = Some(last.id);
        for row in rows {
            let mine = row.made_by.as_deref() == Some(store.principal());
            if mine || readable(store, row.reference.as_deref())? {
                kept.push(row);
            }
        }
        if kept.len() >= limit || exhausted || store.remote().is_some() {
            break;
        }
    }
    kept.truncate(limit);
    Ok(kept)
}

/// Whether a row about `reference` may be shown to this process.
fn readable(store: &Store, reference: Option<&str>) -> Result<bool> {
    let Some(reference) = reference else {
        return Ok(false);
    };
    match store.meta(reference) {
        Ok(meta) => store.may_read(&meta),
        Err(Error::NotFound { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

fn recent_rows(store: &Store, limit: usize, before: Option<i64>) -> Result<Vec<AuditRow>> {
    if let Some(remote) = store.remote()
        && before.is_none()
    {
        ship(store)?;
        let mut rows = shared::merge(remote.audit_recent(limit)?);
        rows.truncate(limit);
        return Ok(rows);
    }
    let conn = store.conn();
    let mut stmt = conn.prepare("SELECT * FROM audit WHERE id < ?1 ORDER BY id DESC LIMIT ?2")?;
    let rows = stmt.query_map(params![before.unwrap_or(i64::MAX), limit as i64], row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Everything delivered from one artifact, and what never was.
#[derive(Debug, Clone, Serialize)]
pub struct RefAudit {
    #[serde(rename = "ref")]
    pub reference: String,
    pub total: Totals,
    pub answers: Vec<AuditRow>,
    /// Byte spans `[start, end)` never delivered.
    pub never_delivered_bytes: Vec<(u64, u64)>,
    /// The same spans as 1-based line ranges (when the content is still stored).
    pub never_delivered_lines: Option<Vec<(u64, u64)>>,
}

/// With a shared store, the answers of every machine.
pub fn for_ref(store: &Store, reference: &str) -> Result<RefAudit> {
    if !crate::refs::looks_like_ref(reference) {
        return Err(Error::NotFound {
            reference: reference.to_owned(),
        });
    }
    let meta = match store.meta(reference) {
        // Made on another machine and never read here: its row comes from the shared store.
        Err(Error::NotFound { .. }) => {
            store
                .adopt_remote(reference)?
                .ok_or_else(|| Error::NotFound {
                    reference: reference.to_owned(),
                })?
        }
        other => other?,
    };
    // A confined process learns nothing of an artifact it may not read, not even its audit.
    if !store.may_read(&meta)? {
        return Err(Error::NotYours {
            reference: reference.to_owned(),
        });
    }
    let answers = if let Some(remote) = store.remote() {
        ship(store)?;
        let mut rows = shared::merge(remote.audit_of(reference)?);
        rows.reverse();
        rows
    } else {
        let conn = store.conn();
        let mut stmt = conn.prepare("SELECT * FROM audit WHERE ref = ?1 ORDER BY id ASC")?;
        let rows = stmt.query_map([reference], row)?;
        rows.collect::<rusqlite::Result<Vec<_>>>()?
    };
    let mut spans: Vec<(u64, u64)> = answers
        .iter()
        .flat_map(|a| a.delivered.byte_spans().iter().copied())
        .collect();
    spans.sort_unstable();
    let mut gaps = Vec::new();
    let mut at = 0u64;
    for (s, e) in spans {
        if s > at {
            gaps.push((at, s));
        }
        at = at.max(e);
    }
    if at < meta.bytes {
        gaps.push((at, meta.bytes));
    }
    let never_delivered_lines = store.inspect_artifact(reference).ok().and_then(|reader| {
        gaps.iter()
            .map(|&(s, e)| {
                let first = reader.pos_at_byte(s).ok()?.line + 1;
                let last = reader.pos_at_byte(e.saturating_sub(1)).ok()?.line + 1;
                Some((first, last))
            })
            .collect()
    });
    Ok(RefAudit {
        reference: reference.to_owned(),
        total: meta.totals(),
        answers,
        never_delivered_bytes: gaps,
        never_delivered_lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_audit_keeps_a_long_argument_as_its_start_and_size() {
        let stdin = "é".repeat(3_000_000);
        let names: Vec<String> = (0..100_000).map(|i| format!("n{i}")).collect();
        let kept = kept_arguments(&serde_json::json!({
            "command": "wc -c", "stdin": stdin, "focus": names,
        }));
        let text = kept.to_string();
        assert!(text.len() < 4_000, "{} bytes kept", text.len());
        let said = kept["stdin"].as_str().unwrap();
        assert!(said.starts_with("éé"), "{said}");
        assert!(
            said.ends_with("… [6,000,000 bytes in all; the audit keeps the first 512]"),
            "{said}"
        );
        assert_eq!(kept["command"], "wc -c");
        let focus = kept["focus"].as_array().unwrap();
        assert_eq!(focus.len(), ARG_ITEMS + 1);
        assert_eq!(focus[ARG_ITEMS], "… [99,936 more items]");
    }
}
