//! Field validation the API server applies to object metadata, with the
//! messages it answers (GC-SEMANTICS R1-R3, R5, R19, R21, R22).

use std::collections::{BTreeSet, HashSet};
use std::fmt;

use crate::model::{FOREGROUND, ORPHAN, Object, OwnerReference, version_of};

/// One field error, printed like the API server's `field.Error`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub kind: FieldErrorKind,
    pub detail: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldErrorKind {
    /// `Invalid value: <value>`
    Invalid(String),
    Forbidden,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            FieldErrorKind::Invalid(v) => {
                write!(f, "{}: Invalid value: {}: {}", self.field, v, self.detail)
            }
            FieldErrorKind::Forbidden => write!(f, "{}: Forbidden: {}", self.field, self.detail),
        }
    }
}

fn invalid(field: &str, value: String, detail: impl Into<String>) -> FieldError {
    FieldError {
        field: field.to_string(),
        kind: FieldErrorKind::Invalid(value),
        detail: detail.into(),
    }
}

/// Go's `%#v` of a `[]string`.
#[must_use]
pub fn go_string_slice(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| format!("{s:?}")).collect();
    format!("[]string{{{}}}", inner.join(", "))
}

fn quoted(s: &str) -> String {
    format!("{s:?}")
}

/// R1-R3: owner references on create and update.
#[must_use]
pub fn validate_owner_references(refs: &[OwnerReference]) -> Vec<FieldError> {
    const FIELD: &str = "metadata.ownerReferences";
    let mut errs = Vec::new();
    // The first controller reference, named only if a second one is found.
    let mut controller: Option<&OwnerReference> = None;
    for r in refs {
        let version = version_of(&r.api_version);
        if version.is_empty() || r.api_version.ends_with('/') {
            errs.push(invalid(
                &format!("{FIELD}.apiVersion"),
                quoted(&r.api_version),
                "version must not be empty",
            ));
        }
        if r.kind.is_empty() {
            errs.push(invalid(
                &format!("{FIELD}.kind"),
                quoted(&r.kind),
                "must not be empty",
            ));
        }
        if r.name.is_empty() {
            errs.push(invalid(
                &format!("{FIELD}.name"),
                quoted(&r.name),
                "must not be empty",
            ));
        }
        if r.uid.is_empty() {
            errs.push(invalid(
                &format!("{FIELD}.uid"),
                quoted(&r.uid),
                "must not be empty",
            ));
        }
        if r.api_version == "v1" && r.kind == "Event" {
            errs.push(invalid(
                FIELD,
                format!("{}/{}", r.kind, r.name),
                "/v1, Kind=Event is disallowed from being an owner",
            ));
        }
        if r.is_controller() {
            match controller {
                Some(first) => errs.push(invalid(
                    FIELD,
                    "[]v1.OwnerReference{...}".to_string(),
                    format!(
                        "Only one reference can have Controller set to true. Found \"true\" in references for {}/{} and {}/{}",
                        first.kind, first.name, r.kind, r.name
                    ),
                )),
                None => controller = Some(r),
            }
        }
    }
    errs
}

/// R5: identical references collapse to one, with a warning.
#[must_use]
pub fn dedup_owner_references(refs: &mut Vec<OwnerReference>) -> Option<String> {
    // Most objects have one reference: nothing to compare, nothing to copy.
    if refs.len() < 2 {
        return None;
    }
    let repeated: Vec<bool> = {
        let mut seen: HashSet<&OwnerReference> = HashSet::with_capacity(refs.len());
        refs.iter().map(|r| !seen.insert(r)).collect()
    };
    if !repeated.contains(&true) {
        return None;
    }
    let dup_uids: BTreeSet<String> = refs
        .iter()
        .zip(&repeated)
        .filter(|(_, again)| **again)
        .map(|(r, _)| r.uid.clone())
        .collect();
    let mut again = repeated.iter();
    refs.retain(|_| !again.next().copied().unwrap_or(false));
    let uids: Vec<&str> = dup_uids.iter().map(String::as_str).collect();
    Some(format!(
        ".metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: [{}]",
        uids.join(" ")
    ))
}

