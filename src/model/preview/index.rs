//! The working set: the objects a DELETE can reach, found once from the
//! graph, in uid order, each with the objects that refer to it.

use super::*;

/// Each item's id by uid: the graph's strings (which outlive the plan)
/// with their hashes, so that growing the table and probing it seldom
/// reads a uid again (at 100k objects, each read of a uid is a wait on
/// memory).
#[derive(Default)]
pub(super) struct UidIndex<'a> {
    table: HashTable<(u64, &'a str, Id)>,
    hasher: foldhash::fast::RandomState,
}

impl<'a> UidIndex<'a> {
    fn get(&self, uid: &str) -> Option<Id> {
        let hash = self.hasher.hash_one(uid);
        self.table
            .find(hash, |e| e.0 == hash && e.1 == uid)
            .map(|e| e.2)
    }

    /// The id of `uid`, `next` (added) if it has none.
    fn get_or_insert(&mut self, uid: &'a str, next: Id) -> Id {
        let hash = self.hasher.hash_one(uid);
        self.table
            .entry(hash, |e| e.0 == hash && e.1 == uid, |e| e.0)
            .or_insert((hash, uid, next))
            .get()
            .2
    }
}

/// The working set as [`Planner::new`] finds it.
#[derive(Default)]
struct Found<'a> {
    /// Each object's place in `objects` by uid.
    ids: UidIndex<'a>,
    /// The objects, in the order found. Their items are made once the
    /// order by uid is known, in that order: made here and then moved
    /// into place, each item was written twice (at 100k objects, 15 MB).
    objects: Vec<&'a Arc<Object>>,
    /// Each one's uid sort key, taken at the same time.
    keys: SortKeys,
    /// Per object, the places of the objects that refer to it.
    referrers: Vec<Vec<Id>>,
    /// The places still to walk from.
    todo: Vec<Id>,
}

impl<'a> Found<'a> {
    /// The object's place, added (and to walk from) if new.
    fn add(&mut self, o: &'a Arc<Object>) -> Id {
        let next = self.objects.len();
        let at = self.ids.get_or_insert(o.uid(), next);
        if at == next {
            self.keys.push(o.uid(), &self.objects);
            self.objects.push(o);
            self.referrers.push(Vec::new());
            self.todo.push(at);
        }
        at
    }
}

/// An object's item as the plan starts: as the graph has it.
fn item(o: &Arc<Object>) -> Item<'_> {
    let mut finalizers = o.metadata.finalizers.clone();
    // A Terminating namespace waits on its spec finalizers (its content
    // first, R56/R58), whoever sent the DELETE.
    if is_namespace(o) && o.is_terminating() {
        finalizers.extend(o.strings_at(&["spec", "finalizers"]));
    }
    // A pod deleted gracefully waits for its kubelet (R76), past its grace
    // period too.
    if o.is_pod() && o.is_terminating() && o.metadata.deletion_grace_period_seconds.unwrap_or(0) > 0
    {
        finalizers.push(GRACE.to_string());
    }
    Item {
        orig: o,
        obj: Working::Graph(o),
        finalizers,
        state: if o.is_terminating() {
            State::Terminating
        } else {
            State::Alive
        },
        deleting_dependents: o.is_deleting_dependents(),
        kind: Kind::of(o),
        more: None,
    }
}

/// The uids' sort keys: while every uid is a UUID as the API server
/// writes it, its 128 bits (one number to compare, where the bytes took
/// three); else the first 40 bytes of each.
enum SortKeys {
    Uuid(Vec<u128>),
    Bytes(Vec<UidKey>),
}

impl Default for SortKeys {
    fn default() -> Self {
        SortKeys::Uuid(Vec::new())
    }
}

impl SortKeys {
    /// `uid`'s key, after those of `before` (the objects added so far).
    fn push(&mut self, uid: &str, before: &[&Arc<Object>]) {
        match self {
            SortKeys::Uuid(bits) => match uuid_bits(uid) {
                Some(b) => bits.push(b),
                None => {
                    let mut keys: Vec<UidKey> = before.iter().map(|o| uid_key(o.uid())).collect();
                    keys.push(uid_key(uid));
                    *self = SortKeys::Bytes(keys);
                }
            },
            SortKeys::Bytes(keys) => keys.push(uid_key(uid)),
        }
    }

