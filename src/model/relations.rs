//! Selector relations: which pods a Service or a workload selects by their
//! labels. A relation beside ownership, never an owner edge: a Service owns
//! none of the pods it selects, and a workload's controller *adopts* a pod
//! it selects that has no controller (it becomes the pod's controller
//! owner) and *releases* a pod it owns that it no longer selects. That is
//! also why a pod comes back: a managed workload replaces a pod it owned
//! that was deleted. Pure: computed from the objects' selectors and labels
//! (`spec.selector`, kept for these kinds by [`super::kept`]).

use super::graph::OwnershipGraph;
use super::object::{ObjRef, Object};
use super::selector::Selector;
use super::workload;

mod index;

pub use index::SelectorIndex;

/// How an object selects pods.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PodSelector {
    /// Its kind selects no pods.
    NotASelector,
    /// Its kind selects pods, but its spec is not known here (a
    /// metadata-only view of a live cluster keeps no spec).
    Unknown,
    /// Selects by this selector (a Service without one selects nothing).
    Known(Selector),
}

/// Whether `obj` is a Service.
fn is_service(obj: &Object) -> bool {
    obj.kind == "Service" && obj.group().is_empty()
}

/// Whether the kind of `obj` selects pods: a Service or a workload.
fn selects_pods(obj: &Object) -> bool {
    is_service(obj) || workload::controller_of_kind(obj.group(), &obj.kind).is_some()
}

/// Whether the selector relation concerns `obj` at all: a pod, or what
/// selects pods. Told from its kind alone; everything else (an Event, a
/// ConfigMap) the selector index never files.
#[must_use]
pub fn takes_part(obj: &Object) -> bool {
    obj.is_pod() || selects_pods(obj)
}

/// The pod selector of `obj`.
#[must_use]
pub fn pod_selector(obj: &Object) -> PodSelector {
    if !selects_pods(obj) {
        return PodSelector::NotASelector;
    }
    if obj.spec.is_null() {
        return PodSelector::Unknown;
    }
    if is_service(obj) {
        return PodSelector::Known(Selector::from_map(obj.value_at(&["spec", "selector"])));
    }
    PodSelector::Known(workload::selector(obj))
}

/// What the selector relation says of one object, by reference (owned, so
/// the UI can keep it between frames).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Relations {
    /// The object selects pods: `Some(selected pods)`, by name; `None`:
    /// its kind selects none, or its selector is not known.
    pub selects: Option<Vec<ObjRef>>,
    /// Its kind selects pods but its selector is not known here.
    pub selector_unknown: bool,
    /// A workload whose controller adopts pods: the selected pods without
    /// a controller, which it adopts (unless it is being deleted).
    pub adopts: Vec<ObjRef>,
    /// A workload: pods it controls that it does not select (its
    /// controller releases them).
    pub releases: Vec<ObjRef>,
    /// A pod: the Services and workloads that select it.
    pub selected_by: Vec<ObjRef>,
    /// A pod without a controller: the workload that adopts it.
    pub adopted_by: Option<ObjRef>,
    /// A pod: objects in its namespace that select pods by a selector not
    /// known here (so `selected_by` may be short).
    pub unknown_selectors: usize,
    /// A pod: what replaces it when it is deleted (its controller keeps a
    /// replica count), as the deletion preview says it.
    pub comes_back: Option<String>,
}

/// Whether the controller of `owner`'s kind creates and adopts pods.
fn adopts_pods(owner: &Object) -> bool {
    workload::controller_of_kind(owner.group(), &owner.kind).is_some_and(|c| c.child_kind == "Pod")
}

fn is_pod_of(obj: &Object, namespace: Option<&str>) -> bool {
    obj.is_pod() && obj.namespace() == namespace
}

