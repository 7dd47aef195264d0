//! Fixtures shared by the tests.

use spool_core::envelope::Source;
use spool_core::store::{ArtifactMeta, NewArtifact};
use spool_core::{Store, StoreConfig};
use tempfile::TempDir;

// Text fixtures shared with the tool table's tests (a path, not a dependency: the support
// crate depends on spool-core).
#[path = "../../../spool-test-support/src/text.rs"]
mod text;
pub use text::{numbered_lines, settings_page};

pub struct TestStore {
    pub store: Store,
    pub dir: TempDir,
}

pub fn store() -> TestStore {
    store_with(StoreConfig::default())
}

pub fn store_with(config: StoreConfig) -> TestStore {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), config).unwrap();
    TestStore { store, dir }
}

pub fn text_source(desc: &str) -> Source {
    Source::new(desc, spool_core::Version::text())
}

/// A new text artifact being written, described as `desc`.
pub fn writer<'s>(store: &'s Store, desc: &str) -> spool_core::store::ArtifactWriter<'s> {
    store.create(NewArtifact::new(text_source(desc))).unwrap()
}

/// Stores `bytes` as every maker does: sealed (pinned), then opened by the answer about it,
/// which lets the pin go (see `store::pin`).
pub fn put(store: &Store, bytes: &[u8]) -> ArtifactMeta {
    let meta = store
        .put(NewArtifact::new(text_source("test content")), bytes)
        .unwrap();
    drop(store.open_artifact(&meta.reference).unwrap());
    meta
}

/// Runs git in `dir` (as a fixed author) and gives its output, trimmed; fails the test when
/// git fails.
pub fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// Writes `content` at `rel` under `root`, making the directories on the way.
pub fn write(root: &std::path::Path, rel: &str, content: impl AsRef<[u8]>) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, content).unwrap();
}

/// The SHA-256 of `bytes` in lowercase hex, as a file's version carries it.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .fold(String::new(), |mut s, b| {
            s.push_str(&format!("{b:02x}"));
            s
        })
}

/// Waits until files just written are past the racy window: a stored answer over a file
/// changed within a tick of its look is not reused (git's racily clean rule), so a test of
/// reuse lets the tick pass first.
pub fn settle() {
    std::thread::sleep(std::time::Duration::from_millis(30));
}

/// A regex search of `path` (under the one root `root`) for `pattern`, with its words as MCP
/// renders them: what the directory-search claim tests read.
pub fn search_words(
    store: &Store,
    root: &std::path::Path,
    path: &str,
    pattern: &str,
    paging: &spool_core::search::Paging,
) -> (spool_core::search::SearchAnswer, String) {
    let roots = spool_walk::roots::Roots::new(&[root.to_owned()]).unwrap();
    let query = spool_core::search::Query {
        pattern: pattern.into(),
        ..spool_core::search::Query::default()
    };
    let a = spool_core::search::tree::search_path(
        store,
        &roots,
        path,
        &query,
        &[],
        paging,
        spool_core::search::tree::DEFAULT_BUDGET,
    )
    .unwrap();
    let text = spool_core::search::render_answer(&a, spool_core::render::Dialect::Mcp);
    (a, text)
}
