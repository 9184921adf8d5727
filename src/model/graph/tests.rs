use super::*;

fn obj(api: &str, kind: &str, ns: Option<&str>, name: &str, uid: &str) -> Object {
    let mut o = Object::new(api, kind, ns, name);
    o.metadata.uid = uid.into();
    o
}

/// Nodes and workloads are found without a scan, as they are stored,
/// replaced and removed, in bulk or not.
#[test]
fn nodes_and_workloads_are_kept_track_of() {
    let mut g = OwnershipGraph::default();
    g.upsert(obj("v1", "Node", None, "n1", "n-1"));
    g.upsert(obj("apps/v1", "Deployment", Some("a"), "d", "d-1"));
    g.upsert(obj("v1", "ConfigMap", Some("a"), "c", "c-1"));
    g.begin_bulk(1);
    g.insert_new(Arc::new(obj(
        "apps/v1",
        "DaemonSet",
        Some("a"),
        "ds",
        "ds-1",
    )))
    .expect("new");
    g.end_bulk().expect("bulk");
    let names = |it: Vec<&Object>| it.iter().map(|o| o.name().to_string()).collect::<Vec<_>>();
    assert_eq!(names(g.nodes().collect()), ["n1"]);
    assert_eq!(names(g.workloads().collect()), ["d", "ds"]);
    // The same uid as another kind: no longer a workload.
    g.upsert(obj("v1", "ConfigMap", Some("a"), "d", "d-1"));
    g.remove("n-1");
    assert!(g.nodes().next().is_none() && !g.has_nodes());
    assert_eq!(names(g.workloads().collect()), ["ds"]);
}

/// A new object whose kind, namespace and name another has is refused,
/// in bulk or not, saying whether that one is being deleted, and
/// nothing of it is indexed; the same name in another namespace or of
/// another kind is not taken.
#[test]
fn a_new_object_whose_name_is_taken_is_refused() {
    let mut g = OwnershipGraph::default();
    let mut going = obj("v1", "ConfigMap", Some("a"), "m", "u-1");
    going.metadata.deletion_timestamp = Some(jiff::Timestamp::UNIX_EPOCH);
    g.upsert(going);
    g.upsert(obj("v1", "ConfigMap", Some("a"), "n", "u-2"));
    let same = |uid: &str, name: &str| Arc::new(obj("v1", "ConfigMap", Some("a"), name, uid));
    assert_eq!(
        g.insert_new(same("u-3", "m")),
        Err(Taken::Name { terminating: true })
    );
    assert_eq!(
        g.insert_new(same("u-3", "n")),
        Err(Taken::Name { terminating: false })
    );
    assert_eq!(g.insert_new(same("u-2", "o")), Err(Taken::Uid));
    assert!(g.get("u-3").is_none());
    assert!(g.find("", "ConfigMap", Some("a"), "o").is_none());
    g.begin_bulk(3);
    g.insert_new(Arc::new(obj("v1", "ConfigMap", Some("b"), "m", "u-4")))
        .expect("another namespace");
    g.insert_new(Arc::new(obj("v1", "Secret", Some("a"), "m", "u-5")))
        .expect("another kind");
    assert_eq!(
        g.insert_new(Arc::new(obj("v1", "ConfigMap", Some("b"), "m", "u-6"))),
        Err(Taken::Name { terminating: false }),
        "a name added in the same bulk is taken"
    );
    g.end_bulk().expect("no uid twice");
    assert_eq!(g.len(), 4);
    assert_eq!(
        g.find("", "ConfigMap", Some("b"), "m").map(Object::uid),
        Some("u-4")
    );
}

