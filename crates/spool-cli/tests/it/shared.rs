//! Two spool processes with different `SPOOL_HOME`s and one bucket (a real `SeaweedFS` on
//! loopback): one runs a command, the other reads, searches and pages its ref.

use crate::support::{Home, reference_of};

struct Machine<'w> {
    home: Home,
    weed: &'w spool_test_support::weed::Weed,
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
    let maker = Machine {
        home: Home::new(),
        weed: &weed,
    };
    let reader = Machine {
        home: Home::new(),
        weed: &weed,
    };
    let made = maker.run(&["run", "--", "seq", "1", "300000"]);
    assert_eq!(
        made.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let reference = reference_of(&made);

    // B never saw it: it reads a window deep inside, from the shared copy.
    let read = reader.run(&["read", &reference, "--lines", "250000:250002", "--json"]);
    assert_eq!(
        read.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
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
    // Expiry runs on the bucket too (nothing is due yet).
    let gc = reader.run(&["gc", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&gc.stdout).unwrap();
    assert_eq!(report["shared_expired"], 0, "{report}");
    // A ref neither machine made is not found, here or there.
    let missing = reader.run(&["read", "sp_nosuchref0"]);
    assert_eq!(missing.status.code(), Some(3));
}
