//! Which files and definitions matter: a `PageRank` over the graph of references, as Aider ranks
//! its repository map. Each file is a node; a file that names an identifier another file
//! defines gets an edge to it, weighted by how often it names it (its square root, so a name
//! used everywhere does not drown the rest) and by the name itself: names the agent asked
//! about count ten times, private names (`_x`) and names defined in more than five files a
//! tenth, a method called on a value (which may be any type's) a quarter. The rank then flows
//! from each file to the definitions its edges point at.

use std::collections::{HashMap, HashSet};

use crate::tags::FileTags;

/// The damping of the walk: the chance a reader follows a reference rather than jumping.
const ALPHA: f64 = 0.85;
const MAX_ITERATIONS: usize = 100;
/// Names defined in more files than this (`new`, `get`, `main`) say nothing of which one is
/// meant, and pair every user with every definer: they draw no edges.
const MAX_DEFINERS: usize = 64;
/// The kinds of definition a method call may refer to.
const CALLABLE: [&str; 3] = ["function", "method", "macro"];
/// The weight of a method called on a value, against a name that says what it refers to.
const METHOD: f64 = 0.25;
/// The share of its file's rank a definition no other file names gets: less than any named one.
const UNNAMED: f64 = 1e-6;

/// What ranking needs of the tree.
pub struct Input<'a, 'b> {
    /// Each file's tags, by its index (`None`: not mapped).
    pub files: &'b [Option<&'a FileTags>],
    /// Files the agent asked about: the walk starts from them, and what they name counts more.
    pub focus_files: &'b HashSet<usize>,
    /// Names the agent asked about.
    pub focus_names: &'b HashSet<String>,
}

/// The rank of each file and of each of its definitions.
pub struct Ranks<'a> {
    /// By file index; they sum to 1.
    pub file: Vec<f64>,
    idents: HashMap<&'a str, u32>,
    defs: HashMap<(u32, u32), f64>,
}

impl Ranks<'_> {
    /// The rank that flowed to `name` as `file` defines it (0 when nothing refers to it).
    pub fn def(&self, file: usize, name: &str) -> f64 {
        self.idents
            .get(name)
            .and_then(|id| self.defs.get(&(file as u32, *id)))
            .copied()
            .unwrap_or(0.0)
    }
}

struct Edge {
    src: u32,
    dst: u32,
    ident: u32,
    weight: f64,
}

/// Ranks the files and definitions of `input`.
pub fn rank<'a>(input: &Input<'a, '_>) -> Ranks<'a> {
    let n = input.files.len();
    let mut idents: HashMap<&'a str, u32> = HashMap::new();
    let mut names: Vec<&'a str> = Vec::new();
    let mut intern = |s: &'a str| {
        *idents.entry(s).or_insert_with(|| {
            names.push(s);
            names.len() as u32 - 1
        })
    };
    // Who defines each name (and who defines it as something to call), and who names it how
    // often (and who calls it as a method of some value).
    let mut defines: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut callables: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut references: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
    let mut method_calls: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
    let add = |map: &mut HashMap<u32, Vec<u32>>, ident: u32, f: u32| {
        let files = map.entry(ident).or_default();
        if files.last() != Some(&f) {
            files.push(f);
        }
    };
    for (f, tags) in input.files.iter().enumerate() {
        let Some(tags) = tags else { continue };
        let f = f as u32;
        for (_, item, name) in tags.defs() {
            let ident = intern(name);
            add(&mut defines, ident, f);
            if CALLABLE.contains(&item.kind.as_str()) {
                add(&mut callables, ident, f);
            }
        }
        for (ident, count) in &tags.refs {
            references
                .entry(intern(ident))
                .or_default()
                .push((f, *count));
        }
        for (ident, count) in &tags.methods {
            method_calls
                .entry(intern(ident))
                .or_default()
                .push((f, *count));
        }
    }
    if references.is_empty() {
        // Nothing refers to anything (one file, or only declarations): each definition counts
        // once for its own file.
        for (ident, files) in &defines {
            references.insert(*ident, files.iter().map(|f| (*f, 1)).collect());
        }
    }
    let mut edges = Vec::new();
    let mut unnamed = Vec::new();
    let mut by_ident: Vec<(&u32, &Vec<u32>)> = defines.iter().collect();
    // A fixed order: the same tree ranks the same, whatever the hash map's.
    by_ident.sort_unstable_by_key(|(ident, _)| **ident);
    for (&ident, definers) in by_ident {
        // A method called on a value may be any type's: it refers to the functions and
        // methods of that name only, at a quarter of the weight.
        if let (Some(calls), Some(callers)) = (method_calls.get(&ident), callables.get(&ident))
            && callers.len() <= MAX_DEFINERS
        {
            let mul = METHOD * weight_of(names[ident as usize], callers.len(), input.focus_names);
            link(&mut edges, ident, calls, callers, mul, input.focus_files);
        }
        let Some(users) = references.get(&ident) else {
            // Defined, never named: ranked below everything named, by its file's rank (an
            // edge of its own, as Aider draws one, would pour the file's rank into it).
            unnamed.push((ident, definers));
            continue;
        };
        if definers.len() > MAX_DEFINERS {
            continue;
        }
        let mul = weight_of(names[ident as usize], definers.len(), input.focus_names);
        link(&mut edges, ident, users, definers, mul, input.focus_files);
    }
    let file = pagerank(n, &edges, input.focus_files);
    // The rank of each file flows to the definitions its edges point at, in proportion.
    let mut out_weight = vec![0.0; n];
    for e in &edges {
        out_weight[e.src as usize] += e.weight;
    }
    let mut defs: HashMap<(u32, u32), f64> = HashMap::new();
    for e in &edges {
        let share = file[e.src as usize] * e.weight / out_weight[e.src as usize];
        *defs.entry((e.dst, e.ident)).or_default() += share;
    }
    for (ident, definers) in unnamed {
        for &d in definers {
            defs.entry((d, ident)).or_insert(file[d as usize] * UNNAMED);
        }
    }
    // Named only by their own file: above the never named, below what other files name.
    for (&ident, definers) in &defines {
        for &d in definers {
            defs.entry((d, ident))
                .or_insert(file[d as usize] * UNNAMED * 2.0);
        }
    }
    Ranks { file, idents, defs }
}

