//! A fake upstream MCP server over stdio, for testing `spool wrap`: it answers with multi-MB
//! text, JSON lists, binary blobs, images, errors, progress, a paginated `tools/list`, a crash
//! and a hang on demand.
//!
//! `FAKE_UPSTREAM_DIR`, when set, is where it leaves marker files (`cancelled` when a request
//! was cancelled). `FAKE_UPSTREAM_ONCE=FILE` makes every start after the first fail.
#![expect(clippy::print_stderr, reason = "a test server reports on stderr")]

use std::borrow::Cow;
use std::time::Duration;

use base64::Engine as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, EmbeddedResource,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, ImageContent, ListPromptsResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    Prompt, PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

const PAGE: usize = 5;

// A binary's root file looks for its modules beside it: this one is in a folder of its own.
#[path = "fake_upstream/tools.rs"]
mod tools;
use tools::tools;

/// Asks the client (the proxy, which relays it) and answers with what came back, or why not.
#[expect(
    deprecated,
    reason = "sampling and roots are deprecated in 2026-07-28, still in 2025-11-25"
)]
async fn ask(tool: &str, peer: &rmcp::Peer<RoleServer>) -> CallToolResult {
    use rmcp::model::{
        ClientResult, CreateMessageRequestParams, ElicitRequest, SamplingMessage, ServerRequest,
    };
    let answer = match tool {
        "ask_sampling" => peer
            .create_message(CreateMessageRequestParams::new(
                vec![SamplingMessage::user_text("say hello")],
                50,
            ))
            .await
            .map(|r| serde_json::to_string(&r).unwrap_or_default()),
        "ask_roots" => peer
            .list_roots()
            .await
            .map(|r| serde_json::to_string(&r).unwrap_or_default()),
        _ => {
            let params = serde_json::from_value(json!({
                "mode": "form",
                "message": "What is your name?",
                "requestedSchema": {
                    "type": "object",
                    "properties": { "name": { "type": "string" } },
                    "required": ["name"]
                }
            }));
            match params {
                Ok(params) => peer
                    .send_request(ServerRequest::ElicitRequest(ElicitRequest::new(params)))
                    .await
                    .map(|r| match r {
                        ClientResult::ElicitResult(e) => {
                            serde_json::to_string(&e).unwrap_or_default()
                        }
                        other => format!("unexpected: {other:?}"),
                    }),
                Err(e) => return CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
            }
        }
    };
    match answer {
        Ok(reply) => text(format!("the client answered: {reply}")),
        Err(e) => CallToolResult::error(vec![ContentBlock::text(format!("the ask failed: {e}"))]),
    }
}

/// `count` commits as mcp-server-git words them, newest first: one a minute, back from
/// 2026-11-30 23:59 (through November, for up to 43,200 commits).
fn git_log(count: u64) -> String {
    let mut out = String::from("Commit history:\n");
    for back in 0..count.min(43_200) {
        let minute_of_month = 30 * 1_440 - 1 - back;
        let (day, minute) = (minute_of_month / 1_440 + 1, minute_of_month % 1_440);
        let number = count - back;
        out.push_str(&format!(
            "Commit: '{:040x}'\nAuthor: <git.Actor \"Dev <dev@example.invalid>\">\nDate: 2026-11-{day:02} {:02}:{:02}:00+00:00\nMessage: 'change number {number}\\n'\n\n",
            u128::from(number) * 0x9e37_79b9_7f4a_7c15,
            minute / 60,
            minute % 60,
        ));
    }
    out
}

/// One page of `n` rows, `per_page` a page, from the position the arguments name, saying what
/// is left in the convention `style` names (see the tool's description).
fn paged_list(p: &CallToolRequestParams) -> Value {
    let n = arg(p, "n", 50);
    let per = arg(p, "per_page", 10).max(1);
    let style = p
        .arguments
        .as_ref()
        .and_then(|a| a.get("style"))
        .and_then(Value::as_str)
        .unwrap_or("mcp")
        .to_owned();
    let text_arg = |name: &str| {
        p.arguments
            .as_ref()
            .and_then(|a| a.get(name))
            .and_then(Value::as_str)
            .and_then(|s| s.parse::<u64>().ok())
    };
    let from = match style.as_str() {
        "github" => (arg(p, "page", 1).max(1) - 1) * per,
        "total" => arg(p, "offset", 0),
        "token" => text_arg("pageToken").unwrap_or(0),
        _ => text_arg("cursor").unwrap_or(0),
    }
    .min(n);
    let to = (from + per).min(n);
    let rows: Vec<Value> = (from..to)
        .map(|i| json!({ "id": i, "name": format!("row {i}") }))
        .collect();
    let more = to < n;
    let next = more.then(|| to.to_string());
    match style.as_str() {
        "snake" => json!({ "items": rows, "next_cursor": next, "has_more": more }),
        "token" => json!({ "items": rows, "nextPageToken": next.unwrap_or_default() }),
        "links" => json!({
            "data": rows,
            "links": { "next": next.map(|c| format!("http://127.0.0.1/rows?cursor={c}")) }
        }),
        "github" => json!({ "total_count": n, "incomplete_results": false, "items": rows }),
        // A search that timed out upstream: every page it could give, and it says so.
        "incomplete" => {
            json!({ "total_count": to - from, "incomplete_results": true, "items": rows })
        }
        "truncated" => json!({ "items": rows, "truncated": more }),
        "total" => json!({ "total": n, "items": rows }),
        _ => json!({ "items": rows, "nextCursor": next, "hasMore": more }),
    }
}

