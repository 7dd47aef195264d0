//! `map`: a repository's most referred-to definitions, ranked, pinned to its commit, a page at a
//! time. The engine and its arguments are spool-map's.

use spool_core::Result;
use spool_core::answer::Answer;
use spool_map::MapParams;

use crate::tool::{Call, Hints, Output, Tool};

/// `map`.
pub struct Map;

const DESCRIPTION: &str = "Map a repository or directory (`path`) to start a task from: its files' most \
referred-to definitions (structs, classes, functions, ...), each with its line number and the \
line that names it, so `read` opens it. Files are ranked by how much of the code refers to them \
(PageRank over references, as Aider's repo map); `focus` (files or symbols the task is about) \
ranks them and what they use first. The answer fits `max_tokens` (default 1024) and says what it \
left out: which files of how many it shows, files skipped by why (no grammar, binary, too \
large, .gitignore), the commit it is pinned to; `next` holds the cursor to the next files and \
a larger budget, `next_templates` a search by your own `pattern`. A `path` to one file maps its outline, every definition listed. \
Rust, Python, JavaScript, TypeScript, Go, Java, C and C++ are parsed; other files are listed \
by name. The map is stored once; a second map of the unchanged tree is that copy.";

impl Tool for Map {
    type Params = MapParams;
    const TITLE: &'static str = "Map a repository";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const HINTS: Hints = Hints::READS;
    const OUTPUT: Output = Output::Map;

    fn answer(call: Call<'_>, p: MapParams) -> Result<Answer> {
        spool_map::answer(call.cx, &p)
    }
}
