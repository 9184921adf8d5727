//! The store in the order a collection is listed (group, kind, then
//! `namespace/name` as etcd orders its keys), with a count per kind and per
//! kind and namespace: a page of a list, or a watch's initial state, costs
//! what it holds, not the whole store. Kept by [`super::state::Served`]
//! from the simulator's changes, as the API server's watch cache is kept.

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::Arc;

use crate::model::Object;

/// `(group, kind, namespace/name)`.
type Key = (String, String, String);

/// The objects of the store by list order, and how many there are of each
/// kind, in all and per namespace.
#[derive(Debug, Default)]
pub struct Index {
    objects: BTreeMap<Key, Arc<Object>>,
    counts: HashMap<(String, String, Option<String>), usize>,
}

/// Where `o` is listed: `namespace/name`, or its name when cluster-scoped.
#[must_use]
pub fn order_key(o: &Object) -> String {
    match o.namespace() {
        Some(ns) => format!("{ns}/{}", o.name()),
        None => o.name().to_string(),
    }
}

fn key(o: &Object) -> Key {
    (o.group().to_string(), o.kind.clone(), order_key(o))
}

impl Index {
    /// The index of `objects`.
    #[must_use]
    pub fn new<'a>(objects: impl Iterator<Item = &'a Arc<Object>>) -> Index {
        let mut index = Index::default();
        for o in objects {
            index.put(o);
        }
        index
    }

    fn count_by(&mut self, o: &Object, by: isize) {
        let (g, k) = (o.group().to_string(), o.kind.clone());
        let scopes = [None, o.namespace().map(str::to_string)];
        for ns in scopes
            .into_iter()
            .take(if o.namespace().is_some() { 2 } else { 1 })
        {
            let n = self.counts.entry((g.clone(), k.clone(), ns)).or_default();
            *n = n.saturating_add_signed(by);
        }
    }

    /// Adds or replaces `o`.
    pub fn put(&mut self, o: &Arc<Object>) {
        if self.objects.insert(key(o), Arc::clone(o)).is_none() {
            self.count_by(o, 1);
        }
    }

    /// Removes `o`.
    pub fn remove(&mut self, o: &Object) {
        if self.objects.remove(&key(o)).is_some() {
            self.count_by(o, -1);
        }
    }

    /// How many objects of the kind there are, in `namespace` or in all.
    #[must_use]
    pub fn count(&self, group: &str, kind: &str, namespace: Option<&str>) -> usize {
        let k = (
            group.to_string(),
            kind.to_string(),
            namespace.map(str::to_string),
        );
        self.counts.get(&k).copied().unwrap_or(0)
    }

    /// The objects of the kind, in `namespace` or in all, in list order,
    /// from just after `after` (a previous page's last key).
    pub fn scan<'a>(
        &'a self,
        group: &'a str,
        kind: &'a str,
        namespace: Option<&str>,
        after: Option<&str>,
    ) -> impl Iterator<Item = &'a Arc<Object>> + 'a {
        let prefix = namespace.map(|ns| format!("{ns}/")).unwrap_or_default();
        let start = match after {
            Some(a) if *a >= *prefix => Bound::Excluded((group.into(), kind.into(), a.into())),
            _ => Bound::Included((group.into(), kind.into(), prefix.clone())),
        };
        self.objects
            .range((start, Bound::Unbounded))
            .take_while(move |((g, k, key), _)| g == group && k == kind && key.starts_with(&prefix))
            .map(|(_, o)| o)
    }

    /// Every object of these kinds (`(group, kind)`), for the RBAC policy.
    pub fn of_kinds<'a>(
        &'a self,
        kinds: &'a [(&'a str, &'a str)],
    ) -> impl Iterator<Item = &'a Object> + 'a {
        kinds
            .iter()
            .flat_map(move |(g, k)| self.scan(g, k, None, None).map(|o| &**o))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(kind: &str, ns: Option<&str>, name: &str) -> Arc<Object> {
        Arc::new(Object::new("v1", kind, ns, name))
    }

    #[test]
    fn scans_a_kind_in_order_from_a_key_and_counts() {
        let all = [
            obj("ConfigMap", Some("b"), "x"),
            obj("ConfigMap", Some("a"), "z"),
            obj("ConfigMap", Some("a"), "y"),
            obj("ConfigMap", Some("ab"), "w"),
            obj("Secret", Some("a"), "s"),
            obj("Namespace", None, "a"),
        ];
        let mut index = Index::new(all.iter());
        let names = |it: &mut dyn Iterator<Item = &Arc<Object>>| -> Vec<String> {
            it.map(|o| order_key(o)).collect()
        };
        assert_eq!(
            names(&mut index.scan("", "ConfigMap", None, None)),
            ["a/y", "a/z", "ab/w", "b/x"]
        );
        assert_eq!(
            names(&mut index.scan("", "ConfigMap", Some("a"), None)),
            ["a/y", "a/z"]
        );
        assert_eq!(
            names(&mut index.scan("", "ConfigMap", None, Some("a/z"))),
            ["ab/w", "b/x"]
        );
        assert_eq!(
            names(&mut index.scan("", "ConfigMap", Some("b"), Some("a/z"))),
            ["b/x"],
            "a key before the namespace starts at it"
        );
        assert_eq!(index.count("", "ConfigMap", None), 4);
        assert_eq!(index.count("", "ConfigMap", Some("a")), 2);
        assert_eq!(index.count("", "Namespace", None), 1);
        index.put(&all[0]);
        assert_eq!(index.count("", "ConfigMap", None), 4, "a replacement");
        index.remove(&all[1]);
        assert_eq!(index.count("", "ConfigMap", Some("a")), 1);
        assert_eq!(index.count("", "ConfigMap", None), 3);
        assert_eq!(
            index.of_kinds(&[("", "Namespace"), ("", "Secret")]).count(),
            2
        );
    }
}
