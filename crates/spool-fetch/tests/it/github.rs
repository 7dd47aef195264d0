//! CI logs pinned to run and attempt, against a loopback server that plays GitHub's Actions API.

use std::sync::{Arc, Mutex};

use spool_core::answer::Answer;
use spool_core::envelope::{Envelope, ReasonCode};
use spool_core::render::{Dialect, banner};
use spool_core::window::{WindowRequest, read_window};
use spool_core::{Cap, ErrorCode, Store, StoreConfig};
use spool_fetch::CiLogParams;
use spool_fetch::FetchOptions;
use spool_fetch::github::{CiOptions, answer};

use spool_test_support::actions::{self, Actions, Shared, TOKEN, job};

const REPO: &str = "acme/widgets";
const RUN: u64 = 7;

fn setup() -> (Store, tempfile::TempDir, Shared, CiOptions) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), StoreConfig::default()).unwrap();
    let state: Shared = Arc::new(Mutex::new(Actions::default()));
    state.lock().unwrap().runs.insert(
        RUN,
        vec![vec![job(101, "build", true, 1), job(102, "lint", false, 1)]],
    );
    let addr = actions::start(Arc::clone(&state));
    let opts = CiOptions {
        api: format!("http://{addr}"),
        token: Some(spool_fetch::github::Token(TOKEN.to_owned())),
        token_var: Some("GITHUB_TOKEN".to_owned()),
        fetch: FetchOptions::default(),
    };
    (store, dir, state, opts)
}

fn params(attempt: Option<u64>, job: Option<&str>) -> CiLogParams {
    CiLogParams {
        repo: REPO.to_owned(),
        run_id: RUN,
        attempt,
        job: job.map(str::to_owned),
        max_tokens: None,
    }
}

fn ci(store: &Store, p: &CiLogParams, opts: &CiOptions) -> spool_core::Result<Envelope> {
    match answer(store, p, opts, Cap::new(2_000))? {
        Answer::Envelope(e) => Ok(*e),
        other => panic!("not an envelope: {other:?}"),
    }
}

#[test]
fn a_log_read_on_after_a_rerun_stays_on_its_attempt_and_a_new_call_pins_the_new_one() {
    let (store, _d, state, opts) = setup();
    let first = ci(&store, &params(None, None), &opts).unwrap();
    let v = first.source.version.ci().unwrap();
    assert_eq!(
        (v.attempt, v.latest_attempt, v.job.as_str()),
        (1, 1, "build")
    );
    assert_eq!(v.head_sha, actions::HEAD_SHA);
    assert_eq!(v.conclusion.as_deref(), Some("failure"));
    assert_eq!(v.failed_step.as_deref(), Some("Run cargo test"));
    // The tail of the log, with the failing step named and its error line found.
    let content = first.content(Dialect::Mcp);
    assert!(
        content.contains("##[error]Process completed with exit code 101."),
        "{content}"
    );
    assert_eq!(first.shown.last().unwrap().end, first.total.lines.unwrap());
    let said = banner(&first, Dialect::Mcp);
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"sp_[a-z0-9]{10}", "sp_REF");
    settings.add_filter(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "[TIME]");
    settings.bind(|| {
        insta::assert_snapshot!("ci_log_first_answer_mcp", said);
        insta::assert_snapshot!("ci_log_first_answer_cli", banner(&first, Dialect::Cli));
    });
    for fact in [
        "attempt 1 of 1 of run 7 (the latest, read first and pinned)",
        "the step that failed: `Run cargo test` (step 3)",
        "the log's first `##[error]` line is line 3,006 (1 in all)",
        "attempt 1 has 2 jobs: build (failure; this log), lint (success)",
    ] {
        assert!(said.contains(fact), "`{fact}` not in\n{said}");
    }
    assert!(
        first
            .next
            .iter()
            .any(|c| c.tool() == "ci_log" && c.arguments()["job"] == "lint"),
        "{:?}",
        first.next
    );
    // Someone presses re-run: attempt 2, with another log.
    state
        .lock()
        .unwrap()
        .runs
        .get_mut(&RUN)
        .unwrap()
        .push(vec![job(201, "build", true, 2), job(202, "lint", false, 2)]);
    // Reading on from the stored copy still gives attempt 1.
    let on = read_window(
        &store,
        &first.reference,
        WindowRequest::Lines {
            line: 1,
            limit: Some(3000),
        },
        100_000,
    )
    .unwrap();
    let text = on.content(Dialect::Mcp);
    assert!(
        text.contains("attempt 1 checkout") && !text.contains("attempt 2"),
        "spliced"
    );
    // A new call pins attempt 2 and says attempt 1 exists.
    let second = ci(&store, &params(None, None), &opts).unwrap();
    let v = second.source.version.ci().unwrap();
    assert_eq!((v.attempt, v.latest_attempt, v.job_id), (2, 2, 201));
    assert_ne!(second.reference, first.reference);
    assert!(second.content(Dialect::Mcp).contains("attempt 2 test"));
    let said = banner(&second, Dialect::Mcp);
    assert!(
        said.contains("attempt 2 of 2 of run 7 (the latest, read first and pinned)"),
        "{said}"
    );
    assert!(said.contains("earlier attempts exist (1 to 1)"), "{said}");
    assert!(
        second
            .next
            .iter()
            .any(|c| c.tool() == "ci_log" && c.arguments()["attempt"] == 1)
    );
    // Attempt 1 by number: the stored copy, not a download.
    let before = state.lock().unwrap().seen.len();
    let again = ci(&store, &params(Some(1), None), &opts).unwrap();
    assert_eq!(again.reference, first.reference);
    let said = banner(&again, Dialect::Mcp);
    assert!(
        said.contains("attempt 1 of 2 of run 7 (as asked); a later attempt exists"),
        "{said}"
    );
    let seen = state.lock().unwrap().seen.clone();
    assert!(
        !seen[before..].iter().any(|p| p.contains("/signed/")),
        "{seen:?}"
    );
    // Never the run-id-only log, which answers the latest attempt.
    assert!(
        !seen
            .iter()
            .any(|p| p.ends_with(&format!("/runs/{RUN}/logs"))),
        "{seen:?}"
    );
    // A job by name.
    let lint = ci(&store, &params(Some(2), Some("lint")), &opts).unwrap();
    assert_eq!(lint.source.version.ci().unwrap().job_id, 202);
}

