use super::*;

fn deleted_deployment(sim: Sim) -> Sim {
    let mut sim = sim;
    let target = Target {
        kind: "deployment".into(),
        namespace: Some("shop".into()),
        name: "web".into(),
    };
    let resp = sim.delete(&target, &DeleteOptions::default());
    assert!(resp.is_success(), "{}", resp.message);
    sim.settle(60_000);
    sim
}

#[test]
fn a_headless_run_keeps_no_changes_for_watchers() {
    let sc = crate::sim::scenario::bundled("deployment").expect("bundled");
    let mut watched = deleted_deployment(Sim::new(&sc).expect("sim"));
    assert!(!watched.take_watch_changes().is_empty());
    let mut headless = deleted_deployment(Sim::load(sc).expect("sim").unwatched());
    assert!(headless.take_watch_changes().is_empty());
    assert_eq!(watched.timeline().len(), headless.timeline().len());
}

/// Objects restored together are put in uid order at the end; a uid
/// given twice is still refused, naming the later object and its line,
/// whether the two are next to each other or not, and the objects
/// restored are then found by uid, name and owner as if one by one.
#[test]
fn a_uid_given_twice_is_refused_at_the_later_object() {
    let cm = |name: &str, uid: &str| {
        format!(
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: {name}, namespace: shop, uid: {uid}}}\n"
        )
    };
    let text = format!(
        "name: t\nobjects:\n{}{}{}{}",
        cm("a", "u-3"),
        cm("b", "u-1"),
        cm("c", "u-2"),
        cm("d", "u-1")
    );
    // From a file: an error finds the object's line in it again.
    let path =
        std::env::temp_dir().join(format!("ownerscope-uid-twice-{}.yaml", std::process::id()));
    std::fs::write(&path, &text).expect("write");
    let sc = crate::sim::scenario::load(&path.to_string_lossy()).expect("parses");
    let e = Sim::load(sc).expect_err("refused");
    std::fs::remove_file(&path).ok();
    assert_eq!(e.field, "objects[3]");
    assert_eq!(e.line, 12);
    assert!(e.message.contains("uid u-1 is already taken"), "{e}");

    let text = format!(
        "name: t\nobjects:\n{}{}- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p\n    namespace: shop\n    uid: u-0\n    ownerReferences: [{{apiVersion: v1, kind: ConfigMap, name: b, uid: u-1}}]\n",
        cm("a", "u-3"),
        cm("b", "u-1"),
    );
    let sim =
        Sim::load(crate::sim::scenario::parse("t.yaml", &text).expect("parses")).expect("loads");
    let uids: Vec<&str> = sim.objects().map(Object::uid).collect();
    assert_eq!(uids, ["u-0", "u-1", "u-3"], "in uid order");
    let g = sim.graph();
    assert_eq!(g.get("u-1").map(Object::name), Some("b"));
    assert_eq!(
        g.find("", "ConfigMap", Some("shop"), "a").map(Object::uid),
        Some("u-3")
    );
    assert_eq!(
        g.shared_referrers("u-1")
            .map(|o| o.name())
            .collect::<Vec<_>>(),
        ["p"]
    );
}

/// A restore's index by name is built on another thread, apart from the
/// loop that restores each object (every restore of two or more in the
/// tests): a name given twice is still refused at the later object, and
/// the first object refused is the one refused one by one, whether for its
/// name or for what the loop finds (a finalizer no API server takes),
/// before a uid given twice, found only at the end.
#[test]
fn a_name_given_twice_is_refused_at_the_later_object_as_one_by_one() {
    let cm = |name: &str, uid: &str, finalizer: &str| {
        format!(
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: {name}, namespace: shop, uid: {uid}, finalizers: [{finalizer}]}}\n"
        )
    };
    // The objects refused at `field`, with a message that says `says`.
    let refused_at = |objects: &[String], field: &str, says: &str| {
        let text = format!("name: t\nobjects:\n{}", objects.concat());
        let sc = crate::sim::scenario::parse("t.yaml", &text).expect("parses");
        let e = Sim::load(sc).expect_err("refused");
        assert_eq!(e.field, field, "{e}");
        assert!(e.message.contains(says), "{e}");
    };
    let ok = "example.com/keep";
    let bad = "'a b'";
    // A uid twice (a, then d) and a name twice (b, then c, before d): the
    // name, as the loop one by one refused c before reaching the end.
    let (a, b, c, d) = (
        cm("a", "u-1", ok),
        cm("b", "u-2", ok),
        cm("c", "u-3", ok),
        cm("d", "u-1", ok),
    );
    let b_again = cm("b", "u-4", ok);
    refused_at(
        &[a, b, c, b_again, d],
        "objects[3]",
        "configmaps \"b\" already exists",
    );
    // A name twice after a finalizer refused: the finalizer.
    let after = [cm("a", "u-1", ok), cm("b", "u-2", bad), cm("a", "u-3", ok)];
    refused_at(&after, "objects[1]", "metadata.finalizers[0]");
    // A finalizer refused after a name twice: the name.
    let before = [
        cm("a", "u-1", ok),
        cm("a", "u-2", ok),
        cm("b", "u-3", ok),
        cm("c", "u-4", bad),
    ];
    refused_at(&before, "objects[1]", "configmaps \"a\" already exists");
    // The same names in another namespace, or of another kind, are not
    // taken; every object restored is found by its name.
    let text = format!(
        "name: t\nobjects:\n{}{}{}- apiVersion: v1\n  kind: Secret\n  metadata: {{name: a, namespace: shop, uid: u-9}}\n",
        cm("a", "u-1", ok),
        cm("b", "u-2", ok),
        cm("c", "u-3", ok).replace("name: c, namespace: shop", "name: a, namespace: other"),
    );
    let sim =
        Sim::load(crate::sim::scenario::parse("t.yaml", &text).expect("parses")).expect("loads");
    let found = |kind: &str, ns: &str, name: &str| {
        sim.graph()
            .find("", kind, Some(ns), name)
            .map(|o| o.uid().to_string())
    };
    assert_eq!(found("ConfigMap", "shop", "a").as_deref(), Some("u-1"));
    assert_eq!(found("ConfigMap", "shop", "b").as_deref(), Some("u-2"));
    assert_eq!(found("ConfigMap", "other", "a").as_deref(), Some("u-3"));
    assert_eq!(found("Secret", "shop", "a").as_deref(), Some("u-9"));
}

