use super::*;

#[test]
fn durations() {
    assert_eq!(Millis::parse("5s"), Some(Millis(5000)));
    assert_eq!(Millis::parse("1.5s"), Some(Millis(1500)));
    assert_eq!(Millis::parse("200ms"), Some(Millis(200)));
    assert_eq!(Millis::parse("2m"), Some(Millis(120_000)));
    assert_eq!(Millis::parse("3"), Some(Millis(3000)));
    assert_eq!(Millis::parse("soon"), None);
    assert_eq!(Millis::parse("-1s"), None);
}

#[test]
fn timestamps_from_1970_up_to_2500_load_and_later_ones_are_refused() {
    let with = |ts: &str| {
        format!(
            "name: t\nobjects:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: c, namespace: shop, creationTimestamp: \"{ts}\"}}\n"
        )
    };
    for ok in ["1970-01-01T00:00:00Z", "2499-12-31T23:59:59Z"] {
        assert!(parse("t.yaml", &with(ok)).is_ok(), "{ok}");
    }
    let e = parse("t.yaml", &with("2500-01-01T00:00:00Z")).expect_err("refused");
    assert_eq!(e.field, "objects[0].metadata.creationTimestamp");
    assert!(
        e.message.contains("outside 1970-01-01 .. 2500-01-01"),
        "{e}"
    );
}

#[test]
fn owner_uid_filled_from_name() {
    let text = "name: t\nobjects:\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web, namespace: shop}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n    namespace: shop\n    ownerReferences:\n    - {apiVersion: apps/v1, kind: Deployment, name: web}\n";
    let s = parse("t.yaml", text).expect("loads");
    assert_eq!(
        s.objects[1].metadata.owner_references[0].uid,
        s.objects[0].metadata.uid
    );
    assert_eq!(lines_of("owner-uid.yaml", text), vec![3, 6]);
}

