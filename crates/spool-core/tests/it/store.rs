//! The store: expiry with tombstones, the quota, integrity, concurrency, recovery.

use std::time::Duration;

use spool_core::envelope::ArtifactState;
use spool_core::search::{Paging, Query, search_artifact};
use spool_core::window::{WindowRequest, read_window};
use spool_core::{ErrorCode, Store, StoreConfig};

use crate::support::{numbered_lines, put, store, store_with};

#[test]
fn an_expired_artifact_answers_expired_with_what_it_was() {
    let s = store_with(StoreConfig {
        ttl: Duration::from_millis(1),
        ..StoreConfig::default()
    });
    let meta = put(&s.store, b"short lived\n");
    std::thread::sleep(Duration::from_millis(5));
    let err = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Preview(None),
        8000,
    )
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Expired);
    assert!(err.to_string().contains("test content"), "{err}");
    let wire = serde_json::to_value(err.to_wire(spool_core::render::Dialect::Mcp)).unwrap();
    assert_eq!(wire["error"]["code"], "expired");
    assert_eq!(wire["error"]["source"]["total"]["lines"], 1);
    // The tombstone stays; the content is gone.
    assert_eq!(
        s.store.meta(&meta.reference).unwrap().state,
        ArtifactState::Expired
    );
    assert!(
        !s.store
            .root()
            .join("content")
            .join(&meta.reference)
            .exists()
    );
    // Not found is a different answer.
    let err = read_window(
        &s.store,
        "sp_neverexisted",
        WindowRequest::Preview(None),
        8000,
    )
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
}

#[test]
fn gc_evicts_least_recently_read_over_the_quota() {
    let s = store();
    let body = numbered_lines(2000); // ~110 KB each
    let a = put(&s.store, body.as_bytes());
    std::thread::sleep(Duration::from_millis(5));
    let b = put(&s.store, body.as_bytes());
    std::thread::sleep(Duration::from_millis(5));
    let c = put(&s.store, body.as_bytes());
    std::thread::sleep(Duration::from_millis(5));
    // Reading `a` makes `b` the least recently read.
    read_window(&s.store, &a.reference, WindowRequest::Preview(None), 8000).unwrap();
    // The same store opened with a smaller quota, as `SPOOL_QUOTA=... spool gc` does.
    let small = Store::open(
        s.dir.path(),
        StoreConfig {
            quota_bytes: 250_000,
            eviction_grace: Duration::ZERO,
            ..StoreConfig::default()
        },
    )
    .unwrap();
    let report = small.gc().unwrap();
    assert_eq!(report.evicted, 1);
    assert_eq!(
        s.store.meta(&b.reference).unwrap().state,
        ArtifactState::Expired
    );
    assert_eq!(
        s.store.meta(&a.reference).unwrap().state,
        ArtifactState::Complete
    );
    assert_eq!(
        s.store.meta(&c.reference).unwrap().state,
        ArtifactState::Complete
    );
    let err = read_window(&s.store, &b.reference, WindowRequest::Preview(None), 8000).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Expired);
    // The words agree with the code (regression, issue 38: "(not expired)" under `expired`).
    let said = err.to_string();
    assert!(said.contains("is gone: it was evicted at"), "{said}");
    assert!(!said.contains("not expired"), "{said}");
}

#[test]
fn corrupted_content_answers_corrupt_never_wrong_bytes() {
    let s = store();
    let meta = put(&s.store, numbered_lines(20).as_bytes());
    let path = s.store.root().join("content").join(&meta.reference);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[10] ^= 0x20;
    std::fs::write(&path, bytes).unwrap();
    let err = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Preview(None),
        8000,
    )
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Corrupt);
    let q = Query {
        pattern: "line".into(),
        literal: true,
        case_insensitive: false,
        words: None,
    };
    let err = search_artifact(&s.store, &meta.reference, &q, &Paging::default()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Corrupt);
}

