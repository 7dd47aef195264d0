//! JSON lists paged as items.
//!
//! An upstream answer that is a JSON array (or an object holding one large array) is kept whole
//! as it came, and its list is stored a second time as a view with one compact item per line.
//! Lines are then items: a page never cuts an item, pages are windows of one immutable copy
//! (so a cursor is a keyset position that nothing can shift), and a search of the view names
//! the item of every hit (line N is item N, 1-based as items are in prose; index N-1).

mod find;

pub use find::{find_list, without_list};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::calls::{QueryParams, ReadParams, Target, ToolName};
use crate::cursor;
use crate::dialect::Words;
use crate::envelope::{
    Block, Delivery, Envelope, NextCall, Range, Reason, ReasonCode, Source, Totals, Unit, ViewOf,
};
use crate::error::{Error, Result};
use crate::fit::{self, Cap, Size};
use crate::render::{self, Dialect};
use crate::store::{ArtifactMeta, ArtifactReader, NewArtifact, Store};
use crate::structured;

/// The most items one page holds.
pub const ITEMS_MAX_PAGE: usize = 1_000;

/// Tokens kept for the banner before a page is filled; the page is checked whole afterwards.
const BANNER_RESERVE: u64 = 400;

/// Stores `items` as an item view of the artifact `whole`: one compact JSON item per line.
pub fn store_items(
    store: &Store,
    whole: &ArtifactMeta,
    path: Option<&str>,
    items: &[Value],
) -> Result<ArtifactMeta> {
    let version = whole.source.version.viewed_as(ViewOf {
        view_of: Some(whole.reference.clone()),
        items_at: Some(path.map(str::to_owned)),
        stream: None,
    });
    // A view holds what its artifact holds of the source (one upstream page of several).
    let mut new = NewArtifact::new(
        Source::new(whole.source.desc.clone(), version).with_coverage(whole.source.coverage()),
    );
    new.redo.clone_from(&whole.redo);
    let mut writer = store.create(new)?;
    let mut line = Vec::new();
    for item in items {
        line.clear();
        // Compact JSON escapes every newline, so one item is exactly one line.
        serde_json::to_writer(&mut line, item).map_err(|e| Error::invalid(e.to_string(), None))?;
        line.push(b'\n');
        writer.write(&line);
    }
    writer.finish(crate::envelope::ArtifactState::Complete, None, None)
}

/// Where a page starts.
#[derive(Debug, Clone, Copy)]
pub enum PageStart<'a> {
    /// The 0-based item.
    At(u64),
    /// A `next_cursor` of an earlier page.
    Cursor(&'a str),
}

/// A page of items: an envelope (measured in items) and a page, in one answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ItemPage {
    #[serde(flatten)]
    pub envelope: Envelope,
    pub items: Vec<Value>,
    pub next_cursor: Option<String>,
    pub has_more: bool,
    pub page_size: usize,
    pub max_page_size: usize,
}

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
struct ItemsCursor {
    k: String,
    r: String,
    at: u64,
}

fn items_cursor(store: &Store, reference: &str, at: u64) -> String {
    cursor::seal(
        store,
        &ItemsCursor {
            k: "items".into(),
            r: reference.to_owned(),
            at,
        },
    )
}

/// One page of the item view `reference`, under `max_tokens` with its banner.
pub fn item_page(
    store: &Store,
    reference: &str,
    start: PageStart<'_>,
    limit: Option<usize>,
    cap: impl Into<Cap>,
) -> Result<ItemPage> {
    item_page_with_notes(store, reference, start, limit, cap, &[])
}