/// Each object's line, as an error finds it: read from the file again
/// (a file read without errors keeps no line table).
fn lines_of(name: &str, text: &str) -> Vec<usize> {
    let dir = std::env::temp_dir().join(format!("ownerscope-lines-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    let s = load(&path.to_string_lossy()).expect("loads");
    let lines = (0..s.objects.len()).map(|i| s.object_line(i)).collect();
    std::fs::remove_file(&path).ok();
    lines
}

#[test]
fn unresolvable_owner_name_is_located() {
    let text = "name: t\nobjects:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n    namespace: shop\n    ownerReferences:\n    - {apiVersion: apps/v1, kind: Deployment, name: nope}\n";
    let e = parse("t.yaml", text).expect_err("fails");
    assert_eq!(e.line, 9);
    assert_eq!(e.field, "objects[0].metadata.ownerReferences[0]");
    assert!(e.to_string().starts_with(
        "t.yaml:9: objects[0].metadata.ownerReferences[0]: no Deployment named \"nope\""
    ));
}

#[test]
fn bad_step_and_unknown_field_are_located() {
    let text = "name: t\nsteps:\n  - at: 1s\n    delete: {kind: Pod, name: p}\n    controller: {finalizer: x, online: true}\n";
    let e = parse("t.yaml", text).expect_err("two actions");
    assert_eq!((e.line, e.field.as_str()), (3, "steps[0]"));
    let e = parse("t.yaml", "name: t\nobjects: []\nsetings: {}\n").expect_err("typo");
    assert!(e.message.contains("unknown field `setings`"), "{e}");
    let e = parse(
        "t.yaml",
        "name: t\nsteps:\n  - at: later\n    delete: {kind: Pod, name: p}\n",
    )
    .expect_err("duration");
    assert_eq!((e.line, e.field.as_str()), (3, "steps[0].at"));
}

/// A `kinds:` list (every snapshot has one) adds to the standard
/// kinds and never resets them (R12): a Job deleted with no policy
/// still orphans its pods, `deploy/x` still resolves.
#[test]
fn declared_kinds_keep_the_standard_facts() {
    use crate::model::Policy;
    use crate::sim::{DeleteOptions, Sim};
    let text = r#"
name: snap
kinds:
  - {apiVersion: batch/v1, kind: Job, plural: jobs, namespaced: true}
  - {apiVersion: apps/v1, kind: Deployment, plural: deployments, namespaced: true}
objects:
  - apiVersion: batch/v1
    kind: Job
    metadata: {name: nightly, namespace: ops, uid: j1}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: nightly-x
      namespace: ops
      ownerReferences: [{apiVersion: batch/v1, kind: Job, name: nightly, uid: j1, controller: true, blockOwnerDeletion: true}]
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web, namespace: ops}
"#;
    let sc = parse("snap.yaml", text).expect("loads");
    let kinds = sc.kind_table();
    let job = kinds.get("batch", "Job").expect("job");
    assert_eq!(
        job.default_policy,
        crate::model::DefaultPolicy::Policy(Policy::Orphan)
    );
    let mut sim = Sim::new(&sc).expect("sim");
    let t = |kind: &str, name: &str| Target {
        kind: kind.into(),
        namespace: Some("ops".into()),
        name: name.into(),
    };
    assert!(sim.resolve(&t("deploy", "web")).is_ok(), "short name kept");
    let r = sim.delete(&t("job", "nightly"), &DeleteOptions::default());
    assert!(r.is_success(), "{}", r.message);
    assert!(
        r.warnings
            .iter()
            .any(|w| w.starts_with("child pods are preserved")),
        "{:?}",
        r.warnings
    );
    sim.settle(60_000);
    let pod = sim
        .objects()
        .find(|o| o.name() == "nightly-x")
        .expect("the pod is orphaned, not deleted");
    assert!(pod.metadata.owner_references.is_empty());
    assert!(sim.objects().all(|o| o.name() != "nightly"));
}

/// The JSON fast path reads what the located path reads, and leaves
/// every error to it.
#[test]
fn json_fast_path_agrees_with_the_located_path() {
    let list = r#"{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[
  {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","uid":"d1","managedFields":[{"manager":"kubectl"}]},"spec":{"replicas":2}},
  {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-1","namespace":"shop","ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","controller":true}]}}
]}"#;
    let snapshot = r#"{"name":"snap","description":"a cluster","kinds":[{"apiVersion":"example.com/v1","kind":"Database","namespaced":true}],
"objects":[{"apiVersion":"example.com/v1","kind":"Database","metadata":{"name":"orders","namespace":"shop","uid":"db1","finalizers":["example.com/x"]}}]}"#;
    // A snapshot a rehearsal gave settings to (the pod GC's threshold).
    let with_settings = snapshot.replace(
        r#""kinds""#,
        r#""takenAt":"2026-11-26T06:00:00Z","settings":{"terminatedPodGcThreshold":2},"kinds""#,
    );
    for (file, text) in [
        ("list.json", list),
        ("snap.json", snapshot),
        ("set.json", with_settings.as_str()),
    ] {
        let fast = parse_json_fast(file, text).expect("fast path taken");
        let mut slow = parse_located(file, text).expect("located path");
        assert!(fast.object_lines.is_empty());
        slow.object_lines.clear();
        assert_eq!(fast, slow, "{file}");
    }
    // Problems go to the located path, which names the line.
    let missing_name = list.replace(r#""name":"web-1","#, "");
    assert!(parse_json_fast("l.json", &missing_name).is_none());
    let e = parse("l.json", &missing_name).expect_err("no name");
    assert_eq!((e.line, e.field.as_str()), (3, "items[1].metadata.name"));
    let no_owner = list.replace(
        r#""name":"web","controller""#,
        r#""name":"gone","controller""#,
    );
    let e = parse("l.json", &no_owner).expect_err("no such owner");
    assert_eq!(
        (e.line, e.field.as_str()),
        (3, "items[1].metadata.ownerReferences[0]")
    );
    let bad_api = with_settings.replace(
        r#""terminatedPodGcThreshold":2"#,
        r#""unavailableApis":["v1"]"#,
    );
    assert!(parse_json_fast("s.json", &bad_api).is_none());
    assert_eq!(
        parse("s.json", &bad_api)
            .expect_err("not an aggregated API")
            .field,
        "settings.unavailableApis[0]"
    );
    let unknown = snapshot.replace(r#""description""#, r#""descripton""#);
    assert!(parse_json_fast("s.json", &unknown).is_none());
    assert!(
        parse("s.json", &unknown)
            .expect_err("unknown field")
            .field
            .contains("descripton")
    );
}

#[test]
fn lists_and_multidoc_manifests() {
    let list = r#"{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"x","uid":"u1"}}]}"#;
    let s = parse("dump.json", list).expect("list");
    assert_eq!(s.objects[0].metadata.uid, "u1");
    assert_eq!(s.name, "dump");
    let docs = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: b}\n";
    let s = parse("m.yaml", docs).expect("manifests");
    assert_eq!(s.objects.len(), 2);
    assert_eq!(lines_of("m.yaml", docs), vec![1, 5]);
    let e = parse(
        "m.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: a}\n",
    )
    .expect_err("no name");
    assert_eq!((e.line, e.field.as_str()), (3, "metadata.name"));
}

#[test]
fn a_snapshot_started_now_keeps_its_times_at_their_distance_from_when_it_was_taken() {
    // `serve` on a snapshot starts its clock at the real time: an object
    // deleted 4 s before the snapshot was taken reads 4 s old then, not
    // the months between 2026-01-01 and the snapshot.
    let text = r#"{"name": "snapshot-prod", "takenAt": "2026-11-26T06:00:00Z", "objects": [
      {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "shop",
       "creationTimestamp": "2026-11-20T00:00:00Z", "deletionTimestamp": "2026-11-26T05:59:56Z",
       "finalizers": ["example.com/hold"]}}]}"#;
    for text in [text.to_string(), format!("# yaml\n{text}")] {
        let mut s = parse("snap.json", &text).expect("parses");
        assert_eq!(
            s.settings.epoch.map(|t| t.to_string()).as_deref(),
            Some("2026-11-26T06:00:00Z")
        );
        let now: jiff::Timestamp = "2026-12-01T10:00:00Z".parse().expect("time");
        s.start_at(now);
        let m = &s.objects[0].metadata;
        assert_eq!(
            m.deletion_timestamp.map(|t| t.to_string()).as_deref(),
            Some("2026-12-01T09:59:56Z")
        );
        assert_eq!(
            m.creation_timestamp.map(|t| t.to_string()).as_deref(),
            Some("2026-11-25T04:00:00Z")
        );
    }
}
