//! `put`: a harness's own output stored whole, with the caller's version, and its first window.
//! The library's, not a model's tool: a model cannot hand spool bytes to keep, so no host
//! lists it and the table does not hold it.

use serde::{Deserialize, Serialize};
use spool_core::answer::{Answer, respond};
use spool_core::envelope::TextVersion;
use spool_core::store::NewArtifact;
use spool_core::window::{WindowRequest, read_window};
use spool_core::{Result, Source, Version};

use crate::arguments::{self, Wording};
use crate::set::ToolSet;
use crate::tools::PreviewArg;

/// `put` (the library's, not a model's tool): a caller's own output, stored whole.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PutParams {
    /// What produced the output (`my_tool q=...`).
    pub desc: String,
    /// What pins this output (a time, an `ETag`, a hash, a query): kept as given.
    #[serde(default)]
    pub version: serde_json::Map<String, serde_json::Value>,
    /// What a plain read shows: `head` (documents, the default), `tail` (logs), `head_tail`.
    #[serde(default)]
    pub preview: Option<PreviewArg>,
    /// Cap of the first answer in tokens (default: the caller's cap).
    #[serde(default)]
    pub max_tokens: Option<u64>,
}
impl ToolSet {
    /// `put`: `data` stored whole as the output `args` (a JSON [`PutParams`]) describes, with
    /// the caller's version, and its first window; timed and audited (with the size of `data`,
    /// not its bytes).
    pub fn put(&self, args: &serde_json::Value, data: &[u8]) -> Result<Answer> {
        let mut audited = args.clone();
        audited["bytes"] = serde_json::Value::from(data.len());
        respond(self.store(), "put", &audited, || {
            let p: PutParams =
                arguments::parse("put", args, Wording::ByPath, &serde_json::Map::new())?;
            let cap = (self.setup().cap)(p.max_tokens);
            spool_core::window::check_cap(cap.tokens)?;
            let version = Version::Text(TextVersion {
                fields: p.version.clone(),
                ..TextVersion::default()
            });
            let mut new = NewArtifact::new(Source::new(p.desc.clone(), version));
            if let Some(preview) = p.preview {
                new.preview = preview.into();
            }
            let meta = self.store().put(new, data)?;
            let first = read_window(
                self.store(),
                &meta.reference,
                WindowRequest::Preview(None),
                cap,
            )?;
            Ok(Answer::Envelope(Box::new(first)))
        })
    }
}
