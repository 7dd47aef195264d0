//! Every call a CLI answer prints (banner, gap marker, hints, errors) runs as printed, through
//! the real binary and a real shell: the CLI never prints a call it cannot run.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::process::{Command, Output};

use crate::support::Home;

/// The one placeholder a printed call may hold: the pattern of a search the reader chooses.
const PATTERN: &str = "PATTERN";

/// Every `spool ...` call in `text`: from `spool ` to the first backtick, `, or `, `; `, `]`
/// or line end outside single quotes; a sentence's closing `.` is not part of it.
fn calls_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("spool ") {
        let start = i + at;
        i = start + 6;
        let before = start.checked_sub(1).map(|b| bytes[b]);
        if !matches!(before, None | Some(b' ' | b'`' | b'\n' | b'(')) {
            continue;
        }
        let mut quoted = false;
        let mut end = start;
        while end < text.len() {
            let rest = &text[end..];
            let c = bytes[end];
            if c == b'\'' {
                quoted = !quoted;
            } else if !quoted
                && (c == b'`'
                    || c == b'\n'
                    || c == b']'
                    || rest.starts_with(", or ")
                    || rest.starts_with("; "))
            {
                break;
            }
            end += 1;
        }
        let call = text[start..end].trim_end().trim_end_matches('.').to_owned();
        i = end;
        out.push(call);
    }
    out
}

fn run_call(home: &Home, call: &str) -> Output {
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_spool"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("sh")
        .arg("-c")
        .arg(call)
        .current_dir(home.path())
        .env("PATH", path)
        .env("SPOOL_HOME", home.path())
        .env_remove("SPOOL_TTL")
        .env_remove("SPOOL_QUOTA")
        .output()
        .unwrap()
}

