//! A proxy wrapping the fake upstream, and an rmcp client talking to it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::{CallToolRequestParams, CallToolResult, ProgressNotificationParam};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use spool_core::{Store, StoreConfig};
use spool_mcp::{Settings, SpoolServer};
use spool_proxy::{ProxyConfig, ProxyServer, UpstreamSpec};
use spool_walk::roots::Roots;

/// Records what the proxy sends on its own.
#[derive(Clone, Default)]
pub struct Recorder {
    pub progress: Arc<AtomicUsize>,
    pub messages: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Recorder {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _ctx: NotificationContext<RoleClient>,
    ) {
        self.progress.fetch_add(1, Ordering::SeqCst);
        if let Some(m) = params.message {
            self.messages.lock().unwrap().push(m);
        }
    }
}

pub struct Proxy {
    pub client: RunningService<RoleClient, Recorder>,
    pub recorder: Recorder,
    pub server: ProxyServer,
    pub home: tempfile::TempDir,
    pub marks: tempfile::TempDir,
    /// Whether upstreams start on their first call (then listing tools would start them, and
    /// answers are not held to their schemas).
    lazy: bool,
}

pub struct Options {
    pub max_tokens: u64,
    pub lazy: bool,
    pub timeout_s: Option<f64>,
    /// Upstream names; more than one wraps several copies of the fake.
    pub names: Vec<&'static str>,
    /// The fake starts once; a restart fails.
    pub once: bool,
    /// spool's own answers carry structured content (`--structured on`).
    pub structured: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            max_tokens: 2_000,
            lazy: false,
            timeout_s: None,
            names: vec!["fake"],
            once: false,
            structured: true,
        }
    }
}

pub fn fake_spec(name: &str, marks: &std::path::Path) -> UpstreamSpec {
    let mut spec = UpstreamSpec {
        name: name.to_owned(),
        command: Some(
            spool_test_support::fake_upstream()
                .unwrap()
                .display()
                .to_string(),
        ),
        ..UpstreamSpec::default()
    };
    spec.env
        .insert("FAKE_UPSTREAM_DIR".into(), marks.display().to_string());
    spec
}

/// spool's own server on a store in `home`, reading only there.
pub fn spool_server(home: &std::path::Path, settings: Settings) -> SpoolServer {
    let store = Arc::new(Store::open(home, StoreConfig::default()).unwrap());
    let roots = Roots::new(&[home.to_owned()]).unwrap();
    SpoolServer::new(store, roots, settings)
}

pub async fn start(opts: Options) -> Proxy {
    let home = tempfile::tempdir().unwrap();
    let marks = tempfile::tempdir().unwrap();
    let settings = Settings {
        max_tokens: opts.max_tokens,
        no_run: true,
        structured: opts.structured,
        ..Settings::default()
    };
    let spool = spool_server(home.path(), settings);
    let config = ProxyConfig {
        lazy: opts.lazy,
        store: None,
        upstreams: opts
            .names
            .iter()
            .map(|n| {
                let mut s = fake_spec(n, marks.path());
                s.timeout_s = opts.timeout_s;
                if opts.once {
                    s.env.insert(
                        "FAKE_UPSTREAM_ONCE".into(),
                        marks
                            .path()
                            .join(format!("{n}.started"))
                            .display()
                            .to_string(),
                    );
                }
                s
            })
            .collect(),
    };
    let server = ProxyServer::start(config, spool).await.unwrap();
    let recorder = Recorder::default();
    let client = connect_with(server.clone(), recorder.clone()).await;
    Proxy {
        client,
        recorder,
        server,
        home,
        marks,
        lazy: opts.lazy,
    }
}

/// An rmcp client joined to `server` by an in-memory pipe.
pub async fn connect_with<H: ClientHandler>(
    server: ProxyServer,
    handler: H,
) -> RunningService<RoleClient, H> {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = Box::pin(server.serve(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    handler.serve(client_io).await.unwrap()
}

/// The same with a client that handles nothing.
pub async fn connect(server: ProxyServer) -> RunningService<RoleClient, ()> {
    connect_with(server, ()).await
}

impl Proxy {
    pub async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        let result = self.client.call_tool(params(tool, args)).await.unwrap();
        if !self.lazy {
            spool_test_support::schema_check::hold_to_declared(&self.client, tool, &result)
                .await
                .unwrap_or_else(|e| panic!("{e}"));
        }
        result
    }

    /// The same, taking the tool's name by value (for helpers that make the call).
    pub async fn call_owned(&self, tool: String, args: Value) -> CallToolResult {
        self.call(&tool, args).await
    }
}

pub fn params(tool: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(args) = args else {
        panic!("arguments are an object");
    };
    CallToolRequestParams::new(tool.to_owned()).with_arguments(args)
}

/// The fake upstream spoken to directly, to compare with what the proxy relays.
pub async fn direct() -> RunningService<RoleClient, ()> {
    let cmd = tokio::process::Command::new(spool_test_support::fake_upstream().unwrap());
    let transport = rmcp::transport::TokioChildProcess::new(cmd).unwrap();
    ().serve(transport).await.unwrap()
}

/// The ref a note names after `stored as ` (`... stored as sp_x: read ...`).
pub fn stored_ref(note: &str) -> &str {
    let after = note.split("stored as ").nth(1).unwrap_or_default();
    after.split([':', ' ', ',', ')']).next().unwrap_or_default()
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

/// Refs and times replaced, for snapshots.
pub fn filtered(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("sp_") {
        out.push_str(&rest[..i]);
        out.push_str("sp_REF");
        let tail = &rest[i + 3..];
        let n = tail
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(tail.len());
        rest = &tail[n..];
    }
    out.push_str(rest);
    // 2026-11-30T13:05:08Z style times.
    let mut result = String::new();
    let chars: Vec<char> = out.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if i + 20 <= chars.len()
            && chars[i..i + 4].iter().all(char::is_ascii_digit)
            && chars[i + 4] == '-'
            && chars[i + 10] == 'T'
            && chars[i + 19] == 'Z'
        {
            result.push_str("TIME");
            i += 20;
        } else {
            result.push(chars[i]);
            i += 1;
        }
    }
    result
}
