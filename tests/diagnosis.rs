//! "Why is this still here?" for each kind of blocker, asserted on the
//! structured answer, driven through the simulator.

use ownerscope::model::Policy;
use ownerscope::model::diagnosis::{self, Diagnosis, Fate};
use ownerscope::sim::scenario::{self, Target};
use ownerscope::sim::{DeleteOptions, Sim};

fn sim(name: &str) -> Sim {
    Sim::new(&scenario::bundled(name).expect("bundled")).expect("starts")
}

fn inline(yaml: &str) -> Sim {
    Sim::new(&scenario::parse("inline.yaml", yaml).expect("parses")).expect("starts")
}

fn why(sim: &Sim, kind: &str, ns: Option<&str>, name: &str) -> Diagnosis {
    let key = sim
        .resolve(&Target {
            kind: kind.into(),
            namespace: ns.map(str::to_string),
            name: name.into(),
        })
        .expect("resolves");
    let obj = sim
        .get(&key)
        .unwrap_or_else(|| panic!("{kind}/{name} exists at {}ms", sim.now_ms()));
    diagnosis::diagnose(sim.graph(), obj.uid(), sim.now(), &sim.controller_map())
}

#[test]
fn foreground_owner_names_blocking_dependent_its_finalizer_and_offline_controller() {
    let mut s = sim("foreground-blocked");
    s.advance(10_000);
    let d = why(&s, "deployment", Some("shop"), "api");
    assert_eq!(d.terminating_seconds, Some(9));
    assert_eq!(d.blockers.len(), 1, "{d:#?}");
    let b = &d.blockers[0];
    assert_eq!(
        (b.object.kind.as_str(), b.object.name.as_str()),
        ("ConfigMap", "api-cache")
    );
    assert_eq!(b.finalizers[0].info.name, "example.com/cache-flush");
    assert_eq!(b.finalizers[0].controller_online, Some(false));
    assert_eq!(d.causes, vec!["ConfigMap/api-cache holds finalizer example.com/cache-flush and its controller is offline".to_string()]);
    assert!(
        d.headline()
            .starts_with("Terminating for 9s: ConfigMap/api-cache holds finalizer")
    );
    // The blocking dependent says whom it blocks.
    let cm = why(&s, "configmap", Some("shop"), "api-cache");
    assert_eq!(cm.blocks, vec!["Deployment/api".to_string()]);
    // Bringing the controller online resolves both.
    s.set_controller("example.com/cache-flush", true);
    s.advance(5_000);
    assert!(
        s.objects().next().is_none(),
        "everything is gone once the controller is back"
    );
}

#[test]
fn blockers_are_followed_down_to_pods_in_their_grace_period() {
    let mut s = sim("foreground-blocked");
    // 1s: DELETE; 1.2s: GC deletes RS (foreground) and the ConfigMap; 1.4s:
    // the pods get their grace period.
    s.advance(1_500);
    let d = why(&s, "deployment", Some("shop"), "api");
    let rs = d
        .blockers
        .iter()
        .find(|b| b.object.kind == "ReplicaSet")
        .expect("RS blocks");
    assert_eq!(rs.blocked_by.len(), 2, "{rs:#?}");
    assert!(
        rs.blocked_by
            .iter()
            .all(|p| p.object.kind == "Pod" && p.grace_left == Some(29))
    );
    assert!(
        d.causes
            .iter()
            .any(|c| c.contains("is in its grace period (29s left)")),
        "{:?}",
        d.causes
    );
    let pod = why(&s, "pod", Some("shop"), "api-5c4d9b7f6-h8k3s");
    assert_eq!(pod.grace_left, Some(29));
    assert!(
        pod.headline()
            .starts_with("Terminating (grace period, 29s left)"),
        "{}",
        pod.headline()
    );
}

#[test]
fn orphan_deletion_lists_the_dependents_being_released() {
    let mut s = inline(
        "name: t\nsettings: {gcDelay: 5s}\nobjects:\n- apiVersion: apps/v1\n  kind: ReplicaSet\n  metadata: {name: r, namespace: a}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n    namespace: a\n    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: r}]\n",
    );
    s.delete(
        &Target {
            kind: "rs".into(),
            namespace: Some("a".into()),
            name: "r".into(),
        },
        &DeleteOptions::policy(Policy::Orphan),
    );
    s.advance(1_000);
    let d = why(&s, "rs", Some("a"), "r");
    assert_eq!(d.releasing, vec!["ConfigMap/c".to_string()]);
    assert!(
        d.causes[0].contains("releasing 1 dependent from ReplicaSet/r"),
        "{:?}",
        d.causes
    );
}

