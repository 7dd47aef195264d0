//! The configuration every front end reads the same way: the store (`SPOOL_HOME`, the quota
//! and TTL variables, a shared bucket from `SPOOL_STORE` or the settings file) and where
//! `ci_log` reads GitHub Actions. Read here once, so the Python package needs the tools, not
//! the command line.

use spool_core::{Error, Store, StoreConfig};

/// Opens the store the command uses: in `home` (default: `SPOOL_HOME`, else the platform's
/// data directory), sized by `SPOOL_TTL`, `SPOOL_QUOTA` and `SPOOL_CACHE`, with the shared
/// store of `SPOOL_STORE`, `SPOOL_CONFIG` or `home/spool.toml` behind it.
pub fn open_store(home: Option<&std::path::Path>) -> Result<Store, Error> {
    open_store_with(home, None)
}

/// [`open_store`], with the settings file `spool wrap --config` names (its `[store]` table is
/// the shared store's, when `SPOOL_CONFIG` names no other).
pub fn open_store_with(
    home: Option<&std::path::Path>,
    config_file: Option<&std::path::Path>,
) -> Result<Store, Error> {
    let home = home.map_or_else(Store::default_home, std::path::Path::to_path_buf);
    let store = Store::open(&home, store_config()?)?;
    shared(store, &home, config_file)
}

/// `SPOOL_TTL` (seconds an artifact lives), `SPOOL_QUOTA` (bytes kept), `SPOOL_CACHE` (bytes of
/// copies read through from a shared store) and `SPOOL_CAPTURE_LIMIT` (bytes one output keeps)
/// override the defaults.
fn store_config() -> Result<StoreConfig, Error> {
    let mut config = StoreConfig::default();
    let number = |name: &str| -> Result<Option<u64>, Error> {
        match std::env::var(name) {
            Ok(v) => v
                .trim()
                .parse::<u64>()
                .map(Some)
                .map_err(|_| Error::InvalidArgument {
                    message: format!("`{name}` must be a whole number (got `{v}`)").into(),
                    hint: Some(format!("unset `{name}` to use the default").into()),
                }),
            Err(_) => Ok(None),
        }
    };
    if let Some(secs) = number("SPOOL_TTL")? {
        config.ttl = std::time::Duration::from_secs(secs);
    }
    if let Some(bytes) = number("SPOOL_QUOTA")? {
        config.quota_bytes = bytes;
    }
    if let Some(bytes) = number("SPOOL_CACHE")? {
        config.cache_bytes = bytes;
    }
    if let Some(bytes) = number("SPOOL_CAPTURE_LIMIT")? {
        config.capture_limit_bytes = Some(bytes);
    }
    Ok(config)
}

/// `SPOOL_STORE=s3://BUCKET/PREFIX`, or a `[store]` table in `spool.toml`, puts the shared
/// store behind the local one: artifacts are published there as they are made, and refs made
/// elsewhere are read through from it.
fn shared(
    store: Store,
    home: &std::path::Path,
    config_file: Option<&std::path::Path>,
) -> Result<Store, Error> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let settings = match var("SPOOL_STORE") {
        Some(url) => spool_s3::S3Settings::from_url(&url, var),
        None => match store_section(home, config_file)? {
            Some(section) => section.settings(var),
            None => return Ok(store),
        },
    }
    .map_err(spool_s3::S3Error::into_core)?;
    let remote = spool_s3::SharedStore::connect(&settings).map_err(spool_s3::S3Error::into_core)?;
    store.set_remote(std::sync::Arc::new(remote));
    Ok(store)
}

/// The `[store]` table of the settings file: `SPOOL_CONFIG`, else the file `spool wrap
/// --config` names, else `SPOOL_HOME/spool.toml` if there is one.
fn store_section(
    home: &std::path::Path,
    config_file: Option<&std::path::Path>,
) -> Result<Option<spool_s3::StoreSection>, Error> {
    #[derive(serde::Deserialize)]
    struct File {
        store: Option<spool_s3::StoreSection>,
    }
    let Some((path, text)) = settings_text(home, config_file)? else {
        return Ok(None);
    };
    let file: File = toml::from_str(&text).map_err(|e| Error::InvalidArgument {
        message: format!("`{}`: {e}", path.display()).into(),
        hint: Some(
            "`[store]` takes `url` (s3://BUCKET/PREFIX), `endpoint`, `region`, `path_style` and `stale_after_s`; credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY".into(),
        ),
    })?;
    Ok(file.store)
}

/// Where `ci_log` reads GitHub Actions: `GITHUB_API_URL` and `GITHUB_TOKEN` (or `GH_TOKEN`),
/// or the `[ci]` table of the settings file (`api_url`, and `token_env`: the name of the
/// variable that holds the token, never the token itself).
pub fn ci_options() -> Result<spool_fetch::github::CiOptions, Error> {
    ci_options_in(&Store::default_home())
}

/// [`ci_options`], with the settings file of the store in `home`.
pub fn ci_options_in(home: &std::path::Path) -> Result<spool_fetch::github::CiOptions, Error> {
    #[derive(serde::Deserialize)]
    struct File {
        ci: Option<spool_fetch::github::CiSection>,
    }
    let section = match settings_text(home, None)? {
        Some((path, text)) => {
            toml::from_str::<File>(&text)
                .map_err(|e| Error::InvalidArgument {
                    message: format!("`{}`: {e}", path.display()).into(),
                    hint: Some(
                        "`[ci]` takes `api_url` and `token_env` (the name of the variable that holds the token)".into(),
                    ),
                })?
                .ci
        }
        None => None,
    };
    Ok(spool_fetch::github::CiOptions::from_env_and(
        section.as_ref(),
    ))
}

/// The settings file and its text: `SPOOL_CONFIG`, else `config_file`, else
/// `HOME/spool.toml` of the store's home if there is one.
fn settings_text(
    home: &std::path::Path,
    config_file: Option<&std::path::Path>,
) -> Result<Option<(std::path::PathBuf, String)>, Error> {
    let named = std::env::var_os("SPOOL_CONFIG").map(std::path::PathBuf::from);
    let must_exist = named.is_some() || config_file.is_some();
    let path = match named {
        Some(p) => p,
        None => match config_file {
            Some(p) => p.to_owned(),
            None => home.join("spool.toml"),
        },
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(Some((path, text))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !must_exist => Ok(None),
        Err(e) => Err(Error::InvalidArgument {
            message: format!("cannot read `{}`: {e}", path.display()).into(),
            hint: Some("name a readable settings file, or unset `SPOOL_CONFIG`".into()),
        }),
    }
}
