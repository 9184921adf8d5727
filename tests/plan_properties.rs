//! The deletion preview agrees with the simulator on random ownership
//! graphs, policies and finalizers, and on random workloads whose
//! controllers re-create, replace, re-adopt and delete.

mod plan_check;

use proptest::prelude::*;

use ownerscope::model::{Object, OwnershipGraph, Policy, Unlisted, diagnosis, preview};
use ownerscope::sim::scenario::{ControllerSpec, Millis, Scenario, Settings};
use ownerscope::sim::{DeleteOptions, Key, Sim};

#[derive(Clone, Debug)]
struct Node {
    kind: usize,
    owners: Vec<(usize, bool, bool)>,
    finalizer: Option<usize>,
    scheduled: bool,
}

const KINDS: [(&str, &str); 4] = [
    ("apps/v1", "Deployment"),
    ("apps/v1", "ReplicaSet"),
    ("v1", "Pod"),
    ("v1", "ConfigMap"),
];
/// example.com/a has an online controller, example.com/b an offline one,
/// example.com/c none.
const FINALIZERS: [&str; 3] = ["example.com/a", "example.com/b", "example.com/c"];

fn node() -> impl Strategy<Value = Node> {
    (
        0..KINDS.len(),
        prop::collection::vec((0usize..64, any::<bool>(), any::<bool>()), 0..3),
        prop::option::weighted(0.5, 0..FINALIZERS.len()),
        any::<bool>(),
    )
        .prop_map(|(kind, owners, finalizer, scheduled)| Node {
            kind,
            owners,
            finalizer,
            scheduled,
        })
}

fn scenario(nodes: &[Node]) -> Scenario {
    let mut objects: Vec<Object> = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        let (api, kind) = KINDS[n.kind];
        let mut o = Object::new(api, kind, Some("ns"), &format!("o{i}"));
        o.metadata.uid = format!("uid-{i}");
        if let Some(f) = n.finalizer {
            o.metadata.finalizers.push(FINALIZERS[f].to_string());
        }
        if kind == "Pod" && n.scheduled {
            o.spec = serde_json::json!({"nodeName": "node-1", "terminationGracePeriodSeconds": 30})
                .into();
        }
        let mut controller_taken = false;
        let mut seen = Vec::new();
        if i > 0 {
            for &(pick, controller, block) in &n.owners {
                let j = pick % i; // owners come earlier: a DAG
                if seen.contains(&j) {
                    continue;
                }
                seen.push(j);
                let owner: &Object = &objects[j];
                let controller = controller && !controller_taken;
                controller_taken |= controller;
                let mut r = owner.reference(Some(controller), Some(block));
                // Some references to a Deployment go through a version the
                // server no longer serves (R32): never collected.
                if owner.kind == "Deployment" && pick % 5 == 0 {
                    r.api_version = "apps/v1beta1".into();
                }
                o.metadata.owner_references.push(r);
            }
        }
        objects.push(o);
    }
    Scenario {
        name: "random".into(),
        description: String::new(),
        source: "random".into(),
        kinds: Vec::new(),
        partial: ownerscope::model::Partial::default(),
        object_lines: vec![0; objects.len()],
        objects: objects.into_iter().map(std::sync::Arc::new).collect(),
        controllers: vec![
            ControllerSpec {
                finalizer: FINALIZERS[0].into(),
                online: true,
                after: Millis(1500),
                workload: None,
            },
            ControllerSpec {
                finalizer: FINALIZERS[1].into(),
                online: false,
                after: Millis(1500),
                workload: None,
            },
        ],
        steps: Vec::new(),
        settings: Settings::default(),
    }
}

/// One ReplicaSet of a random workload: its replicas, whether its template
/// is known, its pods (scheduled?, a finalizer?, orphaned?).
#[derive(Clone, Debug)]
struct Rs {
    replicas: u8,
    managed: bool,
    pods: Vec<(bool, Option<usize>, bool)>,
}

/// A Deployment (or none: standalone ReplicaSets) and its ReplicaSets.
#[derive(Clone, Debug)]
struct Workload {
    deployment: Option<(u8, bool, Option<usize>)>,
    sets: Vec<Rs>,
}

