//! `spool._native`: the Rust half of the Python package. The Pythonic surface (keyword
//! arguments, docstrings, `TypedDict`s, `SpoolError`) is `python/spool/__init__.py`; this module
//! is what it calls: a store that answers a tool call (JSON arguments in, the answer's structured
//! form as JSON and its text out), stores a harness's output, reads the audit, and runs the
//! `spool` command itself.
//!
//! Every call releases the GIL while it works, and a Ctrl-C in Python stops a running command
//! the way cancelling an MCP request does: what it printed is kept, marked cancelled.

// PyO3's macros expand to the FFI's unsafe code; this crate writes none of its own.
#![allow(unsafe_code)]

mod call;
mod store;

use pyo3::prelude::*;

/// Runs the `spool` command with `argv` (`sys.argv`: the program's name first) and returns its
/// exit code. For the `spool` command the package installs (`spool._cli`), which is the whole
/// process: a malformed command line or `--help` exits it, as the binary does.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<std::ffi::OsString>) -> u8 {
    py.detach(move || spool_tools::main_with(argv))
}

/// The tool table as JSON: each tool's name, title, description, hints and input schema, as an
/// MCP host lists them. `Store.call` answers every one; a harness may offer them to its model.
#[pyfunction]
fn tools() -> String {
    let listed: Vec<serde_json::Value> = spool_toolset::TOOLS
        .iter()
        .map(|entry| {
            serde_json::json!({
                "name": entry.name,
                "title": entry.title,
                "description": entry.description,
                "read_only": entry.hints.read_only,
                "destructive": entry.hints.destructive,
                "open_world": entry.hints.open_world,
                "input_schema": entry.input_schema(),
            })
        })
        .collect();
    serde_json::Value::Array(listed).to_string()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // A jq program runs in a box started as this interpreter running the package's command
    // (the process is Python's, not spool's: `spool __spool_box` is how the command is reached).
    // Isolated (`-I`): neither the working directory nor `PYTHONPATH` can put another `spool`
    // package before the installed one. An interpreter that does not name itself (embedded)
    // leaves the default launcher, which says so when a query asks for it.
    if let Ok(python) = m
        .py()
        .import("sys")?
        .getattr("executable")?
        .extract::<std::path::PathBuf>()
        && !python.as_os_str().is_empty()
    {
        spool_core::jq_box::set_launcher(spool_core::jq_box::Launcher {
            program: python,
            args: ["-I", "-m", "spool._cli", spool_core::jq_box::BOX_ARG]
                .into_iter()
                .map(Into::into)
                .collect(),
        });
    }
    m.add_class::<store::Store>()?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(tools, m)?)?;
    m.add("DEFAULT_MAX_TOKENS", spool_core::DEFAULT_MAX_TOKENS)?;
    // The contract's codes, the one list of each: the package's `Literal` types are tested
    // against them.
    m.add(
        "ERROR_CODES",
        spool_core::ErrorCode::ALL.map(spool_core::ErrorCode::as_str),
    )?;
    m.add(
        "REASON_CODES",
        spool_core::envelope::ReasonCode::ALL.map(spool_core::envelope::ReasonCode::as_str),
    )?;
    m.add(
        "UNITS",
        spool_core::envelope::Unit::ALL.map(spool_core::envelope::Unit::as_str),
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