/// [`item_page`] with notes for the banner (counted in the cap).
pub fn item_page_with_notes(
    store: &Store,
    reference: &str,
    start: PageStart<'_>,
    limit: Option<usize>,
    cap: impl Into<Cap>,
    notes: &[String],
) -> Result<ItemPage> {
    let cap = cap.into();
    crate::window::check_cap(cap.tokens)?;
    let at = match start {
        PageStart::At(at) => at,
        PageStart::Cursor(c) => {
            let p: ItemsCursor = cursor::open(store, c)?;
            if p.k != "items" || p.r != reference {
                return Err(cursor::mismatch("another list"));
            }
            p.at
        }
    };
    if let Some(l) = limit
        && (l == 0 || l > ITEMS_MAX_PAGE)
    {
        return Err(Error::invalid(
            format!("`limit` must be between 1 and {ITEMS_MAX_PAGE} items (got {l})"),
            Some("ask for `limit` 100".to_owned()),
        ));
    }
    let reader = store.open_artifact(reference)?;
    let meta = reader.meta().clone();
    let view = meta.source.version.view();
    if view.view_of.is_none() || view.items_at.is_none() {
        return Err(Error::invalid_words(
            format!("`{reference}` is not a list of items: it has no item cursor").into(),
            Words::text("read it by lines, e.g. ").call(NextCall::Read(ReadParams::lines(
                Target::reference(reference),
                1,
                None,
            ))),
        ));
    }
    let total = meta.lines;
    if at > total {
        return Err(Error::invalid_words(
            format!(
                "no items at this position: item {} is past the end (total {total})",
                at.saturating_add(1)
            )
            .into(),
            Words::text("read the first page, without a cursor: ")
                .call(NextCall::Read(ReadParams::of(Target::reference(reference)))),
        ));
    }
    let wanted = limit.unwrap_or(ITEMS_MAX_PAGE);
    let start = cap.tokens.saturating_sub(BANNER_RESERVE).max(1);
    // A banner that alone does not fit ends it with an error rather than a page over the cap.
    let fitted = fit::shrink_to_fit(cap, start, 1, |budget| {
        let mut page = fill(
            store,
            &reader,
            at,
            wanted,
            budget,
            cap.tokens,
            limit.is_some(),
        )?;
        page.envelope.notes.extend(notes.iter().cloned());
        let size = page_size(&page, cap);
        let can_shrink = !page.items.is_empty();
        Ok(fit::Attempt {
            answer: page,
            size,
            can_shrink,
        })
    })?;
    if let Some(page) = fitted {
        return Ok(page);
    }
    Err(Error::invalid_words(
        cap.words(ToolName::Read)
            .then(" leaves no room for a page of this list after its banner"),
        Words::text("ask for ").arg_value(
            ToolName::Read,
            "max_tokens",
            cap.tokens.max(BANNER_RESERVE) * 2,
        ),
    ))
}

/// The largest form of a page as sent: its text and its structured JSON, in either dialect.
/// The facts around the items are counted apart from them (see [`fit::facts_tokens`]).
fn page_size(page: &ItemPage, cap: Cap) -> Size {
    let reference = page.envelope.reference.as_str();
    [Dialect::Mcp, Dialect::Cli]
        .into_iter()
        .map(|d| {
            cap.forms.pick(
                || {
                    let banner = render::banner(&page.envelope, d);
                    let content = render::content(&page.envelope, d);
                    fit::facts_and_content(&banner, &content, reference, cap, 4)
                },
                || {
                    let mut v = structured(page, d);
                    if let Some(items) = v.get_mut("items") {
                        *items = Value::Array(Vec::new());
                    }
                    let items = serde_json::to_string(&page.items).unwrap_or_default();
                    fit::facts_and_content(&structured::compact(&v), &items, reference, cap, 4)
                },
            )
        })
        .fold(Size::default(), Size::max)
}

