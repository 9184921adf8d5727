//! A reset ([`Sim::restarted`]) starts the same run again, from the
//! objects the first start stored and the scenario keeps, sharing them
//! instead of copying each one.

use super::*;
use crate::sim::scenario::{BUNDLED, bundled};

/// Every object, as stored, in uid order.
fn state(sim: &Sim) -> Vec<Object> {
    sim.objects().cloned().collect()
}

#[test]
fn a_reset_runs_as_a_fresh_start_of_each_bundled_scenario() {
    for (name, _) in BUNDLED {
        let sc = bundled(name).expect("bundled");
        let mut first = Sim::resettable(sc.clone()).expect("loads");
        let at_start = state(&first);
        // The first run changes objects, makes new ones (uids) and
        // deletes some before the reset.
        first.advance(120_000);
        let mut again = first.restarted().expect("restarts");
        assert_eq!(
            state(&again),
            at_start,
            "{name}: a reset is the start again"
        );
        let mut fresh = Sim::new(&sc).expect("loads");
        again.advance(120_000);
        fresh.advance(120_000);
        assert_eq!(
            state(&again),
            state(&fresh),
            "{name}: the same run after a reset as after a fresh start"
        );
    }
}

#[test]
fn a_reset_shares_the_objects_the_scenario_keeps() {
    let sc = bundled("deployment").expect("bundled");
    let count = sc.objects.len();
    let first = Sim::resettable(sc).expect("loads");
    let again = first.restarted().expect("restarts");
    let kept: Vec<&Arc<Object>> = first.scenario().objects.iter().collect();
    assert_eq!(kept.len(), count, "the scenario keeps every object");
    for sim in [&first, &again] {
        let shared = sim
            .shared_objects()
            .filter(|o| kept.iter().any(|k| Arc::ptr_eq(k, o)))
            .count();
        // The store's own objects (the default namespaces) and those the
        // first look changed are the others.
        assert!(
            shared >= count,
            "{shared} of {count} objects shared with the scenario kept"
        );
    }
}
