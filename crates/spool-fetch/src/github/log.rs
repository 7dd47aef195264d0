//! `ci_log`: one job's log of one attempt, stored once and read as a log (the tail), with the
//! attempt it pinned, the step that failed, and the calls to the other jobs and attempts.

use crate::CiLogParams;
use spool_core::answer::Answer;
use spool_core::calls::{ReadParams, Target};
use spool_core::envelope::{ArtifactState, CiVersion, NextCall, ReasonCode, Source, Version};
use spool_core::search::{Paging, Query, search_artifact};
use spool_core::store::NewArtifact;
use spool_core::window::{Alongside, WindowRequest};
use spool_core::{Cap, Error, Result, Store, clock};

use super::{Api, CiOptions, Job};

/// Tokens kept back when the job still runs: its answer is partial whatever it shows.
const RUNNING_RESERVE: u64 = 200;

/// `ci_log` as every front end answers it.
pub fn answer(store: &Store, p: &CiLogParams, opts: &CiOptions, cap: Cap) -> Result<Answer> {
    check_repo(&p.repo)?;
    if p.attempt == Some(0) {
        return Err(Error::invalid_words(
            "attempts are numbered from 1".into(),
            "ask for `attempt` 1 or later, or leave it out for the latest".into(),
        ));
    }
    let api = Api::new(opts)?;
    let run = api.run(&p.repo, p.run_id)?;
    let latest = run.latest_attempt.unwrap_or(1).max(1);
    let attempt = p.attempt.unwrap_or(latest);
    if attempt > latest {
        return Err(Error::Remote {
            code: spool_core::ErrorCode::NotFound,
            message: format!(
                "run {} of {} has {latest} attempt{}; there is no attempt {attempt}",
                p.run_id,
                p.repo,
                if latest == 1 { "" } else { "s" }
            ),
            hint: format!("ask for an attempt from 1 to {latest}, or leave it out for the latest"),
        });
    }
    let jobs = api.jobs(&p.repo, p.run_id, attempt)?;
    let job = pick(&jobs, p.job.as_deref(), &p.repo, p.run_id, attempt)?;
    let completed = job.status == "completed";
    let key = format!(
        "ci:{}:{}:{}:{attempt}:{}",
        api.base(),
        p.repo,
        p.run_id,
        job.id
    );
    let mut notes = Vec::new();
    // Only a finished job's log is final: a copy made while it ran is never reused.
    let stored = store.find_by_dedup(&key)?.filter(|m| {
        completed
            && m.state == ArtifactState::Complete
            && m.source
                .version
                .ci()
                .is_some_and(|v| v.status == "completed")
    });
    let meta = if let Some(meta) = stored {
        notes.push(format!(
            "this log was stored at {}; a finished job's log does not change, so it is read from that copy",
            clock::rfc3339(meta.created_at)
        ));
        meta
    } else {
        download(
            store,
            &api,
            p,
            &run,
            job,
            attempt,
            latest,
            completed.then_some(key),
        )?
    };
    notes.insert(0, pin_note(p, attempt, latest));
    if let Some(step) = job.failed_step() {
        notes.push(format!(
            "the step that failed: `{}` (step {})",
            step.name, step.number
        ));
    }
    // Opened first and held through the search: its lock keeps the copy (the maker's pin is
    // let go at the first open) until the window is made.
    let reader = store.open_artifact(&meta.reference)?;
    let errors = first_error(store, &meta.reference)?;
    if let Some((line, count)) = errors {
        notes.push(format!(
            "the log's first `##[error]` line is line {} ({} in all)",
            spool_core::render::thousands(line),
            spool_core::render::thousands(count)
        ));
    }
    notes.push(jobs_note(&jobs, job, attempt));
    if !completed {
        notes.push(format!(
            "the job is still running ({}): this is its log so far; call again for more",
            job.status
        ));
    }
    let calls = calls(p, &jobs, job, attempt, latest, errors, &meta.reference);
    let cap = if completed {
        cap
    } else {
        Cap {
            tokens: cap.tokens.saturating_sub(RUNNING_RESERVE),
            ..cap
        }
    };
    let made = Alongside::default()
        .with_notes(&notes)
        .with_calls(&calls)
        .window(&reader, WindowRequest::Preview(None), cap);
    let mut envelope = spool_core::window::or_bare(&reader, cap, made)?;
    if !completed {
        envelope.complete = false;
        envelope.reason = Some(spool_core::envelope::Reason {
            code: ReasonCode::UpstreamPartial,
            detail: format!("the job is still running ({})", job.status),
        });
        envelope.next.insert(0, again(p, attempt, Some(job)));
    }
    Ok(Answer::Envelope(Box::new(envelope)))
}

