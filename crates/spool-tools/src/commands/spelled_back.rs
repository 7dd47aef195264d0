//! The calls an answer prints in the CLI's dialect, parsed back by the `spool` command itself:
//! each printed line, split as `sh` splits it and given to the same `Cli` parser and the same
//! flags-to-arguments step a person's command goes through, is the call that was printed.
//!
//! The line is spelled from clap's definition of the command (`calls::command_line`); this is
//! the check that spelling and parsing agree on every argument a tool has, without running a
//! process (the verbatim tests run a few printed lines end to end). Where they disagree, a
//! model told "run this" would run something else.

use clap::Parser as _;
use serde_json::{Map, Value};
use spool_core::NextCall;
use spool_core::calls::{
    ArtifactsParams, CiLogParams, FetchParams, FormatArg, ListParams, MapParams, PreviewArg,
    QueryParams, ReadParams, RunParams, SearchParams, Target, ToolName,
};

use crate::cli::{Cli, Command};

/// The call the `spool` command line `line` makes.
fn parsed(line: &str) -> NextCall {
    let words = shlex::split(line).unwrap_or_else(|| panic!("not sh words: {line}"));
    let cli = Cli::try_parse_from(&words).unwrap_or_else(|e| panic!("{line}\n{e}"));
    let call = match &cli.command {
        Command::Read(a) => super::read::params(a).map(NextCall::Read),
        Command::Search(a) => super::search::params(a).map(NextCall::Search),
        Command::Query(a) => Ok(NextCall::Query(a.call.clone())),
        Command::Ls(a) => super::ls::params(a).map(NextCall::List),
        Command::Artifacts(a) => Ok(NextCall::Artifacts(super::artifacts::params(a))),
        Command::Run(a) => super::run::params(a).map(NextCall::Run),
        Command::Fetch(a) => Ok(NextCall::Fetch(a.call.clone())),
        Command::CiLog(a) => Ok(NextCall::CiLog(a.call.clone())),
        Command::Map(a) => Ok(NextCall::Map(a.call.clone())),
        other => panic!("`{line}` is no tool's call: {other:?}"),
    };
    call.unwrap_or_else(|e| panic!("{line}\n{e}"))
}

/// The arguments the command line gives where a call leaves them out (its own cap, page and
/// working directory), by tool: a parsed call may hold these beside the printed ones.
fn filled_by_the_command_line(tool: ToolName) -> &'static [&'static str] {
    match tool {
        ToolName::Search => &["max_tokens"],
        ToolName::List => &["path", "max_tokens"],
        ToolName::Artifacts => &["limit", "max_tokens"],
        ToolName::Run => &["cwd"],
        ToolName::Fetch => &["format"],
        ToolName::Map => &["path"],
        ToolName::Read | ToolName::Query | ToolName::CiLog => &[],
    }
}

/// `call`'s arguments as the command line says them: a shell `command` is `sh -c COMMAND`.
fn as_said(call: &NextCall) -> Map<String, Value> {
    let mut args = call.arguments();
    if let Some(Value::String(command)) = args.shift_remove("command") {
        args.insert("argv".into(), serde_json::json!(["sh", "-c", command]));
    }
    args
}

const REF: &str = "sp_0123456789abcdef01234567";

