//! Text cut to a size in its middle, saying how much was left out: an error that echoes a 1 MB
//! argument, a source whose command is a whole script, a job name a hostile workflow chose.
//! Both ends stay (a path's start and its file name; a command and its last argument).

/// `s` cut to at most `max` chars, the cut in its middle saying how many were left out. What it
/// returns is never cut again (it is within `max`), so a source cut for an answer and cut again
/// for a banner says the one count.
pub fn clipped(s: String, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s;
    }
    // The marker at its longest for this text: the count has at most as many digits as `n`.
    let marker_len =
        "… [ chars left out] …".chars().count() + crate::numbers::thousands(n as u64).len();
    let room = max.saturating_sub(marker_len);
    let head_len = room * 3 / 4;
    let tail_len = room - head_len;
    let head: String = s.chars().take(head_len).collect();
    let tail: String = s.chars().skip(n - tail_len).collect();
    format!(
        "{head}… [{} chars left out] …{tail}",
        crate::numbers::thousands((n - head_len - tail_len) as u64)
    )
}

/// `v` with every string longer than `max` chars cut the same way.
pub fn clipped_json(v: &serde_json::Value, max: usize) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::String(s) => Value::String(clipped(s.clone(), max)),
        Value::Array(items) => Value::Array(items.iter().map(|i| clipped_json(i, max)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, i)| (clipped(k.clone(), max), clipped_json(i, max)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_keeps_both_ends_fits_and_is_not_cut_again() {
        let long = format!("start{}end", "x".repeat(10_000));
        let cut = clipped(long.clone(), 200);
        assert!(cut.chars().count() <= 200, "{}", cut.chars().count());
        assert!(cut.starts_with("start") && cut.ends_with("end"), "{cut}");
        assert!(cut.contains("chars left out"), "{cut}");
        let count = cut
            .split("… [")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .unwrap();
        let left: usize = count.replace(',', "").parse().unwrap();
        let marker = format!("… [{count} chars left out] …");
        // What is kept and what is said to be left out add up to the whole.
        assert_eq!(
            cut.chars().count() - marker.chars().count() + left,
            long.chars().count()
        );
        assert_eq!(clipped(cut.clone(), 200), cut);
        assert_eq!(clipped("short".into(), 200), "short");
    }
}
