//! Ranked word search: the passage an agent describes without knowing its name comes first,
//! every passage holding a word is counted, and the answer says what it looked for and where.

use spool_core::render::Dialect;
use spool_core::search::{Paging, notice, search_words};

use crate::support::{put, settings_page, store};

#[test]
fn the_row_a_question_describes_comes_first_without_its_name() {
    let s = store();
    let meta = put(&s.store, settings_page().as_bytes());
    let question = "skip connecting to remote servers at startup";
    let a = search_words(&s.store, &meta.reference, question, &Paging::default()).unwrap();
    let top: Vec<&str> = a.hits.iter().take(3).map(|h| h.text.as_str()).collect();
    assert!(
        top.iter().any(|t| t.contains("MCP_DISCOVERY_CACHE")),
        "top 3: {top:#?}"
    );
    assert!(
        a.hits[0].text.contains("MCP_DISCOVERY_CACHE"),
        "{:#?}",
        a.hits[0]
    );
    // Every passage that holds any of the words is counted: the five rows and the paragraph.
    assert_eq!(a.hit_count, 6, "{:#?}", a.hits);
    let words = a.query.words.as_ref().unwrap();
    assert_eq!(words.left_out, ["to", "at"]);
    // A hit is the stored text of its lines, with its score.
    let first = &a.hits[0];
    assert_eq!(first.end_line, Some(first.line));
    assert!(first.score.unwrap() > a.hits[1].score.unwrap());
    let text = notice(&a, Dialect::Cli);
    assert!(text.contains("6 passages holding any of the words skip, connecting, remote, servers, startup (left out as too common: to, at)"), "{text}");
    assert!(
        text.contains(&format!(
            "spool search MCP_DISCOVERY_CACHE {} -F",
            meta.reference
        )),
        "the name it surfaced is offered as a literal search: {text}"
    );
}

#[test]
fn pages_continue_by_cursor_and_the_index_is_built_once() {
    let s = store();
    let meta = put(&s.store, settings_page().as_bytes());
    let paging = Paging {
        limit: Some(2),
        ..Paging::default()
    };
    let a = search_words(&s.store, &meta.reference, "ordinary behaviour", &paging).unwrap();
    assert_eq!(a.hit_count, 300);
    assert!(a.truncated && a.hits.len() == 2);
    let name = format!("{}.words", meta.reference);
    let index = walkdir(s.dir.path())
        .into_iter()
        .find(|p| p.file_name().is_some_and(|n| n == name.as_str()))
        .unwrap_or_else(|| panic!("no {name} beside the content"));
    let built = std::fs::metadata(&index).unwrap().modified().unwrap();
    let next = Paging {
        limit: Some(2),
        cursor: a.next_cursor.clone(),
        ..Paging::default()
    };
    let b = search_words(&s.store, &meta.reference, "ordinary behaviour", &next).unwrap();
    assert_eq!(b.scope.first_hit_index(), 2);
    assert!(
        b.hits.iter().all(|h| !a.hits.contains(h)),
        "no passage twice"
    );
    assert_eq!(
        std::fs::metadata(&index).unwrap().modified().unwrap(),
        built
    );
    // A cursor of another query is refused, not silently restarted.
    let other = search_words(&s.store, &meta.reference, "servers", &next).unwrap_err();
    assert!(other.to_string().contains("another query"), "{other}");
}

#[test]
fn zero_hits_say_what_was_looked_for_and_where() {
    let s = store();
    let meta = put(&s.store, settings_page().as_bytes());
    let a = search_words(
        &s.store,
        &meta.reference,
        "kubernetes ingress",
        &Paging::default(),
    )
    .unwrap();
    assert_eq!(a.hit_count, 0);
    let text = notice(&a, Dialect::Mcp);
    assert!(
        text.contains("no passage holds any of the words kubernetes, ingress"),
        "{text}"
    );
    assert!(text.contains(&format!("of {}", meta.reference)), "{text}");
    let only_common = search_words(&s.store, &meta.reference, "to the at", &Paging::default());
    assert!(only_common.is_err());
}

/// Every file under `dir`.
fn walkdir(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walkdir(&path));
        } else {
            out.push(path);
        }
    }
    out
}
