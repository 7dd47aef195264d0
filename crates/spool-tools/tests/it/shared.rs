//! Two spool processes with different `SPOOL_HOME`s and one bucket (a real `SeaweedFS` on
//! loopback): one runs a command, the other reads, searches and pages its ref.

use crate::support::{Home, reference_of};

struct Machine<'w> {
    home: Home,
    weed: &'w spool_test_support::weed::Weed,
}

/// Asserts a command exited 0, showing its stderr when it did not.
fn succeeded(out: &std::process::Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Two machines (homes of their own) on one bucket.
fn two_machines(weed: &spool_test_support::weed::Weed) -> (Machine<'_>, Machine<'_>) {
    let machine = || Machine {
        home: Home::new(),
        weed,
    };
    (machine(), machine())
}

impl Machine<'_> {
    fn run(&self, args: &[&str]) -> std::process::Output {
        let mut cmd = self.home.cmd(args);
        for (k, v) in self.weed.env("team") {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }
}

#[test]
fn a_ref_made_on_one_machine_is_read_searched_and_paged_on_another() {
    let weed = spool_test_support::weed::Weed::start().unwrap_or_else(|e| panic!("{e}"));
    let (maker, reader) = two_machines(&weed);
    let made = maker.run(&["run", "--", "seq", "1", "300000"]);
    succeeded(&made);
    let reference = reference_of(&made);

    // B never saw it: it reads a window deep inside, from the shared copy.
    let read = reader.run(&["read", &reference, "--lines", "250000:250002", "--json"]);
    succeeded(&read);
    let window: serde_json::Value = serde_json::from_slice(&read.stdout).unwrap();
    assert_eq!(window["content"], "250000\n250001\n250002\n");
    assert_eq!(window["total"]["lines"], 300_000);
    assert_eq!(window["source"]["kind"], "exec");
    // Search covers the whole shared copy.
    let found = reader.run(&["search", "^299999$", &reference, "--json"]);
    let hits: serde_json::Value = serde_json::from_slice(&found.stdout).unwrap();
    assert_eq!(hits["hit_count"], 1, "{hits}");
    // Pages of a search: every hit once.
    let many = reader.run(&[
        "search",
        "^1000[0-9]$",
        &reference,
        "--limit",
        "4",
        "--json",
    ]);
    let page: serde_json::Value = serde_json::from_slice(&many.stdout).unwrap();
    assert_eq!(page["hit_count"], 10);
    assert_eq!(page["truncated"], true);
    // A cursor issued on one machine continues on the other: both sign with the bucket's key.
    let first = maker.run(&[
        "search",
        "^2000[0-9]$",
        &reference,
        "--limit",
        "4",
        "--json",
    ]);
    let first: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    let cursor = first["next_cursor"].as_str().expect("a next_cursor");
    let second = reader.run(&[
        "search",
        "^2000[0-9]$",
        first["ref"].as_str().unwrap(),
        "--limit",
        "4",
        "--cursor",
        cursor,
        "--json",
    ]);
    let second: serde_json::Value = serde_json::from_slice(&second.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&second.stderr)));
    assert_eq!(second["hits"][0]["line"], 20_004, "{second}");
    assert_eq!(second["hit_count"], 10);
    // The audit against the shared store shows the answers of both machines.
    let audit = maker.run(&["audit", &reference, "--json"]);
    let audit: serde_json::Value = serde_json::from_slice(&audit.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&audit.stderr)));
    let answers = audit["answers"].as_array().unwrap();
    let machines: std::collections::BTreeSet<&str> = answers
        .iter()
        .map(|a| a["machine"].as_str().unwrap())
        .collect();
    assert_eq!(machines.len(), 2, "{audit}");
    let tools: Vec<&str> = answers
        .iter()
        .map(|a| a["tool"].as_str().unwrap())
        .collect();
    assert_eq!(tools[0], "run", "oldest first: {tools:?}");
    assert!(tools.contains(&"read"), "{tools:?}");
    // The window the other machine read counts as delivered.
    let lines = audit["never_delivered_lines"].as_array().unwrap();
    assert!(
        lines
            .iter()
            .all(|l| !(l[0].as_u64() <= Some(250_000) && l[1].as_u64() >= Some(250_002))),
        "{lines:?}"
    );
    let text = maker.run(&["audit", &reference]);
    let mut settings = crate::support::settings(&maker.home);
    settings.add_filter(r"[A-Za-z0-9_-]+-[A-Za-z0-9]{6}#", "[MACHINE]#");
    settings.bind(|| {
        insta::assert_snapshot!("shared_ref_audit", String::from_utf8_lossy(&text.stdout));
    });
    let recent = reader.run(&["audit", "--json", "--limit", "50"]);
    let recent: serde_json::Value = serde_json::from_slice(&recent.stdout).unwrap();
    let recent = recent.as_array().unwrap();
    assert!(
        recent
            .iter()
            .any(|r| r["tool"] == "run" && r["ref"] == reference.as_str()),
        "the maker's run is in the reader's audit: {recent:?}"
    );

    // Expiry runs on the bucket too (nothing is due yet).
    let gc = reader.run(&["gc", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&gc.stdout).unwrap();
    assert_eq!(report["shared_expired"], 0, "{report}");
    // A ref neither machine made is not found, here or there.
    let missing = reader.run(&["read", "sp_nosuchref0"]);
    assert_eq!(missing.status.code(), Some(3));
}

