//! Bytes of a response to the text stored: charset detection, HTML to markdown or text, JSON
//! pretty-printed, plain text as it is, anything else kept as bytes.

use encoding_rs::Encoding;

/// How a page is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Text,
    Raw,
}

impl Format {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "markdown" => Self::Markdown,
            "text" => Self::Text,
            "raw" => Self::Raw,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Markdown => "markdown",
            Self::Text => "text",
            Self::Raw => "raw",
        }
    }
}

/// What was stored, and in what form.
pub struct Converted {
    pub bytes: Vec<u8>,
    /// `markdown`, `text`, `json`, `raw` or `binary`.
    pub form: &'static str,
    pub charset: Option<&'static str>,
    /// What the conversion left out or did not do, in words for the answer.
    pub note: Option<String>,
    /// What cleaning an HTML page left out, when it was converted.
    pub cleaned: Option<crate::page::Cleaned>,
}

/// HTML as markdown or text, within bounds: a page too large is stored as it came, nesting too
/// deep is flattened, and the conversion runs where it cannot overflow the stack.
/// The page stored as it came (decoded text, tags and all), saying why.
fn as_it_came(text: &str, charset: Option<&'static str>, why: String) -> Converted {
    Converted {
        bytes: text.as_bytes().to_vec(),
        form: "raw",
        charset,
        note: Some(why),
        cleaned: None,
    }
}

fn html_to_text(text: &str, format: Format, charset: Option<&'static str>) -> Converted {
    use crate::bounded::{
        MAX_CONVERT, MAX_DEPTH, MAX_GROWTH, MAX_TEXT, MAX_TEXT_TAGS, flatten, with_room,
    };
    use spool_core::render::{human_bytes, thousands};
    if text.len() > MAX_CONVERT {
        return as_it_came(
            text,
            charset,
            format!(
                "the page is {} of HTML, more than the {} spool converts: it is stored as it came, tags and all (search it as it is)",
                human_bytes(text.len() as u64),
                human_bytes(MAX_CONVERT as u64)
            ),
        );
    }
    let (flat, dropped) = flatten(text, MAX_DEPTH);
    let mut notes = Vec::new();
    if dropped > 0 {
        notes.push(format!(
            "{} tags nested deeper than {MAX_DEPTH} elements were left out (their text is kept)",
            thousands(dropped as u64)
        ));
    }
    let tags = memchr::memchr_iter(b'<', flat.as_bytes()).count();
    let format = if format == Format::Text && (flat.len() > MAX_TEXT || tags > MAX_TEXT_TAGS) {
        notes.push(format!(
            "the page ({}, {} tags) is larger than spool converts to plain text ({}, {} tags): it is stored as markdown",
            human_bytes(flat.len() as u64),
            thousands(tags as u64),
            human_bytes(MAX_TEXT as u64),
            thousands(MAX_TEXT_TAGS as u64),
        ));
        Format::Markdown
    } else {
        format
    };
    let form = if format == Format::Text {
        "text"
    } else {
        "markdown"
    };
    let converted = with_room(|| crate::page::convert(&flat, format == Format::Text)).flatten();
    let Some((out, cleaned)) = converted else {
        return as_it_came(
            text,
            charset,
            "the page could not be converted: it is stored as it came".into(),
        );
    };
    // A conversion many times the page's size is markup multiplied (nested `<code>` becomes
    // runs of backticks that grow with the depth: 4 MB became 80 MB), not text to read.
    let limit = text
        .len()
        .saturating_mul(MAX_GROWTH)
        .saturating_add(1 << 20);
    if out.len() > limit {
        return as_it_came(
            text,
            charset,
            format!(
                "converted, the page made {} from {} of HTML, more than {MAX_GROWTH} times its size: it is stored as it came, tags and all (search it as it is)",
                human_bytes(out.len() as u64),
                human_bytes(text.len() as u64),
            ),
        );
    }
    // What the copy holds of the page (its main content only, hidden parts kept) is its
    // coverage, said by every answer about it (`Source::coverage`), not a note of this one.
    Converted {
        bytes: out.into_bytes(),
        form,
        charset,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        cleaned: Some(cleaned),
    }
}

