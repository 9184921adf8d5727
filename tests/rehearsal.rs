//! Rehearsals against the real control plane: each graph is built for real
//! (kubectl), snapshotted (`snapshot --live`), rehearsed (`plan` on the
//! snapshot, the same request), then the same DELETE is sent for real; once
//! the cluster is quiet every object of the snapshot is compared by uid:
//! gone, Terminating, still there, re-created (gone, and an object of the
//! same kind and name is back with a new uid), or adopted (still there,
//! controlled by another uid). Objects a controller creates have new uids
//! and, for pods, random names: they are compared by role, as the set of
//! kinds that gained new objects against the kinds the plan says are
//! replaced. The agreement k/N is printed.
//!
//! The control plane is Kubernetes 1.20, the simulator follows 1.36; a
//! difference that is genuinely version-dependent would be listed here by
//! rule and excluded. None of the graphs below needs one (the Job tracking
//! finalizer of 1.26+ changes no fate). The control plane has no scheduler
//! and no kubelet: pods stay Pending and are deleted at once.

mod live_support;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use live_support::*;
use serde_json::Value;

/// What became of an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    Gone,
    Terminating,
    Live,
    /// Gone, and back by the same kind and name with a new uid.
    Recreated,
    /// Still there, controlled by another owner than before.
    Adopted,
}

/// One object as listed.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seen {
    /// `Kind/name`
    who: String,
    terminating: bool,
    controller: Option<String>,
}

/// One graph: its manifests (in order; `{uid:kind/name}` is replaced by
/// the uid of an object created before), the object to delete and how
/// (`{first:kind}`: the first object of that kind by name, for generated
/// names).
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
    Graph {
        name: "a Deployment deleted in background",
        manifests: &[WEB],
        delete: "deployment/web",
        policy: Some("Background"),
    },
    Graph {
        name: "a Deployment deleted in foreground",
        manifests: &[WEB],
        delete: "deployment/web",
        policy: Some("Foreground"),
    },
    Graph {
        name: "a Deployment deleted with orphan",
        manifests: &[WEB],
        delete: "deployment/web",
        policy: Some("Orphan"),
    },
    Graph {
        name: "a Deployment's ReplicaSet deleted: it comes back with new pods",
        manifests: &[WEB],
        delete: "replicaset/{first:replicaset}",
        policy: Some("Background"),
    },
    Graph {
        name: "a Deployment's ReplicaSet orphaned: the new one adopts the pods",
        manifests: &[WEB],
        delete: "replicaset/{first:replicaset}",
        policy: Some("Orphan"),
    },
    Graph {
        name: "one pod of a ReplicaSet deleted: replaced",
        manifests: &[
            "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: solo}\nspec: {replicas: 2, selector: {matchLabels: {app: solo}}, template: {metadata: {labels: {app: solo}}, spec: {containers: [{name: c, image: example.invalid/c:1}]}}}",
        ],
        delete: "pod/{first:pod}",
        policy: Some("Background"),
    },
    Graph {
        name: "a Service with a selector deleted: Endpoints and EndpointSlice go",
        manifests: &[
            WEB,
            "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}, ports: [{port: 80}]}",
        ],
        delete: "service/web",
        policy: Some("Background"),
    },
    Graph {
        name: "a StatefulSet's pod deleted: back with the same name",
        manifests: &[
            "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec: {replicas: 1, serviceName: db, selector: {matchLabels: {app: db}}, template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c, image: example.invalid/c:1}]}}}",
        ],
        delete: "pod/db-0",
        policy: Some("Background"),
    },
    Graph {
        name: "a StatefulSet with claims deleted: its pod goes, its claim stays",
        manifests: &[DB_WITH_CLAIMS],
        delete: "statefulset/db",
        policy: Some("Background"),
    },
    Graph {
        name: "a StatefulSet's pod with a claim deleted: back with the same name, the claim kept",
        manifests: &[DB_WITH_CLAIMS],
        delete: "pod/db-0",
        policy: Some("Background"),
    },
    Graph {
        name: "a running Job's pod deleted: replaced",
        manifests: &[
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: batch}\nspec: {parallelism: 1, template: {spec: {restartPolicy: Never, containers: [{name: c, image: example.invalid/c:1}]}}}",
        ],
        delete: "pod/{first:pod}",
        policy: Some("Background"),
    },
];

/// A StatefulSet of one pod with a claim template (1.20 has no retention
/// policy: the claim gets no owner reference, as with 1.36's default).
const DB_WITH_CLAIMS: &str = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec: {replicas: 1, serviceName: db, selector: {matchLabels: {app: db}}, template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c, image: example.invalid/c:1}]}}, volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}]}";

/// A Deployment of two pods (they stay Pending: no scheduler).
const WEB: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: example.invalid/c:1}]}}}";

