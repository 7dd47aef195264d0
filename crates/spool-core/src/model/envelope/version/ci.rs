//! The version of a CI job's log: which run, which attempt of it, which job, at which commit,
//! and how the job ended when the log was fetched.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ViewOf;

/// A GitHub Actions job's log, pinned to its run and attempt.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CiVersion {
    /// `owner/name`.
    pub repo: String,
    pub run_id: u64,
    /// The attempt this log belongs to (a re-run is a new attempt under the same run id).
    pub attempt: u64,
    pub job_id: u64,
    pub job: String,
    pub head_sha: String,
    /// `success`, `failure`, ...; written as `null` while the job runs.
    #[serde(default)]
    pub conclusion: Option<String>,
    pub fetched_at: String,
    /// The job's status when fetched: `completed`, `in_progress`, `queued`.
    pub status: String,
    /// The run's latest attempt when this log was fetched.
    pub latest_attempt: u64,
    /// The step that failed, by the job's own account of its steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_step: Option<String>,
    /// The API the log came from.
    pub api: String,
    #[serde(flatten)]
    pub view: ViewOf,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
