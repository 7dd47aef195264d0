//! Test fixtures for spool: what each host forwards to the model ([`hosts`]), a real S3 server
//! ([`weed`]), and big answers. The fake upstream MCP server is the binary `fake-upstream`; tests
//! of other crates find it with [`fake_upstream`].

pub mod actions;
pub mod flipping;
pub mod git;
pub mod hosts;
pub mod pages;
pub mod schema_check;
pub mod text;
pub mod weed;

use std::path::PathBuf;

/// The built `fake-upstream` binary: beside the running test's `deps` directory.
///
/// `cargo test --workspace` builds it (this crate's own test runs it). Running another crate's
/// tests alone needs `cargo build -p spool-test-support` first; the error says so.
pub fn fake_upstream() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut dir = exe.parent().map(PathBuf::from).unwrap_or_default();
    if dir.ends_with("deps") {
        dir.pop();
    }
    let bin = dir.join("fake-upstream");
    if bin.is_file() {
        Ok(bin)
    } else {
        Err(format!(
            "`{}` is not built: run `cargo build -p spool-test-support` (or `cargo test --workspace`)",
            bin.display()
        ))
    }
}

/// The text `big_text` answers with `lines` lines: what a test compares a read-back against.
pub fn big_text(lines: u64) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for i in 1..=lines {
        let _ = writeln!(
            s,
            "line {i}: the quick brown fox jumps over the lazy dog, {} times",
            i * 7
        );
    }
    s
}

/// The rows `list_rows` and `query_rows` answer with.
pub fn rows(n: u64) -> serde_json::Value {
    serde_json::Value::Array(
        (0..n)
            .map(|i| serde_json::json!({ "id": i, "name": format!("row {i}"), "tags": ["a", "b"], "score": i % 97 }))
            .collect(),
    )
}
