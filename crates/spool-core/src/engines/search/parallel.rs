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

use crate::error::Result;
use spool_walk::roots::Roots;
use spool_walk::walk::{self, Candidate, Counts, Opener, Seen, Skip, Walked, open_candidate};

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
    /// Its answer, and how many bytes it holds.
    Answer(T, usize),
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

/// Answers found while the walk went on, by walk index (`None`: not read yet).
pub struct PreRead<T>(Vec<Option<Answer<(T, usize)>>>);

impl<T> PreRead<T> {
    /// Nothing read yet, of `files` files.
    pub fn none(files: usize) -> Self {
        Self(std::iter::repeat_with(|| None).take(files).collect())
    }
}

/// Walks `dir` (see [`walk::walk_visiting`]) and reads the files with `work` as the walk finds
/// them, on the walking threads: the reading does not wait for the walk to end (it read
/// nothing for the 80 ms a 20,000-file repository takes to walk). The answers are held for
/// [`read_in_order`], at most `held_most` bytes of them (see [`HELD_WHILE_WALKING`]); the files past that, the
/// large ones, and the ones found once `budget` has passed are read there, in turn.
pub fn walk_reading<S, T, St, W>(
    dir: &std::path::Path,
    filter: &walk::Filter<'_>,
    (roots, max_bytes, budget, held_most): (&Roots, u64, Duration, usize),
    state: &St,
    work: &W,
) -> Result<(Walked, PreRead<T>, spool_walk::left_out::LeftOut)>
where
    S: Send,
    T: Send,
    St: Fn() -> S + Sync,
    W: Fn(&mut S, &Candidate, &File, &[u8]) -> Worked<T> + Sync,
{
    let started = Instant::now();
    let held = AtomicUsize::new(0);
    let (walked, pre, left) = walk::walk_visiting(dir, filter, &|| {
        let mut own = state();
        let mut beneath = Opener::new(roots);
        let held = &held;
        move |file: &Candidate| {
            if started.elapsed() >= budget || held.load(Ordering::Relaxed) >= held_most {
                return None;
            }
            let answer = read_one(file, (&mut own, &mut beneath), max_bytes, work);
            if let (Outcome::Read((_, size)), _) = &answer {
                held.fetch_add(*size, Ordering::Relaxed);
            }
            Some(answer)
        }
    })?;
    Ok((walked, PreRead(pre), left))
}

/// At most this many bytes of answers are held while the walk goes on (what a search of a
/// 20,000-file repository for a common word finds is a few MiB).
pub const HELD_WHILE_WALKING: usize = 64 << 20;

/// One file read by a worker: opened beneath its root, left out, or handed to `work`.
fn read_one<S, T>(
    file: &Candidate,
    (own, beneath): (&mut S, &mut Opener<'_>),
    max_bytes: u64,
    work: &impl Fn(&mut S, &Candidate, &File, &[u8]) -> Worked<T>,
) -> Answer<(T, usize)> {
    let large = |len: u64| len <= max_bytes && len > WORKER_BYTES;
    if file.len.is_some_and(large) {
        return (Outcome::Large, None);
    }
    match open_candidate(file, beneath, max_bytes) {
        // Its size found on opening: the caller reads it in its turn.
        Ok(opened) if large(opened.seen.len) => (Outcome::Large, Some(opened.seen)),
        Ok(opened) => {
            let worked = work(own, file, &opened.file, opened.head());
            let seen = opened.seen;
            opened.done(beneath);
            match worked {
                Worked::Answer(answer, size) => (Outcome::Read((answer, size)), Some(seen)),
                // Its size and time are taken again when it is opened again: what is
                // stated is what was read.
                Worked::InTurn => (Outcome::Large, None),
            }
        }
        Err((why, seen)) => (Outcome::Left(why), seen),
    }
}

/// As [`super::walk::each_file`], on up to four threads: every walked file looked at in path
/// order (its answer taken from `pre` when it was read during the walk), files over
/// `max_bytes` and binary ones counted and left out; once `budget` has passed no new file is
/// started, and the last file looked at is returned.
pub fn read_in_order<S, T, St, W, Ta, L>(
    walked: &Walked,
    PreRead(pre): PreRead<T>,
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
    // The files still to read, by walk index.
    let todo: Vec<usize> = pre
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.is_none().then_some(i))
        .collect();
    let next = AtomicUsize::new(0);
    let turn = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let threads = spool_walk::workers::count(4).min(todo.len().div_ceil(BATCH));
    let (state, work, todo) = (&readers.state, &readers.work, &todo[..]);
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::sync_channel::<(usize, Vec<Answer<(T, usize)>>)>(threads * 2);
        let mut readers_started = 0;
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, turn, stop) = (&next, &turn, &stop);
            let spawned = spool_walk::workers::spawn_scoped(scope, "read", move || {
                let mut own = state();
                let mut beneath = Opener::new(roots);
                while !stop.load(Ordering::Relaxed) {
                    let first = next.fetch_add(BATCH, Ordering::Relaxed);
                    if first >= todo.len() {
                        break;
                    }
                    while first >= turn.load(Ordering::Relaxed) + AHEAD
                        && !stop.load(Ordering::Relaxed)
                    {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    let mut batch = Vec::with_capacity(BATCH);
                    for (at, &i) in todo.iter().enumerate().skip(first).take(BATCH) {
                        if at > 0 && started.elapsed() >= budget {
                            // Not looked at: the caller stops before it.
                            stop.store(true, Ordering::Relaxed);
                            break;
                        }
                        batch.push(read_one(
                            &files[i],
                            (&mut own, &mut beneath),
                            max_bytes,
                            work,
                        ));
                    }
                    if tx.send((first, batch)).is_err() {
                        break;
                    }
                }
            });
            match spawned {
                Ok(_) => readers_started += 1,
                // Files no reader takes would be counted as left for lack of time: a claim
                // that would be false. Without a reader the search is not answered.
                Err(e) if readers_started == 0 => {
                    return Err(crate::Error::no_thread("reading the files", &e));
                }
                Err(_) => break,
            }
        }
        drop(tx);
        let answer = in_order(
            files,
            pre,
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

/// The workers' answers for the files still to read, one at a time in path order.
struct FromWorkers<'a, T> {
    rx: &'a Batches<(T, usize)>,
    /// Batches come in any order: the ones ahead of their turn, by the position of their first
    /// file among the files to read.
    waiting: BTreeMap<usize, Vec<Answer<(T, usize)>>>,
    batch: std::vec::IntoIter<Answer<(T, usize)>>,
    /// The current batch had all its files (a shorter one stopped when time ran out).
    whole: bool,
    /// How many answers were taken.
    taken: usize,
}

