//! The subresources a client reaches besides `status`: `scale`
//! (`autoscaling/v1` Scale: GET, PUT, PATCH, as `kubectl scale` and an
//! autoscaler use it) and the kubelet's (`log`, `exec`, `attach`,
//! `portforward`), answered as kube-apiserver answers them for a pod whose
//! kubelet it cannot reach: the simulator runs no containers.

use serde_json::{Value, json};

use super::custom_scale::{self, Paths};
use super::status::{self, object_error};
use super::write::Named;
use super::{Request, Response, admit, complete, patch, read};
use crate::model::{KindInfo, Object};
use crate::sim::Sim;

/// Whether the kind has a `scale` subresource.
#[must_use]
pub fn scalable(kind: &KindInfo) -> bool {
    matches!(
        (kind.group.as_str(), kind.kind.as_str()),
        ("apps", "Deployment" | "ReplicaSet" | "StatefulSet") | ("", "ReplicationController")
    )
}

/// A Scale's metadata: the object's.
fn scale_meta(o: &Object) -> Value {
    let mut meta = json!({"name": o.name()});
    let m = &o.metadata;
    if let Some(ns) = o.namespace() {
        meta["namespace"] = json!(ns);
    }
    meta["uid"] = json!(m.uid);
    if let Some(rv) = &m.resource_version {
        meta["resourceVersion"] = json!(rv);
    }
    if let Some(t) = m.creation_timestamp {
        meta["creationTimestamp"] = json!(t.to_string());
    }
    meta
}

/// The object's Scale: a built-in kind's, or a custom resource's at its
/// CRD's paths (`Err`: the 500 of one without the spec's field).
fn scale_of(o: &Object, sim: &Sim, custom: Option<&Paths>) -> Result<Value, Response> {
    if let Some(p) = custom {
        return custom_scale::scale_of(o, p, scale_meta(o));
    }
    let mut full = read::object_value(o);
    complete::complete(&mut full, o, sim.graph());
    Ok(json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": scale_meta(o),
        "spec": {"replicas": full["spec"]["replicas"].as_u64().unwrap_or(1)},
        "status": {
            "replicas": full["status"]["replicas"].as_u64().unwrap_or(0),
            "selector": complete::selector_string(o),
        },
    }))
}

fn scale_not_found(target: &Named) -> Response {
    let what = format!("{}/scale", target.kind.plural);
    let qualified = if target.kind.group.is_empty() {
        what.clone()
    } else {
        format!("{what}.{}", target.kind.group)
    };
    object_error(
        404,
        &format!("{qualified} \"{}\" not found", target.name),
        &target.name,
        &target.kind.group,
        &what,
    )
}

/// GET, PUT or PATCH of `target`'s `scale`: a built-in scalable kind's,
/// or a custom resource's whose CRD declares it ([`custom_scale`]).
pub fn scale(sim: &mut Sim, req: &Request, target: &Named) -> Response {
    let key = target.key();
    let custom = if scalable(target.kind) {
        None
    } else {
        match custom_scale::paths(sim, target.kind) {
            Some(p) => Some(p),
            None => return target.not_found(),
        }
    };
    let Some(current) = sim.get(&key).cloned() else {
        return match custom {
            Some(_) => target.not_found(),
            None => scale_not_found(target),
        };
    };
    let before = scale_of(&current, sim, custom.as_ref());
    let wanted = match req.method.as_str() {
        "GET" | "HEAD" => {
            return match before {
                Ok(v) => Response::json(200, &v),
                Err(r) => r,
            };
        }
        "PUT" => {
            if let Err(r) = admit::dry_run_values(req, "UpdateOptions") {
                return r;
            }
            match super::write::json_body(req) {
                Ok(v) if v.is_object() => v,
                Ok(_) => return status::error(400, "the body of the request must be an object"),
                Err(r) => return r,
            }
        }
        "PATCH" => {
            if let Err(r) = admit::dry_run_values(req, "PatchOptions") {
                return r;
            }
            let mut doc = match before {
                Ok(v) => v,
                Err(r) => return r,
            };
            if let Err(f) = patch::apply(&req.content_type, &mut doc, &req.body) {
                return status::error(f.code, &f.message);
            }
            doc
        }
        _ => {
            return status::error(
                405,
                &format!(
                    "{} {} is not allowed: scale takes GET, PUT and PATCH",
                    req.method, req.path
                ),
            );
        }
    };
    let replicas = match wanted["spec"]["replicas"].as_i64() {
        Some(n) if n >= 0 => n,
        other => {
            let shown = other.map_or_else(|| "null".to_string(), |n| n.to_string());
            return status::invalid(
                &format!(
                    "Scale.autoscaling \"{}\" is invalid: spec.replicas: Invalid value: {shown}: must be greater than or equal to 0",
                    target.name
                ),
                &target.name,
                "autoscaling",
            );
        }
    };
    let rv = wanted["metadata"]["resourceVersion"].as_str();
    if let Some(rv) = rv
        && Some(rv) != current.metadata.resource_version.as_deref()
    {
        let plural = &target.kind.plural;
        let resource = if target.kind.group.is_empty() {
            plural.clone()
        } else {
            format!("{plural}.{}", target.kind.group)
        };
        return object_error(
            409,
            &format!(
                "Operation cannot be fulfilled on {resource} \"{}\": the object has been modified; please apply your changes to the latest version and try again",
                target.name
            ),
            &target.name,
            &target.kind.group,
            plural,
        );
    }
    let what = format!("scale spec.replicas={replicas}");
    let scaled = match &custom {
        Some(p) => match custom_scale::with_replicas(&current, p, replicas) {
            Ok(o) => Some(o),
            Err(r) => return r,
        },
        None => None,
    };
    let set = |o: &mut Object| match scaled {
        Some(new) => *o = new,
        None => o.set_at(&["spec", "replicas"], json!(replicas)),
    };
    let dry = req.query.iter().any(|(k, v)| k == "dryRun" && v == "All");
    let resp = if dry {
        let r = sim.clone().patch_key(&key, &what, set);
        sim.record_response(current.obj_ref(), format!("PATCH {what} dryRun=All"), &r);
        r
    } else {
        sim.patch_key(&key, &what, set)
    };
    match &resp.object {
        Some(o) if resp.is_success() => match scale_of(o, sim, custom.as_ref()) {
            Ok(v) => Response::json(200, &v),
            Err(r) => r,
        },
        _ => status::error(resp.code, &resp.message),
    }
}

