//! Evidence read beside the graph, added to a diagnosis: who removes each
//! finalizer and whether it runs, the webhooks that refuse its removal,
//! finalizers written again after the deletion started.

use super::*;

impl Diagnosis {
    /// Looks for the controller of each third-party finalizer on this
    /// Terminating object ([`super::remover`]): `writers` maps a finalizer
    /// to the field managers that wrote it (`managedFields`, read for this
    /// object), `whole_cluster` says whether every namespace's workloads
    /// are in `graph`. The causes then say whether it runs.
    pub fn add_removers(
        &mut self,
        graph: &OwnershipGraph,
        writers: &BTreeMap<String, Vec<String>>,
        whole_cluster: bool,
    ) {
        if self.terminating_since.is_none() {
            return;
        }
        self.add_removers_among(
            graph,
            &crate::model::remover::in_view(graph),
            writers,
            whole_cluster,
        );
    }

    /// As [`Self::add_removers`], among workloads taken once. A Service's
    /// load-balancer cleanup waits on the cloud's service controller,
    /// looked for the same way (STUCK-CAUSES C17).
    pub fn add_removers_among(
        &mut self,
        graph: &OwnershipGraph,
        seen: &crate::model::remover::InView<'_>,
        writers: &BTreeMap<String, Vec<String>>,
        whole_cluster: bool,
    ) {
        if self.terminating_since.is_none() {
            return;
        }
        if let Some(h) = graph.get(&self.object.uid).and_then(|o| {
            crate::model::cloud::held(o, &seen.workloads, &seen.providers, whole_cluster)
        }) {
            self.held.retain(|x| x.finalizer != h.finalizer);
            self.held.push(h);
        }
        self.removers = self
            .finalizers
            .iter()
            .filter(|f| {
                // A simulated controller that is offline is looked for too
                // when its workload is named (`writers`).
                (f.controller_online.is_none()
                    || (f.controller_online == Some(false) && writers.contains_key(&f.info.name)))
                    && matches!(f.info.origin, Origin::KnownThirdParty | Origin::Unknown)
            })
            .map(|f| {
                crate::model::remover::find(
                    &seen.workloads,
                    &f.info.name,
                    self.object.namespace.as_deref(),
                    writers.get(&f.info.name).cloned().unwrap_or_default(),
                    whole_cluster,
                )
            })
            .collect();
        self.causes = causes(self);
    }

    /// Looks again at the admission webhooks holding this object, with
    /// `evidence` (a webhook Service `namespace/name` -> whether anything
    /// answers, read for this object) and, in the simulator, its pods taken
    /// as ready (`pods_ready`).
    pub fn add_webhooks(
        &mut self,
        graph: &OwnershipGraph,
        evidence: &BTreeMap<String, crate::model::webhooks::Backend>,
        pods_ready: bool,
    ) {
        let Some(obj) = graph.get(&self.object.uid) else {
            return;
        };
        self.webhooks = crate::model::webhooks::holding(graph, obj, evidence, pods_ready);
        self.causes = causes(self);
    }

    /// STUCK-CAUSES C23: each finalizer's last write (`managedFields`),
    /// when it came after the deletion started, is said after the causes.
    pub fn add_rewrites(&mut self, last: &BTreeMap<String, crate::model::remover::Written>) {
        let Some(deleted_at) = self.terminating_since else {
            return;
        };
        self.rewrites = last
            .iter()
            .filter_map(|(f, w)| crate::model::remover::rewritten(f, w, deleted_at))
            .collect();
        self.causes = causes(self);
    }

    /// The object's Events read beside the graph (a live source's, for
    /// this object only): its newest Warnings are quoted (STUCK-CAUSES C2).
    pub fn add_events(&mut self, events: &[Object], now: Timestamp) {
        self.events = crate::model::events::newest_warnings(events.iter(), now);
        self.causes = causes(self);
    }

    /// Evidence that could not be read, and why: said with the answer.
    pub fn add_unread(&mut self, missing: &[String]) {
        self.unread = missing.to_vec();
    }

    /// The removers were looked for by the names of their workloads (a
    /// scenario's controllers), not by who wrote the finalizers: no field
    /// manager is quoted.
    pub fn removers_named_not_written(&mut self) {
        for r in &mut self.removers {
            r.writers.clear();
        }
        self.causes = causes(self);
    }
}
