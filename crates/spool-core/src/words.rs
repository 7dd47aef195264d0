//! Numbers and sources in words, the same in every dialect: `1,234,567`, `148.7 KiB`,
//! `~41k tokens`, and a source with what pins its version (`cargo test, exit 101, ...`).

use serde_json::Value;

use crate::envelope::{Source, SourceKind};

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `152300` as `148.7 KiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// A token count, `~41k tokens` when estimated or large.
pub(crate) fn human_tokens(tokens: u64, estimated: bool) -> String {
    if estimated || tokens >= 10_000 {
        let k = (tokens as f64 / 1000.0).round() as u64;
        if k >= 1 {
            return format!("~{}k tokens", thousands(k));
        }
    }
    format!("{} tokens", thousands(tokens))
}

pub(crate) fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// The source in words: `cargo test, exit 101, 2026-11-30T09:00:00Z`.
pub fn describe_source(source: &Source) -> String {
    /// Longer descriptions (a whole script as a command) are cut in the banner.
    const LONGEST: usize = 200;
    let v = &source.version;
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let desc = if source.desc.chars().count() > LONGEST {
        let cut: String = source.desc.chars().take(LONGEST).collect();
        format!(
            "{cut}... ({} chars)",
            thousands(source.desc.chars().count() as u64)
        )
    } else {
        source.desc.clone()
    };
    let mut parts = vec![desc];
    match source.kind {
        SourceKind::Exec => {
            if v.get("timed_out").and_then(Value::as_bool) == Some(true) {
                parts.push("timed out".into());
            } else if let Some(sig) = text("signal") {
                parts.push(format!("killed by {sig}"));
            } else if let Some(code) = v.get("exit_code").and_then(Value::as_i64) {
                parts.push(format!("exit {code}"));
            }
            parts.extend(text("started_at"));
        }
        SourceKind::Fetch => {
            if let Some(status) = v.get("status").and_then(Value::as_u64) {
                parts.push(format!("HTTP {status}"));
            }
            if let Some(ct) = text("content_type").filter(|c| !c.is_empty()) {
                parts.push(ct);
            }
            parts.extend(text("fetched_at"));
        }
        SourceKind::File => {
            if let Some(sha) = text("sha256") {
                parts.push(format!("sha256 {}", &sha[..sha.len().min(12)]));
            }
            if let Some(commit) = text("commit") {
                let dirty = v.get("dirty").and_then(Value::as_bool) == Some(true);
                parts.push(format!(
                    "commit {}{}",
                    &commit[..commit.len().min(12)],
                    if dirty { " (dirty)" } else { "" }
                ));
            }
            parts.extend(text("mtime"));
        }
        SourceKind::Mcp => {
            parts.extend(text("called_at"));
        }
        SourceKind::Search | SourceKind::Text => {}
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_words() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(152_300), "152,300");
        assert_eq!(human_bytes(152_300), "148.7 KiB");
        assert_eq!(human_bytes(12), "12 bytes");
        assert_eq!(human_tokens(41_210, false), "~41k tokens");
        assert_eq!(human_tokens(300, false), "300 tokens");
    }
}
