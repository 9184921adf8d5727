//! Who removes a finalizer, and is it running? (STUCK-CAUSES C1; the
//! catalogue is `shared/FINALIZERS.md`, section 3.2.)
//!
//! A Terminating object held by a third party's finalizer waits on that
//! party's controller. Whether the controller runs is the question an
//! on-call engineer comes with: its workload (a Deployment, StatefulSet or
//! DaemonSet) is found by the catalogue's typical name, or by the name of
//! the field manager that wrote the finalizer (`managedFields`), and its
//! replicas say whether it is scaled to 0, not ready, or running.

use serde::Serialize;
use serde_json::Value;

use super::graph::OwnershipGraph;
use super::object::Object;

/// Where a well-known finalizer's controller usually runs
/// (FINALIZERS.md 3.2: "Typical workload"): (finalizer prefix or name,
/// controller, workload kind, workload name).
const WORKLOADS: &[(&str, &str, &str, &str)] = &[
    (
        "resources-finalizer.argocd.argoproj.io",
        "argocd-application-controller",
        "StatefulSet",
        "argocd-application-controller",
    ),
    (
        "pre-delete-finalizer.argocd.argoproj.io",
        "argocd-application-controller",
        "StatefulSet",
        "argocd-application-controller",
    ),
    (
        "post-delete-finalizer.argocd.argoproj.io",
        "argocd-application-controller",
        "StatefulSet",
        "argocd-application-controller",
    ),
    (
        "argocd.argoproj.io/hook-finalizer",
        "argocd-application-controller",
        "StatefulSet",
        "argocd-application-controller",
    ),
    (
        "finalizers.fluxcd.io",
        "kustomize-controller",
        "Deployment",
        "kustomize-controller",
    ),
    (
        "finalizer.acme.cert-manager.io",
        "cert-manager",
        "Deployment",
        "cert-manager",
    ),
    (
        "acme.cert-manager.io/finalizer",
        "cert-manager",
        "Deployment",
        "cert-manager",
    ),
    (
        "composite.apiextensions.crossplane.io",
        "crossplane",
        "Deployment",
        "crossplane",
    ),
    (
        "finalizer.apiextensions.crossplane.io",
        "crossplane",
        "Deployment",
        "crossplane",
    ),
    (
        "cluster.cluster.x-k8s.io",
        "capi-controller-manager",
        "Deployment",
        "capi-controller-manager",
    ),
    (
        "machine.cluster.x-k8s.io",
        "capi-controller-manager",
        "Deployment",
        "capi-controller-manager",
    ),
    (
        "karpenter.sh/termination",
        "karpenter",
        "Deployment",
        "karpenter",
    ),
    (
        "ingress.k8s.aws/resources",
        "aws-load-balancer-controller",
        "Deployment",
        "aws-load-balancer-controller",
    ),
    (
        "group.ingress.k8s.aws/",
        "aws-load-balancer-controller",
        "Deployment",
        "aws-load-balancer-controller",
    ),
    (
        "service.k8s.aws/resources",
        "aws-load-balancer-controller",
        "Deployment",
        "aws-load-balancer-controller",
    ),
    (
        "elbv2.k8s.aws/resources",
        "aws-load-balancer-controller",
        "Deployment",
        "aws-load-balancer-controller",
    ),
    (
        "finalizer.keda.sh",
        "keda-operator",
        "Deployment",
        "keda-operator",
    ),
    (
        "kueue.x-k8s.io/resource-in-use",
        "kueue-controller-manager",
        "Deployment",
        "kueue-controller-manager",
    ),
    (
        "longhorn.io",
        "longhorn-manager",
        "DaemonSet",
        "longhorn-manager",
    ),
    ("restores.velero.io/", "velero", "Deployment", "velero"),
    (
        "externalsecrets.external-secrets.io/",
        "external-secrets",
        "Deployment",
        "external-secrets",
    ),
    ("controller.cattle.io/", "rancher", "Deployment", "rancher"),
    (
        "monitoring.coreos.com/status-cleanup",
        "prometheus-operator",
        "Deployment",
        "prometheus-operator",
    ),
    (
        "kubevirt.io/virtualMachineControllerFinalize",
        "virt-controller",
        "Deployment",
        "virt-controller",
    ),
    (
        "cnpg.io/",
        "cnpg-controller-manager",
        "Deployment",
        "cnpg-controller-manager",
    ),
    (
        "strimzi.io/topic-operator",
        "strimzi entity operator",
        "Deployment",
        "entity-operator",
    ),
    (
        "apps.victoriametrics.com/finalizer",
        "victoria-metrics-operator",
        "Deployment",
        "victoria-metrics-operator",
    ),
];

