//! `ownerscope bench --commands 100000,300000,1000000`: every headless
//! command on a file against a bare parse of the same file, in the same
//! run: CPU, wall time and peak memory.
//!
//! For each size a `kubectl get -o json` List is written with the shapes a
//! large cluster has ([`write_cluster`]): Events a little under half of the
//! objects, Deployments with five ReplicaSets each (four of them old,
//! scaled to zero), thousands of namespaces, Nodes with their Leases, and
//! three very wide owners (a ReplicaSet with a hundredth of the objects as
//! its pods). Then, interleaved, each of these runs in a child process of
//! its own, its output thrown away:
//! - **bare parse**: `serde_json` reads the metadata subset into plain
//!   structs with a uid index and the owner edges (the baseline of
//!   `bench --load`, [`super::bench_load`]);
//! - **the file read**: the file read into ownerscope's objects, with
//!   every field a rule reads (metadata whole, the kept fields of `spec`
//!   and `status`, an Event's fields) and the load's checks: the first
//!   step of every command below, and so their floor;
//! - **the load**: the same, then restored into the simulator's store and
//!   its graph, as `tree`, `why` and `plan` start;
//! - `tree FILE`, `tree FILE -o json`, `why FILE pod/...`, `plan FILE
//!   --delete deployment/...` and `simulate FILE --delete configmap/...`,
//!   run as `ownerscope` runs them.
//!
//! CPU is the child's user and system time as its parent sees it when it
//! has ended (`cutime`, `cstime`: exit included, in 10 ms ticks); wall time
//! from its start to its end; peak memory its `VmHWM`, which the child
//! prints last. The ratios are the medians of the runs' ratios, each
//! command against the bare parse of the same round. Run it in release:
//! `cargo run --release -- bench --commands 100000,300000,1000000 --runs 3`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Parser as _;

use super::bench_load::{bare_json, peak_kib, uid_of};
use crate::cli::{Cli, Command as Sub};
use crate::commands::{CmdError, CmdResult};

/// The bare parse's way, for [`run_one`].
const BARE: &str = "bare-json";

fn err(e: impl std::fmt::Display) -> CmdError {
    CmdError(e.to_string())
}

// ---------------------------------------------------------------------------
// The input
// ---------------------------------------------------------------------------

/// Deployments in each ordinary namespace.
const APPS: usize = 6;
/// Pods of each ordinary Deployment's current ReplicaSet.
const PODS: usize = 8;
/// ReplicaSets of each Deployment: the current one and the history kept.
const REVISIONS: usize = 5;
/// The very wide owners: ReplicaSets with `n / WIDE_SHARE` pods each.
const WIDE: usize = 3;
const WIDE_SHARE: usize = 100;

/// A pod-template-hash for a revision, ten characters as the controller
/// writes them.
fn hash_of(ns: usize, app: usize, rev: usize) -> String {
    let u = uid_of(ns * 1_000 + app * 10 + rev + 7_000_000_000);
    u.chars().filter(char::is_ascii_hexdigit).take(10).collect()
}

/// Writes the List; keeps the count and the objects the commands look at.
struct Writer<W: std::io::Write> {
    out: W,
    buf: String,
    n: usize,
    i: usize,
}

impl<W: std::io::Write> Writer<W> {
    fn full(&self) -> bool {
        self.i >= self.n
    }

    /// Starts one item; the caller writes it into `buf`, `end` closes it.
    fn start(&mut self) -> (usize, String) {
        if self.i > 0 {
            self.buf.push_str(",\n");
        }
        let i = self.i;
        self.i += 1;
        (i, uid_of(i))
    }

