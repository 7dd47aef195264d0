//! A real HTTP server on a free loopback port, with a log of every request it served.

use std::io::Write as _;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

/// Path and `If-None-Match` header of one request.
type Seen = (String, Option<String>);

#[derive(Clone, Default)]
pub struct Log {
    pub requests: Arc<Mutex<Vec<Seen>>>,
    changes: Arc<AtomicUsize>,
}

impl Log {
    /// How many requests reached `path`.
    pub fn count(&self, path: &str) -> usize {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .filter(|(p, _)| p == path)
            .count()
    }

    /// The `If-None-Match` header of the last request to `path`.
    pub fn last_if_none_match(&self, path: &str) -> Option<String> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .rev()
            .find(|(p, _)| p == path)
            .and_then(|(_, h)| h.clone())
    }
}

/// A documentation page of about 156,000 chars whose answer lies at 88% of it.
pub fn long_doc() -> String {
    let mut html = String::from("<html><head><title>Manual</title></head><body><h1>Manual</h1>\n");
    let mut i = 0;
    while html.len() < 137_000 {
        i += 1;
        html.push_str(&format!("<h2>Section {i}</h2>\n<p>Paragraph {i} explains an ordinary option in some detail, with words that fill a page.</p>\n"));
    }
    html.push_str("<h2>Timeouts</h2>\n<p>The setting <code>frobnicate_timeout</code> controls how long a request may take.</p>\n");
    while html.len() < 156_000 {
        i += 1;
        html.push_str(&format!("<h2>Section {i}</h2>\n<p>Paragraph {i} explains an ordinary option in some detail, with words that fill a page.</p>\n"));
    }
    html.push_str("</body></html>\n");
    html
}

/// The names the settings page holds in plain table cells, written as a reader sees them.
pub const SETTING_NAMES: [&str; 6] = [
    "MCP_DISCOVERY_CACHE",
    "Vec<String>",
    "a*b*c",
    "[beta]",
    "C:\\Users\\agent",
    "1. Install",
];

/// What the `MCP_DISCOVERY_CACHE` row says: the answer to a question that does not name it.
pub const DISCOVERY_PURPOSE: &str = "Set to 1 to skip connecting to remote MCP servers at every startup; their tools load from the cache.";

/// A settings page as documentation sites write them: a long navigation, a header, scripts,
/// styles and hidden elements around a `<main>` whose table names each setting in a plain
/// cell, and long enough that one answer shows only part of it.
pub fn settings_page() -> String {
    let mut html = String::from(
        "<html><head><title>Settings</title><style>.tracking{color:red}</style>\n\
         <script>var tracking='sk_live_tracking_id';</script></head><body>\n\
         <header><a href=\"/\">Home</a> <a href=\"/docs\">Docs</a></header>\n<nav><ul>",
    );
    for i in 0..300 {
        html.push_str(&format!(
            "<li><a href=\"/docs/page-{i}\">Navigation link {i}</a></li>"
        ));
    }
    html.push_str("</ul></nav>\n<div hidden>hidden_banner_text</div>\n");
    html.push_str("<div style=\"display: none\">invisible_promo_text</div>\n");
    html.push_str("<main><h1>Environment variables</h1>\n<table><thead><tr><th>Variable</th><th>Purpose</th></tr></thead><tbody>\n");
    for i in 0..400 {
        html.push_str(&format!(
            "<tr><td>SETTING_NUMBER_{i}</td><td>Controls ordinary behaviour number {i} of the tool.</td></tr>\n"
        ));
        if i == 200 {
            // Distractors: each shares words with the question the MCP_DISCOVERY_CACHE row
            // answers ("skip connecting to remote servers at startup").
            for (name, purpose) in [
                (
                    "CONNECT_TIMEOUT_MS",
                    "How long connecting to a server may take.",
                ),
                ("STARTUP_BANNER", "Skip the banner shown at startup."),
                ("REMOTE_LOG_LEVEL", "Log level of remote servers."),
                ("SERVER_LIST", "The servers to list."),
            ] {
                html.push_str(&format!("<tr><td>{name}</td><td>{purpose}</td></tr>\n"));
            }
        }
        if i == 350 {
            for name in SETTING_NAMES {
                let cell = name
                    .replace('&', "&amp;")
                    .replace('<', "&lt;")
                    .replace('>', "&gt;");
                let purpose = if name == "MCP_DISCOVERY_CACHE" {
                    DISCOVERY_PURPOSE
                } else {
                    "A setting named as it is."
                };
                html.push_str(&format!("<tr><td>{cell}</td><td>{purpose}</td></tr>\n"));
            }
        }
    }
    html.push_str("</tbody></table><p>Use <code>SPOOL_CODE_NAME</code> in code.</p></main>\n");
    html.push_str("<footer>Copyright footer_text</footer><noscript>enable_javascript_text</noscript></body></html>\n");
    html
}

