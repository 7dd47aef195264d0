//! A store, a root holding a small codebase, and the `map` tool called as a front end calls it.

use std::time::Duration;

use serde_json::Value;
use spool_core::answer::Answer;
use spool_core::answer::Context;
use spool_core::envelope::Envelope;
use spool_core::{Cap, Result, Store, StoreConfig};
use spool_map::MapParams;
use spool_walk::roots::Roots;

pub struct Fixture {
    /// The store's folder, removed with the fixture.
    _home: tempfile::TempDir,
    pub root: tempfile::TempDir,
    pub store: Store,
    pub roots: Roots,
    /// The time a map may take (a tenth of it, times three: see the crate's budget).
    pub budget: Duration,
}

impl Fixture {
    pub fn new() -> Self {
        let home = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let store = Store::open(home.path(), StoreConfig::default()).unwrap();
        let roots = Roots::new(&[root.path().to_owned()]).unwrap();
        Self {
            _home: home,
            root,
            store,
            roots,
            budget: Duration::from_secs(10),
        }
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let p = self.root.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }

    pub fn path(&self, rel: &str) -> std::path::PathBuf {
        self.root.path().join(rel)
    }

    /// `map` with these arguments (a JSON object), answered as the MCP server answers it.
    pub fn map(&self, args: Value) -> Result<Envelope> {
        let p: MapParams = serde_json::from_value(args).unwrap();
        let cap = |asked: Option<u64>| Cap::new(asked.unwrap_or(8000));
        let cx = Context {
            store: &self.store,
            roots: &self.roots,
            cap: &cap,
            run_timeout: None,
            run_timeout_max: None,
            search_budget: self.budget,
            env_pass: &[],
        };
        match spool_map::answer(&cx, &p)? {
            Answer::Envelope(e) => Ok(*e),
            other => panic!("not an envelope: {other:?}"),
        }
    }

    /// The stored map's own version (the answer shows what pins it; the counts are in its
    /// scope).
    pub fn version(&self, e: &Envelope) -> spool_core::envelope::MapVersion {
        let reader = self.store.open_artifact(&e.reference).unwrap();
        reader.meta().source.version.map().unwrap().clone()
    }
}

/// A small codebase in three languages: `store.rs` defines what the others use.
pub fn codebase(f: &Fixture) {
    f.write(
        "src/store.rs",
        "pub struct Store {\n    root: String,\n}\n\nimpl Store {\n    pub fn open(root: &str) -> Store {\n        Store { root: root.into() }\n    }\n\n    pub fn put(&self, bytes: &[u8]) -> usize {\n        bytes.len()\n    }\n}\n\nfn unused_helper() {}\n",
    );
    f.write(
        "src/main.rs",
        "mod store;\nuse store::Store;\n\nfn main() {\n    let s = Store::open(\"/tmp\");\n    s.put(b\"x\");\n}\n",
    );
    f.write(
        "src/cli.rs",
        "use crate::store::Store;\n\npub fn run() -> Store {\n    Store::open(\".\")\n}\n",
    );
    f.write(
        "tools/report.py",
        "from lib import load_rows\n\nclass Report:\n    def render(self):\n        return load_rows()\n",
    );
    f.write(
        "tools/lib.py",
        "def load_rows():\n    return []\n\ndef _private():\n    pass\n",
    );
    f.write("README.md", "# demo\n");
    f.write("assets/logo.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    // Past the racy window: a map of files changed within a tick of its walk is not reused.
    settle();
}

/// The content's block headers: each file's first line.
pub fn headers(e: &Envelope) -> Vec<String> {
    e.content(spool_core::render::Dialect::Mcp)
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with(' '))
        .map(str::to_owned)
        .collect()
}

pub fn scope(e: &Envelope) -> &spool_core::envelope::MapScope {
    e.scope.as_deref().expect("a map's scope")
}

/// Waits until files just written are past the racy window: a stored map of a file changed
/// within a tick of its walk is not reused (git's racily clean rule).
pub fn settle() {
    std::thread::sleep(std::time::Duration::from_millis(30));
}