    fn end(&mut self) -> Result<(), CmdError> {
        if self.buf.len() > 1 << 20 {
            self.out.write_all(self.buf.as_bytes()).map_err(err)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// `"metadata":{...}` of a namespaced or cluster-scoped object.
    fn meta(&mut self, i: usize, uid: &str, ns: Option<&str>, name: &str, labels: &str) {
        let ns = ns.map_or(String::new(), |ns| format!(r#","namespace":"{ns}""#));
        let _ = write!(
            self.buf,
            r#""metadata":{{"name":"{name}"{ns},"uid":"{uid}","resourceVersion":"{}","creationTimestamp":"2026-01-01T00:00:00Z","labels":{labels}"#,
            1000 + i
        );
    }

    fn owner(&mut self, api: &str, kind: &str, name: &str, uid: &str) {
        let _ = write!(
            self.buf,
            r#","ownerReferences":[{{"apiVersion":"{api}","kind":"{kind}","name":"{name}","uid":"{uid}","controller":true,"blockOwnerDeletion":true}}]"#
        );
    }

    fn node(&mut self, name: &str) -> Result<String, CmdError> {
        let (i, uid) = self.start();
        self.buf.push_str(r#"{"apiVersion":"v1","kind":"Node","#);
        let labels = format!(
            r#"{{"kubernetes.io/hostname":"{name}","kubernetes.io/os":"linux","node.kubernetes.io/instance-type":"m5.2xlarge","topology.kubernetes.io/zone":"zone-{}"}}"#,
            i % 3
        );
        self.meta(i, &uid, None, name, &labels);
        let _ = write!(
            self.buf,
            r#"}},"spec":{{"podCIDR":"10.{}.{}.0/24","providerID":"aws:///zone/i-{i:017x}"}},"status":{{"capacity":{{"cpu":"8","memory":"32Gi","pods":"110"}},"allocatable":{{"cpu":"7910m","memory":"31Gi","pods":"110"}},"conditions":[{{"type":"Ready","status":"True","lastHeartbeatTime":"2026-01-01T00:00:00Z","reason":"KubeletReady"}}],"nodeInfo":{{"kubeletVersion":"v1.33.1","containerRuntimeVersion":"containerd://2.0.5"}}}}}}"#,
            i / 250 % 250,
            i % 250
        );
        self.end()?;
        Ok(uid)
    }

    /// A Node's heartbeat, owned by the Node as the kubelet makes it.
    fn lease(&mut self, node: &str, node_uid: &str) -> CmdResult {
        let (i, uid) = self.start();
        self.buf
            .push_str(r#"{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","#);
        self.meta(i, &uid, Some("kube-node-lease"), node, "{}");
        self.owner("v1", "Node", node, node_uid);
        let _ = write!(
            self.buf,
            r#"}},"spec":{{"holderIdentity":"{node}","leaseDurationSeconds":40,"renewTime":"2026-01-01T00:00:00.000000Z"}}}}"#
        );
        self.end()
    }

    fn namespace(&mut self, ns: &str) -> CmdResult {
        let (i, uid) = self.start();
        self.buf
            .push_str(r#"{"apiVersion":"v1","kind":"Namespace","#);
        let labels = format!(r#"{{"kubernetes.io/metadata.name":"{ns}"}}"#);
        self.meta(i, &uid, None, ns, &labels);
        self.buf
            .push_str(r#"},"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}}"#);
        self.end()
    }

    /// What every namespace holds from the start.
    fn namespace_defaults(&mut self, ns: &str) -> CmdResult {
        let (i, uid) = self.start();
        self.buf
            .push_str(r#"{"apiVersion":"v1","kind":"ServiceAccount","#);
        self.meta(i, &uid, Some(ns), "default", "{}");
        self.buf.push_str("}}");
        self.end()?;
        let (i, uid) = self.start();
        self.buf
            .push_str(r#"{"apiVersion":"v1","kind":"ConfigMap","#);
        self.meta(i, &uid, Some(ns), "kube-root-ca.crt", "{}");
        let _ = write!(
            self.buf,
            r#","annotations":{{"kubernetes.io/description":"Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc."}}}},"data":{{"ca.crt":"-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n"}}}}"#,
            "MIIC/jCCAeagAwIBAgIBADANBgkqhkiG9w0BAQsFADAVMRMwEQYDVQQDEwprdWJl".repeat(8)
        );
        self.end()
    }

    fn deployment(&mut self, ns: &str, app: &str, replicas: usize) -> Result<String, CmdError> {
        let (i, uid) = self.start();
        self.buf
            .push_str(r#"{"apiVersion":"apps/v1","kind":"Deployment","#);
        let labels = format!(r#"{{"app":"{app}","team":"payments"}}"#);
        self.meta(i, &uid, Some(ns), app, &labels);
        let _ = write!(
            self.buf,
            r#","annotations":{{"deployment.kubernetes.io/revision":"{REVISIONS}"}},"generation":{REVISIONS}}},"spec":{{"replicas":{replicas},"revisionHistoryLimit":10,"selector":{{"matchLabels":{{"app":"{app}"}}}},"strategy":{{"type":"RollingUpdate","rollingUpdate":{{"maxSurge":"25%","maxUnavailable":"25%"}}}},"template":{{"metadata":{{"labels":{{"app":"{app}"}}}},"spec":{{"containers":[{{"name":"main","image":"registry.example.com/{app}:1.2.{REVISIONS}","ports":[{{"containerPort":8080}}],"resources":{{"requests":{{"cpu":"100m","memory":"128Mi"}}}}}}]}}}}}},"status":{{"replicas":{replicas},"readyReplicas":{replicas},"availableReplicas":{replicas},"updatedReplicas":{replicas},"observedGeneration":{REVISIONS}}}}}"#
        );
        self.end()?;
        Ok(uid)
    }

    /// One of a Deployment's ReplicaSets: revision `rev` of `REVISIONS`,
    /// the last one current with `replicas`, the older ones at zero.
    #[allow(clippy::too_many_arguments)]
    fn replica_set(
        &mut self,
        ns: &str,
        app: &str,
        (dep_uid, hash): (&str, &str),
        rev: usize,
        replicas: usize,
    ) -> Result<String, CmdError> {
        let (i, uid) = self.start();
        self.buf
            .push_str(r#"{"apiVersion":"apps/v1","kind":"ReplicaSet","#);
        let labels = format!(r#"{{"app":"{app}","pod-template-hash":"{hash}"}}"#);
        self.meta(i, &uid, Some(ns), &format!("{app}-{hash}"), &labels);
        let _ = write!(
            self.buf,
            r#","annotations":{{"deployment.kubernetes.io/desired-replicas":"{replicas}","deployment.kubernetes.io/max-replicas":"{}","deployment.kubernetes.io/revision":"{rev}"}}"#,
            replicas + replicas.div_ceil(4)
        );
        self.owner("apps/v1", "Deployment", app, dep_uid);
        let _ = write!(
            self.buf,
            r#"}},"spec":{{"replicas":{replicas},"selector":{{"matchLabels":{{"app":"{app}","pod-template-hash":"{hash}"}}}},"template":{{"metadata":{{"labels":{{"app":"{app}","pod-template-hash":"{hash}"}}}},"spec":{{"containers":[{{"name":"main","image":"registry.example.com/{app}:1.2.{rev}"}}]}}}}}},"status":{{"replicas":{replicas},"readyReplicas":{replicas},"availableReplicas":{replicas},"observedGeneration":1}}}}"#
        );
        self.end()?;
        Ok(uid)
    }

    fn pod(
        &mut self,
        ns: &str,
        app: &str,
        (rs, rs_uid, hash): (&str, &str, &str),
        name: &str,
        node: &str,
    ) -> Result<String, CmdError> {
        let (i, uid) = self.start();
        self.buf.push_str(r#"{"apiVersion":"v1","kind":"Pod","#);
        let labels = format!(r#"{{"app":"{app}","pod-template-hash":"{hash}"}}"#);
        self.meta(i, &uid, Some(ns), name, &labels);
        let _ = write!(self.buf, r#","generateName":"{rs}-""#);
        self.owner("apps/v1", "ReplicaSet", rs, rs_uid);
        let _ = write!(
            self.buf,
            r#"}},"spec":{{"nodeName":"{node}","serviceAccountName":"default","containers":[{{"name":"main","image":"registry.example.com/{app}:1.2.{REVISIONS}","ports":[{{"containerPort":8080,"protocol":"TCP"}}],"resources":{{"requests":{{"cpu":"100m","memory":"128Mi"}}}},"volumeMounts":[{{"name":"kube-api-access","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","readOnly":true}}]}}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"tolerations":[{{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}}]}},"status":{{"phase":"Running","conditions":[{{"type":"Ready","status":"True","lastTransitionTime":"2026-01-01T00:00:05Z"}}],"hostIP":"10.1.{}.{}","podIP":"10.2.{}.{}","startTime":"2026-01-01T00:00:01Z","containerStatuses":[{{"name":"main","ready":true,"restartCount":0,"image":"registry.example.com/{app}:1.2.{REVISIONS}","containerID":"containerd://{uid}","started":true,"state":{{"running":{{"startedAt":"2026-01-01T00:00:04Z"}}}}}}]}}}}"#,
            i / 250 % 250,
            i % 250,
            i / 200 % 250,
            i % 200
        );
        self.end()?;
        Ok(uid)
    }

    /// An Event about an object, as the scheduler or a kubelet records it.
    fn event(
        &mut self,
        ns: &str,
        (kind, name, about_uid): (&str, &str, &str),
        (reason, message, component): (&str, &str, &str),
    ) -> CmdResult {
        let (i, uid) = self.start();
        self.buf.push_str(r#"{"apiVersion":"v1","kind":"Event","#);
        let api = if kind == "Pod" { "v1" } else { "apps/v1" };
        self.meta(
            i,
            &uid,
            Some(ns),
            &format!("{name}.{:016x}", i * 7919),
            "{}",
        );
        let _ = write!(
            self.buf,
            r#"}},"involvedObject":{{"apiVersion":"{api}","kind":"{kind}","namespace":"{ns}","name":"{name}","uid":"{about_uid}","resourceVersion":"{}"}},"reason":"{reason}","message":"{message}","source":{{"component":"{component}"}},"firstTimestamp":"2026-01-01T00:00:01Z","lastTimestamp":"2026-01-01T00:00:01Z","count":1,"type":"Normal","eventTime":null,"reportingComponent":"{component}","reportingInstance":""}}"#,
            900 + i
        );
        self.end()
    }

    /// A Deployment, its ReplicaSets, the current one's pods, their Events.
    fn app(&mut self, ns: &str, (ns_i, a): (usize, usize), pods: usize, nodes: usize) -> CmdResult {
        let app = format!("app-{a}");
        let dep_uid = self.deployment(ns, &app, pods)?;
        for rev in 1..=REVISIONS {
            if self.full() {
                return Ok(());
            }
            let hash = hash_of(ns_i, a, rev);
            let current = rev == REVISIONS;
            let replicas = if current { pods } else { 0 };
            let rs_uid = self.replica_set(ns, &app, (&dep_uid, &hash), rev, replicas)?;
            let rs = format!("{app}-{hash}");
            if !current {
                continue;
            }
            if !self.full() {
                self.event(
                    ns,
                    ("ReplicaSet", &rs, &rs_uid),
                    (
                        "SuccessfulCreate",
                        &format!("Created pod: {rs}-a0000"),
                        "replicaset-controller",
                    ),
                )?;
            }
            for p in 0..pods {
                if self.full() {
                    return Ok(());
                }
                let name = format!("{rs}-{p:05x}");
                let node = format!("node-{:05}", (ns_i * 31 + p) % nodes);
                let pod_uid = self.pod(ns, &app, (&rs, &rs_uid, &hash), &name, &node)?;
                // Every pod was scheduled; half of them were restarted.
                for (reason, message, component) in [
                    (
                        "Scheduled",
                        format!("Successfully assigned {ns}/{name} to {node}"),
                        "default-scheduler",
                    ),
                    ("Started", "Started container main".to_string(), "kubelet"),
                ]
                .into_iter()
                .take(1 + p % 2)
                {
                    if self.full() {
                        return Ok(());
                    }
                    self.event(ns, ("Pod", &name, &pod_uid), (reason, &message, component))?;
                }
            }
        }
        Ok(())
    }
}

/// The objects in the generated List that the commands are run on.
struct Targets {
    ns: String,
    pod: String,
    deployment: String,
    config_map: String,
}

/// Writes a List of exactly `n` objects into `path`: Nodes (one per
/// thousand objects) and their Leases, three wide namespaces (a Deployment
/// whose ReplicaSet has `n / 100` pods), then namespaces of six Deployments
/// (five ReplicaSets each, eight pods, the Events of both) until `n`.
fn write_cluster(path: &Path, n: usize) -> Result<Targets, CmdError> {
    let file = std::fs::File::create(path).map_err(err)?;
    let mut w = Writer {
        out: std::io::BufWriter::with_capacity(1 << 20, file),
        buf: String::with_capacity(2 << 20),
        n,
        i: 0,
    };
    w.buf
        .push_str(r#"{"apiVersion":"v1","kind":"List","metadata":{},"items":["#);
    let nodes = (n / 1000).max(3);
    w.namespace("kube-node-lease")?;
    for k in 0..nodes {
        if w.full() {
            break;
        }
        let name = format!("node-{k:05}");
        let uid = w.node(&name)?;
        if !w.full() {
            w.lease(&name, &uid)?;
        }
    }
    for k in 0..WIDE {
        if w.full() {
            break;
        }
        let ns = format!("wide-{k}");
        w.namespace(&ns)?;
        w.app(&ns, (100_000 + k, 0), n / WIDE_SHARE, nodes)?;
    }
    // Ordinary namespaces: how many fit, so that the targets are in the
    // middle one.
    let per_ns = 3 + APPS * (1 + REVISIONS + 1 + PODS + PODS.div_ceil(2) + PODS);
    let left = n.saturating_sub(w.i);
    let count = left.div_ceil(per_ns).max(1);
    let mid = count / 2;
    for k in 0..count {
        if w.full() {
            break;
        }
        let ns = format!("ns-{k:05}");
        w.namespace(&ns)?;
        if !w.full() {
            w.namespace_defaults(&ns)?;
        }
        for a in 0..APPS {
            if w.full() {
                break;
            }
            w.app(&ns, (k, a), PODS, nodes)?;
        }
    }
    w.buf.push_str("]}\n");
    w.out.write_all(w.buf.as_bytes()).map_err(err)?;
    w.out.flush().map_err(err)?;
    let ns = format!("ns-{mid:05}");
    let app = 2;
    Ok(Targets {
        pod: format!("pod/app-{app}-{}-{:05x}", hash_of(mid, app, REVISIONS), 3),
        deployment: format!("deployment/app-{app}"),
        config_map: "configmap/kube-root-ca.crt".to_string(),
        ns,
    })
}

// ---------------------------------------------------------------------------
// The runs
// ---------------------------------------------------------------------------

/// The commands measured, by the name printed, with their arguments (the
/// file goes after the command's name).
fn commands(t: &Targets) -> Vec<(&'static str, Vec<String>)> {
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_string()).collect::<Vec<_>>();
    vec![
        ("tree FILE", s(&["tree"])),
        ("tree FILE -o json", s(&["tree", "-o", "json"])),
        ("why FILE POD", s(&["why", &t.pod, "-n", &t.ns])),
        (
            "plan FILE --delete DEPLOYMENT",
            s(&["plan", "--delete", &t.deployment, "-n", &t.ns]),
        ),
        (
            "simulate FILE --delete CONFIGMAP",
            s(&["simulate", "--delete", &t.config_map, "-n", &t.ns]),
        ),
    ]
}

/// The floors measured beside the commands: the way's name for
/// [`run_one`], and the name printed.
const FLOORS: [(&str, &str); 2] = [
    (READ, "file read into objects"),
    (LOADED, "file read and loaded"),
];
const READ: &str = "read-objects";
const LOADED: &str = "read-and-load";

/// The child side: runs one command (its output thrown away by the
/// parent), the bare parse (`bare-json FILE`) or one of the [`FLOORS`],
/// then prints its peak resident memory in KiB on stderr.
///
/// # Errors
/// The command's own error.
pub fn run_one(args: &[String]) -> CmdResult {
    if let [way, file] = args
        && [BARE, READ, LOADED].contains(&way.as_str())
    {
        match way.as_str() {
            BARE => {
                bare_json(Path::new(file))?;
            }
            READ => {
                let sc = crate::sim::scenario::load(file)?;
                // As the commands do: the process ends next.
                std::mem::forget(sc);
            }
            _ => {
                let sim = crate::commands::load_sim(file, None)?;
                crate::commands::leave_to_exit(sim);
            }
        }
    } else {
        let cli = Cli::try_parse_from(
            std::iter::once("ownerscope".to_string()).chain(args.iter().cloned()),
        )
        .map_err(err)?;
        match &cli.command {
            Some(Sub::Tree(a)) => crate::commands::tree::run(a)?,
            Some(Sub::Why(a)) => crate::commands::why::run(a)?,
            Some(Sub::Plan(a)) => crate::commands::plan::run(a)?,
            Some(Sub::Simulate(a)) => crate::commands::simulate::run(a)?,
            _ => return Err(CmdError(format!("not a measured command: {args:?}"))),
        }
    }
    eprintln!("peak-kib {}", peak_kib());
    Ok(())
}

/// CPU time of this process's children that have ended, user and system
/// (`/proc/self/stat`'s `cutime` and `cstime`, in the kernel's 10 ms ticks).
pub(super) fn children_cpu() -> Duration {
    let (user, system) = children_times();
    user + system
}

/// [`children_cpu`] as (user, system).
fn children_times() -> (Duration, Duration) {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            let rest = s.rsplit_once(')')?.1;
            let mut f = rest.split_whitespace().skip(13);
            let user: u64 = f.next()?.parse().ok()?;
            let system: u64 = f.next()?.parse().ok()?;
            Some((
                Duration::from_millis(user * 10),
                Duration::from_millis(system * 10),
            ))
        })
        .unwrap_or_default()
}

#[derive(Clone, Copy)]
struct Sample {
    /// User time alone: the kernel's time (fresh pages, the page cache)
    /// moves with the machine, by seconds from one run to the next.
    user: Duration,
    cpu: Duration,
    wall: Duration,
    peak_kib: u64,
}

/// One child: `ownerscope bench --command-one ARGS...`, stdout thrown away.
fn child(args: &[String]) -> Result<Sample, CmdError> {
    let exe = std::env::current_exe().map_err(err)?;
    let (user0, system0) = children_times();
    let t = Instant::now();
    let mut all = vec!["bench".to_string(), "--command-one".to_string()];
    all.extend_from_slice(args);
    let out = super::bench_live::quiet_child(&exe, &all)?;
    let wall = t.elapsed();
    let (user1, system1) = children_times();
    let user = user1.saturating_sub(user0);
    let cpu = user + system1.saturating_sub(system0);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let peak = stderr
        .lines()
        .find_map(|l| l.strip_prefix("peak-kib "))
        .and_then(|v| v.trim().parse().ok());
    match peak {
        Some(peak_kib) if out.status.success() => Ok(Sample {
            user,
            cpu,
            wall,
            peak_kib,
        }),
        _ => Err(CmdError(format!("{}: {}", args.join(" "), stderr.trim()))),
    }
}

/// A ratio as printed: `1.23x`, or `n/a` when there is none (see
/// [`summary`]).
fn times(ratio: f64) -> String {
    if ratio.is_nan() {
        "n/a".to_string()
    } else {
        format!("{ratio:.2}x")
    }
}

fn median_of<T: Copy + PartialOrd>(mut v: Vec<T>) -> T {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    v[v.len() / 2]
}

/// The medians of one command's runs, and of its ratios to the bare parse
/// of the same round.
fn summary(bare: &[Sample], ours: &[Sample]) -> [f64; 8] {
    // No ratio to a bare parse that took no measurable time (under the
    // kernel's 10 ms tick, in a tiny file): not a number, printed as such.
    let ratio = |f: fn(&Sample) -> f64| {
        if bare.iter().any(|b| f(b) <= 0.0) {
            return f64::NAN;
        }
        median_of(bare.iter().zip(ours).map(|(b, o)| f(o) / f(b)).collect())
    };
    #[allow(clippy::cast_precision_loss)]
    let peak = |s: &Sample| s.peak_kib as f64 / 1024.0;
    [
        median_of(ours.iter().map(|s| s.user.as_secs_f64()).collect()),
        ratio(|s| s.user.as_secs_f64()),
        median_of(ours.iter().map(|s| s.cpu.as_secs_f64()).collect()),
        ratio(|s| s.cpu.as_secs_f64()),
        median_of(ours.iter().map(|s| s.wall.as_secs_f64()).collect()),
        ratio(|s| s.wall.as_secs_f64()),
        median_of(ours.iter().map(peak).collect()),
        ratio(peak),
    ]
}

/// Keeps this thread, and so every child it starts, to the first core
/// it may run on; returns that core's number.
fn keep_to_one_core() -> Result<usize, CmdError> {
    use rustix::thread::{CpuSet, sched_getaffinity, sched_setaffinity};
    let allowed = sched_getaffinity(None).map_err(err)?;
    let first = (0..CpuSet::MAX_CPU)
        .find(|&c| allowed.is_set(c))
        .ok_or_else(|| CmdError("no core to run on".into()))?;
    let mut one = CpuSet::new();
    one.set(first);
    sched_setaffinity(None, &one).map_err(err)?;
    Ok(first)
}

/// The parent side: writes each size's List, runs every command and the
/// bare parse interleaved, prints a table per size.
///
/// # Errors
/// A file that cannot be written, a child that fails; with `one_core`,
/// a process that cannot be kept to one core.
pub fn run(sizes: &[usize], runs: usize, keep: Option<&Path>, one_core: bool) -> CmdResult {
    let runs = runs.clamp(1, 15);
    let cores = if one_core {
        format!("; every child on core {}", keep_to_one_core()?)
    } else {
        String::new()
    };
    let dir: PathBuf = match keep {
        Some(d) => d.to_path_buf(),
        None => {
            std::env::temp_dir().join(format!("ownerscope-bench-commands-{}", std::process::id()))
        }
    };
    std::fs::create_dir_all(&dir).map_err(err)?;
    println!(
        "ownerscope bench --commands: {runs} interleaved runs, each in its own process{cores}; user CPU (the steadier: the kernel's time moves with the machine), CPU (user + system), wall time, peak resident memory: medians, and the medians of each run's ratio to the bare parse of its round{}",
        if cfg!(debug_assertions) {
            " (DEBUG BUILD: use --release for real figures)"
        } else {
            ""
        }
    );
    let result = (|| {
        for &n in sizes {
            let path = dir.join(format!("cluster-{n}.json"));
            let targets = write_cluster(&path, n)?;
            let file = path.to_string_lossy().to_string();
            let mb = std::fs::metadata(&path).map_err(err)?.len() / 1_000_000;
            let cmds: Vec<(&str, Vec<String>)> = commands(&targets)
                .into_iter()
                .map(|(name, mut args)| {
                    args.insert(1, file.clone());
                    (name, args)
                })
                .collect();
            let bare_args = vec![BARE.to_string(), file.clone()];
            // The floors first, then the commands: one row each.
            let cmds: Vec<(&str, Vec<String>)> = FLOORS
                .iter()
                .map(|&(way, name)| (name, vec![way.to_string(), file.clone()]))
                .chain(cmds)
                .collect();
            let mut bare = Vec::new();
            let mut ours: Vec<Vec<Sample>> = vec![Vec::new(); cmds.len()];
            for _ in 0..runs {
                bare.push(child(&bare_args)?);
                for (k, (_, args)) in cmds.iter().enumerate() {
                    ours[k].push(child(args)?);
                }
            }
            println!();
            println!("{n} objects, {mb} MB of JSON List ({})", targets.ns);
            println!(
                "| command | user CPU | user ratio | CPU | CPU ratio | wall | wall ratio | peak | memory ratio |"
            );
            println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
            let row = |name: &str, s: [f64; 8]| {
                println!(
                    "| {name} | {:.2} s | {} | {:.2} s | {} | {:.2} s | {} | {:.0} MiB | {} |",
                    s[0],
                    times(s[1]),
                    s[2],
                    times(s[3]),
                    s[4],
                    times(s[5]),
                    s[6],
                    times(s[7])
                );
            };
            row("bare parse + index", summary(&bare, &bare));
            for (k, (name, _)) in cmds.iter().enumerate() {
                row(name, summary(&bare, &ours[k]));
            }
            std::io::stdout().flush().ok();
            if keep.is_none() {
                std::fs::remove_file(&path).ok();
            }
        }
        Ok(())
    })();
    if keep.is_none() {
        std::fs::remove_dir_all(&dir).ok();
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each column is the median of its own figure, and each ratio that
    /// of the same figure in the bare parse of the round: a round whose
    /// kernel time jumped moves the CPU columns, not the user ones.
    #[test]
    fn the_summary_keeps_user_time_apart_from_the_kernels() {
        let s = |user: u64, system: u64, wall: u64, peak_kib: u64| Sample {
            user: Duration::from_millis(user),
            cpu: Duration::from_millis(user + system),
            wall: Duration::from_millis(wall),
            peak_kib,
        };
        let bare = [
            s(1000, 100, 1100, 1024),
            s(1000, 2000, 3000, 1024),
            s(1200, 100, 1300, 1024),
        ];
        let ours = [
            s(2000, 100, 2000, 2048),
            s(2000, 100, 2100, 2048),
            s(2400, 2000, 4400, 2048),
        ];
        let [
            user,
            user_ratio,
            cpu,
            cpu_ratio,
            wall,
            wall_ratio,
            peak,
            memory,
        ] = summary(&bare, &ours);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(
            close(user, 2.0) && close(user_ratio, 2.0),
            "{user} {user_ratio}"
        );
        // CPU ratios by round: 2.1/1.1, 2.1/3.0, 4.4/1.3.
        assert!(
            close(cpu, 2.1) && close(cpu_ratio, 2.1 / 1.1),
            "{cpu} {cpu_ratio}"
        );
        assert!(
            close(wall, 2.1) && close(wall_ratio, 2.0 / 1.1),
            "{wall} {wall_ratio}"
        );
        assert!(close(peak, 2.0) && close(memory, 2.0), "{peak} {memory}");
    }

    /// A bare parse under the kernel's tick (a tiny file) has no user
    /// time to divide by: the ratio is printed as none, not as ten
    /// million, and the figures that were measured keep theirs.
    #[test]
    fn a_ratio_to_no_measured_time_is_printed_as_none() {
        let s = |user: u64, wall: u64| Sample {
            user: Duration::from_millis(user),
            cpu: Duration::from_millis(user),
            wall: Duration::from_millis(wall),
            peak_kib: 1024,
        };
        let bare = [s(0, 20), s(10, 20), s(10, 20)];
        let ours = [s(10, 10), s(10, 10), s(20, 10)];
        let [_, user_ratio, _, cpu_ratio, _, wall_ratio, _, memory] = summary(&bare, &ours);
        assert!(user_ratio.is_nan() && cpu_ratio.is_nan(), "{user_ratio}");
        assert_eq!(times(user_ratio), "n/a");
        assert_eq!(times(wall_ratio), "0.50x");
        assert_eq!(times(memory), "1.00x");
    }

    fn generated(n: usize) -> (String, Targets) {
        let dir = std::env::temp_dir().join(format!(
            "ownerscope-bench-commands-test-{}-{n}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("c.json");
        let t = write_cluster(&path, n).expect("writes");
        let text = std::fs::read_to_string(&path).expect("reads");
        std::fs::remove_dir_all(&dir).ok();
        (text, t)
    }

    #[test]
    fn the_cluster_has_the_count_and_the_shapes_asked_for() {
        let (text, t) = generated(3000);
        let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        let items = v["items"].as_array().expect("items");
        assert_eq!(items.len(), 3000);
        let count = |kind: &str| items.iter().filter(|o| o["kind"] == kind).count();
        let events = count("Event");
        assert!(events * 10 > 3000 * 3 && events * 2 < 3000, "{events}");
        assert_eq!(count("ReplicaSet"), REVISIONS * count("Deployment"));
        assert!(count("Namespace") > 10);
        // The wide owners: a ReplicaSet with a hundredth of the objects.
        let rs_uid = |ns: &str| {
            items
                .iter()
                .find(|o| {
                    o["kind"] == "ReplicaSet"
                        && o["metadata"]["namespace"] == ns
                        && o["spec"]["replicas"] != 0
                })
                .and_then(|o| o["metadata"]["uid"].as_str())
                .expect("a current ReplicaSet")
                .to_string()
        };
        let wide = rs_uid("wide-0");
        let owned = items
            .iter()
            .filter(|o| o["metadata"]["ownerReferences"][0]["uid"] == wide.as_str())
            .count();
        assert_eq!(owned, 30);
        let uids: std::collections::BTreeSet<&str> = items
            .iter()
            .filter_map(|o| o["metadata"]["uid"].as_str())
            .collect();
        assert_eq!(uids.len(), 3000);
        // The objects the commands are run on are there.
        let named = |typed: &str| {
            let (kind, name) = typed.split_once('/').expect("KIND/NAME");
            items.iter().any(|o| {
                o["kind"].as_str().map(str::to_lowercase).as_deref() == Some(kind)
                    && o["metadata"]["name"] == name
                    && o["metadata"]["namespace"] == t.ns.as_str()
            })
        };
        assert!(named(&t.pod), "{}", t.pod);
        assert!(named(&t.deployment));
        assert!(named(&t.config_map));
    }

    /// The cluster is at rest, as a snapshot of a real one is: with the
    /// clock running, the simulated controllers make and release nothing,
    /// and no reference is left dangling.
    #[test]
    fn the_generated_cluster_is_at_rest() {
        let (text, _) = generated(1200);
        let sc = crate::sim::scenario::parse("c.json", &text).expect("loads");
        let mut sim = crate::sim::engine::Sim::load(sc).expect("starts");
        let state = |sim: &crate::sim::engine::Sim| -> Vec<(String, usize, bool)> {
            sim.graph()
                .objects()
                .map(|o| {
                    (
                        o.uid().to_string(),
                        o.metadata.owner_references.len(),
                        sim.graph().has_problem(o.uid()),
                    )
                })
                .collect()
        };
        let before = state(&sim);
        assert_eq!(before.len(), 1200);
        assert!(before.iter().all(|(_, _, problem)| !problem));
        sim.advance(60_000);
        assert_eq!(state(&sim), before);
    }
}
