//! Pages fetched once, stored with their version, read and searched from that copy.

use std::time::Duration;

use spool_core::envelope::ReasonCode;
use spool_core::search::{Paging, Query, search_artifact};
use spool_core::window::{WindowRequest, read_window};
use spool_core::{ErrorCode, Store, StoreConfig};
use spool_fetch::{FetchOptions, Fetched, Format, fetch};

use crate::server::{DISCOVERY_PURPOSE, SETTING_NAMES, start};

fn open() -> (Store, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    (
        Store::open(dir.path(), StoreConfig::default()).unwrap(),
        dir,
    )
}

fn loopback() -> FetchOptions {
    FetchOptions {
        allow_private: true,
        ..FetchOptions::default()
    }
}

fn get(
    store: &Store,
    url: &str,
    refresh: bool,
    opts: &FetchOptions,
) -> spool_core::Result<Fetched> {
    fetch(store, url, Format::Markdown, refresh, opts, &mut |_, _| {})
}

/// The page's own preview, at the default cap.
fn preview(store: &Store, f: &Fetched) -> spool_core::Envelope {
    read_window(
        store,
        &f.meta.reference,
        WindowRequest::Preview(None),
        8_000,
    )
    .unwrap()
}

fn text(store: &Store, f: &Fetched) -> String {
    read_window(
        store,
        &f.meta.reference,
        WindowRequest::Lines {
            line: 1,
            limit: None,
        },
        100_000,
    )
    .unwrap()
    .content(spool_core::render::Dialect::Mcp)
}

#[test]
fn a_long_page_is_downloaded_once_and_its_answer_found_by_search() {
    let (addr, log) = start();
    let (store, _d) = open();
    let url = format!("http://{addr}/doc");
    let f = get(&store, &url, false, &loopback()).unwrap();
    let first = preview(&store, &f);
    assert!(
        !first.complete,
        "a 156,000-char page does not fit one answer"
    );
    assert!(
        !first
            .content(spool_core::render::Dialect::Mcp)
            .contains("frobnicate_timeout"),
        "the answer is past the first window"
    );
    // Following the envelope: its search of the whole copy is a template, the regex ours.
    assert_eq!(first.next_templates[0].tool(), "search");
    let q = Query {
        pattern: "frobnicate_timeout".into(),
        literal: true,
        case_insensitive: false,
        words: None,
    };
    let hits = search_artifact(&store, &f.meta.reference, &q, &Paging::default()).unwrap();
    assert_eq!(hits.hit_count, 1);
    let line = hits.hits[0].line;
    let around = read_window(
        &store,
        &f.meta.reference,
        WindowRequest::Lines {
            line,
            limit: Some(1),
        },
        8_000,
    )
    .unwrap();
    assert!(
        around
            .content(spool_core::render::Dialect::Mcp)
            .contains("controls how long a request may take")
    );
    // The same URL again within the window: the stored copy, no second download.
    let again = get(&store, &url, false, &loopback()).unwrap();
    assert_eq!(again.meta.reference, f.meta.reference);
    assert!(
        again.notes[0].contains("fetched 0 s ago"),
        "{:?}",
        again.notes
    );
    assert_eq!(log.count("/doc"), 1, "exactly one download");
    let v = f.meta.source.version.to_map();
    assert_eq!(v["status"], 200);
    assert_eq!(v["format"], "markdown");
    assert_eq!(v["sha256"].as_str().unwrap().len(), 64);
    assert!(v["fetched_at"].is_string());
}

#[test]
fn redirects_are_followed_and_recorded() {
    let (addr, _log) = start();
    let (store, _d) = open();
    let f = get(
        &store,
        &format!("http://{addr}/redirect"),
        false,
        &loopback(),
    )
    .unwrap();
    let v = f.meta.source.version.to_map();
    assert!(v["final_url"].as_str().unwrap().ends_with("/doc"));
    assert!(v["redirects"][0].as_str().unwrap().ends_with("/doc"));
}