/// The catalogue's controller for `finalizer`, and the name of its
/// workload: an exact name, or a prefix ending in `/` or a `.` pattern
/// (`<kind>.ceph.rook.io`).
#[must_use]
pub fn catalogued(finalizer: &str) -> Option<(&'static str, &'static str, &'static str)> {
    if finalizer.ends_with(".ceph.rook.io") {
        return Some(("rook-ceph-operator", "Deployment", "rook-ceph-operator"));
    }
    WORKLOADS
        .iter()
        .find(|(f, ..)| {
            finalizer == *f
                || (f.ends_with('/') && finalizer.starts_with(f))
                || finalizer.starts_with(&format!("{f}/"))
        })
        .map(|&(_, c, k, n)| (c, k, n))
}

/// A workload's state, from its spec and status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum Running {
    /// `desired` replicas, all ready.
    Running { ready: i64, desired: i64 },
    /// Scaled to 0: nothing runs.
    ScaledToZero,
    /// Some replicas are not ready.
    NotReady { ready: i64, desired: i64 },
    /// Its status is not known here (read without status).
    Unknown,
}

/// The workload found for a finalizer's controller.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Workload {
    /// `Deployment argocd/argocd-application-controller`.
    pub name: String,
    pub running: Running,
}

impl Workload {
    /// A Deployment, StatefulSet or DaemonSet, and whether it runs.
    #[must_use]
    pub fn of(o: &Object) -> Workload {
        Workload {
            name: format!(
                "{} {}/{}",
                o.kind,
                o.namespace().unwrap_or_default(),
                o.name()
            ),
            running: running_of(o),
        }
    }
}

/// Who removes one finalizer, and whether it runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Remover {
    pub finalizer: String,
    /// The controller expected to remove it (the catalogue's, else the
    /// field manager that wrote it), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<String>,
    /// The field managers that wrote it (`managedFields`), when read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub writers: Vec<String>,
    /// Its workload, when one was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<Workload>,
    /// Whether every namespace's workloads were in view (a workload not
    /// found is then not installed, as far as this view tells).
    pub whole_cluster: bool,
}

/// A workload's replicas: (desired, ready), from `spec.replicas` (a
/// DaemonSet: `status.desiredNumberScheduled`) and the ready count.
fn running_of(w: &Object) -> Running {
    let int = |path: &[&str]| w.value_at(path).and_then(Value::as_i64);
    let (desired, ready) = if w.kind == "DaemonSet" {
        (
            int(&["status", "desiredNumberScheduled"]),
            int(&["status", "numberReady"]),
        )
    } else {
        (
            int(&["spec", "replicas"]).or(Some(1)),
            int(&["status", "readyReplicas"]),
        )
    };
    match (desired, ready) {
        (Some(0), _) => Running::ScaledToZero,
        (Some(d), Some(r)) if r >= d => Running::Running {
            ready: r,
            desired: d,
        },
        (Some(d), r) if !w.status.is_null() => Running::NotReady {
            ready: r.unwrap_or(0),
            desired: d,
        },
        _ => Running::Unknown,
    }
}

