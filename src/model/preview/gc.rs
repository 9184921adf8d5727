//! The garbage collector's passes over the working set (R33-R50): the
//! rounds until nothing changes, each object's pass, a foreground owner's
//! wait, the orphan work.

use super::*;

impl Planner<'_> {
    /// Rounds of garbage-collector and controller work until nothing
    /// changes. The GC reacts within a fraction of a second, controllers and
    /// kubelets in seconds: each round runs the GC's orphan work and its
    /// delete queue (FIFO, as upstream's workqueue) until they are idle,
    /// then lets the other controllers release their finalizers.
    pub(super) fn run(&mut self) {
        for _ in 0..10_000 {
            let mut changed = false;
            loop {
                self.wave += 1;
                let mut gc_changed = false;
                // In id order, as a scan would find them; those that no
                // longer are (orphan_dependents drops `orphan`) leave the
                // set, a DELETE that adds it again puts them back.
                let candidates = std::mem::take(&mut self.orphaning);
                self.count(candidates.len());
                for id in candidates {
                    let i = &self.items[id];
                    if i.state == State::Terminating && i.has_finalizer(ORPHAN) {
                        gc_changed |= self.orphan_dependents(id);
                    }
                }
                let mut queued: Vec<Id> = self.queue.drain(..).collect();
                // The other side of a race: siblings queued together are
                // looked at in the other order too (20 workers take them
                // at once: one may patch a reference away before a
                // sibling's DELETE lands).
                if self.owner_first {
                    queued.reverse();
                }
                if self.owners_first {
                    let items = &self.items;
                    queued.sort_by_key(|&id| !items[id].deleting_dependents);
                }
                self.count(queued.len());
                for &id in &queued {
                    self.queued[id] = false;
                    self.batch_wave[id] = self.wave;
                }
                for id in queued {
                    gc_changed |= self.gc_pass(id);
                }
                // R34.4: an object that kept an owner deleted in this same
                // batch raced that owner's DELETE.
                for (x, s) in std::mem::take(&mut self.sibling_candidates) {
                    if self.deleted_wave[s] == self.wave && !self.siblings.contains(&x) {
                        self.siblings.push(x);
                    }
                }
                changed |= gc_changed;
                if !gc_changed && self.queue.is_empty() {
                    break;
                }
            }
            for id in self.ids_where(|i| i.state == State::Terminating) {
                changed |= self.release_finalizers(id);
            }
            for id in
                self.ids_where(|i| i.state == State::Alive && i.kind.is(Kind::PERSISTENT_VOLUME))
            {
                changed |= self.reclaim(id);
            }
            changed |= self.workload_controllers();
            changed |= self.pod_gc();
            changed |= self.token_controller();
            if !changed && self.queue.is_empty() {
                break;
            }
        }
    }

    pub(super) fn on_gone(&mut self, id: Id) {
        for d in self.referrers(id) {
            self.enqueue(d);
        }
        // (A handle on the object, not a list of ids: no allocation.)
        let obj = self.items[id].obj.clone();
        for r in &obj.metadata.owner_references {
            if let Some(o) = self.id(&r.uid)
                && self.items[o].deleting_dependents
            {
                self.enqueue(o);
            }
        }
    }

    /// How the garbage collector takes a reference `obj` holds.
    pub(super) fn ref_class(&self, obj: &Object, r: &OwnerReference) -> RefClass {
        match self.graph.resolve(obj, r) {
            Ok(owner) => {
                let (gone, foreground) = match self.id(&r.uid) {
                    Some(o) => {
                        let o = &self.items[o];
                        (
                            matches!(o.state, State::Gone(_)),
                            o.state == State::Terminating && o.has_finalizer(FOREGROUND),
                        )
                    }
                    None => (
                        false,
                        owner.is_terminating() && owner.has_finalizer(FOREGROUND),
                    ),
                };
                if gone {
                    RefClass::Dangling
                } else if foreground {
                    RefClass::Waiting
                } else {
                    RefClass::Solid
                }
            }
            Err(RefStatus::Unmappable { api_version }) => {
                RefClass::Never(crate::model::diagnosis::never_mapped(
                    &api_version,
                    &format!("{}/{}", r.kind, r.name),
                ))
            }
            Err(RefStatus::Unresolvable) => RefClass::Never(format!(
                "cluster-scoped, but its owner reference names a namespaced {}: the garbage collector never resolves it",
                r.kind
            )),
            Err(RefStatus::UnknownKind) => RefClass::Never(format!(
                "its owner reference names kind {} ({}), which the server does not serve: the garbage collector retries and keeps it",
                r.kind, r.api_version
            )),
            // Not seen, so not known to be gone: counted as an owner
            // that exists (never "deleted" on a guess).
            Err(RefStatus::Unverified { .. }) => RefClass::Solid,
            Err(_) => RefClass::Dangling,
        }
    }

    /// One `attemptToDeleteItem` (R34) over the working copy.
    pub(super) fn gc_pass(&mut self, id: Id) -> bool {
        let graph = self.graph;
        let item = &self.items[id];
        if item.deleting_dependents && item.state == State::Terminating {
            return self.process_deleting_dependents(id);
        }
        if item.state != State::Alive {
            return false; // R34.0: terminating items wait for their finalizers
        }
        let obj = item.obj.clone();
        if obj.metadata.owner_references.is_empty() {
            return false;
        }
        // Counted first, listed only when some are stripped: a cascade
        // resolves one reference per object, and a list each was an
        // allocation each.
        let (mut solid, mut dangling, mut waiting) = (false, false, false);
        for r in &obj.metadata.owner_references {
            match self.ref_class(&obj, r) {
                RefClass::Solid => solid = true,
                RefClass::Dangling => dangling = true,
                RefClass::Waiting => waiting = true,
                RefClass::Never(reason) => {
                    self.items[id].more_mut().never = Some(reason);
                    return false;
                }
            }
        }
        if waiting {
            self.note_siblings(id, &obj, solid);
        }
        if solid {
            if !dangling && !waiting {
                return false;
            }
            let (mut dangling, mut waiting) = (Vec::new(), Vec::new());
            for r in &obj.metadata.owner_references {
                match self.ref_class(&obj, r) {
                    RefClass::Dangling => dangling.push(r),
                    RefClass::Waiting => waiting.push(r),
                    RefClass::Solid | RefClass::Never(_) => {}
                }
            }
            let gone: BTreeSet<&str> = dangling
                .iter()
                .chain(&waiting)
                .map(|r| r.uid.as_str())
                .collect();
            let names: Vec<String> = dangling
                .iter()
                .chain(&waiting)
                .map(|r| format!("{}/{}", r.kind, r.name))
                .collect();
            let i = &mut self.items[id];
            i.obj
                .to_mut()
                .metadata
                .owner_references
                .retain(|r| !gone.contains(r.uid.as_str()));
            i.more_mut().stripped.extend(names);
            // R35: dropping a blocking reference wakes its owner.
            let unblocked: Vec<Id> = dangling
                .iter()
                .chain(&waiting)
                .filter(|r| r.blocks())
                .filter_map(|r| self.id(&r.uid))
                .collect();
            for o in unblocked {
                self.enqueue(o);
            }
            return true;
        }
        // R34.5 asks whether it has dependents; in a partial view one of a
        // kind that could not be listed may exist: assumed, so that the
        // answer is "deleted unless an unseen dependent blocks", never a
        // plain "deleted" on a guess.
        let dependents = self.referrers(id);
        let has_dependents = !dependents.is_empty() || !graph.kinds().unlisted().is_empty();
        let policy = if waiting && has_dependents {
            let cycle = dependents
                .iter()
                .any(|&d| self.items[d].deleting_dependents);
            let mut unblocked = Vec::new();
            if cycle {
                for r in &mut self.items[id].obj.to_mut().metadata.owner_references {
                    if r.blocks() {
                        r.block_owner_deletion = Some(false);
                        unblocked.push(r.uid.clone());
                    }
                }
            }
            let patched = !unblocked.is_empty();
            // R35: a reference flipped to non-blocking wakes its owner.
            for o in unblocked {
                if let Some(o) = self.id(&o) {
                    self.enqueue(o);
                }
            }
            // R34 (1.34+): the DELETE carries the resourceVersion read
            // before that patch, gets 409 and is requeued; the owner just
            // woken may drop `foregroundDeletion` first. (1.20 deletes at
            // once, with a uid precondition only.)
            if patched {
                if self.owner_first && !self.guarded.contains(&id) {
                    // Retried behind the owners it woke (first in the
                    // queue: the other order looks at it last).
                    self.guarded.push(id);
                    if self.queued[id] {
                        self.queue.retain(|&q| q != id);
                    }
                    self.queued[id] = true;
                    self.queue.push_front(id);
                    return true;
                }
                self.guarded.push(id);
            }
            Policy::Foreground
        } else if self.items[id].has_finalizer(ORPHAN) {
            Policy::Orphan
        } else if self.items[id].has_finalizer(FOREGROUND) {
            Policy::Foreground
        } else {
            Policy::Background
        };
        self.delete(id, Some(policy));
        true
    }

    /// R34.4: an object with an owner waiting in foreground, looked at in
    /// the same batch as another owner of it; the workers take a batch at
    /// once, so which pass lands first is a race:
    /// - kept by that owner (solid): a race if the batch deletes it
    ///   (checked when the batch ends);
    /// - going in foreground because that owner, deleted earlier in this
    ///   batch, counts as waiting;
    /// - going in foreground because that owner, which it does not block,
    ///   still counts as waiting, while that owner's own pass in the same
    ///   batch may drop `foregroundDeletion` first (then it is gone, and the
    ///   object, with dependents of its own, goes in background, at once).
    fn note_siblings(&mut self, id: Id, obj: &Object, solid: bool) {
        let has_dependents = !self.referrers(id).is_empty();
        for r in &obj.metadata.owner_references {
            let Some(s) = self.id(&r.uid).filter(|&s| s != id) else {
                continue;
            };
            if self.batch_wave[s] != self.wave {
                continue;
            }
            let race = match self.ref_class(obj, r) {
                RefClass::Solid if solid => {
                    self.sibling_candidates.push((id, s));
                    false
                }
                RefClass::Waiting if !solid => {
                    self.deleted_wave[s] == self.wave || (!r.blocks() && has_dependents)
                }
                _ => false,
            };
            if race && !self.siblings.contains(&id) {
                self.siblings.push(id);
            }
        }
    }

    /// R41: a foreground owner's pass.
    pub(super) fn process_deleting_dependents(&mut self, id: Id) -> bool {
        let blockers = self.blockers(id);
        if blockers.is_empty() {
            // The UPDATE dropping foregroundDeletion is refused by a
            // webhook with nothing behind it (STUCK-CAUSES C6).
            if self.refusing_webhook(&self.items[id].obj).is_some() {
                return false;
            }
            let had = self.items[id].has_finalizer(FOREGROUND);
            self.remove_finalizer(id, FOREGROUND);
            return self.gone_if_done(id) || had;
        }
        for b in blockers {
            if !self.items[b].deleting_dependents {
                self.enqueue(b);
            }
        }
        false
    }

    /// Blocking dependents of a foreground owner (R41): still there, with
    /// a blocking reference to it.
    pub(super) fn blockers(&self, id: Id) -> Vec<Id> {
        let uid = self.items[id].obj.uid();
        self.referrers(id)
            .into_iter()
            .filter(|&d| {
                self.items[d]
                    .obj
                    .metadata
                    .owner_references
                    .iter()
                    .any(|r| r.uid == uid && r.blocks())
            })
            .collect()
    }

    /// R46: strip the owner's references from its dependents, then drop
    /// `orphan`.
    pub(super) fn orphan_dependents(&mut self, id: Id) -> bool {
        let owner = name_of(&self.items[id].obj);
        let uid = self.items[id].obj.uid().to_string();
        // Each UPDATE (a dependent's references, then the owner's
        // finalizer) may be refused by a webhook (STUCK-CAUSES C6): the
        // garbage collector retries, and the owner stays.
        let owner_refused = self.refusing_webhook(&self.items[id].obj).is_some();
        let mut all_released = true;
        for d in self.referrers(id) {
            if self.refusing_webhook(&self.items[d].obj).is_some() {
                all_released = false;
                continue;
            }
            let dep = &mut self.items[d];
            if dep
                .obj
                .metadata
                .owner_references
                .iter()
                .any(|r| r.uid == uid)
            {
                dep.obj
                    .to_mut()
                    .metadata
                    .owner_references
                    .retain(|r| r.uid != uid);
                dep.more_mut().orphaned_from.push(owner.clone());
            }
        }
        if owner_refused || !all_released {
            return false;
        }
        self.remove_finalizer(id, ORPHAN);
        self.gone_if_done(id);
        true
    }

    pub(super) fn remove_finalizer(&mut self, id: Id, f: &str) {
        self.items[id].finalizers.retain(|x| x != f);
    }

    /// R23: a Terminating object whose last finalizer went is removed.
    pub(super) fn gone_if_done(&mut self, id: Id) -> bool {
        let wave = self.wave;
        let item = &mut self.items[id];
        if item.state == State::Terminating && item.finalizers.is_empty() {
            item.state = State::Gone(wave);
            self.on_gone(id);
            return true;
        }
        false
    }
}
