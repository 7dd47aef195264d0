//! A loopback server that plays GitHub's Actions REST API: a run and its attempts, the jobs of
//! each attempt (paged), each job's log as a redirect to a signed URL, and GitHub's error
//! answers (401 bad credentials, 404, 410 for logs past retention, 403 with a used-up rate
//! limit). Its JSON follows the published description (`@octokit/openapi`: `workflow-run`,
//! `job`).

#![expect(
    clippy::unwrap_used,
    clippy::missing_panics_doc,
    reason = "a test server: a poisoned lock or a failed bind is a failed test"
)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

pub const TOKEN: &str = "ghp_test_token";
pub const HEAD_SHA: &str = "0123456789abcdef0123456789abcdef01234567";

#[derive(Clone)]
pub struct FakeJob {
    pub id: u64,
    pub name: String,
    pub status: String,
    pub conclusion: Option<String>,
    /// (name, conclusion) of each step.
    pub steps: Vec<(String, String)>,
    pub log: String,
    /// Past retention: the log endpoint answers 410.
    pub gone: bool,
}

#[derive(Default)]
pub struct Actions {
    /// run id → attempts, each its jobs.
    pub runs: HashMap<u64, Vec<Vec<FakeJob>>>,
    /// Every path asked for, in order.
    pub seen: Vec<String>,
    pub rate_limited: bool,
    /// The run answers 200 and then trickles its JSON, a space every 100 ms, for ever.
    pub trickle_run: bool,
    /// The run and the jobs wait this long before answering.
    pub delay_ms: u64,
    /// The run is refused 401 with the `Authorization` it was sent in its message (an upstream
    /// that echoes a token back).
    pub echo_auth: bool,
    /// Trickled bodies the server still holds: 0 once the client closed its connections.
    pub open: Arc<std::sync::atomic::AtomicUsize>,
}

pub type Shared = Arc<Mutex<Actions>>;

/// A log as the Actions runner writes it: timestamped lines, steps in groups, and an error line.
pub fn log_of(attempt: u64, failing: bool) -> String {
    let mut log = String::new();
    let ts = "2026-11-30T09:00:00.0000000Z";
    log.push_str(&format!("{ts} ##[group]Run actions/checkout@v4\n{ts} attempt {attempt} checkout\n{ts} ##[endgroup]\n"));
    log.push_str(&format!("{ts} ##[group]Run cargo test\n"));
    for i in 1..=3000 {
        log.push_str(&format!("{ts} attempt {attempt} test case_{i} ... ok\n"));
    }
    if failing {
        log.push_str(&format!(
            "{ts} attempt {attempt} test retry_backoff ... FAILED\n"
        ));
        log.push_str(&format!(
            "{ts} ##[error]Process completed with exit code 101.\n"
        ));
    }
    log.push_str(&format!(
        "{ts} ##[endgroup]\n{ts} Cleaning up orphan processes\n"
    ));
    log
}

pub fn job(id: u64, name: &str, failing: bool, attempt: u64) -> FakeJob {
    FakeJob {
        id,
        name: name.to_owned(),
        status: "completed".into(),
        conclusion: Some(if failing { "failure" } else { "success" }.into()),
        steps: vec![
            ("Set up job".into(), "success".into()),
            ("Run actions/checkout@v4".into(), "success".into()),
            (
                "Run cargo test".into(),
                if failing { "failure" } else { "success" }.into(),
            ),
        ],
        log: log_of(attempt, failing),
        gone: false,
    }
}

fn error(status: StatusCode, message: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
        json!({ "message": message, "documentation_url": "https://docs.github.com/rest", "status": status.as_u16().to_string() })
            .to_string(),
    )
        .into_response()
}