/// The selector relations of `obj` in `graph`, found by looking at every
/// object of the graph: linear in the graph. The UI keeps a
/// [`SelectorIndex`] and asks [`relations_indexed`], which gives the same
/// answer for what the selected object's relations hold.
#[must_use]
pub fn relations(graph: &OwnershipGraph, obj: &Object) -> Relations {
    let ns = obj.namespace();
    relations_from(
        graph,
        obj,
        |sel| {
            graph
                .objects()
                .filter(|p| is_pod_of(p, ns) && sel.matches(&p.metadata.labels))
                .collect()
        },
        || {
            let mut by = Vec::new();
            let mut unknown = 0;
            for o in graph.objects().filter(|o| o.namespace() == ns) {
                match pod_selector(o) {
                    PodSelector::Known(sel) if sel.matches(&obj.metadata.labels) => by.push(o),
                    PodSelector::Unknown => unknown += 1,
                    _ => {}
                }
            }
            (by, unknown)
        },
    )
}

/// [`relations`], with the pods a selector selects and the selectors of a
/// pod found in `index` (kept up to date with `graph`): the cost is what
/// the answer holds, not what the graph holds.
#[must_use]
pub fn relations_indexed<'a>(
    graph: &'a OwnershipGraph,
    index: &'a SelectorIndex,
    obj: &Object,
) -> Relations {
    relations_from(
        graph,
        obj,
        |sel| index.pods_selected(obj.namespace(), sel),
        || index.selecting(obj),
    )
}

