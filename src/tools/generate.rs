//! A generated cluster for the benchmark: namespaces holding Deployments,
//! their ReplicaSets and Pods, a ConfigMap shared by two Deployments, some
//! finalizers, some Terminating pods and some dangling owner references.

use jiff::Timestamp;

use crate::model::{Object, OwnerReference};

/// Deployments per namespace, ReplicaSets per Deployment, Pods per
/// ReplicaSet.
const DEPLOYMENTS: usize = 10;
const REPLICASETS: usize = 2;
const PODS: usize = 15;

fn uid(kind: u8, n: usize) -> String {
    format!("{kind:08x}-0000-4000-8000-{n:012x}")
}

fn obj(api: &str, kind: &str, ns: Option<&str>, name: String, uid: String) -> Object {
    let mut o = Object::new(api, kind, ns, &name);
    o.metadata.uid = uid;
    o.metadata.creation_timestamp = Some(Timestamp::UNIX_EPOCH);
    o
}

/// A workload's spec: one replica, selecting and templating `labels`.
fn selecting(labels: &[(&str, &str)]) -> crate::model::fields::Fields {
    let labels: serde_json::Map<String, serde_json::Value> = labels
        .iter()
        .map(|(k, v)| ((*k).to_string(), serde_json::Value::from(*v)))
        .collect();
    serde_json::json!({
        "replicas": 1,
        "selector": { "matchLabels": labels },
        "template": { "metadata": { "labels": labels } },
    })
    .into()
}

fn owned(mut o: Object, owner: &Object, controller: bool) -> Object {
    o.metadata
        .owner_references
        .push(owner.reference(Some(controller), Some(true)));
    o
}

/// About `n` objects (exactly `n`, the last namespace cut short).
#[must_use]
pub fn cluster(n: usize) -> Vec<Object> {
    let mut out: Vec<Object> = Vec::with_capacity(n);
    let mut seq = 0usize;
    let mut next = || {
        seq += 1;
        seq
    };
    let mut ns_i = 0;
    while out.len() < n {
        let ns = format!("team-{ns_i:04}");
        out.push(obj("v1", "Namespace", None, ns.clone(), uid(1, next())));
        let mut deps = Vec::new();
        for d in 0..DEPLOYMENTS {
            let app = format!("app-{d:02}");
            let mut dep = obj(
                "apps/v1",
                "Deployment",
                Some(&ns),
                app.clone(),
                uid(2, next()),
            );
            dep.spec = selecting(&[("app", &app)]);
            out.push(dep.clone());
            // A Service in front of each: what selects a pod is more than
            // its owners.
            let mut svc = obj("v1", "Service", Some(&ns), app.clone(), uid(8, next()));
            svc.spec = serde_json::json!({ "selector": { "app": app } }).into();
            out.push(svc);
            for r in 0..REPLICASETS {
                let i = next();
                let hash = format!("{r}f{i:05x}");
                let mut rs = owned(
                    obj(
                        "apps/v1",
                        "ReplicaSet",
                        Some(&ns),
                        format!("app-{d:02}-{hash}"),
                        uid(3, i),
                    ),
                    &dep,
                    true,
                );
                rs.spec = selecting(&[("app", &app), ("pod-template-hash", &hash)]);
                out.push(rs.clone());
                for p in 0..PODS {
                    let i = next();
                    let mut pod = owned(
                        obj(
                            "v1",
                            "Pod",
                            Some(&ns),
                            format!("{}-{p:02}x{i:x}", rs.name()),
                            uid(4, i),
                        ),
                        &rs,
                        true,
                    );
                    pod.metadata.labels.insert("app".into(), app.clone());
                    pod.metadata
                        .labels
                        .insert("pod-template-hash".into(), hash.clone());
                    if i % 50 == 0 {
                        pod.metadata.finalizers.push("example.com/hold".into());
                    }
                    if i % 200 == 0 {
                        pod.metadata.deletion_timestamp = Some(Timestamp::UNIX_EPOCH);
                    }
                    out.push(pod);
                }
            }
            deps.push(dep);
        }
        if let [a, b, ..] = deps.as_slice() {
            let cm = obj(
                "v1",
                "ConfigMap",
                Some(&ns),
                "shared-config".into(),
                uid(5, next()),
            );
            out.push(owned(owned(cm, a, false), b, false));
        }
        let mut stale = obj(
            "v1",
            "Secret",
            Some(&ns),
            "stale-token".into(),
            uid(6, next()),
        );
        stale.metadata.owner_references.push(OwnerReference {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            name: "removed-long-ago".into(),
            uid: uid(7, next()),
            controller: Some(true),
            block_owner_deletion: None,
        });
        out.push(stale);
        ns_i += 1;
    }
    out.truncate(n);
    out
}

/// One Deployment whose cascade is the whole cluster: `n` objects in
/// namespace `big`, the Deployment `root`, ReplicaSets of 100 Pods each. The
/// worst case for anything that follows a cascade (preview, diagnosis, the
/// simulated garbage collector, the UI during a cascade).
#[must_use]
pub fn cascade(n: usize) -> Vec<Object> {
    let mut out: Vec<Object> = Vec::with_capacity(n);
    let ns = "big";
    let root = obj("apps/v1", "Deployment", Some(ns), "root".into(), uid(2, 0));
    out.push(root.clone());
    let mut i = 0usize;
    while out.len() < n {
        i += 1;
        let rs = owned(
            obj(
                "apps/v1",
                "ReplicaSet",
                Some(ns),
                format!("root-{i:06x}"),
                uid(3, i),
            ),
            &root,
            true,
        );
        out.push(rs.clone());
        for p in 0..99 {
            if out.len() >= n {
                break;
            }
            let pod = owned(
                obj(
                    "v1",
                    "Pod",
                    Some(ns),
                    format!("{}-p{p:02}", rs.name()),
                    uid(4, i * 100 + p),
                ),
                &rs,
                true,
            );
            out.push(pod);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::index::ForestIndex;
    use crate::model::{KindTable, OwnershipGraph};

    #[test]
    fn shape() {
        let objs = cluster(2_000);
        assert_eq!(objs.len(), 2_000);
        let mut g = OwnershipGraph::new(KindTable::builtin());
        for o in objs {
            g.upsert(o);
        }
        let ix = ForestIndex::build(&g);
        assert!(ix.problem_count() > 0);
        assert!(ix.terminating_count() > 0);
    }
}
