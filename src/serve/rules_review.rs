//! `POST selfsubjectrulesreviews` (`kubectl auth can-i --list`): every
//! rule of the roles bound to the asking user in a namespace, as
//! kube-apiserver 1.20's `pkg/registry/authorization/selfsubjectrulesreview`
//! lists them from RBAC's rule resolver (`RulesFor`): the ClusterRoleBindings
//! first, then the RoleBindings of the namespace; of each rule its resource
//! part and its non-resource part. The roles bound that are not there are
//! the `evaluationError`, and the answer is still not `incomplete` (RBAC
//! never says so), as the test control plane answered. The answer's
//! `spec` is empty, as the real server's is. Pure.

use serde_json::{Map, Value, json};

use super::rbac::{self, User};
use super::{Response, status};
use crate::model::Object;

const RBAC: &str = "rbac.authorization.k8s.io";

fn is_rbac(o: &Object, kind: &str) -> bool {
    o.kind == kind && o.group() == RBAC
}

/// The rules of the roles bound to `user` in `namespace`, and the roles
/// bound that are not there.
fn rules_for<'a>(
    objects: impl Iterator<Item = &'a Object> + Clone,
    user: &User,
    namespace: &str,
) -> (Vec<&'a Value>, Vec<String>) {
    let mut rules = Vec::new();
    let mut missing = Vec::new();
    let bindings = objects
        .clone()
        .filter(|o| is_rbac(o, "ClusterRoleBinding"))
        .chain(
            objects
                .clone()
                .filter(|o| is_rbac(o, "RoleBinding") && o.namespace() == Some(namespace)),
        );
    for b in bindings {
        let ns = b.namespace().unwrap_or_default();
        let subjects = b.extra().subjects.as_deref().and_then(Value::as_array);
        if !subjects.is_some_and(|s| s.iter().any(|s| rbac::applies(s, user, ns))) {
            continue;
        }
        let role_ref = rbac::role_ref(b);
        let kind = role_ref["kind"].as_str().unwrap_or_default();
        let name = role_ref["name"].as_str().unwrap_or_default();
        let role_ns = match kind {
            "ClusterRole" => None,
            "Role" => Some(ns),
            _ => {
                missing.push(format!("unsupported role reference kind: \"{kind}\""));
                continue;
            }
        };
        let role = objects
            .clone()
            .find(|o| is_rbac(o, kind) && o.name() == name && o.namespace() == role_ns);
        match role {
            Some(r) => rules.extend(
                r.extra()
                    .rules
                    .as_deref()
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten(),
            ),
            None => missing.push(format!(
                "{}.{RBAC} \"{name}\" not found",
                kind.to_lowercase()
            )),
        }
    }
    (rules, missing)
}

/// The fields of `rule` named, those that are non-empty lists.
fn part(rule: &Value, fields: &[&str]) -> Value {
    let mut m = Map::new();
    for f in fields {
        if let Some(v) = rule[*f].as_array().filter(|a| !a.is_empty()) {
            m.insert((*f).to_string(), Value::Array(v.clone()));
        }
    }
    Value::Object(m)
}

