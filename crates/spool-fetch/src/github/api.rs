//! The client of one API base for one `ci_log` call: every request of the call (the run, the
//! job pages, the log and its redirect) runs against one deadline that covers connecting, the
//! headers and the body, and a cancelled call drops what it has open, which closes it. The
//! client is async reqwest on a runtime that belongs to the call: a blocking client cannot be
//! interrupted from outside, and its timeout restarts on every read, so an API that trickled its
//! run JSON held a call for 420 s and more (issue 39).
//!
//! Nothing secret leaves: the API URL's password (or a token given as its user name) is replaced
//! by `***` wherever the URL is stored or shown, and the token and password are replaced by
//! `[redacted]` in anything the upstream says back.

use std::future::Future;

use serde::de::DeserializeOwned;
use spool_core::{Error, ErrorCode, Result, clock};

use super::{CiOptions, Job, JobPage, Run};
use crate::FetchOptions;

/// The most JSON one API answer may hold (a page of 100 jobs with their steps is far less).
const MAX_JSON: usize = 64 << 20;

/// The most JSON all the answers of one call may hold (up to 50 pages of jobs are read).
const MAX_JSON_CALL: usize = 128 << 20;

/// A client of one API base, for one call.
pub(crate) struct Api<'a> {
    pub opts: &'a CiOptions,
    http: reqwest::Client,
    base: url::Url,
    /// The base as it is stored and shown: no password, no token.
    shown: String,
    secrets: Secrets,
    /// The call's one deadline and its cancel flag (see `crate::call`).
    call: crate::call::Call,
    /// JSON read so far in this call.
    json_read: std::cell::Cell<usize>,
}

/// What a call sends and never stores or shows: each value by the name it is known by, in
/// every form a server or a log may print it in (percent-decoded, and base64 at each alignment,
/// as a `Basic` header holds `user:password`: see `spool_core::exec::secret_forms`).
#[derive(Default)]
pub(crate) struct Secrets {
    /// Every form, longest first (for words: errors, what the API said).
    forms: Vec<(String, String)>,
    /// The values as sent (the log's scrubber makes their forms itself).
    values: Vec<(String, String)>,
}

impl Secrets {
    /// Shorter ones would blank ordinary words; the URL and token forms are longer.
    const SHORTEST: usize = 4;

    fn of(opts: &CiOptions, base: &url::Url) -> Self {
        let token_name = opts.token_var.clone().unwrap_or_else(|| "the token".into());
        let mut found: Vec<(String, String)> = opts
            .token
            .iter()
            .map(|t| (token_name.clone(), t.0.clone()))
            .collect();
        let user = base.username();
        let url_secret = match base.password() {
            Some(p) => Some(p),
            None if !user.is_empty() => Some(user),
            None => None,
        };
        if let Some(secret) = url_secret {
            let name = "the API URL's password".to_owned();
            found.push((name.clone(), secret.to_owned()));
            if let Some(plain) = decoded(secret) {
                found.push((name.clone(), plain));
            }
        }
        found.retain(|(_, value)| value.len() >= Self::SHORTEST);
        let mut all: Vec<(String, String)> = Vec::new();
        for (name, value) in &found {
            all.extend(
                spool_core::exec::secret_forms(value.as_bytes())
                    .into_iter()
                    .filter_map(|form| String::from_utf8(form).ok())
                    .map(|form| (name.clone(), form)),
            );
        }
        // Longest first: a secret that holds another is replaced whole.
        all.sort_by_key(|(_, s)| std::cmp::Reverse(s.len()));
        all.dedup_by(|a, b| a.1 == b.1);
        Self {
            forms: all,
            values: found,
        }
    }

    /// `text` with every secret replaced by `[redacted]`.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (_, secret) in &self.forms {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), "[redacted]");
            }
        }
        out
    }

    /// A scrubber of a log as it streams in: a secret it prints becomes `[withheld: NAME]`.
    pub fn scrubber(&self) -> spool_core::exec::Scrubber {
        spool_core::exec::Scrubber::new(
            self.values
                .iter()
                .map(|(name, value)| (name.clone(), value.clone().into_bytes()))
                .collect(),
        )
    }
}

fn decoded(s: &str) -> Option<String> {
    let d = percent_encoding::percent_decode_str(s).decode_utf8_lossy();
    (d != s).then(|| d.into_owned())
}

/// `url` as it may be stored and shown: a password, or a lone user name (a token), is `***`.
pub(crate) fn shown_url(url: &url::Url) -> String {
    let mut shown = url.clone();
    if url.password().is_some() {
        let _ = shown.set_password(Some("***"));
    } else if !url.username().is_empty() {
        let _ = shown.set_username("***");
    }
    shown.as_str().trim_end_matches('/').to_owned()
}