#[test]
fn two_writers_at_once_both_succeed() {
    let s = store();
    let home = s.dir.path().to_owned();
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let home = home.clone();
            std::thread::spawn(move || {
                let store = Store::open(&home, StoreConfig::default()).unwrap();
                let body = format!("writer {i}\n").repeat(10_000);
                let meta = put(&store, body.as_bytes());
                (meta.reference, body)
            })
        })
        .collect();
    for h in handles {
        let (reference, body) = h.join().unwrap();
        let e = read_window(
            &s.store,
            &reference,
            WindowRequest::Bytes {
                offset: 0,
                max: Some(9),
            },
            8000,
        )
        .unwrap();
        assert_eq!(e.content(spool_core::render::Dialect::Mcp), body[..9]);
        assert_eq!(s.store.meta(&reference).unwrap().bytes, body.len() as u64);
    }
}

#[test]
fn an_unwritable_home_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    let err = Store::open(&file, StoreConfig::default()).err().unwrap();
    assert!(err.to_string().contains("not-a-dir"), "{err}");
}

/// A sync started before the end (a directory search's, once its hits are written) loses
/// nothing: what is written after it is stored too, and the artifact is sealed complete.
#[test]
fn a_sync_started_early_loses_nothing_written_after_it() {
    let s = store();
    let mut w = crate::support::writer(&s.store, "synced early");
    let mut want = String::new();
    for i in 0..40_000 {
        if i == 20_000 {
            w.start_sync();
            w.start_sync();
        }
        let line = format!("line {i} of a capture synced before its end\n");
        w.write(line.as_bytes());
        want.push_str(&line);
    }
    w.start_sync();
    let meta = w.finish(ArtifactState::Complete, None, None).unwrap();
    assert_eq!(meta.state, ArtifactState::Complete);
    assert_eq!(meta.bytes, want.len() as u64);
    assert_eq!(meta.lines, 40_000);
    let reader = s.store.open_artifact(&meta.reference).unwrap();
    let got = reader.read_at(0, want.len()).unwrap();
    assert!(
        got == want.as_bytes(),
        "the stored bytes are the written ones"
    );
}

/// One write of many of the pieces an artifact's file is written in (see `store::writer::PIECE`)
/// stores every byte once, in order, whole lines and a partial one alike.
#[test]
fn one_write_of_many_pieces_stores_every_byte_in_order() {
    let s = store();
    let mut w = crate::support::writer(&s.store, "one large write");
    let mut want = Vec::with_capacity(5 << 20);
    let mut i = 0u64;
    while want.len() < (4 << 20) + (40 << 10) + 7 {
        // Lines of 1 to 97 bytes: piece boundaries fall anywhere in them.
        let len = (i % 97) as usize;
        want.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, len));
        want.push(b'\n');
        i += 1;
    }
    want.extend_from_slice(b"no newline at the end");
    let lines = i + 1;
    w.write(&want[..100]);
    w.write(&want[100..]);
    let meta = w.finish(ArtifactState::Complete, None, None).unwrap();
    assert_eq!(meta.state, ArtifactState::Complete);
    assert_eq!(meta.bytes, want.len() as u64);
    assert_eq!(meta.lines, lines);
    let reader = s.store.open_artifact(&meta.reference).unwrap();
    for (n, chunk) in want.chunks(1 << 20).enumerate() {
        let got = reader.read_at((n << 20) as u64, chunk.len()).unwrap();
        assert!(got == chunk, "MiB {n} is stored as written");
    }
}

/// The most the metadata's log may hold once a store is closed: its pages (see
/// `Store::LOG_PAGES`) and one call's more, each with its frame header, and the log's header.
fn most_log_bytes(store_dir: &std::path::Path) -> u64 {
    let header = std::fs::read(store_dir.join("meta.sqlite")).unwrap();
    let page = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65_536,
        n => u64::from(n),
    };
    (Store::LOG_PAGES as u64 + 64) * (page + 24) + 32
}

