//! Which stored artifacts a process answering agents may read.
//!
//! One store is shared by every spool process of a user: the CLI, servers with different
//! roots, proxies, other machines through a shared bucket. A ref is random, but a ref is not a
//! permission: a server started on one repository must not answer, by ref, a copy of a file
//! another server read outside it, or the output of a command another agent ran. So a confined
//! process reads an artifact only when
//!
//! - it made it (its principal, e.g. `serve:/home/me/repo`, is the one the artifact names),
//! - a process it trusts by configuration made it (`--trust cli`, `--trust 'serve:*'`,
//!   `--trust any`), or
//! - it is a copy of a file inside its roots, made on this machine (it could read the file).
//!
//! Anything else answers `forbidden`, without saying what the artifact is. Artifacts from before
//! principals were recorded name nobody: only the last two rules let them through.

use std::path::{Path, PathBuf};

/// The principal of the terminal user's own commands.
pub const CLI: &str = "cli";

/// A process's access to artifacts it did not make.
#[derive(Debug, Clone)]
pub struct Access {
    me: String,
    roots: Vec<PathBuf>,
    trusted: Vec<String>,
}

impl Access {
    /// Access for the process named `me`, confined to `roots`, trusting the principals in
    /// `trusted` (`any` trusts every process; a trailing `*` matches a prefix).
    pub fn new(me: impl Into<String>, roots: &[PathBuf], trusted: &[String]) -> Self {
        Self {
            me: me.into(),
            roots: roots.to_vec(),
            trusted: trusted.to_vec(),
        }
    }

    pub fn principal(&self) -> &str {
        &self.me
    }

    /// Whether an artifact made by `made_by`, on this machine or not (`made_here`), may be
    /// read; `file` is the path it copies, when it is a copy of a file.
    pub fn allows(&self, made_by: Option<&str>, made_here: bool, file: Option<&Path>) -> bool {
        if let Some(by) = made_by
            && (by == self.me || self.trusted.iter().any(|t| matches(t, by)))
        {
            return true;
        }
        if self.trusted.iter().any(|t| t == "any") {
            return true;
        }
        made_here && file.is_some_and(|path| self.roots.iter().any(|root| path.starts_with(root)))
    }
}

/// Whether the trusted entry `pattern` names `principal`.
fn matches(pattern: &str, principal: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => principal.starts_with(prefix),
        None => pattern == principal,
    }
}

/// The principal of a server on `roots`: the same roots are the same server, across restarts
/// and machines.
pub fn server_principal(kind: &str, roots: &[PathBuf]) -> String {
    let roots: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
    format!("{kind}:{}", roots.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(trusted: &[&str]) -> Access {
        let trusted: Vec<String> = trusted.iter().map(|t| (*t).to_owned()).collect();
        Access::new("serve:/r", &[PathBuf::from("/r")], &trusted)
    }

    #[test]
    fn only_its_own_trusted_or_its_roots_files() {
        let a = access(&[]);
        assert!(a.allows(Some("serve:/r"), true, None));
        assert!(a.allows(Some("serve:/r"), false, None), "itself elsewhere");
        assert!(!a.allows(Some("serve:/other"), true, None));
        assert!(!a.allows(Some("cli"), true, None));
        assert!(!a.allows(None, true, None), "nobody named");
        assert!(a.allows(Some("serve:/other"), true, Some(Path::new("/r/src/a.rs"))));
        assert!(!a.allows(Some("serve:/other"), true, Some(Path::new("/rr/a.rs"))));
        assert!(!a.allows(Some("serve:/other"), true, Some(Path::new("/etc/passwd"))));
        assert!(
            !a.allows(Some("serve:/other"), false, Some(Path::new("/r/a.rs"))),
            "another machine's /r is not this one's"
        );
    }

    #[test]
    fn trust_by_name_prefix_or_any() {
        assert!(access(&["cli"]).allows(Some("cli"), true, None));
        assert!(!access(&["cli"]).allows(Some("serve:/x"), true, None));
        assert!(access(&["serve:*"]).allows(Some("serve:/x"), true, None));
        assert!(!access(&["serve:*"]).allows(Some("wrap:x"), true, None));
        assert!(access(&["any"]).allows(None, false, None));
    }
}
