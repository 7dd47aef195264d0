//! What `spool wrap` wraps: one upstream from the command line, or several from `spool.toml`.
//!
//! ```toml
//! lazy = false            # optional: a short tool list plus `describe_tool`
//!
//! [[upstream]]
//! name = "fs"
//! command = "npx"
//! args = ["-y", "@modelcontextprotocol/server-filesystem", "/srv/data"]
//! timeout_s = 120         # optional: how long one request may take
//! max_message_bytes = 1073741824   # optional: the largest answer read (default 1 GiB)
//! [upstream.preview]      # optional: per tool `head`, `tail` or `head_tail`
//! read_text_file = "head"
//!
//! [[upstream]]
//! name = "search"
//! url = "http://127.0.0.1:8931/mcp"
//! bearer_token_env = "SEARCH_TOKEN"   # the token is read from this variable, never from the file
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use spool_core::Preview;

use crate::ProxyError;

/// How long one upstream request may take unless configured.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_mins(2);

/// The contents of `spool.toml`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProxyConfig {
    /// Show each upstream tool as its name and one line, plus `describe_tool`.
    #[serde(default)]
    pub lazy: bool,
    #[serde(default, rename = "upstream")]
    pub upstreams: Vec<UpstreamSpec>,
    /// The shared store (`[store]`): read by the command line, not by the proxy.
    #[serde(default)]
    pub store: Option<toml::Table>,
}

/// One upstream MCP server.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpstreamSpec {
    /// Names the upstream in answers, and prefixes its tools when several are wrapped.
    pub name: String,
    /// A server spoken to over stdio: the program...
    #[serde(default)]
    pub command: Option<String>,
    /// ...and its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Variables added to the program's environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The program's working directory.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// A server spoken to over Streamable HTTP.
    #[serde(default)]
    pub url: Option<String>,
    /// The variable holding a bearer token for `url`.
    #[serde(default)]
    pub bearer_token_env: Option<String>,
    /// A bearer token for `url` given directly (by a program using this library; never read
    /// from the file, so a token is never written into one).
    #[serde(skip)]
    pub bearer_token: Option<String>,
    /// How long one request may take, in seconds.
    #[serde(default)]
    pub timeout_s: Option<f64>,
    /// Preview policy per tool: `head`, `tail` or `head_tail`.
    #[serde(default)]
    pub preview: BTreeMap<String, String>,
    /// The largest message read from the upstream, in bytes (default 1 GiB); a larger answer
    /// is an error at once, naming its size.
    #[serde(default)]
    pub max_message_bytes: Option<u64>,
}

/// How to reach an upstream.
#[derive(Debug, Clone)]
pub enum Transport {
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
    },
    Http {
        url: String,
        bearer: Option<String>,
    },
}

impl UpstreamSpec {
    /// How to reach it; exactly one of `command` and `url` must be given.
    pub fn transport(&self) -> Result<Transport, ProxyError> {
        match (&self.command, &self.url) {
            (Some(command), None) => Ok(Transport::Stdio {
                command: command.clone(),
                args: self.args.clone(),
                env: self.env.clone(),
                cwd: self.cwd.clone(),
            }),
            (None, Some(url)) => {
                let bearer = match (&self.bearer_token, &self.bearer_token_env) {
                    (Some(token), _) => Some(token.clone()),
                    (None, Some(var)) => Some(std::env::var(var).map_err(|_| {
                        ProxyError::Config(format!(
                            "upstream `{}`: the variable `{var}` named by `bearer_token_env` is not set",
                            self.name
                        ))
                    })?),
                    (None, None) => None,
                };
                Ok(Transport::Http {
                    url: url.clone(),
                    bearer,
                })
            }
            _ => Err(ProxyError::Config(format!(
                "upstream `{}` needs exactly one of `command` (stdio) and `url` (Streamable HTTP)",
                self.name
            ))),
        }
    }

    /// The largest message read from the upstream.
    pub fn max_message(&self) -> usize {
        self.max_message_bytes
            .map_or(crate::child::MAX_MESSAGE, |b| {
                usize::try_from(b).unwrap_or(usize::MAX).max(1 << 10)
            })
    }

    /// How long one request may take.
    pub fn timeout(&self) -> Duration {
        self.timeout_s
            .filter(|t| t.is_finite() && *t > 0.0)
            .map_or(DEFAULT_TIMEOUT, Duration::from_secs_f64)
    }

    /// The preview a too-large answer of `tool` gets.
    pub fn preview_for(&self, tool: &str) -> Preview {
        self.chosen_preview(tool).0
    }

