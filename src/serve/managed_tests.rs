//! Field ownership, against what kube-apiserver 1.20 wrote and answered
//! for the same requests (`kubectl apply --server-side` by two managers,
//! a create by curl, `kubectl label`).

use serde_json::{Value, json};

use super::*;

fn w(manager: &str) -> Writer<'_> {
    Writer {
        manager,
        api_version: "v1",
        time: "2026-11-26T06:49:58Z",
    }
}

fn cm(labels: Value, data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": "ssa1", "labels": labels}, "data": data})
}

#[test]
fn an_applied_configuration_owns_its_leaves() {
    let set = applied_set(&cm(json!({"x": "1"}), json!({"key": "one", "k2": "v"})));
    assert_eq!(
        set.to_v1(),
        json!({"f:data": {"f:k2": {}, "f:key": {}}, "f:metadata": {"f:labels": {"f:x": {}}}})
    );
    assert_eq!(FieldSet::from_v1(&set.to_v1()), set);
    // Keyed lists and sets.
    let pod = json!({"metadata": {"finalizers": ["a/b"], "ownerReferences": [{"uid": "u1", "name": "o"}]},
                     "spec": {"containers": [{"name": "c", "image": "i"}], "selector": {"matchLabels": {"a": "1"}}}});
    assert_eq!(
        applied_set(&pod).to_v1(),
        json!({
            "f:metadata": {
                "f:finalizers": {"v:\"a/b\"": {}},
                "f:ownerReferences": {"k:{\"uid\":\"u1\"}": {".": {}, "f:name": {}, "f:uid": {}}},
            },
            "f:spec": {
                "f:containers": {"k:{\"name\":\"c\"}": {".": {}, "f:image": {}, "f:name": {}}},
                "f:selector": {},
            },
        })
    );
}

#[test]
fn a_create_owns_what_it_added_with_its_maps() {
    // curl's POST of a ConfigMap on 1.20.
    let (changed, removed) = changed_set(&json!({}), &cm(json!({"a": "1"}), json!({"k": "v"})));
    assert!(removed.is_empty());
    assert_eq!(
        changed.to_v1(),
        json!({"f:data": {".": {}, "f:k": {}}, "f:metadata": {"f:labels": {".": {}, "f:a": {}}}})
    );
    let entries = update(
        &[],
        &json!({}),
        &cm(json!({"a": "1"}), json!({"k": "v"})),
        &w("curl"),
    );
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].to_value()["operation"], "Update");
    assert_eq!(entries[0].to_value()["fieldsType"], "FieldsV1");
    // An update that changes nothing leaves the entries as they were.
    let live = cm(json!({"a": "1"}), json!({"k": "v"}));
    assert_eq!(update(&entries, &live, &live, &w("other")), entries);
}

#[test]
fn a_field_an_update_removes_is_no_managers_any_more() {
    // curl created data a and k.conf; m's merge patch {"data": {"a": null,
    // "c": "d"}}: on 1.20 m owns f:c, and curl's entry no longer lists f:a.
    let data = |d: Value| json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": d});
    let created = data(json!({"a": "b", "k.conf": "x"}));
    let entries = update(&[], &json!({}), &created, &w("curl"));
    let patched = data(json!({"k.conf": "x", "c": "d"}));
    let entries = update(&entries, &created, &patched, &w("m"));
    let by = |m: &str| {
        entries
            .iter()
            .find(|e| e.manager == m)
            .map(|e| e.set.to_v1())
            .expect("an entry")
    };
    assert_eq!(by("m"), json!({"f:data": {"f:c": {}}}));
    assert_eq!(by("curl"), json!({"f:data": {".": {}, "f:k.conf": {}}}));
}

