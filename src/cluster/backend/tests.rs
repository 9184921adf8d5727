//! The backend's bookkeeping, fed messages as its watches would send them,
//! with no cluster: what the UI is told, and when.

use super::*;
use crate::cluster::discovery::Resource;
use kube::core::ApiResource;

fn resource(kind: &str, plural: &str) -> Resource {
    Resource {
        ar: ApiResource {
            group: String::new(),
            version: "v1".into(),
            api_version: "v1".into(),
            kind: kind.into(),
            plural: plural.into(),
        },
        namespaced: true,
        watchable: true,
    }
}

/// A backend with no tasks, on a client that is never called, watching
/// ConfigMaps (0) and Pods (1).
fn offline() -> ClusterBackend {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let config = kube::Config::new("http://127.0.0.1:9".parse().expect("url"));
    let client = {
        let _in_rt = rt.enter();
        kube::Client::try_from(config).expect("client")
    };
    let resources = vec![resource("ConfigMap", "configmaps"), resource("Pod", "pods")];
    let conn = Connected {
        client,
        context: "test".into(),
        server: "http://127.0.0.1:9".into(),
        scope: super::super::Scope::All,
        default_namespace: "default".into(),
        read_only: false,
        guard: None,
        selector: None,
        discovery_cache: None,
        contexts: vec!["test".into()],
    };
    ClusterBackend::idle(
        rt,
        LiveOptions::default(),
        Duration::from_secs(1),
        conn,
        resources,
        KindTable::builtin(),
    )
}

fn obj(kind: &str, name: &str) -> Object {
    serde_json::from_value(serde_json::json!({
        "apiVersion": "v1", "kind": kind,
        "metadata": {"name": name, "namespace": "a", "uid": format!("{kind}-{name}"),
                     "resourceVersion": "1"},
    }))
    .expect("object")
}

/// Folds `msgs` in as `poll` does after its drain.
fn feed(b: &mut ClusterBackend, msgs: Vec<Msg>) -> Vec<Update> {
    for m in msgs {
        b.handle(m);
    }
    b.maybe_send_initial();
    b.push_unlisted();
    b.push_status();
    std::mem::take(&mut b.out)
}

fn said(updates: &[Update]) -> Vec<String> {
    updates
        .iter()
        .filter_map(|u| match u {
            Update::Happened(h) => Some(format!("{} {}", h.verb, h.object.name)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_kind_listed_after_the_first_tree_brings_its_objects_untold() {
    let mut b = offline();
    // The Pods' list is in; the ConfigMaps' outlasts the wait.
    let first = feed(
        &mut b,
        vec![Msg::Listed {
            res: 1,
            objects: vec![obj("Pod", "p")],
        }],
    );
    assert!(first.iter().all(|u| !matches!(u, Update::Reset { .. })));
    b.listing_since = Instant::now() - INITIAL_WAIT - Duration::from_secs(1);
    let first = feed(&mut b, Vec::new());
    let reset = first.iter().find_map(|u| match u {
        Update::Reset { objects, kinds } => Some((objects.len(), kinds.unlisted().len())),
        _ => None,
    });
    // The tree goes out with what is in, the ConfigMaps unverified.
    assert_eq!(reset, Some((1, 1)));
    assert_eq!(b.syncing(), vec!["configmaps".to_string()]);
    let late = feed(
        &mut b,
        vec![Msg::Listed {
            res: 0,
            objects: (0..3).map(|i| obj("ConfigMap", &format!("c{i}"))).collect(),
        }],
    );
    let listed = late
        .iter()
        .filter(|u| matches!(u, Update::Listed(_)))
        .count();
    assert_eq!(
        listed, 3,
        "the late kind's objects join the tree, as seen, not new"
    );
    assert!(!late.iter().any(|u| matches!(u, Update::Upsert(_))));
    assert_eq!(said(&late), Vec::<String>::new(), "none was created now");
    assert!(
        late.iter()
            .any(|u| matches!(u, Update::Unlisted(u) if u.is_empty())),
        "every kind is verified now"
    );
    assert!(b.syncing().is_empty());
    // After that, a change or a new object is told.
    let after = feed(
        &mut b,
        vec![Msg::Applied {
            res: 0,
            object: obj("ConfigMap", "new"),
            change: None,
        }],
    );
    assert_eq!(said(&after), vec!["created new".to_string()]);
    assert!(after.iter().any(|u| matches!(u, Update::Upsert(_))));
}

#[test]
fn a_relist_after_a_failure_tells_what_appeared_meanwhile() {
    let mut b = offline();
    let listed = |objects| Msg::Listed { res: 0, objects };
    feed(
        &mut b,
        vec![
            listed(vec![obj("ConfigMap", "old")]),
            Msg::Listed {
                res: 1,
                objects: Vec::new(),
            },
        ],
    );
    let again = feed(
        &mut b,
        vec![
            Msg::Failed {
                res: 0,
                message: "watch closed".into(),
                forbidden: false,
            },
            listed(vec![obj("ConfigMap", "old"), obj("ConfigMap", "meanwhile")]),
        ],
    );
    assert_eq!(said(&again), vec!["created meanwhile".to_string()]);
}
