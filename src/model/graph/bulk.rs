//! Objects added in bulk (a List, a snapshot, a restore): kept aside as
//! they are added and put in the graph's indexes all at once, in uid
//! order, by [`OwnershipGraph::end_bulk`].

use std::collections::{BTreeSet, HashMap};
use std::hash::BuildHasher;
use std::sync::Arc;

use hashbrown::HashTable;

use super::few::Few;
use super::ordered::{self, Ordered};
use super::{Hasher, OwnershipGraph, name_entry};
use crate::model::kinds::KindTable;
use crate::model::object::Object;

/// From how many objects added in bulk their owners are indexed on a
/// thread of their own (every bulk in the tests, so that both ways run).
const BULK_APART_FROM: usize = if cfg!(test) { 2 } else { 20_000 };

/// The objects added in bulk, in the order added, with what their places
/// in the uid index are made of, taken when each was added (while it was
/// in the cache).
#[derive(Clone, Debug, Default)]
pub(super) struct Bulk {
    /// Each object, its own key in the index by uid.
    added: Vec<Arc<Object>>,
    /// What they are sorted by: small, so that the sort moves 24 bytes an
    /// object (it moved each object's whole entry, 64 bytes: an eighth of
    /// the load's first-level cache misses) and seldom follows a pointer.
    places: Vec<Place>,
    /// Which of them (their places in `added`) hold owner references, are
    /// Events, and are of the few kinds [`Few`] keeps: told as each was
    /// added, in the cache, so that [`OwnershipGraph::end_bulk`] reads
    /// only those again for those indexes, not every object.
    owned: Vec<usize>,
    events: Vec<usize>,
    few: Vec<usize>,
    /// The index by name is being built elsewhere
    /// ([`OwnershipGraph::names_apart`]): an object added is not looked
    /// up by its name here.
    pub(super) names_apart: bool,
}

impl Bulk {
    pub(super) fn add(&mut self, obj: Arc<Object>) {
        let at = self.added.len();
        self.places.push(place_of(obj.uid(), at));
        if !obj.metadata.owner_references.is_empty() {
            self.owned.push(at);
        }
        if crate::model::events::is_event(&obj) {
            self.events.push(at);
        }
        if Few::keeps(&obj) {
            self.few.push(at);
        }
        self.added.push(obj);
    }
}

/// The first 16 bytes of a uid, in two halves compared as numbers, and
/// the object's place among those added.
#[derive(Clone, Copy, Debug)]
struct Place {
    prefix: ordered::Prefix,
    at: usize,
}

fn place_of(uid: &str, at: usize) -> Place {
    Place {
        prefix: ordered::prefix_of(uid),
        at,
    }
}

impl OwnershipGraph {
    /// The graph of `objects`, as a list or a snapshot brings them: the
    /// same graph as [`OwnershipGraph::upsert`] of each in turn (a later
    /// copy of a uid, or of a name, is the one kept, or found by the name),
    /// built in bulk: the objects put in the index by uid once, in uid
    /// order, not each at a random place in it (upserting a 300k-object
    /// snapshot one by one was a fifth of the UI's load).
    #[must_use]
    pub fn from_objects(kinds: KindTable, objects: &[Arc<Object>]) -> Self {
        let mut g = OwnershipGraph::new(kinds);
        g.reserve(objects.len());
        g.begin_bulk(objects.len());
        // A name taken twice in one list (a live list that saw an object
        // deleted and made again under a new uid): the later copy is
        // upserted after, to be the one found by the name, as in turn.
        let mut later = Vec::new();
        for (at, o) in objects.iter().enumerate() {
            g.kinds
                .learn(&o.api_version, &o.kind, o.namespace().is_some());
            if g.insert_new(Arc::clone(o)).is_err() {
                later.push(at);
            }
        }
        // A uid twice (the later copy replaces the earlier, whatever its
        // name), or a copy set aside for its name with another copy of its
        // uid after it: in turn, each copy replacing the one before.
        if g.end_bulk().is_err() || Self::set_aside_too_soon(objects, &later) {
            let mut g = OwnershipGraph::new(g.kinds);
            for o in objects {
                g.upsert(Arc::clone(o));
            }
            return g;
        }
        for at in later {
            g.upsert(Arc::clone(&objects[at]));
        }
        g
    }

