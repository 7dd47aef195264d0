//! `spool audit [REF]`

use serde_json::Value;
use spool_core::answer::Answer;
use spool_core::audit::{AuditRow, Delivered, RefAudit, for_ref, recent};
use spool_core::in_words::plural;
use spool_core::render::{range_text, thousands};
use spool_core::{Error, Store};

use crate::cli::AuditArgs;
use crate::output;

fn delivered_text(row: &AuditRow) -> String {
    match &row.delivered {
        Delivered::Error { error } => format!("error {error}"),
        Delivered::Hits { hits, .. } => plural(*hits, "hit", "hits"),
        Delivered::Items { items } => plural(*items, "item", "items"),
        Delivered::Gc { freed_bytes, .. } => format!("gc freed {} bytes", thousands(*freed_bytes)),
        Delivered::Passed { bytes, .. } => format!("{} bytes, passed through", thousands(*bytes)),
        Delivered::Ranges { ranges, .. } if ranges.is_empty() => "nothing".into(),
        Delivered::Ranges {
            ranges,
            bytes,
            tokens,
            ..
        } => {
            let ranges: Vec<String> = ranges.iter().map(range_text).collect();
            let sizes = match tokens {
                Some(tokens) => {
                    format!("{} bytes, {} tokens", thousands(*bytes), thousands(*tokens))
                }
                None => format!("{} bytes", thousands(*bytes)),
            };
            format!("{} ({sizes})", ranges.join(", "))
        }
        Delivered::Other(_) => "nothing".into(),
    }
}

fn whole_text(row: &AuditRow) -> String {
    let Some(t) = &row.total else {
        return "-".into();
    };
    if let Some(hits) = t.get("hits").and_then(Value::as_u64) {
        return plural(hits, "hit", "hits");
    }
    let lines = t.get("lines").and_then(Value::as_u64).unwrap_or(0);
    let bytes = t.get("bytes").and_then(Value::as_u64).unwrap_or(0);
    format!("{} lines, {} bytes", thousands(lines), thousands(bytes))
}

fn row_text(row: &AuditRow) -> String {
    let id = match &row.machine {
        Some(machine) => format!("{machine}#{}", row.id),
        None => row.id.to_string(),
    };
    format!(
        "{:>5}  {}  {:<8} {:<14} whole: {:<26} delivered: {}  {}{}  {} ms\n",
        id,
        row.at,
        row.tool,
        row.reference.as_deref().unwrap_or("-"),
        whole_text(row),
        delivered_text(row),
        if row.complete { "complete" } else { "partial" },
        row.reason
            .as_ref()
            .map_or(String::new(), |r| format!(" ({r})")),
        row.duration_ms,
    )
}

pub fn audit(store: &Store, args: &AuditArgs) -> Result<u8, Error> {
    // The command line's own answer, not a tool's: timed and audited like one.
    let asked = serde_json::json!({ "ref": args.reference, "limit": args.limit });
    let answer = spool_core::answer::respond(store, "audit", &asked, || {
        Ok(match &args.reference {
            Some(reference) => Answer::OfRef(Box::new(for_ref(store, reference)?)),
            None => Answer::Recent(recent(store, args.limit, None)?),
        })
    })?;
    match answer {
        Answer::OfRef(report) => of_ref(&report, args.common.json),
        Answer::Recent(rows) => recent_rows(&rows, args.common.json),
        _ => {}
    }
    Ok(0)
}

fn of_ref(report: &RefAudit, json: bool) {
    let reference = &report.reference;
    {
        if json {
            output::json(report);
            return;
        }
        let mut out = format!(
            "{reference}: {}; whole: {} lines, {} bytes\n",
            plural(report.answers.len() as u64, "answer", "answers"),
            thousands(report.total.lines.unwrap_or(0)),
            thousands(report.total.bytes.unwrap_or(0)),
        );
        for row in &report.answers {
            out.push_str(&row_text(row));
        }
        if report.never_delivered_bytes.is_empty() {
            out.push_str("every byte has been delivered at least once\n");
        } else {
            out.push_str("never delivered:\n");
            match &report.never_delivered_lines {
                Some(lines) => {
                    for ((a, b), (la, lb)) in report.never_delivered_bytes.iter().zip(lines) {
                        out.push_str(&format!(
                            "  lines {}-{} (bytes {}-{})\n",
                            thousands(*la),
                            thousands(*lb),
                            thousands(*a),
                            thousands(*b)
                        ));
                    }
                }
                None => {
                    for (a, b) in &report.never_delivered_bytes {
                        out.push_str(&format!("  bytes {}-{}\n", thousands(*a), thousands(*b)));
                    }
                }
            }
        }
        output::text(&out);
    }
}

fn recent_rows(rows: &[AuditRow], json: bool) {
    if json {
        output::json(&rows);
        return;
    }
    let mut out = String::new();
    if rows.is_empty() {
        out.push_str("no answers recorded yet\n");
    }
    for row in rows.iter().rev() {
        out.push_str(&row_text(row));
    }
    output::text(&out);
}
