//! What ownerscope knows about resource kinds: scope (namespaced or
//! cluster-scoped), resource plural, short names, and the deletion policy a
//! DELETE without options gets (GC-SEMANTICS R12).
//!
//! The built-in table covers the standard kinds; a scenario, a snapshot or a
//! live cluster's discovery extends it.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::object::Policy;

mod builtin;
use builtin::{BUILTIN, row_of};

/// What a DELETE with no policy does for a kind (R11 step 5, R12).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DefaultPolicy {
    /// The policy applies (Background or Orphan).
    Policy(Policy),
    /// core/v1 Events: never GC finalizers.
    Unsupported,
}

/// One kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KindInfo {
    pub group: String,
    pub kind: String,
    /// A served version, e.g. `v1`.
    pub version: String,
    pub plural: String,
    pub namespaced: bool,
    #[serde(default)]
    pub short_names: Vec<String>,
    /// Discovery's categories (`all`): a name that stands for several
    /// kinds, as kubectl accepts it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
    pub default_policy: DefaultPolicy,
    /// Every version the server serves it in, when known (discovery, a
    /// CRD's `spec.versions[].served`); empty: `version`, and whatever
    /// else the built-in table does not rule out. An owner reference
    /// through another version is never mapped (R32).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub served_versions: Vec<String>,
}

impl KindInfo {
    /// The kind a CustomResourceDefinition defines, as the API server then
    /// serves it: its group, names, scope and preferred served version
    /// (Kubernetes' version priority: GA over beta over alpha, higher
    /// numbers first). `None` for anything else or an incomplete spec.
    #[must_use]
    pub fn of_crd(crd: &super::Object) -> Option<KindInfo> {
        if crd.kind != "CustomResourceDefinition" || crd.group() != "apiextensions.k8s.io" {
            return None;
        }
        let s = |path: &[&str]| crd.str_at(path).map(str::to_string);
        let group = s(&["spec", "group"])?;
        let kind = s(&["spec", "names", "kind"])?;
        let plural = s(&["spec", "names", "plural"])?;
        let served: Vec<String> = crd
            .value_at(&["spec", "versions"])
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter(|v| v["served"].as_bool().unwrap_or(true))
            .filter_map(|v| v["name"].as_str().map(str::to_string))
            .collect();
        let version = served
            .iter()
            .max_by_key(|v| version_priority(v))
            .cloned()
            .or_else(|| s(&["spec", "version"]))?;
        Some(KindInfo {
            group,
            kind,
            version,
            plural,
            namespaced: crd.str_at(&["spec", "scope"]) != Some("Cluster"),
            short_names: crd.strings_at(&["spec", "names", "shortNames"]),
            categories: crd.strings_at(&["spec", "names", "categories"]),
            default_policy: DefaultPolicy::Policy(Policy::Background),
            served_versions: served,
        })
    }

    #[must_use]
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `deployments.apps`, `pods` (core group).
    #[must_use]
    pub fn resource(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }
}

/// A kind that could not be listed (forbidden, or the list failed): what is
/// not seen must never become a conclusion (an owner of that kind is
/// unverified, not gone; a dependent of that kind may exist and block).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Unlisted {
    /// `configmaps`, `jobs.batch`: as kubectl names it.
    pub resource: String,
    /// The server's answer, or why the list failed.
    pub reason: String,
    /// The kind, when known (a snapshot names it).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub group: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// For a group version whose discovery fails: what its APIService says
    /// (`APIService v1beta1.metrics.k8s.io is not Available: MissingEndpoints:
    /// ...`), when it could be read.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

impl Unlisted {
    /// A group version whose discovery fails (an aggregated API that is
    /// down), as opposed to a resource that could not be listed.
    #[must_use]
    pub fn is_unavailable_api(&self) -> bool {
        self.reason == DISCOVERY_FAILED
    }
}