#[test]
fn charsets_are_decoded() {
    let (addr, _log) = start();
    let (store, _d) = open();
    for (path, expected, charset) in [
        ("big5", "繁體中文測試：設定說明", "Big5"),
        ("sjis", "日本語のテキスト", "Shift_JIS"),
        ("cp1252", "café – naïve “quotes”", "windows-1252"),
    ] {
        let f = get(&store, &format!("http://{addr}/{path}"), false, &loopback()).unwrap();
        assert!(
            text(&store, &f).contains(expected),
            "{path}: {}",
            text(&store, &f)
        );
        assert_eq!(
            f.meta.source.version.fetch().unwrap().charset.as_deref(),
            Some(charset),
            "{path}"
        );
    }
}

#[test]
fn gzip_json_and_binary_bodies() {
    let (addr, _log) = start();
    let (store, _d) = open();
    let f = get(&store, &format!("http://{addr}/gzip"), false, &loopback()).unwrap();
    assert!(text(&store, &f).starts_with("compressed body, line one\n"));
    let f = get(&store, &format!("http://{addr}/json"), false, &loopback()).unwrap();
    assert_eq!(
        text(&store, &f),
        "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ]\n}"
    );
    let f = get(&store, &format!("http://{addr}/binary"), false, &loopback()).unwrap();
    let e = preview(&store, &f);
    assert_eq!(e.reason.unwrap().code, ReasonCode::Binary);
    assert_eq!(
        f.meta.source.version.fetch().unwrap().content_type,
        "image/png"
    );
    assert_eq!(e.total.bytes, Some(10));
}

#[test]
fn refresh_is_conditional_and_never_splices() {
    let (addr, log) = start();
    let (store, _d) = open();
    let url = format!("http://{addr}/etag");
    let first = get(&store, &url, false, &loopback()).unwrap();
    let again = get(&store, &url, true, &loopback()).unwrap();
    assert_eq!(
        again.meta.reference, first.meta.reference,
        "304 keeps the ref"
    );
    assert!(
        again.notes[0].contains("304 Not Modified"),
        "{:?}",
        again.notes
    );
    assert_eq!(log.last_if_none_match("/etag").as_deref(), Some("\"v1\""));

    let url = format!("http://{addr}/changing");
    let v0 = get(&store, &url, false, &loopback()).unwrap();
    let v1 = get(&store, &url, true, &loopback()).unwrap();
    assert_ne!(v1.meta.reference, v0.meta.reference);
    assert!(
        v1.notes[0].contains(&v0.meta.reference),
        "names the old ref: {:?}",
        v1.notes
    );
    assert_eq!(
        text(&store, &v0),
        "version 0\n",
        "the old copy is untouched"
    );
    assert_eq!(text(&store, &v1), "version 1\n");
}

#[test]
fn http_errors_are_answers_and_transport_errors_are_errors() {
    let (addr, _log) = start();
    let (store, _d) = open();
    let f = get(
        &store,
        &format!("http://{addr}/missing"),
        false,
        &loopback(),
    )
    .unwrap();
    assert_eq!(f.meta.source.version.fetch().unwrap().status, 404);
    assert_eq!(text(&store, &f), "not here\n");
    assert!(f.notes.iter().any(|n| n.contains("HTTP 404")));

    let quick = FetchOptions {
        timeout: Duration::from_millis(500),
        ..loopback()
    };
    let err = get(&store, &format!("http://{addr}/slow"), false, &quick).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Timeout);

    // Nothing listens on port 9 of loopback: refused, so unavailable.
    let err = get(&store, "http://127.0.0.1:9/", false, &loopback()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Unavailable);
}

