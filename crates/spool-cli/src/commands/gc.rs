//! `spool gc`

use spool_core::render::{human_bytes, thousands};
use spool_core::{Error, Store};

use crate::cli::GcArgs;
use crate::output;

pub fn gc(store: &Store, args: &GcArgs) -> Result<u8, Error> {
    let report = store.gc()?;
    if args.common.json {
        output::json(&report);
    } else {
        output::text(&format!(
            "gc: {} expired by age, {} evicted for space, {} freed; {} kept (quota {}).",
            thousands(report.expired),
            thousands(report.evicted),
            human_bytes(report.freed_bytes),
            human_bytes(report.kept_bytes),
            human_bytes(store.config().quota_bytes),
        ));
    }
    Ok(0)
}