/// The managers whose `managedFields` entries own `finalizer`
/// (`f:metadata` / `f:finalizers` / `v:"<finalizer>"`), newest first.
#[must_use]
pub fn writers_of(managed_fields: &Value, finalizer: &str) -> Vec<String> {
    let key = format!("v:{}", Value::from(finalizer));
    let mut out: Vec<(String, String)> = managed_fields
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| {
            e.pointer("/fieldsV1/f:metadata/f:finalizers")
                .and_then(|f| f.get(&key))
                .is_some()
        })
        .filter_map(|e| {
            Some((
                e.get("time")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                e.get("manager")?.as_str()?.to_string(),
            ))
        })
        .collect();
    out.sort_by(|a, b| b.0.cmp(&a.0));
    let mut names: Vec<String> = Vec::new();
    for (_, m) in out {
        if !names.contains(&m) {
            names.push(m);
        }
    }
    names
}

/// Who last wrote `finalizer` and when (`managedFields`: the newest entry
/// that owns it, and its `time`).
#[must_use]
pub fn last_writer(managed_fields: &Value, finalizer: &str) -> Option<Written> {
    let key = format!("v:{}", Value::from(finalizer));
    managed_fields
        .as_array()?
        .iter()
        .filter(|e| {
            e.pointer("/fieldsV1/f:metadata/f:finalizers")
                .and_then(|f| f.get(&key))
                .is_some()
        })
        .filter_map(|e| {
            Some(Written {
                manager: e.get("manager")?.as_str()?.to_string(),
                at: e.get("time")?.as_str()?.parse().ok()?,
            })
        })
        .max_by_key(|w| w.at)
}

/// A field manager's last write of a finalizer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Written {
    pub manager: String,
    pub at: jiff::Timestamp,
}

/// The manager that owns a finalizer in `managedFields` wrote this object
/// after its deletion started (STUCK-CAUSES C1, C23): the API server lets
/// no new finalizer in once an object is Terminating, so that was another
/// of its fields: the controller is alive and working on the object, and
/// may be mid-cleanup. Removing the finalizer by hand races it.
#[must_use]
pub fn rewritten(finalizer: &str, w: &Written, deleted_at: jiff::Timestamp) -> Option<String> {
    (w.at > deleted_at).then(|| {
        format!(
            "field manager {}, which added finalizer {finalizer}, wrote this object at {}, after its deletion started ({deleted_at}): it is alive and working on it, and may be mid-cleanup; let it finish, or stop it first, before removing the finalizer by hand",
            w.manager, w.at
        )
    })
}

/// Where a finalizer's controller is looked for, taken once for many
/// lookups (a `stuck` report asks for each Terminating object).
#[derive(Clone, Debug, Default)]
pub struct InView<'g> {
    /// The graph's Deployments, StatefulSets and DaemonSets.
    pub workloads: Vec<&'g Object>,
    /// The cloud providers the Nodes name ([`super::cloud::node_providers`]).
    pub providers: Vec<String>,
}

/// What in `graph` runs controllers ([`InView`]).
#[must_use]
pub fn in_view(graph: &OwnershipGraph) -> InView<'_> {
    InView {
        workloads: workloads(graph),
        providers: graph.controllers_seen().providers.clone(),
    }
}

/// The graph's Deployments, StatefulSets and DaemonSets: where a
/// finalizer's controller is looked for.
#[must_use]
pub fn workloads(graph: &OwnershipGraph) -> Vec<&Object> {
    let seen = graph.controllers_seen();
    seen.workloads.iter().map(AsRef::as_ref).collect()
}

