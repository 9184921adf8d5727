//! Rehearsals against the real control plane: each graph is built for real
//! (kubectl), snapshotted (`snapshot --live`), rehearsed (`plan` and
//! `simulate` on the snapshot, the same request), then the same DELETE is
//! sent for real; once the cluster is quiet every object of the snapshot is
//! compared by uid, with the plan's prediction and with the simulation's
//! final state:
//! gone, Terminating, still there, re-created (gone, and an object of the
//! same kind and name is back with a new uid), or adopted (still there,
//! controlled by another uid). Objects a controller creates have new uids
//! and, for pods, random names: they are compared by role, as the set of
//! kinds that gained new objects against the kinds the plan says are
//! replaced and the kinds the simulation created. The agreement k/N is
//! printed.
//!
//! A graph may hold cluster-scoped objects (Nodes, PersistentVolumes,
//! CRDs): they are named after the graph's namespace (`{ns}` in a
//! manifest), compared like the rest, and deleted after. The snapshot is
//! the one a user takes, `snapshot --live -n NS`, which carries the
//! cluster-scoped objects the namespace's objects use.
//!
//! The control plane is Kubernetes 1.20, the simulator follows 1.36; a
//! difference that is genuinely version-dependent would be listed here by
//! rule and excluded. None of the graphs below needs one (the Job tracking
//! finalizer of 1.26+ changes no fate). Seen on 1.20 and deliberately left
//! out of the graphs, each for its reason:
//! - R75: creating an instance while its CRD is Terminating is refused;
//!   1.20 answers 405 MethodNotAllowed, 1.36 403 (modelled, `sim::api`),
//!   with the same message. No delete of a graph creates one.
//! - PV reclaim: 1.20's hostPath deleter deletes only under /tmp; a hostPath
//!   volume elsewhere with reclaim policy Delete ends `Failed` and stays. A
//!   volume plugin's failure is not an ownership rule and the simulator
//!   assumes the storage is deleted: the graphs' volumes are under /tmp.
//!
//! The control plane has no scheduler and no kubelet: pods stay Pending and
//! are deleted at once, unless bound to a Node object (`spec.nodeName`),
//! which the cleanup force-deletes. Node objects are never Ready: the node
//! lifecycle controller taints them unreachable after about 40 s, so the
//! graphs' DaemonSet tolerates every taint.

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
    /// What kubectl calls it: `kind` or `kind.group`.
    resource: String,
    /// Cluster-scoped.
    cluster: bool,
    terminating: bool,
    /// It has finalizers (the cleanup releases them).
    held: bool,
    /// Terminating with a finalizer of the garbage collector's.
    gc_pending: bool,
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
    /// Seconds the reads must agree before the cluster counts as quiet,
    /// when more than usual (0).
    patience: u64,
}

