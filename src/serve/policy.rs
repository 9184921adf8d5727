//! The RBAC policy an API server creates at start (upstream
//! `plugin/pkg/auth/authorizer/rbac/bootstrappolicy`), as far as the
//! simulator's users need it: `cluster-admin` bound to `system:masters`;
//! discovery, the public health paths and SelfSubjectAccessReview for every
//! authenticated user; and the user-facing `admin`, `edit` and `view`
//! roles for RoleBindings to name. Upstream fills those three by
//! aggregation (a controller the simulator does not run): here they carry
//! their rules directly, over the kinds the simulator serves.

use serde_json::{Value, json};

use crate::model::Object;

const READ: [&str; 3] = ["get", "list", "watch"];
const WRITE: [&str; 5] = ["create", "update", "patch", "delete", "deletecollection"];
/// The groups and resources `view` reads (upstream leaves out secrets).
const VIEWED: [(&str, &[&str]); 6] = [
    (
        "",
        &[
            "configmaps",
            "endpoints",
            "events",
            "namespaces",
            "persistentvolumeclaims",
            "pods",
            "replicationcontrollers",
            "serviceaccounts",
            "services",
        ],
    ),
    (
        "apps",
        &["daemonsets", "deployments", "replicasets", "statefulsets"],
    ),
    ("batch", &["cronjobs", "jobs"]),
    ("policy", &["poddisruptionbudgets"]),
    ("autoscaling", &["horizontalpodautoscalers"]),
    ("networking.k8s.io", &["ingresses", "networkpolicies"]),
];

fn rules(verbs: &[&str], extra: &[(&str, &[&str])]) -> Value {
    VIEWED
        .iter()
        .chain(extra)
        .map(|(g, rs)| json!({"apiGroups": [g], "resources": rs, "verbs": verbs}))
        .collect()
}

fn meta(name: &str) -> Value {
    json!({
        "name": name,
        "labels": {"kubernetes.io/bootstrapping": "rbac-defaults"},
        "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"},
    })
}

fn role(name: &str, rules: Value) -> Value {
    json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": meta(name), "rules": rules,
    })
}

fn binding(name: &str, groups: &[&str]) -> Value {
    let subjects: Vec<Value> = groups
        .iter()
        .map(|g| json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": g}))
        .collect();
    json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": meta(name),
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
        "subjects": subjects,
    })
}

/// The bootstrap ClusterRoles and ClusterRoleBindings.
#[must_use]
pub fn bootstrap() -> Vec<Object> {
    let mut write: Vec<&str> = READ.to_vec();
    write.extend(WRITE);
    let secrets: [(&str, &[&str]); 1] = [("", &["secrets"])];
    let mut admin = rules(&write, &secrets);
    if let Some(a) = admin.as_array_mut() {
        a.push(json!({
            "apiGroups": ["rbac.authorization.k8s.io"],
            "resources": ["roles", "rolebindings"],
            "verbs": write,
        }));
    }
    let discovery = [
        "/api",
        "/api/*",
        "/apis",
        "/apis/*",
        "/healthz",
        "/livez",
        "/openapi",
        "/openapi/*",
        "/readyz",
        "/version",
        "/version/",
    ];
    let public = ["/healthz", "/livez", "/readyz", "/version", "/version/"];
    let all = [
        role(
            "cluster-admin",
            json!([
                {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
                {"nonResourceURLs": ["*"], "verbs": ["*"]},
            ]),
        ),
        role("admin", admin),
        role("edit", rules(&write, &secrets)),
        role("view", rules(&READ, &[])),
        role(
            "system:discovery",
            json!([{"nonResourceURLs": discovery, "verbs": ["get"]}]),
        ),
        role(
            "system:public-info-viewer",
            json!([{"nonResourceURLs": public, "verbs": ["get"]}]),
        ),
        role(
            "system:basic-user",
            json!([{
                "apiGroups": ["authorization.k8s.io"],
                "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
                "verbs": ["create"],
            }]),
        ),
        binding("cluster-admin", &[super::rbac::MASTERS]),
        binding("system:discovery", &[super::rbac::AUTHENTICATED]),
        binding(
            "system:public-info-viewer",
            &[super::rbac::AUTHENTICATED, "system:unauthenticated"],
        ),
        binding("system:basic-user", &[super::rbac::AUTHENTICATED]),
    ];
    all.into_iter()
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::rbac::{Attributes, User, authorize};

    #[test]
    fn every_user_discovers_and_reviews_only_masters_administer() {
        let policy = bootstrap();
        assert_eq!(policy.len(), 11);
        let someone = User::authenticated("someone", &[]);
        let ok = |u: &User, a: &Attributes| authorize(policy.iter(), u, a).allowed;
        assert!(ok(
            &someone,
            &Attributes::non_resource("get", "/apis/apps/v1")
        ));
        assert!(ok(&someone, &Attributes::non_resource("get", "/version")));
        assert!(ok(
            &someone,
            &Attributes::resource(
                "create",
                "authorization.k8s.io",
                "selfsubjectaccessreviews",
                "",
                ""
            )
        ));
        assert!(!ok(
            &someone,
            &Attributes::resource("list", "", "pods", "x", "")
        ));
        // `view` bound in a namespace reads there, without secrets.
        let mut with_view = policy.clone();
        with_view.push(
            serde_json::from_value(json!({
                "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                "metadata": {"name": "v", "namespace": "x"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
                "subjects": [{"kind": "User", "name": "someone"}],
            }))
            .expect("binding"),
        );
        let ok = |a: &Attributes| authorize(with_view.iter(), &someone, a).allowed;
        assert!(ok(&Attributes::resource(
            "list",
            "apps",
            "deployments",
            "x",
            ""
        )));
        assert!(!ok(&Attributes::resource("list", "", "secrets", "x", "")));
        assert!(!ok(&Attributes::resource("delete", "", "pods", "x", "p")));
        assert!(!ok(&Attributes::resource(
            "list",
            "apps",
            "deployments",
            "y",
            ""
        )));
    }
}