#[test]
fn a_body_over_the_cap_is_kept_and_marked_partial() {
    let (addr, _log) = start();
    let (store, _d) = open();
    let small = FetchOptions {
        max_bytes: 1 << 20,
        ..loopback()
    };
    let f = get(&store, &format!("http://{addr}/huge"), false, &small).unwrap();
    assert_eq!(f.meta.bytes, 1 << 20);
    let e = read_window(
        &store,
        &f.meta.reference,
        WindowRequest::LastLines { lines: 1 },
        8_000,
    )
    .unwrap();
    assert_eq!(e.reason.unwrap().code, ReasonCode::SizeCap);
    assert!(e.capture.unwrap().detail.contains("1.0 MiB cap"));
}

#[test]
fn private_addresses_and_other_schemes_are_refused_by_default() {
    let (addr, log) = start();
    let (store, _d) = open();
    let strict = FetchOptions::default();
    for url in [
        format!("http://{addr}/doc"),
        format!("http://localhost:{}/doc", addr.port()),
        "http://[::1]/".to_owned(),
    ] {
        let err = get(&store, &url, false, &strict).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Forbidden, "{url}");
        assert!(
            err.to_string().contains("--allow-private-network")
                || err.hint(spool_core::render::Dialect::Mcp).is_some(),
            "{err}"
        );
    }
    assert_eq!(log.count("/doc"), 0, "nothing was sent");
    let err = get(&store, "file:///etc/passwd", false, &strict).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Forbidden);
    let err = get(&store, "not a url", false, &strict).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
}

#[test]
fn a_password_in_the_url_is_used_but_never_shown_or_stored() {
    // Regression: it stood in the banner, the artifact list and the database.
    let (addr, log) = start();
    let (store, dir) = open();
    let url = format!("http://reader:hunter2@{addr}/doc");
    let f = get(&store, &url, false, &loopback()).unwrap();
    assert_eq!(log.count("/doc"), 1);
    let e = preview(&store, &f);
    let banner = spool_core::render::banner(&e, spool_core::render::Dialect::Mcp);
    assert!(!banner.contains("hunter2"), "{banner}");
    assert!(banner.contains("reader:***@"), "{banner}");
    let page = spool_core::page::artifacts(&store, None, 10, None).unwrap();
    assert!(!serde_json::to_string(&page).unwrap().contains("hunter2"));
    // The same URL again reuses the copy (the dedup key is the URL's hash).
    let again = get(&store, &url, false, &loopback()).unwrap();
    assert_eq!(again.meta.reference, f.meta.reference);
    drop(store);
    for entry in std::fs::read_dir(dir.path().join("store-v1")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                !bytes.windows(7).any(|w| w == b"hunter2"),
                "{} holds the password",
                path.display()
            );
        }
    }
}

#[test]
fn hostile_pages_are_stored_without_crashing_and_say_what_was_cut() {
    let (addr, _log) = start();
    let (store, _d) = open();
    // Nesting that overflowed the converter's stack and aborted the process.
    for (path, words) in [("/deep-b", "deep text"), ("/deep-div", "deeper text")] {
        let f = get(&store, &format!("http://{addr}{path}"), false, &loopback()).unwrap();
        assert!(text(&store, &f).contains(words), "{path}: the text is kept");
        let notes = f.notes.join(" ");
        assert!(
            notes.contains("nested deeper than 256 elements were left out"),
            "{path}: {notes}"
        );
    }
    // Pages too large to convert within bounds are stored as they came, and say so.
    for path in ["/nuls", "/many-p"] {
        let f = get(&store, &format!("http://{addr}{path}"), false, &loopback()).unwrap();
        assert_eq!(
            f.meta.source.version.fetch().unwrap().format,
            "raw",
            "what is stored says what it is"
        );
        let notes = f.notes.join(" ");
        assert!(
            notes.contains("more than the 4.0 MiB spool converts"),
            "{path}: {notes}"
        );
        assert!(f.meta.bytes >= 48 << 20, "{path}: stored whole");
    }
}