/// Who removes `finalizer`: the catalogue's controller, else the writer;
/// its workload among `workloads` ([`workloads`]; by the catalogue's name,
/// else by a writer's name).
#[must_use]
pub fn find(
    workloads: &[&Object],
    finalizer: &str,
    near: Option<&str>,
    writers: Vec<String>,
    whole_cluster: bool,
) -> Remover {
    let cat = catalogued(finalizer);
    let mut names: Vec<(&str, String)> = Vec::new();
    if let Some((_, kind, name)) = cat {
        names.push((kind, name.to_string()));
    }
    for w in &writers {
        // `manager` is often the binary's name; a Deployment of that name.
        names.push(("", w.clone()));
    }
    let workload = workloads
        .iter()
        .filter(|o| {
            names
                .iter()
                .any(|(k, n)| o.name() == n && (k.is_empty() || *k == o.kind))
        })
        // One in the held object's namespace before one of that name
        // elsewhere.
        .min_by_key(|o| o.namespace() != near)
        .map(|o| Workload::of(o));
    Remover {
        finalizer: finalizer.to_string(),
        controller: cat
            .map(|(c, ..)| c.to_string())
            .or_else(|| writers.first().cloned()),
        writers,
        workload,
        whole_cluster,
    }
}

impl Remover {
    /// One line an on-call engineer acts on.
    #[must_use]
    pub fn sentence(&self) -> String {
        let f = &self.finalizer;
        let who = self.controller.as_deref().unwrap_or("its controller");
        let wrote = if self.writers.is_empty() {
            String::new()
        } else {
            format!(" (written by field manager {})", self.writers.join(", "))
        };
        match &self.workload {
            Some(Workload { name, running }) => match running {
                Running::ScaledToZero => {
                    format!(
                        "{who} ({name}) is scaled to 0: nothing will remove {f}{wrote}; scale it up so it finishes its cleanup"
                    )
                }
                Running::NotReady { ready, desired } => format!(
                    "{who} ({name}) is not running: {ready}/{desired} ready; nothing removes {f} until it is{wrote}"
                ),
                Running::Running { ready, desired } => format!(
                    "{who} ({name}) is running {ready}/{desired} and has not removed {f}{wrote}: its cleanup may be failing (see its Events and logs), or it may add the finalizer again"
                ),
                Running::Unknown => {
                    format!("{who} ({name}) is there; whether it runs is not known here{wrote}")
                }
            },
            None if self.controller.is_none() => {
                format!("no controller is known for {f}, and nothing here says which wrote it")
            }
            None if self.whole_cluster => format!(
                "no workload of {who} found in the cluster: the controller of {f} seems uninstalled{wrote}"
            ),
            None => format!("no workload of {who} in this view (look with -A){wrote}"),
        }
    }

