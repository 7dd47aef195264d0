//! `ci_log` under a hostile or slow API (issue 39): one deadline covers the whole call, every
//! request's connect, headers and body; a cancelled call closes what it has open; no password in
//! the API URL and no token the API echoes is stored or shown.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use spool_core::answer::Answer;
use spool_core::{Cap, ErrorCode, Store, StoreConfig};
use spool_fetch::CiLogParams;
use spool_fetch::FetchOptions;
use spool_fetch::github::{CiOptions, answer};
use spool_test_support::actions::{self, Actions, Shared, TOKEN, job};

const PASSWORD: &str = "hunter2-very-secret";

fn setup() -> (
    Store,
    tempfile::TempDir,
    Shared,
    CiOptions,
    std::net::SocketAddr,
) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), StoreConfig::default()).unwrap();
    let state: Shared = Arc::new(Mutex::new(Actions::default()));
    state
        .lock()
        .unwrap()
        .runs
        .insert(7, vec![vec![job(101, "build", true, 1)]]);
    let addr = actions::start(Arc::clone(&state));
    let opts = CiOptions {
        api: format!("http://{addr}"),
        token: Some(spool_fetch::github::Token(TOKEN.to_owned())),
        token_var: Some("GITHUB_TOKEN".to_owned()),
        fetch: FetchOptions {
            timeout: Duration::from_secs(2),
            ..FetchOptions::default()
        },
    };
    (store, dir, state, opts, addr)
}

fn params() -> CiLogParams {
    CiLogParams {
        repo: "acme/widgets".to_owned(),
        run_id: 7,
        attempt: None,
        job: None,
        max_tokens: None,
    }
}

/// The call on a thread: its result, or a panic if it outlives `within`.
fn call_within(
    store: Store,
    opts: CiOptions,
    within: Duration,
) -> (spool_core::Result<Answer>, Duration) {
    let (tx, rx) = std::sync::mpsc::channel();
    let started = Instant::now();
    std::thread::spawn(move || {
        let _ = tx.send(answer(&store, &params(), &opts, Cap::new(2_000)));
    });
    let got = rx
        .recv_timeout(within)
        .unwrap_or_else(|_| panic!("the call outlived {within:?}"));
    (got, started.elapsed())
}

fn open_bodies_reach_zero(state: &Shared) {
    let open = Arc::clone(&state.lock().unwrap().open);
    let since = Instant::now();
    while open.load(Ordering::SeqCst) > 0 {
        assert!(
            since.elapsed() < Duration::from_secs(3),
            "the connection was left open"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_run_that_trickles_its_json_ends_at_the_call_deadline_and_is_closed() {
    // Regression: the client's timeout restarted on every byte: the call never ended.
    let (store, _d, state, opts, _) = setup();
    state.lock().unwrap().trickle_run = true;
    let (got, took) = call_within(store, opts, Duration::from_secs(10));
    let err = got.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Timeout, "{err}");
    assert!(took < Duration::from_secs(4), "{took:?}");
    open_bodies_reach_zero(&state);
}

#[test]
fn one_deadline_covers_every_request_of_the_call() {
    // Regression: each request had its own; two slow ones took 2.4 s against 2 s.
    let (store, _d, state, opts, _) = setup();
    state.lock().unwrap().delay_ms = 1_200;
    let (got, took) = call_within(store, opts, Duration::from_secs(10));
    let err = got.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Timeout, "{err}");
    assert!(took < Duration::from_millis(2_900), "{took:?}");
}

#[test]
fn cancelling_the_call_closes_its_connection() {
    let (store, _d, state, mut opts, _) = setup();
    state.lock().unwrap().trickle_run = true;
    opts.fetch.timeout = Duration::from_mins(1);
    let cancel = Arc::new(AtomicBool::new(false));
    opts.fetch.cancel = Some(Arc::clone(&cancel));
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        cancel.store(true, Ordering::SeqCst);
    });
    let (got, took) = call_within(store, opts, Duration::from_secs(10));
    let err = got.unwrap_err();
    assert!(err.to_string().contains("cancelled"), "{err}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    open_bodies_reach_zero(&state);
}

#[test]
fn a_password_in_the_api_url_is_never_stored_or_shown() {
    let (store, dir, _state, mut opts, addr) = setup();
    opts.api = format!("http://user:{PASSWORD}@{addr}");
    let (got, _) = call_within(store, opts.clone(), Duration::from_secs(10));
    let Answer::Envelope(e) = got.unwrap() else {
        panic!("not an envelope")
    };
    let shown = format!(
        "{} {}",
        serde_json::to_string(&e).unwrap(),
        e.content(spool_core::render::Dialect::Mcp)
    );
    assert!(!shown.contains(PASSWORD), "{shown}");
    assert!(shown.contains("user:***@"), "{shown}");
    assert!(!format!("{opts:?}").contains(PASSWORD));
    // Nothing in the store's files holds it (database, content, sidecars).
    for entry in walk(dir.path()) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        assert!(
            memchr::memmem::find(&bytes, PASSWORD.as_bytes()).is_none(),
            "{} holds the password",
            entry.display()
        );
    }
    // Nor an error that names the API (nothing listens on this port).
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let store = Store::open(&dir.path().join("other"), StoreConfig::default()).unwrap();
    let mut down = opts;
    down.api = format!("http://user:{PASSWORD}@127.0.0.1:{port}");
    let (got, _) = call_within(store, down, Duration::from_secs(10));
    let err = got.unwrap_err();
    let words = format!("{err} {:?}", err.hint(spool_core::render::Dialect::Mcp));
    assert!(!words.contains(PASSWORD), "{words}");
}

