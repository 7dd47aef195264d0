//! jq over a stored JSON answer (jaq, the Rust jq): find one record, or count, without paging
//! through the whole list. The program's output is stored as an artifact, one compact JSON
//! value a line, so a large output pages honestly, and the same program over the same ref is
//! answered from that copy.
//!
//! A stored artifact never changes, so its ref and the program pin the output. The program
//! runs on the parsed document, which is the one place spool holds a whole artifact in memory:
//! inputs past [`MAX_INPUT`] are refused with the search that reads them instead. The program
//! cannot read the environment (`env` is not offered: it would hand out the server's secrets)
//! nor end the process (`halt` ends the query, not spool).

use std::time::{Duration, Instant};

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data};
use jaq_json::Val;
use serde_json::json;

use crate::clock;
use crate::envelope::{NextCall, QueryVersion, Source, Version};
use crate::error::{Error, Result};
use crate::render::{human_bytes, thousands};
use crate::spell::Words;
use crate::store::{ArtifactMeta, NewArtifact, Store};

/// The largest artifact a program runs over: parsed, a document takes several times its size.
pub const MAX_INPUT: u64 = 256 << 20;

/// The most output a program may make before it is stopped.
pub const MAX_OUTPUT: usize = 64 << 20;

/// How long a program may run.
pub const MAX_TIME: Duration = Duration::from_secs(30);

type Filter = jaq_core::compile::Filter<jaq_core::Native<data::JustLut<Val>>>;

/// Compiles `program` (to run over `reference`), or says where it is wrong.
fn compile(program: &str, reference: &str) -> Result<Filter> {
    let invalid = |what: String| {
        Error::invalid_words(
            format!("the jq program does not compile: {what}").into(),
            Words::text("fix the program (jq syntax, as `jq` takes it), e.g. ").call(
                NextCall::new(
                    "query",
                    [("ref", json!(reference)), ("jq", json!("length"))],
                ),
            ),
        )
    };
    let at = |s: &str| (s.as_ptr() as usize).saturating_sub(program.as_ptr() as usize);
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs());
    let funs = jaq_core::funs()
        .chain(jaq_std::funs().filter(|(name, _, _)| *name != "env"))
        .chain(jaq_json::funs());
    let loader = Loader::new(defs);
    let arena = Arena::default();
    let file = File {
        code: program,
        path: (),
    };
    let modules = loader.load(&arena, file).map_err(|errors| {
        use jaq_core::load::Error as Load;
        let mut said = Vec::new();
        for (_, e) in errors {
            match e {
                Load::Lex(v) => said.extend(v.iter().map(|(expected, s)| {
                    format!("expected {} at char {}", expected.as_str(), at(s))
                })),
                Load::Parse(v) => said.extend(v.iter().map(|(expected, s)| {
                    format!("expected {} at char {}", expected.as_str(), at(s))
                })),
                Load::Io(v) => said.extend(v.into_iter().map(|(_, why)| why)),
            }
        }
        said.dedup();
        invalid(said.join("; "))
    })?;
    Compiler::default()
        .with_funs(funs)
        .compile(modules)
        .map_err(|errors| {
            let said: Vec<String> = errors
                .iter()
                .flat_map(|(_, v)| v.iter())
                .map(|(name, undefined)| match *name {
                    // Not an oversight: it would read the server's environment (its secrets).
                    "env" => format!(
                        "`env` at char {} is not offered: it would read spool's environment (its secrets)",
                        at(name)
                    ),
                    _ => format!(
                        "undefined {} `{name}` at char {}",
                        undefined.as_str(),
                        at(name)
                    ),
                })
                .collect();
            invalid(said.join("; "))
        })
}

/// The artifact's content as jq's input: one JSON document, or a value a line (an item view,
/// JSON lines) read as their array.
fn input(bytes: &[u8], reference: &str) -> Result<(Val, &'static str)> {
    let whole = match jaq_json::read::parse_single(bytes) {
        Ok(v) => return Ok((v, "document")),
        Err(e) => e,
    };
    let mut values = Vec::new();
    for (n, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match jaq_json::read::parse_single(line) {
            Ok(v) => values.push(v),
            // Not JSON lines either: the document's own error says where it breaks.
            Err(_) if n == 0 || values.is_empty() => return Err(not_json(reference, &whole)),
            Err(e) => {
                return Err(not_json(
                    reference,
                    &format!("line {} is not JSON ({e})", n + 1),
                ));
            }
        }
    }
    if values.is_empty() {
        return Err(not_json(reference, &whole));
    }
    Ok((Val::Arr(values.into()), "lines"))
}