const GRAPHS: &[Graph] = &[
    Graph {
        name: "a CRD deleted: its held instance keeps it Terminating (R75)",
        manifests: &[
            WIDGETS,
            "apiVersion: {ns}.example.com/v1\nkind: Widget\nmetadata: {name: r1}",
            "apiVersion: {ns}.example.com/v1\nkind: Widget\nmetadata: {name: r2, finalizers: [example.com/hold]}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: of-r1, ownerReferences: [{apiVersion: {ns}.example.com/v1, kind: Widget, name: r1, uid: '{uid:widget/r1}'}]}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: of-r2, ownerReferences: [{apiVersion: {ns}.example.com/v1, kind: Widget, name: r2, uid: '{uid:widget/r2}'}]}",
        ],
        delete: "customresourcedefinition/widgets.{ns}.example.com",
        policy: Some("Background"),
        // 1.20's garbage collector learns of a kind created seconds ago only
        // at its next discovery sync (30 s): until then it looks the
        // instance owning `of-r1` up with exponential backoff, and finds
        // it gone up to ~20 s after `of-r1` was created. (First in the
        // list: its longer wait overlaps the other graphs.)
        patience: 20,
    },
    Graph {
        name: "background: owner and two dependents",
        manifests: &[
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: owner}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: '{uid:configmap/owner}'}]}",
            "apiVersion: v1\nkind: Secret\nmetadata: {name: b, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: '{uid:configmap/owner}'}]}",
        ],
        delete: "configmap/owner",
        policy: Some("Background"),
        patience: 0,
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
        patience: 0,
    },
    Graph {
        name: "orphan: dependents kept",
        manifests: &[
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: owner}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: '{uid:configmap/owner}'}]}",
        ],
        delete: "configmap/owner",
        policy: Some("Orphan"),
        patience: 0,
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
        patience: 0,
    },
    Graph {
        name: "owner stuck on its own finalizer, background",
        manifests: &[
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: owner, finalizers: [example.com/hold]}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: '{uid:configmap/owner}'}]}",
        ],
        delete: "configmap/owner",
        policy: Some("Background"),
        patience: 0,
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
        patience: 0,
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
        patience: 0,
    },
    Graph {
        name: "a Job deleted with no options (R12: orphan)",
        manifests: &[
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: nightly}\nspec: {parallelism: 0, template: {spec: {restartPolicy: Never, containers: [{name: c, image: example.invalid/c:1}]}}}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: report, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: nightly, uid: '{uid:job/nightly}'}]}",
        ],
        delete: "job/nightly",
        policy: None,
        patience: 0,
    },
    Graph {
        name: "a ReplicationController deleted with no options (R12: orphan)",
        manifests: &[
            "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: legacy}\nspec: {replicas: 0, selector: {app: legacy}, template: {metadata: {labels: {app: legacy}}, spec: {containers: [{name: c, image: example.invalid/c:1}]}}}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: data, ownerReferences: [{apiVersion: v1, kind: ReplicationController, name: legacy, uid: '{uid:replicationcontroller/legacy}'}]}",
        ],
        delete: "replicationcontroller/legacy",
        policy: None,
        patience: 0,
    },
    Graph {
        name: "a namespace with held content",
        manifests: &[
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: held, finalizers: [example.com/hold]}",
            "apiVersion: v1\nkind: Secret\nmetadata: {name: plain}",
        ],
        delete: "namespace/{ns}",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "a Deployment deleted in background",
        manifests: &[WEB],
        delete: "deployment/web",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "a Deployment deleted in foreground",
        manifests: &[WEB],
        delete: "deployment/web",
        policy: Some("Foreground"),
        patience: 0,
    },
    Graph {
        name: "a Deployment deleted with orphan",
        manifests: &[WEB],
        delete: "deployment/web",
        policy: Some("Orphan"),
        patience: 0,
    },
    Graph {
        name: "a Deployment's ReplicaSet deleted: it comes back with new pods",
        manifests: &[WEB],
        delete: "replicaset/{first:replicaset}",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "a Deployment's ReplicaSet orphaned: the new one adopts the pods",
        manifests: &[WEB],
        delete: "replicaset/{first:replicaset}",
        policy: Some("Orphan"),
        patience: 0,
    },
    Graph {
        name: "one pod of a ReplicaSet deleted: replaced",
        manifests: &[
            "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: solo}\nspec: {replicas: 2, selector: {matchLabels: {app: solo}}, template: {metadata: {labels: {app: solo}}, spec: {containers: [{name: c, image: example.invalid/c:1}]}}}",
        ],
        delete: "pod/{first:pod}",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "a Service with a selector deleted: Endpoints and EndpointSlice go",
        manifests: &[
            WEB,
            "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}, ports: [{port: 80}]}",
        ],
        delete: "service/web",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "a StatefulSet's pod deleted: back with the same name",
        manifests: &[
            "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec: {replicas: 1, serviceName: db, selector: {matchLabels: {app: db}}, template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c, image: example.invalid/c:1}]}}}",
        ],
        delete: "pod/db-0",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "a StatefulSet with claims deleted: its pod goes, its claim stays",
        manifests: &[DB_WITH_CLAIMS],
        delete: "statefulset/db",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "a StatefulSet's pod with a claim deleted: back with the same name, the claim kept",
        manifests: &[DB_WITH_CLAIMS],
        delete: "pod/db-0",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "a running Job's pod deleted: replaced",
        manifests: &[
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: batch}\nspec: {parallelism: 1, template: {spec: {restartPolicy: Never, containers: [{name: c, image: example.invalid/c:1}]}}}",
        ],
        delete: "pod/{first:pod}",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "a cycle of two deleted in foreground (R42, S29)",
        manifests: &[
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: b, uid: '{uid:configmap/b}', blockOwnerDeletion: true}]}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: c, uid: '{uid:configmap/c}', blockOwnerDeletion: true}]}",
        ],
        delete: "configmap/b",
        policy: Some("Foreground"),
        patience: 0,
    },
    Graph {
        name: "a cycle of three deleted in background",
        manifests: &[
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: a, uid: '{uid:configmap/a}'}]}",
            "apiVersion: v1\nkind: Secret\nmetadata: {name: c, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: b, uid: '{uid:configmap/b}'}]}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, ownerReferences: [{apiVersion: v1, kind: Secret, name: c, uid: '{uid:secret/c}'}]}",
        ],
        delete: "configmap/a",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "a cycle of two deleted in background",
        manifests: &[
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: b, uid: '{uid:configmap/b}', blockOwnerDeletion: true}]}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: c, uid: '{uid:configmap/c}', blockOwnerDeletion: true}]}",
        ],
        delete: "configmap/b",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "a cycle of three deleted in foreground",
        manifests: &[
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: a, uid: '{uid:configmap/a}', blockOwnerDeletion: true}]}",
            "apiVersion: v1\nkind: Secret\nmetadata: {name: c, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: b, uid: '{uid:configmap/b}', blockOwnerDeletion: true}]}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, ownerReferences: [{apiVersion: v1, kind: Secret, name: c, uid: '{uid:secret/c}', blockOwnerDeletion: true}]}",
        ],
        delete: "configmap/a",
        policy: Some("Foreground"),
        patience: 0,
    },
    Graph {
        name: "an object owned by a cluster-scoped owner (a Node) is kept",
        manifests: &[
            NODE_A,
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: of-node, ownerReferences: [{apiVersion: v1, kind: Node, name: '{ns}-node-a', uid: '{uid:node/{ns}-node-a}'}]}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}",
        ],
        delete: "configmap/other",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "a DaemonSet's pod deleted: replaced on its node",
        manifests: &[NODE_A, NODE_B, AGENT],
        delete: "pod/{first:pod}",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "a DaemonSet deleted: its pods go",
        manifests: &[NODE_A, NODE_B, AGENT],
        delete: "daemonset/agent",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "a PVC used by a scheduled pod deleted: Terminating (R63)",
        manifests: &[
            NODE_A,
            "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: used}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: user}\nspec: {nodeName: '{ns}-node-a', containers: [{name: c, image: example.invalid/c:1}], volumes: [{name: d, persistentVolumeClaim: {claimName: used}}]}",
        ],
        delete: "persistentvolumeclaim/used",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "a PVC used only by an unscheduled pod deleted: gone (R63, S24)",
        manifests: &[
            "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: used}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: user}\nspec: {containers: [{name: c, image: example.invalid/c:1}], volumes: [{name: d, persistentVolumeClaim: {claimName: used}}]}",
        ],
        delete: "persistentvolumeclaim/used",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "a Bound PV deleted: Terminating while Bound (R64)",
        manifests: &[PV_RETAIN, CLAIM],
        delete: "persistentvolume/{ns}-pv",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "the claim of a Bound PV (Retain) deleted: the PV stays, Released",
        manifests: &[PV_RETAIN, CLAIM],
        delete: "persistentvolumeclaim/data",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "the claim of a Bound PV (Delete) deleted: the PV controller deletes it",
        manifests: &[PV_DELETE, CLAIM],
        delete: "persistentvolumeclaim/data",
        policy: Some("Background"),
        patience: 0,
    },
];