#[test]
fn a_trickle_ends_at_the_deadline_with_what_arrived() {
    // Regression: a page sending a byte a second ran 407 s though the download is allowed 60 s.
    let (addr, _log) = start();
    let (store, _d) = open();
    let opts = FetchOptions {
        timeout: Duration::from_secs(2),
        ..loopback()
    };
    let started = std::time::Instant::now();
    let f = get(&store, &format!("http://{addr}/trickle"), false, &opts).unwrap();
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "it ended at the deadline ({took:?})"
    );
    assert!(
        f.meta.bytes > 5,
        "what arrived is kept ({} bytes)",
        f.meta.bytes
    );
    let e = preview(&store, &f);
    assert!(!e.complete);
    assert_eq!(e.reason.unwrap().code, ReasonCode::Timeout);
    assert!(
        e.capture
            .unwrap()
            .detail
            .contains("took longer than the 2 s allowed")
    );
}

#[test]
fn cancelling_a_fetch_ends_it_at_once_not_at_its_deadline() {
    // Regression (issue 39): a cancelled fetch went on to its deadline (60 s), its connection
    // open; the blocking client could not be interrupted.
    let (addr, _log) = start();
    let (store, _d) = open();
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let opts = FetchOptions {
        timeout: Duration::from_mins(1),
        cancel: Some(std::sync::Arc::clone(&cancel)),
        ..loopback()
    };
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        cancel.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let started = std::time::Instant::now();
    let e = get(&store, &format!("http://{addr}/trickle"), false, &opts).unwrap_err();
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(3),
        "it ended on the cancel ({took:?})"
    );
    assert!(e.to_string().contains("cancelled"), "{e}");
}

/// Regression: markdown escaping stored `MCP_DISCOVERY_CACHE` as `MCP\_DISCOVERY\_CACHE`, so
/// a literal search for it answered "no hits": a false absence. Scripts and styles were stored,
/// and the navigation around the content too.
#[test]
fn a_docs_page_keeps_its_names_searchable_and_leaves_out_what_no_reader_sees() {
    let (addr, _log) = start();
    let (store, _d) = open();
    let f = get(
        &store,
        &format!("http://{addr}/settings"),
        false,
        &loopback(),
    )
    .unwrap();
    let stored = text(&store, &f);
    for name in SETTING_NAMES.into_iter().chain(["SPOOL_CODE_NAME"]) {
        let hits = search_artifact(
            &store,
            &f.meta.reference,
            &Query {
                pattern: name.to_owned(),
                literal: true,
                case_insensitive: false,
                words: None,
            },
            &Paging::default(),
        )
        .unwrap();
        assert_eq!(hits.hit_count, 1, "`{name}` in the stored page:\n{stored}");
    }
    for unseen in [
        "sk_live_tracking_id",
        "color:red",
        "hidden_banner_text",
        "invisible_promo_text",
        "enable_javascript_text",
        "Navigation link",
        "footer_text",
    ] {
        assert!(!stored.contains(unseen), "`{unseen}` is stored");
    }
    // Tables keep a row a line.
    assert!(
        stored
            .lines()
            .any(|l| l.contains("MCP_DISCOVERY_CACHE") && l.contains(DISCOVERY_PURPOSE)),
        "{stored}"
    );
    let v = f.meta.source.version.fetch().unwrap();
    assert_eq!(v.main_content.as_deref(), Some("main"));
    // The script, the style and the noscript; the hidden banners sit outside the main content.
    assert!(v.unseen_left_out >= 3, "{v:?}");
    // What the copy holds of the page is its coverage, and the call to the rest runs: the
    // raw page holds the navigation and the hidden banners the copy left out.
    let coverage = f.meta.source.coverage();
    assert!(!coverage.whole);
    assert_eq!(coverage.main_content.as_ref().unwrap().element, "main");
    let rest = coverage.rest.unwrap();
    assert_eq!(
        (rest.tool(), &rest.arguments()["format"]),
        ("fetch", &serde_json::json!("raw"))
    );
    let url = rest.arguments()["url"].as_str().unwrap().to_owned();
    let raw = fetch(
        &store,
        &url,
        Format::Raw,
        false,
        &loopback(),
        &mut |_, _| {},
    )
    .unwrap();
    let raw_text = text(&store, &raw);
    for left_out in ["Navigation link", "hidden_banner_text", "footer_text"] {
        assert!(
            raw_text.contains(left_out),
            "`{left_out}` not in the raw page"
        );
    }
    assert!(raw.meta.source.coverage().whole);
    // One answer shows part of the page, and says how much of its text in chars.
    let first = preview(&store, &f);
    assert!(!first.complete);
    let banner = spool_core::render::banner(&first, spool_core::render::Dialect::Mcp);
    let shown: usize = first
        .content(spool_core::render::Dialect::Mcp)
        .chars()
        .count();
    let total = first.total.chars.unwrap();
    assert!(
        banner.contains(&format!(
            "; {} of {} chars shown",
            spool_core::render::thousands(shown as u64),
            spool_core::render::thousands(total)
        )),
        "{banner}"
    );
}

