//! `ownerscope serve` against the kubeconfig's cluster (the test control
//! plane), each holding `--objects` ConfigMaps in a namespace of the run's
//! own (`ownerscope-bench-serve-PID`, deleted at the end, the benchmark
//! waiting while the control plane removes it):
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
//!   first and the last full page alone;
//! - opening watches: 200 watches of the namespace from the list's
//!   resource version, one after the other, each to its answer's headers;
//! - writes: 2,000 ConfigMaps created by 32 clients at once (in a
//!   namespace made for them and deleted after), as writes per second; on
//!   serve with and without `--state-dir` (every write `fsync`ed before it
//!   is answered);
//! - serial writes: 500 ConfigMaps created by one client, one at a time
//!   (what a controller making one write at a time sees: each waits for its
//!   own `fsync`, nothing to batch it with);
//! - workload writes: 200 Deployments (2 replicas each) created by 32
//!   clients at once, in the same namespace, as creates per second (the
//!   server's controllers then make their ReplicaSets, pods and Events);
//! - the server's CPU at rest: a second a second of nothing sent, before
//!   the reads (others' requests and the server's own controllers).
//!
//! `--serve-only` leaves the cluster out: the two serves alone.
//!
//! Every wait is bounded. A measured step gives up after a bound sized to
//! its work; a wait for the server's own work (filling the namespace,
//! the namespace controller emptying it at the end) gives up when nothing
//! was done for 90 s. A namespace left behind is reported with what to
//! check and how to remove it by hand; the figures measured are printed
//! all the same.
//!
//! The two serves are started by the benchmark (an empty scenario) and
//! stopped at its end. A Markdown table is printed (docs/performance.md).

mod wait;

use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures::{StreamExt, stream};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::Api;
use kube::api::{ObjectMeta, PostParams};

use self::wait::{Goal, count, first_line_within, humanize, remove_namespaces, until_done, within};
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
const SERIAL: usize = 500;
const DEPLOYMENTS: usize = 200;

/// How long a wait for the server's own work (filling a namespace, the
/// namespace controller emptying one) goes on with nothing done.
const STALL: Duration = Duration::from_secs(90);
/// How often such a wait looks.
const POLL: Duration = Duration::from_secs(1);
/// The bound of one measured step (a few thousand requests; the control
/// plane does each in seconds).
const STEP: Duration = Duration::from_secs(120);
/// How long a serve has to say it listens.
const START: Duration = Duration::from_secs(30);
/// The server's CPU at rest is measured over this long.
const REST: Duration = Duration::from_secs(3);

fn err(e: impl std::fmt::Display) -> CmdError {
    CmdError(e.to_string())
}

/// A server measured: where its kubeconfig is, and the processes whose
/// CPU is its CPU.
struct Target {
    name: String,
    kubeconfig: Option<PathBuf>,
    pids: Vec<u32>,
    /// The kubeconfig's cluster (what is left there stays); a serve is
    /// stopped at the end, with whatever it holds.
    cluster: bool,
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

/// The machine's load average (1, 5 and 15 minutes), as `/proc/loadavg`
/// gives it.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "unknown".to_string(),
        |s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
    )
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
    match first_line_within(out, START) {
        Ok(l) if l.starts_with("ownerscope serve:") => Ok((child, kubeconfig)),
        said => {
            let _ = child.kill();
            let _ = child.wait();
            let why = match said {
                Ok(l) => format!("it said {l:?}"),
                Err(e) => e.0,
            };
            Err(err(format!(
                "ownerscope serve did not start ({why}; its log: {})",
                dir.join("serve.log").display()
            )))
        }
    }
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

/// `n` ConfigMaps in `ns`, made unless there; gives up when none was made
/// for `STALL`.
async fn fill(t: &Target, c: &kube::Client, ns: &str, n: usize) -> Result<(), CmdError> {
    let path = format!("/api/v1/namespaces/{ns}/configmaps");
    let stalled = until_done(
        || async { count(c, &path).await.map(Some) },
        Goal::More,
        POLL * 5,
        STALL,
    );
    tokio::select! {
        made = make_configmaps(c.clone(), ns, n) => made.map(|_| ()),
        Err(s) = stalled => Err(err(format!(
            "gave up making {n} ConfigMaps in namespace {ns} on {}: none made in the last {} \
             ({} there{}); check that the server answers and takes writes",
            t.name,
            humanize(STALL),
            s.count.map_or_else(|| "unknown how many".to_string(), |c| c.to_string()),
            s.error.map(|e| format!("; the last look: {e}")).unwrap_or_default(),
        ))),
    }
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

/// `work`, timed on the wall and on `t`'s CPU.
async fn timed<T>(
    t: &Target,
    work: impl Future<Output = Result<T, CmdError>>,
) -> Result<(T, Cost), CmdError> {
    let (t0, c0) = (Instant::now(), cpu(&t.pids));
    let out = work.await?;
    Ok((
        out,
        Cost {
            wall: t0.elapsed(),
            cpu: cpu(&t.pids).saturating_sub(c0),
        },
    ))
}

/// One page of the namespace's ConfigMaps: the next page's token, the
/// list's resource version and how many items it held.
async fn page(
    c: &kube::Client,
    ns: &str,
    token: Option<&str>,
) -> Result<(Option<String>, String, usize), CmdError> {
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
    Ok((next, rv, v["items"].as_array().map_or(0, Vec::len)))
}

/// What was measured on one server (`None`: not measured, or it failed).
#[derive(Default)]
struct Row {
    pages: usize,
    list: Option<Cost>,
    first_page: Option<Cost>,
    last_page: Option<Cost>,
    watch: Option<Cost>,
    writes: Option<Cost>,
    serial: Option<Cost>,
    deployments: Option<Cost>,
    /// The server's CPU in `REST` with nothing sent.
    rest: Option<Duration>,
    /// Resident and peak memory at the end.
    memory: Option<(u64, u64)>,
}

fn configmap(name: String) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name),
            ..ObjectMeta::default()
        },
        data: Some([("k".to_string(), "v".to_string())].into()),
        ..ConfigMap::default()
    }
}

