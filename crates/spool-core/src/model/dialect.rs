//! How calls and their arguments are spelled in each dialect: as MCP tool calls
//! (`read ref=sp_x line=97`) or as `spool` command lines (`spool read sp_x --lines 97:`).
//!
//! Every call an answer prints is a typed [`NextCall`] until here, and hints that name an
//! argument or a call are typed [`Words`]; both are written in the caller's dialect only when
//! the answer is rendered, so a CLI answer never prints a call the CLI cannot run.

use std::fmt;

use serde_json::Value;

use crate::envelope::NextCall;

/// How next calls are spelled: as MCP tool calls, or as `spool` command lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Mcp,
    Cli,
}

/// `call` in `dialect`.
pub fn call(call: &NextCall, dialect: Dialect) -> String {
    match dialect {
        Dialect::Mcp => call_text(call),
        Dialect::Cli => cli_text(call),
    }
}

fn arg_text(v: &Value) -> String {
    match v {
        Value::String(s) if s == "<regex>" => "...".into(),
        // Bare only where a reader cannot take it for another type: `cursor=200` would be the
        // number 200, which a tool taking a string refuses (regression: an upstream's cursor).
        Value::String(s)
            if !s.is_empty()
                && !s.contains(|c: char| c.is_whitespace() || c == '"')
                && serde_json::from_str::<Value>(s).is_err() =>
        {
            s.clone()
        }
        other => other.to_string(),
    }
}

/// An MCP call in words: `read ref=sp_3k9x2a7q line=97 limit=400`.
pub fn call_text(call: &NextCall) -> String {
    let mut out = call.tool.clone();
    for (k, v) in &call.arguments {
        out.push(' ');
        out.push_str(k);
        out.push('=');
        out.push_str(&arg_text(v));
    }
    out
}

/// `s` as one word for `sh`: as it is when safe, else single-quoted.
pub fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// An `A:B` span flag: `--lines 97:496`, or `--lines 97:` for "from here on".
fn span(flag: &str, start: u64, end: Option<u64>) -> String {
    match end {
        Some(end) => format!(" --{flag} {start}:{end}"),
        None => format!(" --{flag} {start}:"),
    }
}

/// The CLI flags of the options every answering command shares.
fn common_flags(a: &serde_json::Map<String, Value>, out: &mut String) {
    if let Some(max) = a.get("max_tokens").and_then(Value::as_u64) {
        out.push_str(&format!(" --max-tokens {max}"));
    }
    if let Some(cursor) = a.get("cursor").and_then(Value::as_str) {
        out.push_str(&format!(" --cursor {cursor}"));
    }
}

