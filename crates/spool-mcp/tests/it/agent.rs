//! The mechanical agent: it knows only the envelope. While an answer is not complete it calls
//! the first `next` entry if that is a `read`. It must read everything back, byte for byte,
//! and never receive an answer over the cap.

use serde_json::{Value, json};
use spool_mcp::Settings;

use crate::support::{Harness, start, structured, texts};

const CAP: u64 = 2_000;

/// Follows `next` from a first answer; returns the text of every line, in order.
async fn follow(h: &Harness, first: rmcp::model::CallToolResult) -> String {
    let mut lines: std::collections::BTreeMap<u64, String> = std::collections::BTreeMap::new();
    let mut answer = first;
    let mut calls = 0;
    loop {
        calls += 1;
        assert!(calls < 500, "never ends");
        let blocks = texts(&answer);
        let used: u64 = spool_core::tokens::count(&blocks.join("\n"));
        assert!(used <= CAP, "answer of {used} tokens over the cap");
        let e = structured(&answer).clone();
        // Blocks after the banner: each shown range's text, with gap markers between.
        let ranges = e["shown"].as_array().unwrap();
        let range_texts: Vec<&String> = blocks[1..].iter().step_by(2).collect();
        for (range, text) in ranges.iter().zip(range_texts) {
            assert_eq!(range["unit"], "lines");
            let start = range["start"].as_u64().unwrap();
            for (i, line) in text.split_inclusive('\n').enumerate() {
                lines.insert(start + i as u64, line.to_owned());
            }
        }
        if e["complete"] == true {
            break;
        }
        let next = &e["next"][0];
        if next["tool"] != "read" {
            break;
        }
        answer = h.call("read", next["arguments"].clone()).await;
        assert_eq!(answer.is_error, Some(false));
    }
    let total = structured(&answer)["total"]["lines"].as_u64().unwrap();
    assert_eq!(lines.len() as u64, total, "every line was read");
    lines.into_values().collect()
}

#[tokio::test]
async fn reads_back_a_failing_command_of_3000_lines() {
    let h = start(Settings {
        max_tokens: CAP,
        ..Settings::default()
    })
    .await;
    let script = "i=1; while [ $i -le 3000 ]; do echo \"build step $i of 3000: compiling module_$i\"; i=$((i+1)); done; echo 'error[E0308]: mismatched types' >&2; exit 101";
    let first = h.call("run", json!({ "command": script })).await;
    let e: Value = structured(&first).clone();
    assert_eq!(e["complete"], false);
    assert_eq!(e["source"]["version"]["exit_code"], 101);
    assert!(
        texts(&first)
            .last()
            .unwrap()
            .ends_with("error[E0308]: mismatched types\n")
    );
    let text = follow(&h, first).await;
    let mut expected = (1..=3000).fold(String::new(), |mut s, i| {
        s.push_str(&format!("build step {i} of 3000: compiling module_{i}\n"));
        s
    });
    expected.push_str("error[E0308]: mismatched types\n");
    assert!(text == expected, "read back byte for byte");
}

#[tokio::test]
async fn reads_back_a_5_mb_file() {
    let h = start(Settings {
        max_tokens: 8_000,
        ..Settings::default()
    })
    .await;
    let mut content = String::new();
    let mut i = 0u64;
    while content.len() < 5_000_000 {
        i += 1;
        content.push_str(&format!(
            "{i:08} the quick brown fox jumps over the lazy dog; ünïcödé ✓ {}\n",
            i * 7919 % 10007
        ));
    }
    h.write("big.txt", content.as_bytes());
    let first = h
        .call("read", json!({ "path": "big.txt", "max_tokens": CAP }))
        .await;
    let mut answer = first;
    let mut got = String::new();
    let mut calls = 0;
    loop {
        calls += 1;
        let blocks = texts(&answer);
        assert!(spool_core::tokens::count(&blocks.join("\n")) <= CAP);
        got.push_str(blocks.get(1).map_or("", String::as_str));
        let e = structured(&answer).clone();
        if e["complete"] == true || e["next"][0]["tool"] != "read" {
            break;
        }
        let mut args = e["next"][0]["arguments"].clone();
        args["max_tokens"] = json!(CAP);
        answer = h.call("read", args).await;
    }
    assert!(calls > 10);
    assert!(got == content, "read back byte for byte");
}

/// The same agent, seeing only what Claude Code forwards: `JSON.stringify(structuredContent)`.
/// It rebuilds the lines from `content` and `shown` alone, and follows `next[0]` from the JSON.
async fn follow_claude_view(h: &Harness, first: rmcp::model::CallToolResult) -> String {
    use spool_test_support::hosts::{Host, view};
    let mut lines: std::collections::BTreeMap<u64, String> = std::collections::BTreeMap::new();
    let mut answer = first;
    let mut calls = 0;
    let total = loop {
        calls += 1;
        assert!(calls < 500, "never ends");
        let seen = view(Host::ClaudeCode, &answer);
        seen.assert_within(CAP);
        let e = seen
            .json()
            .expect("Claude Code forwards the structured content as JSON");
        let content = e["content"].as_str().unwrap();
        let mut rows = content.split_inclusive('\n');
        for (i, range) in e["shown"].as_array().unwrap().iter().enumerate() {
            if i > 0 {
                let marker = rows.next().unwrap();
                assert!(
                    marker.starts_with("... [lines "),
                    "the gap marker stands between ranges"
                );
            }
            let (start, end) = (
                range["start"].as_u64().unwrap(),
                range["end"].as_u64().unwrap(),
            );
            for line in start..=end {
                lines.insert(line, rows.next().unwrap().to_owned());
            }
        }
        assert!(
            rows.next().is_none(),
            "content is the shown ranges and nothing else"
        );
        if e["complete"] == true || e["next"][0]["tool"] != "read" {
            break e["total"]["lines"].as_u64().unwrap();
        }
        answer = h.call("read", e["next"][0]["arguments"].clone()).await;
        assert_eq!(answer.is_error, Some(false));
    };
    assert_eq!(lines.len() as u64, total, "every line was read");
    lines.into_values().collect()
}

#[tokio::test]
async fn reads_back_a_failing_command_seeing_only_what_claude_code_forwards() {
    let h = start(Settings {
        max_tokens: CAP,
        ..Settings::default()
    })
    .await;
    let script = "i=1; while [ $i -le 3000 ]; do echo \"build step $i of 3000: \\\"quoted\\\" \\\\ tab\there\"; i=$((i+1)); done; echo 'error[E0308]: mismatched types' >&2; exit 101";
    let first = h.call("run", json!({ "command": script })).await;
    let text = follow_claude_view(&h, first).await;
    let mut expected = (1..=3000).fold(String::new(), |mut s, i| {
        s.push_str(&format!(
            "build step {i} of 3000: \"quoted\" \\ tab\there\n"
        ));
        s
    });
    expected.push_str("error[E0308]: mismatched types\n");
    assert!(text == expected, "read back byte for byte");
}
