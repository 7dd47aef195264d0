//! GitHub Actions through its documented REST API: a run, the jobs of one of its attempts, and
//! a job's log (a redirect to a signed URL). Never the run-id-only log endpoint: it answers the
//! latest attempt, so reading on after a re-run would splice two executions together.
//!
//! Each HTTP answer that is not a success is said as the contract's code: a refused token is
//! `forbidden`, an unknown run or job `not_found`, logs past retention `expired`, a used-up
//! rate limit `unavailable` with its reset time.

mod log;

pub use log::answer;

use std::io::Read;
use std::time::Duration;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use spool_core::{Error, ErrorCode, Result, clock};

use crate::FetchOptions;

/// The API used when `GITHUB_API_URL` is not set (as in Actions itself and GHES).
pub const DEFAULT_API: &str = "https://api.github.com";

/// Where the API is and how to authenticate to it.
#[derive(Debug, Clone)]
pub struct CiOptions {
    /// The API base, e.g. `https://api.github.com` or `https://ghe.example/api/v3`.
    pub api: String,
    /// A token (from `GITHUB_TOKEN` or `GH_TOKEN`); anonymous reads of public runs without it.
    pub token: Option<Token>,
    /// The variable the token came from, for what an error asks to check (`GITHUB_TOKEN`, ...).
    pub token_var: Option<String>,
    /// Limits of the downloads; `allow_private` lets a log's signed URL be private (the API
    /// base itself is trusted as configured).
    pub fetch: FetchOptions,
}

impl CiOptions {
    /// From the environment: `GITHUB_API_URL`, and `GITHUB_TOKEN` or else `GH_TOKEN`.
    pub fn from_env() -> Self {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let (token, token_var) = match (var("GITHUB_TOKEN"), var("GH_TOKEN")) {
            (Some(t), _) => (Some(Token(t)), Some("GITHUB_TOKEN".to_owned())),
            (None, Some(t)) => (Some(Token(t)), Some("GH_TOKEN".to_owned())),
            (None, None) => (None, None),
        };
        Self {
            api: var("GITHUB_API_URL").unwrap_or_else(|| DEFAULT_API.to_owned()),
            token,
            token_var,
            fetch: FetchOptions {
                // A job's log may be far larger than a page.
                max_bytes: 1 << 30,
                timeout: Duration::from_mins(5),
                ..FetchOptions::default()
            },
        }
    }
}

/// The `[ci]` table of `spool.toml`: where the API is, and the name of the variable that holds
/// the token (the token itself is never written in the file). The variables win when set.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CiSection {
    #[serde(default)]
    pub api_url: Option<String>,
    #[serde(default)]
    pub token_env: Option<String>,
}

impl CiOptions {
    /// From the environment, and the settings file's `[ci]` table where a variable is not set:
    /// the variable `token_env` names is read before `GITHUB_TOKEN` and `GH_TOKEN`.
    pub fn from_env_and(section: Option<&CiSection>) -> Self {
        let mut opts = Self::from_env();
        let Some(section) = section else {
            return opts;
        };
        let set = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        if set("GITHUB_API_URL").is_none()
            && let Some(api) = &section.api_url
        {
            opts.api.clone_from(api);
        }
        if let Some(name) = &section.token_env
            && let Some(token) = set(name)
        {
            opts.token = Some(Token(token));
            opts.token_var = Some(name.clone());
        }
        opts
    }
}

/// A token, never shown: its `Debug` is `Token(***)`.
#[derive(Clone)]
pub struct Token(pub String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(***)")
    }
}

/// A workflow run, as `GET /repos/{owner}/{repo}/actions/runs/{run_id}` answers it.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Run {
    pub head_sha: String,
    #[serde(default)]
    pub name: Option<String>,
    /// The run's latest attempt (GitHub's `run_attempt`).
    #[serde(default, rename = "run_attempt")]
    pub latest_attempt: Option<u64>,
}

/// A page of an attempt's jobs.
#[derive(Debug, Deserialize)]
struct JobPage {
    total_count: u64,
    jobs: Vec<Job>,
}

/// A job of an attempt.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Job {
    pub id: u64,
    pub name: String,
    pub status: String,
    #[serde(default)]
    pub conclusion: Option<String>,
    #[serde(default)]
    pub steps: Vec<Step>,
}