fn workload() -> impl Strategy<Value = Workload> {
    let rs = (
        0u8..4,
        prop::bool::weighted(0.8),
        prop::collection::vec(
            (
                any::<bool>(),
                prop::option::weighted(0.25, 0..FINALIZERS.len()),
                prop::bool::weighted(0.2),
            ),
            0..4,
        ),
    )
        .prop_map(|(replicas, managed, pods)| Rs {
            replicas,
            managed,
            pods,
        });
    (
        prop::option::weighted(
            0.8,
            (
                0u8..4,
                prop::bool::weighted(0.8),
                prop::option::weighted(0.2, 0..FINALIZERS.len()),
            ),
        ),
        prop::collection::vec(rs, 1..3),
    )
        .prop_map(|(deployment, sets)| Workload { deployment, sets })
}

fn workload_scenario(ws: &[Workload]) -> Scenario {
    let mut sc = scenario(&[]);
    let mut objects = Vec::new();
    for (i, w) in ws.iter().enumerate() {
        let app = format!("w{i}");
        let mut d_obj = None;
        if let Some((replicas, managed, fin)) = w.deployment {
            let mut d = Object::new("apps/v1", "Deployment", Some("ns"), &app);
            d.metadata.uid = format!("uid-{app}");
            d.spec = serde_json::json!({"replicas": replicas, "selector": {"matchLabels": {"app": app}}}).into();
            if managed {
                d.spec["template"] = serde_json::json!({"metadata": {"labels": {"app": app}}});
            }
            if let Some(f) = fin {
                d.metadata.finalizers.push(FINALIZERS[f].to_string());
            }
            objects.push(d.clone());
            d_obj = Some(d);
        }
        for (j, r) in w.sets.iter().enumerate() {
            let hash = format!("h{j}");
            let name = format!("{app}-{hash}");
            let labels = serde_json::json!({"app": app, "pod-template-hash": hash});
            let mut rs = Object::new("apps/v1", "ReplicaSet", Some("ns"), &name);
            rs.metadata.uid = format!("uid-{name}");
            rs.metadata.labels = [
                ("app".to_string(), app.clone()),
                ("pod-template-hash".to_string(), hash.clone()),
            ]
            .into_iter()
            .collect();
            rs.spec =
                serde_json::json!({"replicas": r.replicas, "selector": {"matchLabels": labels}})
                    .into();
            if r.managed {
                rs.spec["template"] = serde_json::json!({"metadata": {"labels": labels}});
            }
            if let Some(d) = &d_obj {
                rs.metadata
                    .owner_references
                    .push(d.reference(Some(true), Some(true)));
            }
            objects.push(rs.clone());
            for (k, &(scheduled, fin, orphan)) in r.pods.iter().enumerate() {
                let mut p = Object::new("v1", "Pod", Some("ns"), &format!("{name}-p{k}"));
                p.metadata.uid = format!("uid-{name}-p{k}");
                p.metadata.labels = rs.metadata.labels.clone();
                if scheduled {
                    p.spec = serde_json::json!({"nodeName": "node-1", "terminationGracePeriodSeconds": 30}).into();
                    p.status = serde_json::json!({"phase": "Running"}).into();
                }
                if let Some(f) = fin {
                    p.metadata.finalizers.push(FINALIZERS[f].to_string());
                }
                if !orphan {
                    p.metadata
                        .owner_references
                        .push(rs.reference(Some(true), Some(true)));
                }
                objects.push(p);
            }
        }
    }
    sc.object_lines = vec![0; objects.len()];
    sc.objects = objects.into_iter().map(std::sync::Arc::new).collect();
    sc
}

/// One object of a random namespaced graph: its kind (a ConfigMap, a
/// Deployment or a custom resource), namespace, owners among the objects
/// before it in the same namespace, and a finalizer.
#[derive(Clone, Debug)]
struct NsNode {
    kind: usize,
    second_ns: bool,
    owners: Vec<(usize, bool)>,
    finalizer: Option<usize>,
}

const NS_KINDS: [(&str, &str); 3] = [
    ("v1", "ConfigMap"),
    ("apps/v1", "Deployment"),
    ("example.com/v1", "Widget"),
];

fn ns_node() -> impl Strategy<Value = NsNode> {
    (
        0..NS_KINDS.len(),
        any::<bool>(),
        prop::collection::vec((0usize..64, any::<bool>()), 0..3),
        prop::option::weighted(0.4, 0..FINALIZERS.len()),
    )
        .prop_map(|(kind, second_ns, owners, finalizer)| NsNode {
            kind,
            second_ns,
            owners,
            finalizer,
        })
}

