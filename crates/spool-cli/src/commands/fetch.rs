//! `spool fetch URL`

use std::time::Instant;

use serde_json::json;
use spool_core::window::{WindowRequest, window_with_notes};
use spool_core::{Error, Store, audit};
use spool_fetch::{FetchOptions, Format};

use super::{audited, elapsed_ms};
use crate::cli::{FetchArgs, FormatArg};
use crate::output;

pub fn fetch(store: &Store, args: &FetchArgs) -> Result<u8, Error> {
    let started = Instant::now();
    let format = match args.format {
        FormatArg::Markdown => Format::Markdown,
        FormatArg::Text => Format::Text,
        FormatArg::Raw => Format::Raw,
    };
    let opts = FetchOptions {
        allow_private: args.allow_private_network,
        ..FetchOptions::default()
    };
    let arguments = json!({ "url": spool_fetch::redacted_str(&args.url), "format": format.as_str(), "refresh": args.refresh, "max_tokens": args.max_tokens });
    let answer = spool_fetch::fetch(
        store,
        &args.url,
        format,
        args.refresh,
        &opts,
        &mut |_, _| {},
    )
    .and_then(|fetched| {
        let reader = store.open_artifact(&fetched.meta.reference)?;
        window_with_notes(
            &reader,
            WindowRequest::Preview(None),
            super::cap(args.max_tokens, args.common.json),
            &fetched.notes,
        )
    });
    match answer {
        Ok(envelope) => {
            audited(audit::record_envelope(
                store,
                "fetch",
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
                "fetch",
                &arguments,
                &err,
                elapsed_ms(started),
            ));
            Err(err)
        }
    }
}
