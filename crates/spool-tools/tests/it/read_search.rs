//! `spool read`, `spool search`, `spool audit`, `spool artifacts`, expiry.

use insta::assert_snapshot;

use crate::support::{Home, reference_of, settings, transcript};

fn lines(n: usize) -> String {
    use std::fmt::Write as _;
    (1..=n).fold(String::new(), |mut s, i| {
        let _ = writeln!(s, "entry {i}: value={}", i * 7);
        s
    })
}

#[test]
fn read_a_file_by_lines_chars_bytes_and_tail() {
    let home = Home::new();
    let path = home.file("data.txt", lines(500).as_bytes());
    let p = path.to_str().unwrap();
    let out = home.run(&["read", p, "--lines", "10:12"]);
    settings(&home).bind(|| assert_snapshot!("read_lines", transcript(&out)));
    let out = home.run(&["read", p, "--tail", "2"]);
    settings(&home).bind(|| assert_snapshot!("read_tail", transcript(&out)));
    let chars = home.json(&["read", p, "--chars", "0:8"]);
    assert_eq!(chars["content"], "entry 1:");
    assert_eq!(chars["shown"][0]["unit"], "chars");
    let bytes = home.json(&["read", p, "--bytes", "9:17"]);
    assert_eq!(bytes["content"], "value=7\n");
    // The same unchanged file is one artifact, not five.
    let list = home.json(&["artifacts", "--kind", "file"]);
    assert_eq!(list["items"].as_array().unwrap().len(), 1);
    let version = &chars["source"]["version"];
    assert_eq!(version["sha256"].as_str().unwrap().len(), 64);
    assert!(version["mtime"].is_string());
}

#[test]
fn search_pages_and_zero_hits() {
    let home = Home::new();
    let path = home.file("data.txt", lines(2000).as_bytes());
    let p = path.to_str().unwrap();
    let out = home.run(&["search", r"value=\d*77\b", p, "--limit", "3"]);
    assert_eq!(out.status.code(), Some(0));
    settings(&home).bind(|| assert_snapshot!("search_page", transcript(&out)));
    let first = home.json(&["search", r"value=\d*77\b", p, "--limit", "3"]);
    let total = first["hit_count"].as_u64().unwrap();
    let expected = (1..=2000u64).filter(|i| (i * 7) % 100 == 77).count() as u64;
    assert_eq!(total, expected);
    let cursor = first["next_cursor"].as_str().unwrap();
    let reference = first["ref"].as_str().unwrap();
    let second = home.json(&[
        "search",
        r"value=\d*77\b",
        reference,
        "--limit",
        "3",
        "--cursor",
        cursor,
    ]);
    assert_eq!(second["hit_count"], total);
    assert!(second["hits"][0]["line"].as_u64() > first["hits"][2]["line"].as_u64());
    let none = home.run(&["search", "no-such-text", p]);
    assert_eq!(none.status.code(), Some(1));
    settings(&home).bind(|| assert_snapshot!("search_none", transcript(&none)));
}

#[test]
fn audit_shows_what_was_and_was_never_delivered() {
    let home = Home::new();
    let out = home.run(&["run", "--max-tokens", "600", "--", "sh", "-c", "seq 1 5000"]);
    let reference = reference_of(&out);
    home.run(&["read", &reference, "--lines", "1000:1099"]);
    let report = home.json(&["audit", &reference]);
    assert_eq!(report["answers"].as_array().unwrap().len(), 2);
    let never = report["never_delivered_lines"].as_array().unwrap();
    // Head, then lines 1000-1099, then the tail were delivered: two gaps remain.
    assert_eq!(never.len(), 2);
    assert_eq!(never[0][1], 999);
    assert_eq!(never[1][0], 1100);
    let text = home.run(&["audit", &reference]);
    let mut s = settings(&home);
    // Exact token counts of a gap marker depend on how the random ref tokenizes.
    s.add_filter(r"\d+ tokens\)", "[N] tokens)");
    s.bind(|| assert_snapshot!("audit_ref", transcript(&text)));
}

