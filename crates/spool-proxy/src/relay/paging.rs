//! An upstream's own paging, recognised: an answer that says more exist after it (its
//! `nextCursor`, `hasMore`, `next_cursor`, `has_more`, `nextPageToken`, `links.next`,
//! `incomplete_results`, `truncated`, a total beyond the items) is one page of the upstream's
//! list. The stored copy records that as its coverage, every page spool shows of it says
//! `upstream_partial` and `has_more`, and `next` calls the upstream's tool again with its own
//! cursor, as the tool's input schema names it.
//!
//! Regression (issue 38): an upstream that answered 1,000 of 5,000 items with its
//! `nextCursor` was paged by spool to "items 667-1,000 of 1,000 items", `has_more: false`;
//! a note on the first page alone said more existed, and no call reached them.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::{Map, Value};
use spool_core::envelope::{Coverage, NextCall, UpstreamPage};

use super::Call;

/// Keys whose non-empty string value is the cursor of the next page.
const CURSOR_KEYS: [&str; 10] = [
    "nextCursor",
    "next_cursor",
    "nextPageToken",
    "next_page_token",
    "nextToken",
    "next_token",
    "continuationToken",
    "continuation_token",
    "endCursor",
    "end_cursor",
];
/// Keys whose `true` or `false` says whether more exist, the `false` believed over a cursor.
const FLAG_KEYS: [&str; 6] = [
    "hasMore",
    "has_more",
    "hasNextPage",
    "has_next_page",
    "moreResults",
    "more_results",
];
/// Keys whose `true` says the answer was cut short (and whose `false` says nothing of a cursor).
const CUT_KEYS: [&str; 4] = [
    "incomplete_results",
    "truncated",
    "isTruncated",
    "is_truncated",
];
/// Keys whose number is the size of the whole list.
const TOTAL_KEYS: [&str; 7] = [
    "total",
    "total_count",
    "totalCount",
    "total_results",
    "totalResults",
    "totalSize",
    "total_size",
];
/// Objects inside an answer that hold its paging facts.
const NESTED: [&str; 8] = [
    "links",
    "_links",
    "pagination",
    "paging",
    "meta",
    "page_info",
    "pageInfo",
    "response_metadata",
];
/// Arguments a tool takes its cursor by, in the order they are tried.
const CURSOR_ARGS: [&str; 14] = [
    "cursor",
    "next_cursor",
    "nextCursor",
    "page_token",
    "pageToken",
    "next_page_token",
    "nextPageToken",
    "starting_after",
    "after",
    "next_token",
    "nextToken",
    "continuation_token",
    "continuationToken",
    "token",
];

/// Where each page spool built a call for stands in the upstream's list, by that call: the
/// next page's number and the items before it. A page whose call is not here (the first,
/// or one the model built itself) has its number from its own arguments, or none.
#[derive(Default)]
pub struct Pages(Mutex<HashMap<String, (u64, u64)>>);

impl Pages {
    fn key(tool: &str, args: &Map<String, Value>) -> String {
        format!("{tool}\u{1}{}", Value::Object(args.clone()))
    }

    fn at(&self, tool: &str, args: &Map<String, Value>) -> Option<(u64, u64)> {
        let pages = self.0.lock().ok()?;
        pages.get(&Self::key(tool, args)).copied()
    }

    fn note(&self, call: &NextCall, at: (u64, u64)) {
        if let Ok(mut pages) = self.0.lock() {
            // A long session's calls are few: a bound keeps a runaway one from growing it.
            if pages.len() > 10_000 {
                pages.clear();
            }
            pages.insert(Self::key(call.tool(), &call.arguments()), at);
        }
    }
}

/// What the upstream said of more after its answer.
#[derive(Default)]
struct Said {
    facts: Map<String, Value>,
    cursor: Option<(String, Value)>,
    next_page: Option<u64>,
    total: Option<u64>,
    more: bool,
}

