//! A real HTTP server on a free loopback port that answers every path with one page.

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;

/// Serves `body` as `content_type` at every path of a free port on 127.0.0.1 until the test's
/// runtime ends; returns the base URL (`http://127.0.0.1:PORT`).
///
/// # Errors
/// When no loopback port can be bound.
pub async fn serve(content_type: &'static str, body: String) -> std::io::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let app = Router::new().fallback(move || {
        let body = body.clone();
        async move { ([(header::CONTENT_TYPE, content_type)], body).into_response() }
    });
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(format!("http://{addr}"))
}

/// Serves `body` with the HTTP `status` at every path, like [`serve`].
///
/// # Errors
/// When no loopback port can be bound.
pub async fn serve_status(status: u16, body: String) -> std::io::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let code = axum::http::StatusCode::from_u16(status)
        .unwrap_or(axum::http::StatusCode::INTERNAL_SERVER_ERROR);
    let app = Router::new().fallback(move || {
        let body = body.clone();
        async move { (code, [(header::CONTENT_TYPE, "text/html")], body).into_response() }
    });
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(format!("http://{addr}"))
}

/// A documentation page of `sections` sections, each a heading and a paragraph that names its
/// number, so that a test can tell which part of the page it was shown.
pub fn manual(sections: u32) -> String {
    use std::fmt::Write as _;
    let mut html = String::from("<html><head><title>Manual</title></head><body><h1>Manual</h1>\n");
    for i in 1..=sections {
        let _ = write!(
            html,
            "<h2>Section {i}</h2>\n<p>Paragraph {i} explains option_{i} in some detail, with words that fill a page.</p>\n"
        );
    }
    html.push_str("</body></html>\n");
    html
}
