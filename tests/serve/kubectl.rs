//! kubectl against serve: what it gets of a scenario, deletes in each
//! propagation, and a finalizer added and removed with a JSON patch.

use super::*;

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
        // The root CA publisher's ConfigMap, as in every namespace.
        "web:[\"foregroundDeletion\"] kube-root-ca.crt: web-cache:[\"example.com/cache-flush\"] "
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
    // Then the owner goes; the root CA publisher's ConfigMap stays.
    s.wait_for(
        &["get", "deploy,cm", "-n", "shop", "-o", "name"],
        "the Deployment gone",
        |out| out == "configmap/kube-root-ca.crt\n",
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

/// What issue 26 found kubectl could not do on serve: `logs` crashed
/// kubectl itself, `describe` showed `0 total`, `rollout status` hung,
/// `scale` got a garbled 405, `auth can-i` a 422, `explain` nothing.
#[test]
fn kubectl_logs_describe_rollout_scale_can_i_and_explain_work() {
    let s = Server::start("deployment", &["--paused"]);
    let pod = "web-7d9f8c6b5-4xk2p";
    let (ok, out, err) = s.kubectl(&["logs", "-n", "shop", pod], None);
    assert!(!ok, "no kubelet to read a log from: {out}");
    assert!(
        err.starts_with("Error from server"),
        "a clear error from the server, kubectl not crashed: {err}"
    );
    let described = s.ok(&["describe", "deployment", "web", "-n", "shop"]);
    assert!(
        described.contains("3 desired | 3 updated | 3 total | 3 available | 0 unavailable"),
        "{described}"
    );
    assert_eq!(
        s.ok(&[
            "rollout",
            "status",
            "deployment/web",
            "-n",
            "shop",
            "--timeout=20s"
        ]),
        "deployment \"web\" successfully rolled out\n"
    );
    assert_eq!(
        s.ok(&["scale", "deployment/web", "-n", "shop", "--replicas=2"]),
        "deployment.apps/web scaled\n"
    );
    assert_eq!(
        s.ok(&[
            "get",
            "deployment",
            "web",
            "-n",
            "shop",
            "-o",
            "jsonpath={.spec.replicas}"
        ]),
        "2"
    );
    assert_eq!(
        s.ok(&["auth", "can-i", "delete", "pods", "-n", "shop"]),
        "yes\n"
    );
    let explained = s.ok(&["explain", "pods"]);
    assert!(
        explained.contains("KIND:") && explained.contains("Pod"),
        "{explained}"
    );
}

/// kube-controller-manager's root CA publisher (1.20, on by default): every
/// namespace holds `kube-root-ca.crt`, the CA the kubeconfig trusts, from
/// the start (paused or not), in a namespace created later, and again
/// after it is deleted.
#[test]
fn kubectl_sees_kube_root_ca_crt_in_every_namespace() {
    let s = Server::start("deployment", &[]);
    let listed = s.ok(&["get", "cm", "-A", "-o", "name"]);
    assert_eq!(
        listed.matches("configmap/kube-root-ca.crt\n").count(),
        4,
        "{listed}"
    );
    let trusted = std::fs::read_to_string(&s.kubeconfig).expect("kubeconfig");
    let published = s.ok(&[
        "get",
        "cm",
        "kube-root-ca.crt",
        "-n",
        "shop",
        "-o",
        "jsonpath={.data.ca\\.crt}",
    ]);
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(&published);
    assert!(
        published.starts_with("-----BEGIN CERTIFICATE-----") && trusted.contains(&b64),
        "the kubeconfig's CA: {published}"
    );
    s.ok(&["create", "namespace", "later"]);
    let want = |out: &str| out.starts_with("kube-root-ca.crt   1 ");
    let args = ["get", "cm", "-n", "later", "--no-headers"];
    s.wait_for(&args, "kube-root-ca.crt in a new namespace", want);
    let uid = |s: &Server| {
        s.ok(&[
            "get",
            "cm",
            "kube-root-ca.crt",
            "-n",
            "later",
            "-o",
            "jsonpath={.metadata.uid}",
        ])
    };
    let first = uid(&s);
    s.ok(&["delete", "cm", "kube-root-ca.crt", "-n", "later"]);
    s.wait_for(&args, "kube-root-ca.crt back after its delete", want);
    assert_ne!(uid(&s), first);
}

/// The access reviews a kubectl user meets: `auth can-i --list`
/// (SelfSubjectRulesReview, sent as protobuf) lists what a Role grants, as
/// the 1.20 test control plane listed it for the same binding;
/// `api-resources` shows the four reviews, LocalSubjectAccessReview
/// namespaced; creating one needs `create` in its namespace.
#[test]
fn kubectl_lists_rules_and_sees_every_access_review() {
    let s = Server::start("deployment", &["--paused", "--user", "restricted"]);
    s.ok(&[
        "create",
        "role",
        "-n",
        "shop",
        "r1",
        "--verb=get,list",
        "--resource=pods",
        "--resource-name=a",
    ]);
    s.ok(&[
        "create",
        "rolebinding",
        "-n",
        "shop",
        "r1",
        "--role=r1",
        "--user=restricted",
    ]);
    let as_restricted = ["--context", "restricted@ownerscope-sim"];
    let listed = s.ok(&[
        &as_restricted[..],
        &["auth", "can-i", "--list", "-n", "shop"],
    ]
    .concat());
    let row = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ");
    let rows: Vec<String> = listed.lines().map(row).collect();
    for want in [
        "selfsubjectaccessreviews.authorization.k8s.io [] [] [create]",
        "pods [] [a] [get list]",
        "[/version] [] [get]",
    ] {
        assert!(rows.iter().any(|r| r == want), "{want}:\n{listed}");
    }
    let other = s.ok(&[
        &as_restricted[..],
        &["auth", "can-i", "--list", "-n", "default"],
    ]
    .concat());
    assert!(!other.contains("pods"), "{other}");
    let resources = s.ok(&[
        "api-resources",
        "--api-group=authorization.k8s.io",
        "--no-headers",
    ]);
    let rows: Vec<String> = resources.lines().map(row).collect();
    assert_eq!(
        rows,
        [
            "localsubjectaccessreviews authorization.k8s.io/v1 true LocalSubjectAccessReview",
            "selfsubjectaccessreviews authorization.k8s.io/v1 false SelfSubjectAccessReview",
            "selfsubjectrulesreviews authorization.k8s.io/v1 false SelfSubjectRulesReview",
            "subjectaccessreviews authorization.k8s.io/v1 false SubjectAccessReview",
        ],
        "{resources}"
    );
    let can = |who: &[&str]| {
        let (_, out, _) = s.kubectl(
            &[
                who,
                &[
                    "auth",
                    "can-i",
                    "create",
                    "localsubjectaccessreviews",
                    "-n",
                    "shop",
                ],
            ]
            .concat(),
            None,
        );
        out
    };
    assert_eq!(can(&[]), "yes\n");
    assert_eq!(can(&as_restricted), "no\n");
}

/// 1.20's discovery leaves a built-in kind's `singularName` empty, and
/// serve's does too: kubectl still finds a kind by its singular, its
/// plural, its short name and `kind.group`, and one object by name. An
/// object it creates has a creation time in whole seconds, as
/// kube-apiserver writes it.
#[test]
fn kubectl_finds_kinds_by_every_name_and_reads_whole_second_times() {
    // The clock runs: a paused one stays on the whole second serve
    // started at.
    let s = Server::start("deployment", &[]);
    for kind in ["deployment", "deployments", "deploy", "deployment.apps"] {
        let out = s.ok(&["get", kind, "-n", "shop", "-o", "name"]);
        assert_eq!(out, "deployment.apps/web\n", "kubectl get {kind}");
    }
    let out = s.ok(&[
        "get",
        "pod",
        "web-7d9f8c6b5-4xk2p",
        "-n",
        "shop",
        "-o",
        "name",
    ]);
    assert_eq!(out, "pod/web-7d9f8c6b5-4xk2p\n");
    s.ok(&["create", "configmap", "whole", "-n", "shop"]);
    let t = s.ok(&[
        "get",
        "configmap",
        "whole",
        "-n",
        "shop",
        "-o",
        "jsonpath={.metadata.creationTimestamp}",
    ]);
    assert!(
        t.len() == 20 && t.ends_with('Z') && !t.contains('.'),
        "{t} is not RFC 3339 in whole seconds"
    );
}

/// `kubectl apply` again as on a real server: it finds the
/// `last-applied-configuration` its first apply wrote (no warning that it
/// is missing), and a label taken out of the manifest is taken off the
/// object (kubectl's three-way merge reads what was applied last).
#[test]
fn kubectl_apply_again_finds_its_last_applied_configuration() {
    let s = Server::start("deployment", &["--paused"]);
    let manifest = |labels: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: shop\n  labels: {{{labels}}}\ndata:\n  a: b\n"
        )
    };
    let mut args = vec!["apply", "-f", "-"];
    args.extend(validate_flag());
    let (ok, out, err) = s.kubectl(&args, Some(&manifest("app: x, tier: web")));
    assert!(ok, "{out}{err}");
    assert_eq!(out, "configmap/applied created\n");
    let (ok, out, err) = s.kubectl(&args, Some(&manifest("app: x")));
    assert!(ok, "{out}{err}");
    assert_eq!(out, "configmap/applied configured\n");
    assert!(!err.contains("last-applied-configuration"), "{err}");
    let labels = s.ok(&[
        "get",
        "cm",
        "applied",
        "-n",
        "shop",
        "-o",
        "jsonpath={.metadata.labels}",
    ]);
    assert_eq!(labels, r#"{"app":"x"}"#);
    let (ok, out, err) = s.kubectl(&args, Some(&manifest("app: x")));
    assert!(ok, "{out}{err}");
    assert_eq!(out, "configmap/applied unchanged\n");
}