    /// Whether an object set aside (at a place in `later`) has another
    /// copy of its uid after it in `objects`.
    fn set_aside_too_soon(objects: &[Arc<Object>], later: &[usize]) -> bool {
        if later.is_empty() {
            return false;
        }
        let last: HashMap<&str, usize> = objects
            .iter()
            .enumerate()
            .map(|(at, o)| (o.uid(), at))
            .collect();
        later
            .iter()
            .any(|&at| last.get(objects[at].uid()).is_some_and(|&l| l > at))
    }

    /// From now on [`OwnershipGraph::insert_new`] keeps the objects aside
    /// and [`OwnershipGraph::end_bulk`] puts them in uid order all at once:
    /// a load of many objects in no particular uid order (a real cluster's
    /// uids are random) inserted them one by one into the ordered index,
    /// each a walk to a random place in it, a fifth of the load at 100k.
    /// Until `end_bulk`, only finding by name sees them.
    pub fn begin_bulk(&mut self, expected: usize) {
        self.bulk.get_or_insert_with(|| Bulk {
            added: Vec::with_capacity(expected),
            places: Vec::with_capacity(expected),
            ..Bulk::default()
        });
    }

    /// The index by name, taken out of the graph to be built on another
    /// thread while the objects of a bulk are added (on this one): from
    /// now until [`OwnershipGraph::names_back`], an object added is
    /// neither found by its name nor refused for it, and is to be given
    /// to the [`Names`] returned, in the order added. Names are what the
    /// restore of a large file looks up and inserts for every object (a
    /// third of its loop on one core, the other idle).
    ///
    /// # Panics
    /// Outside a bulk.
    pub fn names_apart(&mut self) -> Names {
        let bulk = self.bulk.as_mut().expect("names_apart: not in a bulk");
        bulk.names_apart = true;
        Names {
            table: std::mem::take(&mut self.by_name),
            hasher: self.hasher.clone(),
            added: 0,
            taken: None,
        }
    }

    /// The index by name built from the objects added since
    /// [`OwnershipGraph::names_apart`], put back.
    ///
    /// # Errors
    /// The first object added whose name another object already had
    /// (stored before, or added earlier), with its place among those
    /// added and whether that other object is being deleted: what
    /// [`OwnershipGraph::insert_new`] would have refused it with.
    ///
    /// # Panics
    /// Outside a bulk.
    pub fn names_back(&mut self, names: Names) -> Result<(), (usize, Arc<Object>, bool)> {
        let bulk = self.bulk.as_mut().expect("names_back: not in a bulk");
        bulk.names_apart = false;
        self.by_name = names.table;
        match names.taken {
            Some((at, terminating)) => Err((at, Arc::clone(&bulk.added[at]), terminating)),
            None => Ok(()),
        }
    }