/// Draws an edge from each file that names `ident` to each file that defines it, weighted by
/// `mul`, by the square root of how often it names it, and fifty times from a focus file.
fn link(
    edges: &mut Vec<Edge>,
    ident: u32,
    users: &[(u32, u32)],
    definers: &[u32],
    mul: f64,
    focus: &HashSet<usize>,
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
            edges.push(Edge {
                src: user,
                dst: d,
                ident,
                weight,
            });
        }
    }
}

/// How much a reference to `ident` weighs, by the name itself. (Aider also weighs long
/// compound names ten times, against short names that may mean anything; here references are
/// read only where a name refers to a definition, so `Error` counts as much as `FromSqlError`.)
fn weight_of(ident: &str, definers: usize, focus: &HashSet<String>) -> f64 {
    let mut mul = 1.0;
    if focus.contains(ident) {
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

/// `PageRank` of `n` nodes over weighted `edges`, the jumps (and the rank of files that refer to
/// nothing) going to `focus` when it is not empty, else to every node alike.
fn pagerank(n: usize, edges: &[Edge], focus: &HashSet<usize>) -> Vec<f64> {
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
    // The edges between two files summed, as (src, dst, share of src's weight).
    let mut out_weight = vec![0.0; n];
    let mut pairs: HashMap<(u32, u32), f64> = HashMap::new();
    for e in edges {
        out_weight[e.src as usize] += e.weight;
        *pairs.entry((e.src, e.dst)).or_default() += e.weight;
    }
    let mut links: Vec<(u32, u32, f64)> = pairs
        .into_iter()
        .map(|((s, d), w)| (s, d, w / out_weight[s as usize]))
        .collect();
    links.sort_unstable_by_key(|a| (a.0, a.1));
    let mut rank = jump.clone();
    for _ in 0..MAX_ITERATIONS {
        let mut next = vec![0.0; n];
        for &(s, d, share) in &links {
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
    use crate::tags::Item;

    fn file(defs: &[&str], refs: &[(&str, u32)]) -> FileTags {
        FileTags {
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
        }
    }

    #[test]
    fn the_file_everyone_refers_to_ranks_first_and_its_used_definition_above_the_unused() {
        let core = file(&["open_store", "unused_helper"], &[]);
        let a = file(&["main"], &[("open_store", 3)]);
        let b = file(&["run"], &[("open_store", 1)]);
        let c = file(&["other"], &[("run", 1)]);
        let files = [Some(&core), Some(&a), Some(&b), Some(&c)];
        let ranks = rank(&Input {
            files: &files,
            focus_files: &HashSet::new(),
            focus_names: &HashSet::new(),
        });
        let best = (0..4)
            .max_by(|x, y| ranks.file[*x].total_cmp(&ranks.file[*y]))
            .unwrap();
        assert_eq!(best, 0, "{:?}", ranks.file);
        assert!((ranks.file.iter().sum::<f64>() - 1.0).abs() < 1e-6);
        assert!(ranks.def(0, "open_store") > ranks.def(0, "unused_helper"));
        assert!(ranks.def(0, "unused_helper") > 0.0);
        assert!(ranks.def(1, "open_store").abs() < f64::EPSILON);
    }

    #[test]
    fn focus_moves_the_ranking_toward_what_it_names() {
        let x = file(&["parse_config"], &[]);
        let y = file(&["render_page"], &[]);
        let user = file(&["main"], &[("parse_config", 1), ("render_page", 1)]);
        let files = [Some(&x), Some(&y), Some(&user)];
        let plain = rank(&Input {
            files: &files,
            focus_files: &HashSet::new(),
            focus_names: &HashSet::new(),
        });
        assert!((plain.file[0] - plain.file[1]).abs() < 1e-9);
        let focused = rank(&Input {
            files: &files,
            focus_files: &HashSet::new(),
            focus_names: &HashSet::from(["render_page".to_owned()]),
        });
        assert!(focused.file[1] > focused.file[0], "{:?}", focused.file);
        let (wanted, other) = (
            focused.def(1, "render_page"),
            focused.def(0, "parse_config"),
        );
        assert!(wanted > 5.0 * other, "{wanted} {other}");
        let from_file = rank(&Input {
            files: &files,
            focus_files: &HashSet::from([1]),
            focus_names: &HashSet::new(),
        });
        assert!(
            from_file.file[1] > from_file.file[0],
            "{:?}",
            from_file.file
        );
    }

    #[test]
    fn names_in_many_files_weigh_less_and_private_ones_too() {
        let none = HashSet::new();
        assert!((weight_of("open_artifact", 1, &none) - 1.0).abs() < 1e-12);
        let asked = HashSet::from(["open".to_owned()]);
        assert!((weight_of("open", 1, &asked) - 10.0).abs() < 1e-12);
        assert!((weight_of("_open", 1, &none) - 0.1).abs() < 1e-12);
        assert!((weight_of("open", 6, &none) - 0.1).abs() < 1e-12);
    }
}
