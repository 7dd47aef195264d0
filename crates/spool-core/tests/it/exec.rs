//! Capturing commands: nothing dropped, versions recorded, stops keep what was captured.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use spool_core::envelope::{ArtifactState, ReasonCode};
use spool_core::exec::{RunControl, RunSpec, run};
use spool_core::window::{WindowRequest, read_window};

use crate::support::store;

fn sh(cmd: &str) -> RunSpec {
    RunSpec {
        command: Some(cmd.into()),
        ..RunSpec::default()
    }
}

#[test]
fn a_failure_after_3000_lines_shows_the_real_last_lines() {
    let s = store();
    let spec = sh(
        "i=1; while [ $i -le 3000 ]; do echo \"out $i\"; i=$((i+1)); done; echo 'FATAL: the real error' >&2; exit 101",
    );
    let out = run(&s.store, &spec, RunControl::default()).unwrap();
    assert_eq!(out.exit_code, Some(101));
    let meta = &out.meta;
    assert_eq!(meta.lines, 3001);
    let v = meta.source.version.exec().unwrap();
    assert_eq!(v.exit_code(), Some(101));
    assert_eq!(v.timed_out, Some(false));
    assert!(!v.started_at.is_empty() && v.finished_at.is_some());
    assert!(v.duration_ms.is_some());
    // What is written: the contract's keys, the exit code as a number.
    let written = meta.source.version.to_map();
    assert_eq!(written["exit_code"], 101);
    assert_eq!(written["signal"], serde_json::Value::Null);
    // Default preview, and even an explicit head, includes the real end on failure.
    for preview in [None, Some(spool_core::Preview::Head)] {
        let e = read_window(
            &s.store,
            &meta.reference,
            WindowRequest::Preview(preview),
            1000,
        )
        .unwrap();
        assert!(
            e.content(spool_core::render::Dialect::Mcp)
                .contains("FATAL: the real error"),
            "tail shown on failure"
        );
        assert!(
            e.content(spool_core::render::Dialect::Mcp)
                .starts_with("out 1\n")
        );
        assert_eq!(e.shown.last().unwrap().end, 3001);
    }
    // Every byte is there, in order within each stream.
    let all = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Lines {
            line: 1,
            limit: None,
        },
        200_000,
    )
    .unwrap();
    let all = all.content(spool_core::render::Dialect::Mcp);
    let outs: Vec<&str> = all.lines().filter(|l| l.starts_with("out ")).collect();
    assert_eq!(outs.len(), 3000);
    assert_eq!(outs[2999], "out 3000");
}

#[test]
fn a_timeout_stops_the_command_and_keeps_its_output() {
    let s = store();
    let mut spec = sh("echo started; sleep 30; echo never");
    spec.timeout = Some(Duration::from_millis(500));
    let started = std::time::Instant::now();
    let out = run(&s.store, &spec, RunControl::default()).unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(out.timed_out);
    assert_eq!(out.meta.state, ArtifactState::Interrupted);
    let e = read_window(
        &s.store,
        &out.meta.reference,
        WindowRequest::Preview(None),
        8000,
    )
    .unwrap();
    assert_eq!(e.content(spool_core::render::Dialect::Mcp), "started\n");
    assert!(!e.complete);
    assert_eq!(e.reason.as_ref().unwrap().code, ReasonCode::Timeout);
    assert!(e.source.version.timed_out());
    assert_eq!(e.source.version.to_map()["timed_out"], true);
}

#[test]
fn cancelling_keeps_what_was_captured_marked_cancelled() {
    let s = store();
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&cancel);
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(400));
        flag.store(true, Ordering::SeqCst);
    });
    let out = run(
        &s.store,
        &sh("echo before; sleep 30"),
        RunControl {
            cancel,
            ..RunControl::default()
        },
    )
    .unwrap();
    assert!(out.cancelled);
    assert_eq!(out.meta.state, ArtifactState::Cancelled);
    let e = read_window(
        &s.store,
        &out.meta.reference,
        WindowRequest::Preview(None),
        8000,
    )
    .unwrap();
    assert_eq!(e.content(spool_core::render::Dialect::Mcp), "before\n");
    assert_eq!(e.reason.unwrap().code, ReasonCode::Cancelled);
}

#[test]
fn binary_output_and_empty_output() {
    let s = store();
    let out = run(
        &s.store,
        &sh("printf 'a\\000b\\377\\376'"),
        RunControl::default(),
    )
    .unwrap();
    assert!(out.meta.binary);
    assert_eq!(out.meta.bytes, 5);
    let e = read_window(
        &s.store,
        &out.meta.reference,
        WindowRequest::Bytes {
            offset: 0,
            max: None,
        },
        8000,
    )
    .unwrap();
    assert_eq!(
        e.content(spool_core::render::Dialect::Mcp),
        "a\\x00b\\xff\\xfe"
    );

    let out = run(&s.store, &sh("true"), RunControl::default()).unwrap();
    let e = read_window(
        &s.store,
        &out.meta.reference,
        WindowRequest::Preview(None),
        8000,
    )
    .unwrap();
    assert!(e.complete);
    assert_eq!(e.content(spool_core::render::Dialect::Mcp), "");
    assert_eq!(e.total.lines, Some(0));
}

#[test]
fn a_missing_program_is_a_clear_error() {
    let s = store();
    let spec = RunSpec {
        argv: vec!["definitely-not-a-program-xyz".into()],
        ..RunSpec::default()
    };
    let err = run(&s.store, &spec, RunControl::default()).unwrap_err();
    assert_eq!(err.code(), spool_core::ErrorCode::InvalidArgument);
    assert!(err.to_string().contains("definitely-not-a-program-xyz"));
}