/// A process that closes the store does not checkpoint its log (see `Store::open`): what each
/// one committed is there for the next, and the log stays short however many come and go.
#[test]
fn rows_outlive_the_processes_that_wrote_them_and_the_log_stays_short() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store-v1");
    let log = store_dir.join("meta.sqlite-wal");
    let mut made = Vec::new();
    for i in 0..300 {
        // A store opened and dropped per artifact, as each CLI call does.
        let store = Store::open(dir.path(), StoreConfig::default()).unwrap();
        let meta = store
            .put(
                spool_core::store::NewArtifact::new(crate::support::text_source("one call")),
                format!("call {i}\n").as_bytes(),
            )
            .unwrap();
        made.push(meta.reference);
        drop(store);
        // Left for the next process, not checkpointed and deleted on close.
        assert!(log.exists(), "the log is kept when the store closes");
        let log_bytes = std::fs::metadata(&log).unwrap().len();
        let most = most_log_bytes(&store_dir);
        assert!(
            log_bytes <= most,
            "the log holds {log_bytes} bytes after {} calls, more than {most}",
            i + 1
        );
    }
    let store = Store::open(dir.path(), StoreConfig::default()).unwrap();
    for (i, reference) in made.iter().enumerate() {
        let meta = store.meta(reference).unwrap();
        assert_eq!(
            meta.bytes,
            format!("call {i}\n").len() as u64,
            "{reference}"
        );
        assert_eq!(meta.state, ArtifactState::Complete);
    }
}

/// Calls that commit once each (a read noting when the artifact was last read) keep the log
/// short too: each process reads the log back as not checkpointed, so without the close's
/// emptying the log grew by every such call (regression).
#[test]
fn calls_that_commit_once_each_keep_the_log_short() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store-v1");
    let reference = {
        let store = Store::open(dir.path(), StoreConfig::default()).unwrap();
        put(&store, b"read again and again\n").reference
    };
    for i in 0..400 {
        let store = Store::open(dir.path(), StoreConfig::default()).unwrap();
        let reader = store.open_artifact(&reference).unwrap();
        assert_eq!(reader.read_at(0, 5).unwrap(), b"read ");
        drop(reader);
        drop(store);
        let log_bytes = std::fs::metadata(store_dir.join("meta.sqlite-wal"))
            .unwrap()
            .len();
        let most = most_log_bytes(&store_dir);
        assert!(
            log_bytes <= most,
            "the log holds {log_bytes} bytes after {} reads, more than {most}",
            i + 1
        );
    }
}

#[test]
fn an_unfinished_writer_leaves_an_interrupted_artifact() {
    let s = store();
    let reference = {
        let mut w = crate::support::writer(&s.store, "dropped");
        w.write(b"partial output\n");
        w.reference().to_owned()
        // Dropped without finish, as when a client disconnects mid-call.
    };
    let meta = s.store.meta(&reference).unwrap();
    assert_eq!(meta.state, ArtifactState::Cancelled);
    let e = read_window(&s.store, &reference, WindowRequest::Preview(None), 8000).unwrap();
    assert!(
        !e.complete,
        "an interrupted copy never claims to be complete"
    );
    assert_eq!(
        e.content(spool_core::render::Dialect::Mcp),
        "partial output\n"
    );
    assert_eq!(e.capture.as_ref().unwrap().state, ArtifactState::Cancelled);
    assert_eq!(
        e.reason.unwrap().code,
        spool_core::envelope::ReasonCode::Cancelled
    );
}

