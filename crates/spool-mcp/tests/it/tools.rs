//! Each tool through a real client: shapes, errors, pages, the read-only mode.

use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use spool_mcp::Settings;

use crate::support::{start, structured, texts};

/// Regression (issue 38): `limit` maxima lived only in descriptions, and schemas said
/// `minimum: 0` where 0 was refused. Every `limit` and `max_tokens` states both bounds, and
/// the server refuses a value past either with `invalid_argument`.
#[tokio::test]
async fn every_limit_states_its_bounds_and_they_are_the_ones_enforced() {
    let h = start(Settings::default()).await;
    let tools = h.client.list_all_tools().await.unwrap();
    let mut checked = 0;
    for t in &tools {
        let props = t.input_schema["properties"].as_object().unwrap();
        for key in ["limit", "max_tokens"] {
            let Some(p) = props.get(key) else { continue };
            let (min, max) = (p["minimum"].as_u64(), p["maximum"].as_u64());
            assert!(min.is_some_and(|m| m >= 1), "{} {key}: {p}", t.name);
            assert!(max.is_some(), "{} {key}: {p}", t.name);
            checked += 1;
        }
    }
    assert!(checked >= 12, "{checked}");
    for (tool, args) in [
        ("search", json!({ "path": ".", "pattern": "x", "limit": 0 })),
        (
            "search",
            json!({ "path": ".", "pattern": "x", "limit": 1_001 }),
        ),
        ("list", json!({ "limit": 1_001 })),
        ("artifacts", json!({ "limit": 0 })),
        (
            "search",
            json!({ "path": ".", "pattern": "x", "max_tokens": 1_000_001 }),
        ),
    ] {
        let r = h.call(tool, args.clone()).await;
        assert_eq!(r.is_error, Some(true), "{tool} {args}");
        assert_eq!(
            structured(&r)["error"]["code"],
            "invalid_argument",
            "{tool} {args}"
        );
    }
}

#[tokio::test]
async fn tools_list_is_the_product_copy() {
    let h = start(Settings::default()).await;
    let tools = h.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "artifacts",
            "ci_log",
            "fetch",
            "list",
            "map",
            "query",
            "read",
            "run",
            "search"
        ]
    );
    // The output schemas are docs/schemas/answers.json's (checked against the answer types in
    // spool-core): each tool's definitions are that file's, and the snapshot names which
    // answers each tool gives.
    let kept: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../docs/schemas/answers.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let mut listed = serde_json::to_value(&tools).unwrap();
    for tool in listed.as_array_mut().unwrap() {
        let schema = tool["outputSchema"].take();
        for (name, def) in schema["$defs"].as_object().unwrap() {
            assert_eq!(def, &kept["$defs"][name], "{}: $defs/{name}", tool["name"]);
        }
        tool["outputSchema"] = schema["anyOf"].clone();
    }
    insta::assert_json_snapshot!("tools_list", listed);
    let info = h.client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "spool");
}

/// The validator the answers are held to is not a formality: a real answer passes it, and the
/// same answer without a field its schema requires does not.
#[tokio::test]
async fn the_declared_schema_refuses_an_answer_missing_a_required_field() {
    let h = start(Settings::default()).await;
    h.write("a.txt", b"one\ntwo\n");
    let tools = h.client.list_all_tools().await.unwrap();
    let schema_of = |name: &str| {
        let t = tools.iter().find(|t| t.name == name).unwrap();
        Value::Object((*t.output_schema.clone().unwrap()).clone())
    };
    for (tool, args, field) in [
        (
            "search",
            json!({ "pattern": "two", "path": "." }),
            "hit_count",
        ),
        (
            "search",
            json!({ "pattern": "two", "path": ".", "count": true }),
            "files",
        ),
        ("read", json!({ "path": "a.txt" }), "complete"),
        ("list", json!({ "path": "." }), "has_more"),
    ] {
        let r = h.call(tool, args).await;
        let mut answer = structured(&r).clone();
        let schema = schema_of(tool);
        spool_test_support::schema_check::validate(&schema, &answer).unwrap();
        answer.as_object_mut().unwrap().remove(field);
        let refused = spool_test_support::schema_check::validate(&schema, &answer);
        assert!(refused.is_err(), "{tool} without {field} passed");
    }
}

#[tokio::test]
async fn no_run_leaves_a_read_only_server() {
    let h = start(Settings {
        no_run: true,
        ..Settings::default()
    })
    .await;
    let tools = h.client.list_all_tools().await.unwrap();
    assert!(tools.iter().all(|t| t.name != "run"));
    let params = CallToolRequestParams::new("run")
        .with_arguments(json!({ "command": "true" }).as_object().cloned().unwrap());
    assert!(
        h.client.call_tool(params).await.is_err(),
        "an unknown tool is a protocol error"
    );
}

