//! Reading a tree's code: each walked file with a grammar opened beneath its root and read
//! whole (up to [`MAX_FILE_BYTES`]), its tags taken from the parse cache or parsed by a worker
//! thread while the walk reads on, until the map's deadline. The tags are numbered as they
//! arrive ([`Lean`]), so a large tree's names are held once.

use std::cell::RefCell;
use std::io::Read as _;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use spool_core::{Result, Store};
use spool_walk::roots::Roots;
use spool_walk::walk::{self, Skip, Walked};

use crate::cache::{self, Cache};
use crate::lang::Lang;
use crate::lean::{Lean, Names};
use crate::tags::{self, FileTags, ParseFailure};
use crate::text::Why;

/// Files larger than this are not parsed (counted as too large): generated code, vendored
/// bundles. A map is of what people wrote.
pub const MAX_FILE_BYTES: u64 = 1 << 20;
/// One file's parse may take this long; past it the file is unparsable.
const PER_FILE: Duration = Duration::from_secs(2);

/// What became of one file the walk found.
pub enum Outcome {
    Mapped(Lean),
    Listed(Why),
}

/// What reading the tree gave: each walked file's outcome, and how many files were parsed (the
/// others' tags came from the cache).
pub struct Read {
    pub outcomes: Vec<Outcome>,
    pub parsed: u64,
}

/// A file to parse, handed to a worker.
struct Job {
    index: usize,
    lang: Lang,
    key: String,
    content: Vec<u8>,
}

type Parsed = (usize, String, std::result::Result<FileTags, ParseFailure>);

/// What the reading thread gathers, as files are read and parsed.
struct Gather<'a> {
    outcomes: Vec<Option<Outcome>>,
    names: &'a mut Names,
    cache: Option<Cache>,
    parsed: u64,
    deadline: Instant,
    /// Parsed tags not yet in the cache, and the first failure to keep some.
    unsaved: Vec<(String, Vec<u8>)>,
    unsaved_error: Option<String>,
}

/// Parsed files are kept in the cache this many at a time.
const SAVE_EVERY: usize = 256;

impl Gather<'_> {
    /// Keeps the tags parsed since the last save; a failure is counted and said once, at the end.
    fn save(&mut self) {
        if let Some(cache) = &self.cache
            && !self.unsaved.is_empty()
            && let Err(e) = cache.put_many(&self.unsaved)
        {
            self.unsaved_error.get_or_insert(e.to_string());
        }
        self.unsaved.clear();
    }

    fn set(&mut self, index: usize, outcome: Outcome) {
        self.outcomes[index] = Some(outcome);
    }

    fn mapped(&mut self, index: usize, tags: FileTags) {
        let lean = Lean::of(tags, self.names);
        self.set(index, Outcome::Mapped(lean));
    }

    /// A worker's answer: kept for the cache and numbered, or why the file is not mapped.
    fn settle(&mut self, (index, key, outcome): Parsed) {
        match outcome {
            Ok(tags) => {
                self.parsed += 1;
                if self.cache.is_some() {
                    self.unsaved.push((key, cache::encode(&tags)));
                    if self.unsaved.len() >= SAVE_EVERY {
                        self.save();
                    }
                }
                self.mapped(index, tags);
            }
            // Past the map's deadline it was not parsed; within it, its own time ran out.
            Err(ParseFailure::TimedOut) if Instant::now() >= self.deadline => {
                self.set(index, Outcome::Listed(Why::NotParsed));
            }
            Err(_) => {
                self.parsed += 1;
                self.set(index, Outcome::Listed(Why::Unparsable));
            }
        }
    }
}

