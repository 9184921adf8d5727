//! The end state read as outcomes: deleted, kept and why, left
//! Terminating and on what, waiting behind a Terminating owner.

use super::*;

impl Planner<'_> {
    /// The reported outcome; `None` for objects the delete leaves as they
    /// were.
    pub(super) fn outcome(&self, item: &Item) -> Option<Outcome> {
        match item.state {
            State::Gone(wave) => return Some(Outcome::Deleted { wave }),
            State::Terminating => {
                return Some(Outcome::Waiting {
                    on: self.waits(item),
                });
            }
            State::Alive => {}
        }
        let more = item.more();
        if let Some(by) = &more.adopted_by {
            return Some(Outcome::Adopted {
                references_removed: more.orphaned_from.clone(),
                by: by.clone(),
            });
        }
        if !more.orphaned_from.is_empty() {
            return Some(Outcome::Orphaned {
                references_removed: more.orphaned_from.clone(),
            });
        }
        if !more.stripped.is_empty() {
            let owners = item
                .obj
                .metadata
                .owner_references
                .iter()
                .map(|r| format!("{}/{}", r.kind, r.name))
                .collect();
            return Some(Outcome::KeptByOtherOwner {
                owners,
                references_removed: more.stripped.clone(),
            });
        }
        if let Some(reason) = &more.never {
            return Some(Outcome::NeverCollected {
                reason: reason.clone(),
            });
        }
        None
    }

    /// Objects left alone by this delete whose owner, or an owner up their
    /// chain, is left Terminating: the garbage collector deletes nothing
    /// while its owner is still there, so they wait behind it. Once it is
    /// gone, what no other owner keeps is deleted in turn.
    pub(super) fn parked(&self) -> HashMap<Id, Outcome> {
        // Every object below a Terminating one, through references the
        // garbage collector resolves, that this delete leaves alone.
        let roots = self.ids_where(|i| i.state == State::Terminating);
        let mut candidates: Vec<Id> = Vec::new();
        let mut seen: HashSet<Id> = HashSet::new();
        let mut queue: VecDeque<Id> = roots.iter().copied().collect();
        while let Some(id) = queue.pop_front() {
            for d in self.referrers(id) {
                let item = &self.items[d];
                if item.state != State::Alive || self.outcome(item).is_some() || !seen.insert(d) {
                    continue;
                }
                candidates.push(d);
                queue.push_back(d);
            }
        }
        // Whether an owner reference holds the object once the Terminating
        // owners and what goes with them are gone.
        let owners_of = |id: Id| -> Vec<(Uid, String, RefStatus)> {
            self.graph
                .owners(self.items[id].obj.uid())
                .into_iter()
                .map(|(r, st)| (r.uid.clone(), format!("{}/{}", r.kind, r.name), st))
                .collect()
        };
        let goes = |owner: &Uid, st: &RefStatus, doomed: &HashSet<Id>| match st {
            RefStatus::Resolves { .. } => self
                .id(owner)
                .is_some_and(|o| doomed.contains(&o) || self.items[o].state == State::Terminating),
            // A dangling reference holds nothing.
            RefStatus::OwnerAbsent | RefStatus::UidMismatch { .. } => true,
            _ => false,
        };
        let mut doomed: HashSet<Id> = HashSet::new();
        loop {
            let before = doomed.len();
            for &c in &candidates {
                if !doomed.contains(&c)
                    && owners_of(c).iter().all(|(o, _, st)| goes(o, st, &doomed))
                {
                    doomed.insert(c);
                }
            }
            if doomed.len() == before {
                break;
            }
        }
        // Which Terminating owner each one waits behind, and through whom.
        let mut behind: HashMap<Id, (String, Option<String>)> = HashMap::new();
        let mut queue: VecDeque<(Id, String, Option<String>)> = roots
            .iter()
            .map(|&id| (id, name_of(&self.items[id].obj), None))
            .collect();
        while let Some((id, root, via)) = queue.pop_front() {
            let uid = self.items[id].obj.uid();
            for d in self.referrers(id) {
                if !seen.contains(&d) || behind.contains_key(&d) {
                    continue;
                }
                let resolves = self
                    .graph
                    .owners(self.items[d].obj.uid())
                    .iter()
                    .any(|(r, st)| r.uid == uid && matches!(st, RefStatus::Resolves { .. }));
                if !resolves {
                    continue;
                }
                behind.insert(d, (root.clone(), via.clone()));
                if doomed.contains(&d) {
                    let me = Some(name_of(&self.items[d].obj));
                    queue.push_back((d, root.clone(), me));
                }
            }
        }
        behind
            .into_iter()
            .map(|(id, (root, via))| {
                let other_owners = owners_of(id)
                    .into_iter()
                    .filter(|(o, _, st)| !goes(o, st, &doomed))
                    .map(|(_, name, _)| name)
                    .collect();
                (
                    id,
                    Outcome::Parked {
                        behind: root,
                        via,
                        other_owners,
                    },
                )
            })
            .collect()
    }

    pub(super) fn waits(&self, item: &Item) -> Vec<Wait> {
        let obj = &item.obj;
        let mut out = Vec::new();
        for f in &item.finalizers {
            match f.as_str() {
                FOREGROUND => {
                    let mut deps: Vec<String> = self
                        .id(obj.uid())
                        .map(|id| self.blockers(id))
                        .unwrap_or_default()
                        .into_iter()
                        .map(|d| name_of(&self.items[d].obj))
                        .collect();
                    deps.sort();
                    out.push(Wait::BlockingDependents { dependents: deps });
                }
                GRACE => {
                    let node = self.node_health(obj);
                    if !node.confirms() {
                        out.push(Wait::Kubelet { node });
                    }
                }
                PVC_PROTECTION => out.push(Wait::InUse {
                    by: self.pvc_users(obj),
                }),
                NAMESPACE_CONTENT => {
                    let ns = obj.name();
                    let mut remaining: Vec<String> = self
                        .items
                        .iter()
                        .filter(|i| {
                            i.obj.namespace() == Some(ns) && !matches!(i.state, State::Gone(_))
                        })
                        .map(|i| name_of(&i.obj))
                        .collect();
                    remaining.sort();
                    if !remaining.is_empty() {
                        out.push(Wait::NamespaceContent { remaining });
                    }
                    let failing = self.graph.kinds().discovery_failing();
                    if !failing.is_empty() {
                        out.push(Wait::DiscoveryFailing {
                            group_versions: failing.iter().map(|g| (*g).to_string()).collect(),
                        });
                    }
                }
                _ if let Some((w, why)) = self.refusing_webhook(obj) => out.push(Wait::Webhook {
                    finalizer: f.clone(),
                    configuration: w.configuration_ref(),
                    webhook: w.name,
                    why,
                }),
                _ => out.push(Wait::Finalizer {
                    name: f.clone(),
                    controller_online: self.controllers.get(f).copied(),
                    removed_by: finalizers::describe(f).removed_by,
                }),
            }
        }
        out
    }
}
