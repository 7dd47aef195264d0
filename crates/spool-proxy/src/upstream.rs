//! One upstream MCP server: started (or connected) on demand, restarted on the next request
//! after it crashed or hung, its requests bounded in time, cancellable, and with their progress
//! routed back to the client that asked.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use rmcp::model::{ClientRequest, PingRequest, ProgressToken, ServerPeerInfo, ServerResult};
use rmcp::service::{PeerRequestOptions, RunningService, ServiceError};
use rmcp::{ErrorData, Peer, RoleClient, RoleServer, ServiceExt};
use tokio::io::AsyncBufReadExt;
use tokio_util::sync::CancellationToken;

use crate::asks::Caller;
use crate::child::ChildTransport;
use crate::config::{Transport, UpstreamSpec};
use crate::hub::Hub;

mod client;
pub use client::UpstreamClient;

/// Last lines of an upstream's stderr kept to explain a crash.
const STDERR_TAIL: usize = 20;

/// Why a request to an upstream did not produce a result.
#[derive(Debug)]
pub enum Failure {
    /// The upstream answered with a JSON-RPC error: relayed as it is.
    Upstream(ErrorData),
    /// The upstream is down or did not answer in time.
    Down(spool_core::Error),
    /// The client cancelled the request.
    Cancelled,
}

struct Connection {
    service: RunningService<RoleClient, UpstreamClient>,
    /// Counts connections to this upstream: progress tokens and suspicion belong to one.
    generation: u64,
    /// A request timed out: check the upstream answers before trusting it again.
    suspect: bool,
}

pub struct Upstream {
    pub spec: UpstreamSpec,
    index: usize,
    transport: Transport,
    hub: Arc<Hub>,
    /// The last failed start: requests in the next seconds fail fast with its error instead
    /// of each waiting for a start of its own.
    failed: Mutex<Option<(std::time::Instant, spool_core::Error)>>,
    connection: tokio::sync::Mutex<Option<Connection>>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    info: RwLock<Option<ServerPeerInfo>>,
    starts: AtomicU64,
}

impl Upstream {
    /// Starts the upstream and completes the MCP handshake.
    pub async fn start(
        spec: UpstreamSpec,
        index: usize,
        hub: Arc<Hub>,
    ) -> Result<Arc<Self>, spool_core::Error> {
        let transport = spec
            .transport()
            .map_err(|e| spool_core::Error::InvalidArgument {
                message: e.to_string().into(),
                hint: None,
            })?;
        let upstream = Arc::new(Self {
            spec,
            index,
            transport,
            hub,
            failed: Mutex::new(None),
            connection: tokio::sync::Mutex::new(None),
            stderr_tail: Arc::new(Mutex::new(VecDeque::new())),
            info: RwLock::new(None),
            starts: AtomicU64::new(0),
        });
        upstream.peer().await.map_err(|e| match e {
            spool_core::Error::UpstreamUnavailable { what, cause, .. } => {
                spool_core::Error::UpstreamUnavailable {
                    what,
                    cause,
                    hint: "check the upstream: run its command by hand (or open its URL) to see that it starts and speaks MCP".into(),
                }
            }
            other => other,
        })?;
        Ok(upstream)
    }

    /// What the upstream said about itself in the handshake.
    pub fn info(&self) -> Option<ServerPeerInfo> {
        self.info.read().ok().and_then(|i| i.clone())
    }

    /// How many times it was started (1 unless it crashed or hung).
    pub fn starts(&self) -> u64 {
        self.starts.load(Ordering::SeqCst)
    }

    fn down(&self, cause: impl Into<String>) -> spool_core::Error {
        let mut cause = cause.into();
        let tail: Vec<String> = self
            .stderr_tail
            .lock()
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default();
        if !tail.is_empty() {
            cause.push_str("; its last stderr lines: ");
            cause.push_str(&tail.join(" | "));
        }
        spool_core::Error::UpstreamUnavailable {
            what: self.spec.describe(),
            cause,
            hint: "spool starts it again on the next call; artifacts already stored stay readable with `read` and `search`".into(),
        }
    }

    /// A live connection: the current one, or a new one when the old one died or hangs.
    pub async fn peer(&self) -> Result<Peer<RoleClient>, spool_core::Error> {
        self.connected().await.map(|(peer, _)| peer)
    }

    /// Starts the upstream again now (to tell it of the client's capabilities): the next
    /// request waits for the new connection. A failure is logged; the next request tries again.
    pub async fn restart(&self) {
        let mut guard = self.connection.lock().await;
        if let Some(old) = guard.take() {
            old.service.cancellation_token().cancel();
        }
        match self.connect().await {
            Ok(conn) => *guard = Some(conn),
            Err(e) => {
                tracing::warn!(upstream = %self.spec.name, error = %e, "restarting the upstream failed");
            }
        }
    }

