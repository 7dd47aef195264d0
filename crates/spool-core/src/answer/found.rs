//! The preview of an artifact with what a question found in all of it beside it: the answer of
//! a `read` or a `fetch` given `query` or `pattern`.

use crate::error::Result;
use crate::fit::Cap;
use crate::search::Find;
use crate::store::Store;

/// The preview of `reference` with what `find` finds in all of it beside it: the answer of a
/// `read` or `fetch` whose question is known.
pub fn found_window(
    store: &Store,
    reference: &str,
    find: &Find,
    preview: Option<crate::window::Preview>,
    cap: Cap,
    notes: &[String],
) -> Result<crate::envelope::Envelope> {
    // Opened first and held through the search: its lock keeps the copy (a maker's pin is let
    // go at the first open) until the window is made.
    let reader = store.open_artifact(reference)?;
    let found = crate::search::find(store, reference, find)?;
    crate::window::Alongside::default()
        .with_found(&found)
        .with_notes(notes)
        .window(&reader, crate::window::WindowRequest::Preview(preview), cap)
}
