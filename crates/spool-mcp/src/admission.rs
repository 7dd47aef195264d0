//! Which tool calls run now, and which wait: shared capacity, fair between sessions, and a
//! lane the quick tools never share with heavy work.
//!
//! Every call runs on a blocking thread, and tokio's pool holds 512. Measured at 81b80ac: 530
//! never-ending jq queries took 524 threads and a `read` after them answered in 147 s. Now a
//! call first takes a place, waiting for it without a thread:
//!
//! - heavy tools (`search`, `query`, `map`, `run`, `fetch`, `ci_log`, `list`) take one of
//!   [`SESSION_HEAVY`] places of their session, then one of [`SERVER_HEAVY`] of the server;
//! - quick ones (`read`, `artifacts`) take places of their own lane ([`SESSION_QUICK`],
//!   [`SERVER_QUICK`]), so no queue of heavy work stands before them;
//! - a `query` first takes one of its session's [`SESSION_BOXES`] places: half the server's
//!   jq boxes, so one session's never-ending programs leave the others a box;
//! - a call that finds [`SESSION_QUEUE`] calls of its session already waiting, or waits
//!   [`MAX_WAIT`] without a place, is answered `unavailable` (busy) with when to try again;
//!   nothing was done. A call therefore waits at most that long before its own work (and its
//!   own time bound) begins.
//!
//! `tools/list` and `ping` take no place: they answer at once whatever runs.

use std::sync::Arc;
use std::time::Duration;

use spool_core::Error;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Heavy calls of one session running at once.
pub const SESSION_HEAVY: usize = 8;
/// Heavy calls of all sessions running at once: well under the blocking pool's 512 threads.
pub const SERVER_HEAVY: usize = 96;
/// Quick calls of one session, and of the server, running at once.
pub const SESSION_QUICK: usize = 8;
pub const SERVER_QUICK: usize = 64;
/// `query` calls of one session at once: half the server's jq boxes, so another session's
/// program always finds one free (12 never-ending programs of one client made a `length`
/// wait 29 s for a box, issue 58).
pub const SESSION_BOXES: usize = 2;
/// Calls of one session that may wait for a place; past it a call is busy at once.
pub const SESSION_QUEUE: usize = 64;
/// How long a call waits for a place before it is answered busy.
pub const MAX_WAIT: Duration = Duration::from_secs(10);

/// Whether a tool's work is bounded small (reads of what is stored, a page of a list of
/// artifacts) or may take its whole budget.
fn is_quick(tool: &str) -> bool {
    matches!(tool, "read" | "artifacts")
}

/// The server's places, shared by its sessions.
#[derive(Clone)]
pub struct Server {
    heavy: Arc<Semaphore>,
    quick: Arc<Semaphore>,
    wait: Duration,
}

impl Default for Server {
    fn default() -> Self {
        Self {
            heavy: Arc::new(Semaphore::new(SERVER_HEAVY)),
            quick: Arc::new(Semaphore::new(SERVER_QUICK)),
            wait: MAX_WAIT,
        }
    }
}

/// One session's places, and how many of its calls wait.
pub struct Session {
    heavy: Arc<Semaphore>,
    quick: Arc<Semaphore>,
    boxes: Arc<Semaphore>,
    waiting: std::sync::atomic::AtomicUsize,
}

impl Default for Session {
    fn default() -> Self {
        Self {
            heavy: Arc::new(Semaphore::new(SESSION_HEAVY)),
            quick: Arc::new(Semaphore::new(SESSION_QUICK)),
            boxes: Arc::new(Semaphore::new(SESSION_BOXES)),
            waiting: std::sync::atomic::AtomicUsize::new(0),
        }
    }
}

/// A call's places, given back when it ends.
pub struct Admitted {
    _session: OwnedSemaphorePermit,
    _server: OwnedSemaphorePermit,
    _box: Option<OwnedSemaphorePermit>,
}

/// Counts a call as waiting while it lives.
struct Waiting<'a>(&'a std::sync::atomic::AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

