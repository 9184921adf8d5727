//! Who a request acts as and whether it may: the authorization attributes
//! of a request (upstream `RequestInfoFactory`), impersonation (upstream
//! `filters/impersonation.go`: `Impersonate-User` and `Impersonate-Group`
//! for a user allowed to `impersonate` them), the 403 a denial answers
//! (`responsewriters.Forbidden`), and the access reviews (self, subject,
//! local) answered from the same rules. Pure; the decisions are [`super::rbac`]'s.

use serde_json::{Value, json};

use super::rbac::{self, AUTHENTICATED, Attributes, User};
use super::route::Route;
use super::{Request, Response, status};
use crate::model::Object;

/// The authorization attributes of `req`, routed as `route`.
#[must_use]
pub fn attributes(req: &Request, route: &Route) -> Attributes {
    let Route::Resource(p) = route else {
        return Attributes::non_resource(&req.method.to_lowercase(), &req.path);
    };
    let watch = p.watch_prefix || matches!(req.param("watch"), Some("true" | "1"));
    let verb = match (req.method.as_str(), p.name.is_some()) {
        ("GET" | "HEAD", true) => "get",
        ("GET" | "HEAD", false) if watch => "watch",
        ("GET" | "HEAD", false) => "list",
        ("POST", _) => "create",
        ("PUT", _) => "update",
        ("PATCH", _) => "patch",
        ("DELETE", true) => "delete",
        ("DELETE", false) => "deletecollection",
        (other, _) => {
            return Attributes::resource(&other.to_lowercase(), &p.group, &p.plural, "", "");
        }
    };
    let name = p.name.clone().unwrap_or_default();
    // A namespace is its own namespace (`GET /api/v1/namespaces/x`).
    let namespace = match &p.namespace {
        Some(ns) => ns.clone(),
        None if p.group.is_empty() && p.plural == "namespaces" => name.clone(),
        None => String::new(),
    };
    let mut a = Attributes::resource(verb, &p.group, &p.plural, &namespace, &name);
    a.subresource = p.subresource.clone().unwrap_or_default();
    a
}

/// The 403 for a denial of `a` to `user`: `configmaps is forbidden: User
/// "u" cannot list resource "configmaps" in API group "" in the namespace
/// "x"`, and the RBAC reason after a colon when there is one.
#[must_use]
pub fn forbidden(user: &str, a: &Attributes, reason: &str) -> Response {
    let mut why = rbac::forbidden_message(user, a);
    if !reason.is_empty() {
        why = format!("{why}: {reason}");
    }
    if !a.resource_request {
        return status::error(403, &format!("forbidden: {why}"));
    }
    let qualified = if a.group.is_empty() {
        a.resource.clone()
    } else {
        format!("{}.{}", a.resource, a.group)
    };
    let message = if a.name.is_empty() {
        format!("{qualified} is forbidden: {why}")
    } else {
        format!("{qualified} \"{}\" is forbidden: {why}", a.name)
    };
    status::object_error(403, &message, &a.name, &a.group, &a.resource)
}

