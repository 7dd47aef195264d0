//! Where the bucket is: `SPOOL_STORE=s3://BUCKET/PREFIX`, the rest from the usual AWS
//! variables. Credentials are kept out of every message and of `Debug`.

use object_store::aws::{AmazonS3, AmazonS3Builder, S3ConditionalPut};
use object_store::{BackoffConfig, RetryConfig};

use crate::S3Error;

/// The `[store]` table of `spool.toml`: the same settings as `SPOOL_STORE` and the variables
/// (which win when set). Credentials are never read from the file: they come from the
/// environment, or the machine's role.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreSection {
    /// `s3://BUCKET/PREFIX`.
    pub url: String,
    /// A self-hosted server (`http://` allows plain HTTP).
    #[serde(default)]
    pub endpoint: Option<String>,
    #[serde(default)]
    pub region: Option<String>,
    #[serde(default)]
    pub path_style: Option<bool>,
    #[serde(default)]
    pub stale_after_s: Option<f64>,
}

impl StoreSection {
    /// The settings, with the variables of `var` taking precedence over the file.
    pub fn settings(&self, var: impl Fn(&str) -> Option<String>) -> Result<S3Settings, S3Error> {
        S3Settings::from_url(&self.url, |name| {
            var(name).or_else(|| match name {
                "AWS_ENDPOINT_URL" => self.endpoint.clone(),
                "AWS_REGION" => self.region.clone(),
                "SPOOL_S3_PATH_STYLE" => self.path_style.map(|p| p.to_string()),
                "SPOOL_S3_STALE_AFTER_S" => self.stale_after_s.map(|s| s.to_string()),
                _ => None,
            })
        })
    }
}

/// How long a capture may go without updating its manifest before readers call it stopped.
pub const DEFAULT_STALE_AFTER: std::time::Duration = std::time::Duration::from_mins(1);

/// How to reach the bucket.
#[derive(Clone)]
pub struct S3Settings {
    pub bucket: String,
    /// Key prefix inside the bucket (may be empty).
    pub prefix: String,
    /// A self-hosted server's URL (`AWS_ENDPOINT_URL`); AWS itself when absent.
    pub endpoint: Option<String>,
    pub region: String,
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<String>,
    /// Temporary credentials' token (`AWS_SESSION_TOKEN`). Without keys, the instance's or
    /// container's role is used, as the AWS tools do.
    pub session_token: Option<String>,
    /// Plain `http://` endpoints (self-hosted servers on a private network).
    pub allow_http: bool,
    /// `http://host/bucket/key` rather than `http://bucket.host/key` (most self-hosted servers).
    pub path_style: bool,
    /// A capture whose manifest has not changed for this long is read as interrupted (its
    /// machine stopped). The writer refreshes it every few seconds while it runs.
    pub stale_after: std::time::Duration,
}

impl std::fmt::Debug for S3Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Settings")
            .field("bucket", &self.bucket)
            .field("prefix", &self.prefix)
            .field("endpoint", &self.endpoint)
            .field("region", &self.region)
            .field("credentials", &self.access_key_id.as_ref().map(|_| "<set>"))
            .finish_non_exhaustive()
    }
}