#[tokio::test]
async fn run_answers_an_envelope_with_the_banner_first() {
    let h = start(Settings::default()).await;
    let r = h
        .call(
            "run",
            json!({ "command": "echo hello; echo oops >&2; exit 2" }),
        )
        .await;
    assert_eq!(r.is_error, Some(false));
    let e = structured(&r);
    assert_eq!(e["complete"], true);
    assert_eq!(e["source"]["version"]["exit_code"], 2);
    // Each part carries everything alone: hosts forward one of them to the model.
    assert_eq!(e["content"], "hello\noops\n");
    assert!(
        e["notice"]
            .as_str()
            .unwrap()
            .starts_with("[COMPLETE: 2 lines")
    );
    let keys: Vec<&str> = e.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "notice", "ref", "shown", "total", "complete", "next", "source", "content"
        ],
        "the facts come before the content"
    );
    let blocks = texts(&r);
    assert!(blocks[0].starts_with("[COMPLETE: 2 lines"), "{}", blocks[0]);
    assert_eq!(blocks[1], "hello\noops\n");
}

#[tokio::test]
async fn errors_are_tool_results_with_the_contract_error_object() {
    let h = start(Settings::default()).await;
    h.write("inside.txt", b"x\n");
    let cases = [
        ("read", json!({ "path": "../../etc/passwd" }), "forbidden"),
        ("read", json!({ "path": "missing.txt" }), "not_found"),
        ("read", json!({ "ref": "sp_nosuchthing" }), "not_found"),
        (
            "read",
            json!({ "path": "inside.txt", "line": 5 }),
            "invalid_argument",
        ),
        (
            "read",
            json!({ "path": "inside.txt", "line": 1, "char_offset": 0 }),
            "invalid_argument",
        ),
        ("read", json!({}), "invalid_argument"),
        (
            "search",
            json!({ "pattern": "(", "path": "." }),
            "invalid_argument",
        ),
        (
            "search",
            json!({ "pattern": "x", "path": ".", "cursor": "forged.cursor" }),
            "invalid_argument",
        ),
        ("list", json!({ "path": "/" }), "forbidden"),
        (
            "run",
            json!({ "command": "true", "cwd": "/tmp" }),
            "forbidden",
        ),
        ("run", json!({}), "invalid_argument"),
    ];
    for (tool, args, code) in cases {
        let r = h.call(tool, args.clone()).await;
        assert_eq!(r.is_error, Some(true), "{tool} {args}");
        assert_eq!(structured(&r)["error"]["code"], code, "{tool} {args}");
        let text = &texts(&r)[0];
        assert!(text.starts_with(&format!("[ERROR {code}:")), "{text}");
    }
    // Still serving.
    let r = h.call("read", json!({ "path": "inside.txt" })).await;
    assert_eq!(r.is_error, Some(false));
}

#[tokio::test]
async fn search_a_directory_and_page_its_hits() {
    let h = start(Settings::default()).await;
    for i in 0..12 {
        h.write(&format!("src/m{i:02}.rs"), b"fn f() { todo_marker(); }\n");
    }
    let r = h
        .call(
            "search",
            json!({ "pattern": "todo_marker", "path": "src", "limit": 5 }),
        )
        .await;
    let a = structured(&r);
    assert_eq!(a["hit_count"], 12);
    assert_eq!(a["truncated"], true);
    assert_eq!(a["scope"]["files_searched"], 12);
    let cursor = a["next_cursor"].as_str().unwrap().to_owned();
    let r = h
        .call(
            "search",
            json!({ "pattern": "todo_marker", "path": "src", "limit": 5, "cursor": cursor }),
        )
        .await;
    let b = structured(&r);
    assert_eq!(b["hits"][0]["path"], "m05.rs");
    assert_eq!(b["ref"], a["ref"], "pages come from one stored hit list");
}

#[tokio::test]
async fn list_pages_by_cursor() {
    let h = start(Settings::default()).await;
    for i in 0..7 {
        h.write(&format!("d/f{i}"), b"");
    }
    let r = h.call("list", json!({ "path": "d", "limit": 5 })).await;
    let p = structured(&r);
    assert_eq!(p["items"].as_array().unwrap().len(), 5);
    assert_eq!(p["has_more"], true);
    assert_eq!(p["total"], 7);
    let r = h
        .call(
            "list",
            json!({ "path": "d", "limit": 5, "cursor": p["next_cursor"] }),
        )
        .await;
    let q = structured(&r);
    assert_eq!(q["items"][0]["name"], "f5");
    assert_eq!(q["has_more"], false);
    let r = h.call("artifacts", json!({})).await;
    assert_eq!(r.is_error, Some(false));
}

