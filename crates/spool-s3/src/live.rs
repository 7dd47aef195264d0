//! Publishing an artifact while it is written: each chunk as soon as it fills, and every second
//! or so a manifest saying `capturing` with the bytes stored so far (the growing end as a tail
//! object), so another machine reads output that is still growing and is told it is.
//!
//! The capture never waits for the bucket: it hands its progress over and goes on; a thread of
//! the upload's own does the requests. When the artifact is sealed, only what was not sent yet
//! (the last chunk, the index, the final manifest) is uploaded before the answer.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use spool_core::Store;
use spool_core::envelope::ArtifactState;
use spool_core::store::{ArtifactMeta, Progress, Upload};

use crate::layout::{self, ChunkInfo, Manifest, TailInfo};
use crate::{CHUNK, S3Error, SharedStore, Versioned};

/// How often the thread looks at the capture's progress when no chunk has filled.
const POLL: Duration = Duration::from_millis(250);
/// The least time between two manifests of a growing capture.
const PUBLISH_EVERY: Duration = Duration::from_secs(1);
/// The tail is sent again at most at this many bytes per second of waiting: a slow capture
/// does not re-upload a large growing end every second.
const TAIL_BYTES_PER_SECOND: f64 = (1 << 20) as f64;
/// A manifest is refreshed at least this often while the capture runs (readers on other
/// machines call a capture stopped when it goes unchanged for `stale_after`).
const HEARTBEAT: Duration = Duration::from_secs(10);

struct Signal {
    /// The latest progress, and whether the artifact is being sealed.
    state: Mutex<(Progress, bool)>,
    wake: Condvar,
}

/// What the thread has stored in the bucket so far.
#[derive(Default)]
struct Uploaded {
    chunks: Vec<ChunkInfo>,
    manifest: Option<Versioned>,
    tail: Option<TailInfo>,
    /// The first request that failed: nothing more is sent, and the manifest (if any) stays
    /// `capturing`, never complete-looking.
    failure: Option<S3Error>,
}

pub(crate) struct LiveUpload {
    store: SharedStore,
    reference: String,
    signal: Arc<Signal>,
    thread: Option<JoinHandle<Uploaded>>,
}

impl LiveUpload {
    pub(crate) fn start(
        store: &SharedStore,
        local: &Store,
        meta: &ArtifactMeta,
    ) -> Result<Self, S3Error> {
        let partial = local.partial_file(&meta.reference);
        // Opened now: the handle stays valid when the sealed file is renamed into place.
        let content = File::open(&partial).map_err(|e| S3Error::Local {
            what: format!("the capture {}", partial.display()),
            cause: e.to_string(),
        })?;
        let signal = Arc::new(Signal {
            state: Mutex::new((Progress::default(), false)),
            wake: Condvar::new(),
        });
        let worker = Worker {
            store: store.clone(),
            meta: meta.clone(),
            content,
            index: local.index_file(&meta.reference),
            heartbeat: HEARTBEAT.min(store.stale_after / 3),
        };
        let waiting = Arc::clone(&signal);
        let thread = spool_walk::workers::spawn(&format!("upload-{}", meta.reference), move || {
            worker.run(&waiting)
        })
        .map_err(|e| S3Error::Local {
            what: "an upload thread".into(),
            cause: e.to_string(),
        })?;
        Ok(Self {
            store: store.clone(),
            reference: meta.reference.clone(),
            signal,
            thread: Some(thread),
        })
    }

    fn stop(&mut self) -> Uploaded {
        if let Ok(mut state) = self.signal.state.lock() {
            state.1 = true;
        }
        self.signal.wake.notify_one();
        self.thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default()
    }

    fn seal(mut self, local: &Store, meta: &ArtifactMeta) -> Result<(), S3Error> {
        let mut up = self.stop();
        let visible = up.manifest.as_ref().map(|m| m.manifest.bytes);
        let attempt = match (up.failure.take(), up.manifest.take()) {
            (Some(failure), _) => Err(failure),
            // Finished before anything was published: one upload of the whole.
            (None, None) => return self.store.publish(local, &self.reference).map(|_| ()),
            (None, Some(read)) => self.complete(local, meta, up, &read),
        };
        let Err(cause) = attempt else {
            return Ok(());
        };
        // One more try, of the whole: a passing outage during a long capture need not keep it
        // off the shared store (the `capturing` manifest there is replaced, never a finished one).
        match self.store.publish(local, &self.reference) {
            Ok(_) => Ok(()),
            Err(_) => Err(S3Error::Stopped {
                visible,
                cause: Box::new(cause),
            }),
        }
    }

    /// Uploads what the thread had not sent, then the final manifest over the `capturing` one.
    fn complete(
        &self,
        local: &Store,
        meta: &ArtifactMeta,
        mut up: Uploaded,
        read: &Versioned,
    ) -> Result<(), S3Error> {
        let reader = local.inspect_artifact(&self.reference)?;
        self.store.put_rest(&reader, &mut up.chunks)?;
        self.store.put_index(local, &self.reference, None)?;
        let manifest = Manifest::of(meta, CHUNK, up.chunks);
        self.store
            .update_manifest(&self.reference, read, &manifest)?;
        if let Some(tail) = up.tail {
            self.store.delete_quietly(&self.reference, &tail.name);
        }
        Ok(())
    }
}