/// Regression: two processes opening a fresh store raced to switch it to WAL and the loser
/// failed with "database is locked"; two threads raced on one temporary name for the secret
/// and one read an empty key.
#[test]
fn concurrent_first_open_of_a_fresh_store_succeeds() {
    for _ in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(6));
        let handles: Vec<_> = (0..6)
            .map(|_| {
                let home = dir.path().to_owned();
                let barrier = std::sync::Arc::clone(&barrier);
                std::thread::spawn(move || {
                    barrier.wait();
                    Store::open(&home, StoreConfig::default()).map(|_| ())
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap().unwrap();
        }
    }
}

#[test]
fn the_quota_is_kept_as_artifacts_arrive_and_never_evicts_the_newest() {
    let s = store_with(StoreConfig {
        quota_bytes: 150_000,
        // Above the quota, set by the operator: one output may be larger than the quota.
        capture_limit_bytes: Some(u64::MAX),
        eviction_grace: Duration::ZERO,
        ..StoreConfig::default()
    });
    let body = numbered_lines(2000); // ~110 KB each
    let first = put(&s.store, body.as_bytes());
    std::thread::sleep(Duration::from_millis(5));
    let second = put(&s.store, body.as_bytes());
    // Writing `second` pushed the store over the quota: `first` (least recently read) made room.
    assert_eq!(
        s.store.meta(&first.reference).unwrap().state,
        ArtifactState::Expired
    );
    assert_eq!(
        s.store.meta(&second.reference).unwrap().state,
        ArtifactState::Complete
    );
    // One artifact larger than the whole quota stays readable.
    let big = numbered_lines(4000);
    let huge = put(&s.store, big.as_bytes());
    assert_eq!(
        s.store.meta(&huge.reference).unwrap().state,
        ArtifactState::Complete
    );
    let window = read_window(
        &s.store,
        &huge.reference,
        WindowRequest::Lines {
            line: 4000,
            limit: None,
        },
        8000,
    )
    .unwrap();
    assert!(
        window
            .content(spool_core::render::Dialect::Mcp)
            .starts_with("line 4000:")
    );
}

#[test]
fn the_store_is_private_to_its_owner() {
    use std::os::unix::fs::PermissionsExt;
    // Regression: files were 0644 and folders 0755, command output readable by every user.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("store-v1");
    std::fs::create_dir_all(root.join("content")).unwrap();
    for d in [&root, &root.join("content")] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let store = spool_core::Store::open(dir.path(), spool_core::StoreConfig::default()).unwrap();
    let meta = crate::support::put(&store, b"a secret line\n");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        mode(&root),
        0o700,
        "an older store is tightened when it opens"
    );
    assert_eq!(mode(&root.join("content")), 0o700);
    assert_eq!(mode(&root.join("meta.sqlite")), 0o600);
    let mut files = 0;
    for entry in std::fs::read_dir(root.join("content")).unwrap() {
        let path = entry.unwrap().path();
        assert_eq!(mode(&path), 0o600, "{}", path.display());
        files += 1;
    }
    assert!(files >= 1, "the content of {} is there", meta.reference);
}

#[test]
fn a_truncated_content_file_answers_corrupt_not_internal() {
    let s = crate::support::store();
    let meta = crate::support::put(&s.store, crate::support::numbered_lines(2_000).as_bytes());
    let path = s.dir.path().join("store-v1/content").join(&meta.reference);
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(meta.bytes / 2).unwrap();
    let err = spool_core::window::read_window(
        &s.store,
        &meta.reference,
        spool_core::WindowRequest::Lines {
            line: 1_900,
            limit: Some(5),
        },
        8_000,
    )
    .unwrap_err();
    assert_eq!(err.code(), spool_core::ErrorCode::Corrupt, "{err}");
}

