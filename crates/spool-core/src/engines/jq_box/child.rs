//! The box's side: bounds itself first (address space, CPU, no files, no core), then reads the
//! program and the input from stdin and runs the program on a thread with the stack it was given.
//! Output goes to stdout as it is made; how it ended goes to stderr as one status line. Nothing
//! here outlives a bound: the kernel ends the process, and the parent says which bound it was.

use std::io::{BufRead, BufWriter, Read, Write};

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data};
use jaq_json::Val;
use nix::sys::resource::{Resource, setrlimit};

use super::{Limits, MAX_PROGRAM, OUTPUT_MARK, STATUS_MARK, Status};
use super::{depth, json_out};

type Filter = jaq_core::compile::Filter<jaq_core::Native<data::JustLut<Val>>>;

/// What the parent sends before the input.
#[derive(serde::Deserialize)]
pub(super) struct Request {
    pub jq: String,
    pub limits: Limits,
}

/// Serves one program and returns the exit code.
pub fn serve() -> u8 {
    let mut status = run_request();
    // jq's words quote values (`cannot parse "[[[…"`): the status line stays one short line.
    if let Status::Compile { why }
    | Status::NotJson { why }
    | Status::Failed { why, .. }
    | Status::Panic { why }
    | Status::Refused { why } = &mut status
    {
        shorten(why);
    }
    let mut line = vec![STATUS_MARK];
    line.extend(serde_json::to_vec(&status).unwrap_or_default());
    line.push(b'\n');
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(&line);
    let _ = err.flush();
    u8::from(!matches!(status, Status::Done { .. }))
}

/// The most of jq's words kept in a status.
const MAX_WORDS: usize = 1_000;

fn shorten(why: &mut String) {
    *why = crate::clip::clipped(std::mem::take(why), MAX_WORDS);
}

/// The kernel's bounds on this process; none can be raised again by what runs after (the hard
/// limits are lowered too, and an unprivileged process cannot raise those).
fn bound_self(limits: &Limits) -> nix::Result<()> {
    let cpu = limits.time.as_secs() + 1;
    lower(Resource::RLIMIT_CORE, 0)?;
    lower(Resource::RLIMIT_FSIZE, 0)?;
    lower(Resource::RLIMIT_CPU, cpu)?;
    lower(Resource::RLIMIT_AS, limits.memory)?;
    // stdin, stdout and stderr are open; nothing else may be.
    lower(Resource::RLIMIT_NOFILE, 3)
}

/// Sets `resource` to `value`, or to the hard limit the box was started under if that is
/// lower, and the hard limit to the same: nothing the program does can raise it (a jq program
/// makes no system call of its own), and a lower limit the operator set holds.
fn lower(resource: Resource, value: u64) -> nix::Result<()> {
    let (_, hard) = nix::sys::resource::getrlimit(resource)?;
    let to = value.min(hard);
    setrlimit(resource, to, to)
}

fn run_request() -> Status {
    let mut stdin = std::io::stdin().lock();
    let mut head = Vec::new();
    let limit = (MAX_PROGRAM * 6 + 64) as u64;
    if let Err(e) = (&mut stdin).take(limit).read_until(b'\n', &mut head) {
        return Status::Refused {
            why: format!("reading the request failed: {e}"),
        };
    }
    let request: Request = match serde_json::from_slice(&head) {
        Ok(r) => r,
        Err(e) => {
            return Status::Refused {
                why: format!("the request is not understood: {e}"),
            };
        }
    };
    let limits = request.limits.within();
    if let Err(why) = bound_self(&limits) {
        return Status::Refused {
            why: format!("the box could not bound itself: {why}"),
        };
    }
    let mut input = Vec::new();
    if let Err(e) = stdin.read_to_end(&mut input) {
        return Status::Refused {
            why: format!("reading the input failed: {e}"),
        };
    }
    let worker =
        spool_walk::workers::spawn_sized("jq", limits.stack, move || work(&request.jq, &input));
    match worker.map(std::thread::JoinHandle::join) {
        Ok(Ok(status)) => status,
        Ok(Err(panic)) => Status::Panic {
            why: panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "jaq panicked".to_owned()),
        },
        Err(e) => Status::Refused {
            why: format!("the program's thread could not start: {e}"),
        },
    }
}

fn work(program: &str, input: &[u8]) -> Status {
    if let Some((byte, line)) = depth::too_deep(input, depth::MAX_DEPTH) {
        return Status::TooDeep { byte, line };
    }
    let filter = match compile(program) {
        Ok(f) => f,
        Err(why) => return Status::Compile { why },
    };
    let (value, read_as) = match parse(input) {
        Ok(v) => v,
        Err(why) => return Status::NotJson { why },
    };
    let stdout = std::io::stdout().lock();
    let mut out = BufWriter::with_capacity(1 << 16, stdout);
    if out.write_all(OUTPUT_MARK).is_err() {
        return Status::Refused {
            why: "the output was closed".into(),
        };
    }
    let ctx = Ctx::<data::JustLut<Val>>::new(&filter.lut, Vars::new([]));
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
                let _ = out.flush();
                return Status::Failed { values, why };
            }
        };
        // A closed output is the parent having stopped reading (a bound): it says which.
        if json_out::write_line(&mut out, &v).is_err() {
            break;
        }
        values += 1;
    }
    let _ = out.flush();
    Status::Done {
        read_as: read_as.to_owned(),
        values,
    }
}

/// Compiles `program`, or says where it is wrong.
fn compile(program: &str) -> Result<Filter, String> {
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
        said.join("; ")
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
            said.join("; ")
        })
}

/// The input: one JSON document, or a value a line (an item view, JSON lines) read as their
/// array.
fn parse(bytes: &[u8]) -> Result<(Val, &'static str), String> {
    let whole = match jaq_json::read::parse_single(bytes) {
        Ok(v) => return Ok((v, "document")),
        Err(e) => e.to_string(),
    };
    let mut values = Vec::new();
    for (n, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match jaq_json::read::parse_single(line) {
            Ok(v) => values.push(v),
            // Not JSON lines either: the document's own error says where it breaks.
            Err(_) if n == 0 || values.is_empty() => return Err(whole),
            Err(e) => return Err(format!("line {} is not JSON ({e})", n + 1)),
        }
    }
    if values.is_empty() {
        return Err(whole);
    }
    Ok((Val::Arr(values.into()), "lines"))
}
