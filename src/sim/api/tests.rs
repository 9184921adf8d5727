use super::*;

fn server() -> ApiServer {
    ApiServer::new(KindTable::builtin(), 1, Timestamp::UNIX_EPOCH)
}

#[test]
fn uids_are_deterministic_per_seed() {
    let a: Vec<Uid> = (0..3).map(|_| UidGen::new(7).next_uid()).collect();
    assert_eq!(a[0], a[1]);
    let mut g = UidGen::new(7);
    assert_ne!(g.next_uid(), g.next_uid());
    assert_ne!(UidGen::new(7).next_uid(), UidGen::new(8).next_uid());
}

#[test]
fn delete_of_plain_object_removes_it_with_200() {
    let mut api = server();
    let c = Caller::default();
    let resp = api.create(Object::new("v1", "ConfigMap", Some("a"), "x"), &c, false);
    assert_eq!(resp.code, 201);
    let key = Key {
        group: String::new(),
        kind: "ConfigMap".into(),
        namespace: Some("a".into()),
        name: "x".into(),
    };
    let resp = api.delete(&key, &DeleteOptions::policy(Policy::Background));
    assert_eq!((resp.code, resp.removed), (200, true));
    assert_eq!(
        api.delete(&key, &DeleteOptions::default()).message,
        "configmaps \"x\" not found"
    );
}

/// `o` updated: its generation is `want`.
fn updated(api: &mut ApiServer, o: Object, want: Option<i64>, what: &str) -> Object {
    let resp = api.update(o, &Caller::default());
    assert_eq!(resp.code, 200, "{what}: {}", resp.message);
    let o = Object::clone(&resp.object.expect("updated"));
    assert_eq!(o.metadata.generation, want, "{what}");
    o
}

/// `o` with `text` as the fields only `ownerscope serve` keeps.
fn with_unkept(mut o: Object, text: &str) -> Object {
    o.extra_mut().managed_fields = Some(Box::new(serde_json::json!([text])));
    o
}

#[test]
fn generation_on_create_is_given_to_the_kinds_1_20_gives_it_to() {
    // As the test control plane (1.20.2) answered the same creates.
    let mut api = server();
    let c = Caller::default();
    let mut created = |api_version: &str, kind: &str, generation: Option<i64>| {
        let mut o = Object::new(api_version, kind, Some("a"), "x");
        o.set_at(&["spec", "replicas"], serde_json::json!(0));
        o.metadata.generation = generation;
        let resp = api.create(o, &c, false);
        assert_eq!(resp.code, 201, "{kind}: {}", resp.message);
        resp.object.expect("created").metadata.generation
    };
    for (api_version, kind) in [
        ("v1", "Pod"),
        ("v1", "Service"),
        ("v1", "PersistentVolumeClaim"),
        ("batch/v1", "Job"),
        ("batch/v1beta1", "CronJob"),
        ("autoscaling/v1", "HorizontalPodAutoscaler"),
    ] {
        assert_eq!(created(api_version, kind, None), None, "{kind}: none");
    }
    for (api_version, kind) in [
        ("apps/v1", "Deployment"),
        ("apps/v1", "StatefulSet"),
        ("v1", "ReplicationController"),
        ("networking.k8s.io/v1", "Ingress"),
        ("networking.k8s.io/v1", "NetworkPolicy"),
        ("policy/v1beta1", "PodDisruptionBudget"),
    ] {
        // A client's generation is not the object's: its strategy sets 1.
        assert_eq!(created(api_version, kind, Some(5)), Some(1), "{kind}");
    }
}

#[test]
fn generation_rises_on_any_spec_change_and_a_deployments_annotations() {
    let mut api = server();
    let c = Caller::default();
    let mut d = Object::new("apps/v1", "Deployment", Some("a"), "d");
    d.set_at(&["spec", "replicas"], serde_json::json!(1));
    let env = |v: &str| {
        format!(
            r#"{{"spec":{{"template":{{"spec":{{"containers":[{{"env":[{{"name":"A","value":"{v}"}}]}}]}}}}}}}}"#
        )
    };
    let made = api.create(with_unkept(d, &env("1")), &c, false);
    assert_eq!(made.code, 201);
    let mut at = Object::clone(&made.object.expect("created"));
    assert_eq!(at.metadata.generation, Some(1));
    // The template's env, which only serve keeps: as kube-apiserver 1.20.
    at = updated(&mut api, with_unkept(at, &env("2")), Some(2), "env changed");
    at.metadata.labels.insert("l".into(), "1".into());
    at = updated(&mut api, at, Some(2), "a label changed");
    at.metadata.annotations.insert("a".into(), "1".into());
    at = updated(&mut api, at, Some(3), "an annotation changed");
    // Unkept fields outside the spec are no spec change.
    updated(
        &mut api,
        with_unkept(at, &format!(r#"{{"status":{{"x":1}},{}"#, &env("2")[1..])),
        Some(3),
        "the same spec",
    );
    // A ConfigMap has no spec, and no generation.
    let cm = Object::new("v1", "ConfigMap", Some("a"), "c");
    let made = api.create(with_unkept(cm, r#"{"data":{"k":"v"}}"#), &c, false);
    let cm = Object::clone(&made.object.expect("created"));
    let cm = updated(
        &mut api,
        with_unkept(cm, r#"{"data":{"k":"w"}}"#),
        None,
        "ConfigMap data",
    );
    assert_eq!(cm.extra().unkept_text(), Some(r#"{"data":{"k":"w"}}"#));
}
