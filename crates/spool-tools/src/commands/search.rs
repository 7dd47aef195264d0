//! `spool search PATTERN REF|PATH`

use std::sync::Arc;

use spool_core::answer::Answer;
use spool_core::calls::{Misread, SearchParams};
use spool_core::{Error, Store};
use spool_toolset::Control;
use spool_toolset::tools::Search;

use crate::cli::SearchArgs;
use crate::output;

/// The flags as the tool's arguments: the pattern and target told apart, the target a ref or an
/// absolute path, the command line's cap where none is given.
pub fn params(args: &SearchArgs) -> Result<SearchParams, Error> {
    let (pattern, target) = args.call.pattern_and_target().map_err(|m| match m {
        Misread::PatternAndWords => Error::InvalidArgument {
            message: "with `--query WORDS`, give only the target (a ref, a file or a directory), not a pattern too".into(),
            hint: Some("for example `spool search --query 'retry timeout' sp_...`".into()),
        },
        Misread::Nothing => Error::InvalidArgument {
            message: "give a PATTERN to search for, or `--query WORDS`".into(),
            hint: Some("for example `spool search TODO .`".into()),
        },
    })?;
    let mut p = args.call.params(pattern, super::target(&target)?);
    // A page sized for an agent whatever the terminal: every hit is counted anyway.
    p.max_tokens.get_or_insert(spool_core::DEFAULT_MAX_TOKENS);
    Ok(p)
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
