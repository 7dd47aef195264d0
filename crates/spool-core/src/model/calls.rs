//! Every tool's arguments, typed, and the calls an answer prints made of them.
//!
//! A tool's arguments are one struct (`ReadParams`, `SearchParams`, ...): serde reads them as a
//! model sends them, schemars lists them for a host (the doc comments are the descriptions), and
//! clap parses them as a person types them, with the few command-line shapes of its own (a ref
//! or path as the first word, `--lines A:B`) beside the struct in its `...Command`. A call an
//! answer prints, [`NextCall`], holds that same struct, so a call names only arguments its tool
//! has, with values of their types.
//!
//! The dialects print a call from the struct: MCP's words and the envelope's JSON from its
//! serde form, the command line from clap's own definition of the command
//! ([`command_line`]). Before this, 35 sites built calls from literal tool and argument names,
//! and a separate 214-line function turned them back into flags by hand; only tests that ran
//! the printed calls kept the two in step with the parser.
//!
//! The structs live here, in the model, because the engines below the tool set build the calls
//! (a window's continuation, a search's next page); the tool set holds each tool's handler.

use std::fmt;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

mod artifacts;
mod ci_log;
pub mod command_line;
mod fetch;
mod list;
mod map;
mod query;
mod read;
mod run;
mod search;

pub use artifacts::ArtifactsParams;
pub use ci_log::{CI_LOG_COMMAND, CiLogParams};
pub use command_line::shell_word;
pub use fetch::{FetchParams, FormatArg};
pub use list::{LIST_COMMAND, ListParams};
pub use map::MapParams;
pub use query::QueryParams;
pub use read::{ReadCommand, ReadParams, Span};
pub use run::RunParams;
pub use search::{Misread, SearchCommand, SearchParams};

/// The largest cap an answer may ask for.
pub const MAX_MAX_TOKENS: u64 = 1_000_000;
/// The smallest cap an answer may ask for: a partial answer sends its facts twice (the banner
/// in the text, `notice` and the fields in the structured content), and each part must fit.
pub const MIN_MAX_TOKENS: u64 = 512;
/// The most lines a window may ask for: the largest answer's tokens, a line costing at least
/// one.
pub const MAX_LINES: u64 = MAX_MAX_TOKENS;
/// The largest page of search hits (or files, for counts).
pub const MAX_HITS: usize = 1_000;
/// The largest page of a directory's entries.
pub const MAX_ENTRIES: usize = 1_000;
/// The largest page of stored artifacts.
pub const MAX_ARTIFACTS: usize = 1_000;

/// What `--max-tokens` does on the command line, where no server sets the default.
const CLI_MAX_TOKENS: &str =
    "Cap of the shown part, in tokens (default 8,000; a few screens when the output is a terminal)";
/// What `--max-tokens` does for a page of hits or entries on the command line.
const CLI_PAGE_MAX_TOKENS: &str =
    "Cap of the answer, in tokens (default 8,000): a larger page holds fewer and says so";

/// What a call holds where the reader's own regex goes.
pub const PLACEHOLDER: &str = "<regex>";

/// Whether `pattern` is how a template's placeholder is printed in some dialect (`<regex>` in
/// the JSON, `...` in an MCP call's words, `PATTERN` in a command line): given verbatim as a
/// regex it is a template followed without its blank filled in, never a search.
pub fn is_placeholder(pattern: &str) -> bool {
    matches!(pattern, PLACEHOLDER | "..." | "PATTERN")
}

/// spool's own tools, by the name a model calls them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolName {
    Read,
    Search,
    Query,
    List,
    Artifacts,
    Run,
    Fetch,
    CiLog,
    Map,
}

impl ToolName {
    /// Every tool, in the order the tool table lists them.
    pub const ALL: [Self; 9] = [
        Self::Read,
        Self::Search,
        Self::Query,
        Self::List,
        Self::Artifacts,
        Self::Run,
        Self::Fetch,
        Self::CiLog,
        Self::Map,
    ];

