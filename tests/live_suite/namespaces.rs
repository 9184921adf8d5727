//! `:ns NAME` out of scope and `0` on a live cluster, as in k9s: a UI
//! opened with `-n A` watches another namespace, or every one, without a
//! restart ([`Command::SwitchNamespace`]), as a context switch does: the
//! objects, the scope and the permissions are replaced once the new
//! scope has listed. A namespace that does not exist is the reply, and
//! the old watch goes on.

use super::*;
use ownerscope::backend::Namespaces;

#[test]
fn a_namespace_switch_watches_another_namespace_then_every_one() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns_a = rt.block_on(namespace(&client, "ns-switch-a"));
    let ns_b = rt.block_on(namespace(&client, "ns-switch-b"));
    let in_a = rt.block_on(configmap(&client, &ns_a, "in-a", vec![], &[]));
    let in_b = rt.block_on(configmap(&client, &ns_b, "in-b", vec![], &[]));

    let mut live = Live::start(&options(&env().admin, &ns_a));
    live.wait("in-a", LONG, |l| l.graph.get(&in_a).is_some());
    assert!(live.graph.get(&in_b).is_none(), "another namespace");
    // The cluster's namespaces are named, for `:ns` to offer.
    live.wait("the cluster's namespaces", LONG, |l| {
        l.namespaces
            .as_ref()
            .is_some_and(|n| n.names.contains(&ns_b) && n.names.contains(&ns_a))
    });
    assert_eq!(
        live.namespaces.as_ref().and_then(|n| n.watched.clone()),
        Some(ns_a.clone())
    );

    // A namespace that does not exist: the reply says so in kubectl's
    // words, and the old watch goes on.
    let nowhere = format!("{ns_a}-nowhere");
    live.backend
        .send(Command::SwitchNamespace(Some(nowhere.clone())));
    live.wait("the missing namespace's reply", LONG, |l| {
        l.replies.len() == 1
    });
    let r = &live.replies[0];
    assert!(
        !r.is_success() && r.message == format!("namespaces \"{nowhere}\" not found"),
        "{r:?}"
    );
    let later = rt.block_on(configmap(&client, &ns_a, "later", vec![], &[]));
    live.wait("the old watch, still going", LONG, |l| {
        l.graph.get(&later).is_some()
    });
    assert_eq!(live.resets, 1, "no new tree after a failed switch");

    // Namespace B: a fresh tree of B's objects, B in the status.
    live.backend
        .send(Command::SwitchNamespace(Some(ns_b.clone())));
    live.wait("the switch's reply", LONG, |l| l.replies.len() == 2);
    let r = &live.replies[1];
    assert!(r.is_success(), "{r:?}");
    assert!(r.message.starts_with("listing "), "{r:?}");
    live.wait("B's tree", LONG, |l| {
        l.resets == 2 && l.graph.get(&in_b).is_some()
    });
    assert!(live.graph.get(&in_a).is_none() && live.graph.get(&later).is_none());
    live.wait("B, listed", LONG, |l| l.connected());
    assert_eq!(
        live.status.as_ref().map(|s| s.scope.clone()),
        Some(format!("namespace {ns_b}"))
    );
    assert_eq!(
        live.namespaces.as_ref().and_then(|n| n.watched.clone()),
        Some(ns_b.clone())
    );
    // Watched, not listed once: a change in B arrives.
    let new_in_b = rt.block_on(configmap(&client, &ns_b, "new-in-b", vec![], &[]));
    live.wait("a change in B", LONG, |l| l.graph.get(&new_in_b).is_some());

    // Every namespace (`0`): A's and B's objects, and cluster-scoped ones.
    live.backend.send(Command::SwitchNamespace(None));
    live.wait("the widening's reply", LONG, |l| l.replies.len() == 3);
    assert!(live.replies[2].is_success(), "{:?}", live.replies[2]);
    live.wait("every namespace's tree", LONG, |l| {
        l.resets == 3 && l.graph.get(&in_a).is_some() && l.graph.get(&in_b).is_some()
    });
    assert!(
        live.graph
            .objects()
            .any(|o| o.kind == "ClusterRole" && o.namespace().is_none()),
        "cluster-scoped kinds are watched too"
    );
    live.wait("every namespace, listed", LONG, |l| l.connected());
    assert_eq!(
        live.status.as_ref().map(|s| s.scope.clone()),
        Some("all namespaces".to_string())
    );
    assert_eq!(
        live.namespaces,
        Some(Namespaces {
            watched: None,
            names: Vec::new(),
        })
    );

    drop(live);
    rt.block_on(delete_namespace(&client, &ns_a));
    rt.block_on(delete_namespace(&client, &ns_b));
}

/// A user who may not list namespaces is offered none beyond the tree's,
/// and may still switch to a namespace by name.
#[test]
fn a_user_who_may_not_list_namespaces_still_switches_by_name() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns_a = rt.block_on(namespace(&client, "ns-switch-ra"));
    let ns_b = rt.block_on(namespace(&client, "ns-switch-rb"));
    let in_b = rt.block_on(configmap(&client, &ns_b, "in-b", vec![], &[]));
    for ns in [&ns_a, &ns_b] {
        restricted_reads_configmaps_in(ns);
    }
    let mut live = Live::start(&options(&env().restricted, &ns_a));
    live.wait("the first status", LONG, |l| l.status.is_some());
    assert_eq!(
        live.namespaces,
        Some(Namespaces {
            watched: Some(ns_a.clone()),
            names: Vec::new(),
        })
    );
    live.backend
        .send(Command::SwitchNamespace(Some(ns_b.clone())));
    live.wait("the switch's reply", LONG, |l| l.replies.len() == 1);
    assert!(live.replies[0].is_success(), "{:?}", live.replies[0]);
    live.wait("B's ConfigMap", LONG, |l| l.graph.get(&in_b).is_some());
    assert_eq!(
        live.status.as_ref().map(|s| s.scope.clone()),
        Some(format!("namespace {ns_b}"))
    );

    drop(live);
    rt.block_on(delete_namespace(&client, &ns_a));
    rt.block_on(delete_namespace(&client, &ns_b));
}
