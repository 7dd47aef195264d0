//! The environment a command starts with: the server's, less every variable whose name looks
//! like it holds a secret, as the Codex shell tool filters by default. A command a model asks
//! for (`run env`, `echo $GITHUB_TOKEN`) then cannot show the model, or the store, the keys
//! the server was started with. Regression (issue 58): all four secrets in the server's
//! environment were shown and stored. The operator names what a command needs
//! (`--env-pass NAME`); a model cannot.

use std::ffi::OsString;

/// The parts of a name that mark it as holding a secret, matched without regard to case.
const SECRET_PARTS: [&str; 6] = ["KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL"];

/// Whether a variable named `name` is kept from commands unless passed by name.
pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_PARTS.iter().any(|part| upper.contains(part))
}

/// The environment a command starts with, and the names withheld from it (sorted).
pub fn for_command(pass: &[String]) -> (Vec<(OsString, OsString)>, Vec<String>) {
    let mut kept = Vec::new();
    let mut withheld = Vec::new();
    for (name, value) in std::env::vars_os() {
        let text = name.to_string_lossy();
        if looks_secret(&text) && !pass.iter().any(|p| *p == *text) {
            withheld.push(text.into_owned());
        } else {
            kept.push((name, value));
        }
    }
    withheld.sort();
    (kept, withheld)
}

/// The values withheld from commands (of at least 8 bytes: shorter ones would match ordinary
/// text), to be scrubbed from what a command prints should it find them another way.
pub fn withheld_values(pass: &[String]) -> Vec<(String, Vec<u8>)> {
    use std::os::unix::ffi::OsStrExt as _;
    std::env::vars_os()
        .filter_map(|(name, value)| {
            let name = name.to_string_lossy().into_owned();
            (looks_secret(&name) && !pass.contains(&name) && value.len() >= 8)
                .then(|| (name, value.as_bytes().to_vec()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_hold_secrets_are_told_apart() {
        for secret in [
            "GITHUB_TOKEN",
            "OPENAI_API_KEY",
            "aws_secret_access_key",
            "DB_PASSWORD",
            "GOOGLE_APPLICATION_CREDENTIALS",
        ] {
            assert!(looks_secret(secret), "{secret}");
        }
        for plain in ["PATH", "HOME", "LANG", "CARGO_HOME", "TERM"] {
            assert!(!looks_secret(plain), "{plain}");
        }
    }
}