#[test]
fn two_appliers_conflict_share_and_remove_as_kube_apiserver() {
    let empty = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa1"}});
    let a1 = cm(json!({"x": "1"}), json!({"key": "one", "k2": "v"}));
    let (live, entries) = apply(&[], &empty, &a1, &w("alice"), false).expect("no conflict");
    let a2 = cm(json!({"x": "2"}), json!({"key": "two"}));
    let conflicts = apply(&entries, &live, &a2, &w("bob"), false).expect_err("conflicts");
    let status = conflict_status(&conflicts);
    assert_eq!(status["code"], 409);
    assert_eq!(status["reason"], "Conflict");
    assert_eq!(
        status["message"],
        "Apply failed with 2 conflicts: conflicts with \"alice\":\n- .data.key\n- .metadata.labels.x"
    );
    assert_eq!(
        status["details"]["causes"][0],
        json!({"reason": "FieldManagerConflict", "message": "conflict with \"alice\"", "field": ".data.key"})
    );
    // --force-conflicts: bob takes them, alice keeps k2.
    let (live, entries) = apply(&entries, &live, &a2, &w("bob"), true).expect("forced");
    assert_eq!(live["data"], json!({"key": "two", "k2": "v"}));
    assert_eq!(live["metadata"]["labels"], json!({"x": "2"}));
    let sets: Vec<(String, Value)> = entries
        .iter()
        .map(|e| (e.manager.clone(), e.set.to_v1()))
        .collect();
    assert_eq!(
        sets,
        vec![
            ("alice".to_string(), json!({"f:data": {"f:k2": {}}})),
            (
                "bob".to_string(),
                json!({"f:data": {"f:key": {}}, "f:metadata": {"f:labels": {"f:x": {}}}})
            ),
        ]
    );
    // Alice drops k2 (nobody else has it: it goes) and names k3 and y.
    let a3 = cm(json!({"y": "1"}), json!({"k3": "v"}));
    let (live, entries) = apply(&entries, &live, &a3, &w("alice"), false).expect("no conflict");
    assert!(live["data"].get("k2").is_none());
    // Bob applies k3 with the same value: shared, no conflict; he drops
    // key and label x, which go.
    let b2 = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa1"}, "data": {"k3": "v"}});
    let (live, entries) = apply(&entries, &live, &b2, &w("bob"), false).expect("shared");
    assert_eq!(live["data"], json!({"k3": "v"}));
    assert_eq!(live["metadata"]["labels"], json!({"y": "1"}));
    assert!(
        entries
            .iter()
            .all(|e| e.set.contains(&["f:data".to_string(), "f:k3".to_string()]))
    );
}

#[test]
fn an_apply_conflicts_with_an_update_named_with_its_version() {
    let live = cm(json!({}), json!({}));
    let labelled = cm(json!({"z": "1"}), json!({}));
    let entries = update(&[], &live, &labelled, &w("kubectl-label"));
    assert_eq!(
        entries[0].set.to_v1(),
        json!({"f:metadata": {"f:labels": {"f:z": {}}}})
    );
    let mine = cm(json!({"z": "2"}), json!({}));
    let conflicts = apply(&entries, &labelled, &mine, &w("alice"), false).expect_err("conflict");
    assert_eq!(
        conflict_status(&conflicts)["message"],
        "Apply failed with 1 conflict: conflict with \"kubectl-label\" using v1: .metadata.labels.z"
    );
    // The same value is no conflict.
    assert!(apply(&entries, &labelled, &labelled, &w("alice"), false).is_ok());
}

#[test]
fn a_removed_element_of_a_keyed_list_or_set_goes() {
    let live = json!({"metadata": {"finalizers": ["a", "b"]}});
    let (after, entries) = apply(&[], &json!({}), &live, &w("alice"), false).expect("applied");
    assert_eq!(after["metadata"]["finalizers"], json!(["a", "b"]));
    let fewer = json!({"metadata": {"finalizers": ["a"]}});
    let (after, _) = apply(&entries, &after, &fewer, &w("alice"), false).expect("applied");
    assert_eq!(after["metadata"]["finalizers"], json!(["a"]));
    assert_eq!(
        display(&["f:metadata".into(), "f:finalizers".into(), "v:\"a\"".into()]),
        ".metadata.finalizers[=\"a\"]"
    );
    assert_eq!(
        display(&[
            "f:spec".into(),
            "f:containers".into(),
            "k:{\"name\":\"c\"}".into(),
            "f:image".into()
        ]),
        ".spec.containers[name=\"c\"].image"
    );
}

#[test]
fn the_default_manager_is_the_user_agents_first_word() {
    assert_eq!(default_manager("curl/7.88.1"), "curl");
    assert_eq!(
        default_manager("kubectl/v1.32.4 (linux/amd64) kubernetes/abc"),
        "kubectl"
    );
    assert_eq!(default_manager(""), "unknown");
}

#[test]
fn entries_are_listed_applies_first_then_oldest_then_by_manager() {
    let entry = |manager: &str, operation: &str, time: &str| Entry {
        manager: manager.into(),
        operation: operation.into(),
        api_version: "v1".into(),
        time: time.into(),
        set: applied_set(&json!({"data": {"k": "v"}})),
    };
    let listed = to_value(&[
        entry("curl", "Update", "2026-11-26T06:00:00Z"),
        entry("u", "Apply", "2026-11-26T06:00:01Z"),
        entry("t", "Apply", "2026-11-26T06:00:01Z"),
        entry("s", "Apply", "2026-11-26T06:00:02Z"),
    ]);
    let managers: Vec<&str> = listed
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["manager"].as_str())
        .collect();
    assert_eq!(managers, ["t", "u", "s", "curl"]);
}

