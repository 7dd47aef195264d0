//! The pieces `o200k_base` encodes one by one (its pre-tokenizer): the regex
//!
//! ```text
//! [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//! ```
//!
//! matched leftmost-first from the end of the last piece. ASCII text (logs, code) is split by
//! hand, the classes reduced to what they hold in ASCII: nothing to compile, so a process that
//! counts a window of a log pays nothing to start. Other text goes through `regex-automata`'s
//! lazy DFA, one forward automaton compiled once per process and grown only by the states the
//! text reaches (a window of 200 accented lines costs no more than an ASCII one:
//! `bench/interleave.py`, 20 rounds), the look-ahead `\s+(?!\S)` written
//! as `\s+$` and as `\s+\s` less its last char, as GitHub's `bpe-openai` writes it. Both are
//! checked against tiktoken's own splitting in this module's tests and `tests/it/encoder.rs`.

use std::cell::RefCell;
use std::sync::OnceLock;

use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::meta::Regex;
use regex_automata::nfa::thompson;
use regex_automata::{Anchored, Input, MatchKind};

/// Calls `piece` with each piece of `text`, in order; the pieces cover `text` exactly.
///
/// Text that is not all ASCII is taken a line at a time where a line's start is sure to start
/// a piece (see [`next_line_start`]): its ASCII lines are split by hand, and only the others
/// by the regex. A hit list or a log with one accented name went through the regex whole.
pub fn each_piece(text: &str, mut piece: impl FnMut(&str)) {
    if text.is_ascii() {
        ascii_pieces(text, &mut piece);
        return;
    }
    let mut start = 0;
    while start < text.len() {
        let end = next_line_start(text.as_bytes(), start);
        let part = &text[start..end];
        if part.is_ascii() {
            ascii_pieces(part, &mut piece);
        } else {
            unicode_pieces(part, &mut piece);
        }
        start = end;
    }
}

/// The first place after `from` that follows a line feed and holds a printable ASCII char
/// other than `/` (or the end of `text`). Every piece ends there: of the pattern's
/// alternatives only `[\r\n/]*`, `\s*[\r\n]+` and the space runs take a line feed, and none
/// of them takes such a char after it. Nothing before it looks past it either, so what is
/// before it splits alone as it splits in the whole text.
fn next_line_start(text: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(i) = memchr::memchr(b'\n', &text[at..]) {
        at += i + 1;
        if text
            .get(at)
            .is_none_or(|&b| b.is_ascii_graphic() && b != b'/')
        {
            return at;
        }
    }
    text.len()
}

fn ascii_pieces(text: &str, piece: &mut impl FnMut(&str)) {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let end = ascii_piece(bytes, at);
        piece(&text[at..end]);
        at = end;
    }
}

fn unicode_pieces(text: &str, piece: &mut impl FnMut(&str)) {
    let Some(dfa) = unicode_dfa() else {
        // The pattern is fixed text: a build that cannot compile it is caught by the tests.
        piece(text);
        return;
    };
    CACHE.with(|cell| match cell.try_borrow_mut() {
        Ok(mut kept) => {
            let cache = kept.get_or_insert_with(|| dfa.create_cache());
            split_unicode(dfa, cache, text, piece);
        }
        // Not reached (a piece's handler does not count text); a cache of its own if it were.
        Err(_) => split_unicode(dfa, &mut dfa.create_cache(), text, piece),
    });
}

thread_local! {
    /// The states of the lazy DFA built so far on this thread, kept for its next text.
    static CACHE: RefCell<Option<Cache>> = const { RefCell::new(None) };
}

fn split_unicode(dfa: &DFA, cache: &mut Cache, text: &str, piece: &mut impl FnMut(&str)) {
    split_by(text, piece, |input| {
        match dfa.try_search_fwd(cache, input) {
            Ok(found) => found.map(|m| (m.offset(), m.pattern().as_usize())),
            // The lazy DFA gives up only when told to (it is not): the whole regex if it did.
            Err(_) => regex_match(input),
        }
    });
}