/// Objects added in bulk join the ones stored before in uid order; one
/// whose uid is stored already is refused with its place, and none of
/// those added stays (by uid, name or owner).
#[test]
fn a_bulk_addition_joins_in_uid_order_or_refuses_a_uid_stored_before() {
    let mut g = OwnershipGraph::default();
    g.upsert(obj("v1", "ConfigMap", Some("a"), "m", "u-5"));
    // A pod owned by the ConfigMap `m`.
    let pod = |name: &str, uid: &str| {
        let o = obj("v1", "Pod", Some("a"), name, uid);
        Arc::new(owned_by(o, "v1", "ConfigMap", "m", "u-5"))
    };
    g.begin_bulk(3);
    for (name, uid) in [("x", "u-9"), ("y", "u-1")] {
        g.insert_new(pod(name, uid)).expect("kept aside");
    }
    g.end_bulk().expect("no uid twice");
    let uids: Vec<&str> = g.objects().map(Object::uid).collect();
    assert_eq!(uids, ["u-1", "u-5", "u-9"]);
    assert_eq!(g.shared_referrers("u-5").count(), 2);

    g.begin_bulk(2);
    g.insert_new(Arc::new(obj("v1", "Pod", Some("a"), "z", "u-7")))
        .expect("kept aside");
    // The uid of `x`, with the same owner: refused, and `x` is still
    // found by its owner.
    g.insert_new(pod("w", "u-9")).expect("kept aside");
    let (at, refused) = g.end_bulk().expect_err("u-9 is stored");
    assert_eq!((at, refused.name()), (1, "w"));
    assert!(g.get("u-7").is_none());
    assert!(g.find("", "Pod", Some("a"), "z").is_none());
    assert!(g.find("", "Pod", Some("a"), "w").is_none());
    assert_eq!(
        g.find("", "Pod", Some("a"), "x").map(Object::uid),
        Some("u-9")
    );
    assert_eq!(g.len(), 3);
    let owned: Vec<&str> = g.shared_referrers("u-5").map(|o| o.name()).collect();
    assert_eq!(owned, ["y", "x"]);
}

/// Uids alike in their first 16 bytes (what a bulk addition sorts by
/// first) are put in order by the rest, and the later of two equal
/// ones is refused, with its place.
#[test]
fn a_bulk_addition_orders_uids_alike_in_their_first_bytes_by_the_rest() {
    let long = "0123456789abcdef-";
    let mut g = OwnershipGraph::default();
    g.begin_bulk(4);
    for (name, tail) in [("c", "c"), ("a", "a"), ("short", ""), ("b", "b")] {
        let uid = format!("{long}{tail}");
        g.insert_new(Arc::new(obj("v1", "Pod", Some("n"), name, &uid)))
            .expect("kept aside");
    }
    g.end_bulk().expect("no uid twice");
    let names: Vec<&str> = g.objects().map(Object::name).collect();
    assert_eq!(names, ["short", "a", "b", "c"]);

    g.begin_bulk(3);
    for (name, uid) in [
        ("d", format!("{long}d")),
        ("e", format!("{long}e")),
        ("d-again", format!("{long}d")),
    ] {
        g.insert_new(Arc::new(obj("v1", "Pod", Some("n"), name, &uid)))
            .expect("kept aside");
    }
    let (at, refused) = g.end_bulk().expect_err("a uid twice");
    assert_eq!((at, refused.name()), (2, "d-again"));
    assert_eq!(g.len(), 4);
    assert!(g.find("", "Pod", Some("n"), "e").is_none());
}

fn owned_by(mut o: Object, api: &str, kind: &str, name: &str, uid: &str) -> Object {
    o.metadata.owner_references.push(OwnerReference {
        api_version: api.into(),
        kind: kind.into(),
        name: name.into(),
        uid: uid.into(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    });
    o
}

#[test]
fn referrers_are_the_latest_copies_and_leave_with_their_references() {
    let mut g = OwnershipGraph::new(KindTable::builtin());
    g.upsert(obj("v1", "ConfigMap", Some("a"), "owner", "o"));
    let dep = owned_by(
        obj("v1", "Secret", Some("a"), "dep", "d"),
        "v1",
        "ConfigMap",
        "owner",
        "o",
    );
    g.upsert(dep.clone());
    let mut held = dep.clone();
    held.metadata.finalizers.push("example.com/hold".into());
    g.upsert(held);
    let seen: Vec<&Object> = g.referrer_objects("o").collect();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].metadata.finalizers, vec!["example.com/hold"]);
    // Its reference dropped: no longer a referrer.
    let mut loose = dep;
    loose.metadata.owner_references.clear();
    g.upsert(loose);
    assert_eq!(g.referrer_objects("o").count(), 0);
    g.upsert(owned_by(
        obj("v1", "Secret", Some("a"), "dep2", "d2"),
        "v1",
        "ConfigMap",
        "owner",
        "o",
    ));
    g.remove("d2");
    assert_eq!(g.referrers("o").count(), 0);
}