impl<'a> Api<'a> {
    pub fn new(opts: &'a CiOptions) -> Result<Self> {
        let base = url::Url::parse(opts.api.trim_end_matches('/')).map_err(|e| {
            Error::invalid_words(
                format!(
                    "`GITHUB_API_URL` is not a URL ({}): {e}",
                    crate::redacted_str(&opts.api)
                )
                .into(),
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
        let call = crate::call::Call::new(&fetch)?;
        let http = call.client(&fetch, std::sync::Arc::default())?;
        Ok(Self {
            opts,
            http,
            shown: shown_url(&base),
            secrets: Secrets::of(opts, &base),
            base,
            call,
            json_read: std::cell::Cell::new(0),
        })
    }

    /// A scrubber of what the API sends to be stored (a log that prints the token).
    pub fn scrubber(&self) -> spool_core::exec::Scrubber {
        self.secrets.scrubber()
    }

    /// The API base as stored and shown (no secret in it).
    pub fn base(&self) -> &str {
        &self.shown
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.call.is_cancelled()
    }

    /// `fut` to its end, or to the call's deadline or its cancel: then it is dropped, and with
    /// it the request and its connection.
    pub fn bounded<T>(&self, what: &str, fut: impl Future<Output = Result<T>>) -> Result<T> {
        self.call.run(what, fut)
    }

    fn get(&self, path: &str) -> Result<reqwest::Response> {
        let url = format!("{}{path}", self.base.as_str().trim_end_matches('/'));
        let shown = format!("{}{path}", self.shown);
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
        let what = format!("reading `{shown}`");
        self.bounded(&what, async {
            // The error's own URL may be the signed one (a redirect's target): it is not shown.
            request.send().await.map_err(|e| {
                let e = crate::transport_error(&shown, &e.without_url(), &self.opts.fetch);
                self.scrubbed(e)
            })
        })
    }

    /// An error with every secret out of its words.
    fn scrubbed(&self, e: Error) -> Error {
        match e {
            Error::Unavailable { what, cause } => Error::Unavailable {
                what: self.secrets.scrub(&what),
                cause: self.secrets.scrub(&cause),
            },
            Error::Remote {
                code,
                message,
                hint,
            } => Error::Remote {
                code,
                message: self.secrets.scrub(&message),
                hint,
            },
            other => other,
        }
    }

    /// GETs `path` and reads its JSON, or says why not in the contract's words.
    fn json<T: DeserializeOwned>(&self, path: &str, what: &str) -> Result<T> {
        let response = self.get(path)?;
        let url = format!("{}{path}", self.shown);
        let reading = format!("reading `{url}`");
        let body = self.bounded(&reading, async {
            let mut response = self.checked(response, what, true).await?;
            let mut body = Vec::new();
            loop {
                match response.chunk().await {
                    Ok(Some(c)) if body.len() + c.len() > MAX_JSON => {
                        return Err(Error::Unavailable {
                            what: format!("`{url}`"),
                            cause: format!(
                                "the answer passed {} of JSON",
                                spool_core::render::human_bytes(MAX_JSON as u64)
                            ),
                        });
                    }
                    Ok(Some(c)) => body.extend_from_slice(&c),
                    Ok(None) => return Ok(body),
                    Err(e) => {
                        return Err(Error::Unavailable {
                            what: format!("`{url}`"),
                            cause: format!("the answer broke off: {}", e.without_url()),
                        });
                    }
                }
            }
        })?;
        self.json_read.set(self.json_read.get() + body.len());
        if self.json_read.get() > MAX_JSON_CALL {
            return Err(Error::Unavailable {
                what: format!("`{url}`"),
                cause: format!(
                    "the API's answers passed {} of JSON in one call",
                    spool_core::render::human_bytes(MAX_JSON_CALL as u64)
                ),
            });
        }
        // serde quotes a mistyped string: an echoed token would be in its words.
        serde_json::from_slice(&body).map_err(|e| Error::Unavailable {
            what: format!("`{url}`"),
            cause: self
                .secrets
                .scrub(&format!("the answer is not the JSON of {what}: {e}")),
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

    /// The log of one job: the API's redirect followed to the signed URL, its body to be read
    /// by [`Api::chunk`].
    pub fn log(&self, repo: &str, job: &Job) -> Result<reqwest::Response> {
        let response = self.get(&format!("/repos/{repo}/actions/jobs/{}/logs", job.id))?;
        // A refusal by the signed URL's host is not about the token.
        let from_api = response.url().host_str() == self.base.host_str()
            && response.url().port_or_known_default() == self.base.port_or_known_default()
            && response
                .url()
                .path()
                .starts_with(self.base.path().trim_end_matches('/'));
        let what = format!("the log of job `{}` ({})", job.name, job.id);
        self.bounded(&what, self.checked(response, &what, from_api))
    }

    /// The next piece of a body, within the call's deadline and cancel.
    pub fn chunk(&self, response: &mut reqwest::Response, what: &str) -> Result<Option<Vec<u8>>> {
        self.bounded(what, async {
            response
                .chunk()
                .await
                .map(|c| c.map(|b| b.to_vec()))
                .map_err(|e| Error::Unavailable {
                    what: what.to_owned(),
                    cause: e.without_url().to_string(),
                })
        })
    }

    /// A response that succeeded, or the error its status means.
    async fn checked(
        &self,
        response: reqwest::Response,
        what: &str,
        from_api: bool,
    ) -> Result<reqwest::Response> {
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
        let said = self.secrets.scrub(&said_by(response).await);
        Err(refusal(
            status,
            what,
            &said,
            self.opts.token_var.as_deref(),
            from_api,
            &Limited {
                remaining,
                reset,
                retry_after,
            },
        ))
    }
}

/// What a refusal's headers say of the rate limit.
struct Limited {
    remaining: Option<String>,
    reset: Option<i64>,
    retry_after: Option<i64>,
}

/// The error an HTTP status means, in the contract's codes.
fn refusal(
    status: reqwest::StatusCode,
    what: &str,
    said: &str,
    token_var: Option<&str>,
    from_api: bool,
    limit: &Limited,
) -> Error {
    let token_hint = match token_var {
        Some(var) => format!(
            "check that the token in `{var}` is valid, not expired, and may read Actions of the repository (`actions: read`, or the `repo` scope for a private one)"
        ),
        None => "set `GITHUB_TOKEN` (or `GH_TOKEN`) to a token that may read Actions of the repository (`actions: read`, or the `repo` scope for a private one)".to_owned(),
    };
    let limited = status.as_u16() == 429
        || (status.as_u16() == 403
            && (limit.remaining.as_deref() == Some("0") || limit.retry_after.is_some()));
    let (code, message, hint) = if limited {
        let until = limit.reset.map(|r| clock::rfc3339(r * 1000)).or_else(|| {
            limit
                .retry_after
                .map(|s| clock::rfc3339(clock::now_ms() + s * 1000))
        });
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
                token_hint,
            ),
            403 => (
                ErrorCode::Forbidden,
                format!("GitHub does not let this token read {what} (HTTP 403){said}"),
                token_hint,
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
    Error::Remote {
        code,
        message,
        hint,
    }
}

/// `: "<message>"` from a GitHub error body, when it has one (its first 4 KiB are read).
async fn said_by(mut response: reqwest::Response) -> String {
    let mut body = Vec::new();
    while body.len() < 4096 {
        match response.chunk().await {
            Ok(Some(c)) => body.extend_from_slice(&c),
            _ => break,
        }
    }
    body.truncate(4096);
    serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(str::to_owned))
        .map_or_else(String::new, |m| format!(": \"{m}\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_shown_without_its_password_or_token() {
        let u = url::Url::parse("https://user:s3cr%40t@ghe.example/api/v3").unwrap();
        assert_eq!(shown_url(&u), "https://user:***@ghe.example/api/v3");
        let u = url::Url::parse("https://ghp_tokentoken@ghe.example/api").unwrap();
        assert_eq!(shown_url(&u), "https://***@ghe.example/api");
    }

    #[test]
    fn a_url_that_does_not_parse_hides_what_may_be_its_password() {
        assert_eq!(
            crate::redacted_str("ht tp://user:s3cret@host/x"),
            "ht tp://***@host/x"
        );
        let opts = CiOptions {
            api: "https://ghp_tokentoken@ghe.example/api".into(),
            token: None,
            token_var: None,
            fetch: FetchOptions::default(),
        };
        assert!(!format!("{opts:?}").contains("ghp_tokentoken"));
    }

    #[test]
    fn secrets_are_scrubbed_in_both_spellings() {
        let opts = CiOptions {
            api: String::new(),
            token: Some(super::super::Token("ghp_abcdef".into())),
            token_var: None,
            fetch: FetchOptions::default(),
        };
        let base = url::Url::parse("https://user:s3cr%40t@ghe.example/api/v3").unwrap();
        let s = Secrets::of(&opts, &base);
        assert_eq!(
            s.scrub("token ghp_abcdef, password s3cr@t or s3cr%40t, user"),
            "token [redacted], password [redacted] or [redacted], user"
        );
    }
}
