//! How much of one output the store keeps. Every capture (a command's output, a file's copy, a
//! fetched page, a wrapped answer) is bounded before it is written: the operator's limit
//! (`SPOOL_CAPTURE_LIMIT`, default 512 MiB), at most half the store's quota, and never more than
//! the disk has free less a reserve for the store's own records. Regression (issue 58): a
//! `read` of a 100 GB sparse file wrote 1.07 GB until the disk was full, and `run head -c 3G
//! /dev/zero` stored 1,005 MB against a 100 MB quota in 3 s; past the limit a capture now
//! keeps its first bytes, drops the rest, and says so. A capture bounded by the disk first
//! makes room by evicting the least recently read copies, as the quota does (`gc.rs`): a full
//! disk leaves the store working.

use std::path::Path;

use crate::numbers::human_bytes;

/// The operator's limit when none is set.
pub const DEFAULT_CAPTURE_LIMIT: u64 = 512 << 20;

/// Free space left to the store's own records (its database, indexes, audit) when a capture
/// is bounded by the disk: 32 MiB, or an eighth of a smaller file system.
const RESERVE: u64 = 32 << 20;

/// The reserve on the file system holding `root`.
pub(super) fn reserve(root: &Path) -> u64 {
    nix::sys::statvfs::statvfs(root).map_or(RESERVE, |s| {
        RESERVE.min(s.blocks().saturating_mul(s.fragment_size()) / 8)
    })
}

/// The most one capture keeps, and what set it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaptureLimit {
    pub bytes: u64,
    pub by: LimitBy,
}

/// What bounds a capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitBy {
    /// The operator's `SPOOL_CAPTURE_LIMIT`, or its default.
    Configured,
    /// Half the store's quota (`SPOOL_QUOTA`): one output never fills the store alone.
    Quota(u64),
    /// The disk's free space, less the reserve.
    Disk { free: u64 },
}

impl CaptureLimit {
    /// The limit of a capture in the store at `root` that holds `already` bytes: the
    /// operator's (unset: the default, at most half the quota), or what it holds and the
    /// disk's free space less the reserve.
    pub fn now(root: &Path, configured: Option<u64>, quota: u64, already: u64) -> Self {
        let mut limit = match configured {
            Some(bytes) => Self {
                bytes,
                by: LimitBy::Configured,
            },
            None if quota / 2 < DEFAULT_CAPTURE_LIMIT => Self {
                bytes: quota / 2,
                by: LimitBy::Quota(quota),
            },
            None => Self {
                bytes: DEFAULT_CAPTURE_LIMIT,
                by: LimitBy::Configured,
            },
        };
        if let Some(free) = free_bytes(root) {
            let on_disk = already.saturating_add(free.saturating_sub(reserve(root)));
            if on_disk < limit.bytes {
                limit = Self {
                    bytes: on_disk,
                    by: LimitBy::Disk { free },
                };
            }
        }
        limit
    }

    /// Why the capture stopped, for its note: the limit, what set it, and how many bytes more
    /// were not kept (`dropped`, when known).
    pub fn words(self, dropped: Option<u64>) -> String {
        let why = match self.by {
            LimitBy::Configured => format!(
                "the store keeps at most {} of one output (`SPOOL_CAPTURE_LIMIT`)",
                human_bytes(self.bytes)
            ),
            LimitBy::Quota(quota) => format!(
                "the store keeps at most half its quota of {} (`SPOOL_QUOTA`) of one output",
                human_bytes(quota)
            ),
            LimitBy::Disk { free } => format!(
                "the disk had {} free, less what is kept for the store's records",
                human_bytes(free)
            ),
        };
        let more = dropped.map_or(String::new(), |d| {
            format!("; {} more were not kept", human_bytes(d))
        });
        format!(
            "the capture stopped at {}: {why}{more}. For the rest, ask for less at once: a command that prints the part wanted (filtered with grep, cut with head, tail or sed)",
            human_bytes(self.bytes)
        )
    }
}

impl CaptureLimit {
    /// The words of a capture stopped because the disk had no more room, even after the
    /// least recently read copies were evicted: said as the disk's error is.
    pub fn disk_full_words(self) -> String {
        let free = match self.by {
            LimitBy::Disk { free } => format!(
                " ({} free, less what is kept for the store's records)",
                human_bytes(free)
            ),
            _ => String::new(),
        };
        format!("the disk is full{free}")
    }
}

/// Bytes free to an unprivileged writer on the file system holding `root`.
pub(super) fn free_bytes(root: &Path) -> Option<u64> {
    let s = nix::sys::statvfs::statvfs(root).ok()?;
    Some(s.blocks_available().saturating_mul(s.fragment_size()))
}
