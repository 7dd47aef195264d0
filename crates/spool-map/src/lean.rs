//! A tree's tags as ranking and listing hold them: every name once, for the whole tree (a large
//! tree names the same identifiers in thousands of files), and each file's definitions,
//! references and lines by the name's number.

use indexmap::IndexSet;

use crate::tags::FileTags;

/// The names of a tree: each identifier (and each kind of definition) once, by number.
#[derive(Default)]
pub struct Names(IndexSet<Box<str>>);

impl Names {
    /// The number of `name`, kept if new.
    pub fn id(&mut self, name: &str) -> u32 {
        if let Some(at) = self.0.get_index_of(name) {
            return at as u32;
        }
        self.0.insert_full(name.into()).0 as u32
    }

    /// The number of `name`, if the tree names it.
    pub fn find(&self, name: &str) -> Option<u32> {
        self.0.get_index_of(name).map(|at| at as u32)
    }

    pub fn get(&self, id: u32) -> &str {
        self.0.get_index(id as usize).map_or("", |n| n)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }
}

/// One file's tags, names by number.
pub struct Lean {
    pub items: Vec<LeanItem>,
    /// (name, how often) of the names it refers to, and of the methods it calls on values.
    pub refs: Vec<(u32, u32)>,
    pub methods: Vec<(u32, u32)>,
}

/// A definition or a block, as [`crate::tags::Item`], its name and kind by number.
pub struct LeanItem {
    pub name: Option<u32>,
    pub kind: u32,
    pub line: u32,
    pub span: u32,
    pub parent: Option<u32>,
    pub private: bool,
    pub text: Box<str>,
}

impl Lean {
    /// `tags`, its names numbered in `names`.
    pub fn of(tags: FileTags, names: &mut Names) -> Self {
        let items = tags
            .items
            .into_iter()
            .map(|it| LeanItem {
                name: it.name.as_deref().map(|n| names.id(n)),
                kind: names.id(&it.kind),
                line: it.line,
                span: it.span,
                parent: it.parent,
                private: it.private,
                text: it.text.into_boxed_str(),
            })
            .collect();
        let mut numbered = |list: Vec<(String, u32)>| -> Vec<(u32, u32)> {
            list.into_iter().map(|(n, c)| (names.id(&n), c)).collect()
        };
        Self {
            refs: numbered(tags.refs),
            methods: numbered(tags.methods),
            items,
        }
    }

    /// The definitions (the items with a name): (index, item, name).
    pub fn defs(&self) -> impl Iterator<Item = (usize, &LeanItem, u32)> {
        self.items
            .iter()
            .enumerate()
            .filter_map(|(i, it)| it.name.map(|n| (i, it, n)))
    }
}
