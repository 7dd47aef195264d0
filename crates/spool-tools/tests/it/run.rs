//! `spool run`: success, a failure after 3,000 lines, a timeout, binary output, signals.

use std::time::Duration;

use insta::assert_snapshot;

use crate::support::{Home, reference_of, settings, transcript};

#[test]
fn success_is_one_line_banner_and_the_output() {
    let home = Home::new();
    let out = home.run(&["run", "--", "echo", "hello world"]);
    settings(&home).bind(|| assert_snapshot!(transcript(&out)));
}

#[test]
fn failure_after_3000_lines_shows_head_tail_and_exits_with_its_code() {
    let home = Home::new();
    let script = "i=1; while [ $i -le 3000 ]; do echo \"step $i ok\"; i=$((i+1)); done; echo 'error: the build failed' >&2; exit 3";
    let out = home.run(&["run", "--max-tokens", "1000", "--", "sh", "-c", script]);
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.ends_with("step 3000 ok\nerror: the build failed\n"),
        "the real last lines end the preview"
    );
    let banner: String = text.lines().take(4).collect::<Vec<_>>().join("\n");
    settings(&home).bind(|| assert_snapshot!(banner));
    // The gap is named exactly and can be read back.
    let reference = reference_of(&out);
    let marker = text.lines().find(|l| l.starts_with("... [lines ")).unwrap();
    let gap_start: u64 = marker["... [lines ".len()..]
        .split('-')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let read = home.json(&[
        "read",
        &reference,
        "--lines",
        &format!("{gap_start}:{gap_start}"),
    ]);
    assert_eq!(read["content"], format!("step {gap_start} ok\n"));
}

#[test]
fn a_timeout_exits_124_and_keeps_the_output() {
    let home = Home::new();
    let out = home.run(&[
        "run",
        "--timeout",
        "0.5",
        "--",
        "sh",
        "-c",
        "echo first; sleep 20",
    ]);
    assert_eq!(out.status.code(), Some(124));
    settings(&home).bind(|| assert_snapshot!(transcript(&out)));
}

#[test]
fn binary_output_is_stated_not_dumped() {
    let home = Home::new();
    let out = home.run(&[
        "run",
        "--",
        "sh",
        "-c",
        "printf 'PK\\003\\004\\000\\000\\377'",
    ]);
    assert_eq!(out.status.code(), Some(0));
    settings(&home).bind(|| assert_snapshot!(transcript(&out)));
    let reference = reference_of(&out);
    let bytes = home.run(&["read", &reference, "--bytes", "0:4"]);
    assert!(String::from_utf8_lossy(&bytes.stdout).contains("PK\\x03\\x04"));
}