    /// The preview of `tool`, and whether it was configured (else it comes from the tool's
    /// name, and the data may overrule it).
    pub fn chosen_preview(&self, tool: &str) -> (Preview, bool) {
        match self.preview.get(tool).and_then(|p| Preview::parse(p)) {
            Some(p) => (p, true),
            None => (default_preview(tool), false),
        }
    }

    /// What the answers call it: the name, or the command line.
    pub fn describe(&self) -> String {
        match (&self.command, &self.url) {
            (Some(c), _) => {
                let mut words = vec![c.clone()];
                words.extend(self.args.iter().cloned());
                format!("upstream `{}` ({})", self.name, words.join(" "))
            }
            (None, Some(u)) => format!("upstream `{}` ({u})", self.name),
            (None, None) => format!("upstream `{}`", self.name),
        }
    }
}

/// Logs are read from the end; commands show both ends; everything else from the start.
pub fn default_preview(tool: &str) -> Preview {
    let t = tool.to_ascii_lowercase();
    if t.contains("log") || t.contains("tail") {
        Preview::Tail
    } else if ["run", "exec", "shell", "command", "bash", "terminal"]
        .iter()
        .any(|w| t.contains(w))
    {
        Preview::HeadTail
    } else {
        Preview::Head
    }
}

/// A name usable as a tool prefix: letters, digits, `_` and `-`.
pub fn sanitize_name(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.trim_matches('_').is_empty() {
        "upstream".into()
    } else {
        cleaned
    }
}

impl ProxyConfig {
    /// Reads and checks `spool.toml`.
    pub fn load(path: &Path) -> Result<Self, ProxyError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ProxyError::Config(format!("cannot read `{}`: {e}", path.display())))?;
        let config: Self = toml::from_str(&text)
            .map_err(|e| ProxyError::Config(format!("`{}`: {e}", path.display())))?;
        config.check()?;
        Ok(config)
    }

    /// Names unique and usable as prefixes, one transport each, known preview policies.
    pub fn check(&self) -> Result<(), ProxyError> {
        if self.upstreams.is_empty() {
            return Err(ProxyError::Config(
                "no upstream to wrap: add an [[upstream]] table with `name` and `command` or `url`"
                    .into(),
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        for u in &self.upstreams {
            if u.name.is_empty() || sanitize_name(&u.name) != u.name {
                return Err(ProxyError::Config(format!(
                    "upstream name `{}` must be letters, digits, `_` or `-`",
                    u.name
                )));
            }
            if !seen.insert(u.name.clone()) {
                return Err(ProxyError::Config(format!(
                    "two upstreams are named `{}`",
                    u.name
                )));
            }
            if u.command.is_some() == u.url.is_some() {
                return Err(ProxyError::Config(format!(
                    "upstream `{}` needs exactly one of `command` (stdio) and `url` (Streamable HTTP)",
                    u.name
                )));
            }
            for (tool, policy) in &u.preview {
                if Preview::parse(policy).is_none() {
                    return Err(ProxyError::Config(format!(
                        "upstream `{}`: preview `{policy}` for `{tool}` is not one of head, tail, head_tail",
                        u.name
                    )));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_by_tool_name() {
        assert_eq!(default_preview("tail_logs"), Preview::Tail);
        assert_eq!(default_preview("getServerLog"), Preview::Tail);
        assert_eq!(default_preview("run_command"), Preview::HeadTail);
        assert_eq!(default_preview("read_text_file"), Preview::Head);
    }

    #[test]
    fn a_config_file_parses_and_is_checked() {
        let ok: ProxyConfig = toml::from_str(
            "[[upstream]]\nname = \"fs\"\ncommand = \"npx\"\nargs = [\"x\"]\n[upstream.preview]\nread = \"tail\"\n",
        )
        .unwrap_or_default();
        assert!(ok.check().is_ok());
        assert_eq!(ok.upstreams[0].preview_for("read"), Preview::Tail);
        let both: ProxyConfig =
            toml::from_str("[[upstream]]\nname = \"a\"\ncommand = \"x\"\nurl = \"http://h\"\n")
                .unwrap_or_default();
        assert!(both.check().is_err());
        let bad_name: ProxyConfig =
            toml::from_str("[[upstream]]\nname = \"a b\"\ncommand = \"x\"\n").unwrap_or_default();
        assert!(bad_name.check().is_err());
        assert!(toml::from_str::<ProxyConfig>("[[upstream]]\nname = \"a\"\nfoo = 1\n").is_err());
    }
}
