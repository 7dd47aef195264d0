//! Runs the `spool` binary against a private store and turns its output into transcripts.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub struct Home {
    pub dir: tempfile::TempDir,
}

impl Home {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_spool"));
        // In the home directory, so that the working directory an answer names (a command's
        // `--cwd` in its redo call) is the home the snapshots redact.
        cmd.args(args)
            .current_dir(self.path())
            .env("SPOOL_HOME", self.path())
            .env_remove("SPOOL_TTL")
            .env_remove("SPOOL_QUOTA")
            .env_remove("SPOOL_CAPTURE_LIMIT");
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().unwrap()
    }

    /// Runs and returns the structured answer printed by `--json`.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        let mut all: Vec<&str> = args.to_vec();
        all.push("--json");
        let out = self.run(&all);
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): {}\nstderr: {}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })
    }

    /// Writes a file, then waits until it is past the racy window: a stored copy of a file
    /// changed within a tick of its look is not reused (git's racily clean rule), and these
    /// tests read a file as it sits, unchanged.
    pub fn file(&self, name: &str, content: &[u8]) -> PathBuf {
        let p = self.path().join(name);
        std::fs::write(&p, content).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(30));
        p
    }
}

/// `exit: N`, then stdout and stderr, as one text for snapshots.
pub fn transcript(out: &Output) -> String {
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        out.status
            .code()
            .map_or("signal".to_owned(), |c| c.to_string()),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Filters that make refs, times, paths and durations stable.
pub fn settings(home: &Home) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(&regex_escape(&home.path().display().to_string()), "[HOME]");
    s.add_filter(r"\bsp_[a-z0-9]{10}\b", "sp_REF");
    s.add_filter(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", "[TIME]");
    s.add_filter(r"\b\d+ ms\b", "[N] ms");
    s.add_filter(
        r"--cursor [A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+",
        "--cursor [CURSOR]",
    );
    s.add_filter(r"sha256 [0-9a-f]{12}", "sha256 [SHA]");
    s
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            if "\\.+*?()|[]{}^$".contains(c) {
                vec!['\\', c]
            } else {
                vec![c]
            }
        })
        .collect()
}

pub fn reference_of(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout);
    let at = text.find("sp_").expect("a ref in the output");
    text[at..at + 13].to_owned()
}
