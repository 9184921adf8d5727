//! An answer must not depend on the order of the objects in a file: the
//! same objects, shuffled, give the same simulation and the same preview.
//! Every bundled scenario (uids assigned as loaded, so the same in every
//! order), any object deleted with any policy, any order.

use std::collections::BTreeMap;

use ownerscope::model::{Object, Policy, preview};
use ownerscope::sim::scenario::{self, Scenario, Target};
use ownerscope::sim::{DeleteOptions, Sim};
use proptest::prelude::*;

/// What a run leaves: each object by kind, namespace and name, with
/// whether it is Terminating and its finalizers.
type Outcome = BTreeMap<(String, String, String), (bool, Vec<String>)>;

fn outcome(sim: &Sim) -> Outcome {
    sim.objects()
        .map(|o: &Object| {
            (
                (
                    o.kind.clone(),
                    o.namespace().unwrap_or_default().to_string(),
                    o.name().to_string(),
                ),
                (o.is_terminating(), o.metadata.finalizers.clone()),
            )
        })
        .collect()
}

/// The objects in another order (a permutation drawn from `seed`).
fn shuffled(sc: &Scenario, seed: u64) -> Scenario {
    let mut s = sc.clone();
    let mut state = seed | 1;
    let n = s.objects.len();
    for i in (1..n).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let j = usize::try_from(state % (i as u64 + 1)).unwrap_or(0);
        s.objects.swap(i, j);
    }
    s.object_lines = Vec::new();
    s
}

fn run(sc: &Scenario, target: &Object, policy: Option<Policy>) -> (Outcome, Vec<String>) {
    let mut sim = Sim::with_seed(sc, 7).expect("loads");
    let uid = sim
        .objects()
        .find(|o| {
            o.kind == target.kind
                && o.namespace() == target.namespace()
                && o.name() == target.name()
        })
        .map(|o| o.uid().to_string())
        .expect("there");
    let plan = preview::plan(sim.graph(), &uid, policy, &sim.controller_map());
    let t = Target {
        kind: target.kind.clone(),
        namespace: target.namespace().map(str::to_string),
        name: target.name().to_string(),
    };
    let opts = policy.map_or_else(DeleteOptions::default, DeleteOptions::policy);
    sim.delete(&t, &opts);
    sim.settle(600_000);
    (outcome(&sim), plan.lines())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn the_order_of_the_objects_changes_no_outcome(
        which in 0usize..64,
        target in 0usize..256,
        policy in prop::option::of(prop::sample::select(Policy::ALL.to_vec())),
        seed in any::<u64>(),
    ) {
        let name = scenario::BUNDLED[which % scenario::BUNDLED.len()].0;
        let sc = scenario::bundled(name).expect("bundled");
        prop_assume!(!sc.objects.is_empty());
        let t = sc.objects[target % sc.objects.len()].as_ref().clone();
        let (a, plan_a) = run(&sc, &t, policy);
        let (b, plan_b) = run(&shuffled(&sc, seed), &t, policy);
        prop_assert_eq!(&plan_a, &plan_b, "{}: the preview of deleting {}/{} depends on the order", name, t.kind, t.name());
        prop_assert_eq!(a, b, "{}: deleting {}/{} ({:?}) ends differently in another order", name, t.kind, t.name(), policy);
    }
}
