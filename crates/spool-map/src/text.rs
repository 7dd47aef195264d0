//! The map in words: one block per file, its first line the file's path (and what became of
//! it), then the definitions it lists, each with its line number and the line that names it,
//! under the blocks they sit in. A block's first line never starts with a space and the lines
//! under it always do: pages end between blocks, and a page counts its files by their first
//! lines.

use std::collections::{BTreeMap, HashSet};

use spool_core::render::{human_bytes, thousands};

use crate::lean::Lean;

/// A file's definitions, best first: one item per name (the one spanning most lines, so a body
/// wins over a prototype), the names the agent asked about first, then by rank (a private
/// definition at a tenth of its rank: what other code may use comes first), the earlier line
/// first among equals.
pub fn ranked(tags: &Lean, rank_of: impl Fn(u32) -> f64, focus: &HashSet<u32>) -> Vec<Ranked> {
    let mut by_name: BTreeMap<u32, usize> = BTreeMap::new();
    for (i, item, name) in tags.defs() {
        by_name
            .entry(name)
            .and_modify(|best| {
                if item.span > tags.items[*best].span {
                    *best = i;
                }
            })
            .or_insert(i);
    }
    let mut names: Vec<Ranked> = by_name
        .into_iter()
        .map(|(name, item)| {
            let rank = rank_of(name);
            Ranked {
                item,
                rank: if tags.items[item].private {
                    rank * 0.1
                } else {
                    rank
                },
                focus: focus.contains(&name),
            }
        })
        .collect();
    names.sort_by(|a, b| {
        b.focus
            .cmp(&a.focus)
            .then(b.rank.total_cmp(&a.rank))
            .then(tags.items[a.item].line.cmp(&tags.items[b.item].line))
    });
    names
}

/// One name a file defines, and its rank.
#[derive(Debug, Clone, Copy)]
pub struct Ranked {
    /// The item that defines it.
    pub item: usize,
    pub rank: f64,
    /// The agent asked about it.
    pub focus: bool,
}

/// The first `limit` of a file's ranked definitions (`None`: all), to list by line.
pub fn choose(tags: &Lean, ranked: &[Ranked], limit: Option<usize>) -> Chosen {
    let take = limit.unwrap_or(usize::MAX).min(ranked.len());
    let mut items: Vec<usize> = ranked[..take].iter().map(|r| r.item).collect();
    items.sort_unstable_by_key(|i| (tags.items[*i].line, *i));
    Chosen {
        items,
        total: ranked.len(),
    }
}

/// What a file lists of its definitions.
pub struct Chosen {
    /// The items listed, by line.
    pub items: Vec<usize>,
    /// How many distinct names it defines.
    pub total: usize,
}

/// The block of a mapped file: its path, how many definitions it lists of how many, then the
/// lines, each block a definition sits in shown above it.
pub fn mapped_block(path: &str, tags: &Lean, chosen: &Chosen) -> String {
    let mut shown: Vec<usize> = Vec::new();
    let mut seen = HashSet::new();
    for &i in &chosen.items {
        let mut at = Some(i);
        while let Some(j) = at {
            if seen.insert(j) {
                shown.push(j);
            }
            at = tags.items[j].parent.map(|p| p as usize);
        }
    }
    shown.sort_unstable_by_key(|i| (tags.items[*i].line, *i));
    shown.dedup_by_key(|i| tags.items[*i].line);
    let listed = chosen.items.len();
    let header = match (listed, chosen.total) {
        (_, 0) => format!("{} (no definitions)\n", one_line(path)),
        (l, t) if l == t => format!(
            "{} ({} {})\n",
            one_line(path),
            thousands(t as u64),
            if t == 1 { "definition" } else { "definitions" }
        ),
        (l, t) => format!(
            "{} ({} of {} definitions)\n",
            one_line(path),
            thousands(l as u64),
            thousands(t as u64)
        ),
    };
    let width = shown
        .iter()
        .map(|i| tags.items[*i].line.to_string().len())
        .max()
        .unwrap_or(1);
    let mut out = header;
    for i in shown {
        let item = &tags.items[i];
        out.push_str(&format!("  {:>width$}: {}\n", item.line, item.text));
    }
    out
}

