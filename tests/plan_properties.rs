//! The deletion preview agrees with the simulator on random ownership
//! graphs, policies and finalizers.

mod plan_check;

use proptest::prelude::*;

use ownerscope::model::{Object, Policy};
use ownerscope::sim::Sim;
use ownerscope::sim::scenario::{ControllerSpec, Millis, Scenario, Settings};

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
            o.spec = serde_json::json!({"nodeName": "node-1", "terminationGracePeriodSeconds": 30});
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
                o.metadata
                    .owner_references
                    .push(owner.reference(Some(controller), Some(block)));
            }
        }
        objects.push(o);
    }
    Scenario {
        name: "random".into(),
        description: String::new(),
        source: "random".into(),
        kinds: Vec::new(),
        object_lines: vec![0; objects.len()],
        objects,
        controllers: vec![
            ControllerSpec {
                finalizer: FINALIZERS[0].into(),
                online: true,
                after: Millis(1500),
            },
            ControllerSpec {
                finalizer: FINALIZERS[1].into(),
                online: false,
                after: Millis(1500),
            },
        ],
        steps: Vec::new(),
        settings: Settings::default(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

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
}
