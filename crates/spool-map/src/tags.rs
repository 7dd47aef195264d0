//! One file read with its grammar: the definitions in it (name, kind, the line that names it,
//! and the definition or block it sits in), and every identifier it names, counted. What the
//! ranking and the map need of a file, and all the parse cache keeps of it.

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use tree_sitter::{Parser, QueryCursor, StreamingIterator as _};

use crate::lang::{Grammar, HIDES, Lang};

/// Bumped when what is kept of a file changes: the cache then parses every file again.
pub const TAGS_FORMAT: u32 = 1;

/// Signature lines longer than this many chars are cut (minified code has lines of megabytes).
const LONGEST_LINE: usize = 120;
/// Definitions of these kinds hold code whose own definitions are local to it: not listed.
const LOCAL_BODIES: [&str; 2] = ["function", "method"];
/// Identifiers longer than this are not counted as references (generated blobs).
const LONGEST_IDENT: usize = 100;

/// What the map keeps of one parsed file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FileTags {
    /// Definitions and the blocks they sit in, in the order they start.
    pub items: Vec<Item>,
    /// The names the file refers to (in calls, types, paths, imports; its definitions' own
    /// names left out), and how often.
    pub refs: Vec<(String, u32)>,
    /// The methods it calls on values (`x.open()`), and how often.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<(String, u32)>,
    /// The grammar found syntax errors (the file is mapped as far as it parsed).
    pub errors: bool,
}

/// A definition, or a block definitions sit in (a Rust `impl`: no name of its own).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// The name it defines; `None` for a block.
    pub name: Option<String>,
    /// `function`, `method`, `class`, `struct`, ... (empty for a block).
    pub kind: String,
    /// The 1-based line that names it (the first line of a block).
    pub line: u32,
    /// How many lines it spans.
    pub span: u32,
    /// That line as written (indentation kept, tabs as four spaces, long lines cut).
    pub text: String,
    /// The item it sits in (an index into `items`).
    pub parent: Option<u32>,
    /// Not visible outside its file or type, by its language's rule (no `pub` in Rust, `_` in
    /// Python, lower case in Go, `private` in Java and TypeScript, `static` in C): the map lists
    /// it after what other code may use.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub private: bool,
}

#[cfg(test)]
impl FileTags {
    /// The definitions (the items with a name).
    pub fn defs(&self) -> impl Iterator<Item = (usize, &Item, &str)> {
        self.items
            .iter()
            .enumerate()
            .filter_map(|(i, it)| it.name.as_deref().map(|n| (i, it, n)))
    }
}

/// Why a file could not be mapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseFailure {
    /// The grammar found syntax errors and no definition.
    Unparsable,
    /// The parse took longer than the time it was given.
    TimedOut,
}

