use super::*;
use crate::model::KindTable;

/// `n` ConfigMaps, each owned by the one before (blocking), the first
/// owned by the last too when `cycle`; or all owned by the first.
fn shape(n: usize, chain: bool, cycle: bool) -> OwnershipGraph {
    let uid = |i: usize| format!("00000000-0000-4000-9000-{i:012x}");
    let cms: Vec<Object> = (0..n)
        .map(|i| {
            let mut o = Object::new("v1", "ConfigMap", Some("big"), &format!("cm-{i:06}"));
            o.metadata.uid = uid(i);
            o
        })
        .collect();
    let mut graph = OwnershipGraph::new(KindTable::builtin());
    for i in 0..n {
        let owner = match i {
            0 if cycle => Some(n - 1),
            0 => None,
            _ if chain => Some(i - 1),
            _ => Some(0),
        };
        let mut o = cms[i].clone();
        if let Some(w) = owner {
            o.metadata
                .owner_references
                .push(cms[w].reference(None, Some(true)));
        }
        graph.upsert(o);
    }
    graph
}

fn counted(graph: &OwnershipGraph, policy: Policy) -> (Plan, u64) {
    let root = graph
        .get_shared("00000000-0000-4000-9000-000000000000")
        .expect("the root");
    plan_counted(graph, root, Some(policy), &BTreeMap::new(), false)
}

/// The passes look at each object of a chain or a cycle a bounded
/// number of times, as on a fan-out of the same size: a scan of every
/// object each wave (a chain is as many waves as it is long) counts
/// n² here, thousands of times the bound.
#[test]
fn the_work_on_a_chain_or_a_cycle_is_linear_like_a_fan_out() {
    let n = 3000;
    let bound = 20 * n as u64;
    for policy in [Policy::Foreground, Policy::Background, Policy::Orphan] {
        let (fan, fan_work) = counted(&shape(n, false, false), policy);
        assert!(fan_work <= bound, "{policy} fan-out: {fan_work}");
        for cycle in [false, true] {
            let (plan, work) = counted(&shape(n, true, cycle), policy);
            // (An orphan delete of a chain stops at the first link.)
            if policy != Policy::Orphan {
                assert_eq!(plan.entries.len(), fan.entries.len());
            }
            assert!(
                work <= bound && work <= 2 * fan_work,
                "{policy} {}: {work} items looked at for {n} objects (fan-out: {fan_work})",
                if cycle { "cycle" } else { "chain" }
            );
        }
    }
}

/// A Background delete of a chain's root: one wave per link, numbered
/// from the root's dependent on; a Foreground one the other way round.
#[test]
fn a_chain_goes_one_wave_a_link() {
    let n = 50;
    let graph = shape(n, true, false);
    let wave_of = |plan: &Plan, name: &str| {
        plan.entries
            .iter()
            .find(|e| e.object.name() == name)
            .map(|e| e.outcome.clone())
    };
    let (bg, _) = counted(&graph, Policy::Background);
    for i in 0..n {
        let wave = u32::try_from(i).expect("small");
        assert_eq!(
            wave_of(&bg, &format!("cm-{i:06}")),
            Some(Outcome::Deleted { wave })
        );
    }
    let (fg, _) = counted(&graph, Policy::Foreground);
    assert_eq!(fg.entries.len(), n);
    let last = u32::try_from(n - 1).expect("small");
    assert_eq!(
        wave_of(&fg, "cm-000000"),
        Some(Outcome::Deleted { wave: last })
    );
    assert_eq!(
        wave_of(&fg, &format!("cm-{:06}", n - 1)),
        Some(Outcome::Deleted { wave: 1 })
    );
}

/// A ConfigMap `name` with uid `u-name`, these finalizers, owned (with
/// these `blockOwnerDeletion`s) by these.
fn cm(name: &str, finalizers: &[&str], owners: &[(&str, Option<bool>)]) -> Object {
    let mut o = Object::new("v1", "ConfigMap", Some("d"), name);
    o.metadata.uid = format!("u-{name}");
    o.metadata.finalizers = finalizers.iter().map(|f| (*f).to_string()).collect();
    for (owner, block) in owners {
        let mut w = Object::new("v1", "ConfigMap", Some("d"), owner);
        w.metadata.uid = format!("u-{owner}");
        o.metadata.owner_references.push(w.reference(None, *block));
    }
    o
}

