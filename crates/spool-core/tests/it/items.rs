//! JSON lists paged as items: pages never cut an item, join back to the whole list, stay under
//! the cap, and cursors refuse other lists.

use serde_json::{Value, json};
use spool_core::items::{PageStart, find_list, item_page, store_items, structured};
use spool_core::list_text::item_page_text;
use spool_core::render::Dialect;

use crate::support;

fn rows(n: usize) -> Value {
    Value::Array(
        (0..n)
            .map(|i| json!({ "id": i, "name": format!("row {i}"), "note": "x".repeat(i % 50) }))
            .collect(),
    )
}

fn stored(ts: &support::TestStore, doc: &Value) -> String {
    let whole = support::put(&ts.store, serde_json::to_string(doc).unwrap().as_bytes());
    let (path, items) = find_list(doc).unwrap();
    store_items(&ts.store, &whole, path.as_deref(), items)
        .unwrap()
        .reference
}

#[test]
fn following_cursors_returns_every_item_once_under_the_cap() {
    let ts = support::store();
    let doc = rows(3_000);
    let view = stored(&ts, &doc);
    let mut got = Vec::new();
    let mut page = item_page(&ts.store, &view, PageStart::At(0), None, 2_000).unwrap();
    let mut pages = 0;
    loop {
        pages += 1;
        let text = item_page_text(&page, Dialect::Mcp);
        // The text every front end renders (the CLI prints it) is this page's, gap for gap.
        for dialect in [Dialect::Mcp, Dialect::Cli] {
            let rendered = spool_core::answer::rendered::items(&page, dialect);
            assert_eq!(
                rendered.text.trim_end(),
                item_page_text(&page, dialect).trim_end()
            );
        }
        assert!(
            spool_core::tokens::count(&text) <= 2_000,
            "page {pages} over the cap"
        );
        assert_eq!(page.envelope.total.items, Some(3_000));
        got.extend(page.items.clone());
        let Some(cursor) = page.next_cursor.clone() else {
            assert!(!page.has_more);
            break;
        };
        assert!(page.has_more);
        assert_eq!(
            page.envelope.reason.as_ref().unwrap().code.as_str(),
            "token_cap"
        );
        page = item_page(&ts.store, &view, PageStart::Cursor(&cursor), None, 2_000).unwrap();
    }
    assert!(pages > 10, "{pages} pages");
    assert_eq!(Value::Array(got), doc);
}

#[test]
fn an_object_holding_a_list_pages_that_list_and_says_where_it_is() {
    let ts = support::store();
    let doc = json!({ "total": 40, "rows": rows(40), "tags": ["a"] });
    let view = stored(&ts, &doc);
    let page = item_page(&ts.store, &view, PageStart::At(0), Some(10), 8_000).unwrap();
    assert_eq!(page.items.len(), 10);
    assert!(page.has_more);
    assert_eq!(
        page.envelope.source.version.view().items_at,
        Some(Some("rows".to_owned()))
    );
    assert_eq!(
        page.envelope.reason.as_ref().unwrap().code.as_str(),
        "requested_range"
    );
    let v = structured(&page, Dialect::Mcp);
    assert!(
        v.get("content").is_none(),
        "the items are the content: their text lines are not sent twice"
    );
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys.first().map(|k| k.as_str()), Some("notice"));
    assert_eq!(keys.last().map(|k| k.as_str()), Some("items"));
    assert!(
        v["notice"]
            .as_str()
            .unwrap()
            .starts_with("[PARTIAL: items 1-10 of 40 items")
    );
    assert_eq!(
        v["shown"],
        json!([{ "unit": "items", "start": 0, "end": 10, "bytes": [0, 385] }])
    );
}

#[test]
fn a_small_list_is_complete() {
    let ts = support::store();
    let view = stored(&ts, &rows(3));
    let page = item_page(&ts.store, &view, PageStart::At(0), None, 8_000).unwrap();
    assert!(page.envelope.complete);
    assert!(!page.has_more);
    assert!(page.next_cursor.is_none());
    insta::assert_snapshot!(item_page_text(&page, Dialect::Mcp).lines().next().unwrap()
        .replace(&view, "sp_VIEW"), @"[COMPLETE: 3 items (105 bytes, 45 tokens); test content; stored as sp_VIEW]");
}

