//! A read of a cluster is not one atomic read: each resource is listed on
//! its own, eight at once. On a busy cluster an object made between two
//! lists can be missed by one while what uses it is caught by another: a
//! rollout's new ReplicaSet made after the ReplicaSets were listed, with its
//! pods made before the pods were; a Node that joined after the Nodes were
//! listed, with pods already bound to it. Read as listed, such a snapshot
//! says the owner is gone (a dangling reference, and a rehearsal's garbage
//! collector deletes the dependents, GC-SEMANTICS R32) or the Node is (and
//! the pod GC force-deletes its pods, R77).
//!
//! The real garbage collector never acts on an owner missing from its graph
//! without asking the server for it by name first (`isDangling` in
//! `pkg/controller/garbagecollector/garbagecollector.go` GETs each absent
//! owner live). So does a read here: each owner referenced and absent, of a
//! kind that was listed, and each Node a pod names and absent, is read by
//! name once, and what is there now joins the snapshot. What answers 404 is
//! absent indeed.

use std::collections::HashSet;

use futures::{StreamExt, stream};
use kube::Client;
use kube::api::{DynamicObject, GetParams};

use super::convert::needs_fields;
use super::discovery::Resource;
use crate::model::{Object, group_of};

/// At most this many objects are looked up after a read: a cluster with
/// more absent owners than that holds real dangling references (the
/// garbage collector's backlog), not a read's race, and the rest stay as
/// listed.
pub const MAX_LOOKUPS: usize = 1_000;

/// Lookups at once.
const CONCURRENCY: usize = 8;

/// An object that a listed object names and the lists did not hold.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Absent {
    /// Index into the resources the caller passed.
    pub resource: usize,
    pub namespace: Option<String>,
    pub name: String,
}

/// What `objects` name and do not hold, among `listed` (the resources whose
/// lists succeeded): owners (by uid) and the Nodes pods are bound or pinned
/// to (by name). An owner of a namespaced kind is in its dependent's
/// namespace (a cluster-scoped dependent cannot have one: such a reference
/// is invalid, not absent). Pure: the lookups are [`settle`]'s.
#[must_use]
pub fn absent(objects: &[Object], listed: &[Resource]) -> Vec<Absent> {
    let uids: HashSet<&str> = objects.iter().map(Object::uid).collect();
    let find = |group: &str, kind: &str| {
        listed
            .iter()
            .position(|r| r.ar.group == group && r.ar.kind == kind)
    };
    let nodes = find("", "Node");
    let node_names: HashSet<&str> = if nodes.is_some() {
        objects
            .iter()
            .filter(|o| o.kind == "Node" && o.group().is_empty())
            .map(Object::name)
            .collect()
    } else {
        HashSet::new()
    };
    let mut out = Vec::new();
    let mut asked: HashSet<Absent> = HashSet::new();
    let mut push = |a: Absent, out: &mut Vec<Absent>| {
        if asked.insert(a.clone()) {
            out.push(a);
        }
    };
    for o in objects {
        for r in &o.metadata.owner_references {
            if r.uid.is_empty() || r.name.is_empty() || uids.contains(r.uid.as_str()) {
                continue;
            }
            let Some(i) = find(group_of(&r.api_version), &r.kind) else {
                continue;
            };
            let namespace = if listed[i].namespaced {
                match o.namespace() {
                    Some(ns) => Some(ns.to_string()),
                    None => continue,
                }
            } else {
                None
            };
            push(
                Absent {
                    resource: i,
                    namespace,
                    name: r.name.clone(),
                },
                &mut out,
            );
        }
        if let Some(i) = nodes
            && o.kind == "Pod"
            && o.group().is_empty()
            && let Some(node) = crate::model::workload::node_of(o)
            && !node_names.contains(node.as_str())
        {
            push(
                Absent {
                    resource: i,
                    namespace: None,
                    name: node,
                },
                &mut out,
            );
        }
    }
    out
}

/// Looks up what [`absent`] found (the first [`MAX_LOOKUPS`]) and adds to
/// `objects` what exists now and is not there yet (by uid). Returns how
/// many were added. A lookup that fails otherwise than 404 leaves the
/// object as listed.
pub async fn settle(client: &Client, listed: &[Resource], objects: &mut Vec<Object>) -> usize {
    let wanted = absent(objects, listed);
    if wanted.is_empty() {
        return 0;
    }
    if wanted.len() > MAX_LOOKUPS {
        tracing::info!(
            absent = wanted.len(),
            "more absent owners and nodes than a read's race leaves: the first {MAX_LOOKUPS} are looked up"
        );
    }
    let found: Vec<Object> = stream::iter(wanted.into_iter().take(MAX_LOOKUPS))
        .map(|a| async move {
            let r = &listed[a.resource];
            match get(client, r, a.namespace.as_deref(), &a.name).await {
                Ok(o) => o,
                Err(e) => {
                    tracing::debug!(
                        resource = %r.name(),
                        name = %a.name,
                        error = %super::error_message(&e),
                        "an absent object could not be looked up"
                    );
                    None
                }
            }
        })
        .buffer_unordered(CONCURRENCY)
        .filter_map(|o| async move { o })
        .collect()
        .await;
    // Borrowed, not copied: a read of a million objects is not doubled
    // for the few found.
    let fresh: Vec<Object> = {
        let listed: HashSet<&str> = objects.iter().map(Object::uid).collect();
        let mut seen = HashSet::new();
        found
            .into_iter()
            .filter(|o| !listed.contains(o.uid()) && seen.insert(o.uid().to_string()))
            .collect()
    };
    let added = fresh.len();
    objects.extend(fresh);
    if added > 0 {
        tracing::info!(
            added,
            "objects made while the cluster was being read, looked up by name"
        );
    }
    added
}