/// A namespaced CRD of the graph's own group.
const WIDGETS: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.{ns}.example.com}\nspec: {group: {ns}.example.com, scope: Namespaced, names: {plural: widgets, singular: widget, kind: Widget}, versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]}";

/// Node objects (no kubelet: they never report Ready, and the node
/// lifecycle controller taints them unreachable after about 40 s),
/// labelled for the graph's DaemonSet only.
const NODE_A: &str =
    "apiVersion: v1\nkind: Node\nmetadata: {name: '{ns}-node-a', labels: {rehearsal: '{ns}'}}";
const NODE_B: &str =
    "apiVersion: v1\nkind: Node\nmetadata: {name: '{ns}-node-b', labels: {rehearsal: '{ns}'}}";

/// A DaemonSet on the graph's nodes only (other graphs and tests create
/// Nodes at the same time), tolerating every taint (the unreachable taint
/// would otherwise stop it from creating pods). The snapshot carries the
/// Nodes its pods are pinned to; the simulator models neither node
/// selectors nor taints, so it sees exactly those nodes.
const AGENT: &str = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec: {selector: {matchLabels: {app: agent}}, template: {metadata: {labels: {app: agent}}, spec: {nodeSelector: {rehearsal: '{ns}'}, tolerations: [{operator: Exists}], containers: [{name: c, image: example.invalid/c:1}]}}}";

