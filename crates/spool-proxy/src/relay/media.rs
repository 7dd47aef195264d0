//! Images, audio and binary resources in an upstream's answer: named with their size when
//! large, and stored (then named by their ref) when no model would take them.

use base64::Engine as _;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use spool_core::envelope::McpVersion;
use spool_core::store::NewArtifact;
use spool_core::{Result, Store};

use super::{Call, redo, source_part};

/// A single image, audio clip or blob past this size is named with its size.
pub(super) const LARGE_MEDIA: usize = 1 << 20;

/// An image or audio clip past this size (decoded) is stored, not passed on: model APIs refuse
/// images over about 5 MB.
const MEDIA_FOR_MODELS: usize = 5 << 20;

/// Media blocks in words (`image (image/png, 1.2 MiB) passed through ...`), with at least
/// `min_bytes` of data each.
pub(super) fn media_notes(result: &CallToolResult, min_bytes: usize) -> Vec<String> {
    result
        .content
        .iter()
        .filter_map(|b| {
            let (kind, mime, data) = match b {
                ContentBlock::Image(i) => ("image", &i.mime_type, &i.data),
                ContentBlock::Audio(a) => ("audio", &a.mime_type, &a.data),
                _ => return None,
            };
            (data.len() >= min_bytes).then(|| {
                format!(
                    "{kind} ({mime}, {}) passed through as the upstream sent it",
                    spool_core::render::human_bytes(data.len() as u64 / 4 * 3)
                )
            })
        })
        .collect()
}

/// Embedded binary resources past the size limit are stored as artifacts of their own and
/// replaced by a line that names them.
pub(super) fn store_large_blobs(
    store: &Store,
    call: &Call<'_>,
    mut result: CallToolResult,
) -> Result<CallToolResult> {
    for block in &mut result.content {
        let (what, mime, data) = match &*block {
            ContentBlock::Resource(r) => match &r.resource {
                ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    ..
                } if blob.len() as u64 > call.cap.tokens.min(LARGE_MEDIA as u64) => (
                    format!("the embedded resource {uri}"),
                    mime_type.clone(),
                    blob,
                ),
                _ => continue,
            },
            // No model takes an image or a sound this large: it is kept, and named.
            ContentBlock::Image(i) if i.data.len() / 4 * 3 > MEDIA_FOR_MODELS => {
                ("the image".to_owned(), Some(i.mime_type.clone()), &i.data)
            }
            ContentBlock::Audio(a) if a.data.len() / 4 * 3 > MEDIA_FOR_MODELS => {
                ("the audio".to_owned(), Some(a.mime_type.clone()), &a.data)
            }
            _ => continue,
        };
        let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(data) else {
            continue;
        };
        let src = source_part(
            call,
            McpVersion {
                part: Some(what.clone()),
                mime_type: Some(mime.clone()),
                ..McpVersion::default()
            },
        );
        let mut new = NewArtifact::new(src);
        new.redo = Some(redo(call));
        let meta = store.put(new, &bytes)?;
        let size = spool_core::render::human_bytes(bytes.len() as u64);
        let mime = mime.as_deref().unwrap_or("application/octet-stream");
        let why = if what.starts_with("the embedded") {
            String::new()
        } else {
            format!(
                ", more than models take ({})",
                spool_core::render::human_bytes(MEDIA_FOR_MODELS as u64)
            )
        };
        *block = ContentBlock::text(format!(
            "[spool: {what} ({mime}, {size}{why}) is stored as {}: read ref={} byte_offset=0 max_bytes=4096]",
            meta.reference, meta.reference,
        ));
    }
    Ok(result)
}