/// Calls of every tool that between them give every argument its command line can say, in
/// the shapes that are hard to spell: values with spaces, quotes and a leading `-`, a range
/// open at its end, lists, numbers with fractions.
fn samples() -> Vec<NextCall> {
    let file = Target::path("/srv/repo/src/my file's.rs");
    vec![
        NextCall::Read(ReadParams {
            stream: Some("stderr".into()),
            max_tokens: Some(700),
            ..ReadParams::lines(Target::reference(REF), 97, Some(20))
        }),
        NextCall::Read(ReadParams::lines(Target::reference(REF), 3001, None)),
        NextCall::Read(ReadParams {
            char_offset: Some(10),
            max_chars: Some(20),
            pattern: Some("-- end of".into()),
            literal: true,
            case_insensitive: true,
            ..ReadParams::of(file.clone())
        }),
        NextCall::Read(ReadParams {
            byte_offset: Some(4096),
            max_bytes: Some(512),
            ..ReadParams::of(Target::reference(REF))
        }),
        NextCall::Read(ReadParams {
            tail: Some(50),
            query: Some("retry timeout".into()),
            ..ReadParams::of(Target::reference(REF))
        }),
        NextCall::Read(ReadParams {
            preview: Some(PreviewArg::HeadTail),
            ..ReadParams::of(file.clone())
        }),
        NextCall::Read(ReadParams {
            cursor: Some("c:2:abc".into()),
            ..ReadParams::of(Target::reference(REF))
        }),
        NextCall::Search(SearchParams {
            limit: Some(3),
            cursor: Some("eyJwIjoxfQ".into()),
            max_tokens: Some(900),
            ..SearchParams::pattern(Target::reference(REF), r"value=\d*77\b")
        }),
        NextCall::Search(SearchParams {
            glob: vec!["*.rs".into(), "!target/**".into()],
            hidden: true,
            no_ignore: true,
            literal: true,
            case_insensitive: true,
            context: Some(2),
            ..SearchParams::pattern(Target::path("/srv/repo"), "-fn main(")
        }),
        NextCall::Search(SearchParams {
            count: true,
            ..SearchParams::pattern(Target::path("/srv/repo"), "TODO")
        }),
        NextCall::Search(SearchParams {
            limit: Some(5),
            ..SearchParams::words(file, "retry 'timeout'")
        }),
        NextCall::Query(QueryParams {
            limit: Some(10),
            max_tokens: Some(2000),
            ..QueryParams::new(REF, r#".[] | select(.name == "a b") | .id"#)
        }),
        NextCall::Query(QueryParams::new(REF, "-1 + length")),
        NextCall::List(ListParams {
            glob: Some("*.toml".into()),
            recursive: true,
            hidden: true,
            limit: Some(50),
            cursor: Some("k:src/lib.rs".into()),
            max_tokens: Some(1000),
            ..ListParams::of("/srv/repo/crates")
        }),
        NextCall::Artifacts(ArtifactsParams {
            kind: Some("run".into()),
            limit: Some(7),
            cursor: Some("t:1700000000".into()),
            max_tokens: Some(1500),
        }),
        NextCall::Run(RunParams {
            argv: Some(vec!["echo".into(), "a b".into(), "-n".into()]),
            cwd: Some("/srv/repo".into()),
            timeout_s: Some(2.5),
            preview: Some(PreviewArg::Tail),
            max_tokens: Some(600),
            ..RunParams::default()
        }),
        NextCall::Run(RunParams {
            command: Some("ls -la | wc -l > 'out file'".into()),
            cwd: Some("/srv/repo".into()),
            timeout_s: Some(30.0),
            ..RunParams::default()
        }),
        NextCall::Fetch(FetchParams {
            refresh: true,
            query: Some("install steps".into()),
            max_tokens: Some(3000),
            ..FetchParams::new("http://127.0.0.1:8080/docs?a=1&b=2", FormatArg::Raw)
        }),
        NextCall::Fetch(FetchParams {
            pattern: Some("-v".into()),
            literal: true,
            case_insensitive: true,
            ..FetchParams::new("http://127.0.0.1:8080/", FormatArg::Markdown)
        }),
        NextCall::CiLog(CiLogParams {
            repo: "acme/widgets".into(),
            run_id: 7,
            attempt: Some(1),
            job: Some("lint and test".into()),
            max_tokens: Some(4000),
        }),
        NextCall::Map(MapParams {
            max_tokens: Some(700),
            focus: vec!["src/lib.rs".into(), "load_settings".into()],
            cursor: Some("m:1:abc".into()),
            ..MapParams::of("/srv/repo", &[])
        }),
    ]
}

#[test]
fn every_printed_command_line_parses_back_to_the_call_printed() {
    for call in samples() {
        let line = call
            .command_line()
            .unwrap_or_else(|| panic!("no command line for {call:?}"));
        let back = parsed(&line);
        assert_eq!(back.tool(), call.tool(), "{line}");
        let tool = call.spool_tool().expect("spool's own tool");
        let printed = as_said(&call);
        let mut got = back.arguments();
        for (name, value) in &printed {
            assert_eq!(got.get(name), Some(value), "`{name}` of `{line}`");
            got.shift_remove(name);
        }
        let extra: Vec<&String> = got
            .keys()
            .filter(|k| !filled_by_the_command_line(tool).contains(&k.as_str()))
            .collect();
        assert!(
            extra.is_empty(),
            "`{line}` gives {extra:?} the call did not"
        );
        // And the parsed call prints the same line: spelling is a fixed point.
        if filled_by_the_command_line(tool).is_empty() {
            assert_eq!(back.command_line().as_deref(), Some(line.as_str()));
        }
    }
}

/// Every argument of every tool is given by some sample above, or is one the command line
/// cannot say (and then the call is printed in MCP's words): a field added to a tool without
/// a flag, or without a sample, fails here.
#[test]
fn the_samples_give_every_argument_a_command_line_can_say() {
    // `run`'s `stdin` has no flag: a person pipes it (`... | spool run -- CMD`).
    let unsayable: &[(ToolName, &str)] = &[(ToolName::Run, "stdin")];
    let samples = samples();
    for tool in ToolName::ALL {
        let schema = match tool {
            ToolName::Read => schemars::schema_for!(ReadParams),
            ToolName::Search => schemars::schema_for!(SearchParams),
            ToolName::Query => schemars::schema_for!(QueryParams),
            ToolName::List => schemars::schema_for!(ListParams),
            ToolName::Artifacts => schemars::schema_for!(ArtifactsParams),
            ToolName::Run => schemars::schema_for!(RunParams),
            ToolName::Fetch => schemars::schema_for!(FetchParams),
            ToolName::CiLog => schemars::schema_for!(CiLogParams),
            ToolName::Map => schemars::schema_for!(MapParams),
        };
        let fields = schema
            .as_value()
            .get("properties")
            .and_then(Value::as_object)
            .expect("a tool's arguments are an object");
        for name in fields.keys() {
            if unsayable.contains(&(tool, name.as_str())) {
                let call = NextCall::from_parts(
                    tool.as_str(),
                    serde_json::json!({ "argv": ["cat"], name.as_str(): "x" })
                        .as_object()
                        .cloned()
                        .unwrap_or_default(),
                );
                assert_eq!(call.spool_tool(), Some(tool), "{call:?}");
                assert_eq!(
                    call.command_line(),
                    None,
                    "{tool} `{name}` is said after all"
                );
                continue;
            }
            let given = samples
                .iter()
                .any(|c| c.spool_tool() == Some(tool) && c.argument(name).is_some());
            assert!(given, "no sample gives {tool}'s `{name}`");
        }
    }
}