    /// Puts the objects added since [`OwnershipGraph::begin_bulk`] in the
    /// index by uid.
    ///
    /// # Errors
    /// The first object, in the order added, whose uid another object
    /// already has (stored before, or added earlier), with its place among
    /// those added; none of those added is then in the graph.
    pub fn end_bulk(&mut self) -> Result<(), (usize, Arc<Object>)> {
        let Some(Bulk {
            added,
            mut places,
            owned,
            events: events_at,
            few: few_at,
            names_apart,
        }) = self.bulk.take()
        else {
            return Ok(());
        };
        debug_assert!(!names_apart, "end_bulk: the names are still apart");
        // In uid order: by the prefix held in each place, then by the whole
        // uid (seldom: only when two prefixes are the same), then by place.
        let uid = |p: &Place| added[p.at].uid();
        places.sort_unstable_by(|a, b| {
            a.prefix
                .cmp(&b.prefix)
                .then_with(|| uid(a).cmp(uid(b)))
                .then(a.at.cmp(&b.at))
        });
        // A uid taken twice: the later of the two is the one refused.
        let mut taken: Option<usize> = None;
        for pair in places.windows(2) {
            if pair[0].prefix == pair[1].prefix
                && uid(&pair[0]) == uid(&pair[1])
                && taken.is_none_or(|t| pair[1].at < t)
            {
                taken = Some(pair[1].at);
            }
        }
        if !self.objects.is_empty() {
            for (at, o) in added.iter().enumerate() {
                if taken.is_none_or(|t| at < t) && self.get_shared(o.uid()).is_some() {
                    taken = Some(at);
                }
            }
        }
        if let Some(t) = taken {
            let refused = (t, Arc::clone(&added[t]));
            // Only their names were indexed.
            for obj in &added {
                self.unindex_name(obj);
            }
            return Err(refused);
        }
        // Each uid is new: checked above. The index by uid (with the few
        // kinds'), the one by owner and the Events' built at once, when
        // there are many: they touch nothing in common. The Events' is
        // kept here only once it was made: a load's first one is made at
        // the first question about an Event.
        let (hasher, new) = (&self.hasher, &added);
        let (uids, referrers, few) = (&mut self.by_uid, &mut self.referrers, &mut self.few);
        // The Events' index only if it was made already (see `Few::events`).
        let mut events = few.events.take();
        // The few kinds' with the index by uid: the index by owner is the
        // longer of the two. Each reads again only the objects it indexes,
        // told apart as they were added. Reading every object's kind again
        // (a cache miss each) took the index by uid and the few kinds' 30
        // ms at 300k objects, 25 now; at 1M objects with 480k Events, the
        // Events' index (the longest of the three) 260-280 ms, 226-257 now,
        // with each Event's kind not read a second time.
        let mut by_uid = move || {
            uids.reserve(new.len(), |o| hasher.hash_one(o.uid()));
            for o in new {
                uids.insert_unique(hasher.hash_one(o.uid()), Arc::clone(o), |o| {
                    hasher.hash_one(o.uid())
                });
            }
            for &at in &few_at {
                few.add_kinds(&new[at]);
            }
        };
        let mut by_owner = move || {
            for &at in &owned {
                Self::index_owners(referrers, &new[at]);
            }
        };
        let mut by_event = || {
            if let Some(events) = events.as_mut() {
                for &at in &events_at {
                    Few::add_known_event(events, &new[at]);
                }
            }
        };
        if new.len() >= BULK_APART_FROM {
            crate::threads::both(by_uid, || crate::threads::both(by_owner, by_event));
        } else {
            by_uid();
            by_owner();
            by_event();
        }
        if let Some(events) = events {
            self.few.events = std::sync::OnceLock::from(events);
        }
        // The ordered index, built from sorted entries in one pass
        // (`collect` finds them sorted), not by a search per object. Each
        // object moved into it, not shared again: sharing raises a count
        // in each object, read from memory in uid order, which is no
        // order in memory; and compared by the prefix beside it, which
        // its place already holds. At 300k objects this index took 59 ms
        // of a 0.65 s `tree`, on a thread of its own while the others were
        // built, and they waited for it; 4-5 ms now, after them. Keyed by
        // uid: what `spec` and `status` read lazily is not part of it.
        let mut added: Vec<Option<Arc<Object>>> = added.into_iter().map(Some).collect();
        #[allow(clippy::mutable_key_type)]
        let mut sorted: BTreeSet<Ordered> = places
            .iter()
            .filter_map(|p| Some(Ordered::with_prefix(p.prefix, added[p.at].take()?)))
            .collect();
        self.objects.append(&mut sorted);
        Ok(())
    }
}

/// The index by name of a bulk's objects, built apart
/// ([`OwnershipGraph::names_apart`]): each object given in the order added;
/// the first one whose name was taken is remembered, not inserted.
pub struct Names {
    table: HashTable<Arc<Object>>,
    hasher: Hasher,
    added: usize,
    /// The first place whose name was taken, and whether the object that
    /// had it is being deleted.
    taken: Option<(usize, bool)>,
}

impl Names {
    /// The next object added.
    pub fn add(&mut self, obj: Arc<Object>) {
        let at = self.added;
        self.added += 1;
        match name_entry(&mut self.table, &self.hasher, &obj) {
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(obj);
            }
            hashbrown::hash_table::Entry::Occupied(named) => {
                if self.taken.is_none() {
                    self.taken = Some((at, named.get().is_terminating()));
                }
            }
        }
    }
}
