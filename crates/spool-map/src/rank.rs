//! Which files and definitions matter: a `PageRank` over the graph of references, as Aider ranks
//! its repository map. Each file is a node; a file that names an identifier another file
//! defines gets an edge to it, weighted by how often it names it (its square root, so a name
//! used everywhere does not drown the rest) and by the name itself: names the agent asked
//! about count ten times, private names (`_x`) and names defined in more than five files a
//! tenth, a method called on a value (which may be any type's) a quarter. The rank then flows
//! from each file to the definitions its edges point at.

use std::collections::{HashMap, HashSet};

use crate::lean::{Lean, Names};

/// The damping of the walk: the chance a reader follows a reference rather than jumping.
const ALPHA: f64 = 0.85;
const MAX_ITERATIONS: usize = 100;
/// Names defined in more files than this (`new`, `get`, `main`) say nothing of which one is
/// meant, and pair every user with every definer (millions of edges in a large tree): they
/// draw no edges.
const MAX_DEFINERS: usize = 20;
/// The kinds of definition a method call may refer to.
const CALLABLE: [&str; 3] = ["function", "method", "macro"];
/// The weight of a method called on a value, against a name that says what it refers to.
const METHOD: f64 = 0.25;
/// The share of its file's rank a definition no other file names gets: less than any named one.
const UNNAMED: f64 = 1e-6;

/// What ranking needs of the tree.
pub struct Input<'a> {
    /// Each file's tags, by its index (`None`: not mapped).
    pub files: &'a [Option<&'a Lean>],
    pub names: &'a Names,
    /// Files the agent asked about: the walk starts from them, and what they name counts more.
    pub focus_files: &'a HashSet<usize>,
    /// Names the agent asked about.
    pub focus_names: &'a HashSet<u32>,
}

/// The rank of each file and of each of its definitions.
pub struct Ranks {
    /// By file index; they sum to 1.
    pub file: Vec<f64>,
    defs: HashMap<(u32, u32), f64>,
}

impl Ranks {
    /// The rank that flowed to the name `name` as `file` defines it.
    pub fn def(&self, file: usize, name: u32) -> f64 {
        self.defs.get(&(file as u32, name)).copied().unwrap_or(0.0)
    }
}

/// Ranks the files and definitions of `input`.
pub fn rank(input: &Input<'_>) -> Ranks {
    let n = input.files.len();
    let graph = Graph::of(input);
    // The edges are drawn twice, never stored (a large tree has millions): once summed by
    // the pair of files they join, for the walk; once to let each file's rank flow to the
    // definitions its edges point at, in proportion.
    let mut out_weight = vec![0.0; n];
    let mut pairs: HashMap<u64, f64> = HashMap::new();
    graph.each_edge(input, |src, dst, _, weight| {
        out_weight[src as usize] += weight;
        *pairs
            .entry(u64::from(src) << 32 | u64::from(dst))
            .or_default() += weight;
    });
    tracing::debug!(pairs = pairs.len(), names = input.names.len(), "graph");
    let mut links: Vec<(u32, u32, f64)> = pairs
        .into_iter()
        .map(|(k, w)| {
            (
                (k >> 32) as u32,
                k as u32,
                w / out_weight[(k >> 32) as usize],
            )
        })
        .collect();
    links.sort_unstable_by_key(|l| (l.0, l.1));
    let file = pagerank(n, &links, &out_weight, input.focus_files);
    let mut defs: HashMap<(u32, u32), f64> = HashMap::new();
    graph.each_edge(input, |src, dst, ident, weight| {
        let share = file[src as usize] * weight / out_weight[src as usize];
        *defs.entry((dst, ident)).or_default() += share;
    });
    for (&ident, definers) in &graph.defines {
        for &d in definers {
            // Never named: below everything named, by its file's rank (an edge of its own, as
            // Aider draws one, would pour the file's rank into it). Named only by its own file:
            // just above.
            let floor = if graph.references.contains_key(&ident) {
                UNNAMED * 2.0
            } else {
                UNNAMED
            };
            defs.entry((d, ident)).or_insert(file[d as usize] * floor);
        }
    }
    Ranks { file, defs }
}

/// Who defines each name (and who defines it as something to call), and who names it how often
/// (and who calls it as a method of some value).
struct Graph {
    defines: HashMap<u32, Vec<u32>>,
    callables: HashMap<u32, Vec<u32>>,
    references: HashMap<u32, Vec<(u32, u32)>>,
    method_calls: HashMap<u32, Vec<(u32, u32)>>,
}

