//! The finalizer catalogue: what a finalizer means, who adds it, who removes
//! it and what removing it by hand skips (GC-SEMANTICS section L).

use serde::Serialize;

/// What ownerscope knows about one finalizer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FinalizerInfo {
    pub name: String,
    /// Known to Kubernetes itself, or a third party's.
    pub origin: Origin,
    /// What it is for.
    pub meaning: String,
    /// Who is expected to remove it, and when.
    pub removed_by: String,
    /// What removing it by hand skips.
    pub protects: String,
}

/// One finalizer, and what in view keeps it on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Held {
    pub finalizer: String,
    /// What holds it, in one sentence.
    pub by: String,
    /// The fix, safest first, with what the quick fix skips.
    pub fix: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Origin {
    /// Added and removed by the API server or the garbage collector.
    GarbageCollector,
    /// A built-in Kubernetes controller.
    Kubernetes,
    /// A well-known add-on.
    KnownThirdParty,
    /// Not in the catalogue: domain-qualified names are someone's
    /// controller.
    Unknown,
}

/// (name, origin, meaning, removed by, protects)
const CATALOGUE: &[(&str, Origin, &str, &str, &str)] = &[
    (
        "foregroundDeletion",
        Origin::GarbageCollector,
        "deleted with propagationPolicy=Foreground: the object waits until every dependent that blocks it (blockOwnerDeletion=true) is gone",
        "the garbage collector, once no blocking dependent remains",
        "the ordering guarantee of a foreground delete: removing it lets the owner go while its dependents still exist; the GC then deletes them in the background",
    ),
    (
        "orphan",
        Origin::GarbageCollector,
        "deleted with propagationPolicy=Orphan (or the orphan default of Jobs and ReplicationControllers): the GC strips this owner's references from its dependents first",
        "the garbage collector, after it removed the owner references from every dependent it knows",
        "the orphaning: dependents keep a reference to a gone owner and the GC then deletes them as dangling",
    ),
    (
        "kubernetes",
        Origin::Kubernetes,
        "namespace content cleanup (spec.finalizers): the namespace controller deletes everything in the namespace first",
        "the namespace controller, once all content is gone (through /finalize)",
        "the cleanup of the namespace's content: objects may be left behind in a namespace that no longer exists",
    ),
    (
        "kubernetes.io/pvc-protection",
        Origin::Kubernetes,
        "the claim is in use by a scheduled pod; it must not go while a pod can still mount it",
        "the pvc-protection controller, once no scheduled pod uses the claim",
        "data safety: a pod still using the volume loses it",
    ),
    (
        "kubernetes.io/pv-protection",
        Origin::Kubernetes,
        "the volume is still Bound to a claim",
        "the pv-protection controller, once the volume is no longer Bound",
        "data safety: the volume goes while a claim is bound to it",
    ),
    (
        "kubernetes.io/pv-controller",
        Origin::Kubernetes,
        "a dynamically provisioned in-tree volume whose backing storage must be deleted (reclaim policy Delete)",
        "the PV controller, after the backing storage is deleted",
        "the deletion of the backing storage: the disk is leaked",
    ),
    (
        "external-provisioner.volume.kubernetes.io/finalizer",
        Origin::Kubernetes,
        "a CSI volume whose backing storage must be deleted",
        "the CSI external-provisioner, after the volume is deleted",
        "the deletion of the backing storage: the disk is leaked",
    ),
    (
        "batch.kubernetes.io/job-tracking",
        Origin::Kubernetes,
        "the Job controller has not yet counted this pod in the Job's status",
        "the Job controller, once the pod is counted, has no controller, or its Job is gone or finished",
        "the Job's accounting: the Job may miscount succeeded and failed pods",
    ),
    (
        // A prefix: `external-attacher/<driver>`, the CSI driver's name
        // with `.` and `/` written `-` (FINALIZERS.md, generic patterns).
        "external-attacher/",
        Origin::Kubernetes,
        "a CSI volume, or its attachment to a node, that must be detached first",
        "the CSI driver's external-attacher (a sidecar of the driver's controller), once the volume is detached from the node",
        "the detach: the disk stays attached to the node, or is leaked",
    ),
    (
        "service.kubernetes.io/load-balancer-cleanup",
        Origin::Kubernetes,
        "a Service of type LoadBalancer whose cloud load balancer must be deleted",
        "the cloud provider's service controller, after the load balancer is deleted (stuck if there is no cloud controller)",
        "the deletion of the cloud load balancer: it is leaked and keeps costing",
    ),
    (
        "customresourcecleanup.apiextensions.k8s.io",
        Origin::Kubernetes,
        "a CustomResourceDefinition being deleted: every instance must go first",
        "the CRD finalizer controller, after all instances are gone",
        "the deletion of the instances: they are left in storage",
    ),
    (
        "snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection",
        Origin::KnownThirdParty,
        "the snapshot is the source of a volume being restored",
        "the snapshot controller, once no restore uses it",
        "an in-progress restore",
    ),
    (
        "snapshot.storage.kubernetes.io/volumesnapshot-bound-protection",
        Origin::KnownThirdParty,
        "the snapshot is bound to its content",
        "the snapshot controller, once unbound",
        "the binding between snapshot and its content",
    ),
    (
        "snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection",
        Origin::KnownThirdParty,
        "the snapshot content is bound to a snapshot",
        "the snapshot controller, once unbound",
        "the binding between snapshot and its content",
    ),
    (
        "snapshot.storage.kubernetes.io/pvc-as-source-protection",
        Origin::KnownThirdParty,
        "the claim is the source of a snapshot being taken",
        "the snapshot controller, once the snapshot is taken",
        "an in-progress snapshot",
    ),
    (
        "resource.kubernetes.io/delete-protection",
        Origin::Kubernetes,
        "a dynamic resource claim that is allocated",
        "the resourceclaim controller, once it is unreserved and deallocated",
        "the deallocation of the device",
    ),
    (
        "networking.k8s.io/service-cidr-finalizer",
        Origin::Kubernetes,
        "IP addresses in this ServiceCIDR are still allocated",
        "the servicecidr controller, once no IPAddress depends on the range",
        "address allocations that still use the range",
    ),
    (
        "resources-finalizer.argocd.argoproj.io",
        Origin::KnownThirdParty,
        "an Argo CD Application whose deployed resources must be deleted (cascading)",
        "the Argo CD application controller, after it deleted the app's resources (stuck if Argo CD is gone)",
        "the deletion of everything the Application deployed: it is left running",
    ),
    (
        "ingress.k8s.aws/resources",
        Origin::KnownThirdParty,
        "an Ingress whose AWS load balancer must be deleted",
        "the AWS Load Balancer Controller (stuck if it was uninstalled)",
        "the deletion of the AWS load balancer: it is leaked",
    ),
    (
        "networking.gke.io/ingress-finalizer-V2",
        Origin::KnownThirdParty,
        "an Ingress whose Google Cloud load balancer must be deleted",
        "the GKE ingress controller",
        "the deletion of the Google Cloud load balancer: it is leaked",
    ),
];