impl Said {
    /// Reads the paging facts of one object; `at` names where it is (`links.`). An object
    /// that says there is no more (`has_more: false`) is believed over a cursor beside it, and
    /// a cursor of 0 is the end (as Twitter's API writes it).
    fn read(&mut self, o: &Map<String, Value>, at: &str) {
        let says_no_more = FLAG_KEYS
            .iter()
            .any(|k| o.get(*k) == Some(&Value::Bool(false)));
        for (k, v) in o {
            let key = format!("{at}{k}");
            if CURSOR_KEYS.contains(&k.as_str()) {
                let cursor = match v {
                    _ if says_no_more => None,
                    Value::String(s) if !s.is_empty() && s != "0" => Some(v.clone()),
                    Value::Number(n) if n.as_u64() != Some(0) => Some(v.clone()),
                    _ => None,
                };
                // A GraphQL `endCursor` is the end of this page; it says more only beside
                // `hasNextPage: true`.
                let end_of_page = k == "endCursor" || k == "end_cursor";
                if let Some(c) = cursor {
                    if !end_of_page {
                        self.facts.insert(key, v.clone());
                        self.more = true;
                    }
                    self.cursor.get_or_insert((k.clone(), c));
                }
            } else if (FLAG_KEYS.contains(&k.as_str()) || CUT_KEYS.contains(&k.as_str()))
                && v == &Value::Bool(true)
            {
                self.facts.insert(key, v.clone());
                self.more = true;
            } else if TOTAL_KEYS.contains(&k.as_str())
                && let Some(n) = v.as_u64()
            {
                self.total.get_or_insert(n);
            } else if matches!(k.as_str(), "next_page" | "nextPage")
                && !says_no_more
                && let Some(n) = v.as_u64()
            {
                self.facts.insert(key, v.clone());
                self.next_page = Some(n);
                self.more = true;
            } else if k == "next" && !at.is_empty() && !says_no_more {
                // `links.next`: a URL (or a token) of the next page.
                let present = match v {
                    Value::String(s) => !s.is_empty(),
                    Value::Object(o) => !o.is_empty(),
                    _ => false,
                };
                if present {
                    self.facts.insert(key, v.clone());
                    self.more = true;
                }
            }
        }
    }
}

/// The objects of `doc` that may hold its paging facts: the document, the object holding its
/// list, and the paging objects inside either.
fn holders<'d>(doc: &'d Value, list_path: Option<&str>) -> Vec<(&'d Map<String, Value>, String)> {
    let mut out = Vec::new();
    let mut push = |o: &'d Map<String, Value>, at: String| {
        out.push((o, at.clone()));
        for name in NESTED {
            if let Some(Value::Object(inner)) = o.get(name) {
                out.push((inner, format!("{at}{name}.")));
            }
        }
    };
    if let Value::Object(root) = doc {
        push(root, String::new());
    }
    if let Some(path) = list_path
        && let Some((parent, _)) = path.rsplit_once('.')
    {
        let mut at = doc;
        for part in parent.split('.') {
            match at.get(part) {
                Some(v) => at = v,
                None => return out,
            }
        }
        if let Value::Object(o) = at {
            push(o, format!("{parent}."));
        }
    }
    out
}

