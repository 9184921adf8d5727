//! The kubelet and the pod GC in a preview (GC-SEMANTICS R76, R77;
//! STUCK-CAUSES C8): a pod's grace period is ended only by the kubelet of a
//! Ready node; the pods of a Node that is gone (deleted by this plan, or
//! already) are force-deleted by the pod GC.

use super::{GRACE, Id, Kind, Planner, State};
use crate::model::nodes::{self, NodeHealth};
use crate::model::object::Object;

/// A core/v1 Node.
pub(super) fn is_node(o: &Object) -> bool {
    o.kind == "Node" && o.group().is_empty()
}

impl Planner<'_> {
    /// The node `pod` is bound to, as this plan leaves it.
    pub(super) fn node_health(&self, pod: &Object) -> NodeHealth {
        let h = nodes::of_pod(self.graph, pod);
        match &h {
            NodeHealth::Ready { node } | NodeHealth::NotReady { node, .. } => {
                let gone = self
                    .graph
                    .find("", "Node", None, node)
                    .is_some_and(|n| self.is_gone(n.uid()));
                if gone {
                    NodeHealth::Gone { node: node.clone() }
                } else {
                    h
                }
            }
            _ => h,
        }
    }

    /// Whether the kubelet ends this pod's grace period.
    pub(super) fn kubelet_confirms(&self, pod: &Object) -> bool {
        self.node_health(pod).confirms()
    }

    /// The pod GC's round: every pod in the plan bound to a Node that is
    /// gone is deleted with grace period 0 (finalizers still hold it).
    pub(super) fn pod_gc(&mut self) -> bool {
        let doomed: Vec<Id> = self.ids_where(|i| {
            i.kind.is(Kind::POD)
                && !matches!(i.state, State::Gone(_))
                && (i.state == State::Alive || i.has_finalizer(GRACE))
                && i.obj.is_scheduled()
        });
        let mut changed = false;
        for id in doomed {
            if matches!(
                self.node_health(&self.items[id].obj),
                NodeHealth::Gone { .. }
            ) {
                self.force_delete(id);
                changed = true;
            }
        }
        changed
    }

    /// DELETE with grace period 0: no kubelet waited for.
    pub(super) fn force_delete(&mut self, id: Id) {
        if self.items[id].state == State::Alive {
            self.delete_with(id, None, true);
        } else {
            self.remove_finalizer(id, GRACE);
            self.gone_if_done(id);
        }
    }
}