/// The one line of a file the map lists without definitions, and why.
pub fn listed_line(path: &str, why: &Why) -> String {
    let why = match why {
        Why::NoDefinitions => "no definitions".to_owned(),
        Why::NoGrammar => "no grammar".to_owned(),
        Why::Binary => "binary".to_owned(),
        Why::TooLarge(bytes) => format!("too large: {}", human_bytes(*bytes)),
        Why::Unparsable => "unparsable".to_owned(),
        Why::Unreadable => "unreadable".to_owned(),
        Why::NotParsed => "not parsed in time".to_owned(),
    };
    format!("{} ({why})\n", one_line(path))
}

/// Why a file is listed by name alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    NoDefinitions,
    NoGrammar,
    Binary,
    TooLarge(u64),
    Unparsable,
    Unreadable,
    NotParsed,
}

/// A path on one line of its own that does not start with a space: control characters are
/// shown escaped, and a leading space as `\x20`.
fn one_line(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for (i, c) in path.chars().enumerate() {
        if i == 0 && c == ' ' {
            out.push_str("\\x20");
        } else if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lean::Names;
    use crate::tags::{FileTags, Item};

    fn item(name: Option<&str>, line: u32, span: u32, text: &str, parent: Option<u32>) -> Item {
        Item {
            name: name.map(str::to_owned),
            kind: "function".into(),
            line,
            span,
            text: text.into(),
            parent,
            private: false,
        }
    }

    fn lean(tags: FileTags) -> (Lean, Names) {
        let mut names = Names::default();
        (Lean::of(tags, &mut names), names)
    }

    #[test]
    fn a_block_lists_the_best_definitions_under_their_blocks() {
        let (tags, names) = lean(FileTags {
            items: vec![
                item(Some("Store"), 3, 2, "pub struct Store {", None),
                item(None, 10, 40, "impl Store {", None),
                item(Some("open"), 12, 5, "    pub fn open() -> Store {", Some(1)),
                item(Some("close"), 120, 5, "    pub fn close(self) {", Some(1)),
                item(Some("helper"), 200, 3, "fn helper() {", None),
            ],
            ..FileTags::default()
        });
        let rank = |n: u32| match names.get(n) {
            "open" => 0.5,
            "close" => 0.3,
            "Store" => 0.1,
            _ => 0.0,
        };
        let chosen = choose(&tags, &ranked(&tags, rank, &HashSet::new()), Some(2));
        assert_eq!(chosen.total, 4);
        assert_eq!(
            mapped_block("src/store.rs", &tags, &chosen),
            "src/store.rs (2 of 4 definitions)\n   10: impl Store {\n   12:     pub fn open() -> Store {\n  120:     pub fn close(self) {\n"
        );
        // A focus name is listed whatever its rank.
        let focus = HashSet::from([names.find("helper").unwrap()]);
        let chosen = choose(&tags, &ranked(&tags, rank, &focus), Some(1));
        assert_eq!(
            mapped_block("src/store.rs", &tags, &chosen),
            "src/store.rs (1 of 4 definitions)\n  200: fn helper() {\n"
        );
    }

    #[test]
    fn a_prototype_and_its_body_are_one_name_and_the_body_is_shown() {
        let (tags, _) = lean(FileTags {
            items: vec![
                item(Some("run"), 2, 1, "int run(void);", None),
                item(Some("run"), 9, 12, "int run(void) {", None),
            ],
            ..FileTags::default()
        });
        let chosen = choose(&tags, &ranked(&tags, |_| 0.0, &HashSet::new()), None);
        assert_eq!(
            mapped_block("a.c", &tags, &chosen),
            "a.c (1 definition)\n  9: int run(void) {\n"
        );
    }

    #[test]
    fn every_path_is_one_line_that_does_not_start_with_a_space() {
        assert_eq!(
            listed_line("docs/a\nb.md", &Why::NoGrammar),
            "docs/a\\nb.md (no grammar)\n"
        );
        assert!(!listed_line(" x.rs", &Why::Binary).starts_with(' '));
        assert_eq!(
            listed_line("big.rs", &Why::TooLarge(3 << 20)),
            "big.rs (too large: 3.0 MiB)\n"
        );
    }
}