/// A step of a job, by the job's own account.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Step {
    pub name: String,
    pub number: u64,
    #[serde(default)]
    pub conclusion: Option<String>,
}

impl Job {
    pub fn failed(&self) -> bool {
        matches!(
            self.conclusion.as_deref(),
            Some("failure" | "timed_out" | "startup_failure")
        )
    }

    /// The first step that failed.
    pub fn failed_step(&self) -> Option<&Step> {
        self.steps
            .iter()
            .find(|s| matches!(s.conclusion.as_deref(), Some("failure" | "timed_out")))
    }
}

/// A client of one API base.
pub(crate) struct Api<'a> {
    opts: &'a CiOptions,
    http: reqwest::blocking::Client,
    base: url::Url,
}

impl<'a> Api<'a> {
    pub fn new(opts: &'a CiOptions) -> Result<Self> {
        let base = url::Url::parse(opts.api.trim_end_matches('/')).map_err(|e| {
            Error::invalid_words(
                format!("`GITHUB_API_URL` is not a URL ({}): {e}", opts.api).into(),
                "set it to the API's base, e.g. `https://api.github.com`".into(),
            )
        })?;
        // The configured base is trusted: a private one (GHES, a test server) lets its signed
        // URLs be private too. A public base's redirects still pass the address guard.
        let fetch = FetchOptions {
            allow_private: opts.fetch.allow_private
                || crate::guard::literal_refusal(&base).is_some(),
            ..opts.fetch.clone()
        };
        let http = crate::client(&fetch, std::sync::Arc::default())?;
        Ok(Self { opts, http, base })
    }

    pub fn base(&self) -> &str {
        self.base.as_str().trim_end_matches('/')
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base())
    }

    fn get(&self, path: &str) -> Result<reqwest::blocking::Response> {
        let url = self.url(path);
        let mut request = self
            .http
            .get(&url)
            .header(reqwest::header::ACCEPT, "application/vnd.github+json")
            .header("X-GitHub-Api-Version", "2022-11-28");
        if let Some(token) = &self.opts.token {
            // Sent to the API only: reqwest drops it on a redirect to another host (the
            // signed URL of a log).
            request = request.bearer_auth(&token.0);
        }
        // The error's own URL may be the signed one (a redirect's target): it is not shown.
        request
            .send()
            .map_err(|e| crate::transport_error(&url, &e.without_url(), &self.opts.fetch))
    }

    /// GETs `path` and reads its JSON, or says why not in the contract's words.
    fn json<T: DeserializeOwned>(&self, path: &str, what: &str) -> Result<T> {
        let response = self.get(path)?;
        let response = checked(response, what, self.opts.token_var.as_deref(), true)?;
        let url = response.url().to_string();
        // A page of 100 jobs with their steps is well under this.
        let mut body = Vec::new();
        response
            .take(64 << 20)
            .read_to_end(&mut body)
            .map_err(|e| Error::Unavailable {
                what: format!("`{url}`"),
                cause: format!("the answer broke off: {e}"),
            })?;
        serde_json::from_slice(&body).map_err(|e| Error::Unavailable {
            what: format!("`{url}`"),
            cause: format!("the answer is not the JSON of {what}: {e}"),
        })
    }

    pub fn run(&self, repo: &str, run_id: u64) -> Result<Run> {
        self.json(
            &format!("/repos/{repo}/actions/runs/{run_id}"),
            &format!("run {run_id} of {repo}"),
        )
    }

    /// Every job of one attempt, page by page.
    pub fn jobs(&self, repo: &str, run_id: u64, attempt: u64) -> Result<Vec<Job>> {
        const PER_PAGE: u64 = 100;
        let mut jobs: Vec<Job> = Vec::new();
        for page in 1..=50u64 {
            let p: JobPage = self.json(
                &format!(
                    "/repos/{repo}/actions/runs/{run_id}/attempts/{attempt}/jobs?per_page={PER_PAGE}&page={page}"
                ),
                &format!("the jobs of attempt {attempt} of run {run_id} of {repo}"),
            )?;
            let got = p.jobs.len() as u64;
            jobs.extend(p.jobs);
            if got < PER_PAGE || jobs.len() as u64 >= p.total_count {
                break;
            }
        }
        Ok(jobs)
    }

    /// The log of one job: the API's redirect followed to the signed URL, the body as a stream.
    pub fn log(&self, repo: &str, job: &Job) -> Result<reqwest::blocking::Response> {
        let response = self.get(&format!("/repos/{repo}/actions/jobs/{}/logs", job.id))?;
        // A refusal by the signed URL's host is not about the token.
        let from_api = response.url().host_str() == self.base.host_str()
            && response.url().port_or_known_default() == self.base.port_or_known_default()
            && response
                .url()
                .path()
                .starts_with(self.base.path().trim_end_matches('/'));
        checked(
            response,
            &format!("the log of job `{}` ({})", job.name, job.id),
            self.opts.token_var.as_deref(),
            from_api,
        )
    }
}

