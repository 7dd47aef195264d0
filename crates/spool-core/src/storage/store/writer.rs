//! Streams content into a new artifact: counted, indexed and hashed on the way to disk.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;

use twox_hash::XxHash3_128;

use super::index::IndexWriter;
use super::scan::Scanner;
use super::sums::SumsWriter;
use super::{ArtifactMeta, Store};
use crate::envelope::{ArtifactState, Version};
use crate::error::{Error, Result};
use crate::tokens;

/// Which output stream a piece of captured output came from (its run records store the
/// discriminant).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout = 1,
    Stderr = 2,
}

/// Bytes of the head kept for binary detection.
const SNIFF: usize = 8 * 1024;
/// Written bytes between two background syncs, so the final sync has little left to do. A
/// sync asked for while one runs is dropped, so in effect the disk writes follow the capture
/// as it goes. Interleaved on a 256 MiB file (14 rounds), a first read took 1.30x
/// `cp && sync` with 4 MiB, 1.32x with 2, 1.33x with 8, 1.37x with 16 and 1.59x with 64; a
/// capture 1.14x `cat > f && sync` with 4 MiB and 1.28x with 64. Its final sync waited for up
/// to 64 MiB to reach the disk with nothing else left to do.
const FLUSH_EVERY: u64 = 4 << 20;
/// While a shared store uploads the capture, the index checkpoints reach the file at least
/// this often (by bytes or by time), so a growing copy read elsewhere is indexed nearly to
/// its end.
const INDEX_FLUSH_BYTES: u64 = 4 << 20;
const INDEX_FLUSH_TIME: std::time::Duration = std::time::Duration::from_secs(1);
/// Bytes handed to an artifact's file in one write. Linux sizes the page-cache folios a write
/// makes by the write's size. On a virtual machine whose host takes back free memory (free page
/// reporting, as on this machine), large writes into a new file were slow and small ones were
/// not; our reading, not traced, is that large folios come from the large free blocks the host
/// took back, each page of which then costs a fault on the host. Measured here, a new file,
/// page cache only:
/// - 3.5 MB: 16-40 ms in 256 KiB writes, 17-33 ms in 64 KiB ones, 1.3-2.4 ms in 16 KiB ones
///   and 1.0-3.3 ms in 32 KiB ones (8 runs of 9);
/// - 32 MiB: 190-213 ms in 256 KiB writes, 15-19 ms in 16 KiB ones;
/// - 256 MiB from `cat` through `dd`: 1,076 ms in 1 MiB writes, 295 ms in 16 KiB ones.
///
/// A capture of 256 MiB, interleaved with `cat > f && sync f` (20 rounds): 1.06x its time in
/// 32 KiB pieces throughout, 1.22x in 16 KiB ones, 2.22x in 16 KiB ones for the first 64 MiB and
/// 1 MiB ones after; a first read 1.48x, 1.66x and 1.61x `cp && sync`. 32 KiB halves the
/// system calls of 16 KiB, which the first read (both cores busy) felt.
pub(super) const PIECE: usize = 32 << 10;

/// A read handle on the file at `path` that is `file` itself: not a symlink, nor another file
/// put in its place.
fn open_same(path: &std::path::Path, file: &File) -> std::io::Result<File> {
    use std::os::unix::fs::MetadataExt as _;
    let flags =
        rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::CLOEXEC;
    let opened = File::from(rustix::fs::open(path, flags, rustix::fs::Mode::empty())?);
    let (a, b) = (opened.metadata()?, file.metadata()?);
    if (a.dev(), a.ino()) == (b.dev(), b.ino()) {
        Ok(opened)
    } else {
        Err(std::io::Error::other("the partial file was replaced"))
    }
}

/// Syncs the content file on a second thread while the capture goes on: the disk writes
/// overlap the capture instead of all waiting for the end.
struct Flusher {
    nudge: std::sync::mpsc::SyncSender<()>,
    thread: std::thread::JoinHandle<()>,
    next_at: u64,
}

