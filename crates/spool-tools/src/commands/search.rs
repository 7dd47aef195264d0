//! `spool search PATTERN REF|PATH`

use std::sync::Arc;

use spool_core::answer::Answer;
use spool_core::{Error, Store};
use spool_toolset::Control;
use spool_toolset::tools::{Search, SearchParams};

use crate::cli::SearchArgs;
use crate::output;

fn params(args: &SearchArgs) -> Result<SearchParams, Error> {
    // With --query there is no pattern: the one argument is the target.
    let (pattern, target) = match (&args.query, &args.pattern, &args.target) {
        (Some(_), Some(_), Some(_)) => {
            return Err(Error::InvalidArgument {
                message: "with `--query WORDS`, give only the target (a ref, a file or a directory), not a pattern too".into(),
                hint: Some("for example `spool search --query 'retry timeout' sp_...`".into()),
            });
        }
        (Some(_), first, None) => (None, first.clone()),
        (None, None, _) => {
            return Err(Error::InvalidArgument {
                message: "give a PATTERN to search for, or `--query WORDS`".into(),
                hint: Some("for example `spool search TODO .`".into()),
            });
        }
        (_, pattern, target) => (pattern.clone(), target.clone()),
    };
    let (reference, path) = super::ref_or_path(target.as_deref().unwrap_or("."))?;
    Ok(SearchParams {
        pattern,
        query: args.query.clone(),
        reference,
        path,
        literal: args.literal,
        case_insensitive: args.ignore_case,
        glob: args.globs.clone(),
        hidden: args.hidden,
        no_ignore: args.no_ignore,
        count: args.count,
        context: (!args.count).then_some(args.context),
        limit: args.limit,
        cursor: args.cursor.clone(),
        max_tokens: Some(args.max_tokens),
    })
}

pub fn search(store: &Arc<Store>, args: &SearchArgs) -> Result<u8, Error> {
    let json = args.common.json;
    let answer =
        super::answered::<Search>(store, json, false, || params(args), Control::default())?;
    output::answer(&answer, json);
    // Like grep: 1 when nothing matched.
    Ok(match &answer {
        Answer::Search(a) => u8::from(a.hit_count == 0),
        _ => 0,
    })
}
