//! `spool artifacts`

use std::sync::Arc;

use spool_core::{Error, Store};
use spool_toolset::Control;
use spool_toolset::tools::{ARTIFACTS_PAGE, Artifacts, ArtifactsParams};

use crate::cli::ArtifactsArgs;
use crate::output;

/// The flags as the tool's arguments, with the command line's page and cap where none is given.
pub fn params(args: &ArtifactsArgs) -> ArtifactsParams {
    ArtifactsParams {
        limit: Some(args.call.limit.unwrap_or(ARTIFACTS_PAGE)),
        max_tokens: Some(
            args.call
                .max_tokens
                .unwrap_or(spool_core::DEFAULT_MAX_TOKENS),
        ),
        ..args.call.clone()
    }
}

pub fn artifacts(store: &Arc<Store>, args: &ArtifactsArgs) -> Result<u8, Error> {
    let json = args.common.json;
    let params = || Ok(params(args));
    let answer = super::answered::<Artifacts>(store, json, false, params, Control::default())?;
    output::answer(&answer, json);
    Ok(0)
}
