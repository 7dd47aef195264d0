//! A capture read from another machine while it grows: what that machine holds stays right as
//! the capture moves on, finishes, or pauses long enough to look stopped.

use std::sync::Arc;
use std::time::Duration;

use spool_core::envelope::{ArtifactState, Source};
use spool_core::store::NewArtifact;
use spool_core::window::{WindowRequest, read_window};
use spool_core::{Store, StoreConfig};

use crate::weed::{settings, shared, start};

fn lines(from: u64, to: u64) -> Vec<u8> {
    use std::fmt::Write as _;
    let mut s = String::new();
    for i in from..=to {
        let _ = writeln!(s, "line {i} of a capture that grows");
    }
    s.into_bytes()
}

fn home_with(remote: spool_s3::SharedStore) -> (tempfile::TempDir, Store) {
    let home = tempfile::tempdir().unwrap();
    let store = Store::open(home.path(), StoreConfig::default()).unwrap();
    store.set_remote(Arc::new(remote));
    (home, store)
}

fn line(store: &Store, reference: &str, n: u64) -> spool_core::Result<String> {
    read_window(
        store,
        reference,
        WindowRequest::Lines {
            line: n,
            limit: Some(1),
        },
        2_000,
    )
    .map(|e| e.content(spool_core::render::Dialect::Mcp))
}

fn new_capture(store: &Store) -> spool_core::store::ArtifactWriter<'_> {
    store
        .create(NewArtifact::new(Source::new(
            "growing",
            spool_core::Version::text(),
        )))
        .unwrap()
}

/// Waits until `store` sees at least `lines` lines of `reference`.
fn until_seen(store: &Store, reference: &str, lines: u64) {
    let started = std::time::Instant::now();
    loop {
        if line(store, reference, lines).is_ok() {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "never saw line {lines}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_process_that_saw_the_capture_growing_reads_it_whole_after_another_saw_it_finish() {
    let weed = start();
    let (_m, maker) = home_with(shared(&weed, "grow"));
    let mut writer = new_capture(&maker);
    let reference = writer.reference().to_owned();
    writer.write(&lines(1, 1_000));
    // A server on machine B reads the capture while it grows (and keeps that manifest).
    let (b_home, server) = home_with(shared(&weed, "grow"));
    until_seen(&server, &reference, 1_000);
    // The capture goes on past several chunks, and finishes.
    writer.write(&lines(1_001, 600_000));
    writer.finish(ArtifactState::Complete, None, None).unwrap();
    // A command on the same machine B sees it finished first.
    let cli = Store::open(b_home.path(), StoreConfig::default()).unwrap();
    cli.set_remote(Arc::new(shared(&weed, "grow")));
    assert_eq!(
        line(&cli, &reference, 599_999).unwrap(),
        "line 599999 of a capture that grows\n"
    );
    // The server, holding the old manifest, reads far into the finished artifact.
    assert_eq!(
        line(&server, &reference, 400_000).unwrap(),
        "line 400000 of a capture that grows\n"
    );
    assert_eq!(
        server.meta(&reference).unwrap().state,
        ArtifactState::Complete
    );
}

#[test]
fn a_capture_that_only_looked_stopped_is_read_on_when_it_goes_on() {
    let weed = start();
    let (_m, maker) = home_with(shared(&weed, "pause"));
    let mut writer = new_capture(&maker);
    let reference = writer.reference().to_owned();
    writer.write(&lines(1, 100));
    // This reader calls a capture stopped after a second without a change.
    let mut quick = settings(&weed, "pause");
    quick.stale_after = Duration::from_secs(1);
    let (_r, reader) = home_with(spool_s3::SharedStore::connect(&quick).unwrap());
    until_seen(&reader, &reference, 100);
    std::thread::sleep(Duration::from_millis(2_500));
    let paused = read_window(&reader, &reference, WindowRequest::Preview(None), 2_000).unwrap();
    assert_eq!(
        paused.capture.as_ref().map(|c| c.state),
        Some(ArtifactState::Interrupted),
        "{paused:?}"
    );
    // The capture goes on and finishes: the reader is not stuck with `interrupted`.
    writer.write(&lines(101, 200));
    writer.finish(ArtifactState::Complete, None, None).unwrap();
    let done = read_window(&reader, &reference, WindowRequest::Preview(None), 8_000).unwrap();
    assert!(done.capture.is_none(), "{:?}", done.capture);
    assert!(done.complete);
    assert_eq!(done.total.lines, Some(200));
}