/// The same call as a `spool` command line. Every tool the CLI mirrors is spelled as its
/// command; a tool only a server has (an upstream's own) stays an MCP call.
pub fn cli_text(call: &NextCall) -> String {
    let a = &call.arguments;
    let num = |k: &str| a.get(k).and_then(Value::as_u64);
    let text = |k: &str| a.get(k).and_then(Value::as_str);
    let flag = |k: &str| a.get(k).and_then(Value::as_bool) == Some(true);
    // The thing a call reads: its ref, else its path.
    let target = || {
        text("ref")
            .map(str::to_owned)
            .or_else(|| text("path").map(shell_word))
    };
    let mut out = String::new();
    match call.tool.as_str() {
        "read" => {
            let target = target().unwrap_or_else(|| "REF".into());
            if let Some(line) = num("line") {
                // A continuation of a request for "all the rest" carries a huge count.
                let end = num("limit").map(|l| line.saturating_add(l).saturating_sub(1));
                out.push_str(&span("lines", line, end));
            } else if let Some(off) = num("char_offset") {
                let end = num("max_chars").map(|m| off.saturating_add(m));
                out.push_str(&span("chars", off, end));
            } else if let Some(off) = num("byte_offset") {
                let end = num("max_bytes").map(|m| off.saturating_add(m));
                out.push_str(&span("bytes", off, end));
            }
            if let Some(preview) = text("preview") {
                out.push_str(&format!(" --preview {}", preview.replace('_', "-")));
            }
            if let Some(stream) = text("stream") {
                out.push_str(&format!(" --stream {}", shell_word(stream)));
            }
            find_flags(a, &mut out);
            common_flags(a, &mut out);
            if target.starts_with('-') || target.starts_with("'-") {
                // Options first, so that the path can stand after `--`.
                format!("spool read{out} -- {target}")
            } else {
                format!("spool read {target}{out}")
            }
        }
        "search" if text("query").is_some() => {
            let words = shell_word(text("query").unwrap_or_default());
            let target = target().unwrap_or_else(|| "REF".into());
            if flag("hidden") {
                out.push_str(" --hidden");
            }
            if flag("no_ignore") {
                out.push_str(" --no-ignore");
            }
            glob_flags(a, &mut out);
            if let Some(limit) = num("limit") {
                out.push_str(&format!(" --limit {limit}"));
            }
            common_flags(a, &mut out);
            if target.starts_with('-') || target.starts_with("'-") {
                // Options first, so that the target can stand after `--`.
                format!("spool search --query {words}{out} -- {target}")
            } else {
                format!("spool search --query {words} {target}{out}")
            }
        }
        "search" => {
            let pattern = match text("pattern") {
                Some("<regex>") | None => "PATTERN".to_owned(),
                Some(p) => shell_word(p),
            };
            let target = target().unwrap_or_else(|| "REF".into());
            if flag("literal") {
                out.push_str(" -F");
            }
            if flag("case_insensitive") {
                out.push_str(" -i");
            }
            if flag("hidden") {
                out.push_str(" --hidden");
            }
            if flag("no_ignore") {
                out.push_str(" --no-ignore");
            }
            if flag("count") {
                out.push_str(" --count");
            }
            if let Some(context) = num("context").filter(|c| *c > 0) {
                out.push_str(&format!(" -C {context}"));
            }
            glob_flags(a, &mut out);
            if let Some(limit) = num("limit") {
                out.push_str(&format!(" --limit {limit}"));
            }
            common_flags(a, &mut out);
            let dashed = |w: &str| w.starts_with('-') || w.starts_with("'-");
            if dashed(&pattern) || dashed(&target) {
                // Options first, so that the pattern and the target can stand after `--`.
                format!("spool search{out} -- {pattern} {target}")
            } else {
                format!("spool search {pattern} {target}{out}")
            }
        }
        "list" => {
            let path = text("path").unwrap_or(".");
            out.push_str(&format!("spool ls {}", shell_word(path)));
            if flag("recursive") {
                out.push_str(" -r");
            }
            if flag("hidden") {
                out.push_str(" --hidden");
            }
            if let Some(glob) = text("glob") {
                out.push_str(&format!(" --glob {}", shell_word(glob)));
            }
            if let Some(limit) = num("limit") {
                out.push_str(&format!(" --limit {limit}"));
            }
            common_flags(a, &mut out);
            out
        }
        "artifacts" => {
            out.push_str("spool artifacts");
            if let Some(kind) = text("kind") {
                out.push_str(&format!(" --kind {}", shell_word(kind)));
            }
            if let Some(limit) = num("limit") {
                out.push_str(&format!(" --limit {limit}"));
            }
            common_flags(a, &mut out);
            out
        }
        "fetch" => {
            out.push_str(&format!(
                "spool fetch {}",
                shell_word(text("url").unwrap_or("URL"))
            ));
            if let Some(format) = text("format").filter(|f| *f != "markdown") {
                out.push_str(&format!(" --format {}", shell_word(format)));
            }
            if flag("refresh") {
                out.push_str(" --refresh");
            }
            find_flags(a, &mut out);
            common_flags(a, &mut out);
            out
        }
        "run" => {
            out.push_str("spool run");
            if let Some(cwd) = text("cwd") {
                out.push_str(&format!(" --cwd {}", shell_word(cwd)));
            }
            if let Some(t) = a.get("timeout_s").and_then(Value::as_f64) {
                out.push_str(&format!(" --timeout {t}"));
            }
            if let Some(preview) = text("preview") {
                out.push_str(&format!(" --preview {}", preview.replace('_', "-")));
            }
            common_flags(a, &mut out);
            let argv: Vec<String> = a
                .get("argv")
                .and_then(Value::as_array)
                .map(|v| v.iter().filter_map(Value::as_str).map(shell_word).collect())
                .unwrap_or_default();
            match text("command") {
                Some(cmd) => format!("{out} -- sh -c {}", shell_word(cmd)),
                None => format!("{out} -- {}", argv.join(" ")),
            }
        }
        "query" => {
            out.push_str(&format!(
                "spool query {} {}",
                text("ref").unwrap_or("REF"),
                shell_word(text("jq").unwrap_or("."))
            ));
            if let Some(limit) = num("limit") {
                out.push_str(&format!(" --limit {limit}"));
            }
            common_flags(a, &mut out);
            out
        }
        "ci_log" => {
            out.push_str(&format!(
                "spool ci-log {} {}",
                shell_word(text("repo").unwrap_or("OWNER/REPO")),
                num("run_id").map_or_else(|| "RUN_ID".to_owned(), |n| n.to_string())
            ));
            if let Some(attempt) = num("attempt") {
                out.push_str(&format!(" --attempt {attempt}"));
            }
            if let Some(job) = text("job") {
                out.push_str(&format!(" --job {}", shell_word(job)));
            }
            common_flags(a, &mut out);
            out
        }
        "map" => {
            for focus in a
                .get("focus")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                // `=` keeps a focus that starts with `-` a value.
                out.push_str(&format!(" --focus={}", shell_word(focus)));
            }
            common_flags(a, &mut out);
            let path = text("path").unwrap_or(".");
            if path.starts_with('-') {
                // Options first, so that the path can stand after `--`.
                format!("spool map{out} -- {}", shell_word(path))
            } else {
                format!("spool map {}{out}", shell_word(path))
            }
        }
        "audit" => {
            out.push_str("spool audit");
            if let Some(r) = text("ref") {
                out.push_str(&format!(" {r}"));
            }
            out
        }
        "gc" => "spool gc".to_owned(),
        _ => call_text(call),
    }
}

