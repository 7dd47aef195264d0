//! `spool artifacts`

use spool_core::answer::params::ArtifactsParams;
use spool_core::answer::tools;
use spool_core::{Error, Store};

use crate::cli::ArtifactsArgs;
use crate::output;

pub fn artifacts(store: &Store, args: &ArtifactsArgs) -> Result<u8, Error> {
    let json = args.common.json;
    let params = || {
        Ok(ArtifactsParams {
            kind: args.kind.clone(),
            limit: Some(args.limit),
            cursor: args.cursor.clone(),
            max_tokens: Some(args.max_tokens),
        })
    };
    let answer = super::answered(store, "artifacts", json, params, tools::artifacts)?;
    output::answer(&answer, json);
    Ok(0)
}