#[test]
fn sigint_stops_the_command_and_keeps_what_was_captured() {
    let home = Home::new();
    let child = home
        .cmd(&[
            "run",
            "--json",
            "--",
            "sh",
            "-c",
            "echo before; sleep 30; echo after",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let e: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(e["content"], "before\n");
    assert_eq!(e["complete"], false);
    assert_eq!(e["reason"]["code"], "cancelled");
    assert_eq!(e["capture"]["state"], "cancelled");
}

#[test]
fn a_full_disk_interrupts_the_capture_at_the_bytes_reached() {
    let home = Home::new();
    // A file size limit stands in for a full disk: writes past it fail with EFBIG.
    let spool = env!("CARGO_BIN_EXE_spool");
    let script = format!(
        "trap '' XFSZ; ulimit -f 400; exec {spool} run --json -- sh -c 'yes 0123456789abcdef | head -c 2000000'"
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &script])
        .env("SPOOL_HOME", home.path())
        .output()
        .unwrap();
    let e: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|err| panic!("{err}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(e["capture"]["state"], "interrupted");
    assert!(
        e["capture"]["detail"]
            .as_str()
            .unwrap()
            .starts_with("capture stopped at 204,800 bytes"),
        "{}",
        e["capture"]
    );
    assert_eq!(e["total"]["bytes"], 204_800);
    assert_eq!(e["complete"], false);
    // What was stored reads back from a process without the limit.
    let reference = e["ref"].as_str().unwrap();
    let tail = home.json(&["read", reference, "--tail", "1"]);
    assert_eq!(tail["reason"]["code"], "size_cap");
}

#[test]
fn two_runs_at_once_both_succeed() {
    let home = Home::new();
    let a = home
        .cmd(&["run", "--json", "--", "sh", "-c", "seq 1 20000"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let b = home
        .cmd(&["run", "--json", "--", "sh", "-c", "seq 1 30000"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    for (child, lines) in [(a, 20_000), (b, 30_000)] {
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        let e: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(e["total"]["lines"], lines);
    }
    let list = home.json(&["artifacts"]);
    assert_eq!(list["items"].as_array().unwrap().len(), 2);
}

#[test]
fn read_one_stream_of_a_run() {
    let home = Home::new();
    let out = home.run(&[
        "run",
        "--",
        "sh",
        "-c",
        "echo to-out; echo to-err >&2; echo more-out",
    ]);
    let reference = reference_of(&out);
    let err = home.json(&["read", &reference, "--stream", "stderr"]);
    assert_eq!(err["content"], "to-err\n");
    assert_eq!(err["complete"], true);
    assert_ne!(
        err["ref"],
        reference.as_str(),
        "a stream is a view with its own ref"
    );
    let out_only = home.json(&["read", &reference, "--stream", "stdout"]);
    assert_eq!(out_only["content"], "to-out\nmore-out\n");
    let bad = home.run(&["read", &reference, "--stream", "stdin"]);
    assert_eq!(bad.status.code(), Some(6));
}

/// The ref of the one artifact in the store that is still `capturing`, once it appears.
fn capturing_ref(home: &Home) -> String {
    for _ in 0..100 {
        let list = home.json(&["artifacts"]);
        if let Some(item) = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["state"] == "capturing")
        {
            return item["ref"].as_str().unwrap().to_owned();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no capturing artifact appeared");
}

#[test]
fn reading_a_capture_in_progress_says_it_is_still_growing() {
    let home = Home::new();
    let mut child = home
        .cmd(&["run", "--", "sh", "-c", "echo early; sleep 3"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let reference = capturing_ref(&home);
    let e = home.json(&["read", &reference]);
    assert_eq!(e["error"]["code"], "unavailable");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("still being captured")
    );
    child.wait().unwrap();
    let e = home.json(&["read", &reference]);
    assert_eq!(e["content"], "early\n");
}

#[test]
fn a_spool_killed_mid_capture_leaves_a_cancelled_artifact_with_what_reached_the_disk() {
    let home = Home::new();
    let mut child = home
        .cmd(&["run", "--", "sh", "-c", "echo partial; exec sleep 5"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let reference = capturing_ref(&home);
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    let e = home.json(&["read", &reference]);
    assert_eq!(e["content"], "partial\n");
    assert_eq!(e["complete"], false);
    assert_eq!(e["capture"]["state"], "cancelled");
    assert_eq!(e["reason"]["code"], "cancelled");
}

/// Regression (issue 13): at a terminal, the preview was an agent's 8,000 tokens (2,917 lines
/// of `seq`). A person at a terminal now gets a few screens and the way to more; a pipe, a
/// file and `--json` keep the agent's cap.
#[test]
fn a_terminal_gets_a_few_screens_and_a_pipe_gets_the_agents_share() {
    let home = Home::new();
    let bin = env!("CARGO_BIN_EXE_spool");
    // `script` (util-linux) runs the command on a pseudo-terminal of its own.
    let out = std::process::Command::new("script")
        .args(["-qec", &format!("{bin} run -- seq 1 100000"), "/dev/null"])
        .env("SPOOL_HOME", home.path())
        .env("LINES", "40")
        .output()
        .expect("util-linux `script` runs a command on a terminal");
    let terminal = String::from_utf8_lossy(&out.stdout);
    assert!(terminal.contains("sized for your terminal"), "{terminal}");
    let shown = terminal.lines().count();
    assert!((40..=400).contains(&shown), "{shown} lines at a terminal");
    let piped = home.run(&["run", "--", "seq", "1", "100000"]);
    let piped = String::from_utf8_lossy(&piped.stdout);
    assert!(!piped.contains("sized for your terminal"));
    assert!(piped.lines().count() > 1000, "a pipe gets the agent's cap");
}
