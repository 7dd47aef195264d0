//! Fuzz-style properties over what a page can send: any bytes labelled HTML (deep or broken
//! nesting, entities, NULs, invalid UTF-8, charset declarations) converts without a panic, in
//! every format, to a bounded text.

use proptest::prelude::*;

use crate::convert::{Format, convert};

const TAGS: [&str; 18] = [
    "b",
    "div",
    "p",
    "table",
    "tr",
    "td",
    "script",
    "style",
    "pre",
    "code",
    "a href=\"x\"",
    "ul",
    "li",
    "h1",
    "br",
    "textarea",
    "svg",
    "template",
];

/// One piece of a hostile page.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => "[a-z <>&;\"'=/!-]{0,24}".prop_map(String::into_bytes),
        3 => prop::sample::select(&TAGS[..]).prop_map(|t| format!("<{t}>").into_bytes()),
        2 => prop::sample::select(&TAGS[..])
            .prop_map(|t| format!("</{}>", t.split(' ').next().unwrap_or(t)).into_bytes()),
        // Deep nesting, closed or not.
        1 => (prop::sample::select(&TAGS[..]), 1usize..5_000, any::<bool>()).prop_map(|(t, n, close)| {
            let name = t.split(' ').next().unwrap_or(t);
            let mut s = format!("<{t}>").repeat(n);
            if close {
                s.push_str(&format!("</{name}>").repeat(n));
            }
            s.into_bytes()
        }),
        1 => prop::sample::select(&["&amp;", "&#0;", "&#x10FFFF;", "&#xFFFFFFFF;", "&#99999999999;", "&bogus", "&lt;!--"][..])
            .prop_map(|e| e.as_bytes().to_vec()),
        1 => prop::sample::select(&[
            "<meta charset=\"shift_jis\">", "<meta charset=utf-16le>", "<meta charset=\"x-nope\">",
            "<!--", "-->", "<![CDATA[", "<!DOCTYPE html>", "<?xml ?>", "<a href='javascript:1'>",
            "<img src=x onerror=y>", "<table><td><table><td>", "\u{feff}",
        ][..]).prop_map(|e| e.as_bytes().to_vec()),
        1 => prop::collection::vec(any::<u8>(), 1..16),
        1 => (1usize..4_000).prop_map(|n| vec![0u8; n]),
    ]
}

fn page() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(piece(), 0..48).prop_map(|v| v.concat())
}

/// Cases per property: `SPOOL_FUZZ_CASES` runs more (the figures in docs/hardening.md).
fn cases(default: u32) -> u32 {
    std::env::var("SPOOL_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(128), ..ProptestConfig::default() })]

    #[test]
    fn any_page_converts_without_a_panic_to_a_bounded_text(
        body in page(),
        content_type in prop::sample::select(&[
            "text/html", "text/html; charset=utf-8", "text/html; charset=windows-1252",
            "application/xhtml+xml", "", "text/plain", "application/json",
        ][..]),
        format in prop::sample::select(&[Format::Markdown, Format::Text, Format::Raw][..]),
    ) {
        let out = convert(content_type, &body, format);
        // Decoding may widen a byte to a replacement char (3 bytes); a conversion past 8 times
        // the page and 1 MiB is not kept.
        prop_assert!(
            out.bytes.len() <= body.len() * 8 + (1 << 20),
            "{} bytes from {} ({})", out.bytes.len(), body.len(), out.form
        );
        if out.form != "binary" {
            prop_assert!(std::str::from_utf8(&out.bytes).is_ok(), "stored text is UTF-8");
        }
    }
}