    /// The definition of its `spool` command.
    pub fn command(self) -> &'static clap::Command {
        match self {
            Self::Read => read::command(),
            Self::Search => search::command(),
            Self::Query => query::command(),
            Self::List => list::command(),
            Self::Artifacts => artifacts::command(),
            Self::Run => run::command(),
            Self::Fetch => fetch::command(),
            Self::CiLog => ci_log::command(),
            Self::Map => map::command(),
        }
    }

    /// The argument of its `spool` command that says the field `name` (`--lines` says `line`
    /// and `limit` of a read).
    fn cli_id(self, name: &str) -> &str {
        match self {
            Self::Read => read::cli_id(name),
            Self::Search => search::cli_id(name),
            Self::Query => query::cli_id(name),
            Self::Run => run::cli_id(name),
            Self::List | Self::Artifacts | Self::Fetch | Self::CiLog | Self::Map => name,
        }
    }

    /// The field `name` as a hint names it on the command line (`--limit 100`, `-F`, `--lines
    /// 97:`, `PATTERN`), with `value` when given; none when the command cannot say it.
    pub fn cli_argument(self, name: &str, value: Option<&str>) -> Option<String> {
        let id = self.cli_id(name);
        // A range's start is said as the range from it on.
        let value = match (self, name, value) {
            (Self::Read, "line" | "char_offset" | "byte_offset", Some(v)) => Some(format!("{v}:")),
            (_, _, v) => v.map(str::to_owned),
        };
        command_line::argument(self.command(), id, value.as_deref())
    }

    /// The name a model calls it by.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Search => "search",
            Self::Query => "query",
            Self::List => "list",
            Self::Artifacts => "artifacts",
            Self::Run => "run",
            Self::Fetch => "fetch",
            Self::CiLog => "ci_log",
            Self::Map => "map",
        }
    }

    /// The tool called `name`.
    pub fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One tool's arguments: which tool they are for, and the order a call lists them in.
pub trait Arguments: Serialize {
    /// The tool these are the arguments of.
    const TOOL: ToolName;
    /// The order a printed call names its arguments in (the MCP words and the JSON): the
    /// target first, then what it looks for, the flags, the page, the cap. Arguments not named
    /// here follow in their struct's order.
    const ORDER: &'static [&'static str];
}

/// A call that works verbatim: one of spool's tools with its typed arguments, or a tool only a
/// server has (an upstream's own, relayed by `spool wrap`) with the arguments it takes.
///
/// Its JSON is `{"tool": NAME, "arguments": {...}}`, the arguments without their defaults
/// (no nulls, no `false`, no empty lists), in the tool's [`Arguments::ORDER`].
#[derive(Debug, Clone, PartialEq)]
pub enum NextCall {
    Read(ReadParams),
    Search(SearchParams),
    Query(QueryParams),
    List(ListParams),
    Artifacts(ArtifactsParams),
    Run(RunParams),
    Fetch(FetchParams),
    CiLog(CiLogParams),
    Map(MapParams),
    /// A tool spool does not define: its name and arguments as the upstream takes them.
    Upstream {
        tool: String,
        arguments: Map<String, Value>,
    },
}

/// Runs `$body` with `$p` bound to the typed arguments of whichever of spool's tools `$call`
/// is; `$other` for an upstream's.
macro_rules! each_tool {
    ($call:expr, $p:ident => $body:expr, $other:pat => $otherwise:expr) => {
        match $call {
            NextCall::Read($p) => $body,
            NextCall::Search($p) => $body,
            NextCall::Query($p) => $body,
            NextCall::List($p) => $body,
            NextCall::Artifacts($p) => $body,
            NextCall::Run($p) => $body,
            NextCall::Fetch($p) => $body,
            NextCall::CiLog($p) => $body,
            NextCall::Map($p) => $body,
            $other => $otherwise,
        }
    };
}

impl NextCall {
    /// A call of an upstream's tool (or of any tool by name, as a server relays it).
    pub fn upstream(tool: impl Into<String>, arguments: Map<String, Value>) -> Self {
        Self::Upstream {
            tool: tool.into(),
            arguments,
        }
    }

    /// A search of `target` by a regex the reader chooses: a template, whose `pattern` is
    /// [`PLACEHOLDER`] (`PATTERN` in the CLI). It belongs in `next_templates`, never in `next`:
    /// `next` holds only calls that run as printed.
    pub fn search_template(target: Target) -> Self {
        Self::Search(SearchParams {
            pattern: Some(PLACEHOLDER.to_owned()),
            ..SearchParams::of(target)
        })
    }