#[test]
fn an_expired_ref_says_what_it_was_and_how_to_make_it_again() {
    let home = Home::new();
    let out = home
        .cmd(&["run", "--", "echo", "short-lived"])
        .env("SPOOL_TTL", "1")
        .output()
        .unwrap();
    let reference = reference_of(&out);
    std::thread::sleep(std::time::Duration::from_millis(1200));
    let out = home.run(&["read", &reference]);
    assert_eq!(out.status.code(), Some(4));
    settings(&home).bind(|| assert_snapshot!("expired", transcript(&out)));
    let gc = home.run(&["gc"]);
    assert_eq!(gc.status.code(), Some(0));
    let list = home.json(&["artifacts"]);
    assert_eq!(list["items"][0]["state"], "expired");
}

#[test]
fn ls_and_search_a_directory() {
    let home = Home::new();
    let dir = home.path().join("proj");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    for i in 0..5 {
        std::fs::write(
            dir.join(format!("src/f{i}.rs")),
            format!("// TODO item {i}\n"),
        )
        .unwrap();
    }
    let d = dir.to_str().unwrap();
    let page = home.json(&["ls", d, "--recursive", "--limit", "3"]);
    assert_eq!(page["items"].as_array().unwrap().len(), 3);
    assert_eq!(page["has_more"], true);
    let rest = home.json(&[
        "ls",
        d,
        "--recursive",
        "--limit",
        "3",
        "--cursor",
        page["next_cursor"].as_str().unwrap(),
    ]);
    assert_eq!(
        rest["items"].as_array().unwrap().len(),
        3,
        "src plus five files: six in all"
    );
    let hits = home.json(&["search", "TODO", d, "-g", "*.rs", "--limit", "2"]);
    assert_eq!(hits["hit_count"], 5);
    assert_eq!(hits["truncated"], true);
    assert_eq!(hits["scope"]["files_searched"], 5);
    let out = home.run(&["search", "TODO", d, "--limit", "2"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Next hits: spool search TODO"), "{text}");
}

/// Regression (issue 13): a page the server answered with 404 or 500 was `COMPLETE` with exit
/// 0, as if it were the page. Now the banner says the status first, the exit code is 22 (as
/// `curl --fail`), and the body stays readable.
#[test]
fn an_error_status_is_not_the_page() {
    let home = Home::new();
    let rt = tokio::runtime::Runtime::new().unwrap();
    for status in [404u16, 503] {
        let body = format!("<html><body><h1>{status}</h1><p>nothing here</p></body></html>");
        let base = rt
            .block_on(spool_test_support::pages::serve_status(status, body))
            .unwrap();
        let url = format!("{base}/missing");
        let out = home.run(&["fetch", "--allow-private-network", &url]);
        assert_eq!(out.status.code(), Some(22), "{}", transcript(&out));
        let text = String::from_utf8_lossy(&out.stdout).replace(&base, "http://[HOST]");
        assert!(!text.starts_with("[COMPLETE"), "{text}");
        assert!(text.contains("nothing here"), "the body is shown: {text}");
        if status == 404 {
            settings(&home).bind(|| assert_snapshot!("fetch_404", text));
        }
        let json = home.json(&["fetch", "--allow-private-network", &url]);
        assert!(
            json["notice"]
                .as_str()
                .unwrap()
                .starts_with(&format!("[HTTP {status} ERROR"))
        );
        assert_eq!(json["source"]["version"]["status"], status);
    }
}

/// Regression (issue 13): a directory search counted unreadable files and dotfiles as
/// "ignored", could not search dotfiles, gave a tree outside git no version, and stored a new
/// hit list for every repeat. Now unreadable and hidden files have counts of their own,
/// `--hidden` searches dotfiles, the version carries a digest of the files read, and a repeat
/// of the same search of the same files reuses the stored list.
#[test]
fn a_directory_search_counts_what_it_skipped_by_why_and_reuses_its_list() {
    use std::os::unix::fs::PermissionsExt as _;
    let home = Home::new();
    let tree = home.path().join("tree");
    std::fs::create_dir_all(tree.join(".github")).unwrap();
    std::fs::create_dir_all(tree.join("src")).unwrap();
    std::fs::write(tree.join(".github/ci.yml"), "status: hidden\n").unwrap();
    std::fs::write(tree.join("src/a.rs"), "status: code\n").unwrap();
    std::fs::write(tree.join("locked.txt"), "status: locked\n").unwrap();
    std::fs::set_permissions(
        tree.join("locked.txt"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    for dir in [
        home.path(),
        tree.as_path(),
        &tree.join("src"),
        &tree.join(".github"),
    ] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    // Past the racy window: a list over files changed within a tick of its search is not
    // reused (git's racily clean rule).
    std::thread::sleep(std::time::Duration::from_millis(30));
    let dir = tree.to_str().unwrap();
    // As root every file is readable: the search then runs as `nobody`.
    let search = |extra: &[&str]| -> serde_json::Value {
        let bin = env!("CARGO_BIN_EXE_spool");
        // A directory this process made is owned by its effective user.
        let root =
            std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(home.path()).unwrap()) == 0;
        let mut cmd = if root {
            let mut c = std::process::Command::new("setpriv");
            c.args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "--",
                bin,
            ]);
            c
        } else {
            std::process::Command::new(bin)
        };
        cmd.args(["search", "status", dir, "--json"]).args(extra);
        let out = cmd.env("SPOOL_HOME", home.path()).output().unwrap();
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{e}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })
    };
    let first = search(&[]);
    let skipped = &first["scope"]["files_skipped"];
    assert_eq!(first["scope"]["files_searched"], 1, "{first}");
    assert_eq!(skipped["unreadable"], 1, "{skipped}");
    assert_eq!(skipped["hidden"], 1, "{skipped}");
    assert_eq!(skipped["ignored"], 0, "{skipped}");
    let digest = first["scope"]["version"]["files_digest"].as_str().unwrap();
    assert!(digest.starts_with("sha256:"), "{first}");
    assert!(
        first["notice"]
            .as_str()
            .unwrap()
            .contains("1 hidden, 0 binary, 0 too large, 1 unreadable")
    );
    let again = search(&[]);
    assert_eq!(
        again["ref"], first["ref"],
        "the same search of the same files is reused"
    );
    let hidden = search(&["--hidden"]);
    assert_eq!(hidden["hit_count"], 2, "{hidden}");
    assert!(hidden["scope"]["files_skipped"].get("hidden").is_none());
    assert_ne!(hidden["ref"], first["ref"]);
    std::fs::write(tree.join("src/a.rs"), "status: changed, status\n").unwrap();
    let changed = search(&[]);
    assert_ne!(
        changed["ref"], first["ref"],
        "a changed file is searched again"
    );
    assert_ne!(
        changed["scope"]["version"]["files_digest"],
        first["scope"]["version"]["files_digest"]
    );
}