/// What could not be seen, in lines a reader takes at once: unavailable
/// APIs named as such, with their APIService's word (never as a
/// permission problem, STUCK-CAUSES C4), then what could not be listed.
/// `then` says what follows for the answer (`owners of those kinds show as
/// ?unverified, not gone`).
#[must_use]
pub fn unseen_lines(unlisted: &[Unlisted], then: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (apis, rest): (Vec<&Unlisted>, Vec<&Unlisted>) =
        unlisted.iter().partition(|u| u.is_unavailable_api());
    for u in apis {
        let why = if u.detail.is_empty() {
            format!("its discovery answers \"{DISCOVERY_FAILED}\"")
        } else {
            u.detail.clone()
        };
        out.push(format!(
            "unavailable API {}: {why}; its objects cannot be seen: {then}",
            u.resource
        ));
    }
    // A list that failed for another reason than a refusal (a conversion
    // webhook that cannot be reached, STUCK-CAUSES C5) is not a
    // permission problem either: said with the server's words.
    let (failed, forbidden): (Vec<&Unlisted>, Vec<&Unlisted>) = rest.into_iter().partition(|u| {
        !u.reason.is_empty()
            && !u.reason.to_ascii_lowercase().contains("forbidden")
            && u.resource != ANY_KIND
            && u.group != ANY_KIND
    });
    for u in failed {
        out.push(format!(
            "partial view: listing {} fails ({}): {then}",
            u.resource, u.reason
        ));
    }
    if !forbidden.is_empty() {
        let names: Vec<&str> = forbidden.iter().map(|u| u.resource.as_str()).collect();
        out.push(format!(
            "partial view: you cannot list {}: {then}",
            names.join(", ")
        ));
    }
    out
}

/// The group and kind of an [`Unlisted`] that stands for part of every
/// kind (a label selection).
pub const ANY_KIND: &str = "*";

/// Why a group version is unlisted when its discovery fails (the error an
/// unavailable aggregated API gives).
pub const DISCOVERY_FAILED: &str = "the server is currently unable to handle the request";

/// What a view could not see, carried by every answer drawn from it (JSON
/// `partial: {unlisted: [...]}`): empty when the view is complete.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Partial {
    pub unlisted: Vec<Unlisted>,
}

impl Partial {
    #[must_use]
    pub fn of(kinds: &KindTable) -> Self {
        Partial {
            unlisted: kinds.unlisted.clone(),
        }
    }

    #[must_use]
    pub fn is_partial(&self) -> bool {
        !self.unlisted.is_empty()
    }
}

/// The default propagation of a kind in one served version, where it
/// differs from the kind's (R79): `batch/v1beta1` CronJob, the only CronJob
/// of 1.20, orphans its Jobs on a DELETE without a policy.
#[must_use]
pub fn version_default(
    group: &str,
    kind: &str,
    version: &str,
    other: DefaultPolicy,
) -> DefaultPolicy {
    match (group, kind, version) {
        ("batch", "CronJob", "v1beta1") => ORPHAN,
        _ => other,
    }
}

/// Scope and naming for every kind ownerscope has heard of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindTable {
    /// Kinds that could not be listed: the view is partial.
    unlisted: Vec<Unlisted>,
    /// Legacy API versions this server does serve after all (an older
    /// server's discovery says so).
    served_legacy: Vec<String>,
    /// The standard kinds the table has, by their row in [`BUILTIN`]:
    /// found by [`row_of`] without hashing or comparing strings at run
    /// time (asked for every object admitted and every reference
    /// resolved).
    standard: Box<[Option<KindInfo>]>,
    /// Every other kind: group -> kind -> facts (nested so that a lookup
    /// borrows). Hashed with foldhash: ordered maps compared a dozen
    /// strings a lookup, about a twentieth of the deletion preview at 100k
    /// objects; [`Self::iter`] sorts.
    by_group_kind: HashMap<String, Kinds, foldhash::fast::RandomState>,
}

type Kinds = HashMap<String, KindInfo, foldhash::fast::RandomState>;