/// `log`, `exec`, `attach` and `portforward` of a pod: the checks the API
/// server makes before it calls the pod's kubelet, in its words; then,
/// as for a kubelet it cannot reach, a 500 that says why.
pub fn kubelet(sim: &Sim, req: &Request, target: &Named, sub: &str) -> Response {
    let Some(pod) = sim.get(&target.key()) else {
        return target.not_found();
    };
    let mut full = read::object_value(pod);
    complete::complete(&mut full, pod, sim.graph());
    let names: Vec<&str> = full["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str())
        .collect();
    let name = pod.name();
    let container = match req.param("container").filter(|c| !c.is_empty()) {
        Some(c) if !names.contains(&c) => {
            return status::error(400, &format!("container {c} is not valid for pod {name}"));
        }
        Some(c) => c,
        None if names.len() == 1 || sub == "portforward" => names.first().copied().unwrap_or(""),
        None => {
            return status::error(
                400,
                &format!(
                    "a container name must be specified for pod {name}, choose one of: [{}]",
                    names.join(" ")
                ),
            );
        }
    };
    let node = pod.str_at(&["spec", "nodeName"]).unwrap_or_default();
    if node.is_empty() {
        if sub == "log" {
            // Nothing to read yet: the API server answers no content.
            return Response {
                code: 204,
                content_type: "text/plain".into(),
                body: Vec::new(),
                warnings: Vec::new(),
            };
        }
        return status::error(400, &format!("pod {name} does not have a host assigned"));
    }
    if sim.graph().find("", "Node", None, node).is_none() {
        // Upstream names the missing Node as a pod.
        return object_error(404, &format!("pods \"{node}\" not found"), node, "", "pods");
    }
    let ns = pod.namespace().unwrap_or_default();
    let path = match sub {
        "log" => format!("containerLogs/{ns}/{name}/{container}"),
        _ => format!("{sub}/{ns}/{name}/{container}"),
    };
    let mut v = status::status_value(
        500,
        &format!(
            "Get \"https://{node}:10250/{path}\": the ownerscope simulator runs no kubelet on node \"{node}\": its pods have no containers to read logs from, exec or attach in, or forward ports to"
        ),
        None,
    );
    // A kubelet that does not answer is an error without a reason upstream.
    if let Some(m) = v.as_object_mut() {
        m.remove("reason");
    }
    Response::json(500, &v)
}

/// PUT of a namespace's `finalize`, as kube-apiserver's finalize
/// strategy: of the Namespace sent, only `spec.finalizers` is taken (none
/// sent: none); the writer's manager owns what it set; a Terminating
/// namespace with no finalizer left in either list goes at once, and the
/// answer is the namespace as it was last. How a stuck namespace is
/// forced (`kubectl replace --raw /api/v1/namespaces/NS/finalize -f -`),
/// leaving what it held behind. Checked on the 1.20 test control plane.
pub fn finalize(sim: &mut Sim, req: &Request, target: &Named) -> Response {
    let Some(old) = sim.get(&target.key()).cloned() else {
        return target.not_found();
    };
    let body = match super::write::json_body(req) {
        Ok(v) if v.is_object() => v,
        Ok(_) => return status::error(400, "the body of the request must be an object"),
        Err(r) => return r,
    };
    let finalizers = match &body["spec"]["finalizers"] {
        Value::Null => Vec::new(),
        Value::Array(a) if a.iter().all(Value::is_string) => a.clone(),
        other => {
            return status::error(
                400,
                &format!(
                    "Namespace in version \"v1\" cannot be handled as a Namespace: spec.finalizers: a list of names expected, got {other}"
                ),
            );
        }
    };
    if let Some(rv) = body["metadata"]["resourceVersion"].as_str()
        && Some(rv) != old.metadata.resource_version.as_deref()
    {
        return object_error(
            409,
            &format!(
                "Operation cannot be fulfilled on namespaces \"{}\": the object has been modified; please apply your changes to the latest version and try again",
                target.name
            ),
            &target.name,
            "",
            "namespaces",
        );
    }
    let mut new = old.clone();
    if finalizers.is_empty() {
        // None left: no field, as kube-apiserver stores an empty list.
        if let Some(spec) = new.spec.as_object_mut() {
            spec.remove("finalizers");
        }
    } else {
        new.set_at(&["spec", "finalizers"], Value::Array(finalizers));
    }
    super::ownership::record_update(sim, req, target.kind, Some(&old), &mut new);
    let resp = if req.query.iter().any(|(k, v)| k == "dryRun" && v == "All") {
        let r = sim.clone().finalize_namespace(&new);
        sim.record_response(old.obj_ref(), "PUT finalize dryRun=All".into(), &r);
        r
    } else {
        sim.finalize_namespace(&new)
    };
    target.answer(&resp, false, sim.graph())
}
