//! spool's `o200k_base` encoder against tiktoken-rs's, token for token: on every source file of
//! this repository, on random text of every kind of char the pre-tokenizer tells apart (ASCII
//! and not), and on the long pieces tiktoken merges through its heap.

use proptest::prelude::*;
use spool_tokens as tokens;
use tiktoken_rs::o200k_base_singleton;

/// Checks the count and every token's end against tiktoken's.
fn same_as_tiktoken(text: &str) {
    let bpe = o200k_base_singleton();
    let want = bpe.encode_ordinary(text);
    let mut at = 0;
    let want_ends: Vec<usize> = bpe
        ._decode_native_and_split(want.clone())
        .map(|bytes| {
            at += bytes.len();
            at
        })
        .collect();
    assert_eq!(
        tokens::count(text),
        want.len() as u64,
        "count of {:?}",
        text.chars().take(200).collect::<String>()
    );
    assert_eq!(
        tokens::token_ends(text),
        want_ends,
        "token ends of {:?}",
        text.chars().take(200).collect::<String>()
    );
}

#[test]
fn every_source_file_of_this_repository_counts_as_tiktoken_counts_it() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut stack = vec![root];
    let mut checked = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if !matches!(name.as_str(), "target" | ".git" | "node_modules" | "out") {
                    stack.push(path);
                }
            } else if [
                ".rs", ".md", ".py", ".toml", ".sh", ".scm", ".snap", ".json",
            ]
            .iter()
            .any(|e| name.ends_with(e))
            {
                let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
                same_as_tiktoken(&text);
                checked += 1;
            }
        }
    }
    assert!(checked > 300, "{checked}");
}

#[test]
fn long_pieces_merge_as_tiktoken_merges_them() {
    for text in [
        "=".repeat(500),
        "-_".repeat(300),
        "aGVsbG8gd29ybGQ".repeat(40),
        "ZmlsZV9uYW1lX".repeat(80) + "/+==",
        "\u{a0}".repeat(150) + "x",
        " ".repeat(1000) + "\n\n\n",
        "🦀".repeat(60),
        "日本語のテキスト".repeat(30),
    ] {
        same_as_tiktoken(&text);
    }
}

/// Chars of every class the pre-tokenizer tells apart.
fn any_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => prop::sample::select(vec![
            'a', 'z', 'A', 'Z', 'q', 'Q', '0', '7', ' ', ' ', '\n', '\r', '\t', '\u{b}', '\u{c}',
            '\'', '"', '.', ',', '/', '-', '_', '(', ')', '{', '}', '<', '>', '=', '\u{1}', '\u{7f}',
            's', 't', 'r', 'e', 'v', 'm', 'l', 'd', 'S', 'T', 'L', 'D',
        ]),
        1 => prop::sample::select(vec![
            'é', 'É', 'ß', 'ǅ', 'ʰ', 'ـ', '日', 'テ', 'ク', 'л', 'Ж', 'α', 'Ω', '\u{301}',
            '\u{a0}', '\u{85}', '\u{2028}', '\u{3000}', '٣', '½', 'Ⅷ', '🦀', '€', '—', '\u{fffd}',
        ]),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn random_text_counts_as_tiktoken_counts_it(chars in prop::collection::vec(any_char(), 0..120)) {
        let text: String = chars.into_iter().collect();
        same_as_tiktoken(&text);
    }

    /// Lines, most of them ASCII: text that is not all ASCII is split a line at a time.
    #[test]
    fn random_lines_count_as_tiktoken_counts_them(
        lines in prop::collection::vec(
            (prop::collection::vec(any_char(), 0..30), prop::collection::vec(0u8..128, 0..30)),
            0..12,
        )
    ) {
        let text: Vec<String> = lines
            .into_iter()
            .map(|(mixed, ascii)| {
                let ascii = String::from_utf8(ascii).unwrap();
                if mixed.len() % 3 == 0 { mixed.into_iter().collect() } else { ascii }
            })
            .collect();
        same_as_tiktoken(&text.join("\n"));
    }

    #[test]
    fn random_ascii_counts_as_tiktoken_counts_it(bytes in prop::collection::vec(0u8..128, 0..200)) {
        let text = String::from_utf8(bytes).unwrap();
        same_as_tiktoken(&text);
    }
}