/// A search's globs, as `-g GLOB` flags.
fn glob_flags(a: &serde_json::Map<String, Value>, out: &mut String) {
    for glob in a
        .get("glob")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        out.push_str(&format!(" -g {}", shell_word(glob)));
    }
}

/// What a `read` or `fetch` asks to find, as flags: `--query WORDS`, or `--pattern P` with
/// `-F` and `-i`.
fn find_flags(a: &serde_json::Map<String, Value>, out: &mut String) {
    let text = |k: &str| a.get(k).and_then(Value::as_str);
    let flag = |k: &str| a.get(k).and_then(Value::as_bool) == Some(true);
    if let Some(words) = text("query") {
        out.push_str(&format!(" --query {}", shell_word(words)));
    }
    if let Some(pattern) = text("pattern") {
        // `=` keeps a pattern that starts with `-` a value.
        out.push_str(&format!(" --pattern={}", shell_word(pattern)));
        if flag("literal") {
            out.push_str(" -F");
        }
        if flag("case_insensitive") {
            out.push_str(" -i");
        }
    }
}

/// Words that may name an argument or a call: a hint, or an error's message. Written in the
/// caller's dialect at the edge ("ask for \`limit\` 100" over MCP, "ask for \`--limit 100\`"
/// in the CLI); `Display` writes the MCP spelling.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Words(Vec<Word>);

#[derive(Debug, Clone, PartialEq)]
enum Word {
    Text(String),
    /// An argument of `tool`, and the value to give it.
    Arg {
        tool: &'static str,
        name: &'static str,
        value: Option<String>,
    },
    Call(Box<NextCall>),
}

impl Words {
    pub fn text(s: impl Into<String>) -> Self {
        Self(vec![Word::Text(s.into())])
    }

    /// Words that continue with `s`.
    #[must_use]
    pub fn then(mut self, s: impl Into<String>) -> Self {
        self.0.push(Word::Text(s.into()));
        self
    }

    /// Words that name the argument `name` of `tool` (the CLI spells it as its flag).
    #[must_use]
    pub fn arg(mut self, tool: &'static str, name: &'static str) -> Self {
        self.0.push(Word::Arg {
            tool,
            name,
            value: None,
        });
        self
    }

