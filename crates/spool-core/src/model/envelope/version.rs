//! What pins a stored copy, typed by where it came from (CONTRACT.md, `source.version`).
//!
//! Each kind has its own fields, in the order they have always been written, so the JSON is
//! the contract's, key for key. A field written as `null` (an exit code of a killed command, a
//! page without an `ETag`) stays `null`, and an absent one stays absent. Keys no type names (a
//! caller's own, or one a later version adds) are kept in `extra`, and a version that does not
//! parse as its kind is kept whole as [`Version::Other`]: reading a row never loses a field.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::SourceKind;

mod ci;
mod map;
pub use ci::CiVersion;
pub use map::{MapFiles, MapVersion};

/// The version of one artifact's source.
#[derive(Debug, Clone, PartialEq)]
pub enum Version {
    Exec(ExecVersion),
    Fetch(FetchVersion),
    File(FileVersion),
    Mcp(McpVersion),
    Search(SearchVersion),
    Text(TextVersion),
    Query(QueryVersion),
    Ci(CiVersion),
    Map(MapVersion),
    /// A stored version that does not read as its kind's type, kept as it was.
    Other {
        kind: SourceKind,
        fields: Map<String, Value>,
    },
}

/// A command: when it started and, once it has ended, how.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExecVersion {
    pub started_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    /// `Some(None)` once a command killed by a signal has ended: written as `null`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub exit_code: Option<Option<i64>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub signal: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timed_out: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Why reading stopped early (a background process kept the output open).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The variables of the server's environment the command did not get, their names looking
    /// secret (their values are never stored).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env_withheld: Vec<String>,
    #[serde(flatten)]
    pub view: ViewOf,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A fetched page: when, from where, what the server said about it, and what was stored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FetchVersion {
    pub fetched_at: String,
    pub final_url: String,
    pub status: u16,
    pub content_type: String,
    /// Written as `null` when the server sent none.
    #[serde(default)]
    pub etag: Option<String>,
    #[serde(default)]
    pub last_modified: Option<String>,
    pub sha256: String,
    /// The stored form: `markdown`, `text` or `raw`.
    pub format: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charset: Option<String>,
    /// Elements of an HTML page no reader sees (scripts, styles, hidden), left out.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unseen_left_out: u64,
    /// The element kept as the page's main content (`main`, `[role=main]`, `article`), when
    /// only it was stored, and the share of the page's text it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub main_content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub main_text_percent: Option<u8>,
    pub bytes_downloaded: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redirects: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    #[serde(flatten)]
    pub view: ViewOf,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A file's snapshot: its real path and mtime, and once read whole its hash and git commit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FileVersion {
    pub path: String,
    pub mtime: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Whether the file differs from `commit` (`None`: it cannot be told).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty: Option<bool>,
    /// Whether what git's index holds of the file differs from `commit`: a change staged and
    /// not committed (which makes it dirty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staged: Option<bool>,
    #[serde(flatten)]
    pub view: ViewOf,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An upstream MCP server's answer: a tool call (tool, arguments, call time) or a resource
/// read (uri, read time), and which part of it this copy holds when the answer had several.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct McpVersion {
    pub server: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub called_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_at: Option<String>,
    /// `beside` (the other half of a text and structured answer), or the media block kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    /// The upstream answered `isError: true`: a preview keeps its end, where a trace's cause
    /// most often is, as a failed command's does.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub mime_type: Option<Option<String>>,
    #[serde(flatten)]
    pub view: ViewOf,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A stored hit list: the search's own query and scope (as the search answer states them; the
/// search module reads them back), and how many hits it holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SearchVersion {
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub query: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub globs: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
    /// The ignore files were not applied.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_ignore: bool,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub scope: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hit_count: Option<u64>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    #[serde(flatten)]
    pub view: ViewOf,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of a jq program over a stored JSON answer: which artifact, which program, how
/// the artifact was read, and how many values came out.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QueryVersion {
    /// The ref of the JSON the program ran over.
    pub of: String,
    pub jq: String,
    /// `document` (one JSON value), or `lines` (a value a line, read as their array, as
    /// `jq --slurp` reads them).
    pub read_as: String,
    pub values: u64,
    pub ran_at: String,
    #[serde(flatten)]
    pub view: ViewOf,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Text put by a caller: whatever version the caller gave, kept as given.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TextVersion {
    #[serde(flatten)]
    pub view: ViewOf,
    #[serde(flatten)]
    pub fields: Map<String, Value>,
}

/// What a view of another artifact adds to the whole's version: which artifact it is a view
/// of, and of what part (the items at a key, or one stream of a command).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ViewOf {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view_of: Option<String>,
    /// `Some(None)` for the items of the whole document: written as `null`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub items_at: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<String>,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes fields by reference"
)]
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A field that is present, even as `null`, is `Some` (serde reads `null` as an absent one).
fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

impl Version {
    /// The version of text put by a caller with nothing to pin.
    pub fn text() -> Self {
        Self::Text(TextVersion::default())
    }

