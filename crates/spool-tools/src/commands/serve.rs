//! `spool serve`: the MCP server, on stdio or Streamable HTTP.

use std::io::Write as _;
use std::sync::Arc;

use spool_core::{Error, Store};
use spool_mcp::{Settings, SpoolServer};
use spool_walk::roots::Roots;

use crate::cli::ServeArgs;

pub fn serve(store: Arc<Store>, args: &ServeArgs) -> Result<u8, Error> {
    let dirs = if args.roots.is_empty() {
        vec![std::env::current_dir().map_err(|e| Error::Unavailable {
            what: "the working directory".into(),
            cause: e.to_string(),
        })?]
    } else {
        args.roots.clone()
    };
    let roots = Roots::new(&dirs)?;
    // This server answers from what it makes and its roots' files, not from every process
    // sharing the store (the same roots are the same server, across restarts and machines).
    let principal = spool_core::access::server_principal("serve", roots.dirs());
    store.set_principal(principal.clone());
    store.confine(spool_core::access::Access::new(
        principal,
        roots.dirs(),
        &args.trust,
    ));
    spool_core::window::check_default_cap(args.max_tokens)?;
    let settings = Settings {
        max_tokens: args.max_tokens,
        no_run: args.no_run,
        env_pass: args.env_pass.clone(),
        allow_private_network: args.allow_private_network,
        structured: args.structured == crate::cli::OnOff::On,
        ci: Some(crate::ci_options()?),
        ..Settings::default()
    };
    let server = SpoolServer::new(store, roots, settings);
    let runtime = super::runtime()?;
    let outcome = runtime.block_on(async {
        match args.http {
            Some(addr) => {
                spool_mcp::http::serve_http(
                    server,
                    addr,
                    args.token.clone(),
                    &args.allow_origins,
                    |bound| {
                        // stderr: a supervisor (or a test) reads the address from here.
                        let _ = writeln!(
                            std::io::stderr(),
                            "spool: serving MCP at http://{bound}/mcp"
                        );
                    },
                )
                .await
            }
            None => spool_mcp::serve_stdio(server).await,
        }
    });
    outcome.map_err(|e| Error::Unavailable {
        what: "the MCP server".into(),
        cause: e.to_string(),
    })?;
    Ok(0)
}
