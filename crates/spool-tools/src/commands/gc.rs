//! `spool gc`

use spool_core::answer::Answer;
use spool_core::in_words::plural;
use spool_core::render::{human_bytes, thousands};
use spool_core::{Error, Store};

use crate::cli::GcArgs;
use crate::output;

pub fn gc(store: &Store, args: &GcArgs) -> Result<u8, Error> {
    // The command line's own answer, not a tool's: timed and audited like one.
    let answer = spool_core::answer::respond(store, "gc", &serde_json::json!({}), || {
        Ok(Answer::Gc(store.gc()?, store.gc_shared()?))
    })?;
    let Answer::Gc(report, shared) = answer else {
        return Ok(1);
    };
    if args.common.json {
        let mut v = serde_json::to_value(report).unwrap_or_default();
        if let (Some(s), Some(obj)) = (&shared, v.as_object_mut()) {
            obj.insert("shared_expired".into(), s.expired.into());
            obj.insert("shared_published".into(), s.published.into());
            obj.insert("shared_unpublished".into(), s.unpublished.into());
            if let Some(why) = &s.unpublished_because {
                obj.insert("shared_unpublished_because".into(), why.clone().into());
            }
            if let Some(e) = &s.error {
                obj.insert("shared_error".into(), e.clone().into());
            }
        }
        output::json(&v);
    } else {
        output::text(&format!(
            "gc: {} expired by age, {} evicted for space, {} freed; {} kept (quota {}).",
            thousands(report.expired),
            thousands(report.evicted),
            human_bytes(report.freed_bytes),
            human_bytes(report.kept_bytes),
            human_bytes(store.config().quota_bytes),
        ));
        if report.recovered > 0 {
            output::text(&format!(
                "gc: {} whose process had died sealed with what reached the disk.",
                plural(report.recovered, "capture", "captures")
            ));
        }
        if report.orphans > 0 {
            output::text(&format!(
                "gc: removed the files of {} the store has no record of (left by a power cut or a crash).",
                plural(report.orphans, "artifact", "artifacts")
            ));
        }
        if let Some(s) = shared {
            match &s.error {
                None => output::text(&format!(
                    "gc: {} expired in the shared store (content deleted, tombstones kept).",
                    thousands(s.expired)
                )),
                Some(e) => {
                    output::text(&format!("gc: expiry not applied in the shared store: {e}"));
                }
            }
            if s.published + s.unpublished > 0 {
                let still = match &s.unpublished_because {
                    Some(why) => format!("{} still not: {why}", thousands(s.unpublished)),
                    None => format!("{} still not", thousands(s.unpublished)),
                };
                output::text(&format!(
                    "gc: {} made here published to the shared store now; {still}.",
                    thousands(s.published)
                ));
            }
        }
    }
    Ok(0)
}