/// Calls `piece` with each piece of `text`, where `find` gives the end of the match that starts
/// its input (anchored) and which alternative it is.
fn split_by(
    text: &str,
    piece: &mut impl FnMut(&str),
    mut find: impl FnMut(&Input<'_>) -> Option<(usize, usize)>,
) {
    let mut at = 0;
    while at < text.len() {
        let found = find(&Input::new(&text[at..]).anchored(Anchored::Yes));
        let mut end = found.map_or(text.len(), |(offset, _)| at + offset);
        if found.is_some_and(|(_, pattern)| pattern == 1) {
            // `\s+\s`: the last char is the look-ahead, left for the next piece.
            end -= text[at..end].chars().next_back().map_or(0, char::len_utf8);
        }
        if end <= at {
            // Unreachable by the pattern (every char starts a match); never loop on it.
            end = at + text[at..].chars().next().map_or(1, char::len_utf8);
        }
        piece(&text[at..end]);
        at = end;
    }
}

/// The whole regex's match at the start of `input`: its end and which alternative it is.
fn regex_match(input: &Input<'_>) -> Option<(usize, usize)> {
    let m = unicode_regex()?.find(input.clone())?;
    Some((m.end(), m.pattern().as_usize()))
}

/// The pattern's alternatives: the first of them, then `\s+\s` (its last char a look-ahead,
/// given back), then `\s+`; leftmost-first, the pattern that matched telling which.
fn patterns() -> [String; 3] {
    let first = [
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        r"\p{N}{1,3}",
        r" ?[^\s\p{L}\p{N}]+[\r\n/]*",
        r"\s*[\r\n]+",
        r"\s+$",
    ]
    .join("|");
    [first, r"\s+\s".to_owned(), r"\s+".to_owned()]
}

/// The pattern as a lazy DFA, searched forward from each piece's start (a piece's start is
/// known, so no reverse search is needed). It compiles one forward automaton: the meta regex
/// compiled a forward and a reverse one and its other engines, 13-18 ms on this project's
/// machine against 3-4 ms, paid by every CLI process that counts a line that is not ASCII.
fn unicode_dfa() -> Option<&'static DFA> {
    static DFA_: OnceLock<Option<DFA>> = OnceLock::new();
    DFA_.get_or_init(|| {
        DFA::builder()
            .configure(DFA::config().match_kind(MatchKind::LeftmostFirst))
            .thompson(thompson::Config::new().which_captures(thompson::WhichCaptures::None))
            .build_many(&patterns())
            .ok()
    })
    .as_ref()
}

/// The whole regex, for a search the lazy DFA gives up on.
fn unicode_regex() -> Option<&'static Regex> {
    static REGEX: OnceLock<Option<Regex>> = OnceLock::new();
    REGEX
        .get_or_init(|| {
            // No full DFA: the lazy one builds only the states the text reaches, where a full
            // one is built whole before the first piece.
            Regex::builder()
                .configure(Regex::config().dfa(false))
                .build_many(&patterns())
                .ok()
        })
        .as_ref()
}

/// `\s` of ASCII: tab, newline, vertical tab, form feed, carriage return, space.
fn space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
}

fn newline(b: u8) -> bool {
    matches!(b, b'\r' | b'\n')
}

/// `[^\s\p{L}\p{N}]` of ASCII: punctuation and control chars.
fn other(b: u8) -> bool {
    !space(b) && !b.is_ascii_alphanumeric()
}

/// The end of the piece that starts at `at` of ASCII `s`.
fn ascii_piece(s: &[u8], at: usize) -> usize {
    let b = s[at];
    // `[^\r\n\p{L}\p{N}]?` then letters: a word, after one char that is none of those.
    if let Some(end) = word(s, at) {
        return end;
    }
    if b.is_ascii_digit() {
        // `\p{N}{1,3}`
        let run = s[at..]
            .iter()
            .take(3)
            .take_while(|c| c.is_ascii_digit())
            .count();
        return at + run;
    }
    // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
    let from = if b == b' ' { at + 1 } else { at };
    let marks = s[from..].iter().take_while(|&&c| other(c)).count();
    if marks > 0 {
        let end = from + marks;
        return end
            + s[end..]
                .iter()
                .take_while(|&&c| newline(c) || c == b'/')
                .count();
    }
    // What is left starts with whitespace.
    let run = s[at..].iter().take_while(|&&c| space(c)).count();
    let run_end = at + run;
    // `\s*[\r\n]+`: to the last line break of the run.
    if let Some(last) = s[at..run_end].iter().rposition(|&c| newline(c)) {
        return at + last + 1;
    }
    // `\s+(?!\S)`: the run, less its last space when a non-space follows it.
    if run_end == s.len() || run == 1 {
        return run_end.max(at + 1);
    }
    run_end - 1
}

