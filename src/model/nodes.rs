//! Whether a pod's node can finish its deletion.
//!
//! A graceful pod deletion is completed only by the kubelet of
//! `spec.nodeName` (GC-SEMANTICS R76). A node whose kubelet does not report
//! (Ready `Unknown` or `False`) never confirms: the pod stays Terminating,
//! with no finalizer, for ever (STUCK-CAUSES C8). A pod bound to a Node
//! object that no longer exists is force-deleted by the pod GC after a
//! quarantine (R77); deleting the Node object is the documented fix.

use jiff::Timestamp;
use serde::Serialize;
use serde_json::Value;

use super::graph::OwnershipGraph;
use super::object::Object;

/// How long kube-controller-manager's pod GC waits before it force-deletes
/// the pods of a deleted Node (upstream's `quarantineTime`, 40 s; seen 45-47
/// s on 1.20 with the GC's 20 s period).
pub const POD_GC_QUARANTINE_SECS: u64 = 40;

/// A node as a pod's deletion sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum NodeHealth {
    /// Not bound to a node: a DELETE removes it at once (R15).
    Unscheduled,
    /// The Node's Ready condition is True: its kubelet ends the pod.
    Ready { node: String },
    /// The Node is there but its kubelet is not reporting: Ready `False`,
    /// `Unknown` (no status for 40 s), or no Ready condition at all (a
    /// kubelet that never posted one).
    NotReady {
        node: String,
        /// `False`, `Unknown`, or `missing`.
        status: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        /// When Ready last changed.
        #[serde(skip_serializing_if = "Option::is_none")]
        since: Option<Timestamp>,
    },
    /// The Node object is gone (and nodes are in view): the pod GC
    /// force-deletes the pod (R77).
    Gone { node: String },
    /// Nodes are not part of this view (a namespace snapshot, a scenario
    /// without Node objects): the node is taken to have a working kubelet.
    Unseen { node: String },
}

impl NodeHealth {
    /// Whether the kubelet will confirm a graceful deletion.
    #[must_use]
    pub fn confirms(&self) -> bool {
        matches!(self, NodeHealth::Ready { .. } | NodeHealth::Unseen { .. })
    }

    /// The node's name, when the pod is bound to one.
    #[must_use]
    pub fn node(&self) -> Option<&str> {
        match self {
            NodeHealth::Unscheduled => None,
            NodeHealth::Ready { node }
            | NodeHealth::NotReady { node, .. }
            | NodeHealth::Gone { node }
            | NodeHealth::Unseen { node } => Some(node),
        }
    }
}

/// The Ready condition of a Node: status, reason, message, since when.
fn ready_condition(node: &Object) -> Option<&Value> {
    node.value_at(&["status", "conditions"])?
        .as_array()?
        .iter()
        .find(|c| c.get("type").and_then(Value::as_str) == Some("Ready"))
}

/// The health of a Node object. One read without its status (a list of
/// metadata only) says nothing of it: its kubelet is taken to work.
#[must_use]
pub fn of_node(node: &Object) -> NodeHealth {
    let name = node.name().to_string();
    if node
        .status
        .as_object()
        .is_none_or(serde_json::Map::is_empty)
    {
        return NodeHealth::Unseen { node: name };
    }
    let Some(c) = ready_condition(node) else {
        return NodeHealth::NotReady {
            node: name,
            status: "missing".into(),
            reason: None,
            message: Some("the kubelet never posted a status".into()),
            since: None,
        };
    };
    let text = |k: &str| c.get(k).and_then(Value::as_str).map(str::to_string);
    match text("status").as_deref() {
        Some("True") => NodeHealth::Ready { node: name },
        status => NodeHealth::NotReady {
            node: name,
            status: status.unwrap_or("missing").to_string(),
            reason: text("reason"),
            message: text("message"),
            since: text("lastTransitionTime").and_then(|t| t.parse().ok()),
        },
    }
}

/// The health of the node a pod is bound to.
#[must_use]
pub fn of_pod(graph: &OwnershipGraph, pod: &Object) -> NodeHealth {
    let node = node_name(pod);
    if node.is_empty() {
        return NodeHealth::Unscheduled;
    }
    match graph.find("", "Node", None, &node) {
        Some(n) => of_node(n),
        None if graph.has_nodes() => NodeHealth::Gone { node },
        None => NodeHealth::Unseen { node },
    }
}

/// The node a pod is bound to when its Node is gone (what [`of_pod`]
/// calls [`NodeHealth::Gone`]), without reading the health of a Node that
/// is there: asked of every pod of a load, whose nodes are nearly all
/// there.
#[must_use]
pub fn gone_node(graph: &OwnershipGraph, pod: &Object) -> Option<String> {
    let node = node_name(pod);
    (!node.is_empty() && graph.has_nodes() && graph.find("", "Node", None, &node).is_none())
        .then_some(node)
}

/// `spec.nodeName`, empty if unset; read without making the pod's spec a
/// value.
fn node_name(pod: &Object) -> String {
    match pod.peek_at(&["spec", "nodeName"]) {
        Some(Value::String(node)) => node,
        _ => String::new(),
    }
}

/// A pod whose graceful deletion no kubelet will finish: past its grace
/// period (or in it) on a node that is not Ready, or on a Node that is gone.
#[must_use]
pub fn stranded(graph: &OwnershipGraph, pod: &Object) -> Option<NodeHealth> {
    if !pod.is_pod() || !pod.is_terminating() {
        return None;
    }
    let h = of_pod(graph, pod);
    (!h.confirms() && h != NodeHealth::Unscheduled).then_some(h)
}