/// The coverage of an upstream's answer `doc` (whose list, when it has one, is at
/// `list_path` and holds `items`): one page of the upstream's list when it says more exist,
/// with the call that reaches the next page; `None` when it says nothing of more.
pub(super) fn coverage(
    call: &Call<'_>,
    doc: &Value,
    list_path: Option<&str>,
    items: Option<u64>,
) -> Option<Coverage> {
    let mut said = Said::default();
    for (o, at) in holders(doc, list_path) {
        said.read(o, &at);
    }
    let args = call.arguments.as_object().cloned().unwrap_or_default();
    let (page, items_before) = position(call, &args);
    // A total beyond the items says more only of a tool that pages (it takes a page, an
    // offset or a cursor: a cart's `total` is a price), and only where this page's place is
    // known (a last short page asked for by number alone is not "more").
    if let (Some(total), Some(n), Some(before)) = (said.total, items, items_before)
        && pages_by_argument(call, &args)
        && before.checked_add(n).is_some_and(|seen| total > seen)
    {
        let key = TOTAL_KEYS
            .iter()
            .find_map(|k| {
                holders(doc, list_path)
                    .iter()
                    .find(|(o, _)| o.get(*k).and_then(Value::as_u64) == Some(total))
                    .map(|(_, at)| format!("{at}{k}"))
            })
            .unwrap_or_else(|| "total".to_owned());
        said.facts.insert(key, Value::from(total));
        said.more = true;
    }
    if !said.more {
        return None;
    }
    let next = next_call(call, &args, &said, items);
    if let (Some(next), Some(page), Some(n)) = (&next, page, items)
        && let (Some(after), Some(before)) = (
            page.checked_add(1),
            items_before.unwrap_or(0).checked_add(n),
        )
    {
        call.pages.note(next, (after, before));
    }
    Some(
        Coverage {
            upstream_page: Some(UpstreamPage {
                said: said.facts,
                page,
                items_before,
                items,
                total: said.total,
            }),
            rest: next,
            ..Coverage::whole()
        }
        .settled(),
    )
}

/// Whether the tool pages by an argument: its schema takes (or this call gave) a page, an
/// offset or a cursor.
fn pages_by_argument(call: &Call<'_>, args: &Map<String, Value>) -> bool {
    let props = call
        .input_schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    ["page", "offset", "skip"]
        .into_iter()
        .chain(CURSOR_ARGS)
        .any(|k| args.contains_key(k) || props.is_some_and(|p| p.contains_key(k)))
}

/// Where this page stands in the upstream's list: (its number, the items before it). The
/// first page is the one asked for without a cursor, page or offset.
fn position(call: &Call<'_>, args: &Map<String, Value>) -> (Option<u64>, Option<u64>) {
    if let Some((page, before)) = call.pages.at(call.exposed, args) {
        return (Some(page), Some(before));
    }
    let num = |k: &str| args.get(k).and_then(Value::as_u64);
    // A size not given is the tool's default, as its schema states it.
    let default = |k: &str| {
        call.input_schema
            .and_then(|s| s.get("properties"))
            .and_then(|p| p.get(k))
            .and_then(|p| p.get("default"))
            .and_then(Value::as_u64)
    };
    let per = ["per_page", "page_size", "perPage", "pageSize", "limit"]
        .into_iter()
        .find_map(|k| num(k).or_else(|| default(k)));
    if let Some(page) = num("page") {
        // The first page's number, as the schema states it (`default` or `minimum`): a page
        // number whose base is not stated places the page nowhere.
        let stated = |k: &str| {
            call.input_schema
                .and_then(|s| s.get("properties"))
                .and_then(|p| p.get("page"))
                .and_then(|p| p.get(k))
                .and_then(Value::as_u64)
        };
        let Some(base) = stated("minimum")
            .or_else(|| stated("default"))
            .filter(|b| *b <= 1)
        else {
            return (None, None);
        };
        let Some(nth) = page.checked_sub(base) else {
            return (None, None);
        };
        let before = per.and_then(|per| per.checked_mul(nth));
        return (before.and(nth.checked_add(1)), before);
    }
    if let Some(offset) = num("offset").or_else(|| num("skip")) {
        // Its page's number only where the page size is known and the offset falls on one.
        let page = per
            .filter(|p| *p > 0 && offset % p == 0)
            .and_then(|p| (offset / p).checked_add(1));
        return (page, Some(offset));
    }
    let cursored = CURSOR_ARGS
        .iter()
        .any(|k| args.get(*k).is_some_and(|v| !v.is_null()));
    if cursored {
        (None, None)
    } else {
        (Some(1), Some(0))
    }
}