/// A static hostPath volume bound by the PV controller to the claim
/// `data`. 1.20's hostPath deleter only deletes under /tmp (elsewhere the
/// volume ends Failed, a volume plugin's limit the simulator does not
/// model): the path is under /tmp and never exists.
const PV_RETAIN: &str = "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: '{ns}-pv'}\nspec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], persistentVolumeReclaimPolicy: Retain, storageClassName: '', hostPath: {path: '/tmp/ownerscope-rehearsal-{ns}'}, claimRef: {namespace: '{ns}', name: data}}";
const PV_DELETE: &str = "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: '{ns}-pv'}\nspec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], persistentVolumeReclaimPolicy: Delete, storageClassName: '', hostPath: {path: '/tmp/ownerscope-rehearsal-{ns}'}, claimRef: {namespace: '{ns}', name: data}}";
const CLAIM: &str = "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {accessModes: [ReadWriteOnce], storageClassName: '', volumeName: '{ns}-pv', resources: {requests: {storage: 1Gi}}}";

/// A StatefulSet of one pod with a claim template (1.20 has no retention
/// policy: the claim gets no owner reference, as with 1.36's default).
const DB_WITH_CLAIMS: &str = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec: {replicas: 1, serviceName: db, selector: {matchLabels: {app: db}}, template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c, image: example.invalid/c:1}]}}, volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}]}";

/// A Deployment of two pods (they stay Pending: no scheduler).
const WEB: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: example.invalid/c:1}]}}}";

/// The namespaced kinds a graph's objects are compared in.
const NAMESPACED: &str = "configmaps,secrets,jobs,replicationcontrollers,pods,deployments,replicasets,statefulsets,daemonsets,controllerrevisions,services,endpoints,endpointslices,persistentvolumeclaims";

/// The cluster-scoped kinds a graph may create (named after its namespace,
/// so the graphs running at once never see each other's).
const CLUSTER: &str = "nodes,persistentvolumes,customresourcedefinitions";

/// The items of a `kubectl get -o json`.
fn items(text: &str) -> Vec<Value> {
    let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    v["items"].as_array().cloned().unwrap_or_default()
}

/// The objects of the graph, by uid: the namespace's, the cluster-scoped
/// ones named after it, and the instances of its CRDs.
fn objects(ns: &str) -> BTreeMap<String, Seen> {
    let mut all = items(&kubectl(&["get", "-n", ns, NAMESPACED, "-o", "json"], None));
    let cluster: Vec<Value> = items(&kubectl(&["get", CLUSTER, "-o", "json"], None))
        .into_iter()
        .filter(|o| {
            o["metadata"]["name"]
                .as_str()
                .is_some_and(|n| n.contains(ns))
        })
        .collect();
    for crd in cluster
        .iter()
        .filter(|o| o["kind"] == "CustomResourceDefinition")
    {
        let resource = crd["metadata"]["name"].as_str().unwrap_or_default();
        // Gone meanwhile: so are its instances.
        if let Ok(text) = try_kubectl(&["get", "-n", ns, resource, "-o", "json"], None) {
            all.extend(items(&text));
        }
    }
    all.extend(cluster);
    seen_all(all)
}

/// The kinds compared (those `objects` lists), besides the graph's custom
/// resources.
const KINDS: &[&str] = &[
    "ConfigMap",
    "Secret",
    "Job",
    "ReplicationController",
    "Pod",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "ControllerRevision",
    "Service",
    "Endpoints",
    "EndpointSlice",
    "PersistentVolumeClaim",
    "Node",
    "PersistentVolume",
    "CustomResourceDefinition",
];