#[tokio::test]
async fn cancelling_a_run_keeps_what_it_printed() {
    let h = start(Settings::default()).await;
    let handle = h
        .call_cancellable("run", json!({ "command": "echo before; sleep 30" }))
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(700)).await;
    handle.cancel(Some("test".into())).await.unwrap();
    // The artifact appears as cancelled, with what was captured.
    let mut state = String::new();
    for _ in 0..50 {
        let r = h.call("artifacts", json!({ "kind": "exec" })).await;
        state = structured(&r)["items"][0]["state"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        if state == "cancelled" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(state, "cancelled");
}

#[tokio::test]
async fn wrong_arguments_are_a_tool_error_naming_the_field() {
    // SEP-1303 (2025-11-25): the model gets an error it can correct, not a protocol error.
    let h = start(Settings::default()).await;
    for (tool, args, field) in [
        (
            "search",
            json!({ "ref": "sp_x", "pattern": 5 }),
            "`pattern` must be a string or null (got the number 5)",
        ),
        (
            "read",
            json!({ "ref": "sp_x", "lines": 3 }),
            "`lines` is not an argument of this tool",
        ),
        (
            "run",
            json!({ "command": 5 }),
            "`command` must be a string or null (got the number 5)",
        ),
        (
            "read",
            json!({ "ref": "sp_x", "line": "97" }),
            "`line` must be an integer or null (got the string \"97\")",
        ),
    ] {
        let r = h.call(tool, args).await;
        assert_eq!(r.is_error, Some(true), "{tool}");
        let e = &structured(&r)["error"];
        assert_eq!(e["code"], "invalid_argument");
        let message = e["message"].as_str().unwrap();
        assert!(message.contains(field), "{tool}: {message}");
        assert!(message.contains("do not fit its input schema"), "{message}");
        assert!(e["hint"].as_str().unwrap().contains("inputSchema"));
        let text = &texts(&r)[0];
        assert!(text.contains(field) && text.contains("hint:"), "{text}");
    }
    // A search needs a pattern or words: one of the two, said in the tool's own terms.
    let r = h.call("search", json!({ "ref": "sp_x" })).await;
    let e = &structured(&r)["error"];
    assert_eq!(e["code"], "invalid_argument");
    assert!(
        e["message"].as_str().unwrap().contains("`pattern`")
            && e["message"].as_str().unwrap().contains("`query`"),
        "{e}"
    );
    // The server stays up.
    let r = h.call("artifacts", json!({})).await;
    assert_eq!(r.is_error, Some(false));
}

/// Keeps the messages of progress notifications.
#[derive(Clone, Default)]
struct ProgressCounter(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl rmcp::ClientHandler for ProgressCounter {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        self.0
            .lock()
            .unwrap()
            .push(params.message.unwrap_or_default());
    }
}

/// A server over a store of `config`, running; the client's end of its pipe, and the store's
/// and the root's directories (kept while the test runs).
fn served(
    config: spool_core::StoreConfig,
) -> (
    tokio::io::DuplexStream,
    (tempfile::TempDir, tempfile::TempDir),
) {
    use rmcp::ServiceExt;
    let home = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let store = std::sync::Arc::new(spool_core::Store::open(home.path(), config).unwrap());
    let roots = spool_walk::roots::Roots::new(&[root.path().to_owned()]).unwrap();
    let server = spool_mcp::SpoolServer::new(store, roots, Settings::default());
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    (client_io, (home, root))
}

#[tokio::test]
async fn run_reports_progress_while_the_command_runs() {
    use rmcp::ServiceExt;
    let (client_io, _dirs) = served(spool_core::StoreConfig::default());
    let counter = ProgressCounter::default();
    let client = counter.clone().serve(client_io).await.unwrap();
    let params = CallToolRequestParams::new("run").with_arguments(
        json!({ "command": "for i in 1 2 3 4 5 6 7 8; do echo tick $i; sleep 0.2; done" })
            .as_object()
            .cloned()
            .unwrap(),
    );
    let r = client.call_tool(params).await.unwrap();
    assert_eq!(r.is_error, Some(false));
    let seen = counter.0.lock().unwrap().clone();
    assert!(
        seen.len() >= 2,
        "progress notifications while running: {seen:?}"
    );
    // Each names the ref the output is stored as, readable while the command runs.
    let reference = r.structured_content.unwrap()["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    let last = seen.last().unwrap();
    assert!(
        last.ends_with(&format!("; stored as {reference}")),
        "{last}"
    );
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"\bsp_[a-z0-9]{10}\b", "sp_REF");
    settings.add_filter(r"^\d+ lines, [0-9.]+ (bytes|KiB)", "[N] lines, [SIZE]");
    settings.bind(|| insta::assert_snapshot!("run_progress_message", last));
}

#[tokio::test]
async fn a_client_gone_mid_call_leaves_no_complete_looking_artifact() {
    let h = start(Settings::default()).await;
    let params = CallToolRequestParams::new("run").with_arguments(
        json!({ "command": "echo partial; sleep 30" })
            .as_object()
            .cloned()
            .unwrap(),
    );
    let peer = h.client.peer().clone();
    let call = tokio::spawn(async move { peer.call_tool(params).await });
    tokio::time::sleep(std::time::Duration::from_millis(700)).await;
    let home = h.home.path().to_owned();
    // The client goes away without a word.
    call.abort();
    drop(h.client);
    let store = spool_core::Store::open(&home, spool_core::StoreConfig::default()).unwrap();
    let mut state = None;
    for _ in 0..60 {
        let items = store
            .list(Some(spool_core::SourceKind::Exec), None, 10)
            .unwrap();
        state = items.first().map(|m| m.state);
        if state.is_some_and(|s| s != spool_core::envelope::ArtifactState::Capturing) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(state, Some(spool_core::envelope::ArtifactState::Cancelled));
}

/// Serves `body` at `/page` on a free loopback port; returns the base URL and a hit counter.
fn serve_page(body: String) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&hits);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let app = axum::Router::new().route(
                "/page",
                axum::routing::get(move || {
                    counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let body = body.clone();
                    async move { ([(axum::http::header::CONTENT_TYPE, "text/html")], body) }
                }),
            );
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    (format!("http://{}", rx.recv().unwrap()), hits)
}