/// `owner/name`, each part of the characters GitHub allows.
fn check_repo(repo: &str) -> Result<()> {
    let ok = repo.split_once('/').is_some_and(|(o, n)| {
        let part = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                && s != "."
                && s != ".."
        };
        part(o) && part(n)
    });
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_words(
            format!("`{repo}` is not a repository (`owner/name`)").into(),
            "for example `rust-lang/rust`".into(),
        ))
    }
}

/// The job asked for (by id or name), or the first failed one, or the first.
fn pick<'j>(
    jobs: &'j [Job],
    asked: Option<&str>,
    repo: &str,
    run_id: u64,
    attempt: u64,
) -> Result<&'j Job> {
    let found = match asked {
        Some(a) => jobs
            .iter()
            .find(|j| a.parse::<u64>().ok() == Some(j.id))
            .or_else(|| jobs.iter().find(|j| j.name == a))
            .or_else(|| jobs.iter().find(|j| j.name.eq_ignore_ascii_case(a))),
        None => jobs.iter().find(|j| j.failed()).or_else(|| jobs.first()),
    };
    found.ok_or_else(|| {
        let names: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
        Error::Remote {
            code: spool_core::ErrorCode::NotFound,
            message: match asked {
                Some(a) => format!("attempt {attempt} of run {run_id} of {repo} has no job `{a}`"),
                None => format!("attempt {attempt} of run {run_id} of {repo} has no jobs"),
            },
            hint: if names.is_empty() {
                "the run may not have started its jobs yet; call again later".to_owned()
            } else {
                format!("its jobs: {}", names.join(", "))
            },
        }
    })
}

/// Downloads and stores one job's log, pinned to its attempt.
#[expect(clippy::too_many_arguments, reason = "the pin of one log, told once")]
fn download(
    store: &Store,
    api: &Api<'_>,
    p: &CiLogParams,
    run: &super::Run,
    job: &Job,
    attempt: u64,
    latest: u64,
    key: Option<String>,
) -> Result<spool_core::store::ArtifactMeta> {
    let fetched_at = clock::now_ms();
    let mut response = api.log(&p.repo, job)?;
    let version = CiVersion {
        repo: p.repo.clone(),
        run_id: p.run_id,
        attempt,
        job_id: job.id,
        job: job.name.clone(),
        head_sha: run.head_sha.clone(),
        conclusion: job.conclusion.clone(),
        fetched_at: clock::rfc3339(fetched_at),
        status: job.status.clone(),
        latest_attempt: latest,
        failed_step: job.failed_step().map(|s| s.name.clone()),
        api: api.base().to_owned(),
        ..CiVersion::default()
    };
    let desc = format!(
        "ci log {} run {} attempt {attempt} job {}{}",
        p.repo,
        p.run_id,
        job.name,
        run.name
            .as_deref()
            .map_or(String::new(), |n| format!(" ({n})"))
    );
    let mut new = NewArtifact::new(Source::new(desc, Version::Ci(version)));
    new.dedup_key = key;
    new.redo = Some(again(p, attempt, Some(job)));
    let mut writer = store.create(new)?;
    let max = api.opts.fetch.max_bytes;
    let mut got = 0u64;
    let mut broke = None;
    let mut cancelled = false;
    let what = format!("the log of job `{}` ({})", job.name, job.id);
    // A step that prints the token (`echo $GITHUB_TOKEN`, a `Basic` header in a curl trace) is
    // stored with it withheld, in every encoding the scrubber knows.
    let mut scrub = api.scrubber();
    let stream = spool_core::store::Stream::Stdout;
    // Every piece within the call's one deadline, however slowly they come.
    loop {
        match api.chunk(&mut response, &what) {
            Ok(None) => break,
            Ok(Some(piece)) => {
                let n = piece.len();
                let room = max.saturating_sub(got) as usize;
                writer.write(&scrub.pass(stream, &piece[..n.min(room)]));
                got += n.min(room) as u64;
                if n > room {
                    broke = Some(format!(
                        "the log passed the {} cap",
                        spool_core::render::human_bytes(max)
                    ));
                    break;
                }
            }
            Err(_) if api.is_cancelled() => {
                cancelled = true;
                broke = Some(format!("the call was cancelled: {got} bytes arrived"));
                break;
            }
            Err(Error::Timeout { .. }) => {
                broke = Some(format!(
                    "the call took longer than the {} s allowed: {got} bytes of the log arrived",
                    api.opts.fetch.timeout.as_secs_f64()
                ));
                break;
            }
            Err(e) => {
                broke = Some(format!("the download broke after {got} bytes: {e}"));
                break;
            }
        }
    }
    writer.write(&scrub.finish(stream));
    // The connection closes before the copy is sealed.
    drop(response);
    let (state, detail) = match broke {
        Some(why) if cancelled => (ArtifactState::Cancelled, Some(why)),
        Some(why) => (ArtifactState::Interrupted, Some(why)),
        None => (ArtifactState::Complete, None),
    };
    writer.finish(state, detail, None)
}

