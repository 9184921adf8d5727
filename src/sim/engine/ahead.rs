//! Workload syncs computed ahead, on both cores, when many are due in a
//! row and each changes nothing: the controllers' first sync of every
//! workload after their initial list (every informer's list enqueues every
//! object, upstream `controller.go`'s `Run`), which at 300k objects was a
//! quarter of `simulate`'s wall time on one core.
//!
//! A sync is a pure function of the store and the workload index: it
//! returns intents, and only carrying them out changes anything. So the
//! syncs of the next due workloads are computed at once against the state
//! before the first of them, and each result is used, in the queue's
//! order, only while every sync before it asked for nothing: the state it
//! would have read is then exactly the one it read. The first that asks for
//! something ends the batch; what follows it is synced again, one at a
//! time, against the state its intents left. The run is the same as one
//! sync at a time, task for task.
//!
//! Speculating costs work thrown away when a sync asks for something, so a
//! batch is only computed after [`AFTER_QUIET`] syncs in a row asked for
//! nothing, and it grows by doubling while every sync in it stays quiet:
//! the work thrown away is never more than what was used before it.

use std::collections::VecDeque;

use super::{ApiServer, BTreeMap, Intent, Task, controllers};
use crate::sim::controllers::index::WorkloadIndex;

/// Quiet syncs in a row before a first batch is computed, and its size.
const AFTER_QUIET: usize = if cfg!(test) { 4 } else { 64 };

/// The largest batch of a run with no deadline (a headless command's):
/// at 300k objects, about 7 ms of syncs on each thread.
const MOST: usize = 4096;

/// The largest batch of a run with a deadline (the UI's polls, 25 ms
/// each): computed before the deadline is looked at again, so that it is
/// never passed by more than a fraction of a millisecond of syncs.
const MOST_BY_A_DEADLINE: usize = if cfg!(test) { 16 } else { 256 };

// The first batch fits either bound.
const _: () = assert!(AFTER_QUIET <= MOST_BY_A_DEADLINE && MOST_BY_A_DEADLINE <= MOST);

/// A task's place in the queue: its time, then its order.
type TaskKey = (u64, u64);