fn planned(objects: Vec<Object>, target: &str) -> Plan {
    let mut graph = OwnershipGraph::new(KindTable::builtin());
    for o in objects {
        graph.upsert(o);
    }
    plan(
        &graph,
        &format!("u-{target}"),
        Some(Policy::Foreground),
        &BTreeMap::new(),
    )
}

fn entry<'p>(plan: &'p Plan, name: &str) -> &'p PlanEntry {
    plan.entries
        .iter()
        .find(|e| e.object.name() == name)
        .expect("an entry")
}

#[test]
fn a_foreground_owner_held_by_its_own_finalizer_races_its_non_blocking_dependents() {
    let p = planned(
        vec![
            cm("o", &["example.com/hold"], &[]),
            cm("d", &[], &[("o", Some(false))]),
        ],
        "o",
    );
    let d = entry(&p, "d");
    assert!(matches!(d.outcome, Outcome::Deleted { .. }), "{d:?}");
    let race = d.either_way.as_ref().expect("a race");
    assert!(
        matches!(race.otherwise, Some(Outcome::Parked { .. })),
        "{race:?}"
    );
    assert!(race.reason.contains("ConfigMap/o waits in foreground"));
    assert!(p.lines().iter().any(|l| l.contains("may go either way")));
    assert!(entry(&p, "o").either_way.is_none());
}

#[test]
fn no_race_without_the_owner_s_own_finalizer_or_with_a_blocking_dependent() {
    // The owner goes with foregroundDeletion: the dependent is dangling
    // whichever pass comes first.
    let p = planned(
        vec![cm("o", &[], &[]), cm("d", &[], &[("o", Some(false))])],
        "o",
    );
    assert!(p.entries.iter().all(|e| e.either_way.is_none()), "{p:?}");
    // A blocking dependent keeps the owner waiting until it is gone.
    let p = planned(
        vec![
            cm("o", &["example.com/hold"], &[]),
            cm("d", &[], &[("o", Some(true))]),
        ],
        "o",
    );
    assert!(p.entries.iter().all(|e| e.either_way.is_none()), "{p:?}");
    assert!(matches!(entry(&p, "d").outcome, Outcome::Deleted { .. }));
}

#[test]
fn a_dependent_the_cycle_guard_patches_races_the_owner_it_wakes() {
    // o (held) owns b (blocking); b owns o back: b's pass unblocks its
    // reference, then deletes it (1.20), or retries after o drops
    // foregroundDeletion (1.34+) and keeps it.
    let p = planned(
        vec![
            cm("o", &["example.com/hold"], &[("b", Some(false))]),
            cm("b", &[], &[("o", Some(true))]),
        ],
        "o",
    );
    let b = entry(&p, "b");
    let race = b.either_way.as_ref().expect("a race");
    assert!(
        race.reason.contains("cycle guard patches ConfigMap/b"),
        "{race:?}"
    );
}

#[test]
fn a_dependent_kept_by_a_sibling_the_same_batch_deletes_races_it() {
    // Seed 43 of the rehearsal: o0 is deleted in foreground; o1 is owned
    // by o0 (blocking) and by o3 (not blocking), o3 by o0; o2 (held) by o1
    // and o0; o0 by o1 (a cycle). The collector looks at o1 and o3 at
    // once: o1 looked at first keeps o3 as a present owner and drops o0,
    // then goes in background once o3 is gone (1.20 was seen to do both);
    // o3's DELETE landing first leaves o1 waiting on o2 in foreground.
    // Whatever the uids' order, o1 is said to go either way, and nothing
    // else is.
    for (a, b, c, d) in [
        ("a", "b", "c", "d"),
        ("d", "c", "b", "a"),
        ("b", "d", "a", "c"),
    ] {
        let n = |x: &str, o: &str| format!("{x}-{o}");
        let named = |o: &str| match o {
            "o0" => n(a, o),
            "o1" => n(b, o),
            "o2" => n(c, o),
            _ => n(d, o),
        };
        let (o0, o1, o2, o3) = (named("o0"), named("o1"), named("o2"), named("o3"));
        let p = planned(
            vec![
                cm(&o0, &[], &[(&o1, None)]),
                cm(&o1, &[], &[(&o3, Some(false)), (&o0, Some(true))]),
                cm(
                    &o2,
                    &["example.com/hold"],
                    &[(&o1, Some(true)), (&o0, Some(true))],
                ),
                cm(&o3, &[], &[(&o0, Some(true))]),
            ],
            &o0,
        );
        let raced: Vec<&str> = p
            .entries
            .iter()
            .filter(|e| e.either_way.is_some())
            .map(|e| e.object.name())
            .collect();
        assert_eq!(raced, [o1.as_str()], "{p:?}");
        let race = entry(&p, &o1).either_way.as_ref().expect("a race");
        assert!(race.reason.contains("in the same batch"), "{race:?}");
        let outcomes = [Some(&entry(&p, &o1).outcome), race.otherwise.as_ref()];
        assert!(
            outcomes
                .iter()
                .any(|o| matches!(o, Some(Outcome::Deleted { .. })))
                && outcomes
                    .iter()
                    .any(|o| matches!(o, Some(Outcome::Waiting { .. }))),
            "{outcomes:?}"
        );
    }
}

