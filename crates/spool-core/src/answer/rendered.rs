//! An answer as a model receives it: the text blocks and the structured form, each complete on
//! its own (CONTRACT.md, "What the model receives"). The MCP server sends both parts; the
//! Python package hands both to the harness. The CLI prints one form of its own.

use serde_json::Value;

use super::Answer;
use crate::envelope::Envelope;
use crate::items::ItemPage;
use crate::render::{self, Dialect};

/// The two parts of an answer.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// The banner first, then one block per shown range (a gap marker is a block of its own);
    /// a search answer or a page is one block.
    pub blocks: Vec<String>,
    /// The whole answer, `notice` first and the content last.
    pub structured: Value,
    /// The text blocks as one text: the banner, then the content with its gap markers.
    pub text: String,
}

/// `answer` in `dialect`; `None` for the answers of the CLI alone (`gc`, `audit`), which no tool
/// gives.
pub fn rendered(answer: &Answer, dialect: Dialect) -> Option<Rendered> {
    Some(match answer {
        Answer::Envelope(e) => envelope(e, dialect),
        Answer::Items(p) => items(p, dialect),
        // One block: the text whole.
        other => {
            let text = text(other, dialect)?;
            Rendered {
                blocks: vec![text.clone()],
                structured: structured(other, dialect)?,
                text,
            }
        }
    })
}

/// The text part of `answer` alone (the CLI prints one part, and makes only it).
pub fn text(answer: &Answer, dialect: Dialect) -> Option<String> {
    Some(match answer {
        Answer::Envelope(e) => render::envelope_text(e, dialect),
        Answer::Items(p) => envelope_blocks(&p.envelope, dialect).join("\n"),
        Answer::Search(a) => crate::search::render_answer(a, dialect),
        Answer::List(p, dir) => crate::list_text::entries_text(p, dir, dialect),
        Answer::Artifacts(p) => crate::list_text::artifacts_text(p, dialect),
        Answer::Gc(..) | Answer::Recent(_) | Answer::OfRef(_) => return None,
    })
}

/// The structured part of `answer` alone.
pub fn structured(answer: &Answer, dialect: Dialect) -> Option<Value> {
    Some(match answer {
        Answer::Envelope(e) => crate::structured::envelope(e, dialect),
        Answer::Items(p) => crate::items::structured(p, dialect),
        Answer::Search(a) => crate::search::structured(a, dialect),
        Answer::List(p, dir) => {
            crate::page::structured(&**p, crate::list_text::entries_notice(p, dir, dialect))
        }
        Answer::Artifacts(p) => {
            crate::page::structured(&**p, crate::list_text::artifacts_notice(p, dialect))
        }
        Answer::Gc(..) | Answer::Recent(_) | Answer::OfRef(_) => return None,
    })
}

/// An envelope's two parts.
pub fn envelope(e: &Envelope, dialect: Dialect) -> Rendered {
    Rendered {
        blocks: envelope_blocks(e, dialect),
        structured: crate::structured::envelope(e, dialect),
        text: render::envelope_text(e, dialect),
    }
}

/// A page of items: the banner, then the items one per line; structured, the page with its
/// items (their text lines are not sent twice).
pub fn items(p: &ItemPage, dialect: Dialect) -> Rendered {
    let blocks = envelope_blocks(&p.envelope, dialect);
    Rendered {
        text: blocks.join("\n"),
        blocks,
        structured: crate::items::structured(p, dialect),
    }
}

/// The text blocks of an envelope: the banner, then each shown range and gap marker.
fn envelope_blocks(e: &Envelope, dialect: Dialect) -> Vec<String> {
    let mut blocks = vec![render::banner(e, dialect)];
    blocks.extend(render::block_texts(e, dialect));
    blocks
}