/// Which attempt this is, and whether it is the latest.
fn pin_note(p: &CiLogParams, attempt: u64, latest: u64) -> String {
    let asked = if p.attempt.is_some() {
        "as asked"
    } else {
        "the latest, read first and pinned"
    };
    if attempt == latest && latest > 1 {
        format!(
            "attempt {attempt} of {latest} of run {} ({asked}); reading on stays on this attempt; earlier attempts exist (1 to {})",
            p.run_id,
            latest - 1
        )
    } else if attempt == latest {
        format!(
            "attempt {attempt} of {latest} of run {} ({asked}); reading on stays on this attempt",
            p.run_id
        )
    } else {
        format!(
            "attempt {attempt} of {latest} of run {} ({asked}); a later attempt exists (attempt {latest} is the latest)",
            p.run_id
        )
    }
}

/// The attempt's jobs: failed first, each with how it ended.
fn jobs_note(jobs: &[Job], shown: &Job, attempt: u64) -> String {
    let mut ordered: Vec<&Job> = jobs.iter().filter(|j| j.failed()).collect();
    ordered.extend(jobs.iter().filter(|j| !j.failed()));
    // A workflow names its jobs: each name is cut, and so is the list (the calls name them).
    let mut list: Vec<String> = ordered
        .iter()
        .take(LISTED_JOBS)
        .map(|j| {
            let how = j.conclusion.as_deref().unwrap_or(j.status.as_str());
            let name = spool_core::clip::clipped(j.name.clone(), NAME_CHARS);
            if j.id == shown.id {
                format!("{name} ({how}; this log)")
            } else {
                format!("{name} ({how})")
            }
        })
        .collect();
    if ordered.len() > LISTED_JOBS {
        list.push(format!("and {} more", ordered.len() - LISTED_JOBS));
    }
    format!(
        "attempt {attempt} has {} job{}: {}",
        jobs.len(),
        if jobs.len() == 1 { "" } else { "s" },
        list.join(", ")
    )
}

/// The first `##[error]` line of the stored log, and how many there are.
fn first_error(store: &Store, reference: &str) -> Result<Option<(u64, u64)>> {
    let query = Query {
        pattern: "##[error]".into(),
        literal: true,
        case_insensitive: false,
        words: None,
    };
    let paging = Paging {
        limit: Some(1),
        ..Paging::default()
    };
    let hits = search_artifact(store, reference, &query, &paging)?;
    Ok(hits.hits.first().map(|h| (h.line, hits.hit_count)))
}

/// The same call again, pinned to `attempt` (and to `job`, when given).
fn again(p: &CiLogParams, attempt: u64, job: Option<&Job>) -> NextCall {
    NextCall::CiLog(CiLogParams {
        repo: p.repo.clone(),
        run_id: p.run_id,
        attempt: Some(attempt),
        // A name too long to repeat is asked for by its id, which works as well.
        job: job.map(|job| {
            if job.name.chars().count() > NAME_CHARS {
                job.id.to_string()
            } else {
                job.name.clone()
            }
        }),
        max_tokens: None,
    })
}

/// The most jobs an answer lists by name.
const LISTED_JOBS: usize = 20;

/// The most chars of a job's name an answer shows.
const NAME_CHARS: usize = 100;

/// The calls a reader goes on with: the first error in context, the attempt's other jobs
/// (failed first), and the other attempts.
fn calls(
    p: &CiLogParams,
    jobs: &[Job],
    shown: &Job,
    attempt: u64,
    latest: u64,
    errors: Option<(u64, u64)>,
    reference: &str,
) -> Vec<NextCall> {
    let mut out = Vec::new();
    if let Some((line, _)) = errors {
        out.push(NextCall::Read(ReadParams::lines(
            Target::reference(reference),
            line.saturating_sub(20).max(1),
            Some(40),
        )));
    }
    let mut others: Vec<&Job> = jobs
        .iter()
        .filter(|j| j.id != shown.id && j.failed())
        .collect();
    others.extend(jobs.iter().filter(|j| j.id != shown.id && !j.failed()));
    for j in others.into_iter().take(5) {
        out.push(again(p, attempt, Some(j)));
    }
    for a in (1..=latest).rev().filter(|a| *a != attempt).take(3) {
        out.push(again(p, a, None));
    }
    out
}