impl Graph {
    fn of(input: &Input<'_>) -> Self {
        let mut g = Graph {
            defines: HashMap::new(),
            callables: HashMap::new(),
            references: HashMap::new(),
            method_calls: HashMap::new(),
        };
        let add = |map: &mut HashMap<u32, Vec<u32>>, ident: u32, f: u32| {
            let files = map.entry(ident).or_default();
            if files.last() != Some(&f) {
                files.push(f);
            }
        };
        let callable: HashSet<u32> = CALLABLE
            .iter()
            .filter_map(|k| input.names.find(k))
            .collect();
        for (f, tags) in input.files.iter().enumerate() {
            let Some(tags) = tags else { continue };
            let f = f as u32;
            for (_, item, name) in tags.defs() {
                add(&mut g.defines, name, f);
                if callable.contains(&item.kind) {
                    add(&mut g.callables, name, f);
                }
            }
            for &(name, count) in &tags.refs {
                g.references.entry(name).or_default().push((f, count));
            }
            for &(name, count) in &tags.methods {
                g.method_calls.entry(name).or_default().push((f, count));
            }
        }
        if g.references.is_empty() {
            // Nothing refers to anything (one file, or only declarations): each definition
            // counts once for its own file.
            for (ident, files) in &g.defines {
                g.references
                    .insert(*ident, files.iter().map(|f| (*f, 1)).collect());
            }
        }
        g
    }

    /// Every edge, in a fixed order (the same tree ranks the same, whatever the hash maps'):
    /// `(from, to, name, weight)`.
    fn each_edge(&self, input: &Input<'_>, mut edge: impl FnMut(u32, u32, u32, f64)) {
        let mut by_ident: Vec<(&u32, &Vec<u32>)> = self.defines.iter().collect();
        by_ident.sort_unstable_by_key(|(ident, _)| **ident);
        for (&ident, definers) in by_ident {
            let name = input.names.get(ident);
            // A method called on a value may be any type's: it refers to the functions and
            // methods of that name only, at a quarter of the weight.
            if let (Some(calls), Some(callers)) =
                (self.method_calls.get(&ident), self.callables.get(&ident))
                && callers.len() <= MAX_DEFINERS
            {
                let mul =
                    METHOD * weight_of(name, callers.len(), input.focus_names.contains(&ident));
                link(ident, calls, callers, mul, input.focus_files, &mut edge);
            }
            if let Some(users) = self.references.get(&ident)
                && definers.len() <= MAX_DEFINERS
            {
                let mul = weight_of(name, definers.len(), input.focus_names.contains(&ident));
                link(ident, users, definers, mul, input.focus_files, &mut edge);
            }
        }
    }
}

/// Draws an edge from each file that names `ident` to each file that defines it, weighted by
/// `mul`, by the square root of how often it names it, and fifty times from a focus file.
fn link(
    ident: u32,
    users: &[(u32, u32)],
    definers: &[u32],
    mul: f64,
    focus: &HashSet<usize>,
    edge: &mut impl FnMut(u32, u32, u32, f64),
) {
    for &(user, count) in users {
        let from_focus = if focus.contains(&(user as usize)) {
            50.0
        } else {
            1.0
        };
        let weight = mul * from_focus * f64::from(count).sqrt();
        // A file naming its own definitions says nothing of what the rest of the code needs
        // (a module's tests call its helpers a hundred times).
        for &d in definers.iter().filter(|&&d| d != user) {
            edge(user, d, ident, weight);
        }
    }
}

/// How much a reference to `ident` weighs, by the name itself. (Aider also weighs long
/// compound names ten times, against short names that may mean anything; here references are
/// read only where a name refers to a definition, so `Error` counts as much as `FromSqlError`.)
fn weight_of(ident: &str, definers: usize, asked: bool) -> f64 {
    let mut mul = 1.0;
    if asked {
        mul *= 10.0;
    }
    if ident.starts_with('_') {
        mul *= 0.1;
    }
    if definers > 5 {
        mul *= 0.1;
    }
    mul
}

