//! Follows upstream `pkg/controller/statefulset/stateful_set_control.go`
//! (`updateStatefulSet`) and `stateful_pod_control.go`
//! (`createPersistentVolumeClaims`, claim owner references): pods are
//! `<set>-<ordinal>` for ordinals `0..replicas`, re-created with the same
//! name once the old one is gone. With the default `OrderedReady` policy
//! one pod is created at a time and only after every lower ordinal is
//! Running and Ready (in the simulator, with no kubelet, a new pod never
//! becomes Ready, as on the test control plane); `Parallel` creates them
//! all. Ordinals at or past `replicas` are deleted, highest first. Before a
//! pod, its claims from `volumeClaimTemplates` (`<template>-<set>-<ordinal>`)
//! are created, with a controller reference to the set when
//! `persistentVolumeClaimRetentionPolicy.whenDeleted` is Delete (R70), and
//! the pod mounts them (`updateStorage`: a volume per claim template,
//! named as the template, replacing a template volume of that name). The
//! set's template is kept in its ControllerRevision ([`history`]), which
//! its pods name in `controller-revision-hash`.
//! Not while the set is Terminating (R72).

use serde_json::{Value, json};

use crate::model::workload::{Controller, is_managed, is_running_and_ready, replicas};
use crate::model::{Object, unkept};

use super::controller_ref_manager::claim;
use super::history;
use super::index::WorkloadIndex;
use super::replicaset::pod_from_template;
use super::{Intent, Op, intent};
use crate::sim::api::{ApiServer, DeleteOptions, Key};

pub const POD_NAME_LABEL: &str = "statefulset.kubernetes.io/pod-name";

/// One sync of a StatefulSet.
#[must_use]
pub fn sync(api: &ApiServer, index: &WorkloadIndex, set: &Object, c: &Controller) -> Vec<Intent> {
    let claimed = claim(api, index, set, c);
    let mut out = claimed.intents;
    if set.is_terminating() || !is_managed(set) {
        return out;
    }
    let ns = set.namespace().unwrap_or_default();
    let mut revision = history::current(api, set);
    out.extend(revision.create_intent(c.actor));
    let parallel = set.str_at(&["spec", "podManagementPolicy"]) == Some("Parallel");
    let n = replicas(set);
    let pod_key = |name: &str| Key {
        group: String::new(),
        kind: "Pod".into(),
        namespace: Some(ns.to_string()),
        name: name.to_string(),
    };
    for i in 0..n {
        let name = format!("{}-{i}", set.name());
        match api.get(&pod_key(&name)) {
            None => {
                out.extend(claims_for(api, set, i, c.actor));
                let pod = with_claim_volumes(set, pod_from_template(set, Some(&name)), i);
                let mut pod = with_identity(set, pod);
                pod.metadata
                    .labels
                    .insert(POD_NAME_LABEL.into(), name.clone());
                pod.metadata
                    .labels
                    .insert(history::REVISION_HASH.into(), revision.name.clone());
                out.push(intent(
                    c.actor,
                    Op::Create {
                        object: Box::new(pod),
                        generate_name: None,
                    },
                ));
                if !parallel {
                    break;
                }
            }
            Some(p) if !parallel && (p.is_terminating() || !is_running_and_ready(p)) => break,
            Some(_) => {}
        }
    }
    // Condemned ordinals, highest first.
    let mut condemned: Vec<(u64, &Object)> = claimed
        .children
        .iter()
        .filter(|p| !p.is_terminating())
        .filter_map(|p| ordinal(set.name(), p.name()).map(|o| (o, *p)))
        .filter(|(o, _)| *o >= n)
        .collect();
    condemned.sort_by_key(|(o, _)| std::cmp::Reverse(*o));
    let take = if parallel { condemned.len() } else { 1 };
    for (_, p) in condemned.into_iter().take(take) {
        out.push(intent(
            c.actor,
            Op::Delete {
                key: Key::of(p),
                options: DeleteOptions::default(),
            },
        ));
    }
    out
}

/// The ordinal of `<set>-<n>`.
fn ordinal(set: &str, pod: &str) -> Option<u64> {
    pod.strip_prefix(set)?.strip_prefix('-')?.parse().ok()
}

