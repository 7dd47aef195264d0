//! Publishing on one machine, reading on another; conditional writes; damage detected.

use spool_core::envelope::ArtifactState;
use spool_core::{Store, StoreConfig};

use crate::weed::{numbered, put, settings, shared, start};

fn local_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), StoreConfig::default()).unwrap();
    (dir, store)
}

#[test]
fn a_ref_published_on_one_machine_reads_on_another_moving_only_the_chunks_it_touches() {
    let weed = start();
    let (_a_home, a) = local_store();
    let content = numbered(300_000); // ~17 MB: five chunks
    let reference = put(&a, &content);
    let published = shared(&weed, "team").publish(&a, &reference).unwrap();
    assert!(
        published.chunks.len() >= 4,
        "{} chunks",
        published.chunks.len()
    );

    // Another machine: its own handle, nothing local.
    let b = shared(&weed, "team");
    let found = b
        .manifest(&reference)
        .unwrap()
        .expect("the manifest is there");
    assert_eq!(found.manifest.state, ArtifactState::Complete);
    assert_eq!(found.manifest.lines, 300_000);
    let at = 9_000_000u64;
    let window = b
        .read_range(&reference, &found.manifest, at..at + 4_000)
        .unwrap();
    assert_eq!(window, content[at as usize..at as usize + 4_000]);
    assert!(
        b.fetched_bytes() <= 2 * spool_s3::CHUNK,
        "a window moved {} bytes",
        b.fetched_bytes()
    );
    // Across a chunk boundary, and to the very end.
    let edge = spool_s3::CHUNK - 10;
    assert_eq!(
        b.read_range(&reference, &found.manifest, edge..edge + 20)
            .unwrap(),
        content[edge as usize..edge as usize + 20]
    );
    let len = content.len() as u64;
    assert_eq!(
        b.read_range(&reference, &found.manifest, len - 5..len + 100)
            .unwrap(),
        content[content.len() - 5..]
    );
    assert!(b.manifest("sp_notthere0").unwrap().is_none());
}

#[test]
fn a_manifest_is_created_once_and_changed_only_from_the_version_read() {
    let weed = start();
    let (_home, store) = local_store();
    let reference = put(&store, b"hello\n");
    let shared = shared(&weed, "cond");
    shared.publish(&store, &reference).unwrap();
    // Publishing again (a retry whose first answer was lost) changes nothing there.
    let before = shared.manifest(&reference).unwrap().unwrap();
    shared.publish(&store, &reference).unwrap();
    let first = shared.manifest(&reference).unwrap().unwrap();
    assert_eq!(before.version.e_tag, first.version.e_tag, "not rewritten");

    let mut expired = first.manifest.clone();
    expired.state = ArtifactState::Expired;
    let updated = shared
        .update_manifest(&reference, &first, &expired)
        .unwrap();
    assert_eq!(
        shared.manifest(&reference).unwrap().unwrap().manifest.state,
        ArtifactState::Expired
    );
    // The stale version (read before the update) is refused: 412, not a silent overwrite.
    let mut other = first.manifest.clone();
    other.state = ArtifactState::Cancelled;
    let stale = shared
        .update_manifest(&reference, &first, &other)
        .unwrap_err();
    assert!(stale.to_string().contains("stale etag"), "{stale}");
    // The fresh version works.
    let cancelled = shared
        .update_manifest(&reference, &updated, &other)
        .unwrap();
    // A finished ref there that is not this content is never overwritten by a publish.
    let mut theirs = cancelled.manifest.clone();
    theirs.hash = Some("0".repeat(32));
    shared
        .update_manifest(&reference, &cancelled, &theirs)
        .unwrap();
    let refused = shared.publish(&store, &reference).unwrap_err();
    assert!(
        refused.to_string().contains("already published"),
        "{refused}"
    );
}

#[test]
fn a_damaged_chunk_is_detected_by_its_hash() {
    let weed = start();
    let (_home, store) = local_store();
    let content = numbered(1_000);
    let reference = put(&store, &content);
    let shared = shared(&weed, "damage");
    let manifest = shared.publish(&store, &reference).unwrap();
    let mut bad = content.clone();
    bad[100] ^= 0x20;
    shared.put_raw(&reference, "chunk-000000", bad).unwrap();
    let err = shared.read_range(&reference, &manifest, 0..10).unwrap_err();
    assert!(err.to_string().contains("corrupt"), "{err}");
    assert_eq!(err.into_core().code().as_str(), "corrupt");
}

#[test]
fn a_server_that_is_down_answers_unavailable_naming_the_endpoint() {
    let mut weed = start();
    let (_home, store) = local_store();
    let reference = put(&store, &numbered(1_000));
    let settings = settings(&weed, "gone");
    weed.stop();
    let shared = spool_s3::SharedStore::connect(&settings).unwrap();
    let err = shared.publish(&store, &reference).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains(&weed.endpoint) && text.contains("unavailable"),
        "{text}"
    );
    assert_eq!(err.into_core().code().as_str(), "unavailable");
}

#[test]
fn expiry_in_the_bucket_deletes_the_content_and_keeps_a_tombstone() {
    let weed = start();
    let (_home, store) = local_store();
    let gone = put(&store, &numbered(1_000));
    let kept = put(&store, b"kept\n");
    let shared = shared(&weed, "gc");
    shared.publish(&store, &gone).unwrap();
    shared.publish(&store, &kept).unwrap();
    // Its time has come (as it would after its TTL): expiry is the manifest's `expires_at`.
    let read = shared.manifest(&gone).unwrap().unwrap();
    let mut due = read.manifest.clone();
    due.expires_at = spool_core::clock::now_ms() - 1;
    shared.update_manifest(&gone, &read, &due).unwrap();
    assert_eq!(shared.gc().unwrap(), 1);
    assert_eq!(shared.gc().unwrap(), 0, "a tombstone is not expired twice");
    let tomb = shared.manifest(&gone).unwrap().unwrap().manifest;
    assert_eq!(tomb.state, ArtifactState::Expired);
    assert_eq!(tomb.lines, 1_000, "the tombstone still says what it was");
    let err = shared.read_range(&gone, &tomb, 0..10).unwrap_err();
    assert!(
        err.to_string().contains("has expired in the shared store"),
        "{err}"
    );
    assert_eq!(
        shared.manifest(&kept).unwrap().unwrap().manifest.state,
        ArtifactState::Complete
    );
    // Another machine asking for the expired ref is told it expired, and what it was.
    let (_b_home, b) = local_store();
    b.set_remote(std::sync::Arc::new(shared));
    let answer =
        spool_core::window::read_window(&b, &gone, spool_core::WindowRequest::Preview(None), 1_000)
            .unwrap_err();
    assert_eq!(answer.code().as_str(), "expired", "{answer}");
    assert!(answer.to_string().contains("test content"), "{answer}");
}
