//! `spool read REF|PATH [--lines A:B] [--chars A:B] [--bytes A:B] [--tail N] [--cursor C]`

use std::sync::Arc;

use spool_core::{Error, Store};
use spool_toolset::Control;
use spool_toolset::tools::{Read, ReadParams};

use crate::cli::ReadArgs;
use crate::output;

/// Parses `A:B` or `A:` into a start and an optional end.
fn parse_span(flag: &str, s: &str) -> Result<(u64, Option<u64>), Error> {
    let bad = || Error::InvalidArgument {
        message: format!("`--{flag}` takes A:B, A: or A (got `{s}`)").into(),
        hint: Some(format!("for example `--{flag} 10:20`").into()),
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

/// The flags as the tool's arguments: `--lines A:B` is `line` A and `limit` B-A+1, and so on.
pub fn params(args: &ReadArgs) -> Result<ReadParams, Error> {
    let (reference, path) = super::ref_or_path(&args.target)?;
    let mut p = ReadParams {
        reference,
        path,
        line: None,
        limit: None,
        char_offset: None,
        max_chars: None,
        byte_offset: None,
        max_bytes: None,
        tail: args.tail,
        preview: args.preview.map(Into::into),
        stream: args.stream.clone(),
        cursor: args.cursor.clone(),
        max_tokens: args.max_tokens,
        query: args.find.query.clone(),
        pattern: args.find.pattern.clone(),
        literal: args.find.literal,
        case_insensitive: args.find.ignore_case,
    };
    if let Some(s) = &args.lines {
        let (a, b) = parse_span("lines", s)?;
        p.line = Some(a);
        p.limit = b.map(|b| b - a + 1);
    } else if let Some(s) = &args.chars {
        let (a, b) = parse_span("chars", s)?;
        p.char_offset = Some(a);
        p.max_chars = b.map(|b| b - a);
    } else if let Some(s) = &args.bytes {
        let (a, b) = parse_span("bytes", s)?;
        p.byte_offset = Some(a);
        p.max_bytes = b.map(|b| b - a);
    }
    Ok(p)
}

pub fn read(store: &Arc<Store>, args: &ReadArgs) -> Result<u8, Error> {
    let json = args.common.json;
    let mut answer =
        super::answered::<Read>(store, json, false, || params(args), Control::default())?;
    super::note_terminal_size(&mut answer, args.max_tokens, json);
    output::answer(&answer, json);
    Ok(0)
}
