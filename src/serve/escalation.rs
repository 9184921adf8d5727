//! RBAC escalation prevention, as kube-apiserver's RBAC storage does it
//! (upstream `pkg/registry/rbac/escalation_check.go`, the `policybased`
//! storages of the four RBAC kinds, and `pkg/registry/rbac/validation`:
//! `ConfirmNoEscalation`, `Covers`, `CompactRules`).
//!
//! A Role or ClusterRole is written only by a member of `system:masters`,
//! by a user allowed to `escalate` roles, or by a user who already holds
//! every permission it grants. A binding is written only by a master, by a
//! user allowed to `bind` the role it names, or by a user who already
//! holds every permission of that role. A write that changes nothing but
//! owner references and finalizers (the garbage collector's) is never
//! refused. Pure: the policy objects come in.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::Response;
use super::rbac::{self, Attributes, MASTERS, User};
use super::status::object_error;
use crate::model::Object;

const RBAC: &str = "rbac.authorization.k8s.io";

/// One policy rule, as its lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rule {
    pub groups: Vec<String>,
    pub resources: Vec<String>,
    pub names: Vec<String>,
    pub urls: Vec<String>,
    pub verbs: Vec<String>,
}

fn strings(v: &Value, field: &str) -> Vec<String> {
    v[field]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

impl Rule {
    /// A rule as the API has it (`apiGroups`, `resources`, ...).
    #[must_use]
    pub fn from_value(v: &Value) -> Rule {
        Rule {
            groups: strings(v, "apiGroups"),
            resources: strings(v, "resources"),
            names: strings(v, "resourceNames"),
            urls: strings(v, "nonResourceURLs"),
            verbs: strings(v, "verbs"),
        }
    }

    /// Upstream `PolicyRule.CompactString`:
    /// `{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`.
    #[must_use]
    pub fn compact_string(&self) -> String {
        let parts: Vec<String> = [
            ("APIGroups", &self.groups),
            ("Resources", &self.resources),
            ("NonResourceURLs", &self.urls),
            ("ResourceNames", &self.names),
            ("Verbs", &self.verbs),
        ]
        .iter()
        .filter(|(_, l)| !l.is_empty())
        .map(|(n, l)| format!("{n}:{}", go_quoted_list(l)))
        .collect();
        format!("{{{}}}", parts.join(", "))
    }
}

/// Unicode's format characters (`Cf`: zero-width, bidi controls, ...),
/// which Go's `strconv.IsPrint` does not print.
fn is_format(c: char) -> bool {
    matches!(u32::from(c),
        0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x8E2 | 0x180E | 0x200B..=0x200F
        | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB
        | 0x110BD | 0x110CD | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A | 0xE0001 | 0xE0020..=0xE007F)
}

/// Go's `%q` of one string (`strconv.Quote`): what is not printable is
/// escaped, so that no control, bidi or zero-width character reaches a
/// terminal.
#[must_use]
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if u32::from(c) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", u32::from(c)));
            }
            c if c.is_control() || is_format(c) || (c.is_whitespace() && c != ' ') => {
                let n = u32::from(c);
                if n < 0x10000 {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `%q` of a `[]string`: `["a" "b"]`.
fn go_quoted_list(l: &[String]) -> String {
    let inner: Vec<String> = l.iter().map(|s| go_quote(s)).collect();
    format!("[{}]", inner.join(" "))
}

/// Upstream `breakdownRule`: one rule per group, resource, verb and
/// resource name; one per URL and verb.
fn breakdown(rule: &Rule) -> Vec<Rule> {
    let mut out = Vec::new();
    for g in &rule.groups {
        for r in &rule.resources {
            for v in &rule.verbs {
                let one = |names: Vec<String>| Rule {
                    groups: vec![g.clone()],
                    resources: vec![r.clone()],
                    verbs: vec![v.clone()],
                    names,
                    urls: Vec::new(),
                };
                if rule.names.is_empty() {
                    out.push(one(Vec::new()));
                } else {
                    out.extend(rule.names.iter().map(|n| one(vec![n.clone()])));
                }
            }
        }
    }
    for u in &rule.urls {
        for v in &rule.verbs {
            out.push(Rule {
                urls: vec![u.clone()],
                verbs: vec![v.clone()],
                ..Rule::default()
            });
        }
    }
    out
}

fn has(set: &[String], x: &str) -> bool {
    set.iter().any(|s| s == x)
}

fn has_all(set: &[String], want: &[String]) -> bool {
    want.iter().all(|w| has(set, w))
}

/// Upstream `nonResourceURLCovers`.
fn url_covers(owner: &str, sub: &str) -> bool {
    owner == sub || (owner.ends_with('*') && sub.starts_with(owner.trim_end_matches('*')))
}

/// Upstream `ruleCovers`: the owner rule allows all the one-item `sub`.
fn rule_covers(owner: &Rule, sub: &Rule) -> bool {
    let verbs = has(&owner.verbs, "*") || has_all(&owner.verbs, &sub.verbs);
    let groups = has(&owner.groups, "*") || has_all(&owner.groups, &sub.groups);
    let resources = has(&owner.resources, "*") || has_all(&owner.resources, &sub.resources);
    let urls = sub
        .urls
        .iter()
        .all(|u| owner.urls.iter().any(|o| url_covers(o, u)));
    let names = if sub.names.is_empty() {
        owner.names.is_empty()
    } else {
        owner.names.is_empty() || has_all(&owner.names, &sub.names)
    };
    verbs && groups && resources && urls && names
}

/// Upstream `Covers`: the parts of `servant` no rule of `owner` allows.
#[must_use]
pub fn uncovered(owner: &[Rule], servant: &[Rule]) -> Vec<Rule> {
    servant
        .iter()
        .flat_map(breakdown)
        .filter(|sub| !owner.iter().any(|o| rule_covers(o, sub)))
        .collect()
}

/// Upstream `CompactRules`: rules of one group and one resource with
/// nothing else merge their verbs.
#[must_use]
pub fn compact(rules: Vec<Rule>) -> Vec<Rule> {
    let mut out = Vec::new();
    let mut simple: BTreeMap<(String, String), Rule> = BTreeMap::new();
    for r in rules {
        let is_simple = r.names.is_empty()
            && r.urls.is_empty()
            && r.groups.len() == 1
            && r.resources.len() == 1;
        if !is_simple {
            out.push(r);
            continue;
        }
        let key = (r.groups[0].clone(), r.resources[0].clone());
        match simple.get_mut(&key) {
            Some(existing) => existing.verbs.extend(r.verbs),
            None => {
                simple.insert(key, r);
            }
        }
    }
    out.extend(simple.into_values());
    out
}

fn is_rbac(o: &Object, kind: &str) -> bool {
    o.kind == kind && o.group() == RBAC
}

fn rules_of(o: &Object) -> Vec<Rule> {
    o.extra()
        .rules
        .as_deref()
        .and_then(Value::as_array)
        .map(|a| a.iter().map(Rule::from_value).collect())
        .unwrap_or_default()
}

/// The role a `roleRef` names, seen from a binding in `binding_ns`
/// (upstream `GetRoleReferenceRules`).
///
/// # Errors
/// The 404 of the role, as upstream answers it.
fn referenced_rules(
    policy: &[&Object],
    role_ref: &Value,
    binding_ns: &str,
) -> Result<Vec<Rule>, Response> {
    let kind = role_ref["kind"].as_str().unwrap_or_default();
    let name = role_ref["name"].as_str().unwrap_or_default();
    let (plural, ns) = match kind {
        "ClusterRole" => ("clusterroles", None),
        "Role" => ("roles", Some(binding_ns)),
        _ => {
            return Err(super::status::error(
                403,
                &format!("unsupported role reference kind: {kind:?}"),
            ));
        }
    };
    policy
        .iter()
        .find(|o| is_rbac(o, kind) && o.name() == name && o.namespace() == ns)
        .map(|o| rules_of(o))
        .ok_or_else(|| {
            object_error(
                404,
                &format!("{plural}.{RBAC} \"{name}\" not found"),
                name,
                RBAC,
                plural,
            )
        })
}

/// Upstream `RulesFor`: every rule `user` holds in `namespace` (the
/// cluster's, and the namespace's when there is one).
#[must_use]
pub fn rules_for(policy: &[&Object], user: &User, namespace: &str) -> Vec<Rule> {
    let mut out = Vec::new();
    for b in policy {
        let ns = b.namespace().unwrap_or_default();
        let counts = is_rbac(b, "ClusterRoleBinding")
            || (!namespace.is_empty() && is_rbac(b, "RoleBinding") && ns == namespace);
        if !counts {
            continue;
        }
        let subjects = b.extra().subjects.as_deref().and_then(Value::as_array);
        if !subjects.is_some_and(|s| s.iter().any(|s| rbac::applies(s, user, ns))) {
            continue;
        }
        let role_ref = rbac::role_ref(b);
        if let Ok(rules) = referenced_rules(policy, role_ref, ns) {
            out.extend(rules);
        }
    }
    out
}

/// Upstream `ConfirmNoEscalation`: the message when `user` does not hold
/// all of `rules` in `namespace`.
fn confirm_no_escalation(
    policy: &[&Object],
    user: &User,
    namespace: &str,
    rules: &[Rule],
) -> Result<(), String> {
    let missing = uncovered(&rules_for(policy, user, namespace), rules);
    if missing.is_empty() {
        return Ok(());
    }
    let lines: BTreeSet<String> = compact(missing).iter().map(Rule::compact_string).collect();
    Err(format!(
        "user {} (groups={}) is attempting to grant RBAC permissions not currently held:\n{}",
        go_quote(&user.name),
        go_quoted_list(&user.groups),
        lines.into_iter().collect::<Vec<_>>().join("\n")
    ))
}

/// What a write of an RBAC object is: the new object as sent, the stored
/// one it replaces (an update), and the request's namespace and name (the
/// URL's: empty for a create).
pub struct Write<'a> {
    pub new: &'a Value,
    pub old: Option<&'a Object>,
    pub namespace: &'a str,
    pub url_name: &'a str,
}

/// Upstream `IsOnlyMutatingGCFields`: the write changes nothing but owner
/// references and finalizers.
fn only_gc_fields(new: &Value, old: &Object) -> bool {
    let mut before = super::read::object_value(old);
    let mut after = new.clone();
    for v in [&mut before, &mut after] {
        if let Some(m) = v.get_mut("metadata").and_then(Value::as_object_mut) {
            for f in [
                "ownerReferences",
                "finalizers",
                "resourceVersion",
                "managedFields",
                "generation",
                "uid",
                "creationTimestamp",
            ] {
                m.remove(f);
            }
            m.retain(|_, v| !v.is_null() && *v != Value::Object(serde_json::Map::new()));
        }
        if let Some(m) = v.as_object_mut() {
            m.retain(|_, v| !v.is_null());
        }
    }
    before == after
}

fn forbidden(plural: &str, name: &str, why: &str) -> Response {
    object_error(
        403,
        &format!("{plural}.{RBAC} \"{name}\" is forbidden: {why}"),
        name,
        RBAC,
        plural,
    )
}

/// Whether `user` may write `w` of `kind` (one of the four RBAC kinds;
/// anything else passes), as kube-apiserver's RBAC storage decides.
///
/// # Errors
/// The 403 (or the 404 of a binding's missing role) upstream answers.
pub fn check(policy: &[&Object], user: &User, kind: &str, w: &Write) -> Result<(), Response> {
    let plural = match kind {
        "Role" => "roles",
        "ClusterRole" => "clusterroles",
        "RoleBinding" => "rolebindings",
        "ClusterRoleBinding" => "clusterrolebindings",
        _ => return Ok(()),
    };
    // Upstream `EscalationAllowed`: the loopback's privileged group.
    if user.groups.iter().any(|g| g == MASTERS) {
        return Ok(());
    }
    if w.old.is_some_and(|old| only_gc_fields(w.new, old)) {
        return Ok(());
    }
    let name = w.new["metadata"]["name"].as_str().unwrap_or(w.url_name);
    let allowed = |a: &Attributes| rbac::authorize(policy.iter().copied(), user, a).allowed;
    match kind {
        "Role" | "ClusterRole" => {
            // Upstream `RoleEscalationAuthorized`: the request's own name
            // (none on a create).
            let a = Attributes::resource("escalate", RBAC, plural, w.namespace, w.url_name);
            if allowed(&a) {
                return Ok(());
            }
            let rules: Vec<Rule> = w.new["rules"]
                .as_array()
                .map(|a| a.iter().map(Rule::from_value).collect())
                .unwrap_or_default();
            // Gathering rules by aggregation can gather anything: it takes
            // `*` on everything.
            if kind == "ClusterRole" && w.new["aggregationRule"].is_object() {
                let full = [
                    Rule {
                        groups: vec!["*".into()],
                        resources: vec!["*".into()],
                        verbs: vec!["*".into()],
                        ..Rule::default()
                    },
                    Rule {
                        urls: vec!["*".into()],
                        verbs: vec!["*".into()],
                        ..Rule::default()
                    },
                ];
                if confirm_no_escalation(policy, user, w.namespace, &full).is_err() {
                    return Err(forbidden(
                        plural,
                        name,
                        "must have cluster-admin privileges to use the aggregationRule",
                    ));
                }
            }
            confirm_no_escalation(policy, user, w.namespace, &rules)
                .map_err(|why| forbidden(plural, name, &why))
        }
        _ => {
            let role_ref = &w.new["roleRef"];
            // Upstream `BindingAuthorized`: `bind` on the role, in the
            // binding's namespace (none for a ClusterRoleBinding).
            let resource = match role_ref["kind"].as_str() {
                Some("ClusterRole") => "clusterroles",
                Some("Role") => "roles",
                _ => "",
            };
            if !resource.is_empty() {
                let a = Attributes::resource(
                    "bind",
                    role_ref["apiGroup"].as_str().unwrap_or_default(),
                    resource,
                    w.namespace,
                    role_ref["name"].as_str().unwrap_or_default(),
                );
                if allowed(&a) {
                    return Ok(());
                }
            }
            let rules = referenced_rules(policy, role_ref, w.namespace)?;
            confirm_no_escalation(policy, user, w.namespace, &rules)
                .map_err(|why| forbidden(plural, name, &why))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(v: &Value) -> Vec<Rule> {
        v.as_array()
            .map(|a| a.iter().map(Rule::from_value).collect())
            .unwrap_or_default()
    }

    /// The owner's rules and the role of the issue's example, and the
    /// lines kube-apiserver 1.20 answered for them (sent to the test
    /// control plane as `esc-user`).
    #[test]
    fn the_missing_rules_read_as_kube_apiservers() {
        let owner = rules(&json!([
            {"apiGroups": ["rbac.authorization.k8s.io"],
             "resources": ["clusterrolebindings", "clusterroles", "roles", "rolebindings"],
             "verbs": ["create", "update", "patch", "get"]},
            {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]},
        ]));
        let wanted = rules(&json!([
            {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
            {"apiGroups": ["", "apps"], "resources": ["secrets", "pods", "configmaps"],
             "verbs": ["get", "list", "delete"]},
            {"nonResourceURLs": ["/metrics", "/x/*"], "verbs": ["get"]},
            {"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["a", "b"], "verbs": ["get"]},
        ]));
        let lines: BTreeSet<String> = compact(uncovered(&owner, &wanted))
            .iter()
            .map(Rule::compact_string)
            .collect();
        let lines: Vec<String> = lines.into_iter().collect();
        assert_eq!(
            lines,
            [
                r#"{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}"#,
                r#"{APIGroups:[""], Resources:["pods"], Verbs:["get" "list" "delete"]}"#,
                r#"{APIGroups:[""], Resources:["secrets"], ResourceNames:["a"], Verbs:["get"]}"#,
                r#"{APIGroups:[""], Resources:["secrets"], ResourceNames:["b"], Verbs:["get"]}"#,
                r#"{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "delete"]}"#,
                r#"{APIGroups:["*"], Resources:["*"], Verbs:["*"]}"#,
                r#"{APIGroups:["apps"], Resources:["configmaps"], Verbs:["get" "list" "delete"]}"#,
                r#"{APIGroups:["apps"], Resources:["pods"], Verbs:["get" "list" "delete"]}"#,
                r#"{APIGroups:["apps"], Resources:["secrets"], Verbs:["get" "list" "delete"]}"#,
                r#"{NonResourceURLs:["/metrics"], Verbs:["get"]}"#,
                r#"{NonResourceURLs:["/x/*"], Verbs:["get"]}"#,
            ]
        );
    }

    #[test]
    fn wildcards_names_and_url_prefixes_cover_as_upstream() {
        let star = rules(&json!([
            {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
            {"nonResourceURLs": ["*"], "verbs": ["*"]},
        ]));
        let anything = rules(&json!([
            {"apiGroups": ["apps"], "resources": ["deployments"], "resourceNames": ["x"], "verbs": ["escalate"]},
            {"nonResourceURLs": ["/healthz/ping"], "verbs": ["get"]},
            {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
        ]));
        assert!(uncovered(&star, &anything).is_empty());
        let named = rules(&json!([
            {"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["a"], "verbs": ["get"]},
            {"nonResourceURLs": ["/healthz/*"], "verbs": ["get"]},
        ]));
        let ask = |v: Value| uncovered(&named, &rules(&v)).len();
        assert_eq!(
            ask(
                json!([{"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["a"], "verbs": ["get"]}])
            ),
            0
        );
        assert_eq!(
            ask(json!([{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}])),
            1,
            "a name does not cover all names"
        );
        assert_eq!(
            ask(json!([{"nonResourceURLs": ["/healthz/etcd"], "verbs": ["get"]}])),
            0
        );
        assert_eq!(
            ask(json!([{"nonResourceURLs": ["/healthz"], "verbs": ["get"]}])),
            1
        );
        assert_eq!(go_quote("a\"b\u{1b}"), "\"a\\\"b\\x1b\"");
    }
}
