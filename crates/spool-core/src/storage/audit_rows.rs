//! The audit's rows as data: what the audit table holds and what the shared store keeps of it.
//! Below the store, so that the store's remote (which ships them) needs nothing of the audit.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::envelope::Range;

/// One recorded answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AuditRow {
    /// The row's number on the machine that recorded it.
    pub id: i64,
    /// Which machine gave the answer (rows read from a shared store).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    pub at: String,
    pub tool: String,
    pub arguments: Value,
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub total: Option<Value>,
    pub delivered: Delivered,
    pub complete: bool,
    pub reason: Option<String>,
    pub duration_ms: u64,
    /// The process that gave the answer (`cli`, `serve:ROOTS`, `python:ROOTS`); absent in rows
    /// recorded before it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub made_by: Option<String>,
}

/// What an answer delivered, by kind. The JSON is the audit's `delivered` as it always was;
/// a row written by another version that fits none of these reads as `Other`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Delivered {
    /// An error: its code.
    Error {
        error: String,
    },
    /// An upstream's result relayed as it came.
    Passed {
        bytes: u64,
        passed_through: bool,
    },
    /// A page of search hits, and the line of each.
    Hits {
        hits: u64,
        lines: Vec<u64>,
    },
    /// The ranges of an envelope (a window, or a page of items), the byte spans they came from,
    /// and their sizes (tokens when they were counted).
    Ranges {
        ranges: Vec<Range>,
        byte_spans: Vec<(u64, u64)>,
        bytes: u64,
        chars: u64,
        tokens: Option<u64>,
    },
    /// What `gc` did.
    Gc {
        expired: u64,
        evicted: u64,
        freed_bytes: u64,
    },
    /// A page of a list (entries, artifacts, audit rows).
    Items {
        items: u64,
    },
    Other(Value),
}

impl Delivered {
    /// The byte spans of the artifact this answer showed.
    pub fn byte_spans(&self) -> &[(u64, u64)] {
        match self {
            Self::Ranges { byte_spans, .. } => byte_spans,
            _ => &[],
        }
    }
}

/// An audit row as the shared store keeps it: which machine gave the answer, and when to the
/// millisecond (rows of several machines are merged by time).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SharedRow {
    #[serde(flatten)]
    pub row: AuditRow,
    pub at_ms: i64,
}
