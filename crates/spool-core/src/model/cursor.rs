//! Opaque, tamper-evident cursors.
//!
//! A cursor is `base64url(json payload) "." base64url(hmac-sha256(payload)[..16])`, keyed with
//! the store's secret (the shared store's, when one is set, so cursors continue on every machine
//! using it). The payload names what it pages (kind, ref, a digest of the query), so a cursor
//! never validates against another artifact, another query or another store.

use crate::calls::ToolName;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::Sha256;

use crate::dialect::Words;
use crate::error::{Error, Result};

const TAG_LEN: usize = 16;

/// Where a cursor's keys come from (the store: its own secret, or the shared store's): the
/// key that signs, and every key a cursor may have been signed with.
pub trait Keys {
    fn signing_secret(&self) -> &[u8; 32];
    fn verifying_secrets(&self) -> Vec<&[u8; 32]>;
}

fn mac(key: &[u8; 32]) -> Hmac<Sha256> {
    // HMAC takes keys of any length; 32 bytes cannot fail.
    <Hmac<Sha256> as KeyInit>::new_from_slice(key).unwrap_or_else(|_| unreachable!())
}

/// Signs a payload into a cursor string.
pub fn seal<T: Serialize>(store: &impl Keys, payload: &T) -> String {
    let json = serde_json::to_vec(payload).unwrap_or_default();
    let mut m = mac(store.signing_secret());
    m.update(&json);
    let tag = m.finalize().into_bytes();
    format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(&json),
        URL_SAFE_NO_PAD.encode(&tag[..TAG_LEN])
    )
}

fn invalid(why: &str) -> Error {
    Error::invalid_words(
        format!("the cursor is not valid: {why}").into(),
        Words::text("start again without ")
            .arg(ToolName::Search, "cursor")
            .then(", or pass the `next_cursor` of the previous answer unchanged"),
    )
}

/// Checks a cursor's signature and decodes its payload.
pub fn open<T: DeserializeOwned>(store: &impl Keys, cursor: &str) -> Result<T> {
    let (body, tag) = cursor
        .split_once('.')
        .ok_or_else(|| invalid("it was not issued by spool"))?;
    let json = URL_SAFE_NO_PAD
        .decode(body)
        .map_err(|_| invalid("it was not issued by spool"))?;
    let tag = URL_SAFE_NO_PAD
        .decode(tag)
        .map_err(|_| invalid("it was not issued by spool"))?;
    if tag.len() != TAG_LEN {
        return Err(invalid("it was altered, or it was issued by another store"));
    }
    let genuine = store.verifying_secrets().into_iter().any(|key| {
        let mut m = mac(key);
        m.update(&json);
        m.verify_truncated_left(&tag).is_ok()
    });
    if !genuine {
        return Err(invalid("it was altered, or it was issued by another store"));
    }
    serde_json::from_slice(&json).map_err(|_| invalid("it was issued for another kind of list"))
}

pub use crate::refs::digest;

/// The error for a genuine cursor presented with the wrong list or query.
pub fn mismatch(what: &str) -> Error {
    invalid(&format!("it was issued for {what}"))
}
