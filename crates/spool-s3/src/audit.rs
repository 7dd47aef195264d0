//! Audit rows in the bucket. Each batch a machine ships is stored twice: once in the machine's
//! log (`audit/MACHINE/LASTAT-FIRST-LAST.jsonl`, the newest found by name without reading the
//! others) and, split by artifact, beside each artifact (`artifacts/REF/audit/...`), so the
//! audit of one ref reads only its own rows.

use object_store::path::Path;
use object_store::{ObjectStoreExt, PutPayload};
use spool_core::audit::SharedRow;

use crate::{S3Error, SharedStore};

impl SharedStore {
    pub(crate) fn ship_audit_rows(&self, machine: &str, rows: &[SharedRow]) -> Result<(), S3Error> {
        let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
            return Ok(());
        };
        let span = format!("{:012}-{:012}", first.row.id, last.row.id);
        let log = self
            .root
            .clone()
            .join("audit")
            .join(machine)
            .join(format!("{:013}-{span}.jsonl", last.at_ms));
        self.put_at(&log, jsonl(rows.iter())?)?;
        let mut refs: Vec<&str> = rows
            .iter()
            .filter_map(|r| r.row.reference.as_deref())
            .collect();
        refs.sort_unstable();
        refs.dedup();
        for reference in refs {
            let of_ref = rows
                .iter()
                .filter(|r| r.row.reference.as_deref() == Some(reference));
            let key = self
                .key(reference, "audit")
                .join(format!("{machine}-{span}.jsonl"));
            self.put_at(&key, jsonl(of_ref)?)?;
        }
        Ok(())
    }

    /// The newest `limit` rows of every machine: the logs' objects are read newest first (by
    /// the time in their names) until no unread object can hold a newer row.
    pub(crate) fn audit_rows_recent(&self, limit: usize) -> Result<Vec<SharedRow>, S3Error> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let mut objects: Vec<(i64, Path)> = Vec::new();
        let machines = self.list_dir(&self.root.clone().join("audit"))?;
        for machine in machines.common_prefixes {
            for object in self.list_dir(&machine)?.objects {
                let newest = object
                    .location
                    .filename()
                    .and_then(|n| n.split('-').next())
                    .and_then(|t| t.parse::<i64>().ok());
                if let Some(newest) = newest {
                    objects.push((newest, object.location));
                }
            }
        }
        objects.sort_by_key(|o| std::cmp::Reverse(o.0));
        let mut rows: Vec<SharedRow> = Vec::new();
        for (newest, location) in objects {
            if rows.len() >= limit {
                let mut times: Vec<i64> = rows.iter().map(|r| r.at_ms).collect();
                times.sort_unstable_by_key(|t| std::cmp::Reverse(*t));
                if times.get(limit - 1).is_some_and(|&cut| newest < cut) {
                    break;
                }
            }
            rows.extend(self.read_rows(&location)?);
        }
        Ok(rows)
    }

    pub(crate) fn audit_rows_of(&self, reference: &str) -> Result<Vec<SharedRow>, S3Error> {
        let dir = self
            .root
            .clone()
            .join("artifacts")
            .join(reference)
            .join("audit");
        let mut rows = Vec::new();
        for object in self.list_dir(&dir)?.objects {
            rows.extend(self.read_rows(&object.location)?);
        }
        Ok(rows)
    }

    fn list_dir(&self, dir: &Path) -> Result<object_store::ListResult, S3Error> {
        self.run(self.bucket.list_with_delimiter(Some(dir)))
            .map_err(|e| self.unavailable(&e))
    }

    fn read_rows(&self, location: &Path) -> Result<Vec<SharedRow>, S3Error> {
        let bytes = self.get_whole(location).map_err(|e| self.unavailable(&e))?;
        bytes
            .split(|&b| b == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| {
                serde_json::from_slice(line).map_err(|e| S3Error::Corrupt {
                    key: location.to_string(),
                    why: format!("an audit row is not valid: {e}"),
                })
            })
            .collect()
    }

    fn put_at(&self, key: &Path, bytes: Vec<u8>) -> Result<(), S3Error> {
        self.run(self.bucket.put(key, PutPayload::from(bytes)))
            .map(|_| ())
            .map_err(|e| self.unavailable(&e))
    }
}

fn jsonl<'a>(rows: impl Iterator<Item = &'a SharedRow>) -> Result<Vec<u8>, S3Error> {
    let mut out = Vec::new();
    for row in rows {
        serde_json::to_writer(&mut out, row).map_err(|e| S3Error::Local {
            what: "an audit row".into(),
            cause: e.to_string(),
        })?;
        out.push(b'\n');
    }
    Ok(out)
}
