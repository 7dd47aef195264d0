//! Every worker thread spool starts is started here: named (a stack dump or `top -H` says
//! whose it is), sized when it must be, and never a panic when the system has no thread to
//! give (`RLIMIT_NPROC`, a container's pid limit): `std::thread::spawn` panics then, which took
//! a whole command down with it. Each caller decides what to do without the thread: a pool goes
//! on with the workers it got, a single helper thread is an error its caller answers with.
//!
//! Before, about 20 sites started threads by hand, half unnamed, all panicking on failure.

use std::io;
use std::thread::{Builder, JoinHandle, Scope, ScopedJoinHandle};

/// How many threads a parallel step uses: every core, at most `most` (ripgrep's walk takes at
/// most 12).
pub fn count(most: usize) -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(most).max(1))
}

/// A thread named `spool-NAME` running `work`; an error when none can be started.
pub fn spawn<T, F>(name: &str, work: F) -> io::Result<JoinHandle<T>>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    builder(name).spawn(work)
}

/// [`spawn`] with a stack of `stack_bytes` (a jq program's deep recursion).
pub fn spawn_sized<T, F>(name: &str, stack_bytes: usize, work: F) -> io::Result<JoinHandle<T>>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    builder(name).stack_size(stack_bytes).spawn(work)
}

/// A thread of `scope` named `spool-NAME` running `work`; an error when none can be started.
pub fn spawn_scoped<'scope, 'env, T, F>(
    scope: &'scope Scope<'scope, 'env>,
    name: &str,
    work: F,
) -> io::Result<ScopedJoinHandle<'scope, T>>
where
    T: Send + 'scope,
    F: FnOnce() -> T + Send + 'scope,
{
    builder(name).spawn_scoped(scope, work)
}

/// [`spawn_scoped`] with a stack of `stack_bytes` (a converter's recursion on deep input).
pub fn spawn_scoped_sized<'scope, 'env, T, F>(
    scope: &'scope Scope<'scope, 'env>,
    name: &str,
    stack_bytes: usize,
    work: F,
) -> io::Result<ScopedJoinHandle<'scope, T>>
where
    T: Send + 'scope,
    F: FnOnce() -> T + Send + 'scope,
{
    builder(name)
        .stack_size(stack_bytes)
        .spawn_scoped(scope, work)
}

/// Up to `n` workers of `scope`, each running `work` (which takes its jobs from what they
/// share), named `spool-NAME`; how many started. Fewer than asked is not an error: the ones
/// that started do the work. None at all is the caller's to answer.
pub fn pool<'scope, 'env, F>(
    scope: &'scope Scope<'scope, 'env>,
    name: &str,
    n: usize,
    work: &'scope F,
) -> usize
where
    F: Fn() + Sync + 'scope,
{
    (0..n)
        .take_while(|_| spawn_scoped(scope, name, work).is_ok())
        .count()
}

fn builder(name: &str) -> Builder {
    Builder::new().name(format!("spool-{name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_are_named_and_a_pool_reports_its_workers() {
        let handle = spawn("probe", || std::thread::current().name().map(str::to_owned));
        assert_eq!(
            handle
                .map(|h| h.join().ok().flatten())
                .ok()
                .flatten()
                .as_deref(),
            Some("spool-probe")
        );
        let done = std::sync::atomic::AtomicUsize::new(0);
        let work = || {
            done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        };
        let started = std::thread::scope(|s| pool(s, "pool", 3, &work));
        assert_eq!(started, 3);
        assert_eq!(done.load(std::sync::atomic::Ordering::SeqCst), 3);
        assert!(count(4) >= 1 && count(4) <= 4);
    }
}
