//! spool's log lines go to a bounded queue that one thread writes to stderr. A full queue drops
//! the line and counts it (the count is said when the reader reads again), so a stderr nobody
//! reads stalls that thread only, never a task that logs: before, a server whose stderr pipe
//! filled (64 KiB) blocked its accept loop in its own warning and stayed dead (issue 39).

use std::io::Write;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Lines held while stderr is not read (a line is a few hundred bytes).
const QUEUED: usize = 1024;

/// The writer the log subscriber makes a line at a time.
#[derive(Clone)]
pub struct Stderr {
    queue: SyncSender<Vec<u8>>,
    counts: Arc<Counts>,
}

#[derive(Default)]
struct Counts {
    dropped: AtomicU64,
    pending: AtomicUsize,
}

static LOG: OnceLock<Stderr> = OnceLock::new();

impl Stderr {
    /// The process's queue, and its writing thread, started on first use.
    pub fn get() -> Self {
        LOG.get_or_init(|| {
            let (queue, lines) = sync_channel::<Vec<u8>>(QUEUED);
            let counts = Arc::new(Counts::default());
            let seen = Arc::clone(&counts);
            let _ = spool_walk::workers::spawn("log", move || {
                for line in lines {
                    let mut err = std::io::stderr().lock();
                    let dropped = seen.dropped.swap(0, Ordering::Relaxed);
                    if dropped > 0 {
                        let _ = writeln!(
                            err,
                            "spool: {dropped} log lines were dropped: stderr was not read"
                        );
                    }
                    let _ = err.write_all(&line);
                    seen.pending.fetch_sub(1, Ordering::Relaxed);
                }
            });
            Self { queue, counts }
        })
        .clone()
    }

    /// Waits, at most `within`, for the queued lines to be written: a command's last words
    /// are not lost when it exits.
    pub fn drain(within: Duration) {
        let Some(log) = LOG.get() else { return };
        let until = Instant::now() + within;
        while log.counts.pending.load(Ordering::Relaxed) > 0 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// One log line, queued when the subscriber is done with it.
pub struct Line {
    bytes: Vec<u8>,
    to: Stderr,
}

impl Write for Line {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for Line {
    fn drop(&mut self) {
        if self.bytes.is_empty() {
            return;
        }
        let counts = &self.to.counts;
        counts.pending.fetch_add(1, Ordering::Relaxed);
        if self
            .to
            .queue
            .try_send(std::mem::take(&mut self.bytes))
            .is_err()
        {
            counts.pending.fetch_sub(1, Ordering::Relaxed);
            counts.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Stderr {
    type Writer = Line;

    fn make_writer(&'a self) -> Line {
        Line {
            bytes: Vec::new(),
            to: self.clone(),
        }
    }
}
