//! A Service held by `service.kubernetes.io/load-balancer-cleanup`
//! (STUCK-CAUSES C17; FINALIZERS.md: the cloud service controller,
//! `kubernetes/cloud-provider:service/helpers/helper.go`).
//!
//! The cloud provider's service controller adds the finalizer to a Service
//! of type LoadBalancer and removes it once the cloud load balancer is
//! deleted (`kubernetes/cloud-provider:controllers/service/controller.go`).
//! It runs in a cloud-controller-manager: a workload in the cluster, or on
//! a managed control plane out of sight. With none, nothing ever removes
//! the finalizer. Whether one is in sight: a workload named
//! `*cloud-controller-manager*`, else Nodes whose `spec.providerID` names a
//! cloud (set by a cloud's node controller).

use super::finalizers::Held;
use super::graph::OwnershipGraph;
use super::object::Object;
use super::remover::{Running, Workload};

pub const LOAD_BALANCER_CLEANUP: &str = "service.kubernetes.io/load-balancer-cleanup";

/// The providers the Nodes in view name (`aws`, `gce`, `azure`, ...).
#[must_use]
pub fn node_providers(graph: &OwnershipGraph) -> Vec<String> {
    let mut out: Vec<String> = graph
        .nodes()
        .filter_map(|n| n.str_at(&["spec", "providerID"]))
        .filter_map(|p| p.split_once("://").map(|(scheme, _)| scheme.to_string()))
        .filter(|s| !s.is_empty())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The cloud-controller-manager among `workloads`, and whether it runs.
#[must_use]
pub fn cloud_controller(workloads: &[&Object]) -> Option<Workload> {
    workloads
        .iter()
        .find(|w| w.name().contains("cloud-controller-manager"))
        .map(|w| Workload::of(w))
}

/// Whether the cloud's service controller is known to run (`Some(true)`),
/// known not to (`Some(false)`: a workload not running, or none in a whole
/// cluster whose Nodes name no cloud), or unknown (out of sight).
#[must_use]
pub fn controller_runs(
    ccm: Option<&Workload>,
    providers: &[String],
    whole_cluster: bool,
) -> Option<bool> {
    match ccm.map(|w| &w.running) {
        Some(Running::Running { .. }) => Some(true),
        Some(Running::ScaledToZero | Running::NotReady { .. }) => Some(false),
        Some(Running::Unknown) => None,
        None if providers.is_empty() && whole_cluster => Some(false),
        None => None,
    }
}

/// What holds `load-balancer-cleanup` on a Terminating Service, given the
/// workloads in view, the providers the Nodes name, and whether every
/// namespace is in view.
#[must_use]
pub fn held(
    svc: &Object,
    workloads: &[&Object],
    providers: &[String],
    whole_cluster: bool,
) -> Option<Held> {
    let f = LOAD_BALANCER_CLEANUP;
    let held = svc.kind == "Service"
        && svc.group().is_empty()
        && svc.is_terminating()
        && svc.has_finalizer(f);
    if !held {
        return None;
    }
    let who = format!("Service/{}", svc.name());
    let ccm = cloud_controller(workloads);
    let not_lb = match svc.str_at(&["spec", "type"]) {
        Some(t) if t != "LoadBalancer" => format!(
            " ({who} is of type {t} now: the finalizer stayed from when it was a LoadBalancer, or was templated on; the service controller still has to see it)"
        ),
        _ => String::new(),
    };
    let leak = "Removing the finalizer by hand leaks the cloud load balancer, which keeps costing";
    let (by, fix) = match (&ccm, providers.is_empty()) {
        (Some(Workload { name, running }), _) => match running {
            Running::Running { ready, desired } => (
                format!(
                    "the cloud service controller ({name}) is running {ready}/{desired} and has not removed {f}: deleting the load balancer is failing (see the Service's Events: DeleteLoadBalancerFailed){not_lb}"
                ),
                format!(
                    "fix what keeps the controller from deleting the load balancer (credentials, quota, the load balancer already gone); it then removes {f}. {leak}"
                ),
            ),
            Running::ScaledToZero | Running::NotReady { .. } => (
                format!(
                    "the cloud service controller ({name}) is not running: nothing deletes the load balancer or removes {f}{not_lb}"
                ),
                format!(
                    "bring {name} back; it deletes the load balancer, then removes {f}. {leak}"
                ),
            ),
            Running::Unknown => (
                format!(
                    "the cloud service controller ({name}) should delete the load balancer, then remove {f}; whether it runs is not known here{not_lb}"
                ),
                format!("check that {name} runs; it removes {f}. {leak}"),
            ),
        },
        (None, false) => (
            format!(
                "no cloud-controller-manager runs in the cluster, but the nodes are {} machines: the provider may run the service controller out of sight (a managed control plane); the Service's Events (DeletingLoadBalancer, DeleteLoadBalancerFailed) say whether it tries{not_lb}",
                providers.join(", ")
            ),
            format!(
                "read the Service's Events; if deleting the load balancer fails, fix that (credentials, quota) with the provider. {leak}"
            ),
        ),
        (None, true) if whole_cluster => (
            format!(
                "no cloud controller in sight: no cloud-controller-manager workload, and no Node names a cloud provider: nothing deletes a load balancer or removes {f}{not_lb}"
            ),
            format!(
                "if a cloud load balancer was made for {who}, bring back the controller that made it, or delete the load balancer in the cloud; then remove {f}. If this cluster never had a cloud (bare metal, a test cluster), there is no load balancer to leak: removing {f} is the fix"
            ),
        ),
        (None, true) => (
            format!(
                "the cloud service controller should delete the load balancer, then remove {f}; no cloud-controller-manager in this view (look with -A){not_lb}"
            ),
            format!("look for the cloud controller with -A. {leak}"),
        ),
    };
    Some(Held {
        finalizer: f.into(),
        by,
        fix,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KindTable;

    fn obj(v: serde_json::Value) -> Object {
        serde_json::from_value(v).expect("object")
    }

    fn service() -> Object {
        obj(serde_json::json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "web", "namespace": "shop", "uid": "s",
                         "deletionTimestamp": "2026-01-01T00:00:00Z",
                         "finalizers": [LOAD_BALANCER_CLEANUP]},
            "spec": {"type": "LoadBalancer"}
        }))
    }

    #[test]
    fn a_load_balancer_cleanup_names_the_cloud_controller_or_its_absence() {
        let svc = service();
        let mut g = OwnershipGraph::new(KindTable::builtin());
        // Nothing in sight, the whole cluster in view: said, and the fix
        // for a cluster that never had a cloud.
        let h = held(&svc, &[], &[], true).expect("held");
        assert!(h.by.starts_with("no cloud controller in sight"), "{}", h.by);
        assert!(
            h.fix
                .contains("removing service.kubernetes.io/load-balancer-cleanup is the fix")
        );
        // Nodes of a cloud: its service controller may run out of sight.
        g.upsert(obj(serde_json::json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "n1", "uid": "n1"}, "spec": {"providerID": "aws:///eu-west-1a/i-0abc"}})));
        let providers = node_providers(&g);
        assert_eq!(providers, ["aws"]);
        let h = held(&svc, &[], &providers, true).expect("held");
        assert!(h.by.contains("the nodes are aws machines"), "{}", h.by);
        // A cloud-controller-manager scaled to 0.
        let ccm = obj(
            serde_json::json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": "aws-cloud-controller-manager", "namespace": "kube-system", "uid": "d"},
            "status": {"desiredNumberScheduled": 0}}),
        );
        let h = held(&svc, &[&ccm], &providers, true).expect("held");
        assert!(
            h.by.starts_with("the cloud service controller (DaemonSet kube-system/aws-cloud-controller-manager) is not running"),
            "{}",
            h.by
        );
        // A Service that is no longer a LoadBalancer keeps the finalizer.
        let mut cluster_ip = service();
        cluster_ip.spec = serde_json::json!({"type": "ClusterIP"}).into();
        let h = held(&cluster_ip, &[], &[], false).expect("held");
        assert!(h.by.contains("is of type ClusterIP now"), "{}", h.by);
        // Not Terminating: nothing holds it yet.
        let mut live = service();
        live.metadata.deletion_timestamp = None;
        assert_eq!(held(&live, &[], &[], true), None);
    }
}
