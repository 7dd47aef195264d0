//! Wall-clock time as unix milliseconds, rendered as RFC 3339 in UTC.

use time::{OffsetDateTime, format_description::well_known::Rfc3339};

pub fn now_ms() -> i64 {
    let now = OffsetDateTime::now_utc();
    (now.unix_timestamp_nanos() / 1_000_000) as i64
}

/// RFC 3339 with second precision, e.g. `2026-11-30T09:00:00Z`.
pub fn rfc3339(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    OffsetDateTime::from_unix_timestamp(secs)
        .ok()
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_else(|| format!("@{secs}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn formats_utc_seconds() {
        assert_eq!(super::rfc3339(1_796_029_200_123), "2026-11-30T09:00:00Z");
    }
}
