//! The audit's rows as data: what the audit table holds and what the shared store keeps of it.
//! Below the store, so that the store's remote (which ships them) needs nothing of the audit.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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
    pub delivered: Value,
    pub complete: bool,
    pub reason: Option<String>,
    pub duration_ms: u64,
}

/// An audit row as the shared store keeps it: which machine gave the answer, and when to the
/// millisecond (rows of several machines are merged by time).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SharedRow {
    #[serde(flatten)]
    pub row: AuditRow,
    pub at_ms: i64,
}
