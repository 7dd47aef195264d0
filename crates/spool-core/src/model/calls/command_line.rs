//! A call as a `spool` command line, spelled from clap's own definition of the command: each
//! argument's flag (its short form when it has one, else its long), its place among the
//! positionals, the names its values take, and its default (left out). A flag renamed in the
//! definition is renamed in every call printed; an argument the definition lacks cannot be
//! printed, and the call is then given in MCP's words instead (tests fail on it first).
//!
//! The order is the definition's: the positionals, then the options. A positional that starts
//! with `-` puts the options first and the positionals after `--`, and a trailing command
//! (`spool run -- CMD`) always stands after `--`.

use clap::{Arg, ArgAction, Command};
use serde_json::{Map, Value};

/// `s` as one word for `sh`: as it is when safe, else single-quoted.
pub fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The values given to one command's arguments, by clap id, to be printed as a command line.
pub struct CommandLine {
    command: &'static Command,
    given: Vec<Given>,
    /// What the command line has no way to say (a field without a flag).
    unsaid: Vec<String>,
}

struct Given {
    /// The argument's place in the command's definition.
    at: usize,
    arg: &'static Arg,
    /// The values, or none for a flag.
    values: Vec<String>,
}

impl CommandLine {
    /// A command line of `command` with nothing given yet.
    pub fn of(command: &'static Command) -> Self {
        Self {
            command,
            given: Vec::new(),
            unsaid: Vec::new(),
        }
    }

    fn find(&mut self, id: &str) -> Option<(usize, &'static Arg)> {
        let found = self
            .command
            .get_arguments()
            .enumerate()
            .find(|(_, a)| a.get_id() == id);
        if found.is_none() {
            self.unsaid.push(id.to_owned());
        }
        found
    }

    /// `value` for the argument `id`, a positional or an option.
    pub fn value(&mut self, id: &str, value: impl Into<String>) -> &mut Self {
        self.values(id, vec![value.into()])
    }

    /// `values` for the argument `id` (an option given once per value, or a trailing command).
    pub fn values(&mut self, id: &str, values: Vec<String>) -> &mut Self {
        if let Some((at, arg)) = self.find(id) {
            let values = values.into_iter().map(|v| named_value(arg, v)).collect();
            self.given.push(Given { at, arg, values });
        }
        self
    }

    /// The flag `id`, given.
    pub fn flag(&mut self, id: &str) -> &mut Self {
        if let Some((at, arg)) = self.find(id) {
            self.given.push(Given {
                at,
                arg,
                values: Vec::new(),
            });
        }
        self
    }

    /// Each of `fields` (a call's arguments, their defaults left out) as the argument of its
    /// name, but those in `except` (spelled by the caller in a shape of the command's own).
    pub fn fields(&mut self, fields: &Map<String, Value>, except: &[&str]) -> &mut Self {
        for (name, value) in fields {
            if except.contains(&name.as_str()) {
                continue;
            }
            match value {
                Value::Bool(true) => {
                    self.flag(name);
                }
                Value::Array(items) => {
                    self.values(name, items.iter().map(value_text).collect());
                }
                other => {
                    self.value(name, value_text(other));
                }
            }
        }
        self
    }

    /// Records that the command line cannot say `what`.
    pub fn cannot(&mut self, what: &str) -> &mut Self {
        self.unsaid.push(what.to_owned());
        self
    }

