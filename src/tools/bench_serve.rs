//! `ownerscope serve` against the kubeconfig's cluster (the test control
//! plane), each holding `--objects` ConfigMaps in a namespace of the run's
//! own (`ownerscope-bench-serve-PID`, deleted at the end, the benchmark
//! waiting until the control plane has removed it):
//!
//! ```sh
//! cargo build --release
//! KUBECONFIG=... target/release/ownerscope bench --serve --objects 20000
//! ```
//!
//! (`--kubeconfig PATH` instead of `$KUBECONFIG`; the serves run this
//! binary.) On each, with the server's CPU time (user and
//! system, from `/proc`: kube-apiserver and etcd for the control plane,
//! the serve process for serve) beside the wall time, and its memory at the
//! end (resident now, and the peak since the process started: `VmRSS` and
//! `VmHWM` of `/proc/PID/status`, summed over the same processes):
//! - a paged list: every page of 500, as `kubectl get` walks them, and the
//!   first and the last page alone;
//! - opening watches: 200 watches of the namespace from the list's
//!   resource version, one after the other, each to its answer's headers;
//! - writes: 2,000 ConfigMaps created by 32 clients at once (in a
//!   namespace made for them and deleted after), as writes per second; on
//!   serve with and without `--state-dir` (every write `fsync`ed before it
//!   is answered);
//! - workload writes: 200 Deployments (2 replicas each) created by 32
//!   clients at once, in the same namespace, as creates per second (the
//!   server's controllers then make their ReplicaSets, pods and Events).
//!
//! `--serve-only` leaves the cluster out: the two serves alone.
//!
//! The two serves are started by the benchmark (an empty scenario) and
//! stopped at its end. A Markdown table is printed (docs/performance.md).

use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures::{StreamExt, stream};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::Api;
use kube::api::{DeleteParams, ObjectMeta, PostParams};

use super::bench_live::make_configmaps;
use crate::cluster::{self, LiveOptions};
use crate::commands::CmdError;

/// The namespaces of this run: the listed objects', and the writes'.
fn namespaces() -> (String, String) {
    let pid = std::process::id();
    (
        format!("ownerscope-bench-serve-{pid}"),
        format!("ownerscope-bench-writes-{pid}"),
    )
}
const PAGE: usize = 500;
const WATCHES: usize = 200;
const WRITES: usize = 2_000;
const WRITERS: usize = 32;
const DEPLOYMENTS: usize = 200;

fn err(e: impl std::fmt::Display) -> CmdError {
    CmdError(e.to_string())
}

/// A server measured: where its kubeconfig is, and the processes whose
/// CPU is its CPU.
struct Target {
    name: String,
    kubeconfig: Option<PathBuf>,
    pids: Vec<u32>,
}

/// User and system CPU time of these processes so far (`/proc/PID/stat`,
/// in the kernel's 10 ms ticks), all their threads.
fn cpu(pids: &[u32]) -> Duration {
    let ticks: u64 = pids
        .iter()
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/stat")).ok())
        .filter_map(|s| {
            let rest = s.rsplit_once(')')?.1.to_string();
            let f: Vec<&str> = rest.split_whitespace().collect();
            Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
        })
        .sum();
    Duration::from_millis(ticks * 10)
}

/// Resident and peak resident memory of these processes (`VmRSS` and
/// `VmHWM` of `/proc/PID/status`), summed.
fn memory(pids: &[u32]) -> (u64, u64) {
    let kib = |status: &str, field: &str| -> u64 {
        status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|r| r.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    pids.iter()
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/status")).ok())
        .map(|s| (kib(&s, "VmRSS:") * 1024, kib(&s, "VmHWM:") * 1024))
        .fold((0, 0), |(a, b), (c, d)| (a + c, b + d))
}

fn mib(bytes: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let m = bytes as f64 / (1024.0 * 1024.0);
    format!("{m:.0} MiB")
}

/// The pids of the processes with these command names.
fn pids_named(names: &[&str]) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|c| names.contains(&c.trim()))
        })
        .collect()
}