    /// Whether its controller is known to run (`Some(true)`), known not to
    /// run (`Some(false)`), or unknown.
    #[must_use]
    pub fn runs(&self) -> Option<bool> {
        match &self.workload {
            Some(Workload { running, .. }) => match running {
                Running::Running { .. } => Some(true),
                Running::ScaledToZero | Running::NotReady { .. } => Some(false),
                Running::Unknown => None,
            },
            None if self.whole_cluster && self.controller.is_some() => Some(false),
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KindTable;

    fn obj(v: serde_json::Value) -> Object {
        serde_json::from_value(v).expect("object")
    }

    #[test]
    fn the_writer_of_a_finalizer_is_read_from_managed_fields() {
        let mf = serde_json::json!([
            {"manager": "kubectl-client-side-apply", "time": "2026-01-01T00:00:00Z", "fieldsV1": {"f:metadata": {"f:labels": {}}}},
            {"manager": "cleanup-operator", "time": "2026-01-01T00:01:00Z", "fieldsV1": {"f:metadata": {"f:finalizers": {".": {}, "v:\"example.com/cleanup\"": {}}}}},
        ]);
        assert_eq!(writers_of(&mf, "example.com/cleanup"), ["cleanup-operator"]);
        assert!(writers_of(&mf, "example.com/other").is_empty());
    }

    /// A finalizer nobody is known for: its writer, when managedFields
    /// name one (a live cluster), stands for its controller; without one
    /// (a scenario has no managedFields) no reader is sent to look for
    /// what is not there.
    #[test]
    fn a_finalizer_with_no_known_controller_names_its_writer_if_any() {
        let g = OwnershipGraph::new(KindTable::builtin());
        let found = |writers: Vec<String>| {
            find(
                &in_view(&g).workloads,
                "example.com/x",
                None,
                writers,
                false,
            )
            .sentence()
        };
        assert_eq!(
            found(Vec::new()),
            "no controller is known for example.com/x, and nothing here says which wrote it"
        );
        assert_eq!(
            found(vec!["x-operator".into()]),
            "no workload of x-operator in this view (look with -A) (written by field manager x-operator)"
        );
    }

    #[test]
    fn a_controller_scaled_to_zero_or_missing_is_said_so() {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        g.upsert(obj(serde_json::json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "argocd-application-controller", "namespace": "argocd", "uid": "s"}, "spec": {"replicas": 0}, "status": {"replicas": 0}})));
        let r = find(
            &in_view(&g).workloads,
            "resources-finalizer.argocd.argoproj.io",
            None,
            Vec::new(),
            true,
        );
        assert_eq!(
            r.sentence(),
            "argocd-application-controller (StatefulSet argocd/argocd-application-controller) is scaled to 0: nothing will remove resources-finalizer.argocd.argoproj.io; scale it up so it finishes its cleanup"
        );
        assert_eq!(r.runs(), Some(false));
        let r = find(
            &in_view(&g).workloads,
            "example.com/cleanup",
            Some("x"),
            vec!["cleanup-operator".into()],
            true,
        );
        assert_eq!(
            r.sentence(),
            "no workload of cleanup-operator found in the cluster: the controller of example.com/cleanup seems uninstalled (written by field manager cleanup-operator)"
        );
        g.upsert(obj(serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "cleanup-operator", "namespace": "ops", "uid": "d"}, "spec": {"replicas": 1}, "status": {"readyReplicas": 1}})));
        let r = find(
            &in_view(&g).workloads,
            "example.com/cleanup",
            Some("x"),
            vec!["cleanup-operator".into()],
            true,
        );
        assert!(
            r.sentence().starts_with("cleanup-operator (Deployment ops/cleanup-operator) is running 1/1 and has not removed example.com/cleanup"),
            "{}",
            r.sentence()
        );
        assert_eq!(r.runs(), Some(true));
    }
}

#[cfg(test)]
mod written_tests {
    use super::*;

    #[test]
    fn the_last_writer_of_a_finalizer_after_the_deletion_is_said_alive() {
        let mf = serde_json::json!([
            {"manager": "kubectl-create", "operation": "Update", "time": "2026-01-01T00:00:00Z",
             "fieldsV1": {"f:metadata": {"f:finalizers": {".": {}, "v:\"example.com/cleanup\"": {}}}}},
            {"manager": "cleanup-operator", "operation": "Update", "time": "2026-01-01T00:05:00Z",
             "fieldsV1": {"f:metadata": {"f:finalizers": {"v:\"example.com/cleanup\"": {}}, "f:labels": {"f:phase": {}}}}},
            {"manager": "other", "operation": "Update", "time": "2026-01-01T00:09:00Z",
             "fieldsV1": {"f:metadata": {"f:labels": {"f:x": {}}}}}
        ]);
        let w = last_writer(&mf, "example.com/cleanup").expect("written");
        assert_eq!(w.manager, "cleanup-operator");
        let deleted: jiff::Timestamp = "2026-01-01T00:01:00Z".parse().expect("time");
        let s = rewritten("example.com/cleanup", &w, deleted).expect("after the deletion");
        assert!(s.starts_with("field manager cleanup-operator, which added finalizer example.com/cleanup, wrote this object at 2026-01-01T00:05:00Z, after its deletion started"), "{s}");
        let later: jiff::Timestamp = "2026-01-01T00:06:00Z".parse().expect("time");
        assert_eq!(rewritten("example.com/cleanup", &w, later), None);
        assert_eq!(last_writer(&mf, "example.com/none"), None);
    }
}