#[test]
fn stuck_namespace_groups_remaining_content_by_finalizer() {
    let mut s = sim("namespace-stuck");
    s.advance(60_000);
    let d = why(&s, "namespace", None, "legacy");
    let ns = d.namespace.expect("namespace status");
    assert_eq!(ns.phase, "Terminating");
    assert_eq!(ns.spec_finalizers, vec!["kubernetes".to_string()]);
    assert_eq!(
        ns.remaining_by_finalizer.get("example.com/lock-release"),
        Some(&vec!["ConfigMap/legacy-lock".to_string()])
    );
    assert_eq!(ns.remaining, vec!["ConfigMap/legacy-lock".to_string()]);
    let cond = |t: &str| ns.conditions.iter().find(|c| c.kind == t).expect(t).clone();
    assert_eq!(
        cond("NamespaceContentRemaining").message,
        "Some resources are remaining: configmaps. has 1 resource instances"
    );
    assert_eq!(
        cond("NamespaceFinalizersRemaining").message,
        "Some content in the namespace has finalizers remaining: example.com/lock-release in 1 resource instances"
    );
    assert_eq!(ns.conditions.len(), 5);
}

#[test]
fn doomed_objects_are_predicted_collected() {
    // Before the GC's first pass, the stale-uid Secret is doomed.
    let s = sim("wrong-uid");
    let d = why(&s, "secret", Some("billing"), "settings-token");
    assert!(
        matches!(&d.fate, Fate::WillBeCollected { reason } if reason.contains("recreated with another uid")),
        "{d:#?}"
    );
    // Its sibling with one valid owner is protected; the stale reference will be dropped.
    let d = why(&s, "secret", Some("billing"), "settings-backup");
    assert!(
        matches!(&d.fate, Fate::Protected { dropped, .. } if dropped.len() == 1),
        "{d:#?}"
    );

    // Only owner waiting in foreground: collected.
    let mut s = inline(
        "name: t\nsettings: {gcDelay: 5s}\nobjects:\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: d, namespace: a}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n    namespace: a\n    ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: d, blockOwnerDeletion: true}]\n",
    );
    s.delete(
        &Target {
            kind: "deploy".into(),
            namespace: Some("a".into()),
            name: "d".into(),
        },
        &DeleteOptions::policy(Policy::Foreground),
    );
    let d = why(&s, "cm", Some("a"), "c");
    assert!(
        matches!(&d.fate, Fate::WillBeCollected { reason } if reason.contains("foreground")),
        "{d:#?}"
    );
}

#[test]
fn unresolvable_and_unknown_kind_references_are_never_collected() {
    let s = sim("invalid-references");
    let d = why(&s, "clusterrole", None, "team-a-reader");
    assert!(
        matches!(&d.fate, Fate::NeverCollected { reason } if reason.contains("cluster-scoped"))
    );
    let d = why(&s, "cm", Some("team-a"), "widget-state");
    assert!(
        matches!(&d.fate, Fate::NeverCollected { reason } if reason.contains("does not serve"))
    );
}

#[test]
fn an_owner_stuck_on_its_own_finalizer_protects_its_dependents() {
    let mut s = sim("stuck-owner");
    s.advance(10_000);
    let d = why(&s, "secret", Some("data"), "orders-credentials");
    match &d.fate {
        Fate::Protected {
            owners,
            stuck_owners,
            ..
        } => {
            assert_eq!(owners, &vec!["Database/orders".to_string()]);
            assert_eq!(stuck_owners.len(), 1);
        }
        other => panic!("expected protected, got {other:?}"),
    }
    let owner = why(&s, "database", Some("data"), "orders");
    assert_eq!(owner.finalizers[0].controller_online, Some(false));
    assert!(owner.causes[0].contains("controller is offline"));
}

