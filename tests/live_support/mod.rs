//! The live tests' harness: the target started once per test binary (the
//! control plane through `.ci/test-cluster.sh`, or `ownerscope serve`; a
//! failure to start fails the tests), kube clients for fixtures, and a
//! driver that feeds a `ClusterBackend`'s updates into an ownership graph
//! the way the UI does.

#![allow(dead_code, clippy::missing_panics_doc)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::sync::{Arc, Mutex, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{DeleteParams, ObjectMeta, PostParams};
use kube::{Api, Client};
use ownerscope::backend::{Backend, Connection, Contexts, Happening, Reply, SourceStatus, Update};
use ownerscope::cluster::{ClusterBackend, LiveOptions};
use ownerscope::model::{KindTable, Object, OwnershipGraph};

/// What the live suite runs against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// kube-apiserver 1.20 and kube-controller-manager with etcd
    /// (`.ci/test-cluster.sh`).
    Cluster,
    /// `ownerscope serve` on a minimal scenario (1.36 semantics).
    Serve,
}

/// A target, started: the same two users on both (`admin` in
/// `system:masters`; `restricted` in `ownerscope-restricted`, granted
/// nothing but discovery and access reviews until a test binds it).
pub struct Env {
    pub target: Target,
    pub admin: PathBuf,
    pub restricted: PathBuf,
    /// The restricted user's bearer token.
    pub restricted_token: String,
    /// The admin kubeconfig's context.
    pub admin_context: String,
    pub script: PathBuf,
    /// The serve process, when the target is serve.
    server: Mutex<Option<Served>>,
}

static CLUSTER: OnceLock<Result<Env, String>> = OnceLock::new();
static SERVE: OnceLock<Result<Env, String>> = OnceLock::new();
/// Tests share the target; the restart test takes it exclusively.
static SHARED: RwLock<()> = RwLock::new(());

pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/test-cluster.sh")
}

/// Starts (or reuses) the target; every test fails with the reason if it
/// cannot (the failure is kept, not retried).
pub fn env_of(target: Target) -> &'static Env {
    let started = match target {
        Target::Cluster => CLUSTER.get_or_init(start_cluster),
        Target::Serve => SERVE.get_or_init(start_serve),
    };
    match started {
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
        target: Target::Cluster,
        admin: get("OWNERSCOPE_TEST_KUBECONFIG")?,
        restricted: get("OWNERSCOPE_TEST_RESTRICTED_KUBECONFIG")?,
        restricted_token: "ownerscope-restricted-token".into(),
        admin_context: "admin@ownerscope-test".into(),
        script: script(),
        server: Mutex::new(None),
    })
}

/// The scenario serve starts from: nothing but the namespaces a fresh
/// cluster has (serve adds them, and the bootstrap RBAC policy).
const EMPTY: &str = "apiVersion: v1\nkind: List\nitems: []\n";

/// A running `ownerscope serve`, under a shell that stops it when its
/// stdin closes: when the test process ends, however it ends, so does the
/// server.
struct Served {
    child: std::process::Child,
    port: u16,
    dir: PathBuf,
}