/// Issue 14: when the question is known, the first answer of `fetch` holds the row that
/// answers it, though the question does not name it and other rows share its words.
#[test]
fn a_fetch_given_the_question_answers_it_in_its_first_answer() {
    let (addr, log) = start();
    let (store, _d) = open();
    let url = format!("http://{addr}/settings");
    let question = "skip connecting to remote servers at startup";
    let p = spool_fetch::FetchParams {
        url: url.clone(),
        format: None,
        refresh: false,
        max_tokens: None,
        query: Some(question.to_owned()),
        pattern: None,
        literal: false,
        case_insensitive: false,
        allow_private_network: false,
    };
    let answer = spool_fetch::answer(
        &store,
        &p,
        &loopback(),
        spool_core::Cap::new(8_000),
        &mut |_, _| {},
    )
    .unwrap();
    let spool_core::answer::Answer::Envelope(e) = answer else {
        panic!("not an envelope")
    };
    assert!(!e.complete, "the page is longer than one answer");
    let content = e.content(spool_core::render::Dialect::Mcp);
    assert!(
        content
            .lines()
            .any(|l| l.contains("MCP_DISCOVERY_CACHE") && l.contains(DISCOVERY_PURPOSE)),
        "the row is not in the first answer:\n{content}"
    );
    let found = e.found.as_ref().unwrap();
    assert!(found.best[0].shown);
    // The four distractors and the row, each a passage holding some of the words.
    assert!(found.hit_count >= 5, "{found:?}");
    let said = spool_core::render::banner(&e, spool_core::render::Dialect::Mcp);
    assert!(said.contains("Found: "), "{said}");
    assert!(
        said.contains(" chars shown"),
        "a partial page states its chars: {said}"
    );
    // A bad regex is refused before anything is downloaded.
    let before = log.requests.lock().unwrap().len();
    let bad = spool_fetch::FetchParams {
        query: None,
        pattern: Some("(".into()),
        ..p
    };
    let err = spool_fetch::answer(
        &store,
        &bad,
        &loopback(),
        spool_core::Cap::new(8_000),
        &mut |_, _| {},
    )
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert_eq!(
        log.requests.lock().unwrap().len(),
        before,
        "nothing fetched"
    );
}

