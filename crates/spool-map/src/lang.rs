//! The languages the map reads definitions of: which grammar a file's name picks, and the query
//! that finds its definitions and references. The queries (`queries/*.scm`) are written for the
//! map: a pattern captures a definition (`@definition.KIND`) and its name (`@name`), the block
//! a definition sits in (`@scope`: a Rust `impl`, shown above its methods), or a name where it
//! refers to a definition (`@reference`: a call, a type, an import; not a variable).

use std::path::Path;
use std::sync::OnceLock;

use tree_sitter::{Language, Query};

/// The kind of a block whose definitions the map does not list (a Rust trait's `impl`).
pub const HIDES: &str = "!";

/// A language the map parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    Rust,
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Go,
    Java,
    C,
    Cpp,
}

/// A grammar made ready: the language, its definitions query, and what each capture means.
pub struct Grammar {
    pub language: Language,
    pub query: Query,
    /// The capture of a definition's name.
    pub name: u32,
    /// The capture of a reference, and of a method called on a value (`x.open()`: which type's
    /// `open` is not known).
    pub reference: Option<u32>,
    pub method: Option<u32>,
    /// The capture of a plain name that refers to something when it is in upper case
    /// ([`Lang::upper_refers`]): checked in code, a regex predicate would run on every name.
    pub upper: Option<u32>,
    /// For each capture index: the kind of definition it marks (`function`, `class`, ...),
    /// `Some("")` for a scope, [`HIDES`] for a scope whose definitions are not listed, `None`
    /// for a name or a reference.
    pub kinds: Vec<Option<String>>,
}

impl Lang {
    pub const ALL: [Lang; 9] = [
        Lang::Rust,
        Lang::Python,
        Lang::JavaScript,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::Go,
        Lang::Java,
        Lang::C,
        Lang::Cpp,
    ];

    /// The language of a file, by its extension (`.h` reads as C++, as Universal Ctags reads it:
    /// the C++ grammar parses C headers too).
    pub fn of(path: &Path) -> Option<Lang> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "rs" => Lang::Rust,
            "py" | "pyi" | "pyw" => Lang::Python,
            "js" | "mjs" | "cjs" | "jsx" => Lang::JavaScript,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "go" => Lang::Go,
            "java" => Lang::Java,
            "c" => Lang::C,
            "cc" | "cpp" | "cxx" | "c++" | "h" | "hh" | "hpp" | "hxx" | "h++" | "inl" | "ipp"
            | "tpp" => Lang::Cpp,
            _ => return None,
        })
    }

    /// Its name, as the parse cache keys it.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::JavaScript => "javascript",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::Go => "go",
            Lang::Java => "java",
            Lang::C => "c",
            Lang::Cpp => "cpp",
        }
    }

    fn language(self) -> Language {
        match self {
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
            Lang::C => tree_sitter_c::LANGUAGE.into(),
            Lang::Cpp => tree_sitter_cpp::LANGUAGE.into(),
        }
    }

    /// Whether a plain name in upper case refers to a definition: a constant or a macro in
    /// Rust, C and C++ (`MAX_LEN`), any name starting upper case elsewhere (a class, a type, an
    /// exported Go name).
    pub fn upper_refers(self, name: &str) -> bool {
        let mut chars = name.chars();
        let Some(first) = chars.next() else {
            return false;
        };
        match self {
            Lang::Rust | Lang::C | Lang::Cpp => {
                first.is_ascii_uppercase()
                    && name.len() > 1
                    && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            }
            _ => first.is_uppercase(),
        }
    }

    /// The text of its query.
    pub fn query_source(self) -> &'static str {
        match self {
            Lang::Rust => include_str!("queries/rust.scm"),
            Lang::Python => include_str!("queries/python.scm"),
            Lang::JavaScript => include_str!("queries/javascript.scm"),
            Lang::TypeScript | Lang::Tsx => include_str!("queries/typescript.scm"),
            Lang::Go => include_str!("queries/go.scm"),
            Lang::Java => include_str!("queries/java.scm"),
            Lang::C => include_str!("queries/c.scm"),
            Lang::Cpp => include_str!("queries/cpp.scm"),
        }
    }

    fn index(self) -> usize {
        Self::ALL.iter().position(|l| *l == self).unwrap_or(0)
    }

    /// The grammar, made once per process; `None` (and logged) if its query does not compile
    /// against the grammar, which a test rules out for every language.
    pub fn grammar(self) -> Option<&'static Grammar> {
        static GRAMMARS: [OnceLock<Option<Grammar>>; 9] = [const { OnceLock::new() }; 9];
        GRAMMARS[self.index()]
            .get_or_init(|| match self.make() {
                Ok(g) => Some(g),
                Err(e) => {
                    tracing::error!(lang = self.name(), error = %e, "the map's query does not compile");
                    None
                }
            })
            .as_ref()
    }

    /// Compiles the query against the grammar.
    pub fn make(self) -> Result<Grammar, String> {
        let language = self.language();
        let query = Query::new(&language, self.query_source()).map_err(|e| e.to_string())?;
        let mut name = None;
        let mut reference = None;
        let mut method = None;
        let mut upper = None;
        let kinds = query
            .capture_names()
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if c.starts_with('_') {
                    // A capture a predicate tests, nothing more.
                    None
                } else if *c == "name" {
                    name = Some(i as u32);
                    None
                } else if *c == "reference" {
                    reference = Some(i as u32);
                    None
                } else if *c == "reference.method" {
                    method = Some(i as u32);
                    None
                } else if *c == "reference.upper" {
                    upper = Some(i as u32);
                    None
                } else if *c == "scope" {
                    Some(String::new())
                } else if *c == "scope.hides" {
                    Some(HIDES.to_owned())
                } else {
                    Some(c.strip_prefix("definition.").unwrap_or(c).to_owned())
                }
            })
            .collect();
        let name = name.ok_or("the query captures no @name")?;
        Ok(Grammar {
            language,
            query,
            name,
            reference,
            method,
            upper,
            kinds,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_compiles_against_its_grammar() {
        for lang in Lang::ALL {
            let g = lang
                .make()
                .unwrap_or_else(|e| panic!("{}: {e}", lang.name()));
            assert!(g.kinds.iter().flatten().any(|k| !k.is_empty()));
            assert!(g.reference.is_some(), "{}", lang.name());
            assert!(g.method.is_some(), "{}", lang.name());
        }
    }

    #[test]
    fn files_pick_their_grammar_by_extension() {
        assert_eq!(Lang::of(Path::new("src/a.rs")), Some(Lang::Rust));
        assert_eq!(Lang::of(Path::new("A.JAVA")), Some(Lang::Java));
        assert_eq!(Lang::of(Path::new("x/y.h")), Some(Lang::Cpp));
        assert_eq!(Lang::of(Path::new("app.tsx")), Some(Lang::Tsx));
        assert_eq!(Lang::of(Path::new("README.md")), None);
        assert_eq!(Lang::of(Path::new("Makefile")), None);
    }
}
