//! Authorization as kube-apiserver does it with `--authorization-mode=RBAC`:
//! members of `system:masters` may do anything; everyone else what the
//! Roles and ClusterRoles bound to them in the store allow (upstream
//! `plugin/pkg/auth/authorizer/rbac`: `RuleAllows`, the binding visitor,
//! its `RBAC: allowed by ...` reasons). Pure: the policy objects come in.

use serde_json::Value;

use crate::model::Object;

/// A binding's `roleRef` (null when it has none), borrowed.
pub(super) fn role_ref(binding: &Object) -> &Value {
    static NONE: Value = Value::Null;
    binding.extra().role_ref.as_deref().unwrap_or(&NONE)
}

/// The group whose members bypass RBAC.
pub const MASTERS: &str = "system:masters";
/// Every authenticated user's group.
pub const AUTHENTICATED: &str = "system:authenticated";
/// Who a request without credentials is, and its only group.
pub const ANONYMOUS: &str = "system:anonymous";
pub const UNAUTHENTICATED: &str = "system:unauthenticated";
const RBAC: &str = "rbac.authorization.k8s.io";

/// Who is asking.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct User {
    pub name: String,
    pub groups: Vec<String>,
}

impl User {
    /// `name` with `groups` and `system:authenticated`.
    #[must_use]
    pub fn authenticated(name: &str, groups: &[&str]) -> User {
        let mut groups: Vec<String> = groups.iter().map(|g| (*g).to_string()).collect();
        if !groups.iter().any(|g| g == AUTHENTICATED) {
            groups.push(AUTHENTICATED.to_string());
        }
        User {
            name: name.to_string(),
            groups,
        }
    }
}

/// What is asked, as upstream's `authorizer.Attributes`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attributes {
    pub verb: String,
    /// A resource request (else a non-resource path).
    pub resource_request: bool,
    pub group: String,
    pub resource: String,
    pub subresource: String,
    pub namespace: String,
    pub name: String,
    /// For a non-resource request.
    pub path: String,
}

impl Attributes {
    /// A resource request.
    #[must_use]
    pub fn resource(verb: &str, group: &str, resource: &str, namespace: &str, name: &str) -> Self {
        Attributes {
            verb: verb.to_string(),
            resource_request: true,
            group: group.to_string(),
            resource: resource.to_string(),
            namespace: namespace.to_string(),
            name: name.to_string(),
            ..Attributes::default()
        }
    }

    /// A request for a path outside the resources (`/version`, `/apis`).
    #[must_use]
    pub fn non_resource(verb: &str, path: &str) -> Self {
        Attributes {
            verb: verb.to_string(),
            path: path.to_string(),
            ..Attributes::default()
        }
    }
}

/// The answer, with upstream's reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    /// `RBAC: allowed by ...`; on a denial, roles a binding names that do
    /// not exist (`RBAC: clusterrole.rbac.authorization.k8s.io "x" not
    /// found`), else empty.
    pub reason: String,
}

