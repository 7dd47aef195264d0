//! A page's HTML made into what is stored and searched: what a reader never sees (scripts,
//! styles, templates) left out, what the page hides until a reader opens it (tab panels,
//! accordions: `hidden`, `display:none`, `aria-hidden` text) kept and marked, the main content
//! kept alone when the page marks it and it holds most of the text, and every word as it
//! stands on the page.
//!
//! Regression (issue 38): hidden tab panels were left out, and a search of the copy answered
//! "no hits; searched all 1,055 lines" for a word in the second tab of a docs page.
//!
//! Regression: markdown escaping wrote `MCP_DISCOVERY_CACHE` in a table cell as
//! `MCP\_DISCOVERY\_CACHE`, so a literal search for the name answered "no hits": a false
//! absence. The stored markdown keeps the page's characters (see [`unescape`]).

use std::rc::Rc;

#[cfg(test)]
mod oracle;

use html5ever::serialize::{SerializeOpts, TraversalScope};
use markup5ever_rcdom::{Handle, Node, NodeData, SerializableHandle};

/// Elements whose content no reader sees.
const UNSEEN: [&str; 5] = ["script", "style", "noscript", "template", "iframe"];

/// The main content is kept alone only when it holds at least this share of the page's text
/// (one part in `MAIN_SHARE`): a `<main>` that is a shell filled by script is not the page.
const MAIN_SHARE: usize = 4;

/// The marks around what the page hides until a reader opens it, kept in the copy: a search
/// finds them, and a reader knows the text between them was not on the screen at first.
pub const HIDDEN_START: &str = "[hidden on the page]";
pub const HIDDEN_END: &str = "[end of hidden part]";

/// What cleaning a page did, for the answer and the version.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Cleaned {
    /// Elements left out because no reader sees them.
    pub unseen: usize,
    /// Elements the page hides until opened, kept and marked (the outermost of each).
    pub hidden_kept: usize,
    /// The element kept as the main content (`main`, `[role=main]`, `article`), when one was.
    pub main: Option<&'static str>,
    /// The share of the page's text the main content holds, in percent.
    pub main_percent: u8,
}

fn element_name(node: &Node) -> Option<&str> {
    match &node.data {
        NodeData::Element { name, .. } => Some(&name.local),
        _ => None,
    }
}

fn attr(node: &Node, wanted: &str) -> Option<String> {
    let NodeData::Element { attrs, .. } = &node.data else {
        return None;
    };
    attrs
        .borrow()
        .iter()
        .find(|a| &*a.name.local == wanted)
        .map(|a| a.value.to_string())
}

/// Whether a reader of the page never sees `node`: a script, a style, a template; or an
/// element hidden from assistive technology that holds no word (an icon, a `¶` anchor).
fn unseen(node: &Handle) -> bool {
    let Some(name) = element_name(node) else {
        return false;
    };
    UNSEEN.contains(&name) || aria_hidden(node) && !has_words(node)
}

