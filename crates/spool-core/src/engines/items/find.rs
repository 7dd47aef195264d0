//! Where a JSON document keeps its list: the document itself, or the largest array inside it
//! (a field, or deeper, as database servers nest their rows), and the document with that list
//! left out (the context a page of its items is shown with).

use serde_json::Value;

/// How deep inside a document a list is looked for.
const LIST_DEPTH: usize = 8;

/// The list inside a JSON document: the document itself when it is an array, else the largest
/// array inside it (by items; the shallower of two as large), wherever it is: a field
/// (`rows`), or deeper, as database servers nest their rows (`data.statements[0].rows`). The
/// path names it (`None` for the document itself). A list of one item is no list: a text window
/// shows such a document better.
pub fn find_list(doc: &Value) -> Option<(Option<String>, &[Value])> {
    if let Value::Array(items) = doc {
        return (items.len() > 1).then_some((None, items.as_slice()));
    }
    let mut best: Option<(String, &[Value], usize)> = None;
    let mut path = String::new();
    largest_list(doc, &mut path, 0, &mut best);
    best.map(|(path, items, _)| (Some(path), items))
}

fn largest_list<'a>(
    v: &'a Value,
    path: &mut String,
    depth: usize,
    best: &mut Option<(String, &'a [Value], usize)>,
) {
    if depth > LIST_DEPTH {
        return;
    }
    let visit =
        |child: &'a Value, path: &mut String, best: &mut Option<(String, &'a [Value], usize)>| {
            if let Value::Array(items) = child
                && items.len() > 1
                && best.as_ref().is_none_or(|(_, b, d)| {
                    items.len() > b.len() || items.len() == b.len() && depth < *d
                })
            {
                *best = Some((path.clone(), items.as_slice(), depth));
            }
            largest_list(child, path, depth + 1, best);
        };
    match v {
        Value::Object(fields) => {
            for (k, child) in fields {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                visit(child, path, best);
                path.truncate(len);
            }
        }
        // Inside a list, only a list of one (a wrapper, as `statements[0]`) is looked into:
        // the items of a list are its rows, not containers of another list.
        Value::Array(items) if items.len() == 1 && depth > 0 => {
            let len = path.len();
            path.push_str("[0]");
            visit(&items[0], path, best);
            path.truncate(len);
        }
        _ => {}
    }
}

/// The document with the list at `path` replaced by a short note of its size: the context an
/// item page shows beside the items.
pub fn without_list(doc: &Value, path: &str, items: usize) -> Value {
    let mut doc = doc.clone();
    if let Some(list) = at_path(&mut doc, path) {
        *list = Value::String(format!("<the list of {items} items, paged here>"));
    }
    doc
}

fn at_path<'v>(mut at: &'v mut Value, path: &str) -> Option<&'v mut Value> {
    for segment in path_segments(path) {
        at = match (segment, at) {
            (Segment::Key(k), Value::Object(fields)) => fields.get_mut(k)?,
            (Segment::Index(i), Value::Array(list)) => list.get_mut(i)?,
            _ => return None,
        };
    }
    Some(at)
}

enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

/// `data.statements[0].rows` as its keys and indexes.
fn path_segments(path: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            out.push(Segment::Key(key));
        }
        while let Some((index, after)) = rest.split_once(']') {
            if let Ok(i) = index.parse() {
                out.push(Segment::Index(i));
            }
            rest = after.strip_prefix('[').unwrap_or(after);
        }
    }
    out
}
