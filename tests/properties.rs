//! Property tests of the garbage collector on random ownership graphs: a DAG
//! of 1-30 objects in one or two namespaces, some with two owners, random
//! `blockOwnerDeletion`/`controller` flags (at most one controller), random
//! custom finalizers whose controllers are online, a few references that
//! dangle from the start or name a kind the server does not serve; then one
//! DELETE of a random target with a random policy.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use ownerscope::model::{FOREGROUND, Object, Policy};
use ownerscope::sim::api::{Change, Key};
use ownerscope::sim::{Sim, scenario};
use proptest::prelude::*;

const NAMESPACES: [&str; 2] = ["ns-a", "ns-b"];
/// Pods are scheduled: a DELETE leaves them Terminating until their kubelet
/// confirms (R15).
const KINDS: [&str; 3] = ["ConfigMap", "Secret", "Pod"];
const FINALIZERS: [(&str, &str); 2] = [("example.com/f1", "1s"), ("example.com/f2", "3s")];
/// Virtual time a run may take (it settles long before).
const LIMIT_MS: u64 = 24 * 3_600_000;

#[derive(Clone, Debug)]
enum Owner {
    /// An earlier object, by index.
    Object(usize),
    /// An earlier object's name with a uid that is not its own.
    WrongUid(usize),
    /// A name nothing has.
    Absent,
    /// A kind the server does not serve (never resolvable).
    UnknownKind,
}

#[derive(Clone, Debug)]
struct Ref {
    owner: Owner,
    controller: bool,
    block: Option<bool>,
}

#[derive(Clone, Debug)]
struct Obj {
    ns: usize,
    kind: usize,
    finalizers: Vec<usize>,
    refs: Vec<Ref>,
}

#[derive(Clone, Debug)]
struct Case {
    objects: Vec<Obj>,
    target: usize,
    policy: Policy,
    seed: u64,
}

fn uid(i: usize) -> String {
    format!("00000000-0000-4000-8000-{i:012}")
}

fn name(i: usize) -> String {
    format!("o{i}")
}

/// (namespace bit, kind pick, finalizer mask, refs as (owner pick, variant,
/// controller pick, block flag)).
type RawObj = (bool, u8, u8, Vec<(usize, u8, bool, u8)>);

fn build(two_ns: bool, raw: Vec<RawObj>, target: (usize, bool), policy: Policy, seed: u64) -> Case {
    let mut objects: Vec<Obj> = Vec::new();
    for (i, (ns_bit, kind, mask, raw_refs)) in raw.into_iter().enumerate() {
        let ns = usize::from(two_ns && ns_bit);
        let finalizers = (0..FINALIZERS.len())
            .filter(|f| mask & (1 << f) != 0)
            .collect();
        let mut refs: Vec<Ref> = Vec::new();
        let mut owners_taken = BTreeSet::new();
        let mut has_controller = false;
        for (pick, variant, controller, block) in raw_refs {
            if i == 0 && variant < 28 {
                continue;
            }
            let same_ns: Vec<usize> = (0..i).filter(|j| objects[*j].ns == ns).collect();
            let owner = match variant {
                // Mostly owners in the same namespace; a few anywhere
                // (cross-namespace references dangle, R7a).
                0..=23 if !same_ns.is_empty() => Owner::Object(same_ns[pick % same_ns.len()]),
                0..=25 => Owner::Object(pick % i),
                26 | 27 => Owner::WrongUid(pick % i),
                28 => Owner::Absent,
                _ => Owner::UnknownKind,
            };
            if let Owner::Object(j) | Owner::WrongUid(j) = owner
                && !owners_taken.insert(j)
            {
                continue;
            }
            let controller = controller && !has_controller;
            has_controller |= controller;
            refs.push(Ref {
                owner,
                controller,
                block: match block {
                    0 => None,
                    1 => Some(false),
                    _ => Some(true),
                },
            });
        }
        objects.push(Obj {
            ns,
            kind: usize::from(kind) % KINDS.len(),
            finalizers,
            refs,
        });
    }
    // Early objects have the most dependents: pick among them half the time.
    let (pick, early) = target;
    let target = if early {
        pick % objects.len().div_ceil(3)
    } else {
        pick % objects.len()
    };
    Case {
        objects,
        target,
        policy,
        seed,
    }
}