fn aria_hidden(node: &Node) -> bool {
    attr(node, "aria-hidden").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// Whether the page hides `node` until a reader opens it (a tab panel, an accordion, a
/// dialog): `hidden`, `display:none`, `visibility:hidden`, or `aria-hidden` with words in it.
fn hidden(node: &Node) -> bool {
    if element_name(node).is_none() {
        return false;
    }
    if attr(node, "hidden").is_some() || aria_hidden(node) {
        return true;
    }
    attr(node, "style").is_some_and(|s| {
        let s: String = s
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        s.contains("display:none") || s.contains("visibility:hidden")
    })
}

/// Whether there is a letter or a digit in the text under `node`.
fn has_words(node: &Handle) -> bool {
    match &node.data {
        NodeData::Text { contents } => contents.borrow().chars().any(char::is_alphanumeric),
        _ => node.children.borrow().iter().any(has_words),
    }
}

/// A text node holding `text`, a child of `parent`.
fn text_node(parent: &Handle, text: &str) -> Handle {
    let node = Node::new(NodeData::Text {
        contents: std::cell::RefCell::new(text.into()),
    });
    node.parent.set(Some(Rc::downgrade(parent)));
    node
}

/// Marks each outermost element under `node` that the page hides: its text stays, between
/// [`HIDDEN_START`] and [`HIDDEN_END`]. How many it marked.
fn mark_hidden(node: &Handle) -> usize {
    let mut marked = 0;
    for child in node.children.borrow().iter() {
        if hidden(child) {
            let mut kids = child.children.borrow_mut();
            kids.insert(0, text_node(child, &format!("{HIDDEN_START} ")));
            kids.push(text_node(child, &format!(" {HIDDEN_END}")));
            marked += 1;
        } else if element_name(child) == Some("details") && attr(child, "open").is_none() {
            // A closed `<details>` shows its `<summary>` and hides the rest until opened.
            // Regression (issue 57): its text was kept unmarked, and a page with one said
            // "2 elements the page hides" where there were 3.
            let mut kids = child.children.borrow_mut();
            let after_summary = kids
                .iter()
                .position(|k| element_name(k) == Some("summary"))
                .map_or(0, |i| i + 1);
            kids.insert(after_summary, text_node(child, &format!("{HIDDEN_START} ")));
            kids.push(text_node(child, &format!(" {HIDDEN_END}")));
            marked += 1;
        } else {
            marked += mark_hidden(child);
        }
    }
    marked
}

/// Takes what no reader sees out of the tree under `node`; how many elements it took.
fn drop_unseen(node: &Handle) -> usize {
    let mut dropped = 0;
    node.children.borrow_mut().retain(|c| {
        let keep = !unseen(c);
        dropped += usize::from(!keep);
        keep
    });
    for child in node.children.borrow().iter() {
        dropped += drop_unseen(child);
    }
    dropped
}

/// The characters of text under `node`.
fn text_len(node: &Handle) -> usize {
    let own = match &node.data {
        NodeData::Text { contents } => contents.borrow().trim().chars().count(),
        _ => 0,
    };
    own + node.children.borrow().iter().map(text_len).sum::<usize>()
}

/// The first element under `node` that `is` picks, in document order.
fn find(node: &Handle, is: &dyn Fn(&Node) -> bool) -> Option<Handle> {
    if is(node) {
        return Some(Rc::clone(node));
    }
    node.children.borrow().iter().find_map(|c| find(c, is))
}

/// Every element under `node` that `is` picks.
fn count(node: &Handle, is: &dyn Fn(&Node) -> bool) -> usize {
    usize::from(is(node))
        + node
            .children
            .borrow()
            .iter()
            .map(|c| count(c, is))
            .sum::<usize>()
}

/// The element the page marks as its main content, and how it is marked.
fn main_element(document: &Handle) -> Option<(Handle, &'static str)> {
    if let Some(m) = find(document, &|n| element_name(n) == Some("main")) {
        return Some((m, "main"));
    }
    if let Some(m) = find(document, &|n| {
        element_name(n).is_some() && attr(n, "role").is_some_and(|r| r.trim() == "main")
    }) {
        return Some((m, "[role=main]"));
    }
    let article = |n: &Node| element_name(n) == Some("article");
    // Several articles are a list of them (a blog's front page): the page is all of them.
    (count(document, &article) == 1)
        .then(|| find(document, &article).map(|a| (a, "article")))
        .flatten()
}

/// Cleans the parsed page and picks what is converted: the main content, or the document. The
/// hidden parts of what is converted are marked last, so the marks count in no share.
pub fn clean(document: &Handle) -> (Handle, Cleaned) {
    let mut cleaned = Cleaned {
        unseen: drop_unseen(document),
        ..Cleaned::default()
    };
    let whole = text_len(document);
    let mut root = Rc::clone(document);
    if let Some((main, how)) = main_element(document) {
        let kept = text_len(&main);
        if whole > 0 && kept * MAIN_SHARE >= whole && kept < whole {
            cleaned.main = Some(how);
            cleaned.main_percent = u8::try_from(kept * 100 / whole).unwrap_or(100);
            root = main;
        }
    }
    cleaned.hidden_kept = if hidden(&root) {
        // The main content itself hidden: all of it is marked.
        let mut kids = root.children.borrow_mut();
        kids.insert(0, text_node(&root, &format!("{HIDDEN_START} ")));
        kids.push(text_node(&root, &format!(" {HIDDEN_END}")));
        1
    } else {
        mark_hidden(&root)
    };
    (root, cleaned)
}

/// The page as markdown (or plain text, wrapped at 100 columns), cleaned, and what cleaning
/// left out. `None` when it cannot be parsed.
pub fn convert(html: &str, plain: bool) -> Option<(String, Cleaned)> {
    let converter = htmd::HtmlToMarkdown::new();
    let document = converter.html_to_tree(html).ok()?;
    let (root, cleaned) = clean(&document);
    if !plain {
        return Some((unescape(&converter.tree_to_markdown(&root)), cleaned));
    }
    // The plain text converter reads HTML: it is given the cleaned part, written back.
    let scope = if matches!(root.data, NodeData::Document) {
        TraversalScope::ChildrenOnly(None)
    } else {
        TraversalScope::IncludeNode
    };
    let mut cleaned_html = Vec::new();
    html5ever::serialize(
        &mut cleaned_html,
        &SerializableHandle::from(root),
        SerializeOpts {
            traversal_scope: scope,
            ..SerializeOpts::default()
        },
    )
    .ok()?;
    let text = html2text::from_read(cleaned_html.as_slice(), 100).ok()?;
    Some((text, cleaned))
}

/// `md` with the backslash escapes of the converter taken out of its text, so that the stored
/// page has the page's characters: `MCP_DISCOVERY_CACHE`, not `MCP\_DISCOVERY\_CACHE`. Code
/// spans and fenced blocks are copied as they are (their backslashes are the page's). The
/// converter escapes every backslash in text, so each one left in text is an escape.
pub fn unescape(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut fence: Option<(u8, usize)> = None;
    for line in md.split_inclusive('\n') {
        let body = line.trim_start_matches(' ');
        let run = |c: u8| body.bytes().take_while(|b| *b == c).count();
        if let Some((c, n)) = fence {
            out.push_str(line);
            if run(c) >= n && body[run(c)..].trim().is_empty() {
                fence = None;
            }
            continue;
        }
        if let Some(c) = [b'`', b'~'].into_iter().find(|c| run(*c) >= 3) {
            fence = Some((c, run(c)));
            out.push_str(line);
            continue;
        }
        unescape_line(line, &mut out);
    }
    out
}

/// Characters the converter escapes in text.
fn escaped(c: u8) -> bool {
    matches!(
        c,
        b'\\'
            | b'*'
            | b'_'
            | b'`'
            | b'['
            | b']'
            | b'.'
            | b'='
            | b'~'
            | b'>'
            | b'-'
            | b'+'
            | b'#'
            | b'<'
    )
}

fn unescape_line(line: &str, out: &mut String) {
    let bytes = line.as_bytes();
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if bytes.get(i + 1).copied().is_some_and(escaped) => {
                out.push_str(&line[copied..i]);
                copied = i + 1;
                i += 2;
            }
            b'`' => {
                // A code span: from a run of backticks to the next run of the same length.
                let n = bytes[i..].iter().take_while(|b| **b == b'`').count();
                let after = i + n;
                let mut j = after;
                let mut close = None;
                while j < bytes.len() {
                    if bytes[j] == b'`' {
                        let m = bytes[j..].iter().take_while(|b| **b == b'`').count();
                        if m == n {
                            close = Some(j + m);
                            break;
                        }
                        j += m;
                    } else {
                        j += 1;
                    }
                }
                i = close.unwrap_or(after);
            }
            _ => i += 1,
        }
    }
    out.push_str(&line[copied..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_loses_its_escapes_and_code_keeps_its_backslashes() {
        assert_eq!(
            unescape(r"| MCP\_DISCOVERY\_CACHE | a\\b |"),
            r"| MCP_DISCOVERY_CACHE | a\b |"
        );
        assert_eq!(
            unescape(r"\# not a heading, 1\. item, \[x\]"),
            "# not a heading, 1. item, [x]"
        );
        assert_eq!(unescape(r"see `a\_b` and \`x\`"), r"see `a\_b` and `x`");
        assert_eq!(unescape(r"``a ` \_ b`` c\_d"), r"``a ` \_ b`` c_d");
        let block = "```\nre = r\"\\_\"\n```\nafter\\_it\n";
        assert_eq!(unescape(block), "```\nre = r\"\\_\"\n```\nafter_it\n");
        // A backslash before a letter was not made by the converter: it stays.
        assert_eq!(unescape(r"C:\Users"), r"C:\Users");
    }

    fn page(body: &str) -> String {
        format!("<html><head><style>p{{color:red}}</style></head><body>{body}</body></html>")
    }

    /// What no reader sees is left out; what the page hides until opened (a tab, an
    /// accordion) is kept, between marks (regression, issue 38: it was left out).
    #[test]
    fn what_no_reader_sees_is_left_out_and_what_the_page_hides_is_kept_marked() {
        let html = page(
            "<script>var t='secret_tracking';</script><p>shown_text</p>\
             <div hidden>h1dden</div><span aria-hidden=\"true\">ar1a</span>\
             <span aria-hidden=\"true\">\u{b6}</span>\
             <p style=\"DISPLAY : none\">n0ne</p><template><p>t3mplate</p></template>\
             <noscript>n0script</noscript>\
             <details><summary>More options</summary><p>d3tails</p></details>\
             <details open><summary>Shown</summary><p>0pened</p></details>",
        );
        for plain in [false, true] {
            let (out, cleaned) = convert(&html, plain).unwrap();
            assert!(out.contains("shown_text"), "{out}");
            for gone in ["secret_tracking", "color", "t3mplate", "n0script", "\u{b6}"] {
                assert!(!out.contains(gone), "{gone} in {out}");
            }
            for kept in ["h1dden", "ar1a", "n0ne", "d3tails"] {
                let at = out
                    .find(kept)
                    .unwrap_or_else(|| panic!("{kept} not in {out}"));
                let before = out[..at].rfind(HIDDEN_START).unwrap();
                let end = out[at..].find(HIDDEN_END).unwrap();
                assert!(before < at && end > 0, "{kept} is not marked: {out}");
                assert!(!out[before..at].contains(HIDDEN_END), "{out}");
            }
            // script, style, template, noscript and the wordless icon.
            assert_eq!(cleaned.unseen, 5);
            // The closed `<details>`: its summary is on the screen, the rest hidden; an open
            // one is shown whole.
            let summary = out.find("More options").unwrap();
            let start = out
                .find("d3tails")
                .and_then(|at| out[..at].rfind(HIDDEN_START));
            assert!(start.is_some_and(|s| s > summary), "{out}");
            let opened = out.find("0pened").unwrap();
            assert!(
                !out[..opened]
                    .rsplit(HIDDEN_END)
                    .next()
                    .unwrap()
                    .contains(HIDDEN_START),
                "{out}"
            );
            assert_eq!(cleaned.hidden_kept, 4);
            assert_eq!(cleaned.main, None);
        }
    }

    #[test]
    fn the_main_content_is_kept_alone_only_when_it_holds_the_page() {
        let nav = "<nav>".to_owned() + &"<a href=x>menu entry</a>".repeat(20) + "</nav>";
        let text = "a paragraph of the real content. ".repeat(20);
        let (out, cleaned) =
            convert(&page(&format!("{nav}<main><p>{text}</p></main>")), false).unwrap();
        assert_eq!(cleaned.main, Some("main"));
        assert!(
            !out.contains("menu entry") && out.contains("real content"),
            "{out}"
        );
        // A main that is a shell (the text is elsewhere) is not the page.
        let (out, cleaned) = convert(
            &page(&format!("<main><p>tiny</p></main><div><p>{text}</p></div>")),
            false,
        )
        .unwrap();
        assert_eq!(cleaned.main, None);
        assert!(out.contains("tiny") && out.contains("real content"));
        // One article is the content; several are a list of them.
        let one = format!("{nav}<article><p>{text}</p></article>");
        assert_eq!(convert(&page(&one), true).unwrap().1.main, Some("article"));
        let two = format!("{nav}<article><p>{text}</p></article><article><p>{text}</p></article>");
        assert_eq!(convert(&page(&two), true).unwrap().1.main, None);
        let role = format!("{nav}<div role=\"main\"><p>{text}</p></div>");
        let (out, cleaned) = convert(&page(&role), true).unwrap();
        assert_eq!(cleaned.main, Some("[role=main]"));
        assert!(!out.contains("menu entry"), "{out}");
    }
}