/// Regression (issue 38): the "main content only" note was said by the first fetch alone; a
/// reused fetch and every search of the copy said "the whole stored copy". Now every answer
/// about the copy says what it holds, and a search that finds nothing in it offers the raw
/// page, where the word is.
#[test]
fn every_answer_about_a_main_content_copy_says_so_and_offers_the_rest() {
    let (addr, _log) = start();
    let (store, _d) = open();
    let url = format!("http://{addr}/settings");
    let first = get(&store, &url, false, &loopback()).unwrap();
    let again = get(&store, &url, false, &loopback()).unwrap();
    assert_eq!(
        again.meta.reference, first.meta.reference,
        "the copy is reused"
    );
    for dialect in [
        spool_core::render::Dialect::Mcp,
        spool_core::render::Dialect::Cli,
    ] {
        let banner = spool_core::render::banner(&preview(&store, &again), dialect);
        assert!(
            banner.contains(" Coverage: the stored copy holds the page's main content only"),
            "{banner}"
        );
    }
    // "Navigation link" is on the page, outside its main content.
    let q = Query {
        pattern: "Navigation link".into(),
        literal: true,
        case_insensitive: false,
        words: None,
    };
    let none = search_artifact(&store, &first.meta.reference, &q, &Paging::default()).unwrap();
    assert_eq!(none.hit_count, 0);
    let notice = spool_core::search::notice(&none, spool_core::render::Dialect::Mcp);
    assert!(
        notice.contains("a stored copy that holds the page's main content only")
            && notice.contains("absent here is not absent there"),
        "{notice}"
    );
    let rest = none.next.last().unwrap();
    assert_eq!(rest.tool(), "fetch");
    let raw = fetch(
        &store,
        rest.arguments()["url"].as_str().unwrap(),
        Format::Raw,
        false,
        &loopback(),
        &mut |_, _| {},
    )
    .unwrap();
    let found = search_artifact(&store, &raw.meta.reference, &q, &Paging::default()).unwrap();
    assert!(found.hit_count > 0);
    // A read asked to find it says the same of the copy.
    let find = spool_core::search::Find::from_args(
        spool_core::calls::ToolName::Read,
        None,
        Some("Navigation link"),
        true,
        false,
    )
    .unwrap()
    .unwrap();
    let e = spool_core::answer::found_window(
        &store,
        &first.meta.reference,
        &find,
        None,
        spool_core::Cap::new(2_000),
        &[],
    )
    .unwrap();
    let banner = spool_core::render::banner(&e, spool_core::render::Dialect::Mcp);
    assert!(
        banner.contains("searched the whole stored copy (")
            && banner.contains("which holds the page's main content only"),
        "{banner}"
    );
}

/// Regression (issue 38): text in hidden tab panels was left out of the stored copy, and a
/// search of it answered "no hits; searched all ... lines". Docs sites put real content in
/// tabs: it is kept, marked, and found.
#[test]
fn hidden_tab_panels_are_kept_marked_and_found() {
    let (addr, _log) = start();
    let (store, _d) = open();
    let f = get(&store, &format!("http://{addr}/tabs"), false, &loopback()).unwrap();
    let stored = text(&store, &f);
    for word in ["WIDGET_HOME_MAC", "WIDGET_HOME_WIN", "WIDGET_SOCKET"] {
        let q = Query {
            pattern: word.into(),
            literal: true,
            case_insensitive: false,
            words: None,
        };
        let a = search_artifact(&store, &f.meta.reference, &q, &Paging::default()).unwrap();
        assert_eq!(a.hit_count, 1, "`{word}` in:\n{stored}");
    }
    // Two tab panels and the closed `<details>` (issue 57: its text was kept unmarked and
    // the count said 2): its summary shown, the rest marked.
    assert_eq!(
        stored.matches("[hidden on the page]").count(),
        3,
        "{stored}"
    );
    let socket = stored.find("If WIDGET_SOCKET is busy").unwrap();
    let mark = stored[..socket].rfind("[hidden on the page]").unwrap();
    assert!(stored[..mark].contains("Troubleshooting"), "{stored}");
    assert_eq!(f.meta.source.coverage().hidden_kept, 3);
    let banner = spool_core::render::banner(&preview(&store, &f), spool_core::render::Dialect::Mcp);
    assert!(
        banner.contains("3 elements the page hides until opened (tabs, accordions) are kept"),
        "{banner}"
    );
}