/// Reads every walked file with a grammar beneath its root until `deadline`; the names of its
/// tags go into `names`.
pub fn read_and_parse(
    store: &Store,
    roots: &Roots,
    walked: &Walked,
    deadline: Instant,
    names: &mut Names,
) -> Result<Read> {
    let cache = Cache::open(store.root())
        .inspect_err(|e| tracing::warn!(error = %e, "mapping without the parse cache"))
        .ok();
    // Each file's grammar, by its place in the walk.
    let langs: Vec<Option<Lang>> = walked.files.iter().map(|f| Lang::of(&f.path)).collect();
    let outcomes = langs
        .iter()
        .map(|lang| lang.is_none().then_some(Outcome::Listed(Why::NoGrammar)))
        .collect();
    let code = Walked::new(
        walked
            .files
            .iter()
            .filter(|f| langs[f.index].is_some())
            .map(|f| walk::Candidate {
                path: f.path.clone(),
                rel: f.rel.clone(),
                len: f.len,
                index: f.index,
            })
            .collect(),
        walked.digest.clone(),
    );
    let gather = RefCell::new(Gather {
        outcomes,
        names,
        cache,
        parsed: 0,
        deadline,
        unsaved: Vec::new(),
        unsaved_error: None,
    });
    let workers = spool_walk::workers::count(8);
    let (job_tx, job_rx) = mpsc::sync_channel::<Job>(workers * 4);
    let job_rx = Arc::new(Mutex::new(job_rx));
    let (done_tx, done_rx) = mpsc::channel::<Parsed>();
    std::thread::scope(|s| {
        let mut parsers = 0;
        for _ in 0..workers {
            let jobs = Arc::clone(&job_rx);
            let done = done_tx.clone();
            let spawned = spool_walk::workers::spawn_scoped(s, "parse", move || {
                parse_jobs(&jobs, &done, deadline);
            });
            match spawned {
                Ok(_) => parsers += 1,
                // The walk would wait for a parser that never comes.
                Err(e) if parsers == 0 => {
                    return Err(spool_core::Error::no_thread("parsing the files", &e));
                }
                Err(_) => break,
            }
        }
        drop(done_tx);
        let budget = deadline.saturating_duration_since(Instant::now());
        let walked_all = walk::each_file::<spool_core::Error>(
            &code,
            roots,
            MAX_FILE_BYTES,
            budget,
            |file, opened, _| {
                let index = file.index;
                let Some(lang) = langs[index] else {
                    return Ok(false);
                };
                let mut content = Vec::with_capacity(file.len.unwrap_or(0) as usize);
                if opened
                    .take(MAX_FILE_BYTES + 1)
                    .read_to_end(&mut content)
                    .is_err()
                {
                    return Ok(false);
                }
                let mut g = gather.borrow_mut();
                // What the workers have done so far is numbered now: their tags are not held.
                while let Ok(done) = done_rx.try_recv() {
                    g.settle(done);
                }
                if content.len() as u64 > MAX_FILE_BYTES {
                    // It grew past the limit since the walk.
                    g.set(index, Outcome::Listed(Why::TooLarge(content.len() as u64)));
                    return Ok(true);
                }
                if content.contains(&0) {
                    g.set(index, Outcome::Listed(Why::Binary));
                    return Ok(true);
                }
                let key = cache::key(lang, &content);
                if let Some(tags) = g.cache.as_ref().and_then(|c| c.get(&key).ok().flatten()) {
                    g.mapped(index, tags);
                    return Ok(true);
                }
                drop(g);
                // Blocks while the workers are behind: reading waits for parsing.
                let _ = job_tx.send(Job {
                    index,
                    lang,
                    key,
                    content,
                });
                Ok(true)
            },
            |file, skip| {
                gather.borrow_mut().set(
                    file.index,
                    Outcome::Listed(match skip {
                        Skip::TooLarge => Why::TooLarge(file.len.unwrap_or(0)),
                        Skip::Binary => Why::Binary,
                        // A map reads a file whole, lines of any length: `each_file` says
                        // only what it could not open or read.
                        Skip::Unreadable | Skip::LongLines => Why::Unreadable,
                    }),
                );
            },
        );
        drop(job_tx);
        for done in &done_rx {
            gather.borrow_mut().settle(done);
        }
        walked_all.map(|_| ())
    })?;
    let mut g = gather.into_inner();
    g.save();
    if let Some(cache) = &g.cache
        && let Err(e) = cache.trim()
    {
        g.unsaved_error.get_or_insert(e.to_string());
    }
    if let Some(e) = &g.unsaved_error {
        // The map is whole; the next one parses again what was not kept.
        tracing::warn!(error = %e, "the parse cache did not keep every file's tags");
    }
    // What the walk did not reach before the deadline was not parsed.
    let outcomes = g
        .outcomes
        .into_iter()
        .map(|o| o.unwrap_or(Outcome::Listed(Why::NotParsed)))
        .collect();
    Ok(Read {
        outcomes,
        parsed: g.parsed,
    })
}

/// A worker: parses the jobs it is handed until there are no more, giving up on each at the
/// map's deadline (or after [`PER_FILE`]).
fn parse_jobs(jobs: &Mutex<mpsc::Receiver<Job>>, done: &mpsc::Sender<Parsed>, deadline: Instant) {
    loop {
        let job = {
            let Ok(rx) = jobs.lock() else { return };
            rx.recv()
        };
        let Ok(job) = job else { return };
        let now = Instant::now();
        let outcome = if now >= deadline {
            Err(ParseFailure::TimedOut)
        } else {
            tags::extract(job.lang, &job.content, deadline.min(now + PER_FILE))
        };
        if done.send((job.index, job.key, outcome)).is_err() {
            return;
        }
    }
}
