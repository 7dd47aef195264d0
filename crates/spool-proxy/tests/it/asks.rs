//! Requests an upstream sends to its client (sampling, elicitation, roots) reach the client that
//! made the call, and its answers go back: the proxy answers none of them itself.
#![expect(
    deprecated,
    reason = "sampling and roots are deprecated by 2026-07-28 (SEP-2577), still in 2025-11-25"
)]

use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientInfo, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    Implementation, ListRootsResult,
};
use rmcp::service::RequestContext;
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::json;

use crate::support::{Options, connect, connect_with, fake_spec, params, spool_server, texts};

/// A client that offers sampling, elicitation and roots, and notes what it was asked.
#[derive(Clone, Default)]
struct Asker {
    asked: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Asker {
    fn get_info(&self) -> ClientInfo {
        let caps = serde_json::from_value(json!({
            "sampling": {},
            "elicitation": { "form": {} },
            "roots": { "listChanged": true }
        }))
        .unwrap();
        let mut info = ClientInfo::new(caps, Implementation::new("asker", "1.0"));
        // The older protocol, in which a server may send requests to its client.
        info.protocol_version = rmcp::model::ProtocolVersion::V_2025_11_25;
        info
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _ctx: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.asked.lock().unwrap().push(format!(
            "sampling: {}",
            serde_json::to_string(&params.messages).unwrap()
        ));
        Ok(serde_json::from_value(json!({
            "model": "the-client-model",
            "role": "assistant",
            "content": { "type": "text", "text": "hello from the client" }
        }))
        .unwrap())
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _ctx: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.lock().unwrap().push(format!(
            "elicitation: {}",
            serde_json::to_string(&request).unwrap()
        ));
        Ok(
            serde_json::from_value(json!({ "action": "accept", "content": { "name": "Ada" } }))
                .unwrap(),
        )
    }

    async fn list_roots(
        &self,
        _ctx: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        self.asked.lock().unwrap().push("roots".into());
        Ok(
            serde_json::from_value(json!({ "roots": [{ "uri": "file:///work", "name": "work" }] }))
                .unwrap(),
        )
    }
}

async fn proxy() -> (
    spool_proxy::ProxyServer,
    tempfile::TempDir,
    tempfile::TempDir,
) {
    let home = tempfile::tempdir().unwrap();
    let marks = tempfile::tempdir().unwrap();
    let spool = spool_server(home.path(), spool_mcp::Settings::default());
    let _ = Options::default();
    let server = spool_proxy::ProxyServer::start(
        spool_proxy::ProxyConfig {
            upstreams: vec![fake_spec("fake", marks.path())],
            ..spool_proxy::ProxyConfig::default()
        },
        spool,
    )
    .await
    .unwrap();
    (server, home, marks)
}

#[tokio::test]
async fn sampling_elicitation_and_roots_reach_the_client_that_called() {
    let (server, _home, _marks) = proxy().await;
    let asker = Asker::default();
    let client = connect_with(server, asker.clone()).await;
    let r = client
        .call_tool(params("ask_sampling", json!({})))
        .await
        .unwrap();
    let text = texts(&r).join("");
    assert_eq!(r.is_error, Some(false), "{text}");
    assert!(text.contains("hello from the client"), "{text}");
    assert!(text.contains("the-client-model"), "{text}");
    let r = client
        .call_tool(params("ask_elicitation", json!({})))
        .await
        .unwrap();
    let text = texts(&r).join("");
    assert!(text.contains("\"name\":\"Ada\""), "{text}");
    assert!(text.contains("accept"), "{text}");
    let r = client
        .call_tool(params("ask_roots", json!({})))
        .await
        .unwrap();
    let text = texts(&r).join("");
    assert!(text.contains("file:///work"), "{text}");
    let seen = asker.asked.lock().unwrap().clone();
    assert!(
        seen[0].starts_with("sampling: ") && seen[0].contains("say hello"),
        "{seen:?}"
    );
    assert!(seen[1].contains("What is your name?"), "{seen:?}");
    assert_eq!(seen[2], "roots");
}

#[tokio::test]
async fn a_client_that_offers_none_is_not_answered_for() {
    let (server, _home, _marks) = proxy().await;
    let client = connect(server).await;
    let r = client
        .call_tool(params("ask_sampling", json!({})))
        .await
        .unwrap();
    let text = texts(&r).join("");
    // The upstream's own error: never a reply made up on the user's behalf.
    assert_eq!(r.is_error, Some(true), "{text}");
    assert!(text.contains("the ask failed"), "{text}");
    let r = client
        .call_tool(params("ask_elicitation", json!({})))
        .await
        .unwrap();
    let text = texts(&r).join("");
    assert!(
        !text.contains("decline"),
        "the proxy does not decline for the user: {text}"
    );
    assert_eq!(r.is_error, Some(true), "{text}");
}

/// `handler` as a client on the protocol without a handshake (2026-07-28) of `server`.
async fn without_handshake<H: rmcp::ClientHandler>(
    server: spool_proxy::ProxyServer,
    handler: H,
) -> rmcp::service::RunningService<rmcp::RoleClient, H> {
    use rmcp::service::{ClientLifecycleMode, serve_client_with_lifecycle};
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = Box::pin(rmcp::ServiceExt::serve(server, server_io)).await {
            let _ = running.waiting().await;
        }
    });
    serve_client_with_lifecycle(
        handler,
        client_io,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .unwrap()
}

/// A client on the protocol without a handshake (2026-07-28) offers sampling and elicitation on
/// every request; it cannot be sent a request, so an upstream's ask mid-call is put to it as an
/// `input_required` answer to its call, and its retry brings the answer back to the waiting
/// upstream. Regression (issue 57): it was refused as a client that "did not offer sampling
/// when it connected". Roots, asked before the call, still reach the upstream.
#[tokio::test]
async fn a_client_without_a_handshake_is_asked_through_its_call() {
    let (server, _home, _marks) = proxy().await;
    let asker = Asker::default();
    let client = without_handshake(server, asker.clone()).await;
    let r = client
        .call_tool(params("ask_sampling", json!({})))
        .await
        .unwrap();
    let text = texts(&r).join("");
    assert_eq!(r.is_error, Some(false), "{text}");
    assert!(text.contains("hello from the client"), "{text}");
    let r = client
        .call_tool(params("ask_elicitation", json!({})))
        .await
        .unwrap();
    let text = texts(&r).join("");
    assert_eq!(r.is_error, Some(false), "{text}");
    assert!(text.contains("\"name\":\"Ada\""), "{text}");
    let r = client
        .call_tool(params("ask_roots", json!({})))
        .await
        .unwrap();
    let text = texts(&r).join("");
    assert!(text.contains("file:///work"), "{text}");
    let seen = asker.asked.lock().unwrap().clone();
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert_eq!(
        seen[0], "roots",
        "asked first, before the first relayed call"
    );
    assert!(
        seen[1].starts_with("sampling: ") && seen[1].contains("say hello"),
        "{seen:?}"
    );
    assert!(seen[2].contains("What is your name?"), "{seen:?}");
}

/// A `requestState` spool never gave (or whose wait ended) is refused, not taken as a new call.
#[tokio::test]
async fn a_retry_of_a_call_no_longer_waiting_is_refused() {
    let (server, _home, _marks) = proxy().await;
    let client = without_handshake(server, ()).await;
    let err = client
        .call_tool(params("ask_sampling", json!({})).with_request_state("ask_made_up"))
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("wait for an answer has ended"),
        "{err}"
    );
}