// The API server's name alphabets, a bit each.
const LOWER_DIGIT: u8 = 1;
const UPPER: u8 = 2;
const DASH: u8 = 4;
const DOT: u8 = 8;
const UNDERSCORE: u8 = 16;
const ALNUM: u8 = LOWER_DIGIT | UPPER;

/// Which alphabets each byte belongs to: one lookup a byte, as every
/// object's name, namespace and labels are checked as a file is loaded.
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        #[allow(clippy::cast_possible_truncation)]
        let b = c as u8;
        t[c] = if b.is_ascii_lowercase() || b.is_ascii_digit() {
            LOWER_DIGIT
        } else if b.is_ascii_uppercase() {
            UPPER
        } else if b == b'-' {
            DASH
        } else if b == b'.' {
            DOT
        } else if b == b'_' {
            UNDERSCORE
        } else {
            0
        };
        c += 1;
    }
    t
};

/// Every byte in `allowed`, and the first and last in `ends`.
fn made_of(s: &str, allowed: u8, ends: u8) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(&first), Some(&last)) => {
            CLASS[usize::from(first)] & ends != 0
                && CLASS[usize::from(last)] & ends != 0
                && b.iter().all(|&c| CLASS[usize::from(c)] & allowed != 0)
        }
        _ => false,
    }
}

/// A qualified name's name part, and a non-empty label value: at most 63
/// alphanumerics, `-`, `_` or `.`, alphanumeric at both ends.
fn is_name_part(s: &str) -> bool {
    s.len() <= 63 && made_of(s, ALNUM | DASH | UNDERSCORE | DOT, ALNUM)
}

fn is_qualified_name(s: &str) -> bool {
    fn prefix_ok(p: &str) -> bool {
        !p.is_empty()
            && p.len() <= 253
            && p.split('.')
                .all(|l| made_of(l, LOWER_DIGIT | DASH, LOWER_DIGIT))
    }
    match s.split_once('/') {
        Some((prefix, name)) => prefix_ok(prefix) && is_name_part(name) && !name.contains('/'),
        None => is_name_part(s),
    }
}

fn is_dns_label(s: &str) -> bool {
    s.len() <= 63 && made_of(s, LOWER_DIGIT | DASH, LOWER_DIGIT)
}

fn is_dns_subdomain(s: &str) -> bool {
    s.len() <= 253 && made_of(s, LOWER_DIGIT | DASH | DOT, LOWER_DIGIT)
}

fn is_label_value(s: &str) -> bool {
    s.is_empty() || is_name_part(s)
}

fn shown(s: &str) -> String {
    if s.chars().count() > 80 {
        let head: String = s.chars().take(60).collect();
        format!("{head:?}... ({} characters)", s.chars().count())
    } else {
        format!("{s:?}")
    }
}

/// How the API server validates a kind's name (`ValidateObjectMeta`'s name
/// function, per kind, as kube-apiserver 1.20 and later have them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NameRule {
    /// Most kinds, custom resources included: a DNS-1123 subdomain.
    Subdomain,
    /// Namespaces: a DNS-1123 label.
    Label,
    /// Services (`ValidateServiceName`): a DNS-1035 label, which starts
    /// with a letter.
    Dns1035Label,
    /// RBAC objects and CertificateSigningRequests
    /// (`path.IsValidPathSegmentName`): anything that fits in a URL path
    /// segment, as in `system:controller:job-controller`.
    PathSegment,
    /// APIServices (kube-aggregator's `ValidateAPIService`): a path segment
    /// that is `spec.version + "." + spec.group`; the core group's is
    /// `v1.`, which every cluster has.
    ApiService,
}

