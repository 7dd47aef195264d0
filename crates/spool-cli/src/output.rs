//! The one place the CLI writes answers to stdout. Writes go through `write_all` and a closed
//! pipe (`spool ... | head`) ends the output quietly instead of panicking.

use std::io::Write;

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

/// Errors go to stdout as JSON with `--json` (it is the structured answer), else to stderr.
pub fn error(err: &Error, as_json: bool) {
    if as_json {
        json(&err.to_wire());
    } else {
        let mut msg = format!("error: {err}");
        if let Some(hint) = err.hint() {
            msg.push_str("\nhint: ");
            msg.push_str(&hint);
        }
        let _ = writeln!(std::io::stderr(), "{msg}");
    }
}
