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
