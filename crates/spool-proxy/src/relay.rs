//! An upstream tool result made honest: passed through untouched when it fits, else stored once
//! and replaced by the envelope (a preview, totals, the reason and the calls that read the
//! rest), or by a page of items when it is a JSON list.

use std::borrow::Cow;

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::Value;
use spool_core::envelope::{McpVersion, NextCall, Source, Version};
use spool_core::items::{PageStart, find_list, item_page_with_notes, store_items};
use spool_core::store::{ArtifactMeta, NewArtifact};
use spool_core::window::{Alongside, WindowRequest};
use spool_core::{Cap, Preview, Result, Store};
use spool_mcp::answer::{Parts, envelope_result, items_result};

mod media;
mod paging;
mod resource;
use media::{LARGE_MEDIA, media_notes, store_large_blobs};
pub use paging::Pages;
pub use resource::honest_resource;

/// Text past this many bytes is over any cap without counting its tokens.
const COUNT_LIMIT: usize = 1 << 20;

/// The call being relayed.
pub struct Call<'a> {
    /// The upstream's name.
    pub server: &'a str,
    /// The tool's name upstream.
    pub tool: &'a str,
    /// The tool's name as the client calls it.
    pub exposed: &'a str,
    pub arguments: &'a Value,
    pub called_at: &'a str,
    pub preview: Preview,
    /// The preview was configured for this tool; else it came from the tool's name, and the
    /// order of the times in the answer may overrule it.
    pub preview_configured: bool,
    /// The cap of what the client receives.
    pub cap: Cap,
    /// Which parts a replaced answer carries.
    pub parts: Parts,
    /// The tool's input schema, as the upstream listed it: which argument takes a cursor.
    pub input_schema: Option<&'a serde_json::Map<String, Value>>,
    /// Where the pages of upstream lists that spool built calls for stand.
    pub pages: &'a Pages,
}

