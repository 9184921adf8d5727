//! `ownerscope serve` driven by real clients: the `kubectl` binary, a
//! kube-rs client, and the live backend (`src/cluster/`). Each test starts
//! its own server (the built binary) on a free port; they run in parallel.
//!
//! kubectl must be installed (`.ci/run` installs Debian's
//! `kubernetes-client` when it is missing): without it these tests fail
//! and say so, they do not skip.

#[path = "serve/clients.rs"]
mod clients;
#[path = "serve/compare.rs"]
mod compare;
#[path = "serve/crd_versions.rs"]
mod crd_versions;
#[path = "serve/durability.rs"]
mod durability;
#[path = "serve/explain.rs"]
mod explain;
#[path = "serve/field_validation.rs"]
mod field_validation;
#[path = "serve/immutable.rs"]
mod immutable;
#[path = "serve/kubectl.rs"]
mod kubectl;
mod live_support;
#[path = "serve/managed_fields.rs"]
mod managed_fields;
#[path = "serve/openapi_v2.rs"]
mod openapi_v2;
#[path = "serve/process.rs"]
mod process;
#[path = "serve/ui.rs"]
mod ui;

use std::io::{BufRead as _, BufReader, Read as _};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures::StreamExt as _;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{DeleteParams, PartialObjectMeta, Preconditions};
use kube::runtime::watcher::{self, Event};
use kube::{Api, Client};
use live_support::Live;
use ownerscope::cluster::LiveOptions;
use serde_json::Value;

/// How long a wait may last on a loaded machine (two cores shared with
/// other builds); the waits end as soon as their condition holds.
const LONG: Duration = Duration::from_secs(60);

/// A running `ownerscope serve`, stopped when dropped.
struct Server {
    child: Child,
    kubeconfig: PathBuf,
    dir: PathBuf,
}

