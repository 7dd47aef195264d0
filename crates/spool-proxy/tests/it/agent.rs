//! The mechanical agent through the proxy: it knows only the envelope, follows `next[0]` while
//! it is a `read`, and must read a multi-MB upstream answer back byte for byte, never over the
//! cap.

use serde_json::json;

use crate::support::{Options, start, structured, texts};

#[tokio::test]
async fn reads_back_a_large_upstream_answer_byte_for_byte() {
    let p = start(Options::default()).await;
    let want = spool_test_support::big_text(40_000);
    assert!(want.len() > 2_500_000);
    let mut answer = p.call("big_text", json!({ "lines": 40_000 })).await;
    let mut lines = std::collections::BTreeMap::new();
    for calls in 0.. {
        assert!(calls < 2_000, "never ends");
        let blocks = texts(&answer);
        assert!(spool_core::tokens::count(&blocks.join("\n")) <= 2_000);
        let e = structured(&answer).clone();
        let ranges = e["shown"].as_array().unwrap();
        for (range, text) in ranges.iter().zip(blocks[1..].iter().step_by(2)) {
            assert_eq!(range["unit"], "lines");
            let start = range["start"].as_u64().unwrap();
            for (i, line) in text.split_inclusive('\n').enumerate() {
                lines.insert(start + i as u64, line.to_owned());
            }
        }
        if e["complete"] == true || e["next"][0]["tool"] != "read" {
            break;
        }
        answer = p.call("read", e["next"][0]["arguments"].clone()).await;
        assert_eq!(answer.is_error, Some(false));
    }
    assert_eq!(lines.into_values().collect::<String>(), want);
}