/// The text the model would read: text blocks and embedded text resources, in order. One
/// block is borrowed, not copied: an upstream answer may be hundreds of megabytes.
fn text_of(result: &CallToolResult) -> Cow<'_, str> {
    let pieces: Vec<&str> = result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            ContentBlock::Resource(r) => match &r.resource {
                ResourceContents::TextResourceContents { text, .. } => Some(text.as_str()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    if let [one] = pieces.as_slice() {
        return Cow::Borrowed(one);
    }
    let mut text = String::with_capacity(pieces.iter().map(|p| p.len() + 1).sum());
    for piece in pieces {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(piece);
    }
    Cow::Owned(text)
}

/// The tokens of `text` when they are at most `max_tokens`, else `None`.
fn tokens_within(text: &str, max_tokens: u64) -> Option<u64> {
    // A token is at least one byte: a short text fits without counting (its bytes bound it),
    // and one past the count limit cannot fit any cap worth counting against.
    if text.len() as u64 <= max_tokens {
        return Some(text.len() as u64);
    }
    if text.len() > COUNT_LIMIT {
        return None;
    }
    Some(spool_core::tokens::count(text)).filter(|&t| t <= max_tokens)
}

fn over_cap(text: &str, max_tokens: u64) -> bool {
    tokens_within(text, max_tokens).is_none()
}

/// The source of one part of a call's answer: the call's version, and `part` as given.
fn source_part(call: &Call<'_>, part: McpVersion) -> Source {
    Source::new(
        format!("{} {}", call.server, call.tool),
        Version::Mcp(McpVersion {
            server: call.server.to_owned(),
            tool: Some(call.tool.to_owned()),
            arguments: Some(call.arguments.clone()),
            called_at: Some(call.called_at.to_owned()),
            ..part
        }),
    )
}

fn redo(call: &Call<'_>) -> NextCall {
    NextCall::upstream(
        call.exposed,
        call.arguments.as_object().cloned().unwrap_or_default(),
    )
}

/// The text that decides and is stored, and what else the upstream sent beside it (to be
/// stored too, with what it is). The text blocks are the payload, unless they are a summary that
/// fits one answer beside larger structured content; structured content that repeats the text
/// (serialized, or wrapping it in a field) adds nothing and is not stored twice. Text blocks that
/// are the items of a list in the structured content, one block an item (as the Python SDK sends
/// a returned list beside `{"result": [...]}`), give way to that list, which pages as items.
fn payload(
    result: &CallToolResult,
    max_tokens: u64,
) -> (Cow<'_, str>, Option<(String, &'static str)>) {
    let text = text_of(result);
    let Some(structured) = &result.structured_content else {
        return (text, None);
    };
    if blocks_repeat_a_list(result, structured) {
        return (Cow::Owned(pretty(structured)), None);
    }
    let repeats = !text.is_empty()
        && (serde_json::from_str::<Value>(&text).is_ok_and(|t| t == *structured)
            || structured
                .as_object()
                .is_some_and(|o| o.values().any(|v| v.as_str() == Some(&*text))));
    if repeats {
        return (text, None);
    }
    let json = pretty(structured);
    if text.is_empty() {
        (Cow::Owned(json), None)
    } else if !over_cap(&text, max_tokens) && json.len() > text.len() {
        (Cow::Owned(json), Some((text.into_owned(), "text")))
    } else {
        (text, Some((json, "structured content")))
    }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// Whether the text blocks are, one for one, the items of the list in `structured`.
fn blocks_repeat_a_list(result: &CallToolResult, structured: &Value) -> bool {
    let Some((_, items)) = find_list(structured) else {
        return false;
    };
    let blocks: Vec<&str> = result
        .content
        .iter()
        .filter_map(|b| b.as_text().map(|t| t.text.as_str()))
        .collect();
    blocks.len() == items.len()
        && blocks.len() == result.content.len()
        && blocks.iter().zip(items).all(|(block, item)| match item {
            Value::String(s) => s == block,
            other => serde_json::from_str::<Value>(block).is_ok_and(|v| v == *other),
        })
}

/// Makes `result` honest; records what the client receives in the audit.
pub fn honest(
    store: &Store,
    call: &Call<'_>,
    result: CallToolResult,
    ms: u64,
) -> Result<CallToolResult> {
    let result = store_large_blobs(store, call, result)?;
    let (text, beside) = payload(&result, call.cap.tokens);
    // Both parts together must fit; measured one after the other, never copied together.
    let max_tokens = call.cap.tokens;
    let fits = tokens_within(&text, max_tokens).is_some_and(|used| {
        beside
            .as_ref()
            .is_none_or(|(other, _)| tokens_within(other, max_tokens - used).is_some())
    });
    if fits {
        let bytes = text.len() + beside.as_ref().map_or(0, |(b, _)| b.len());
        return Ok(pass_through(store, call, result, bytes, ms));
    }
    // A JSON answer is read before it is stored: what it says of more after it (its own
    // cursor) is what the copy holds of the upstream's list.
    let doc = json_doc(&text);
    // Its list, found once: (its path, its items), when it pages as items.
    let found = doc.as_ref().and_then(find_list);
    let list = found.as_ref().filter(|(path, items)| {
        doc.as_ref()
            .is_some_and(|d| mostly_a_list(d, path.as_deref(), items.len()))
    });
    let coverage = doc.as_ref().and_then(|d| {
        let path = found.as_ref().and_then(|(p, _)| p.as_deref());
        let items = list.map(|(_, items)| items.len() as u64);
        paging::coverage(call, d, path, items)
    });
    let mut src = source_part(
        call,
        McpVersion {
            is_error: result.is_error == Some(true),
            ..McpVersion::default()
        },
    );
    if let Some(c) = coverage {
        src = src.with_coverage(c);
    }
    let mut new = NewArtifact::new(src);
    new.redo = Some(redo(call));
    new.preview = call.preview;
    let whole = store.put(new, text.as_bytes())?;
    let mut notes = media_notes(&result, 0);
    if let Some((other, what)) = beside {
        // Nothing is dropped: the other half of the answer is stored beside it.
        let src = source_part(
            call,
            McpVersion {
                part: Some("beside".into()),
                ..McpVersion::default()
            },
        );
        let mut new = NewArtifact::new(src);
        new.redo = Some(redo(call));
        let meta = store.put(new, other.as_bytes())?;
        notes.push(format!(
            "the upstream also sent {} of {what} beside it, stored as {}",
            spool_core::render::human_bytes(other.len() as u64),
            meta.reference
        ));
    }
    let mut answer = match (list, &doc) {
        (Some((path, items)), Some(doc)) => items_answer(
            store,
            call,
            &whole,
            (doc, path.as_deref(), items),
            &notes,
            ms,
        )?,
        _ => window_answer(store, call, &whole, &notes, ms)?,
    };
    // Media, links and binary resources travel as the upstream sent them, after the text.
    answer
        .content
        .extend(result.content.into_iter().filter(|b| match b {
            ContentBlock::Image(_) | ContentBlock::Audio(_) | ContentBlock::ResourceLink(_) => true,
            ContentBlock::Resource(r) => {
                !matches!(r.resource, ResourceContents::TextResourceContents { .. })
            }
            _ => false,
        }));
    answer.is_error = result.is_error;
    answer.meta = result.meta;
    Ok(answer)
}

/// The result as the upstream sent it, large media named with their size.
fn pass_through(
    store: &Store,
    call: &Call<'_>,
    mut passed: CallToolResult,
    bytes: usize,
    ms: u64,
) -> CallToolResult {
    let large = media_notes(&passed, LARGE_MEDIA + 1);
    if !large.is_empty() {
        passed
            .content
            .push(ContentBlock::text(format!("[spool: {}]", large.join("; "))));
    }
    spool_core::answer::record_passed(store, call.exposed, call.arguments, bytes, ms);
    passed
}

/// The first page of the list in `doc`, stored as an item view of `whole`.
fn items_answer(
    store: &Store,
    call: &Call<'_>,
    whole: &ArtifactMeta,
    (doc, path, items): (&Value, Option<&str>, &[Value]),
    media: &[String],
    ms: u64,
) -> Result<CallToolResult> {
    let view = store_items(store, whole, path, items)?;
    let mut notes = vec![format!(
        "the upstream's answer is stored whole, as it came, as {}",
        whole.reference
    )];
    if let Some(path) = &path {
        // The rest of the answer is context for the rows: shown whole, the list in it named.
        // What it says of more after it is the copy's coverage, said by every page.
        notes.push(format!(
            "the list is `{path}` ({} items) in the upstream's answer, which reads, the list left out: {}",
            spool_core::render::thousands(items.len() as u64),
            spool_core::items::without_list(doc, path, items.len())
        ));
    }
    notes.extend(media.iter().cloned());
    let page = item_page_with_notes(
        store,
        &view.reference,
        PageStart::At(0),
        None,
        call.cap,
        &notes,
    )?;
    spool_core::answer::record_envelope(store, call.exposed, call.arguments, &page.envelope, ms);
    Ok(items_result(&page, call.parts))
}

/// The preview of `whole` by the tool's policy.
fn window_answer(
    store: &Store,
    call: &Call<'_>,
    whole: &ArtifactMeta,
    media: &[String],
    ms: u64,
) -> Result<CallToolResult> {
    let reader = store.open_artifact(&whole.reference)?;
    let (preview, why) = preview_of(&reader, call)?;
    let mut notes = media.to_vec();
    notes.extend(why);
    let made = Alongside::default().with_notes(&notes).window(
        &reader,
        WindowRequest::Preview(Some(preview)),
        call.cap,
    );
    let envelope = spool_core::window::or_bare(&reader, call.cap, made)?;
    spool_core::answer::record_envelope(store, call.exposed, call.arguments, &envelope, ms);
    Ok(envelope_result(&envelope, call.parts))
}

/// The preview of a stored answer, and the words that say which end it shows and why. A
/// configured preview is kept; one that comes from the tool's name yields to the data: an
/// answer whose times run newest first (`git log`) shows its head, whatever the name says.
fn preview_of(
    reader: &spool_core::store::ArtifactReader,
    call: &Call<'_>,
) -> Result<(Preview, Option<String>)> {
    use spool_core::time_order::{TimeOrder, time_order};
    if call.preview_configured {
        return Ok((call.preview, None));
    }
    let order = time_order(reader)?;
    Ok(match (call.preview, order) {
        (Preview::Tail, Some(TimeOrder::NewestFirst { first, last })) => (
            Preview::Head,
            Some(format!(
                "the preview shows the start: this answer runs newest first (from {first} down to {last})"
            )),
        ),
        (Preview::Tail, Some(TimeOrder::OldestFirst { first, last })) => (
            Preview::Tail,
            Some(format!(
                "the preview shows the end: this log runs oldest first (from {first} up to {last})"
            )),
        ),
        (Preview::Tail, None) => (
            Preview::Tail,
            Some(format!(
                "the preview shows the end, as for a log (the tool is called `{}`)",
                call.tool
            )),
        ),
        (preview, _) => (preview, None),
    })
}

/// The document when `text` is JSON (an array or an object), else `None`.
fn json_doc(text: &str) -> Option<Value> {
    /// Past this a document is not parsed whole (a tree of values takes several times the
    /// text's size): it is paged by lines instead.
    const JSON_LIMIT: usize = 64 << 20;
    let trimmed = text.trim_start();
    if !(trimmed.starts_with('[') || trimmed.starts_with('{')) {
        return None;
    }
    if text.len() > JSON_LIMIT {
        return None;
    }
    serde_json::from_str(text).ok()
}

/// Whether `doc` is a JSON list, or an object that is mostly one list, however deep (the rest
/// of it, shown in full in the banner, must be small): it then pages as items.
fn mostly_a_list(doc: &Value, path: Option<&str>, items: usize) -> bool {
    /// The most the rest of the document may take to be shown beside its list.
    const OTHER_FIELDS: usize = 2 << 10;
    path.is_none_or(|path| {
        spool_core::items::without_list(doc, path, items)
            .to_string()
            .len()
            <= OTHER_FIELDS
    })
}
