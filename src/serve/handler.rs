//! One request in, one [`Outcome`] out: routing, content negotiation and
//! the verbs. Pure: no socket, no clock (the caller holds the simulator's
//! lock and passes it in).

use super::negotiate::{self, Form};
use super::openapi_pb::{self, V2Form};
use super::query::ListOptions;
use super::rbac::{self, User};
use super::route::{self, ResourcePath, Route};
use super::write::{self, Named};
use super::{
    Outcome, Request, Response, Served, access, collection, discovery, events, protobuf, read,
    status, status_subresource, subresource, versions, watch,
};
use crate::model::KindTable;
use status_subresource::Part;

/// The content type aggregated discovery is answered with.
fn discovery_type(version: &str) -> String {
    format!("application/json;g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList")
}

/// Answers `req`. `server` is `host:port`, for `/api`'s addresses.
pub fn handle(served: &mut Served, req: &Request, server: &str) -> Outcome {
    served.pump();
    let out = authorized(served, req, server);
    served.pump();
    out
}

/// As whom `req` acts (impersonation), and whether that user may: the
/// store's RBAC policy decides before anything else runs.
fn authorized(served: &mut Served, req: &Request, server: &str) -> Outcome {
    let route = route::parse(&req.path, served.sim.kinds());
    let policy = rbac::policy(served.index.of_kinds(&rbac::KINDS));
    let user = match access::acting_user(policy.iter().copied(), req) {
        Ok(u) => u,
        Err(denied) => return reply(denied),
    };
    let a = access::attributes(req, &route);
    let d = rbac::authorize(policy.iter().copied(), &user, &a);
    if !d.allowed {
        return reply(access::forbidden(&user.name, &a, &d.reason));
    }
    route_request(served, req, &user, route, server)
}

fn reply(r: Response) -> Outcome {
    Outcome::Reply(r)
}

fn not_served(req: &Request) -> Outcome {
    reply(status::error(
        404,
        &format!(
            "the server could not find the requested resource ({} {}): the ownerscope simulator serves discovery, the kinds of its scenario and the access reviews",
            req.method, req.path
        ),
    ))
}

fn method_not_allowed(req: &Request, what: &str) -> Outcome {
    reply(status::error(
        405,
        &format!("{} {} is not allowed: {what}", req.method, req.path),
    ))
}

fn openapi(served: &mut Served, req: &Request, rest: &str) -> Outcome {
    // v2 in JSON or in protobuf (kubectl before 1.27 asks for it), as
    // kube-openapi picks; v3 is answered in JSON whatever is asked.
    if req.method == "GET" && rest == "v2" {
        match openapi_pb::form(&req.accept) {
            Some(V2Form::Json) => {}
            Some(V2Form::Protobuf) => {
                return reply(Response {
                    code: 200,
                    content_type: openapi_pb::CONTENT_TYPE.into(),
                    body: served.openapi.v2_protobuf(served.sim.kinds()),
                    warnings: Vec::new(),
                });
            }
            None => {
                return reply(status::error(
                    406,
                    &format!(
                        "/openapi/v2 is served as application/json or {} (asked for {:?})",
                        openapi_pb::MEDIA,
                        req.accept
                    ),
                ));
            }
        }
    }
    let body = if req.method == "GET" {
        served.openapi.get(served.sim.kinds(), rest)
    } else {
        None
    };
    match body {
        Some(body) => reply(Response {
            code: 200,
            content_type: "application/json".into(),
            body,
            warnings: Vec::new(),
        }),
        _ => reply(status::error(
            404,
            &format!(
                "the ownerscope simulator serves no OpenAPI document at {} {} (it serves GET /openapi/v2 and /openapi/v3)",
                req.method, req.path
            ),
        )),
    }
}

fn route_request(
    served: &mut Served,
    req: &Request,
    user: &User,
    route: Route,
    server: &str,
) -> Outcome {
    if let Route::OpenApi(rest) = &route {
        return openapi(served, req, rest);
    }
    let Some(form) = negotiate::form(&req.accept) else {
        return reply(status::error(
            406,
            &format!(
                "only the following media types are accepted: application/json, application/json;as=Table;v=v1;g=meta.k8s.io, application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io (asked for {:?})",
                req.accept
            ),
        ));
    };
    let is_get = req.method == "GET" || req.method == "HEAD";
    if !is_get && !matches!(route, Route::Resource(_)) {
        return method_not_allowed(req, "discovery is read-only");
    }
    let kinds = served.sim.kinds();
    let store = &served.sim;
    match route {
        Route::Version => reply(Response::json(200, &discovery::version())),
        Route::Health => reply(Response {
            code: 200,
            content_type: "text/plain".into(),
            body: b"ok".to_vec(),
            warnings: Vec::new(),
        }),
        Route::Api => reply(match form {
            Form::Discovery(v) => Response::typed(
                200,
                &discovery_type(v),
                &discovery::aggregated(kinds, store, true, v),
            ),
            _ => Response::json(200, &discovery::api_versions(server)),
        }),
        Route::Apis => reply(match form {
            Form::Discovery(v) => Response::typed(
                200,
                &discovery_type(v),
                &discovery::aggregated(kinds, store, false, v),
            ),
            _ => Response::json(200, &discovery::group_list(kinds)),
        }),
        Route::Group(g) => match discovery::group(kinds, &g) {
            Some(doc) => reply(Response::json(200, &doc)),
            None => not_served(req),
        },
        Route::Resources { group, version } => {
            match discovery::resource_list(kinds, store, &group, &version) {
                Some(doc) => reply(Response::json(200, &doc)),
                None => not_served(req),
            }
        }
        Route::OpenApi(_) => not_served(req),
        Route::Resource(p) => resource(served, req, user, &p, form),
        Route::Unknown => not_served(req),
    }
}

