//! A resource read made honest, as a tool result is: a text too large is stored once and
//! replaced by the envelope's text.

use rmcp::model::{ReadResourceResult, ResourceContents};
use serde_json::json;
use spool_core::envelope::{McpVersion, Source, Version};
use spool_core::store::NewArtifact;
use spool_core::window::WindowRequest;
use spool_core::{Cap, Result, Store};

use super::over_cap;

/// A resource read made honest: a text content over the cap is stored and replaced by the
/// envelope's text (banner and preview), which names the `read` and `search` calls for the rest.
pub fn honest_resource(
    store: &Store,
    server: &str,
    mut result: ReadResourceResult,
    cap: Cap,
    ms: u64,
) -> Result<ReadResourceResult> {
    for content in &mut result.contents {
        let ResourceContents::TextResourceContents {
            uri,
            text,
            mime_type,
            ..
        } = content
        else {
            continue;
        };
        if !over_cap(text, cap.tokens) {
            continue;
        }
        let new = NewArtifact::new(Source::new(
            format!("{server} {uri}"),
            Version::Mcp(McpVersion {
                server: server.to_owned(),
                uri: Some(uri.clone()),
                read_at: Some(spool_core::clock::rfc3339(spool_core::clock::now_ms())),
                ..McpVersion::default()
            }),
        ));
        let whole = store.put(new, text.as_bytes())?;
        let reader = store.open_artifact(&whole.reference)?;
        let made = spool_core::window::window(&reader, WindowRequest::Preview(None), cap);
        let envelope = spool_core::window::or_bare(&reader, cap, made)?;
        let args = json!({ "uri": uri });
        spool_core::answer::record_envelope(store, "resources/read", &args, &envelope, ms);
        *text = spool_core::render::envelope_text(&envelope, spool_core::render::Dialect::Mcp);
        // What is left is a banner and a preview, whatever the whole was.
        *mime_type = Some("text/plain".into());
    }
    Ok(result)
}