fn case() -> impl Strategy<Value = Case> {
    let raw_ref = (any::<usize>(), 0u8..30, any::<bool>(), 0u8..4);
    let raw_obj = (
        any::<bool>(),
        any::<u8>(),
        prop_oneof![3 => Just(0u8), 1 => 1u8..4],
        prop_oneof![
            1 => Just(Vec::new()),
            3 => prop::collection::vec(raw_ref.clone(), 1..=1),
            2 => prop::collection::vec(raw_ref, 2..=2),
        ],
    );
    (
        any::<bool>(),
        prop::collection::vec(raw_obj, 1..=30),
        (any::<usize>(), any::<bool>()),
        prop::sample::select(Policy::ALL.to_vec()),
        any::<u64>(),
    )
        .prop_map(|(two_ns, raw, target, policy, seed)| build(two_ns, raw, target, policy, seed))
}

fn yaml(case: &Case) -> String {
    let mut s = String::from("name: random\ncontrollers:\n");
    for (f, after) in FINALIZERS {
        let _ = writeln!(s, "  - {{finalizer: {f}, online: true, after: {after}}}");
    }
    s.push_str("objects:\n");
    for (i, o) in case.objects.iter().enumerate() {
        let _ = writeln!(s, "  - apiVersion: v1\n    kind: {}", KINDS[o.kind]);
        let _ = writeln!(
            s,
            "    metadata:\n      name: {}\n      namespace: {}\n      uid: {}",
            name(i),
            NAMESPACES[o.ns],
            uid(i)
        );
        if !o.finalizers.is_empty() {
            let fs: Vec<&str> = o.finalizers.iter().map(|f| FINALIZERS[*f].0).collect();
            let _ = writeln!(s, "      finalizers: [{}]", fs.join(", "));
        }
        if !o.refs.is_empty() {
            s.push_str("      ownerReferences:\n");
        }
        for (k, r) in o.refs.iter().enumerate() {
            let (api_version, kind, owner_name, owner_uid) = match r.owner {
                Owner::Object(j) => (
                    "v1".to_string(),
                    KINDS[case.objects[j].kind].to_string(),
                    name(j),
                    uid(j),
                ),
                Owner::WrongUid(j) => (
                    "v1".into(),
                    KINDS[case.objects[j].kind].into(),
                    name(j),
                    uid(1000 + j),
                ),
                Owner::Absent => (
                    "v1".into(),
                    "ConfigMap".into(),
                    format!("ghost-{i}-{k}"),
                    uid(2000 + 10 * i + k),
                ),
                Owner::UnknownKind => (
                    "widgets.example.com/v1".into(),
                    "Widget".into(),
                    format!("w-{i}"),
                    uid(3000 + 10 * i + k),
                ),
            };
            let _ = write!(
                s,
                "        - {{apiVersion: {api_version}, kind: {kind}, name: {owner_name}, uid: {owner_uid}"
            );
            if r.controller {
                s.push_str(", controller: true");
            }
            if let Some(b) = r.block {
                let _ = write!(s, ", blockOwnerDeletion: {b}");
            }
            s.push_str("}\n");
        }
        if KINDS[o.kind] == "Pod" {
            let _ = writeln!(
                s,
                "    spec: {{nodeName: node-1, terminationGracePeriodSeconds: {}}}",
                5 + 10 * (i % 3)
            );
        }
    }
    s
}

/// A reference the garbage collector can never resolve (R32: kind not
/// mappable).
fn unresolvable(
    sim_kinds: &ownerscope::model::KindTable,
    r: &ownerscope::model::OwnerReference,
) -> bool {
    sim_kinds.get(r.group(), &r.kind).is_none()
}

fn store(sim: &Sim) -> BTreeMap<String, Object> {
    sim.objects()
        .map(|o| (o.metadata.uid.clone(), o.clone()))
        .collect()
}

/// Whether the reference dangles (R32): the owner is looked up by kind and
/// name in the dependent's namespace; absent or another uid.
fn dangles(
    objects: &BTreeMap<String, Object>,
    dep: &Object,
    r: &ownerscope::model::OwnerReference,
) -> bool {
    !objects.values().any(|o| {
        o.kind == r.kind
            && o.group() == r.group()
            && o.metadata.name == r.name
            && o.metadata.namespace == dep.metadata.namespace
            && o.metadata.uid == r.uid
    })
}

/// No object survives whose every owner reference dangles (R34, R38),
/// unresolvable references aside. Objects already being deleted are the
/// liveness check's business: one can wait (R41) on a dependent the GC
/// cannot resolve.
fn check_no_dangling_survivor(sim: &Sim, when: &str) -> Result<(), TestCaseError> {
    let objects = store(sim);
    for o in objects.values() {
        let refs = &o.metadata.owner_references;
        if refs.is_empty()
            || o.metadata.deletion_timestamp.is_some()
            || refs.iter().any(|r| unresolvable(sim.kinds(), r))
        {
            continue;
        }
        prop_assert!(
            !refs.iter().all(|r| dangles(&objects, o, r)),
            "{when}: {}/{} survives with only dangling references {:?}",
            o.kind,
            o.metadata.name,
            refs
        );
    }
    Ok(())
}