/// How the catalogue says when a finalizer stays: `(stuck if it is not
/// running)`, at the end of who removes it.
const STUCK_IF: &str = " (stuck if ";

impl FinalizerInfo {
    /// Who removes it, without the catalogue's `(stuck if ...)`: for where
    /// a line beside it says whether that controller runs (a simulated
    /// controller, a workload found), which the clause would only guess.
    #[must_use]
    pub fn removed_by_alone(&self) -> &str {
        self.removed_by
            .split_once(STUCK_IF)
            .map_or(self.removed_by.as_str(), |(who, _)| who)
    }

    /// Who removes it: alone where whether its controller runs is said
    /// beside (`known`), else with when it stays stuck.
    #[must_use]
    pub fn removed_by_where(&self, known: bool) -> &str {
        if known {
            self.removed_by_alone()
        } else {
            &self.removed_by
        }
    }
}

/// Looks a finalizer up; unknown names get a generic entry naming the
/// domain that owns them.
#[must_use]
pub fn describe(name: &str) -> FinalizerInfo {
    if let Some(&(n, origin, meaning, removed_by, protects)) = CATALOGUE
        .iter()
        .find(|e| e.0 == name || (e.0.ends_with('/') && name.starts_with(e.0)))
    {
        return FinalizerInfo {
            name: if n.ends_with('/') { name } else { n }.to_string(),
            origin,
            meaning: meaning.to_string(),
            removed_by: removed_by.to_string(),
            protects: protects.to_string(),
        };
    }
    let (meaning, removed_by) = match name.split_once('/') {
        Some((domain, _)) => (
            format!(
                "a third-party finalizer of {domain}: some cleanup its controller does before the object may go"
            ),
            format!(
                "the controller that added {name}, once its cleanup is done (stuck if it is not running)"
            ),
        ),
        None => (
            "a finalizer without a domain: some controller's cleanup".to_string(),
            "the controller that added it (stuck if it is not running)".to_string(),
        ),
    };
    FinalizerInfo {
        name: name.to_string(),
        origin: Origin::Unknown,
        meaning,
        removed_by,
        protects:
            "whatever cleanup that controller does (external resources, dependent objects, data)"
                .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_unknown() {
        assert_eq!(
            describe("foregroundDeletion").origin,
            Origin::GarbageCollector
        );
        assert!(
            describe("kubernetes.io/pvc-protection")
                .removed_by
                .contains("pvc-protection controller")
        );
        let d = describe("example.com/hold");
        assert_eq!(d.origin, Origin::Unknown);
        assert!(d.removed_by.contains("example.com"));
    }

    #[test]
    fn the_stuck_clause_goes_only_where_the_state_is_said() {
        let d = describe("example.com/hold");
        assert_eq!(
            d.removed_by_where(false),
            "the controller that added example.com/hold, once its cleanup is done (stuck if it is not running)"
        );
        assert_eq!(
            d.removed_by_where(true),
            "the controller that added example.com/hold, once its cleanup is done"
        );
        assert_eq!(
            describe("hold").removed_by_where(true),
            "the controller that added it"
        );
        // Every entry of the catalogue: the clause, when there is one, is
        // its last words and goes whole.
        for e in CATALOGUE {
            let d = describe(e.0);
            assert!(!d.removed_by_alone().contains("stuck"), "{}", e.0);
            assert!(!d.removed_by_alone().is_empty(), "{}", e.0);
            if d.removed_by.contains("stuck") {
                assert!(d.removed_by.ends_with(')'), "{}", e.0);
            } else {
                assert_eq!(d.removed_by_alone(), d.removed_by, "{}", e.0);
            }
        }
        assert_eq!(
            describe("service.kubernetes.io/load-balancer-cleanup").removed_by_alone(),
            "the cloud provider's service controller, after the load balancer is deleted"
        );
    }
}
