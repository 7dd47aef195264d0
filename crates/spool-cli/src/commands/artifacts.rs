//! `spool artifacts`

use serde_json::Value;
use spool_core::render::{human_bytes, thousands};
use spool_core::{Error, Store};

use crate::cli::ArtifactsArgs;
use crate::output;

pub fn artifacts(store: &Store, args: &ArtifactsArgs) -> Result<u8, Error> {
    let page = spool_core::page::artifacts(
        store,
        args.kind.as_deref(),
        args.limit,
        args.cursor.as_deref(),
    )?;
    if args.common.json {
        output::json(&page);
        return Ok(0);
    }
    let mut out = String::new();
    if page.items.is_empty() {
        out.push_str(if args.cursor.is_some() {
            "no artifacts after this position\n"
        } else {
            "no artifacts stored\n"
        });
    }
    for item in &page.items {
        let s = |k: &str| item.get(k).and_then(Value::as_str).unwrap_or("");
        let total = item.get("total");
        let n = |k: &str| {
            total
                .and_then(|t| t.get(k))
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
        let source = item.get("source");
        let desc = source
            .and_then(|s| s.get("desc"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let kind = source
            .and_then(|s| s.get("kind"))
            .and_then(Value::as_str)
            .unwrap_or("");
        out.push_str(&format!(
            "{}  {:<9} {:<5} {:>10} lines {:>10}  {}  {}\n",
            s("ref"),
            s("state"),
            kind,
            thousands(n("lines")),
            human_bytes(n("bytes")),
            s("created_at"),
            desc
        ));
    }
    if let Some(c) = &page.next_cursor {
        out.push_str(&format!("more: spool artifacts --cursor {c}\n"));
    }
    output::text(&out);
    Ok(0)
}
