//! The server's open connections, so that idle ones cannot use up its descriptors.
//!
//! Each connection holds a descriptor until it closes, and an idle one (no request under way)
//! costs nothing but that. A client that keeps 250 idle sockets open, and opens them again as
//! the server closes them, held all of a 256-descriptor server's: a real client then got 3 of 7
//! `initialize` answered (issue 58, at 81b80ac). Now the server keeps its connections below its
//! descriptor limit less a reserve for its own work; past that, each new connection closes an
//! idle one first: the oldest of the peer (address) that holds the most. A connection with a
//! request under way, or a stream still open, is never closed for room.

use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

use hyper::body::{Body, Frame, SizeHint};
use tokio::sync::Notify;

/// Descriptors kept for what the server opens besides connections (files a tool reads, the
/// store's database, commands' pipes), and the fewest connections allowed whatever the limit.
const RESERVE: usize = 64;
const FEWEST: usize = 16;

/// How many connections the server keeps open at most, from its descriptor limit.
pub fn most_open() -> usize {
    let soft = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
        .map_or(1024, |(soft, _)| {
            usize::try_from(soft).unwrap_or(usize::MAX)
        });
    // A quarter kept back, and at least the fixed reserve.
    soft.saturating_sub(RESERVE.max(soft / 4)).max(FEWEST)
}

struct Conn {
    peer: IpAddr,
    opened: Instant,
    busy: Arc<AtomicUsize>,
    close: Arc<Notify>,
}

/// The open connections.
pub struct Registry {
    most: usize,
    next: std::sync::atomic::AtomicU64,
    open: Mutex<HashMap<u64, Conn>>,
}

/// A connection's place in the registry: dropped when the connection ends.
pub struct Entry {
    registry: Arc<Registry>,
    id: u64,
    /// Requests under way and response bodies not yet ended.
    pub busy: Arc<AtomicUsize>,
    /// Told when the connection is to be closed for room.
    pub close: Arc<Notify>,
}

impl Drop for Entry {
    fn drop(&mut self) {
        if let Ok(mut open) = self.registry.open.lock() {
            open.remove(&self.id);
        }
    }
}

impl Registry {
    pub fn new(most: usize) -> Arc<Self> {
        Arc::new(Self {
            most: most.max(1),
            next: std::sync::atomic::AtomicU64::new(0),
            open: Mutex::new(HashMap::new()),
        })
    }

    /// Registers a connection just accepted from `peer`, closing an idle one first when the
    /// server is at its most.
    pub fn admit(self: &Arc<Self>, peer: IpAddr) -> Entry {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let busy = Arc::new(AtomicUsize::new(0));
        let close = Arc::new(Notify::new());
        if let Ok(mut open) = self.open.lock() {
            if open.len() >= self.most
                && let Some(victim) = idle_victim(&open)
                && let Some(conn) = open.remove(&victim)
            {
                // `notify_one` keeps the permit if the connection's task is not waiting yet.
                conn.close.notify_one();
            }
            open.insert(
                id,
                Conn {
                    peer,
                    opened: Instant::now(),
                    busy: Arc::clone(&busy),
                    close: Arc::clone(&close),
                },
            );
        }
        Entry {
            registry: Arc::clone(self),
            id,
            busy,
            close,
        }
    }

    /// How many connections are open.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.open.lock().map_or(0, |o| o.len())
    }
}

/// The oldest idle connection of the peer holding the most connections (of those with any idle).
fn idle_victim(open: &HashMap<u64, Conn>) -> Option<u64> {
    let mut per_peer: HashMap<IpAddr, usize> = HashMap::new();
    for conn in open.values() {
        *per_peer.entry(conn.peer).or_default() += 1;
    }
    open.iter()
        .filter(|(_, c)| c.busy.load(Ordering::Acquire) == 0)
        .max_by(|(ia, a), (ib, b)| {
            per_peer[&a.peer]
                .cmp(&per_peer[&b.peer])
                // Older first: the earlier opened wins the max.
                .then(b.opened.cmp(&a.opened))
                .then(ib.cmp(ia))
        })
        .map(|(id, _)| *id)
}

/// Counts a request (and its response body) as work under way on its connection.
pub struct Busy(Arc<AtomicUsize>);

impl Busy {
    pub fn start(count: &Arc<AtomicUsize>) -> Self {
        count.fetch_add(1, Ordering::AcqRel);
        Self(Arc::clone(count))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A response body that keeps its connection busy until it ends (an event stream is work
/// under way for as long as it is open).
pub struct Guarded<B> {
    inner: B,
    _busy: Busy,
}

impl<B> Guarded<B> {
    pub fn new(inner: B, busy: Busy) -> Self {
        Self { inner, _busy: busy }
    }
}

impl<B: Body + Unpin> Body for Guarded<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_its_most_a_new_connection_closes_the_oldest_idle_one_of_the_busiest_peer() {
        let registry = Registry::new(4);
        let hostile: IpAddr = "10.0.0.9".parse().unwrap();
        let real: IpAddr = "10.0.0.1".parse().unwrap();
        let mine = registry.admit(real);
        let first = registry.admit(hostile);
        let _second = registry.admit(hostile);
        let third = registry.admit(hostile);
        // The first hostile one is busy (a request under way): the next oldest goes.
        let _working = Busy::start(&first.busy);
        let _new = registry.admit(real);
        assert_eq!(registry.len(), 4);
        let open = registry.open.lock().unwrap();
        assert!(open.contains_key(&mine.id) && open.contains_key(&first.id));
        assert!(open.contains_key(&third.id));
        assert_eq!(open.values().filter(|c| c.peer == hostile).count(), 2);
    }

    #[test]
    fn a_closed_connection_leaves_the_registry() {
        let registry = Registry::new(4);
        let entry = registry.admit("127.0.0.1".parse().unwrap());
        assert_eq!(registry.len(), 1);
        drop(entry);
        assert_eq!(registry.len(), 0);
    }
}
