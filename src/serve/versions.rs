//! A custom resource in every version its CustomResourceDefinition
//! serves, as kube-apiserver 1.20's apiextensions-apiserver serves it
//! (checked on the test control plane with a CRD serving `v1alpha1` and
//! `v1`, `v1` the storage version, and `v2` not served):
//!
//! - discovery lists each `served: true` version of the group, highest
//!   priority first and the first one preferred (upstream's
//!   `sortVersions`, by [`compare`]), and the resources of each version
//!   (their `storageVersionHash` of the storage version whatever the
//!   version listed);
//! - each served version takes every verb and subresource; a version not
//!   served is a path not served (404);
//! - with `conversion: {strategy: None}` (the default, and the only one
//!   serve models), an object read in another version than it is stored in
//!   comes back with its `apiVersion` set to the version asked and nothing
//!   else changed ([`served_as`]); a write in any served version is stored
//!   in the storage version ([`to_storage`]), and its `managedFields` entry
//!   names the version written in;
//! - an owner reference through any served version resolves (the garbage
//!   collector matches the owner by uid; one through a version not served
//!   is never mapped, R32).
//!
//! A built-in kind is served in its one version, as the kind table says.
//! The versions served are those the CRD serves now (the kind table's,
//! declared again at each write of the CRD); its storage version is read
//! from the CRD as stored.

use std::cmp::Ordering;

use serde_json::Value;

use crate::model::{KindInfo, KindTable, Object};
use crate::sim::{Key, Sim};

/// `v1`, `v2beta1`, `v1alpha3` as upstream's `parseKubeVersion` reads them
/// (`^v(\d+)(?:(alpha|beta)(\d+))?$`): (stage: alpha 0, beta 1, GA 2,
/// major, minor); `None` for another name.
fn parse(v: &str) -> Option<(u8, u64, u64)> {
    let rest = v.strip_prefix('v')?;
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let major = rest[..digits].parse().ok()?;
    let tail = &rest[digits..];
    if tail.is_empty() {
        return Some((2, major, 0));
    }
    let (stage, minor) = if let Some(m) = tail.strip_prefix("alpha") {
        (0, m)
    } else {
        (1, tail.strip_prefix("beta")?)
    };
    if minor.is_empty() || !minor.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((stage, major, minor.parse().ok()?))
}

/// Kubernetes' version order (upstream's
/// `version.CompareKubeAwareVersionStrings`): `Greater` when `a` has the
/// higher priority. GA over beta over alpha, each by major then minor
/// number; any Kubernetes-like version over another name; two other
/// names in reverse alphabetical order (`a` over `b`).
#[must_use]
pub fn compare(a: &str, b: &str) -> Ordering {
    match (parse(a), parse(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Greater,
        (None, Some(_)) => Ordering::Less,
        (None, None) => b.cmp(a),
    }
}

/// Sorts versions highest priority first (upstream's `sortVersions`).
pub fn by_priority<T>(versions: &mut [T], name: impl Fn(&T) -> &str) {
    versions.sort_by(|a, b| compare(name(b), name(a)));
}

/// Whether `kind` is a custom resource (served in each of its CRD's
/// served versions), not a built-in kind.
#[must_use]
pub fn is_custom(kind: &KindInfo) -> bool {
    !KindTable::is_builtin(&kind.group, &kind.kind)
}

/// The versions `kind` is served in: a custom resource's every served
/// version, a built-in kind's own.
#[must_use]
pub fn served(kind: &KindInfo) -> Vec<&str> {
    if is_custom(kind) && !kind.served_versions.is_empty() {
        kind.served_versions.iter().map(String::as_str).collect()
    } else {
        vec![kind.version.as_str()]
    }
}

/// `kind` as served in `version` (one of [`served`]): what the request's
/// path names, its answers' `apiVersion` and its schema's version.
#[must_use]
pub fn at(kind: &KindInfo, version: &str) -> KindInfo {
    let mut k = kind.clone();
    version.clone_into(&mut k.version);
    k
}

/// The kind served at `group`, `version` and `plural`: `None` when no kind
/// is, or the version is not one it is served in.
#[must_use]
pub fn find(kinds: &KindTable, group: &str, version: &str, plural: &str) -> Option<KindInfo> {
    kinds
        .iter()
        .find(|k| k.group == group && k.plural == plural && served(k).contains(&version))
        .map(|k| at(k, version))
}

/// The stored CustomResourceDefinition of `kind`, if any.
#[must_use]
pub fn crd<'a>(sim: &'a Sim, kind: &KindInfo) -> Option<&'a Object> {
    sim.get(&Key {
        group: "apiextensions.k8s.io".into(),
        kind: "CustomResourceDefinition".into(),
        namespace: None,
        name: format!("{}.{}", kind.plural, kind.group),
    })
}