#[tokio::test]
async fn fetch_stores_the_page_and_points_at_search_first() {
    let mut html = String::from("<html><body>");
    for i in 0..3000 {
        html.push_str(&format!("<p>Paragraph {i} of an ordinary page.</p>"));
    }
    html.push_str("<p>The answer is ultraviolet.</p></body></html>");
    let (base, hits) = serve_page(html);
    let h = start(Settings {
        allow_private_network: true,
        ..Settings::default()
    })
    .await;
    let r = h
        .call("fetch", json!({ "url": format!("{base}/page") }))
        .await;
    assert_eq!(r.is_error, Some(false), "{:?}", texts(&r));
    let e = structured(&r).clone();
    assert_eq!(e["complete"], false);
    assert_eq!(e["source"]["kind"], "fetch");
    assert_eq!(e["next_templates"][0]["tool"], "search");
    let mut search = e["next_templates"][0]["arguments"].clone();
    search["pattern"] = json!("ultraviolet");
    let found = h.call("search", search).await;
    assert_eq!(structured(&found)["hit_count"], 1);
    // Again: the stored copy, one download in all.
    let again = h
        .call("fetch", json!({ "url": format!("{base}/page") }))
        .await;
    assert_eq!(structured(&again)["ref"], e["ref"]);
    assert!(
        texts(&again)[0].contains("fetched 0 s ago"),
        "{}",
        texts(&again)[0]
    );
    assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 1);
    // Without the flag, loopback is refused.
    let strict = start(Settings::default()).await;
    let r = strict
        .call("fetch", json!({ "url": format!("{base}/page") }))
        .await;
    assert_eq!(structured(&r)["error"]["code"], "forbidden");
}

/// A wrapped upstream's schema keeps its `$defs` working: they move to the root, beside
/// spool's (named `spool.*`), so its `#/$defs/..` references still resolve; and an answer the
/// upstream's own schema refuses is refused.
#[test]
fn a_wrapped_schema_keeps_the_upstreams_definitions() {
    let upstream = json!({
        "type": "object",
        "properties": { "row": { "$ref": "#/$defs/Row" } },
        "required": ["row"],
        "$defs": { "Row": { "type": "object", "properties": { "id": { "type": "integer" } }, "required": ["id"] } }
    });
    let wrapped =
        Value::Object((*spool_mcp::schema::wrapped(upstream.as_object().unwrap())).clone());
    assert!(wrapped["$defs"]["Row"].is_object(), "{wrapped}");
    assert!(wrapped["$defs"]["spool.EnvelopeAnswer"].is_object());
    let check = |v: Value| spool_test_support::schema_check::validate(&wrapped, &v);
    check(json!({ "row": { "id": 7 } })).unwrap();
    assert!(check(json!({ "row": { "id": "seven" } })).is_err());
    check(json!({ "error": { "code": "not_found", "message": "no such row" } })).unwrap();
}

