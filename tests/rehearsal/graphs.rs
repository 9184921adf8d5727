//! The hand-written graphs: each built from manifests, deleted one way.

use super::*;

/// One graph: its manifests (in order; `{uid:kind/name}` is replaced by
/// the uid of an object created before), the object to delete and how
/// (`{first:kind}`: the first object of that kind by name, for generated
/// names).
pub(crate) struct Graph {
    pub(crate) name: &'static str,
    manifests: &'static [&'static str],
    delete: &'static str,
    /// `None`: a DELETE with no options (the type's default applies).
    policy: Option<&'static str>,
    /// Seconds the reads must agree before the cluster counts as quiet,
    /// when more than usual (0).
    patience: u64,
}

pub(crate) const GRAPHS: &[Graph] = &[
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
        // The rehearsal waits until the garbage collector watches Widgets
        // before it creates them ([`gc_watches`]; first in the list: that
        // wait overlaps the other graphs).
        patience: 0,
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
    Graph {
        name: "a Node deleted: the pod GC force-deletes its pod (R77)",
        manifests: &[
            NODE_A,
            "apiVersion: v1\nkind: Pod\nmetadata: {name: bound}\nspec: {nodeName: '{ns}-node-a', containers: [{name: c, image: example.invalid/c:1}]}",
        ],
        delete: "node/{ns}-node-a",
        policy: Some("Background"),
        // 1.20's pod GC deletes a gone Node's pods 40-47 s later (its
        // 40 s quarantine, then its next 20 s pass): more on a loaded
        // machine, where CI once saw it after the minute, and a run beside
        // 1M-object benchmarks after the 90 s the reads then waited (they
        // now wait up to 120 s, and for 90 s of no change).
        patience: 90,
    },
    Graph {
        name: "a Deployment after a rollout (two ReplicaSets) deleted",
        manifests: &[WEB, WEB_ROLLED_OUT],
        delete: "deployment/web",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "a suspended batch/v1beta1 CronJob deleted with no options (R79: orphan)",
        manifests: &[
            "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: nightly}\nspec: {schedule: '0 3 * * *', suspend: true, jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: example.invalid/c:1}]}}}}}",
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: nightly-1, ownerReferences: [{apiVersion: batch/v1beta1, kind: CronJob, name: nightly, uid: '{uid:cronjob/nightly}', controller: true, blockOwnerDeletion: true}]}\nspec: {parallelism: 0, template: {spec: {restartPolicy: Never, containers: [{name: c, image: example.invalid/c:1}]}}}",
        ],
        delete: "cronjob/nightly",
        policy: None,
        patience: 0,
    },
    Graph {
        name: "a pod on a Node with no kubelet deleted: Terminating, never confirmed (R76)",
        manifests: &[
            NODE_A,
            "apiVersion: v1\nkind: Pod\nmetadata: {name: bound}\nspec: {nodeName: '{ns}-node-a', terminationGracePeriodSeconds: 1, containers: [{name: c, image: example.invalid/c:1}]}",
        ],
        delete: "pod/bound",
        policy: Some("Background"),
        patience: 5,
    },
    // Only the pod: with other content beside it, 1.20 deletes it all in
    // one pass, where 1.34+ deletes pods first and the rest once they are
    // gone (R58.3, OrderedNamespaceDeletion), as the simulator does.
    Graph {
        name: "a namespace whose pod is on a Node with no kubelet deleted: the pod holds it (R76, R58)",
        manifests: &[
            NODE_A,
            "apiVersion: v1\nkind: Pod\nmetadata: {name: bound}\nspec: {nodeName: '{ns}-node-a', terminationGracePeriodSeconds: 1, containers: [{name: c, image: example.invalid/c:1}]}",
        ],
        delete: "namespace/{ns}",
        policy: Some("Background"),
        patience: 5,
    },
    Graph {
        name: "a ServiceAccount deleted: the token controller deletes its token Secret (R78)",
        manifests: &["apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: robot}"],
        delete: "serviceaccount/robot",
        policy: Some("Background"),
        patience: 0,
    },
    Graph {
        name: "a foreground delete whose finalizer removal a failing webhook refuses: Terminating (STUCK-CAUSES C6)",
        manifests: &[
            "apiVersion: v1\nkind: Service\nmetadata: {name: guard}\nspec: {selector: {app: no-such-pod}, ports: [{port: 443}]}",
            GUARD,
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: o, labels: {guarded: '{ns}'}}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: o, uid: '{uid:configmap/o}', blockOwnerDeletion: true}]}",
        ],
        delete: "configmap/o",
        policy: Some("Foreground"),
        patience: 0,
    },
];

/// A webhook called for every UPDATE of the graph's ConfigMaps labelled
/// `guarded`, failing closed, whose Service has no endpoints (its label
/// selector keeps it from the other graphs running at the same time).
const GUARD: &str = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: '{ns}-guard'}\nwebhooks: [{name: guard.example.com, failurePolicy: Fail, sideEffects: None, admissionReviewVersions: [v1], objectSelector: {matchLabels: {guarded: '{ns}'}}, rules: [{operations: [UPDATE], apiGroups: [''], apiVersions: [v1], resources: [configmaps]}], clientConfig: {service: {namespace: '{ns}', name: guard, path: /validate}}}]";

