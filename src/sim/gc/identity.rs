//! Who the garbage collector means by an owner or a dependent: the
//! coordinates upstream's `objectReference` holds.

use std::fmt;
use std::sync::Arc;

use crate::model::{Object, OwnerReference, Uid};

/// An owner's coordinates plus the namespace it is looked up in
/// (`objectReference` upstream). Of an object observed, the object itself
/// (shared with the store): five strings of its own per object observed
/// were five allocations each, and most of the collector's memory at 300k
/// objects. Compared, ordered and hashed by its five strings, whichever
/// way it is held.
#[derive(Clone, Debug)]
pub struct Identity(Held);

#[derive(Clone, Debug)]
enum Held {
    Object(Arc<Object>),
    /// Boxed: most nodes are objects observed, and each node holds one.
    Ref(Box<RefParts>),
}

#[derive(Clone, Debug)]
struct RefParts {
    api_version: String,
    kind: String,
    name: String,
    uid: Uid,
    namespace: String,
}

impl fmt::Display for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}/{}, namespace: {}, name: {}, uid: {}]",
            self.api_version(),
            self.kind(),
            self.namespace(),
            self.name(),
            self.uid()
        )
    }
}

impl PartialEq for Identity {
    fn eq(&self, other: &Identity) -> bool {
        self.parts() == other.parts()
    }
}

impl Eq for Identity {}

impl std::hash::Hash for Identity {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.parts().hash(state);
    }
}

impl PartialOrd for Identity {
    fn partial_cmp(&self, other: &Identity) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Identity {
    fn cmp(&self, other: &Identity) -> std::cmp::Ordering {
        self.parts().cmp(&other.parts())
    }
}

impl Identity {
    pub(super) fn of(o: &Arc<Object>) -> Identity {
        Identity(Held::Object(Arc::clone(o)))
    }

    pub(super) fn of_ref(r: &OwnerReference, namespace: &str) -> Identity {
        Identity(Held::Ref(Box::new(RefParts {
            api_version: r.api_version.clone(),
            kind: r.kind.clone(),
            name: r.name.clone(),
            uid: r.uid.clone(),
            namespace: namespace.to_string(),
        })))
    }

    /// In the order the fields were declared when they were fields.
    fn parts(&self) -> (&str, &str, &str, &str, &str) {
        (
            self.api_version(),
            self.kind(),
            self.name(),
            self.uid(),
            self.namespace(),
        )
    }

    pub fn api_version(&self) -> &str {
        match &self.0 {
            Held::Object(o) => &o.api_version,
            Held::Ref(r) => &r.api_version,
        }
    }

    pub fn kind(&self) -> &str {
        match &self.0 {
            Held::Object(o) => &o.kind,
            Held::Ref(r) => &r.kind,
        }
    }

    pub fn name(&self) -> &str {
        match &self.0 {
            Held::Object(o) => o.name(),
            Held::Ref(r) => &r.name,
        }
    }

    pub fn uid(&self) -> &str {
        match &self.0 {
            Held::Object(o) => o.uid(),
            Held::Ref(r) => &r.uid,
        }
    }

    /// Empty for a cluster-scoped object.
    pub fn namespace(&self) -> &str {
        match &self.0 {
            Held::Object(o) => o.namespace().unwrap_or_default(),
            Held::Ref(r) => &r.namespace,
        }
    }

    /// The same coordinates, looked up in `namespace`.
    pub(super) fn in_namespace(&self, namespace: &str) -> Identity {
        Identity(Held::Ref(Box::new(RefParts {
            api_version: self.api_version().to_string(),
            kind: self.kind().to_string(),
            name: self.name().to_string(),
            uid: self.uid().to_string(),
            namespace: namespace.to_string(),
        })))
    }

    pub(super) fn matches_ref(&self, r: &OwnerReference) -> bool {
        r.uid == self.uid()
            && r.name == self.name()
            && r.kind == self.kind()
            && r.api_version == self.api_version()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeSet, HashSet};
    use std::sync::Arc;

    use super::Identity;
    use crate::model::Object;

    fn pod(ns: Option<&str>, name: &str, uid: &str) -> Arc<Object> {
        let mut o = Object::new("v1", "Pod", ns, name);
        o.metadata.uid = uid.into();
        Arc::new(o)
    }

    /// An object observed and a reference to it read in its namespace are
    /// one identity: equal, hashed and ordered alike, written alike.
    #[test]
    fn an_identity_is_its_five_strings_however_it_is_held() {
        let p = pod(Some("ns"), "web", "u1");
        let observed = Identity::of(&p);
        let referred = Identity::of_ref(&p.reference(None, None), "ns");
        assert_eq!(observed, referred);
        assert_eq!(observed.to_string(), referred.to_string());
        assert_eq!(
            observed.to_string(),
            "[v1/Pod, namespace: ns, name: web, uid: u1]"
        );
        assert_eq!(
            HashSet::from([observed.clone()]),
            HashSet::from([referred.clone()])
        );
        assert_eq!(observed.cmp(&referred), std::cmp::Ordering::Equal);
        // Any string apart makes another identity, in the fields' order.
        let elsewhere = referred.in_namespace("other");
        assert_ne!(observed, elsewhere);
        assert!(observed < elsewhere, "namespace compared last");
        let other_uid = Identity::of(&pod(Some("ns"), "web", "u2"));
        assert_ne!(observed, other_uid);
        let other_name = Identity::of(&pod(Some("ns"), "api", "u9"));
        assert!(other_name < observed, "name before uid");
        #[allow(clippy::mutable_key_type)]
        let ordered: BTreeSet<Identity> = [observed.clone(), other_name.clone(), elsewhere]
            .into_iter()
            .collect();
        assert_eq!(ordered.first(), Some(&other_name));
        // Cluster-scoped: no namespace, as a reference read with none.
        let node = {
            let mut o = Object::new("v1", "Node", None, "n1");
            o.metadata.uid = "un".into();
            Arc::new(o)
        };
        assert_eq!(Identity::of(&node).namespace(), "");
        assert_eq!(
            Identity::of(&node),
            Identity::of_ref(&node.reference(None, None), "")
        );
    }
}