/// Issue 14: a docs page is stored without what no reader sees and with its names as they are,
/// and its partial banner says how much of its text was shown, in chars.
#[test]
fn a_docs_page_says_what_it_kept_and_how_many_chars_were_shown() {
    let home = Home::new();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut page =
        String::from("<html><head><script>var tracking='x';</script></head><body><nav><ul>");
    for i in 0..100 {
        page.push_str(&format!("<li><a href=\"/p{i}\">Link {i}</a></li>"));
    }
    page.push_str("</ul></nav><main><h1>Variables</h1><table><tr><th>Name</th><th>Use</th></tr>");
    for i in 0..200 {
        page.push_str(&format!(
            "<tr><td>SETTING_{i}</td><td>ordinary behaviour {i}</td></tr>"
        ));
    }
    page.push_str(
        "<tr><td>MCP_DISCOVERY_CACHE</td><td>skip discovery</td></tr></table></main></body></html>",
    );
    let base = rt
        .block_on(spool_test_support::pages::serve("text/html", page))
        .unwrap();
    let url = format!("{base}/settings");
    let out = home.run(&[
        "fetch",
        "--allow-private-network",
        &url,
        "--max-tokens",
        "1200",
    ]);
    assert!(out.status.success(), "{}", transcript(&out));
    let text = String::from_utf8_lossy(&out.stdout).replace(&base, "http://[HOST]");
    let banner: String = text
        .split_inclusive('\n')
        .take_while(|l| !l.starts_with('|') && !l.starts_with('#'))
        .collect();
    settings(&home).bind(|| assert_snapshot!("fetch_docs_page_partial", banner));
    let reference = reference_of(&out);
    let hits = home.json(&["search", "-F", "MCP_DISCOVERY_CACHE", &reference]);
    assert_eq!(hits["hit_count"], 1, "{hits}");
    // When the question is known, the first answer holds what answers it, beside the head.
    let out = home.run(&[
        "read",
        &reference,
        "--query",
        "skip discovery",
        "--max-tokens",
        "1200",
    ]);
    assert!(out.status.success(), "{}", transcript(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .any(|l| l.contains("MCP_DISCOVERY_CACHE"))
    );
    settings(&home).bind(|| {
        assert_snapshot!(
            "read_with_query",
            transcript(&out).replace(&base, "http://[HOST]")
        );
    });
    let out = home.run(&[
        "read",
        &reference,
        "--pattern",
        "SETTING_1[0-9]9\\b",
        "--max-tokens",
        "1200",
    ]);
    assert!(out.status.success(), "{}", transcript(&out));
    settings(&home).bind(|| {
        assert_snapshot!(
            "read_with_pattern",
            transcript(&out).replace(&base, "http://[HOST]")
        );
    });
}

/// Issue 14: jq over a stored list answers a count in one call; a bad program says where, and
/// its hint runs.
#[test]
fn a_jq_query_counts_a_stored_list_in_one_call() {
    let home = Home::new();
    let rows: Vec<String> = (0..30_000)
        .map(|i| {
            format!(
                "{{\"id\":{i},\"status\":{}}}",
                if i % 7 == 0 { 504 } else { 200 }
            )
        })
        .collect();
    home.file("rows.json", format!("[{}]", rows.join(",")).as_bytes());
    let list = reference_of(&home.run(&["read", "rows.json"]));
    let out = home.run(&["query", &list, "map(select(.status == 504)) | length"]);
    assert!(out.status.success(), "{}", transcript(&out));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.ends_with("\n4286\n"), "{text}");
    let bad = home.run(&["query", &list, "map(select(.status == "]);
    assert_eq!(bad.status.code(), Some(6), "{}", transcript(&bad));
    let env = home.run(&["query", &list, "env | keys"]);
    let errors = format!(
        "{}{}",
        String::from_utf8_lossy(&bad.stderr),
        String::from_utf8_lossy(&env.stderr)
    );
    settings(&home).bind(|| {
        assert_snapshot!("query_count", text);
        assert_snapshot!("query_errors", errors);
    });
}

