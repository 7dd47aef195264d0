//! spool-core is layered, and its root says so: `src/` holds one folder per layer (base,
//! model, storage, rendering, engines, answer) and `lib.rs`. A layer uses only the layers
//! below it, the store uses neither the renderer nor the audit, and the modules' imports form
//! no cycle (a module and its own children aside). Read from the sources, so a new edge that
//! points up fails here before it lands.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, lowest first.
const LAYERS: [&str; 6] = ["base", "model", "storage", "rendering", "engines", "answer"];

/// Each module of `src` (a layer's child, or `answer`) and the modules its code (tests aside)
/// names, with the layer each module is in.
struct Sources {
    edges: BTreeMap<String, BTreeSet<String>>,
    layer_of: BTreeMap<String, String>,
}

fn sources() -> Sources {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let roots = root_items(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut layer_of = BTreeMap::new();
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
            let parts: Vec<String> = rel
                .components()
                .map(|c| {
                    c.as_os_str()
                        .to_string_lossy()
                        .trim_end_matches(".rs")
                        .to_owned()
                })
                .collect();
            let layer = parts[0].clone();
            if layer == "lib" || (parts.len() == 1 && layer != "answer") {
                // lib.rs, and a layer's own file (it only lists its modules).
                continue;
            }
            let module = if layer == "answer" {
                layer.clone()
            } else {
                parts[1].clone()
            };
            layer_of.insert(module.clone(), layer);
            let text = std::fs::read_to_string(&path).unwrap();
            let code = without_tests(&text);
            let named = edges.entry(module.clone()).or_default();
            for name in crate_paths(&code) {
                // An item the root re-exports (`crate::Error`) is its module's.
                let name = roots.get(&name).cloned().unwrap_or(name);
                if name != module {
                    named.insert(name);
                }
            }
        }
    }
    Sources { edges, layer_of }
}

/// The items `lib.rs` re-exports from a module (`pub use error::{Error, Result}`), by name.
fn root_items(lib: &str) -> BTreeMap<String, String> {
    let mut items = BTreeMap::new();
    for line in lib.lines() {
        let Some(rest) = line.strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, names)) = rest.split_once("::{") else {
            continue;
        };
        for name in names.trim_end_matches("};").split(',') {
            let name = name.trim();
            if name.chars().next().is_some_and(char::is_uppercase) {
                items.insert(name.to_owned(), module.to_owned());
            }
        }
    }
    items
}

/// Each module and the modules its code names (a layer named in a path counts as itself).
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    sources().edges
}

#[test]
fn the_root_holds_a_folder_per_layer_and_each_layer_uses_only_those_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found: BTreeSet<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(found.remove("lib.rs"));
    let mut wanted = BTreeSet::new();
    for layer in LAYERS {
        wanted.insert(format!("{layer}.rs"));
        wanted.insert(layer.to_owned());
    }
    assert_eq!(
        found, wanted,
        "the root of src/ holds the layers and lib.rs alone"
    );

    let s = sources();
    let rank = |layer: &str| LAYERS.iter().position(|l| *l == layer);
    let mut upward = Vec::new();
    for (module, named) in &s.edges {
        let from = &s.layer_of[module];
        for name in named {
            let to = s
                .layer_of
                .get(name)
                .or_else(|| LAYERS.iter().find(|l| *l == name).map(|_| name));
            if let Some(to) = to
                && rank(to) > rank(from)
            {
                upward.push(format!("{module} ({from}) uses {name} ({to})"));
            }
        }
    }
    assert!(upward.is_empty(), "imports that point up: {upward:#?}");
    // The reading is real: every layer has modules, and the edges were found.
    for layer in LAYERS {
        assert!(
            s.layer_of.values().any(|l| l == layer),
            "{layer}: {:?}",
            s.layer_of
        );
    }
    assert!(
        s.edges["window"].contains("store"),
        "{:?}",
        s.edges["window"]
    );
    assert!(s.edges["store"].contains("error"), "{:?}", s.edges["store"]);
}

/// `text` without its test code: each item after a `#[cfg(test)]` (a `mod tests { .. }`, a
/// helper function, an import) is left out to its closing brace or semicolon, and the rest of
/// the file is read (a first version stopped at the first `#[cfg(test)]`).
fn without_tests(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at + "#[cfg(test)]".len()..];
        // The item ends at its first `;` outside braces, or where its first brace closes.
        let mut depth = 0usize;
        let mut end = item.len();
        for (i, c) in item.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// The top-level modules `code` names as `crate::name`, and in groups: `crate::{a, b::c}`.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let word = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut names = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let after = &code[at + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            // Each name at the group's first level.
            let mut depth = 0usize;
            let mut start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && depth == 0 && !c.is_whitespace() => {
                        start = false;
                        let name = word(&group[i..]);
                        if !name.is_empty() && name != "self" {
                            names.insert(name);
                        }
                    }
                    _ => {}
                }
            }
        } else {
            let name = word(after);
            if !name.is_empty() {
                names.insert(name);
            }
        }
    }
    names
}

#[test]
fn test_code_is_left_out_and_grouped_imports_are_read() {
    let code = "use crate::{envelope::{A, B}, error::Error};\n#[cfg(test)]\nfn helper() { crate::audit::x(); }\nuse crate::store::Store;\n#[cfg(test)]\nmod tests { use crate::render; }\n";
    let kept = without_tests(code);
    assert_eq!(
        crate_paths(&kept).into_iter().collect::<Vec<_>>(),
        ["envelope", "error", "store"]
    );
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
    assert!(edges.contains_key("answer"), "{edges:?}");
    assert!(edges["window"].contains("store"), "{:?}", edges["window"]);
}