impl Upload for LiveUpload {
    fn progress(&self, progress: Progress) {
        let Ok(mut state) = self.signal.state.lock() else {
            return;
        };
        let filled = progress.bytes / CHUNK > state.0.bytes / CHUNK;
        state.0 = progress;
        drop(state);
        if filled {
            self.signal.wake.notify_one();
        }
    }

    fn finish(self: Box<Self>, local: &Store, meta: &ArtifactMeta) -> spool_core::Result<()> {
        self.seal(local, meta).map_err(S3Error::into_core)
    }
}

impl Drop for LiveUpload {
    fn drop(&mut self) {
        if self.thread.is_some() {
            self.stop();
        }
    }
}

struct Worker {
    store: SharedStore,
    meta: ArtifactMeta,
    content: File,
    index: PathBuf,
    heartbeat: Duration,
}

impl Worker {
    fn run(self, signal: &Signal) -> Uploaded {
        let mut up = Uploaded::default();
        let mut last_publish = Instant::now();
        loop {
            let (progress, sealing) = {
                let Ok(mut state) = signal.state.lock() else {
                    return up;
                };
                if !state.1 {
                    state = match signal.wake.wait_timeout(state, POLL) {
                        Ok((state, _)) => state,
                        Err(_) => return up,
                    };
                }
                *state
            };
            if sealing {
                return up;
            }
            if up.failure.is_some() {
                continue;
            }
            if let Err(e) = self.step(&mut up, progress, &mut last_publish) {
                tracing::warn!(reference = %self.meta.reference, error = %e, "the live upload stopped");
                up.failure = Some(e);
            }
        }
    }

    fn step(
        &self,
        up: &mut Uploaded,
        progress: Progress,
        last_publish: &mut Instant,
    ) -> Result<(), S3Error> {
        let reference = &self.meta.reference;
        let full = (progress.bytes / CHUNK) as usize;
        while up.chunks.len() < full {
            let first = up.chunks.len();
            let batch = (first..full.min(first + crate::PARALLEL_PUTS))
                .map(|n| self.read(n as u64 * CHUNK, CHUNK))
                .collect::<Result<Vec<_>, _>>()?;
            up.chunks
                .extend(self.store.put_chunks(reference, first, batch)?);
            if let Some(read) = &up.manifest
                && last_publish.elapsed() >= self.heartbeat
            {
                // A long run of chunks: tell readers the capture is alive before naming them.
                let mut alive = read.manifest.clone();
                alive.updated_at = Some(spool_core::clock::now_ms());
                up.manifest = Some(self.store.update_manifest(reference, read, &alive)?);
                *last_publish = Instant::now();
            }
        }
        let published = up.manifest.as_ref().map(|m| m.manifest.bytes);
        let tail_len = progress.bytes - up.chunks.len() as u64 * CHUNK;
        let wait = PUBLISH_EVERY + Duration::from_secs_f64(tail_len as f64 / TAIL_BYTES_PER_SECOND);
        let since = last_publish.elapsed();
        let due = match published {
            None => since >= PUBLISH_EVERY,
            Some(bytes) => progress.bytes > bytes && since >= wait || since >= self.heartbeat,
        };
        if due {
            self.publish(up, progress)?;
            *last_publish = Instant::now();
        }
        Ok(())
    }

    /// A `capturing` manifest for the bytes up to `progress`, after the tail and the index it
    /// names are stored.
    fn publish(&self, up: &mut Uploaded, progress: Progress) -> Result<(), S3Error> {
        let reference = &self.meta.reference;
        let full = up.chunks.len() as u64 * CHUNK;
        let tail_len = progress.bytes - full;
        let same_tail = up
            .tail
            .as_ref()
            .is_some_and(|t| t.name == layout::tail_name(progress.bytes));
        let tail = if tail_len == 0 {
            None
        } else if same_tail {
            up.tail.clone()
        } else {
            let bytes = self.read(full, tail_len)?;
            let name = layout::tail_name(progress.bytes);
            let xxh3 = layout::hash(&bytes);
            self.store.put_raw(reference, &name, bytes)?;
            Some(TailInfo {
                name,
                bytes: tail_len,
                xxh3,
            })
        };
        self.store
            .put_index_file(&self.index, reference, Some(progress.bytes))?;
        let mut manifest = Manifest::of(&self.meta, CHUNK, up.chunks.clone());
        manifest.state = ArtifactState::Capturing;
        manifest.bytes = progress.bytes;
        manifest.lines = progress.lines;
        manifest.chars = progress.chars;
        manifest.tokens = None;
        manifest.hash = None;
        manifest.tail.clone_from(&tail);
        up.manifest = Some(match &up.manifest {
            Some(read) => self.store.update_manifest(reference, read, &manifest)?,
            None => self.store.create_manifest(reference, &manifest)?,
        });
        if let Some(old) = std::mem::replace(&mut up.tail, tail)
            && up.tail.as_ref().is_none_or(|t| t.name != old.name)
        {
            // Readers that still hold the manifest naming it look the new one up.
            self.store.delete_quietly(reference, &old.name);
        }
        Ok(())
    }

    fn read(&self, at: u64, len: u64) -> Result<Vec<u8>, S3Error> {
        let mut buf = vec![0u8; len as usize];
        self.content
            .read_exact_at(&mut buf, at)
            .map_err(|e| S3Error::Local {
                what: format!("the capture of `{}`", self.meta.reference),
                cause: e.to_string(),
            })?;
        Ok(buf)
    }
}