fn name_rule(group: &str, kind: &str) -> NameRule {
    match (group, kind) {
        ("", "Namespace") => NameRule::Label,
        ("", "Service") => NameRule::Dns1035Label,
        ("rbac.authorization.k8s.io", _) | ("certificates.k8s.io", "CertificateSigningRequest") => {
            NameRule::PathSegment
        }
        ("apiregistration.k8s.io", "APIService") => NameRule::ApiService,
        _ => NameRule::Subdomain,
    }
}

fn is_path_segment(s: &str) -> bool {
    s != "." && s != ".." && !s.contains('/') && !s.contains('%')
}

fn is_dns1035_label(s: &str) -> bool {
    is_dns_label(s) && s.as_bytes().first().is_some_and(u8::is_ascii_lowercase)
}

/// What is wrong with `name` for an object of `group`/`kind` (`spec` read
/// only for an APIService), as the API server words it.
fn name_problem(o: &Object, name: &str) -> Option<String> {
    const SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', start and end with an alphanumeric character, and be at most 253 characters";
    const PATH: &str =
        "may not be '.' or '..', contain '/' or '%', or be longer than 253 characters";
    match name_rule(o.group(), &o.kind) {
        NameRule::Subdomain => (!is_dns_subdomain(name)).then(|| SUBDOMAIN.to_string()),
        NameRule::Label => (!is_dns_label(name)).then(|| {
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', start and end with an alphanumeric character, and be at most 63 characters".to_string()
        }),
        NameRule::Dns1035Label => (!is_dns1035_label(name)).then(|| {
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character, and be at most 63 characters".to_string()
        }),
        NameRule::PathSegment => {
            (!is_path_segment(name) || name.len() > 253).then(|| PATH.to_string())
        }
        NameRule::ApiService => {
            if !is_path_segment(name) || name.len() > 253 {
                return Some(PATH.to_string());
            }
            // A snapshot read metadata-only has no spec: then only the
            // path-segment rule can be checked.
            let version = o.str_at(&["spec", "version"])?;
            let group = o.str_at(&["spec", "group"]).unwrap_or_default();
            let required = format!("{version}.{group}");
            (name != required).then(|| format!("must be `spec.version+\".\"+spec.group`: {required:?}"))
        }
    }
}

/// A name, a namespace and the labels as the API server validates them:
/// names by their kind's rule ([`NameRule`]: DNS-1123 subdomains for most,
/// path segments for RBAC objects, `version.group` for APIServices, ...),
/// namespaces DNS-1123 labels, label keys qualified names, label values at
/// most 63 characters of the label alphabet. Returns the field and the
/// message of the first problem.
#[must_use]
pub fn validate_identity(o: &Object) -> Option<(String, String)> {
    let name = o.name();
    if let Some(why) = name_problem(o, name) {
        return Some((
            "metadata.name".into(),
            format!("Invalid value: {}: {why}", shown(name)),
        ));
    }
    if let Some(ns) = o.namespace()
        && !is_dns_label(ns)
    {
        return Some((
            "metadata.namespace".into(),
            format!(
                "Invalid value: {}: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', start and end with an alphanumeric character, and be at most 63 characters",
                shown(ns)
            ),
        ));
    }
    for (k, v) in &o.metadata.labels {
        if !is_qualified_name(k) {
            return Some((
                format!("metadata.labels.{k}"),
                format!(
                    "Invalid value: {}: name part must consist of alphanumeric characters, '-', '_' or '.', start and end with an alphanumeric character, with an optional DNS subdomain prefix and '/'",
                    shown(k)
                ),
            ));
        }
        if !is_label_value(v) {
            return Some((
                format!("metadata.labels.{k}"),
                format!(
                    "Invalid value: {}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', start and end with an alphanumeric character, and be at most 63 characters",
                    shown(v)
                ),
            ));
        }
    }
    None
}