#[test]
fn concurrent_writers_under_a_small_quota_never_lose_the_answer_they_build() {
    // Regression: with a small quota and 20 writers, 40 of 160 runs answered `expired` or
    // `corrupt` for output they had just captured.
    let ts = crate::support::store_with(spool_core::StoreConfig {
        quota_bytes: 600_000,
        ..spool_core::StoreConfig::default()
    });
    let home = ts.dir.path().to_owned();
    let lost = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for w in 0..20 {
            let home = home.clone();
            let lost = &lost;
            scope.spawn(move || {
                // Each writer its own connection, as separate processes have.
                let store = spool_core::Store::open(
                    &home,
                    spool_core::StoreConfig {
                        quota_bytes: 600_000,
                        ..spool_core::StoreConfig::default()
                    },
                )
                .unwrap();
                for i in 0..8 {
                    let spec = spool_core::exec::RunSpec {
                        command: Some(format!("yes 'writer {w} run {i}' | head -c 150000")),
                        ..spool_core::exec::RunSpec::default()
                    };
                    let outcome = spool_core::exec::run(
                        &store,
                        &spec,
                        spool_core::exec::RunControl::default(),
                    )
                    .unwrap();
                    let answer = spool_core::window::read_window(
                        &store,
                        &outcome.meta.reference,
                        spool_core::WindowRequest::Preview(None),
                        2_000,
                    );
                    match answer {
                        Ok(e) => assert!(
                            e.content(spool_core::render::Dialect::Mcp)
                                .contains(&format!("writer {w} run {i}"))
                        ),
                        Err(e) => {
                            eprintln!("writer {w} run {i}: {e}");
                            lost.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        }
                    }
                }
            });
        }
    });
    assert_eq!(lost.into_inner(), 0, "answers lost their own artifact");
}

/// The content bytes on disk (the content files only: beside them are indexes and sums).
fn content_on_disk(home: &std::path::Path) -> u64 {
    std::fs::read_dir(home.join("store-v1").join("content"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().contains('.'))
        .filter_map(|e| e.metadata().ok())
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len())
        .sum()
}

#[test]
fn a_burst_of_captures_stays_within_the_quota_once_their_answers_are_built() {
    // Regression (issue 39): a 30 s grace protected new copies by age, so six 256 MiB captures
    // within 30 s under a 600 MiB quota left 1.6 GB on disk. Pins protect a copy while its
    // answer is built; the defaults keep the quota plus the copies in use.
    let ts = store_with(StoreConfig {
        quota_bytes: 3 << 20,
        ..StoreConfig::default()
    });
    for i in 0..6 {
        let spec = spool_core::exec::RunSpec {
            command: Some(format!("yes 'run {i}' | head -c 1048576")),
            ..spool_core::exec::RunSpec::default()
        };
        let out = spool_core::exec::run(&ts.store, &spec, spool_core::exec::RunControl::default())
            .unwrap();
        // Its answer is built from its own content: the pin kept it.
        let e = read_window(
            &ts.store,
            &out.meta.reference,
            WindowRequest::Preview(None),
            2_000,
        )
        .unwrap();
        assert!(
            e.content(spool_core::render::Dialect::Mcp)
                .contains(&format!("run {i}"))
        );
    }
    let on_disk = content_on_disk(ts.dir.path());
    assert!(
        on_disk <= 3 << 20,
        "{on_disk} bytes of content on disk against a 3 MiB quota"
    );
}

#[test]
fn a_pinned_copy_is_not_evicted_until_its_answer_opens_it() {
    let ts = store();
    let meta = ts
        .store
        .put(
            spool_core::store::NewArtifact::new(crate::support::text_source("pinned")),
            &vec![b'x'; 200_000],
        )
        .unwrap();
    // Another process with a tiny quota and no grace: the copy is pinned, so it stays.
    let other = Store::open(
        ts.dir.path(),
        StoreConfig {
            quota_bytes: 10,
            eviction_grace: Duration::ZERO,
            ..StoreConfig::default()
        },
    )
    .unwrap();
    other.gc().unwrap();
    assert_eq!(
        other.meta(&meta.reference).unwrap().state,
        ArtifactState::Complete
    );
    // Its answer opened it and is done: the pin is gone, and the quota takes it.
    drop(ts.store.open_artifact(&meta.reference).unwrap());
    // (Read in this millisecond is not "least recently read" yet.)
    std::thread::sleep(Duration::from_millis(5));
    other.gc().unwrap();
    assert_eq!(
        other.meta(&meta.reference).unwrap().state,
        ArtifactState::Expired
    );
}

