//! Text fixtures: numbered lines, and a settings page whose answer a question describes
//! without naming it. Plain `std`, so spool-core's tests include this file by its path.

/// `n` numbered lines: `line 1: ...`.
pub fn numbered_lines(n: usize) -> String {
    use std::fmt::Write as _;
    (1..=n).fold(String::new(), |mut s, i| {
        let _ = writeln!(s, "line {i}: the quick brown fox jumps over the lazy dog");
        s
    })
}

/// A settings page: 300 ordinary rows, distractors that share words with the question, and
/// the row that answers it, named by a variable the question does not name.
pub fn settings_page() -> String {
    let mut page = String::from("# Environment variables\n\n| Variable | Purpose |\n|---|---|\n");
    for i in 0..300 {
        page.push_str(&format!(
            "| SETTING_{i} | Controls ordinary behaviour number {i}. |\n"
        ));
        if i == 260 {
            page.push_str("| CONNECT_TIMEOUT_MS | How long connecting to a server may take. |\n");
            page.push_str("| STARTUP_BANNER | Skip the banner shown at startup. |\n");
            page.push_str("| REMOTE_LOG_LEVEL | Log level of remote servers. |\n");
            page.push_str("| MCP_DISCOVERY_CACHE | Set to 1 to skip connecting to remote MCP servers at every startup; their tools load from the cache. |\n");
            page.push_str("| SERVER_LIST | The servers to list. |\n");
        }
    }
    page.push_str("\nSome closing paragraph about servers in general.\n");
    page
}