/// The objects of the namespace, by uid.
fn objects(ns: &str) -> BTreeMap<String, Seen> {
    let text = kubectl(
        &[
            "get",
            "-n",
            ns,
            "configmaps,secrets,jobs,replicationcontrollers,pods,deployments,replicasets,statefulsets,services,endpoints,endpointslices,persistentvolumeclaims",
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
        let controller = item["metadata"]["ownerReferences"]
            .as_array()
            .and_then(|rs| rs.iter().find(|r| r["controller"] == true))
            .and_then(|r| r["uid"].as_str())
            .map(str::to_string);
        let uid = item["metadata"]["uid"].as_str().unwrap_or_default();
        out.insert(
            uid.to_string(),
            Seen {
                who: format!("{kind}/{name}"),
                terminating: !item["metadata"]["deletionTimestamp"].is_null(),
                controller,
            },
        );
    }
    out
}

/// What became of `before` (by uid) in `after`.
fn fate(uid: &str, before: &Seen, after: &BTreeMap<String, Seen>) -> Fate {
    match after.get(uid) {
        Some(s) if s.terminating => Fate::Terminating,
        Some(s) if s.controller.is_some() && s.controller != before.controller => Fate::Adopted,
        Some(_) => Fate::Live,
        None if after.values().any(|s| s.who == before.who) => Fate::Recreated,
        None => Fate::Gone,
    }
}

/// Kinds that gained objects whose names were not there before: the
/// replacements a controller made.
fn new_kinds(before: &BTreeMap<String, Seen>, after: &BTreeMap<String, Seen>) -> BTreeSet<String> {
    after
        .iter()
        .filter(|(u, s)| !before.contains_key(*u) && before.values().all(|b| b.who != s.who))
        .filter_map(|(_, s)| s.who.split_once('/').map(|(k, _)| k.to_string()))
        .collect()
}

/// Polls until two reads a few seconds apart agree, after the namespace
/// controller's first pass (5 s after a namespace's DELETE) has had its
/// chance.
fn quiet(ns: &str) -> BTreeMap<String, Seen> {
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

/// What the plan says becomes of each object (by uid), as a fate, and the
/// kinds it says get new objects (replacements).
fn predicted(plan: &Value) -> (BTreeMap<String, Fate>, BTreeSet<String>) {
    let mut out = BTreeMap::new();
    let mut replaced = BTreeSet::new();
    for e in plan["entries"].as_array().cloned().unwrap_or_default() {
        let uid = e["object"]["uid"].as_str().unwrap_or_default().to_string();
        let kind = e["object"]["kind"].as_str().unwrap_or_default();
        let then = e["then"].as_str().unwrap_or_default();
        let fate = match e["outcome"]["outcome"].as_str().unwrap_or_default() {
            "deleted" if then.starts_with("re-created") => Fate::Recreated,
            "deleted" => Fate::Gone,
            "waiting" => Fate::Terminating,
            "adopted" => Fate::Adopted,
            _ => Fate::Live,
        };
        if then.starts_with("replaced") {
            replaced.insert(kind.to_string());
        }
        if then.contains("it creates new pods") {
            replaced.insert("Pod".to_string());
        }
        out.insert(uid, fate);
    }
    (out, replaced)
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
    let mut target = g.delete.replace("{ns}", &ns);
    if let Some(start) = target.find("{first:") {
        let kind = target[start + 7..target.len() - 1].to_string();
        let names = kubectl(
            &[
                "get",
                "-n",
                &ns,
                &kind,
                "-o",
                "jsonpath={.items[*].metadata.name}",
            ],
            None,
        );
        let mut names: Vec<&str> = names.split_whitespace().collect();
        names.sort_unstable();
        let first = names.first().ok_or(format!("no {kind} to delete"))?;
        target.replace_range(start.., first);
    }
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
    let (predicted, replaced) = predicted(&plan);

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
    for (uid, seen) in &before {
        let real = fate(uid, seen, &after);
        let said = predicted.get(uid).copied().unwrap_or(Fate::Live);
        if real != said {
            disagreements.push(format!("{}: predicted {said:?}, real {real:?}", seen.who));
        }
    }
    let real_new = new_kinds(&before, &after);
    if real_new != replaced {
        disagreements.push(format!(
            "new objects of kinds {real_new:?}, predicted replacements of {replaced:?}"
        ));
    }
    // Release what the graph held, so the namespace can go.
    for seen in after.values() {
        let (k, n) = seen.who.split_once('/').expect("kind/name");
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
        Err(format!("{}\n  plan: {plan}", disagreements.join("; ")))
    }
}

/// How many graphs are rehearsed at once.
const PARALLEL: usize = 7;

#[test]
fn rehearsals_on_snapshots_match_the_real_control_plane() {
    let _g = shared();
    let mut agreed = 0;
    let mut failures = Vec::new();
    // OWNERSCOPE_REHEARSAL_ONLY=<part of a name> runs only those graphs
    // (the assertion below then needs all of them to agree, as always).
    let only = std::env::var("OWNERSCOPE_REHEARSAL_ONLY").unwrap_or_default();
    let graphs: Vec<&Graph> = GRAPHS.iter().filter(|g| g.name.contains(&only)).collect();
    // Each graph lives in its own namespace, and most of a rehearsal is
    // waiting for the cluster to be quiet: rehearse a few at once.
    for batch in graphs.chunks(PARALLEL) {
        let results: Vec<(&str, Result<(), String>)> = std::thread::scope(|s| {
            let handles: Vec<_> = batch
                .iter()
                .map(|g| s.spawn(move || (g.name, rehearse(g))))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or(("?", Err("the rehearsal panicked".into())))
                })
                .collect()
        });
        for (name, result) in results {
            match result {
                Ok(()) => agreed += 1,
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    eprintln!(
        "rehearsal: {agreed}/{} graphs agree with the real control plane",
        graphs.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