/// A first read's one thread reads and hashes the file while another writes the same
/// buffers: the stored bytes and the version's SHA-256 are the file's, over several buffers,
/// a short head and background syncs.
#[test]
fn a_file_read_is_stored_whole_with_its_sha256() {
    let s = crate::support::store();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data.txt");
    let bytes: Vec<u8> = (0..9_500_000u32)
        .map(|i| {
            if i % 61 == 60 {
                b'\n'
            } else {
                b'a' + (i % 23) as u8
            }
        })
        .collect();
    std::fs::write(&path, &bytes).unwrap();
    let meta = spool_core::files::snapshot(&s.store, &path).unwrap();
    let want = crate::support::sha256_hex(&bytes);
    let version = meta.source.version.file().unwrap();
    assert_eq!(version.sha256.as_deref(), Some(want.as_str()));
    assert_eq!(meta.bytes, bytes.len() as u64);
    let stored = std::fs::read(s.dir.path().join("store-v1/content").join(&meta.reference));
    assert_eq!(stored.unwrap(), bytes);
}

/// Content evicted while an artifact is written is moved into the trash (deleting a large
/// file is slow, and the capture waited for it); the next artifact's start deletes it in the
/// background, and `gc` deletes it before returning. Nothing of it stays in `content/`.
#[test]
fn evicted_content_leaves_the_capture_path_through_the_trash() {
    let cfg = StoreConfig {
        quota_bytes: 150_000,
        capture_limit_bytes: Some(u64::MAX),
        eviction_grace: Duration::ZERO,
        ..StoreConfig::default()
    };
    let s = store_with(cfg);
    let body = numbered_lines(2000); // ~110 KB each
    let a = put(&s.store, body.as_bytes());
    std::thread::sleep(Duration::from_millis(5));
    // Over the quota: `a` is evicted as `b` finishes, its content moved aside.
    let b = put(&s.store, body.as_bytes());
    let root = s.dir.path().join("store-v1");
    let trashed = root.join("trash").join(&a.reference);
    assert_eq!(
        s.store.meta(&a.reference).unwrap().state,
        ArtifactState::Expired
    );
    assert!(!root.join("content").join(&a.reference).exists());
    assert_eq!(std::fs::metadata(&trashed).unwrap().len(), a.bytes);
    // The next artifact's start empties the trash on a thread of its own.
    put(&s.store, b"small\n");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while trashed.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!trashed.exists(), "the trash was emptied");
    // `gc` deletes what it evicts before returning.
    std::thread::sleep(Duration::from_millis(5));
    let small = Store::open(
        s.dir.path(),
        StoreConfig {
            quota_bytes: 10,
            eviction_grace: Duration::ZERO,
            ..StoreConfig::default()
        },
    )
    .unwrap();
    let report = small.gc().unwrap();
    assert!(report.evicted >= 1, "{report:?}");
    assert!(!root.join("trash").join(&b.reference).exists());
    assert_eq!(
        std::fs::read_dir(root.join("trash")).unwrap().count(),
        0,
        "nothing left in the trash"
    );
}

/// A file rewritten in place with its size and modification time put back is read again:
/// the stored snapshot is reused only for the same inode, size, mtime and change time.
#[test]
fn a_file_rewritten_with_its_mtime_put_back_is_read_again() {
    let s = crate::support::store();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, b"first version\n").unwrap();
    crate::support::settle();
    let first = spool_core::files::snapshot(&s.store, &path).unwrap();
    let again = spool_core::files::snapshot(&s.store, &path).unwrap();
    assert_eq!(
        again.reference, first.reference,
        "an unchanged file is not read again"
    );
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(&path, b"other version\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), mtime);
    let second = spool_core::files::snapshot(&s.store, &path).unwrap();
    assert_ne!(second.reference, first.reference);
    let stored = std::fs::read(
        s.dir
            .path()
            .join("store-v1/content")
            .join(&second.reference),
    )
    .unwrap();
    assert_eq!(stored, b"other version\n");
}