/// Reads items from `at` until `wanted` items or `budget` tokens.
fn fill(
    store: &Store,
    reader: &ArtifactReader,
    at: u64,
    wanted: usize,
    budget: u64,
    max_tokens: u64,
    limited: bool,
) -> Result<ItemPage> {
    let meta = reader.meta();
    let reference = meta.reference.clone();
    let total = meta.lines;
    let start_byte = reader.line_start(at + 1)?.byte;
    let mut lines = LineReader::new(reader, start_byte);
    let mut items = Vec::new();
    let mut content = String::new();
    let mut used = 0u64;
    let mut oversize = None;
    let mut stopped_by_tokens = false;
    while items.len() < wanted && at + (items.len() as u64) < total {
        // A token is at least one byte, and rarely more than 16: an item of more bytes than
        // that cannot fit, and is not read whole to find out.
        let room = budget.saturating_sub(used);
        let Some(line) = lines.next_line(room.saturating_mul(16) as usize)? else {
            if items.is_empty() {
                oversize = Some(lines.skipped);
            }
            stopped_by_tokens = true;
            break;
        };
        let text = String::from_utf8_lossy(&line);
        let tokens = crate::tokens::count(&text);
        if tokens > room {
            if items.is_empty() {
                oversize = Some(line.len() as u64);
            }
            stopped_by_tokens = true;
            break;
        }
        let item: Value = serde_json::from_slice(&line).map_err(|e| Error::Corrupt {
            reference: reference.clone(),
            expected: "one JSON item per line".into(),
            actual: format!("line {}: {e}", at + items.len() as u64 + 1),
        })?;
        used += tokens;
        content.push_str(&text);
        content.push('\n');
        items.push(item);
    }
    let end = at + items.len() as u64;
    let more_stored = end < total;
    // An upstream that said its list goes on: more exists after the last stored item, and
    // the way to it is the upstream's own call with its cursor (regression: the last page of
    // an upstream's first page of five said `has_more: false`).
    let coverage = meta.source.coverage();
    let upstream_more = coverage.upstream_page.is_some();
    let has_more = more_stored || upstream_more;
    let next_cursor =
        more_stored.then(|| items_cursor(store, &reference, end.max(at + 1).min(total)));
    let mut notes = Vec::new();
    let mut next = Vec::new();
    let mut templates = Vec::new();
    if let Some(bytes) = oversize {
        // Not even one item fits: say which, and how to read it by chars or step over it.
        notes.push(format!(
            "item {} alone is larger than one answer ({}); read it by chars, or skip it with the cursor",
            render::thousands(at.saturating_add(1)),
            render::human_bytes(bytes)
        ));
        next.push(NextCall::Read(ReadParams::lines(
            Target::reference(reference.as_str()),
            at + 1,
            None,
        )));
    }
    if let Some(c) = &next_cursor {
        next.push(
            NextCall::Read(ReadParams::of(Target::reference(reference.as_str()))).with_cursor(c),
        );
    }
    if upstream_more && let Some(rest) = &coverage.rest {
        next.push(rest.clone());
    }
    let complete = at == 0 && !has_more;
    if !complete {
        notes.push(
            "the list is stored one item per line: a search hit on line N is item N (index N-1)"
                .into(),
        );
        templates.push(NextCall::search_template(Target::reference(
            reference.as_str(),
        )));
        // To find a record or count them, a jq program beats paging: this one names the
        // fields a `select` can test.
        if items.first().is_some_and(Value::is_object) {
            next.push(NextCall::Query(QueryParams::new(
                reference.as_str(),
                "map(keys) | add | unique",
            )));
        }
    }
    let reason = if complete {
        None
    } else if upstream_more && !more_stored {
        Some(Reason {
            code: ReasonCode::UpstreamPartial,
            detail: "the upstream sent one page of its list and says more exist".into(),
        })
    } else if more_stored && stopped_by_tokens {
        Some(Reason {
            code: ReasonCode::TokenCap,
            detail: Cap::new(max_tokens).detail(false),
        })
    } else if more_stored && limited {
        Some(Reason {
            code: ReasonCode::RequestedRange,
            detail: format!("the page holds at most {wanted} items, as asked"),
        })
    } else if more_stored {
        Some(Reason {
            code: ReasonCode::SizeCap,
            detail: format!("pages hold at most {ITEMS_MAX_PAGE} items"),
        })
    } else {
        Some(Reason {
            code: ReasonCode::RequestedRange,
            detail: format!(
                "this page starts at item {}",
                render::thousands(at.saturating_add(1))
            ),
        })
    };
    let end_byte = start_byte + content.len() as u64;
    let shown = if items.is_empty() {
        Vec::new()
    } else {
        vec![Range {
            unit: Unit::Items,
            start: at,
            end,
            bytes: Some([start_byte, end_byte]),
        }]
    };
    let envelope = Envelope {
        reference: reference.clone(),
        source: meta.source.shown(),
        shown,
        total: Totals {
            items: Some(total),
            bytes: Some(meta.bytes),
            tokens: meta.tokens,
            tokens_estimated: meta.tokens_estimated,
            ..Totals::default()
        },
        complete,
        reason,
        next,
        next_templates: templates,
        capture: None,
        notes,
        found: None,
        scope: None,
        blocks: if content.is_empty() {
            Vec::new()
        } else {
            vec![Block::Shown(content.clone())]
        },
        delivered: Delivery {
            byte_spans: if content.is_empty() {
                Vec::new()
            } else {
                vec![(start_byte, end_byte)]
            },
            bytes: content.len() as u64,
            chars: content.chars().count() as u64,
            tokens: Some(used),
        },
        created_at: meta.created_at,
        redo: meta.redo.clone(),
    };
    Ok(ItemPage {
        envelope,
        page_size: items.len(),
        items,
        next_cursor,
        has_more,
        max_page_size: ITEMS_MAX_PAGE,
    })
}

