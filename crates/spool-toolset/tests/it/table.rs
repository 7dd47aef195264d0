//! The table: each tool once, its input schema the one rmcp would make from its arguments (so a
//! host's tool list does not depend on who builds it), and a set that leaves a tool out answers
//! neither by name nor by type.

use rmcp::handler::server::common::schema_for_input;
use serde_json::json;
use spool_core::ErrorCode;
use spool_fetch::{CiLogParams, FetchParams};
use spool_map::MapParams;
use spool_toolset::tools::{
    ArtifactsParams, ListParams, QueryParams, ReadParams, Run, RunParams, SearchParams,
};
use spool_toolset::{Control, TOOLS, Wording};

use crate::support;

#[test]
fn every_tool_is_listed_once_in_the_tables_order() {
    let names: Vec<&str> = TOOLS.iter().map(|e| e.name).collect();
    assert_eq!(
        names,
        [
            "read",
            "search",
            "query",
            "list",
            "artifacts",
            "run",
            "fetch",
            "ci_log",
            "map"
        ]
    );
    let t = support::tools(1_000);
    assert_eq!(t.set.names(), names);
}

#[test]
fn each_input_schema_is_the_one_rmcp_makes_from_the_arguments() {
    let t = support::tools(1_000);
    for (entry, schema) in t.set.tools() {
        let rmcp = match entry.name {
            "read" => schema_for_input::<ReadParams>(),
            "search" => schema_for_input::<SearchParams>(),
            "query" => schema_for_input::<QueryParams>(),
            "list" => schema_for_input::<ListParams>(),
            "artifacts" => schema_for_input::<ArtifactsParams>(),
            "run" => schema_for_input::<RunParams>(),
            "fetch" => schema_for_input::<FetchParams>(),
            "ci_log" => schema_for_input::<CiLogParams>(),
            "map" => schema_for_input::<MapParams>(),
            other => panic!("a tool this test does not know: {other}"),
        }
        .unwrap();
        // The same keys in the same order: the listing is product copy, byte for byte.
        assert_eq!(
            serde_json::to_string(&**schema).unwrap(),
            serde_json::to_string(&*rmcp).unwrap(),
            "{}",
            entry.name
        );
        // Described from the doc comments, every argument.
        let properties = schema["properties"].as_object().unwrap();
        for (name, property) in properties {
            assert!(
                property.get("description").is_some(),
                "`{}`'s `{name}` has no description",
                entry.name
            );
        }
    }
}

#[test]
fn a_tool_left_out_is_answered_neither_by_name_nor_by_type() {
    let t = support::tools(1_000);
    let dir = t.dir.path().to_owned();
    let set = t.set.without("run");
    assert!(!set.names().contains(&"run"));
    let args = json!({ "command": "echo hi", "cwd": dir });
    let by_name = set
        .call("run", &args, Control::default(), Wording::ByPath)
        .unwrap_err();
    assert_eq!(by_name.code(), ErrorCode::InvalidArgument);
    assert!(
        by_name.to_string().contains("there is no tool `run`"),
        "{by_name}"
    );
    let p: RunParams = serde_json::from_value(args).unwrap();
    let by_type = set.answer::<Run>(p, Control::default()).unwrap_err();
    assert_eq!(by_type.code(), ErrorCode::InvalidArgument);
    // Both refusals are in the audit, and nothing ran.
    let rows = spool_core::audit::recent(set.store(), 10, None).unwrap();
    assert_eq!(rows.iter().filter(|r| r.tool == "run").count(), 2);
    assert!(set.store().list(None, None, 10).unwrap().is_empty());
}

/// Regression: called by name (the Python package's path), a fetch's audit row kept the URL
/// as given, password and all; MCP's and the CLI's rows left it out. Every front end now
/// records what the tool's definition records.
#[test]
fn a_fetch_called_by_name_audits_its_url_without_the_password() {
    let t = support::tools(1_000);
    let url = "http://someone:hunter2@127.0.0.1:1/page";
    // Loopback is refused (the set allows no private address): an error, audited all the same.
    let err = t.call("fetch", &json!({ "url": url })).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Forbidden, "{err}");
    let rows = spool_core::audit::recent(t.store(), 10, None).unwrap();
    let row = rows.iter().find(|r| r.tool == "fetch").unwrap();
    let recorded = row.arguments.to_string();
    assert!(!recorded.contains("hunter2"), "{recorded}");
    assert!(recorded.contains("127.0.0.1"), "{recorded}");
}

/// Every tool of the table is spelled as a `spool` command line in the CLI's answers: a tool
/// added to the table without its CLI spelling would print an MCP call in a CLI answer.
#[test]
fn every_tool_has_a_command_line_spelling() {
    use spool_core::NextCall;
    use spool_core::calls::ToolName;
    for entry in &TOOLS {
        let tool = ToolName::named(entry.name).expect("a tool of the table is one of spool's");
        // Each tool's call with its arguments left at their defaults: the match is exhaustive,
        // so a tool added to `ToolName` without a call here does not compile.
        let call = match tool {
            ToolName::Read => NextCall::Read(ReadParams::default()),
            ToolName::Search => NextCall::Search(SearchParams::default()),
            ToolName::Query => NextCall::Query(QueryParams::default()),
            ToolName::List => NextCall::List(ListParams::default()),
            ToolName::Artifacts => NextCall::Artifacts(ArtifactsParams::default()),
            ToolName::Run => NextCall::Run(RunParams::default()),
            ToolName::Fetch => NextCall::Fetch(FetchParams::default()),
            ToolName::CiLog => NextCall::CiLog(CiLogParams::default()),
            ToolName::Map => NextCall::Map(MapParams::default()),
        };
        assert_eq!(call.tool(), entry.name);
        let line = spool_core::dialect::cli_text(&call);
        assert!(line.starts_with("spool "), "{}: {line}", entry.name);
    }
}

/// A front end that records a call itself (the MCP server, when a tool panics) records the
/// arguments as the tool does: a fetch's URL without its password (regression: the panic path
/// recorded the request as sent).
#[test]
fn arguments_recorded_outside_the_dispatch_are_the_tools_own() {
    let t = support::tools(1_000);
    let args = json!({ "url": "http://someone:hunter2@127.0.0.1:1/page" });
    let recorded = t.set.audited("fetch", &args).to_string();
    assert!(!recorded.contains("hunter2"), "{recorded}");
    assert!(recorded.contains("127.0.0.1"), "{recorded}");
    // Not a tool of the set: as given.
    assert_eq!(t.set.audited("nosuchtool", &args), args);
}