/// The user's excludes file (`$XDG_CONFIG_HOME/git/ignore`) counts for the dirty check as git
/// reads it, from the top of the repository, when a subdirectory is searched too (regression:
/// the search's own walk found that top only when a directory above had rules), and it leaves
/// files out of the search as ripgrep's does.
#[test]
fn the_users_excludes_file_counts_as_git_and_ripgrep_read_it() {
    let home = Home::new();
    let config = home.path().join("config");
    std::fs::create_dir_all(config.join("git")).unwrap();
    std::fs::write(config.join("git/ignore"), "*.secret\n/sub/local/\n").unwrap();
    let repo = home.path().join("repo");
    std::fs::create_dir_all(repo.join("sub")).unwrap();
    std::fs::write(repo.join("sub/a.txt"), "needle\n").unwrap();
    spool_test_support::git::commit_all(&repo);
    std::fs::create_dir_all(repo.join("sub/local")).unwrap();
    std::fs::write(repo.join("sub/b.secret"), "needle\n").unwrap();
    std::fs::write(repo.join("sub/local/c.txt"), "needle\n").unwrap();
    let status = std::process::Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=all"])
        .current_dir(&repo)
        .env("XDG_CONFIG_HOME", &config)
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(status.status.success());
    assert!(status.stdout.is_empty(), "git ignores both");
    let search = |dir: &std::path::Path| {
        let mut cmd = home.cmd(&["search", "needle", dir.to_str().unwrap(), "--json"]);
        cmd.env("XDG_CONFIG_HOME", &config).env("HOME", home.path());
        let out = cmd.output().unwrap();
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    for dir in [repo.clone(), repo.join("sub")] {
        let hits = search(&dir);
        assert_eq!(
            hits["scope"]["version"]["dirty"],
            false,
            "{}",
            dir.display()
        );
        // b.secret is left out by the excludes file; sub/local/ is anchored, and ripgrep
        // reads the file from the current directory (here the home), so its c.txt is searched.
        assert_eq!(hits["scope"]["files_searched"], 2, "{hits}");
        assert_eq!(hits["scope"]["files_skipped"]["ignored"], 1, "{hits}");
    }
}
