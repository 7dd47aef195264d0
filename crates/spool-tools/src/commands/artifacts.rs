//! `spool artifacts`

use std::sync::Arc;

use spool_core::{Error, Store};
use spool_toolset::Control;
use spool_toolset::tools::{Artifacts, ArtifactsParams};

use crate::cli::ArtifactsArgs;
use crate::output;

pub fn artifacts(store: &Arc<Store>, args: &ArtifactsArgs) -> Result<u8, Error> {
    let json = args.common.json;
    let params = || {
        Ok(ArtifactsParams {
            kind: args.kind.clone(),
            limit: Some(args.limit),
            cursor: args.cursor.clone(),
            max_tokens: Some(args.max_tokens),
        })
    };
    let answer = super::answered::<Artifacts>(store, json, false, params, Control::default())?;
    output::answer(&answer, json);
    Ok(0)
}