/// The structured answer of a page: `notice`, the envelope's facts, the page's fields, the
/// source, then the items (which are the content: the text lines are not sent twice).
pub fn structured(page: &ItemPage, dialect: Dialect) -> Value {
    let e = &page.envelope;
    let mut fields = match serde_json::to_value(e) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    let mut out = Map::new();
    out.insert("notice".into(), json!(render::banner(e, dialect)));
    for key in [
        "ref",
        "shown",
        "total",
        "complete",
        "reason",
        "next",
        "next_templates",
    ] {
        if let Some(v) = fields.shift_remove(key) {
            out.insert(key.into(), v);
        }
    }
    out.insert("next_cursor".into(), json!(page.next_cursor));
    out.insert("has_more".into(), json!(page.has_more));
    out.insert("page_size".into(), json!(page.page_size));
    out.insert("max_page_size".into(), json!(page.max_page_size));
    out.extend(fields);
    out.insert("items".into(), Value::Array(page.items.clone()));
    Value::Object(out)
}

/// Lines read forward from a byte, each at most a given length.
struct LineReader<'r> {
    reader: &'r ArtifactReader,
    at: u64,
    buf: Vec<u8>,
    /// Bytes of the line that was too long (when `next_line` answered `None` for that).
    skipped: u64,
}

impl<'r> LineReader<'r> {
    fn new(reader: &'r ArtifactReader, at: u64) -> Self {
        Self {
            reader,
            at,
            buf: Vec::new(),
            skipped: 0,
        }
    }

    /// The next line without its newline, or `None` when it is longer than `max` bytes (its
    /// length, as far as it was read, is then in `skipped`).
    fn next_line(&mut self, max: usize) -> Result<Option<Vec<u8>>> {
        const CHUNK: usize = 64 << 10;
        loop {
            if let Some(nl) = memchr::memchr(b'\n', &self.buf) {
                let line: Vec<u8> = self.buf.drain(..=nl).collect();
                return Ok(Some(line[..line.len() - 1].to_vec()));
            }
            if self.buf.len() > max {
                self.skipped = self.buf.len() as u64;
                return Ok(None);
            }
            let chunk = self.reader.read_at(self.at, CHUNK)?;
            if chunk.is_empty() {
                // The last item without a final newline (never written so, but read safely).
                return Ok((!self.buf.is_empty()).then(|| std::mem::take(&mut self.buf)));
            }
            self.at += chunk.len() as u64;
            self.buf.extend_from_slice(&chunk);
        }
    }
}