impl Flusher {
    fn start(file: &File) -> Option<Self> {
        let file = file.try_clone().ok()?;
        let (nudge, wait) = std::sync::mpsc::sync_channel::<()>(1);
        // Without its thread the file is synced when it is sealed, as a small one is.
        let thread = spool_walk::workers::spawn("flush", move || {
            while wait.recv().is_ok() {
                let _ = file.sync_data();
            }
        })
        .ok()?;
        Some(Self {
            nudge,
            thread,
            next_at: FLUSH_EVERY,
        })
    }

    fn written(&mut self, total: u64) {
        if total >= self.next_at {
            // A sync already under way covers this one too: never wait for it here.
            let _ = self.nudge.try_send(());
            self.next_at = total + FLUSH_EVERY;
        }
    }

    /// Starts a sync of what was written so far once the one under way (if any) ends, unless
    /// one is queued already.
    fn now(&self) {
        let _ = self.nudge.try_send(());
    }

    fn stop(self) {
        drop(self.nudge);
        let _ = self.thread.join();
    }
}

/// An artifact being written. Call [`ArtifactWriter::finish`]; dropping it unfinished marks the
/// artifact `interrupted`, so nothing half-written ever looks complete.
pub struct ArtifactWriter<'s> {
    store: &'s Store,
    meta: ArtifactMeta,
    file: Option<File>,
    partial_path: PathBuf,
    scanner: Option<Scanner>,
    hasher: XxHash3_128,
    head: Vec<u8>,
    /// The head's tokens, counted on another thread once it is full: a large artifact's
    /// count (256 KiB) runs while the rest arrives, not after.
    head_tokens: Option<std::thread::JoinHandle<u64>>,
    streams: Vec<u8>,
    current_stream: Option<Stream>,
    failure: Option<std::io::Error>,
    /// The content is a clone of a whole file (see [`Self::clone_content`]): at the end it is
    /// cut to what was accounted, should accounting have stopped early.
    cloned: bool,
    flusher: Option<Flusher>,
    /// The shared store's upload of this capture, while it runs.
    upload: Option<Box<dyn super::Upload>>,
    /// Bytes and time of the last index flush for the upload.
    index_flushed: (u64, std::time::Instant),
    /// The most this capture keeps (see `store::limit`).
    limit: super::CaptureLimit,
    /// No more room can be made on the disk (see [`Self::within_limit`]).
    disk_exhausted: bool,
    /// Bytes offered past the limit and not kept; or, for a copy of a file stopped at the
    /// limit, the file's size (see [`Self::stopped_at_limit`]).
    dropped: u64,
    source_bytes: Option<u64>,
}

impl<'s> ArtifactWriter<'s> {
    pub(super) fn new(store: &'s Store, meta: ArtifactMeta) -> Result<Self> {
        let partial_path = store.partial_path(&meta.reference);
        let file =
            crate::store::create_private(&partial_path).map_err(|e| Error::io(&partial_path, e))?;
        let mut writer = Self::over(store, meta, partial_path)?;
        writer.flusher = Flusher::start(&file);
        writer.upload = store.begin_upload(&writer.meta);
        writer.file = Some(file);
        Ok(writer)
    }

    /// A writer of `meta` over the content file at `partial_path`, with its index and sums
    /// begun, not yet holding the file.
    fn over(store: &'s Store, meta: ArtifactMeta, partial_path: PathBuf) -> Result<Self> {
        let index = IndexWriter::create(&store.index_path(&meta.reference))?;
        let sums = SumsWriter::create(&store.sums_path(&meta.reference))?;
        Ok(Self {
            store,
            meta,
            file: None,
            partial_path,
            scanner: Some(Scanner::new(index, sums)),
            hasher: XxHash3_128::new(),
            head: Vec::new(),
            head_tokens: None,
            streams: Vec::new(),
            current_stream: None,
            failure: None,
            cloned: false,
            flusher: None,
            upload: None,
            index_flushed: (0, std::time::Instant::now()),
            limit: store.capture_limit(0),
            disk_exhausted: false,
            dropped: 0,
            source_bytes: None,
        })
    }