/// How Kubernetes orders versions: GA, then beta, then alpha, each by
/// major then minor number, highest first; anything else last.
fn version_priority(v: &str) -> (u8, u64, u64) {
    if !is_version(v) {
        return (0, 0, 0);
    }
    let rest = &v[1..];
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let major = rest[..digits].parse().unwrap_or(0);
    let tail = &rest[digits..];
    let (stage, minor) = if tail.is_empty() {
        (3, "")
    } else if let Some(m) = tail.strip_prefix("beta") {
        (2, m)
    } else if let Some(m) = tail.strip_prefix("alpha") {
        (1, m)
    } else {
        (0, "")
    };
    (stage, major, minor.parse().unwrap_or(0))
}

/// `v1`, `v1beta1`, `v2alpha3`.
fn is_version(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('v') else {
        return false;
    };
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    if digits == 0 {
        return false;
    }
    let tail = &rest[digits..];
    tail.is_empty()
        || ["alpha", "beta"].iter().any(|p| {
            tail.strip_prefix(p)
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
}

/// API versions a current server (1.36) no longer serves (R12).
const LEGACY_UNSERVED: [&str; 4] = [
    "extensions/v1beta1",
    "apps/v1beta1",
    "apps/v1beta2",
    "batch/v1beta1",
];

const BG: DefaultPolicy = DefaultPolicy::Policy(Policy::Background);
const ORPHAN: DefaultPolicy = DefaultPolicy::Policy(Policy::Orphan);

impl Default for KindTable {
    fn default() -> Self {
        Self::builtin()
    }
}

impl KindTable {
    /// Whether `group`/`kind` is one of the standard kinds (no table is
    /// built: the API server asks this for every object it admits).
    #[must_use]
    pub fn is_builtin(group: &str, kind: &str) -> bool {
        row_of(group, kind).is_some()
    }

    /// The standard kinds.
    #[must_use]
    pub fn builtin() -> Self {
        let mut t = Self::empty();
        for &(group, version, kind, plural, namespaced, short, policy) in BUILTIN {
            t.insert(KindInfo {
                group: group.to_string(),
                kind: kind.to_string(),
                version: version.to_string(),
                plural: plural.to_string(),
                namespaced,
                short_names: short.iter().map(|s| (*s).to_string()).collect(),
                categories: Vec::new(),
                default_policy: policy,
                served_versions: Vec::new(),
            });
        }
        t
    }

    /// An empty table (a live cluster fills it from discovery).
    #[must_use]
    pub fn empty() -> Self {
        KindTable {
            unlisted: Vec::new(),
            served_legacy: Vec::new(),
            standard: vec![None; BUILTIN.len()].into_boxed_slice(),
            by_group_kind: HashMap::default(),
        }
    }

    /// Adds or replaces a kind.
    pub fn insert(&mut self, info: KindInfo) {
        match row_of(&info.group, &info.kind) {
            Some(row) => self.standard[row] = Some(info),
            None => {
                self.by_group_kind
                    .entry(info.group.clone())
                    .or_default()
                    .insert(info.kind.clone(), info);
            }
        }
    }

    /// Stops serving a kind (its CustomResourceDefinition is gone).
    pub fn remove(&mut self, group: &str, kind: &str) {
        if let Some(row) = row_of(group, kind) {
            self.standard[row] = None;
        } else if let Some(m) = self.by_group_kind.get_mut(group) {
            m.remove(kind);
            if m.is_empty() {
                self.by_group_kind.remove(group);
            }
        }
    }

    /// Adds what a scenario or snapshot declares of a kind without losing
    /// what is known of it (R12): a standard kind keeps its default policy,
    /// scope and names, and gains the declared short names; an unknown kind
    /// is added as declared.
    pub fn declare(&mut self, info: KindInfo) {
        // What the server served is served (R79), the legacy versions too.
        let group = info.group.clone();
        let mut versions = info.served_versions.clone();
        versions.push(info.version.clone());
        for v in &versions {
            self.mark_served(&super::object::api_version_of(&group, v));
        }
        match self.get_mut(&info.group, &info.kind) {
            Some(known) => {
                for n in info.short_names {
                    if !known.short_names.contains(&n) {
                        known.short_names.push(n);
                    }
                }
                if !info.served_versions.is_empty() {
                    known.served_versions = info.served_versions;
                }
                // Served in another version than the table's (CronJob only
                // as batch/v1beta1 on 1.20): that one, and its default.
                if !known.served_versions.is_empty()
                    && !known.served_versions.contains(&known.version)
                {
                    known.version = info.version;
                }
                known.default_policy = version_default(
                    &known.group,
                    &known.kind,
                    &known.version,
                    known.default_policy,
                );
            }
            None => self.insert(info),
        }
    }

    /// Whether the server maps `api_version` (R32): the legacy versions of
    /// R12 are no longer served, unless discovery said otherwise; a
    /// reference through one cannot be resolved by the garbage collector,
    /// which retries it forever.
    #[must_use]
    pub fn serves(&self, api_version: &str) -> bool {
        !LEGACY_UNSERVED.contains(&api_version)
            || self.served_legacy.iter().any(|v| v == api_version)
    }

    /// Discovery found `group`/`kind` served in `version` too.
    pub fn add_served_version(&mut self, group: &str, kind: &str, version: &str) {
        if let Some(k) = self.get_mut(group, kind)
            && !k.served_versions.iter().any(|v| v == version)
        {
            k.served_versions.push(version.to_string());
        }
    }

    /// Whether an owner reference through `api_version` to `kind` can be
    /// mapped: the version is served ([`Self::serves`]) and, where the
    /// kind's served versions are known, one of them (R32: a custom
    /// resource referred to through a version its CRD does not serve is
    /// never resolved).
    #[must_use]
    pub fn maps(&self, api_version: &str, kind: &str) -> bool {
        if !self.serves(api_version) {
            return false;
        }
        let group = super::object::group_of(api_version);
        let version = super::object::version_of(api_version);
        self.get(group, kind).is_none_or(|k| {
            k.served_versions.is_empty() || k.served_versions.iter().any(|v| v == version)
        })
    }

    /// Discovery found `api_version` served.
    pub fn mark_served(&mut self, api_version: &str) {
        if LEGACY_UNSERVED.contains(&api_version)
            && !self.served_legacy.iter().any(|v| v == api_version)
        {
            self.served_legacy.push(api_version.to_string());
        }
    }

    /// Records a kind that could not be listed.
    pub fn mark_unlisted(&mut self, u: Unlisted) {
        if !self.unlisted.contains(&u) {
            self.unlisted.push(u);
            self.unlisted.sort_by(|a, b| a.resource.cmp(&b.resource));
        }
    }

    /// Replaces every kind that cannot be seen (a live source says so as
    /// its watches fail and list again).
    pub fn set_unlisted(&mut self, mut unlisted: Vec<Unlisted>) {
        unlisted.sort_by(|a, b| a.resource.cmp(&b.resource));
        unlisted.dedup();
        self.unlisted = unlisted;
    }

    /// Marks the discovery of a group version (`metrics.k8s.io/v1beta1`) as
    /// failing, as an aggregated API whose backend is down answers 503, or
    /// as recovered. Failing, it is unlisted: nothing of it can be seen.
    pub fn set_discovery_failing(&mut self, group_version: &str, failing: bool) {
        if failing {
            self.mark_unlisted(Unlisted {
                resource: group_version.to_string(),
                reason: DISCOVERY_FAILED.to_string(),
                group: String::new(),
                kind: String::new(),
                detail: String::new(),
            });
        } else {
            self.unlisted
                .retain(|x| !(x.is_unavailable_api() && x.resource == group_version));
        }
    }

    /// What the APIService of a failing group version says of it.
    pub fn set_discovery_detail(&mut self, group_version: &str, detail: &str) {
        for u in &mut self.unlisted {
            if u.is_unavailable_api() && u.resource == group_version {
                u.detail = detail.to_string();
            }
        }
    }

    /// Group versions whose discovery fails.
    #[must_use]
    pub fn discovery_failing(&self) -> Vec<&str> {
        self.unlisted
            .iter()
            .filter(|u| u.reason == DISCOVERY_FAILED)
            .map(|u| u.resource.as_str())
            .collect()
    }

    /// Every kind that could not be listed (empty: the view is complete).
    #[must_use]
    pub fn unlisted(&self) -> &[Unlisted] {
        &self.unlisted
    }

    /// Why `group`/`kind` could not be listed, if it could not (a label
    /// selection hides part of every kind).
    #[must_use]
    pub fn unlisted_kind(&self, group: &str, kind: &str) -> Option<&Unlisted> {
        self.unlisted
            .iter()
            .find(|u| u.group == group && u.kind == kind)
            .or_else(|| {
                self.unlisted
                    .iter()
                    .find(|u| u.group == ANY_KIND && u.kind == ANY_KIND)
            })
    }

    /// Only objects matching a label selector (`-l app=web`) are seen:
    /// every kind is partly unseen, so an owner outside the selection is
    /// unverified (never gone) and a dependent outside it may exist.
    pub fn mark_selection(&mut self, selector: &str) {
        self.mark_unlisted(Unlisted {
            resource: format!("objects outside -l {selector}"),
            reason: "not selected by the label selector".to_string(),
            group: ANY_KIND.to_string(),
            kind: ANY_KIND.to_string(),
            detail: String::new(),
        });
    }

    /// The unlisted resources' names, for one line: `configmaps, secrets`.
    #[must_use]
    pub fn unlisted_names(&self) -> String {
        let names: Vec<&str> = self.unlisted.iter().map(|u| u.resource.as_str()).collect();
        names.join(", ")
    }

    /// Looks a kind up by API group and kind.
    #[must_use]
    pub fn get(&self, group: &str, kind: &str) -> Option<&KindInfo> {
        match row_of(group, kind) {
            Some(row) => self.standard[row].as_ref(),
            None => self.by_group_kind.get(group)?.get(kind),
        }
    }

    fn get_mut(&mut self, group: &str, kind: &str) -> Option<&mut KindInfo> {
        match row_of(group, kind) {
            Some(row) => self.standard[row].as_mut(),
            None => self.by_group_kind.get_mut(group)?.get_mut(kind),
        }
    }

    /// Whether the table has a kind in `group`.
    fn has_group(&self, group: &str) -> bool {
        self.by_group_kind.contains_key(group)
            || self.standard.iter().flatten().any(|k| k.group == group)
    }

    /// Whether the kind is namespaced; `None` when the kind is unknown.
    #[must_use]
    pub fn namespaced(&self, group: &str, kind: &str) -> Option<bool> {
        self.get(group, kind).map(|k| k.namespaced)
    }

    /// Registers a kind seen on an object ownerscope was given, guessing its
    /// scope from whether the object has a namespace, unless already known.
    pub fn learn(&mut self, api_version: &str, kind: &str, namespaced: bool) {
        let group = super::object::group_of(api_version);
        if self.get(group, kind).is_some() || kind.is_empty() {
            return;
        }
        self.insert(KindInfo {
            group: group.to_string(),
            kind: kind.to_string(),
            version: super::object::version_of(api_version).to_string(),
            plural: format!("{}s", kind.to_ascii_lowercase()),
            namespaced,
            short_names: Vec::new(),
            categories: Vec::new(),
            default_policy: BG,
            served_versions: Vec::new(),
        });
    }

    /// Resolves what a user typed (`Deployment`, `deployment`, `deployments`,
    /// `deploy`, `deployments.apps`, `ReplicaSet.apps`, a CRD's short name
    /// `db`) to kinds. Several kinds may match a bare name in different
    /// groups. A name no kind has may be a category (`all`): then every kind
    /// in it, as kubectl expands it.
    #[must_use]
    pub fn resolve(&self, typed: &str) -> Vec<&KindInfo> {
        let lower = typed.to_ascii_lowercase();
        let (name, group) = match lower.split_once('.') {
            Some((n, g)) => (n.to_string(), Some(g.to_string())),
            None => (lower.clone(), None),
        };
        // `resource.version.group` (`deployments.v1.apps`): the version is
        // dropped when it is one.
        let group = group.map(|g| match g.split_once('.') {
            Some((v, rest)) if is_version(v) && !self.has_group(&g) => rest.to_string(),
            _ if is_version(&g) => String::new(),
            _ => g,
        });
        let in_group = |k: &&KindInfo| group.as_deref().is_none_or(|g| k.group == g);
        let mut hits: Vec<&KindInfo> = self
            .iter()
            .filter(in_group)
            .filter(|k| {
                k.kind.to_ascii_lowercase() == name
                    || k.plural == name
                    || k.short_names.contains(&name)
            })
            .collect();
        // A bare "Event" means core/v1 Event.
        if group.is_none()
            && hits.len() > 1
            && let Some(core) = hits.iter().find(|k| k.group.is_empty())
        {
            hits = vec![*core];
        }
        if hits.is_empty() && group.is_none() {
            hits = self
                .iter()
                .filter(|k| k.categories.contains(&name))
                .collect();
        }
        hits
    }

    /// Every kind, by group then kind.
    pub fn iter(&self) -> impl Iterator<Item = &KindInfo> {
        let mut all: Vec<&KindInfo> = self
            .standard
            .iter()
            .flatten()
            .chain(self.by_group_kind.values().flat_map(Kinds::values))
            .collect();
        all.sort_unstable_by(|a, b| (&a.group, &a.kind).cmp(&(&b.group, &b.kind)));
        all.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_builtin_agrees_with_the_table() {
        let t = KindTable::builtin();
        for (g, k) in [
            ("apps", "Deployment"),
            ("", "Pod"),
            ("batch", "Job"),
            ("example.com", "Database"),
            ("", "Deployment"),
        ] {
            assert_eq!(
                KindTable::is_builtin(g, k),
                t.get(g, k).is_some(),
                "{g}/{k}"
            );
        }
        // Every standard row, at its own place, in its own group and no
        // other.
        for (row, &(group, _, kind, ..)) in BUILTIN.iter().enumerate() {
            assert_eq!(row_of(group, kind), Some(row), "{group}/{kind}");
            assert!(KindTable::is_builtin(group, kind), "{group}/{kind}");
            assert!(!KindTable::is_builtin("example.com", kind), "{kind}");
            assert!(!KindTable::is_builtin(group, "Database"), "{group}");
        }
    }

    #[test]
    fn a_crd_defines_its_kind_at_its_preferred_served_version() {
        let mut crd = super::super::Object::new(
            "apiextensions.k8s.io/v1",
            "CustomResourceDefinition",
            None,
            "databases.db.example.com",
        );
        crd.spec = serde_json::json!({
            "group": "db.example.com",
            "scope": "Namespaced",
            "names": {"kind": "Database", "plural": "databases", "shortNames": ["db"], "categories": ["stores"]},
            "versions": [
                {"name": "v1beta1", "served": true},
                {"name": "v2alpha1", "served": true},
                {"name": "v1", "served": true},
                {"name": "v3", "served": false},
            ],
        }).into();
        let k = KindInfo::of_crd(&crd).expect("a kind");
        assert_eq!(
            (k.group.as_str(), k.kind.as_str(), k.version.as_str()),
            ("db.example.com", "Database", "v1")
        );
        assert!(k.namespaced);
        assert_eq!(
            (k.short_names, k.categories),
            (vec!["db".to_string()], vec!["stores".to_string()])
        );
        let mut t = KindTable::builtin();
        t.declare(KindInfo::of_crd(&crd).expect("a kind"));
        assert_eq!(t.resolve("db").len(), 1);
        t.remove("db.example.com", "Database");
        assert!(t.resolve("db").is_empty());
        assert!(
            KindInfo::of_crd(&super::super::Object::new(
                "v1",
                "ConfigMap",
                Some("a"),
                "x"
            ))
            .is_none()
        );
    }

    #[test]
    fn resolves_names_plurals_and_short_names() {
        let t = KindTable::builtin();
        for typed in [
            "Deployment",
            "deployments",
            "deploy",
            "deployments.apps",
            "deployments.v1.apps",
        ] {
            let hits = t.resolve(typed);
            assert_eq!(hits.len(), 1, "{typed}");
            assert_eq!(hits[0].kind, "Deployment");
        }
        assert_eq!(t.resolve("event")[0].group, "");
        assert!(t.resolve("nosuchkind").is_empty());
    }

    #[test]
    fn resolves_a_crds_short_names_and_categories() {
        let mut t = KindTable::builtin();
        t.insert(KindInfo {
            group: "example.com".into(),
            kind: "Database".into(),
            version: "v1".into(),
            plural: "databases".into(),
            namespaced: true,
            short_names: vec!["db".into()],
            categories: vec!["all".into(), "storage".into()],
            default_policy: BG,
            served_versions: Vec::new(),
        });
        for typed in [
            "db",
            "DB",
            "databases.example.com",
            "database.v1.example.com",
        ] {
            let hits = t.resolve(typed);
            assert_eq!(hits.len(), 1, "{typed}");
            assert_eq!(hits[0].kind, "Database", "{typed}");
        }
        let storage: Vec<&str> = t
            .resolve("storage")
            .iter()
            .map(|k| k.kind.as_str())
            .collect();
        assert_eq!(storage, ["Database"]);
        // A kind's own name wins over a category of the same name.
        let mut pods = t.get("", "Pod").cloned().expect("pods");
        pods.kind = "Widget".into();
        pods.group = "x.io".into();
        pods.plural = "widgets".into();
        pods.categories = vec!["pod".into()];
        t.insert(pods);
        assert_eq!(t.resolve("pod").len(), 1);
        assert_eq!(t.resolve("pod")[0].group, "");
    }

    #[test]
    fn type_defaults_follow_r12() {
        let t = KindTable::builtin();
        assert_eq!(
            t.get("batch", "Job").map(|k| k.default_policy),
            Some(ORPHAN)
        );
        assert_eq!(
            t.get("", "ReplicationController").map(|k| k.default_policy),
            Some(ORPHAN)
        );
        assert_eq!(
            t.get("apps", "Deployment").map(|k| k.default_policy),
            Some(BG)
        );
        assert_eq!(
            t.get("", "Event").map(|k| k.default_policy),
            Some(DefaultPolicy::Unsupported)
        );
    }

    #[test]
    fn standard_kinds_and_others_are_added_removed_and_listed_alike() {
        let mut t = KindTable::empty();
        assert!(t.get("", "Pod").is_none());
        t.learn("example.com/v1", "Database", true);
        t.learn("v1", "Pod", true);
        t.learn("apps/v1", "Deployment", true);
        let listed: Vec<_> = t
            .iter()
            .map(|k| (k.group.as_str(), k.kind.as_str()))
            .collect();
        assert_eq!(
            listed,
            [
                ("", "Pod"),
                ("apps", "Deployment"),
                ("example.com", "Database")
            ]
        );
        assert!(t.get("", "Pod").is_some_and(|k| k.namespaced));
        t.remove("", "Pod");
        assert!(t.get("", "Pod").is_none());
        assert_eq!(t.resolve("deployments.apps").len(), 1);
        t.remove("apps", "Deployment");
        assert!(t.resolve("deployments").is_empty());
        assert_eq!(t.iter().count(), 1);
        assert_ne!(t, KindTable::empty());
        t.remove("example.com", "Database");
        assert_eq!(t, KindTable::empty());
    }

    #[test]
    fn learns_unknown_kinds_once() {
        let mut t = KindTable::builtin();
        t.learn("example.com/v1", "Widget", true);
        t.learn("example.com/v1", "Widget", false);
        assert_eq!(t.namespaced("example.com", "Widget"), Some(true));
        assert_eq!(
            t.get("example.com", "Widget").map(KindInfo::resource),
            Some("widgets.example.com".into())
        );
    }
}