/// The arguments a cursor sent under `key` is given back by: `nextPageToken` as `pageToken`
/// or `page_token`, `next_cursor` as `cursor`, a GraphQL `endCursor` as `after`.
fn named_after(key: &str) -> Vec<String> {
    if key == "endCursor" || key == "end_cursor" {
        return vec!["after".into()];
    }
    let rest = key
        .strip_prefix("next_")
        .or_else(|| key.strip_prefix("next"))
        .unwrap_or(key);
    let mut camel = rest.to_owned();
    if let Some(first) = camel.get(..1) {
        camel.replace_range(..1, &first.to_ascii_lowercase());
    }
    let mut snake = String::new();
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            snake.push('_');
            snake.push(c.to_ascii_lowercase());
        } else {
            snake.push(c);
        }
    }
    vec![key.to_owned(), camel, snake]
}

/// The upstream's call for the page after this one, runnable as printed: the same arguments
/// with the cursor (or the next page number, or offset) where the tool's input schema takes
/// it. `None` when no argument of the tool can be named for it.
fn next_call(
    call: &Call<'_>,
    args: &Map<String, Value>,
    said: &Said,
    items: Option<u64>,
) -> Option<NextCall> {
    let props = call
        .input_schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    let takes = |name: &str| props.is_some_and(|p| p.contains_key(name));
    let takes_a_cursor = CURSOR_ARGS.iter().any(|a| takes(a));
    let mut next = args.clone();
    if let Some((key, value)) = said.cursor.as_ref().filter(|_| said.more) {
        // The argument named after the key the upstream used (`nextPageToken` is taken by
        // `pageToken`), then the usual names.
        let named = named_after(key);
        let arg = named
            .iter()
            .map(String::as_str)
            .chain(CURSOR_ARGS)
            .find(|a| takes(a))
            // A tool whose schema says nothing: the argument this call already gave.
            .or_else(|| {
                props
                    .is_none_or(Map::is_empty)
                    .then(|| CURSOR_ARGS.iter().find(|a| args.contains_key(**a)).copied())
                    .flatten()
            })?;
        next.insert(arg.to_owned(), value.clone());
        return Some(NextCall::upstream(call.exposed, next));
    }
    // By page or by offset only where nothing else can be meant: the upstream named the next
    // page, or this call paged so, or the tool takes a page (an offset) and no cursor. A
    // `links.next` URL or a bare `truncated` names no argument: no call is made up.
    let by = |name: &str| {
        args.contains_key(name) || takes(name) && !takes_a_cursor && said.total.is_some()
    };
    // A `next_page` the upstream named goes to a `page` the tool takes, never one made up.
    if (said.next_page.is_some() && (takes("page") || args.contains_key("page"))) || by("page") {
        let page = said
            .next_page
            .or_else(|| {
                args.get("page")
                    .and_then(Value::as_u64)
                    .and_then(|p| p.checked_add(1))
            })
            .unwrap_or(2);
        next.insert("page".into(), Value::from(page));
    } else if let Some(n) = items
        && let Some(name) = ["offset", "skip"].into_iter().find(|a| by(a))
    {
        let offset = args.get(name).and_then(Value::as_u64).unwrap_or(0);
        next.insert(name.into(), Value::from(offset.checked_add(n)?));
    } else {
        return None;
    }
    Some(NextCall::upstream(call.exposed, next))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn coverage_of(schema: &Value, args: &Value, doc: &Value, items: u64) -> Option<Coverage> {
        let pages = Pages::default();
        let schema = schema.as_object().cloned().unwrap_or_default();
        let call = Call {
            server: "s",
            tool: "t",
            exposed: "t",
            arguments: args,
            called_at: "2026-12-04T00:00:00Z",
            preview: spool_core::Preview::Head,
            preview_configured: false,
            cap: spool_core::Cap::new(2_000),
            parts: spool_mcp::answer::Parts::Both,
            input_schema: Some(&schema),
            pages: &pages,
        };
        let path = spool_core::items::find_list(doc).and_then(|(p, _)| p);
        coverage(&call, doc, path.as_deref(), Some(items))
    }

    fn rows(n: u64) -> Vec<Value> {
        (0..n).map(|i| json!({ "id": i })).collect()
    }

    /// Review: what says there is no more is believed, and what is not paging is not read
    /// as paging.
    #[test]
    fn no_more_is_believed_and_a_price_is_no_total() {
        let cursor_schema = json!({ "properties": { "cursor": {} } });
        let none = json!({});
        // A cursor beside an explicit `has_more: false`.
        let doc = json!({ "items": rows(5), "next_cursor": "abc", "has_more": false });
        assert!(coverage_of(&cursor_schema, &none, &doc, 5).is_none());
        // A cursor of 0 is the end.
        let doc = json!({ "items": rows(5), "next_cursor": 0 });
        assert!(coverage_of(&cursor_schema, &none, &doc, 5).is_none());
        let doc = json!({ "items": rows(5), "next_cursor": "0" });
        assert!(coverage_of(&cursor_schema, &none, &doc, 5).is_none());
        // A `total` of a tool that takes no paging argument is not the list's size.
        let cart = json!({ "items": rows(2), "total": 4_999 });
        assert!(coverage_of(&json!({ "properties": {} }), &none, &cart, 2).is_none());
        // The same of a tool that pages by cursor is.
        let c = coverage_of(&cursor_schema, &none, &cart, 2).unwrap();
        assert_eq!(c.upstream_page.unwrap().total, Some(4_999));
    }

    /// Review: a page number whose base the schema does not state places the page nowhere,
    /// and an upstream's `next_page` goes only to a `page` the tool takes.
    #[test]
    fn a_page_is_placed_only_where_its_base_is_known_and_no_argument_is_made_up() {
        let doc = json!({ "items": rows(5), "total": 25 });
        // 0-based pages: page 2 of 10 a page is items 21-25, the last.
        let zero = json!({ "properties": { "page": { "minimum": 0 }, "per_page": {} } });
        assert!(coverage_of(&zero, &json!({ "page": 2, "per_page": 10 }), &doc, 5).is_none());
        // A base not stated: no place, so the total says nothing.
        let unstated = json!({ "properties": { "page": {}, "per_page": {} } });
        assert!(coverage_of(&unstated, &json!({ "page": 2, "per_page": 10 }), &doc, 5).is_none());
        // 1-based: page 2 is items 11-15, and page 3 follows.
        let one = json!({ "properties": { "page": { "default": 1 }, "per_page": {} } });
        let c = coverage_of(&one, &json!({ "page": 2, "per_page": 10 }), &doc, 5).unwrap();
        let up = c.upstream_page.unwrap();
        assert_eq!((up.page, up.items_before), (Some(2), Some(10)));
        assert_eq!(c.rest.unwrap().arguments()["page"], 3);
        // `next_page` named by the upstream, no `page` argument: said, not called.
        let other = json!({ "properties": { "pageNumber": {} } });
        let doc = json!({ "results": rows(5), "next_page": 2 });
        let c = coverage_of(&other, &json!({}), &doc, 5).unwrap();
        assert!(c.rest.is_none() && !c.whole);
        // Arguments past any page size do not overflow.
        let huge = json!({ "page": u64::MAX, "per_page": u64::MAX });
        let _ = coverage_of(&one, &huge, &json!({ "items": rows(5), "total": 25 }), 5);
        let huge = json!({ "offset": u64::MAX });
        let offset = json!({ "properties": { "offset": {} } });
        let _ = coverage_of(&offset, &huge, &json!({ "items": rows(5), "total": 25 }), 5);
    }
}
