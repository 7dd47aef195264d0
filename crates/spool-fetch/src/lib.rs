//! `spool-fetch`: a web page downloaded once and stored as a versioned document, so every
//! continuation, re-read and search reads that same copy. Refetching is explicit (`refresh`)
//! and conditional (`If-None-Match`, `If-Modified-Since`); a new download never splices onto an
//! old one.

mod bounded;
mod call;
mod convert;
#[cfg(test)]
mod fuzz;
pub mod github;
pub mod guard;
mod page;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use sha2::{Digest, Sha256};
use spool_core::envelope::{ArtifactState, FetchVersion, NextCall, Source, Version};
use spool_core::store::{ArtifactMeta, NewArtifact};
use spool_core::{Error, Result, Store, clock};

pub use convert::Format;
// The arguments are typed in spool-core, where the calls that print them are made.
pub use spool_core::calls::{CiLogParams, FetchParams, FormatArg};

/// Limits and permissions of fetching.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// Allow private, loopback and link-local addresses (off by default).
    pub allow_private: bool,
    pub connect_timeout: Duration,
    /// The whole download, redirects included.
    pub timeout: Duration,
    /// Bytes downloaded at most; past it the copy is kept, marked partial.
    pub max_bytes: u64,
    /// A page fetched again by the same URL within this window reuses the stored copy.
    pub reuse_window: Duration,
    /// Set to stop the call: what it has open is dropped, which closes it (`ci_log`).
    pub cancel: Option<Arc<std::sync::atomic::AtomicBool>>,
}

impl Default for FetchOptions {
    fn default() -> Self {
        Self {
            allow_private: false,
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_mins(1),
            max_bytes: 50 << 20,
            reuse_window: Duration::from_mins(5),
            cancel: None,
        }
    }
}

/// The stored copy a fetch answers with, and what the reader should know about it.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub meta: ArtifactMeta,
    /// Reused, unchanged, changed since an older ref, an HTTP error status, ...
    pub notes: Vec<String>,
}

const USER_AGENT: &str = concat!(
    "spool/",
    env!("CARGO_PKG_VERSION"),
    " (+fetches once, stores the whole page)"
);

/// A URL as given, its password replaced by `***` (for what is recorded: the audit's
/// arguments); one that does not parse, with anything that may be its user and password hidden.
pub fn redacted_str(url: &str) -> String {
    url::Url::parse(url).map_or_else(|_| userinfo_hidden(url), |u| redacted(&u))
}

/// `s`, a URL that does not parse, with whatever comes between its `://` and an `@` before its
/// host's end replaced by `***`: its user and password, if it has them, are not shown.
fn userinfo_hidden(s: &str) -> String {
    let Some(start) = s.find("://").map(|i| i + 3) else {
        return s.to_owned();
    };
    let rest = &s[start..];
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..end].rfind('@') {
        Some(at) => format!("{}***{}", &s[..start], &rest[at..]),
        None => s.to_owned(),
    }
}

/// `url` with its password, if it has one, replaced by `***`.
pub fn redacted(url: &url::Url) -> String {
    if url.password().is_none() {
        return url.to_string();
    }
    let mut shown = url.clone();
    let _ = shown.set_password(Some("***"));
    shown.to_string()
}