/// A namespace deleted while an aggregated API of the graph's own group has
/// no endpoints: no namespace of the cluster can finish (R80), so it
/// runs alone (`rehearsal.rs`).
pub(crate) const DEAD_API: Graph = Graph {
    name: "a namespace deleted while an APIService has no endpoints: Terminating (R80, STUCK-CAUSES C4)",
    manifests: &[
        "apiVersion: v1\nkind: Service\nmetadata: {name: api}\nspec: {selector: {app: no-such-pod}, ports: [{port: 443}]}",
        "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {name: 'v1beta1.{ns}.example.com'}\nspec: {group: '{ns}.example.com', version: v1beta1, groupPriorityMinimum: 100, versionPriority: 100, insecureSkipTLSVerify: true, service: {namespace: '{ns}', name: api}}",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}",
    ],
    delete: "namespace/{ns}",
    policy: Some("Background"),
    patience: 5,
};

/// The same Deployment with another image: a second ReplicaSet.
const WEB_ROLLED_OUT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: example.invalid/c:2}]}}}";

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

/// Waits until 1.20's garbage collector watches the kind a CRD manifest
/// defines. It starts watching a new kind only at its next discovery sync
/// (every 30 s); until then, an owner of that kind that a dependent names is
/// looked up with exponential backoff (the lookup is requeued while the
/// owner has not been seen by a watch), so a dependent of an instance the
/// CRD finalizer deletes went up to ~40 s after its owner, or, with a
/// rehearsal's quiet wait, seemed to stay. The probe: an instance with no
/// dependent, deleted in the foreground. Only the collector removes
/// `foregroundDeletion`, and it sees the instance's DELETE only through a
/// watch of its kind; once the probe is gone, it watches.
fn gc_watches(ns: &str, crd: &str) -> Result<(), String> {
    let crd: Value = serde_json::from_str(
        &try_kubectl(
            &["create", "--dry-run=client", "-o", "json", "-f", "-"],
            Some(crd),
        )
        .map_err(|e| format!("reading the CRD manifest: {e}"))?,
    )
    .map_err(|e| e.to_string())?;
    let group = crd["spec"]["group"].as_str().ok_or("CRD without a group")?;
    let version = crd["spec"]["versions"][0]["name"]
        .as_str()
        .ok_or("CRD without a version")?;
    let kind = crd["spec"]["names"]["kind"]
        .as_str()
        .ok_or("CRD without a kind")?;
    let plural = crd["spec"]["names"]["plural"]
        .as_str()
        .ok_or("CRD without a plural")?;
    let probe =
        format!("apiVersion: {group}/{version}\nkind: {kind}\nmetadata: {{name: gc-probe}}");
    apply(ns, &probe)?;
    let path = format!("/apis/{group}/{version}/namespaces/{ns}/{plural}/gc-probe");
    try_kubectl(
        &["delete", "--raw", &path, "-f", "-"],
        Some(r#"{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Foreground"}"#),
    )?;
    let started = Instant::now();
    loop {
        match try_kubectl(&["get", "--raw", &path], None) {
            Err(e) if e.contains("NotFound") || e.contains("not found") => return Ok(()),
            _ if started.elapsed() > Duration::from_secs(90) => {
                return Err(format!(
                    "the garbage collector never watched {kind}: its foreground probe stayed 90 s"
                ));
            }
            _ => std::thread::sleep(Duration::from_millis(500)),
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

pub(crate) fn rehearse(g: &Graph) -> Result<(), String> {
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
        if text.contains("kind: CustomResourceDefinition") {
            gc_watches(&ns, &text)?;
        }
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
    let prediction = predicted(&plan);
    let sim_after = simulated(&ns, Some(&ns), &file.to_string_lossy(), &target, g.policy)?;

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
                // 1.20 serves CronJob as batch/v1beta1 only (R79).
                "cronjob" => format!("/apis/batch/v1beta1/namespaces/{ns}/cronjobs/{name}"),
                "replicationcontroller" => {
                    format!("/api/v1/namespaces/{ns}/replicationcontrollers/{name}")
                }
                other => panic!("no raw path for {other}"),
            };
            kubectl(&["delete", "--raw", &path], None);
        }
    }
    let after = quiet(&|| objects(&ns), kind == "namespace", g.patience);
    // The plan's prediction, and the simulator's final state, run to its
    // end from the same snapshot: everything it does, not only what the
    // delete cascades to.
    let mut disagreements = Vec::new();
    for (uid, seen) in &before {
        let real = fate(uid, seen, &after);
        let said = prediction.said(uid, seen);
        let sim = fate(uid, seen, &sim_after);
        if !prediction.accepts(uid, seen, real) {
            disagreements.push(format!("{}: predicted {said:?}, real {real:?}", seen.who));
        }
        if real != sim && !prediction.either(uid, seen, real, sim) {
            disagreements.push(format!("{}: simulated {sim:?}, real {real:?}", seen.who));
        }
    }
    let real_new = new_kinds(&before, &after);
    let sim_new = new_kinds(&before, &sim_after);
    let replaced = &prediction.replaced;
    if real_new != *replaced || real_new != sim_new {
        disagreements.push(format!(
            "new objects of kinds {real_new:?}, predicted replacements of {replaced:?}, simulated new objects of {sim_new:?}"
        ));
    }
    // What refuses requests or namespace deletions goes first: a webhook
    // would refuse the releases below, an APIService the namespace's end.
    for seen in before.values().filter(|s| {
        s.cluster
            && (s.who.starts_with("ValidatingWebhookConfiguration/")
                || s.who.starts_with("APIService/"))
    }) {
        let (_, n) = seen.who.split_once('/').expect("kind/name");
        let _ = try_kubectl(&["delete", &seen.resource, n, "--ignore-not-found"], None);
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