impl<T> FromWorkers<'_, T> {
    /// The next file's answer; `None` when it was never read (time ran out before it).
    fn next(&mut self) -> Option<Answer<(T, usize)>> {
        if let Some(answer) = self.batch.next() {
            self.taken += 1;
            return Some(answer);
        }
        if !self.whole {
            return None;
        }
        let batch = loop {
            if let Some(batch) = self.waiting.remove(&self.taken) {
                break batch;
            }
            let (first, batch) = self.rx.recv().ok()?;
            self.waiting.insert(first, batch);
        };
        self.whole = batch.len() == BATCH;
        self.batch = batch.into_iter();
        let answer = self.batch.next()?;
        self.taken += 1;
        Some(answer)
    }
}

/// Takes every file's answer in path order, the ones read already from `pre` and the others
/// from the workers, until time ran out.
fn in_order<T>(
    files: &[Candidate],
    mut pre: Vec<Option<Answer<(T, usize)>>>,
    roots: &Roots,
    max_bytes: u64,
    (rx, shared_turn): (&Batches<(T, usize)>, &AtomicUsize),
    take: &mut impl FnMut(&Candidate, T) -> Result<bool>,
    large: &mut impl FnMut(&Candidate, &File, &[u8]) -> Result<bool>,
) -> Result<Searched> {
    let mut n = Counts::default();
    let mut seen_all: Vec<Option<Seen>> = vec![None; files.len()];
    let mut beneath = Opener::new(roots);
    let mut workers = FromWorkers {
        rx,
        waiting: BTreeMap::new(),
        batch: Vec::new().into_iter(),
        whole: true,
        taken: 0,
    };
    let mut turn = 0usize;
    while turn < files.len() {
        let answer = match pre[turn].take() {
            Some(answer) => answer,
            None => match workers.next() {
                Some(answer) => {
                    shared_turn.store(workers.taken, Ordering::Relaxed);
                    answer
                }
                // Time ran out: nothing from here on counts.
                None => break,
            },
        };
        let (outcome, mut seen) = answer;
        let file = &files[turn];
        let read = match outcome {
            Outcome::Left(why) => {
                n.count_file(&file.rel, why);
                None
            }
            Outcome::Read((answer, _)) => Some(take(file, answer)?),
            Outcome::Large => match open_candidate(file, &mut beneath, max_bytes) {
                Ok(opened) => {
                    seen = Some(opened.seen);
                    let whole = large(file, &opened.file, opened.head())?;
                    opened.done(&mut beneath);
                    Some(whole)
                }
                Err((why, found)) => {
                    seen = found;
                    n.count_file(&file.rel, why);
                    None
                }
            },
        };
        seen_all[turn] = seen;
        match read {
            Some(true) => n.searched += 1,
            // Not read whole: a line longer than the search holds (regression, issue 57: a
            // 34 MiB one-line JSON file was "unreadable", yet a search of it alone finds its
            // hit), or a read that failed.
            Some(false) => {
                let why = if has_long_line(file, &mut beneath) {
                    Skip::LongLines
                } else {
                    Skip::Unreadable
                };
                n.count_file(&file.rel, why);
            }
            None => {}
        }
        turn += 1;
    }
    // Every file before `turn` was looked at; the ones after it were never started, or their
    // answers are not counted.
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

/// Whether `file`, opened again beneath its root, holds a line longer than a search holds at
/// once ([`super::FILE_LINE_HEAP`]). Asked only of a file not read whole, which is rare: its
/// second read costs nothing on the common path.
fn has_long_line(file: &Candidate, beneath: &mut Opener<'_>) -> bool {
    use std::io::Read as _;
    let Ok(opened) = open_candidate(file, beneath, u64::MAX) else {
        return false;
    };
    let mut reader = spool_walk::walk::ReadFrom {
        file: &opened.file,
        at: 0,
    };
    let mut buf = vec![0u8; 1 << 20];
    let mut since_newline = 0usize;
    let long = loop {
        let n = match reader.read(&mut buf) {
            Ok(0) | Err(_) => break false,
            Ok(n) => n,
        };
        let piece = &buf[..n];
        match memchr::memrchr(b'\n', piece) {
            Some(last) => {
                let first = memchr::memchr(b'\n', piece).unwrap_or(last);
                if since_newline + first > super::FILE_LINE_HEAP
                    || longest_inner(&piece[first..=last]) > super::FILE_LINE_HEAP
                {
                    break true;
                }
                since_newline = n - last - 1;
            }
            None => since_newline += n,
        }
        if since_newline > super::FILE_LINE_HEAP {
            break true;
        }
    };
    opened.done(beneath);
    long
}

/// The longest run between two newlines in `piece` (which starts and ends with one).
fn longest_inner(piece: &[u8]) -> usize {
    let mut longest = 0;
    let mut at = 0;
    for nl in memchr::memchr_iter(b'\n', piece) {
        longest = longest.max(nl - at);
        at = nl + 1;
    }
    longest
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a read of every file gave, in the order taken: (path, first line, searched whole).
    fn read_all(dir: &std::path::Path, held_most: Option<usize>) -> (Vec<(String, String)>, u64) {
        let roots = Roots::new(&[dir.to_owned()]).unwrap();
        let state = || ();
        let work = |(): &mut (), _: &Candidate, _: &File, head: &[u8]| {
            let line = String::from_utf8_lossy(head)
                .lines()
                .next()
                .unwrap_or("")
                .to_owned();
            let size = line.len();
            Worked::Answer(line, size)
        };
        let (walked, pre) = if let Some(most) = held_most {
            walk_reading(
                dir,
                &walk::Filter::default(),
                (&roots, 1 << 20, Duration::from_mins(1), most),
                &state,
                &work,
            )
            .map(|(walked, pre, _)| (walked, pre))
            .unwrap()
        } else {
            let walked = walk::walk(dir, &[], false).unwrap();
            let n = walked.files.len();
            (walked, PreRead::none(n))
        };
        let mut taken = Vec::new();
        let readers = Readers {
            state,
            work,
            take: |file: &Candidate, line: String| {
                taken.push((file.rel.clone(), line));
                Ok(true)
            },
            large: |_: &Candidate, _: &File, _: &[u8]| Ok(true),
        };
        let searched = read_in_order(
            &walked,
            pre,
            &roots,
            1 << 20,
            Duration::from_mins(1),
            readers,
        )
        .unwrap();
        assert!(searched.timed_out.is_none());
        assert!(
            searched.seen.iter().all(Option::is_some),
            "every file's size and time"
        );
        (taken, searched.counts.searched)
    }

    #[test]
    fn answers_held_during_the_walk_or_read_after_it_come_in_path_order() {
        let dir = tempfile::tempdir().unwrap();
        for d in ["a", "a-b", "a/b", "b", "c/d/e"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
            for i in 0..40 {
                std::fs::write(
                    dir.path().join(d).join(format!("f{i:02}.txt")),
                    format!("{d}/{i}\nmore\n"),
                )
                .unwrap();
            }
        }
        std::fs::write(dir.path().join("bin.dat"), b"\x00binary").unwrap();
        let in_turn = read_all(dir.path(), None);
        assert_eq!(in_turn.1, 200);
        assert_eq!(in_turn.0.len(), 200);
        assert_eq!(in_turn.0[0], ("a/b/f00.txt".to_owned(), "a/b/0".to_owned()));
        // Everything held, nothing held, and a cap reached part way through the walk: the
        // same answers in the same order.
        for most in [usize::MAX, 0, 100] {
            assert_eq!(
                read_all(dir.path(), Some(most)),
                in_turn,
                "holding at most {most}"
            );
        }
    }
}
