//! Validates answers against their tool's declared `outputSchema` with the validator the
//! official Python SDK uses (`jsonschema`, the `validator_for` the schema's draft names, as
//! `mcp.ClientSession.call_tool` does), so a test fails where that client would refuse an
//! answer and its model receive nothing (issue 57).
//!
//! One Python process per test binary, fed a line per check: starting one per answer would
//! cost ~150 ms each. It needs `python3` with `jsonschema` on `PATH` (the test venv that
//! `scripts/test` makes holds the SDK and it); without one the check fails, never passes.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use serde_json::{Value, json};

const SCRIPT: &str = r#"
import json, sys
from jsonschema import exceptions
from jsonschema.validators import validator_for
compiled = {}
for line in sys.stdin:
    req = json.loads(line)
    key = json.dumps(req["schema"], sort_keys=True)
    try:
        v = compiled.get(key)
        if v is None:
            cls = validator_for(req["schema"])
            cls.check_schema(req["schema"])
            v = compiled[key] = cls(req["schema"])
        err = exceptions.best_match(v.iter_errors(req["instance"]))
        out = {"ok": err is None, "error": None if err is None else
               f"{err.message} at {'/'.join(map(str, err.absolute_path))} (schema {'/'.join(map(str, err.absolute_schema_path))})"}
    except Exception as e:
        out = {"ok": False, "error": f"{type(e).__name__}: {e}"}
    print(json.dumps(out), flush=True)
"#;

struct Validator {
    _child: Child,
    io: Mutex<(ChildStdin, BufReader<ChildStdout>)>,
}

fn validator() -> Result<&'static Validator, String> {
    static V: OnceLock<Result<Validator, String>> = OnceLock::new();
    V.get_or_init(|| {
        let mut child = Command::new("python3")
            .args(["-c", SCRIPT])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("python3 (with jsonschema) is needed to validate answers: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        Ok(Validator {
            _child: child,
            io: Mutex::new((stdin, stdout)),
        })
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// `Ok` when `instance` is valid under `schema`; else the validator's best error, with where.
pub fn validate(schema: &Value, instance: &Value) -> Result<(), String> {
    let v = validator()?;
    let mut io = v.io.lock().map_err(|e| e.to_string())?;
    let (stdin, stdout) = &mut *io;
    let line = json!({ "schema": schema, "instance": instance }).to_string();
    writeln!(stdin, "{line}").map_err(|e| format!("the validator stopped: {e}"))?;
    let mut answer = String::new();
    stdout
        .read_line(&mut answer)
        .map_err(|e| format!("the validator stopped: {e}"))?;
    let answer: Value = serde_json::from_str(&answer)
        .map_err(|e| format!("the validator stopped (is jsonschema installed?): {e}"))?;
    if answer["ok"] == true {
        Ok(())
    } else {
        Err(answer["error"].as_str().unwrap_or("invalid").to_owned())
    }
}

/// Holds `result` (an answer of `tool`) to the `outputSchema` that tool declares, as listed by
/// `peer`'s server, the way the Python SDK does: structured content that breaks it is refused
/// (the model then receives nothing), and a tool with a schema must send structured content
/// unless it answered an error. An error's structured content is held to it too: each of
/// spool's schemas admits the error object.
///
/// # Errors
/// What broke the schema, with the answer; or why the tools could not be listed.
pub async fn hold_to_declared(
    peer: &rmcp::Peer<rmcp::RoleClient>,
    tool: &str,
    result: &rmcp::model::CallToolResult,
) -> Result<(), String> {
    let tools = peer.list_all_tools().await.map_err(|e| e.to_string())?;
    let Some(schema) = tools
        .iter()
        .find(|t| t.name == tool)
        .and_then(|t| t.output_schema.clone())
    else {
        return Ok(());
    };
    let schema = Value::Object((*schema).clone());
    match &result.structured_content {
        Some(v) => validate(&schema, v)
            .map_err(|e| format!("`{tool}` answered what its outputSchema refuses: {e}\n{v:#}")),
        None if result.is_error == Some(true) => Ok(()),
        None => Err(format!(
            "`{tool}` declares an outputSchema but answered no structured content"
        )),
    }
}
