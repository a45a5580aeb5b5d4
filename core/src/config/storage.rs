//! The `storage` section: where attachments are kept. A local directory
//! (`STORAGE_URL=file:///var/lib/supportdesk/files`), the default of a development setup, or
//! any S3-compatible store (`STORAGE_URL=s3://bucket[/prefix]` with `S3_ENDPOINT`,
//! `S3_REGION`, `S3_ALLOW_HTTP` and the credentials `AWS_ACCESS_KEY_ID` /
//! `AWS_SECRET_ACCESS_KEY`). Production has no default: files kept on one pod's disk would be
//! lost with it and unseen by the other replicas.

use std::path::PathBuf;

use secrecy::SecretString;
use serde::Deserialize;

use super::{ConfigError, invalid, parse_bool};

/// Where objects live.
#[derive(Debug, Clone)]
pub enum StorageLocation {
    /// A directory of this machine (absolute).
    Directory(PathBuf),
    /// An S3-compatible bucket, objects under `prefix` (empty for the bucket's root).
    S3(S3Location),
}

#[derive(Debug, Clone)]
pub struct S3Location {
    pub bucket: String,
    pub prefix: String,
    /// `S3_ENDPOINT`: the store's URL; AWS S3's regional endpoint when unset.
    pub endpoint: Option<String>,
    /// `S3_REGION` (default `us-east-1`).
    pub region: String,
    /// `S3_ALLOW_HTTP=true`: a plain-http endpoint (a store inside the cluster).
    pub allow_http: bool,
    /// `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`; unset, the store's own ways apply
    /// (instance metadata, web identity).
    pub credentials: Option<(String, SecretString)>,
}

#[derive(Debug, Clone)]
pub struct StorageSettings {
    pub location: StorageLocation,
    /// `STORAGE_WORKSPACE_QUOTA_BYTES`: what one workspace's files may take (default 10 GB).
    pub workspace_quota_bytes: i64,
    /// `STORAGE_DELETE_BATCH`: objects one request deletes when a workspace goes (default
    /// 1000, S3's most per request).
    pub delete_batch: usize,
}

/// 10 GB.
pub const DEFAULT_WORKSPACE_QUOTA: i64 = 10_000_000_000;

#[derive(Debug, Default, Deserialize)]
pub(super) struct Raw {
    storage_url: Option<String>,
    s3_endpoint: Option<String>,
    s3_region: Option<String>,
    s3_allow_http: Option<String>,
    aws_access_key_id: Option<String>,
    aws_secret_access_key: Option<String>,
    storage_workspace_quota_bytes: Option<String>,
    storage_delete_batch: Option<String>,
}

fn set(value: Option<String>) -> Option<String> {
    value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}