/// A pod in its grace period has a deletionTimestamp ahead of now: its
/// answer says when (`in 30s`), never `in 30s ago`, and its state reads
/// as Terminating with the grace left.
#[test]
fn a_deletion_timestamp_ahead_reads_in_never_in_ago() {
    let mut s = inline(
        "name: t\nobjects:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p, namespace: a}\n  spec: {nodeName: n, terminationGracePeriodSeconds: 30}\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n}\n  status: {conditions: [{type: Ready, status: 'True'}]}\n",
    );
    s.delete(
        &Target {
            kind: "pod".into(),
            namespace: Some("a".into()),
            name: "p".into(),
        },
        &DeleteOptions::policy(Policy::Background),
    );
    let d = why(&s, "pod", Some("a"), "p");
    assert!(d.terminating_seconds.is_some_and(|t| t < 0), "{d:#?}");
    let text = d.lines().join("\n");
    assert!(text.contains("(in 30s)"), "{text}");
    assert!(!text.contains(" ago"), "{text}");
    assert!(
        d.headline()
            .starts_with("Terminating (grace period, 30s left)"),
        "{text}"
    );
}

/// `why`'s lines say who removes a finalizer with the catalogue's "(stuck
/// if it is not running)" only where nothing beside says whether that
/// controller runs.
#[test]
fn why_says_stuck_if_not_running_only_where_the_controller_state_is_not_said() {
    let scenario = |controllers: &str| {
        format!(
            "name: held\nobjects:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {{name: cache, namespace: shop, finalizers: [example.com/flush]}}\n{controllers}steps:\n  - {{at: 1s, delete: {{kind: ConfigMap, namespace: shop, name: cache}}}}\n"
        )
    };
    let removed_by = |s: &Sim| -> String {
        why(s, "configmap", Some("shop"), "cache")
            .lines()
            .into_iter()
            .find(|l| l.trim_start().starts_with("removed by:"))
            .expect("a removed by line")
    };
    let mut known = inline(&scenario(
        "controllers:\n  - {finalizer: example.com/flush, online: false}\n",
    ));
    known.advance(3_000);
    assert_eq!(
        removed_by(&known),
        "    removed by: the controller that added example.com/flush, once its cleanup is done"
    );
    let mut unknown = inline(&scenario(""));
    unknown.advance(3_000);
    assert_eq!(
        removed_by(&unknown),
        "    removed by: the controller that added example.com/flush, once its cleanup is done (stuck if it is not running)"
    );
}

/// A root in a namespace being deleted is not "kept until someone deletes
/// it": the namespace controller deletes it (R58). Asked while the
/// namespace waits for a held object, both read as a user reads them.
#[test]
fn a_root_in_a_terminating_namespace_is_said_to_go_with_it() {
    let mut s = inline(
        r"
name: ns-root
objects:
  - {apiVersion: v1, kind: Namespace, metadata: {name: going}}
  - {apiVersion: v1, kind: ConfigMap, metadata: {name: held, namespace: going, finalizers: [example.com/hold]}}
  - {apiVersion: v1, kind: Namespace, metadata: {name: staying}}
  - {apiVersion: v1, kind: ConfigMap, metadata: {name: plain, namespace: staying}}
",
    );
    let before = why(&s, "configmap", Some("going"), "held");
    assert!(
        before
            .causes
            .iter()
            .any(|c| c.contains("it stays until someone deletes it")),
        "{:?}",
        before.causes
    );
    let r = s.delete(
        &Target {
            kind: "namespace".into(),
            namespace: None,
            name: "going".into(),
        },
        &DeleteOptions::default(),
    );
    assert!(r.is_success(), "{r:?}");
    let d = why(&s, "configmap", Some("going"), "held");
    assert_eq!(d.namespace_terminating.as_deref(), Some("going"));
    let text = d.causes.join("\n");
    assert!(
        text.contains("its namespace going is being deleted: the namespace controller deletes it"),
        "{text}"
    );
    assert!(!text.contains("until someone deletes it"), "{text}");
    let other = why(&s, "configmap", Some("staying"), "plain");
    assert!(other.namespace_terminating.is_none());
    assert!(
        other
            .causes
            .iter()
            .any(|c| c.contains("until someone deletes it")),
        "{:?}",
        other.causes
    );
}
