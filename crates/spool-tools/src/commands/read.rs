//! `spool read REF|PATH [--lines A:B] [--chars A:B] [--bytes A:B] [--tail N] [--cursor C]`

use std::sync::Arc;

use spool_core::calls::{ReadParams, Span};
use spool_core::{Error, Store};
use spool_toolset::Control;
use spool_toolset::tools::Read;

use crate::cli::ReadArgs;
use crate::output;

/// A span flag's value that is not a span, as the person is told.
fn bad_span(s: &Span) -> Error {
    Error::InvalidArgument {
        message: format!("`--{}` takes A:B, A: or A (got `{}`)", s.flag, s.got).into(),
        hint: Some(format!("for example `--{} 10:20`", s.flag).into()),
    }
}

/// The flags as the tool's arguments: `--lines A:B` is `line` A and `limit` B-A+1, and so on.
pub fn params(args: &ReadArgs) -> Result<ReadParams, Error> {
    let target = super::target(&args.call.target)?;
    args.call.params(target).map_err(|s| bad_span(&s))
}

pub fn read(store: &Arc<Store>, args: &ReadArgs) -> Result<u8, Error> {
    let json = args.common.json;
    let mut answer =
        super::answered::<Read>(store, json, false, || params(args), Control::default())?;
    super::note_terminal_size(&mut answer, args.call.params.max_tokens, json);
    output::answer(&answer, json);
    Ok(0)
}