/// The access reviews (`authorization.k8s.io/v1`), created only; `None`
/// for another resource of the group. The self reviews may come as
/// protobuf: kubectl's `auth can-i` (and `--list`) send it and do not
/// retry in JSON.
fn access_review(served: &Served, req: &Request, user: &User, p: &ResourcePath) -> Option<Outcome> {
    type FromProto = fn(&[u8]) -> Option<serde_json::Value>;
    let proto: Option<FromProto> = match (p.plural.as_str(), &p.namespace) {
        ("subjectaccessreviews", None) | ("localsubjectaccessreviews", Some(_)) => None,
        ("selfsubjectaccessreviews", None) => Some(protobuf::self_subject_access_review),
        ("selfsubjectrulesreviews", None) => Some(protobuf::self_subject_rules_review),
        _ => return None,
    };
    if req.method != "POST" || p.name.is_some() {
        return Some(method_not_allowed(req, "access reviews are only created"));
    }
    let decoded = proto
        .filter(|_| req.content_type.starts_with(protobuf::MEDIA))
        .and_then(|from| from(&req.body));
    let body = match decoded {
        Some(v) => serde_json::to_vec(&v).unwrap_or_default(),
        None => match write::json_body(req) {
            Ok(_) => req.body.clone(),
            Err(r) => return Some(reply(r)),
        },
    };
    let policy = rbac::policy(served.index.of_kinds(&rbac::KINDS));
    let objects = policy.iter().copied();
    Some(reply(match (p.plural.as_str(), &p.namespace) {
        ("localsubjectaccessreviews", Some(ns)) => access::local_subject_review(objects, ns, &body),
        ("subjectaccessreviews", _) => access::subject_review(objects, &body),
        ("selfsubjectrulesreviews", _) => super::rules_review::rules_review(objects, user, &body),
        _ => access::review(objects, user, &body),
    }))
}

fn resource(
    served: &mut Served,
    req: &Request,
    user: &User,
    p: &ResourcePath,
    form: Form,
) -> Outcome {
    if p.group == discovery::AUTHZ
        && let Some(outcome) = access_review(served, req, user, p)
    {
        return outcome;
    }
    // A custom resource in any version its CRD serves.
    let Some(kind) = versions::find(served.sim.kinds(), &p.group, &p.version, &p.plural) else {
        return not_served(req);
    };
    if !kind.namespaced && p.namespace.is_some() {
        return not_served(req);
    }
    served.sim.set_user_actor(&req.actor());
    let Some(name) = p.name.clone() else {
        return collection(served, req, user, p, &kind, form);
    };
    if kind.namespaced && p.namespace.is_none() {
        return not_served(req);
    }
    if name == "." || name == ".." {
        return reply(status::error(
            400,
            &format!("Name parameter invalid: \"{name}\": may not be '{name}'"),
        ));
    }
    let target = Named {
        kind: &kind,
        namespace: p.namespace.clone(),
        name,
    };
    if let Some(sub) = &p.subresource {
        if sub == "status" {
            return status_subresource(served, req, user, &target, form);
        }
        return other_subresource(served, req, &target, sub);
    }
    if events::is_events_v1(&kind) && !matches!(req.method.as_str(), "GET" | "HEAD") {
        return events_read_only(req);
    }
    match req.method.as_str() {
        "GET" | "HEAD" => get(served, req, &target, form),
        "PUT" => reply(write::update(&mut served.sim, req, user, &target)),
        "PATCH" => reply(write::patch(&mut served.sim, req, user, &target)),
        "DELETE" => reply(write::delete(&mut served.sim, req, &target)),
        _ => method_not_allowed(req, "an object takes GET, PUT, PATCH and DELETE"),
    }
}

