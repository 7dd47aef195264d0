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
/// Keys whose `true` says more exist.
const MORE_KEYS: [&str; 10] = [
    "hasMore",
    "has_more",
    "hasNextPage",
    "has_next_page",
    "moreResults",
    "more_results",
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
            pages.insert(Self::key(&call.tool, &call.arguments), at);
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
    /// Reads the paging facts of one object; `at` names where it is (`links.`).
    fn read(&mut self, o: &Map<String, Value>, at: &str) {
        for (k, v) in o {
            let key = format!("{at}{k}");
            if CURSOR_KEYS.contains(&k.as_str()) {
                let cursor = match v {
                    Value::String(s) if !s.is_empty() => Some(v.clone()),
                    Value::Number(_) => Some(v.clone()),
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
            } else if MORE_KEYS.contains(&k.as_str()) && v == &Value::Bool(true) {
                self.facts.insert(key, v.clone());
                self.more = true;
            } else if TOTAL_KEYS.contains(&k.as_str())
                && let Some(n) = v.as_u64()
            {
                self.total.get_or_insert(n);
            } else if matches!(k.as_str(), "next_page" | "nextPage")
                && let Some(n) = v.as_u64()
            {
                self.facts.insert(key, v.clone());
                self.next_page = Some(n);
                self.more = true;
            } else if k == "next" && !at.is_empty() {
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
    let (page, items_before) = position(call, &args, items);
    // A total beyond the items says more only where this page's place is known: a last
    // short page asked for by number alone is not "more".
    if let (Some(total), Some(n), Some(before)) = (said.total, items, items_before)
        && total > before + n
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
    if let (Some(next), Some(page), Some(n)) = (&next, page, items) {
        call.pages
            .note(next, (page + 1, items_before.unwrap_or(0) + n));
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

/// Where this page stands in the upstream's list: (its number, the items before it). The
/// first page is the one asked for without a cursor, page or offset.
fn position(
    call: &Call<'_>,
    args: &Map<String, Value>,
    items: Option<u64>,
) -> (Option<u64>, Option<u64>) {
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
    if let Some(page) = num("page").filter(|p| *p >= 1) {
        let per = ["per_page", "page_size", "perPage", "pageSize", "limit"]
            .into_iter()
            .find_map(|k| num(k).or_else(|| default(k)));
        let before = if page == 1 {
            Some(0)
        } else {
            per.map(|per| per * (page - 1))
        };
        return (Some(page), before);
    }
    if let Some(offset) = num("offset").or_else(|| num("skip")) {
        let page = items
            .filter(|n| *n > 0 && offset % n == 0)
            .map(|n| offset / n + 1);
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
        return Some(NextCall {
            tool: call.exposed.to_owned(),
            arguments: next,
        });
    }
    // By page or by offset only where nothing else can be meant: the upstream named the next
    // page, or this call paged so, or the tool takes a page (an offset) and no cursor. A
    // `links.next` URL or a bare `truncated` names no argument: no call is made up.
    let by = |name: &str| {
        args.contains_key(name) || takes(name) && !takes_a_cursor && said.total.is_some()
    };
    if said.next_page.is_some() || by("page") {
        let page = said
            .next_page
            .or_else(|| args.get("page").and_then(Value::as_u64).map(|p| p + 1))
            .unwrap_or(2);
        next.insert("page".into(), Value::from(page));
    } else if let Some(n) = items
        && let Some(name) = ["offset", "skip"].into_iter().find(|a| by(a))
    {
        let offset = args.get(name).and_then(Value::as_u64).unwrap_or(0);
        next.insert(name.into(), Value::from(offset + n));
    } else {
        return None;
    }
    Some(NextCall {
        tool: call.exposed.to_owned(),
        arguments: next,
    })
}
