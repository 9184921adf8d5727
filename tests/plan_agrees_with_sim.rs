//! The deletion preview must agree with what the simulator then does: for
//! every bundled scenario, every object and every policy (and none).

mod plan_check;

use ownerscope::model::{Object, Policy};
use ownerscope::sim::Sim;
use ownerscope::sim::scenario::{self, BUNDLED};

use plan_check::{LIMIT_MS, check};

/// The scenario's objects and controllers, without its steps, after the
/// garbage collector has handled what was already dangling at load.
fn settled(name: &str) -> Sim {
    let mut sc = scenario::bundled(name).expect("bundled scenario loads");
    sc.steps.clear();
    let mut sim = Sim::new(&sc).expect("sim starts");
    sim.settle(LIMIT_MS);
    sim
}

#[test]
fn plan_agrees_with_simulate_on_every_bundled_scenario_object_and_policy() {
    let mut errors = Vec::new();
    let mut cases = 0;
    for (name, _) in BUNDLED {
        let base = settled(name);
        let targets: Vec<Object> = base.objects().cloned().collect();
        for target in &targets {
            for policy in [
                None,
                Some(Policy::Background),
                Some(Policy::Foreground),
                Some(Policy::Orphan),
            ] {
                cases += 1;
                errors.extend(check(name, &base, target, policy));
            }
        }
    }
    assert!(cases > 150, "only {cases} cases");
    assert!(
        errors.is_empty(),
        "{} disagreements in {cases} cases:\n{}",
        errors.len(),
        errors.join("\n")
    );
}