/// The final state `simulate` reaches from the snapshot with the same
/// DELETE, as `objects` would list it.
fn simulated(
    ns: &str,
    file: &str,
    target: &str,
    policy: Option<&str>,
) -> Result<BTreeMap<String, Seen>, String> {
    let mut args = vec!["simulate", file, "--delete", target, "-n", ns, "-o", "json"];
    let lower = policy.map(str::to_ascii_lowercase);
    if let Some(p) = &lower {
        args.extend(["--policy", p]);
    }
    let out = ownerscope(&args);
    if !out.status.success() {
        return Err(format!(
            "simulate: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let last: Value = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v.get("final").is_some())
        .ok_or("simulate: no final state")?;
    let compared = last["final"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|o| {
            let kind = o["kind"].as_str().unwrap_or_default();
            let custom = o["apiVersion"].as_str().is_some_and(|v| v.contains(ns));
            let mine = match o["metadata"]["namespace"].as_str() {
                Some(n) => n == ns,
                None => o["metadata"]["name"]
                    .as_str()
                    .is_some_and(|n| n.contains(ns)),
            };
            mine && (custom || KINDS.contains(&kind))
        })
        .collect();
    Ok(seen_all(compared))
}

/// Listed objects by uid (the namespace's own ConfigMap and token left out).
fn seen_all(all: Vec<Value>) -> BTreeMap<String, Seen> {
    let mut out = BTreeMap::new();
    for item in all {
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
        let group = item["apiVersion"]
            .as_str()
            .and_then(|v| v.split_once('/'))
            .map_or("", |(g, _)| g);
        let resource = if group.is_empty() {
            kind.to_ascii_lowercase()
        } else {
            format!("{}.{group}", kind.to_ascii_lowercase())
        };
        let uid = item["metadata"]["uid"].as_str().unwrap_or_default();
        let finalizers = item["metadata"]["finalizers"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        out.insert(
            uid.to_string(),
            Seen {
                who: format!("{kind}/{name}"),
                resource,
                cluster: item["metadata"]["namespace"].is_null(),
                terminating: !item["metadata"]["deletionTimestamp"].is_null(),
                held: !finalizers.is_empty(),
                gc_pending: !item["metadata"]["deletionTimestamp"].is_null()
                    && finalizers
                        .iter()
                        .any(|f| f == "foregroundDeletion" || f == "orphan"),
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

/// Polls until two reads a few seconds apart agree, after a first wait:
/// 7 s for a namespace's DELETE (the namespace controller's first pass
/// comes 5 s after it), 4 s otherwise. While an object waits on the
/// garbage collector (`foregroundDeletion`, `orphan`), the reads must agree
/// for 10 s: the collector retries with backoff (a foreground cycle once
/// took over 10 s to resolve on 1.20); a graph may ask for more.
fn quiet(ns: &str, namespace_deleted: bool, patience: u64) -> BTreeMap<String, Seen> {
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs(if namespace_deleted { 7 } else { 4 }));
    let mut last = objects(ns);
    let mut stable_since = Instant::now();
    loop {
        std::thread::sleep(Duration::from_secs(3));
        let now = objects(ns);
        if now != last {
            last = now;
            stable_since = Instant::now();
            continue;
        }
        let usual = if now.values().any(|s| s.gc_pending) {
            10
        } else {
            3
        };
        let wanted = Duration::from_secs(patience.max(usual));
        if stable_since.elapsed() >= wanted || started.elapsed() > Duration::from_secs(60) {
            return now;
        }
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

/// Applies one manifest; a custom resource waits (a few seconds at most)
/// for its CRD to be served.
fn apply(ns: &str, text: &str) -> Result<(), String> {
    let started = Instant::now();
    loop {
        match try_kubectl(&["apply", "-n", ns, "-f", "-"], Some(text)) {
            Ok(_) => return Ok(()),
            Err(e) if started.elapsed() < Duration::from_secs(15) => {
                if !e.contains("no matches for kind") {
                    return Err(format!("kubectl apply: {e}"));
                }
                std::thread::sleep(Duration::from_millis(300));
            }
            Err(e) => return Err(format!("kubectl apply: {e}")),
        }
    }
}

/// Waits until the graph is built: its controllers have had two seconds,
/// and every claim naming a volume is Bound (the PV controller binds it).
fn settle(ns: &str) -> Result<(), String> {
    std::thread::sleep(Duration::from_secs(2));
    let started = Instant::now();
    loop {
        let claims = items(&kubectl(
            &["get", "-n", ns, "persistentvolumeclaims", "-o", "json"],
            None,
        ));
        let unbound: Vec<&str> = claims
            .iter()
            .filter(|c| !c["spec"]["volumeName"].is_null() && c["status"]["phase"] != "Bound")
            .filter_map(|c| c["metadata"]["name"].as_str())
            .collect();
        if unbound.is_empty() {
            return Ok(());
        }
        if started.elapsed() > Duration::from_secs(20) {
            return Err(format!("claims never bound: {unbound:?}"));
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn rehearse(g: &Graph) -> Result<(), String> {
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "rehearse"));
    for m in g.manifests {
        let mut text = m.replace("{ns}", &ns);
        while let Some(start) = text.find("{uid:") {
            let end = start + text[start..].find('}').expect("closing brace");
            let what = &text[start + 5..end];
            let uid = kubectl(
                &["get", "-n", &ns, what, "-o", "jsonpath={.metadata.uid}"],
                None,
            );
            text.replace_range(start..=end, &uid);
        }
        apply(&ns, &text)?;
    }
    settle(&ns)?;
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
    let sim_after = simulated(&ns, &file.to_string_lossy(), &target, g.policy)?;

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
    let after = quiet(&ns, kind == "namespace", g.patience);
    // The plan's prediction, and the simulator's final state, run to its
    // end from the same snapshot: everything it does, not only what the
    // delete cascades to.
    let mut disagreements = Vec::new();
    for (uid, seen) in &before {
        let real = fate(uid, seen, &after);
        let said = predicted.get(uid).copied().unwrap_or(Fate::Live);
        let sim = fate(uid, seen, &sim_after);
        if real != said {
            disagreements.push(format!("{}: predicted {said:?}, real {real:?}", seen.who));
        }
        if real != sim {
            disagreements.push(format!("{}: simulated {sim:?}, real {real:?}", seen.who));
        }
    }
    let real_new = new_kinds(&before, &after);
    let sim_new = new_kinds(&before, &sim_after);
    if real_new != replaced || real_new != sim_new {
        disagreements.push(format!(
            "new objects of kinds {real_new:?}, predicted replacements of {replaced:?}, simulated new objects of {sim_new:?}"
        ));
    }
    // Release what the graph held, so the namespace can go, and delete
    // its cluster-scoped objects (a PersistentVolume goes once its claim
    // has gone with the namespace).
    for seen in after.values().filter(|s| s.held) {
        let (_, n) = seen.who.split_once('/').expect("kind/name");
        let _ = try_kubectl(
            &[
                "patch",
                "-n",
                &ns,
                &seen.resource,
                n,
                "--type=merge",
                "-p",
                r#"{"metadata":{"finalizers":null}}"#,
            ],
            None,
        );
    }
    // A pod bound to a Node object waits for a kubelet that never comes:
    // delete the graph's pods at once (grace period 0).
    if before.values().any(|s| s.who.starts_with("Node/")) {
        let _ = try_kubectl(
            &[
                "delete",
                "pods",
                "-n",
                &ns,
                "--all",
                "--grace-period=0",
                "--force",
                "--wait=false",
            ],
            None,
        );
    }
    rt.block_on(delete_namespace(&client, &ns));
    for seen in before.values().chain(after.values()).filter(|s| s.cluster) {
        let (_, n) = seen.who.split_once('/').expect("kind/name");
        let _ = try_kubectl(
            &[
                "delete",
                &seen.resource,
                n,
                "--ignore-not-found",
                "--wait=false",
            ],
            None,
        );
    }
    if disagreements.is_empty() {
        Ok(())
    } else {
        Err(format!("{}\n  plan: {plan}", disagreements.join("; ")))
    }
}

/// How many graphs are rehearsed at once.
const PARALLEL: usize = 12;

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
    // waiting for the cluster to be quiet: rehearse a few at once, each
    // worker taking the next graph as it is done.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<(&str, Result<(), String>)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..PARALLEL)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(g) = graphs.get(i) else {
                            return done;
                        };
                        let result = std::panic::catch_unwind(|| rehearse(g))
                            .unwrap_or_else(|_| Err("the rehearsal panicked".into()));
                        done.push((g.name, result));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    for (name, result) in results {
        match result {
            Ok(()) => agreed += 1,
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    eprintln!(
        "rehearsal: {agreed}/{} graphs agree with the real control plane",
        graphs.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