/// The refusals every endpoint shares: a wrong token, a used-up rate limit.
fn refused(state: &Actions, headers: &HeaderMap) -> Option<Response> {
    // A password in the API URL goes as Basic beside the token: the token is what counts.
    let sent: Vec<&str> = headers
        .get_all(header::AUTHORIZATION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    if !sent.is_empty() && !sent.contains(&format!("Bearer {TOKEN}").as_str()) {
        return Some(error(StatusCode::UNAUTHORIZED, "Bad credentials"));
    }
    if state.rate_limited {
        let mut r = error(
            StatusCode::FORBIDDEN,
            "API rate limit exceeded for 127.0.0.1.",
        );
        let h = r.headers_mut();
        h.insert("x-ratelimit-limit", "60".parse().unwrap());
        h.insert("x-ratelimit-remaining", "0".parse().unwrap());
        h.insert("x-ratelimit-reset", "1796112000".parse().unwrap());
        return Some(r);
    }
    None
}

/// A 200 whose JSON never ends: a space every 100 ms. `open` counts it while it is held.
fn trickled(open: Arc<std::sync::atomic::AtomicUsize>) -> Response {
    use std::sync::atomic::Ordering;
    struct Held(Arc<std::sync::atomic::AtomicUsize>);
    impl Drop for Held {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Ordering::SeqCst);
        }
    }
    open.fetch_add(1, Ordering::SeqCst);
    let body = futures::stream::unfold(Held(open), |held| async move {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        Some((
            Ok::<_, std::io::Error>(axum::body::Bytes::from_static(b" ")),
            held,
        ))
    });
    (
        [(header::CONTENT_TYPE, "application/json")],
        axum::body::Body::from_stream(body),
    )
        .into_response()
}

fn run_json(
    addr: SocketAddr,
    owner: &str,
    repo: &str,
    id: u64,
    attempts: &[Vec<FakeJob>],
) -> Value {
    let latest = attempts.last().map(Vec::as_slice).unwrap_or_default();
    let done = latest.iter().all(|j| j.status == "completed");
    let failed = latest
        .iter()
        .any(|j| j.conclusion.as_deref() == Some("failure"));
    let api = format!("http://{addr}/repos/{owner}/{repo}");
    json!({
        "id": id,
        "name": "CI",
        "node_id": "WFR_kwLOtest",
        "head_branch": "main",
        "head_sha": HEAD_SHA,
        "path": ".github/workflows/ci.yml",
        "display_title": "ci: run the tests",
        "run_number": 42,
        "event": "push",
        "status": if done { "completed" } else { "in_progress" },
        "conclusion": if !done { Value::Null } else if failed { json!("failure") } else { json!("success") },
        "workflow_id": 9,
        "url": format!("{api}/actions/runs/{id}"),
        "html_url": format!("https://github.invalid/{owner}/{repo}/actions/runs/{id}"),
        "pull_requests": [],
        "created_at": "2026-11-30T09:00:00Z",
        "updated_at": "2026-11-30T09:10:00Z",
        "run_attempt": attempts.len(),
        "run_started_at": "2026-11-30T09:00:00Z",
        "jobs_url": format!("{api}/actions/runs/{id}/jobs"),
        "logs_url": format!("{api}/actions/runs/{id}/logs"),
        "check_suite_url": format!("{api}/check-suites/1"),
        "artifacts_url": format!("{api}/actions/runs/{id}/artifacts"),
        "cancel_url": format!("{api}/actions/runs/{id}/cancel"),
        "rerun_url": format!("{api}/actions/runs/{id}/rerun"),
        "workflow_url": format!("{api}/actions/workflows/9"),
        "head_commit": null,
        "repository": repo_json(owner, repo),
        "head_repository": repo_json(owner, repo),
    })
}

/// A `minimal-repository` with every field the description requires.
fn repo_json(owner: &str, repo: &str) -> Value {
    let api = format!("https://api.github.invalid/repos/{owner}/{repo}");
    let mut v = serde_json::Map::new();
    for key in [
        "archive_url",
        "assignees_url",
        "blobs_url",
        "branches_url",
        "collaborators_url",
        "comments_url",
        "commits_url",
        "compare_url",
        "contents_url",
        "contributors_url",
        "deployments_url",
        "downloads_url",
        "events_url",
        "forks_url",
        "git_commits_url",
        "git_refs_url",
        "git_tags_url",
        "hooks_url",
        "issue_comment_url",
        "issue_events_url",
        "issues_url",
        "keys_url",
        "labels_url",
        "languages_url",
        "merges_url",
        "milestones_url",
        "notifications_url",
        "pulls_url",
        "releases_url",
        "stargazers_url",
        "statuses_url",
        "subscribers_url",
        "subscription_url",
        "tags_url",
        "teams_url",
        "trees_url",
    ] {
        v.insert(
            key.into(),
            json!(format!("{api}/{}", key.trim_end_matches("_url"))),
        );
    }
    let fields = json!({
        "id": 1, "node_id": "R_test", "name": repo, "full_name": format!("{owner}/{repo}"),
        "private": false, "fork": false, "description": null,
        "url": api, "html_url": format!("https://github.invalid/{owner}/{repo}"),
        "owner": user_json(owner),
    });
    if let Value::Object(f) = fields {
        v.extend(f);
    }
    Value::Object(v)
}

