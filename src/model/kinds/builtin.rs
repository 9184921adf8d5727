//! The standard kinds: one list of their facts, read two ways. As a table
//! ([`BUILTIN`]) for everything that walks it, and as a `match` of literal
//! pairs ([`row_of`]) for the question the API server asks of every object
//! it admits, "is this a standard kind, and which". A literal is compared
//! as a few integers; the table's entries, unknown to the compiler, each
//! cost a call to `memcmp`. Over 300k restored objects the table's scan
//! took about 40 ms and the match 9 (`docs/performance.md`).

use super::{BG, DefaultPolicy, ORPHAN};

/// (group, version, kind, plural, namespaced, short names, default policy)
type Row = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    bool,
    &'static [&'static str],
    DefaultPolicy,
);

/// Defines [`BUILTIN`] and [`row_of`] from one list of rows, so that the
/// two cannot disagree.
macro_rules! standard_kinds {
    ($( ($group:literal, $version:literal, $kind:literal, $plural:literal,
         $namespaced:expr, $short:expr, $policy:expr $(,)?) ),* $(,)?) => {
        pub(super) const BUILTIN: &[Row] = &[
            $( ($group, $version, $kind, $plural, $namespaced, $short, $policy) ),*
        ];

        /// The row of `group`/`kind` in [`BUILTIN`]; `None` for any other
        /// kind. The kind is compared first: its length alone tells most
        /// rows apart.
        pub(super) fn row_of(group: &str, kind: &str) -> Option<usize> {
            match (kind, group) {
                $( ($kind, $group) => Some(const { index_of($group, $kind) }), )*
                _ => None,
            }
        }
    };
}