    /// The places of the objects, in uid order.
    fn order(self, objects: &[&Arc<Object>]) -> Vec<Id> {
        match self {
            // Distinct uids, distinct numbers: no ties.
            SortKeys::Uuid(bits) => {
                let mut order: Vec<(u128, Id)> = bits.into_iter().zip(0..).collect();
                order.sort_unstable_by_key(|e| e.0);
                order.into_iter().map(|e| e.1).collect()
            }
            // The first 40 bytes of each uid held beside it (a uid has 36),
            // so that the sort seldom follows a pointer to the uid itself.
            SortKeys::Bytes(keys) => {
                let mut order: Vec<(UidKey, Id)> = keys.into_iter().zip(0..).collect();
                order.sort_unstable_by(|a, b| {
                    a.0.cmp(&b.0)
                        .then_with(|| objects[a.1].uid().cmp(objects[b.1].uid()))
                });
                order.into_iter().map(|e| e.1).collect()
            }
        }
    }
}

/// A UUID written as the API server writes it (36 bytes, lowercase hex,
/// dashes after the 8th, 12th, 16th and 20th digit) as its 128 bits: two
/// such uids compare as their numbers do, since every one has the same
/// length and dashes, and the digits `0-9a-f` are in that order as bytes.
/// `None` for any other uid.
pub(super) fn uuid_bits(uid: &str) -> Option<u128> {
    let b = uid.as_bytes();
    if b.len() != 36 {
        return None;
    }
    let mut bits: u128 = 0;
    for (i, &c) in b.iter().enumerate() {
        let digit = match c {
            b'-' if matches!(i, 8 | 13 | 18 | 23) => continue,
            _ if matches!(i, 8 | 13 | 18 | 23) => return None,
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => return None,
        };
        bits = (bits << 4) | u128::from(digit);
    }
    Some(bits)
}

/// The first 40 bytes of a uid, zero-padded, as numbers: ordered as the
/// uids are, except that uids equal there are told apart by the rest.
type UidKey = (u128, u128, u64);

fn uid_key(uid: &str) -> UidKey {
    let mut b = [0u8; 40];
    let n = uid.len().min(40);
    b[..n].copy_from_slice(&uid.as_bytes()[..n]);
    let (hi, rest) = b.split_at(16);
    let (mid, lo) = rest.split_at(16);
    (
        <[u8; 16]>::try_from(hi).map_or(0, u128::from_be_bytes),
        <[u8; 16]>::try_from(mid).map_or(0, u128::from_be_bytes),
        <[u8; 8]>::try_from(lo).map_or(0, u64::from_be_bytes),
    )
}

