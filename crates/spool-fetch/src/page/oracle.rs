//! The claims oracle for pages (issue 38): generated pages whose every word's place is known
//! (the navigation, the main content, a part the page hides until opened, a script, a style),
//! and for each what the stored copy claims to hold checked against that truth: a copy called
//! the page's main content holds every word of it, hidden parts included and marked, and none
//! of the navigation; a copy not called that holds every word a reader can see or open; no
//! copy holds a script's or a style's words; the hidden parts counted are the ones there.

use proptest::prelude::*;

use super::{HIDDEN_END, HIDDEN_START, convert};

/// How a part of the page is hidden until opened.
const HIDING: [&str; 4] = [
    " hidden",
    " style=\"display: none\"",
    " style=\"visibility:hidden\"",
    " aria-hidden=\"true\"",
];

#[derive(Debug, Clone)]
struct Page {
    nav: usize,
    main: usize,
    /// Hidden parts inside the main content: (how, words).
    hidden: Vec<(usize, usize)>,
    /// The main content is marked (`<main>`), or the page has none.
    marked: bool,
}

fn page() -> impl Strategy<Value = Page> {
    (
        0usize..30,
        1usize..60,
        proptest::collection::vec((0..HIDING.len(), 1usize..8), 0..4),
        any::<bool>(),
    )
        .prop_map(|(nav, main, hidden, marked)| Page {
            nav,
            main,
            hidden,
            marked,
        })
}

/// The page's HTML, and its words by where they are.
fn html(p: &Page) -> (String, Vec<String>, Vec<String>, Vec<Vec<String>>) {
    let words = |prefix: &str, n: usize| -> Vec<String> {
        (0..n).map(|i| format!("{prefix}{i}zq")).collect()
    };
    let nav = words("navword", p.nav);
    let main = words("mainword", p.main);
    let hidden: Vec<Vec<String>> = p
        .hidden
        .iter()
        .enumerate()
        .map(|(k, (_, n))| words(&format!("hid{k}word"), *n))
        .collect();
    let mut h = String::from(
        "<html><head><style>.stylewordzq{}</style><script>var scriptwordzq=1;</script></head><body>",
    );
    h.push_str(&format!("<nav><p>{}</p></nav>", nav.join(" ")));
    let (open, close) = if p.marked {
        ("<main>", "</main>")
    } else {
        ("<div>", "</div>")
    };
    h.push_str(open);
    h.push_str(&format!("<p>{}</p>", main.join(" ")));
    for ((how, _), w) in p.hidden.iter().zip(&hidden) {
        h.push_str(&format!(
            "<div role=\"tabpanel\"{}><p>{}</p></div>",
            HIDING[*how],
            w.join(" ")
        ));
    }
    h.push_str(close);
    h.push_str("<script>var laterscriptzq=2;</script></body></html>");
    (h, nav, main, hidden)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn what_a_stored_page_claims_to_hold_is_what_it_holds(p in page(), plain in any::<bool>()) {
        let (html, nav, main, hidden) = html(&p);
        let (out, cleaned) = convert(&html, plain).expect("a page converts");
        for never in ["stylewordzq", "scriptwordzq", "laterscriptzq"] {
            prop_assert!(!out.contains(never), "{} in {}", never, out);
        }
        for w in main.iter().chain(hidden.iter().flatten()) {
            prop_assert!(out.contains(w.as_str()), "{} not in {}", w, out);
        }
        match cleaned.main {
            // Called the main content: none of the navigation, and a share below the whole.
            Some(_) => {
                for w in &nav {
                    prop_assert!(!out.contains(w.as_str()), "{} in a main-only copy", w);
                }
                prop_assert!(cleaned.main_percent < 100);
            }
            // Not called that: every word a reader sees.
            None => {
                for w in &nav {
                    prop_assert!(out.contains(w.as_str()), "{} not in the whole copy", w);
                }
            }
        }
        // Every hidden part is there, marked, and counted.
        prop_assert_eq!(cleaned.hidden_kept, hidden.len());
        prop_assert_eq!(out.matches(HIDDEN_START).count(), hidden.len());
        prop_assert_eq!(out.matches(HIDDEN_END).count(), hidden.len());
        for w in hidden.iter().flatten() {
            let at = out.find(w.as_str()).unwrap_or(0);
            let start = out[..at].rfind(HIDDEN_START);
            let end = out[..at].rfind(HIDDEN_END);
            prop_assert!(start.is_some() && start > end, "{} is not between the marks: {}", w, out);
        }
    }
}
