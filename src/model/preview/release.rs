//! The finalizers other controllers and kubelets release (R58, R63, R64,
//! R73, R75, R76), and the PV controller's reclaim.

use super::*;

impl Planner<'_> {
    pub(super) fn releasable(&self, obj: &Object, f: &str) -> bool {
        match f {
            GRACE => self.kubelet_confirms(obj),
            JOB_TRACKING => true,
            PVC_PROTECTION => self.pvc_users(obj).is_empty(),
            PV_PROTECTION => {
                // R64: released once not Bound; the PV controller releases a
                // volume whose claim is gone.
                let claim_gone = match (
                    obj.str_at(&["spec", "claimRef", "namespace"]),
                    obj.str_at(&["spec", "claimRef", "name"]),
                ) {
                    (Some(ns), Some(name)) => self
                        .graph
                        .find("", "PersistentVolumeClaim", Some(ns), name)
                        .is_none_or(|c| self.is_gone(c.uid())),
                    _ => false,
                };
                obj.str_at(&["status", "phase"]) != Some("Bound") || claim_gone
            }
            NAMESPACE_CONTENT => {
                let ns = obj.name();
                self.graph.kinds().discovery_failing().is_empty()
                    && !self.items.iter().any(|i| {
                        i.obj.namespace() == Some(ns) && !matches!(i.state, State::Gone(_))
                    })
            }
            CRD_CLEANUP => crd_instances(self.graph, obj)
                .into_iter()
                .all(|u| self.is_gone(u)),
            FOREGROUND | ORPHAN => false,
            _ => self.controllers.get(f) == Some(&true) && self.refusing_webhook(obj).is_none(),
        }
    }

    /// R63: scheduled pods that use a claim.
    pub(super) fn pvc_users(&self, pvc: &Object) -> Vec<String> {
        let mut pods: Vec<&Object> = self
            .graph
            .objects()
            .filter(|p| p.is_pod() && p.namespace() == pvc.namespace())
            .filter_map(|p| self.current(p.uid()))
            .filter(|p| p.holds_claim(pvc.name()))
            .collect();
        pods.sort_by_key(|p| p.name().to_string());
        pods.iter().map(|p| name_of(p)).collect()
    }

    /// Finalizers controllers and the kubelet release (GC-owned ones are
    /// handled by the GC passes); the namespace controller's content
    /// deletion.
    pub(super) fn release_finalizers(&mut self, id: Id) -> bool {
        let obj = self.items[id].obj.clone();
        let mut changed = false;
        for f in &self.items[id].finalizers.clone() {
            if f != ORPHAN && f != FOREGROUND && self.releasable(&obj, f) {
                self.remove_finalizer(id, f);
                changed = true;
            }
        }
        if is_namespace(&obj) {
            changed |= self.delete_namespace_content(obj.name());
        }
        changed | self.gone_if_done(id)
    }

    /// The PV controller: a volume whose claim is gone is Released; with
    /// reclaim policy Delete it deletes the PersistentVolume.
    pub(super) fn reclaim(&mut self, id: Id) -> bool {
        let pv = self.items[id].obj.clone();
        let claim_gone = match (
            pv.str_at(&["spec", "claimRef", "namespace"]),
            pv.str_at(&["spec", "claimRef", "name"]),
        ) {
            (Some(ns), Some(name)) => self
                .graph
                .find("", "PersistentVolumeClaim", Some(ns), name)
                .is_none_or(|c| self.is_gone(c.uid())),
            _ => false,
        };
        let delete = pv.str_at(&["spec", "persistentVolumeReclaimPolicy"]) == Some("Delete");
        if claim_gone && delete && pv.str_at(&["status", "phase"]) == Some("Bound") {
            self.delete(id, Some(Policy::Background));
            return true;
        }
        false
    }
}