fn arg(p: &CallToolRequestParams, name: &str, default: u64) -> u64 {
    p.arguments
        .as_ref()
        .and_then(|a| a.get(name))
        .and_then(Value::as_u64)
        .unwrap_or(default)
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

fn mark(name: &str) {
    if let Ok(dir) = std::env::var("FAKE_UPSTREAM_DIR") {
        let _ = std::fs::write(std::path::Path::new(&dir).join(name), b"1");
    }
}

#[derive(Clone)]
struct Fake;

impl ServerHandler for Fake {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(rmcp::model::Implementation::new("fake-upstream", "1.0.0"))
        .with_instructions("A fake server for tests.")
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let all = tools();
        let start = request
            .and_then(|r| r.cursor)
            .and_then(|c| c.parse::<usize>().ok())
            .unwrap_or(0);
        let end = (start + PAGE).min(all.len());
        let mut page = ListToolsResult::with_all_items(all[start.min(end)..end].to_vec());
        if end < all.len() {
            page.next_cursor = Some(end.to_string());
        }
        Ok(page)
    }

    async fn call_tool(
        &self,
        p: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let result = match p.name.as_ref() {
            "echo" => match p.arguments.as_ref().and_then(|a| a.get("text")) {
                // As an SDK that validates arguments before the tool runs answers.
                Some(v) if !v.is_string() => {
                    return Err(ErrorData::invalid_params(
                        "Invalid arguments for tool echo",
                        Some(json!({ "path": ["text"], "expected": "string" })),
                    ));
                }
                v => text(v.and_then(Value::as_str).unwrap_or_default()),
            },
            "huge_text" => {
                let want = arg(&p, "bytes", 1 << 20) as usize;
                let mut s = String::with_capacity(want + 100);
                let mut i = 0u64;
                while s.len() < want {
                    i += 1;
                    s.push_str(&format!("line {i}: the quick brown fox jumps over the lazy dog\n"));
                }
                s.push_str("THE LAST LINE\n");
                text(s)
            }
            "huge_image" => {
                let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
                bytes.extend((0..arg(&p, "bytes", 1024)).map(|i| (i * 13 % 256) as u8));
                let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
                CallToolResult::success(vec![
                    ContentBlock::text("a large picture"),
                    ContentBlock::Image(ImageContent::new(data, "image/png")),
                ])
            }
            "db_rows" => {
                let n = arg(&p, "n", 10);
                text(
                    json!({
                        "success": true,
                        "data": { "statements": [{
                            "sql": "SELECT * FROM rows",
                            "rows": spool_test_support::rows(n),
                            "rowCount": n
                        }] }
                    })
                    .to_string(),
                )
            }
            "py_list" => {
                let rows = spool_test_support::rows(arg(&p, "n", 10));
                let blocks = rows
                    .as_array()
                    .map(|a| a.iter().map(|r| ContentBlock::text(r.to_string())).collect())
                    .unwrap_or_default();
                let mut r = CallToolResult::success(blocks);
                r.structured_content = Some(json!({ "result": rows }));
                r
            }
            "git_log" => text(git_log(arg(&p, "n", 10))),
            "ask_sampling" | "ask_elicitation" | "ask_roots" => ask(p.name.as_ref(), &ctx.peer).await,
            "big_text" => text(spool_test_support::big_text(arg(&p, "lines", 100))),
            "tail_logs" => {
                let n = arg(&p, "lines", 100);
                let mut s = spool_test_support::big_text(n.saturating_sub(1));
                s.push_str("FATAL: the last words of the log\n");
                text(s)
            }
            "list_rows" => text(
                serde_json::to_string_pretty(&spool_test_support::rows(arg(&p, "n", 10)))
                    .unwrap_or_default(),
            ),
            "query_rows" => {
                let n = arg(&p, "n", 10);
                let v = json!({ "rows": spool_test_support::rows(n), "count": n });
                let mut r = text(v.to_string());
                r.structured_content = Some(v);
                r
            }
            "blob" => {
                let bytes: Vec<u8> = (0..arg(&p, "bytes", 1024))
                    .map(|i| (i % 251) as u8)
                    .collect();
                let blob = base64::engine::general_purpose::STANDARD.encode(&bytes);
                CallToolResult::success(vec![ContentBlock::Resource(EmbeddedResource::new(
                    ResourceContents::BlobResourceContents {
                        uri: "fake://blob".into(),
                        mime_type: Some("application/octet-stream".into()),
                        blob,
                        meta: None,
                    },
                ))])
            }
            "image" => {
                let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
                bytes.extend((0..arg(&p, "bytes", 1024)).map(|i| (i * 7 % 256) as u8));
                let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
                CallToolResult::success(vec![
                    ContentBlock::text("a picture"),
                    ContentBlock::Image(ImageContent::new(data, "image/png")),
                ])
            }
            "fail" => {
                CallToolResult::error(vec![ContentBlock::text("the fake tool failed on purpose")])
            }
            "fail_long" => {
                let n = arg(&p, "lines", 20_000);
                let mut s = String::new();
                for i in 1..n {
                    s.push_str(&format!("    at frame {i} (handler.js:{i}:7)\n"));
                }
                s.push_str("CAUSE: the connection pool was exhausted\n");
                CallToolResult::error(vec![ContentBlock::text(s)])
            }
            "reject" => {
                return Err(ErrorData::invalid_params(
                    "the fake server rejects this call",
                    Some(json!({ "why": "on purpose" })),
                ));
            }
            "slow" => {
                let steps = arg(&p, "steps", 5);
                let token = ctx.meta.get_progress_token();
                for i in 1..=steps {
                    if let Some(t) = &token {
                        let note = ProgressNotificationParam::new(t.clone(), i as f64)
                            .with_total(steps as f64)
                            .with_message(format!("step {i} of {steps}"));
                        let _ = ctx.peer.notify_progress(note).await;
                    }
                    tokio::select! {
                        () = tokio::time::sleep(Duration::from_millis(100)) => {}
                        () = ctx.ct.cancelled() => {
                            mark("cancelled");
                            return Err(ErrorData::internal_error("cancelled", None));
                        }
                    }
                }
                text(format!("done after {steps} steps"))
            }
            "crash" => {
                eprintln!("fake-upstream: crashing on purpose");
                std::process::exit(3);
            }
            "hang" => {
                tokio::time::sleep(Duration::from_hours(1)).await;
                text("never")
            }
            "pid" => text(std::process::id().to_string()),
            "mixed" => {
                let n = arg(&p, "n", 10);
                let mut r = text(format!("{n} rows"));
                r.structured_content = Some(json!({ "rows": spool_test_support::rows(n) }));
                r
            }
            "doc_with_tags" => text(json!({ "body": "x".repeat(200_000), "tags": ["a", "b"] }).to_string()),
            "paged_list" => text(paged_list(&p).to_string()),
            "paged_rows" => text(
                json!({ "rows": spool_test_support::rows(arg(&p, "n", 10)), "next_cursor": "page-2" })
                    .to_string(),
            ),
            "blob_and_text" => CallToolResult::success(vec![
                ContentBlock::text(spool_test_support::big_text(5_000)),
                ContentBlock::Resource(EmbeddedResource::new(ResourceContents::BlobResourceContents {
                    uri: "fake://small-blob".into(),
                    mime_type: Some("application/octet-stream".into()),
                    blob: base64::engine::general_purpose::STANDARD.encode(b"tiny"),
                    meta: None,
                })),
            ]),
            "fake_read" => text("the fake server's fake_read"),
            "wrapped_text" => {
                let body = spool_test_support::big_text(arg(&p, "lines", 100));
                let mut r = text(body.clone());
                r.structured_content = Some(json!({ "content": body }));
                r
            }
            "read" => text("the fake server's own read"),
            other => {
                return Err(ErrorData::invalid_params(format!("no tool {other}"), None));
            }
        };
        Ok(CallToolResponse::Complete(result))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![Resource::new(
            "fake://readme",
            "readme",
        )]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri == "fake://big" {
            return Ok(ReadResourceResponse::from(ReadResourceResult::new(vec![
                ResourceContents::text(spool_test_support::big_text(20_000), "fake://big"),
            ])));
        }
        if request.uri != "fake://readme" {
            return Err(ErrorData::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            ));
        }
        Ok(ReadResourceResponse::from(ReadResourceResult::new(vec![
            ResourceContents::text("the fake readme", "fake://readme"),
        ])))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "greet",
            Some("A greeting"),
            None,
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        Ok(GetPromptResponse::from(
            GetPromptResult::new(vec![PromptMessage::new_text(
                Role::User,
                format!("hello from {}", request.name),
            )])
            .with_description(Cow::Borrowed("a greeting").into_owned()),
        ))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    // `FAKE_UPSTREAM_ONCE=FILE`: the server starts once; later starts fail (a server that
    // cannot come back after a crash).
    if let Ok(once) = std::env::var("FAKE_UPSTREAM_ONCE") {
        if std::path::Path::new(&once).exists() {
            eprintln!("fake-upstream: refusing to start again");
            std::process::exit(1);
        }
        let _ = std::fs::write(&once, b"started");
    }
    match Fake.serve(rmcp::transport::stdio()).await {
        Ok(running) => {
            let _ = running.waiting().await;
        }
        Err(e) => eprintln!("fake-upstream: {e}"),
    }
}