/// Whom `req` acts as: its authenticated user, or the one it impersonates
/// when that user may impersonate it (each group checked too).
/// Impersonating a user without naming `system:authenticated` or
/// `system:unauthenticated` adds `system:authenticated`, as upstream does.
///
/// # Errors
/// The 403 for the first impersonation not allowed; 400 for groups without
/// a user.
pub fn acting_user<'a>(
    objects: impl Iterator<Item = &'a Object> + Clone,
    req: &Request,
) -> Result<User, Response> {
    let Some(name) = req.impersonate_user.as_deref() else {
        if req.impersonate_groups.is_empty() {
            return Ok(req.user.clone());
        }
        return Err(status::error(
            400,
            &format!(
                "requested [{}] without impersonating a user",
                req.impersonate_groups
                    .iter()
                    .map(|g| format!("{{Group {g}}}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        ));
    };
    let asks = std::iter::once(("users", name)).chain(
        req.impersonate_groups
            .iter()
            .map(|g| ("groups", g.as_str())),
    );
    for (resource, target) in asks {
        let a = Attributes::resource("impersonate", "", resource, "", target);
        let d = rbac::authorize(objects.clone(), &req.user, &a);
        if !d.allowed {
            return Err(forbidden(&req.user.name, &a, &d.reason));
        }
    }
    let mut groups = req.impersonate_groups.clone();
    if !groups
        .iter()
        .any(|g| g == AUTHENTICATED || g == "system:unauthenticated")
    {
        groups.push(AUTHENTICATED.to_string());
    }
    Ok(User {
        name: name.to_string(),
        groups,
    })
}

/// `POST selfsubjectaccessreviews`: the review's attributes decided for
/// `user` from the same rules as every request.
#[must_use]
pub fn review<'a>(
    objects: impl Iterator<Item = &'a Object> + Clone,
    user: &User,
    body: &[u8],
) -> Response {
    decide(objects, Some(user), "SelfSubjectAccessReview", body)
}

/// `POST subjectaccessreviews` (whoever may create them: RBAC decided
/// before): the review's attributes decided for the user and groups its
/// spec names, from the same rules; no group is added to them, as the
/// authorizer reads them (`pkg/registry/authorization/subjectaccessreview`).
#[must_use]
pub fn subject_review<'a>(
    objects: impl Iterator<Item = &'a Object> + Clone,
    body: &[u8],
) -> Response {
    decide(objects, None, "SubjectAccessReview", body)
}

/// `POST namespaces/{namespace}/localsubjectaccessreviews` (whoever may
/// create them in that namespace): a SubjectAccessReview held to its
/// namespace, as upstream's `pkg/registry/authorization/localsubjectaccessreview`
/// and `ValidateLocalSubjectAccessReview` do in 1.20. Its metadata holds
/// nothing but `namespace`, which `spec.resourceAttributes.namespace`
/// must equal (422 otherwise, as must a review of a non-resource path);
/// then the namespace of the path must equal them (400). The path's
/// namespace is not put into the body.
#[must_use]
pub fn local_subject_review<'a>(
    objects: impl Iterator<Item = &'a Object> + Clone,
    namespace: &str,
    body: &[u8],
) -> Response {
    let mut asked = Asked::read(body, false);
    let meta = &asked.review["metadata"];
    let meta_ns = meta["namespace"].as_str().unwrap_or_default().to_string();
    let more = meta.as_object().is_some_and(|m| {
        m.iter().any(|(k, v)| {
            !matches!(
                k.as_str(),
                "namespace" | "managedFields" | "creationTimestamp"
            ) && !v.is_null()
        })
    });
    if more {
        asked.invalid.push(format!(
            "metadata: Invalid value: {meta}: must be empty except for namespace"
        ));
    }
    let spec = &asked.review["spec"];
    if let Some(r) = spec.get("resourceAttributes").filter(|r| r.is_object()) {
        let ns = r["namespace"].as_str().unwrap_or_default();
        if ns != meta_ns {
            asked.invalid.push(format!(
                "spec.resourceAttributes.namespace: Invalid value: \"{ns}\": must match metadata.namespace"
            ));
        }
    }
    if let Some(n) = spec.get("nonResourceAttributes").filter(|n| n.is_object()) {
        let s = |f: &str| n[f].as_str().unwrap_or_default().to_string();
        asked.invalid.push(format!(
            "spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{{Path:\"{}\", Verb:\"{}\"}}: disallowed on this kind of request",
            s("path"),
            s("verb")
        ));
    }
    if !asked.invalid.is_empty() {
        return asked.refused();
    }
    if namespace != meta_ns {
        return status::error(
            400,
            &format!("spec.resourceAttributes.namespace must match namespace: {namespace}"),
        );
    }
    asked.answer(objects, None, "LocalSubjectAccessReview")
}

/// A review of `kind` for `user`, or for the user its spec names.
fn decide<'a>(
    objects: impl Iterator<Item = &'a Object> + Clone,
    user: Option<&User>,
    kind: &str,
    body: &[u8],
) -> Response {
    let asked = Asked::read(body, user.is_some());
    if asked.invalid.is_empty() {
        asked.answer(objects, user, kind)
    } else {
        asked.refused()
    }
}

/// An access review as sent: its attributes, the user its spec names, and
/// what upstream's `ValidateSubjectAccessReviewSpec` (or the self
/// review's) says is wrong with it.
struct Asked {
    review: Value,
    attributes: Option<Attributes>,
    named: User,
    invalid: Vec<String>,
}

impl Asked {
    /// `body` read; `own`: a self review, which names no user.
    fn read(body: &[u8], own: bool) -> Asked {
        let mut review: Value = serde_json::from_slice(body).unwrap_or_else(|_| json!({}));
        if !review.is_object() {
            review = json!({});
        }
        let spec = &review["spec"];
        let s = |v: &Value, f: &str| v[f].as_str().unwrap_or_default().to_string();
        let resource = spec.get("resourceAttributes").filter(|r| r.is_object());
        let non_resource = spec.get("nonResourceAttributes").filter(|n| n.is_object());
        let mut invalid = Vec::new();
        if let (Some(_), Some(n)) = (resource, non_resource) {
            invalid.push(format!(
                "spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{{Path:\"{}\", Verb:\"{}\"}}: cannot be specified in combination with resourceAttributes",
                s(n, "path"),
                s(n, "verb")
            ));
        }
        let attributes = if let Some(r) = resource {
            let mut a = Attributes::resource(
                &s(r, "verb"),
                &s(r, "group"),
                &s(r, "resource"),
                &s(r, "namespace"),
                &s(r, "name"),
            );
            a.subresource = s(r, "subresource");
            Some(a)
        } else {
            non_resource.map(|n| Attributes::non_resource(&s(n, "verb"), &s(n, "path")))
        };
        if attributes.is_none() {
            invalid.push("spec.resourceAttributes: Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes must be specified".to_string());
        }
        let named = User {
            name: s(spec, "user"),
            groups: spec["groups"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
        };
        if !own && named.name.is_empty() && named.groups.is_empty() {
            invalid.push(
                "spec.user: Invalid value: \"\": at least one of user or group must be specified"
                    .to_string(),
            );
        }
        Asked {
            review,
            attributes,
            named,
            invalid,
        }
    }

    /// `NewInvalid` of the review's kind as decoded: empty, as 1.20 words
    /// it (`.authorization.k8s.io "" is invalid: ...`).
    fn refused(&self) -> Response {
        let causes = match self.invalid.as_slice() {
            [one] => one.clone(),
            many => format!("[{}]", many.join(", ")),
        };
        status::error(
            422,
            &format!(".authorization.k8s.io \"\" is invalid: {causes}"),
        )
    }

    /// The review sent back with its status: decided for `user`, or for
    /// the user its spec names (no group added, as the authorizer reads
    /// them).
    fn answer<'a>(
        self,
        objects: impl Iterator<Item = &'a Object> + Clone,
        user: Option<&User>,
        kind: &str,
    ) -> Response {
        // Without attributes the review is invalid: said so.
        let Some(a) = self.attributes.clone() else {
            return self.refused();
        };
        let Asked {
            mut review, named, ..
        } = self;
        let d = rbac::authorize(objects, user.unwrap_or(&named), &a);
        review["apiVersion"] = json!("authorization.k8s.io/v1");
        review["kind"] = json!(kind);
        if !review["metadata"].is_object() {
            review["metadata"] = json!({});
        }
        // The zero time of a review never stored, as Go writes it.
        review["metadata"]["creationTimestamp"] = Value::Null;
        review["status"] = if d.reason.is_empty() {
            json!({"allowed": d.allowed})
        } else {
            json!({"allowed": d.allowed, "reason": d.reason})
        };
        Response::json(201, &review)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KindTable;
    use crate::serve::route;

    fn attrs(method: &str, path: &str) -> Attributes {
        let req = Request::new(method, path);
        attributes(&req, &route::parse(&req.path, &KindTable::builtin()))
    }

    #[test]
    fn requests_have_the_attributes_upstream_gives_them() {
        let a = attrs("GET", "/api/v1/namespaces/x/configmaps?watch=true");
        assert_eq!((a.verb.as_str(), a.namespace.as_str()), ("watch", "x"));
        assert_eq!(attrs("GET", "/api/v1/namespaces/x/configmaps").verb, "list");
        let a = attrs("DELETE", "/apis/apps/v1/namespaces/x/deployments/web");
        assert_eq!(
            (a.verb.as_str(), a.group.as_str(), a.name.as_str()),
            ("delete", "apps", "web")
        );
        let a = attrs("GET", "/api/v1/namespaces/x");
        assert_eq!(
            (a.resource.as_str(), a.namespace.as_str(), a.name.as_str()),
            ("namespaces", "x", "x")
        );
        let a = attrs("PUT", "/api/v1/namespaces/x/finalize");
        assert_eq!(
            (a.verb.as_str(), a.subresource.as_str()),
            ("update", "finalize")
        );
        let a = attrs("GET", "/apis");
        assert!(!a.resource_request);
        assert_eq!((a.verb.as_str(), a.path.as_str()), ("get", "/apis"));
    }

    #[test]
    fn a_denial_reads_as_the_api_servers() {
        let a = attrs("GET", "/api/v1/namespaces/x/configmaps");
        let r = forbidden("restricted", &a, "").value();
        assert_eq!(
            r["message"],
            "configmaps is forbidden: User \"restricted\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"x\""
        );
        assert_eq!(
            (r["code"].as_u64(), r["reason"].as_str()),
            (Some(403), Some("Forbidden"))
        );
        let a = attrs("DELETE", "/apis/apps/v1/namespaces/x/deployments/web");
        assert_eq!(
            forbidden("u", &a, "").value()["message"],
            "deployments.apps \"web\" is forbidden: User \"u\" cannot delete resource \"deployments\" in API group \"apps\" in the namespace \"x\""
        );
        let a = attrs("GET", "/logs");
        assert_eq!(
            forbidden("u", &a, "").value()["message"],
            "forbidden: User \"u\" cannot get path \"/logs\""
        );
    }

    fn policy() -> Vec<Object> {
        let v = json!([
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
             "metadata": {"name": "impersonator"},
             "rules": [{"apiGroups": [""], "resources": ["users"], "resourceNames": ["restricted"], "verbs": ["impersonate"]}]},
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
             "metadata": {"name": "impersonator"},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "impersonator"},
             "subjects": [{"kind": "User", "name": "helper"}]},
        ]);
        serde_json::from_value(v).expect("objects")
    }

    #[test]
    fn impersonation_needs_permission_for_the_user_and_each_group() {
        let objects = policy();
        let mut req = Request::new("GET", "/api/v1/pods");
        req.user = User::authenticated("helper", &[]);
        assert_eq!(acting_user(objects.iter(), &req).expect("self"), req.user);
        req.impersonate_user = Some("restricted".into());
        let u = acting_user(objects.iter(), &req).expect("allowed");
        assert_eq!(u, User::authenticated("restricted", &[]));
        req.impersonate_groups = vec![rbac::MASTERS.into()];
        let err = acting_user(objects.iter(), &req).expect_err("no group impersonation");
        assert_eq!(
            err.value()["message"],
            "groups \"system:masters\" is forbidden: User \"helper\" cannot impersonate resource \"groups\" in API group \"\" at the cluster scope"
        );
        req.impersonate_user = Some("admin".into());
        req.impersonate_groups.clear();
        assert_eq!(
            acting_user(objects.iter(), &req)
                .expect_err("not admin")
                .code,
            403
        );
        // A master may be anyone, in any group.
        req.user = User::authenticated("admin", &[rbac::MASTERS]);
        req.impersonate_user = Some("restricted".into());
        req.impersonate_groups = vec![rbac::MASTERS.into()];
        let u = acting_user(objects.iter(), &req).expect("master");
        assert_eq!(u.groups, vec![rbac::MASTERS, AUTHENTICATED]);
        req.impersonate_user = None;
        assert_eq!(
            acting_user(objects.iter(), &req).expect_err("no user").code,
            400
        );
    }

    #[test]
    fn a_review_is_answered_from_the_rules() {
        let objects = policy();
        let helper = User::authenticated("helper", &[]);
        let body = |a: Value| serde_json::to_vec(&json!({"spec": a})).expect("json");
        let r = review(
            objects.iter(),
            &helper,
            &body(json!({"resourceAttributes": {"verb": "impersonate", "resource": "users", "name": "restricted"}})),
        )
        .value();
        assert_eq!(r["status"]["allowed"], true);
        assert_eq!(
            r["status"]["reason"],
            "RBAC: allowed by ClusterRoleBinding \"impersonator\" of ClusterRole \"impersonator\" to User \"helper\""
        );
        let r = review(
            objects.iter(),
            &helper,
            &body(json!({"resourceAttributes": {"verb": "delete", "resource": "configmaps", "namespace": "x"}})),
        )
        .value();
        assert_eq!(r["status"], json!({"allowed": false}));
        assert_eq!(review(objects.iter(), &helper, b"{}").code, 422);
    }

    #[test]
    fn a_subject_review_is_for_the_user_it_names_and_only_for_those_allowed() {
        use crate::serve::tests::{send, served};
        let sar = |spec: Value| Request {
            content_type: "application/json".into(),
            body: serde_json::to_vec(&json!({"apiVersion": "authorization.k8s.io/v1",
                "kind": "SubjectAccessReview", "spec": spec}))
            .expect("json"),
            ..Request::new("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews")
        };
        let mut s = served();
        let list_secrets = json!({"verb": "list", "resource": "secrets", "namespace": "shop"});
        // The server's admin (the tests' requests' user) asks for others.
        let r = send(
            &mut s,
            &sar(json!({"user": "someone", "resourceAttributes": list_secrets})),
        );
        assert_eq!(r.code, 201, "{:?}", r.value());
        assert_eq!(r.value()["kind"], "SubjectAccessReview");
        assert_eq!(r.value()["status"], json!({"allowed": false}));
        let r = send(
            &mut s,
            &sar(json!({"user": "someone", "groups": [rbac::MASTERS],
                        "resourceAttributes": list_secrets})),
        );
        assert_eq!(r.value()["status"]["allowed"], true, "{:?}", r.value());
        // Neither user nor group: 422 in the API server's words.
        let r = send(&mut s, &sar(json!({"resourceAttributes": list_secrets})));
        assert_eq!(r.code, 422);
        assert_eq!(
            r.value()["message"],
            ".authorization.k8s.io \"\" is invalid: spec.user: Invalid value: \"\": at least one of user or group must be specified"
        );
        // Someone without `create subjectaccessreviews` may not ask.
        let mut denied = sar(json!({"user": "admin", "resourceAttributes": list_secrets}));
        denied.user = User::authenticated("someone", &[]);
        let r = send(&mut s, &denied);
        assert_eq!(r.code, 403, "{:?}", r.value());
        assert_eq!(
            r.value()["message"],
            "subjectaccessreviews.authorization.k8s.io is forbidden: User \"someone\" cannot create resource \"subjectaccessreviews\" in API group \"authorization.k8s.io\" at the cluster scope"
        );
        // Discovery lists it.
        let r = send(
            &mut s,
            &Request::new("GET", "/apis/authorization.k8s.io/v1"),
        );
        let names: Vec<String> = r.value()["resources"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|x| x["name"].as_str().map(str::to_string))
            .collect();
        assert!(
            names.contains(&"subjectaccessreviews".to_string()),
            "{names:?}"
        );
    }

    /// LocalSubjectAccessReview as the 1.20 test control plane answered
    /// each body (POSTed to `namespaces/shop/...`): the namespaces of the
    /// path, of the metadata and of the attributes all one, else the same
    /// codes and messages. Not modelled: the Go dump of the metadata in
    /// `must be empty except for namespace`, and `managedFields` on the
    /// answer.
    #[test]
    fn a_local_subject_review_is_held_to_its_namespace() {
        use crate::serve::tests::{send, served};
        let lsar = |ns: &str, body: Value| Request {
            content_type: "application/json".into(),
            body: serde_json::to_vec(&body).expect("json"),
            ..Request::new(
                "POST",
                &format!("/apis/authorization.k8s.io/v1/namespaces/{ns}/localsubjectaccessreviews"),
            )
        };
        let attrs = |ns: Option<&str>| match ns {
            Some(ns) => json!({"namespace": ns, "verb": "list", "resource": "secrets"}),
            None => json!({"verb": "list", "resource": "secrets"}),
        };
        let invalid = |cause: &str| {
            (
                422,
                format!(".authorization.k8s.io \"\" is invalid: {cause}"),
            )
        };
        let cases = [
            (
                json!({"spec": {"user": "bob", "resourceAttributes": attrs(Some("other"))}}),
                invalid(
                    "spec.resourceAttributes.namespace: Invalid value: \"other\": must match metadata.namespace",
                ),
            ),
            (
                json!({"spec": {"user": "bob", "resourceAttributes": attrs(None)}}),
                (
                    400,
                    "spec.resourceAttributes.namespace must match namespace: shop".to_string(),
                ),
            ),
            (
                json!({"metadata": {"namespace": "other"}, "spec": {"user": "bob", "resourceAttributes": attrs(Some("shop"))}}),
                invalid(
                    "spec.resourceAttributes.namespace: Invalid value: \"shop\": must match metadata.namespace",
                ),
            ),
            (
                json!({"metadata": {"namespace": "other"}, "spec": {"user": "bob", "resourceAttributes": attrs(Some("other"))}}),
                (
                    400,
                    "spec.resourceAttributes.namespace must match namespace: shop".to_string(),
                ),
            ),
            (
                json!({"spec": {"user": "bob", "nonResourceAttributes": {"verb": "get", "path": "/x"}}}),
                invalid(
                    "spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:\"/x\", Verb:\"get\"}: disallowed on this kind of request",
                ),
            ),
            (
                json!({"metadata": {"namespace": "shop"}, "spec": {"resourceAttributes": attrs(Some("shop"))}}),
                invalid(
                    "spec.user: Invalid value: \"\": at least one of user or group must be specified",
                ),
            ),
            (
                json!({"spec": {"user": "bob"}}),
                invalid(
                    "spec.resourceAttributes: Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes must be specified",
                ),
            ),
        ];
        let mut s = served();
        for (body, (code, message)) in cases {
            let r = send(&mut s, &lsar("shop", body.clone()));
            assert_eq!(
                (r.code, r.value()["message"].as_str()),
                (code, Some(message.as_str())),
                "{body}"
            );
        }
        let r = send(
            &mut s,
            &lsar(
                "shop",
                json!({"metadata": {"name": "x", "namespace": "shop"},
            "spec": {"user": "bob", "resourceAttributes": attrs(Some("shop"))}}),
            ),
        );
        assert_eq!(r.code, 422);
        assert!(
            r.value()["message"].as_str().is_some_and(|m| m.ends_with("metadata: Invalid value: {\"name\":\"x\",\"namespace\":\"shop\"}: must be empty except for namespace")),
            "{:?}",
            r.value()
        );
        let ok = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "LocalSubjectAccessReview",
            "metadata": {"namespace": "shop"}, "spec": {"user": "bob", "resourceAttributes": attrs(Some("shop"))}});
        let r = send(&mut s, &lsar("shop", ok.clone()));
        assert_eq!(r.code, 201, "{:?}", r.value());
        assert_eq!(
            r.value()["metadata"],
            json!({"namespace": "shop", "creationTimestamp": null})
        );
        assert_eq!(r.value()["status"], json!({"allowed": false}));
        let mut masters = ok.clone();
        masters["spec"]["groups"] = json!([rbac::MASTERS]);
        assert_eq!(
            send(&mut s, &lsar("shop", masters)).value()["status"],
            json!({"allowed": true})
        );
        // RBAC: `create localsubjectaccessreviews` in that namespace.
        let mut denied = lsar("shop", ok);
        denied.user = User::authenticated("someone", &[]);
        let r = send(&mut s, &denied);
        assert_eq!(r.code, 403, "{:?}", r.value());
        assert_eq!(
            r.value()["message"],
            "localsubjectaccessreviews.authorization.k8s.io is forbidden: User \"someone\" cannot create resource \"localsubjectaccessreviews\" in API group \"authorization.k8s.io\" in the namespace \"shop\""
        );
        // Created only.
        let r = send(
            &mut s,
            &Request::new(
                "GET",
                "/apis/authorization.k8s.io/v1/namespaces/shop/localsubjectaccessreviews",
            ),
        );
        assert_eq!(r.code, 405, "{:?}", r.value());
    }
}
