//! What the model reads about each tool. This is product copy: it says what is stored, for how
//! long, and how to continue. `tools/list` is snapshot-tested.

pub const INSTRUCTIONS: &str = "spool keeps every tool output whole. Answers that show only part of something say which \
part was shown, how big the whole is, why they stopped, and the exact next call (in `next`; \
`next_templates` needs a `pattern` of yours). \
Outputs are stored as artifacts (refs like sp_...) for 7 days: continue with `read`, and search \
the whole of one with `search` before concluding that something is absent.";

pub const RUN: &str = "Run a command and keep all of its output. stdout and stderr are stored whole, in arrival \
order, as an artifact kept for 7 days. The answer shows the head and the real tail of the output \
with the total line count, names the lines not shown, and gives the calls that read them \
(`read` with the ref and a line) or search all of it (`search` with the ref). On failure the \
last lines are always shown. The version records exit code, signal, timeout and duration. \
Prefer this to piping output through head, tail or grep: nothing is lost.";

pub const READ: &str = "Read part of a stored artifact (`ref`) or of a file inside the allowed roots (`path`): lines \
(`line`, `limit`), chars (`char_offset`, `max_chars`) or bytes (`byte_offset`, `max_bytes`); \
without a range, the preview (head, tail or both). Every answer states the range shown, the \
size of the whole, why it stopped, and the exact next call. A file is stored on first read with \
its sha256, mtime and git commit, so continuations read that same version. Do not conclude that \
something is absent from the part you saw: search for it.";

pub const SEARCH: &str = "Search the whole of a stored artifact (`ref`), a file, or every file under a directory \
(`path`: .gitignore respected unless `no_ignore`, hidden files only with `hidden`, binary files \
skipped, `glob` to narrow). Counts every hit (`hit_count`), returns a page (`limit`, default 50) \
and says whether more exist (`truncated`, `next_cursor`). The scope says what was searched: the \
globs, files searched, files left out counted by why (outside the glob, ignored, hidden), the git \
commit. Zero hits say where it looked, and `next` holds the searches of what was left out. \
`count: true` gives hits per file instead (which files, how often), every file counted. A directory's hit list is stored, so every page comes \
from one snapshot. Not sure of the exact word? Give `query` (words) instead of `pattern`: the \
passages of a `ref` or a file holding any of them, ranked best first, every one counted.";

pub const QUERY: &str = "Run a jq program (`jq`, jq syntax) over stored JSON (`ref`): a JSON answer, a \
fetched JSON page, or a list of items. A ref whose lines are JSON values (an item list) is read \
as their array, as `jq --slurp`. Use it to find one record or count them instead of paging: \
`map(select(.status == 504)) | length`. The output is stored, one compact JSON value a line, \
and answered like `read` (`limit` values shown, the rest by the `next` read).";

pub const LIST: &str = "List a directory inside the allowed roots, sorted by name, one page at a time \
(`limit`, default 200; `next_cursor`, `has_more`, `total`). `recursive` includes subdirectories \
(respecting .gitignore); `glob` filters. Pages continue after the last name returned, so \
entries created or deleted meanwhile neither repeat nor hide the others.";

pub const ARTIFACTS: &str = "List stored artifacts, newest first: ref, source and version, sizes, state (complete, \
cancelled, interrupted, expired) and expiry. Expired ones stay as tombstones that say what they \
were and how to make them again.";

pub const FETCH: &str = "Fetch a web page once and keep it: the page is stored whole (HTML as markdown, JSON \
pretty-printed) with its version (fetch time, final URL after redirects, status, ETag, \
Last-Modified, sha256). The answer shows the head and says how long the page is; to find \
something in it, `search` the ref with your own `pattern` (the template in `next_templates`) \
rather than paging, then `read` around the hit. The same URL within 5 minutes reuses the stored copy; `refresh: true` asks the \
server again and says whether the page changed. HTTP errors are answers with their status; \
private and loopback addresses are refused unless the server allows them.";

pub const CI_LOG: &str = "Read a GitHub Actions job's log, pinned to its run and attempt. Without `attempt` the \
run's latest is read first and pinned; a re-run is a new attempt under the same run id, and \
reading on (`read` the ref) stays on the attempt stored, never splicing two executions. The \
answer shows the log's tail, names the step that failed and the first `##[error]` line, lists \
the attempt's jobs (failed first) and the other attempts, each as a ready call. A finished \
job's log is stored once and reused. Token from GITHUB_TOKEN or GH_TOKEN; API from \
GITHUB_API_URL.";

pub const MAP: &str = "Map a repository or directory (`path`) to start a task from: its files' most \
referred-to definitions (structs, classes, functions, ...), each with its line number and the \
line that names it, so `read` opens it. Files are ranked by how much of the code refers to them \
(PageRank over references, as Aider's repo map); `focus` (files or symbols the task is about) \
ranks them and what they use first. The answer fits `max_tokens` (default 1024) and says what it \
left out: which files of how many it shows, files skipped by why (no grammar, binary, too \
large, .gitignore), the commit it is pinned to; `next` holds the cursor to the next files and \
a larger budget, `next_templates` a search by your own `pattern`. A `path` to one file maps its outline, every definition listed. \
Rust, Python, JavaScript, TypeScript, Go, Java, C and C++ are parsed; other files are listed \
by name. The map is stored once; a second map of the unchanged tree is that copy.";
