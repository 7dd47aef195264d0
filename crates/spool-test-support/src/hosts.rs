//! What the model receives: each host's rule for forwarding a tool result, applied to a real
//! result (TESTING.md, "What hosts forward to the model", checked 2026-12-01).
//!
//! - Claude Code (2.1.280): `JSON.stringify(structuredContent)` whenever a successful result
//!   has it, the text blocks dropped; an error result, the text only.
//! - Codex: the structured content when present and not null, else the content blocks as JSON.
//! - Text-only hosts: the text blocks.
//!
//! A test applies every rule to one result and checks each view alone: the facts, the shown
//! text once, a next call that can be read off the view and works, and the cap.

#![expect(
    clippy::missing_panics_doc,
    reason = "the assertions are test helpers: panicking is what they are for"
)]

use rmcp::model::CallToolResult;
use serde_json::{Map, Value};

/// A host, by how it forwards a tool result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    ClaudeCode,
    Codex,
    TextOnly,
}

impl Host {
    pub const ALL: [Host; 3] = [Host::ClaudeCode, Host::Codex, Host::TextOnly];

    pub fn name(self) -> &'static str {
        match self {
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
            Self::TextOnly => "text-only",
        }
    }
}

/// How a view is written: as JSON (a host that forwards structured content or the blocks as
/// JSON) or as plain text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Json,
    Text,
}

/// What the model receives from `result` in `host`.
#[derive(Debug, Clone)]
pub struct View {
    pub host: Host,
    pub shape: Shape,
    pub text: String,
}