/// The paged walk, the first and the last full page, and the watches.
async fn reads(t: &Target, c: &kube::Client, ns: &str, row: &mut Row) -> Result<(), CmdError> {
    // Each page within `STEP`: a walk goes on as long as pages come.
    let walk = async {
        // `last_full`: the token of the last page that held a whole page.
        let (mut token, mut rv, mut last_full, mut pages) = (None, String::new(), None, 0);
        loop {
            let (next, at, items) =
                within("a page of the list", t, STEP, page(c, ns, token.as_deref())).await?;
            pages += 1;
            if rv.is_empty() {
                rv = at;
            }
            if items == PAGE {
                last_full = Some(token.clone());
            }
            match next {
                Some(n) => token = Some(n),
                None => break,
            }
        }
        Ok((rv, last_full.flatten(), pages))
    };
    let ((rv, last_full, pages), cost) = timed(t, walk).await?;
    row.pages = pages;
    row.list = Some(cost);
    for (slot, tok) in [(&mut row.first_page, None), (&mut row.last_page, last_full)] {
        let (_, cost) = within("a page", t, STEP, timed(t, page(c, ns, tok.as_deref()))).await?;
        *slot = Some(cost);
    }
    let watches = async {
        for _ in 0..WATCHES {
            let path = format!(
                "/api/v1/namespaces/{ns}/configmaps?watch=1&resourceVersion={rv}&timeoutSeconds=60"
            );
            let req = http::Request::get(path)
                .body(kube::client::Body::empty())
                .map_err(err)?;
            let resp = c.send(req).await.map_err(err)?;
            if !resp.status().is_success() {
                return Err(err(format!("a watch answered {}", resp.status())));
            }
        }
        Ok(())
    };
    let ((), cost) = within("opening watches", t, STEP, timed(t, watches)).await?;
    let per = u32::try_from(WATCHES).unwrap_or(1);
    row.watch = Some(Cost {
        wall: cost.wall / per,
        cpu: cost.cpu / per,
    });
    Ok(())
}

/// The writes: concurrent and serial ConfigMap creates, then Deployments,
/// in a namespace made for them.
async fn writes(t: &Target, c: &kube::Client, ns: &str, row: &mut Row) -> Result<(), CmdError> {
    let nss: Api<Namespace> = Api::all(c.clone());
    let namespace = Namespace {
        metadata: ObjectMeta {
            name: Some(ns.into()),
            ..ObjectMeta::default()
        },
        ..Namespace::default()
    };
    within("creating a namespace", t, STEP, async {
        nss.create(&PostParams::default(), &namespace)
            .await
            .map_err(err)
    })
    .await?;
    let cms: Api<ConfigMap> = Api::namespaced(c.clone(), ns);
    let concurrent = async {
        let made: Vec<Result<ConfigMap, kube::Error>> = stream::iter(0..WRITES)
            .map(|i| {
                let cms = cms.clone();
                async move {
                    cms.create(&PostParams::default(), &configmap(format!("w-{i:05}")))
                        .await
                }
            })
            .buffer_unordered(WRITERS)
            .collect()
            .await;
        first_error(made)
    };
    let ((), cost) = within("concurrent writes", t, STEP, timed(t, concurrent)).await?;
    row.writes = Some(cost);
    let serial = async {
        for i in 0..SERIAL {
            cms.create(&PostParams::default(), &configmap(format!("s-{i:05}")))
                .await
                .map_err(err)?;
        }
        Ok(())
    };
    let ((), cost) = within("serial writes", t, STEP, timed(t, serial)).await?;
    row.serial = Some(cost);
    let deploys: Api<Deployment> = Api::namespaced(c.clone(), ns);
    let deployments = async {
        let made: Vec<Result<Deployment, kube::Error>> = stream::iter(0..DEPLOYMENTS)
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
        first_error(made)
    };
    let ((), cost) = within("creating Deployments", t, STEP, timed(t, deployments)).await?;
    row.deployments = Some(cost);
    Ok(())
}