#[test]
fn a_token_the_api_echoes_is_redacted() {
    let (store, _d, state, opts, _) = setup();
    state.lock().unwrap().echo_auth = true;
    let (got, _) = call_within(store, opts, Duration::from_secs(10));
    let err = got.unwrap_err();
    let said = err.to_string();
    assert!(!said.contains(TOKEN), "{said}");
    assert!(said.contains("Bearer [redacted]"), "{said}");
}

/// Every form of `secret` a reader could turn back into it: as it is, and the base64 of a
/// `user:secret` or `x-access-token:secret` credential (standard and URL-safe).
fn readable_forms(secret: &str) -> Vec<String> {
    use base64::Engine as _;
    let mut forms = vec![secret.to_owned()];
    for credential in [format!("user:{secret}"), format!("x-access-token:{secret}")] {
        forms.push(base64::engine::general_purpose::STANDARD.encode(&credential));
        forms.push(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&credential));
    }
    forms.push(base64::engine::general_purpose::STANDARD.encode(secret));
    forms
}

#[test]
fn a_password_and_token_the_api_echoes_as_basic_are_redacted_in_every_encoding() {
    // Regression (issue 58): the API echoed the `Authorization` it got, and the answer showed
    // `Basic dXNlcjpodW50ZXIy…`: the URL's password, base64.
    let (store, _d, state, mut opts, addr) = setup();
    opts.api = format!("http://user:{PASSWORD}@{addr}");
    state.lock().unwrap().echo_auth = true;
    let (got, _) = call_within(store, opts, Duration::from_secs(10));
    let err = got.unwrap_err();
    let said = format!("{err} {:?}", err.hint(spool_core::render::Dialect::Mcp));
    assert!(said.contains("Basic"), "the echo reached the words: {said}");
    for secret in [PASSWORD, TOKEN] {
        for form in readable_forms(secret) {
            assert!(!said.contains(&form), "{form} in: {said}");
        }
    }
}

#[test]
fn a_log_that_prints_the_token_is_stored_without_it_in_any_encoding() {
    use base64::Engine as _;
    let (store, dir, state, opts, _) = setup();
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("x-access-token:{TOKEN}"));
    let url_safe = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("user:{TOKEN}"));
    {
        let mut st = state.lock().unwrap();
        let job = &mut st.runs.get_mut(&7).unwrap()[0][0];
        job.log = format!(
            "{}2026-11-30T09:00:01Z + echo {TOKEN}\n2026-11-30T09:00:01Z {TOKEN}\n\
             2026-11-30T09:00:02Z > Authorization: Basic {basic}\n\
             2026-11-30T09:00:02Z cookie={url_safe};\n",
            job.log
        );
    }
    let (got, _) = call_within(store, opts, Duration::from_secs(10));
    let Answer::Envelope(e) = got.unwrap() else {
        panic!("not an envelope")
    };
    let reference = e.reference.clone();
    let content =
        std::fs::read_to_string(dir.path().join("store-v1").join("content").join(&reference))
            .unwrap();
    assert!(
        content.contains("echo [withheld: GITHUB_TOKEN]"),
        "{}",
        &content[content.len().saturating_sub(600)..]
    );
    // The lines around it are kept whole.
    assert!(content.contains("test case_3000 ... ok"));
    for form in readable_forms(TOKEN) {
        assert!(!content.contains(&form), "{form} stored");
    }
    // Nor anywhere else in the store (its database, index and word files).
    for entry in walk(dir.path()) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        for form in readable_forms(TOKEN) {
            assert!(
                memchr::memmem::find(&bytes, form.as_bytes()).is_none(),
                "{} holds {form}",
                entry.display()
            );
        }
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn a_hostile_job_name_still_answers_with_the_log_and_its_ref() {
    // Regression (issue 39): a 50,000-char job name left no room beside the banner; the log
    // was stored and the answer was `invalid_argument`, no ref.
    let (store, _d, state, opts, _) = setup();
    state.lock().unwrap().runs.insert(
        8,
        vec![vec![
            job(201, &"j".repeat(50_000), true, 1),
            job(202, "lint", false, 1),
        ]],
    );
    let p = CiLogParams {
        run_id: 8,
        ..params()
    };
    let got = answer(&store, &p, &opts, Cap::new(8_000)).unwrap();
    let Answer::Envelope(e) = got else {
        panic!("not an envelope")
    };
    assert!(e.reference.starts_with("sp_"));
    let text = e.content(spool_core::render::Dialect::Mcp);
    assert!(text.contains("##[error]"), "{text}");
    let wire = serde_json::to_string(&e).unwrap();
    assert!(wire.len() < 40_000, "{} bytes", wire.len());
    // The calls name the job by its id: they still work verbatim.
    assert!(
        e.next.iter().all(|c| c
            .arguments()
            .get("job")
            .is_none_or(|j| j.as_str().is_some_and(|s| s.len() <= 100))),
        "{:?}",
        e.next
    );
}