    /// The call of `tool` named in JSON: spool's own tool when the arguments are its (typed),
    /// else as given. A stored call is read back so.
    pub fn from_parts(tool: &str, arguments: Map<String, Value>) -> Self {
        fn typed<P: serde::de::DeserializeOwned>(
            arguments: &Map<String, Value>,
            wrap: fn(P) -> NextCall,
        ) -> Option<NextCall> {
            serde_json::from_value(Value::Object(arguments.clone()))
                .ok()
                .map(wrap)
        }
        let parsed = match ToolName::named(tool) {
            Some(ToolName::Read) => typed(&arguments, Self::Read),
            Some(ToolName::Search) => typed(&arguments, Self::Search),
            Some(ToolName::Query) => typed(&arguments, Self::Query),
            Some(ToolName::List) => typed(&arguments, Self::List),
            Some(ToolName::Artifacts) => typed(&arguments, Self::Artifacts),
            Some(ToolName::Run) => typed(&arguments, Self::Run),
            Some(ToolName::Fetch) => typed(&arguments, Self::Fetch),
            Some(ToolName::CiLog) => typed(&arguments, Self::CiLog),
            Some(ToolName::Map) => typed(&arguments, Self::Map),
            None => None,
        };
        parsed.unwrap_or_else(|| Self::upstream(tool, arguments))
    }

    /// The tool this calls, when it is one of spool's own.
    pub fn spool_tool(&self) -> Option<ToolName> {
        each_tool!(self, p => Some(tool_of(p)), Self::Upstream { .. } => None)
    }

    /// The name of the tool this calls.
    pub fn tool(&self) -> &str {
        match self {
            Self::Upstream { tool, .. } => tool,
            typed => typed.spool_tool().map_or("", ToolName::as_str),
        }
    }

    /// The arguments as the call's JSON holds them: without their defaults, in the tool's
    /// order.
    pub fn arguments(&self) -> Map<String, Value> {
        each_tool!(self, p => listed(p), Self::Upstream { arguments, .. } => arguments.clone())
    }

    /// One argument's value, as the call's JSON holds it.
    pub fn argument(&self, name: &str) -> Option<Value> {
        self.arguments().shift_remove(name)
    }

    /// Whether an argument of this call is a placeholder the reader must fill in.
    pub fn is_template(&self) -> bool {
        self.arguments()
            .values()
            .any(|v| v.as_str().is_some_and(is_placeholder))
    }

    /// The call as a `spool` command line, spelled from the command's clap definition; none
    /// for a tool the CLI does not have (an upstream's), or a call it cannot say.
    pub fn command_line(&self) -> Option<String> {
        match self {
            Self::Read(p) => read::command_line(p),
            Self::Search(p) => search::command_line(p),
            Self::Query(p) => query::command_line(p),
            Self::List(p) => list::command_line(p),
            Self::Artifacts(p) => artifacts::command_line(p),
            Self::Run(p) => run::command_line(p),
            Self::Fetch(p) => fetch::command_line(p),
            Self::CiLog(p) => ci_log::command_line(p),
            Self::Map(p) => map::command_line(p),
            Self::Upstream { .. } => None,
        }
    }

    /// The same call continuing at `cursor` (the next page of what it lists).
    #[must_use]
    pub fn with_cursor(mut self, cursor: &str) -> Self {
        let cursor = Some(cursor.to_owned());
        match &mut self {
            Self::Read(p) => p.cursor = cursor,
            Self::Search(p) => p.cursor = cursor,
            Self::List(p) => p.cursor = cursor,
            Self::Artifacts(p) => p.cursor = cursor,
            Self::Map(p) => p.cursor = cursor,
            Self::Upstream { arguments, .. } => {
                arguments.insert("cursor".into(), Value::from(cursor));
            }
            Self::Query(_) | Self::Run(_) | Self::Fetch(_) | Self::CiLog(_) => {
                debug_assert!(false, "`{}` takes no cursor", self.tool());
            }
        }
        self
    }
}

fn tool_of<P: Arguments>(_: &P) -> ToolName {
    P::TOOL
}