/// One rule of a role, as the API has it.
fn strings(rule: &Value, field: &str) -> Vec<String> {
    rule[field]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn matches_any(list: &[String], want: &str) -> bool {
    list.iter().any(|x| x == "*" || x == want)
}

/// Upstream `RuleAllows`.
#[must_use]
pub fn rule_allows(rule: &Value, a: &Attributes) -> bool {
    if !matches_any(&strings(rule, "verbs"), &a.verb) {
        return false;
    }
    if !a.resource_request {
        return strings(rule, "nonResourceURLs").iter().any(|u| {
            u == "*" || *u == a.path || u.strip_suffix('*').is_some_and(|p| a.path.starts_with(p))
        });
    }
    let combined = if a.subresource.is_empty() {
        a.resource.clone()
    } else {
        format!("{}/{}", a.resource, a.subresource)
    };
    let resources = strings(rule, "resources");
    let resource_ok = resources.iter().any(|r| {
        r == "*"
            || *r == combined
            || (!a.subresource.is_empty() && *r == format!("*/{}", a.subresource))
    });
    let names = strings(rule, "resourceNames");
    matches_any(&strings(rule, "apiGroups"), &a.group)
        && resource_ok
        && (names.is_empty() || names.contains(&a.name))
}

/// A subject of a binding names `user` (upstream `appliesToUser`).
pub(super) fn applies(subject: &Value, user: &User, binding_ns: &str) -> bool {
    let name = subject["name"].as_str().unwrap_or_default();
    match subject["kind"].as_str().unwrap_or_default() {
        "User" => user.name == name,
        "Group" => user.groups.iter().any(|g| g == name),
        "ServiceAccount" => {
            let ns = subject["namespace"]
                .as_str()
                .filter(|n| !n.is_empty())
                .unwrap_or(binding_ns);
            user.name == format!("system:serviceaccount:{ns}:{name}")
        }
        _ => false,
    }
}

/// Upstream `describeSubject`.
fn describe_subject(subject: &Value, binding_ns: &str) -> String {
    let kind = subject["kind"].as_str().unwrap_or_default();
    let name = subject["name"].as_str().unwrap_or_default();
    if kind == "ServiceAccount" {
        let ns = subject["namespace"]
            .as_str()
            .filter(|n| !n.is_empty())
            .unwrap_or(binding_ns);
        return format!("{kind} \"{name}/{ns}\"");
    }
    format!("{kind} \"{name}\"")
}

fn is_rbac(o: &Object, kind: &str) -> bool {
    o.kind == kind && o.group() == RBAC
}

/// The kinds the policy is made of.
pub const KINDS: [(&str, &str); 4] = [
    (RBAC, "ClusterRole"),
    (RBAC, "ClusterRoleBinding"),
    (RBAC, "Role"),
    (RBAC, "RoleBinding"),
];

/// The policy objects among `objects` (what [`authorize`] reads), to
/// decide several questions on one pass over the store.
#[must_use]
pub fn policy<'a>(objects: impl Iterator<Item = &'a Object>) -> Vec<&'a Object> {
    objects.filter(|o| o.group() == RBAC).collect()
}

/// Decides `a` for `user` from the policy among `objects`.
#[must_use]
pub fn authorize<'a>(
    objects: impl Iterator<Item = &'a Object> + Clone,
    user: &User,
    a: &Attributes,
) -> Decision {
    if user.groups.iter().any(|g| g == MASTERS) {
        return Decision {
            allowed: true,
            reason: String::new(),
        };
    }
    let mut missing: Vec<String> = Vec::new();
    let role = |kind: &str, ns: Option<&str>, name: &str| -> Option<&'a Object> {
        objects
            .clone()
            .find(|o| is_rbac(o, kind) && o.name() == name && o.namespace() == ns)
    };
    // ClusterRoleBindings first, then the RoleBindings of the namespace.
    let bindings = objects.clone().filter(|o| {
        is_rbac(o, "ClusterRoleBinding")
            || (!a.namespace.is_empty()
                && is_rbac(o, "RoleBinding")
                && o.namespace() == Some(a.namespace.as_str()))
    });
    for b in bindings {
        let ns = b.namespace().unwrap_or_default();
        let Some(subjects) = b.extra().subjects.as_deref().and_then(Value::as_array) else {
            continue;
        };
        let Some(subject) = subjects.iter().find(|s| applies(s, user, ns)) else {
            continue;
        };
        let role_ref = role_ref(b);
        let role_kind = role_ref["kind"].as_str().unwrap_or_default();
        let role_name = role_ref["name"].as_str().unwrap_or_default();
        let found = match role_kind {
            "ClusterRole" => role("ClusterRole", None, role_name),
            "Role" if !ns.is_empty() => role("Role", Some(ns), role_name),
            _ => None,
        };
        let Some(found) = found else {
            missing.push(format!(
                "{}.{RBAC} \"{role_name}\" not found",
                role_kind.to_lowercase()
            ));
            continue;
        };
        let rules = found.extra().rules.as_deref().and_then(Value::as_array);
        if rules.is_some_and(|rs| rs.iter().any(|r| rule_allows(r, a))) {
            let binding = if b.kind == "RoleBinding" {
                format!("RoleBinding \"{}/{ns}\"", b.name())
            } else {
                format!("ClusterRoleBinding \"{}\"", b.name())
            };
            return Decision {
                allowed: true,
                reason: format!(
                    "RBAC: allowed by {binding} of {role_kind} \"{role_name}\" to {}",
                    describe_subject(subject, ns)
                ),
            };
        }
    }
    Decision {
        allowed: false,
        reason: if missing.is_empty() {
            String::new()
        } else {
            format!("RBAC: [{}]", missing.join(", "))
        },
    }
}