#[test]
fn forbidden_not_found_expired_and_rate_limited_are_distinct() {
    let (store, _d, state, opts) = setup();
    let bad = CiOptions {
        token: Some(spool_fetch::github::Token("wrong".into())),
        ..opts.clone()
    };
    let err = ci(&store, &params(None, None), &bad).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Forbidden, "{err}");
    assert!(err.to_string().contains("HTTP 401"), "{err}");
    assert!(err.hint(Dialect::Mcp).unwrap().contains("GITHUB_TOKEN"));
    let err = ci(
        &store,
        &CiLogParams {
            run_id: 999,
            ..params(None, None)
        },
        &opts,
    )
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound, "{err}");
    let err = ci(&store, &params(Some(5), None), &opts).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    assert!(
        err.to_string()
            .contains("has 1 attempt; there is no attempt 5"),
        "{err}"
    );
    let err = ci(&store, &params(None, Some("deploy")), &opts).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    assert!(err.hint(Dialect::Mcp).unwrap().contains("build, lint"));
    state.lock().unwrap().runs.get_mut(&RUN).unwrap()[0][0].gone = true;
    let err = ci(&store, &params(None, None), &opts).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Expired, "{err}");
    assert!(err.to_string().contains("HTTP 410"), "{err}");
    state.lock().unwrap().rate_limited = true;
    let err = ci(&store, &params(None, None), &opts).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Unavailable, "{err}");
    assert!(err.to_string().contains("until 2026-12-01T"), "{err}");
    for bad in ["acme", "acme/", "../x/y", "a/b/c"] {
        let err = ci(
            &store,
            &CiLogParams {
                repo: bad.to_owned(),
                ..params(None, None)
            },
            &opts,
        )
        .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArgument, "{bad}");
    }
}

#[test]
fn a_job_still_running_is_partial_and_called_again() {
    let (store, _d, state, opts) = setup();
    {
        let mut st = state.lock().unwrap();
        let j = &mut st.runs.get_mut(&RUN).unwrap()[0][0];
        j.status = "in_progress".into();
        j.conclusion = None;
        j.log = "2026-11-30T09:00:00.0000000Z ##[group]Run cargo test\nrunning...\n".into();
    }
    let e = ci(&store, &params(None, Some("build")), &opts).unwrap();
    assert!(!e.complete);
    assert_eq!(e.reason.as_ref().unwrap().code, ReasonCode::UpstreamPartial);
    assert_eq!(e.next[0].tool(), "ci_log");
    assert!(banner(&e, Dialect::Mcp).contains("the job is still running (in_progress)"));
    // Not reused while it runs: the next call downloads what has arrived since.
    state.lock().unwrap().runs.get_mut(&RUN).unwrap()[0][0]
        .log
        .push_str("more\n");
    let again = ci(&store, &params(None, Some("build")), &opts).unwrap();
    assert_ne!(again.reference, e.reference);
    assert!(again.content(Dialect::Mcp).contains("more"));
    // Regression: once the job has finished, a copy made while it ran is not taken for its
    // final log.
    {
        let mut st = state.lock().unwrap();
        let j = &mut st.runs.get_mut(&RUN).unwrap()[0][0];
        j.status = "completed".into();
        j.conclusion = Some("failure".into());
        j.log.push_str("the end\n");
    }
    let done = ci(&store, &params(None, Some("build")), &opts).unwrap();
    assert!(
        done.content(Dialect::Mcp).contains("the end"),
        "an early copy was reused"
    );
    assert!(!banner(&done, Dialect::Mcp).contains("is read from that copy"));
    assert_eq!(done.source.version.ci().unwrap().status, "completed");
    // And that final copy is reused from then on.
    let reused = ci(&store, &params(None, Some("build")), &opts).unwrap();
    assert_eq!(reused.reference, done.reference);
}