impl StorageSettings {
    pub(super) fn from_raw(raw: Raw, development: bool) -> Result<Self, ConfigError> {
        let url = match set(raw.storage_url) {
            Some(url) => url,
            None if development => {
                let dir = std::env::current_dir()
                    .map_err(|e| invalid("STORAGE_URL", format!("no working directory: {e}")))?
                    .join("storage");
                format!("file://{}", dir.display())
            }
            None => {
                return Err(ConfigError::Missing {
                    name: "STORAGE_URL",
                });
            }
        };
        let location = if let Some(path) = url.strip_prefix("file://") {
            let path = PathBuf::from(path);
            if !path.is_absolute() {
                return Err(invalid(
                    "STORAGE_URL",
                    "a file:// URL names an absolute directory (file:///var/lib/...)",
                ));
            }
            StorageLocation::Directory(path)
        } else if let Some(rest) = url.strip_prefix("s3://") {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(invalid("STORAGE_URL", "s3:// URL without a bucket"));
            }
            let credentials = match (set(raw.aws_access_key_id), set(raw.aws_secret_access_key)) {
                (Some(id), Some(secret)) => Some((id, SecretString::from(secret))),
                (None, None) => None,
                _ => {
                    return Err(invalid(
                        "AWS_ACCESS_KEY_ID",
                        "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together",
                    ));
                }
            };
            let allow_http = match set(raw.s3_allow_http) {
                Some(v) => parse_bool(&v).map_err(|e| invalid("S3_ALLOW_HTTP", e))?,
                None => false,
            };
            let endpoint = set(raw.s3_endpoint);
            if let Some(endpoint) = &endpoint
                && endpoint.starts_with("http://")
                && !allow_http
            {
                return Err(invalid(
                    "S3_ENDPOINT",
                    "a plain-http endpoint needs S3_ALLOW_HTTP=true",
                ));
            }
            StorageLocation::S3(S3Location {
                bucket: bucket.to_owned(),
                prefix: prefix.trim_matches('/').to_owned(),
                endpoint,
                region: set(raw.s3_region).unwrap_or_else(|| "us-east-1".to_owned()),
                allow_http,
                credentials,
            })
        } else {
            return Err(invalid(
                "STORAGE_URL",
                "expected file:///absolute/dir or s3://bucket[/prefix]",
            ));
        };
        let workspace_quota_bytes = match set(raw.storage_workspace_quota_bytes) {
            None => DEFAULT_WORKSPACE_QUOTA,
            Some(v) => v.parse::<i64>().ok().filter(|n| *n > 0).ok_or_else(|| {
                invalid(
                    "STORAGE_WORKSPACE_QUOTA_BYTES",
                    format!("expected a positive number of bytes, got {v:?}"),
                )
            })?,
        };
        let delete_batch = match set(raw.storage_delete_batch) {
            None => 1000,
            Some(v) => v
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=1000).contains(n))
                .ok_or_else(|| {
                    invalid(
                        "STORAGE_DELETE_BATCH",
                        format!("expected 1 to 1000, got {v:?}"),
                    )
                })?,
        };
        Ok(Self {
            location,
            workspace_quota_bytes,
            delete_batch,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(pairs: &[(&str, &str)], development: bool) -> Result<StorageSettings, ConfigError> {
        let env = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let raw: Raw = super::super::gather(None, Some(env))?.try_deserialize()?;
        StorageSettings::from_raw(raw, development)
    }

    #[test]
    fn production_names_its_store() {
        assert!(matches!(
            settings(&[], false),
            Err(ConfigError::Missing {
                name: "STORAGE_URL"
            })
        ));
        let dev = settings(&[], true).unwrap();
        assert!(matches!(dev.location, StorageLocation::Directory(ref p) if p.is_absolute()));
        assert_eq!(dev.workspace_quota_bytes, DEFAULT_WORKSPACE_QUOTA);
    }

    #[test]
    fn directories_are_absolute() {
        assert!(settings(&[("STORAGE_URL", "file://files")], false).is_err());
        let s = settings(&[("STORAGE_URL", "file:///var/lib/sd")], false).unwrap();
        assert!(
            matches!(s.location, StorageLocation::Directory(ref p) if p == &PathBuf::from("/var/lib/sd"))
        );
    }

    #[test]
    fn s3_takes_bucket_prefix_endpoint_and_credentials() {
        let s = settings(
            &[
                ("STORAGE_URL", "s3://files/desk/"),
                ("S3_ENDPOINT", "http://minio:9000"),
                ("S3_ALLOW_HTTP", "true"),
                ("AWS_ACCESS_KEY_ID", "id"),
                ("AWS_SECRET_ACCESS_KEY", "secret"),
                ("STORAGE_WORKSPACE_QUOTA_BYTES", "1000"),
            ],
            false,
        )
        .unwrap();
        let StorageLocation::S3(s3) = &s.location else {
            panic!("expected S3: {s:?}");
        };
        assert_eq!((s3.bucket.as_str(), s3.prefix.as_str()), ("files", "desk"));
        assert_eq!(s3.region, "us-east-1");
        assert!(s3.credentials.is_some());
        assert_eq!(s.workspace_quota_bytes, 1000);
        assert!(!format!("{s:?}").contains("secret\""));
    }

    #[test]
    fn refusals() {
        for bad in [
            vec![("STORAGE_URL", "ftp://x")],
            vec![("STORAGE_URL", "s3://")],
            vec![
                ("STORAGE_URL", "s3://b"),
                ("S3_ENDPOINT", "http://minio:9000"),
            ],
            vec![("STORAGE_URL", "s3://b"), ("AWS_ACCESS_KEY_ID", "id")],
            vec![
                ("STORAGE_URL", "s3://b"),
                ("STORAGE_WORKSPACE_QUOTA_BYTES", "0"),
            ],
            vec![("STORAGE_URL", "s3://b"), ("STORAGE_DELETE_BATCH", "5000")],
        ] {
            assert!(settings(&bad, false).is_err(), "{bad:?} was accepted");
        }
    }
}