/// Upstream `forbiddenMessage`: `User "u" cannot list resource "pods" in
/// API group "" in the namespace "x"`.
#[must_use]
pub fn forbidden_message(user: &str, a: &Attributes) -> String {
    if !a.resource_request {
        return format!("User \"{user}\" cannot {} path \"{}\"", a.verb, a.path);
    }
    let resource = if a.subresource.is_empty() {
        a.resource.clone()
    } else {
        format!("{}/{}", a.resource, a.subresource)
    };
    let scope = if a.namespace.is_empty() {
        "at the cluster scope".to_string()
    } else {
        format!("in the namespace \"{}\"", a.namespace)
    };
    format!(
        "User \"{user}\" cannot {} resource \"{resource}\" in API group \"{}\" {scope}",
        a.verb, a.group
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Object {
        serde_json::from_value(v).expect("object")
    }

    fn role(kind: &str, ns: Option<&str>, name: &str, rules: Value) -> Object {
        obj(json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind,
            "metadata": {"name": name, "namespace": ns}, "rules": rules,
        }))
    }

    fn binding(
        kind: &str,
        ns: Option<&str>,
        name: &str,
        role: (&str, &str),
        subjects: Value,
    ) -> Object {
        obj(json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind,
            "metadata": {"name": name, "namespace": ns},
            "roleRef": {"apiGroup": RBAC, "kind": role.0, "name": role.1},
            "subjects": subjects,
        }))
    }

    fn restricted() -> User {
        User::authenticated("restricted", &["ownerscope-restricted"])
    }

    fn list_cm(ns: &str) -> Attributes {
        Attributes::resource("list", "", "configmaps", ns, "")
    }

    #[test]
    fn masters_may_do_anything_and_no_binding_allows_nothing() {
        let admin = User::authenticated("admin", &[MASTERS]);
        let d = authorize([].iter(), &admin, &list_cm("x"));
        assert!(d.allowed);
        let d = authorize([].iter(), &restricted(), &list_cm("x"));
        assert_eq!(
            d,
            Decision {
                allowed: false,
                reason: String::new()
            }
        );
        assert_eq!(
            forbidden_message("restricted", &list_cm("x")),
            "User \"restricted\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"x\""
        );
    }

    #[test]
    fn a_role_binding_allows_in_its_namespace_only() {
        let objects = [
            role(
                "Role",
                Some("x"),
                "cm-reader",
                json!([{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]}]),
            ),
            binding(
                "RoleBinding",
                Some("x"),
                "cm-reader",
                ("Role", "cm-reader"),
                json!([{"kind": "User", "name": "restricted", "apiGroup": RBAC}]),
            ),
        ];
        let d = authorize(objects.iter(), &restricted(), &list_cm("x"));
        assert!(d.allowed);
        assert_eq!(
            d.reason,
            "RBAC: allowed by RoleBinding \"cm-reader/x\" of Role \"cm-reader\" to User \"restricted\""
        );
        assert!(!authorize(objects.iter(), &restricted(), &list_cm("y")).allowed);
        assert!(!authorize(objects.iter(), &restricted(), &list_cm("")).allowed);
        let del = Attributes::resource("delete", "", "configmaps", "x", "a");
        assert!(!authorize(objects.iter(), &restricted(), &del).allowed);
        // Another user, and the same user's pods, are not covered.
        let other = User::authenticated("other", &[]);
        assert!(!authorize(objects.iter(), &other, &list_cm("x")).allowed);
        let pods = Attributes::resource("list", "", "pods", "x", "");
        assert!(!authorize(objects.iter(), &restricted(), &pods).allowed);
    }

    #[test]
    fn cluster_roles_groups_names_subresources_and_paths() {
        let objects = [
            role(
                "ClusterRole",
                None,
                "reader",
                json!([
                    {"apiGroups": ["apps"], "resources": ["deployments", "*/scale"], "verbs": ["get"]},
                    {"apiGroups": ["*"], "resources": ["secrets"], "resourceNames": ["one"], "verbs": ["*"]},
                    {"nonResourceURLs": ["/version", "/apis/*"], "verbs": ["get"]},
                ]),
            ),
            binding(
                "ClusterRoleBinding",
                None,
                "readers",
                ("ClusterRole", "reader"),
                json!([{"kind": "Group", "name": "ownerscope-restricted"}]),
            ),
        ];
        let u = restricted();
        let ok = |a: &Attributes| authorize(objects.iter(), &u, a).allowed;
        assert!(ok(&Attributes::resource(
            "get",
            "apps",
            "deployments",
            "x",
            "w"
        )));
        assert!(!ok(&Attributes::resource(
            "get",
            "",
            "deployments",
            "x",
            "w"
        )));
        let mut scale = Attributes::resource("get", "apps", "replicasets", "x", "w");
        scale.subresource = "scale".into();
        assert!(ok(&scale));
        let mut status = Attributes::resource("get", "apps", "deployments", "x", "w");
        status.subresource = "status".into();
        assert!(!ok(&status), "a resource does not cover its subresources");
        assert!(ok(&Attributes::resource(
            "delete", "", "secrets", "x", "one"
        )));
        assert!(!ok(&Attributes::resource(
            "delete", "", "secrets", "x", "two"
        )));
        assert!(
            !ok(&Attributes::resource("list", "", "secrets", "x", "")),
            "resourceNames never allow a list"
        );
        assert!(ok(&Attributes::non_resource("get", "/version")));
        assert!(ok(&Attributes::non_resource("get", "/apis/apps/v1")));
        assert!(!ok(&Attributes::non_resource("get", "/api")));
        assert!(!ok(&Attributes::non_resource("post", "/version")));
        assert_eq!(
            forbidden_message("restricted", &Attributes::non_resource("get", "/api")),
            "User \"restricted\" cannot get path \"/api\""
        );
        assert_eq!(
            forbidden_message(
                "restricted",
                &Attributes::resource("delete", "", "namespaces", "", "x")
            ),
            "User \"restricted\" cannot delete resource \"namespaces\" in API group \"\" at the cluster scope"
        );
    }

    #[test]
    fn a_missing_role_is_the_reason_and_service_accounts_match_by_name() {
        let objects = [
            binding(
                "RoleBinding",
                Some("x"),
                "dangling",
                ("ClusterRole", "nope"),
                json!([{"kind": "User", "name": "restricted"}]),
            ),
            role(
                "ClusterRole",
                None,
                "cm",
                json!([{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["list"]}]),
            ),
            binding(
                "RoleBinding",
                Some("x"),
                "sa",
                ("ClusterRole", "cm"),
                json!([{"kind": "ServiceAccount", "name": "builder"}]),
            ),
        ];
        let d = authorize(objects.iter(), &restricted(), &list_cm("x"));
        assert!(!d.allowed);
        assert_eq!(
            d.reason,
            "RBAC: [clusterrole.rbac.authorization.k8s.io \"nope\" not found]"
        );
        let sa = User::authenticated("system:serviceaccount:x:builder", &[]);
        let d = authorize(objects.iter(), &sa, &list_cm("x"));
        assert_eq!(
            d.reason,
            "RBAC: allowed by RoleBinding \"sa/x\" of ClusterRole \"cm\" to ServiceAccount \"builder/x\""
        );
    }
}
