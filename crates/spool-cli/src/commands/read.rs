//! `spool read REF|PATH [--lines A:B] [--chars A:B] [--bytes A:B] [--tail N]`

use std::time::Instant;

use serde_json::json;
use spool_core::window::{WindowRequest, read_window};
use spool_core::{Error, Store, audit};

use super::{audited, elapsed_ms, resolve_target};
use crate::cli::ReadArgs;
use crate::output;

/// Parses `A:B` or `A:` into a start and an optional end.
fn parse_span(flag: &str, s: &str) -> Result<(u64, Option<u64>), Error> {
    let bad = || Error::InvalidArgument {
        message: format!("`--{flag}` takes A:B, A: or A (got `{s}`)"),
        hint: Some(format!("for example `--{flag} 10:20`")),
    };
    let (a, b) = s.split_once(':').unwrap_or((s, ""));
    let a: u64 = a.trim().parse().map_err(|_| bad())?;
    let b = match b.trim() {
        "" => None,
        b => Some(b.parse::<u64>().map_err(|_| bad())?),
    };
    if b.is_some_and(|b| b < a) {
        return Err(bad());
    }
    Ok((a, b))
}

pub fn request(args: &ReadArgs) -> Result<WindowRequest, Error> {
    Ok(if let Some(s) = &args.lines {
        let (a, b) = parse_span("lines", s)?;
        WindowRequest::Lines {
            line: a,
            limit: b.map(|b| b - a + 1),
        }
    } else if let Some(s) = &args.chars {
        let (a, b) = parse_span("chars", s)?;
        WindowRequest::Chars {
            offset: a,
            max: b.map(|b| b - a),
        }
    } else if let Some(s) = &args.bytes {
        let (a, b) = parse_span("bytes", s)?;
        WindowRequest::Bytes {
            offset: a,
            max: b.map(|b| b - a),
        }
    } else if let Some(n) = args.tail {
        WindowRequest::LastLines { lines: n }
    } else {
        WindowRequest::Preview(args.preview.map(Into::into))
    })
}

pub fn read(store: &Store, args: &ReadArgs) -> Result<u8, Error> {
    let started = Instant::now();
    let mut reference = resolve_target(store, &args.target)?;
    if let Some(name) = &args.stream {
        let stream = spool_core::store::Stream::parse(name)?;
        reference = spool_core::streams::stream_view(store, &reference, stream)?.reference;
    }
    let req = request(args)?;
    let arguments = json!({
        "target": args.target, "lines": args.lines, "chars": args.chars, "bytes": args.bytes,
        "tail": args.tail, "stream": args.stream, "max_tokens": args.max_tokens, "ref": reference,
    });
    match read_window(
        store,
        &reference,
        req,
        super::cap(args.max_tokens, args.common.json),
    ) {
        Ok(envelope) => {
            audited(audit::record_envelope(
                store,
                "read",
                &arguments,
                &envelope,
                elapsed_ms(started),
            ));
            output::envelope(&envelope, args.common.json);
            Ok(0)
        }
        Err(err) => {
            audited(audit::record_error(
                store,
                "read",
                &arguments,
                &err,
                elapsed_ms(started),
            ));
            Err(err)
        }
    }
}
