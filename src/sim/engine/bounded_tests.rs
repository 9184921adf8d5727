//! A bounded run ([`Sim::advance_for`]) does what an unbounded one does,
//! in the same order at the same virtual instants, however finely it is
//! cut: here it stops after every task and every item of a GC batch.

use super::*;

/// A Deployment owning `sets` ReplicaSets of `pods` pods, deleted in the
/// foreground at 1 s, with a finalizer on one pod whose controller comes
/// online at 5 s.
fn cascade(sets: usize, pods: usize) -> Scenario {
    let mut y = String::from(
        "name: cascade\nobjects:\n  - apiVersion: apps/v1\n    kind: Deployment\n    metadata: {name: root, namespace: big, uid: d-0}\n",
    );
    for s in 0..sets {
        y.push_str(&format!(
            "  - apiVersion: apps/v1\n    kind: ReplicaSet\n    metadata:\n      name: root-{s}\n      namespace: big\n      uid: rs-{s}\n      ownerReferences: [{{apiVersion: apps/v1, kind: Deployment, name: root, uid: d-0, controller: true, blockOwnerDeletion: true}}]\n"
        ));
        for p in 0..pods {
            let fin = if s == 0 && p == 0 {
                "      finalizers: [example.com/hold]\n"
            } else {
                ""
            };
            y.push_str(&format!(
                "  - apiVersion: v1\n    kind: Pod\n    metadata:\n      name: root-{s}-{p}\n      namespace: big\n      uid: p-{s}-{p}\n{fin}      ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: root-{s}, uid: rs-{s}, controller: true, blockOwnerDeletion: true}}]\n    spec: {{nodeName: node-1}}\n"
            ));
        }
    }
    y.push_str("controllers:\n  - {finalizer: example.com/hold, online: false, after: 1s}\n");
    y.push_str("steps:\n  - {at: 1s, delete: {kind: Deployment, namespace: big, name: root, propagationPolicy: Foreground}}\n");
    y.push_str("  - {at: 5s, controller: {finalizer: example.com/hold, online: true}}\n");
    crate::sim::scenario::parse("cascade", &y).expect("the cascade parses")
}

/// What a run did: the timeline and the store.
fn seen(sim: &Sim) -> (Vec<Entry>, Vec<Object>) {
    (sim.timeline().to_vec(), sim.objects().cloned().collect())
}

/// Runs `sc` for two minutes in steps of `step_ms`, once with
/// [`Sim::advance`] and once with a bounded run given no time at all, and
/// compares them at every step. Returns how often the bounded run stopped
/// before its end.
fn both_ways(sc: &Scenario, step_ms: u64) -> usize {
    let mut whole = Sim::new(sc).expect("loads");
    let mut cut = Sim::new(sc).expect("loads");
    let mut stops = 0;
    let mut t = 0;
    while t < 120_000 {
        t += step_ms;
        whole.advance(step_ms);
        while !cut.advance_for(t - cut.now_ms(), Duration::ZERO) {
            stops += 1;
        }
        assert_eq!(cut.now_ms(), whole.now_ms());
        assert!(
            seen(&cut) == seen(&whole),
            "{}: the bounded run differs at t={t}ms",
            sc.name
        );
        assert_eq!(cut.next_event_ms(), whole.next_event_ms(), "{}", sc.name);
    }
    stops
}

#[test]
fn a_cascade_cut_after_every_item_ends_as_one_run_does() {
    let sc = cascade(6, 12);
    let stops = both_ways(&sc, 250);
    // Every task and every GC item past the first of an instant is a stop:
    // the batches of 72 pods were cut.
    assert!(stops > 72, "only {stops} stops");
    let mut sim = Sim::new(&sc).expect("loads");
    sim.settle(120_000);
    assert_eq!(sim.objects().count(), 0, "the cascade ran to its end");
}

#[test]
fn every_bundled_scenario_runs_the_same_cut_or_whole() {
    for (name, _) in crate::sim::scenario::BUNDLED {
        let sc = crate::sim::scenario::bundled(name).expect("bundled");
        both_ways(&sc, 500);
    }
}

/// A bounded run stopped inside an instant (the GC's first batch of the
/// cascade, its ReplicaSets and the Deployment), then given none of its
/// time, as a paused UI's poll does: it finishes that instant and the
/// clock stays.
#[test]
fn an_instant_cut_short_is_finished_without_moving_the_clock() {
    let sc = cascade(3, 5);
    let mut sim = Sim::new(&sc).expect("loads");
    let mut whole = Sim::new(&sc).expect("loads");
    sim.advance(1_100);
    assert!(!sim.advance_for(1_000, Duration::ZERO), "cut in the batch");
    let at = sim.now_ms();
    assert_eq!(at, 1_000 + sc.settings.gc_delay.0);
    assert!(!sim.gc_rest.is_empty());
    let mut stops = 0;
    while !sim.advance_for(0, Duration::ZERO) {
        stops += 1;
    }
    assert!(stops > 0);
    assert_eq!(sim.now_ms(), at);
    whole.advance(at);
    assert!(seen(&sim) == seen(&whole));
}