/// Two namespaces (the first with a second spec finalizer when
/// `extra_spec_finalizer`), a CRD and its instances among random objects:
/// what the namespace controller (R58-R59) and the CRD finalizer (R75)
/// delete, as scenario YAML through the real loader.
fn namespaced_scenario(nodes: &[NsNode], extra_spec_finalizer: bool) -> Scenario {
    let mut y = String::from(
        "name: random-namespaces\ndescription: random\nkinds:\n  - {apiVersion: example.com/v1, kind: Widget, plural: widgets, namespaced: true}\n",
    );
    y.push_str("controllers:\n");
    y.push_str(&format!(
        "  - {{finalizer: {}, online: true, after: 1500ms}}\n  - {{finalizer: {}, online: false, after: 1500ms}}\n",
        FINALIZERS[0], FINALIZERS[1]
    ));
    y.push_str("objects:\n");
    // The first namespace may hold a second spec finalizer nobody removes.
    let spec_finalizers = if extra_spec_finalizer {
        "[kubernetes, example.com/spec]"
    } else {
        "[kubernetes]"
    };
    y.push_str(&format!(
        "  - {{apiVersion: v1, kind: Namespace, metadata: {{name: ns-a, uid: uid-ns-a}}, spec: {{finalizers: {spec_finalizers}}}}}\n"
    ));
    y.push_str("  - {apiVersion: v1, kind: Namespace, metadata: {name: ns-b, uid: uid-ns-b}}\n");
    y.push_str("  - apiVersion: apiextensions.k8s.io/v1\n    kind: CustomResourceDefinition\n    metadata: {name: widgets.example.com, uid: uid-crd}\n    spec: {group: example.com, names: {kind: Widget, plural: widgets}, scope: Namespaced}\n");
    let mut placed: Vec<(String, String, &str, &str)> = Vec::new(); // (name, ns, api, kind)
    for (i, n) in nodes.iter().enumerate() {
        let (api, kind) = NS_KINDS[n.kind];
        let ns = if n.second_ns { "ns-b" } else { "ns-a" };
        let name = format!("o{i}");
        let mut meta = format!("name: {name}, namespace: {ns}, uid: uid-{i}");
        if let Some(f) = n.finalizer {
            meta.push_str(&format!(", finalizers: [{}]", FINALIZERS[f]));
        }
        let mut refs = Vec::new();
        for &(pick, block) in &n.owners {
            let candidates: Vec<usize> = (0..i).filter(|&j| placed[j].1 == ns).collect();
            let Some(&j) = candidates.get(pick % candidates.len().max(1)) else {
                continue;
            };
            if refs
                .iter()
                .any(|r: &String| r.contains(&format!("uid: uid-{j},")))
            {
                continue;
            }
            let (oname, _, oapi, okind) = &placed[j];
            refs.push(format!(
                "{{apiVersion: {oapi}, kind: {okind}, name: {oname}, uid: uid-{j}, blockOwnerDeletion: {block}}}"
            ));
        }
        if !refs.is_empty() {
            meta.push_str(&format!(", ownerReferences: [{}]", refs.join(", ")));
        }
        y.push_str(&format!(
            "  - {{apiVersion: {api}, kind: {kind}, metadata: {{{meta}}}}}\n"
        ));
        placed.push((name, ns.to_string(), api, kind));
    }
    ownerscope::sim::scenario::parse("random-namespaces.yaml", &y)
        .unwrap_or_else(|e| panic!("{e}\n{y}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    #[test]
    fn preview_agrees_with_simulator_on_random_workloads(
        ws in prop::collection::vec(workload(), 1..3),
        target in 0usize..64,
        policy in prop::option::of(prop::sample::select(Policy::ALL.to_vec())),
        seed in 0u64..1000,
    ) {
        let sc = workload_scenario(&ws);
        let mut base = Sim::with_seed(&sc, seed).expect("valid scenario");
        base.settle(plan_check::LIMIT_MS);
        let objects: Vec<Object> = base.objects().cloned().collect();
        prop_assume!(!objects.is_empty());
        let t = &objects[target % objects.len()];
        let errors = plan_check::check("workloads", &base, t, policy);
        prop_assert!(errors.is_empty(), "{}", errors.join("\n"));
    }

    #[test]
    fn preview_agrees_with_simulator_on_random_graphs(
        nodes in prop::collection::vec(node(), 1..16),
        target in 0usize..64,
        policy in prop::option::of(prop::sample::select(Policy::ALL.to_vec())),
        seed in 0u64..1000,
    ) {
        let sc = scenario(&nodes);
        let mut base = Sim::with_seed(&sc, seed).expect("valid scenario");
        base.settle(plan_check::LIMIT_MS);
        let objects: Vec<Object> = base.objects().cloned().collect();
        prop_assume!(!objects.is_empty());
        let t = &objects[target % objects.len()];
        let errors = plan_check::check("random", &base, t, policy);
        prop_assert!(errors.is_empty(), "{}", errors.join("\n"));
    }

    /// Namespaces, a CRD and its instances: deleting a Namespace (its
    /// controller deletes the content, removes only its own spec finalizer),
    /// the CRD (its instances first) or any object, with any policy.
    #[test]
    fn preview_agrees_with_simulator_on_namespaces_and_crds(
        nodes in prop::collection::vec(ns_node(), 1..12),
        extra_spec_finalizer in any::<bool>(),
        target in 0usize..64,
        policy in prop::option::of(prop::sample::select(Policy::ALL.to_vec())),
        seed in 0u64..1000,
    ) {
        let sc = namespaced_scenario(&nodes, extra_spec_finalizer);
        let mut base = Sim::with_seed(&sc, seed).expect("valid scenario");
        base.settle(plan_check::LIMIT_MS);
        let objects: Vec<Object> = base.objects().cloned().collect();
        // The Namespaces and the CRD are chosen as often as all the rest.
        let special: Vec<&Object> = objects
            .iter()
            .filter(|o| o.kind == "Namespace" || o.kind == "CustomResourceDefinition")
            .collect();
        let t = if target % 2 == 0 && !special.is_empty() {
            special[target / 2 % special.len()]
        } else {
            &objects[target % objects.len()]
        };
        let errors = plan_check::check("namespaces-and-crds", &base, t, policy);
        prop_assert!(errors.is_empty(), "{}", errors.join("\n"));
    }

    /// A user who cannot list one kind sees the rest: the preview and the
    /// diagnosis drawn from that partial view never claim what only the
    /// hidden objects could decide. Whatever the preview calls deleted is
    /// deleted in the full simulation; no object is said to be collected
    /// because its owner is of the hidden kind.
    #[test]
    fn a_partial_view_concludes_nothing_from_what_it_cannot_see(
        nodes in prop::collection::vec(node(), 1..16),
        hidden in 0usize..KINDS.len(),
        target in 0usize..64,
        policy in prop::option::of(prop::sample::select(Policy::ALL.to_vec())),
        seed in 0u64..1000,
    ) {
        let sc = scenario(&nodes);
        let mut base = Sim::with_seed(&sc, seed).expect("valid scenario");
        base.settle(plan_check::LIMIT_MS);
        let (hidden_api, hidden_kind) = KINDS[hidden];
        let hidden_group = ownerscope::model::group_of(hidden_api).to_string();
        let mut kinds = base.kinds().clone();
        kinds.mark_unlisted(Unlisted {
            resource: format!("{}s", hidden_kind.to_ascii_lowercase()),
            reason: "forbidden".into(),
            group: hidden_group,
            kind: hidden_kind.into(),
            detail: String::new(),
        });
        let mut partial = OwnershipGraph::new(kinds);
        for o in base.objects().filter(|o| o.kind != hidden_kind) {
            partial.upsert(o.clone());
        }
        let visible: Vec<Object> = partial.objects().cloned().collect();
        prop_assume!(!visible.is_empty());
        let controllers = base.controller_map();
        for o in &visible {
            let d = diagnosis::diagnose(&partial, o.uid(), base.now(), &controllers);
            let hidden_owner = o.metadata.owner_references.iter().any(|r| r.kind == hidden_kind);
            let collected = matches!(d.fate, diagnosis::Fate::WillBeCollected { .. });
            prop_assert!(
                !(hidden_owner && collected && d.owners.iter().all(|v| !v.status.resolves())),
                "{}/{} said collected with an owner of the hidden kind {hidden_kind}: {:?}",
                o.kind, o.name(), d.causes
            );
        }
        let t = &visible[target % visible.len()];
        let plan = preview::plan(&partial, t.uid(), policy, &controllers);
        prop_assert!(plan.partial.is_partial());
        let mut after = base.clone();
        let opts = policy.map_or_else(DeleteOptions::default, DeleteOptions::policy);
        after.delete_key(&Key::of(t), &opts);
        after.settle(after.now_ms() + plan_check::LIMIT_MS);
        for e in &plan.entries {
            if matches!(e.outcome, preview::Outcome::Deleted { .. }) {
                prop_assert!(
                    after.objects().all(|o| o.uid() != e.object.uid()),
                    "{}/{} predicted deleted from a view without {hidden_kind}, but the full cluster keeps it",
                    e.object.kind(), e.object.name()
                );
            }
        }
    }
}