impl Served {
    fn stop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// Starts `ownerscope serve` with the restricted user on `port` (0: any).
fn spawn_serve(dir: &Path, port: u16) -> Result<Served, String> {
    use std::io::BufRead as _;
    let scenario = dir.join("empty.yaml");
    std::fs::write(&scenario, EMPTY).map_err(|e| format!("writing the scenario: {e}"))?;
    let mut child = Process::new("sh")
        .arg("-c")
        .arg(r#""$0" serve "$@" & pid=$!; read -r _; kill "$pid"; wait "$pid""#)
        .arg(env!("CARGO_BIN_EXE_ownerscope"))
        .arg(&scenario)
        .args(["--user", "restricted:ownerscope-restricted"])
        .args(["--port", &port.to_string()])
        .arg("--kubeconfig-out")
        .arg(dir.join("admin.kubeconfig"))
        // A restart (`start_api_server`) keeps the CA, the tokens and the
        // store, as a real API server on etcd does.
        .arg("--state-dir")
        .arg(dir.join("state"))
        .env("OWNERSCOPE_LOG_FILE", dir.join("serve.log"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("ownerscope serve: {e}"))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let first = std::io::BufReader::new(stdout)
        .lines()
        .next()
        .and_then(Result::ok)
        .unwrap_or_default();
    let port = first
        .split("https://127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|p| p.parse().ok())
        .ok_or_else(|| format!("ownerscope serve did not start: {first:?}"))?;
    Ok(Served {
        child,
        port,
        dir: dir.to_path_buf(),
    })
}

fn start_serve() -> Result<Env, String> {
    let dir = std::env::temp_dir().join(format!("ownerscope-live-on-serve-{}", std::process::id()));
    // Left over from an earlier run with this pid: start afresh.
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let served = spawn_serve(&dir, 0)?;
    let admin = dir.join("admin.kubeconfig");
    let text = std::fs::read_to_string(&admin).map_err(|e| format!("{}: {e}", admin.display()))?;
    // The restricted user's entry, and a kubeconfig whose current context
    // is its own.
    let token = text
        .split("- name: restricted\n  user:\n    token: ")
        .nth(1)
        .and_then(|r| r.lines().next())
        .ok_or_else(|| format!("no restricted user in the kubeconfig:\n{text}"))?
        .to_string();
    let restricted = dir.join("restricted.kubeconfig");
    std::fs::write(
        &restricted,
        text.replace(
            "current-context: ownerscope-sim\n",
            "current-context: restricted@ownerscope-sim\n",
        ),
    )
    .map_err(|e| format!("{}: {e}", restricted.display()))?;
    Ok(Env {
        target: Target::Serve,
        admin,
        restricted,
        restricted_token: token,
        admin_context: "ownerscope-sim".into(),
        script: script(),
        server: Mutex::new(Some(served)),
    })
}

impl Env {
    pub fn shared(&self) -> RwLockReadGuard<'static, ()> {
        SHARED
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn exclusive(&self) -> RwLockWriteGuard<'static, ()> {
        SHARED
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub async fn admin_client(&self) -> Client {
        ownerscope::cluster::connect(&options(&self.admin, "default"))
            .await
            .expect("admin client")
            .client
    }

    /// Stops the API server (the serve process) where it listens.
    pub fn stop_api_server(&self) {
        match self.target {
            Target::Cluster => {
                cluster_script(&["apiserver-stop"]);
            }
            Target::Serve => {
                let mut s = self
                    .server
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                s.as_mut().expect("serve is running").stop();
            }
        }
    }

    /// Starts it again on the same port.
    pub fn start_api_server(&self) {
        match self.target {
            Target::Cluster => {
                cluster_script(&["apiserver-start"]);
            }
            Target::Serve => {
                let mut s = self
                    .server
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                let old = s.take().expect("serve was started");
                *s = Some(spawn_serve(&old.dir, old.port).expect("serve restarts"));
            }
        }
    }
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

/// The namespaces [`namespace`] made in this process, in order.
static MADE: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The namespaces this process's tests made so far (deleted or not): a
/// whole-cluster test tells the other tests' objects by them, the
/// cluster-scoped ones included, which are named after their namespace
/// (`{ns}-node-a`).
pub fn made_namespaces() -> Vec<String> {
    MADE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
}

/// One request, with a JSON body or none: the answer's status code and
/// JSON (`null` when it is not JSON).
pub async fn send_json(
    client: &Client,
    method: &str,
    path: &str,
    content_type: &str,
    accept: &str,
    body: Option<&serde_json::Value>,
) -> (u16, serde_json::Value) {
    let req = http::Request::builder()
        .method(method)
        .uri(path)
        .header(http::header::CONTENT_TYPE, content_type)
        .header(http::header::ACCEPT, accept)
        .body(kube::client::Body::from(
            body.map(|b| b.to_string().into_bytes()).unwrap_or_default(),
        ))
        .expect("request");
    let resp = client.send(req).await.expect("an answer");
    (resp.status().as_u16(), json_body(resp).await)
}

/// An answer's body as JSON (`null` when it is not JSON).
pub async fn json_body(resp: http::Response<kube::client::Body>) -> serde_json::Value {
    use http_body_util::BodyExt as _;
    let bytes = resp
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null)
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
    MADE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(name.clone());
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
    /// The kubeconfig's contexts, as the backend last named them.
    pub contexts: Option<Contexts>,
    /// The namespace watched and the cluster's others, as last named.
    pub namespaces: Option<ownerscope::backend::Namespaces>,
    /// Every state of every object seen, in order: (uid, object).
    pub history: Vec<(String, Option<Object>)>,
    /// What the backend read for `Command::ReadEvidence`, in order.
    pub evidence: Vec<ownerscope::backend::Evidence>,
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
            contexts: None,
            namespaces: None,
            history: Vec::new(),
            evidence: Vec::new(),
        };
        l.wait("the first tree", Duration::from_secs(30), |l| l.resets > 0);
        l
    }

    pub fn pump(&mut self) {
        for u in self.backend.poll(Duration::from_millis(50)) {
            match u {
                Update::Reset { objects, kinds } => {
                    self.resets += 1;
                    self.graph = OwnershipGraph::new(*kinds);
                    for o in objects {
                        self.history
                            .push((o.metadata.uid.clone(), Some(Object::clone(&o))));
                        self.graph.upsert(o);
                    }
                }
                Update::ResetGraph(g) => {
                    self.resets += 1;
                    for o in g.shared_objects() {
                        self.history
                            .push((o.metadata.uid.clone(), Some(Object::clone(o))));
                    }
                    self.graph = Arc::unwrap_or_clone(g);
                }
                Update::Upsert(o) | Update::Listed(o) => {
                    self.history
                        .push((o.metadata.uid.clone(), Some(Object::clone(&o))));
                    self.graph.upsert(o);
                }
                Update::Remove(uid) => {
                    self.history.push((uid.clone(), None));
                    self.graph.remove(&uid);
                }
                Update::Happened(h) => self.happened.push(*h),
                Update::Replied(r) => self.replies.push(*r),
                Update::Status(s) => self.status = Some(*s),
                Update::Contexts(c) => self.contexts = Some(*c),
                Update::Namespaces(n) => self.namespaces = Some(*n),
                Update::Unlisted(u) => self.graph.kinds_mut().set_unlisted(u),
                Update::Evidence(e) => self.evidence.push(*e),
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

/// The binary, with its discovery cache in a directory of this test
/// process (shared by its tests, as a user's runs share theirs), not in the
/// user's `~/.kube/cache`.
pub fn ownerscope(args: &[&str]) -> std::process::Output {
    let cache =
        std::env::temp_dir().join(format!("ownerscope-test-kubecache-{}", std::process::id()));
    Process::new(env!("CARGO_BIN_EXE_ownerscope"))
        .env("KUBECACHEDIR", cache)
        .args(args)
        .output()
        .expect("binary runs")
}

/// kubectl with the admin kubeconfig, for fixtures.
pub fn kubectl_with(env: &Env, args: &[&str], stdin: Option<&str>) -> String {
    try_kubectl_with(env, args, stdin).unwrap_or_else(|e| panic!("kubectl {args:?}: {e}"))
}

/// kubectl with the admin kubeconfig: its stdout, or its stderr when it
/// fails.
pub fn try_kubectl_with(env: &Env, args: &[&str], stdin: Option<&str>) -> Result<String, String> {
    use std::io::Write as _;
    let mut child = std::process::Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(&env.admin)
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
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).to_string())
    }
}

/// The control plane, for the binaries that use only it
/// (`tests/rehearsal.rs`; `tests/serve.rs` compares with it).
pub fn env() -> &'static Env {
    env_of(Target::Cluster)
}

pub fn shared() -> RwLockReadGuard<'static, ()> {
    env().shared()
}

pub fn exclusive() -> RwLockWriteGuard<'static, ()> {
    env().exclusive()
}

pub async fn admin_client() -> Client {
    env().admin_client().await
}

/// kubectl with the control plane's admin kubeconfig, for fixtures.
pub fn kubectl(args: &[&str], stdin: Option<&str>) -> String {
    kubectl_with(env(), args, stdin)
}

/// As [`kubectl`], its stderr as the error when it fails.
pub fn try_kubectl(args: &[&str], stdin: Option<&str>) -> Result<String, String> {
    try_kubectl_with(env(), args, stdin)
}