/// Replays the watch changes from `start`: no object stops waiting for its
/// dependents (foregroundDeletion removed, or the object removed while
/// carrying it) while a dependent that blocks it still exists (R41).
fn check_foreground_order(
    start: BTreeMap<String, Object>,
    changes: &[Change],
) -> Result<(), TestCaseError> {
    let mut state = start;
    for ch in changes {
        let released = match ch {
            Change::Modified { old, new } => {
                old.has_finalizer(FOREGROUND) && !new.has_finalizer(FOREGROUND)
            }
            Change::Deleted(o) => o.has_finalizer(FOREGROUND),
            Change::Added(_) => false,
        };
        if released {
            let owner = ch.object();
            let blocker = state.values().find(|d| {
                d.metadata.uid != owner.metadata.uid
                    && d.metadata
                        .owner_references
                        .iter()
                        .any(|r| r.uid == owner.metadata.uid && r.blocks())
            });
            prop_assert!(
                blocker.is_none(),
                "{}/{} released while {:?} blocks it",
                owner.kind,
                owner.metadata.name,
                blocker.map(|b| b.metadata.name.clone())
            );
        }
        match ch {
            Change::Added(o) | Change::Modified { new: o, .. } => {
                state.insert(o.metadata.uid.clone(), ownerscope::model::Object::clone(o));
            }
            Change::Deleted(o) => {
                state.remove(&o.metadata.uid);
            }
        }
    }
    Ok(())
}

/// Objects whose deletion may rightly never finish although every
/// finalizer's controller is online: those waiting (R41) on a blocking
/// dependent the GC cannot process, because one of its references names a
/// kind it cannot resolve (R32), or that waits in turn.
fn waiting_on_unresolvable(sim: &Sim) -> BTreeSet<String> {
    let objects = store(sim);
    let mut holders: BTreeSet<String> = objects
        .values()
        .filter(|o| {
            o.metadata
                .owner_references
                .iter()
                .any(|r| unresolvable(sim.kinds(), r))
        })
        .map(|o| o.metadata.uid.clone())
        .collect();
    let mut excused = BTreeSet::new();
    loop {
        let more: Vec<String> = objects
            .values()
            .filter(|o| o.has_finalizer(FOREGROUND) && !excused.contains(&o.metadata.uid))
            .filter(|o| {
                objects.values().any(|d| {
                    holders.contains(&d.metadata.uid)
                        && d.metadata
                            .owner_references
                            .iter()
                            .any(|r| r.uid == o.metadata.uid && r.blocks())
                })
            })
            .map(|o| o.metadata.uid.clone())
            .collect();
        if more.is_empty() {
            return excused;
        }
        holders.extend(more.iter().cloned());
        excused.extend(more);
    }
}

/// uid, name, owner references, finalizers, terminating.
type Summary = (String, String, Vec<String>, Vec<String>, bool);

/// Foreground completion is bottom-up (R42): whatever hung below the target
/// by chains of sole, blocking references when it was deleted goes before
/// the target does. (A dependent with another owner may instead lose its
/// reference to a waiting owner, R49.)
fn check_bottom_up(
    before: &BTreeMap<String, Object>,
    changes: &[Change],
    target: &str,
) -> Result<(), TestCaseError> {
    let mut below: BTreeSet<&str> = BTreeSet::from([target]);
    loop {
        let more: Vec<&str> = before
            .values()
            .filter(|d| !below.contains(d.metadata.uid.as_str()))
            .filter(|d| {
                matches!(d.metadata.owner_references.as_slice(),
                    [r] if r.blocks() && below.contains(r.uid.as_str()))
            })
            .map(|d| d.metadata.uid.as_str())
            .collect();
        if more.is_empty() {
            break;
        }
        below.extend(more);
    }
    let removed_at = |uid: &str| {
        changes
            .iter()
            .position(|c| matches!(c, Change::Deleted(o) if o.metadata.uid == uid))
    };
    let Some(target_removed) = removed_at(target) else {
        return Ok(());
    };
    for uid in below.iter().filter(|u| **u != target) {
        let at = removed_at(uid);
        prop_assert!(
            at.is_some_and(|at| at < target_removed),
            "{} was not removed before the foreground target",
            before[*uid].metadata.name
        );
    }
    Ok(())
}

