//! The map names only files inside its root while the tree changes under it (issue 39): the
//! walk reads directories by name, and one swapped for a symlink to the outside handed back
//! the outside's names, which the map listed (48 of 600 maps), though it never read their
//! content. Each name is now looked up again below the root, held open, without crossing a
//! symlink.

use serde_json::json;
use spool_core::answer::Answer;
use spool_core::answer::Context;
use spool_core::render::Dialect;
use spool_core::window::{WindowRequest, read_window};
use spool_core::{Cap, Store, StoreConfig};
use spool_map::MapParams;
use spool_test_support::flipping::Flipping;
use spool_walk::roots::Roots;

/// Maps `path` 300 times while the root's `d` flips: (maps made, maps naming an outside file,
/// read from the whole stored map, not only the page shown).
fn maps_naming_the_outside(path: &str) -> (u32, u32) {
    let flipping = Flipping::start();
    let home = tempfile::tempdir().unwrap();
    let store = Store::open(home.path(), StoreConfig::default()).unwrap();
    let roots = Roots::new(std::slice::from_ref(&flipping.root)).unwrap();
    let cap = |asked: Option<u64>| Cap::new(asked.unwrap_or(8000));
    let cx = Context {
        store: &store,
        roots: &roots,
        cap: &cap,
        run_timeout: None,
        run_timeout_max: None,
        search_budget: std::time::Duration::from_secs(10),
        env_pass: &[],
    };
    let params: MapParams = serde_json::from_value(json!({ "path": path })).unwrap();
    let (mut mapped, mut named) = (0, 0);
    for _ in 0..300 {
        let Ok(Answer::Envelope(e)) = spool_map::answer(&cx, &params) else {
            continue;
        };
        mapped += 1;
        let whole = read_window(&store, &e.reference, WindowRequest::Preview(None), 100_000)
            .unwrap()
            .content(Dialect::Mcp);
        if whole.contains("only-outside") {
            named += 1;
        }
    }
    let flips = flipping.finish();
    assert!(flips > 100, "the tree changed {flips} times");
    (mapped, named)
}

#[test]
fn a_map_never_names_a_file_outside_its_root_while_a_symlink_is_swapped() {
    let (mapped, named) = maps_naming_the_outside(".");
    assert!(mapped > 0, "no map was made");
    assert_eq!(
        named, 0,
        "{named} of {mapped} maps named a file outside the root"
    );
}

#[test]
fn a_map_of_a_directory_swapped_for_a_symlink_never_names_what_it_points_to() {
    // Regression (review of issue 39): the walked directory itself was opened by its path,
    // following a symlink swapped in after it was resolved.
    let (mapped, named) = maps_naming_the_outside("d");
    assert!(mapped > 0, "no map was made");
    assert_eq!(
        named, 0,
        "{named} of {mapped} maps named a file outside the root"
    );
}