    /// Reads a stored version as its kind's type, or keeps it whole when it does not parse.
    pub fn from_fields(kind: SourceKind, fields: Map<String, Value>) -> Self {
        // Read from the object in place: every row loaded passes here, and nothing is copied.
        fn typed<T: serde::de::DeserializeOwned>(value: &Value) -> Option<T> {
            T::deserialize(value).ok()
        }
        let value = Value::Object(fields);
        let parsed = match kind {
            SourceKind::Exec => typed(&value).map(Self::Exec),
            SourceKind::Fetch => typed(&value).map(Self::Fetch),
            SourceKind::File => typed(&value).map(Self::File),
            SourceKind::Mcp => typed(&value).map(Self::Mcp),
            SourceKind::Search => typed(&value).map(Self::Search),
            SourceKind::Text => typed(&value).map(Self::Text),
            SourceKind::Query => typed(&value).map(Self::Query),
            SourceKind::Ci => typed(&value).map(Self::Ci),
            SourceKind::Map => typed(&value).map(Self::Map),
        };
        parsed.unwrap_or_else(|| match value {
            Value::Object(fields) => Self::Other { kind, fields },
            _ => Self::Other {
                kind,
                fields: Map::new(),
            },
        })
    }

    /// The version as it is written: its JSON object.
    pub fn to_map(&self) -> Map<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        }
    }

    pub fn kind(&self) -> SourceKind {
        match self {
            Self::Exec(_) => SourceKind::Exec,
            Self::Fetch(_) => SourceKind::Fetch,
            Self::File(_) => SourceKind::File,
            Self::Mcp(_) => SourceKind::Mcp,
            Self::Search(_) => SourceKind::Search,
            Self::Text(_) => SourceKind::Text,
            Self::Query(_) => SourceKind::Query,
            Self::Ci(_) => SourceKind::Ci,
            Self::Map(_) => SourceKind::Map,
            Self::Other { kind, .. } => *kind,
        }
    }

    /// What this copy is a view of, if it is one.
    pub fn view(&self) -> ViewOf {
        match self {
            Self::Exec(v) => v.view.clone(),
            Self::Fetch(v) => v.view.clone(),
            Self::File(v) => v.view.clone(),
            Self::Mcp(v) => v.view.clone(),
            Self::Search(v) => v.view.clone(),
            Self::Text(v) => v.view.clone(),
            Self::Query(v) => v.view.clone(),
            Self::Ci(v) => v.view.clone(),
            Self::Map(v) => v.view.clone(),
            Self::Other { fields, .. } => {
                serde_json::from_value(Value::Object(fields.clone())).unwrap_or_default()
            }
        }
    }

    /// The version of a view of this copy: the whole's version and what the view adds.
    #[must_use]
    pub fn viewed_as(&self, view: ViewOf) -> Self {
        let mut out = self.clone();
        match &mut out {
            Self::Exec(v) => v.view = view,
            Self::Fetch(v) => v.view = view,
            Self::File(v) => v.view = view,
            Self::Mcp(v) => v.view = view,
            Self::Search(v) => v.view = view,
            Self::Text(v) => v.view = view,
            Self::Query(v) => v.view = view,
            Self::Ci(v) => v.view = view,
            Self::Map(v) => v.view = view,
            Self::Other { fields, .. } => {
                if let Ok(Value::Object(added)) = serde_json::to_value(view) {
                    fields.extend(added);
                }
            }
        }
        out
    }

    pub fn exec(&self) -> Option<&ExecVersion> {
        match self {
            Self::Exec(v) => Some(v),
            _ => None,
        }
    }

    pub fn fetch(&self) -> Option<&FetchVersion> {
        match self {
            Self::Fetch(v) => Some(v),
            _ => None,
        }
    }

    pub fn file(&self) -> Option<&FileVersion> {
        match self {
            Self::File(v) => Some(v),
            _ => None,
        }
    }

    pub fn ci(&self) -> Option<&CiVersion> {
        match self {
            Self::Ci(v) => Some(v),
            _ => None,
        }
    }

    pub fn map(&self) -> Option<&MapVersion> {
        match self {
            Self::Map(v) => Some(v),
            _ => None,
        }
    }

    pub fn search(&self) -> Option<&SearchVersion> {
        match self {
            Self::Search(v) => Some(v),
            _ => None,
        }
    }

    /// Whether the capture was stopped by its time limit (a command or a download).
    pub fn timed_out(&self) -> bool {
        match self {
            Self::Exec(v) => v.timed_out == Some(true),
            Self::Fetch(v) => v.timed_out,
            Self::Search(v) => v.timed_out,
            Self::Map(v) => v.timed_out,
            _ => false,
        }
    }
}

impl ExecVersion {
    /// The exit code, when the command exited by itself.
    pub fn exit_code(&self) -> Option<i64> {
        self.exit_code.flatten()
    }