/// One object by name, as its list would have read it; `None`: 404.
async fn get(
    client: &Client,
    r: &Resource,
    namespace: Option<&str>,
    name: &str,
) -> Result<Option<Object>, kube::Error> {
    use kube::core::Resource as _;
    let full = needs_fields(&r.ar.group, &r.ar.kind, true);
    let url = DynamicObject::url_path(&r.ar, namespace);
    let request = kube::core::Request::new(url);
    let gp = GetParams::default();
    let req = if full {
        request.get(name, &gp)
    } else {
        request.get_metadata(name, &gp)
    }
    .map_err(kube::Error::BuildRequest)?;
    let text = match client.request_text(req).await {
        Ok(t) => t,
        Err(kube::Error::Api(s)) if s.code == 404 => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut o: Object = serde_json::from_str(&text).map_err(kube::Error::SerdeError)?;
    if o.metadata.uid.is_empty() {
        return Ok(None);
    }
    super::list::finish(&mut o, &r.ar, full);
    Ok(Some(o))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::OwnerReference;
    use serde_json::json;

    /// A built-in kind as discovery would report it.
    fn resource(group: &str, kind: &str) -> Resource {
        let kinds = crate::model::KindTable::builtin();
        let info = kinds.get(group, kind).expect("a built-in kind");
        Resource {
            ar: crate::cluster::actions::api_resource(info),
            namespaced: info.namespaced,
            watchable: true,
        }
    }

    fn obj(api_version: &str, kind: &str, ns: Option<&str>, name: &str, uid: &str) -> Object {
        let mut o = Object::new(api_version, kind, ns, name);
        o.metadata.uid = uid.into();
        o
    }

    fn owned_by(mut o: Object, api_version: &str, kind: &str, name: &str, uid: &str) -> Object {
        o.metadata.owner_references.push(OwnerReference {
            api_version: api_version.into(),
            kind: kind.into(),
            name: name.into(),
            uid: uid.into(),
            controller: Some(true),
            block_owner_deletion: Some(true),
        });
        o
    }

    #[test]
    fn owners_and_nodes_missed_by_the_lists_are_looked_up_where_they_would_be() {
        let listed = vec![
            resource("apps", "ReplicaSet"),
            resource("", "Pod"),
            resource("", "Node"),
            resource("rbac.authorization.k8s.io", "ClusterRole"),
        ];
        let mut on_new_node = obj("v1", "Pod", Some("shop"), "web-b-1", "p2");
        on_new_node.spec = json!({"nodeName": "joined"}).into();
        let mut on_old_node = obj("v1", "Pod", Some("shop"), "web-a-1", "p1");
        on_old_node.spec = json!({"nodeName": "old"}).into();
        let objects = vec![
            obj("v1", "Node", None, "old", "n1"),
            obj("apps/v1", "ReplicaSet", Some("shop"), "web-a", "rs1"),
            owned_by(on_old_node, "apps/v1", "ReplicaSet", "web-a", "rs1"),
            // The rollout's new ReplicaSet, made after the list of
            // ReplicaSets: two pods name it.
            owned_by(on_new_node, "apps/v1", "ReplicaSet", "web-b", "rs2"),
            owned_by(
                obj("v1", "Pod", Some("shop"), "web-b-2", "p3"),
                "apps/v1",
                "ReplicaSet",
                "web-b",
                "rs2",
            ),
            // A cluster-scoped owner of a namespaced object.
            owned_by(
                obj("v1", "ConfigMap", Some("shop"), "cfg", "c1"),
                "rbac.authorization.k8s.io/v1",
                "ClusterRole",
                "gone",
                "cr1",
            ),
            // A kind that was not listed (forbidden, or unknown): nothing
            // to ask.
            owned_by(
                obj("v1", "ConfigMap", Some("shop"), "w", "c2"),
                "example.com/v1",
                "Widget",
                "w",
                "w1",
            ),
            // A namespaced owner of a cluster-scoped object: invalid, not
            // absent.
            owned_by(
                obj(
                    "rbac.authorization.k8s.io/v1",
                    "ClusterRole",
                    None,
                    "x",
                    "cr2",
                ),
                "apps/v1",
                "ReplicaSet",
                "web-z",
                "rs9",
            ),
        ];
        let got = absent(&objects, &listed);
        assert_eq!(
            got,
            vec![
                Absent {
                    resource: 0,
                    namespace: Some("shop".into()),
                    name: "web-b".into()
                },
                Absent {
                    resource: 2,
                    namespace: None,
                    name: "joined".into()
                },
                Absent {
                    resource: 3,
                    namespace: None,
                    name: "gone".into()
                },
            ]
        );
    }

    #[test]
    fn without_a_node_list_no_node_is_absent() {
        // A user who may not list Nodes: a pod's node is unknown, not
        // gone, and nothing is asked.
        let listed = vec![resource("", "Pod")];
        let mut pod = obj("v1", "Pod", Some("shop"), "web", "p1");
        pod.spec = json!({"nodeName": "n1"}).into();
        assert!(absent(&[pod], &listed).is_empty());
    }
}
