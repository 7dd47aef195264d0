//! `spool search PATTERN REF|PATH`

use std::time::Instant;

use serde_json::json;
use spool_core::render::Dialect;
use spool_core::search::{Paging, Query, render_answer, search_artifact, structured};
use spool_core::{Error, Store, audit};

use super::{audited, elapsed_ms, resolve_target};
use crate::cli::SearchArgs;
use crate::output;

pub fn search(store: &Store, args: &SearchArgs) -> Result<u8, Error> {
    let started = Instant::now();
    let query = Query {
        pattern: args.pattern.clone(),
        literal: args.literal,
        case_insensitive: args.ignore_case,
    };
    let paging = Paging {
        context: args.context,
        limit: args.limit,
        cursor: args.cursor.clone(),
    };
    let is_dir = std::path::Path::new(&args.target).is_dir();
    let reference = if is_dir {
        None
    } else {
        Some(resolve_target(store, &args.target)?)
    };
    let arguments = json!({ "pattern": args.pattern, "target": args.target, "ref": reference, "glob": args.globs, "literal": args.literal,
        "case_insensitive": args.ignore_case, "context": args.context, "limit": args.limit, "cursor": args.cursor });
    let answer = match &reference {
        Some(r) => search_artifact(store, r, &query, &paging),
        None => spool_core::search::tree::search_path(
            store,
            &super::everything()?,
            &super::absolute(&args.target)?,
            &query,
            &args.globs,
            &paging,
            spool_core::search::tree::DEFAULT_BUDGET,
        ),
    };
    let answer = answer.and_then(|mut a| {
        spool_core::search::fit(&mut a, store, super::cap(args.max_tokens, args.common.json))?;
        Ok(a)
    });
    match answer {
        Ok(answer) => {
            audited(audit::record_search(
                store,
                "search",
                &arguments,
                &answer,
                elapsed_ms(started),
            ));
            if args.common.json {
                output::json(&structured(&answer, Dialect::Cli));
            } else {
                output::text(&render_answer(&answer, Dialect::Cli));
            }
            // Like grep: 1 when nothing matched.
            Ok(u8::from(answer.hit_count == 0))
        }
        Err(err) => {
            audited(audit::record_error(
                store,
                "search",
                &arguments,
                &err,
                elapsed_ms(started),
            ));
            Err(err)
        }
    }
}