/// The answer to a SelfSubjectRulesReview from `user`: 400 without
/// `spec.namespace`, as upstream (`no namespace on request`).
#[must_use]
pub fn rules_review<'a>(
    objects: impl Iterator<Item = &'a Object> + Clone,
    user: &User,
    body: &[u8],
) -> Response {
    let review: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let namespace = review["spec"]["namespace"].as_str().unwrap_or_default();
    if namespace.is_empty() {
        return status::error(400, "no namespace on request");
    }
    let (rules, missing) = rules_for(objects, user, namespace);
    let non_empty = |r: &Value, f: &str| r[f].as_array().is_some_and(|a| !a.is_empty());
    let resource: Vec<Value> = rules
        .iter()
        .filter(|r| non_empty(r, "resources"))
        .map(|r| part(r, &["verbs", "apiGroups", "resources", "resourceNames"]))
        .collect();
    let non_resource: Vec<Value> = rules
        .iter()
        .filter(|r| non_empty(r, "nonResourceURLs"))
        .map(|r| part(r, &["verbs", "nonResourceURLs"]))
        .collect();
    // RBAC never calls its rules incomplete: the roles not found are its
    // error, aggregated (one alone, several in brackets).
    let mut status = json!({
        "resourceRules": resource,
        "nonResourceRules": non_resource,
        "incomplete": false,
    });
    match missing.as_slice() {
        [] => {}
        [one] => status["evaluationError"] = json!(one),
        many => status["evaluationError"] = json!(format!("[{}]", many.join(", "))),
    }
    Response::json(
        201,
        &json!({
            "kind": "SelfSubjectRulesReview",
            "apiVersion": "authorization.k8s.io/v1",
            "metadata": {"creationTimestamp": null},
            "spec": {},
            "status": status,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn objects() -> Vec<Object> {
        let rbac = |v: Value| -> Object { serde_json::from_value(v).expect("object") };
        vec![
            rbac(
                json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": "basic"},
                "rules": [{"apiGroups": ["authorization.k8s.io"], "resources": ["selfsubjectrulesreviews"], "verbs": ["create"]},
                          {"nonResourceURLs": ["/api", "/api/*"], "verbs": ["get"]}]}),
            ),
            rbac(
                json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                "metadata": {"name": "basic"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "basic"},
                "subjects": [{"kind": "Group", "name": "system:authenticated"}]}),
            ),
            rbac(
                json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                "metadata": {"name": "r1", "namespace": "shop"},
                "rules": [{"apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"], "verbs": ["get", "list"]}]}),
            ),
            rbac(
                json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                "metadata": {"name": "r1", "namespace": "shop"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r1"},
                "subjects": [{"kind": "User", "name": "restricted"}]}),
            ),
            rbac(
                json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                "metadata": {"name": "ghost", "namespace": "shop"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "ghost-role"},
                "subjects": [{"kind": "User", "name": "restricted"}]}),
            ),
        ]
    }

    /// What the 1.20 test control plane answered the same user with the
    /// same bindings (its bootstrap roles aside): the rules split in
    /// resource and non-resource parts, the roles not found an
    /// evaluation error, `incomplete` still false, `spec` empty.
    #[test]
    fn the_rules_of_a_namespace_are_listed_as_the_api_server_lists_them() {
        let objects = objects();
        let user = User::authenticated("restricted", &[]);
        let body = br#"{"spec": {"namespace": "shop"}}"#;
        let r = rules_review(objects.iter(), &user, body);
        assert_eq!(r.code, 201);
        assert_eq!(
            r.value(),
            json!({"kind": "SelfSubjectRulesReview", "apiVersion": "authorization.k8s.io/v1",
            "metadata": {"creationTimestamp": null}, "spec": {},
            "status": {
                "resourceRules": [
                    {"verbs": ["create"], "apiGroups": ["authorization.k8s.io"], "resources": ["selfsubjectrulesreviews"]},
                    {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]},
                ],
                "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/api", "/api/*"]}],
                "incomplete": false,
                "evaluationError": "clusterrole.rbac.authorization.k8s.io \"ghost-role\" not found",
            }})
        );
        // Another namespace: the cluster-wide rules only.
        let r = rules_review(objects.iter(), &user, br#"{"spec": {"namespace": "x"}}"#).value();
        assert_eq!(
            r["status"]["resourceRules"].as_array().map(Vec::len),
            Some(1)
        );
        assert!(r["status"].get("evaluationError").is_none());
        let r = rules_review(objects.iter(), &user, br#"{"spec": {}}"#);
        assert_eq!(
            (r.code, r.value()["message"].as_str()),
            (400, Some("no namespace on request"))
        );
        assert_eq!(rules_review(objects.iter(), &user, b"not json").code, 400);
    }
}