    /// A writer over content already on disk at `from` (a capture whose process died): the
    /// file becomes the artifact's content as it is, without a copy, so a full disk cannot
    /// lose what reached it; only the line index and the totals are made, by reading it.
    pub(super) fn adopt(
        store: &'s Store,
        meta: ArtifactMeta,
        from: &std::path::Path,
    ) -> Result<Self> {
        let partial_path = store.partial_path(&meta.reference);
        std::fs::rename(from, &partial_path).map_err(|e| Error::io(&partial_path, e))?;
        let mut writer = Self::over(store, meta, partial_path)?;
        let mut file =
            File::open(&writer.partial_path).map_err(|e| Error::io(&writer.partial_path, e))?;
        let mut buf = vec![0u8; 256 * 1024];
        loop {
            let n = match std::io::Read::read(&mut file, &mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    writer.failure = Some(e);
                    break;
                }
            };
            writer.account(&buf[..n]);
            if writer.failure.is_some() {
                break;
            }
        }
        writer.file = Some(file);
        Ok(writer)
    }

    /// Counts, hashes and indexes bytes that are already in the content file.
    fn account(&mut self, done: &[u8]) {
        let Some(scanner) = self.scanner.as_mut() else {
            return;
        };
        if let Err(e) = scanner.feed(done) {
            self.failure = Some(e);
            return;
        }
        self.hasher.write(done);
        if self.head.len() < tokens::EXACT_TOKEN_LIMIT {
            let room = tokens::EXACT_TOKEN_LIMIT - self.head.len();
            self.head.extend_from_slice(&done[..room.min(done.len())]);
            if self.head.len() == tokens::EXACT_TOKEN_LIMIT {
                let head = self.head.clone();
                // Without its thread the head is counted when the artifact is sealed.
                self.head_tokens =
                    spool_walk::workers::spawn("count", move || tokens::head_tokens(&head)).ok();
            }
        }
    }

    pub fn reference(&self) -> &str {
        &self.meta.reference
    }

    /// Bytes and lines stored so far.
    pub fn progress(&self) -> (u64, u64) {
        self.scanner
            .as_ref()
            .map_or((0, 0), |s| (s.bytes(), s.lines()))
    }

    /// The write error that stopped the capture, if one did (the disk filled, ...).
    pub fn failure(&self) -> Option<&std::io::Error> {
        self.failure.as_ref()
    }

    /// The most this capture keeps.
    pub fn limit(&self) -> u64 {
        self.limit.bytes
    }

    /// What of `buf` fits under the limit; the rest is counted as dropped. A limit set by the
    /// disk's free space is raised as the capture reaches it, by evicting the least recently
    /// read copies (as many as the bytes waiting need), until that cannot make the room.
    fn within_limit<'b>(&mut self, buf: &'b [u8]) -> &'b [u8] {
        let written = self.progress().0;
        if !self.disk_exhausted
            && matches!(self.limit.by, super::LimitBy::Disk { .. })
            && self.limit.bytes.saturating_sub(written) < buf.len() as u64
        {
            let wanted = buf.len() as u64;
            if let Err(e) = self.store.make_room(wanted, &self.meta.reference) {
                tracing::warn!(error = %e, "could not make room on the disk");
            }
            let before = self.limit.bytes;
            self.limit = self.store.capture_limit(written);
            // No more room to be had: the limit stands for the rest of the capture. When not
            // a byte fits, the disk is full, as a failed write would find it (the store's
            // reserve still seals the copy and records the answer).
            self.disk_exhausted = self.limit.bytes <= before;
            if self.disk_exhausted && self.limit.bytes == 0 {
                self.failure = Some(std::io::Error::new(
                    std::io::ErrorKind::StorageFull,
                    self.limit.disk_full_words(),
                ));
                return &[];
            }
        }
        let room = self.limit.bytes.saturating_sub(written);
        match usize::try_from(room) {
            Ok(room) if room < buf.len() => {
                self.dropped = self.dropped.saturating_add((buf.len() - room) as u64);
                &buf[..room]
            }
            _ => buf,
        }
    }

    /// A copy of a source of `source_bytes` stopped at the limit by its maker (a file's copy
    /// reads no further than it keeps).
    pub fn stopped_at_limit(&mut self, source_bytes: u64) {
        self.source_bytes = Some(source_bytes);
    }

    /// Appends bytes. After a write error the rest is dropped and counted as not stored; the
    /// artifact ends `interrupted` at the byte count reached. Past the limit, bytes are
    /// dropped and counted: the artifact ends `interrupted`, saying so.
    pub fn write(&mut self, buf: &[u8]) {
        if self.failure.is_some() {
            return;
        }
        let mut buf = self.within_limit(buf);
        while !buf.is_empty() {
            let piece = &buf[..buf.len().min(PIECE)];
            let (Some(file), Some(_)) = (self.file.as_mut(), self.scanner.as_ref()) else {
                return;
            };
            match file.write(piece) {
                Ok(0) => {
                    self.failure = Some(std::io::ErrorKind::WriteZero.into());
                    return;
                }
                Ok(n) => {
                    self.account(&buf[..n]);
                    if self.failure.is_some() {
                        return;
                    }
                    buf = &buf[n..];
                    let written = self.progress().0;
                    if let Some(f) = self.flusher.as_mut() {
                        f.written(written);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.failure = Some(e);
                    return;
                }
            }
        }
        self.report_progress();
    }

    /// Makes the content a copy-on-write clone of all of `source` (FICLONE, on a filesystem
    /// whose files can share blocks: XFS, Btrfs, ...) before anything is written: no byte is
    /// copied. Returns a handle that reads the clone, whose bytes, in order, go to
    /// [`Self::account_cloned`] (what is counted, indexed and hashed is what is stored, even
    /// if `source` changes meanwhile); `None` where the filesystem cannot clone, the content
    /// then still empty for [`Self::write`].
    pub fn clone_content(&mut self, source: &File) -> Option<File> {
        if self.progress().0 > 0 || self.failure.is_some() {
            return None;
        }
        let file = self.file.as_ref()?;
        let reading = rustix::fs::ioctl_ficlone(file, source)
            .map_err(std::io::Error::from)
            .and_then(|()| open_same(&self.partial_path, file));
        if let Ok(clone) = reading {
            self.cloned = true;
            return Some(clone);
        }
        // Written as usual then, from an empty file again (a failed clone may have cloned
        // part of the file).
        if let Err(e) = file.set_len(0) {
            self.failure = Some(e);
        }
        None
    }

    /// Counts, indexes and hashes the next bytes of content cloned by [`Self::clone_content`].
    pub fn account_cloned(&mut self, buf: &[u8]) {
        if self.failure.is_none() {
            let buf = self.within_limit(buf);
            self.account(buf);
            self.report_progress();
        }
    }

    /// Tells a shared store's live upload how far the content has come, its index flushed
    /// often enough for a copy read elsewhere.
    fn report_progress(&mut self) {
        let Some(scanner) = self.scanner.as_mut() else {
            return;
        };
        if let Some(upload) = &self.upload {
            let bytes = scanner.bytes();
            let (at, when) = self.index_flushed;
            if bytes >= at + INDEX_FLUSH_BYTES || when.elapsed() >= INDEX_FLUSH_TIME {
                if let Err(e) = scanner.flush_index() {
                    self.failure = Some(e);
                    return;
                }
                self.index_flushed = (bytes, std::time::Instant::now());
            }
            upload.progress(super::Progress {
                bytes,
                lines: scanner.lines(),
                chars: scanner.chars(),
            });
        }
    }

    /// Starts syncing what was written, in the background, when no more is to come but the
    /// artifact cannot be sealed yet (a directory search's hits are written before its scope
    /// is known): the sync at [`Self::finish`] then has little left to wait for.
    pub fn start_sync(&self) {
        if let Some(f) = &self.flusher {
            f.now();
        }
    }

    /// Appends bytes from one stream of a command, remembering where each stream's runs start.
    pub fn write_stream(&mut self, stream: Stream, buf: &[u8]) {
        if self.current_stream != Some(stream) && !buf.is_empty() && self.failure.is_none() {
            let at = self.progress().0;
            self.streams.extend_from_slice(&at.to_le_bytes());
            self.streams.push(stream as u8);
            self.current_stream = Some(stream);
        }
        self.write(buf);
    }

    /// The key under which a later identical request finds this artifact, when it is known
    /// only once the content is (a directory search learns its tree's digest as it reads).
    pub fn set_dedup_key(&mut self, key: String) {
        self.meta.dedup_key = Some(key);
    }

    /// The key under which a later request finds this artifact by what it holds (see
    /// [`ArtifactMeta::content_key`]).
    pub fn set_content_key(&mut self, key: String) {
        self.meta.content_key = Some(key);
    }

    /// Seals the artifact: syncs the content, renames it into place and records its totals.
    /// A `version` given replaces the source's: what is known only at the end (exit code,
    /// duration, hash, ...).
    pub fn finish(
        mut self,
        state: ArtifactState,
        detail: Option<String>,
        version: Option<Version>,
    ) -> Result<ArtifactMeta> {
        self.seal(state, detail, || (version, None))
    }

    /// As [`Self::finish`], with the version and the dedup key found by `late` while the
    /// content is synced (a directory search's digest and dirty check took as long as the
    /// sync, one after the other).
    pub fn finish_while(
        mut self,
        state: ArtifactState,
        detail: Option<String>,
        late: impl FnOnce() -> (Option<Version>, Option<String>),
    ) -> Result<ArtifactMeta> {
        self.seal(state, detail, late)
    }

    fn seal(
        &mut self,
        mut state: ArtifactState,
        mut detail: Option<String>,
        late: impl FnOnce() -> (Option<Version>, Option<String>),
    ) -> Result<ArtifactMeta> {
        let scanner = self.scanner.take();
        let file = self.file.take();
        let flusher = self.flusher.take();
        if let Some(scanner) = &scanner {
            self.meta.bytes = scanner.bytes();
            self.meta.lines = scanner.lines();
            self.meta.chars = scanner.chars();
        }
        if self.cloned
            && let Some(file) = &file
            && let Err(e) = file.set_len(self.meta.bytes)
        {
            // A clone whose reading stopped early: only what was accounted is the content.
            self.failure.get_or_insert(e);
        }
        // The head's tokens (unless counted already) are counted while the files are synced
        // (each took about as long as the other at the end of a directory search).
        let (head, bytes) = (&self.head, self.meta.bytes);
        let counting = self.head_tokens.take();
        // Taken by the thread that syncs, or by this one when no thread can be had.
        let to_sync = std::sync::Mutex::new(Some((flusher, scanner)));
        let sync = || {
            let taken = to_sync.lock().ok().and_then(|mut held| held.take());
            let Some((flusher, scanner)) = taken else {
                return (Ok(()), Ok(()));
            };
            // A sync under way (one started early: see `start_sync`) ends first, here, not
            // before `late` starts.
            if let Some(f) = flusher {
                f.stop();
            }
            let content = file.as_ref().map_or(Ok(()), std::fs::File::sync_data);
            (
                content,
                scanner.map_or(Ok(()), super::scan::Scanner::finish),
            )
        };
        let (content, indexed, total, (version, dedup_key)) = std::thread::scope(|scope| {
            let synced = spool_walk::workers::spawn_scoped(scope, "sync", sync);
            let late = late();
            let counted = counting
                .and_then(|c| c.join().ok())
                .unwrap_or_else(|| tokens::head_tokens(head));
            let total = tokens::total_from_counted(counted, head.len(), bytes);
            let (content, indexed) = match synced {
                Ok(synced) => synced.join().unwrap_or_else(|_| {
                    let failed = || Err(std::io::Error::other("the sync failed"));
                    (failed(), failed())
                }),
                Err(_) => sync(),
            };
            (content, indexed, total, late)
        });
        if let Some(key) = dedup_key {
            self.meta.dedup_key = Some(key);
        }
        let mut sync_error = content.err();
        if let Err(e) = indexed {
            sync_error.get_or_insert(e);
        }
        if let Some(e) = self.failure.take().or(sync_error) {
            state = ArtifactState::Interrupted;
            detail = Some(format!(
                "capture stopped at {} bytes: {e}",
                crate::in_words::thousands(self.meta.bytes)
            ));
        }
        let source_bytes = self
            .source_bytes
            .or((self.dropped > 0).then(|| self.meta.bytes.saturating_add(self.dropped)));
        if let Some(of) = source_bytes
            && state != ArtifactState::Interrupted
        {
            // Stopped at the limit: the copy holds the first bytes of its source, and says so.
            state = ArtifactState::Interrupted;
            let dropped = of.saturating_sub(self.meta.bytes);
            let words = self.limit.words(Some(dropped));
            detail = Some(match detail {
                Some(d) => format!("{d}; {words}"),
                None => words,
            });
            let coverage = crate::envelope::Coverage {
                first_bytes: Some(crate::envelope::FirstBytes {
                    kept: self.meta.bytes,
                    of,
                }),
                ..self.meta.source.coverage()
            };
            self.meta.source.coverage = Some(coverage.settled());
        }
        self.meta.tokens = Some(total.tokens);
        self.meta.tokens_estimated = total.estimated;
        self.meta.binary = crate::utf8::looks_binary(&self.head[..self.head.len().min(SNIFF)]);
        self.meta.hash = Some(format!("{:032x}", self.hasher.finish_128()));
        self.meta.state = state;
        self.meta.capture_detail = detail;
        // Just made: as recent as a copy just read (eviction leaves it alone a while).
        self.meta.last_read_at = crate::clock::now_ms();
        if let Some(version) = version {
            self.meta.source.version = version;
        }
        if !self.streams.is_empty() {
            let path = self.store.streams_path(&self.meta.reference);
            let written = crate::store::create_private(&path)
                .and_then(|mut f| std::io::Write::write_all(&mut f, &self.streams));
            if let Err(e) = written {
                // A full disk: the content stays whole; only which stream each byte came
                // from is lost, and the answer says so (regression: this left the artifact
                // `capturing` for ever).
                let _ = std::fs::remove_file(&path);
                self.meta.state = ArtifactState::Interrupted;
                self.meta.capture_detail = Some(format!(
                    "{}{}which bytes came from stdout and which from stderr could not be kept: {e}",
                    self.meta.capture_detail.as_deref().unwrap_or(""),
                    if self.meta.capture_detail.is_some() {
                        "; "
                    } else {
                        ""
                    }
                ));
            }
        }
        // Pinned before it is in place: no eviction, here or in another process, takes it
        // before the answer about it opens it (the lock is the file's, across the rename).
        let pin = std::fs::File::open(&self.partial_path)
            .ok()
            .and_then(|f| super::pin::shared(f).ok());
        let final_path = self.store.content_path(&self.meta.reference);
        super::recovery::CrashPoint::SealBeforeRename.reached();
        std::fs::rename(&self.partial_path, &final_path).map_err(|e| Error::io(&final_path, e))?;
        super::recovery::CrashPoint::SealAfterRename.reached();
        if let Err(e) = self.store.save_meta_synced(&self.meta) {
            if !e.is_disk_full() {
                return Err(e);
            }
            // The content is in place; its row could not say so. Put it back where a later
            // `gc` (with space again) finds it and seals it, and say so.
            let _ = std::fs::rename(&final_path, &self.partial_path);
            return Err(Error::StoreFull {
                reference: self.meta.reference.clone(),
                bytes: self.meta.bytes,
                cause: e.to_string(),
            });
        }
        if let Some(pin) = pin {
            self.store.hold_pin(&self.meta.reference, pin);
        }
        // Expiry and the quota are kept as artifacts arrive, not only by `spool gc`.
        if let Err(e) = self.store.gc_keeping(Some(&self.meta.reference)) {
            tracing::warn!(error = %e, "could not apply expiry and the quota");
        }
        if let Some(upload) = self.upload.take() {
            // Waits only for what the live upload has not sent yet (the last chunk, the index
            // and the final manifest): nothing is reported complete that is not stored.
            let outcome = upload.finish(self.store, &self.meta);
            self.meta.share_failure = outcome.as_ref().err().map(ToString::to_string);
            self.store.record_share(&self.meta.reference, outcome);
        }
        Ok(self.meta.clone())
    }
}

impl Drop for ArtifactWriter<'_> {
    fn drop(&mut self) {
        if self.scanner.is_some() {
            let detail = Some("the capture ended before it was finished".to_owned());
            if let Err(e) = self.seal(ArtifactState::Cancelled, detail, || (None, None)) {
                tracing::warn!(reference = %self.meta.reference, error = %e, "could not seal an unfinished artifact");
            }
        }
    }
}
