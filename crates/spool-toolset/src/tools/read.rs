//! `read`: a window of an artifact or a file (lines, chars, bytes, the last lines, or a
//! preview), what a question finds beside a preview, or the next page of a list of items.

use spool_core::answer::{Answer, Context, found_window};
use spool_core::calls::{self, ReadParams, SearchParams, ToolName};
use spool_core::dialect::Words;
use spool_core::search::Find;
use spool_core::store::Stream;
use spool_core::window::{WindowRequest, read_window};
use spool_core::{Error, Result};

use super::{Target, one_of};
use crate::tool::{Call, Hints, Output, Tool};

/// `read`.
pub struct Read;

const DESCRIPTION: &str = "Read part of a stored artifact (`ref`) or of a file inside the allowed roots (`path`): lines \
(`line`, `limit`), chars (`char_offset`, `max_chars`) or bytes (`byte_offset`, `max_bytes`); \
without a range, the preview (head, tail or both). Every answer states the range shown, the \
size of the whole, why it stopped, and the exact next call. A file is stored on first read with \
its sha256, mtime and git commit, so continuations read that same version. Do not conclude that \
something is absent from the part you saw: search for it.";

impl Tool for Read {
    type Params = ReadParams;
    const TITLE: &'static str = "Read a window";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const HINTS: Hints = Hints::READS;
    const OUTPUT: Output = Output::Window;

    fn answer(call: Call<'_>, p: ReadParams) -> Result<Answer> {
        read(call.cx, &p)
    }
}

/// A window of an artifact or a file, or the next page of a list of items.
fn read(cx: &Context<'_>, p: &ReadParams) -> Result<Answer> {
    if let Some(cursor) = &p.cursor {
        if p.query.is_some() || p.pattern.is_some() {
            return Err(Error::invalid_words(
                Words::default()
                    .arg(ToolName::Read, "cursor")
                    .then(" pages a list of items; it does not go with ")
                    .arg(ToolName::Read, "query")
                    .then(" or ")
                    .arg(ToolName::Read, "pattern"),
                Words::text("search the list's ref instead, or leave them out"),
            ));
        }
        let Some(reference) = p.reference.as_deref().filter(|_| p.path.is_none()) else {
            return Err(Error::invalid(
                "`cursor` continues a list of items: give it with the list's `ref`",
                Some("pass the `ref` and `next_cursor` of the previous page".to_owned()),
            ));
        };
        let limit = p.limit.map(|l| usize::try_from(l).unwrap_or(usize::MAX));
        return Ok(Answer::Items(Box::new(spool_core::items::item_page(
            cx.store,
            reference,
            spool_core::items::PageStart::Cursor(cursor),
            limit,
            (cx.cap)(p.max_tokens),
        )?)));
    }
    // Checked before a file is read: a bad regex snapshots nothing.
    let find = find_of_read(p)?;
    let mut reference = match one_of(p.reference.as_deref(), p.path.as_deref(), "read")? {
        Target::Ref(r) => r.to_owned(),
        Target::Path(path) => {
            let (file, real) = cx.roots.open_file(path)?;
            spool_core::files::snapshot_file(cx.store, file, &real)?.reference
        }
    };
    if let Some(stream) = &p.stream {
        reference = spool_core::streams::stream_view(cx.store, &reference, Stream::parse(stream)?)?
            .reference;
    }
    let request = read_request(p)?;
    if let Some(find) = find {
        let WindowRequest::Preview(preview) = request else {
            return Err(Error::invalid_words(
                Words::default()
                    .arg(ToolName::Read, "query")
                    .then(" and ")
                    .arg(ToolName::Read, "pattern")
                    .then(" show what they find beside the preview, not inside a range"),
                Words::text("leave the range out, or search the range's artifact with ").call(
                    spool_core::envelope::NextCall::Search(SearchParams::words(
                        calls::Target::reference(reference.as_str()),
                        "timeout retry",
                    )),
                ),
            ));
        };
        let envelope = found_window(
            cx.store,
            &reference,
            &find,
            preview,
            (cx.cap)(p.max_tokens),
            &[],
        )?;
        return Ok(Answer::Envelope(Box::new(envelope)));
    }
    Ok(Answer::Envelope(Box::new(read_window(
        cx.store,
        &reference,
        request,
        (cx.cap)(p.max_tokens),
    )?)))
}

/// What a `read` asks to find, checked.
fn find_of_read(p: &ReadParams) -> Result<Option<Find>> {
    Find::from_args(
        ToolName::Read,
        p.query.as_deref(),
        p.pattern.as_deref(),
        p.literal,
        p.case_insensitive,
    )
}

/// The window a `read` asks for; ranges of different units cannot be mixed.
fn read_request(p: &ReadParams) -> Result<WindowRequest> {
    let lines = p.line.is_some() || p.limit.is_some();
    let chars = p.char_offset.is_some() || p.max_chars.is_some();
    let bytes = p.byte_offset.is_some() || p.max_bytes.is_some();
    let tail = p.tail.is_some();
    if u8::from(lines) + u8::from(chars) + u8::from(bytes) + u8::from(tail) > 1
        || (p.preview.is_some() && (lines || chars || bytes || tail))
    {
        return Err(Error::invalid(
            "`read` takes one kind of range: lines (`line`, `limit`), chars (`char_offset`, `max_chars`), bytes (`byte_offset`, `max_bytes`), the last lines (`tail`), or a `preview`",
            Some("for example read ref=sp_... line=97 limit=400".to_owned()),
        ));
    }
    Ok(if let Some(n) = p.tail {
        WindowRequest::LastLines { lines: n }
    } else if lines {
        WindowRequest::Lines {
            line: p.line.unwrap_or(1),
            limit: p.limit,
        }
    } else if chars {
        WindowRequest::Chars {
            offset: p.char_offset.unwrap_or(0),
            max: p.max_chars,
        }
    } else if bytes {
        WindowRequest::Bytes {
            offset: p.byte_offset.unwrap_or(0),
            max: p.max_bytes,
        }
    } else {
        WindowRequest::Preview(p.preview.map(Into::into))
    })
}
