//! "What is stuck here?": every Terminating object in view, with its age
//! and its one-line cause, grouped by cause, the oldest first; and what
//! holds others up (unavailable APIs, Terminating namespaces). The first
//! thing an on-call engineer runs (`ownerscope stuck --live -A`).
//!
//! The causes are the diagnosis's ([`super::diagnosis`]); the grouping
//! names the cause's family (STUCK-CAUSES: a finalizer, a node that does
//! not report, an unavailable API, a namespace's content, a foreground
//! deletion's dependents).

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::Serialize;

use super::diagnosis::{self, Diagnosis};
use super::graph::OwnershipGraph;
use super::kinds::Partial;
use super::object::{FOREGROUND, ORPHAN, ObjRef};

/// One Terminating object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StuckObject {
    pub object: ObjRef,
    /// Seconds since its deletionTimestamp (negative: a pod's grace period
    /// still runs).
    pub seconds: i64,
    /// The first cause, in one line.
    pub cause: String,
    /// Every cause and fix, as `why` gives them.
    pub causes: Vec<String>,
}

/// Objects stuck for the same kind of reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    /// `finalizer example.com/cleanup`, `node not reporting`, ...
    pub cause: String,
    /// Oldest first.
    pub objects: Vec<StuckObject>,
}

/// The answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Groups, the one with the oldest object first.
    pub groups: Vec<Group>,
    /// What holds others up: unavailable APIs (with their APIService's
    /// word) and Terminating namespaces.
    pub holding: Vec<String>,
    pub total: usize,
    pub partial: Partial,
}

/// The family of a diagnosis's first cause.
fn family(d: &Diagnosis) -> String {
    // STUCK-CAUSES C6: a webhook refusing the UPDATE that would end it.
    if let Some(h) = d.webhooks.iter().find(|h| h.backend.is_down()) {
        return format!("admission webhook {} not answering", h.webhook.name);
    }
    if let Some(s) = &d.stranded {
        return match &s.node {
            super::nodes::NodeHealth::Gone { .. } => "node gone (the pod GC force-deletes)".into(),
            _ => "node not reporting (no kubelet ends the pod)".into(),
        };
    }
    if let Some(ns) = &d.namespace {
        let failing = |k: &str| {
            ns.conditions
                .iter()
                .any(|c| c.kind == k && c.status == "True")
        };
        if failing("NamespaceDeletionDiscoveryFailure") {
            return "namespace: an API is unavailable".into();
        }
        if failing("NamespaceDeletionContentFailure") {
            return "namespace: its content cannot be deleted".into();
        }
        if !ns.remaining_by_finalizer.is_empty() || !ns.stranded_pods.is_empty() {
            return "namespace: content held".into();
        }
        return "namespace: content being deleted".into();
    }
    if let Some((_, f)) = d.held_by() {
        return format!("foreground deletion waiting on finalizer {f}");
    }
    if !d.blockers.is_empty() {
        return "foreground deletion waiting on dependents".into();
    }
    if let Some(f) = d
        .finalizers
        .iter()
        .find(|f| f.info.name != FOREGROUND && f.info.name != ORPHAN)
    {
        return format!("finalizer {}", f.info.name);
    }
    if !d.releasing.is_empty() {
        return "orphaning its dependents".into();
    }
    if d.grace_left.is_some() {
        return "grace period running".into();
    }
    "about to go".into()
}

/// Every Terminating object of `graph`, diagnosed at `now`; with
/// `whole_cluster` said, the controller of each third-party finalizer is
/// looked for among the graph's workloads ([`super::remover`]).
#[must_use]
pub fn report(
    graph: &OwnershipGraph,
    now: Timestamp,
    controllers: &BTreeMap<String, bool>,
    whole_cluster: Option<bool>,
) -> Report {
    let mut by_family: BTreeMap<String, Vec<StuckObject>> = BTreeMap::new();
    let mut holding = Vec::new();
    let partial = Partial::of(graph.kinds());
    for u in partial.unlisted.iter().filter(|u| u.is_unavailable_api()) {
        holding.push(if u.detail.is_empty() {
            format!(
                "unavailable API {}: no namespace can finish deleting while it is",
                u.resource
            )
        } else {
            format!(
                "unavailable API {}: {}; no namespace can finish deleting while it is",
                u.resource, u.detail
            )
        });
    }
    let mut total = 0;
    // Webhooks that refuse what would end deletions: (configuration,
    // webhook) -> (why, how many objects).
    let mut webhooks: BTreeMap<(String, String), (String, usize)> = BTreeMap::new();
    let seen = if whole_cluster.is_some() {
        super::remover::in_view(graph)
    } else {
        super::remover::InView::default()
    };
    for o in graph.objects().filter(|o| o.is_terminating()) {
        let mut d = diagnosis::diagnose(graph, o.uid(), now, controllers);
        if let Some(all) = whole_cluster {
            d.add_removers_among(graph, &seen, &BTreeMap::new(), all);
        }
        let seconds = d.terminating_seconds.unwrap_or(0);
        if d.namespace.is_some() {
            holding.push(format!(
                "Namespace/{} Terminating for {}: nothing can be created in it",
                o.name(),
                super::badges::human_duration(seconds.max(0))
            ));
        }
        for h in d.webhooks.iter().filter(|h| h.backend.is_down()) {
            let why = match &h.backend {
                super::webhooks::Backend::Down(why) => why.clone(),
                _ => String::new(),
            };
            webhooks
                .entry((h.webhook.configuration_ref(), h.webhook.name.clone()))
                .or_insert((why, 0))
                .1 += 1;
        }
        total += 1;
        by_family.entry(family(&d)).or_default().push(StuckObject {
            object: d.object.clone(),
            seconds,
            cause: d.causes.first().cloned().unwrap_or_default(),
            causes: d.causes,
        });
    }
    for ((config, name), (why, n)) in webhooks {
        holding.push(format!(
            "{config}: webhook {name} fails closed and nothing answers it ({why}): it refuses the finalizer removal of {}",
            super::wording::count(n, "Terminating object")
        ));
    }
    let mut groups: Vec<Group> = by_family
        .into_iter()
        .map(|(cause, mut objects)| {
            objects.sort_by(|a, b| {
                b.seconds
                    .cmp(&a.seconds)
                    .then_with(|| a.object.to_string().cmp(&b.object.to_string()))
            });
            Group { cause, objects }
        })
        .collect();
    groups.sort_by(|a, b| {
        let oldest = |g: &Group| g.objects.first().map_or(i64::MIN, |o| o.seconds);
        oldest(b)
            .cmp(&oldest(a))
            .then_with(|| a.cause.cmp(&b.cause))
    });
    Report {
        groups,
        holding,
        total,
        partial,
    }
}

