//! Bytes as lowercase hexadecimal, as digests are written (a file's SHA-256, a git blob id).

use std::fmt::Write as _;

/// `prefix`, then `bytes` as lowercase hex, two digits each.
pub fn hex(prefix: &str, bytes: &[u8]) -> String {
    let mut s = String::with_capacity(prefix.len() + bytes.len() * 2);
    s.push_str(prefix);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_lowercase_digits_a_byte() {
        assert_eq!(super::hex("", &[0x00, 0x0f, 0xab, 0xff]), "000fabff");
        assert_eq!(super::hex("sha256:", &[0x01]), "sha256:01");
        assert_eq!(super::hex("p:", &[]), "p:");
    }
}
