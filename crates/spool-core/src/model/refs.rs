//! Artifact refs: short, opaque, URL-safe and random.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest as _, Sha256};

use crate::error::{Error, Result};

const ALPHABET: &[u8; 32] = b"abcdefghijkmnpqrstuvwxyz23456789";
const LEN: usize = 10;

/// A fresh random ref, `sp_` and ten chars of a 32-symbol alphabet (50 bits).
pub fn new_ref() -> Result<String> {
    let mut raw = [0u8; LEN];
    getrandom::fill(&mut raw).map_err(|e| Error::Unavailable {
        what: "the system random source".into(),
        cause: e.to_string(),
    })?;
    let mut out = String::with_capacity(3 + LEN);
    out.push_str("sp_");
    for b in raw {
        out.push(ALPHABET[usize::from(b) % ALPHABET.len()] as char);
    }
    Ok(out)
}

/// True when `s` has the shape of a ref (it may still not exist).
pub fn looks_like_ref(s: &str) -> bool {
    s.strip_prefix("sp_").is_some_and(|rest| {
        !rest.is_empty()
            && rest.len() <= 64
            && rest
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    })
}

/// A short digest that identifies a query inside a cursor.
pub fn digest(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0u8]);
    }
    let out = h.finalize();
    URL_SAFE_NO_PAD.encode(&out[..12])
}

#[cfg(test)]
mod tests {
    #[test]
    fn refs_are_distinct_and_well_formed() {
        let a = super::new_ref().unwrap();
        let b = super::new_ref().unwrap();
        assert_ne!(a, b);
        assert!(super::looks_like_ref(&a));
        assert!(!super::looks_like_ref("../etc/passwd"));
        assert!(!super::looks_like_ref("sp_"));
    }
}