fn text_of(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// An answer, not a refusal: a banner (or gc's report) on stdout and no error.
fn answered(out: &Output) -> bool {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    (stdout.starts_with('[') || stdout.starts_with("gc:")) && !stderr.contains("error:")
}

#[test]
fn every_call_a_cli_answer_prints_runs_as_printed() {
    let home = Home::new();
    let svc = home.path().join("svc");
    std::fs::create_dir_all(svc.join("deep")).unwrap();
    let mut log = String::new();
    for i in 1..=3000 {
        let status = if i % 7 == 0 { 504 } else { 200 };
        let _ = writeln!(
            log,
            "2026-11-30T10:00:{:02}Z GET /api/{i} status={status} took={i}ms",
            i % 60
        );
    }
    std::fs::write(svc.join("app.log"), &log).unwrap();
    std::fs::write(
        svc.join("deep/notes.txt"),
        "status=504 in a note\n".repeat(40),
    )
    .unwrap();
    let mut doc = String::new();
    for i in 1..=4000 {
        let _ = writeln!(doc, "paragraph {i} of the document");
    }
    home.file("doc.txt", doc.as_bytes());
    // A codebase to map: more files than one page of 700 tokens holds; and one whose name
    // starts with `-`.
    std::fs::create_dir_all(home.path().join("-dash")).unwrap();
    for i in 0..40 {
        home.file(
            &format!("-dash/d{i:02}.py"),
            format!("def job_{i}():\n    return job_0()\n").as_bytes(),
        );
    }
    std::fs::create_dir_all(home.path().join("code")).unwrap();
    for i in 0..40 {
        home.file(
            &format!("code/m{i:02}.rs"),
            format!("pub fn step_{i}() {{\n    step_0();\n}}\npub struct Part{i};\n").as_bytes(),
        );
    }
    home.file("one-line.txt", "x".repeat(300_000).as_bytes());

    // A real page on loopback: refused by default (the hint names the flag), fetched with it.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let base = rt
        .block_on(spool_test_support::pages::serve(
            "text/html",
            spool_test_support::pages::manual(400),
        ))
        .unwrap();
    let page = format!("{base}/manual");
    // A page whose stored copy is its main content only: the answer prints the fetch of the
    // rest, which must carry the permission this fetch was given (issue 57: it did not, and
    // was refused as printed).
    let nav = "<nav>".to_owned() + &"<a href=x>menu entry</a>".repeat(20) + "</nav>";
    let body = "a paragraph of the real content. ".repeat(40);
    let docs_base = rt
        .block_on(spool_test_support::pages::serve(
            "text/html",
            format!("<html><body>{nav}<main><h1>Docs</h1><p>{body}</p></main></body></html>"),
        ))
        .unwrap();
    let docs = format!("{docs_base}/docs");
    let sessions: Vec<Vec<&str>> = vec![
        vec!["fetch", &page],
        vec!["fetch", "--allow-private-network", &page],
        vec!["fetch", "--allow-private-network", &docs],
        vec!["run", "--", "seq", "1", "100000"],
        vec!["run", "--", "sh", "-c", "seq 1 3000; echo boom >&2; exit 2"],
        vec!["read", "svc/app.log"],
        vec!["read", "doc.txt"],
        vec!["read", "doc.txt", "--lines", "10:20"],
        vec!["read", "doc.txt", "--chars", "0:100"],
        vec!["read", "doc.txt", "--bytes", "5:50"],
        vec!["read", "doc.txt", "--tail", "5"],
        vec!["read", "one-line.txt"],
        vec![
            "search",
            "-i",
            "-C",
            "1",
            "-g",
            "*.log",
            "STATUS=504",
            "svc",
            "--limit",
            "2",
        ],
        vec!["search", "-F", "status=504", "svc/app.log", "--limit", "3"],
        vec!["search", "no-such-text", "svc/app.log"],
        vec![
            "search",
            "--query",
            "which paragraph of the document",
            "doc.txt",
            "--limit",
            "2",
        ],
        vec!["search", "--query", "kubernetes ingress", "doc.txt"],
        // A read or fetch whose question is known shows what it finds beside the preview.
        vec![
            "read",
            "doc.txt",
            "--query",
            "paragraph 3999",
            "--max-tokens",
            "1200",
        ],
        vec!["read", "svc/app.log", "--pattern", "status=504", "-F"],
        vec![
            "fetch",
            "--allow-private-network",
            "--query",
            "section topics",
            &page,
        ],
        vec!["read", "doc.txt", "--query", "paragraph", "--lines", "3:4"],
        vec!["read", "doc.txt", "--pattern", "("],
        vec!["search", "--query", "status note", "svc", "--limit", "1"],
        vec!["search", "--", "-x", "doc.txt"],
        vec!["ls", "svc", "--limit", "1"],
        vec!["ls", "-r", "svc", "--limit", "1"],
        vec!["artifacts", "--limit", "1"],
        vec!["map", "code", "--max-tokens", "700"],
        vec![
            "map",
            "code",
            "--focus",
            "Nothing",
            "--focus",
            "code/m07.rs",
        ],
        vec!["map", "code/m03.rs"],
        vec!["map", "--max-tokens", "700", "--focus=-x", "--", "-dash"],
        // Errors: each hint's call runs too.
        vec!["map", "nowhere"],
        vec!["map", "code", "--cursor", "nope"],
        vec!["read", "no-such-file.txt"],
        vec!["read", "doc.txt", "--lines", "0:1"],
        vec!["read", "doc.txt", "--lines", "99999:"],
        vec!["read", "doc.txt", "--chars", "999999999:"],
        vec!["read", "svc"],
        vec!["ls", "doc.txt"],
        vec!["search", "(", "doc.txt"],
        vec!["read", "sp_doesnotexist"],
        vec!["read", "doc.txt", "--stream", "stdout"],
        vec!["read", "doc.txt", "--max-tokens", "10"],
        vec!["artifacts", "--limit", "0"],
        vec!["search", "x", "doc.txt", "--limit", "0"],
    ];
    // jq over a stored JSON list: an answer, one too long for its cap, and a bad program.
    let mut records = String::from("[");
    for i in 0..2000 {
        let _ = write!(
            records,
            "{}{{\"id\":{i},\"status\":{}}}",
            if i > 0 { "," } else { "" },
            if i % 7 == 0 { 504 } else { 200 }
        );
    }
    records.push(']');
    home.file("records.json", records.as_bytes());
    let json_ref = crate::support::reference_of(&home.run(&["read", "records.json"]));
    let queries: Vec<Vec<&str>> = vec![
        vec!["query", &json_ref, "map(select(.status == 504)) | length"],
        vec!["query", &json_ref, ".[]", "--max-tokens", "900"],
        vec!["query", &json_ref, "map(select(.status == "],
        vec!["query", &json_ref, ".[0].id.x"],
        vec!["query", "sp_doesnotexist", "."],
    ];
    let mut seen = BTreeSet::new();
    let mut queue: Vec<(String, String)> = Vec::new();
    for args in sessions.iter().chain(&queries) {
        let out = home.run(args);
        for call in calls_in(&text_of(&out)) {
            queue.push((call, format!("spool {}", args.join(" "))));
        }
    }
    // An expired artifact's hint makes it again.
    let short = home
        .cmd(&["run", "--", "echo", "short-lived"])
        .env("SPOOL_TTL", "1")
        .output()
        .unwrap();
    let reference = crate::support::reference_of(&short);
    std::thread::sleep(std::time::Duration::from_millis(1200));
    let expired = home.run(&["read", &reference]);
    assert!(
        text_of(&expired).contains("expired"),
        "{}",
        text_of(&expired)
    );
    for call in calls_in(&text_of(&expired)) {
        queue.push((call, format!("spool read {reference} (expired)")));
    }

    let mut ran = 0;
    let mut failures = Vec::new();
    // The calls the answers print, and the calls those answers print in turn (two steps).
    for depth in 0..2 {
        let mut next = Vec::new();
        for (call, from) in std::mem::take(&mut queue) {
            if !seen.insert(call.clone()) {
                continue;
            }
            let runnable = call.replace(PATTERN, "status");
            if let Some(holder) = runnable
                .split_whitespace()
                .find(|w| matches!(*w, "REF" | "PATH" | "N" | "URL" | "N:"))
            {
                failures.push(format!(
                    "`{call}` (from `{from}`) holds the placeholder {holder}"
                ));
                continue;
            }
            let out = run_call(&home, &runnable);
            ran += 1;
            if !answered(&out) {
                failures.push(format!(
                    "`{call}` (from `{from}`) did not answer:\n{}",
                    text_of(&out)
                ));
            }
            if depth == 0 {
                for more in calls_in(&text_of(&out)) {
                    next.push((more, call.clone()));
                }
            }
        }
        queue = next;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Every kind of printed call was reached: continuations, searches, hints.
    for kind in [
        "spool read",
        "spool search",
        "spool ls",
        "spool artifacts",
        "spool run",
        "spool fetch",
        "spool query",
        "spool map",
    ] {
        assert!(
            seen.iter().any(|c| c.starts_with(kind)),
            "no printed `{kind}` call was found among {seen:#?}"
        );
    }
    assert!(ran >= 40, "only {ran} printed calls ran: {seen:#?}");
}

#[test]
fn printed_calls_are_found_where_answers_print_them() {
    let text = "[PARTIAL: lines 1-3 of 9.\n Next: spool read sp_a --lines 4:6, or spool search PATTERN sp_a\n Do not.]\n... [lines 4-9 not shown: 6 lines, 12 chars; spool read sp_a --lines 4:] ...\nhint: produce a fresh copy with `spool run -- sh -c 'a; b'`\n See the first hit in context: spool read /x --lines 2:12; the same.]";
    assert_eq!(
        calls_in(text),
        [
            "spool read sp_a --lines 4:6",
            "spool search PATTERN sp_a",
            "spool read sp_a --lines 4:",
            "spool run -- sh -c 'a; b'",
            "spool read /x --lines 2:12",
        ]
    );
}
