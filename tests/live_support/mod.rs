//! The live tests' harness: the control plane started once per test binary
//! through `.ci/test-cluster.sh` (a failure to start fails the tests), kube
//! clients for fixtures, and a driver that feeds a `ClusterBackend`'s updates
//! into an ownership graph the way the UI does.

#![allow(dead_code, clippy::missing_panics_doc)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::sync::{OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{DeleteParams, ObjectMeta, PostParams};
use kube::{Api, Client};
use ownerscope::backend::{Backend, Connection, Happening, Reply, SourceStatus, Update};
use ownerscope::cluster::{ClusterBackend, LiveOptions};
use ownerscope::model::{KindTable, Object, OwnershipGraph};

pub struct Env {
    pub admin: PathBuf,
    pub restricted: PathBuf,
    pub script: PathBuf,
}

static ENV: OnceLock<Result<Env, String>> = OnceLock::new();
/// Tests share the control plane; the restart test takes it exclusively.
static SHARED: RwLock<()> = RwLock::new(());

pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/test-cluster.sh")
}

/// Starts (or reuses) the control plane; every test fails with the
/// script's output if it cannot (the failure is kept, not retried).
pub fn env() -> &'static Env {
    match ENV.get_or_init(start_cluster) {
        Ok(env) => env,
        Err(e) => panic!("{e}"),
    }
}

fn start_cluster() -> Result<Env, String> {
    let t = Instant::now();
    let out = Process::new("bash")
        .arg(script())
        .arg("start")
        .output()
        .map_err(|e| format!("running .ci/test-cluster.sh: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    if !out.status.success() {
        return Err(format!(
            "the test control plane did not start:\n{stdout}\n{stderr}"
        ));
    }
    eprintln!("control plane ready in {:.1}s", t.elapsed().as_secs_f64());
    let get = |k: &str| -> Result<PathBuf, String> {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{k}=")))
            .map(PathBuf::from)
            .ok_or_else(|| format!("{k} missing from test-cluster.sh output:\n{stdout}"))
    };
    Ok(Env {
        admin: get("OWNERSCOPE_TEST_KUBECONFIG")?,
        restricted: get("OWNERSCOPE_TEST_RESTRICTED_KUBECONFIG")?,
        script: script(),
    })
}

pub fn shared() -> RwLockReadGuard<'static, ()> {
    env();
    SHARED
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub fn exclusive() -> RwLockWriteGuard<'static, ()> {
    env();
    SHARED
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub fn cluster_script(args: &[&str]) -> String {
    let out = Process::new("bash")
        .arg(script())
        .args(args)
        .output()
        .expect("running .ci/test-cluster.sh");
    assert!(
        out.status.success(),
        "test-cluster.sh {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

pub fn options(kubeconfig: &Path, ns: &str) -> LiveOptions {
    LiveOptions {
        kubeconfig: Some(kubeconfig.to_path_buf()),
        context: None,
        namespace: Some(ns.to_string()),
        all_namespaces: false,
        read_only: false,
        ..LiveOptions::default()
    }
}

pub async fn admin_client() -> Client {
    ownerscope::cluster::connect(&options(&env().admin, "default"))
        .await
        .expect("admin client")
        .client
}

/// A fresh namespace for one test.
pub async fn namespace(client: &Client, prefix: &str) -> String {
    // Unique across concurrent tests of one process (a counter) and across
    // runs (the clock).
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = format!(
        "{prefix}-{}-{n}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() % 1_000_000)
            .unwrap_or(0)
    );
    let api: Api<Namespace> = Api::all(client.clone());
    let ns = Namespace {
        metadata: ObjectMeta {
            name: Some(name.clone()),
            ..ObjectMeta::default()
        },
        ..Namespace::default()
    };
    api.create(&PostParams::default(), &ns)
        .await
        .expect("namespace");
    name
}

pub fn owner_ref(
    api_version: &str,
    kind: &str,
    name: &str,
    uid: &str,
    block: bool,
) -> k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference {
    k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference {
        api_version: api_version.into(),
        kind: kind.into(),
        name: name.into(),
        uid: uid.into(),
        controller: Some(block),
        block_owner_deletion: Some(block),
    }
}

/// Creates a ConfigMap; returns its uid.
pub async fn configmap(
    client: &Client,
    ns: &str,
    name: &str,
    owners: Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference>,
    finalizers: &[&str],
) -> String {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), ns);
    let cm = ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            owner_references: (!owners.is_empty()).then_some(owners),
            finalizers: (!finalizers.is_empty())
                .then(|| finalizers.iter().map(|f| (*f).to_string()).collect()),
            ..ObjectMeta::default()
        },
        ..ConfigMap::default()
    };
    api.create(&PostParams::default(), &cm)
        .await
        .expect("configmap")
        .metadata
        .uid
        .expect("uid")
}