fn with_type(content_type: &'static str, body: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

async fn log_layer(
    State(log): State<Log>,
    req: Request<Body>,
    next: axum::middleware::Next,
) -> Response {
    let inm = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    log.requests
        .lock()
        .unwrap()
        .push((req.uri().path().to_owned(), inm));
    next.run(req).await
}

fn app(log: Log) -> Router {
    Router::new()
        .route("/doc", get(|| async { with_type("text/html; charset=utf-8", long_doc().into_bytes()) }))
        .route("/settings", get(|| async { with_type("text/html; charset=utf-8", settings_page().into_bytes()) }))
        .route("/tabs", get(|| async { with_type("text/html; charset=utf-8", TABS_PAGE.as_bytes().to_vec()) }))
        .route("/redirect", get(|| async { (StatusCode::FOUND, [(header::LOCATION, "/doc")]).into_response() }))
        .route("/big5", get(|| async {
            let (bytes, _, _) = encoding_rs::BIG5.encode("繁體中文測試：設定說明\n");
            with_type("text/plain; charset=big5", bytes.into_owned())
        }))
        .route("/sjis", get(|| async {
            let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode("<html><head><meta charset=\"shift_jis\"></head><body><p>日本語のテキスト</p></body></html>");
            with_type("text/html", bytes.into_owned())
        }))
        .route("/cp1252", get(|| async {
            let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode("café – naïve “quotes”\n");
            with_type("text/plain; charset=windows-1252", bytes.into_owned())
        }))
        .route("/gzip", get(|| async {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            gz.write_all("compressed body, line one\nline two\n".repeat(200).as_bytes()).unwrap();
            ([(header::CONTENT_TYPE, "text/plain"), (header::CONTENT_ENCODING, "gzip")], gz.finish().unwrap()).into_response()
        }))
        .route("/etag", get(|headers: HeaderMap| async move {
            if headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()) == Some("\"v1\"") {
                return StatusCode::NOT_MODIFIED.into_response();
            }
            ([(header::CONTENT_TYPE, "text/plain"), (header::ETAG, "\"v1\"")], "stable content\n").into_response()
        }))
        .route("/changing", get(|State(log): State<Log>| async move {
            let n = log.changes.fetch_add(1, Ordering::SeqCst);
            with_type("text/plain", format!("version {n}\n").into_bytes())
        }))
        .route("/missing", get(|| async { (StatusCode::NOT_FOUND, [(header::CONTENT_TYPE, "text/plain")], "not here\n").into_response() }))
        .route("/slow", get(|| async {
            tokio::time::sleep(Duration::from_secs(5)).await;
            "late\n"
        }))
        .route("/huge", get(|| async { with_type("text/plain", "0123456789abcdef\n".repeat(200_000).into_bytes()) }))
        .route("/binary", get(|| async { with_type("image/png", vec![0x89, b'P', b'N', b'G', 0, 0, 0, 13, 0xff, 0xfe]) }))
        .route("/json", get(|| async { with_type("application/json", br#"{"a":1,"b":[1,2]}"#.to_vec()) }))
        // Hostile pages (regressions: a stack overflow that aborted the server, and gigabytes of
        // memory to convert).
        .route("/deep-b", get(|| async { with_type("text/html", format!("<html><body>{}deep text{}</body></html>", "<b>".repeat(2_000), "</b>".repeat(2_000)).into_bytes()) }))
        .route("/deep-div", get(|| async { with_type("text/html", format!("<html><body>{}deeper text</body></html>", "<div>".repeat(5_000)).into_bytes()) }))
        // One byte every 100 ms, for ever: a trickle that restarts every read timeout.
        .route("/trickle", get(|| async {
            let bytes = futures::stream::unfold(0u64, |n| async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                Some((Ok::<_, std::io::Error>(axum::body::Bytes::from_static(b"x")), n + 1))
            });
            ([(header::CONTENT_TYPE, "text/plain")], Body::from_stream(bytes)).into_response()
        }))
        .route("/nuls", get(|| async { with_type("text/html", vec![0u8; 50 << 20]) }))
        .route("/many-p", get(|| async { with_type("text/html", "<p>a</p>".repeat(6 << 20).into_bytes()) }))
        .layer(axum::middleware::from_fn_with_state(log.clone(), log_layer))
        .with_state(log)
}

/// Starts the server on its own thread; returns its address and request log.
pub fn start() -> (SocketAddr, Log) {
    let log = Log::default();
    let router = app(log.clone());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, router).await.unwrap();
        });
    });
    (rx.recv().unwrap(), log)
}

/// A docs page whose install steps sit in tabs: the first tab shown, the others hidden until
/// a reader opens them, each in the way real docs sites hide them.
pub const TABS_PAGE: &str = "<html><head><title>Install</title></head><body>\
<nav><a href=\"/\">Home</a></nav><main><h1>Install</h1>\
<p>Pick your platform. Every platform needs the same widget package.</p>\
<div role=\"tablist\"><button>Linux</button><button>macOS</button><button>Windows</button></div>\
<div role=\"tabpanel\"><p>On Linux run apt install widget.</p></div>\
<div role=\"tabpanel\" hidden><p>On macOS set WIDGET_HOME_MAC before brew install widget.</p></div>\
<div role=\"tabpanel\" style=\"display:none\"><p>On Windows set WIDGET_HOME_WIN in the registry.</p></div>\
<details><summary>Troubleshooting</summary><p>If WIDGET_SOCKET is busy, restart.</p></details>\
</main></body></html>";