/// A larger per-call cap never shows less: past the chars every answer is held to (200,000),
/// `max_tokens: 1000000` shows at least what `max_tokens: 100000` shows, and both fit. Regression
/// (issue 57): the fit stopped at the first budget that fit after a proportional step from far
/// above (26,323 lines against 29,864), and counted a Japanese page's bytes as its chars (3,570
/// lines against 8,288).
#[tokio::test]
async fn a_larger_cap_never_shows_less() {
    let h = start(Settings::default()).await;
    let numbered = |n: u32, tail: &str| -> String {
        let mut s = String::new();
        for i in 1..=n {
            s.push_str(&i.to_string());
            s.push_str(tail);
        }
        s
    };
    let short = numbered(400_000, "\n");
    let japanese = numbered(100_000, " 日本語のテキスト、そしてもっと\n");
    h.write("short.log", short.as_bytes());
    h.write("ja.log", japanese.as_bytes());
    let lines_shown = |v: &Value| -> u64 {
        v["shown"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["end"].as_u64().unwrap() - r["start"].as_u64().unwrap() + 1)
            .sum()
    };
    for args in [
        json!({ "path": "short.log", "line": 1 }),
        json!({ "path": "ja.log", "line": 1 }),
        json!({ "path": "ja.log" }),
        json!({ "command": "seq 1 300000" }),
    ] {
        let tool = if args.get("command").is_some() {
            "run"
        } else {
            "read"
        };
        let mut shown = Vec::new();
        for max_tokens in [100_000, 1_000_000] {
            let mut a = args.clone();
            a["max_tokens"] = json!(max_tokens);
            let r = h.call(tool, a).await;
            let v = structured(&r);
            let chars = serde_json::to_string(v).unwrap().chars().count();
            assert!(chars <= 200_000, "{args} at {max_tokens}: {chars} chars");
            let text_chars: usize = texts(&r).iter().map(|t| t.chars().count() + 1).sum();
            assert!(
                text_chars <= 200_000,
                "{args} at {max_tokens}: {text_chars} chars of text"
            );
            shown.push(lines_shown(v));
        }
        assert!(shown[1] >= shown[0], "{args}: {shown:?}");
    }
}

/// Regression (issue 41): the tools and the instructions told the model artifacts last 7 days
/// whatever the store was started with.
#[tokio::test]
async fn the_lifetime_the_model_is_told_is_the_stores() {
    use rmcp::ServiceExt;
    let (client_io, _dirs) = served(spool_core::StoreConfig {
        ttl: std::time::Duration::from_hours(1),
        ..spool_core::StoreConfig::default()
    });
    let client = ().serve(client_io).await.unwrap();
    let tools = client.list_tools(None).await.unwrap().tools;
    let run = tools.iter().find(|t| t.name == "run").unwrap();
    let said = run.description.as_deref().unwrap_or_default();
    assert!(said.contains("an artifact kept for 1 hour."), "{said}");
    assert!(!tools.iter().any(|t| {
        t.description
            .as_deref()
            .is_some_and(|d| d.contains("7 days"))
    }));
    let info = client.peer_info().unwrap();
    let instructions = info.instructions.as_deref().unwrap_or_default();
    assert!(instructions.contains("for 1 hour:"), "{instructions}");
}

/// Regression (issue 41): each tool's `max_tokens` said "(default: the server's cap, 8000)"
/// whatever `--max-tokens` the server was started with.
#[tokio::test]
async fn the_cap_the_model_is_told_is_the_servers() {
    let h = crate::support::start(Settings {
        max_tokens: 2000,
        ..Settings::default()
    })
    .await;
    let tools = h.client.list_tools(None).await.unwrap().tools;
    let mut told = 0;
    for tool in &tools {
        let schema = serde_json::to_string(tool.input_schema.as_ref()).unwrap();
        assert!(!schema.contains("the server's cap, 8000"), "{}", tool.name);
        told += usize::from(schema.contains("(default: the server's cap, 2000)"));
    }
    assert!(told >= 7, "{told} tools say the cap");
}