#[test]
fn an_item_larger_than_one_answer_is_named_and_can_be_stepped_over() {
    let ts = support::store();
    let doc = json!([{ "a": 1 }, { "big": "y ".repeat(40_000) }, { "c": 3 }]);
    let view = stored(&ts, &doc);
    let first = item_page(&ts.store, &view, PageStart::At(0), None, 1_000).unwrap();
    assert_eq!(first.items, vec![json!({ "a": 1 })]);
    let next = first.next_cursor.unwrap();
    let stuck = item_page(&ts.store, &view, PageStart::Cursor(&next), None, 1_000).unwrap();
    assert!(stuck.items.is_empty());
    assert!(
        stuck.envelope.notes[0].starts_with("item 2 alone is larger than one answer"),
        "{:?}",
        stuck.envelope.notes
    );
    assert_eq!(stuck.envelope.next[0].arguments()["line"], 2);
    let after = item_page(
        &ts.store,
        &view,
        PageStart::Cursor(stuck.next_cursor.as_ref().unwrap()),
        None,
        1_000,
    )
    .unwrap();
    assert_eq!(after.items, vec![json!({ "c": 3 })]);
    assert!(!after.has_more);
}

#[test]
fn cursors_refuse_another_list_and_tampering() {
    let ts = support::store();
    let a = stored(&ts, &rows(50));
    let b = stored(&ts, &rows(50));
    let page = item_page(&ts.store, &a, PageStart::At(0), Some(5), 8_000).unwrap();
    let cursor = page.next_cursor.unwrap();
    let err = item_page(&ts.store, &b, PageStart::Cursor(&cursor), None, 8_000).unwrap_err();
    assert_eq!(err.code().as_str(), "invalid_argument");
    let mut forged = cursor.clone();
    forged.insert(3, 'x');
    let err = item_page(&ts.store, &a, PageStart::Cursor(&forged), None, 8_000).unwrap_err();
    assert_eq!(err.code().as_str(), "invalid_argument");
    // A plain artifact has no items.
    let plain = support::put(&ts.store, b"just text\n");
    let err = item_page(&ts.store, &plain.reference, PageStart::At(0), None, 8_000).unwrap_err();
    assert!(err.to_string().contains("is not a list of items"), "{err}");
}

#[test]
fn a_cap_too_small_for_the_banner_is_an_error_not_a_hang() {
    // Regression: one-token items and a cap under the banner's size looped forever.
    let ts = support::store();
    let view = stored(&ts, &json!([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
    let page = item_page(&ts.store, &view, PageStart::At(0), Some(2), 8_000).unwrap();
    let cursor = page.next_cursor.unwrap();
    let long_note = vec!["a note longer than the whole answer ".repeat(200)];
    let err = spool_core::items::item_page_with_notes(
        &ts.store,
        &view,
        PageStart::Cursor(&cursor),
        None,
        600,
        &long_note,
    )
    .unwrap_err();
    assert_eq!(err.code().as_str(), "invalid_argument");
    assert!(err.to_string().contains("leaves no room"), "{err}");
}

#[test]
fn a_one_item_list_is_no_list() {
    assert!(find_list(&json!([{ "a": 1 }])).is_none());
    assert!(find_list(&json!({ "only": [1] })).is_none());
    assert!(find_list(&json!([1, 2])).is_some());
}

#[test]
fn rows_nested_deep_in_an_answer_are_found_and_named_by_their_path() {
    // @bytebase/dbhub answers so: the rows at `data.statements[0].rows`.
    let doc = json!({
        "success": true,
        "data": { "statements": [{ "sql": "select * from t", "rows": rows(5), "count": 5 }] },
    });
    let (path, items) = find_list(&doc).unwrap();
    assert_eq!(path.as_deref(), Some("data.statements[0].rows"));
    assert_eq!(items.len(), 5);
    let rest = spool_core::items::without_list(&doc, "data.statements[0].rows", 5);
    assert_eq!(
        rest["data"]["statements"][0]["rows"],
        "<the list of 5 items, paged here>"
    );
    assert_eq!(rest["data"]["statements"][0]["sql"], "select * from t");
    // The rows' own small lists are not taken for the list.
    let (path, _) = find_list(&json!({ "rows": rows(3), "meta": { "tags": ["a", "b"] } })).unwrap();
    assert_eq!(path.as_deref(), Some("rows"));
}

/// Regression (found by the fuzz suite): numbers were parsed to the nearest float, not the
/// exact one, so an item page showed `-1.3140934417650375e-135` for an upstream's
/// `-1.3140934417650377e-135`.
#[test]
fn numbers_page_back_exactly_as_the_upstream_wrote_them() {
    let ts = support::store();
    let text = r#"[{"x":-1.3140934417650377e-135},{"x":0.30000000000000004},{"x":1.7976931348623157e308}]"#;
    let doc: Value = serde_json::from_str(text).unwrap();
    let reference = stored(&ts, &doc);
    let page = item_page(&ts.store, &reference, PageStart::At(0), None, 4_000).unwrap();
    let exact: Vec<f64> = [
        "-1.3140934417650377e-135",
        "0.30000000000000004",
        "1.7976931348623157e308",
    ]
    .iter()
    .map(|t| t.parse().unwrap())
    .collect();
    let paged: Vec<f64> = page
        .items
        .iter()
        .map(|i| i["x"].as_f64().unwrap())
        .collect();
    assert_eq!(paged, exact);
}
