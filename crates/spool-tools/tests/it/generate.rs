//! `spool generate` (issue 41): completions a shell loads and man pages `man` renders, from the
//! one definition of the command line.

use std::process::{Command, Stdio};

use crate::support::Home;

#[test]
fn bash_loads_the_completions_and_offers_the_commands() {
    let home = Home::new();
    let out = home.run(&["generate", "complete-bash"]);
    assert!(out.status.success());
    let script = String::from_utf8(out.stdout).unwrap();
    // Loaded, then asked what `spool se<TAB>` offers.
    let asked = format!(
        "{script}\nCOMP_WORDS=(spool se); COMP_CWORD=1; COMP_LINE='spool se'; COMP_POINT=8; \
         _spool spool se spool; printf '%s\\n' \"${{COMPREPLY[@]}}\""
    );
    let offered = Command::new("bash")
        .args(["--norc", "-c", &asked])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&offered.stdout);
    assert!(
        offered.status.success(),
        "{}",
        String::from_utf8_lossy(&offered.stderr)
    );
    let mut words: Vec<&str> = said.split_whitespace().collect();
    words.sort_unstable();
    assert_eq!(words, ["search", "serve"], "{said}");
}

#[test]
fn every_man_page_renders_without_a_warning() {
    let home = Home::new();
    let dir = home.path().join("man");
    let out = home.run(&["generate", "man", "--out", dir.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut pages: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    pages.sort();
    assert!(pages.len() >= 15, "{pages:?}");
    for page in &pages {
        let rendered = Command::new("groff")
            .args(["-man", "-Tutf8", "-ww"])
            .arg(page)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .expect("groff renders man pages (Debian's groff-base)");
        let warned = String::from_utf8_lossy(&rendered.stderr);
        assert!(
            rendered.status.success() && warned.is_empty(),
            "{}: {warned}",
            page.display()
        );
    }
    let run = std::fs::read_to_string(dir.join("spool-run.1")).unwrap();
    assert!(run.contains("\\-\\-preview"), "{run}");
    // `--out` goes with the man pages only.
    let wrong = home.run(&["generate", "complete-bash", "--out", "x"]);
    assert_eq!(wrong.status.code(), Some(6));
}

/// Colour as people expect it of a command-line tool (issue 41): only on a terminal, never with
/// `NO_COLOR`, never in an answer (a model reads escape codes as text). A terminal is made with
/// util-linux's `script`.
#[test]
fn colour_only_on_a_terminal_and_never_with_no_color() {
    let spool = env!("CARGO_BIN_EXE_spool");
    let on_a_terminal = |command: String, no_color: bool| -> String {
        let mut script = Command::new("script");
        script.args(["-qec", &command, "/dev/null"]);
        if no_color {
            script.env("NO_COLOR", "1");
        } else {
            script.env_remove("NO_COLOR");
        }
        let out = script
            .output()
            .expect("util-linux's script makes a terminal");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let help = on_a_terminal(format!("{spool} --help"), false);
    assert!(
        help.contains('\u{1b}'),
        "clap colours help on a terminal: {help}"
    );
    assert!(!on_a_terminal(format!("{spool} --help"), true).contains('\u{1b}'));
    let piped = Command::new(spool).arg("--help").output().unwrap();
    assert!(!String::from_utf8_lossy(&piped.stdout).contains('\u{1b}'));
    let home = Home::new();
    let answer = on_a_terminal(
        format!(
            "SPOOL_HOME={} {spool} run -- seq 1 3",
            home.path().display()
        ),
        false,
    );
    assert!(answer.contains("1\r\n2\r\n3"), "{answer}");
    assert!(!answer.contains('\u{1b}'), "{answer}");
}
