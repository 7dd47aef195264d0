//! Where a name the client uses goes: the exposed names of upstream tools (prefixed when they
//! would clash), the table of tools as last listed, prompts and resources by owner.

use std::collections::HashMap;

use rmcp::ErrorData;
use rmcp::model::Tool;

use super::{ProxyServer, SPOOL_TOOLS, all_pages};
use crate::lazy;

/// Names an upstream tool cannot take unprefixed.
const RESERVED: [&str; 5] = ["read", "search", "query", "artifacts", lazy::DESCRIBE_TOOL];

#[derive(Debug, Clone)]
pub(super) struct Route {
    pub(super) upstream: usize,
    pub(super) tool: String,
}

impl ProxyServer {
    fn exposed(&self, upstream: usize, name: &str) -> String {
        let u = &self.inner.upstreams[upstream];
        if self.inner.prefix_all || RESERVED.contains(&name) {
            format!("{}_{name}", u.spec.name)
        } else {
            name.to_owned()
        }
    }

    /// Every tool of every upstream (all pages), as the client sees them.
    pub(super) async fn refresh_tools(&self) -> Result<Vec<Tool>, ErrorData> {
        let before = self
            .inner
            .tools
            .read()
            .map(|t| t.clone())
            .unwrap_or_default();
        let mut listed = Vec::new();
        let mut table: HashMap<String, (Route, Tool)> = HashMap::new();
        for (i, u) in self.inner.upstreams.iter().enumerate() {
            let tools = match all_pages(u, "tools", |p| async move { p.list_all_tools().await })
                .await
            {
                Ok(tools) => tools,
                Err(e) => {
                    // An upstream that is down keeps the tools it listed before: calling one
                    // answers `unavailable` (and restarts it) instead of the tool vanishing.
                    // Never listed at all, the list would be silently short: that is an error.
                    let mut kept: Vec<_> = before
                        .values()
                        .filter(|(r, _)| r.upstream == i)
                        .cloned()
                        .collect();
                    if kept.is_empty() {
                        return Err(e);
                    }
                    tracing::warn!(upstream = %u.spec.name, error = %e.message, "listing the tools it listed before");
                    kept.sort_by(|a, b| a.1.name.cmp(&b.1.name));
                    for (route, tool) in kept {
                        listed.push(if self.inner.lazy {
                            lazy::short(&tool)
                        } else {
                            tool.clone()
                        });
                        table.insert(tool.name.to_string(), (route, tool));
                    }
                    continue;
                }
            };
            for tool in tools {
                let mut exposed = self.exposed(i, &tool.name);
                // Two tools may come out with one name (`search` prefixed, beside `fs_search`):
                // the later one gets a number, since clients refuse duplicate names.
                let mut n = 2;
                while table.contains_key(&exposed) || SPOOL_TOOLS.contains(&exposed.as_str()) {
                    exposed = format!("{}_{n}", self.exposed(i, &tool.name));
                    n += 1;
                }
                let full = relayed_tool(tool.clone(), &exposed, self.inner.spool.settings());
                let route = Route {
                    upstream: i,
                    tool: tool.name.to_string(),
                };
                table.insert(exposed, (route, full.clone()));
                listed.push(if self.inner.lazy {
                    lazy::short(&full)
                } else {
                    full
                });
            }
        }
        if let Ok(mut t) = self.inner.tools.write() {
            *t = table;
        }
        Ok(listed)
    }

    pub(super) async fn route(&self, name: &str) -> Result<(Route, Tool), ErrorData> {
        let known = |s: &Self| s.inner.tools.read().ok().and_then(|t| t.get(name).cloned());
        if let Some(found) = known(self) {
            return Ok(found);
        }
        self.refresh_tools().await?;
        known(self).ok_or_else(|| {
            ErrorData::invalid_params(
                format!("unknown tool `{name}`: it is not one of the tools `tools/list` lists"),
                None,
            )
        })
    }

    pub(super) fn owner_of_uri(&self, uri: &str) -> Option<usize> {
        self.inner
            .resources
            .read()
            .ok()
            .and_then(|r| r.get(uri).copied())
            .or_else(|| (self.inner.upstreams.len() == 1).then_some(0))
    }

    pub(super) fn prompt_route(&self, name: &str) -> Result<Route, ErrorData> {
        if !self.inner.prefix_all {
            return Ok(Route {
                upstream: 0,
                tool: name.to_owned(),
            });
        }
        self.inner
            .prompts
            .read()
            .ok()
            .and_then(|p| p.get(name).cloned())
            .or_else(|| {
                self.inner.upstreams.iter().enumerate().find_map(|(i, u)| {
                    name.strip_prefix(&format!("{}_", u.spec.name))
                        .map(|rest| Route {
                            upstream: i,
                            tool: rest.to_owned(),
                        })
                })
            })
            .ok_or_else(|| ErrorData::invalid_params(format!("unknown prompt `{name}`"), None))
    }
}

/// The tool as the client sees it: renamed, its output schema admitting spool's envelope (a
/// too-large answer) and error, and its answers' size told to hosts that cap them. With
/// structured content off, no output schema: a replaced answer then carries none.
fn relayed_tool(mut tool: Tool, exposed: &str, settings: &spool_mcp::Settings) -> Tool {
    tool.name = exposed.to_owned().into();
    if !settings.structured {
        tool.output_schema = None;
    }
    if let Some(schema) = &tool.output_schema {
        tool.output_schema = Some(spool_mcp::schema::wrapped(schema));
    }
    let mut meta = tool.meta.take().unwrap_or_default();
    for (k, v) in spool_mcp::schema::tool_meta(settings.result_chars()).iter() {
        meta.insert(k.clone(), v.clone());
    }
    tool.meta = Some(meta);
    tool
}