#[test]
fn a_background_process_holding_the_pipe_does_not_hang_the_run() {
    let s = store();
    let started = std::time::Instant::now();
    let out = run(&s.store, &sh("echo hi; sleep 20 &"), RunControl::default()).unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(out.exit_code, Some(0));
    assert_eq!(out.meta.bytes, 3);
}

#[test]
fn progress_is_reported_while_a_command_runs() {
    let s = store();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let control = RunControl {
        cancel: Arc::default(),
        progress: Some(Box::new(move |bytes, lines| {
            sink.lock().unwrap().push((bytes, lines));
        })),
        ..RunControl::default()
    };
    run(
        &s.store,
        &sh("for i in 1 2 3 4 5 6; do echo tick $i; sleep 0.15; done"),
        control,
    )
    .unwrap();
    let seen = seen.lock().unwrap();
    assert!(!seen.is_empty());
    assert!(
        seen.windows(2).all(|w| w[0].0 <= w[1].0),
        "progress never goes back"
    );
}

#[test]
fn a_read_can_ask_for_one_stream() {
    use spool_core::store::Stream;
    use spool_core::streams::stream_view;
    let s = store();
    let out = run(
        &s.store,
        &sh("for i in 1 2 3; do echo out$i; echo err$i >&2; done; printf 'no newline on stderr' >&2"),
        RunControl::default(),
    )
    .unwrap();
    let err = stream_view(&s.store, &out.meta.reference, Stream::Stderr).unwrap();
    let e = read_window(&s.store, &err.reference, WindowRequest::Preview(None), 8000).unwrap();
    assert_eq!(
        e.content(spool_core::render::Dialect::Mcp),
        "err1\nerr2\nerr3\nno newline on stderr"
    );
    assert!(e.complete);
    let view = e.source.version.view();
    assert_eq!(view.stream.as_deref(), Some("stderr"));
    assert_eq!(view.view_of.as_deref(), Some(out.meta.reference.as_str()));
    assert!(
        e.source.version.exec().is_some(),
        "a view keeps the command's version"
    );
    let stdout = stream_view(&s.store, &out.meta.reference, Stream::Stdout).unwrap();
    let e = read_window(
        &s.store,
        &stdout.reference,
        WindowRequest::Preview(None),
        8000,
    )
    .unwrap();
    assert_eq!(
        e.content(spool_core::render::Dialect::Mcp),
        "out1\nout2\nout3\n"
    );
    // Asked again, the same view.
    let again = stream_view(&s.store, &out.meta.reference, Stream::Stderr).unwrap();
    assert_eq!(again.reference, err.reference);
    // Something that is not command output has no streams.
    let text = crate::support::put(&s.store, b"plain\n");
    let bad = stream_view(&s.store, &text.reference, Stream::Stderr).unwrap_err();
    assert_eq!(bad.code(), spool_core::ErrorCode::InvalidArgument);
}

/// Regression: a command that closed its output kept running past its timeout (the wait after
/// the pipes closed had no deadline), and an empty timed-out capture claimed to be complete.
#[test]
fn the_timeout_holds_after_the_command_closes_its_output() {
    let s = store();
    let mut spec = sh("exec >/dev/null 2>&1; sleep 30");
    spec.timeout = Some(Duration::from_millis(500));
    let started = std::time::Instant::now();
    let out = run(&s.store, &spec, RunControl::default()).unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert!(out.timed_out);
    let e = read_window(
        &s.store,
        &out.meta.reference,
        WindowRequest::Preview(None),
        8000,
    )
    .unwrap();
    assert!(
        !e.complete,
        "an empty timed-out capture is not the whole output"
    );
    assert_eq!(e.reason.unwrap().code, ReasonCode::Timeout);
    // A search of it says the copy is not the whole output.
    let q = spool_core::search::Query {
        pattern: "x".into(),
        literal: true,
        case_insensitive: false,
        words: None,
    };
    let a = spool_core::search::search_artifact(
        &s.store,
        &out.meta.reference,
        &q,
        &spool_core::search::Paging::default(),
    )
    .unwrap();
    assert_eq!(a.reason.unwrap().code, ReasonCode::Timeout);
}

#[test]
fn impossible_commands_say_what_is_wrong_not_internal() {
    // Regression: a NUL in the command and a file as `cwd` answered `internal`; a missing
    // `cwd` was blamed on the program.
    let s = store();
    let err = run(&s.store, &sh("echo a\0b"), RunControl::default()).unwrap_err();
    assert_eq!(err.code(), spool_core::ErrorCode::InvalidArgument, "{err}");
    assert!(err.to_string().contains("NUL"), "{err}");
    let file = tempfile::NamedTempFile::new().unwrap();
    let spec = RunSpec {
        cwd: Some(file.path().to_owned()),
        ..sh("true")
    };
    let err = run(&s.store, &spec, RunControl::default()).unwrap_err();
    assert_eq!(err.code(), spool_core::ErrorCode::InvalidArgument, "{err}");
    assert!(err.to_string().contains("is not a directory"), "{err}");
    let spec = RunSpec {
        cwd: Some("/nonexistent-spool-dir".into()),
        ..sh("true")
    };
    let err = run(&s.store, &spec, RunControl::default()).unwrap_err();
    assert_eq!(err.code(), spool_core::ErrorCode::NotFound, "{err}");
}
