//! The files of a walk read on several threads and handed back in path order. A directory
//! search is mostly opening and reading many small files: on one thread it left the other
//! cores idle (0.3x ripgrep's time on a 20,000-file repository). Workers read the small files
//! and hold each file's answer until its turn; a large file is read by the caller when its
//! turn comes, streaming, so what is held at once stays small.

use std::collections::BTreeMap;
use std::fs::File;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::walk::{Candidate, Counts, Opener, Seen, Skip, Walked, open_candidate};
use crate::error::Result;
use crate::roots::Roots;

/// Files at most this large are read by a worker, their answer held until their turn (its
/// size is bounded by the reader: a directory search holds at most 256 KiB of hits per file).
/// At 1 MiB, the 24 larger files of a 20,000-file repository were read by the caller while
/// the workers waited.
const WORKER_BYTES: u64 = 64 << 20;
/// Files a worker takes at once: one message per batch, not per file (a message per file
/// woke the caller for each, and the wake-ups cost more than the parallel reads saved).
const BATCH: usize = 32;
/// How far ahead of the caller's turn a worker may start a file: answers held at once stay
/// few even when one file takes long.
const AHEAD: usize = 256;

/// One file's answer, with its size and time when found.
type Answer<T> = (Outcome<T>, Option<Seen>);
/// A batch of answers, by the index of its first file.
type Batches<T> = mpsc::Receiver<(usize, Vec<Answer<T>>)>;

/// What a parallel read of the files did: the counts, the last file looked at when time ran
/// out, and each file's size and time as found when it was opened (`None`: not looked at, or
/// not found), by walk index.
pub struct Searched {
    pub counts: Counts,
    pub timed_out: Option<String>,
    pub seen: Vec<Option<Seen>>,
}

enum Outcome<T> {
    Read(T),
    Left(Skip),
    /// Too large for a worker: the caller reads it in its turn.
    Large,
}

/// What a worker made of a file.
pub enum Worked<T> {
    Answer(T),
    /// Its answer is too large to hold: the caller reads it again in its turn, with `large`.
    InTurn,
}

/// What reads the files: `state` makes each worker's own tools (a searcher); `work` reads a
/// small file on a worker into an answer; `take` receives
/// each answer in path order and says whether the file was read whole; `large` reads a large
/// file on the calling thread, in its turn, and says the same.
pub struct Readers<St, W, Ta, L> {
    pub state: St,
    pub work: W,
    pub take: Ta,
    pub large: L,
}