pub async fn delete_namespace(client: &Client, ns: &str) {
    let api: Api<Namespace> = Api::all(client.clone());
    let _ = api.delete(ns, &DeleteParams::default()).await;
}

/// A backend and what the UI would hold from its updates.
pub struct Live {
    pub backend: ClusterBackend,
    pub graph: OwnershipGraph,
    pub resets: usize,
    pub happened: Vec<Happening>,
    pub replies: Vec<Reply>,
    pub status: Option<SourceStatus>,
    /// Every state of every object seen, in order: (uid, object).
    pub history: Vec<(String, Option<Object>)>,
}

impl Live {
    pub fn start(opts: &LiveOptions) -> Live {
        let backend = ClusterBackend::start(opts, Duration::from_secs(60)).expect("backend starts");
        let mut l = Live {
            backend,
            graph: OwnershipGraph::new(KindTable::builtin()),
            resets: 0,
            happened: Vec::new(),
            replies: Vec::new(),
            status: None,
            history: Vec::new(),
        };
        l.wait("the first tree", Duration::from_secs(30), |l| l.resets > 0);
        l
    }

    pub fn pump(&mut self) {
        for u in self.backend.poll(Duration::from_millis(50)) {
            match u {
                Update::Reset { objects, kinds } => {
                    self.resets += 1;
                    self.graph = OwnershipGraph::new(kinds);
                    for o in objects {
                        self.history
                            .push((o.metadata.uid.clone(), Some(Object::clone(&o))));
                        self.graph.upsert(o);
                    }
                }
                Update::Upsert(o) => {
                    self.history
                        .push((o.metadata.uid.clone(), Some(Object::clone(&o))));
                    self.graph.upsert(o);
                }
                Update::Remove(uid) => {
                    self.history.push((uid.clone(), None));
                    self.graph.remove(&uid);
                }
                Update::Happened(h) => self.happened.push(h),
                Update::Replied(r) => self.replies.push(r),
                Update::Status(s) => self.status = Some(s),
                Update::Unlisted(u) => self.graph.kinds_mut().set_unlisted(u),
                // The simulator's story: a live backend sends none.
                Update::Story(_) => {}
            }
        }
    }

    /// Polls until `cond` holds; panics with `what` after `timeout`.
    pub fn wait(&mut self, what: &str, timeout: Duration, mut cond: impl FnMut(&Live) -> bool) {
        let t = Instant::now();
        loop {
            self.pump();
            if cond(self) {
                return;
            }
            assert!(
                t.elapsed() < timeout,
                "timed out after {timeout:?} waiting for {what}; status {:?}; replies {:?}; objects {:?}",
                self.status,
                self.replies,
                self.graph
                    .objects()
                    .map(|o| format!("{}/{}", o.kind, o.name()))
                    .collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn find(&self, kind: &str, name: &str) -> Option<&Object> {
        self.graph
            .objects()
            .find(|o| o.kind == kind && o.name() == name)
    }

    pub fn connected(&self) -> bool {
        self.status
            .as_ref()
            .is_some_and(|s| s.connection == Connection::Connected)
    }

    /// The index in `history` of the first state matching `f`.
    pub fn first(&self, f: impl Fn(&str, Option<&Object>) -> bool) -> Option<usize> {
        self.history.iter().position(|(u, o)| f(u, o.as_ref()))
    }

    pub fn controllers() -> BTreeMap<String, bool> {
        BTreeMap::new()
    }
}

pub fn ownerscope(args: &[&str]) -> std::process::Output {
    Process::new(env!("CARGO_BIN_EXE_ownerscope"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// kubectl with the admin kubeconfig, for fixtures.
pub fn kubectl(args: &[&str], stdin: Option<&str>) -> String {
    use std::io::Write as _;
    let mut child = std::process::Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(&env().admin)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("kubectl runs");
    if let Some(text) = stdin
        && let Some(mut s) = child.stdin.take()
    {
        s.write_all(text.as_bytes()).expect("stdin");
    }
    let out = child.wait_with_output().expect("kubectl");
    assert!(
        out.status.success(),
        "kubectl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}
