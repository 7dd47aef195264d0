//! The structured form of every answer: the banner's words as `notice` first, then the facts,
//! then the content.
//!
//! Claude Code, Codex and other hosts forward only the structured content to the model when a
//! result has it; text-only hosts forward only the text blocks. So the structured form carries
//! everything the text does (CONTRACT.md, "What the model receives, host by host"), with its
//! keys in the contract's order so that a host that cuts the JSON still shows the facts.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::envelope::Envelope;
use crate::render::{self, Dialect};

/// An answer with the banner's words first: the structured form of every answer.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Noticed_{T}")]
pub struct Noticed<T> {
    pub notice: String,
    #[serde(flatten)]
    pub body: T,
}

/// An envelope as sent: its banner, its facts, then the text of what it shows (the shown
/// ranges, a gap marker line between two).
#[derive(Debug, Serialize, JsonSchema)]
pub struct EnvelopeAnswer<'a> {
    pub notice: String,
    #[serde(flatten)]
    pub envelope: &'a Envelope,
    pub content: String,
}

/// `notice` first, then the fields of `body` in their own order.
pub fn notice_first<T: Serialize + ?Sized>(notice: String, body: &T) -> Value {
    serde_json::to_value(Noticed { notice, body }).unwrap_or(Value::Null)
}

/// The whole envelope, `content` included, the banner in `dialect` as its `notice`.
pub fn envelope(e: &Envelope, dialect: Dialect) -> Value {
    let answer = EnvelopeAnswer {
        notice: render::banner(e, dialect),
        envelope: e,
        content: render::content(e, dialect),
    };
    serde_json::to_value(answer).unwrap_or(Value::Null)
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
