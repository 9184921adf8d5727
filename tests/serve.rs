//! `ownerscope serve` driven by real clients: the `kubectl` binary, a
//! kube-rs client, and the live backend (`src/cluster/`). Each test starts
//! its own server (the built binary) on a free port; they run in parallel.
//!
//! kubectl must be installed (`.ci/run` installs Debian's
//! `kubernetes-client` when it is missing): without it these tests fail
//! and say so, they do not skip.

mod live_support;

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
/// validate (it would need the OpenAPI v2 schema, which is not served).
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

#[test]
fn kubectl_gets_the_scenario_as_a_cluster_shows_it() {
    let s = Server::start("deployment", &["--paused"]);
    assert_eq!(
        s.ok(&["get", "pods", "-A"]),
        "NAMESPACE   NAME                  READY   STATUS    RESTARTS   AGE
shop        web-7d9f8c6b5-4xk2p   1/1     Running   0          0s
shop        web-7d9f8c6b5-9wq7d   1/1     Running   0          0s
shop        web-7d9f8c6b5-lm5vz   1/1     Running   0          0s
"
    );
    assert_eq!(
        s.ok(&["get", "namespaces"]),
        "NAME          STATUS   AGE
default       Active   0s
kube-public   Active   0s
kube-system   Active   0s
shop          Active   0s
"
    );
    assert_eq!(
        s.ok(&["get", "rs", "-o", "wide"]),
        "NAME            DESIRED   CURRENT   READY   AGE   CONTAINERS   IMAGES                      SELECTOR
web-7d9f8c6b5   3         3         3       0s    web          registry.k8s.io/pause:3.2   app=web,pod-template-hash=7d9f8c6b5
"
    );
    let json: Value =
        serde_json::from_str(&s.ok(&["get", "deploy,rs", "-o", "json"])).expect("json");
    let items = json["items"].as_array().expect("items");
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["kind"], "Deployment");
    assert_eq!(items[0]["metadata"]["name"], "web");
    assert_eq!(items[0]["spec"]["replicas"], 3);
    let owner = &items[1]["metadata"]["ownerReferences"][0];
    assert_eq!(owner["kind"], "Deployment");
    assert_eq!(owner["uid"], items[0]["metadata"]["uid"]);
    assert_eq!(owner["blockOwnerDeletion"], true);
    let (ok, _, err) = s.kubectl(&["get", "deploy", "nope"], None);
    assert!(!ok);
    assert_eq!(
        err.trim(),
        "Error from server (NotFound): deployments.apps \"nope\" not found"
    );
    let (ok, _, err) = s.kubectl(&["get", "widgets"], None);
    assert!(!ok);
    assert!(
        err.contains("the server doesn't have a resource type \"widgets\""),
        "{err}"
    );
}

/// A Deployment whose foreground delete waits on a blocking ConfigMap held
/// by a finalizer whose controller is offline.
const HELD: &str = "name: held-by-a-finalizer
description: the foreground delete of a Deployment waits on a ConfigMap's finalizer
objects:
  - {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: shop, labels: {app: web}}, spec: {replicas: 2, selector: {matchLabels: {app: web}}}}
  - apiVersion: apps/v1
    kind: ReplicaSet
    metadata:
      name: web-1
      namespace: shop
      labels: {app: web}
      ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, controller: true, blockOwnerDeletion: true}]
    spec: {replicas: 2, selector: {matchLabels: {app: web}}}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: web-1-a
      namespace: shop
      labels: {app: web}
      ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-1, controller: true, blockOwnerDeletion: true}]
    spec: {nodeName: node-1, terminationGracePeriodSeconds: 30}
    status: {phase: Running}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: web-1-b
      namespace: shop
      labels: {app: web}
      ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-1, controller: true, blockOwnerDeletion: true}]
    spec: {nodeName: node-2, terminationGracePeriodSeconds: 30}
    status: {phase: Running}
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: web-cache
      namespace: shop
      finalizers: [example.com/cache-flush]
      ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, blockOwnerDeletion: true}]
controllers:
  - {finalizer: example.com/cache-flush, online: false, after: 2s}
";