/// `ownerscope serve` on an empty scenario, its kubeconfig in `dir`.
fn start_serve(exe: &Path, dir: &Path, state_dir: bool) -> Result<(Child, PathBuf), CmdError> {
    std::fs::create_dir_all(dir).map_err(err)?;
    let scenario = dir.join("empty.yaml");
    std::fs::write(&scenario, "apiVersion: v1\nkind: List\nitems: []\n").map_err(err)?;
    let kubeconfig = dir.join("kubeconfig");
    let mut cmd = Command::new(exe);
    cmd.arg("serve")
        .arg(&scenario)
        .arg("--kubeconfig-out")
        .arg(&kubeconfig)
        .env("OWNERSCOPE_LOG", "warn")
        .env("OWNERSCOPE_LOG_FILE", dir.join("serve.log"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if state_dir {
        cmd.arg("--state-dir").arg(dir.join("state"));
    }
    let mut child = cmd.spawn().map_err(err)?;
    let out = child.stdout.take().ok_or_else(|| err("no stdout"))?;
    let first = std::io::BufReader::new(out).lines().next();
    if !matches!(first, Some(Ok(l)) if l.starts_with("ownerscope serve:")) {
        let _ = child.kill();
        return Err(err("ownerscope serve did not start"));
    }
    Ok((child, kubeconfig))
}

async fn client(t: &Target) -> Result<kube::Client, CmdError> {
    let opts = LiveOptions {
        kubeconfig: t.kubeconfig.clone(),
        all_namespaces: true,
        read_only: false,
        ..LiveOptions::default()
    };
    Ok(cluster::connect(&opts).await.map_err(err)?.client)
}

/// One measure: wall time and the server's CPU.
#[derive(Clone, Copy, Default)]
struct Cost {
    wall: Duration,
    cpu: Duration,
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

async fn page(
    c: &kube::Client,
    ns: &str,
    token: Option<&str>,
) -> Result<(Option<String>, String), CmdError> {
    let mut path = format!("/api/v1/namespaces/{ns}/configmaps?limit={PAGE}");
    if let Some(t) = token {
        path.push_str("&continue=");
        path.push_str(t);
    }
    let req = http::Request::get(path).body(Vec::new()).map_err(err)?;
    let text = c.request_text(req).await.map_err(err)?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(err)?;
    let next = v["metadata"]["continue"]
        .as_str()
        .filter(|t| !t.is_empty())
        .map(str::to_string);
    let rv = v["metadata"]["resourceVersion"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    Ok((next, rv))
}

/// What was measured on one server.
#[derive(Default)]
struct Row {
    pages: usize,
    list: Cost,
    first_page: Cost,
    last_page: Cost,
    watch: Cost,
    writes: Cost,
    deployments: Cost,
    /// Resident and peak memory at the end.
    memory: (u64, u64),
}

async fn measure(t: &Target, n: usize, reads: bool) -> Result<Row, CmdError> {
    let (listed_ns, writes_ns) = namespaces();
    let (listed_ns, writes_ns) = (listed_ns.as_str(), writes_ns.as_str());
    let c = client(t).await?;
    if n > 0 {
        make_configmaps(c.clone(), listed_ns, n).await?;
    }
    let mut row = Row::default();
    if reads {
        // The whole walk, then the first and the last page alone.
        let (t0, c0) = (Instant::now(), cpu(&t.pids));
        let (mut token, mut rv, mut last_token) = (None, String::new(), None);
        loop {
            let (next, at) = page(&c, listed_ns, token.as_deref()).await?;
            row.pages += 1;
            if rv.is_empty() {
                rv = at;
            }
            match next {
                Some(n) => {
                    last_token = Some(n.clone());
                    token = Some(n);
                }
                None => break,
            }
        }
        row.list = Cost {
            wall: t0.elapsed(),
            cpu: cpu(&t.pids) - c0,
        };
        for (slot, tok) in [
            (&mut row.first_page, None),
            (&mut row.last_page, last_token),
        ] {
            let (t0, c0) = (Instant::now(), cpu(&t.pids));
            page(&c, listed_ns, tok.as_deref()).await?;
            *slot = Cost {
                wall: t0.elapsed(),
                cpu: cpu(&t.pids) - c0,
            };
        }
        let (t0, c0) = (Instant::now(), cpu(&t.pids));
        for _ in 0..WATCHES {
            let path = format!(
                "/api/v1/namespaces/{listed_ns}/configmaps?watch=1&resourceVersion={rv}&timeoutSeconds=60"
            );
            let req = http::Request::get(path)
                .body(kube::client::Body::empty())
                .map_err(err)?;
            let resp = c.send(req).await.map_err(err)?;
            if !resp.status().is_success() {
                return Err(err(format!("a watch answered {}", resp.status())));
            }
        }
        row.watch = Cost {
            wall: t0.elapsed() / u32::try_from(WATCHES).unwrap_or(1),
            cpu: (cpu(&t.pids) - c0) / u32::try_from(WATCHES).unwrap_or(1),
        };
    }
    let nss: Api<Namespace> = Api::all(c.clone());
    let ns = Namespace {
        metadata: ObjectMeta {
            name: Some(writes_ns.into()),
            ..ObjectMeta::default()
        },
        ..Namespace::default()
    };
    nss.create(&PostParams::default(), &ns).await.map_err(err)?;
    let cms: Api<ConfigMap> = Api::namespaced(c.clone(), writes_ns);
    let (t0, c0) = (Instant::now(), cpu(&t.pids));
    let made: Vec<Result<ConfigMap, kube::Error>> = stream::iter(0..WRITES)
        .map(|i| {
            let cms = cms.clone();
            async move {
                let cm = ConfigMap {
                    metadata: ObjectMeta {
                        name: Some(format!("w-{i:05}")),
                        ..ObjectMeta::default()
                    },
                    data: Some([("k".to_string(), "v".to_string())].into()),
                    ..ConfigMap::default()
                };
                cms.create(&PostParams::default(), &cm).await
            }
        })
        .buffer_unordered(WRITERS)
        .collect()
        .await;
    row.writes = Cost {
        wall: t0.elapsed(),
        cpu: cpu(&t.pids) - c0,
    };
    let deploys: Api<Deployment> = Api::namespaced(c.clone(), writes_ns);
    let (t0, c0) = (Instant::now(), cpu(&t.pids));
    let made_deploys: Vec<Result<Deployment, kube::Error>> = stream::iter(0..DEPLOYMENTS)
        .map(|i| {
            let deploys = deploys.clone();
            async move {
                let app = format!("d-{i:04}");
                let d: Deployment = serde_json::from_value(serde_json::json!({
                    "apiVersion": "apps/v1", "kind": "Deployment",
                    "metadata": {"name": app},
                    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": app}},
                             "template": {"metadata": {"labels": {"app": app}},
                                          "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}},
                }))
                .map_err(kube::Error::SerdeError)?;
                deploys.create(&PostParams::default(), &d).await
            }
        })
        .buffer_unordered(WRITERS)
        .collect()
        .await;
    row.deployments = Cost {
        wall: t0.elapsed(),
        cpu: cpu(&t.pids) - c0,
    };
    row.memory = memory(&t.pids);
    let gone = remove_namespaces(&nss, &[writes_ns, listed_ns]).await;
    if let Some(Err(e)) = made.into_iter().find(Result::is_err) {
        return Err(err(format!("writing: {e}")));
    }
    if let Some(Err(e)) = made_deploys.into_iter().find(Result::is_err) {
        return Err(err(format!("creating Deployments: {e}")));
    }
    gone?;
    Ok(row)
}

/// Deletes the run's namespaces and waits until they are gone (the
/// namespace controller deletes what they hold first): the cluster is left
/// as it was found.
async fn remove_namespaces(nss: &Api<Namespace>, names: &[&str]) -> Result<(), CmdError> {
    for name in names {
        match nss.delete(name, &DeleteParams::default()).await {
            Err(kube::Error::Api(s)) if s.code == 404 => {}
            Ok(_) => {}
            Err(e) => return Err(err(e)),
        }
    }
    let t0 = Instant::now();
    for name in names {
        while nss.get_opt(name).await.map_err(err)?.is_some() {
            if t0.elapsed() > Duration::from_secs(1800) {
                return Err(err(format!(
                    "namespace {name} still there after 30 minutes"
                )));
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
    Ok(())
}

fn table(n: usize, rows: &[(String, Row)]) -> String {
    let mut out = format!(
        "{n} ConfigMaps in one namespace; wall time, and the server's CPU (user + system) in brackets\n\n\
         | server | paged list ({PAGE} a page) | first page | last page | opening a watch | writes per second | Deployment creates per second | memory: resident (peak) |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    for (name, r) in rows {
        let cell = |c: Cost| format!("{} ({})", ms(c.wall), ms(c.cpu));
        let reads = r.pages > 0;
        let or_dash = |s: String| if reads { s } else { "-".to_string() };
        let per_s = WRITES as f64 / r.writes.wall.as_secs_f64().max(1e-9);
        let deploys_s = DEPLOYMENTS as f64 / r.deployments.wall.as_secs_f64().max(1e-9);
        out.push_str(&format!(
            "| {name} | {} | {} | {} | {} | {per_s:.0} ({} CPU per 1,000) | {deploys_s:.0} ({} CPU per 100) | {} ({}) |\n",
            or_dash(format!("{} for {} pages", cell(r.list), r.pages)),
            or_dash(cell(r.first_page)),
            or_dash(cell(r.last_page)),
            or_dash(cell(r.watch)),
            ms(r.writes.cpu * 1000 / u32::try_from(WRITES).unwrap_or(1)),
            ms(r.deployments.cpu * 100 / u32::try_from(DEPLOYMENTS).unwrap_or(1)),
            mib(r.memory.0),
            mib(r.memory.1),
        ));
    }
    out
}

/// Runs the benchmark with `n` ConfigMaps against the cluster of
/// `kubeconfig` (else `$KUBECONFIG`) and two serves of this binary, and
/// prints the table.
///
/// # Errors
/// The cluster or a serve cannot be reached.
pub fn run(n: usize, kubeconfig: Option<&Path>, serve_only: bool) -> Result<(), CmdError> {
    let exe = std::env::current_exe().map_err(err)?;
    let dir = std::env::temp_dir().join(format!("ownerscope-bench-serve-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (mut plain, plain_kc) = start_serve(&exe, &dir.join("serve"), false)?;
    let durable = start_serve(&exe, &dir.join("durable"), true);
    let mut targets = vec![(
        Target {
            name: "ownerscope serve".into(),
            kubeconfig: Some(plain_kc),
            pids: vec![plain.id()],
        },
        true,
    )];
    if !serve_only {
        targets.insert(
            0,
            (
                Target {
                    name: "the control plane (kube-apiserver and etcd)".into(),
                    kubeconfig: kubeconfig.map(Path::to_path_buf),
                    pids: pids_named(&["kube-apiserver", "etcd"]),
                },
                true,
            ),
        );
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(err)?;
    let result = rt.block_on(async {
        let mut rows = Vec::new();
        for (t, reads) in &targets {
            eprintln!("{}...", t.name);
            rows.push((t.name.clone(), measure(t, n, *reads).await?));
        }
        if let Ok((child, kc)) = &durable {
            let t = Target {
                name: "ownerscope serve --state-dir".into(),
                kubeconfig: Some(kc.clone()),
                pids: vec![child.id()],
            };
            eprintln!("{}...", t.name);
            rows.push((t.name.clone(), measure(&t, 0, false).await?));
        }
        Ok::<_, CmdError>(rows)
    });
    let _ = plain.kill();
    let _ = plain.wait();
    if let Ok((mut child, _)) = durable {
        let _ = child.kill();
        let _ = child.wait();
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("{}", table(n, &result?));
    Ok(())
}
