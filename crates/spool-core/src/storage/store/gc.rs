//! Expiry and the quota: artifacts whose time has come lose their content and keep a
//! tombstone; past the quota the least recently read are evicted (and say so when read).

use rusqlite::{OptionalExtension as _, params};
use serde::Serialize;

use super::Store;
use super::meta::ArtifactMeta;
use crate::clock;
use crate::envelope::ArtifactState;
use crate::error::Result;

/// What `gc` did.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct GcReport {
    /// Captures whose process had died, sealed with what reached the disk.
    pub recovered: u64,
    /// Artifacts the store has no row of (or only a tombstone), whose files were still on
    /// disk: what a power cut can leave (see `store/orphans.rs`). Removed by [`Store::gc`].
    pub orphans: u64,
    pub expired: u64,
    pub evicted: u64,
    pub freed_bytes: u64,
    pub kept_bytes: u64,
}

impl Store {
    /// Deletes the content and keeps the row as a tombstone: the row says so first, then the
    /// content goes. Content someone is reading is left (false): a later pass takes it.
    /// `for_space`: the quota evicts it (the tombstone says when), rather than its time to live
    /// running out.
    pub(super) fn expire(&self, meta: &mut ArtifactMeta, for_space: bool) -> Result<bool> {
        let lock = match super::pin::try_evict(&self.content_path(&meta.reference)) {
            super::pin::Evict::InUse => return Ok(false),
            super::pin::Evict::Free(lock) => lock,
        };
        let evicted_at = for_space.then(clock::now_ms);
        self.conn().execute(
            "UPDATE artifacts SET state = 'expired', evicted_at = ?2 WHERE ref = ?1",
            params![&meta.reference, evicted_at],
        )?;
        meta.evicted_at = evicted_at;
        self.remove_content(&meta.reference);
        drop(lock);
        meta.state = ArtifactState::Expired;
        Ok(true)
    }

    /// Evicts `reference` to make room: forgotten here when the shared store still has it (a
    /// later read fetches it again), else expired. Its bytes, or `None` when it is being read.
    fn evict_for_space(&self, reference: &str) -> Result<Option<u64>> {
        let mut meta = self.meta(reference)?;
        if self.in_shared_store(reference)? {
            self.forget(reference)?;
        } else if !self.expire(&mut meta, true)? {
            return Ok(None);
        }
        Ok(Some(meta.bytes))
    }

    /// Evicts the least recently read copies (never `keep`, nor one pinned or being read)
    /// until the disk has `wanted` bytes free beyond the store's reserve, deleting them at
    /// once: a capture bounded by the disk makes room as the quota would. Regression (issue
    /// 58): once the disk was full, every later capture of every process kept nothing.
    pub(crate) fn make_room(&self, wanted: u64, keep: &str) -> Result<()> {
        let enough = wanted.saturating_add(super::limit::reserve(&self.root));
        // Futile when all the store could evict would not make the room: the disk is full of
        // what is not the store's, and the copies stay.
        let evictable: i64 = self.conn().query_row(
            "SELECT COALESCE(SUM(bytes), 0) FROM artifacts WHERE state NOT IN ('expired', 'capturing')
             AND ref NOT IN (SELECT ref FROM remote_chunks) AND ref != ?1",
            params![keep],
            |r| r.get(0),
        )?;
        let free = super::limit::free_bytes(&self.root).unwrap_or(0);
        if free.saturating_add(u64::try_from(evictable).unwrap_or(0)) < enough {
            return Ok(());
        }
        let mut in_use: Vec<String> = Vec::new();
        while super::limit::free_bytes(&self.root).is_some_and(|free| free < enough) {
            let oldest: Option<String> = self
                .conn()
                .query_row(
                    "SELECT ref FROM artifacts WHERE state NOT IN ('expired', 'capturing')
                     AND ref NOT IN (SELECT ref FROM remote_chunks) AND ref != ?1
                     AND ref NOT IN (SELECT value FROM json_each(?2))
                     ORDER BY last_read_at ASC LIMIT 1",
                    params![
                        keep,
                        serde_json::to_string(&in_use).unwrap_or_else(|_| "[]".into())
                    ],
                    |r| r.get(0),
                )
                .optional()?;
            let Some(reference) = oldest else { break };
            if self.evict_for_space(&reference)?.is_none() {
                in_use.push(reference);
                continue;
            }
            // Deleted now, not in the background: the space is what is wanted.
            self.empty_trash();
        }
        Ok(())
    }