/// As [`super::walk::each_file`], on up to four threads: every walked file looked at in path
/// order, files over `max_bytes` and binary ones counted and left out; once `budget` has
/// passed no new file is started, and the last file looked at is returned.
pub fn each_file<S, T, St, W, Ta, L>(
    walked: &Walked,
    roots: &Roots,
    max_bytes: u64,
    budget: Duration,
    mut readers: Readers<St, W, Ta, L>,
) -> Result<Searched>
where
    T: Send,
    St: Fn() -> S + Sync,
    W: Fn(&mut S, &Candidate, &File, &[u8]) -> Worked<T> + Sync,
    Ta: FnMut(&Candidate, T) -> Result<bool>,
    L: FnMut(&Candidate, &File, &[u8]) -> Result<bool>,
{
    let started = Instant::now();
    let files = &walked.files;
    let next = AtomicUsize::new(0);
    let turn = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let threads = crate::cores::threads(4);
    let (state, work) = (&readers.state, &readers.work);
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::sync_channel::<(usize, Vec<Answer<T>>)>(threads * 2);
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, turn, stop) = (&next, &turn, &stop);
            scope.spawn(move || {
                let mut own = state();
                let mut beneath = Opener::new(roots);
                while !stop.load(Ordering::Relaxed) {
                    let first = next.fetch_add(BATCH, Ordering::Relaxed);
                    if first >= files.len() {
                        break;
                    }
                    while first >= turn.load(Ordering::Relaxed) + AHEAD
                        && !stop.load(Ordering::Relaxed)
                    {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    let mut batch = Vec::with_capacity(BATCH);
                    for (i, file) in files.iter().enumerate().skip(first).take(BATCH) {
                        if i > 0 && started.elapsed() >= budget {
                            // Not looked at: the caller stops before it.
                            stop.store(true, Ordering::Relaxed);
                            break;
                        }
                        let large = |len: u64| len <= max_bytes && len > WORKER_BYTES;
                        batch.push(if file.len.is_some_and(large) {
                            (Outcome::Large, None)
                        } else {
                            match open_candidate(file, &mut beneath, max_bytes) {
                                // Its size found on opening: the caller reads it in its turn.
                                Ok(opened) if large(opened.seen.len) => {
                                    (Outcome::Large, Some(opened.seen))
                                }
                                Ok(opened) => {
                                    let worked = work(&mut own, file, &opened.file, opened.head());
                                    let seen = opened.seen;
                                    opened.done(&mut beneath);
                                    match worked {
                                        Worked::Answer(answer) => {
                                            (Outcome::Read(answer), Some(seen))
                                        }
                                        // Its size and time are taken again when it is opened
                                        // again: what is stated is what was read.
                                        Worked::InTurn => (Outcome::Large, None),
                                    }
                                }
                                Err((why, seen)) => (Outcome::Left(why), seen),
                            }
                        });
                    }
                    if tx.send((first, batch)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let answer = in_order(
            files,
            roots,
            max_bytes,
            (&rx, &turn),
            &mut readers.take,
            &mut readers.large,
        );
        // An error ends the walk: workers stop at their next file.
        stop.store(true, Ordering::Relaxed);
        drop(rx);
        answer
    })
}

/// Takes the workers' answers in path order until they stop.
fn in_order<T>(
    files: &[Candidate],
    roots: &Roots,
    max_bytes: u64,
    (rx, shared_turn): (&Batches<T>, &AtomicUsize),
    take: &mut impl FnMut(&Candidate, T) -> Result<bool>,
    large: &mut impl FnMut(&Candidate, &File, &[u8]) -> Result<bool>,
) -> Result<Searched> {
    let mut n = Counts::default();
    let mut seen_all: Vec<Option<Seen>> = vec![None; files.len()];
    let mut beneath = Opener::new(roots);
    let mut waiting: BTreeMap<usize, Vec<Answer<T>>> = BTreeMap::new();
    let mut turn = 0usize;
    'answers: for (first, batch) in rx {
        waiting.insert(first, batch);
        while let Some(batch) = waiting.remove(&turn) {
            let whole = batch.len() == BATCH;
            for (outcome, mut seen) in batch {
                let file = &files[turn];
                let read = match outcome {
                    Outcome::Left(why) => {
                        n.count(why);
                        None
                    }
                    Outcome::Read(answer) => Some(take(file, answer)?),
                    Outcome::Large => match open_candidate(file, &mut beneath, max_bytes) {
                        Ok(opened) => {
                            seen = Some(opened.seen);
                            let whole = large(file, &opened.file, opened.head())?;
                            opened.done(&mut beneath);
                            Some(whole)
                        }
                        Err((why, found)) => {
                            seen = found;
                            n.count(why);
                            None
                        }
                    },
                };
                seen_all[turn] = seen;
                match read {
                    Some(true) => n.searched += 1,
                    Some(false) => n.unreadable += 1,
                    None => {}
                }
                turn += 1;
            }
            shared_turn.store(turn, Ordering::Relaxed);
            if !whole && turn < files.len() {
                // Time ran out inside this batch: nothing after it counts.
                break 'answers;
            }
        }
    }
    // Every file handed out has answered: the ones after `turn` were never started.
    let timed_out = (turn < files.len()).then(|| {
        turn.checked_sub(1)
            .map_or_else(String::new, |last| files[last].rel.clone())
    });
    Ok(Searched {
        counts: n,
        timed_out,
        seen: seen_all,
    })
}