/// `PageRank` of `n` nodes over `links` (`(from, to, share of from's weight)`, by `from`), the
/// jumps (and the rank of files that refer to nothing) going to `focus` when it is not empty,
/// else to every node alike.
fn pagerank(
    n: usize,
    links: &[(u32, u32, f64)],
    out_weight: &[f64],
    focus: &HashSet<usize>,
) -> Vec<f64> {
    if n == 0 {
        return Vec::new();
    }
    let jump: Vec<f64> = if focus.is_empty() {
        vec![1.0 / n as f64; n]
    } else {
        let share = 1.0 / focus.len() as f64;
        (0..n)
            .map(|i| if focus.contains(&i) { share } else { 0.0 })
            .collect()
    };
    let mut rank = jump.clone();
    for _ in 0..MAX_ITERATIONS {
        let mut next = vec![0.0; n];
        for &(s, d, share) in links {
            next[d as usize] += ALPHA * rank[s as usize] * share;
        }
        let dangling: f64 = (0..n)
            .filter(|&i| out_weight[i] == 0.0)
            .map(|i| rank[i])
            .sum();
        for (i, x) in next.iter_mut().enumerate() {
            *x += (ALPHA * dangling + (1.0 - ALPHA)) * jump[i];
        }
        let change: f64 = next.iter().zip(&rank).map(|(a, b)| (a - b).abs()).sum();
        rank = next;
        if change < n as f64 * 1e-6 {
            break;
        }
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tags::{FileTags, Item};

    /// A tree of files, each (definitions, references), numbered as the map numbers them.
    struct Tree {
        names: Names,
        files: Vec<Lean>,
    }

    /// A file: the names it defines, and the names it refers to with how often.
    type File<'a> = (&'a [&'a str], &'a [(&'a str, u32)]);

    impl Tree {
        fn of(files: &[File<'_>]) -> Self {
            let mut names = Names::default();
            let files = files
                .iter()
                .map(|(defs, refs)| {
                    let tags = FileTags {
                        items: defs
                            .iter()
                            .enumerate()
                            .map(|(i, d)| Item {
                                name: Some((*d).to_owned()),
                                kind: "function".into(),
                                line: i as u32 + 1,
                                span: 1,
                                text: format!("fn {d}()"),
                                parent: None,
                                private: false,
                            })
                            .collect(),
                        refs: refs.iter().map(|(n, c)| ((*n).to_owned(), *c)).collect(),
                        methods: Vec::new(),
                        errors: false,
                    };
                    Lean::of(tags, &mut names)
                })
                .collect();
            Self { names, files }
        }

        fn rank(&self, focus_files: &[usize], focus_names: &[&str]) -> Ranks {
            let files: Vec<Option<&Lean>> = self.files.iter().map(Some).collect();
            let focus_names: HashSet<u32> = focus_names
                .iter()
                .filter_map(|n| self.names.find(n))
                .collect();
            rank(&Input {
                files: &files,
                names: &self.names,
                focus_files: &focus_files.iter().copied().collect(),
                focus_names: &focus_names,
            })
        }

        fn id(&self, name: &str) -> u32 {
            self.names.find(name).unwrap()
        }
    }

    #[test]
    fn the_file_everyone_refers_to_ranks_first_and_its_used_definition_above_the_unused() {
        let t = Tree::of(&[
            (&["open_store", "unused_helper"], &[]),
            (&["main"], &[("open_store", 3)]),
            (&["run"], &[("open_store", 1)]),
            (&["other"], &[("run", 1)]),
        ]);
        let ranks = t.rank(&[], &[]);
        let best = (0..4)
            .max_by(|x, y| ranks.file[*x].total_cmp(&ranks.file[*y]))
            .unwrap();
        assert_eq!(best, 0, "{:?}", ranks.file);
        assert!((ranks.file.iter().sum::<f64>() - 1.0).abs() < 1e-6);
        assert!(ranks.def(0, t.id("open_store")) > ranks.def(0, t.id("unused_helper")));
        assert!(ranks.def(0, t.id("unused_helper")) > 0.0);
        assert!(ranks.def(1, t.id("open_store")).abs() < f64::EPSILON);
    }

    #[test]
    fn focus_moves_the_ranking_toward_what_it_names() {
        let t = Tree::of(&[
            (&["parse_config"], &[]),
            (&["render_page"], &[]),
            (&["main"], &[("parse_config", 1), ("render_page", 1)]),
        ]);
        let plain = t.rank(&[], &[]);
        assert!((plain.file[0] - plain.file[1]).abs() < 1e-9);
        let focused = t.rank(&[], &["render_page"]);
        assert!(focused.file[1] > focused.file[0], "{:?}", focused.file);
        let wanted = focused.def(1, t.id("render_page"));
        let other = focused.def(0, t.id("parse_config"));
        assert!(wanted > 5.0 * other, "{wanted} {other}");
        let from_file = t.rank(&[1], &[]);
        assert!(
            from_file.file[1] > from_file.file[0],
            "{:?}",
            from_file.file
        );
    }

    #[test]
    fn names_in_many_files_weigh_less_and_private_ones_too() {
        assert!((weight_of("open_artifact", 1, false) - 1.0).abs() < 1e-12);
        assert!((weight_of("open", 1, true) - 10.0).abs() < 1e-12);
        assert!((weight_of("_open", 1, false) - 0.1).abs() < 1e-12);
        assert!((weight_of("open", 6, false) - 0.1).abs() < 1e-12);
    }
}
