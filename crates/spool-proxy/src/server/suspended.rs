//! Calls of a client without a handshake (protocol 2026-07-28) that an upstream asks something
//! mid-call (sampling, elicitation). Such a client cannot be sent a request: it is asked by an
//! `input_required` answer to its own call, and retries the call with its answer and the
//! `requestState` it was given. So the upstream's call runs on in a task of its own; the
//! client's call is answered with the ask; the retry hands the answer to the waiting upstream
//! and waits on, for the result or the next ask. Issue 57: these asks were refused.
//!
//! A call whose client never retries is dropped after [`MAX_WAIT`], its upstream call with it.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResponse, InputRequiredResult};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::ProxyServer;
use crate::asks::Waiting;

/// How long a call waits for its client to come back with an answer.
pub const MAX_WAIT: Duration = Duration::from_mins(10);

/// The key of an ask in `inputRequests`.
const ASK_INPUT: &str = "spool_ask";

/// A relayed call waiting for its client's answer to an ask.
struct Suspended {
    call: JoinHandle<Result<CallToolResponse, ErrorData>>,
    asks: mpsc::UnboundedReceiver<Waiting>,
    /// Where the answer to the ask put to the client goes.
    waiting: Option<oneshot::Sender<Value>>,
    since: Instant,
}

/// The waiting calls, by the `requestState` their client was given.
#[derive(Default)]
pub struct Table {
    calls: Mutex<HashMap<String, Suspended>>,
}

impl Table {
    fn put(&self, call: Suspended) -> Result<String, ErrorData> {
        let mut key = String::from("ask_");
        for _ in 0..2 {
            let part = spool_core::refs::new_ref()
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            key.push_str(part.trim_start_matches("sp_"));
        }
        let mut calls = self.calls.lock().map_err(|_| {
            ErrorData::internal_error("the table of waiting calls is unusable", None)
        })?;
        // The calls whose client never came back, dropped with their upstream calls.
        calls.retain(|_, c| {
            let keep = c.since.elapsed() < MAX_WAIT;
            if !keep {
                c.call.abort();
            }
            keep
        });
        calls.insert(key.clone(), call);
        Ok(key)
    }

    fn take(&self, key: &str) -> Option<Suspended> {
        self.calls.lock().ok()?.remove(key)
    }
}

impl ProxyServer {
    /// A tool call of a client without a handshake: relayed, its upstream's asks put to the
    /// client as `input_required`, resumed by the retry that answers them.
    pub(super) async fn call_resumable(
        &self,
        name: String,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut call = match request.request_state.clone() {
            Some(state) => self.resumed(&name, &state, &request)?,
            None => self.started(name, request, &ctx),
        };
        tokio::select! {
            done = &mut call.call => done.map_err(|e| ErrorData::internal_error(format!("the relayed call failed: {e}"), None))?,
            Some(ask) = call.asks.recv() => {
                let request = ask.request;
                call.waiting = Some(ask.answer);
                call.since = Instant::now();
                let state = self.inner.suspended.put(call)?;
                Ok(CallToolResponse::InputRequired(InputRequiredResult::new(
                    Some(BTreeMap::from([(ASK_INPUT.to_owned(), request)])),
                    Some(state),
                )))
            }
            () = ctx.ct.cancelled() => {
                call.call.abort();
                Err(ErrorData::internal_error("cancelled by the client", None))
            }
        }
    }

    /// The waiting call `state` names, given the client's answer to its ask.
    fn resumed(
        &self,
        name: &str,
        state: &str,
        request: &CallToolRequestParams,
    ) -> Result<Suspended, ErrorData> {
        let Some(mut call) = self.inner.suspended.take(state) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "this call's wait for an answer has ended (a call waits {} min): call `{name}` again",
                    MAX_WAIT.as_secs() / 60
                ),
                None,
            ));
        };
        let answer = request
            .input_responses
            .as_ref()
            .and_then(|r| r.get(ASK_INPUT))
            .cloned();
        // No answer: the waiting ask is dropped, and the upstream is told so.
        if let (Some(tx), Some(answer)) = (call.waiting.take(), answer) {
            let _ = tx.send(answer);
        }
        Ok(call)
    }

    /// The call relayed in a task of its own: it outlives this request (the retry resumes it,
    /// and a cancelled retry cancels it), its asks sent to its mailbox.
    fn started(
        &self,
        name: String,
        request: CallToolRequestParams,
        ctx: &RequestContext<RoleServer>,
    ) -> Suspended {
        let (mailbox, asks) = mpsc::unbounded_channel();
        let this = self.clone();
        let mut detached = ctx.clone();
        detached.ct = CancellationToken::new();
        // Progress of this request is not sent once it has been answered.
        detached.meta = rmcp::model::RequestMetaObject::default();
        let call = tokio::spawn(async move {
            this.call_upstream(&name, request, detached, Some(mailbox))
                .await
        });
        Suspended {
            call,
            asks,
            waiting: None,
            since: Instant::now(),
        }
    }
}