#[cfg(test)]
thread_local! {
    /// Set by a test: this thread's syncs run one at a time, to compare
    /// with syncs computed ahead.
    static ONE_AT_A_TIME: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// How many syncs computed ahead this thread's runs used, how many
    /// they threw away, and how many syncs asked for nothing.
    static USED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    static THROWN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    static QUIET: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// The largest batch this thread's runs computed.
    static LARGEST: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The syncs computed ahead and what decides the next batch.
#[derive(Debug)]
pub(super) struct Ahead {
    /// Each due workload's intents, in the queue's order, computed against
    /// the state before the first of them (none: the workload is gone).
    synced: VecDeque<(TaskKey, Option<Vec<Intent>>)>,
    /// Syncs in a row that asked for nothing.
    quiet: usize,
    /// The next batch's size: [`AFTER_QUIET`], doubled for each batch
    /// used whole since a sync last asked for something, up to `most`.
    size: usize,
    /// The largest batch: [`MOST`], or [`MOST_BY_A_DEADLINE`].
    most: usize,
}

impl Ahead {
    /// For one run of what is due; `by_a_deadline` if the run stops at a
    /// deadline.
    pub(super) fn new(by_a_deadline: bool) -> Ahead {
        Ahead {
            synced: VecDeque::new(),
            quiet: 0,
            size: AFTER_QUIET,
            most: if by_a_deadline {
                MOST_BY_A_DEADLINE
            } else {
                MOST
            },
        }
    }

    /// Computes the next batch when the queue starts with enough due
    /// workloads and the last syncs were quiet. Call with the queue's
    /// first task due.
    pub(super) fn prepare(
        &mut self,
        tasks: &BTreeMap<TaskKey, Task>,
        at: u64,
        api: &ApiServer,
        index: &WorkloadIndex,
    ) {
        if !self.synced.is_empty() || self.quiet < AFTER_QUIET {
            return;
        }
        #[cfg(test)]
        if ONE_AT_A_TIME.get() {
            return;
        }
        let due: Vec<(TaskKey, &str)> = tasks
            .iter()
            .take_while(|(k, _)| k.0 <= at)
            .map_while(|(k, t)| match t {
                Task::Workload(uid) => Some((*k, uid.as_str())),
                _ => None,
            })
            .take(self.size)
            .collect();
        if due.len() < AFTER_QUIET {
            // Too few to be worth a thread: synced one at a time, and not
            // looked for again until they are.
            self.quiet = 0;
            return;
        }
        let sync = |&(key, uid): &(TaskKey, &str)| {
            let intents = api
                .get_uid(uid)
                .map(|owner| controllers::sync_workload(api, index, owner));
            (key, intents)
        };
        let (first, second) = due.split_at(due.len() / 2);
        let (first, second) = crate::threads::both(
            || first.iter().map(sync).collect::<Vec<_>>(),
            || second.iter().map(sync).collect::<Vec<_>>(),
        );
        self.synced = first.into_iter().chain(second).collect();
        #[cfg(test)]
        LARGEST.set(LARGEST.get().max(self.synced.len()));
    }

    /// The sync computed ahead for the task at `key`, if it is the next of
    /// the batch: the workload's intents, none if it is gone.
    #[allow(clippy::option_option)]
    pub(super) fn take(&mut self, key: TaskKey) -> Option<Option<Vec<Intent>>> {
        match self.synced.front() {
            Some((k, _)) if *k == key => {
                let (_, intents) = self.synced.pop_front()?;
                #[cfg(test)]
                USED.set(USED.get() + 1);
                if self.synced.is_empty() {
                    // The whole batch is used: the next may be larger.
                    self.size = (self.size * 2).min(self.most);
                }
                Some(intents)
            }
            _ => {
                self.throw_away();
                None
            }
        }
    }

    /// A workload's sync was carried out; `quiet` if it asked for nothing.
    pub(super) fn ran(&mut self, quiet: bool) {
        if quiet {
            self.quiet += 1;
            #[cfg(test)]
            QUIET.set(QUIET.get() + 1);
        } else {
            // What was computed against the state before is stale now.
            self.throw_away();
            self.quiet = 0;
            self.size = AFTER_QUIET;
        }
    }

    fn throw_away(&mut self) {
        #[cfg(test)]
        THROWN.set(THROWN.get() + self.synced.len());
        self.synced.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Sim;

    /// A namespace of ReplicaSets, each with its pod, and every
    /// `short`-th one a pod short (`None`: none short).
    fn replica_sets(n: usize, short: Option<usize>) -> crate::sim::scenario::Scenario {
        let mut text = String::from(
            "name: many\nobjects:\n  - {apiVersion: v1, kind: Namespace, metadata: {name: shop, uid: ns}}\n",
        );
        for i in 0..n {
            let replicas = if short.is_some_and(|s| i % s == s - 1) {
                2
            } else {
                1
            };
            text.push_str(&format!(
                "  - apiVersion: apps/v1
    kind: ReplicaSet
    metadata: {{name: rs-{i}, namespace: shop, uid: rs-{i}}}
    spec:
      replicas: {replicas}
      selector: {{matchLabels: {{app: a{i}}}}}
      template: {{metadata: {{labels: {{app: a{i}}}}}}}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: pod-{i}
      namespace: shop
      uid: pod-{i}
      labels: {{app: a{i}}}
      ownerReferences:
        - {{apiVersion: apps/v1, kind: ReplicaSet, name: rs-{i}, uid: rs-{i}, controller: true}}
"
            ));
        }
        crate::sim::scenario::parse("many.yaml", &text).expect("parses")
    }

    /// As [`replica_sets`], all with their pod, and after every `every`-th
    /// an orphan pod that two ReplicaSets select: the first to sync adopts
    /// it, and the second, synced against the state before, would too.
    fn rivals(n: usize, every: usize) -> crate::sim::scenario::Scenario {
        let mut sc = replica_sets(n, None);
        let mut text = String::from("name: rivals\nobjects:\n");
        for i in (every - 1..n).step_by(every) {
            let rival = |side: &str| {
                format!(
                    "  - apiVersion: apps/v1
    kind: ReplicaSet
    metadata: {{name: rival-{i}-{side}, namespace: shop, uid: rival-{i}-{side}}}
    spec:
      replicas: 1
      selector: {{matchLabels: {{app: shared-{i}}}}}
      template: {{metadata: {{labels: {{app: shared-{i}}}}}}}
"
                )
            };
            text.push_str(&format!(
                "  - {{apiVersion: v1, kind: Pod, metadata: {{name: stray-{i}, namespace: shop, uid: stray-{i}, labels: {{app: shared-{i}}}}}}}\n{}{}",
                rival("a"),
                rival("b")
            ));
        }
        let extra = crate::sim::scenario::parse("rivals.yaml", &text).expect("parses");
        // Each trio right after its ReplicaSet: in the queue among them.
        let mut objects = Vec::new();
        let mut trios = extra.objects.chunks(3);
        for (at, o) in sc.objects.drain(..).enumerate() {
            objects.push(o);
            // The namespace first, then a ReplicaSet and its pod: the
            // `i`-th ReplicaSet's pod is at 2 + 2i.
            if at >= 2 && (at - 2) / 2 % every == every - 1 && (at - 2) % 2 == 0 {
                objects.extend(trios.next().into_iter().flatten().cloned());
            }
        }
        sc.objects = objects;
        sc.name = "rivals".into();
        sc
    }

    /// Settles the scenario with syncs computed ahead or one at a time;
    /// also how many computed ahead were used.
    fn settled(sc: &crate::sim::scenario::Scenario, one_at_a_time: bool) -> (Sim, usize) {
        ONE_AT_A_TIME.set(one_at_a_time);
        for count in [&USED, &THROWN, &QUIET] {
            count.set(0);
        }
        let mut sim = Sim::load_deferred(sc.clone(), sc.settings.seed).expect("sim");
        sim.settle(120_000);
        ONE_AT_A_TIME.set(false);
        (sim, USED.get())
    }

    /// The same queue, timeline and objects either way: a sync computed
    /// ahead is used only while the state it read is the state. For every
    /// bundled scenario, and for ReplicaSets that are all quiet at their
    /// first sync, ones where every fifth creates a pod (its batch is
    /// thrown away after it, and what follows synced again), and ones
    /// where two select the same orphan (the second must see it adopted).
    #[test]
    fn syncs_computed_ahead_run_as_syncs_one_at_a_time() {
        let scenarios = crate::sim::scenario::BUNDLED
            .iter()
            .map(|(name, _)| (crate::sim::scenario::bundled(name).expect("bundled"), 0))
            .chain([
                (replica_sets(200, None), 150),
                (replica_sets(200, Some(5)), 1),
                (rivals(200, 10), 1),
            ]);
        for (sc, at_least) in scenarios {
            let name = sc.name.clone();
            let (ahead, used) = settled(&sc, false);
            let (one, none_used) = settled(&sc, true);
            assert_eq!(none_used, 0, "{name}: one at a time");
            assert!(used >= at_least, "{name}: {used} syncs computed ahead used");
            assert_eq!(ahead.timeline(), one.timeline(), "{name}: timeline");
            let objects = |s: &Sim| s.objects().cloned().collect::<Vec<_>>();
            assert_eq!(objects(&ahead), objects(&one), "{name}: settled");
        }
    }

    /// Where syncs keep asking for something, little is computed ahead
    /// and thrown away: a batch waits for [`AFTER_QUIET`] quiet syncs in a
    /// row and grows only when the one before was used whole, so the syncs
    /// thrown away are fewer than those that asked for nothing.
    #[test]
    fn syncs_thrown_away_are_fewer_than_the_quiet_ones() {
        for short in [2, 3, 5, 9, 17, 33, 65, 129] {
            let (sim, used) = settled(&replica_sets(400, Some(short)), false);
            let (thrown, quiet) = (THROWN.get(), QUIET.get());
            assert!(
                thrown < quiet,
                "every {short}th short: {thrown} thrown, {quiet} quiet"
            );
            assert!(used > 0, "every {short}th short: none used");
            let pods = sim.objects().filter(|o| o.kind == "Pod").count();
            assert_eq!(
                pods,
                400 + 400 / short,
                "each short ReplicaSet made its second pod"
            );
        }
    }

    /// A run with a deadline (the UI's polls) computes small batches, so
    /// that it stops near its deadline, and runs as a run without one.
    #[test]
    fn a_run_by_a_deadline_computes_small_batches() {
        let sc = replica_sets(300, Some(97));
        let (free, _) = settled(&sc, false);
        let largest_free = LARGEST.replace(0);
        ONE_AT_A_TIME.set(false);
        let mut polled = Sim::load_deferred(sc.clone(), sc.settings.seed).expect("sim");
        let budget = std::time::Duration::from_secs(60);
        for _ in 0..240 {
            polled.advance_for(500, budget);
        }
        let largest_polled = LARGEST.replace(0);
        assert!(largest_free > MOST_BY_A_DEADLINE, "{largest_free}");
        assert!(
            (1..=MOST_BY_A_DEADLINE).contains(&largest_polled),
            "{largest_polled}"
        );
        assert_eq!(free.timeline(), polled.timeline());
        let objects = |s: &Sim| s.objects().cloned().collect::<Vec<_>>();
        assert_eq!(objects(&free), objects(&polled));
    }
}