impl<'a> Planner<'a> {
    /// A planner over the target, everything that refers to it
    /// (transitively, by uid), and for a namespace its content; and the
    /// target's id.
    pub(super) fn new(
        graph: &'a OwnershipGraph,
        controllers: &'a BTreeMap<String, bool>,
        target: &'a Arc<Object>,
    ) -> (Self, Id) {
        // The working set in the order found, each object with the places
        // of the objects referring to it (in the graph's uid order): the
        // graph's reverse index is read once, and its objects are shared,
        // never looked up again by uid.
        let mut found = Found::default();
        let target_at = found.add(target);
        if is_crd(target) {
            for u in crd_instances(graph, target) {
                if let Some(o) = graph.get_shared(u) {
                    found.add(o);
                }
            }
        }
        if is_namespace(target) {
            for o in graph
                .shared_objects()
                .filter(|o| o.namespace() == Some(target.name()))
            {
                found.add(o);
            }
        }
        while let Some(at) = found.todo.pop() {
            let o = found.objects[at];
            for d in graph.shared_referrers(o.uid()) {
                let d = found.add(d);
                found.referrers[at].push(d);
            }
            // The endpoints controller deletes a Service's Endpoints.
            if is_service(o)
                && let Some(ep) = graph.find_shared("", "Endpoints", o.namespace(), o.name())
            {
                found.add(ep);
            }
            // The pod GC force-deletes the pods of a Node that goes (R77).
            if nodes::is_node(o) {
                for p in graph
                    .shared_objects()
                    .filter(|p| p.is_pod() && p.str_at(&["spec", "nodeName"]) == Some(o.name()))
                {
                    found.add(p);
                }
            }
            // The token controller deletes a ServiceAccount's token
            // Secrets (R78).
            if o.kind == "ServiceAccount" && o.group().is_empty() {
                for s in graph
                    .shared_objects()
                    .filter(|s| super::tokens::is_token_of(s, o))
                {
                    found.add(s);
                }
            }
            // A claim's volume is reclaimed when the claim goes.
            if o.kind == "PersistentVolumeClaim" && o.group().is_empty() {
                for v in bound_volumes(graph, o) {
                    found.add(v);
                }
            }
        }
        let Found {
            mut ids,
            objects,
            keys,
            mut referrers,
            ..
        } = found;
        // Ids in uid order.
        let order = keys.order(&objects);
        let mut id_of = vec![0; objects.len()];
        for (id, &at) in order.iter().enumerate() {
            id_of[at] = id;
        }
        for e in &mut ids.table {
            e.2 = id_of[e.2];
        }
        // Still in uid order: ids are.
        for r in &mut referrers {
            for d in r.iter_mut() {
                *d = id_of[*d];
            }
        }
        let referrers = order
            .iter()
            .map(|&at| std::mem::take(&mut referrers[at]))
            .collect();
        let items: Vec<Item> = order.iter().map(|&at| item(objects[at])).collect();
        let orphaning = (0..items.len())
            .filter(|&id| items[id].state == State::Terminating && items[id].has_finalizer(ORPHAN))
            .collect();
        let planner = Planner {
            graph,
            controllers,
            orphaning,
            work: Cell::new(0),
            last_namespace: Cell::new(None),
            queued: vec![false; items.len()],
            batch_wave: vec![0; items.len()],
            deleted_wave: vec![0; items.len()],
            siblings: Vec::new(),
            sibling_candidates: Vec::new(),
            items,
            ids,
            referrers,
            queue: VecDeque::new(),
            wave: 0,
            recreated: BTreeSet::new(),
            races: Vec::new(),
            guarded: Vec::new(),
            owner_first: false,
            owners_first: false,
        };
        (planner, id_of[target_at])
    }

    /// The id of an object in the working set.
    pub(super) fn id(&self, uid: &str) -> Option<Id> {
        self.ids.get(uid)
    }

    /// Whether an object (in the working set or not) is gone.
    pub(super) fn is_gone(&self, uid: &str) -> bool {
        match self.id(uid) {
            Some(id) => matches!(self.items[id].state, State::Gone(_)),
            None => self.graph.get(uid).is_none(),
        }
    }

    /// Current version of an object, working set first.
    pub(super) fn current(&self, uid: &str) -> Option<&Object> {
        match self.id(uid).map(|id| &self.items[id]) {
            Some(i) if matches!(i.state, State::Gone(_)) => None,
            Some(i) => Some(&i.obj),
            None => self.graph.get(uid),
        }
    }

    /// Whether an object (in the working set or not) is Terminating.
    pub(super) fn is_terminating(&self, uid: &str) -> bool {
        match self.id(uid) {
            Some(id) => self.items[id].state == State::Terminating,
            None => self.graph.get(uid).is_some_and(Object::is_terminating),
        }
    }

    /// Objects referring to `id` (by uid) that still exist, in id order.
    pub(super) fn referrers(&self, id: Id) -> Vec<Id> {
        let uid = self.items[id].obj.uid();
        self.referrers[id]
            .iter()
            .copied()
            .filter(|&d| {
                let i = &self.items[d];
                // Its references as the graph has them (the reverse index
                // says one points here) unless the plan changed them.
                !matches!(i.state, State::Gone(_))
                    && (i.obj.unchanged()
                        || i.obj.metadata.owner_references.iter().any(|r| r.uid == uid))
            })
            .collect()
    }

    pub(super) fn enqueue(&mut self, id: Id) {
        if !self.queued[id] {
            self.queued[id] = true;
            self.queue.push_back(id);
        }
    }

    /// Counts `n` items looked at.
    pub(super) fn count(&self, n: usize) {
        self.work
            .set(self.work.get() + u64::try_from(n).unwrap_or(u64::MAX));
    }

    /// The items that satisfy `f`, in id (so uid) order.
    pub(super) fn ids_where(&self, f: impl Fn(&Item) -> bool) -> Vec<Id> {
        self.count(self.items.len());
        (0..self.items.len())
            .filter(|&id| f(&self.items[id]))
            .collect()
    }
}
