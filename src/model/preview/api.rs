//! The API server's side of a DELETE (R11-R18, R56, R75): the policy it
//! applies, the finalizers it sets, what it removes at once.

use super::*;

/// The policy the API server applies (R11): the requested one, else the
/// GC finalizer the object already carries, else the kind's default.
#[must_use]
pub fn effective_policy(
    graph: &OwnershipGraph,
    obj: &Object,
    policy: Option<Policy>,
) -> (Policy, Option<String>) {
    if let Some(p) = policy {
        return (p, None);
    }
    if obj.is_terminating() {
        let carried = if obj.has_finalizer(ORPHAN) {
            Policy::Orphan
        } else if obj.has_finalizer(FOREGROUND) {
            Policy::Foreground
        } else {
            Policy::Background
        };
        return (
            carried,
            Some("already Terminating: a DELETE without a policy changes nothing".into()),
        );
    }
    if obj.has_finalizer(ORPHAN) {
        return (
            Policy::Orphan,
            Some("no policy given: the object already carries orphan".into()),
        );
    }
    if obj.has_finalizer(FOREGROUND) {
        return (
            Policy::Foreground,
            Some("no policy given: the object already carries foregroundDeletion".into()),
        );
    }
    match graph
        .kinds()
        .get(obj.group(), &obj.kind)
        .map(|k| k.default_policy)
    {
        Some(DefaultPolicy::Policy(Policy::Orphan)) => (
            Policy::Orphan,
            Some(format!(
                "no policy given: {} defaults to Orphan (its dependents are kept)",
                obj.kind
            )),
        ),
        Some(DefaultPolicy::Unsupported) => (
            Policy::Background,
            Some(format!(
                "{} never gets garbage-collector finalizers",
                obj.kind
            )),
        ),
        _ => (
            Policy::Background,
            Some(format!(
                "no policy given: {} defaults to Background",
                obj.kind
            )),
        ),
    }
}

/// R58 with R17: the namespace controller's Background DELETE changes an
/// object that is live, or Terminating with a GC finalizer it drops.
fn namespace_deletes(i: &Item) -> bool {
    match i.state {
        State::Alive => true,
        State::Terminating => i.has_finalizer(FOREGROUND) || i.has_finalizer(ORPHAN),
        State::Gone(_) => false,
    }
}

/// A DELETE that ignores the policy and holds the object with a
/// controller's own finalizer (a namespace's content, a CRD's instances).
fn mark_terminating(item: &mut Item, finalizer: &str) {
    item.state = State::Terminating;
    item.finalizers.retain(|f| f != ORPHAN && f != FOREGROUND);
    if !item.has_finalizer(finalizer) {
        item.finalizers.push(finalizer.into());
    }
}

