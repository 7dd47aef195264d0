//! Expiry in the bucket: an artifact whose time has come becomes a tombstone (by a conditional
//! change, before anything is deleted) and its content goes; the tombstone says what it was.

use object_store::ObjectStoreExt;

use crate::{S3Error, SharedStore};

impl SharedStore {
    /// Expires `reference` in the bucket: the manifest becomes a tombstone (state `expired`,
    /// changed only from the version read) and the content and index are deleted. Returns false
    /// when the bucket has no such ref or it was already expired.
    pub fn expire(&self, reference: &str) -> Result<bool, S3Error> {
        let Some(read) = self.manifest(reference)? else {
            return Ok(false);
        };
        if read.manifest.state == spool_core::envelope::ArtifactState::Expired {
            return Ok(false);
        }
        let mut tomb = read.manifest.clone();
        tomb.state = spool_core::envelope::ArtifactState::Expired;
        // The tombstone first: no reader is sent to chunks that are being deleted.
        self.update_manifest(reference, &read, &tomb)?;
        // Everything but the tombstone and the audit rows: index, chunks, and any tail a
        // stopped capture left behind.
        let listed = self
            .run(
                self.bucket.list_with_delimiter(Some(
                    &self.root.clone().join("artifacts").join(reference),
                )),
            )
            .map_err(|e| self.unavailable(&e))?;
        let keys = listed
            .objects
            .into_iter()
            .map(|o| o.location)
            .filter(|k| k.filename() != Some("manifest.json"));
        for key in keys {
            match self.run(self.bucket.delete(&key)) {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(self.unavailable(&e)),
            }
        }
        Ok(true)
    }

    /// Applies expiry to the bucket: every artifact whose `expires_at` has passed is expired
    /// (content deleted, tombstone kept). Returns how many were.
    pub fn gc(&self) -> Result<u64, S3Error> {
        let now = spool_core::clock::now_ms();
        let listed = self
            .run(
                self.bucket
                    .list_with_delimiter(Some(&self.root.clone().join("artifacts"))),
            )
            .map_err(|e| self.unavailable(&e))?;
        let mut expired = 0;
        for prefix in listed.common_prefixes {
            let Some(reference) = prefix.filename() else {
                continue;
            };
            let reference = reference.to_owned();
            if let Some(found) = self.manifest(&reference)?
                && found.manifest.state != spool_core::envelope::ArtifactState::Expired
                && found.manifest.expires_at <= now
                && self.expire(&reference)?
            {
                expired += 1;
            }
        }
        Ok(expired)
    }
}
