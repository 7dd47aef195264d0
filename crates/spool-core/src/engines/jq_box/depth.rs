//! How deep a JSON text nests, found before it is parsed: a parser and a jq program recurse once
//! a level, so 14 KB of `[` is enough to end a process that parses it on a thread's stack. One
//! pass over the bytes (strings skipped, escapes honoured) says where the text passes the
//! deepest nesting spool parses, and the input is refused there with the place named.

/// The deepest nesting parsed (jq parses 10,000; real data rarely passes 100).
pub const MAX_DEPTH: usize = 10_000;

/// Where `bytes` first nests deeper than `max`: (byte offset, 1-based line).
pub fn too_deep(bytes: &[u8], max: usize) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut line = 1usize;
    for (at, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            line += 1;
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Some((at, line));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_is_counted_outside_strings_only() {
        assert_eq!(too_deep(b"[[[1]]]", 3), None);
        assert_eq!(too_deep(b"[[[[1]]]]", 3), Some((3, 1)));
        assert_eq!(too_deep(br#"["[[[[[\"[[[[", {"a": [1]}]"#, 3), None);
        assert_eq!(too_deep(b"[]\n[[[[]]]]", 3), Some((6, 2)));
        // A string that never ends hides what follows: the parser refuses it instead.
        assert_eq!(too_deep(b"\"[[[[[[", 3), None);
    }
}