/// The namespace of the kubelets' heartbeats.
pub const NODE_LEASES: &str = "kube-node-lease";

/// When the kubelet of `node` last renewed its Lease (its heartbeat every
/// 10 s), when that Lease is in view with its spec.
#[must_use]
pub fn lease_renewed(graph: &OwnershipGraph, node: &str) -> Option<Timestamp> {
    graph
        .find("coordination.k8s.io", "Lease", Some(NODE_LEASES), node)?
        .str_at(&["spec", "renewTime"])?
        .parse()
        .ok()
}

/// The sentence and the fixes, safe first, for a pod stranded on `health`
/// (STUCK-CAUSES C8), and what a force delete risks: `who` is `Pod/web-0`,
/// `now` to say for how long, `lease` when the node's kubelet last renewed
/// its Lease, when known.
#[must_use]
pub fn explain(
    who: &str,
    health: &NodeHealth,
    now: Timestamp,
    lease: Option<Timestamp>,
) -> Vec<String> {
    match health {
        NodeHealth::NotReady {
            node,
            status,
            reason,
            message,
            since,
        } => {
            // Both are in the past; a clock behind the node's says
            // nothing rather than `for in 5s`.
            let how_long = since
                .map(|t| now.duration_since(t).as_secs())
                .filter(|s| *s >= 0)
                .map(|s| format!(" for {}", super::badges::human_duration(s)))
                .unwrap_or_default();
            let heartbeat = lease
                .map(|t| {
                    let s = now.duration_since(t).as_secs();
                    let when = if s <= 0 {
                        "just now".to_string()
                    } else {
                        super::badges::relative(s)
                    };
                    format!("; its Lease {NODE_LEASES}/{node} was last renewed {when}")
                })
                .unwrap_or_default();
            let why = match (reason, message) {
                (Some(r), Some(m)) => format!(" ({r}: {m})"),
                (Some(r), None) => format!(" ({r})"),
                (None, Some(m)) => format!(" ({m})"),
                (None, None) => String::new(),
            };
            vec![
                format!(
                    "{who} waits for the kubelet of Node/{node}, which is not reporting: Ready is {status}{how_long}{why}{heartbeat}; no one else ends a graceful pod deletion"
                ),
                format!(
                    "fix, safest first: bring Node/{node} back; or, once the machine is surely gone, delete the Node object (the pod GC then force-deletes its pods within a minute); or taint it node.kubernetes.io/out-of-service=nodeshutdown:NoExecute"
                ),
                format!(
                    "a force delete (grace period 0) skips the kubelet: if Node/{node} still runs the pod, a StatefulSet identity can run twice and a volume can be attached twice"
                ),
            ]
        }
        NodeHealth::Gone { node } => vec![format!(
            "{who} is bound to Node/{node}, which no longer exists: the pod GC force-deletes it about {POD_GC_QUARANTINE_SECS}s after the Node went"
        )],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KindTable;

    fn obj(v: serde_json::Value) -> Object {
        serde_json::from_value(v).expect("object")
    }

    fn node(name: &str, ready: Option<&str>) -> Object {
        let conditions = ready.map_or(serde_json::json!([{"type": "MemoryPressure", "status": "Unknown"}]), |s| {
            serde_json::json!([{"type": "Ready", "status": s, "reason": "NodeStatusUnknown", "message": "Kubelet stopped posting node status.", "lastTransitionTime": "2026-01-01T00:00:00Z"}])
        });
        obj(serde_json::json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": format!("node-{name}")},
            "status": {"conditions": conditions},
        }))
    }

    fn pod(node: &str) -> Object {
        obj(serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-0", "namespace": "a", "uid": "p", "deletionTimestamp": "2026-01-01T00:01:00Z", "deletionGracePeriodSeconds": 30},
            "spec": {"nodeName": node},
        }))
    }

    #[test]
    fn a_pod_is_stranded_on_a_node_that_does_not_report_or_is_gone() {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        let p = pod("n1");
        // No Node objects at all: nodes are not in view.
        assert_eq!(of_pod(&g, &p), NodeHealth::Unseen { node: "n1".into() });
        assert_eq!(stranded(&g, &p), None);
        g.upsert(node("n2", Some("True")));
        assert_eq!(of_pod(&g, &p), NodeHealth::Gone { node: "n1".into() });
        g.upsert(node("n1", Some("Unknown")));
        let h = stranded(&g, &p).expect("stranded");
        let now: Timestamp = "2026-01-01T00:10:00Z".parse().expect("time");
        let lines = explain("Pod/web-0", &h, now, None);
        assert_eq!(
            lines[0],
            "Pod/web-0 waits for the kubelet of Node/n1, which is not reporting: Ready is Unknown for 10m00s (NodeStatusUnknown: Kubelet stopped posting node status.); no one else ends a graceful pod deletion"
        );
        assert!(lines[1].starts_with("fix, safest first: bring Node/n1 back; or"));
        g.upsert(node("n1", Some("True")));
        assert!(of_pod(&g, &p).confirms());
        g.upsert(node("n1", None));
        assert!(!of_pod(&g, &p).confirms(), "a kubelet that never reported");
        // Read without its status: nothing is known of it.
        g.upsert(obj(serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "uid": "node-n1"}})));
        assert_eq!(of_pod(&g, &p), NodeHealth::Unseen { node: "n1".into() });
        g.remove("node-n1");
        g.remove("node-n2");
        assert!(!g.has_nodes());
    }
}
