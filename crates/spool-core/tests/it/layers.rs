//! spool-core is layered: the store uses neither the renderer nor the audit, and the modules'
//! imports form no cycle (a module and its own children aside). Read from the sources, so a
//! new edge that points up fails here before it lands.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module of `src`, and the top-level modules its code (tests aside) names.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(&src).unwrap();
            let top = rel
                .components()
                .next()
                .unwrap()
                .as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned();
            if top == "lib" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            let named = edges.entry(top.clone()).or_default();
            for (at, _) in code.match_indices("crate::") {
                let name: String = code[at + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != top {
                    named.insert(name);
                }
            }
        }
    }
    edges
}

/// The modules `from` reaches through its imports.
fn reach(edges: &BTreeMap<String, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![from.to_owned()];
    while let Some(m) = todo.pop() {
        for next in edges.get(&m).into_iter().flatten() {
            if seen.insert(next.clone()) {
                todo.push(next.clone());
            }
        }
    }
    seen
}

#[test]
fn the_store_uses_neither_the_renderer_nor_the_audit() {
    let edges = imports();
    let store = &edges["store"];
    for above in [
        "render",
        "audit",
        "window",
        "answer",
        "list_text",
        "search",
        "items",
    ] {
        assert!(!store.contains(above), "store imports `{above}`: {store:?}");
    }
}

#[test]
fn no_module_reaches_itself_through_its_imports() {
    let edges = imports();
    let cycles: Vec<String> = edges
        .keys()
        .filter(|m| reach(&edges, m).contains(*m))
        .cloned()
        .collect();
    assert!(cycles.is_empty(), "modules in an import cycle: {cycles:?}");
    // The reading is real: the modules and their edges were found.
    assert!(edges.len() > 20, "{edges:?}");
    assert!(edges["window"].contains("store"), "{:?}", edges["window"]);
}
