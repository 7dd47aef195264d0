//! Bounds on turning hostile HTML into text: nesting that cannot overflow a stack, a size past
//! which a page is stored as it came instead of converted, and a thread with room to work.
//!
//! Regressions: 6 KB of 2,000 nested `<b>` overflowed a stack and aborted `spool serve`; 50 MiB
//! of NULs labelled `text/html` took 5.0 GB to convert, 48 MB of `<p>a</p>` 2.26 GB.

/// How deep elements nest before deeper tags are dropped (their text is kept).
pub const MAX_DEPTH: usize = 256;

/// HTML past this many bytes is stored as it came (decoded text), not converted: conversion
/// takes tens of times a page's size in memory.
pub const MAX_CONVERT: usize = 4 << 20;

/// HTML past this many bytes, or with more tags than [`MAX_TEXT_TAGS`], is converted to
/// markdown when plain text is asked for: the plain text converter takes hundreds of times a
/// page's size in memory (4 MB of `<p>a</p>` took 1.1 GB; markdown 190 MB) and pads every
/// line of a table to its width (1 M `<br>` in a cell made 101 MB of text).
pub const MAX_TEXT: usize = 1 << 20;

/// A conversion larger than this many times the page (plus 1 MiB) is not kept: see
/// `html_to_text`.
pub const MAX_GROWTH: usize = 8;

/// See [`MAX_TEXT`].
pub const MAX_TEXT_TAGS: usize = 50_000;

/// The stack the conversion runs on: the parser and converters recurse by element.
const STACK: usize = 64 << 20;

/// Elements whose end tag may be left out (`<li>a<li>b`): they do not count as nesting, or a
/// long list written so would pass the limit.
const OPTIONAL_END: [&str; 16] = [
    "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "thead", "tbody", "tfoot",
    "colgroup", "caption", "rp", "rt",
];

/// Elements that never have an end tag.
const VOID: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// `html` with every tag deeper than `max` nested elements left out, and how many were.
/// Text, comments and the raw text of `script`, `style`, `textarea` and `title` are kept as
/// they are; a tag is the text from `<` to the next `>` outside quotes.
pub fn flatten(html: &str, max: usize) -> (String, usize) {
    let bytes = html.as_bytes();
    let mut out = String::with_capacity(html.len());
    let mut depth = 0usize;
    let mut dropped = 0usize;
    let mut foreign = false;
    let mut at = 0;
    let mut copied = 0;
    while let Some(lt) = memchr::memchr(b'<', &bytes[at..]).map(|i| at + i) {
        let Some(end) = tag_end(bytes, lt) else {
            break;
        };
        let tag = &html[lt + 1..end];
        if tag.starts_with("!--") || tag.starts_with('!') || tag.starts_with('?') {
            at = end + 1;
            continue;
        }
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect::<String>()
            .to_ascii_lowercase();
        if name.is_empty() {
            at = lt + 1;
            continue;
        }
        let void = VOID.contains(&name.as_str())
            || OPTIONAL_END.contains(&name.as_str())
            || tag.ends_with('/');
        let keep = if void {
            depth < max
        } else if closing {
            let keep = depth <= max;
            depth = depth.saturating_sub(1);
            keep
        } else {
            depth += 1;
            depth <= max
        };
        if !keep {
            out.push_str(&html[copied..lt]);
            copied = end + 1;
            dropped += 1;
        }
        at = end + 1;
        // Raw text elements: their content is text, whatever it looks like. Not inside SVG or
        // MathML, where the parser reads the same elements' content as markup; once either
        // has started, their content is counted as tags (more is left out, never less).
        foreign |= !closing && matches!(name.as_str(), "svg" | "math");
        if !closing
            && !foreign
            && matches!(name.as_str(), "script" | "style" | "textarea" | "title")
        {
            at = raw_text_end(bytes, at, &name);
        }
    }
    out.push_str(&html[copied..]);
    (out, dropped)
}

