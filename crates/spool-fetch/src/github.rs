//! GitHub Actions through its documented REST API: a run, the jobs of one of its attempts, and
//! a job's log (a redirect to a signed URL). Never the run-id-only log endpoint: it answers the
//! latest attempt, so reading on after a re-run would splice two executions together.
//!
//! Each HTTP answer that is not a success is said as the contract's code: a refused token is
//! `forbidden`, an unknown run or job `not_found`, logs past retention `expired`, a used-up
//! rate limit `unavailable` with its reset time.

mod api;
mod log;

pub(crate) use api::Api;
pub use log::answer;

use std::time::Duration;

use serde::Deserialize;

use crate::FetchOptions;

/// The API used when `GITHUB_API_URL` is not set (as in Actions itself and GHES).
pub const DEFAULT_API: &str = "https://api.github.com";

/// Where the API is and how to authenticate to it. Its `Debug` hides the token and the API
/// URL's password.
#[derive(Clone)]
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

impl std::fmt::Debug for CiOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CiOptions")
            .field(
                "api",
                &url::Url::parse(&self.api)
                    .map_or_else(|_| crate::redacted_str(&self.api), |u| api::shown_url(&u)),
            )
            .field("token", &self.token)
            .field("token_var", &self.token_var)
            .field("fetch", &self.fetch)
            .finish()
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
pub(crate) struct JobPage {
    pub total_count: u64,
    pub jobs: Vec<Job>,
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
