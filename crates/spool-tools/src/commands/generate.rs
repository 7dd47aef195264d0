//! `spool generate`: the man page and each shell's completions, made from the one clap
//! definition of the command line (`cli.rs`), so they cannot drift from the flags spool takes.
//! As ripgrep's `--generate` and uv's `generate-shell-completion`: packagers run it at build
//! time, users once. Nothing here opens the store.

use std::io::Write as _;

use clap::CommandFactory as _;
use clap_complete::Shell;
use spool_core::Error;

use crate::cli::{Cli, GenerateArgs, GenerateKind};

/// Prints what `args` asks for on stdout (or writes the man pages into `--out`).
pub fn generate(args: &GenerateArgs) -> Result<u8, Error> {
    if let Some(dir) = &args.out {
        if args.kind != GenerateKind::Man {
            return Err(Error::invalid(
                "`--out` writes the man pages: it goes with `spool generate man`",
                Some(
                    "print completions to a file: `spool generate complete-bash > spool.bash`"
                        .into(),
                ),
            ));
        }
        let failed = |source| Error::Io {
            path: dir.clone(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(failed)?;
        clap_mangen::generate_to(Cli::command(), dir).map_err(failed)?;
        return Ok(0);
    }
    let bytes = render(args.kind)?;
    let mut out = std::io::stdout().lock();
    out.write_all(&bytes)
        .and_then(|()| out.flush())
        .map_err(|e| Error::Unavailable {
            what: "stdout".into(),
            cause: e.to_string(),
        })?;
    Ok(0)
}

/// The bytes of `kind`.
pub fn render(kind: GenerateKind) -> Result<Vec<u8>, Error> {
    let mut cmd = Cli::command();
    let mut bytes = Vec::new();
    let shell = match kind {
        GenerateKind::Man => {
            clap_mangen::Man::new(cmd)
                .render(&mut bytes)
                .map_err(|e| Error::Unavailable {
                    what: "the man page".into(),
                    cause: e.to_string(),
                })?;
            return Ok(bytes);
        }
        GenerateKind::CompleteBash => Shell::Bash,
        GenerateKind::CompleteZsh => Shell::Zsh,
        GenerateKind::CompleteFish => Shell::Fish,
        GenerateKind::CompleteElvish => Shell::Elvish,
        GenerateKind::CompletePowershell => Shell::PowerShell,
    };
    clap_complete::generate(shell, &mut cmd, "spool", &mut bytes);
    Ok(bytes)
}

/// The command-line reference (`docs/cli.md`): each command's `--help`, as clap renders it at
/// 100 columns, so the reference is the program's own words and cannot go stale (a test holds
/// the file to it).
#[cfg(test)]
fn reference() -> String {
    let mut cmd = Cli::command().term_width(100).max_term_width(100);
    cmd.build();
    let mut out = String::from(
        "# The `spool` command line\n\n\
         Each command's `--help`, as the program prints it. Made from the command's own \
         definition by\n`SPOOL_WRITE_DOCS=1 cargo test -p spool-tools --lib cli_reference`; \
         a test fails when it is not current.\n",
    );
    let mut section = |title: &str, help: String| {
        out.push_str(&format!(
            "\n## `{title}`\n\n```text\n{}\n```\n",
            help.trim_end()
        ));
    };
    section("spool", cmd.render_long_help().to_string());
    for sub in cmd.get_subcommands_mut() {
        if sub.is_hide_set() || sub.get_name() == "help" {
            continue;
        }
        let title = format!("spool {}", sub.get_name());
        section(&title, sub.render_long_help().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_reference_is_current() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cli.md");
        let made = reference();
        if std::env::var_os("SPOOL_WRITE_DOCS").is_some() {
            std::fs::write(&path, &made).expect("docs/cli.md written");
        }
        let kept = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            kept == made,
            "docs/cli.md is not the program's help: SPOOL_WRITE_DOCS=1 cargo test -p spool-tools --lib cli_reference"
        );
        for command in ["## `spool run`", "## `spool search`", "## `spool generate`"] {
            assert!(made.contains(command), "{command}");
        }
    }

    #[test]
    fn completions_and_the_man_page_name_every_command() {
        let names: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_owned())
            .filter(|n| n != "help")
            .collect();
        for kind in [
            GenerateKind::CompleteBash,
            GenerateKind::CompleteZsh,
            GenerateKind::CompleteFish,
            GenerateKind::CompleteElvish,
            GenerateKind::CompletePowershell,
            GenerateKind::Man,
        ] {
            let text = String::from_utf8(render(kind).expect("rendered")).expect("UTF-8");
            for name in &names {
                // roff spells a hyphen `\-`.
                let spelled = if kind == GenerateKind::Man {
                    name.replace('-', "\\-")
                } else {
                    name.clone()
                };
                assert!(text.contains(&spelled), "{kind:?} lacks {name}");
            }
        }
    }
}