/// Fetches `url` (or reuses a recent copy) and stores it. `progress` hears (bytes, total).
pub fn fetch(
    store: &Store,
    url: &str,
    format: Format,
    refresh: bool,
    opts: &FetchOptions,
    progress: &mut dyn FnMut(u64, Option<u64>),
) -> Result<Fetched> {
    let parsed = url::Url::parse(url).map_err(|e| Error::InvalidArgument {
        message: format!("`{url}` is not a URL: {e}").into(),
        hint: Some("give an absolute http:// or https:// URL".into()),
    })?;
    let url = &redacted(&parsed);
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(Error::Forbidden {
            path: url.into(),
            reason: format!(
                "only http and https URLs are fetched (not `{}:`)",
                parsed.scheme()
            ),
        });
    }
    if !opts.allow_private
        && let Some(refused) = guard::literal_refusal(&parsed)
    {
        return Err(refusal(url, &refused));
    }
    // The URL by its hash: a password in it is not kept in the database.
    let key = format!(
        "fetch:{}:{}",
        format.as_str(),
        Sha256::digest(parsed.as_str().as_bytes())
            .iter()
            .fold(String::new(), |mut s, b| {
                use std::fmt::Write as _;
                let _ = write!(s, "{b:02x}");
                s
            })
    );
    let previous = store.find_by_dedup(&key)?;
    if let Some(prev) = &previous
        && !refresh
    {
        let age_ms = clock::now_ms() - prev.created_at;
        if age_ms >= 0 && (age_ms as u128) < opts.reuse_window.as_millis() {
            return Ok(Fetched {
                meta: prev.clone(),
                notes: vec![format!(
                    "this is the copy {} fetched {} s ago (copies are reused for {} s); fetch with refresh=true to download again",
                    prev.reference,
                    age_ms / 1000,
                    opts.reuse_window.as_secs()
                )],
            });
        }
    }
    download(
        store,
        &parsed,
        format,
        key,
        previous.filter(|_| refresh),
        opts,
        progress,
    )
}

/// A fetch's arguments as the audit records them: a password in the URL is used, not recorded.
pub fn audited_arguments(p: &FetchParams) -> Value {
    let mut v = serde_json::to_value(p).unwrap_or(Value::Null);
    v["url"] = Value::String(redacted_str(&p.url));
    v
}

/// `fetch` as every front end answers it: the page stored once (or its recent copy reused),
/// its head shown under `cap`.
pub fn answer(
    store: &Store,
    p: &FetchParams,
    opts: &FetchOptions,
    cap: spool_core::Cap,
    progress: &mut dyn FnMut(u64, Option<u64>),
) -> Result<spool_core::answer::Answer> {
    let format = p.format.map_or(Format::Markdown, Into::into);
    // What to find is checked first: a bad regex fetches nothing.
    let find = spool_core::search::Find::from_args(
        spool_core::calls::ToolName::Fetch,
        p.query.as_deref(),
        p.pattern.as_deref(),
        p.literal,
        p.case_insensitive,
    )?;
    let fetched = fetch(store, &p.url, format, p.refresh, opts, progress)?;
    let reference = &fetched.meta.reference;
    let envelope = if let Some(find) = &find {
        spool_core::answer::found_window(store, reference, find, None, cap, &fetched.notes)?
    } else {
        let reader = store.open_artifact(reference)?;
        spool_core::window::Alongside::default()
            .with_notes(&fetched.notes)
            .window(
                &reader,
                spool_core::window::WindowRequest::Preview(None),
                cap,
            )?
    };
    Ok(spool_core::answer::Answer::Envelope(Box::new(envelope)))
}

fn refusal(url: &str, refused: &guard::Refused) -> Error {
    Error::PrivateAddress {
        url: url.into(),
        refused: refused.to_string(),
    }
}

/// The redirects a client follows: ten at most, http(s) only, none to a private address
/// unless private addresses are allowed. Each target is noted in `redirects`.
fn redirect_policy(
    allow_private: bool,
    redirects: Arc<Mutex<Vec<String>>>,
) -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(move |attempt| {
        let next = attempt.url().clone();
        if let Ok(mut seen) = redirects.lock() {
            seen.push(next.to_string());
        }
        if attempt.previous().len() >= 10 {
            attempt.error("more than 10 redirects")
        } else if !matches!(next.scheme(), "http" | "https") {
            attempt.error(format!("a redirect to a `{}:` URL", next.scheme()))
        } else if let Some(refused) = guard::literal_refusal(&next).filter(|_| !allow_private) {
            attempt.error(refused)
        } else {
            attempt.follow()
        }
    })
}