    /// The signal that ended the command, when one did.
    pub fn signal(&self) -> Option<&str> {
        self.signal.as_ref().and_then(|s| s.as_deref())
    }

    /// Whether the command failed: a non-zero exit, a signal, or its time ran out.
    pub fn failed(&self) -> bool {
        self.exit_code().is_some_and(|c| c != 0)
            || self.signal().is_some()
            || self.timed_out == Some(true)
    }
}

impl Serialize for Version {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Exec(v) => v.serialize(s),
            Self::Fetch(v) => v.serialize(s),
            Self::File(v) => v.serialize(s),
            Self::Mcp(v) => v.serialize(s),
            Self::Search(v) => v.serialize(s),
            Self::Text(v) => v.serialize(s),
            Self::Query(v) => v.serialize(s),
            Self::Ci(v) => v.serialize(s),
            Self::Map(v) => v.serialize(s),
            Self::Other { fields, .. } => fields.serialize(s),
        }
    }
}

/// Any of the kinds' versions, or (a stored version that does not read as its kind's type,
/// [`Version::Other`]) any object: an answer about an old copy still validates.
impl schemars::JsonSchema for Version {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Version".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "anyOf": [
                generator.subschema_for::<ExecVersion>(),
                generator.subschema_for::<FetchVersion>(),
                generator.subschema_for::<FileVersion>(),
                generator.subschema_for::<McpVersion>(),
                generator.subschema_for::<SearchVersion>(),
                generator.subschema_for::<TextVersion>(),
                generator.subschema_for::<QueryVersion>(),
                generator.subschema_for::<CiVersion>(),
                generator.subschema_for::<MapVersion>(),
                { "type": "object" },
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(kind: SourceKind, v: &Value) -> Version {
        let Value::Object(fields) = v.clone() else {
            panic!("not an object")
        };
        let typed = Version::from_fields(kind, fields);
        assert_eq!(&serde_json::to_value(&typed).unwrap(), v, "{typed:?}");
        // Key order too: the JSON is written, not only compared.
        assert_eq!(
            serde_json::to_string(&typed).unwrap(),
            serde_json::to_string(v).unwrap()
        );
        typed
    }

    #[test]
    fn a_killed_command_keeps_its_null_exit_code_and_a_running_one_has_none() {
        let killed = round_trip(
            SourceKind::Exec,
            &json!({"started_at": "t0", "cwd": "/w", "finished_at": "t1", "exit_code": null,
                   "signal": "SIGKILL", "timed_out": true, "duration_ms": 5}),
        );
        let e = killed.exec().unwrap();
        assert_eq!(e.exit_code, Some(None));
        assert_eq!(e.signal(), Some("SIGKILL"));
        assert!(e.failed() && killed.timed_out());
        let running = round_trip(SourceKind::Exec, &json!({"started_at": "t0"}));
        assert_eq!(running.exec().unwrap().exit_code, None);
        assert!(!running.exec().unwrap().failed());
    }

    #[test]
    fn a_page_without_validators_says_null_and_keeps_a_later_key() {
        let v = round_trip(
            SourceKind::Fetch,
            &json!({"fetched_at": "t", "final_url": "http://127.0.0.1/", "status": 404,
                   "content_type": "text/html", "etag": null, "last_modified": null,
                   "sha256": "ab", "format": "markdown", "bytes_downloaded": 3,
                   "redirects": ["http://127.0.0.1/a"], "timed_out": true,
                   "view_of": "sp_1", "items_at": null, "added_later": 1}),
        );
        let f = v.fetch().unwrap();
        assert_eq!((f.status, f.etag.as_deref()), (404, None));
        assert_eq!(v.view().items_at, Some(None));
        assert_eq!(f.extra["added_later"], json!(1));
    }

    #[test]
    fn a_version_that_is_not_its_kind_is_kept_whole() {
        let v = round_trip(SourceKind::File, &json!({"path": 3, "note": "odd"}));
        assert!(matches!(v, Version::Other { .. }));
        let viewed = v.viewed_as(ViewOf {
            view_of: Some("sp_2".into()),
            ..ViewOf::default()
        });
        assert_eq!(viewed.view().view_of.as_deref(), Some("sp_2"));
        assert_eq!(viewed.kind(), SourceKind::File);
    }

    #[test]
    fn mcp_parts_and_stream_views_round_trip() {
        round_trip(
            SourceKind::Mcp,
            &json!({"server": "s", "tool": "t", "arguments": {"q": 1}, "called_at": "c",
                   "part": "the image", "mime_type": null}),
        );
        round_trip(
            SourceKind::Mcp,
            &json!({"server": "s", "uri": "file:///x", "read_at": "r"}),
        );
        round_trip(
            SourceKind::Exec,
            &json!({"started_at": "t0", "finished_at": "t1", "exit_code": 0, "signal": null,
                   "timed_out": false, "duration_ms": 1, "view_of": "sp_1", "stream": "stderr"}),
        );
        round_trip(SourceKind::Text, &json!({"caller": {"own": true}}));
    }
}