/// A uid as the API server writes it, made from `n`.
fn uuid_of(n: u128) -> String {
    let h = format!("{n:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

/// The working set's ids are in uid order whether the uids are UUIDs
/// (sorted by their bits) or not (sorted by their bytes): a pass in id
/// order is the garbage collector's pass in uid order.
#[test]
fn ids_follow_uid_order_with_uuids_and_without() {
    let mut x: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834;
    let mut next = || {
        x = x
            .wrapping_mul(0x2360_ed05_1fc6_5da4_4385_df64_9fcc_f645)
            .wrapping_add(0x5851_f42d_4c95_7f2d_1405_7b7e_f767_814f);
        x
    };
    let uuids: Vec<String> = (0..400)
        .map(|i| match i {
            0 => uuid_of(0),
            1 => uuid_of(u128::MAX),
            // Digits either side of the gap between '9' and 'a'.
            2 => uuid_of(0x9999_9999_9999_9999_9999_9999_9999_9999),
            3 => uuid_of(0xaaaa_aaaa_aaaa_aaaa_aaaa_aaaa_aaaa_aaaa),
            _ => uuid_of(next()),
        })
        .collect();
    for mixed in [false, true] {
        let mut graph = OwnershipGraph::new(KindTable::builtin());
        let mut root = Object::new("v1", "ConfigMap", Some("ns"), "root");
        root.metadata.uid = uuids[0].clone();
        graph.upsert(root.clone());
        for (i, u) in uuids.iter().enumerate().skip(1) {
            let mut o = Object::new("v1", "ConfigMap", Some("ns"), &format!("cm-{i}"));
            o.metadata.uid = if mixed && i % 7 == 0 {
                // Not a UUID as the API server writes it.
                u.to_uppercase()
            } else {
                u.clone()
            };
            o.metadata
                .owner_references
                .push(root.reference(None, Some(true)));
            graph.upsert(o);
        }
        let controllers = BTreeMap::new();
        let target = graph.get_shared(&uuids[0]).expect("the root");
        let (p, root_id) = Planner::new(&graph, &controllers, target);
        let uids: Vec<&str> = p.items.iter().map(|i| i.obj.uid()).collect();
        assert_eq!(uids.len(), uuids.len());
        assert!(uids.is_sorted(), "mixed {mixed}: {uids:?}");
        assert_eq!(uids[root_id], uuids[0]);
        for (id, u) in uids.iter().enumerate() {
            assert_eq!(p.id(u), Some(id));
        }
    }
}

#[test]
fn only_a_uuid_as_the_api_server_writes_it_has_bits() {
    let u = "0a1b2c3d-4e5f-6789-abcd-ef0123456789";
    assert_eq!(
        index::uuid_bits(u),
        Some(0x0a1b_2c3d_4e5f_6789_abcd_ef01_2345_6789)
    );
    for not in [
        "0A1B2C3D-4E5F-6789-ABCD-EF0123456789",
        "0a1b2c3d-4e5f-6789-abcd-ef012345678",
        "0a1b2c3d-4e5f-6789-abcd-ef01234567890",
        "0a1b2c3d4-e5f-6789-abcd-ef0123456789",
        "0a1b2c3d-4e5f-6789-abcd-ef012345678g",
        "0a1b2c3d+4e5f-6789-abcd-ef0123456789",
        "d",
    ] {
        assert_eq!(index::uuid_bits(not), None, "{not}");
    }
}
