//! How calls and their arguments are spelled in each dialect: as MCP tool calls
//! (`read ref=sp_x line=97`) or as `spool` command lines (`spool read sp_x --lines 97:`).
//!
//! Every call an answer prints is a typed [`NextCall`] until here, and hints that name an
//! argument or a call are typed [`Words`]; both are written in the caller's dialect only when
//! the answer is rendered, so a CLI answer never prints a call the CLI cannot run.

use std::fmt;

use serde_json::Value;

use crate::calls::ToolName;
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
    let mut out = call.tool().to_owned();
    for (k, v) in &call.arguments() {
        out.push(' ');
        out.push_str(k);
        out.push('=');
        out.push_str(&arg_text(v));
    }
    out
}

pub use crate::calls::shell_word;

/// The same call as a `spool` command line, spelled from the command's own clap definition.
/// A tool only a server has (an upstream's own) stays an MCP call.
pub fn cli_text(call: &NextCall) -> String {
    call.command_line().unwrap_or_else(|| call_text(call))
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
        tool: ToolName,
        name: &'static str,
        value: Option<String>,
    },
    Call(Box<NextCall>),
    /// A setting a server or store is started with, and its value.
    Setting {
        name: &'static str,
        value: String,
    },
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
    pub fn arg(mut self, tool: ToolName, name: &'static str) -> Self {
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
        tool: ToolName,
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

    /// Words that name the setting `name` a server, a proxy or a store is started with, and
    /// its value: `--max-tokens 500` on the command line, `` `max_tokens` 500 `` elsewhere.
    #[must_use]
    pub fn setting(mut self, name: &'static str, value: impl fmt::Display) -> Self {
        self.0.push(Word::Setting {
            name,
            value: value.to_string(),
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
                    out.push_str(&arg(*tool, name, value.as_deref(), dialect));
                }
                Word::Setting { name, value } => out.push_str(&match dialect {
                    Dialect::Mcp => format!("`{name}` {value}"),
                    Dialect::Cli => format!("`--{} {value}`", name.replace('_', "-")),
                }),
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
/// `` `--limit 100` `` in the CLI, as its command's clap definition spells it.
fn arg(tool: ToolName, name: &str, value: Option<&str>, dialect: Dialect) -> String {
    if dialect == Dialect::Cli
        && let Some(words) = tool.cli_argument(name, value)
    {
        return format!("`{words}`");
    }
    debug_assert!(
        dialect == Dialect::Mcp,
        "`spool {}` has no argument for `{name}`",
        tool.command().get_name()
    );
    match value {
        Some(v) => format!("`{name}` {v}"),
        None => format!("`{name}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_argument_is_its_name_over_mcp_and_its_flag_in_the_cli() {
        let w = Words::text("ask for ").arg_value(ToolName::Search, "limit", 100);
        assert_eq!(w.spell(Dialect::Mcp), "ask for `limit` 100");
        assert_eq!(w.spell(Dialect::Cli), "ask for `--limit 100`");
        let w = Words::text("ask for ")
            .arg_value(ToolName::Read, "line", 1)
            .then(" or later");
        assert_eq!(w.spell(Dialect::Cli), "ask for `--lines 1:` or later");
    }

    #[test]
    fn every_mirrored_tool_is_spelled_as_its_command() {
        use crate::calls::{FetchParams, FormatArg, QueryParams, ReadParams, Target};
        let fetch = NextCall::Fetch(FetchParams {
            refresh: true,
            ..FetchParams::new("http://127.0.0.1:8/a b", FormatArg::Markdown)
        });
        assert_eq!(
            cli_text(&fetch),
            "spool fetch 'http://127.0.0.1:8/a b' --refresh"
        );
        let read = NextCall::Read(ReadParams::of(Target::path("/tmp/x y.txt")));
        assert_eq!(cli_text(&read), "spool read '/tmp/x y.txt'");
        let page = NextCall::Read(ReadParams::of(Target::reference("sp_x"))).with_cursor("c1");
        assert_eq!(cli_text(&page), "spool read sp_x --cursor c1");
        let query = NextCall::Query(QueryParams::new(
            "sp_x",
            "map(select(.a == \"b\")) | length",
        ));
        assert_eq!(
            cli_text(&query),
            "spool query sp_x 'map(select(.a == \"b\")) | length'"
        );
        let upstream = NextCall::upstream(
            "get_issues",
            [("page".to_owned(), json!(2))].into_iter().collect(),
        );
        assert_eq!(cli_text(&upstream), "get_issues page=2");
    }
}