#[test]
fn kubectl_deletes_in_foreground_and_the_watch_prints_the_cascade() {
    let dir = std::env::temp_dir().join(format!("ownerscope-held-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("held.yaml");
    std::fs::write(&file, HELD).expect("scenario written");
    let s = Server::start(&file.display().to_string(), &[]);
    let mut watch = Command::new(kubectl())
        .arg("--kubeconfig")
        .arg(&s.kubeconfig)
        .args([
            "get",
            "pods",
            "--watch",
            "--output-watch-events",
            "-n",
            "shop",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("kubectl get --watch");
    let stdout = watch.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen: Vec<String> = Vec::new();
    let mut read_until = |n: usize, what: &str| {
        while seen.iter().filter(|l| l.starts_with("DELETED")).count() < n || seen.len() < 3 {
            match rx.recv_timeout(LONG) {
                Ok(l) => seen.push(l),
                Err(_) => panic!("{what}: {seen:#?}"),
            }
        }
        seen.clone()
    };
    // The watch has listed before the delete is sent.
    let _ = read_until(0, "the first list");
    let out = s.ok(&[
        "delete",
        "deployment",
        "web",
        "--cascade=foreground",
        "--wait=false",
    ]);
    assert_eq!(out, "deployment.apps \"web\" deleted\n");
    let lines = read_until(2, "both pods deleted");
    let kinds: Vec<&str> = lines
        .iter()
        .map(|l| l.split_whitespace().next().unwrap_or_default())
        .collect();
    assert_eq!(kinds[..3], ["EVENT", "ADDED", "ADDED"], "{lines:#?}");
    for pod in ["web-1-a", "web-1-b"] {
        let terminating = lines.iter().position(|l| {
            l.starts_with("MODIFIED")
                && l.split_whitespace().nth(1) == Some(pod)
                && l.contains("Terminating")
        });
        let deleted = lines
            .iter()
            .position(|l| l.starts_with("DELETED") && l.split_whitespace().nth(1) == Some(pod));
        assert!(
            matches!((terminating, deleted), (Some(a), Some(b)) if a < b),
            "{pod}: {lines:#?}"
        );
    }
    let _ = watch.kill();
    let _ = watch.wait();
    // The Deployment waits on the ConfigMap, Terminating and held.
    let rs = s.wait_for(
        &["get", "rs", "-n", "shop", "-o", "name"],
        "the ReplicaSet gone",
        str::is_empty,
    );
    assert_eq!(rs, "");
    assert_eq!(
        s.ok(&[
            "get",
            "deploy,cm",
            "-n",
            "shop",
            "-o",
            "jsonpath={range .items[*]}{.metadata.name}:{.metadata.finalizers} {end}"
        ]),
        "web:[\"foregroundDeletion\"] web-cache:[\"example.com/cache-flush\"] "
    );
    let patch = r#"[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/cache-flush"},{"op":"remove","path":"/metadata/finalizers/0"}]"#;
    assert_eq!(
        s.ok(&[
            "patch",
            "cm",
            "web-cache",
            "-n",
            "shop",
            "--type",
            "json",
            "-p",
            patch
        ]),
        "configmap/web-cache patched\n"
    );
    // Then the owner goes.
    s.wait_for(
        &["get", "deploy,cm", "-n", "shop", "-o", "name"],
        "the Deployment gone",
        str::is_empty,
    );
    let log = s.log();
    assert!(log.contains("by=kubectl"), "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kubectl_deletes_in_background_and_orphan() {
    let s = Server::start("deployment", &["--speed", "30"]);
    let out = s.ok(&[
        "delete",
        "deployment",
        "web",
        "-n",
        "shop",
        "--cascade=orphan",
    ]);
    assert_eq!(out, "deployment.apps \"web\" deleted\n");
    // Orphaned: the ReplicaSet and its pods stay; the ReplicaSet loses its
    // reference to the Deployment.
    s.wait_for(
        &["get", "deploy", "-n", "shop"],
        "the Deployment gone",
        str::is_empty,
    );
    let rs = s.ok(&[
        "get",
        "rs",
        "-n",
        "shop",
        "-o",
        "jsonpath={.items[*].metadata.name}:{.items[*].metadata.ownerReferences}",
    ]);
    assert_eq!(rs, "web-7d9f8c6b5:");
    let pods = s.ok(&["get", "pods", "-n", "shop", "-o", "name"]);
    assert_eq!(pods.lines().count(), 3, "{pods}");
    let s2 = Server::start("deployment", &["--speed", "30"]);
    let out = s2.ok(&[
        "delete",
        "deployment",
        "web",
        "-n",
        "shop",
        "--cascade=background",
    ]);
    assert_eq!(out, "deployment.apps \"web\" deleted\n");
    s2.wait_for(
        &["get", "deploy,rs,pods", "-n", "shop"],
        "the cascade",
        |o| o.is_empty(),
    );
    let (ok, _, err) = s2.kubectl(&["delete", "deployment", "web", "-n", "shop"], None);
    assert!(!ok);
    assert_eq!(
        err.trim(),
        "Error from server (NotFound): deployments.apps \"web\" not found"
    );
}

#[test]
fn kubectl_creates_then_removes_a_finalizer_with_a_json_patch() {
    let s = Server::start("deployment", &["--speed", "10"]);
    let manifest = "apiVersion: v1
kind: ConfigMap
metadata:
  name: held
  namespace: shop
  finalizers: [example.com/hold]
data:
  a: b
";
    let mut args = vec!["create", "-f", "-"];
    args.extend(validate_flag());
    let (ok, out, err) = s.kubectl(&args, Some(manifest));
    assert!(ok, "{out}{err}");
    assert_eq!(out, "configmap/held created\n");
    let (ok, _, err) = s.kubectl(&args, Some(manifest));
    assert!(!ok);
    assert_eq!(
        err.trim(),
        "Error from server (AlreadyExists): error when creating \"STDIN\": configmaps \"held\" already exists"
    );
    assert_eq!(
        s.ok(&["delete", "cm", "held", "-n", "shop", "--wait=false"]),
        "configmap \"held\" deleted\n"
    );
    // Held by its finalizer: Terminating, and nobody removes it.
    std::thread::sleep(Duration::from_millis(300));
    let ts = s.ok(&[
        "get",
        "cm",
        "held",
        "-n",
        "shop",
        "-o",
        "jsonpath={.metadata.deletionTimestamp}",
    ]);
    assert!(ts.starts_with("20"), "{ts}");
    let patch = r#"[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/other"},{"op":"remove","path":"/metadata/finalizers/0"}]"#;
    let (ok, _, err) = s.kubectl(
        &[
            "patch", "cm", "held", "-n", "shop", "--type", "json", "-p", patch,
        ],
        None,
    );
    assert!(!ok, "a failing test op must refuse the patch");
    assert!(err.contains("The request is invalid"), "{err}");
    assert!(err.contains("value did not match"), "{err}");
    let patch = r#"[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/hold"},{"op":"remove","path":"/metadata/finalizers/0"}]"#;
    assert_eq!(
        s.ok(&[
            "patch", "cm", "held", "-n", "shop", "--type", "json", "-p", patch
        ]),
        "configmap/held patched\n"
    );
    let (ok, _, err) = s.kubectl(&["get", "cm", "held", "-n", "shop"], None);
    assert!(!ok);
    assert_eq!(
        err.trim(),
        "Error from server (NotFound): configmaps \"held\" not found"
    );
    // A new finalizer on a terminating object is refused (R22), as a real
    // server does.
    let two = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"two\",\"namespace\":\"shop\"}}";
    let (ok, out, err) = s.kubectl(&args, Some(two));
    assert!(ok, "{out}{err}");
    // The typed client behind `kubectl create configmap` sends protobuf
    // since kubectl 1.2x (1.20 sends JSON): refused plainly, or created.
    let (ok, out, err) = s.kubectl(&["create", "configmap", "proto", "-n", "shop"], None);
    if ok {
        assert_eq!(out, "configmap/proto created\n");
    } else {
        assert!(err.contains("does not read protobuf"), "{err}");
    }
    s.ok(&[
        "patch",
        "cm",
        "two",
        "-n",
        "shop",
        "-p",
        r#"{"metadata":{"finalizers":["example.com/a"]}}"#,
    ]);
    s.ok(&["delete", "cm", "two", "-n", "shop", "--wait=false"]);
    let (ok, _, err) = s.kubectl(
        &[
            "patch",
            "cm",
            "two",
            "-n",
            "shop",
            "--type",
            "merge",
            "-p",
            r#"{"metadata":{"finalizers":["example.com/a","example.com/b"]}}"#,
        ],
        None,
    );
    assert!(!ok);
    assert!(
        err.contains("Forbidden: no new finalizers can be added if the object is being deleted"),
        "{err}"
    );
}

#[test]
fn kube_rs_watches_metadata_and_is_refused_a_stale_uid() {
    let s = Server::start("deployment", &["--speed", "10"]);
    let mut args = vec!["create", "-f", "-"];
    args.extend(validate_flag());
    let (ok, out, err) = s.kubectl(
        &args,
        Some("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"watched\",\"namespace\":\"shop\"}}"),
    );
    assert!(ok, "{out}{err}");
    rt().block_on(async {
        let client = s.client().await;
        let api: Api<PartialObjectMeta<ConfigMap>> = Api::namespaced(client.clone(), "shop");
        let mut events = watcher::watcher(api, watcher::Config::default().any_semantic()).boxed();
        let mut listed = false;
        let deadline = tokio::time::Instant::now() + LONG;
        let cms: Api<ConfigMap> = Api::namespaced(client.clone(), "shop");
        loop {
            let ev = tokio::time::timeout_at(deadline, events.next())
                .await
                .expect("watch event in time")
                .expect("stream goes on")
                .expect("no watch error");
            match ev {
                Event::InitDone => {
                    listed = true;
                    let stale = DeleteParams {
                        preconditions: Some(Preconditions {
                            uid: Some("00000000-0000-4000-8000-000000000000".into()),
                            resource_version: None,
                        }),
                        ..DeleteParams::background()
                    };
                    let err = cms.delete("watched", &stale).await.expect_err("409");
                    match err {
                        kube::Error::Api(s) => {
                            assert_eq!((s.code, s.reason.as_str()), (409, "Conflict"), "{s:?}");
                            assert!(
                                s.message.contains("the UID in the precondition"),
                                "{}",
                                s.message
                            );
                        }
                        other => panic!("{other:?}"),
                    }
                    let uid = cms.get("watched").await.expect("get").metadata.uid;
                    let right = DeleteParams {
                        preconditions: Some(Preconditions {
                            uid,
                            resource_version: None,
                        }),
                        ..DeleteParams::background()
                    };
                    cms.delete("watched", &right).await.expect("deleted");
                }
                Event::Delete(m) if listed => {
                    assert_eq!(m.metadata.name.as_deref(), Some("watched"));
                    break;
                }
                _ => {}
            }
        }
    });
}

#[test]
fn the_live_backend_loads_what_the_simulator_holds() {
    let s = Server::start("shop-demo", &["--paused"]);
    let mut live = Live::start(&LiveOptions {
        all_namespaces: true,
        ..s.options("default")
    });
    // The same scenario in this process: the same seed gives the same uids.
    let sc = ownerscope::sim::scenario::bundled("shop-demo").expect("bundled");
    let sim = ownerscope::sim::Sim::load(sc).expect("loads");
    let want: std::collections::BTreeSet<(String, String, String)> = sim
        .objects()
        .map(|o| (o.kind.clone(), o.name().to_string(), o.uid().to_string()))
        .collect();
    live.wait("every object of the scenario", LONG, |l| {
        let have: std::collections::BTreeSet<(String, String, String)> = l
            .graph
            .objects()
            .map(|o| (o.kind.clone(), o.name().to_string(), o.uid().to_string()))
            .collect();
        want.is_subset(&have) && l.connected()
    });
    // Edges as the simulator has them.
    for o in sim.objects() {
        assert_eq!(
            live.graph.resolved_owners(o.uid()),
            sim.graph().resolved_owners(o.uid()),
            "{}/{}",
            o.kind,
            o.name()
        );
    }
}

#[test]
fn ctrl_c_stops_the_server_and_removes_its_kubeconfig() {
    let mut s = Server::start("deployment", &["--paused"]);
    assert!(s.kubeconfig.exists());
    let pid = s.child.id().to_string();
    let killed = Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill");
    assert!(killed.success());
    let t = Instant::now();
    let status = loop {
        if let Some(st) = s.child.try_wait().expect("wait") {
            break st;
        }
        assert!(t.elapsed() < LONG, "serve did not stop on SIGINT");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    assert!(
        !s.kubeconfig.exists(),
        "the temporary kubeconfig is removed"
    );
    let (ok, _, _) = s.kubectl(&["get", "ns", "--request-timeout=2s"], None);
    assert!(!ok);
}

/// The UI in a tmux session of our own (tmux must be installed: `.ci/run`
/// installs it), killed when dropped.
struct Tmux(String);

const TMUX_SOCKET: &str = "ownerscope-serve-tests";

impl Tmux {
    fn start(name: &str, command: &str) -> Tmux {
        let name = format!("{name}-{}", std::process::id());
        let ok = Command::new("tmux")
            .args([
                "-L",
                TMUX_SOCKET,
                "new-session",
                "-d",
                "-s",
                &name,
                "-x",
                "160",
                "-y",
                "40",
                command,
            ])
            .status()
            .expect("tmux must be installed to run these tests (apt-get install tmux)");
        assert!(ok.success());
        Tmux(name)
    }

    fn keys(&self, keys: &[&str]) {
        let ok = Command::new("tmux")
            .args(["-L", TMUX_SOCKET, "send-keys", "-t", &self.0])
            .args(keys)
            .status()
            .expect("tmux");
        assert!(ok.success());
    }

    fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", TMUX_SOCKET, "capture-pane", "-p", "-t", &self.0])
            .output()
            .expect("tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let t = Instant::now();
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            assert!(t.elapsed() < LONG, "timed out waiting for {what}:\n{s}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", TMUX_SOCKET, "kill-session", "-t", &self.0])
            .output();
    }
}

#[test]
fn the_ui_shows_live_what_kubectl_does_to_the_served_simulator() {
    // `ui --live` on a served simulator.
    let s = Server::start("deployment", &["--paused"]);
    let live = Tmux::start(
        "live",
        &format!(
            "{} ui --live -A --kubeconfig {}",
            env!("CARGO_BIN_EXE_ownerscope"),
            s.kubeconfig.display()
        ),
    );
    live.wait_for("the served tree", |sc| {
        sc.contains("Deployment/web") && sc.contains("Pod/web-7d9f8c6b5-lm5vz")
    });
    s.ok(&[
        "delete",
        "deployment",
        "web",
        "--cascade=foreground",
        "--wait=false",
    ]);
    live.wait_for("the Deployment Terminating", |sc| {
        sc.lines()
            .any(|l| l.contains("Deployment/web") && l.contains("Terminating"))
    });
    // `ui SCENARIO --serve`: the UI and the server on one simulator.
    let dir = std::env::temp_dir().join(format!("ownerscope-ui-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let kc = dir.join("kubeconfig");
    let both = Tmux::start(
        "both",
        &format!(
            "{} ui deployment --serve --kubeconfig-out {}",
            env!("CARGO_BIN_EXE_ownerscope"),
            kc.display()
        ),
    );
    both.wait_for("the tree and the export line", |sc| {
        sc.contains("Deployment/web") && sc.contains(&format!("export KUBECONFIG={}", kc.display()))
    });
    // The timeline of Deployment/web alone: the cascade's many rows (each
    // may take two lines) do not push its DELETE out of the pane.
    both.keys(&["/", "Deployment/web", "Enter", "a"]);
    both.wait_for("the timeline of the selected object", |sc| {
        sc.contains("· only Deployment/web")
    });
    let out = Command::new(kubectl())
        .arg("--kubeconfig")
        .arg(&kc)
        .args([
            "delete",
            "deployment",
            "web",
            "--cascade=foreground",
            "--wait=false",
        ])
        .output()
        .expect("kubectl");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    both.wait_for("kubectl's delete on the UI's timeline", |sc| {
        // (Timeline rows are cut to the pane; the answer, 200, is past the
        // cut at this width: kubectl's success says it.)
        // (A row may split in two at this width: the request is on one
        // line, the object it went to on the one before, and the timeline
        // shows Deployment/web's rows only.)
        sc.contains("DELETE propagationPolicy=Foreground")
    });
    both.wait_for("the cascade to finish", |sc| {
        // The four namespaces, the two Nodes the pods ran on and the 11
        // objects of the bootstrap RBAC policy stay.
        sc.lines()
            .next()
            .is_some_and(|l| l.contains(" 17 objects "))
    });
    drop(both);
    let _ = std::fs::remove_dir_all(&dir);
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

/// The same kubectl session against the real control plane (Kubernetes
/// 1.20.2, `.ci/test-cluster.sh`) and against `serve`: every answer that
/// does not depend on timing or uids must read the same. Lists select the
/// test's own objects (`-l cmp`): the real control plane also publishes
/// `kube-root-ca.crt` into every namespace, a controller the simulator
/// does not have.
#[test]
fn kubectl_reads_the_same_from_serve_as_from_a_real_control_plane() {
    let _g = live_support::shared();
    let real = live_support::env().admin.clone();
    let s = Server::start("deployment", &[]);
    let ns = format!(
        "serve-cmp-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() % 1_000_000)
            .unwrap_or(0)
    );
    let validate = validate_flag();
    // One step, run on both; `fix` takes out what may differ (none here
    // unless said).
    let both =
        |args: &[&str], stdin: Option<&str>| -> ((bool, String, String), (bool, String, String)) {
            let mut a: Vec<&str> = args.to_vec();
            if args.first() == Some(&"create") {
                a.extend(validate.iter());
            }
            // Both at once: the comparison costs one kubectl's time a step.
            std::thread::scope(|t| {
                let r = t.spawn(|| kubectl_at(&real, &a, stdin));
                let v = kubectl_at(&s.kubeconfig, &a, stdin);
                (r.join().expect("kubectl against the real control plane"), v)
            })
        };
    let same_in = |args: &[&str], stdin: Option<&str>| -> String {
        let (r, v) = both(args, stdin);
        assert_eq!(
            r, v,
            "kubectl {args:?}: the real control plane (left) and serve (right) differ"
        );
        r.1
    };
    let same = |args: &[&str]| same_in(args, None);
    let ns_json = format!(
        "{{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{{\"name\":\"{ns}\"}}}}"
    );
    assert_eq!(
        same_in(&["create", "-f", "-"], Some(&ns_json)),
        format!("namespace/{ns} created\n")
    );
    let owner = format!(
        "{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"owner\",\"namespace\":\"{ns}\",\"labels\":{{\"cmp\":\"1\"}}}}}}"
    );
    same_in(&["create", "-f", "-"], Some(&owner));
    // Each side's owner uid in its dependents.
    let dependents = |kc: &std::path::Path| {
        let (_, uid, _) = kubectl_at(
            kc,
            &[
                "get",
                "cm",
                "owner",
                "-n",
                &ns,
                "-o",
                "jsonpath={.metadata.uid}",
            ],
            None,
        );
        let dep = |name: &str, fins: &str| {
            format!(
                "{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"{name}\",\"namespace\":\"{ns}\",\"labels\":{{\"cmp\":\"1\"}},\"finalizers\":[{fins}],\"ownerReferences\":[{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"owner\",\"uid\":\"{uid}\",\"blockOwnerDeletion\":true}}]}}}}"
            )
        };
        let mut args = vec!["create", "-f", "-"];
        args.extend(validate.iter());
        let a = kubectl_at(kc, &args, Some(&dep("held", "\"example.com/hold\"")));
        let b = kubectl_at(kc, &args, Some(&dep("plain", "")));
        (a, b)
    };
    let (r, v) = std::thread::scope(|t| {
        let r = t.spawn(|| dependents(&real));
        (
            r.join().expect("dependents on the real control plane"),
            dependents(&s.kubeconfig),
        )
    });
    assert_eq!(r, v);
    assert_eq!(
        same(&["get", "cm", "-n", &ns, "-l", "cmp", "-o", "name"]),
        "configmap/held\nconfigmap/owner\nconfigmap/plain\n"
    );
    same(&["get", "cm", "nope", "-n", &ns]);
    assert_eq!(
        same(&[
            "delete",
            "cm",
            "owner",
            "-n",
            &ns,
            "--cascade=foreground",
            "--wait=false"
        ]),
        "configmap \"owner\" deleted\n"
    );
    // The garbage collector deletes both dependents; the held one waits on
    // its finalizer, and the owner on it.
    let wait_plain_gone = |kc: &std::path::Path| {
        let t = Instant::now();
        while kubectl_at(kc, &["get", "cm", "plain", "-n", &ns], None).0 {
            assert!(t.elapsed() < LONG, "plain never collected");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    wait_plain_gone(&real);
    wait_plain_gone(&s.kubeconfig);
    let state = "jsonpath={range .items[*]}{.metadata.name}:{.metadata.finalizers}:{.metadata.deletionGracePeriodSeconds} {end}";
    assert_eq!(
        same(&["get", "cm", "-n", &ns, "-l", "cmp", "-o", state]),
        "held:[\"example.com/hold\"]:0 owner:[\"foregroundDeletion\"]:0 "
    );
    let (r, v) = both(
        &[
            "patch",
            "cm",
            "held",
            "-n",
            &ns,
            "--type",
            "merge",
            "-p",
            r#"{"metadata":{"finalizers":["example.com/hold","example.com/new"]}}"#,
        ],
        None,
    );
    assert_eq!(r, v, "a new finalizer on a terminating object");
    assert!(
        !r.0 && r.2.contains("Forbidden: no new finalizers"),
        "{r:?}"
    );
    let patch = r#"[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/hold"},{"op":"remove","path":"/metadata/finalizers/0"}]"#;
    assert_eq!(
        same(&[
            "patch", "cm", "held", "-n", &ns, "--type", "json", "-p", patch
        ]),
        "configmap/held patched\n"
    );
    let wait_gone = |kc: &std::path::Path| {
        let t = Instant::now();
        while kubectl_at(kc, &["get", "cm", "owner", "-n", &ns], None).0 {
            assert!(t.elapsed() < LONG, "owner never went");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    wait_gone(&real);
    wait_gone(&s.kubeconfig);
    same(&["get", "cm", "owner", "-n", &ns]);
    assert_eq!(
        same(&["get", "cm", "-n", &ns, "-l", "cmp", "-o", "name"]),
        ""
    );
    let _ = kubectl_at(&real, &["delete", "ns", &ns, "--wait=false"], None);
}

#[test]
fn bad_arguments_are_refused_plainly() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_ownerscope"))
            .args(args)
            .output()
            .expect("runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&["serve", "no-such-scenario"]);
    assert_eq!(code, Some(1));
    assert!(
        err.starts_with("error: no-such-scenario: no such file"),
        "{err}"
    );
    let (code, err) = run(&["serve", "deployment", "--speed", "0"]);
    assert_eq!(
        (code, err.as_str()),
        (Some(1), "error: --speed 0: between 0 (excluded) and 1000\n")
    );
    let (code, err) = run(&[
        "serve",
        "deployment",
        "--kubeconfig-out",
        "/nonexistent/dir/kc",
    ]);
    assert_eq!(code, Some(1));
    assert!(
        err.starts_with("error: writing /nonexistent/dir/kc: "),
        "{err}"
    );
    let (code, err) = run(&["ui", "--serve", "--live"]);
    assert_eq!(code, Some(2), "{err}");
}

/// Issue 10, section 2, on a server restarted on the same port with a new
/// CA and a changed state (its ReplicaSet renamed): the lost reason names
/// the server, the context and the certificate error, `Ctrl-r`'s
/// reconnect reads the kubeconfig again, and while the kinds relist in
/// whatever order, no state ever shows a dangling owner (a Pod listed
/// before its new ReplicaSet is unverified, not `owner-gone`); the status
/// says connected only once every kind has listed.
#[test]
fn a_restart_with_a_new_ca_is_said_and_reconnect_relists_without_false_conclusions() {
    use ownerscope::backend::{Backend as _, Command as BackendCommand, Connection};
    let dir = std::env::temp_dir().join(format!("ownerscope-newca-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let first = include_str!("../assets/scenarios/deployment.yaml");
    let second = first
        .replace("name: web-7d9f8c6b5\n", "name: web-5c4b3a2f1\n")
        .replace(
            "kind: ReplicaSet, name: web-7d9f8c6b5,",
            "kind: ReplicaSet, name: web-5c4b3a2f1,",
        );
    assert_ne!(first, second);
    let (a, b, kc) = (
        dir.join("a.yaml"),
        dir.join("b.yaml"),
        dir.join("kubeconfig"),
    );
    std::fs::write(&a, first).expect("a");
    std::fs::write(&b, &second).expect("b");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port()
        .to_string();
    let flags = [
        "--paused",
        "--port",
        &port,
        "--kubeconfig-out",
        kc.to_str().expect("path"),
    ];
    let server = Server::start(a.to_str().expect("path"), &flags);
    let opts = LiveOptions {
        all_namespaces: true,
        ..server.options("default")
    };
    let mut live = Live::start(&opts);
    live.wait("connected, the first ReplicaSet shown", LONG, |l| {
        l.connected() && l.find("ReplicaSet", "web-7d9f8c6b5").is_some()
    });

    drop(server);
    live.wait("the connection lost", LONG, |l| !l.connected());
    let server = Server::start(b.to_str().expect("path"), &flags);
    live.wait("the certificate error said", LONG, |l| {
        l.status.as_ref().is_some_and(|s| {
            matches!(&s.connection, Connection::Lost(m)
                if m.contains(&format!("https://127.0.0.1:{port}"))
                    && m.contains("(context ")
                    && m.contains("certificate signed by unknown authority"))
        })
    });

    live.backend.send(BackendCommand::Reconnect);
    let mut dangling: Vec<String> = Vec::new();
    let mut saw_syncing = false;
    live.wait("converged on the restarted server", LONG, |l| {
        for o in l.graph.objects() {
            for (r, st) in l.graph.owners(o.uid()) {
                if st.is_dangling() {
                    dangling.push(format!(
                        "{}/{} -> {}/{}: {}",
                        o.kind,
                        o.name(),
                        r.kind,
                        r.name,
                        st.label()
                    ));
                }
            }
        }
        if let Some(s) = &l.status
            && s.connection == Connection::Syncing
        {
            assert!(!s.syncing.is_empty(), "syncing names its kinds");
            saw_syncing = true;
        }
        l.connected()
            && l.find("ReplicaSet", "web-5c4b3a2f1").is_some()
            && l.find("ReplicaSet", "web-7d9f8c6b5").is_none()
    });
    assert!(
        dangling.is_empty(),
        "a false conclusion was shown: {dangling:?}"
    );
    assert!(
        saw_syncing,
        "the relist was shown as syncing before connected"
    );
    assert!(
        live.replies
            .iter()
            .any(|r| r.command == BackendCommand::Reconnect && r.is_success()),
        "{:?}",
        live.replies
    );
    // Connected means every kind listed: each Pod resolves to the new owner.
    for o in live.graph.objects().filter(|o| o.kind == "Pod") {
        let owners = live.graph.owners(o.uid());
        assert!(owners.iter().all(|(_, s)| s.resolves()), "{owners:?}");
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a writer saw of one object: its state after each answered write
/// (`None`: deleted), and the write in flight when the server died.
#[derive(Default)]
struct Seen {
    acked: Vec<(String, Option<String>)>,
    in_flight: Option<(String, Option<String>)>,
    creates: usize,
    deletes: usize,
    max_rv: u64,
}

/// One writer: creates, updates and deletes its own ConfigMaps until the
/// server stops answering.
async fn write_until_killed(client: Client, prefix: String) -> Seen {
    use kube::api::{Patch, PatchParams, PostParams};
    let api: Api<ConfigMap> = Api::namespaced(client, "shop");
    let mut seen = Seen::default();
    let rv = |cm: &ConfigMap| {
        cm.metadata
            .resource_version
            .as_deref()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    for i in 0.. {
        let name = format!("{prefix}-{i}");
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some(name.clone());
        cm.metadata.labels = Some(
            [
                ("crash".to_string(), "1".to_string()),
                ("v".to_string(), "0".to_string()),
            ]
            .into(),
        );
        seen.in_flight = Some((name.clone(), Some("0".into())));
        let Ok(made) = api.create(&PostParams::default(), &cm).await else {
            return seen;
        };
        seen.max_rv = seen.max_rv.max(rv(&made));
        seen.creates += 1;
        seen.acked.push((name.clone(), Some("0".into())));
        seen.in_flight = Some((name.clone(), Some("1".into())));
        let patch = serde_json::json!({"metadata": {"labels": {"v": "1"}}});
        let Ok(patched) = api
            .patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
        else {
            return seen;
        };
        seen.max_rv = seen.max_rv.max(rv(&patched));
        seen.acked.push((name.clone(), Some("1".into())));
        if i % 2 == 1 {
            let before = format!("{prefix}-{}", i - 1);
            seen.in_flight = Some((before.clone(), None));
            if api.delete(&before, &DeleteParams::default()).await.is_err() {
                return seen;
            }
            seen.deletes += 1;
            seen.acked.push((before, None));
        }
        seen.in_flight = None;
    }
    seen
}

/// The acknowledged-writes check of issue 26: serve with `--state-dir` is
/// killed with SIGKILL during a burst of creates, updates and deletes,
/// and restarted; every answered write is there, none is undone, and
/// resource versions go on increasing.
#[test]
fn sigkill_during_a_burst_of_writes_loses_no_acknowledged_write() {
    use std::collections::BTreeMap;
    let state = std::env::temp_dir().join(format!("ownerscope-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    let flags = ["--state-dir", state.to_str().expect("path")];
    // name -> its label `v` (None: deleted), and what a write in flight
    // would have made it.
    let mut expected: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut maybe: BTreeMap<String, Option<String>> = BTreeMap::new();
    let (mut creates, mut deletes, mut max_rv) = (0, 0, 0u64);
    const ROUNDS: u64 = 4;
    for round in 0..=ROUNDS {
        let s = Server::start("deployment", &flags);
        rt().block_on(async {
            let client = s.client().await;
            let api: Api<ConfigMap> = Api::namespaced(client.clone(), "shop");
            let listed = api
                .list(&kube::api::ListParams::default().labels("crash=1"))
                .await
                .expect("list after restart");
            let actual: BTreeMap<String, Option<String>> = listed
                .items
                .iter()
                .map(|c| {
                    let v = c.metadata.labels.as_ref().and_then(|d| d.get("v")).cloned();
                    (c.metadata.name.clone().unwrap_or_default(), v)
                })
                .collect();
            let names: std::collections::BTreeSet<&String> =
                expected.keys().chain(actual.keys()).collect();
            for name in names {
                let now = actual.get(name).cloned().flatten();
                let want = expected.get(name).cloned().flatten();
                let or = maybe.get(name);
                assert!(
                    now == want || or.is_some_and(|m| *m == now),
                    "round {round}: {name} is {now:?} after the restart; acknowledged: {want:?}, in flight: {or:?}"
                );
            }
            expected = actual;
            maybe.clear();
            // Resource versions go on from where they were.
            let mut probe = ConfigMap::default();
            probe.metadata.name = Some(format!("probe-{round}"));
            let made = api
                .create(&kube::api::PostParams::default(), &probe)
                .await
                .expect("probe");
            let rv: u64 = made.metadata.resource_version.as_deref().unwrap_or("0").parse().unwrap_or(0);
            assert!(rv > max_rv, "round {round}: resourceVersion {rv} after {max_rv}");
            if round == ROUNDS {
                return;
            }

            let pid = i32::try_from(s.child.id()).expect("pid");
            let killer = std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(600 + 150 * round));
                let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            });
            let writers: Vec<_> = (0..4)
                .map(|t| tokio::spawn(write_until_killed(client.clone(), format!("crash-{round}-{t}"))))
                .collect();
            for w in writers {
                let seen = w.await.expect("writer");
                creates += seen.creates;
                deletes += seen.deletes;
                max_rv = max_rv.max(seen.max_rv);
                for (name, state) in seen.acked {
                    expected.insert(name, state);
                }
                if let Some((name, state)) = seen.in_flight {
                    maybe.insert(name, state);
                }
            }
            killer.join().expect("killer");
        });
        drop(s);
    }
    assert!(
        creates > 40 && deletes > 10,
        "the bursts wrote too little to show anything: {creates} creates, {deletes} deletes"
    );
    eprintln!(
        "acknowledged before SIGKILL, all found after restarts: {creates} creates, {deletes} deletes"
    );
    let _ = std::fs::remove_dir_all(&state);
}