#[test]
fn dependents_owners_and_roots() {
    let mut g = OwnershipGraph::new(KindTable::builtin());
    g.upsert(obj("apps/v1", "Deployment", Some("a"), "web", "d"));
    g.upsert(owned_by(
        obj("apps/v1", "ReplicaSet", Some("a"), "web-1", "r"),
        "apps/v1",
        "Deployment",
        "web",
        "d",
    ));
    g.upsert(owned_by(
        obj("v1", "Pod", Some("a"), "web-1-x", "p"),
        "apps/v1",
        "ReplicaSet",
        "web-1",
        "r",
    ));
    assert_eq!(g.roots(), vec!["d".to_string()]);
    assert_eq!(g.dependents("d").len(), 1);
    assert_eq!(g.resolved_owners("p"), vec!["r".to_string()]);
    g.remove("r");
    assert_eq!(g.owners("p")[0].1, RefStatus::OwnerAbsent);
    assert!(g.is_root("p"));
    assert!(g.dependents("d").is_empty());
}

#[test]
fn classifies_every_kind_of_bad_reference() {
    let mut g = OwnershipGraph::new(KindTable::builtin());
    g.upsert(obj("v1", "ConfigMap", Some("a"), "cm", "u1"));
    let wrong_uid = owned_by(
        obj("v1", "Secret", Some("a"), "s", "s1"),
        "v1",
        "ConfigMap",
        "cm",
        "u9",
    );
    let other_ns = owned_by(
        obj("v1", "Secret", Some("b"), "s", "s2"),
        "v1",
        "ConfigMap",
        "cm",
        "u1",
    );
    let cluster = owned_by(
        obj(
            "rbac.authorization.k8s.io/v1",
            "ClusterRole",
            None,
            "k",
            "k1",
        ),
        "v1",
        "ConfigMap",
        "cm",
        "u1",
    );
    let unknown = owned_by(
        obj("v1", "Secret", Some("a"), "t", "s3"),
        "example.com/v1",
        "Gone",
        "g",
        "u5",
    );
    let cluster_owner = owned_by(
        obj("v1", "Secret", Some("a"), "n", "s4"),
        "v1",
        "Node",
        "node1",
        "n1",
    );
    for o in [&wrong_uid, &other_ns, &cluster, &unknown, &cluster_owner] {
        g.upsert(o.clone());
    }
    g.upsert(obj("v1", "Node", None, "node1", "n1"));
    let status = |o: &Object| g.classify(o, &o.metadata.owner_references[0]);
    assert_eq!(
        status(&wrong_uid),
        RefStatus::UidMismatch { found: "u1".into() }
    );
    assert_eq!(
        status(&other_ns),
        RefStatus::CrossNamespace {
            owner_namespace: "a".into()
        }
    );
    assert_eq!(status(&cluster), RefStatus::Unresolvable);
    assert_eq!(status(&unknown), RefStatus::UnknownKind);
    assert_eq!(
        status(&cluster_owner),
        RefStatus::Resolves { owner: "n1".into() }
    );
    assert!(status(&other_ns).is_dangling() && !status(&cluster).is_dangling());
}

#[test]
fn recreated_owner_does_not_adopt_old_children() {
    let mut g = OwnershipGraph::new(KindTable::builtin());
    g.upsert(obj("v1", "ConfigMap", Some("a"), "cm", "u1"));
    g.upsert(owned_by(
        obj("v1", "Secret", Some("a"), "s", "s1"),
        "v1",
        "ConfigMap",
        "cm",
        "u1",
    ));
    g.remove("u1");
    g.upsert(obj("v1", "ConfigMap", Some("a"), "cm", "u2"));
    assert!(g.dependents("u2").is_empty());
    assert_eq!(
        g.owners("s1")[0].1,
        RefStatus::UidMismatch { found: "u2".into() }
    );
}