    /// A live connection and its generation.
    async fn connected(&self) -> Result<(Peer<RoleClient>, u64), spool_core::Error> {
        /// How long a failed start answers for itself before another is tried.
        const RETRY_AFTER: Duration = Duration::from_secs(5);
        let mut guard = self.connection.lock().await;
        if let Some(conn) = guard.as_mut()
            && !conn.service.is_closed()
            && !conn.service.peer().is_transport_closed()
        {
            if !conn.suspect {
                return Ok((conn.service.peer().clone(), conn.generation));
            }
            // Any answer to a ping, even an error, shows it is listening again.
            let ping = conn
                .service
                .peer()
                .send_request(ClientRequest::PingRequest(PingRequest::default()));
            if let Ok(Ok(_) | Err(ServiceError::McpError(_))) =
                tokio::time::timeout(Duration::from_secs(2), ping).await
            {
                conn.suspect = false;
                return Ok((conn.service.peer().clone(), conn.generation));
            }
            tracing::warn!(upstream = %self.spec.name, "upstream does not answer; restarting it");
        }
        if let Some(old) = guard.take() {
            // Cancelling the service closes the transport; the child is killed on drop.
            old.service.cancellation_token().cancel();
        }
        if let Ok(failed) = self.failed.lock()
            && let Some((at, err)) = failed.as_ref()
            && at.elapsed() < RETRY_AFTER
        {
            return Err(self.down(format!(
                "it failed to start {} ms ago: {err}",
                at.elapsed().as_millis()
            )));
        }
        match self.connect().await {
            Ok(conn) => {
                let found = (conn.service.peer().clone(), conn.generation);
                *guard = Some(conn);
                Ok(found)
            }
            Err(e) => {
                if let Ok(mut failed) = self.failed.lock() {
                    *failed = Some((std::time::Instant::now(), self.down_again(&e)));
                }
                Err(e)
            }
        }
    }

    /// The cause inside an upstream error, to repeat it.
    fn down_again(&self, e: &spool_core::Error) -> spool_core::Error {
        match e {
            spool_core::Error::UpstreamUnavailable { cause, .. } => {
                spool_core::Error::UpstreamUnavailable {
                    what: self.spec.describe(),
                    cause: cause.clone(),
                    hint: String::new(),
                }
            }
            other => spool_core::Error::UpstreamUnavailable {
                what: self.spec.describe(),
                cause: other.to_string(),
                hint: String::new(),
            },
        }
    }