impl Server {
    /// Starts `serve SCENARIO` with extra flags; waits for its startup
    /// lines.
    fn start(scenario: &str, flags: &[&str]) -> Server {
        let dir = std::env::temp_dir().join(format!(
            "ownerscope-serve-test-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let mut child = Command::new(env!("CARGO_BIN_EXE_ownerscope"))
            .args(["serve", scenario])
            .args(flags)
            .env("OWNERSCOPE_LOG_FILE", dir.join("serve.log"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("ownerscope serve starts");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let first = lines.next().and_then(Result::ok).unwrap_or_default();
        let second = lines.next().and_then(Result::ok).unwrap_or_default();
        let Some(path) = second.strip_prefix("export KUBECONFIG=") else {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            let _ = child.kill();
            panic!("serve did not start: {first:?} {second:?} {err}");
        };
        assert!(
            first.starts_with("ownerscope serve: scenario \"")
                && first.contains(" on https://127.0.0.1:"),
            "{first}"
        );
        Server {
            kubeconfig: PathBuf::from(path),
            child,
            dir,
        }
    }

    /// Runs kubectl against the server: (success, stdout, stderr).
    fn kubectl(&self, args: &[&str], stdin: Option<&str>) -> (bool, String, String) {
        use std::io::Write as _;
        let mut child = match Command::new(kubectl())
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(c) => c,
            Err(e) => panic!(
                "kubectl could not be run ({e}): install it (Debian: apt-get install kubernetes-client; .ci/run does)"
            ),
        };
        // The pipe is closed whether or not anything is written.
        if let Some(mut s) = child.stdin.take()
            && let Some(text) = stdin
        {
            s.write_all(text.as_bytes()).expect("stdin");
        }
        let out = child.wait_with_output().expect("kubectl ends");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// kubectl that must succeed; its stdout.
    fn ok(&self, args: &[&str]) -> String {
        let (ok, out, err) = self.kubectl(args, None);
        assert!(ok, "kubectl {args:?} failed:\n{out}\n{err}");
        out
    }

    /// Polls kubectl until `cond` holds on its stdout.
    fn wait_for(&self, args: &[&str], what: &str, cond: impl Fn(&str) -> bool) -> String {
        let t = Instant::now();
        loop {
            let (_, out, err) = self.kubectl(args, None);
            if cond(&out) {
                return out;
            }
            assert!(
                t.elapsed() < LONG,
                "timed out waiting for {what}; last kubectl {args:?}:\n{out}\n{err}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("serve.log")).unwrap_or_default()
    }

    fn options(&self, ns: &str) -> LiveOptions {
        LiveOptions {
            kubeconfig: Some(self.kubeconfig.clone()),
            context: None,
            namespace: Some(ns.to_string()),
            all_namespaces: false,
            read_only: false,
            ..LiveOptions::default()
        }
    }

    async fn client(&self) -> Client {
        ownerscope::cluster::connect(&self.options("default"))
            .await
            .expect("kube client")
            .client
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// kubectl, where `.ci/run` puts it.
fn kubectl() -> &'static str {
    "kubectl"
}

/// kubectl's minor version (its `--validate` needs /openapi/v2 before 1.27).
fn kubectl_minor() -> u32 {
    let out = Command::new(kubectl())
        .args(["version", "--client", "-o", "json"])
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "kubectl is not installed ({e}): .ci/run installs Debian's kubernetes-client; these tests need it"
            )
        });
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    v["clientVersion"]["minor"]
        .as_str()
        .map(|m| m.trim_end_matches('+'))
        .and_then(|m| m.parse().ok())
        .unwrap_or(0)
}

/// `--validate=false` where kubectl is too old to ask the server to
/// validate (it would need the OpenAPI v2 schema in protobuf, which serve
/// does not encode).
fn validate_flag() -> Vec<&'static str> {
    if kubectl_minor() < 27 {
        vec!["--validate=false"]
    } else {
        Vec::new()
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// `f` run against the real control plane (`real`) and against serve
/// (`serve`) at once: (the real one's, serve's).
fn on_both<T: Send>(
    real: &std::path::Path,
    serve: &std::path::Path,
    f: impl Fn(&std::path::Path) -> T + Sync,
) -> (T, T) {
    std::thread::scope(|t| {
        let r = t.spawn(|| f(real));
        let v = f(serve);
        (r.join().expect("against the real control plane"), v)
    })
}

/// The rule of the difference `what` in a test's list of differences
/// between the 1.20 control plane and serve (`(what, why)` pairs).
fn rule_in(differences: &[(&str, &'static str)], what: &str) -> &'static str {
    differences
        .iter()
        .find(|(w, _)| *w == what)
        .map(|(_, why)| *why)
        .unwrap_or_else(|| panic!("{what:?} is not listed"))
}

/// Polls kubectl against `kubeconfig` until it succeeds (`ok`) or fails
/// (`!ok`); `what` says what is waited for.
fn wait_kubectl(kubeconfig: &std::path::Path, args: &[&str], ok: bool, what: &str) {
    let t = Instant::now();
    while kubectl_at(kubeconfig, args, None).0 != ok {
        assert!(
            t.elapsed() < LONG,
            "timed out waiting for {what}: kubectl {args:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A name for one test's namespace on the shared control plane, unique
/// across runs (the clock).
fn unique_name(prefix: &str) -> String {
    format!(
        "{prefix}-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() % 1_000_000)
            .unwrap_or(0)
    )
}

/// kubectl against a kubeconfig: (success, stdout, stderr).
fn kubectl_at(
    kubeconfig: &std::path::Path,
    args: &[&str],
    stdin: Option<&str>,
) -> (bool, String, String) {
    use std::io::Write as _;
    let mut child = Command::new(kubectl())
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kubectl runs");
    if let Some(mut s) = child.stdin.take()
        && let Some(text) = stdin
    {
        s.write_all(text.as_bytes()).expect("stdin");
    }
    let out = child.wait_with_output().expect("kubectl ends");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