fn not_json(reference: &str, why: &dyn std::fmt::Display) -> Error {
    Error::invalid_words(
        format!("`{reference}` is not JSON, nor JSON lines: {why}").into(),
        Words::text("search it instead, e.g. ")
            .call(NextCall::search_template(("ref", json!(reference)))),
    )
}

/// Runs `program` over the JSON stored as `reference`, stores its output (or finds it stored),
/// and returns the output's artifact.
pub fn run_query(store: &Store, reference: &str, program: &str) -> Result<ArtifactMeta> {
    let filter = compile(program, reference)?;
    let reader = store.open_artifact(reference)?;
    let meta = reader.meta().clone();
    let key = format!("query:{reference}:{}", crate::refs::digest(&[program]));
    if let Some(found) = store.find_by_dedup(&key)? {
        return Ok(found);
    }
    if meta.bytes > MAX_INPUT {
        return Err(Error::invalid_words(
            format!(
                "`{reference}` is {}, more than the {} a jq program runs over",
                human_bytes(meta.bytes),
                human_bytes(MAX_INPUT)
            )
            .into(),
            Words::text("find the records by search instead, e.g. ")
                .call(NextCall::search_template(("ref", json!(reference)))),
        ));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.bytes).unwrap_or(0));
    std::io::Read::read_to_end(&mut reader.verified_stream()?, &mut bytes)
        .map_err(|e| Error::io(reference, e))?;
    let (value, read_as) = input(&bytes, reference)?;
    drop(bytes);
    let ctx = Ctx::<data::JustLut<Val>>::new(&filter.lut, Vars::new([]));
    let started = Instant::now();
    let mut out = Vec::new();
    let mut values = 0u64;
    for result in filter.id.run((ctx, value)) {
        let v = match result {
            Ok(v) => v,
            Err(exn) => {
                let why = match exn.get_err() {
                    Ok(e) => e.to_string(),
                    Err(exn) => match exn.get_halt() {
                        Ok(code) => format!("it called halt (exit code {code})"),
                        Err(_) => "it stopped on an unknown exception".to_owned(),
                    },
                };
                return Err(Error::invalid(
                    format!(
                        "the jq program failed after {} values: {why}",
                        thousands(values)
                    ),
                    Some(
                        "check the program against the data's shape, e.g. with `.[0] | keys`"
                            .into(),
                    ),
                ));
            }
        };
        out.extend_from_slice(v.to_string().as_bytes());
        out.push(b'\n');
        values += 1;
        if out.len() > MAX_OUTPUT {
            return Err(Error::invalid(
                format!(
                    "the jq program's output passed {} after {} values",
                    human_bytes(MAX_OUTPUT as u64),
                    thousands(values)
                ),
                Some("narrow it (`select`, `limit(n; f)`) or count with `length`".into()),
            ));
        }
        if started.elapsed() > MAX_TIME {
            return Err(Error::Timeout {
                what: format!("the jq program ({} values made so far)", thousands(values)),
                seconds: MAX_TIME.as_secs_f64(),
            });
        }
    }
    let version = QueryVersion {
        of: reference.to_owned(),
        jq: program.to_owned(),
        read_as: read_as.to_owned(),
        values,
        ran_at: clock::rfc3339(clock::now_ms()),
        ..QueryVersion::default()
    };
    // The output is of the stored copy: what the copy holds of its source, it holds of it.
    let mut new = NewArtifact::new(
        Source::new(
            format!("jq {program} over {reference}"),
            Version::Query(version),
        )
        .with_coverage(meta.source.coverage()),
    );
    new.dedup_key = Some(key);
    new.redo = Some(NextCall::new(
        "query",
        [("ref", json!(reference)), ("jq", json!(program))],
    ));
    store.put(new, &out)
}
