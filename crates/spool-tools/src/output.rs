//! The one place the CLI writes answers to stdout. Writes go through `write_all` and a closed
//! pipe (`spool ... | head`) ends the output quietly instead of panicking.

use std::io::Write;

use spool_core::Error;
use spool_core::answer::Answer;
use spool_core::render::Dialect;

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

/// An answer of a tool in the CLI's words, or with `--json` its structured form (`notice`
/// first): one of the two parts every front end renders (`answer::rendered`), the only one
/// made. The CLI's own answers (`gc`, `audit`) are written by their commands.
pub fn answer(a: &Answer, as_json: bool) {
    if as_json {
        if let Some(structured) = spool_core::answer::rendered::structured(a, Dialect::Cli) {
            json(&structured);
        }
    } else if let Some(words) = spool_core::answer::rendered::text(a, Dialect::Cli) {
        text(&words);
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