impl Server {
    /// A place for `tool` in `session`, or busy.
    pub async fn admit(&self, session: &Session, tool: &str) -> Result<Admitted, Error> {
        use std::sync::atomic::Ordering;
        let (mine, all, most) = if is_quick(tool) {
            (&session.quick, &self.quick, SESSION_QUICK)
        } else {
            (&session.heavy, &self.heavy, SESSION_HEAVY)
        };
        let boxed = (tool == "query").then_some(&session.boxes);
        // At once when there is room: no count, no clock.
        let at_once = (
            Arc::clone(mine).try_acquire_owned(),
            Arc::clone(all).try_acquire_owned(),
            boxed.map(|b| Arc::clone(b).try_acquire_owned()).transpose(),
        );
        if let (Ok(a), Ok(b), Ok(c)) = at_once {
            return Ok(Admitted {
                _session: a,
                _server: b,
                _box: c,
            });
        }
        let waiting = session.waiting.fetch_add(1, Ordering::AcqRel) + 1;
        let _counted = Waiting(&session.waiting);
        let busy = |why: String| Error::Busy {
            what: format!("the `{tool}` call"),
            why,
            retry_after_s: 5,
        };
        if waiting > SESSION_QUEUE {
            let running = if boxed.is_some() { SESSION_BOXES } else { most };
            return Err(busy(format!(
                "{SESSION_QUEUE} calls of this session are waiting already, behind {running} running"
            )));
        }
        let places = async {
            // The box first: a session's third program waits without holding a heavy place.
            let c = match boxed {
                Some(b) => Some(Arc::clone(b).acquire_owned().await?),
                None => None,
            };
            let a = Arc::clone(mine).acquire_owned().await?;
            let b = Arc::clone(all).acquire_owned().await?;
            Ok::<_, tokio::sync::AcquireError>(Admitted {
                _session: a,
                _server: b,
                _box: c,
            })
        };
        match tokio::time::timeout(self.wait, places).await {
            Ok(Ok(admitted)) => Ok(admitted),
            Ok(Err(_)) => Err(busy("the server is stopping".into())),
            Err(_) => {
                let waited = self.wait.as_secs_f64();
                let running = most - mine.available_permits();
                Err(busy(if boxed.is_some_and(|b| b.available_permits() == 0) {
                    format!(
                        "{SESSION_BOXES} jq programs of this session were running (the most at once) for the {waited} s it waited"
                    )
                } else if running >= most {
                    format!(
                        "{running} calls of this session were running (the most at once) for the {waited} s it waited"
                    )
                } else {
                    format!(
                        "the server's other sessions held every place for the {waited} s it waited"
                    )
                }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn quick_calls_pass_a_session_full_of_heavy_ones() {
        let server = Server::default();
        let session = Session::default();
        let mut held = Vec::new();
        for _ in 0..SESSION_HEAVY {
            held.push(server.admit(&session, "search").await.unwrap());
        }
        // A read is not behind them.
        let read = tokio::time::timeout(Duration::from_millis(100), server.admit(&session, "read"))
            .await
            .expect("a read waits for no heavy call");
        assert!(read.is_ok());
        // Another session's heavy call is not behind them either.
        let other = Session::default();
        assert!(
            tokio::time::timeout(Duration::from_millis(100), server.admit(&other, "search"))
                .await
                .is_ok()
        );
    }

    #[tokio::test]
    async fn a_call_that_finds_no_place_in_time_is_busy_with_when_to_retry() {
        let server = Server {
            wait: Duration::from_millis(200),
            ..Server::default()
        };
        let session = Session::default();
        let mut held = Vec::new();
        for _ in 0..SESSION_HEAVY {
            held.push(server.admit(&session, "search").await.unwrap());
        }
        let Err(err) = server.admit(&session, "search").await else {
            panic!("admitted past the most")
        };
        assert_eq!(err.code(), spool_core::ErrorCode::Unavailable);
        let said = err.to_string();
        assert!(
            said.contains("8 calls of this session were running"),
            "{said}"
        );
        let hint = err.hint(spool_core::render::Dialect::Mcp).unwrap();
        assert!(
            hint.starts_with("make the same call again in 5 s"),
            "{hint}"
        );
        // A place given back is taken by the next call.
        held.pop();
        assert!(server.admit(&session, "search").await.is_ok());
    }

    #[tokio::test]
    async fn a_session_holds_at_most_half_the_boxes_and_another_finds_one() {
        let server = Server {
            wait: Duration::from_millis(200),
            ..Server::default()
        };
        let hostile = Session::default();
        let mut held = Vec::new();
        for _ in 0..SESSION_BOXES {
            held.push(server.admit(&hostile, "query").await.unwrap());
        }
        let Err(err) = server.admit(&hostile, "query").await else {
            panic!("a third program of one session was admitted")
        };
        assert!(
            err.to_string().contains("2 jq programs of this session"),
            "{err}"
        );
        // Its other heavy tools still run, and another session's program starts at once.
        assert!(server.admit(&hostile, "search").await.is_ok());
        let other = Session::default();
        let benign =
            tokio::time::timeout(Duration::from_millis(100), server.admit(&other, "query"))
                .await
                .expect("another session's program waits for no box");
        assert!(benign.is_ok());
    }
}