/// The names of the set's claim templates, in order.
fn claim_template_names(set: &Object) -> Vec<String> {
    set.value_at(&["spec", "volumeClaimTemplates"])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| t.pointer("/metadata/name").and_then(Value::as_str))
        .map(str::to_string)
        .collect()
}

/// `updateStorage`: a volume per claim template, named as the template,
/// whose claim is ordinal `i`'s (`<template>-<set>-<i>`), first; then the
/// template's own volumes but one of the same name, which the claim
/// replaces. (Upstream takes the claims from a map, in no set order; here
/// in the templates' order.)
fn with_claim_volumes(set: &Object, pod: Object, i: u64) -> Object {
    let names = claim_template_names(set);
    if names.is_empty() {
        return pod;
    }
    unkept::rewritten(pod, |v| {
        let own: Vec<Value> = v
            .pointer("/spec/volumes")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut volumes: Vec<Value> = names
            .iter()
            .map(|t| {
                json!({"name": t,
                   "persistentVolumeClaim": {"claimName": format!("{t}-{}-{i}", set.name())}})
            })
            .collect();
        volumes.extend(
            own.into_iter()
                .filter(|o| !names.iter().any(|t| o["name"] == t.as_str())),
        );
        v["spec"]["volumes"] = Value::Array(volumes);
    })
}

/// The pod's identity as upstream's `initIdentity` writes it in the pod
/// it creates: its own host (`hostname`, its name) in the domain of the
/// set's service (`subdomain`). Kept beside the simulator's fields, so
/// the create that writes them owns them.
fn with_identity(set: &Object, pod: Object) -> Object {
    let name = pod.name().to_string();
    let service = set
        .str_at(&["spec", "serviceName"])
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    unkept::rewritten(pod, |v| {
        if !v["spec"].is_object() {
            v["spec"] = json!({});
        }
        v["spec"]["hostname"] = json!(name);
        if let Some(service) = service {
            v["spec"]["subdomain"] = json!(service);
        }
    })
}

/// The claims of ordinal `i` that do not exist yet.
fn claims_for(api: &ApiServer, set: &Object, i: u64, actor: &str) -> Vec<Intent> {
    // Whole, with what `ownerscope serve` keeps beside the simulator's
    // fields (a claim's access modes, size, storage class).
    let whole = set.extra().unkept_text().is_some();
    let templates = if whole {
        unkept::full_at(set, &["spec", "volumeClaimTemplates"])
    } else {
        set.value_at(&["spec", "volumeClaimTemplates"]).cloned()
    };
    let Some(Value::Array(templates)) = templates else {
        return Vec::new();
    };
    let delete_with_set = set.str_at(&[
        "spec",
        "persistentVolumeClaimRetentionPolicy",
        "whenDeleted",
    ]) == Some("Delete");
    let mut out = Vec::new();
    for t in &templates {
        let Some(tname) = t.pointer("/metadata/name").and_then(Value::as_str) else {
            continue;
        };
        let name = format!("{tname}-{}-{i}", set.name());
        let key = Key {
            group: String::new(),
            kind: "PersistentVolumeClaim".into(),
            namespace: set.namespace().map(str::to_string),
            name: name.clone(),
        };
        if api.get(&key).is_some() {
            continue;
        }
        let mut pvc = Object::new("v1", "PersistentVolumeClaim", set.namespace(), &name);
        pvc.metadata.labels = crate::model::workload::template_labels(set);
        if delete_with_set {
            pvc.metadata
                .owner_references
                .push(set.reference(Some(true), Some(true)));
        }
        pvc.spec = t.get("spec").cloned().unwrap_or_else(|| json!({})).into();
        pvc.status = json!({"phase": "Pending"}).into();
        if whole
            && let Ok(v) = serde_json::to_value(&pvc)
            && let Ok(split) = unkept::object_of(&v)
        {
            pvc = split;
        }
        out.push(intent(
            actor,
            Op::Create {
                object: Box::new(pvc),
                generate_name: None,
            },
        ));
    }
    out
}