impl S3Settings {
    /// Parses `s3://BUCKET/PREFIX` and reads `AWS_ENDPOINT_URL`, `AWS_REGION` (or
    /// `AWS_DEFAULT_REGION`), `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and
    /// `SPOOL_S3_PATH_STYLE` through `var`. An `http://` endpoint allows plain HTTP.
    /// `SPOOL_S3_STALE_AFTER_S` (default 60) is how long a capture may go without an update
    /// before other machines read it as interrupted.
    pub fn from_url(url: &str, var: impl Fn(&str) -> Option<String>) -> Result<Self, S3Error> {
        let rest = url.strip_prefix("s3://").ok_or_else(|| S3Error::Config {
            message: format!("`{url}` is not an s3:// URL"),
        })?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(S3Error::Config {
                message: format!("`{url}` names no bucket: use s3://BUCKET/PREFIX"),
            });
        }
        let endpoint = var("AWS_ENDPOINT_URL").or_else(|| var("AWS_ENDPOINT"));
        let allow_http = endpoint
            .as_deref()
            .is_some_and(|e| e.starts_with("http://"));
        let path_style =
            var("SPOOL_S3_PATH_STYLE").map_or(endpoint.is_some(), |v| v != "0" && v != "false");
        Ok(Self {
            bucket: bucket.to_owned(),
            prefix: prefix.trim_matches('/').to_owned(),
            endpoint,
            region: var("AWS_REGION")
                .or_else(|| var("AWS_DEFAULT_REGION"))
                .unwrap_or_else(|| "us-east-1".into()),
            access_key_id: var("AWS_ACCESS_KEY_ID"),
            secret_access_key: var("AWS_SECRET_ACCESS_KEY"),
            session_token: var("AWS_SESSION_TOKEN"),
            allow_http,
            path_style,
            stale_after: match var("SPOOL_S3_STALE_AFTER_S") {
                None => DEFAULT_STALE_AFTER,
                Some(v) => v
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s > 0.0)
                    .and_then(|s| std::time::Duration::try_from_secs_f64(s).ok())
                    .ok_or_else(|| S3Error::Config {
                        message: format!(
                            "SPOOL_S3_STALE_AFTER_S must be a positive number of seconds (got `{v}`)"
                        ),
                    })?,
            },
        })
    }

    /// The bucket in words, for messages: never the credentials.
    pub fn describe(&self) -> String {
        let url = if self.prefix.is_empty() {
            format!("s3://{}", self.bucket)
        } else {
            format!("s3://{}/{}", self.bucket, self.prefix)
        };
        match &self.endpoint {
            Some(e) => format!("{url} at {e}"),
            None => format!("{url} ({})", self.region),
        }
    }

    pub(crate) fn build(&self) -> Result<AmazonS3, S3Error> {
        let mut b = AmazonS3Builder::new()
            .with_bucket_name(&self.bucket)
            .with_region(&self.region)
            .with_allow_http(self.allow_http)
            .with_virtual_hosted_style_request(!self.path_style)
            // If-None-Match and If-Match: create-if-absent and etag-conditional updates.
            .with_conditional_put(S3ConditionalPut::ETagMatch)
            // Retries with backoff, but an answer within seconds when the bucket is gone.
            .with_retry(RetryConfig {
                backoff: BackoffConfig::default(),
                max_retries: 3,
                retry_timeout: std::time::Duration::from_secs(10),
            });
        if let Some(e) = &self.endpoint {
            b = b.with_endpoint(e);
        }
        if let Some(k) = &self.access_key_id {
            b = b.with_access_key_id(k);
        }
        if let Some(s) = &self.secret_access_key {
            b = b.with_secret_access_key(s);
        }
        if let Some(t) = &self.session_token {
            b = b.with_token(t);
        }
        b.build().map_err(|e| S3Error::Config {
            message: format!("{}: {e}", self.describe()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_and_the_environment_make_the_settings() {
        let env = |k: &str| match k {
            "AWS_ENDPOINT_URL" => Some("http://127.0.0.1:8333".to_owned()),
            "AWS_ACCESS_KEY_ID" => Some("key".to_owned()),
            "AWS_SECRET_ACCESS_KEY" => Some("very-secret".to_owned()),
            _ => None,
        };
        let s =
            S3Settings::from_url("s3://artifacts/team/a", env).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.bucket, "artifacts");
        assert_eq!(s.prefix, "team/a");
        assert!(s.allow_http && s.path_style);
        assert_eq!(
            s.describe(),
            "s3://artifacts/team/a at http://127.0.0.1:8333"
        );
        assert!(!format!("{s:?}").contains("very-secret"));
        assert!(S3Settings::from_url("https://x", env).is_err());
        assert!(S3Settings::from_url("s3:///x", env).is_err());
    }
}