/// The first of a burst's failed requests, if one failed.
fn first_error<T>(made: Vec<Result<T, kube::Error>>) -> Result<(), CmdError> {
    match made.into_iter().find_map(Result::err) {
        Some(e) => Err(err(e)),
        None => Ok(()),
    }
}

/// Measures `t` into `row` (what was measured stays there when a step
/// fails).
async fn measure(t: &Target, n: usize, with_reads: bool, row: &mut Row) -> Result<(), CmdError> {
    let (listed_ns, writes_ns) = namespaces();
    let c = within("connecting", t, STEP, client(t)).await?;
    if n > 0 {
        fill(t, &c, &listed_ns, n).await?;
    }
    let c0 = cpu(&t.pids);
    tokio::time::sleep(REST).await;
    row.rest = Some(cpu(&t.pids).saturating_sub(c0));
    if with_reads {
        reads(t, &c, &listed_ns, row).await?;
    }
    writes(t, &c, &writes_ns, row).await?;
    row.memory = Some(memory(&t.pids));
    Ok(())
}

fn table(n: usize, rows: &[(String, Row)]) -> String {
    let mut out = format!(
        "{n} ConfigMaps in one namespace; wall time, and the server's CPU (user + system) in brackets\n\n\
         | server | paged list ({PAGE} a page) | first page | last full page | opening a watch | writes per second ({WRITERS} clients) | serial writes per second (1 client) | Deployment creates per second | memory: resident (peak) |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    let cell = |c: Option<Cost>| {
        c.map_or_else(
            || "-".to_string(),
            |c| format!("{} ({})", ms(c.wall), ms(c.cpu)),
        )
    };
    let rate = |c: Option<Cost>, count: usize, per: usize| {
        c.map_or_else(
            || "-".to_string(),
            |c| {
                #[allow(clippy::cast_precision_loss)]
                let per_s = count as f64 / c.wall.as_secs_f64().max(1e-9);
                let cpu =
                    c.cpu * u32::try_from(per).unwrap_or(1) / u32::try_from(count).unwrap_or(1);
                format!("{per_s:.0} ({} CPU per {per})", ms(cpu))
            },
        )
    };
    for (name, r) in rows {
        let list = r.list.map_or_else(
            || "-".to_string(),
            |c| format!("{} for {} pages", cell(Some(c)), r.pages),
        );
        out.push_str(&format!(
            "| {name} | {list} | {} | {} | {} | {} | {} | {} | {} |\n",
            cell(r.first_page),
            cell(r.last_page),
            cell(r.watch),
            rate(r.writes, WRITES, 1000),
            rate(r.serial, SERIAL, 100),
            rate(r.deployments, DEPLOYMENTS, 100),
            r.memory.map_or_else(
                || "-".to_string(),
                |(now, peak)| format!("{} ({})", mib(now), mib(peak))
            ),
        ));
    }
    out.push('\n');
    for (name, r) in rows {
        if let Some(rest) = r.rest {
            out.push_str(&format!(
                "{name} at rest (nothing sent for {}): {} CPU a second\n",
                humanize(REST),
                ms(rest / u32::try_from(REST.as_secs()).unwrap_or(1).max(1)),
            ));
        }
    }
    out
}

/// Runs the benchmark with `n` ConfigMaps against the cluster of
/// `kubeconfig` (else `$KUBECONFIG`) and two serves of this binary, and
/// prints the table: all that was measured, also when a step failed or a
/// namespace was left behind (then an error says what and why).
///
/// # Errors
/// The cluster or a serve cannot be reached, a step gave up, or a
/// namespace of the run is still there.
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
            cluster: false,
        },
        n,
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
                    cluster: true,
                },
                n,
                true,
            ),
        );
    }
    let mut problems = Vec::new();
    match &durable {
        Ok((child, kc)) => targets.push((
            Target {
                name: "ownerscope serve --state-dir".into(),
                kubeconfig: Some(kc.clone()),
                pids: vec![child.id()],
                cluster: false,
            },
            0,
            false,
        )),
        Err(e) => problems.push(format!("ownerscope serve --state-dir: {e}")),
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(err)?;
    let started = load_average();
    let rows = rt.block_on(async {
        let mut rows = Vec::new();
        let (listed_ns, writes_ns) = namespaces();
        for (t, n, with_reads) in &targets {
            eprintln!("{}...", t.name);
            let mut row = Row::default();
            if let Err(e) = measure(t, *n, *with_reads, &mut row).await {
                problems.push(e.0);
            }
            if let Err(e) = remove_namespaces(t, &[&writes_ns, &listed_ns], STALL).await {
                problems.push(e.0);
            }
            rows.push((t.name.clone(), row));
        }
        rows
    });
    let _ = plain.kill();
    let _ = plain.wait();
    if let Ok((mut child, _)) = durable {
        let _ = child.kill();
        let _ = child.wait();
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("{}", table(n, &rows));
    println!(
        "load average (1, 5, 15 min): {started} at the start, {} at the end",
        load_average()
    );
    if problems.is_empty() {
        Ok(())
    } else {
        Err(err(problems.join("\n")))
    }
}
