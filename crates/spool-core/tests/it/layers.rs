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
            let code = without_tests(&text);
            let named = edges.entry(top.clone()).or_default();
            for name in crate_paths(&code) {
                if name != top {
                    named.insert(name);
                }
            }
        }
    }
    edges
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
    assert!(edges["window"].contains("store"), "{:?}", edges["window"]);
}