/// The end of a word starting at `at`: the first two alternatives of the pattern.
fn word(s: &[u8], at: usize) -> Option<usize> {
    let b = s[at];
    let start = if b.is_ascii_alphabetic() {
        at
    } else if !newline(b) && !b.is_ascii_digit() {
        // One char before the letters: a space, a mark, a tab (the optional prefix).
        at + 1
    } else {
        return None;
    };
    let upper = s[start..]
        .iter()
        .take_while(|c| c.is_ascii_uppercase())
        .count();
    let lower = s[start + upper..]
        .iter()
        .take_while(|c| c.is_ascii_lowercase())
        .count();
    // `[A-Z]*[a-z]+`, else `[A-Z]+[a-z]*`: either way the letters end here, if there are any.
    if upper + lower == 0 {
        return None;
    }
    let end = start + upper + lower;
    Some(end + contraction(&s[end..]))
}

/// The length of `(?i:'s|'t|'re|'ve|'m|'ll|'d)` at the start of `s`, or 0.
fn contraction(s: &[u8]) -> usize {
    if s.first() != Some(&b'\'') {
        return 0;
    }
    let lower = |i: usize| s.get(i).map(u8::to_ascii_lowercase);
    match (lower(1), lower(2)) {
        (Some(b's' | b't' | b'm' | b'd'), _) => 2,
        (Some(b'r' | b'v'), Some(b'e')) | (Some(b'l'), Some(b'l')) => 3,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        each_piece(text, |p| out.push(p.to_owned()));
        out
    }

    #[test]
    fn ascii_is_split_as_the_pattern_splits_it() {
        let cases: [(&str, &[&str]); 10] = [
            ("hello world", &["hello", " world"]),
            ("HTTPServer isn't", &["HTTPServer", " isn't"]),
            (
                "GET /api/v1 200",
                &["GET", " /", "api", "/v", "1", " ", "200"],
            ),
            (
                "x  = 12345;\n\n  y",
                &["x", " ", " =", " ", "123", "45", ";\n\n", " ", " y"],
            ),
            ("a\t\tb", &["a", "\t", "\tb"]),
            ("end   ", &["end", "   "]),
            ("  \n  z", &["  \n", " ", " z"]),
            ("'S AND'LL it'", &["'S", " AND'LL", " it", "'"]),
            ("foo//bar\r\n", &["foo", "//", "bar", "\r\n"]),
            ("\u{1}ab", &["\u{1}ab"]),
        ];
        for (text, want) in cases {
            assert_eq!(pieces(text), want, "{text:?}");
        }
    }

    #[test]
    fn the_unicode_path_covers_the_text_and_keeps_a_space_for_the_next_word() {
        let text = "naïve café   über\n\n  日本語 テキスト";
        let got = pieces(text);
        assert_eq!(got.concat(), text);
        assert!(got.contains(&" café".to_owned()), "{got:?}");
        assert!(got.contains(&" über".to_owned()), "{got:?}");
    }

    /// The pieces of `text` as `find` ends them.
    fn pieces_by(
        text: &str,
        find: impl FnMut(&Input<'_>) -> Option<(usize, usize)>,
    ) -> Vec<String> {
        let mut out = Vec::new();
        split_by(text, &mut |p| out.push(p.to_owned()), find);
        out
    }

    proptest::proptest! {
        /// The lazy DFA ends each piece where the whole regex does, on texts of
        /// letters of each case and script, marks, digits of several scripts, spaces, line
        /// ends, apostrophes and punctuation.
        #[test]
        fn the_lazy_dfa_splits_as_the_whole_regex(
            chars in proptest::collection::vec(proptest::sample::select(vec![
                'a', 'Z', 'é', 'É', 'ß', 'ǅ', 'ʰ', '日', 'ツ', '\u{301}', '٣', '7', 'Ⅻ', ' ', '\t',
                '\n', '\r', '\u{a0}', '\u{3000}', '\'', 's', 'L', '/', '☃', '-', '"', '\u{1}',
            ]), 0..60),
        ) {
            let text: String = chars.into_iter().collect();
            let dfa = unicode_dfa().expect("the pattern compiles");
            let mut cache = dfa.create_cache();
            let by_dfa = pieces_by(&text, |input| {
                let m = dfa
                    .try_search_fwd(&mut cache, input)
                    .expect("the lazy DFA does not give up")?;
                Some((m.offset(), m.pattern().as_usize()))
            });
            let by_regex = pieces_by(&text, regex_match);
            proptest::prop_assert_eq!(by_dfa, by_regex);
        }
    }
}