    async fn connect(&self) -> Result<Connection, spool_core::Error> {
        let generation = self.starts.load(Ordering::SeqCst) + 1;
        let client = UpstreamClient {
            hub: Arc::clone(&self.hub),
            index: self.index,
            connection: generation,
        };
        let timeout = self.spec.timeout();
        let service = match &self.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args)
                    .envs(env)
                    .kill_on_drop(true)
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped());
                if let Some(dir) = cwd {
                    cmd.current_dir(dir);
                }
                let mut child = cmd
                    .spawn()
                    .map_err(|e| self.down(format!("`{command}` did not run: {e}")))?;
                if let Some(stderr) = child.stderr.take() {
                    self.keep_stderr(stderr);
                }
                let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
                    return Err(self.down(format!("`{command}` started without pipes")));
                };
                let transport = ChildTransport::new(child, stdout, stdin)
                    .with_max_message(self.spec.max_message());
                tokio::time::timeout(timeout, client.serve(transport)).await
            }
            Transport::Http { url, bearer } => {
                let _ = rustls::crypto::ring::default_provider().install_default();
                // No overall timeout: a response may be a long event stream. Requests are
                // bounded by the upstream's timeout instead.
                let http = reqwest::Client::builder()
                    .connect_timeout(Duration::from_secs(10))
                    .build()
                    .map_err(|e| self.down(format!("cannot make an HTTP client: {e}")))?;
                let mut config =
                    rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
                        url.as_str(),
                    );
                // Large answers are read whole and stored (rmcp's default stops at 16 MiB).
                config = config
                    .max_json_response_size(self.spec.max_message())
                    .max_sse_event_size(self.spec.max_message());
                if let Some(token) = bearer {
                    config = config.auth_header(token.clone());
                }
                let transport =
                    rmcp::transport::StreamableHttpClientTransport::with_client(http, config);
                tokio::time::timeout(timeout, client.serve(transport)).await
            }
        };
        let service = match service {
            Ok(Ok(service)) => service,
            Ok(Err(e)) => return Err(self.down(format!("the MCP handshake failed: {e}"))),
            Err(_) => {
                return Err(self.down(format!(
                    "it did not complete the MCP handshake within {} s",
                    timeout.as_secs_f64()
                )));
            }
        };
        if let Ok(mut info) = self.info.write() {
            *info = service.peer().peer_info().map(|i| (*i).clone());
        }
        self.starts.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut failed) = self.failed.lock() {
            *failed = None;
        }
        Ok(Connection {
            service,
            generation,
            suspect: false,
        })
    }

    /// Copies the upstream's stderr to ours, keeping its last lines to explain a crash.
    fn keep_stderr(&self, stderr: tokio::process::ChildStderr) {
        let tail = Arc::clone(&self.stderr_tail);
        if let Ok(mut t) = tail.lock() {
            t.clear();
        }
        let name = self.spec.name.clone();
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::info!(upstream = %name, "{line}");
                if let Ok(mut t) = tail.lock() {
                    if t.len() == STDERR_TAIL {
                        t.pop_front();
                    }
                    t.push_back(line);
                }
            }
        });
    }

    /// Sends `request`, waiting at most the upstream's timeout; `ct` cancels it upstream too.
    pub async fn request(
        &self,
        request: ClientRequest,
        ct: &CancellationToken,
        progress: Option<(Peer<RoleServer>, ProgressToken)>,
        caller: Option<Caller>,
    ) -> Result<ServerResult, Failure> {
        let timeout = self.spec.timeout();
        let deadline = tokio::time::Instant::now() + timeout;
        // Waiting for a (re)start counts against the same time limit, and can be cancelled.
        let (peer, generation) = tokio::select! {
            r = self.connected() => r.map_err(Failure::Down)?,
            () = tokio::time::sleep_until(deadline) => return Err(Failure::Down(self.timed_out(timeout))),
            () = ct.cancelled() => return Err(Failure::Cancelled),
        };
        let handle = match peer
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(h) => h,
            Err(e) => return Err(Failure::Down(self.down(e.to_string()))),
        };
        let key = (self.index, generation, handle.progress_token.clone());
        if let Some((client, asked)) = progress {
            self.hub.route_progress(key.clone(), client, asked);
        }
        // What the upstream asks while it serves this request goes to this caller.
        let call = ((self.index, generation), handle.id.clone());
        if let Some(caller) = caller {
            self.hub.calls.begin(call.0, call.1.clone(), caller);
        }
        let outcome = self
            .wait(handle, &key, deadline, ct, generation, timeout)
            .await;
        self.hub.calls.end(call.0, &call.1);
        outcome
    }

    /// Waits for the answer to a sent request, its deadline, or its cancellation.
    async fn wait(
        &self,
        mut handle: rmcp::service::RequestHandle<RoleClient>,
        key: &crate::hub::ProgressKey,
        deadline: tokio::time::Instant,
        ct: &CancellationToken,
        generation: u64,
        timeout: Duration,
    ) -> Result<ServerResult, Failure> {
        let outcome = tokio::select! {
            r = &mut handle.rx => Some(r),
            () = tokio::time::sleep_until(deadline) => None,
            () = ct.cancelled() => {
                self.hub.end_progress(key);
                // A hung transport must not hold the answer: the notice gets a second.
                let _ = tokio::time::timeout(
                    Duration::from_secs(1),
                    handle.cancel(Some("cancelled by the client".into())),
                )
                .await;
                return Err(Failure::Cancelled);
            }
        };
        self.hub.end_progress(key);
        match outcome {
            Some(Ok(Ok(result))) => Ok(result),
            Some(Ok(Err(ServiceError::McpError(e)))) => Err(Failure::Upstream(e)),
            Some(Ok(Err(e))) => Err(Failure::Down(
                self.down(format!("the connection failed during the request ({e})")),
            )),
            Some(Err(_)) => Err(Failure::Down(self.down(
                "the connection closed during the request (the server exited or closed its output)",
            ))),
            None => {
                let reason = format!("spool: no answer within {} s", timeout.as_secs_f64());
                let _ =
                    tokio::time::timeout(Duration::from_secs(1), handle.cancel(Some(reason))).await;
                if let Some(conn) = self.connection.lock().await.as_mut()
                    && conn.generation == generation
                {
                    conn.suspect = true;
                }
                Err(Failure::Down(self.timed_out(timeout)))
            }
        }
    }

    fn timed_out(&self, timeout: Duration) -> spool_core::Error {
        spool_core::Error::UpstreamTimeout {
            what: self.spec.describe(),
            seconds: timeout.as_secs_f64(),
            hint: "spool asked the upstream to cancel it, but it may have had effects: call again only if the call is safe to repeat (spool restarts the server if it still does not answer), or raise `timeout_s`".into(),
        }
    }
}