/// Where `group`/`kind` is in [`BUILTIN`], found as the program is built.
const fn index_of(group: &str, kind: &str) -> usize {
    let mut i = 0;
    while i < BUILTIN.len() {
        if same(BUILTIN[i].0, group) && same(BUILTIN[i].2, kind) {
            return i;
        }
        i += 1;
    }
    panic!("not a standard kind")
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

standard_kinds! {
    ("", "v1", "Pod", "pods", true, &["po"], BG),
    ("", "v1", "ConfigMap", "configmaps", true, &["cm"], BG),
    ("", "v1", "Secret", "secrets", true, &[], BG),
    ("", "v1", "Service", "services", true, &["svc"], BG),
    (
        "",
        "v1",
        "ServiceAccount",
        "serviceaccounts",
        true,
        &["sa"],
        BG,
    ),
    ("", "v1", "Endpoints", "endpoints", true, &["ep"], BG),
    (
        "",
        "v1",
        "PersistentVolumeClaim",
        "persistentvolumeclaims",
        true,
        &["pvc"],
        BG,
    ),
    (
        "",
        "v1",
        "PersistentVolume",
        "persistentvolumes",
        false,
        &["pv"],
        BG,
    ),
    (
        "",
        "v1",
        "ReplicationController",
        "replicationcontrollers",
        true,
        &["rc"],
        ORPHAN,
    ),
    ("", "v1", "Namespace", "namespaces", false, &["ns"], BG),
    ("", "v1", "Node", "nodes", false, &["no"], BG),
    (
        "",
        "v1",
        "Event",
        "events",
        true,
        &["ev"],
        DefaultPolicy::Unsupported,
    ),
    ("", "v1", "LimitRange", "limitranges", true, &["limits"], BG),
    (
        "",
        "v1",
        "ResourceQuota",
        "resourcequotas",
        true,
        &["quota"],
        BG,
    ),
    ("", "v1", "PodTemplate", "podtemplates", true, &[], BG),
    (
        "apps",
        "v1",
        "Deployment",
        "deployments",
        true,
        &["deploy"],
        BG,
    ),
    ("apps", "v1", "ReplicaSet", "replicasets", true, &["rs"], BG),
    ("apps", "v1", "DaemonSet", "daemonsets", true, &["ds"], BG),
    (
        "apps",
        "v1",
        "StatefulSet",
        "statefulsets",
        true,
        &["sts"],
        BG,
    ),
    (
        "apps",
        "v1",
        "ControllerRevision",
        "controllerrevisions",
        true,
        &[],
        BG,
    ),
    ("batch", "v1", "Job", "jobs", true, &[], ORPHAN),
    ("batch", "v1", "CronJob", "cronjobs", true, &["cj"], BG),
    (
        "discovery.k8s.io",
        "v1",
        "EndpointSlice",
        "endpointslices",
        true,
        &[],
        BG,
    ),
    (
        "networking.k8s.io",
        "v1",
        "Ingress",
        "ingresses",
        true,
        &["ing"],
        BG,
    ),
    (
        "networking.k8s.io",
        "v1",
        "NetworkPolicy",
        "networkpolicies",
        true,
        &["netpol"],
        BG,
    ),
    (
        "networking.k8s.io",
        "v1",
        "IngressClass",
        "ingressclasses",
        false,
        &[],
        BG,
    ),
    (
        "networking.k8s.io",
        "v1",
        "ServiceCIDR",
        "servicecidrs",
        false,
        &[],
        BG,
    ),
    (
        "policy",
        "v1",
        "PodDisruptionBudget",
        "poddisruptionbudgets",
        true,
        &["pdb"],
        BG,
    ),
    (
        "autoscaling",
        "v2",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        true,
        &["hpa"],
        BG,
    ),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "Role",
        "roles",
        true,
        &[],
        BG,
    ),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "RoleBinding",
        "rolebindings",
        true,
        &[],
        BG,
    ),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRole",
        "clusterroles",
        false,
        &[],
        BG,
    ),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRoleBinding",
        "clusterrolebindings",
        false,
        &[],
        BG,
    ),
    (
        "storage.k8s.io",
        "v1",
        "StorageClass",
        "storageclasses",
        false,
        &["sc"],
        BG,
    ),
    (
        "storage.k8s.io",
        "v1",
        "VolumeAttachment",
        "volumeattachments",
        false,
        &[],
        BG,
    ),
    (
        "storage.k8s.io",
        "v1",
        "CSIDriver",
        "csidrivers",
        false,
        &[],
        BG,
    ),
    (
        "storage.k8s.io",
        "v1",
        "CSINode",
        "csinodes",
        false,
        &[],
        BG,
    ),
    (
        "coordination.k8s.io",
        "v1",
        "Lease",
        "leases",
        true,
        &[],
        BG,
    ),
    // `ev` in both groups, as 1.20's discovery has it (kubectl takes the
    // core one and warns of the other; so does [`KindTable::resolve`]).
    ("events.k8s.io", "v1", "Event", "events", true, &["ev"], BG),
    (
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        false,
        &["crd", "crds"],
        BG,
    ),
    (
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingWebhookConfiguration",
        "validatingwebhookconfigurations",
        false,
        &[],
        BG,
    ),
    (
        "admissionregistration.k8s.io",
        "v1",
        "MutatingWebhookConfiguration",
        "mutatingwebhookconfigurations",
        false,
        &[],
        BG,
    ),
    (
        "scheduling.k8s.io",
        "v1",
        "PriorityClass",
        "priorityclasses",
        false,
        &["pc"],
        BG,
    ),
    (
        "resource.k8s.io",
        "v1",
        "ResourceClaim",
        "resourceclaims",
        true,
        &[],
        BG,
    ),
    (
        "snapshot.storage.k8s.io",
        "v1",
        "VolumeSnapshot",
        "volumesnapshots",
        true,
        &["vs"],
        BG,
    ),
    (
        "snapshot.storage.k8s.io",
        "v1",
        "VolumeSnapshotContent",
        "volumesnapshotcontents",
        false,
        &["vsc"],
        BG,
    ),
}