/// The relations of `obj`, given the pods of its namespace a selector
/// selects (`pods`, any order) and, for a pod, the objects of its
/// namespace whose known selector selects it with the number of those
/// whose selector is not known (`selecting`).
fn relations_from<'a>(
    graph: &'a OwnershipGraph,
    obj: &Object,
    pods: impl FnOnce(&Selector) -> Vec<&'a Object>,
    selecting: impl FnOnce() -> (Vec<&'a Object>, usize),
) -> Relations {
    let mut out = Relations::default();
    let ns = obj.namespace();
    match pod_selector(obj) {
        PodSelector::NotASelector => {}
        PodSelector::Unknown => out.selector_unknown = true,
        PodSelector::Known(sel) => {
            let mut pods = pods(&sel);
            pods.sort_by(|a, b| (a.name(), a.uid()).cmp(&(b.name(), b.uid())));
            if adopts_pods(obj) {
                out.adopts = pods
                    .iter()
                    .filter(|p| workload::controller_ref(p).is_none() && !p.is_terminating())
                    .map(|p| p.obj_ref())
                    .collect();
                // A pod it controls refers to it: found among its
                // referrers (in uid order), not among every object.
                let mut released: Vec<&Object> = graph
                    .referrer_objects(obj.uid())
                    .filter(|p| {
                        is_pod_of(p, ns)
                            && workload::controller_ref(p).is_some_and(|r| r.uid == obj.uid())
                            && !sel.matches(&p.metadata.labels)
                    })
                    .collect();
                released.sort_by(|a, b| (a.name(), a.uid()).cmp(&(b.name(), b.uid())));
                out.releases = released.iter().map(|p| p.obj_ref()).collect();
            }
            out.selects = Some(pods.iter().map(|p| p.obj_ref()).collect());
        }
    }
    if obj.is_pod() {
        let (mut by, unknown) = selecting();
        out.unknown_selectors = unknown;
        by.sort_by(|a, b| (&a.kind, a.name(), a.uid()).cmp(&(&b.kind, b.name(), b.uid())));
        if workload::controller_ref(obj).is_none() && !obj.is_terminating() {
            out.adopted_by = by
                .iter()
                .find(|o| adopts_pods(o) && !o.is_terminating())
                .map(|o| o.obj_ref());
        }
        out.comes_back = workload::controller_ref(obj)
            .and_then(|r| graph.get(&r.uid))
            .and_then(|owner| workload::replacement(owner, obj));
        out.selected_by = by.iter().map(|o| o.obj_ref()).collect();
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::KindTable;

    fn pod(name: &str, app: &str) -> Object {
        let mut p = Object::new("v1", "Pod", Some("shop"), name);
        p.metadata.uid = format!("uid-{name}");
        p.metadata.labels.insert("app".into(), app.into());
        p
    }

    fn rs(name: &str, app: &str) -> Object {
        let mut r = Object::new("apps/v1", "ReplicaSet", Some("shop"), name);
        r.metadata.uid = format!("uid-{name}");
        r.spec = json!({"replicas": 1, "selector": {"matchLabels": {"app": app}},
            "template": {"metadata": {"labels": {"app": app}}}})
        .into();
        r
    }

    fn owned_by(mut p: Object, owner: &Object) -> Object {
        p.metadata
            .owner_references
            .push(owner.reference(Some(true), Some(true)));
        p
    }

    fn graph(objs: Vec<Object>) -> OwnershipGraph {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        for o in objs {
            g.upsert(o);
        }
        g
    }

    fn names(refs: &[ObjRef]) -> Vec<String> {
        refs.iter()
            .map(|r| format!("{}/{}", r.kind, r.name))
            .collect()
    }

    #[test]
    fn a_service_selects_pods_by_labels_and_owns_none() {
        let mut svc = Object::new("v1", "Service", Some("shop"), "web");
        svc.metadata.uid = "uid-svc".into();
        svc.spec = json!({"selector": {"app": "web"}}).into();
        let mut elsewhere = pod("web-x", "web");
        elsewhere.metadata.namespace = Some("other".into());
        elsewhere.metadata.uid = "uid-other".into();
        let g = graph(vec![
            svc.clone(),
            pod("web-b", "web"),
            pod("web-a", "web"),
            pod("db-0", "db"),
            elsewhere,
        ]);
        let r = relations(&g, &svc);
        assert_eq!(
            names(&r.selects.expect("there")),
            ["Pod/web-a", "Pod/web-b"]
        );
        assert!(r.adopts.is_empty(), "a Service adopts nothing");
        let p = relations(&g, g.get("uid-web-a").expect("there"));
        assert_eq!(names(&p.selected_by), ["Service/web"]);
        assert_eq!(p.adopted_by, None);
    }

    #[test]
    fn a_replicaset_adopts_a_selected_pod_without_a_controller_and_releases_one_it_no_longer_selects()
     {
        let owner = rs("web-abc", "web");
        let orphan = pod("stray", "web");
        let owned = owned_by(pod("web-abc-1", "web"), &owner);
        let relabelled = owned_by(pod("web-abc-2", "debug"), &owner);
        let g = graph(vec![owner.clone(), orphan, owned, relabelled]);
        let r = relations(&g, &owner);
        assert_eq!(
            names(&r.selects.expect("there")),
            ["Pod/stray", "Pod/web-abc-1"],
            "selected by labels, owned or not"
        );
        assert_eq!(names(&r.adopts), ["Pod/stray"]);
        assert_eq!(names(&r.releases), ["Pod/web-abc-2"]);
        let stray = relations(&g, g.get("uid-stray").expect("there"));
        assert_eq!(names(&stray.selected_by), ["ReplicaSet/web-abc"]);
        assert_eq!(stray.adopted_by.map(|o| o.name), Some("web-abc".into()));
        let kept = relations(&g, g.get("uid-web-abc-1").expect("there"));
        assert_eq!(kept.adopted_by, None, "it has a controller already");
        assert_eq!(
            kept.comes_back.as_deref(),
            Some("replaced by the ReplicaSet controller (a new pod)")
        );
    }

    #[test]
    fn a_metadata_only_workload_has_an_unknown_selector() {
        let mut owner = rs("web-abc", "web");
        owner.spec = serde_json::Value::Null.into();
        let g = graph(vec![owner.clone(), pod("web-abc-1", "web")]);
        let r = relations(&g, &owner);
        assert!(r.selector_unknown);
        assert_eq!(r.selects, None);
        let p = relations(&g, g.get("uid-web-abc-1").expect("there"));
        assert_eq!(p.unknown_selectors, 1);
        assert!(p.selected_by.is_empty());
        let cm = Object::new("v1", "ConfigMap", Some("shop"), "c");
        assert_eq!(pod_selector(&cm), PodSelector::NotASelector);
    }
}