/// Where the tag starting at `lt` ends (its `>`), as the HTML tokenizer finds it: a quote
/// quotes only where an attribute value starts (after `=` and any spaces). Regression: every
/// quote was taken to open a quoted run, so `</y-"a""` hid the 4,468 nested `<code>` after it
/// from the depth limit, and converting those 27 KB took minutes.
fn tag_end(bytes: &[u8], lt: usize) -> Option<usize> {
    let mut value_starts = false;
    let mut i = lt + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'>' => return Some(i),
            b'=' => value_starts = true,
            q @ (b'"' | b'\'') if value_starts => {
                i += 1 + memchr::memchr(q, &bytes[i + 1..])?;
                value_starts = false;
            }
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => {}
            _ => value_starts = false,
        }
        i += 1;
    }
    None
}

/// Where the raw text of `name` (lowercase) starting at `from` ends: its `</name`, in any
/// case, found without copying the rest of the page.
fn raw_text_end(bytes: &[u8], from: usize, name: &str) -> usize {
    let mut at = from;
    while let Some(i) = memchr::memmem::find(&bytes[at..], b"</") {
        let start = at + i + 2;
        let here = bytes.get(start..start + name.len());
        if here.is_some_and(|h| h.eq_ignore_ascii_case(name.as_bytes())) {
            return at + i;
        }
        at = start;
    }
    bytes.len()
}

/// Runs `work` on a thread with a stack the converters cannot outgrow on flattened input; a
/// panic in it is `None`.
pub fn with_room<T: Send>(work: impl FnOnce() -> T + Send) -> Option<T> {
    std::thread::scope(|s| {
        spool_walk::workers::spawn_scoped_sized(s, "convert", STACK, work)
            .ok()?
            .join()
            .ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_nesting_is_cut_and_the_text_kept() {
        let html = format!("{}deep{}", "<b>".repeat(2_000), "</b>".repeat(2_000));
        let (flat, dropped) = flatten(&html, 256);
        assert_eq!(dropped, 2 * (2_000 - 256));
        assert!(flat.contains("deep"));
        assert_eq!(flat.matches("<b>").count(), 256);
        assert_eq!(flat.matches("</b>").count(), 256);
    }

    #[test]
    fn a_long_list_without_end_tags_is_not_deep() {
        let html = format!("<ul>{}</ul>", "<li>item".repeat(1_000));
        assert_eq!(flatten(&html, 256).1, 0);
    }

    #[test]
    fn shallow_pages_are_unchanged() {
        let html = "<html><head><title>a < b</title><script>if (a<b) {}</script></head><body><p class=\"x>y\">t<br>u</p><!-- <b> --></body></html>";
        assert_eq!(flatten(html, 256), (html.to_owned(), 0));
    }

    /// Regressions found by the fuzz suite: nesting the parser sees but the depth limit did
    /// not, so the converters walked thousands of levels (27 KB took minutes).
    #[test]
    fn a_quote_outside_an_attribute_value_hides_no_nesting() {
        let html = format!(
            "</y-\"/la\"\"-&/-{}<textarea>x<table>",
            "<code>".repeat(4_468)
        );
        let (flat, dropped) = flatten(&html, 256);
        assert_eq!(dropped, 4_468 - 256, "{}", &flat[..200]);
        // A quote does quote an attribute value, `>` and all.
        let html = format!("<a title = 'x>y'>{}", "<b>".repeat(300));
        assert_eq!(flatten(&html, 256).1, 300 - 255);
    }

    #[test]
    fn raw_text_inside_svg_or_math_is_markup() {
        for open in ["<svg><style>", "<math><title>"] {
            let html = format!("{open}{}", "<b>".repeat(1_000));
            assert!(flatten(&html, 256).1 > 700, "{open}");
        }
        let html = format!("<style>{}</STYLE>", "<b>".repeat(1_000));
        assert_eq!(flatten(&html, 256).1, 0, "outside them, style is text");
    }
}