/// The workloads and clouds the diagnosis looks among are kept from one
/// look to the next, and looked at again once a workload or a Node is
/// stored, replaced or removed: a Deployment scaled to 0 is seen scaled.
#[test]
fn the_controllers_seen_follow_every_change_of_a_workload_or_a_node() {
    let mut g = OwnershipGraph::default();
    assert!(g.controllers_seen().workloads.is_empty());
    let mut d = obj("apps/v1", "Deployment", Some("a"), "d", "d-1");
    d.spec = serde_json::json!({"replicas": 2}).into();
    g.upsert(d.clone());
    let replicas = |g: &OwnershipGraph| {
        g.controllers_seen()
            .workloads
            .iter()
            .map(|o| {
                o.spec
                    .at(&["replicas"])
                    .and_then(|v| v.as_i64())
                    .unwrap_or(-1)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(replicas(&g), [2]);
    // Kept: the same look, not a new one.
    assert!(std::ptr::eq(g.controllers_seen(), g.controllers_seen()));
    d.spec = serde_json::json!({"replicas": 0}).into();
    g.upsert(d);
    assert_eq!(replicas(&g), [0]);
    let mut n = obj("v1", "Node", None, "n1", "n-1");
    n.spec = serde_json::json!({"providerID": "aws:///eu-west-1a/i-1"}).into();
    g.upsert(n);
    assert_eq!(g.controllers_seen().providers, ["aws"]);
    g.remove("n-1");
    assert!(g.controllers_seen().providers.is_empty());
    // Another kind under the workload's uid: no longer a workload.
    g.upsert(obj("v1", "ConfigMap", Some("a"), "d", "d-1"));
    assert!(g.controllers_seen().workloads.is_empty());
}

/// A graph made from a list at once is the graph of its objects upserted
/// in turn: a later copy of a uid replaces the earlier one, a later
/// object of a taken name is the one found by the name, and owners,
/// Nodes, workloads and the Events about an object are found alike.
#[test]
fn a_graph_made_at_once_is_the_graph_made_in_turn() {
    let o = |v: serde_json::Value| Arc::new(serde_json::from_value::<Object>(v).expect("object"));
    let meta = |ns: &str, name: &str, uid: &str, owner: Option<&str>| {
        let mut m = serde_json::json!({"name": name, "namespace": ns, "uid": uid});
        if let Some(u) = owner {
            m["ownerReferences"] = serde_json::json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": u}]);
        }
        m
    };
    let pod = |name: &str, uid: &str, owner: Option<&str>| {
        o(
            serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta("a", name, uid, owner)}),
        )
    };
    let rs = o(
        serde_json::json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta("a", "rs", "rs-1", None)}),
    );
    let node = o(
        serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "uid": "n-1"}}),
    );
    let event = o(
        serde_json::json!({"apiVersion": "v1", "kind": "Event", "metadata": meta("a", "e", "e-1", None),
        "involvedObject": {"kind": "Pod", "name": "p1", "uid": "p-1"}}),
    );
    let lists: Vec<Vec<Arc<Object>>> = vec![
        // Every name and uid once.
        vec![
            pod("p1", "p-1", Some("rs-1")),
            rs.clone(),
            node.clone(),
            event.clone(),
            pod("p2", "p-2", Some("rs-1")),
        ],
        // A name twice (deleted and made again): both kept, the later found by it.
        vec![
            pod("p1", "p-1", Some("rs-1")),
            rs.clone(),
            pod("p1", "p-9", None),
            event.clone(),
        ],
        // A name taken, and the uid of the copy that took it again later
        // under another name.
        vec![
            pod("p1", "p-1", None),
            pod("p1", "p-2", Some("rs-1")),
            rs.clone(),
            pod("p5", "p-2", None),
        ],
        // A uid twice, renamed and without its owner the second time.
        vec![
            pod("p1", "p-1", Some("rs-1")),
            rs.clone(),
            node.clone(),
            pod("p3", "p-1", None),
            event,
        ],
        vec![],
    ];
    for list in lists {
        let mut turn = OwnershipGraph::new(KindTable::builtin());
        for x in &list {
            turn.upsert(Arc::clone(x));
        }
        let once = OwnershipGraph::from_objects(KindTable::builtin(), &list);
        let seen = |g: &OwnershipGraph| {
            let objects: Vec<(String, String)> = g
                .objects()
                .map(|x| (x.uid().to_string(), x.name().to_string()))
                .collect();
            let mut found = Vec::new();
            for x in &list {
                found.push((
                    g.find(x.group(), &x.kind, x.namespace(), x.name())
                        .map(|f| f.uid().to_string()),
                    g.referrers(x.uid()).cloned().collect::<Vec<_>>(),
                    g.events_about(x.uid())
                        .map(|e| e.uid().to_string())
                        .collect::<Vec<_>>(),
                    g.is_root(x.uid()),
                ));
            }
            let nodes: Vec<String> = g.nodes().map(|n| n.uid().to_string()).collect();
            let workloads: Vec<String> = g.workloads().map(|n| n.uid().to_string()).collect();
            (objects, found, nodes, workloads, g.kinds().clone())
        };
        assert_eq!(
            seen(&once),
            seen(&turn),
            "{:?}",
            list.iter().map(|x| x.uid()).collect::<Vec<_>>()
        );
    }
}

/// Two graphs are equal when their objects are, whole: the same uids
/// holding other objects (a label changed) are not equal.
#[test]
fn graphs_with_the_same_uids_differ_by_their_objects() {
    let of = |label: &str| {
        let mut g = OwnershipGraph::default();
        let mut o = obj("v1", "ConfigMap", Some("a"), "c", "c-1");
        o.metadata.labels.insert("app".into(), label.into());
        g.upsert(o);
        g.upsert(obj("v1", "ConfigMap", Some("a"), "d", "d-1"));
        g
    };
    assert!(of("web") == of("web"));
    assert!(of("web") != of("db"));
    let mut fewer = of("web");
    fewer.remove("d-1");
    assert!(fewer != of("web") && of("web") != fewer);
}

