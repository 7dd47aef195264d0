//! What the model receives in each host, for every tool of `spool serve`, success and error.
//!
//! Each host forwards one part of a result (TESTING.md): Claude Code and Codex the structured
//! content as JSON, text-only hosts the text blocks. Every view alone must hold the facts, the
//! shown text exactly once, a next call that can be read off the view and works, and fit the cap.

use rmcp::model::CallToolResult;
use serde_json::{Value, json};
use spool_mcp::Settings;
use spool_test_support::hosts::{Host, Shape, View, view};

use crate::support::{Harness, start, structured};

const CAP: u64 = 2_000;

async fn harness(structured: bool) -> Harness {
    start(Settings {
        max_tokens: CAP,
        allow_private_network: true,
        structured,
        ..Settings::default()
    })
    .await
}

fn numbered(lines: u64) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    for i in 1..=lines {
        let _ = writeln!(
            out,
            "{i:05} the quick brown fox jumps over the lazy dog, {} times",
            i * 7
        );
    }
    out
}

fn check(result: &CallToolResult, facts: &[&str], once: &[&str]) -> Vec<View> {
    spool_test_support::hosts::check(result, CAP, facts, once)
}

/// Calls the next call each view names, read off the view alone; each must work.
async fn follow_each(h: &Harness, views: &[View]) -> Vec<CallToolResult> {
    spool_test_support::hosts::follow_each(views, |tool, args| {
        h.call_owned(tool, Value::Object(args))
    })
    .await
}

fn snapshot(name: &str, views: &[View]) {
    spool_test_support::assert_view_snapshots!(name, views);
}

#[tokio::test]
async fn read_a_large_file_in_every_host() {
    let h = harness(true).await;
    h.write("big.txt", numbered(3_000).as_bytes());
    let r = h.call("read", json!({ "path": "big.txt" })).await;
    let reference = structured(&r)["ref"].as_str().unwrap().to_owned();
    let first_line = "00001 the quick brown fox jumps over the lazy dog, 7 times\n";
    let views = check(
        &r,
        &[
            "[PARTIAL: lines 1-",
            "of 3,000 lines",
            "answers are capped at 2,000 tokens",
            &reference,
        ],
        &[first_line],
    );
    // Each view's next call reads on from where the view stopped.
    let shown_end = structured(&r)["shown"][0]["end"].as_u64().unwrap();
    for next in follow_each(&h, &views).await {
        assert_eq!(structured(&next)["shown"][0]["start"], shown_end + 1);
    }
}

#[tokio::test]
async fn a_range_of_a_file_in_every_host() {
    let h = harness(true).await;
    h.write("big.txt", numbered(3_000).as_bytes());
    // A range the caller chose: where it ends does not depend on how a temporary path happens
    // to tokenize, so the views can be snapshots.
    let r = h
        .call(
            "read",
            json!({ "path": "big.txt", "line": 101, "limit": 3 }),
        )
        .await;
    let views = check(
        &r,
        &[
            "[PARTIAL: lines 101-103 of 3,000 lines",
            "the caller asked for this range",
        ],
        &["00102 the quick brown fox jumps over the lazy dog, 714 times\n"],
    );
    snapshot("read_range", &views);
    for next in follow_each(&h, &views).await {
        assert_eq!(structured(&next)["shown"][0]["start"], 104);
    }
}

#[tokio::test]
async fn a_small_file_is_complete_and_shown_once() {
    let h = harness(true).await;
    h.write("small.txt", b"alpha\nbeta\n");
    let r = h.call("read", json!({ "path": "small.txt" })).await;
    let views = check(&r, &["[COMPLETE: 2 lines"], &["alpha\nbeta\n"]);
    snapshot("read_complete", &views);
}

#[tokio::test]
async fn a_failing_command_shows_its_real_last_line_in_every_host() {
    let h = harness(true).await;
    let script = "i=1; while [ $i -le 3000 ]; do echo \"build step $i of 3000\"; i=$((i+1)); done; echo 'error[E0308]: mismatched types' >&2; exit 101";
    let r = h.call("run", json!({ "command": script })).await;
    let e = structured(&r);
    assert_eq!(e["source"]["version"]["exit_code"], 101);
    let views = check(
        &r,
        &[
            "exit 101",
            "[PARTIAL: lines 1-",
            "of 3,001 lines",
            "not shown",
        ],
        &["build step 1 of 3000\n", "error[E0308]: mismatched types\n"],
    );
    for next in follow_each(&h, &views).await {
        assert_eq!(structured(&next)["shown"][0]["unit"], "lines");
    }
}