/// Parses `source` as `lang` and keeps what the map needs; gives up at `deadline`.
pub fn extract(lang: Lang, source: &[u8], deadline: Instant) -> Result<FileTags, ParseFailure> {
    let grammar = lang.grammar().ok_or(ParseFailure::Unparsable)?;
    let mut parser = Parser::new();
    parser
        .set_language(&grammar.language)
        .map_err(|_| ParseFailure::Unparsable)?;
    let mut late = |_: &tree_sitter::ParseState| {
        if Instant::now() >= deadline {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = tree_sitter::ParseOptions::new().progress_callback(&mut late);
    let len = source.len();
    let tree = parser
        .parse_with_options(
            &mut |at, _| if at < len { &source[at..] } else { &[][..] },
            None,
            Some(options),
        )
        .ok_or(ParseFailure::TimedOut)?;
    let root = tree.root_node();
    let gave_up = std::cell::Cell::new(false);
    let (items, refs, methods) = items(lang, grammar, root, source, deadline, &gave_up);
    if gave_up.get() {
        return Err(ParseFailure::TimedOut);
    }
    let errors = root.has_error();
    if errors && !items.iter().any(|i| i.name.is_some()) {
        // Syntax errors and nothing defined: not code this grammar reads (a template, another
        // dialect, noise), or code too broken to say what it defines.
        return Err(ParseFailure::Unparsable);
    }
    Ok(FileTags {
        items,
        refs,
        methods,
        errors,
    })
}

/// Names and how often a file names them.
type Counted = Vec<(String, u32)>;

/// A definition or block the query matched, before its parent is known.
struct Found {
    start: usize,
    end: usize,
    item: Item,
}

/// The definitions and blocks of the tree, in the order they start, each with its parent; and
/// the names it refers to, counted (a definition's own name is not a reference to it).
fn items(
    lang: Lang,
    grammar: &Grammar,
    root: tree_sitter::Node<'_>,
    source: &[u8],
    deadline: Instant,
    gave_up: &std::cell::Cell<bool>,
) -> (Vec<Item>, Counted, Counted) {
    let lines = Lines::of(source);
    let mut cursor = QueryCursor::new();
    let mut late = |_: &tree_sitter::QueryCursorState| {
        if Instant::now() >= deadline {
            gave_up.set(true);
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = tree_sitter::QueryCursorOptions::new().progress_callback(&mut late);
    let mut matches = cursor.matches_with_options(&grammar.query, root, source, options);
    let mut found: Vec<Found> = Vec::new();
    let mut seen_names: HashSet<usize> = HashSet::new();
    let mut references: HashMap<usize, &str> = HashMap::new();
    let mut methods: HashMap<usize, &str> = HashMap::new();
    while let Some(m) = matches.next() {
        let mut name = None;
        let mut def = None;
        for c in m.captures() {
            match grammar.kinds.get(c.index as usize) {
                Some(Some(kind)) => def = Some((c.node, kind.clone())),
                _ if c.index == grammar.name => name = Some(c.node),
                _ if Some(c.index) == grammar.reference
                    || Some(c.index) == grammar.method
                    || Some(c.index) == grammar.upper =>
                {
                    if let Ok(text) = c.node.utf8_text(source)
                        && !text.is_empty()
                        && text.len() <= LONGEST_IDENT
                        && (Some(c.index) != grammar.upper || lang.upper_refers(text))
                    {
                        let to = if Some(c.index) == grammar.method {
                            &mut methods
                        } else {
                            &mut references
                        };
                        to.insert(c.node.start_byte(), text);
                    }
                }
                _ => {}
            }
        }
        let Some((node, kind)) = def else { continue };
        let start = node.start_byte();
        let item = match name {
            Some(n) => {
                // Two patterns may match one definition: the first one says it.
                if !seen_names.insert(n.start_byte()) {
                    continue;
                }
                let Ok(text) = n.utf8_text(source) else {
                    continue;
                };
                Found {
                    start,
                    end: node.end_byte(),
                    item: Item {
                        name: Some(text.to_owned()),
                        kind,
                        line: n.start_position().row as u32 + 1,
                        span: (node.end_position().row - node.start_position().row) as u32 + 1,
                        text: lines.line_at(n.start_byte()),
                        parent: None,
                        private: false,
                    },
                }
            }
            None if kind.is_empty() || kind == HIDES => Found {
                start,
                end: node.end_byte(),
                item: Item {
                    name: None,
                    kind,
                    line: node.start_position().row as u32 + 1,
                    span: (node.end_position().row - node.start_position().row) as u32 + 1,
                    text: lines.line_at(start),
                    parent: None,
                    private: false,
                },
            },
            None => continue,
        };
        found.push(item);
    }
    // Outer before inner: by start, the longer first, and of two over the same code the block
    // that hides what it holds first (`mod tests`, matched as a module too, is then hidden).
    found.sort_by(|a, b| {
        a.start
            .cmp(&b.start)
            .then(b.end.cmp(&a.end))
            .then((b.item.kind == HIDES).cmp(&(a.item.kind == HIDES)))
    });
    // The blocks open at each point: where each is in `out` (none for a hidden one), where it
    // ends, and whether what it holds is hidden.
    let mut stack: Vec<(Option<u32>, usize, bool)> = Vec::new();
    let mut out: Vec<Item> = Vec::with_capacity(found.len());
    for f in found {
        while stack.last().is_some_and(|&(_, end, _)| end <= f.start) {
            stack.pop();
        }
        let hidden = stack.last().is_some_and(|&(_, _, hides)| hides) || f.item.kind == HIDES;
        if hidden {
            // Inside a function's body (local to it), a trait's implementation, or a test
            // module: not listed, nor what it holds.
            stack.push((None, f.end, true));
            continue;
        }
        let mut item = f.item;
        item.parent = stack.last().and_then(|&(at, _, _)| at);
        let parent_kind = item.parent.map(|p| out[p as usize].kind.as_str());
        item.private = item
            .name
            .as_deref()
            .is_some_and(|name| private(lang, name, &item.text, parent_kind));
        let body_is_local = LOCAL_BODIES.contains(&item.kind.as_str());
        stack.push((Some(out.len() as u32), f.end, body_is_local));
        out.push(item);
    }
    let counted = |found: HashMap<usize, &str>| {
        let mut counts: HashMap<&str, u32> = HashMap::new();
        for (at, text) in found {
            if !seen_names.contains(&at) {
                *counts.entry(text).or_default() += 1;
            }
        }
        let mut out: Vec<(String, u32)> =
            counts.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        out.sort_unstable();
        out
    };
    // A name captured both ways (a pattern for any call and one for methods) is a method call.
    references.retain(|at, _| !methods.contains_key(at));
    (out, counted(references), counted(methods))
}

/// Whether a definition is private to its file or type, by its language's rule, read off its
/// name and the line that names it.
fn private(lang: Lang, name: &str, line: &str, parent_kind: Option<&str>) -> bool {
    let line = line.trim_start();
    match lang {
        Lang::Rust => !line.starts_with("pub") && parent_kind != Some("trait"),
        Lang::Python => name.starts_with('_') && !(name.starts_with("__") && name.ends_with("__")),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
            name.starts_with('_') || name.starts_with('#') || line.starts_with("private ")
        }
        Lang::Go => name.starts_with(|c: char| c.is_lowercase()),
        Lang::Java => line.starts_with("private "),
        Lang::C | Lang::Cpp => line.starts_with("static "),
    }
}

/// Where the lines of a source start, found once: a definition's line is then a binary search,
/// not a scan (a minified file is one line of a megabyte, holding thousands of definitions).
pub struct Lines<'a> {
    source: &'a [u8],
    /// The offset of each `\n`.
    breaks: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub fn of(source: &'a [u8]) -> Self {
        Self {
            source,
            breaks: memchr::memchr_iter(b'\n', source).collect(),
        }
    }

    /// The line holding byte `at`, as the map shows it: leading tabs as four spaces, trailing
    /// space trimmed, at most [`LONGEST_LINE`] chars (a cut line ends with ` …`). In a line too
    /// long to show, the part from just before `at` (it starts with `… `).
    pub fn line_at(&self, at: usize) -> String {
        let source = self.source;
        let at = at.min(source.len());
        let k = self.breaks.partition_point(|&b| b < at);
        let start = if k == 0 { 0 } else { self.breaks[k - 1] + 1 };
        let end = self.breaks.get(k).copied().unwrap_or(source.len());
        // Enough bytes for the longest line shown: the rest is never decoded.
        let room = LONGEST_LINE * 4 + 64;
        if at - start > room {
            // Deep inside a long line: from a little before the name, on a char's first byte.
            let mut from = at.saturating_sub(40).max(start);
            while from < at && source[from] & 0xC0 == 0x80 {
                from += 1;
            }
            let raw = &source[from..end.min(from + room)];
            let text = String::from_utf8_lossy(raw);
            let kept: String = text.trim_end().chars().take(LONGEST_LINE).collect();
            return format!("… {} …", kept.trim());
        }
        let raw = &source[start..end.min(start + room)];
        let text = String::from_utf8_lossy(raw);
        let indent: String = text
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .map(|c| if c == '\t' { "    " } else { " " })
            .collect();
        let body = text.trim_start_matches([' ', '\t']).trim_end();
        let line = format!("{indent}{body}");
        let cut = raw.len() < end - start || line.chars().count() > LONGEST_LINE;
        if cut {
            let kept: String = line.chars().take(LONGEST_LINE).collect();
            format!("{} …", kept.trim_end())
        } else {
            line
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn tags(lang: Lang, src: &str) -> FileTags {
        extract(
            lang,
            src.as_bytes(),
            Instant::now() + Duration::from_secs(10),
        )
        .unwrap()
    }

    fn names(t: &FileTags) -> Vec<(&str, &str, u32)> {
        t.defs()
            .map(|(_, it, n)| (n, it.kind.as_str(), it.line))
            .collect()
    }

    #[test]
    fn rust_items_methods_under_their_impl_and_references_counted() {
        let t = tags(
            Lang::Rust,
            "pub struct Store {\n    root: PathBuf,\n}\n\nimpl Store {\n    pub fn open(p: &Path) -> Store {\n        Store { root: p.into() }\n    }\n}\n\nconst MAX: u64 = 3;\n",
        );
        assert_eq!(
            names(&t),
            [
                ("Store", "struct", 1),
                ("open", "function", 6),
                ("MAX", "constant", 11)
            ]
        );
        let open = &t.items[2];
        assert_eq!(open.text, "    pub fn open(p: &Path) -> Store {");
        let block = &t.items[open.parent.unwrap() as usize];
        assert_eq!((block.name.as_deref(), block.line), (None, 5));
        assert_eq!(block.text, "impl Store {");
        // `Store` is named three times outside its definition (its impl, a return type, a
        // struct expression); `open`'s own name is not a use, nor is the variable `p`.
        let store = t.refs.iter().find(|(n, _)| n == "Store").unwrap();
        assert_eq!(store.1, 3);
        assert!(
            !t.refs.iter().any(|(n, _)| n == "open" || n == "p"),
            "{:?}",
            t.refs
        );
        assert!(!t.errors);
    }

    #[test]
    fn every_language_finds_its_definitions() {
        let cases: [(Lang, &str, &[&str]); 9] = [
            (
                Lang::Python,
                "import os\nLIMIT = 3\nclass Store(Base):\n    def open(self):\n        return os.path\n\n@cache\ndef helper():\n    pass\n",
                &["LIMIT", "Store", "open", "helper"],
            ),
            (
                Lang::JavaScript,
                "export function load(a) { return a }\nclass Cache { get(k) { return k } }\nconst make = () => new Cache();\nmodule.exports.run = function () {};\n",
                &["load", "Cache", "get", "make", "run"],
            ),
            (
                Lang::TypeScript,
                "export interface Shape { area(): number }\ntype Id = string;\nenum Color { Red }\nexport class Circle implements Shape { area(): number { return 1 } }\nexport const unit = (x: number) => x;\n",
                &["Shape", "area", "Id", "Color", "Circle", "area", "unit"],
            ),
            (
                Lang::Tsx,
                "export function App(): JSX.Element { return <div/> }\n",
                &["App"],
            ),
            (
                Lang::Go,
                "package main\n\ntype Server struct{}\n\ntype Handler interface { Serve() }\n\nfunc (s *Server) Start() error { return nil }\n\nfunc main() {}\n\nconst Port = 80\n",
                &["Server", "Handler", "Serve", "Start", "main", "Port"],
            ),
            (
                Lang::Java,
                "package a;\npublic class Store {\n  @Override\n  public String get(int k) { return null; }\n  Store() {}\n}\ninterface Reader {}\n",
                &["Store", "get", "Store", "Reader"],
            ),
            (
                Lang::C,
                "#define MAX 3\nstruct node { int v; };\ntypedef struct node node_t;\nstatic int *find(node_t *n) { return 0; }\nint main(void);\n",
                &["MAX", "node", "node_t", "find", "main"],
            ),
            (
                Lang::Cpp,
                "namespace db {\nclass Table {\n public:\n  int rows() const;\n};\nint Table::rows() const { return 0; }\n}\n",
                &["db", "Table", "rows", "rows"],
            ),
            (
                Lang::Rust,
                "macro_rules! m { () => {} }\ntrait T { fn f(&self); }\n",
                &["m", "T", "f"],
            ),
        ];
        for (lang, src, want) in cases {
            let t = tags(lang, src);
            let got: Vec<&str> = t.defs().map(|(_, _, n)| n).collect();
            assert_eq!(got, want, "{}", lang.name());
        }
    }

    #[test]
    fn what_is_local_to_a_body_a_trait_impl_or_a_test_module_is_not_listed() {
        let t = tags(
            Lang::Rust,
            "pub fn outer() {\n    fn helper() {}\n    static CALLED: u8 = 0;\n}\nimpl Display for Store {\n    fn fmt(&self) {}\n}\n#[cfg(test)]\nmod tests {\n    fn case() {}\n}\nmod inner {\n    pub fn kept() {}\n}\n",
        );
        let got: Vec<&str> = t.defs().map(|(_, _, n)| n).collect();
        assert_eq!(got, ["outer", "inner", "kept"]);
        let py = tags(
            Lang::Python,
            "def outer():\n    def inner():\n        pass\n    return inner\nclass A:\n    def m(self):\n        def local():\n            pass\n",
        );
        let got: Vec<&str> = py.defs().map(|(_, _, n)| n).collect();
        assert_eq!(got, ["outer", "A", "m"]);
    }

    #[test]
    fn private_definitions_are_marked_by_their_language_s_rule() {
        let rust = tags(
            Lang::Rust,
            "pub fn a() {}\nfn b() {}\npub trait T { fn c(&self); }\n",
        );
        let private: Vec<(&str, bool)> = rust.defs().map(|(_, i, n)| (n, i.private)).collect();
        assert_eq!(
            private,
            [("a", false), ("b", true), ("T", false), ("c", false)]
        );
        let go = tags(Lang::Go, "package p\nfunc Open() {}\nfunc helper() {}\n");
        let private: Vec<(&str, bool)> = go.defs().map(|(_, i, n)| (n, i.private)).collect();
        assert_eq!(private, [("Open", false), ("helper", true)]);
        let py = tags(Lang::Python, "def _x(): pass\ndef __init__(): pass\n");
        let private: Vec<(&str, bool)> = py.defs().map(|(_, i, n)| (n, i.private)).collect();
        assert_eq!(private, [("_x", true), ("__init__", false)]);
    }

    #[test]
    fn a_method_called_on_a_value_is_counted_apart_from_other_references() {
        let t = tags(
            Lang::Rust,
            "fn f(s: Store) { s.open(); open(); Store::new(); MAX; let meta = 1; meta; }\n",
        );
        assert!(
            t.methods.contains(&("open".to_owned(), 1)),
            "{:?}",
            t.methods
        );
        for name in ["open", "Store", "new", "MAX"] {
            assert!(
                t.refs.iter().any(|(n, _)| n == name),
                "{name}: {:?}",
                t.refs
            );
        }
        // A variable is not a reference to anything the map lists.
        assert!(
            !t.refs.iter().any(|(n, _)| n == "meta" || n == "s"),
            "{:?}",
            t.refs
        );
    }

    #[test]
    fn a_java_method_is_shown_by_the_line_that_names_it_not_its_annotation() {
        let t = tags(
            Lang::Java,
            "class A {\n  @Override\n  public String get() { return null; }\n}\n",
        );
        let get = t.defs().find(|(_, _, n)| *n == "get").unwrap().1;
        assert_eq!(
            (get.line, get.text.as_str()),
            (3, "  public String get() { return null; }")
        );
    }

    #[test]
    fn long_lines_are_cut_and_say_so() {
        let long = format!("function f() {{ {} }}\n", "x;".repeat(1000));
        let t = tags(Lang::JavaScript, &long);
        let f = &t.items[0];
        assert!(f.text.ends_with(" …"), "{}", f.text);
        assert!(f.text.chars().count() <= LONGEST_LINE + 2);
    }

    #[test]
    fn a_definition_deep_in_a_minified_line_is_shown_where_it_is() {
        let src = (0..5000).fold(String::new(), |mut s, i| {
            s.push_str(&format!("function f{i}(){{}}"));
            s
        });
        let t = tags(Lang::JavaScript, &src);
        assert_eq!(t.defs().count(), 5000);
        let far = t.defs().find(|(_, _, n)| *n == "f4000").unwrap().1;
        assert!(far.text.starts_with("… "), "{}", far.text);
        assert!(far.text.contains("function f4000()"), "{}", far.text);
        assert!(far.text.chars().count() <= LONGEST_LINE + 4);
    }

    #[test]
    fn deep_nesting_and_garbage_do_not_break_the_walk() {
        let deep = format!("x = {}1{}\n", "[".repeat(20_000), "]".repeat(20_000));
        let t = tags(Lang::Python, &deep);
        assert_eq!(names(&t), [("x", "constant", 1)]);
        let garbage = "\u{0}\u{1}}}}}{{{{ <<<>>> ;;; ))) \n".repeat(50);
        assert_eq!(
            extract(
                Lang::Rust,
                garbage.as_bytes(),
                Instant::now() + Duration::from_secs(5)
            ),
            Err(ParseFailure::Unparsable)
        );
    }

    #[test]
    fn a_parse_past_its_deadline_gives_up() {
        let big = "fn f() { let x = 1; }\n".repeat(200_000);
        let got = extract(Lang::Rust, big.as_bytes(), Instant::now());
        assert_eq!(got, Err(ParseFailure::TimedOut));
    }
}