impl Report {
    /// For a terminal.
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        out.extend(super::kinds::unseen_lines(
            &self
                .partial
                .unlisted
                .iter()
                .filter(|u| !u.is_unavailable_api())
                .cloned()
                .collect::<Vec<_>>(),
            "objects of those kinds may be stuck too",
        ));
        if !self.holding.is_empty() {
            out.push("Holding others up:".into());
            for h in &self.holding {
                out.push(format!("  {h}"));
            }
            out.push(String::new());
        }
        if self.total == 0 {
            out.push("nothing is Terminating".into());
            return out;
        }
        out.push(format!(
            "{} Terminating, in {}:",
            super::wording::count(self.total, "object"),
            super::wording::count(self.groups.len(), "cause")
        ));
        for g in &self.groups {
            out.push(String::new());
            out.push(format!("{} ({})", g.cause, g.objects.len()));
            for o in &g.objects {
                out.push(format!(
                    "  {:>8}  {}  {}",
                    age(o.seconds),
                    o.object,
                    o.cause
                ));
            }
        }
        out
    }

    /// For a ticket: a Markdown section per cause, each object with every
    /// cause and fix.
    #[must_use]
    pub fn markdown(&self) -> String {
        let mut out = String::from("# Stuck deletions\n\n");
        if !self.holding.is_empty() {
            out.push_str("## Holding others up\n\n");
            for h in &self.holding {
                out.push_str(&format!("- {}\n", md(h)));
            }
            out.push('\n');
        }
        if self.total == 0 {
            out.push_str("Nothing is Terminating.\n");
            return out;
        }
        for g in &self.groups {
            out.push_str(&format!("## {} ({})\n\n", md(&g.cause), g.objects.len()));
            out.push_str("| age | object | cause |\n|---:|---|---|\n");
            for o in &g.objects {
                out.push_str(&format!(
                    "| {} | `{}` | {} |\n",
                    age(o.seconds),
                    o.object,
                    md(&o.causes.join("<br>"))
                ));
            }
            out.push('\n');
        }
        out
    }
}

/// `3d4h`, `12m00s`, `grace` (a grace period still running).
fn age(seconds: i64) -> String {
    if seconds < 0 {
        "grace".into()
    } else {
        super::badges::human_duration(seconds)
    }
}

/// Text safe inside a Markdown table cell.
fn md(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KindTable;

    fn obj(v: serde_json::Value) -> crate::model::Object {
        serde_json::from_value(v).expect("object")
    }

    #[test]
    fn terminating_objects_are_grouped_by_cause_oldest_first() {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        g.upsert(obj(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "x", "uid": "1", "deletionTimestamp": "2026-01-01T00:00:00Z", "finalizers": ["example.com/hold"]}})));
        g.upsert(obj(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b", "namespace": "x", "uid": "2", "deletionTimestamp": "2026-01-01T00:30:00Z", "finalizers": ["example.com/hold"]}})));
        g.upsert(obj(serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "uid": "n"}, "status": {"conditions": [{"type": "Ready", "status": "Unknown"}]}})));
        g.upsert(obj(serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "x", "uid": "3", "deletionTimestamp": "2025-12-31T00:00:00Z", "deletionGracePeriodSeconds": 30}, "spec": {"nodeName": "n1"}})));
        g.upsert(obj(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "live", "namespace": "x", "uid": "4"}})));
        let now: Timestamp = "2026-01-01T01:00:00Z".parse().expect("time");
        let r = report(&g, now, &BTreeMap::new(), None);
        assert_eq!(r.total, 3);
        let causes: Vec<&str> = r.groups.iter().map(|g| g.cause.as_str()).collect();
        assert_eq!(
            causes,
            [
                "node not reporting (no kubelet ends the pod)",
                "finalizer example.com/hold"
            ]
        );
        let names: Vec<&str> = r.groups[1]
            .objects
            .iter()
            .map(|o| o.object.name.as_str())
            .collect();
        assert_eq!(names, ["a", "b"], "oldest first");
        let text = r.lines().join("\n");
        assert!(
            text.starts_with("3 objects Terminating, in 2 causes:"),
            "{text}"
        );
        assert!(text.contains("finalizer example.com/hold (2)\n     1h00m  ConfigMap/a -n x  ConfigMap/a holds finalizer example.com/hold"), "{text}");
        let md = r.markdown();
        assert!(
            md.contains("## node not reporting (no kubelet ends the pod) (1)"),
            "{md}"
        );
    }
}