    /// Applies expiry and the quota now, removes the files no artifact names any more, and
    /// deletes what they removed before returning.
    pub fn gc(&self) -> Result<GcReport> {
        let mut report = self.gc_keeping(None)?;
        self.sweep_recovery_locks();
        let swept = self.sweep_orphans()?;
        report.orphans = swept.artifacts;
        report.freed_bytes += swept.bytes;
        self.empty_trash();
        Ok(report)
    }

    /// Applies expiry and the quota, never evicting `keep` (the artifact just written, which
    /// may alone be larger than the quota: it stays, and the others make room).
    pub(crate) fn gc_keeping(&self, keep: Option<&str>) -> Result<GcReport> {
        self.expire_pins();
        let now = clock::now_ms();
        let mut report = GcReport::default();
        let due: Vec<String> = {
            let conn = self.conn();
            let mut stmt = conn.prepare(
                "SELECT ref FROM artifacts WHERE state NOT IN ('expired', 'capturing') AND expires_at <= ?1",
            )?;
            stmt.query_map([now], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?
        };
        for reference in due {
            let mut meta = self.meta(&reference)?;
            if self.expire(&mut meta, false)? {
                report.freed_bytes += meta.bytes;
                report.expired += 1;
            }
        }
        // Captures whose process died (killed, or stopped by a full disk) are sealed with
        // what reached the disk, instead of saying `capturing` for ever.
        let capturing: Vec<String> = {
            let conn = self.conn();
            let mut stmt = conn.prepare("SELECT ref FROM artifacts WHERE state = 'capturing'")?;
            stmt.query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?
        };
        for reference in capturing {
            if keep == Some(reference.as_str()) || self.is_read_through(&reference)? {
                continue;
            }
            let meta = self.meta(&reference)?;
            if self.recover_if_dead(&meta)? {
                report.recovered += 1;
            }
        }
        // Bytes of captures under way count too: the quota is for what is on the disk.
        let capturing = self.capturing_bytes()?;
        // Copies read through from a shared store are kept within their own bound (by the
        // chunks that arrived, not their full size); the quota is for what was made here.
        report.evicted += self.trim_cache(keep)?;
        // The least recently read go first, but never one being read or pinned now (an answer
        // about it is being built; see `store::pin`), nor one within the configured grace:
        // the quota may be passed by those rather than an answer lose its own artifact.
        let grace = i64::try_from(self.config.eviction_grace.as_millis()).unwrap_or(i64::MAX);
        let cutoff = clock::now_ms().saturating_sub(grace);
        let mut in_use: Vec<String> = Vec::new();
        loop {
            let (used, oldest): (i64, Option<String>) = self.conn().query_row(
                "SELECT (SELECT COALESCE(SUM(bytes), 0) FROM artifacts WHERE state NOT IN ('expired', 'capturing')
                         AND ref NOT IN (SELECT ref FROM remote_chunks)),
                        (SELECT ref FROM artifacts WHERE state NOT IN ('expired', 'capturing')
                         AND ref NOT IN (SELECT ref FROM remote_chunks)
                         AND ref != ?1 AND last_read_at < ?2
                         AND ref NOT IN (SELECT value FROM json_each(?3))
                         ORDER BY last_read_at ASC LIMIT 1)",
                params![
                    keep.unwrap_or(""),
                    cutoff,
                    serde_json::to_string(&in_use).unwrap_or_else(|_| "[]".into())
                ],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            let used = (used as u64).saturating_add(capturing);
            report.kept_bytes = used;
            let Some(reference) = oldest else { break };
            if used <= self.config.quota_bytes {
                break;
            }
            let Some(freed) = self.evict_for_space(&reference)? else {
                in_use.push(reference);
                continue;
            };
            report.freed_bytes += freed;
            report.evicted += 1;
        }
        Ok(report)
    }
}