/// What must agree between runs: identity, references, finalizers and
/// whether it is terminating.
fn final_set(sim: &Sim) -> Vec<Summary> {
    sim.objects()
        .map(|o| {
            (
                o.metadata.uid.clone(),
                o.metadata.name.clone(),
                o.metadata
                    .owner_references
                    .iter()
                    .map(|r| format!("{r:?}"))
                    .collect(),
                o.metadata.finalizers.clone(),
                o.metadata.deletion_timestamp.is_some(),
            )
        })
        .collect()
}

struct Run {
    sim: Sim,
    /// The store when the DELETE was sent.
    before: BTreeMap<String, Object>,
    changes: Vec<Change>,
    target_existed: bool,
}

fn run(case: &Case, scenario: &ownerscope::sim::Scenario, seed: u64) -> Result<Run, TestCaseError> {
    let mut sim = Sim::with_seed(scenario, seed).map_err(|e| TestCaseError::fail(e.to_string()))?;
    // The GC first resolves what dangles from the start.
    sim.settle(LIMIT_MS);
    check_no_dangling_survivor(&sim, "before the delete")?;
    sim.take_watch_changes();
    let before = store(&sim);
    let key = Key {
        group: String::new(),
        kind: KINDS[case.objects[case.target].kind].to_string(),
        namespace: Some(NAMESPACES[case.objects[case.target].ns].to_string()),
        name: name(case.target),
    };
    let target_existed = sim.get(&key).is_some();
    let resp = sim.delete_key(&key, &common::policy(case.policy));
    prop_assert_eq!(resp.is_success(), target_existed, "{:?}", resp);
    sim.settle(sim.now_ms() + LIMIT_MS);
    let changes = sim.take_watch_changes();
    Ok(Run {
        sim,
        before,
        changes,
        target_existed,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn garbage_collection_properties(case in case()) {
        let text = yaml(&case);
        let scenario = scenario::parse("random.yaml", &text)
            .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        check_case(&case, &scenario).map_err(|e| {
            TestCaseError::fail(format!(
                "{e}\n{text}DELETE o{} propagationPolicy={} (seed {})",
                case.target, case.policy, case.seed
            ))
        })?;
    }
}

fn check_case(case: &Case, scenario: &ownerscope::sim::Scenario) -> Result<(), TestCaseError> {
    let first = run(case, scenario, case.seed)?;
    let sim = &first.sim;
    let target_uid = uid(case.target);

    check_no_dangling_survivor(sim, "after the delete")?;
    check_foreground_order(first.before.clone(), &first.changes)?;
    if case.policy == Policy::Foreground {
        check_bottom_up(&first.before, &first.changes, &target_uid)?;
    }

    // With every finalizer's controller online, nothing stays stuck but
    // foreground waits on dependents the GC cannot resolve.
    let excused = waiting_on_unresolvable(sim);
    let stuck: Vec<&str> = sim
        .objects()
        .filter(|o| o.metadata.deletion_timestamp.is_some() && !excused.contains(&o.metadata.uid))
        .map(|o| o.metadata.name.as_str())
        .collect();
    prop_assert!(stuck.is_empty(), "stuck: {:?}", stuck);
    if first.target_existed {
        prop_assert!(
            sim.api().get_uid(&target_uid).is_none() || excused.contains(&target_uid),
            "the target is still there"
        );
    }

    if case.policy == Policy::Orphan && first.target_existed {
        check_orphaned(&first.before, sim, &target_uid)?;
    }

    // Deterministic for a seed; another seed may reorder, not change the
    // outcome.
    let again = run(case, scenario, case.seed)?;
    prop_assert!(
        again.sim.timeline() == sim.timeline(),
        "same seed, another timeline"
    );
    let other = run(case, scenario, case.seed.wrapping_add(1))?;
    prop_assert_eq!(
        final_set(&other.sim),
        final_set(sim),
        "another seed, another outcome"
    );
    Ok(())
}

/// Orphan (R46): every former dependent remains and only loses its
/// reference to the owner; nothing but the target goes.
fn check_orphaned(
    before: &BTreeMap<String, Object>,
    sim: &Sim,
    target: &str,
) -> Result<(), TestCaseError> {
    for (u, o) in before.iter().filter(|(u, _)| *u != target) {
        let Some(now) = sim.api().get_uid(u) else {
            return Err(TestCaseError::fail(format!(
                "{} was deleted by an orphan delete",
                o.metadata.name
            )));
        };
        let expected: Vec<_> = o
            .metadata
            .owner_references
            .iter()
            .filter(|r| r.uid != target)
            .collect();
        let refs: Vec<_> = now.metadata.owner_references.iter().collect();
        prop_assert_eq!(refs, expected, "{}'s references", &o.metadata.name);
    }
    Ok(())
}
