//! A bucket that did not answer is not asked again for a while: each request would otherwise
//! wait out its retries (up to 10 s) again and again. Only outages trip it (no connection, a
//! timeout, a 5xx); a refusal (403, 404, a failed condition) is an answer, passed on as it is.

use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};

use object_store::client::{HttpError, HttpErrorKind};

/// How long a bucket that failed to answer is not asked again.
const DOWN_FOR_MS: i64 = 30_000;

#[derive(Default)]
pub(crate) struct Breaker {
    /// Until when (ms) requests fail at once.
    until: AtomicI64,
    /// What the failure that tripped it said.
    cause: Mutex<String>,
}

impl Breaker {
    /// An error without asking, while the bucket is taken to be down.
    pub(crate) fn check(&self) -> Result<(), object_store::Error> {
        let until = self.until.load(Ordering::Relaxed);
        if spool_core::clock::now_ms() >= until {
            return Ok(());
        }
        let cause = self.cause.lock().map(|c| c.clone()).unwrap_or_default();
        Err(object_store::Error::Generic {
            store: "S3",
            source: format!(
                "not asked again until {}: a moment ago it did not answer ({cause})",
                spool_core::clock::rfc3339(until)
            )
            .into(),
        })
    }

    /// Trips on an outage.
    pub(crate) fn record<T>(&self, result: &Result<T, object_store::Error>) {
        if let Err(e) = result
            && is_outage(e)
        {
            if let Ok(mut cause) = self.cause.lock() {
                *cause = e.to_string();
            }
            self.until
                .store(spool_core::clock::now_ms() + DOWN_FOR_MS, Ordering::Relaxed);
        }
    }
}

/// No connection, a timeout, an interrupted request or a server error: the bucket did not
/// answer. Anything else (a refusal, a missing object, a local mistake) is not an outage.
fn is_outage(e: &object_store::Error) -> bool {
    let mut at: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = at {
        if let Some(http) = err.downcast_ref::<HttpError>() {
            return matches!(
                http.kind(),
                HttpErrorKind::Connect
                    | HttpErrorKind::Request
                    | HttpErrorKind::Timeout
                    | HttpErrorKind::Interrupted
            );
        }
        // The status of a failed response is only in its text (its type is private).
        if err
            .to_string()
            .starts_with("Server returned non-2xx status code: 5")
        {
            return true;
        }
        at = err.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generic(source: impl std::error::Error + Send + Sync + 'static) -> object_store::Error {
        object_store::Error::Generic {
            store: "S3",
            source: Box::new(source),
        }
    }

    #[test]
    fn only_a_bucket_that_did_not_answer_trips_it() {
        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let down = generic(HttpError::new(HttpErrorKind::Connect, refused));
        let denied = object_store::Error::PermissionDenied {
            path: "k".into(),
            source: "403 Forbidden".into(),
        };
        let missing = object_store::Error::NotFound {
            path: "k".into(),
            source: "404".into(),
        };
        let undecodable = generic(HttpError::new(
            HttpErrorKind::Decode,
            std::io::Error::other("bad body"),
        ));
        assert!(is_outage(&down));
        assert!(!is_outage(&denied));
        assert!(!is_outage(&missing));
        assert!(!is_outage(&undecodable));

        let breaker = Breaker::default();
        breaker.record::<()>(&Err(denied));
        assert!(breaker.check().is_ok(), "a refusal is an answer");
        breaker.record::<()>(&Err(down));
        let err = breaker.check().unwrap_err().to_string();
        assert!(err.contains("a moment ago it did not answer"), "{err}");
        assert!(err.contains("refused"), "the first cause is kept: {err}");
    }
}
