//! Shared capacity is fair (issue 58). Measured at 81b80ac: 530 never-ending jq queries took
//! 524 of the blocking pool's threads and a `read` after them answered in 147 s; 12 of them
//! made another client's `length` wait 29 s for a box. Now each call takes a place before a
//! thread (per session, per server, a lane of its own for `read`), and one session's programs
//! hold at most half the boxes. The figures are printed; the bounds asserted are loose (ten
//! times what was measured here), as a timed test's must be.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use spool_core::{Store, StoreConfig};
use spool_mcp::{Settings, SpoolServer};
use spool_walk::roots::Roots;

use crate::support::{structured, texts};

type Client = Arc<RunningService<RoleClient, ()>>;

/// Two sessions of one server (as two HTTP sessions are: clones of it).
async fn two_sessions() -> (Client, Client, tempfile::TempDir, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(home.path(), StoreConfig::default()).unwrap());
    let roots = Roots::new(&[root.path().to_owned()]).unwrap();
    let server = SpoolServer::new(store, roots, Settings::default());
    let mut clients = Vec::new();
    for session in [server.clone(), server] {
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move {
            if let Ok(running) = session.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        clients.push(Arc::new(().serve(client_io).await.unwrap()));
    }
    let b = clients.pop().unwrap();
    let a = clients.pop().unwrap();
    (a, b, home, root)
}

async fn call(client: &Client, tool: &str, args: Value) -> rmcp::model::CallToolResult {
    let params = CallToolRequestParams::new(tool.to_owned())
        .with_arguments(args.as_object().cloned().unwrap());
    client.call_tool(params).await.unwrap()
}

/// `count` never-ending programs over `reference`, started and left running.
fn hostile(client: &Client, reference: &str, count: usize) -> Vec<tokio::task::JoinHandle<()>> {
    (0..count)
        .map(|i| {
            let client = Arc::clone(client);
            let program = format!("def f: f; {i} as $i | f");
            let reference = reference.to_owned();
            tokio::spawn(async move {
                let _ = call(&client, "query", json!({ "ref": reference, "jq": program })).await;
            })
        })
        .collect()
}

async fn stored_list(client: &Client) -> String {
    let r = call(client, "run", json!({ "command": "printf '[1,2,3]'" })).await;
    structured(&r)["ref"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_answers_at_once_behind_530_never_ending_queries_of_its_own_session() {
    let (a, _b, _home, _root) = two_sessions().await;
    let reference = stored_list(&a).await;
    let running = hostile(&a, &reference, 530);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = Instant::now();
    let r = call(&a, "read", json!({ "ref": reference })).await;
    let read_took = started.elapsed();
    assert_ne!(r.is_error, Some(true), "{}", texts(&r).join("\n"));
    let started = Instant::now();
    let listed = a.list_tools(None).await.unwrap();
    let list_took = started.elapsed();
    assert!(listed.tools.len() > 3);
    eprintln!("behind 530 never-ending queries: read {read_took:?}, tools/list {list_took:?}");
    assert!(
        read_took < Duration::from_secs(10),
        "read took {read_took:?}"
    );
    assert!(
        list_took < Duration::from_secs(10),
        "tools/list took {list_took:?}"
    );
    // Past the session's queue, a query is answered busy at once, saying when to try again.
    let started = Instant::now();
    let r = call(&a, "query", json!({ "ref": reference, "jq": "length" })).await;
    assert_eq!(r.is_error, Some(true));
    let said = texts(&r).join("\n");
    assert!(said.contains("did not start"), "{said}");
    assert!(said.contains("make the same call again in 5 s"), "{said}");
    insta::assert_snapshot!("busy_past_the_session_queue", said);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    for task in running {
        task.abort();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_session_finds_a_jq_box_behind_12_never_ending_programs() {
    let (a, b, _home, _root) = two_sessions().await;
    let reference = stored_list(&a).await;
    let running = hostile(&a, &reference, 12);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = Instant::now();
    let r = call(&b, "query", json!({ "ref": reference, "jq": "length" })).await;
    let took = started.elapsed();
    assert_ne!(r.is_error, Some(true), "{}", texts(&r).join("\n"));
    assert!(texts(&r).join("\n").contains('3'));
    eprintln!("another session's `length` behind 12 never-ending programs: {took:?}");
    assert!(took < Duration::from_secs(10), "took {took:?}");
    for task in running {
        task.abort();
    }
}
