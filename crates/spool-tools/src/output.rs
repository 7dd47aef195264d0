//! The one place the CLI writes answers to stdout. Writes go through `write_all` and a closed
//! pipe (`spool ... | head`) ends the output quietly instead of panicking.

use std::io::Write;

use spool_core::answer::Answer;
use spool_core::render::{self, Dialect};
use spool_core::{Envelope, Error};

pub fn json<T: serde::Serialize>(value: &T) {
    let json =
        serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    text(&json);
}

pub fn text(s: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(s.as_bytes());
    if !s.ends_with('\n') {
        let _ = out.write_all(b"\n");
    }
    let _ = out.flush();
}

/// An envelope: its text, or with `--json` the whole structured answer (`notice` first, in the
/// CLI's words).
pub fn envelope(e: &Envelope, as_json: bool) {
    if as_json {
        json(&spool_core::wire::envelope(e, Dialect::Cli));
    } else {
        text(&render::envelope_text(e, Dialect::Cli));
    }
}

/// An answer of the pipeline in the CLI's words, or with `--json` its structured form (the
/// CLI's own answers, `gc` and `audit`, are written by their commands).
pub fn answer(a: &Answer, as_json: bool) {
    match a {
        Answer::Envelope(e) => envelope(e, as_json),
        Answer::Items(p) if as_json => json(&spool_core::items::structured(p, Dialect::Cli)),
        Answer::Items(p) => text(&spool_core::list_text::item_page_text(p, Dialect::Cli)),
        Answer::Search(s) if as_json => json(&spool_core::search::structured(s, Dialect::Cli)),
        Answer::Search(s) => text(&spool_core::search::render_answer(s, Dialect::Cli)),
        Answer::List(p, dir) if as_json => json(&spool_core::page::structured(
            &**p,
            spool_core::list_text::entries_notice(p, dir, Dialect::Cli),
        )),
        Answer::List(p, dir) => text(&spool_core::list_text::entries_text(p, dir, Dialect::Cli)),
        Answer::Artifacts(p) if as_json => json(&spool_core::page::structured(
            &**p,
            spool_core::list_text::artifacts_notice(p, Dialect::Cli),
        )),
        Answer::Artifacts(p) => text(&spool_core::list_text::artifacts_text(p, Dialect::Cli)),
        Answer::Gc(..) | Answer::Recent(_) | Answer::OfRef(_) => {}
    }
}

/// Errors go to stdout as JSON with `--json` (it is the structured answer), else to stderr.
pub fn error(err: &Error, as_json: bool) {
    if as_json {
        json(&err.to_wire(Dialect::Cli));
    } else {
        let mut msg = format!("error: {}", err.message(Dialect::Cli));
        if let Some(hint) = err.hint(Dialect::Cli) {
            msg.push_str("\nhint: ");
            msg.push_str(&hint);
        }
        let _ = writeln!(std::io::stderr(), "{msg}");
    }
}
