//! The audit on a shared store: each machine ships its rows to the bucket in batches (after
//! every CLI command, and every few seconds from a server), so `spool audit` against the shared
//! store shows the answers given on every machine.

use rusqlite::params;

use super::{AuditRow, SharedRow, row};
use crate::error::Result;
use crate::store::Store;

/// Rows shipped in one object at most.
const BATCH: usize = 5_000;

/// Ships the rows recorded here since the last shipment; how many were shipped. Nothing to do
/// without a shared store.
pub fn ship(store: &Store) -> Result<usize> {
    let Some(remote) = store.remote() else {
        return Ok(0);
    };
    let machine = store.machine_name();
    let mut shipped = 0;
    loop {
        let rows: Vec<SharedRow> = {
            let conn = store.conn();
            let mut stmt = conn.prepare(
                "SELECT * FROM audit
                 WHERE id > (SELECT COALESCE(MAX(last_id), 0) FROM audit_shipped)
                 ORDER BY id ASC LIMIT ?1",
            )?;
            let found = stmt.query_map([BATCH as i64], |r| {
                let mut row = row(r)?;
                row.machine = Some(machine.clone());
                Ok(SharedRow {
                    row,
                    at_ms: r.get("at")?,
                })
            })?;
            found.collect::<rusqlite::Result<_>>()?
        };
        let Some(last) = rows.last() else {
            return Ok(shipped);
        };
        remote.ship_audit(&machine, &rows)?;
        store.conn().execute(
            // Two shippers of one home (a server's thread, a command's end) never move it back.
            "INSERT INTO audit_shipped (id, last_id) VALUES (1, ?1)
             ON CONFLICT (id) DO UPDATE SET last_id = MAX(last_id, excluded.last_id)",
            params![last.row.id],
        )?;
        shipped += rows.len();
    }
}

/// Newest first, each answer once (a batch shipped twice by racing processes counts once).
pub(super) fn merge(mut rows: Vec<SharedRow>) -> Vec<AuditRow> {
    rows.sort_by(|a, b| {
        (b.at_ms, &b.row.machine, b.row.id).cmp(&(a.at_ms, &a.row.machine, a.row.id))
    });
    rows.dedup_by(|a, b| a.row.machine == b.row.machine && a.row.id == b.row.id);
    rows.into_iter().map(|r| r.row).collect()
}
