//! What a stored copy holds of its source (CONTRACT.md, "Coverage"): the whole of it, or part,
//! and the call that reaches the rest. Every claim of completeness an answer makes is about
//! the stored copy; this says what the copy is of its source, so that "searched all 1,047
//! lines" over a page kept as its main content, or over an upstream's first page of five, is
//! never read as "searched the whole page" or "the whole list".
//!
//! Regressions (issue 38): a page kept as its main content said so only on its first fetch,
//! and every later read and search of it said "the whole stored copy"; an upstream's answer
//! of 1,000 items of 5,000 was paged by spool to its end with `has_more: false`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::NextCall;

/// What a stored copy holds of its source. Typed; its words are written at the edge, by the
/// renderer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Coverage {
    /// The copy holds all of its source (a page: all a reader of it sees).
    pub whole: bool,
    /// A page kept as its main content only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub main_content: Option<MainContent>,
    /// Elements the page hides until a reader opens them (tab panels, accordions, `hidden`,
    /// `display:none`), kept in the copy between `[hidden on the page]` and
    /// `[end of hidden part]`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub hidden_kept: u64,
    /// One page of an upstream's answer that says more exist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_page: Option<UpstreamPage>,
    /// The first bytes of the source only: the store keeps at most so much of one output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_bytes: Option<FirstBytes>,
    /// The call that reaches the rest of the source, runnable as printed (`fetch` with
    /// `format` raw, the upstream's tool with its cursor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest: Option<NextCall>,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Default for Coverage {
    fn default() -> Self {
        Self::whole()
    }
}

impl Coverage {
    /// The whole of the source.
    pub fn whole() -> Self {
        Self {
            whole: true,
            main_content: None,
            hidden_kept: 0,
            upstream_page: None,
            first_bytes: None,
            rest: None,
        }
    }

    /// Whether something of the source is not in the copy.
    pub fn leaves_out(&self) -> bool {
        !self.whole
    }

    /// This coverage with `whole` derived from what it says is left out.
    #[must_use]
    pub fn settled(mut self) -> Self {
        self.whole = self.main_content.is_none()
            && self.upstream_page.is_none()
            && self.first_bytes.is_none();
        if self.whole {
            self.rest = None;
        }
        self
    }
}

/// A copy of the first bytes of its source: the store's limit for one output was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FirstBytes {
    /// The bytes kept: the limit.
    pub kept: u64,
    /// The source's bytes, all of them (an output's, as far as it was read).
    pub of: u64,
}

/// The element a page marks as its main content, kept alone, and the share of the page's
/// text it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MainContent {
    /// `main`, `[role=main]` or `article`.
    pub element: String,
    pub text_percent: u8,
}

/// One page of an upstream's answer: what the upstream said that means more exist, and
/// where this page stands in its list when that is known.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UpstreamPage {
    /// The upstream's own words for it, by key as it sent them (`{"nextCursor": "abc"}`,
    /// `{"incomplete_results": true}`, `{"total_count": 5000}`).
    pub said: Map<String, Value>,
    /// The page's number in the upstream's list (1-based), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u64>,
    /// The items before this page in the upstream's list, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items_before: Option<u64>,
    /// The items this page holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<u64>,
    /// The items the upstream says its whole list holds, when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
}
