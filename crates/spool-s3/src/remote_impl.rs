//! The core's `Remote`: what the local store asks of the shared one.

use spool_core::Store;

use crate::{S3Error, SharedStore, live};

impl spool_core::store::Remote for SharedStore {
    fn publish(&self, store: &Store, reference: &str) -> spool_core::Result<()> {
        SharedStore::publish(self, store, reference)
            .map(|_| ())
            .map_err(S3Error::into_core)
    }

    fn begin(
        &self,
        store: &Store,
        meta: &spool_core::store::ArtifactMeta,
    ) -> spool_core::Result<Box<dyn spool_core::store::Upload>> {
        live::LiveUpload::start(self, store, meta)
            .map(|u| Box::new(u) as Box<dyn spool_core::store::Upload>)
            .map_err(S3Error::into_core)
    }

    fn find(
        &self,
        reference: &str,
    ) -> spool_core::Result<Option<spool_core::store::RemoteArtifact>> {
        let Some(found) = self.manifest(reference).map_err(S3Error::into_core)? else {
            return Ok(None);
        };
        if found.manifest.state == spool_core::envelope::ArtifactState::Expired {
            // A tombstone: what it was, no content to read.
            return Ok(Some(spool_core::store::RemoteArtifact {
                meta: found.manifest.to_meta(self.stale_after, found.modified_ms),
                index: Vec::new(),
                chunk_size: found.manifest.chunk_size,
            }));
        }
        let key = self.key(reference, "index");
        let mut index = self
            .get_whole(&key)
            .map_err(|e| self.unavailable(&e).into_core())?
            .to_vec();
        let manifest = found.manifest;
        // A growing capture's index may already be newer than the manifest read before it.
        index.truncate(spool_core::store::index::prefix_within(
            &index,
            manifest.bytes,
        ));
        if let Ok(mut m) = self.manifests.lock() {
            m.insert(reference.to_owned(), manifest.clone());
        }
        Ok(Some(spool_core::store::RemoteArtifact {
            meta: manifest.to_meta(self.stale_after, found.modified_ms),
            index,
            chunk_size: manifest.chunk_size,
        }))
    }

    fn look(&self, reference: &str) -> spool_core::Result<Option<spool_core::store::ArtifactMeta>> {
        Ok(self
            .manifest(reference)
            .map_err(S3Error::into_core)?
            .map(|found| found.manifest.to_meta(self.stale_after, found.modified_ms)))
    }

    fn chunk(&self, reference: &str, n: u64, min_len: u64) -> spool_core::Result<Vec<u8>> {
        let known = self
            .manifests
            .lock()
            .ok()
            .and_then(|m| m.get(reference).cloned());
        let manifest = match known {
            Some(m) => m,
            None => {
                self.manifest(reference)
                    .map_err(S3Error::into_core)?
                    .ok_or_else(|| spool_core::Error::NotFound {
                        reference: reference.to_owned(),
                    })?
                    .manifest
            }
        };
        self.chunk_at_least(reference, &manifest, n as usize, min_len)
            .map_err(S3Error::into_core)
    }

    fn gc(&self) -> spool_core::Result<u64> {
        SharedStore::gc(self).map_err(S3Error::into_core)
    }

    fn secret(&self) -> spool_core::Result<[u8; 32]> {
        self.cursor_secret().map_err(S3Error::into_core)
    }

    fn ship_audit(
        &self,
        machine: &str,
        rows: &[spool_core::audit::SharedRow],
    ) -> spool_core::Result<()> {
        self.ship_audit_rows(machine, rows)
            .map_err(S3Error::into_core)
    }

    fn audit_recent(&self, limit: usize) -> spool_core::Result<Vec<spool_core::audit::SharedRow>> {
        self.audit_rows_recent(limit).map_err(S3Error::into_core)
    }

    fn audit_of(&self, reference: &str) -> spool_core::Result<Vec<spool_core::audit::SharedRow>> {
        self.audit_rows_of(reference).map_err(S3Error::into_core)
    }
}
