//! The selector relations found without a scan: the pods of each namespace
//! by their labels, and the objects that select pods by the labels their
//! selectors require, kept up to date object by object. A lookup costs
//! what it finds: the pods a selector selects are looked for among those
//! carrying one label it requires (the rarest), and the selectors of a pod
//! among those requiring one of its labels (plus the few that require
//! none).

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::Arc;

use hashbrown::HashTable;
use hashbrown::hash_table::Entry;

use super::{PodSelector, is_pod_of, pod_selector};
use crate::model::object::Object;
use crate::model::selector::{Requirement, Selector};

/// As the graph's indexes: foldhash, seeded per process.
type Hasher = foldhash::fast::RandomState;

/// Objects by uid, each the copy last indexed.
#[derive(Clone, Debug, Default)]
struct Set(HashTable<Arc<Object>>);

impl Set {
    fn insert(&mut self, hasher: &Hasher, obj: &Arc<Object>) {
        let hash = hasher.hash_one(obj.uid());
        match self
            .0
            .entry(hash, |x| x.uid() == obj.uid(), |x| hasher.hash_one(x.uid()))
        {
            Entry::Occupied(mut e) => *e.get_mut() = Arc::clone(obj),
            Entry::Vacant(e) => {
                e.insert(Arc::clone(obj));
            }
        }
    }

    fn remove(&mut self, hasher: &Hasher, uid: &str) {
        if let Ok(e) = self.0.find_entry(hasher.hash_one(uid), |x| x.uid() == uid) {
            e.remove();
        }
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn iter(&self) -> impl Iterator<Item = &Object> {
        self.0.iter().map(|o| &**o)
    }
}

/// Label key -> value -> the objects filed under that label.
type Labels = HashMap<Box<str>, HashMap<Box<str>, Set, Hasher>, Hasher>;

/// Files `obj` under `key=value`; the key and the value copied only the
/// first time they are seen (most pods share their labels with others).
fn file(labels: &mut Labels, hasher: &Hasher, key: &str, value: &str, obj: &Arc<Object>) {
    if !labels.contains_key(key) {
        labels.insert(key.into(), HashMap::default());
    }
    let Some(values) = labels.get_mut(key) else {
        return;
    };
    if !values.contains_key(value) {
        values.insert(value.into(), Set::default());
    }
    if let Some(set) = values.get_mut(value) {
        set.insert(hasher, obj);
    }
}

fn unfile(labels: &mut Labels, hasher: &Hasher, key: &str, value: &str, uid: &str) {
    let Some(values) = labels.get_mut(key) else {
        return;
    };
    if let Some(set) = values.get_mut(value) {
        set.remove(hasher, uid);
        if set.is_empty() {
            values.remove(value);
        }
    }
    if values.is_empty() {
        labels.remove(key);
    }
}

fn filed<'a>(labels: &'a Labels, key: &str, value: &str) -> Option<&'a Set> {
    labels.get(key).and_then(|values| values.get(value))
}

/// What one namespace holds.
#[derive(Clone, Debug, Default)]
struct Namespace {
    /// Every pod.
    pods: Set,
    /// The pods by each of their labels.
    pod_labels: Labels,
    /// Objects with a known selector that requires a label (`In`): filed
    /// under every value of their first such requirement, which a pod
    /// they select carries one of.
    selectors: Labels,
    /// Objects with a known selector that requires no label (an empty
    /// LabelSelector, or only `NotIn`, `Exists`, `DoesNotExist`).
    broad: Set,
    /// Objects whose kind selects pods, with no spec to read the selector
    /// from.
    unknown: Set,
}

impl Namespace {
    fn is_empty(&self) -> bool {
        self.pods.is_empty()
            && self.selectors.is_empty()
            && self.broad.is_empty()
            && self.unknown.is_empty()
    }
}

/// What an object was indexed as.
#[derive(Clone, Debug)]
enum Role {
    Pod,
    Selects(Selector),
    Unknown,
}