// The garbage collector orphaning a ReplicaSet on the 1.20 test control
// plane: the owner reference, and every field of it, is no longer
// kube-controller-manager's, whose entry keeps the time it had (the
// write took no field: 1.20 stamps a manager only when its operation
// takes fields).
#[test]
fn a_write_that_only_removes_takes_the_subtree_and_keeps_the_time() {
    let owned = json!({"metadata": {"labels": {"app": "web"},
        "ownerReferences": [{"uid": "u1", "name": "web", "kind": "Deployment", "controller": true}]}});
    let first = update(&[], &json!({}), &owned, &w("kube-controller-manager"));
    assert!(first[0].set.to_v1()["f:metadata"]["f:ownerReferences"].is_object());
    let orphaned = json!({"metadata": {"labels": {"app": "web"}}});
    let later = Writer {
        time: "2026-11-26T07:00:00Z",
        ..w("kube-controller-manager")
    };
    let after = update(&first, &owned, &orphaned, &later);
    assert_eq!(after.len(), 1);
    assert_eq!(
        after[0].set.to_v1(),
        json!({"f:metadata": {"f:labels": {".": {}, "f:app": {}}}})
    );
    assert_eq!(after[0].time, "2026-11-26T06:49:58Z");
    // One element of two removed: that element's fields go, the other's
    // stay.
    let two = json!({"metadata": {"ownerReferences": [{"uid": "u1", "name": "a"}, {"uid": "u2", "name": "b"}]}});
    let one = json!({"metadata": {"ownerReferences": [{"uid": "u2", "name": "b"}]}});
    let first = update(&[], &json!({}), &two, &w("m"));
    let after = update(&first, &two, &one, &w("gc"));
    let refs = after[0].set.to_v1()["f:metadata"]["f:ownerReferences"].clone();
    assert!(refs.get("k:{\"uid\":\"u1\"}").is_none(), "{refs}");
    assert!(refs.get("k:{\"uid\":\"u2\"}").is_some(), "{refs}");
}

// A Deployment's create on 1.20: `strategy` and the template are in the
// Go zero value (no `.`), `rollingUpdate` is a pointer (its `.`), a pod
// spec's `containers` is there as null (no `.`), a container added owns
// all it holds, its `ports` with their `.`, keyed by port and protocol.
#[test]
fn what_the_zero_value_has_is_no_member_what_a_write_adds_is() {
    let d = json!({"spec": {
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%"}},
        "template": {"metadata": {"labels": {"app": "d"}},
                     "spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": "1"}},
                                              "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}}}});
    let (changed, _) = changed_set(&json!({}), &d);
    assert_eq!(
        changed.to_v1(),
        json!({"f:spec": {
            "f:strategy": {"f:rollingUpdate": {".": {}, "f:maxSurge": {}}, "f:type": {}},
            "f:template": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                "f:spec": {"f:containers": {"k:{\"name\":\"c\"}": {".": {}, "f:name": {},
                    "f:ports": {".": {}, "k:{\"containerPort\":80,\"protocol\":\"TCP\"}":
                        {".": {}, "f:containerPort": {}, "f:protocol": {}}},
                    "f:resources": {".": {}, "f:limits": {".": {}, "f:cpu": {}}}}}}}}})
    );
    // A container added by an update (a PUT adding a sidecar) owns all
    // it holds as well.
    let mut two = d.clone();
    two["spec"]["template"]["spec"]["containers"]
        .as_array_mut()
        .expect("list")
        .push(json!({"name": "s", "env": [{"name": "A", "value": "1"}]}));
    let (changed, _) = changed_set(&d, &two);
    assert_eq!(
        changed.to_v1(),
        json!({"f:spec": {"f:template": {"f:spec": {"f:containers": {"k:{\"name\":\"s\"}": {
            ".": {}, "f:env": {".": {}, "k:{\"name\":\"A\"}": {".": {}, "f:name": {}, "f:value": {}}},
            "f:name": {}}}}}}})
    );
}

#[test]
fn a_services_selector_is_owned_key_by_key_a_workloads_whole() {
    let svc = json!({"spec": {"selector": {"app": "p"}}});
    assert_eq!(
        changed_set(&json!({}), &svc).0.to_v1(),
        json!({"f:spec": {"f:selector": {".": {}, "f:app": {}}}})
    );
    assert_eq!(
        applied_set(&svc).to_v1(),
        json!({"f:spec": {"f:selector": {"f:app": {}}}})
    );
    let rs = json!({"spec": {"selector": {"matchLabels": {"app": "p"}}}});
    assert_eq!(
        changed_set(&json!({}), &rs).0.to_v1(),
        json!({"f:spec": {"f:selector": {}}})
    );
}

#[test]
fn an_element_without_a_key_that_has_no_default_cannot_be_typed() {
    let svc = json!({"spec": {"ports": [{"port": 80, "protocol": "TCP"}, {"port": 81}]}});
    assert_eq!(
        untyped(&svc).as_deref(),
        Some(
            "failed to create typed patch object: .spec.ports: element 1: associative list with keys has an element that omits key field \"protocol\" (and doesn't have default value)"
        )
    );
    let pod = json!({"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}]}});
    assert_eq!(untyped(&pod), None, "a container port's protocol defaults");
    // A container without a name is typed (keyed `""`), and refused by
    // validation, as on 1.20.
    let nameless = json!({"spec": {"containers": [{"image": "i"}]}});
    assert_eq!(untyped(&nameless), None);
}
