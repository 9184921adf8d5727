//! Rehearsals against the real control plane: each graph is built for real
//! (kubectl), snapshotted (`snapshot --live`), rehearsed (`plan` on the
//! snapshot, the same request), then the same DELETE is sent for real; once
//! the cluster is quiet every object of the snapshot is compared: gone,
//! Terminating, or still there. The agreement k/N is printed.
//!
//! The control plane is Kubernetes 1.20, the simulator follows 1.36; a
//! difference that is genuinely version-dependent would be listed here by
//! rule and excluded. None of the graphs below needs one.

mod live_support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use live_support::*;
use serde_json::Value;

/// What became of an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    Gone,
    Terminating,
    Live,
}

/// One graph: its manifests (in order; `{uid:kind/name}` is replaced by
/// the uid of an object created before), the object to delete and how.
struct Graph {
    name: &'static str,
    manifests: &'static [&'static str],
    delete: &'static str,
    /// `None`: a DELETE with no options (the type's default applies).
    policy: Option<&'static str>,
}

const GRAPHS: &[Graph] = &[
    Graph {
        name: "background: owner and two dependents",
        manifests: &[
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: owner}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: '{uid:configmap/owner}'}]}",
            "apiVersion: v1\nkind: Secret\nmetadata: {name: b, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: '{uid:configmap/owner}'}]}",
        ],
        delete: "configmap/owner",
        policy: Some("Background"),
    },
    Graph {
        name: "foreground: a blocking dependent held by a finalizer",
        manifests: &[
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: owner}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: held, finalizers: [example.com/hold], ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: '{uid:configmap/owner}', blockOwnerDeletion: true}]}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: '{uid:configmap/owner}', blockOwnerDeletion: true}]}",
            "apiVersion: v1\nkind: Secret\nmetadata: {name: loose, finalizers: [example.com/hold], ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: '{uid:configmap/owner}', blockOwnerDeletion: false}]}",
        ],
        delete: "configmap/owner",
        policy: Some("Foreground"),
    },
    Graph {
        name: "orphan: dependents kept",
        manifests: &[
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: owner}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: '{uid:configmap/owner}'}]}",
        ],
        delete: "configmap/owner",
        policy: Some("Orphan"),
    },
    Graph {
        name: "shared dependent: one owner deleted",
        manifests: &[
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: one}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: two}",
            "apiVersion: v1\nkind: Secret\nmetadata: {name: shared, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: one, uid: '{uid:configmap/one}'}, {apiVersion: v1, kind: ConfigMap, name: two, uid: '{uid:configmap/two}'}]}",
        ],
        delete: "configmap/one",
        policy: Some("Foreground"),
    },
    Graph {
        name: "owner stuck on its own finalizer, background",
        manifests: &[
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: owner, finalizers: [example.com/hold]}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: '{uid:configmap/owner}'}]}",
        ],
        delete: "configmap/owner",
        policy: Some("Background"),
    },
    Graph {
        name: "chain of three in foreground",
        manifests: &[
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: top}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: mid, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: top, uid: '{uid:configmap/top}', blockOwnerDeletion: true}]}",
            "apiVersion: v1\nkind: Secret\nmetadata: {name: leaf, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: mid, uid: '{uid:configmap/mid}', blockOwnerDeletion: true}]}",
        ],
        delete: "configmap/top",
        policy: Some("Foreground"),
    },
    Graph {
        name: "a reference through an unserved apiVersion (R32)",
        manifests: &[
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: owner}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: legacy, ownerReferences: [{apiVersion: apps/v1beta1, kind: Deployment, name: web, uid: '{uid:configmap/owner}'}]}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: current, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: '{uid:configmap/owner}'}]}",
        ],
        delete: "configmap/owner",
        policy: Some("Background"),
    },
    Graph {
        name: "a Job deleted with no options (R12: orphan)",
        manifests: &[
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: nightly}\nspec: {parallelism: 0, template: {spec: {restartPolicy: Never, containers: [{name: c, image: example.invalid/c:1}]}}}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: report, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: nightly, uid: '{uid:job/nightly}'}]}",
        ],
        delete: "job/nightly",
        policy: None,
    },
    Graph {
        name: "a ReplicationController deleted with no options (R12: orphan)",
        manifests: &[
            "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: legacy}\nspec: {replicas: 0, selector: {app: legacy}, template: {metadata: {labels: {app: legacy}}, spec: {containers: [{name: c, image: example.invalid/c:1}]}}}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: data, ownerReferences: [{apiVersion: v1, kind: ReplicationController, name: legacy, uid: '{uid:replicationcontroller/legacy}'}]}",
        ],
        delete: "replicationcontroller/legacy",
        policy: None,
    },
    Graph {
        name: "a namespace with held content",
        manifests: &[
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: held, finalizers: [example.com/hold]}",
            "apiVersion: v1\nkind: Secret\nmetadata: {name: plain}",
        ],
        delete: "namespace/{ns}",
        policy: Some("Background"),
    },
];

/// The objects of the namespace (and the namespace), by `kind/name`.
fn objects(ns: &str) -> BTreeMap<String, Fate> {
    let text = kubectl(
        &[
            "get",
            "-n",
            ns,
            "configmaps,secrets,jobs,replicationcontrollers,pods",
            "-o",
            "json",
        ],
        None,
    );
    let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let mut out = BTreeMap::new();
    for item in v["items"].as_array().cloned().unwrap_or_default() {
        let kind = item["kind"].as_str().unwrap_or_default().to_string();
        let name = item["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if name == "kube-root-ca.crt" || name.starts_with("default-token-") {
            continue;
        }
        let fate = if item["metadata"]["deletionTimestamp"].is_null() {
            Fate::Live
        } else {
            Fate::Terminating
        };
        out.insert(format!("{kind}/{name}"), fate);
    }
    out
}