/// R21: finalizer names, and `orphan` with `foregroundDeletion`.
#[must_use]
pub fn validate_finalizers(finalizers: &[String]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, f) in finalizers.iter().enumerate() {
        if !is_qualified_name(f) {
            errs.push(invalid(
                &format!("metadata.finalizers[{i}]"),
                quoted(f),
                "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character, with an optional DNS subdomain prefix and '/'",
            ));
        }
    }
    let has = |n: &str| finalizers.iter().any(|f| f == n);
    if has(ORPHAN) && has(FOREGROUND) {
        errs.push(invalid(
            "metadata.finalizers",
            go_string_slice(finalizers),
            "finalizer orphan and foregroundDeletion cannot be both set",
        ));
    }
    errs
}

/// R21 (custom resources): a warning for each newly added finalizer name
/// without a domain.
#[must_use]
pub fn finalizer_warnings(old: &[String], new: &[String]) -> Vec<String> {
    new.iter()
        .filter(|f| !old.contains(f))
        .filter(|f| !f.contains('/') && !matches!(f.as_str(), "kubernetes" | ORPHAN | FOREGROUND))
        .map(|f| {
            format!(
                "metadata.finalizers: {f:?}: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"
            )
        })
        .collect()
}

/// R22: no finalizer may be added to an object that is being deleted.
#[must_use]
pub fn validate_no_new_finalizers(old: &Object, new: &[String]) -> Option<FieldError> {
    if !old.is_terminating() {
        return None;
    }
    let added: Vec<String> = new
        .iter()
        .filter(|f| !old.metadata.finalizers.contains(f))
        .cloned()
        .collect();
    if added.is_empty() {
        return None;
    }
    Some(FieldError {
        field: "metadata.finalizers".to_string(),
        kind: FieldErrorKind::Forbidden,
        detail: format!(
            "no new finalizers can be added if the object is being deleted, found new finalizers {}",
            go_string_slice(&added)
        ),
    })
}