fn text_blocks(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Applies `host`'s forwarding rule to `result`.
pub fn view(host: Host, result: &CallToolResult) -> View {
    let structured = result.structured_content.as_ref().filter(|v| !v.is_null());
    let is_error = result.is_error == Some(true);
    let json = |v: &Value| View {
        host,
        shape: Shape::Json,
        text: serde_json::to_string(v).unwrap_or_default(),
    };
    let text = || View {
        host,
        shape: Shape::Text,
        text: text_blocks(result),
    };
    match host {
        Host::ClaudeCode => match structured {
            Some(v) if !is_error => json(v),
            _ => text(),
        },
        Host::Codex => match structured {
            Some(v) => json(v),
            None => json(&serde_json::to_value(&result.content).unwrap_or(Value::Null)),
        },
        Host::TextOnly => text(),
    }
}

/// Every host's view of `result`.
pub fn views(result: &CallToolResult) -> Vec<View> {
    Host::ALL.into_iter().map(|h| view(h, result)).collect()
}

/// Every host's view of `result`, each checked alone: within `max_tokens`, holding each of
/// `facts`, and each of `once` exactly once.
pub fn check(result: &CallToolResult, max_tokens: u64, facts: &[&str], once: &[&str]) -> Vec<View> {
    let all = views(result);
    for v in &all {
        v.assert_within(max_tokens);
        for fact in facts {
            v.assert_has(fact);
        }
        for text in once {
            v.assert_once(text);
        }
    }
    all
}

/// Makes the next call each view names, read off the view alone, with `call`; each must work.
pub async fn follow_each<F, Fut>(views: &[View], call: F) -> Vec<CallToolResult>
where
    F: Fn(String, Map<String, Value>) -> Fut,
    Fut: Future<Output = CallToolResult>,
{
    let mut out = Vec::new();
    for v in views {
        let (tool, args) = v
            .next_call()
            .unwrap_or_else(|| panic!("{}: no next call in the view:\n{}", v.host.name(), v.text));
        let r = call(tool.clone(), args).await;
        assert_eq!(
            r.is_error,
            Some(false),
            "{}: the next call `{tool}` failed: {r:?}",
            v.host.name()
        );
        out.push(r);
    }
    out
}

impl View {
    /// The view parsed, when it is JSON.
    pub fn json(&self) -> Option<Value> {
        match self.shape {
            Shape::Json => serde_json::from_str(&self.text).ok(),
            Shape::Text => None,
        }
    }

    /// How often `needle` appears in what the model reads (escaped as the view writes it).
    pub fn count(&self, needle: &str) -> usize {
        let written = match self.shape {
            Shape::Text => needle.to_owned(),
            Shape::Json => {
                let quoted = serde_json::to_string(needle).unwrap_or_default();
                quoted[1..quoted.len() - 1].to_owned()
            }
        };
        if written.is_empty() {
            return 0;
        }
        self.text.matches(&written).count()
    }

    /// Panics unless `needle` appears exactly once.
    pub fn assert_once(&self, needle: &str) {
        let n = self.count(needle);
        assert_eq!(
            n,
            1,
            "{}: {needle:?} appears {n} times in what the model receives:\n{}",
            self.host.name(),
            self.text
        );
    }

    /// How often `needle` appears in the view as it is written, unescaped (a JSON item
    /// inside a JSON view, or a line of JSON in a text view).
    pub fn count_raw(&self, needle: &str) -> usize {
        self.text.matches(needle).count()
    }

    /// Panics unless `needle` appears at least once.
    pub fn assert_has(&self, needle: &str) {
        assert!(
            self.count(needle) >= 1,
            "{}: {needle:?} is not in what the model receives:\n{}",
            self.host.name(),
            self.text
        );
    }

    /// Tokens (o200k) of what the model receives.
    pub fn tokens(&self) -> u64 {
        spool_core::tokens::count(&self.text)
    }

    /// Panics unless the view fits `max_tokens` and the chars a host is told answers take.
    pub fn assert_within(&self, max_tokens: u64) {
        let tokens = self.tokens();
        assert!(
            tokens <= max_tokens,
            "{}: {tokens} tokens over the cap of {max_tokens}",
            self.host.name()
        );
        let chars = self.text.chars().count() as u64;
        let limit = spool_core::fit::chars_for(max_tokens);
        assert!(
            chars <= limit,
            "{}: {chars} chars over the {limit} a host is told",
            self.host.name()
        );
    }

    /// The first call the view tells the model to make next, as a tool name and arguments,
    /// read off the view itself: `next[0]` of a JSON view, the first call after `Next:`,
    /// `Next hits:`, `[more ...:` or `hint:` of a text view.
    pub fn next_call(&self) -> Option<(String, Map<String, Value>)> {
        match self.shape {
            Shape::Json => {
                let v = self.json()?;
                let next = v.get("next")?.as_array()?.first()?;
                Some((
                    next.get("tool")?.as_str()?.to_owned(),
                    next.get("arguments")?.as_object()?.clone(),
                ))
            }
            Shape::Text => {
                for marker in [
                    " Next: ",
                    " Next hits: ",
                    "[more entries: ",
                    "[more artifacts: ",
                ] {
                    if let Some(at) = self.text.find(marker) {
                        let line = self.text[at + marker.len()..].lines().next()?;
                        let line = if marker.starts_with('[') {
                            line.strip_suffix(']').unwrap_or(line)
                        } else {
                            line
                        };
                        let call = line.split(", or ").next()?;
                        return parse_call(call);
                    }
                }
                None
            }
        }
    }
}

/// Snapshot settings for views: refs, cursors, times, durations, hashes and temporary paths
/// filtered. Used by [`assert_view_snapshots!`](crate::assert_view_snapshots).
pub fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"\bsp_[a-z0-9]{10}\b", "sp_REF");
    settings.add_filter(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z", "[TIME]");
    settings.add_filter(
        r#""(duration_ms|started_at_ms|mtime_ms)":\d+"#,
        r#""$1":[N]"#,
    );
    settings.add_filter(r"cursor=[A-Za-z0-9_.\-]{20,}", "cursor=[CURSOR]");
    // A loopback server's port is chosen at run time.
    settings.add_filter(r"127\.0\.0\.1:\d+", "[HOST]");
    // A tree's digest holds its files' change times and inodes: new each run.
    settings.add_filter(
        r#""files_digest":"sha256:[0-9a-f]+""#,
        r#""files_digest":"[DIGEST]""#,
    );
    settings.add_filter(
        r#""(next_cursor|cursor)":"[A-Za-z0-9_.\-]{20,}""#,
        r#""$1":"[CURSOR]""#,
    );
    settings.add_filter(r"/tmp/\.tmp[A-Za-z0-9]+", "[ROOT]");
    settings.add_filter(r#""(sha256|commit)":"[0-9a-f]{12,}""#, r#""$1":"[HASH]""#);
    settings.add_filter(r"sha256 [0-9a-f]{12}", "sha256 [HASH]");
    settings.add_filter(r#""called_at":"[^"]*""#, r#""called_at":"[TIME]""#);
    settings
}

/// Snapshots each view as `NAME__HOST` beside the calling test (filtered by
/// [`snapshot_settings`]).
#[macro_export]
macro_rules! assert_view_snapshots {
    ($name:expr, $views:expr) => {{
        let views: &[$crate::hosts::View] = $views;
        $crate::hosts::snapshot_settings().bind(|| {
            for v in views {
                ::insta::assert_snapshot!(format!("{}__{}", $name, v.host.name()), v.text);
            }
        });
    }};
}

/// An MCP call as spool writes it in words (`read ref=sp_x line=97 limit=400`): the tool, then
/// `key=value` pairs whose values are numbers, booleans, JSON (quoted strings, arrays) or bare
/// words.
pub fn parse_call(words: &str) -> Option<(String, Map<String, Value>)> {
    let mut parts = words.trim().splitn(2, ' ');
    let tool = parts.next()?.to_owned();
    let mut rest = parts.next().unwrap_or("").trim();
    let mut args = Map::new();
    while !rest.is_empty() {
        let eq = rest.find('=')?;
        let key = rest[..eq].trim().to_owned();
        let after = &rest[eq + 1..];
        // A JSON value (quoted string, array) runs as far as it parses; a bare word to a space.
        let mut stream = serde_json::Deserializer::from_str(after).into_iter::<Value>();
        let json = match (after.starts_with(['"', '[', '{']), stream.next()) {
            (true, Some(Ok(value))) => Some((value, stream.byte_offset())),
            _ => None,
        };
        let (value, used) = if let Some(json) = json {
            json
        } else {
            let end = after.find(' ').unwrap_or(after.len());
            let word = &after[..end];
            let value = serde_json::from_str::<Value>(word)
                .ok()
                .filter(|v| v.is_number() || v.is_boolean())
                .unwrap_or_else(|| Value::String(word.to_owned()));
            (value, end)
        };
        args.insert(key, value);
        rest = after[used..].trim_start();
    }
    Some((tool, args))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_in_words_parses_back() {
        let (tool, args) =
            parse_call("search path=. pattern=\"a b\" glob=[\"*.rs\"] limit=2 literal=true")
                .unwrap();
        assert_eq!(tool, "search");
        assert_eq!(args["path"], ".");
        assert_eq!(args["pattern"], "a b");
        assert_eq!(args["glob"], serde_json::json!(["*.rs"]));
        assert_eq!(args["limit"], 2);
        assert_eq!(args["literal"], true);
    }

    #[test]
    fn each_host_forwards_its_part() {
        let mut r = CallToolResult::success(vec![rmcp::model::ContentBlock::text("words")]);
        r.structured_content = Some(serde_json::json!({ "notice": "n", "content": "words" }));
        assert_eq!(
            view(Host::ClaudeCode, &r).text,
            r#"{"notice":"n","content":"words"}"#
        );
        assert_eq!(
            view(Host::Codex, &r).text,
            r#"{"notice":"n","content":"words"}"#
        );
        assert_eq!(view(Host::TextOnly, &r).text, "words");
        r.is_error = Some(true);
        assert_eq!(
            view(Host::ClaudeCode, &r).text,
            "words",
            "an error: the text only"
        );
        r.structured_content = None;
        assert!(view(Host::Codex, &r).text.starts_with(r#"[{"type":"text""#));
    }
}
