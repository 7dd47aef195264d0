//! `spool wrap`: relays upstream MCP servers, storing their too-large answers and showing them
//! in part, with spool's `read`, `search` and `artifacts` beside their tools.

use std::io::Write as _;
use std::sync::Arc;

use spool_core::{Error, Store};
use spool_mcp::{Settings, SpoolServer};
use spool_proxy::{ProxyConfig, ProxyServer, UpstreamSpec};
use spool_walk::roots::Roots;

use crate::cli::WrapArgs;

fn invalid(message: String, hint: &str) -> Error {
    Error::InvalidArgument {
        message: message.into(),
        hint: Some(hint.to_owned().into()),
    }
}

/// Programs that run the server rather than name it.
const LAUNCHERS: [&str; 11] = [
    "npx", "uvx", "node", "python", "python3", "deno", "bun", "pipx", "uv", "sh", "bash",
];

/// The one upstream given by `--url` or after `--`.
fn one_upstream(args: &WrapArgs) -> Result<ProxyConfig, Error> {
    let mut spec = UpstreamSpec::default();
    match (&args.url, args.command.split_first()) {
        (Some(url), None) => spec.url = Some(url.clone()),
        (None, Some((cmd, rest))) => {
            spec.command = Some(cmd.clone());
            spec.args = rest.to_vec();
        }
        _ => {
            return Err(invalid(
                "give the upstream: a command after `--`, or `--url URL`".into(),
                "spool wrap -- npx -y @modelcontextprotocol/server-filesystem .",
            ));
        }
    }
    // The first word that is neither a launcher nor a flag names it: `npx -y
    // @modelcontextprotocol/server-filesystem /srv` is `server-filesystem`.
    let guessed = args
        .command
        .iter()
        .map(|w| w.rsplit('/').next().unwrap_or(w))
        .find(|w| !w.starts_with('-') && !w.is_empty() && !LAUNCHERS.contains(w))
        .unwrap_or("upstream");
    spec.name = spool_proxy::config::sanitize_name(args.name.as_deref().unwrap_or(guessed));
    Ok(ProxyConfig {
        lazy: false,
        store: None,
        upstreams: vec![spec],
    })
}

/// The upstreams: from `--config`, or the one given by `--url` or after `--`.
fn config(args: &WrapArgs) -> Result<ProxyConfig, Error> {
    let mut config = if let Some(path) = &args.config {
        if !args.command.is_empty() {
            return Err(invalid(
                "give either `--config FILE` or an upstream command after `--`, not both".into(),
                "spool wrap --config spool.toml, or spool wrap -- CMD ARGS...",
            ));
        }
        ProxyConfig::load(path).map_err(|e| {
            invalid(
                e.to_string(),
                "check the file against the example in docs/guide.md (spool wrap)",
            )
        })?
    } else {
        one_upstream(args)?
    };
    config.lazy |= args.lazy;
    for u in &mut config.upstreams {
        if let Some(t) = args.timeout {
            u.timeout_s = Some(t);
        }
        for p in &args.previews {
            let Some((tool, policy)) = p.split_once('=') else {
                return Err(invalid(
                    format!("`--preview {p}` is not TOOL=POLICY"),
                    "for example --preview tail_logs=tail",
                ));
            };
            u.preview.insert(tool.to_owned(), policy.to_owned());
        }
    }
    config
        .check()
        .map_err(|e| invalid(e.to_string(), "check the upstream's settings"))?;
    Ok(config)
}

pub fn wrap(store: Arc<Store>, args: &WrapArgs) -> Result<u8, Error> {
    let http = args.http;
    let token = args.token.clone();
    let origins = args.allow_origins.clone();
    spool_core::window::check_default_cap(args.max_tokens)?;
    let settings = Settings {
        max_tokens: args.max_tokens,
        no_run: true,
        structured: args.structured == crate::cli::OnOff::On,
        ..Settings::default()
    };
    let config = config(args)?;
    let cwd = std::env::current_dir().map_err(|e| Error::Unavailable {
        what: "the working directory".into(),
        cause: e.to_string(),
    })?;
    let roots = Roots::new(&[cwd])?;
    // The proxy answers from what it stored (its upstreams' results) and the files in its
    // working directory; the same upstreams there are the same proxy.
    let names: Vec<&str> = config.upstreams.iter().map(|u| u.name.as_str()).collect();
    let principal = format!(
        "{}@{}",
        spool_core::access::server_principal("wrap", roots.dirs()),
        names.join(",")
    );
    store.set_principal(principal.clone());
    store.confine(spool_core::access::Access::new(
        principal,
        roots.dirs(),
        &args.trust,
    ));
    let spool = SpoolServer::new(store, roots, settings);
    let runtime = super::runtime()?;
    let outcome = runtime.block_on(async {
        let proxy = ProxyServer::start(config, spool)
            .await
            .map_err(|e| match e {
                spool_proxy::ProxyError::Start(err) => err,
                other => Error::InvalidArgument {
                    message: other.to_string().into(),
                    hint: None,
                },
            })?;
        match http {
            Some(addr) => spool_mcp::http::serve_http(proxy, addr, token, &origins, |bound| {
                let _ = writeln!(
                    std::io::stderr(),
                    "spool: relaying MCP at http://{bound}/mcp"
                );
            })
            .await
            .map_err(|e| served(&e)),
            None => Box::pin(spool_mcp::serve_stdio(proxy))
                .await
                .map_err(|e| served(&e)),
        }
    });
    // Upstream children are killed when the runtime drops; do it before returning.
    drop(runtime);
    outcome?;
    Ok(0)
}

fn served(e: &spool_mcp::ServeError) -> Error {
    Error::Unavailable {
        what: "the proxy".into(),
        cause: e.to_string(),
    }
}