/// The async client of a call that owns its runtime (see `call`): the caller bounds each wait
/// with the call's deadline, so it has no timeout of its own past connecting.
pub(crate) fn async_client(
    opts: &FetchOptions,
    redirects: Arc<Mutex<Vec<String>>>,
) -> Result<reqwest::Client> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder()
        .user_agent(USER_AGENT)
        .redirect(redirect_policy(opts.allow_private, redirects))
        .connect_timeout(opts.connect_timeout);
    if !opts.allow_private {
        builder = builder
            .no_proxy()
            .dns_resolver(Arc::new(guard::GuardedResolver));
    }
    builder.build().map_err(|e| Error::Unavailable {
        what: "the HTTP client".into(),
        cause: e.to_string(),
    })
}

/// Maps a transport failure to the contract's codes, naming what was reached.
pub(crate) fn transport_error(url: &str, e: &reqwest::Error, opts: &FetchOptions) -> Error {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if let Some(refused) = s.downcast_ref::<guard::Refused>() {
            return refusal(url, refused);
        }
        source = s.source();
    }
    if e.is_timeout() {
        return Error::Timeout {
            what: format!("fetching `{url}`"),
            seconds: opts.timeout.as_secs_f64(),
        };
    }
    let mut cause = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        cause.push_str(": ");
        cause.push_str(&s.to_string());
        source = s.source();
    }
    Error::Unavailable {
        what: format!("`{url}`"),
        cause,
    }
}

