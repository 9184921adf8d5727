//! A set of objects in uid order, each object its own key: what the graph
//! keeps for each owner (the objects referring to it) and for each object
//! Events are about.

use std::borrow::Borrow;
use std::collections::BTreeSet;
use std::collections::btree_set;
use std::sync::Arc;

use crate::model::object::Object;

/// A referring object, ordered and found by its uid: the object is its
/// own key (a copy of each dependent's uid as the key was an allocation
/// per owner reference, 2% of the instructions of loading a List).
#[derive(Clone, Debug)]
pub(super) struct ByUid(pub(super) Arc<Object>);

impl PartialEq for ByUid {
    fn eq(&self, other: &Self) -> bool {
        self.0.uid() == other.0.uid()
    }
}

impl Eq for ByUid {}

impl PartialOrd for ByUid {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ByUid {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.uid().cmp(other.0.uid())
    }
}

impl Borrow<str> for ByUid {
    fn borrow(&self) -> &str {
        self.0.uid()
    }
}

/// From how many objects a set is a B-tree rather than a sorted vector:
/// past it, an insertion or a removal in the middle moves more than a
/// B-tree's walk costs (and a very wide owner, 100k dependents removed one
/// by one in a cascade, would move them all each time).
const MANY: usize = 32;

/// Objects in uid order: a sorted vector while few, a B-tree past
/// [`MANY`]. Most owners have one to a few dependents, and most objects a
/// few Events; a B-tree of one was a node of eleven slots, allocated per
/// owner and per object with Events (tens of megabytes of fresh pages at
/// 300k objects, which the kernel clears).
#[derive(Clone, Debug)]
pub(super) enum UidSet {
    Few(Vec<ByUid>),
    Many(BTreeSet<ByUid>),
}

impl UidSet {
    /// A set of one object.
    pub(super) fn one(o: Arc<Object>) -> Self {
        UidSet::Few(vec![ByUid(o)])
    }

    /// Adds the object, or replaces the copy of its uid already there.
    pub(super) fn replace(&mut self, o: Arc<Object>) {
        let o = ByUid(o);
        match self {
            UidSet::Few(v) => match v.binary_search(&o) {
                Ok(at) => v[at] = o,
                Err(at) if v.len() < MANY => v.insert(at, o),
                Err(_) => {
                    // Keyed by uid: what `spec` and `status` read lazily is not part of it.
                    #[allow(clippy::mutable_key_type)]
                    let mut many: BTreeSet<ByUid> = std::mem::take(v).into_iter().collect();
                    many.insert(o);
                    *self = UidSet::Many(many);
                }
            },
            UidSet::Many(s) => {
                s.replace(o);
            }
        }
    }

    /// Removes the object of this uid; whether it was there.
    pub(super) fn remove(&mut self, uid: &str) -> bool {
        match self {
            UidSet::Few(v) => match v.binary_search_by(|o| o.0.uid().cmp(uid)) {
                Ok(at) => {
                    v.remove(at);
                    true
                }
                Err(_) => false,
            },
            UidSet::Many(s) => s.remove(uid),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        match self {
            UidSet::Few(v) => v.is_empty(),
            UidSet::Many(s) => s.is_empty(),
        }
    }

    /// The objects, in uid order.
    pub(super) fn iter(&self) -> Iter<'_> {
        match self {
            UidSet::Few(v) => Iter::Few(v.iter()),
            UidSet::Many(s) => Iter::Many(s.iter()),
        }
    }
}

impl<'a> IntoIterator for &'a UidSet {
    type Item = &'a Arc<Object>;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// The objects of a [`UidSet`], in uid order.
pub(super) enum Iter<'a> {
    Few(std::slice::Iter<'a, ByUid>),
    Many(btree_set::Iter<'a, ByUid>),
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a Arc<Object>;
    fn next(&mut self) -> Option<&'a Arc<Object>> {
        match self {
            Iter::Few(i) => i.next().map(|o| &o.0),
            Iter::Many(i) => i.next().map(|o| &o.0),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Iter::Few(i) => i.size_hint(),
            Iter::Many(i) => i.size_hint(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn obj(uid: &str, name: &str) -> Arc<Object> {
        let mut o: Object = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": "n", "uid": uid}
        }))
        .expect("an object");
        o.metadata.uid = uid.to_string();
        Arc::new(o)
    }

    /// What the set holds: (uid, name) in its order.
    fn held(s: &UidSet) -> Vec<(String, String)> {
        s.iter()
            .map(|o| (o.uid().to_string(), o.metadata.name.clone()))
            .collect()
    }

    proptest! {
        /// Any run of additions, replacements and removals, across the
        /// change from a vector to a B-tree, leaves what a B-tree of the
        /// same objects holds: each uid once, its latest copy, in uid
        /// order, and each removal says whether the uid was there.
        #[test]
        fn holds_what_a_btree_holds(ops in prop::collection::vec((0u8..3, 0u16..80, 0u8..4), 1..300)) {
            let mut set: Option<UidSet> = None;
            let mut model: std::collections::BTreeMap<String, String> = Default::default();
            for (op, id, copy) in ops {
                let uid = format!("u-{id:03}");
                let name = format!("copy-{copy}");
                if op < 2 {
                    match &mut set {
                        Some(s) => s.replace(obj(&uid, &name)),
                        None => set = Some(UidSet::one(obj(&uid, &name))),
                    }
                    model.insert(uid, name);
                } else {
                    let was = model.remove(&uid).is_some();
                    let said = set.as_mut().is_some_and(|s| s.remove(&uid));
                    prop_assert_eq!(said, was, "removing {}", uid);
                }
                let s = set.as_ref().map(held).unwrap_or_default();
                let m: Vec<(String, String)> = model.clone().into_iter().collect();
                prop_assert_eq!(&s, &m);
                prop_assert_eq!(set.as_ref().is_none_or(UidSet::is_empty), m.is_empty());
                if let Some(s) = &set {
                    prop_assert_eq!(s.iter().size_hint(), (m.len(), Some(m.len())));
                }
            }
        }
    }

    #[test]
    fn a_set_past_many_is_a_btree() {
        let mut s = UidSet::one(obj("u-000", "a"));
        for i in 1..=MANY {
            s.replace(obj(&format!("u-{i:03}"), "a"));
        }
        assert!(matches!(s, UidSet::Many(_)), "{} objects", MANY + 1);
        let mut s = UidSet::one(obj("u-000", "a"));
        for i in 1..MANY {
            s.replace(obj(&format!("u-{i:03}"), "a"));
        }
        assert!(matches!(s, UidSet::Few(_)), "{MANY} objects");
    }
}