    /// The command line, `spool NAME ...`; none when part of the call cannot be said in it.
    pub fn text(&self) -> Option<String> {
        // A call the command line cannot say (`run` with `stdin`) is printed in MCP's words
        // instead; the CLI's tests give every tool's every argument a sample that it can say.
        if !self.unsaid.is_empty() {
            return None;
        }
        let mut given: Vec<&Given> = self.given.iter().filter(|g| !is_default(g)).collect();
        given.sort_by_key(|g| g.at);
        let positional = |g: &&&Given| g.arg.is_positional() && !g.arg.is_last_set();
        let mut positionals: Vec<&Given> =
            given.iter().copied().filter(|g| positional(&g)).collect();
        positionals.sort_by_key(|g| g.arg.get_index());
        let words: Vec<String> = positionals
            .iter()
            .flat_map(|g| g.values.iter().map(|v| shell_word(v)))
            .collect();
        let options: String = given
            .iter()
            .filter(|g| !g.arg.is_positional())
            .map(|g| option_words(g))
            .collect();
        let trailing: Vec<String> = given
            .iter()
            .filter(|g| g.arg.is_last_set())
            .flat_map(|g| g.values.iter().map(|v| shell_word(v)))
            .collect();
        let dashed = words
            .iter()
            .any(|w| w.starts_with('-') || w.starts_with("'-"));
        let mut out = format!("spool {}", self.command.get_name());
        if dashed {
            // Options first, so that the positionals can stand after `--`.
            out.push_str(&options);
            out.push_str(" --");
        }
        for w in &words {
            out.push(' ');
            out.push_str(w);
        }
        if !dashed {
            out.push_str(&options);
        }
        if !trailing.is_empty() {
            debug_assert!(!dashed, "a trailing command after positionals after `--`");
            out.push_str(" --");
            for w in &trailing {
                out.push(' ');
                out.push_str(w);
            }
        }
        Some(out)
    }
}

/// One argument as a hint names it: a positional as its value (or, without one, its value
/// name), an option as its flag with its value.
pub fn argument(command: &'static Command, id: &str, value: Option<&str>) -> Option<String> {
    let arg = command.get_arguments().find(|a| a.get_id() == id)?;
    if arg.is_positional() {
        return Some(match value {
            Some(v) => shell_word(v),
            None => arg
                .get_value_names()
                .and_then(|n| n.first())
                .map_or_else(|| id.to_uppercase(), ToString::to_string),
        });
    }
    let flag = flag_of(arg);
    Some(match value {
        Some(v) if takes_values(arg) => {
            format!("{flag} {}", shell_word(&named_value(arg, v.to_owned())))
        }
        _ => flag,
    })
}

/// Whether the argument takes values (an option) rather than standing alone (a flag).
fn takes_values(arg: &Arg) -> bool {
    !matches!(
        arg.get_action(),
        ArgAction::SetTrue | ArgAction::SetFalse | ArgAction::Count
    )
}

/// The argument's flag: `-F` where it has a short form, else `--long`.
fn flag_of(arg: &Arg) -> String {
    match (arg.get_short(), arg.get_long()) {
        (Some(short), _) => format!("-{short}"),
        (None, Some(long)) => format!("--{long}"),
        (None, None) => arg.get_id().to_string(),
    }
}

/// An option with its values, each after its flag: ` -g '*.rs' -g '*.md'`. A value that starts
/// with `-` is joined to the long flag by `=`, so that it stays a value.
fn option_words(g: &Given) -> String {
    let flag = flag_of(g.arg);
    if g.values.is_empty() {
        return format!(" {flag}");
    }
    let mut out = String::new();
    for v in &g.values {
        let word = shell_word(v);
        if v.starts_with('-') {
            let long = g
                .arg
                .get_long()
                .map_or_else(|| flag.clone(), |l| format!("--{l}"));
            out.push_str(&format!(" {long}={word}"));
        } else {
            out.push_str(&format!(" {flag} {word}"));
        }
    }
    out
}

/// Whether an option is given its default (`--format markdown`): the same as leaving it out.
fn is_default(g: &Given) -> bool {
    if g.arg.is_positional() || g.values.is_empty() {
        return false;
    }
    let defaults: Vec<String> = g
        .arg
        .get_default_values()
        .iter()
        .map(|d| d.to_string_lossy().into_owned())
        .collect();
    !defaults.is_empty() && defaults == g.values
}

/// `value` as the argument names it: a choice by its name in the definition (`head_tail`, as a
/// model sends it, is `head-tail`), anything else as it is.
fn named_value(arg: &Arg, value: String) -> String {
    arg.get_possible_values()
        .iter()
        .find(|p| p.matches(&value, false))
        .map_or(value, |p| p.get_name().to_owned())
}

/// A JSON value as a command line gives it: a string as it is, a number as Rust writes it
/// (`30` for 30.0 seconds).
fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => u.to_string(),
            (None, Some(i), _) => i.to_string(),
            (None, None, Some(f)) => f.to_string(),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}