/// A deferred simulator reads as a primed one, and runs as one: for
/// every bundled scenario, the same objects before its first call,
/// and the same timeline and objects after the same run.
#[test]
fn a_deferred_start_reads_and_runs_as_an_eager_one() {
    for (name, _) in crate::sim::scenario::BUNDLED {
        let sc = crate::sim::scenario::bundled(name).expect("bundled");
        let seed = sc.settings.seed;
        let mut eager = Sim::load(sc.clone()).expect("sim");
        let mut deferred = Sim::load_deferred(sc, seed).expect("sim");
        assert!(deferred.unprimed.is_some(), "{name}");
        let objects = |s: &Sim| s.objects().cloned().collect::<Vec<_>>();
        assert_eq!(objects(&eager), objects(&deferred), "{name}: as loaded");
        eager.settle(120_000);
        deferred.settle(120_000);
        assert!(deferred.unprimed.is_none(), "{name}");
        assert_eq!(eager.timeline(), deferred.timeline(), "{name}: timeline");
        assert_eq!(objects(&eager), objects(&deferred), "{name}: settled");
        assert_eq!(eager.now_ms(), deferred.now_ms(), "{name}: clock");
    }
}

/// The initial list taken on three threads (the collector, the workload
/// index, the handlers) runs as the same list taken on one: the same
/// tasks queued in the same order, the same timeline and objects once
/// settled. For every bundled scenario, and for one whose list has what
/// the handlers read the index for: orphans that a ReplicaSet listed
/// before or after them selects, a pod listed before its ReplicaSet, a
/// Node after a DaemonSet.
#[test]
fn an_initial_list_taken_apart_runs_as_one_taken_on_one_thread() {
    let text = r"
name: list
objects:
  - {apiVersion: v1, kind: Namespace, metadata: {name: shop, uid: u-00}}
  - apiVersion: apps/v1
    kind: DaemonSet
    metadata: {name: agent, namespace: shop, uid: u-01}
    spec:
      selector: {matchLabels: {app: agent}}
      template: {metadata: {labels: {app: agent}}}
  - {apiVersion: v1, kind: Node, metadata: {name: node-1, uid: u-02}}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: early
      namespace: shop
      uid: u-03
      labels: {app: web}
      ownerReferences:
        - {apiVersion: apps/v1, kind: ReplicaSet, name: late, uid: u-06, controller: true}
  - apiVersion: apps/v1
    kind: ReplicaSet
    metadata: {name: first, namespace: shop, uid: u-04}
    spec:
      replicas: 1
      selector: {matchLabels: {app: web}}
      template: {metadata: {labels: {app: web}}}
  - {apiVersion: v1, kind: Pod, metadata: {name: orphan-a, namespace: shop, uid: u-05, labels: {app: web}}}
  - apiVersion: apps/v1
    kind: ReplicaSet
    metadata: {name: late, namespace: shop, uid: u-06}
    spec:
      replicas: 2
      selector: {matchLabels: {app: web}}
      template: {metadata: {labels: {app: web}}}
  - {apiVersion: v1, kind: Pod, metadata: {name: orphan-b, namespace: shop, uid: u-07, labels: {app: web}}}
  - {apiVersion: v1, kind: Node, metadata: {name: node-2, uid: u-08}}
";
    let listed = crate::sim::scenario::parse("list.yaml", text).expect("parses");
    let scenarios = crate::sim::scenario::BUNDLED
        .iter()
        .map(|(name, _)| crate::sim::scenario::bundled(name).expect("bundled"))
        .chain([listed]);
    for sc in scenarios {
        let name = sc.name.clone();
        let seed = sc.settings.seed;
        let run = |one_thread: bool| {
            LIST_ON_ONE_THREAD.set(one_thread);
            let mut sim = Sim::load_deferred(sc.clone(), seed).expect("sim");
            sim.prime();
            LIST_ON_ONE_THREAD.set(false);
            let queued: Vec<Task> = sim.tasks.values().cloned().collect();
            sim.settle(120_000);
            (queued, sim)
        };
        let (queued_apart, apart) = run(false);
        let (queued_one, one) = run(true);
        assert_eq!(queued_apart, queued_one, "{name}: queued");
        assert_eq!(apart.timeline(), one.timeline(), "{name}: timeline");
        let objects = |s: &Sim| s.objects().cloned().collect::<Vec<_>>();
        assert_eq!(objects(&apart), objects(&one), "{name}: settled");
    }
}