/// `p` as a call lists it: its fields that differ from their defaults, in `P::ORDER`.
fn listed<P: Arguments>(p: &P) -> Map<String, Value> {
    let Ok(Value::Object(mut fields)) = serde_json::to_value(p) else {
        return Map::new();
    };
    fields.retain(|_, v| !is_default(v));
    let mut out = Map::with_capacity(fields.len());
    for name in P::ORDER {
        if let Some((k, v)) = fields.shift_remove_entry(*name) {
            out.insert(k, v);
        }
    }
    out.extend(fields);
    out
}

/// Whether a field's JSON is what leaving it out gives.
fn is_default(v: &Value) -> bool {
    match v {
        Value::Null | Value::Bool(false) => true,
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

/// What a call reads: a stored artifact by its ref, or a file or directory by its path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Ref(String),
    Path(String),
}

impl Target {
    /// The artifact `reference`.
    pub fn reference(reference: impl Into<String>) -> Self {
        Self::Ref(reference.into())
    }

    /// The file or directory at `path`.
    pub fn path(path: impl Into<String>) -> Self {
        Self::Path(path.into())
    }

    /// The `ref` and `path` arguments it is.
    pub fn into_arguments(self) -> (Option<String>, Option<String>) {
        match self {
            Self::Ref(r) => (Some(r), None),
            Self::Path(p) => (None, Some(p)),
        }
    }
}

// Which part of an artifact a plain read shows. (No doc comment on the type: schemars would
// list it as the type's description, and the tool list is product copy.)
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum PreviewArg {
    Head,
    Tail,
    // The head and the tail. A command line spells it `head-tail`; `head_tail`, as a model
    // sends it, is taken too.
    #[value(alias = "head_tail")]
    HeadTail,
}

#[derive(Serialize, Deserialize)]
struct Parts {
    tool: String,
    arguments: Map<String, Value>,
}

impl Serialize for NextCall {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Parts {
            tool: self.tool().to_owned(),
            arguments: self.arguments(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for NextCall {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let parts = Parts::deserialize(d)?;
        if parts.tool.is_empty() {
            return Err(D::Error::custom("a call names its tool"));
        }
        Ok(Self::from_parts(&parts.tool, parts.arguments))
    }
}

impl schemars::JsonSchema for NextCall {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NextCall".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "description": "a call that works verbatim: the tool's name and its arguments",
            "properties": {
                "tool": { "type": "string" },
                "arguments": { "type": "object" }
            },
            "required": ["tool", "arguments"]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_call_lists_only_what_differs_from_the_defaults_in_its_tools_order() {
        let call = NextCall::Search(SearchParams {
            limit: Some(3),
            cursor: Some("c1".into()),
            pattern: Some("a b".into()),
            literal: true,
            ..SearchParams::of(Target::reference("sp_x"))
        });
        assert_eq!(
            serde_json::to_value(&call).unwrap(),
            json!({"tool": "search", "arguments": {
                "ref": "sp_x", "pattern": "a b", "literal": true, "limit": 3, "cursor": "c1"
            }})
        );
        let keys: Vec<String> = call.arguments().keys().cloned().collect();
        assert_eq!(keys, ["ref", "pattern", "literal", "limit", "cursor"]);
    }

    #[test]
    fn a_stored_call_reads_back_typed_and_an_unknown_one_as_given() {
        let read: NextCall = serde_json::from_value(
            json!({"tool": "read", "arguments": {"ref": "sp_x", "line": 9}}),
        )
        .unwrap();
        assert!(matches!(&read, NextCall::Read(p) if p.line == Some(9)));
        // An upstream's tool, and a spool tool's name with arguments it does not take.
        for (tool, arguments) in [
            ("get_issues", json!({"page": 2})),
            ("fetch", json!({"url": "http://x", "max_length": 5})),
        ] {
            let call: NextCall =
                serde_json::from_value(json!({"tool": tool, "arguments": arguments})).unwrap();
            assert!(matches!(&call, NextCall::Upstream { .. }), "{call:?}");
            assert_eq!(Value::Object(call.arguments()), arguments);
        }
    }

    #[test]
    fn a_cursor_continues_the_same_call() {
        let call = NextCall::List(ListParams {
            path: Some("/r".into()),
            limit: Some(5),
            ..ListParams::default()
        })
        .with_cursor("c2");
        assert_eq!(
            Value::Object(call.arguments()),
            json!({"path": "/r", "limit": 5, "cursor": "c2"})
        );
    }
}