    /// Words that name the argument `name` of `tool` with a value.
    #[must_use]
    pub fn arg_value(
        mut self,
        tool: &'static str,
        name: &'static str,
        value: impl fmt::Display,
    ) -> Self {
        self.0.push(Word::Arg {
            tool,
            name,
            value: Some(value.to_string()),
        });
        self
    }

    /// Words that name a call that works, in backticks.
    #[must_use]
    pub fn call(mut self, call: NextCall) -> Self {
        self.0.push(Word::Call(Box::new(call)));
        self
    }

    /// The words in `dialect`.
    pub fn spell(&self, dialect: Dialect) -> String {
        let mut out = String::new();
        for word in &self.0 {
            match word {
                Word::Text(t) => out.push_str(t),
                Word::Arg { tool, name, value } => {
                    out.push_str(&arg(tool, name, value.as_deref(), dialect));
                }
                Word::Call(c) => {
                    out.push('`');
                    out.push_str(&call(c, dialect));
                    out.push('`');
                }
            }
        }
        out
    }
}

impl From<String> for Words {
    fn from(s: String) -> Self {
        Self::text(s)
    }
}

impl From<&str> for Words {
    fn from(s: &str) -> Self {
        Self::text(s)
    }
}

impl fmt::Display for Words {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.spell(Dialect::Mcp))
    }
}

/// One argument in `dialect`: `` `limit` 100 `` over MCP (the name in backticks), the flag
/// `` `--limit 100` `` in the CLI.
fn arg(tool: &str, name: &str, value: Option<&str>, dialect: Dialect) -> String {
    if dialect == Dialect::Mcp {
        return match value {
            Some(v) => format!("`{name}` {v}"),
            None => format!("`{name}`"),
        };
    }
    let flag = match (tool, name) {
        ("read", "line") => "--lines".to_owned(),
        ("read", "char_offset") => "--chars".to_owned(),
        ("read", "byte_offset") => "--bytes".to_owned(),
        ("search" | "read" | "fetch", "literal") => return "`-F`".to_owned(),
        ("search" | "read" | "fetch", "case_insensitive") => return "`-i`".to_owned(),
        ("search", "context") => "-C".to_owned(),
        ("search", "glob") => "-g".to_owned(),
        ("run", "timeout_s") => "--timeout".to_owned(),
        (_, name) => format!("--{}", name.replace('_', "-")),
    };
    let span_start = matches!(name, "line" | "char_offset" | "byte_offset");
    match value {
        Some(v) if span_start => format!("`{flag} {v}:`"),
        Some(v) => format!("`{flag} {v}`"),
        None => format!("`{flag}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_argument_is_its_name_over_mcp_and_its_flag_in_the_cli() {
        let w = Words::text("ask for ").arg_value("search", "limit", 100);
        assert_eq!(w.spell(Dialect::Mcp), "ask for `limit` 100");
        assert_eq!(w.spell(Dialect::Cli), "ask for `--limit 100`");
        let w = Words::text("ask for ")
            .arg_value("read", "line", 1)
            .then(" or later");
        assert_eq!(w.spell(Dialect::Cli), "ask for `--lines 1:` or later");
    }

    #[test]
    fn every_mirrored_tool_is_spelled_as_its_command() {
        let fetch = NextCall::new(
            "fetch",
            [
                ("url", json!("http://127.0.0.1:8/a b")),
                ("refresh", json!(true)),
            ],
        );
        assert_eq!(
            cli_text(&fetch),
            "spool fetch 'http://127.0.0.1:8/a b' --refresh"
        );
        let read = NextCall::new("read", [("path", json!("/tmp/x y.txt"))]);
        assert_eq!(cli_text(&read), "spool read '/tmp/x y.txt'");
        let page = NextCall::new("read", [("ref", json!("sp_x")), ("cursor", json!("c1"))]);
        assert_eq!(cli_text(&page), "spool read sp_x --cursor c1");
        let query = NextCall::new(
            "query",
            [
                ("ref", json!("sp_x")),
                ("jq", json!("map(select(.a == \"b\")) | length")),
            ],
        );
        assert_eq!(
            cli_text(&query),
            "spool query sp_x 'map(select(.a == \"b\")) | length'"
        );
    }
}