/// The version `kind`'s objects are stored in: its CRD's `storage: true`
/// version; else (a built-in kind, a kind a scenario declares without a
/// CRD) the kind table's.
#[must_use]
pub fn storage(sim: &Sim, kind: &KindInfo) -> String {
    let declared = || {
        sim.kinds()
            .get(&kind.group, &kind.kind)
            .map_or_else(|| kind.version.clone(), |k| k.version.clone())
    };
    if !is_custom(kind) {
        return declared();
    }
    crd(sim, kind)
        .and_then(|c| {
            let versions: &Value = &c.spec["versions"];
            versions
                .as_array()?
                .iter()
                .find(|v| v["storage"].as_bool() == Some(true))
                .and_then(|v| v["name"].as_str())
                .map(str::to_string)
        })
        .unwrap_or_else(declared)
}

/// An object of `kind` (stored in any version) as sent in the version
/// `kind` is served in: a custom resource's `apiVersion` is the one asked,
/// nothing else changes (conversion strategy `None`). A built-in kind's is
/// left as it is.
pub fn served_as(v: &mut Value, kind: &KindInfo) {
    if is_custom(kind)
        && let Some(m) = v.as_object_mut()
        && m.contains_key("apiVersion")
    {
        m.insert("apiVersion".into(), Value::from(kind.api_version()));
    }
}

/// A custom resource written in the version `kind` is served in (`v`'s
/// `apiVersion` checked by the caller), as stored: in its storage
/// version. A built-in kind's is left as it is.
pub fn to_storage(sim: &Sim, kind: &KindInfo, v: &mut Value) {
    if !is_custom(kind) || !v.is_object() {
        return;
    }
    let stored = at(kind, &storage(sim, kind)).api_version();
    v["apiVersion"] = Value::from(stored);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The order the Kubernetes documentation gives for a CRD's versions
    /// ("Version priority"), each over the next, and names that are not
    /// Kubernetes-like last, in alphabetical order.
    #[test]
    fn versions_are_ordered_as_kubernetes_orders_them() {
        let ordered = [
            "v10",
            "v2",
            "v1",
            "v11beta2",
            "v10beta3",
            "v3beta1",
            "v12alpha1",
            "v11alpha2",
            "foo1",
            "foo10",
            "v1alpha",
            "v1beta",
        ];
        for w in ordered.windows(2) {
            assert_eq!(
                compare(w[0], w[1]),
                Ordering::Greater,
                "{} over {}",
                w[0],
                w[1]
            );
            assert_eq!(compare(w[1], w[0]), Ordering::Less);
        }
        let mut shuffled = ordered;
        shuffled.reverse();
        by_priority(&mut shuffled, |v| v);
        assert_eq!(shuffled, ordered);
        assert_eq!(compare("v1", "v1"), Ordering::Equal);
        // Not Kubernetes-like: a sign, a missing number, a leading `V`.
        for odd in ["v1alpha-1", "v", "V1", "v1gamma1", "1"] {
            assert_eq!(parse(odd), None, "{odd}");
        }
    }
}

#[cfg(test)]
#[path = "versions_tests.rs"]
mod served_tests;