/// A `simple-user` with every field the description requires.
fn user_json(login: &str) -> Value {
    let api = format!("https://api.github.invalid/users/{login}");
    let mut v = serde_json::Map::new();
    for key in [
        "events_url",
        "followers_url",
        "following_url",
        "gists_url",
        "organizations_url",
        "received_events_url",
        "repos_url",
        "starred_url",
        "subscriptions_url",
    ] {
        v.insert(
            key.into(),
            json!(format!("{api}/{}", key.trim_end_matches("_url"))),
        );
    }
    let fields = json!({
        "login": login, "id": 1, "node_id": "U_test", "type": "Organization", "site_admin": false,
        "avatar_url": "https://avatars.github.invalid/u/1", "gravatar_id": "",
        "url": api, "html_url": format!("https://github.invalid/{login}"),
    });
    if let Value::Object(f) = fields {
        v.extend(f);
    }
    Value::Object(v)
}

fn job_json(
    addr: SocketAddr,
    owner: &str,
    repo: &str,
    run_id: u64,
    attempt: u64,
    j: &FakeJob,
) -> Value {
    let api = format!("http://{addr}/repos/{owner}/{repo}");
    let steps: Vec<Value> = j
        .steps
        .iter()
        .enumerate()
        .map(|(i, (name, conclusion))| {
            json!({ "name": name, "status": "completed", "conclusion": conclusion, "number": i + 1,
                    "started_at": "2026-11-30T09:00:00Z", "completed_at": "2026-11-30T09:05:00Z" })
        })
        .collect();
    json!({
        "id": j.id,
        "run_id": run_id,
        "run_url": format!("{api}/actions/runs/{run_id}"),
        "run_attempt": attempt,
        "node_id": format!("CR_{}", j.id),
        "head_sha": HEAD_SHA,
        "url": format!("{api}/actions/jobs/{}", j.id),
        "html_url": format!("https://github.invalid/{owner}/{repo}/actions/runs/{run_id}/job/{}", j.id),
        "status": j.status,
        "conclusion": j.conclusion,
        "created_at": "2026-11-30T09:00:00Z",
        "started_at": "2026-11-30T09:00:00Z",
        "completed_at": if j.status == "completed" { json!("2026-11-30T09:05:00Z") } else { Value::Null },
        "name": j.name,
        "steps": steps,
        "check_run_url": format!("{api}/check-runs/{}", j.id),
        "labels": ["ubuntu-latest"],
        "runner_id": 1,
        "runner_name": "GitHub Actions 1",
        "runner_group_id": 1,
        "runner_group_name": "GitHub Actions",
        "workflow_name": "CI",
        "head_branch": "main",
    })
}