#[tokio::test]
async fn a_fetched_page_in_every_host() {
    let h = harness(true).await;
    let base =
        spool_test_support::pages::serve("text/html", spool_test_support::pages::manual(2_000))
            .await
            .unwrap();
    let url = format!("{base}/manual.html");
    let r = h.call("fetch", json!({ "url": url })).await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let views = check(
        &r,
        &["[PARTIAL: lines 1-", "HTTP 200", "text/html"],
        &["Paragraph 1 explains"],
    );
    // Every view offers the search of the whole copy, as a template the model fills in (never
    // a `next` call with a blank), and its first way on reads on.
    for v in &views {
        assert!(
            v.count("search ref=sp_") == 1 || v.count(r#""next_templates":[{"tool":"search""#) == 1,
            "{}: no search template in\n{}",
            v.host.name(),
            v.text
        );
    }
    let nexts = follow_each(&h, &views).await;
    assert!(
        nexts
            .iter()
            .all(|n| structured(n)["shown"][0]["unit"] == "lines")
    );
}

#[tokio::test]
async fn search_answers_and_continues_in_every_host() {
    let h = harness(true).await;
    h.write("big.txt", numbered(3_000).as_bytes());
    let r = h
        .call(
            "search",
            json!({ "path": "big.txt", "pattern": "^0[12]\\d{3} ", "limit": 5, "case_insensitive": true }),
        )
        .await;
    let e = structured(&r);
    assert_eq!(e["hit_count"], 2_000);
    assert_eq!(e["truncated"], true);
    let views = check(
        &r,
        &["2,000 hits", "Showing hits 1-5"],
        &["01000 the quick brown fox jumps over the lazy dog, 7000 times"],
    );
    snapshot("search_page", &views);
    for next in follow_each(&h, &views).await {
        let n = structured(&next);
        assert_eq!(
            n["hits"][0]["line"], 1_005,
            "the next page goes on after the last hit shown"
        );
        assert_eq!(
            n["query"]["case_insensitive"], true,
            "every argument is kept"
        );
    }
}

#[tokio::test]
async fn a_search_page_too_large_for_the_cap_is_cut_and_says_so() {
    let h = harness(true).await;
    // 200 hits of about 300 chars each, context around them: far over 2,000 tokens.
    let line = |i: u32| format!("needle {i} {}\n", "haystack ".repeat(32));
    let text: String = (0..200).map(line).collect();
    h.write("hay.txt", text.as_bytes());
    let r = h
        .call(
            "search",
            json!({ "path": "hay.txt", "pattern": "needle", "limit": 200 }),
        )
        .await;
    let e = structured(&r);
    assert_eq!(e["hit_count"], 200);
    assert_eq!(e["truncated"], true);
    assert_eq!(e["page_reason"]["code"], "token_cap");
    let kept = e["hits"].as_array().unwrap().len();
    assert!(kept > 1 && kept < 200, "{kept} hits kept");
    let views = check(&r, &["200 hits", "this page is cut short"], &[]);
    for next in follow_each(&h, &views).await {
        assert_eq!(
            structured(&next)["hits"][0]["line"],
            kept as u64 + 1,
            "the page after a cut one starts right after it"
        );
    }
}

#[tokio::test]
async fn a_directory_search_and_a_listing_in_every_host() {
    let h = harness(true).await;
    for i in 0..6 {
        h.write(
            &format!("src/m{i}.rs"),
            format!("// TODO: item {i}\nfn f{i}() {{}}\n").as_bytes(),
        );
    }
    let r = h
        .call(
            "search",
            json!({ "path": ".", "pattern": "TODO", "glob": ["*.rs"], "limit": 2 }),
        )
        .await;
    let views = check(&r, &["6 hits", "6 files"], &["TODO: item 0"]);
    for next in follow_each(&h, &views).await {
        assert_eq!(structured(&next)["hits"].as_array().unwrap().len(), 2);
    }
    let r = h.call("list", json!({ "path": "src", "limit": 2 })).await;
    let views = check(&r, &["2 entries shown of 6", "m0.rs", "m1.rs"], &[]);
    snapshot("list_page", &views);
    for next in follow_each(&h, &views).await {
        assert_eq!(structured(&next)["items"][0]["path"], "m2.rs");
    }
}

#[tokio::test]
async fn stored_artifacts_page_in_every_host() {
    let h = harness(true).await;
    for i in 0..3 {
        h.call("run", json!({ "command": format!("echo {i}") }))
            .await;
    }
    let r = h.call("artifacts", json!({ "limit": 1 })).await;
    let views = check(&r, &["[ARTIFACTS: 1 shown", "more exist"], &["echo 2"]);
    for next in follow_each(&h, &views).await {
        assert_eq!(structured(&next)["items"][0]["source"]["desc"], "echo 1");
    }
}

#[tokio::test]
async fn errors_say_code_message_and_hint_in_every_host() {
    let h = harness(true).await;
    let r = h.call("read", json!({ "path": "missing.txt" })).await;
    assert_eq!(r.is_error, Some(true));
    let views = check(&r, &["not_found", "missing.txt", "hint"], &[]);
    // Claude Code forwards an error's text; Codex its structured content.
    assert_eq!(view(Host::ClaudeCode, &r).shape, Shape::Text);
    assert_eq!(view(Host::Codex, &r).shape, Shape::Json);
    snapshot("error_not_found", &views);
    let r = h.call("read", json!({ "path": "../../etc/passwd" })).await;
    check(&r, &["forbidden", "hint"], &[]);
}

#[tokio::test]
async fn structured_off_sends_text_blocks_alone_and_no_output_schemas() {
    let h = harness(false).await;
    let tools = h.client.list_all_tools().await.unwrap();
    assert!(tools.iter().all(|t| t.output_schema.is_none()));
    h.write("big.txt", numbered(3_000).as_bytes());
    let r = h.call("read", json!({ "path": "big.txt" })).await;
    assert!(r.structured_content.is_none());
    let text = view(Host::TextOnly, &r);
    text.assert_within(CAP);
    text.assert_once("00001 the quick brown fox jumps over the lazy dog, 7 times\n");
    let (tool, args) = text.next_call().unwrap();
    let next = h.call(&tool, Value::Object(args)).await;
    assert_eq!(next.is_error, Some(false));
    // Text alone carries more of the file than text beside structured content can.
    let on = harness(true).await;
    on.write("big.txt", numbered(3_000).as_bytes());
    let both = on.call("read", json!({ "path": "big.txt" })).await;
    let lines = |r: &CallToolResult| r.content[1].as_text().unwrap().text.lines().count();
    assert!(
        lines(&r) > lines(&both),
        "{} vs {}",
        lines(&r),
        lines(&both)
    );
    let err = h.call("read", json!({ "path": "missing.txt" })).await;
    assert!(err.structured_content.is_none());
    view(Host::TextOnly, &err).assert_has("not_found");
}

#[tokio::test]
async fn tools_tell_hosts_the_chars_an_answer_may_take() {
    let h = start(Settings {
        max_tokens: 100_000,
        ..Settings::default()
    })
    .await;
    let tools = h.client.list_all_tools().await.unwrap();
    for t in &tools {
        let meta = t.meta.as_ref().unwrap();
        assert_eq!(
            meta.get("anthropic/maxResultSizeChars"),
            Some(&json!(800_000)),
            "{} follows --max-tokens",
            t.name
        );
    }
    let small = harness(true).await;
    let tools = small.client.list_all_tools().await.unwrap();
    assert_eq!(
        tools[0]
            .meta
            .as_ref()
            .unwrap()
            .get("anthropic/maxResultSizeChars"),
        Some(&json!(200_000))
    );
}

/// Issue 16: a CI job's log, pinned to its attempt, as each host's model sees it: the attempt,
/// the failed step and the error line, the tail once, and calls to the other jobs that work.
#[tokio::test]
async fn a_ci_log_in_every_host() {
    use spool_test_support::actions::{self, Actions, TOKEN, job};
    let state = std::sync::Arc::new(std::sync::Mutex::new(Actions::default()));
    state.lock().unwrap().runs.insert(
        7,
        vec![
            vec![job(101, "build", true, 1)],
            vec![job(201, "build", true, 2), job(202, "lint", false, 2)],
        ],
    );
    let addr = actions::start(std::sync::Arc::clone(&state));
    let h = start(Settings {
        max_tokens: CAP,
        ci: Some(spool_fetch::github::CiOptions {
            api: format!("http://{addr}"),
            token: Some(spool_fetch::github::Token(TOKEN.to_owned())),
            token_var: Some("GITHUB_TOKEN".to_owned()),
            fetch: spool_fetch::FetchOptions::default(),
        }),
        ..Settings::default()
    })
    .await;
    let r = h
        .call("ci_log", json!({ "repo": "acme/widgets", "run_id": 7 }))
        .await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let views = check(
        &r,
        &[
            "attempt 2 of 2 of run 7 (the latest, read first and pinned)",
            "earlier attempts exist (1 to 1)",
            "the step that failed: `Run cargo test`",
            "attempt 2 has 2 jobs: build (failure; this log), lint (success)",
        ],
        &["##[error]Process completed with exit code 101.\n"],
    );
    for next in follow_each(&h, &views).await {
        assert_eq!(next.is_error, Some(false), "{next:?}");
    }
    // Every next call the answer carries works, the other job and attempt among them.
    let next = structured(&r)["next"].as_array().unwrap().clone();
    let mut tools = Vec::new();
    for call in next {
        let tool = call["tool"].as_str().unwrap().to_owned();
        let done = h.call_owned(tool.clone(), call["arguments"].clone()).await;
        assert_eq!(done.is_error, Some(false), "{call}: {done:?}");
        tools.push(tool);
    }
    assert!(
        tools.iter().filter(|t| *t == "ci_log").count() >= 2,
        "{tools:?}"
    );
    let err = h
        .call("ci_log", json!({ "repo": "acme/widgets", "run_id": 999 }))
        .await;
    assert_eq!(err.is_error, Some(true));
    assert_eq!(structured(&err)["error"]["code"], "not_found");
}

/// Issue 38: a search inside a glob that finds nothing, in every host: it names the glob, the
/// files outside it, and its first call is the same search without the glob, which finds the
/// word where it is.
#[tokio::test]
async fn a_glob_search_that_finds_nothing_names_its_glob_in_every_host() {
    let h = harness(true).await;
    h.write("services/checkout/handler.py", b"def handle():\n    pass\n");
    h.write("deploy/helm/values.yaml", b"timeout: 10s\n");
    let r = h
        .call(
            "search",
            json!({ "path": ".", "pattern": "timeout", "glob": ["services/checkout/**"] }),
        )
        .await;
    let views = check(
        &r,
        &[
            "no hits for /timeout/",
            "matching the glob `services/checkout/**`",
            "1 outside the glob",
            "absent here is not absent there",
        ],
        &[],
    );
    snapshot("search_glob_none", &views);
    for next in follow_each(&h, &views).await {
        let n = structured(&next);
        assert_eq!(n["hit_count"], 1);
        assert_eq!(n["hits"][0]["path"], "deploy/helm/values.yaml");
    }
}

/// Issue 38: a search of a page kept as its main content that finds nothing, in every host:
/// it says what the copy holds, and its first call is the raw page, where the word is.
#[tokio::test]
async fn a_search_of_a_main_content_copy_offers_the_raw_page_in_every_host() {
    let h = harness(true).await;
    let nav = "<nav>".to_owned() + &"<a href=\"/x\">Navigation entry</a> ".repeat(10) + "</nav>";
    let body = "<p>A paragraph of the real content of this page.</p>".repeat(30);
    let base = spool_test_support::pages::serve(
        "text/html",
        format!("<html><body>{nav}<main><h1>Guide</h1>{body}</main></body></html>"),
    )
    .await
    .unwrap();
    let fetched = h
        .call("fetch", json!({ "url": format!("{base}/guide.html") }))
        .await;
    let reference = structured(&fetched)["ref"].clone();
    let r = h
        .call(
            "search",
            json!({ "ref": reference, "pattern": "Navigation entry", "literal": true }),
        )
        .await;
    let views = check(
        &r,
        &[
            "no hits for \"Navigation entry\"",
            "a stored copy that holds the page's main content only",
            "absent here is not absent there",
            "format=raw",
        ],
        &[],
    );
    snapshot("search_main_content_none", &views);
    for next in follow_each(&h, &views).await {
        let n = structured(&next);
        assert_eq!(n["source"]["coverage"]["whole"], true, "{n}");
        assert!(n["content"].as_str().unwrap().contains("Navigation entry"));
    }
}

/// Issue 38: hits per file (`count`) in every host: every hit and every file counted, one line
/// a file, and the next page of files read off each view.
#[tokio::test]
async fn hits_per_file_in_every_host() {
    let h = harness(true).await;
    for i in 0..30 {
        let body = "timeout here\n".repeat(i % 4 + 1);
        h.write(&format!("src/m{i:02}.rs"), body.as_bytes());
    }
    let r = h
        .call(
            "search",
            json!({ "path": "src", "pattern": "timeout", "count": true, "limit": 10 }),
        )
        .await;
    let e = structured(&r);
    assert_eq!(e["hit_count"], 73);
    assert_eq!(e["files_with_hits"], 30);
    let views = check(
        &r,
        &[
            "73 hits (matching lines) for /timeout/ in 30 files",
            "files 1-10",
        ],
        &["m00.rs"],
    );
    snapshot("search_count", &views);
    for next in follow_each(&h, &views).await {
        assert_eq!(structured(&next)["files"][0]["path"], "m10.rs");
    }
}

/// Issue 38: a template's blank followed as printed, in every host: refused, nothing searched,
/// and the hint says to put a regex in its place.
#[tokio::test]
async fn a_blank_pattern_followed_as_printed_is_refused_in_every_host() {
    let h = harness(true).await;
    h.write("big.txt", numbered(3_000).as_bytes());
    let first = h.call("read", json!({ "path": "big.txt" })).await;
    let template = structured(&first)["next_templates"][0]["arguments"].clone();
    assert_eq!(template["pattern"], "<regex>");
    let r = h.call("search", template).await;
    assert_eq!(r.is_error, Some(true));
    let views = check(
        &r,
        &["invalid_argument", "nothing was searched", "in its place"],
        &[],
    );
    snapshot("error_blank_pattern", &views);
}

/// Issue 38: a page whose tabs hide content, fetched, in every host: the hidden tabs are kept
/// and the banner says so.
#[tokio::test]
async fn a_page_with_hidden_tabs_says_they_are_kept_in_every_host() {
    let h = harness(true).await;
    let body = "<p>Pick your platform; every platform installs the same widget.</p>".repeat(20);
    let base = spool_test_support::pages::serve(
        "text/html",
        format!(
            "<html><body><h1>Install</h1>{body}\
             <div role=\"tabpanel\"><p>On Linux run apt install widget.</p></div>\
             <div role=\"tabpanel\" hidden><p>On macOS set WIDGET_HOME_MAC first.</p></div>\
             </body></html>"
        ),
    )
    .await
    .unwrap();
    let r = h
        .call(
            "fetch",
            json!({ "url": format!("{base}/install.html"), "pattern": "WIDGET_HOME_MAC" }),
        )
        .await;
    let views = check(
        &r,
        &[
            "1 element the page hides until opened (tabs, accordions) is kept",
            "Found: 1 line of the whole copy matches",
        ],
        &[],
    );
    snapshot("fetch_hidden_tabs", &views);
}

/// The answers issue 39 changed, as each host shows them: a jq program stopped by a bound, an
/// error whose echoed argument is cut, a word query past its words, a line searched in windows.
#[tokio::test]
async fn bounded_answers_in_every_host() {
    let h = harness(true).await;
    let r = h
        .call("run", json!({ "command": "printf '[1,2,3]'" }))
        .await;
    let list = structured(&r)["ref"].as_str().unwrap().to_owned();
    let r = h
        .call("query", json!({ "ref": list, "jq": "def f: [f]; f" }))
        .await;
    assert_eq!(r.is_error, Some(true));
    let views = check(
        &r,
        &["invalid_argument", "recursed deeper than", "hint"],
        &[],
    );
    snapshot("query_stack_bound", &views);

    let r = h
        .call(
            "read",
            json!({ "ref": format!("sp_{}", "x".repeat(5_000)) }),
        )
        .await;
    assert_eq!(r.is_error, Some(true));
    let views = check(&r, &["chars left out", "hint"], &[]);
    snapshot("error_argument_cut", &views);

    h.write("notes.txt", numbered(200).as_bytes());
    let question = (0..40)
        .map(|i| format!("w{i}x"))
        .collect::<Vec<_>>()
        .join(" ");
    let r = h
        .call(
            "search",
            json!({ "path": "notes.txt", "query": format!("quick fox {question}") }),
        )
        .await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let views = check(&r, &["10 more words were not used"], &[]);
    snapshot("word_query_past_its_words", &views);

    let mut long = "y".repeat(9 << 20);
    long.push_str(" needle\nsecond needle\n");
    h.write("long.txt", long.as_bytes());
    let r = h
        .call("search", json!({ "path": "long.txt", "pattern": "needle" }))
        .await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let views = check(&r, &["2 hits", "searched in 4 MiB windows"], &[]);
    snapshot("search_windowed_line", &views);
    // All hits are shown: the call it names, the first hit in context, works as printed.
    let reference = structured(&r)["ref"].as_str().unwrap().to_owned();
    let read = h
        .call("read", json!({ "ref": reference, "line": 1, "limit": 6 }))
        .await;
    assert_eq!(read.is_error, Some(false), "{read:?}");
}