/// The Events about an object are found as they are stored, replaced
/// (the latest copy) and removed, in uid order, past the few an object
/// usually has.
#[test]
fn events_about_an_object_follow_its_events() {
    let event = |uid: &str, about: &str, reason: &str| {
        let o: Object = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": uid, "namespace": "a", "uid": uid},
            "involvedObject": {"kind": "Pod", "name": "p", "uid": about},
            "reason": reason,
        }))
        .expect("an event");
        o
    };
    let mut g = OwnershipGraph::default();
    for i in (0..40).rev() {
        g.upsert(event(&format!("e-{i:02}"), "p-1", "Started"));
    }
    g.upsert(event("e-07", "p-1", "Killing"));
    g.upsert(event("x-1", "p-2", "Started"));
    g.remove("e-03");
    let about: Vec<(String, String)> = g
        .events_about("p-1")
        .map(|e| {
            let reason = e
                .extra()
                .reason
                .as_ref()
                .and_then(super::super::object::Raw::as_string);
            (e.uid().to_string(), reason.unwrap_or_default())
        })
        .collect();
    let expected: Vec<(String, String)> = (0..40)
        .filter(|i| *i != 3)
        .map(|i| {
            let reason = if i == 7 { "Killing" } else { "Started" };
            (format!("e-{i:02}"), reason.to_string())
        })
        .collect();
    assert_eq!(about, expected);
    assert_eq!(g.events_about("p-2").count(), 1);
    // An Event moved to another object leaves the first.
    g.upsert(event("x-1", "p-1", "Started"));
    assert_eq!(g.events_about("p-2").count(), 0);
    assert_eq!(g.events_about("p-1").count(), 40);
}

/// The Events' index, made at the first question about Events, answers
/// as one kept from the start: asked before a bulk load, changes and
/// removals that follow are kept in it; never asked, it is made from
/// whatever is stored then.
#[test]
fn events_asked_first_early_or_late_are_the_same() {
    let event = |uid: &str, about: &str| {
        let o: Object = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": uid, "namespace": "a", "uid": uid},
            "involvedObject": {"kind": "Pod", "name": "p", "uid": about},
        }))
        .expect("an event");
        Arc::new(o)
    };
    let about = |i: usize| format!("p-{}", i % 7);
    let first: Vec<Arc<Object>> = (0..30)
        .map(|i| event(&format!("e-{i:02}"), &about(i)))
        .collect();
    let more: Vec<Arc<Object>> = (30..90)
        .map(|i| event(&format!("e-{i:02}"), &about(i)))
        .collect();
    let change = |g: &mut OwnershipGraph| {
        g.remove("e-03");
        g.remove("e-45");
        // An Event moved to another object, and one about no object.
        g.upsert(event("e-10", "p-6"));
        g.upsert(event("e-11", ""));
    };
    // Asked early: made from the first few, then kept through a bulk
    // load and the changes.
    let mut early = OwnershipGraph::from_objects(KindTable::builtin(), &first);
    assert_eq!(early.events_about("p-0").count(), 5);
    early.begin_bulk(more.len());
    for e in &more {
        assert!(early.insert_new(Arc::clone(e)).is_ok());
    }
    assert!(early.end_bulk().is_ok());
    change(&mut early);
    // Asked late: made from what is stored then.
    let mut late = OwnershipGraph::from_objects(KindTable::builtin(), &first);
    late.begin_bulk(more.len());
    for e in &more {
        assert!(late.insert_new(Arc::clone(e)).is_ok());
    }
    assert!(late.end_bulk().is_ok());
    change(&mut late);
    let answers = |g: &OwnershipGraph| -> Vec<Vec<String>> {
        (0..7)
            .map(|i| {
                g.events_about(&format!("p-{i}"))
                    .map(|e| e.uid().to_string())
                    .collect()
            })
            .collect()
    };
    let seen = answers(&late);
    assert_eq!(answers(&early), seen);
    // 90 Events, two removed, one moved to p-6 and one about nothing.
    assert_eq!(seen.iter().map(Vec::len).sum::<usize>(), 87);
    assert!(seen[6].contains(&"e-10".to_string()) && !seen[3].contains(&"e-10".to_string()));
    assert!(!seen[3].contains(&"e-45".to_string()));
}
