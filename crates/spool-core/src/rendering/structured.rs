//! The structured form of every answer: the banner's words as `notice` first, then the facts,
//! then the content.
//!
//! Claude Code, Codex and other hosts forward only the structured content to the model when a
//! result has it; text-only hosts forward only the text blocks. So the structured form carries
//! everything the text does (CONTRACT.md, "What the model receives, host by host"), with its
//! keys in the contract's order so that a host that cuts the JSON still shows the facts.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::envelope::Envelope;
use crate::render::{self, Dialect};

/// `notice` first, then the fields of `body` in their own order.
pub fn notice_first<T: Serialize + ?Sized>(notice: String, body: &T) -> Value {
    let mut out = Map::new();
    out.insert("notice".into(), Value::String(notice));
    if let Ok(Value::Object(fields)) = serde_json::to_value(body) {
        out.extend(fields);
    }
    Value::Object(out)
}

/// The whole envelope, `content` included, the banner in `dialect` as its `notice`.
pub fn envelope(e: &Envelope, dialect: Dialect) -> Value {
    let mut v = notice_first(render::banner(e, dialect), e);
    if let Value::Object(fields) = &mut v {
        fields.insert("content".into(), Value::String(render::content(e, dialect)));
    }
    v
}

/// Compact JSON, as hosts hand it to the model (`JSON.stringify`, `serde_json::to_string`).
pub fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notice_comes_first_and_the_body_keeps_its_order() {
        let body = serde_json::json!({ "ref": "sp_x", "shown": [], "content": "a\n" });
        let v = notice_first("[COMPLETE]".into(), &body);
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["notice", "ref", "shown", "content"]);
    }
}
