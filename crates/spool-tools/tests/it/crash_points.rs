//! A capture killed at any instant is recovered (issue 58), as `SQLite` and `RocksDB` test theirs:
//! the process is stopped at each named point where the files are between two states
//! (`SPOOL_TEST_CRASH_AT`), and by SIGKILL at random instants; then every artifact must end
//! sealed, with its bytes on disk counted by its row and nothing left beside it.
//!
//! Regression: a writer killed between its content's rename and its row's seal left the
//! artifact `capturing` for good ("still being captured" on every read, ignored by `gc`).

use std::os::unix::process::ExitStatusExt as _;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;

use crate::support::Home;

/// `seq 1 200000`: its bytes.
const SEQ_BYTES: u64 = 1_288_895;

fn crash_at(home: &Home, point: &str, args: &[&str]) -> std::process::Output {
    let out = home
        .cmd(args)
        .env("SPOOL_TEST_CRASH_AT", point)
        .output()
        .unwrap();
    assert_eq!(
        out.status.signal(),
        Some(6),
        "stopped at {point}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Every artifact's ref, state and bytes, newest first.
fn artifacts(home: &Home) -> Vec<(String, String, u64)> {
    let listed = home.json(&["artifacts", "--limit", "100"]);
    listed["items"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .iter()
        .map(|a| {
            (
                a["ref"].as_str().unwrap().to_owned(),
                a["state"].as_str().unwrap_or_default().to_owned(),
                a["total"]["bytes"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The store holds nothing but sealed artifacts: no partial, orphan or lock file is left, and
/// each content file is as long as its row says.
fn nothing_beside_sealed(home: &Home) {
    for entry in std::fs::read_dir(home.path().join("store-v1").join("content")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        for ending in [".partial", ".orphan", ".recover"] {
            assert!(!name.ends_with(ending), "left on disk: {name}");
        }
    }
    for (reference, state, bytes) in artifacts(home) {
        assert_ne!(state, "capturing", "{reference}");
        let on_disk = std::fs::metadata(
            home.path()
                .join("store-v1")
                .join("content")
                .join(&reference),
        )
        .map_or(0, |m| m.len());
        assert_eq!(bytes, on_disk, "{reference} ({state})");
    }
}

fn only_ref(home: &Home) -> String {
    let all = artifacts(home);
    assert_eq!(all.len(), 1, "{all:?}");
    all[0].0.clone()
}

#[test]
fn a_capture_stopped_at_each_crash_point_is_sealed_with_all_that_reached_the_disk() {
    for point in ["seal-before-rename", "seal-after-rename"] {
        let home = Home::new();
        crash_at(&home, point, &["run", "--", "seq", "1", "200000"]);
        let reference = only_ref(&home);
        // The next process to read it recovers it: every byte had reached the disk.
        let e = home.json(&["read", &reference, "--lines", "199999:200000"]);
        assert_eq!(e["capture"]["state"], "cancelled", "{point}: {e}");
        assert_eq!(e["total"]["bytes"], SEQ_BYTES, "{point}: {e}");
        assert_eq!(e["total"]["lines"], 200_000, "{point}: {e}");
        assert_eq!(
            e["complete"], false,
            "a recovered copy is not called whole: {e}"
        );
        let detail = e["capture"]["detail"].as_str().unwrap();
        assert!(detail.contains("process died"), "{detail}");
        nothing_beside_sealed(&home);
    }
}

#[test]
fn a_recovery_stopped_half_way_is_finished_by_the_next_process() {
    let home = Home::new();
    crash_at(
        &home,
        "seal-after-rename",
        &["run", "--", "seq", "1", "200000"],
    );
    let reference = only_ref(&home);
    crash_at(&home, "recover-adopted", &["read", &reference]);
    // `gc` finishes it, and counts it.
    let report = home.json(&["gc"]);
    assert_eq!(report["recovered"], 1, "{report}");
    let e = home.json(&["read", &reference, "--tail", "1"]);
    assert_eq!(e["capture"]["state"], "cancelled", "{e}");
    assert_eq!(e["total"]["bytes"], SEQ_BYTES, "{e}");
    nothing_beside_sealed(&home);
}

#[test]
fn captures_killed_at_random_instants_end_sealed_and_counted() {
    let home = Home::new();
    // A fixed sequence of instants (printed), spread over the capture's life: start, writing,
    // sealing. The same figures each run: a failure can be replayed.
    let mut seed: u64 = 0x005e_ed58;
    let mut killed = Vec::new();
    for round in 0..20 {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let wait = Duration::from_millis((seed >> 33) % 400);
        let mut child = home
            .cmd(&["run", "--", "seq", "1", "2000000"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(wait);
        let _ = child.kill();
        let status = child.wait().unwrap();
        killed.push((round, wait.as_millis(), status.signal()));
    }
    eprintln!("killed (round, ms, signal): {killed:?}");
    assert!(
        killed.iter().any(|(_, _, s)| *s == Some(9)),
        "no capture was killed: {killed:?}"
    );
    let report = home.json(&["gc"]);
    eprintln!("gc: {report}");
    nothing_beside_sealed(&home);
    assert_eq!(
        report["kept_bytes"].as_u64().unwrap(),
        content_bytes(home.path()),
        "what gc counts is what content/ holds: {report}"
    );
}

/// The bytes of the content files (a ref's own file, no ending) under the store.
fn content_bytes(home: &Path) -> u64 {
    std::fs::read_dir(home.join("store-v1").join("content"))
        .unwrap()
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().contains('.'))
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

#[test]
fn gc_counts_a_live_capture_against_the_quota() {
    let home = Home::new();
    // One sealed copy of 1.3 MB, then a capture that is still writing when `gc` looks.
    let out = home.run(&["run", "--", "seq", "1", "200000"]);
    assert!(out.status.success());
    let mut live = home
        .cmd(&["run", "--", "sh", "-c", "seq 1 400000; sleep 30"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let partial = || {
        std::fs::read_dir(home.path().join("store-v1").join("content"))
            .unwrap()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().ends_with(".partial"))
            .and_then(|e| e.metadata().ok())
            .map_or(0, |m| m.len())
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while partial() < 2_000_000 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let growing = partial();
    assert!(
        growing >= 2_000_000,
        "the live capture wrote {growing} bytes"
    );
    // The quota (2 MB) is passed only by counting the live capture's bytes: the sealed copy
    // (1.3 MB) is evicted to make room for them.
    let report: Value = serde_json::from_slice(
        &home
            .cmd(&["gc", "--json"])
            .env("SPOOL_QUOTA", "2000000")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let _ = live.kill();
    let _ = live.wait();
    assert_eq!(report["evicted"], 1, "{report}");
    assert!(
        report["kept_bytes"].as_u64().unwrap() >= growing,
        "{report}"
    );
}