impl Machine<'_> {
    /// Starts `spool run` without waiting; returns the child and the ref it announces on
    /// stderr as soon as the artifact exists.
    fn start_run(&self, script: &str) -> (std::process::Child, String) {
        use std::io::BufRead as _;
        let mut cmd = self.home.cmd(&["run", "--", "sh", "-c", script]);
        for (k, v) in self.weed.env("team") {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let at = line
            .find("sp_")
            .unwrap_or_else(|| panic!("no ref announced: {line}"));
        // Keep draining stderr so the child never blocks on it.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        (child, line[at..at + 13].to_owned())
    }

    /// `read ... --json` until it answers (the shared store gets a capture's first manifest
    /// about a second after it starts).
    fn read_json_when_there(&self, args: &[&str]) -> serde_json::Value {
        let started = std::time::Instant::now();
        loop {
            let out = self.run(args);
            if out.status.success() {
                return serde_json::from_slice(&out.stdout).unwrap();
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(20),
                "never readable: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }
}

#[test]
fn output_still_being_captured_on_one_machine_is_read_on_another_and_said_to_grow() {
    let weed = spool_test_support::weed::Weed::start().unwrap_or_else(|e| panic!("{e}"));
    let (maker, reader) = two_machines(&weed);
    let (child, reference) = maker.start_run("seq 1 200000; sleep 8; seq 200001 400000");
    let growing =
        reader.read_json_when_there(&["read", &reference, "--lines", "199999:200000", "--json"]);
    assert_eq!(growing["content"], "199999\n200000\n", "{growing}");
    assert_eq!(growing["complete"], false);
    assert_eq!(growing["capture"]["state"], "capturing", "{growing}");
    let mut settings = crate::support::settings(&reader.home);
    settings.add_filter(r"[0-9.]+ (bytes|KiB|MiB) stored", "[SIZE] stored");
    settings.bind(|| {
        insta::assert_snapshot!(
            "growing_capture_detail",
            growing["capture"]["detail"].as_str().unwrap()
        );
    });
    assert_eq!(growing["total"]["lines"], 200_000, "{growing}");
    // A plain read of the growing copy says it is growing, and reads on from its last line.
    let preview = reader.read_json_when_there(&["read", &reference, "--json"]);
    assert_eq!(preview["capture"]["state"], "capturing");
    assert_eq!(preview["next"][0]["tool"], "read");
    assert_eq!(preview["next"][0]["arguments"]["line"], 200_000);
    // Search covers what has arrived, and says the copy is still growing.
    let found = reader.run(&["search", "^150000$", &reference, "--json"]);
    let hits: serde_json::Value = serde_json::from_slice(&found.stdout).unwrap();
    assert_eq!(hits["hit_count"], 1, "{hits}");
    assert_eq!(hits["reason"]["code"], "upstream_partial", "{hits}");

    let done = child.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(0));
    // The same copy, now whole: the reader's copy catches up with the finished artifact.
    let whole =
        reader.read_json_when_there(&["read", &reference, "--lines", "399999:400000", "--json"]);
    assert_eq!(whole["content"], "399999\n400000\n", "{whole}");
    assert_eq!(whole["total"]["lines"], 400_000, "{whole}");
    assert!(whole.get("capture").is_none(), "{whole}");
    let again = reader.run(&["read", &reference, "--lines", "199999:200002", "--json"]);
    let again: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(
        again["content"], "199999\n200000\n200001\n200002\n",
        "{again}"
    );
}

#[test]
fn the_bucket_stopping_mid_upload_leaves_a_capture_never_complete_and_the_answer_says_so() {
    let mut weed = spool_test_support::weed::Weed::start().unwrap_or_else(|e| panic!("{e}"));
    let reader_home = Home::new();
    let maker = Machine {
        home: Home::new(),
        weed: &weed,
    };
    let (child, reference) = maker.start_run("seq 1 300000; sleep 6; seq 300001 600000");
    let maker_home = maker.home;
    // Wait until the shared store shows the capture, then stop the server under it.
    let settings = spool_s3::S3Settings::from_url(
        &format!("s3://{}/team", spool_test_support::weed::BUCKET),
        |k| {
            weed.env("team")
                .into_iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| v)
        },
    )
    .unwrap();
    let shared = spool_s3::SharedStore::connect(&settings).unwrap();
    let started = std::time::Instant::now();
    while shared.manifest(&reference).unwrap().is_none() {
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    weed.stop();
    let done = child.wait_with_output().unwrap();
    let banner = String::from_utf8_lossy(&done.stdout);
    assert_eq!(done.status.code(), Some(0), "{banner}");
    assert!(
        banner.contains(
            "the shared store did not get all of it, so it reads whole only on this machine"
        ) && banner.contains("the upload stopped after"),
        "{banner}"
    );
    let note = banner
        .lines()
        .find(|l| l.starts_with(" Note: the shared store did not get all of it"))
        .unwrap_or_else(|| panic!("{banner}"));
    let mut settings = crate::support::settings(&maker_home);
    settings.add_filter(r"after [0-9.]+ (bytes|KiB|MiB)", "after [SIZE]");
    settings.add_filter(
        r"127\.0\.0\.1:[0-9]+: [^)]*\)",
        "127.0.0.1:[PORT]: [CAUSE])",
    );
    settings.bind(|| insta::assert_snapshot!("upload_stopped_note", note));
    // The local copy is whole.
    let local = maker_home.json(&["read", &reference, "--lines", "600000:600000"]);
    assert_eq!(local["content"], "600000\n", "{local}");

    // `spool gc` with the bucket still down: the local work is done, and it says what it could
    // not do there (it does not fail).
    let mut gc_down = maker_home.cmd(&["gc"]);
    for (k, v) in weed.env("team") {
        gc_down.env(k, v);
    }
    let gc_down = gc_down.output().unwrap();
    succeeded(&gc_down);
    let text = String::from_utf8_lossy(&gc_down.stdout);
    assert!(text.contains("1 still not:"), "{text}");
    let mut settings = crate::support::settings(&maker_home);
    settings.add_filter(r"(in the shared store: |still not: )[^\n]*", "$1[CAUSE]");
    settings.bind(|| insta::assert_snapshot!("gc_with_the_bucket_down", text));

    // The bucket back: the capture there is still `capturing`, never complete-looking.
    weed.restart().unwrap();
    // A restarted server may answer before it has loaded what it stored: ask until it has.
    let asked = std::time::Instant::now();
    let there = loop {
        match shared.manifest(&reference) {
            Ok(Some(found)) => break found,
            other => assert!(
                asked.elapsed() < std::time::Duration::from_secs(30),
                "the manifest did not come back: {other:?}"
            ),
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert_eq!(
        there.manifest.state,
        spool_core::envelope::ArtifactState::Capturing
    );
    assert!(
        there.manifest.bytes < 600_000 * 7,
        "{}",
        there.manifest.bytes
    );
    // Another machine is told it stopped (after the stale time) and shows what was stored.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let mut cmd = reader_home.cmd(&["read", &reference, "--json"]);
    for (k, v) in weed.env("team") {
        cmd.env(k, v);
    }
    let out = cmd.env("SPOOL_S3_STALE_AFTER_S", "1").output().unwrap();
    let seen: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(seen["complete"], false, "{seen}");
    assert_eq!(seen["capture"]["state"], "interrupted", "{seen}");
    let mut settings = crate::support::settings(&reader_home);
    settings.add_filter(r"[0-9.]+ (bytes|KiB|MiB) had", "[SIZE] had");
    settings.bind(|| {
        insta::assert_snapshot!(
            "stopped_capture_detail",
            seen["capture"]["detail"].as_str().unwrap()
        );
    });
    // Once the bucket answers again, `spool gc` on the maker publishes it whole.
    let mut gc = maker_home.cmd(&["gc"]);
    for (k, v) in weed.env("team") {
        gc.env(k, v);
    }
    let gc = gc.output().unwrap();
    crate::support::settings(&maker_home).bind(|| {
        insta::assert_snapshot!("gc_publishes_again", crate::support::transcript(&gc));
    });
    assert!(
        String::from_utf8_lossy(&gc.stdout).contains("1 made here published"),
        "{}",
        String::from_utf8_lossy(&gc.stdout)
    );
    let mut cmd = reader_home.cmd(&["read", &reference, "--lines", "600000:600000", "--json"]);
    for (k, v) in weed.env("team") {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let whole: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(whole["content"], "600000\n", "{whole}");
    assert!(whole.get("capture").is_none(), "{whole}");
    // And the maker's answers no longer carry the note.
    let mut again = maker_home.cmd(&["read", &reference, "--lines", "1:1"]);
    for (k, v) in weed.env("team") {
        again.env(k, v);
    }
    let again = again.output().unwrap();
    assert!(
        !String::from_utf8_lossy(&again.stdout).contains("did not get all of it"),
        "{}",
        String::from_utf8_lossy(&again.stdout)
    );
}

#[test]
fn the_shared_store_can_be_set_in_spool_toml_and_a_bad_table_is_a_clear_error() {
    let weed = spool_test_support::weed::Weed::start().unwrap_or_else(|e| panic!("{e}"));
    let maker = Home::new();
    maker.file(
        "spool.toml",
        format!(
            "[store]\nurl = \"s3://{}/team\"\nendpoint = \"{}\"\n",
            spool_test_support::weed::BUCKET,
            weed.endpoint
        )
        .as_bytes(),
    );
    // Credentials only from the environment, never the file.
    let made = maker
        .cmd(&["run", "--", "seq", "1", "1000"])
        .env("AWS_ACCESS_KEY_ID", spool_test_support::weed::KEY)
        .env("AWS_SECRET_ACCESS_KEY", spool_test_support::weed::SECRET)
        .output()
        .unwrap();
    succeeded(&made);
    let reference = reference_of(&made);
    let reader = Machine {
        home: Home::new(),
        weed: &weed,
    };
    let read = reader.run(&["read", &reference, "--lines", "999:1000", "--json"]);
    let window: serde_json::Value = serde_json::from_slice(&read.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&read.stderr)));
    assert_eq!(window["content"], "999\n1000\n");

    // No rows asked for, no rows: not a crash.
    let none = reader.run(&["audit", "--limit", "0", "--json"]);
    succeeded(&none);
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&none.stdout).unwrap(),
        serde_json::json!([])
    );
    // A settings file that is named but missing is an error, not silently no shared store.
    let named = maker
        .cmd(&["artifacts"])
        .env("SPOOL_CONFIG", maker.path().join("no-such.toml"))
        .output()
        .unwrap();
    assert_eq!(
        named.status.code(),
        Some(6),
        "{}",
        String::from_utf8_lossy(&named.stderr)
    );
    assert!(String::from_utf8_lossy(&named.stderr).contains("no-such.toml"));

    let bad = Home::new();
    bad.file(
        "spool.toml",
        b"[store]\nurl = \"s3://bucket/team\"\naccess_key = \"no keys in files\"\n",
    );
    let out = bad.run(&["artifacts"]);
    assert_eq!(out.status.code(), Some(6));
    crate::support::settings(&bad).bind(|| {
        insta::assert_snapshot!("bad_store_table", crate::support::transcript(&out));
    });
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_client_on_another_machine_reads_a_growing_capture_then_pages_its_search() {
    use rmcp::ServiceExt;
    let weed = spool_test_support::weed::Weed::start().unwrap_or_else(|e| panic!("{e}"));
    let maker = Machine {
        home: Home::new(),
        weed: &weed,
    };
    let (child, reference) = maker.start_run("seq 1 100000; sleep 6; seq 100001 200000");
    let server_home = Home::new();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_spool"));
    // The capture was made at the other machine's terminal: a server answers from it when
    // it trusts that principal.
    cmd.args(["serve", "--trust", "cli"])
        .env("SPOOL_HOME", server_home.path());
    for (k, v) in weed.env("team") {
        cmd.env(k, v);
    }
    let client = ().serve(rmcp::transport::TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let call = |name: &str, args: serde_json::Value| {
        rmcp::model::CallToolRequestParams::new(name.to_owned())
            .with_arguments(args.as_object().cloned().unwrap())
    };
    let asked = std::time::Instant::now();
    let growing = loop {
        let r = client
            .call_tool(call(
                "read",
                serde_json::json!({ "ref": reference, "line": 99_999, "limit": 2 }),
            ))
            .await
            .unwrap();
        spool_test_support::schema_check::hold_to_declared(&client, "read", &r)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        if r.is_error != Some(true) {
            break r;
        }
        assert!(
            asked.elapsed() < std::time::Duration::from_secs(20),
            "{r:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    };
    let e = growing.structured_content.clone().unwrap();
    assert_eq!(e["capture"]["state"], "capturing", "{e}");
    let banner = growing.content[0].as_text().unwrap().text.clone();
    assert!(
        banner.contains("still being captured on another machine"),
        "{banner}"
    );
    let shown: String = growing.content[1..]
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect();
    assert_eq!(shown, "99999\n100000\n");

    let done = child.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(0));
    let whole = client
        .call_tool(call(
            "read",
            serde_json::json!({ "ref": reference, "line": 199_999, "limit": 2 }),
        ))
        .await
        .unwrap();
    spool_test_support::schema_check::hold_to_declared(&client, "read", &whole)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let w = whole.structured_content.unwrap();
    assert_eq!(w["total"]["lines"], 200_000, "{w}");
    assert!(w.get("capture").is_none(), "{w}");
    // A search page on this machine; its cursor continues on the maker's machine.
    let page = client
        .call_tool(call(
            "search",
            serde_json::json!({ "ref": reference, "pattern": "^15000[0-9]$", "limit": 3 }),
        ))
        .await
        .unwrap();
    spool_test_support::schema_check::hold_to_declared(&client, "search", &page)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let p = page.structured_content.unwrap();
    assert_eq!(p["hit_count"], 10, "{p}");
    let cursor = p["next_cursor"].as_str().unwrap().to_owned();
    client.cancel().await.unwrap();
    let more = maker.run(&[
        "search",
        "^15000[0-9]$",
        p["ref"].as_str().unwrap(),
        "--limit",
        "3",
        "--cursor",
        &cursor,
        "--json",
    ]);
    let more: serde_json::Value = serde_json::from_slice(&more.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&more.stderr)));
    assert_eq!(more["hits"][0]["line"], 150_003, "{more}");
}
