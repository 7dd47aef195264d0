//! jq's output written as JSON a line, always valid JSON: jaq prints what JSON cannot say
//! (`NaN`, `Infinity`, byte strings, non-string keys, broken UTF-8) as it is, and an answer that
//! is not JSON breaks every reader of the stored copy. This writes what jq itself writes:
//! NaN as `null`, the infinities as the largest finite double, byte and broken strings as
//! strings (invalid UTF-8 replaced), a non-string key as its JSON text.
//!
//! It writes straight to the box's output, a value at a time, so a huge value is never held as
//! text as well as a value; its nesting is the value's own, bounded by the box's stack.

use std::io::{self, Write};

use jaq_json::Num;
use jaq_json::Val;

/// The largest finite double, which jq prints for infinity.
const HUGE: &str = "1.7976931348623157e+308";

/// Writes `v` as one line of compact JSON.
pub fn write_line(w: &mut dyn Write, v: &Val) -> io::Result<()> {
    write(w, v)?;
    w.write_all(b"\n")
}

fn write(w: &mut dyn Write, v: &Val) -> io::Result<()> {
    match v {
        Val::Null => w.write_all(b"null"),
        Val::Bool(true) => w.write_all(b"true"),
        Val::Bool(false) => w.write_all(b"false"),
        Val::Num(n) => number(w, n),
        Val::TStr(b) | Val::BStr(b) => string(w, b),
        Val::Arr(items) => {
            w.write_all(b"[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    w.write_all(b",")?;
                }
                write(w, item)?;
            }
            w.write_all(b"]")
        }
        Val::Obj(map) => {
            w.write_all(b"{")?;
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    w.write_all(b",")?;
                }
                match k {
                    Val::TStr(b) | Val::BStr(b) => string(w, b)?,
                    other => {
                        let mut text = Vec::new();
                        write(&mut text, other)?;
                        string(w, &text)?;
                    }
                }
                w.write_all(b":")?;
                write(w, item)?;
            }
            w.write_all(b"}")
        }
    }
}

fn number(w: &mut dyn Write, n: &Num) -> io::Result<()> {
    match n {
        Num::Float(x) if x.is_nan() => w.write_all(b"null"),
        Num::Float(x) if x.is_infinite() => {
            let sign = if *x < 0.0 { "-" } else { "" };
            write!(w, "{sign}{HUGE}")
        }
        // A number as the input spelled it: kept when it is a JSON number.
        Num::Dec(text) if !is_json_number(text) => match text.parse::<f64>() {
            Ok(x) if x.is_finite() => write!(w, "{}", Num::Float(x)),
            Ok(x) if x.is_infinite() => number(w, &Num::Float(x)),
            _ => w.write_all(b"null"),
        },
        other => write!(w, "{other}"),
    }
}

fn string(w: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
    let text = String::from_utf8_lossy(bytes);
    serde_json::to_writer(w, text.as_ref()).map_err(io::Error::other)
}

/// Whether `s` is a number as JSON spells it (`-?int frac? exp?`).
fn is_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    if b.get(i) == Some(&b'0') {
        i += 1;
    } else if !digits(&mut i) {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(v: &Val) -> String {
        let mut out = Vec::new();
        write_line(&mut out, v).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn what_json_cannot_say_is_said_as_jq_says_it() {
        assert_eq!(line(&Val::Num(Num::Float(f64::NAN))), "null\n");
        assert_eq!(
            line(&Val::Num(Num::Float(f64::NEG_INFINITY))),
            "-1.7976931348623157e+308\n"
        );
        assert_eq!(
            line(&Val::BStr(Box::new(b"a\xffb".to_vec().into()))),
            "\"a\u{fffd}b\"\n"
        );
        assert_eq!(
            line(&Val::Num(Num::Dec(jaq_json::Rc::new("1e1000".to_owned())))),
            "1e1000\n"
        );
        assert_eq!(
            line(&Val::Num(Num::Dec(jaq_json::Rc::new("NaN".to_owned())))),
            "null\n"
        );
    }

    #[test]
    fn json_numbers_are_told_from_others() {
        for ok in ["0", "-0", "1.5", "2e10", "-3.25E-7", "10"] {
            assert!(is_json_number(ok), "{ok}");
        }
        for bad in [
            "", "-", "01", "1.", ".5", "1e", "NaN", "Infinity", "+1", "0x10",
        ] {
            assert!(!is_json_number(bad), "{bad}");
        }
    }
}
