//! One outbound call's bounds: a runtime the call owns, one deadline for all of it (connect,
//! headers, body, redirects), and its cancel flag. Each wait races both; what loses is dropped,
//! which closes its connection, and the runtime ends with the call. A blocking client can be
//! neither interrupted nor held to one deadline: its timeout restarts on every read, so a
//! server that trickles (a byte a second) kept a call open past its deadline (issue 39).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use spool_core::{Error, Result};

use crate::FetchOptions;

/// How often a cancel flag is looked at.
const TICK: Duration = Duration::from_millis(50);

/// The bounds of one call.
pub(crate) struct Call {
    rt: tokio::runtime::Runtime,
    deadline: tokio::time::Instant,
    seconds: f64,
    cancel: Option<Arc<AtomicBool>>,
}

impl Call {
    /// A call bounded by `opts` (its timeout from now, its cancel flag).
    pub fn new(opts: &FetchOptions) -> Result<Self> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::Unavailable {
                what: "the HTTP client".into(),
                cause: e.to_string(),
            })?;
        Ok(Self {
            rt,
            deadline: tokio::time::Instant::now() + opts.timeout,
            seconds: opts.timeout.as_secs_f64(),
            cancel: opts.cancel.clone(),
        })
    }

    /// The async client of this call (made inside its runtime), following redirects as
    /// [`crate::async_client`] does and noting each in `redirects`.
    pub fn client(
        &self,
        opts: &FetchOptions,
        redirects: Arc<std::sync::Mutex<Vec<String>>>,
    ) -> Result<reqwest::Client> {
        let _entered = self.rt.enter();
        crate::async_client(opts, redirects)
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::SeqCst))
    }

    /// `fut` to its end, or to the call's deadline (`timeout`, naming `what`) or its cancel
    /// (`unavailable`): then it is dropped, and with it the request and its connection.
    pub fn run<T>(&self, what: &str, fut: impl Future<Output = Result<T>>) -> Result<T> {
        let cancel = self.cancel.clone();
        self.rt.block_on(async move {
            tokio::select! {
                r = fut => r,
                () = tokio::time::sleep_until(self.deadline) => Err(Error::Timeout {
                    what: what.to_owned(),
                    seconds: self.seconds,
                }),
                () = cancelled(cancel) => Err(Error::Unavailable {
                    what: what.to_owned(),
                    cause: "the call was cancelled".into(),
                }),
            }
        })
    }
}

/// Waits for `flag` to be set (never, without one).
async fn cancelled(flag: Option<Arc<AtomicBool>>) {
    match flag {
        None => std::future::pending().await,
        Some(f) => {
            while !f.load(Ordering::SeqCst) {
                tokio::time::sleep(TICK).await;
            }
        }
    }
}
