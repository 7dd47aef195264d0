//! Numbers and sources in words, the same in every dialect: `1,234,567`, `148.7 KiB`,
//! `~41k tokens`, and a source with what pins its version (`cargo test, exit 101, ...`).

use crate::envelope::{Source, Version};

pub use crate::numbers::{human_bytes, thousands};

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

/// `1 capture`, `2 captures`.
/// How long an artifact lives, in the words a tool's description uses ("7 days", "1 hour",
/// "90 seconds"): the largest whole unit that divides it.
pub fn lifetime(ttl: std::time::Duration) -> String {
    let s = ttl.as_secs();
    let (n, one, many) = if s >= 86_400 && s.is_multiple_of(86_400) {
        (s / 86_400, "day", "days")
    } else if s >= 3_600 && s.is_multiple_of(3_600) {
        (s / 3_600, "hour", "hours")
    } else if s >= 60 && s.is_multiple_of(60) {
        (s / 60, "minute", "minutes")
    } else {
        (s, "second", "seconds")
    };
    plural(n, one, many)
}

pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// The source in words: `cargo test, exit 101, 2026-11-30T09:00:00Z`.
pub fn describe_source(source: &Source) -> String {
    // Longer descriptions (a whole script as a command) are cut in the banner, as an answer's
    // source is cut (an already cut one is within this and stays as it is).
    let desc = crate::clip::clipped(source.desc.clone(), crate::envelope::DESC_CHARS);
    let mut parts = vec![desc];
    match &source.version {
        Version::Exec(v) => {
            if v.timed_out == Some(true) {
                parts.push("timed out".into());
            } else if let Some(sig) = v.signal() {
                parts.push(format!("killed by {sig}"));
            } else if let Some(code) = v.exit_code() {
                parts.push(format!("exit {code}"));
            }
            parts.push(v.started_at.clone());
        }
        Version::Fetch(v) => {
            parts.push(format!("HTTP {}", v.status));
            if !v.content_type.is_empty() {
                parts.push(v.content_type.clone());
            }
            parts.push(v.fetched_at.clone());
        }
        Version::File(v) => {
            if let Some(sha) = &v.sha256 {
                parts.push(format!("sha256 {}", &sha[..sha.len().min(12)]));
            }
            parts.extend(
                v.commit
                    .as_deref()
                    .map(|c| commit_words(c, (v.dirty, v.staged), "the file")),
            );
            parts.push(v.mtime.clone());
        }
        Version::Mcp(v) => {
            if v.is_error {
                parts.push("answered an error".into());
            }
            parts.extend(v.called_at.clone());
        }
        Version::Query(v) => {
            parts.push(plural(v.values, "value", "values"));
            parts.push(v.ran_at.clone());
        }
        Version::Ci(v) => {
            parts.push(format!(
                "attempt {} of {}",
                v.attempt,
                v.latest_attempt.max(v.attempt)
            ));
            parts.push(format!(
                "commit {}",
                &v.head_sha[..v.head_sha.len().min(12)]
            ));
            parts.push(v.conclusion.clone().unwrap_or_else(|| v.status.clone()));
            parts.push(v.fetched_at.clone());
        }
        Version::Map(v) => {
            parts.extend(
                v.commit
                    .as_deref()
                    .map(|c| commit_words(c, (v.dirty, v.staged), "the tree")),
            );
            parts.push(v.mapped_at.clone());
        }
        Version::Search(_) | Version::Text(_) | Version::Other { .. } => {}
    }
    parts.join(", ")
}

/// A commit in words: `commit a1b2c3d4e5f6`, then how `what` (`the file`, `the tree`)
/// stands to it: nothing when it is the commit's, ` (dirty)` when it differs, ` (dirty: a
/// change staged, not committed)` when git's index does, and when that cannot be told, so.
/// Never the clean tree's words for what is not known to be clean (issue 57).
pub(crate) fn commit_words(
    commit: &str,
    (dirty, staged): (Option<bool>, Option<bool>),
    what: &str,
) -> String {
    format!(
        "commit {}{}",
        &commit[..commit.len().min(12)],
        match (dirty, staged) {
            (Some(false), _) => String::new(),
            (Some(true), Some(true)) => " (dirty: a change staged, not committed)".to_owned(),
            (Some(true), _) => " (dirty)".to_owned(),
            (None, _) => format!(" (can't tell whether {what} differs from it)"),
        }
    )
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