fn mime(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

fn is_texty(mime: &str) -> bool {
    mime.starts_with("text/")
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
        || matches!(
            mime,
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/x-javascript"
                | "application/xhtml+xml"
                | ""
        )
}

/// The charset named by the header, a BOM, or (for HTML) a meta tag in the first 2 KiB.
fn charset(content_type: &str, body: &[u8], html: bool) -> &'static Encoding {
    if let Some((enc, _)) = Encoding::for_bom(body) {
        return enc;
    }
    let from_header = content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        (k.trim().eq_ignore_ascii_case("charset")).then(|| v.trim().trim_matches('"').to_owned())
    });
    if let Some(enc) = from_header.and_then(|l| Encoding::for_label(l.as_bytes())) {
        return enc;
    }
    if html {
        let head = String::from_utf8_lossy(&body[..body.len().min(2048)]).to_ascii_lowercase();
        if let Some(i) = head.find("charset=") {
            let rest = &head[i + 8..];
            let label: String = rest
                .trim_start_matches(['"', '\''])
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            if let Some(enc) = Encoding::for_label(label.as_bytes()) {
                return enc;
            }
        }
    }
    encoding_rs::UTF_8
}

/// Converts a response body for storage.
pub fn convert(content_type: &str, body: &[u8], format: Format) -> Converted {
    let mime = mime(content_type);
    let html = mime == "text/html"
        || mime == "application/xhtml+xml"
        || (mime.is_empty() && sniff_html(body));
    if !is_texty(&mime) && !html {
        return Converted {
            bytes: body.to_vec(),
            form: "binary",
            charset: None,
            note: None,
            cleaned: None,
        };
    }
    let enc = charset(content_type, body, html);
    let (text, _, _) = enc.decode(body);
    let charset = Some(enc.name());
    if format == Format::Raw {
        return Converted {
            bytes: text.into_owned().into_bytes(),
            form: "raw",
            charset,
            note: None,
            cleaned: None,
        };
    }
    if html {
        return html_to_text(&text, format, charset);
    }
    if (mime == "application/json" || mime.ends_with("+json"))
        && let Ok(value) = serde_json::from_str::<serde_json::Value>(&text)
        && let Ok(pretty) = serde_json::to_string_pretty(&value)
    {
        return Converted {
            bytes: pretty.into_bytes(),
            form: "json",
            charset,
            note: None,
            cleaned: None,
        };
    }
    Converted {
        bytes: text.into_owned().into_bytes(),
        form: "text",
        charset,
        note: None,
        cleaned: None,
    }
}

fn sniff_html(body: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&body[..body.len().min(512)]).to_ascii_lowercase();
    head.contains("<html") || head.contains("<!doctype html")
}

impl From<crate::FormatArg> for Format {
    fn from(f: crate::FormatArg) -> Self {
        use crate::FormatArg;
        match f {
            FormatArg::Markdown => Self::Markdown,
            FormatArg::Text => Self::Text,
            FormatArg::Raw => Self::Raw,
        }
    }
}

impl From<Format> for crate::FormatArg {
    fn from(f: Format) -> Self {
        match f {
            Format::Markdown => Self::Markdown,
            Format::Text => Self::Text,
            Format::Raw => Self::Raw,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: plain text of 4 MB of `<p>a</p>` took 1.1 GB, and 1 M `<br>` in a table
    /// cell became 101 MB of padded lines.
    #[test]
    fn a_page_too_large_for_plain_text_is_stored_as_markdown_and_says_so() {
        let page = "<p>a</p>".repeat(crate::bounded::MAX_TEXT_TAGS / 2 + 1);
        let out = convert("text/html", page.as_bytes(), Format::Text);
        assert_eq!(out.form, "markdown");
        let note = out.note.unwrap_or_default();
        assert!(note.contains("stored as markdown"), "{note}");
        let small = convert("text/html", b"<p>a</p><p>b</p>", Format::Text);
        assert_eq!((small.form, small.note), ("text", None));
    }

    /// Regression: 256 nested `<code>` around one letter become 64 KB of backticks, so 4 MB of
    /// them became 80 MB.
    #[test]
    fn a_conversion_many_times_the_page_is_not_kept() {
        let group = format!("{}x{}", "<code>".repeat(256), "</code>".repeat(256));
        let page = group.repeat(80);
        let out = convert("text/html", page.as_bytes(), Format::Markdown);
        assert_eq!(out.form, "raw");
        assert_eq!(out.bytes, page.as_bytes(), "stored as it came");
        let note = out.note.unwrap_or_default();
        assert!(note.contains("more than 8 times its size"), "{note}");
    }
}