fn download(
    store: &Store,
    url: &url::Url,
    format: Format,
    key: String,
    previous: Option<ArtifactMeta>,
    opts: &FetchOptions,
    progress: &mut dyn FnMut(u64, Option<u64>),
) -> Result<Fetched> {
    // A password in the URL is sent, never shown or stored (banner, list, database).
    let shown_url = redacted(url);
    let shown = shown_url.as_str();
    let redirects = Arc::new(Mutex::new(Vec::new()));
    // One deadline for the whole download and the call's cancel: what loses is dropped, which
    // closes the connection (the blocking client's timeout restarted on every read).
    let call = call::Call::new(opts)?;
    let http = call.client(opts, Arc::clone(&redirects))?;
    let mut request = http.get(url.clone());
    if let Some(prev) = previous.as_ref().and_then(|p| p.source.version.fetch()) {
        if let Some(etag) = &prev.etag {
            request = request.header(reqwest::header::IF_NONE_MATCH, etag);
        }
        if let Some(modified) = &prev.last_modified {
            request = request.header(reqwest::header::IF_MODIFIED_SINCE, modified);
        }
    }
    let fetched_at = clock::now_ms();
    let fetching = format!("fetching `{shown}`");
    let mut response = call.run(&fetching, async {
        request
            .send()
            .await
            .map_err(|e| transport_error(shown, &e, opts))
    })?;
    let status = response.status();
    if status == reqwest::StatusCode::NOT_MODIFIED
        && let Some(prev) = previous
    {
        let note = format!(
            "the page is unchanged since {} (HTTP 304 Not Modified); that copy is shown",
            prev.reference
        );
        return Ok(Fetched {
            meta: prev,
            notes: vec![note],
        });
    }
    let header = |name: reqwest::header::HeaderName| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let content_type = header(reqwest::header::CONTENT_TYPE).unwrap_or_default();
    let etag = header(reqwest::header::ETAG);
    let last_modified = header(reqwest::header::LAST_MODIFIED);
    let final_url = redacted(response.url());
    let total = response.content_length();
    let mut body = Vec::new();
    let mut truncated = false;
    let mut out_of_time = false;
    let mut last_report = 0u64;
    loop {
        let piece = call.run(&fetching, async {
            response.chunk().await.map_err(|e| Error::Unavailable {
                what: format!("`{shown}`"),
                cause: format!("the download broke after {} bytes: {e}", body.len()),
            })
        });
        let piece = match piece {
            Ok(Some(piece)) => piece,
            Ok(None) => break,
            // However slowly the bytes come, the download ends at its deadline with what came.
            Err(Error::Timeout { .. }) => {
                out_of_time = true;
                break;
            }
            Err(e) => return Err(e),
        };
        let n = piece.len();
        let room = opts.max_bytes.saturating_sub(body.len() as u64) as usize;
        body.extend_from_slice(&piece[..n.min(room)]);
        if n > room {
            truncated = true;
            break;
        }
        if body.len() as u64 >= last_report + (1 << 20) {
            last_report = body.len() as u64;
            progress(last_report, total);
        }
    }
    // The connection closes before the copy is converted and stored.
    drop(response);
    progress(body.len() as u64, total);
    let converted = convert::convert(&content_type, &body, format);
    let sha256 =
        Sha256::digest(&converted.bytes)
            .iter()
            .fold(String::with_capacity(64), |mut s, b| {
                use std::fmt::Write as _;
                let _ = write!(s, "{b:02x}");
                s
            });
    let mut notes: Vec<String> = converted.note.iter().cloned().collect();
    if let Some(prev) = &previous {
        if prev.source.version.fetch().map(|f| f.sha256.as_str()) == Some(sha256.as_str())
            && !truncated
            && !out_of_time
        {
            notes.push(format!(
                "the page is unchanged since {} (same sha256); that copy is shown",
                prev.reference
            ));
            return Ok(Fetched {
                meta: prev.clone(),
                notes,
            });
        }
        notes.push(format!(
            "the page changed since {} (fetched {}): this is a new version; the old one stays readable by its ref",
            prev.reference,
            clock::rfc3339(prev.created_at)
        ));
    }
    if !status.is_success() {
        notes.push(format!(
            "the server answered HTTP {status}; its body is what is stored"
        ));
    }
    let cleaned = converted.cleaned.as_ref();
    let mut version = FetchVersion {
        fetched_at: clock::rfc3339(fetched_at),
        final_url,
        status: status.as_u16(),
        content_type,
        etag,
        last_modified,
        sha256,
        format: converted.form.to_owned(),
        charset: converted.charset.map(str::to_owned),
        unseen_left_out: cleaned.map_or(0, |c| c.unseen as u64),
        main_content: cleaned.and_then(|c| c.main.map(str::to_owned)),
        main_text_percent: cleaned.and_then(|c| c.main.map(|_| c.main_percent)),
        bytes_downloaded: body.len() as u64,
        redirects: redirects.lock().map(|r| r.clone()).unwrap_or_default(),
        ..FetchVersion::default()
    };
    // What the copy holds of the page, said by every answer about it: the main content only
    // (the raw format holds the rest), the hidden parts kept and marked.
    let coverage = spool_core::envelope::Coverage {
        main_content: cleaned.and_then(|c| {
            c.main.map(|element| spool_core::envelope::MainContent {
                element: element.to_owned(),
                text_percent: c.main_percent,
            })
        }),
        hidden_kept: cleaned.map_or(0, |c| c.hidden_kept as u64),
        rest: Some(NextCall::Fetch(FetchParams::new(shown, FormatArg::Raw))),
        ..spool_core::envelope::Coverage::whole()
    };
    let mut new = NewArtifact::new(
        Source::new(shown, Version::Fetch(version.clone())).with_coverage(coverage),
    );
    new.dedup_key = Some(key);
    new.redo = Some(NextCall::Fetch(FetchParams {
        refresh: true,
        ..FetchParams::new(shown, format.into())
    }));
    let mut writer = store.create(new)?;
    writer.write(&converted.bytes);
    let (state, detail) = if truncated {
        (
            ArtifactState::Interrupted,
            Some(format!(
                "the download stopped at the {} cap ({} bytes reached{})",
                spool_core::render::human_bytes(opts.max_bytes),
                spool_core::render::thousands(body.len() as u64),
                total.map_or(String::new(), |t| format!(
                    " of {}",
                    spool_core::render::thousands(t)
                ))
            )),
        )
    } else if out_of_time {
        (
            ArtifactState::Interrupted,
            Some(format!(
                "the download took longer than the {} s allowed: {} bytes arrived{}",
                opts.timeout.as_secs_f64(),
                spool_core::render::thousands(body.len() as u64),
                total.map_or(String::new(), |t| format!(
                    " of {}",
                    spool_core::render::thousands(t)
                ))
            )),
        )
    } else {
        (ArtifactState::Complete, None)
    };
    version.timed_out = out_of_time;
    let meta = writer.finish(state, detail, Some(Version::Fetch(version)))?;
    Ok(Fetched { meta, notes })
}
