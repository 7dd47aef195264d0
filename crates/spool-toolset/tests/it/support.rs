//! A tool set over a fresh store, as a front end builds one.

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use spool_core::answer::Answer;
use spool_core::store::{ArtifactMeta, NewArtifact};
use spool_core::{Cap, Store, StoreConfig};
use spool_toolset::{Control, Setup, ToolSet, Wording};
use spool_walk::roots::Roots;
use tempfile::TempDir;

pub use spool_test_support::git::git;
pub use spool_test_support::text::{numbered_lines, settings_page};

/// A tool set, and the directory its store lives in.
pub struct Tools {
    pub set: ToolSet,
    pub dir: TempDir,
}

impl Tools {
    /// The store its answers are kept in.
    pub fn store(&self) -> &Store {
        self.set.store()
    }

    /// `tool` called by name with `args`, as the Python package calls it.
    pub fn call(&self, tool: &str, args: &Value) -> spool_core::Result<Answer> {
        self.set
            .call(tool, args, Control::default(), Wording::ByPath)
    }
}

/// Every tool over a fresh store whose directory is also the one root, answers capped at
/// `cap` tokens unless they ask for another.
pub fn tools(cap: u64) -> Tools {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_owned();
    tools_with(dir, &root, cap)
}

/// Every tool over a fresh store, `root` the one root.
pub fn tools_in(root: &Path, cap: u64) -> Tools {
    tools_with(tempfile::tempdir().unwrap(), root, cap)
}

fn tools_with(dir: TempDir, root: &Path, cap: u64) -> Tools {
    let store = Store::open(dir.path(), StoreConfig::default()).unwrap();
    let roots = Roots::new(&[root.to_owned()]).unwrap();
    let setup = Setup::new(Arc::new(store), roots, move |asked: Option<u64>| {
        Cap::new(asked.unwrap_or(cap))
    });
    Tools {
        set: ToolSet::new(setup),
        dir,
    }
}

/// Stores `bytes` as every maker does: sealed (pinned), then opened by the answer about it,
/// which lets the pin go.
pub fn put(store: &Store, bytes: &[u8]) -> ArtifactMeta {
    let source = spool_core::Source::new("test content", spool_core::Version::text());
    let meta = store.put(NewArtifact::new(source), bytes).unwrap();
    drop(store.open_artifact(&meta.reference).unwrap());
    meta
}

/// Waits until files just written are past the racy window (git's racily clean rule).
pub fn settle() {
    std::thread::sleep(std::time::Duration::from_millis(30));
}