impl Planner<'_> {
    /// R11-R17 and R56 for a DELETE (user's or the garbage collector's).
    pub(super) fn delete(&mut self, id: Id, policy: Option<Policy>) {
        self.delete_with(id, policy, false);
    }

    /// A DELETE; `force`: with grace period 0 (no kubelet waited for).
    pub(super) fn delete_with(&mut self, id: Id, policy: Option<Policy>, force: bool) {
        if let Some(w) = self.deleted_wave.get_mut(id) {
            *w = self.wave;
        }
        let graph = self.graph;
        let item = &self.items[id];
        if matches!(item.state, State::Gone(_)) {
            return;
        }
        let obj = item.obj.clone();
        let was_terminating = item.state == State::Terminating;
        if is_namespace(&obj) {
            self.delete_namespace(id);
            return;
        }
        if is_crd(&obj) && !was_terminating {
            self.delete_crd(id);
            return;
        }
        // Asked only when a finalizer would be added: most DELETEs of a
        // cascade are Background, and the kind table wants the kind's name,
        // one more wait on memory an object.
        let unsupported = || {
            graph
                .kinds()
                .get(obj.group(), &obj.kind)
                .is_some_and(|k| k.default_policy == DefaultPolicy::Unsupported)
        };
        let mut fins: Vec<String> = item
            .finalizers
            .iter()
            .filter(|f| *f != ORPHAN && *f != FOREGROUND && *f != GRACE)
            .cloned()
            .collect();
        let keep_grace = item.has_finalizer(GRACE);
        // R18: grace period 0 ends a running one.
        if force && keep_grace {
            self.remove_finalizer(id, GRACE);
            if self.gone_if_done(id) {
                return;
            }
        }
        if was_terminating && policy.is_none() {
            return; // R17: no policy, no change
        }
        let chosen = if was_terminating || policy.is_some() {
            match policy {
                Some(Policy::Orphan) => Some(ORPHAN),
                Some(Policy::Foreground) => Some(FOREGROUND),
                _ => None,
            }
        } else {
            match effective_policy(graph, &obj, None).0 {
                Policy::Orphan => Some(ORPHAN),
                Policy::Foreground => Some(FOREGROUND),
                Policy::Background => None,
            }
        };
        if let Some(c) = chosen.filter(|_| !unsupported()) {
            fins.push(c.to_string());
        }
        // R15: scheduled pods get a grace period the kubelet ends.
        // (Read only when it matters: a pod's spec is a JSON map.)
        let scheduled = || {
            obj.is_pod()
                && !obj
                    .str_at(&["spec", "nodeName"])
                    .unwrap_or_default()
                    .is_empty()
                && !matches!(
                    obj.str_at(&["status", "phase"]),
                    Some("Succeeded" | "Failed")
                )
        };
        let grace = || {
            obj.value_at(&["spec", "terminationGracePeriodSeconds"])
                .and_then(Value::as_i64)
                .unwrap_or(30)
        };
        if !force && (keep_grace || (!was_terminating && scheduled() && grace() != 0)) {
            fins.push(GRACE.to_string());
        }
        let wave = self.wave;
        let item = &mut self.items[id];
        item.finalizers = fins;
        if item.finalizers.is_empty() {
            item.state = State::Gone(wave);
            self.on_gone(id);
            return;
        }
        item.state = State::Terminating;
        if item.has_finalizer(ORPHAN) {
            self.orphaning.insert(id);
        }
        if item.has_finalizer(FOREGROUND) && !item.deleting_dependents {
            // R40: dependents first, then the owner (processTransitions);
            // an owner queued before goes behind them, as the simulator's
            // GC has it (no answer depends on the order of a file).
            item.deleting_dependents = true;
            // Another finalizer keeps it once `foregroundDeletion` goes:
            // its dependents' passes race its own (R41, R33).
            if item
                .finalizers
                .iter()
                .any(|f| f != FOREGROUND && f != ORPHAN)
            {
                self.races.push(id);
            }
            if self.queued[id] {
                self.queue.retain(|&q| q != id);
                self.queued[id] = false;
            }
            // (The other order of a race looks at a queue in reverse: the
            // owner first.)
            for d in self.referrers(id) {
                self.enqueue(d);
            }
            self.enqueue(id);
        }
    }

    /// R75: the DELETE adds the cleanup finalizer whatever the policy; the
    /// CRD finalizer deletes every instance (Background) and lets the CRD go
    /// once none is left.
    pub(super) fn delete_crd(&mut self, id: Id) {
        let item = &mut self.items[id];
        mark_terminating(item, CRD_CLEANUP);
        let crd = item.obj.clone();
        let mut instances: Vec<Id> = crd_instances(self.graph, &crd)
            .into_iter()
            .filter_map(|u| self.id(u))
            .collect();
        instances.sort_unstable();
        for u in instances {
            if self.items[u].state == State::Alive {
                self.delete(u, Some(Policy::Background));
            }
        }
    }

    /// R56/R58: the namespace controller deletes all content (Background);
    /// the namespace goes once nothing is left.
    pub(super) fn delete_namespace(&mut self, id: Id) {
        let item = &mut self.items[id];
        if item.state == State::Alive {
            mark_terminating(item, NAMESPACE_CONTENT);
            // R58: spec finalizers other than the controller's own stay
            // until their owners remove them.
            let extra: Vec<String> = item
                .obj
                .strings_at(&["spec", "finalizers"])
                .into_iter()
                .filter(|f| f != NAMESPACE_CONTENT)
                .collect();
            item.finalizers.extend(extra);
            if item.has_finalizer(ORPHAN) {
                self.orphaning.insert(id);
            }
        }
        let ns = item.obj.name().to_string();
        self.delete_namespace_content(&ns);
    }

    /// One pass of the namespace controller over its content (R58): the
    /// pods first, and nothing else while any pod remains
    /// (OrderedNamespaceDeletion, GA in 1.34; the simulator's namespace
    /// controller does the same). Whether it deleted anything.
    pub(super) fn delete_namespace_content(&mut self, ns: &str) -> bool {
        let in_ns = |i: &Item| i.obj.namespace() == Some(ns) && !matches!(i.state, State::Gone(_));
        let pods_left = !self.ids_where(|i| in_ns(i) && i.obj.is_pod()).is_empty();
        let todo =
            self.ids_where(|i| in_ns(i) && namespace_deletes(i) && (!pods_left || i.obj.is_pod()));
        for &u in &todo {
            self.delete(u, Some(Policy::Background));
        }
        !todo.is_empty()
    }
}