#[derive(Clone, Debug)]
struct Indexed {
    /// Its uid's hash: the table grows without reading every object
    /// again (each rehash read every object indexed to hash its uid).
    hash: u64,
    obj: Arc<Object>,
    role: Role,
}

/// The first requirement that needs a label: its key and values.
fn anchor(sel: &Selector) -> Option<(&str, &[String])> {
    match sel {
        Selector::Nothing => None,
        Selector::All(reqs) => reqs.iter().find_map(|r| match r {
            Requirement::In(k, vs) => Some((k.as_str(), vs.as_slice())),
            _ => None,
        }),
    }
}

/// The pods and the objects that select pods of a graph, by namespace and
/// labels. Holds the objects it indexed (shared with the graph):
/// [`SelectorIndex::update`] must follow every change.
#[derive(Clone, Debug, Default)]
pub struct SelectorIndex {
    hasher: Hasher,
    /// Every object indexed, by uid, with what it was indexed as (what to
    /// take out when it changes).
    indexed: HashTable<Indexed>,
    /// By namespace; "" for none.
    namespaces: HashMap<Box<str>, Namespace, Hasher>,
}

impl SelectorIndex {
    /// Indexes `objects`, each uid once (a graph's objects).
    ///
    /// Filed namespace by namespace: a graph gives its objects in uid
    /// order, each in another namespace than the one before, and filing
    /// each pod under its labels then found every namespace's label
    /// tables out of the cache (half of this index's build of a 1M-object
    /// List with 2,000 namespaces). Where an object is filed does not
    /// depend on the order it comes in: each namespace's are taken in the
    /// order they lie in memory ([`crate::model::graph::in_memory_order`]).
    pub fn build<'a>(objects: impl Iterator<Item = &'a Arc<Object>>) -> Self {
        let objects = crate::model::graph::in_memory_order(objects);
        let mut by_namespace: HashMap<&str, Vec<&Arc<Object>>, Hasher> = HashMap::default();
        let mut count = 0;
        for o in objects {
            count += 1;
            by_namespace
                .entry(o.namespace().unwrap_or_default())
                .or_default()
                .push(o);
        }
        let mut ix = SelectorIndex::default();
        ix.reserve(count);
        for o in by_namespace.into_values().flatten() {
            ix.add(o);
        }
        ix
    }

    /// Indexes a list as a snapshot brings it: a uid given twice is
    /// indexed as its later copy, as [`crate::model::OwnershipGraph::from_objects`]
    /// keeps it.
    #[must_use]
    pub fn of_list(objects: &[Arc<Object>]) -> Self {
        let mut ix = SelectorIndex::default();
        ix.reserve(objects.len());
        for o in objects {
            ix.update(o.uid(), Some(o));
        }
        ix
    }

    /// Makes room for `additional` more objects at once.
    pub fn reserve(&mut self, additional: usize) {
        self.indexed.reserve(additional, |x| x.hash);
    }

    /// Brings the index up to date after the object `uid` changed:
    /// `now` is its new copy, `None` when it is gone.
    pub fn update(&mut self, uid: &str, now: Option<&Arc<Object>>) {
        let hash = self.hasher.hash_one(uid);
        if let Ok(e) = self.indexed.find_entry(hash, |x| x.obj.uid() == uid) {
            let (old, _) = e.remove();
            self.take_out(&old);
        }
        if let Some(obj) = now {
            self.add(obj);
        }
    }

    fn add(&mut self, obj: &Arc<Object>) {
        let role = if obj.is_pod() {
            Role::Pod
        } else {
            match pod_selector(obj) {
                PodSelector::NotASelector | PodSelector::Known(Selector::Nothing) => return,
                PodSelector::Unknown => Role::Unknown,
                PodSelector::Known(sel) => Role::Selects(sel),
            }
        };
        let hasher = &self.hasher;
        let key = obj.namespace().unwrap_or_default();
        if !self.namespaces.contains_key(key) {
            self.namespaces.insert(key.into(), Namespace::default());
        }
        let Some(ns) = self.namespaces.get_mut(key) else {
            return;
        };
        match &role {
            Role::Pod => {
                ns.pods.insert(hasher, obj);
                for (k, v) in obj.metadata.labels.iter() {
                    file(&mut ns.pod_labels, hasher, k, v, obj);
                }
            }
            Role::Selects(sel) => match anchor(sel) {
                Some((k, vs)) => {
                    for v in vs {
                        file(&mut ns.selectors, hasher, k, v, obj);
                    }
                }
                None => ns.broad.insert(hasher, obj),
            },
            Role::Unknown => ns.unknown.insert(hasher, obj),
        }
        let hash = hasher.hash_one(obj.uid());
        self.indexed.insert_unique(
            hash,
            Indexed {
                hash,
                obj: Arc::clone(obj),
                role,
            },
            |x| x.hash,
        );
    }

    fn take_out(&mut self, old: &Indexed) {
        let key = old.obj.namespace().unwrap_or_default();
        let Some(ns) = self.namespaces.get_mut(key) else {
            return;
        };
        let (hasher, uid) = (&self.hasher, old.obj.uid());
        match &old.role {
            Role::Pod => {
                ns.pods.remove(hasher, uid);
                for (k, v) in old.obj.metadata.labels.iter() {
                    unfile(&mut ns.pod_labels, hasher, k, v, uid);
                }
            }
            Role::Selects(sel) => match anchor(sel) {
                Some((k, vs)) => {
                    for v in vs {
                        unfile(&mut ns.selectors, hasher, k, v, uid);
                    }
                }
                None => ns.broad.remove(hasher, uid),
            },
            Role::Unknown => ns.unknown.remove(hasher, uid),
        }
        if ns.is_empty() {
            self.namespaces.remove(key);
        }
    }

    fn selector_of(&self, uid: &str) -> Option<&Selector> {
        let hash = self.hasher.hash_one(uid);
        match self.indexed.find(hash, |x| x.obj.uid() == uid) {
            Some(Indexed {
                role: Role::Selects(sel),
                ..
            }) => Some(sel),
            _ => None,
        }
    }

    /// The pods of namespace `ns` that `sel` selects, in no order.
    #[must_use]
    pub fn pods_selected(&self, ns: Option<&str>, sel: &Selector) -> Vec<&Object> {
        let Selector::All(reqs) = sel else {
            return Vec::new();
        };
        let Some(n) = self.namespaces.get(ns.unwrap_or_default()) else {
            return Vec::new();
        };
        // The requirement whose labels the fewest pods carry.
        let rarest = reqs
            .iter()
            .filter_map(|r| match r {
                Requirement::In(k, vs) => {
                    let mut vs: Vec<&String> = vs.iter().collect();
                    vs.sort_unstable();
                    vs.dedup();
                    let sets: Vec<&Set> = vs
                        .into_iter()
                        .filter_map(|v| filed(&n.pod_labels, k, v))
                        .collect();
                    Some((sets.iter().map(|s| s.len()).sum::<usize>(), sets))
                }
                _ => None,
            })
            .min_by_key(|(len, _)| *len);
        let keep = |p: &&Object| is_pod_of(p, ns) && sel.matches(&p.metadata.labels);
        match rarest {
            Some((_, sets)) => sets.iter().flat_map(|s| s.iter()).filter(keep).collect(),
            None => n.pods.iter().filter(keep).collect(),
        }
    }

    /// The objects of `pod`'s namespace whose known selector selects it,
    /// in no order, and how many there select pods by a selector not
    /// known here.
    #[must_use]
    pub fn selecting(&self, pod: &Object) -> (Vec<&Object>, usize) {
        let Some(n) = self.namespaces.get(pod.namespace().unwrap_or_default()) else {
            return (Vec::new(), 0);
        };
        let labels = &pod.metadata.labels;
        let by = labels
            .iter()
            .filter_map(|(k, v)| filed(&n.selectors, k, v))
            .chain(std::iter::once(&n.broad))
            .flat_map(Set::iter)
            .filter(|o| {
                self.selector_of(o.uid())
                    .is_some_and(|sel| sel.matches(labels))
            })
            .collect();
        (by, n.unknown.len())
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::super::{relations, relations_indexed};
    use super::*;
    use crate::model::{KindTable, OwnershipGraph};

    const APPS: [&str; 3] = ["web", "db", "cache"];
    const TIERS: [&str; 2] = ["front", "back"];

    /// One object of a generated graph: what it is, where, its labels or
    /// what it selects.
    #[derive(Clone, Debug)]
    struct Spec {
        /// 0-3 a pod, 4 a ReplicaSet, 5 a Deployment, 6 a Service, 7 a
        /// ConfigMap, 8 a ReplicaSet with no spec (metadata only).
        what: u8,
        /// 0-1 a namespace, 2 none.
        ns: u8,
        app: Option<usize>,
        tier: Option<usize>,
        /// A pod: the ReplicaSet (by index) that controls it.
        owner: Option<usize>,
        /// How the selector reads: 0 matchLabels app, 1 matchLabels app
        /// and tier, 2 `In` two apps, 3 `Exists` tier, 4 empty, 5 `NotIn`.
        selector: u8,
        terminating: bool,
    }

    fn spec() -> impl Strategy<Value = Spec> {
        (
            0u8..9,
            prop::sample::select(vec![0u8, 0, 1, 2]),
            prop::option::of(0..APPS.len()),
            prop::option::of(0..TIERS.len()),
            prop::option::of(0usize..12),
            0u8..6,
            prop::bool::weighted(0.2),
        )
            .prop_map(|(what, ns, app, tier, owner, selector, terminating)| Spec {
                what,
                ns,
                app,
                tier,
                owner,
                selector,
                terminating,
            })
    }

    fn label_selector(s: &Spec) -> serde_json::Value {
        let app = APPS[s.app.unwrap_or(0)];
        let tier = TIERS[s.tier.unwrap_or(0)];
        match s.selector {
            0 => json!({"matchLabels": {"app": app}}),
            1 => json!({"matchLabels": {"app": app, "tier": tier}}),
            2 => {
                json!({"matchExpressions": [{"key": "app", "operator": "In", "values": [app, "db"]}]})
            }
            3 => json!({"matchExpressions": [{"key": "tier", "operator": "Exists"}]}),
            4 => json!({}),
            _ => {
                json!({"matchExpressions": [{"key": "app", "operator": "NotIn", "values": [app]}]})
            }
        }
    }

    fn object(i: usize, s: &Spec) -> Object {
        let ns = match s.ns {
            0 => Some("a"),
            1 => Some("b"),
            _ => None,
        };
        let (api, kind) = match s.what {
            0..=3 => ("v1", "Pod"),
            4 | 8 => ("apps/v1", "ReplicaSet"),
            5 => ("apps/v1", "Deployment"),
            6 => ("v1", "Service"),
            _ => ("v1", "ConfigMap"),
        };
        let mut o = Object::new(api, kind, ns, &format!("o{:02}", i % 7));
        o.metadata.uid = format!("u{i:02}");
        if let Some(a) = s.app {
            o.metadata.labels.insert("app".into(), APPS[a].into());
        }
        if let Some(t) = s.tier {
            o.metadata.labels.insert("tier".into(), TIERS[t].into());
        }
        if s.terminating {
            o.metadata.deletion_timestamp = Some(jiff::Timestamp::UNIX_EPOCH);
        }
        match s.what {
            0..=3 => {
                if let Some(j) = s.owner {
                    o.metadata
                        .owner_references
                        .push(crate::model::OwnerReference {
                            api_version: "apps/v1".into(),
                            kind: "ReplicaSet".into(),
                            name: format!("o{:02}", j % 7),
                            uid: format!("u{j:02}"),
                            controller: Some(true),
                            block_owner_deletion: Some(true),
                        });
                }
            }
            4 | 5 => {
                o.spec = json!({"replicas": 1, "selector": label_selector(s),
                    "template": {"metadata": {"labels": {"app": "web"}}}})
                .into();
            }
            6 => {
                let sel = match s.selector {
                    0 | 2 => json!({"app": APPS[s.app.unwrap_or(0)]}),
                    1 => {
                        json!({"app": APPS[s.app.unwrap_or(0)], "tier": TIERS[s.tier.unwrap_or(0)]})
                    }
                    _ => json!({}),
                };
                o.spec = json!({ "selector": sel }).into();
            }
            _ => {}
        }
        o
    }

    fn same_everywhere(g: &OwnershipGraph, ix: &SelectorIndex) -> Result<(), TestCaseError> {
        for o in g.objects() {
            prop_assert_eq!(
                relations_indexed(g, ix, o),
                relations(g, o),
                "relations of {}/{} ({})",
                o.kind,
                o.name(),
                o.uid()
            );
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Built at once or kept up to date through upserts (a label, a
        /// selector, a namespace changed) and removals, the index gives
        /// every object the relations a scan of the graph gives.
        #[test]
        fn the_index_gives_what_a_scan_gives(
            first in prop::collection::vec(spec(), 1..24),
            changes in prop::collection::vec((0usize..30, prop::option::of(spec())), 0..30),
        ) {
            let mut g = OwnershipGraph::new(KindTable::builtin());
            for (i, s) in first.iter().enumerate() {
                g.upsert(object(i, s));
            }
            let mut ix = SelectorIndex::build(g.shared_objects());
            same_everywhere(&g, &ix)?;
            for (i, change) in changes.clone() {
                let uid = format!("u{i:02}");
                match change {
                    Some(s) => {
                        g.remove(&uid);
                        g.upsert(object(i, &s));
                    }
                    None => {
                        g.remove(&uid);
                    }
                }
                ix.update(&uid, g.get_shared(&uid));
                same_everywhere(&g, &ix)?;
            }
            let fresh = SelectorIndex::build(g.shared_objects());
            same_everywhere(&g, &fresh)?;
            // A list whose later entries are other copies of uids given
            // before, as a snapshot may bring them.
            let list: Vec<Arc<Object>> = first
                .iter()
                .enumerate()
                .map(|(i, s)| Arc::new(object(i, s)))
                .chain(changes.iter().filter_map(|(i, c)| c.as_ref().map(|s| Arc::new(object(*i, s)))))
                .collect();
            let g = OwnershipGraph::from_objects(KindTable::builtin(), &list);
            same_everywhere(&g, &SelectorIndex::of_list(&list))?;
        }
    }

    #[test]
    fn a_selection_by_two_labels_and_an_emptied_namespace() {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        for i in 0..50 {
            let mut p = Object::new("v1", "Pod", Some("a"), &format!("p{i}"));
            p.metadata.uid = format!("p{i}");
            p.metadata.labels.insert("app".into(), "web".into());
            let hash = if i < 3 { "abc" } else { "def" };
            p.metadata
                .labels
                .insert("pod-template-hash".into(), hash.into());
            g.upsert(p);
        }
        let ix = SelectorIndex::build(g.shared_objects());
        let sel = Selector::from_map(Some(&json!({"app": "web", "pod-template-hash": "abc"})));
        let mut found: Vec<&str> = ix
            .pods_selected(Some("a"), &sel)
            .iter()
            .map(|p| p.name())
            .collect();
        found.sort_unstable();
        assert_eq!(found, ["p0", "p1", "p2"]);
        // Every pod gone: nothing of the namespace is left behind.
        let mut ix = ix;
        for i in 0..50 {
            g.remove(&format!("p{i}"));
            ix.update(&format!("p{i}"), None);
        }
        assert!(ix.namespaces.is_empty());
        assert_eq!(ix.indexed.len(), 0);
    }
}