/// Polls until two reads a few seconds apart agree, after the namespace
/// controller's first pass (5 s after a namespace's DELETE) has had its
/// chance.
fn quiet(ns: &str) -> BTreeMap<String, Fate> {
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs(7));
    let mut last = objects(ns);
    loop {
        std::thread::sleep(Duration::from_secs(3));
        let now = objects(ns);
        if now == last || started.elapsed() > Duration::from_secs(60) {
            return now;
        }
        last = now;
    }
}

/// What the plan says becomes of each object, as a fate.
fn predicted(plan: &Value) -> BTreeMap<String, Fate> {
    let mut out = BTreeMap::new();
    for e in plan["entries"].as_array().cloned().unwrap_or_default() {
        let who = format!(
            "{}/{}",
            e["object"]["kind"].as_str().unwrap_or_default(),
            e["object"]["name"].as_str().unwrap_or_default()
        );
        let fate = match e["outcome"]["outcome"].as_str().unwrap_or_default() {
            "deleted" => Fate::Gone,
            "waiting" => Fate::Terminating,
            _ => Fate::Live,
        };
        out.insert(who, fate);
    }
    out
}

fn rehearse(g: &Graph) -> Result<(), String> {
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "rehearse"));
    for m in g.manifests {
        let mut text = (*m).to_string();
        while let Some(start) = text.find("{uid:") {
            let end = start + text[start..].find('}').expect("closing brace");
            let what = &text[start + 5..end];
            let uid = kubectl(
                &["get", "-n", &ns, what, "-o", "jsonpath={.metadata.uid}"],
                None,
            );
            text.replace_range(start..=end, &uid);
        }
        kubectl(&["apply", "-n", &ns, "-f", "-"], Some(&text));
    }
    std::thread::sleep(Duration::from_secs(2));
    let before = objects(&ns);
    let admin = env().admin.to_str().expect("path").to_string();
    let snap = ownerscope(&["snapshot", "--live", "--kubeconfig", &admin, "-n", &ns]);
    if !snap.status.success() {
        return Err(format!(
            "snapshot: {}",
            String::from_utf8_lossy(&snap.stderr)
        ));
    }
    let file = std::env::temp_dir().join(format!("ownerscope-rehearsal-{ns}.json"));
    std::fs::write(&file, &snap.stdout).expect("snapshot file");
    let target = g.delete.replace("{ns}", &ns);
    let mut args = vec![
        "plan".to_string(),
        file.to_string_lossy().to_string(),
        "--delete".into(),
        target.clone(),
        "-n".into(),
        ns.clone(),
        "-o".into(),
        "json".into(),
    ];
    if let Some(p) = g.policy {
        args.push("--policy".into());
        args.push(p.to_ascii_lowercase());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let plan = ownerscope(&args);
    if !plan.status.success() {
        return Err(format!("plan: {}", String::from_utf8_lossy(&plan.stderr)));
    }
    let plan: Value = serde_json::from_slice(&plan.stdout).map_err(|e| e.to_string())?;
    let predicted = predicted(&plan);

    // The same DELETE, for real: with the policy, or with no options at
    // all (kubectl always sends one, so the raw API).
    let (kind, name) = target.split_once('/').expect("KIND/NAME");
    match g.policy {
        Some(p) => {
            kubectl(
                &[
                    "delete",
                    "-n",
                    &ns,
                    kind,
                    name,
                    &format!("--cascade={}", p.to_ascii_lowercase()),
                    "--wait=false",
                ],
                None,
            );
        }
        None => {
            let path = match kind {
                "job" => format!("/apis/batch/v1/namespaces/{ns}/jobs/{name}"),
                "replicationcontroller" => {
                    format!("/api/v1/namespaces/{ns}/replicationcontrollers/{name}")
                }
                other => panic!("no raw path for {other}"),
            };
            kubectl(&["delete", "--raw", &path], None);
        }
    }
    let after = quiet(&ns);
    let mut disagreements = Vec::new();
    for who in before.keys() {
        let real = after.get(who).copied().unwrap_or(Fate::Gone);
        let said = predicted.get(who).copied().unwrap_or(Fate::Live);
        if real != said {
            disagreements.push(format!("{who}: predicted {said:?}, real {real:?}"));
        }
    }
    // Release what the graph held, so the namespace can go.
    for who in after.keys() {
        let (k, n) = who.split_once('/').expect("kind/name");
        let _ = std::process::Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(&env().admin)
            .args([
                "patch",
                "-n",
                &ns,
                &k.to_ascii_lowercase(),
                n,
                "--type=merge",
                "-p",
                r#"{"metadata":{"finalizers":null}}"#,
            ])
            .output();
    }
    rt.block_on(delete_namespace(&client, &ns));
    if disagreements.is_empty() {
        Ok(())
    } else {
        Err(disagreements.join("; "))
    }
}

#[test]
fn rehearsals_on_snapshots_match_the_real_control_plane() {
    let _g = shared();
    let mut agreed = 0;
    let mut failures = Vec::new();
    for g in GRAPHS {
        match rehearse(g) {
            Ok(()) => agreed += 1,
            Err(e) => failures.push(format!("{}: {e}", g.name)),
        }
    }
    eprintln!(
        "rehearsal: {agreed}/{} graphs agree with the real control plane",
        GRAPHS.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