/// A subresource besides `status`: `scale` of a kind that has it, a
/// pod's kubelet ones; the `proxy` ones a 503 (serve reaches no address);
/// the others discovery lists ([`discovery::subresources`]) a 405 that
/// says serve does not serve them; anything else 404.
fn other_subresource(served: &mut Served, req: &Request, target: &Named, sub: &str) -> Outcome {
    let kind = target.kind;
    let pod = kind.group.is_empty() && kind.kind == "Pod";
    let listed = discovery::subresources::listed(&served.sim, kind);
    let Some(entry) = listed.iter().find(|s| s.name == sub) else {
        return not_served(req);
    };
    match (req.method.as_str(), sub) {
        (_, "scale") => reply(subresource::scale(&mut served.sim, req, target)),
        ("GET", "log") | ("GET" | "POST", "exec" | "attach" | "portforward") if pod => {
            reply(subresource::kubelet(&served.sim, req, target, sub))
        }
        ("PUT", "finalize") => reply(subresource::finalize(&mut served.sim, req, target)),
        (_, "finalize") => reply(status::error(
            405,
            "the server does not allow this method on the requested resource",
        )),
        _ if served.sim.get(&target.key()).is_none() => reply(target.not_found()),
        (_, "log" | "exec" | "attach" | "portforward") => {
            method_not_allowed(req, &format!("{sub} takes {}", entry.verbs.join(", ")))
        }
        (_, "proxy") => reply(status::error(
            503,
            &format!(
                "the ownerscope simulator proxies to no {}: it runs no network, kubelet or endpoints to reach",
                kind.kind.to_ascii_lowercase()
            ),
        )),
        _ => method_not_allowed(
            req,
            &format!(
                "the ownerscope simulator serves no {}/{sub} subresource (it serves status, scale, a namespace's finalize and a pod's log, exec, attach and portforward)",
                kind.plural
            ),
        ),
    }
}

/// `.../status`: GET, PUT and PATCH of a kind that has the subresource
/// ([`status_subresource::has_status`]); other methods 405; a kind without
/// it 404, as kube-apiserver (a custom resource's 404 names the object,
/// a built-in kind's says the path is not served).
fn status_subresource(
    served: &mut Served,
    req: &Request,
    user: &User,
    target: &Named,
    form: Form,
) -> Outcome {
    if !status_subresource::has_status(&served.sim, target.kind) {
        if KindTable::is_builtin(&target.kind.group, &target.kind.kind) {
            return reply(status::error(
                404,
                "the server could not find the requested resource",
            ));
        }
        return reply(target.not_found());
    }
    let sim = &mut served.sim;
    match req.method.as_str() {
        "GET" | "HEAD" => get(served, req, target, form),
        "PUT" => reply(write::update_part(sim, req, user, target, Part::Status)),
        "PATCH" => reply(write::patch_part(sim, req, user, target, Part::Status)),
        _ => reply(status::error(
            405,
            "the server does not allow this method on the requested resource",
        )),
    }
}

fn events_read_only(req: &Request) -> Outcome {
    method_not_allowed(
        req,
        "events.k8s.io/v1 Events are served read-only here: write them as core/v1 Events (/api/v1/namespaces/NS/events), the same stored objects",
    )
}

fn get(served: &Served, req: &Request, target: &Named, form: Form) -> Outcome {
    let mut key = target.key();
    let (group, kind) = events::stored_kind(target.kind);
    (key.group, key.kind) = (group.to_string(), kind.to_string());
    match served.sim.get(&key) {
        Some(o) => reply(read::one(
            o,
            target.kind,
            form,
            served.sim.now(),
            req.param("includeObject"),
            served.sim.graph(),
        )),
        None => reply(target.not_found()),
    }
}

fn collection(
    served: &mut Served,
    req: &Request,
    user: &User,
    p: &ResourcePath,
    kind: &crate::model::KindInfo,
    form: Form,
) -> Outcome {
    match req.method.as_str() {
        "GET" | "HEAD" => {}
        _ if events::is_events_v1(kind) => return events_read_only(req),
        // A namespaced kind is created in its namespace's path only.
        "POST" if kind.namespaced && p.namespace.is_none() => {
            return reply(status::error(
                405,
                "the server does not allow this method on the requested resource",
            ));
        }
        "POST" => {
            return reply(write::create(
                &mut served.sim,
                req,
                user,
                kind,
                p.namespace.as_deref(),
            ));
        }
        "DELETE" => {
            return reply(collection::delete_collection(
                served,
                req,
                kind,
                p.namespace.as_deref(),
            ));
        }
        _ => return method_not_allowed(req, "a collection takes GET and POST"),
    }
    let opts = match ListOptions::from_query(&req.query) {
        Ok(o) => o,
        Err(e) => return reply(status::error(400, &e)),
    };
    if let Err(e) = opts.fields.check(kind) {
        return reply(status::error(400, &e));
    }
    if opts.watch || p.watch_prefix {
        let rv = match opts.resource_version.as_deref().map(str::parse::<u64>) {
            None => None,
            Some(Ok(v)) => Some(v),
            Some(Err(_)) => {
                return reply(status::error(
                    400,
                    "resourceVersion: Invalid value: not a resource version",
                ));
            }
        };
        let form = if form == Form::Table || form == Form::Meta {
            form
        } else {
            Form::Full
        };
        return Outcome::Watch(Box::new(watch::start(
            served,
            kind.clone(),
            p.namespace.clone(),
            opts,
            form,
            rv,
        )));
    }
    reply(read::list(
        served,
        kind,
        p.namespace.as_deref(),
        &opts,
        form,
    ))
}