/// Files no row names are removed by `gc` once they are an hour old: a capture's whose row a
/// power cut took back, and an expired artifact's whose deletion it undid. A young file, and
/// every file a row names however old, stay.
#[test]
fn gc_removes_old_files_no_artifact_names_and_nothing_else() {
    use std::time::SystemTime;
    let s = store();
    let kept = put(&s.store, numbered_lines(300).as_bytes());
    // Made to live a millisecond: by the first `gc` only its tombstone is left.
    let short = Store::open(
        s.dir.path(),
        StoreConfig {
            ttl: Duration::from_millis(1),
            ..StoreConfig::default()
        },
    )
    .unwrap();
    let gone = put(&short, b"expired\n");
    std::thread::sleep(Duration::from_millis(5));
    s.store.gc().unwrap();
    let content = s.store.root().join("content");
    assert_eq!(
        s.store.meta(&gone.reference).unwrap().state,
        ArtifactState::Expired
    );
    assert!(!content.join(&gone.reference).exists());
    let aged = |name: &str| {
        let path = content.join(name);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_hours(2))
            .unwrap();
    };
    // Every file of the artifact kept is old; a row names them.
    let kept_files: Vec<String> = std::fs::read_dir(&content)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with(&kept.reference))
        .collect();
    assert!(kept_files.len() >= 3, "{kept_files:?}");
    for name in &kept_files {
        aged(name);
    }
    // A capture whose row was lost: its partial content, index and sums.
    let lost = "sp_lostrow2345";
    for (ending, bytes) in [(".partial", 70_000), (".idx", 64), (".sum", 16)] {
        std::fs::write(content.join(format!("{lost}{ending}")), vec![b'x'; bytes]).unwrap();
        aged(&format!("{lost}{ending}"));
    }
    // The expired artifact's content, back as a power cut would leave it.
    std::fs::write(content.join(&gone.reference), b"expired\n").unwrap();
    aged(&gone.reference);
    // An hour is not up for this one, and this one is not an artifact's.
    std::fs::write(content.join("sp_young23456.partial"), b"young").unwrap();
    std::fs::write(content.join("notes.txt"), b"not ours").unwrap();
    aged("notes.txt");

    let report = s.store.gc().unwrap();
    assert_eq!(report.orphans, 2);
    assert_eq!(report.freed_bytes, 70_000 + 64 + 16 + 8);
    let left: std::collections::BTreeSet<String> = std::fs::read_dir(&content)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    let mut want: std::collections::BTreeSet<String> = kept_files.into_iter().collect();
    want.insert("sp_young23456.partial".into());
    want.insert("notes.txt".into());
    assert_eq!(left, want);
    // What a row names still reads back whole.
    let e = read_window(
        &s.store,
        &kept.reference,
        WindowRequest::Preview(None),
        100_000,
    )
    .unwrap();
    assert_eq!(e.total.bytes, Some(kept.bytes));
    assert_eq!(
        s.store.meta(&gone.reference).unwrap().state,
        ArtifactState::Expired
    );
    // Nothing is left for a second pass.
    assert_eq!(s.store.gc().unwrap().orphans, 0);
}

/// A store made before artifacts had a content key gains the column and its index when
/// opened, and finds an artifact by it.
#[test]
fn a_store_made_before_content_keys_gains_them() {
    let dir = tempfile::tempdir().unwrap();
    drop(Store::open(dir.path(), StoreConfig::default()).unwrap());
    let db = dir.path().join("store-v1/meta.sqlite");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "DROP INDEX artifacts_content; ALTER TABLE artifacts DROP COLUMN content_key;",
        )
        .unwrap();
    }
    let store = Store::open(dir.path(), StoreConfig::default()).unwrap();
    let mut writer = crate::support::writer(&store, "keyed");
    writer.write(b"what it holds\n");
    writer.set_content_key("blob:1".into());
    let made = writer.finish(ArtifactState::Complete, None, None).unwrap();
    let found = store.find_by_content("blob:1").unwrap().unwrap();
    assert_eq!(found.reference, made.reference);
    assert!(store.find_by_content("blob:2").unwrap().is_none());
    drop(store);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let indexed: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'artifacts_content'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(indexed, 1);
}