/// R19: a live object cannot be given a deletionTimestamp by an update.
#[must_use]
pub fn deletion_timestamp_immutable(value: &str) -> FieldError {
    invalid(
        "metadata.deletionTimestamp",
        value.to_string(),
        "field is immutable",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(kind: &str, name: &str, uid: &str, controller: bool) -> OwnerReference {
        OwnerReference {
            api_version: "v1".into(),
            kind: kind.into(),
            name: name.into(),
            uid: uid.into(),
            controller: Some(controller),
            block_owner_deletion: None,
        }
    }

    #[test]
    fn two_controllers_are_named() {
        let errs = validate_owner_references(&[
            r("ConfigMap", "a", "1", true),
            r("Secret", "b", "2", true),
        ]);
        assert_eq!(errs.len(), 1);
        assert!(errs[0].to_string().ends_with(
            "Only one reference can have Controller set to true. Found \"true\" in references for ConfigMap/a and Secret/b"
        ));
    }

    #[test]
    fn qualified_names() {
        assert!(is_qualified_name("example.com/hold"));
        assert!(is_qualified_name("foregroundDeletion"));
        assert!(!is_qualified_name("bad name"));
        assert!(!is_qualified_name("Example.com/x"));
        for ok in [
            "a",
            "A_b.c-9",
            "app.kubernetes.io/name",
            "x/Y",
            &"k".repeat(63),
        ] {
            assert!(is_qualified_name(ok), "{ok}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "_a",
            "a.",
            "/a",
            "a/",
            "a..b/x",
            "-a.com/x",
            "a.com-/x",
            "a/b/c",
            "caf\u{e9}",
            &"k".repeat(64),
        ] {
            assert!(!is_qualified_name(bad), "{bad}");
        }
    }

    /// The API server's alphabets: DNS-1123 labels (namespaces) and
    /// subdomains (names), label values.
    #[test]
    fn names_namespaces_and_label_values() {
        for ok in ["a", "web-1", "0", &"a".repeat(63)] {
            assert!(is_dns_label(ok), "{ok}");
            assert!(is_dns_subdomain(ok), "{ok}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "A",
            "a_b",
            "a b",
            "\u{1b}]0;x",
            &"a".repeat(64),
        ] {
            assert!(!is_dns_label(bad), "{bad}");
        }
        assert!(!is_dns_label("a.b"));
        assert!(is_dns_subdomain("a.b-c.d"));
        assert!(is_dns_subdomain(&"a".repeat(253)));
        for bad in [
            "",
            ".a",
            "a.",
            "Child_2!",
            "a/b",
            "\u{e9}",
            &"a".repeat(254),
        ] {
            assert!(!is_dns_subdomain(bad), "{bad}");
        }
        for ok in ["", "v1", "A_b.c-9", &"v".repeat(63)] {
            assert!(is_label_value(ok), "{ok}");
        }
        for bad in ["-v", "v-", "_v", "v.", "a b", "a/b", &"v".repeat(64)] {
            assert!(!is_label_value(bad), "{bad}");
        }
    }

    fn object(yaml_json: serde_json::Value) -> Object {
        serde_json::from_value(yaml_json).expect("object")
    }

    /// Each kind's name as the API server checks it: the core group's
    /// APIService `v1.` is in every cluster and must load.
    #[test]
    fn names_are_checked_by_their_kinds_rule() {
        let ok = |v: serde_json::Value| validate_identity(&object(v));
        for good in [
            serde_json::json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1.", "uid": "u"}, "spec": {"version": "v1"}}),
            serde_json::json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1beta1.metrics.k8s.io", "uid": "u"}, "spec": {"version": "v1beta1", "group": "metrics.k8s.io"}}),
            serde_json::json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1.", "uid": "u"}}),
            serde_json::json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": "system:node:n1", "uid": "u"}}),
            serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "system:aggregate-to-edit", "uid": "u"}}),
            serde_json::json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "a", "uid": "u"}}),
        ] {
            assert_eq!(ok(good.clone()), None, "{good}");
        }
        for (bad, why) in [
            (
                serde_json::json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1.other", "uid": "u"}, "spec": {"version": "v1", "group": "metrics.k8s.io"}}),
                "must be `spec.version+\".\"+spec.group`: \"v1.metrics.k8s.io\"",
            ),
            (
                serde_json::json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "a/b", "uid": "u"}}),
                "may not be '.' or '..'",
            ),
            (
                serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "v1.", "namespace": "a", "uid": "u"}}),
                "RFC 1123 subdomain",
            ),
            (
                serde_json::json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "1web", "namespace": "a", "uid": "u"}}),
                "DNS-1035 label",
            ),
            (
                serde_json::json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a.b", "namespace": "a", "uid": "u"}}),
                "DNS-1035 label",
            ),
        ] {
            let (field, message) = ok(bad.clone()).expect("refused");
            assert_eq!(field, "metadata.name");
            assert!(message.contains(why), "{bad}: {message}");
        }
    }

    #[test]
    fn duplicates_collapse_with_warning() {
        let mut refs = vec![
            r("ConfigMap", "a", "1", false),
            r("ConfigMap", "a", "1", false),
            r("ConfigMap", "a", "1", true),
        ];
        let w = dedup_owner_references(&mut refs).expect("warning");
        assert!(w.starts_with(".metadata.ownerReferences contains duplicate entries;"));
        assert_eq!(refs.len(), 2);
        // The first of each kept, in order; each repeated uid named once.
        let mut refs = vec![
            r("ConfigMap", "a", "1", false),
            r("ConfigMap", "b", "2", false),
            r("ConfigMap", "a", "1", false),
            r("ConfigMap", "c", "3", false),
            r("ConfigMap", "b", "2", false),
            r("ConfigMap", "b", "2", false),
        ];
        let w = dedup_owner_references(&mut refs).expect("warning");
        assert!(w.ends_with("duplicate UID(s) observed: [1 2]"), "{w}");
        let names: Vec<&str> = refs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        let mut one = vec![r("ConfigMap", "a", "1", false)];
        assert_eq!(dedup_owner_references(&mut one), None);
        assert_eq!(one.len(), 1);
    }
}
