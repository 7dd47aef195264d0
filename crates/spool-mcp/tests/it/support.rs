//! A server and an rmcp client joined by an in-memory pipe.

use std::sync::Arc;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use spool_core::{Store, StoreConfig};
use spool_mcp::{Settings, SpoolServer};
use spool_walk::roots::Roots;

pub struct Harness {
    pub client: RunningService<RoleClient, ()>,
    pub root: tempfile::TempDir,
    pub home: tempfile::TempDir,
}

pub async fn start(settings: Settings) -> Harness {
    let home = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(home.path(), StoreConfig::default()).unwrap());
    let roots = Roots::new(&[root.path().to_owned()]).unwrap();
    let server = SpoolServer::new(store, roots, settings);
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_io).await.unwrap();
    Harness { client, root, home }
}

impl Harness {
    pub async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        let params = CallToolRequestParams::new(tool.to_owned())
            .with_arguments(args.as_object().cloned().unwrap());
        let result = self.client.call_tool(params).await.unwrap();
        spool_test_support::schema_check::hold_to_declared(&self.client, tool, &result)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        result
    }

    /// Starts `tool` with `args` as a request that can be cancelled, and returns its handle.
    pub async fn call_cancellable(
        &self,
        tool: &str,
        args: Value,
    ) -> rmcp::service::RequestHandle<RoleClient> {
        use rmcp::model::{ClientRequest, Request};
        use rmcp::service::PeerRequestOptions;
        let params = CallToolRequestParams::new(tool.to_owned())
            .with_arguments(args.as_object().cloned().unwrap());
        self.client
            .send_cancellable_request(
                ClientRequest::CallToolRequest(Request::new(params)),
                PeerRequestOptions::no_options(),
            )
            .await
            .unwrap()
    }

    /// The same, taking the tool's name by value (for helpers that make the call).
    pub async fn call_owned(&self, tool: String, args: Value) -> CallToolResult {
        self.call(&tool, args).await
    }

    pub fn write(&self, rel: &str, content: &[u8]) {
        let p = self.root.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
}

/// The text blocks of a result, in order.
pub fn texts(r: &CallToolResult) -> Vec<String> {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

pub fn structured(r: &CallToolResult) -> &Value {
    r.structured_content.as_ref().expect("structured content")
}
