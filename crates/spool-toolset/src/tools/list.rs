//! `list`: a page of a directory's entries, sorted by name, paged by the last name shown.

use spool_core::Result;
use spool_core::answer::Answer;
use spool_core::calls::ListParams;

use crate::tool::{Call, Hints, Output, Tool};

/// `list`.
pub struct List;

const DESCRIPTION: &str = "List a directory inside the allowed roots, sorted by name, one page at a time \
(`limit`, default 200; `next_cursor`, `has_more`, `total`). `recursive` includes subdirectories \
(respecting .gitignore); `glob` filters. Pages continue after the last name returned, so \
entries created or deleted meanwhile neither repeat nor hide the others.";

impl Tool for List {
    type Params = ListParams;
    const TITLE: &'static str = "List a directory";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const HINTS: Hints = Hints::READS;
    const OUTPUT: Output = Output::Entries;

    fn answer(call: Call<'_>, p: ListParams) -> Result<Answer> {
        let cx = call.cx;
        let path = p.path.as_deref().unwrap_or(".");
        let mut page = spool_core::listing::list(
            cx.store,
            cx.roots,
            spool_core::listing::ListQuery {
                path,
                glob: p.glob.as_deref(),
                recursive: p.recursive,
                hidden: p.hidden,
            },
            p.limit,
            p.cursor.as_deref(),
        )?;
        spool_core::page::fit(&mut page, (cx.cap)(p.max_tokens), |p, d| {
            (
                spool_core::list_text::entries_text(p, path, d),
                spool_core::list_text::entries_notice(p, path, d),
            )
        })?;
        Ok(Answer::List(Box::new(page), path.to_owned()))
    }
}