fn app(state: Shared, addr: SocketAddr) -> Router {
    Router::new()
        .route(
            "/repos/{owner}/{repo}/actions/runs/{id}",
            get(move |State(s): State<Shared>, Path((o, r, id)): Path<(String, String, u64)>, h: HeaderMap| async move {
                let (delay, trickle, echo, open) = {
                    let mut st = s.lock().unwrap();
                    st.seen.push(format!("/repos/{o}/{r}/actions/runs/{id}"));
                    (st.delay_ms, st.trickle_run, st.echo_auth, Arc::clone(&st.open))
                };
                tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
                if echo {
                    let auth: Vec<&str> = h.get_all(header::AUTHORIZATION).iter().filter_map(|v| v.to_str().ok()).collect();
                    return error(StatusCode::UNAUTHORIZED, &format!("Bad credentials: {}", auth.join(", ")));
                }
                if trickle {
                    return trickled(open);
                }
                let st = s.lock().unwrap();
                if let Some(no) = refused(&st, &h) {
                    return no;
                }
                match st.runs.get(&id) {
                    Some(attempts) => axum::Json(run_json(addr, &o, &r, id, attempts)).into_response(),
                    None => error(StatusCode::NOT_FOUND, "Not Found"),
                }
            }),
        )
        .route(
            "/repos/{owner}/{repo}/actions/runs/{id}/logs",
            get(move |State(s): State<Shared>, Path((o, r, id)): Path<(String, String, u64)>| async move {
                // The run-id-only log: the latest attempt's. spool must never ask for it.
                s.lock().unwrap().seen.push(format!("/repos/{o}/{r}/actions/runs/{id}/logs"));
                error(StatusCode::GONE, "spool must not read the run-id-only log")
            }),
        )
        .route(
            "/repos/{owner}/{repo}/actions/runs/{id}/attempts/{n}/jobs",
            get(move |State(s): State<Shared>, Path((o, r, id, n)): Path<(String, String, u64, u64)>, Query(q): Query<HashMap<String, String>>, h: HeaderMap| async move {
                let delay = s.lock().unwrap().delay_ms;
                tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
                let mut st = s.lock().unwrap();
                st.seen.push(format!("/repos/{o}/{r}/actions/runs/{id}/attempts/{n}/jobs"));
                if let Some(no) = refused(&st, &h) {
                    return no;
                }
                let Some(jobs) = st.runs.get(&id).and_then(|a| a.get(n.wrapping_sub(1) as usize)) else {
                    return error(StatusCode::NOT_FOUND, "Not Found");
                };
                let per: usize = q.get("per_page").and_then(|p| p.parse().ok()).unwrap_or(30);
                let page: usize = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
                let shown: Vec<Value> = jobs
                    .iter()
                    .skip((page - 1) * per)
                    .take(per)
                    .map(|j| job_json(addr, &o, &r, id, n, j))
                    .collect();
                axum::Json(json!({ "total_count": jobs.len(), "jobs": shown })).into_response()
            }),
        )
        .route(
            "/repos/{owner}/{repo}/actions/jobs/{job}/logs",
            get(move |State(s): State<Shared>, Path((o, r, job)): Path<(String, String, u64)>, h: HeaderMap| async move {
                let mut st = s.lock().unwrap();
                st.seen.push(format!("/repos/{o}/{r}/actions/jobs/{job}/logs"));
                if let Some(no) = refused(&st, &h) {
                    return no;
                }
                let found = st.runs.values().flatten().flatten().find(|j| j.id == job).cloned();
                match found {
                    None => error(StatusCode::NOT_FOUND, "Not Found"),
                    Some(j) if j.gone => error(StatusCode::GONE, "Gone"),
                    // As GitHub does: a redirect to a short-lived signed URL on another path.
                    Some(_) => (
                        StatusCode::FOUND,
                        [(header::LOCATION, format!("http://{addr}/signed/job-logs/{job}?sig=abc&se=2026-12-01"))],
                    )
                        .into_response(),
                }
            }),
        )
        .route(
            "/signed/job-logs/{job}",
            get(move |State(s): State<Shared>, Path(job): Path<u64>| async move {
                let mut st = s.lock().unwrap();
                st.seen.push(format!("/signed/job-logs/{job}"));
                let found = st.runs.values().flatten().flatten().find(|j| j.id == job).cloned();
                match found {
                    Some(j) => ([(header::CONTENT_TYPE, "text/plain")], j.log).into_response(),
                    None => error(StatusCode::NOT_FOUND, "Not Found"),
                }
            }),
        )
        .route(
            "/_fake/rerun/{id}",
            axum::routing::post(move |State(s): State<Shared>, Path(id): Path<u64>| async move {
                // What pressing "Re-run all jobs" does: a new attempt under the same run id.
                let mut st = s.lock().unwrap();
                let Some(attempts) = st.runs.get_mut(&id) else {
                    return error(StatusCode::NOT_FOUND, "Not Found");
                };
                let n = attempts.len() as u64 + 1;
                let again: Vec<FakeJob> = attempts[0]
                    .iter()
                    .map(|j| job(j.id + 100 * (n - 1), &j.name, j.conclusion.as_deref() == Some("failure"), n))
                    .collect();
                attempts.push(again);
                axum::Json(json!({ "run_attempt": n })).into_response()
            }),
        )
        .with_state(state)
}

/// The run the `fake-actions` binary serves: run 7 of `acme/widgets`, one attempt, a failed
/// `build` job and a passing `lint`.
pub fn sample() -> Shared {
    let state = Shared::default();
    state.lock().unwrap().runs.insert(
        7,
        vec![vec![job(101, "build", true, 1), job(102, "lint", false, 1)]],
    );
    state
}

/// Starts the server on a free loopback port.
pub fn start(state: Shared) -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            tx.send(addr).unwrap();
            axum::serve(listener, app(state, addr)).await.unwrap();
        });
    });
    rx.recv().unwrap()
}