/// A response that succeeded, or the error its status means.
fn checked(
    response: reqwest::blocking::Response,
    what: &str,
    token_var: Option<&str>,
    from_api: bool,
) -> Result<reqwest::blocking::Response> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let remaining = header("x-ratelimit-remaining");
    let reset = header("x-ratelimit-reset").and_then(|r| r.parse::<i64>().ok());
    let retry_after = header("retry-after").and_then(|r| r.parse::<i64>().ok());
    let said = said_by(response);
    let token_hint = match token_var {
        Some(var) => format!(
            "check that the token in `{var}` is valid, not expired, and may read Actions of the repository (`actions: read`, or the `repo` scope for a private one)"
        ),
        None => "set `GITHUB_TOKEN` (or `GH_TOKEN`) to a token that may read Actions of the repository (`actions: read`, or the `repo` scope for a private one)".to_owned(),
    };
    let limited = status.as_u16() == 429
        || (status.as_u16() == 403 && (remaining.as_deref() == Some("0") || retry_after.is_some()));
    let (code, message, hint) = if limited {
        let until = reset
            .map(|r| clock::rfc3339(r * 1000))
            .or_else(|| retry_after.map(|s| clock::rfc3339(clock::now_ms() + s * 1000)));
        (
            ErrorCode::Unavailable,
            format!(
                "GitHub's rate limit is used up{} (HTTP {status}, reading {what}){said}",
                until
                    .as_deref()
                    .map_or(String::new(), |u| format!(" until {u}"))
            ),
            format!(
                "call again after {}; a token (`GITHUB_TOKEN`) has a higher limit than anonymous reads",
                until.as_deref().unwrap_or("the limit resets")
            ),
        )
    } else {
        match status.as_u16() {
            401 | 403 if !from_api => (
                ErrorCode::Unavailable,
                format!(
                    "the signed URL GitHub redirected to refused {what} (HTTP {status}): it may have expired"
                ),
                "call again: each call asks GitHub for a fresh signed URL".to_owned(),
            ),
            401 => (
                ErrorCode::Forbidden,
                format!("GitHub refused the credentials (HTTP 401) reading {what}{said}"),
                token_hint.clone(),
            ),
            403 => (
                ErrorCode::Forbidden,
                format!("GitHub does not let this token read {what} (HTTP 403){said}"),
                token_hint.clone(),
            ),
            404 => (
                ErrorCode::NotFound,
                format!("not found on GitHub (HTTP 404): {what}{said}"),
                "check the repository (`owner/name`), the run id (the number in `.../actions/runs/ID`) and the job; GitHub also answers 404 for a private repository the token cannot see".to_owned(),
            ),
            410 => (
                ErrorCode::Expired,
                format!(
                    "{what} is gone from GitHub (HTTP 410): logs are kept for the repository's retention period{said}"
                ),
                "re-run the job to make a new log; the run, its attempts and jobs are still listed".to_owned(),
            ),
            _ => (
                ErrorCode::Unavailable,
                format!("GitHub answered HTTP {status} reading {what}{said}"),
                "call again later".to_owned(),
            ),
        }
    };
    Err(Error::Remote {
        code,
        message,
        hint,
    })
}

/// `: "<message>"` from a GitHub error body, when it has one.
fn said_by(response: reqwest::blocking::Response) -> String {
    let mut body = String::new();
    let _ = response.take(4096).read_to_string(&mut body);
    serde_json::from_str::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(str::to_owned))
        .map_or_else(String::new, |m| format!(": \"{m}\""))
}
