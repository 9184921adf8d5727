//! Server-side apply (`PATCH` with `application/apply-patch+yaml`, as
//! `kubectl apply --server-side` sends it), a subset of kube-apiserver
//! 1.20's (`apiserver/pkg/endpoints/handlers/patch.go`, `applyPatcher`):
//! the request checked as it checks it (`fieldManager` required, `force`
//! only with apply, the body YAML or JSON of the URL's kind, version and
//! name), an object that does not exist created (201), one that does
//! given the applied fields (200).
//!
//! Field ownership is [`super::managed`]'s: an apply that would change a
//! field another manager owns answers 409 unless `force=true`, a field
//! the applier leaves out that no other manager owns is removed, and the
//! applier owns what it applied (`metadata.managedFields`).

use serde_json::json;

use super::rbac::User;
use super::write::{self, Named, Part};
use super::{Request, Response, managed, ownership, status};
use crate::sim::Sim;

/// The content type of an apply patch.
pub const APPLY: &str = "application/apply-patch+yaml";

/// Whether `req` is an apply patch.
#[must_use]
pub fn is_apply(req: &Request) -> bool {
    req.content_type
        .split(';')
        .next()
        .is_some_and(|m| m.trim().eq_ignore_ascii_case(APPLY))
}

/// The 422 for a `PatchOptions` field, in kube-apiserver's words.
fn invalid_option(field: &str, reason: &str, cause: &str) -> Response {
    let message = format!("PatchOptions.meta.k8s.io \"\" is invalid: {field}: {cause}");
    let details = json!({
        "group": "meta.k8s.io", "kind": "PatchOptions",
        "causes": [{"reason": reason, "message": cause, "field": field}],
    });
    Response::json(422, &status::status_value(422, &message, Some(details)))
}

/// `force` with a patch that is not an apply: 422, as kube-apiserver.
#[must_use]
pub fn force_refused(req: &Request) -> Option<Response> {
    (!is_apply(req) && req.param("force").is_some()).then(|| {
        invalid_option(
            "force",
            "FieldValueForbidden",
            "Forbidden: may not be specified for non-apply patch",
        )
    })
}

/// PATCH with an apply body on `target`.
pub fn apply(sim: &mut Sim, req: &Request, user: &User, target: &Named, part: Part) -> Response {
    if req.param("fieldManager").is_none_or(str::is_empty) {
        return invalid_option(
            "fieldManager",
            "FieldValueRequired",
            "Required value: is required for apply patch",
        );
    }
    let text = String::from_utf8_lossy(&req.body);
    let applied = match crate::sim::yaml::parse_values(&text) {
        Ok(v) => v,
        Err(e) => return status::error(400, &format!("error decoding YAML: {e}")),
    };
    if !applied.is_object() {
        return status::error(400, "error decoding YAML: the apply patch is not an object");
    }
    let version = applied["apiVersion"].as_str().unwrap_or_default();
    let want = target.kind.api_version();
    if version != want {
        return status::error(
            400,
            &format!(
                "Incorrect version specified in apply patch. Specified patch version: {version}, expected: {want}"
            ),
        );
    }
    let name = applied["metadata"]["name"].as_str().unwrap_or_default();
    if name != target.name {
        return status::error(
            400,
            &format!(
                "the name of the object ({name}) does not match the name on the URL ({})",
                target.name
            ),
        );
    }
    if let Err(r) = super::field_validation::check_applied(sim, target.kind, &applied) {
        return r;
    }
    if let Some(message) = managed::untyped(&applied) {
        // kube-apiserver 1.20's answer has no reason.
        return Response::json(
            500,
            &serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
                "status": "Failure", "message": message, "code": 500}),
        );
    }
    // What the text repeats, checked once the apply is made (its conflicts
    // first), as upstream checks it.
    let repeats = super::field_validation::check_applied_text(req, &text);
    // The applied object, as a create's body (`force` is the apply's).
    let as_json = || Request {
        content_type: "application/json".into(),
        body: serde_json::to_vec(&applied).unwrap_or_default(),
        query: req
            .query
            .iter()
            .filter(|(k, _)| k != "force")
            .cloned()
            .collect(),
        ..req.clone()
    };
    // What the simulator keeps of the configuration is what it owns.
    let config = match super::unkept::object_of(&applied) {
        Ok(o) => ownership::compared(&o),
        Err(e) => return status::error(400, &format!("error decoding YAML: {e}")),
    };
    let Some(current) = sim.get(&target.key()).cloned() else {
        if part == Part::Status {
            return target.not_found();
        }
        let warnings = match repeats {
            Ok(w) => w,
            Err(r) => return r,
        };
        let set = managed::applied_set(&config);
        return write::warned(
            write::create_as(
                sim,
                &as_json(),
                user,
                target.kind,
                target.namespace.as_deref(),
                Some(set),
            ),
            warnings,
        );
    };
    let force = req.param("force") == Some("true");
    // The live object as the API server holds it, its defaults set: a
    // configuration naming one with the same value changes nothing.
    let live = ownership::written(&current);
    let entries = ownership::entries_of(&current);
    let applied = ownership::with_writer(sim, req, target.kind, |w| {
        managed::apply(&entries, &live, &config, w, force)
    });
    match applied {
        Err(conflicts) => Response::json(409, &managed::conflict_status(&conflicts)),
        Ok((merged, owned)) => match repeats {
            Ok(warnings) => write::warned(
                write::write_patched(
                    sim,
                    req,
                    user,
                    target,
                    part,
                    &current,
                    merged,
                    Some(owned),
                    None,
                ),
                warnings,
            ),
            Err(r) => r,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{send, served};
    use super::*;

    fn apply_req(path: &str, body: &str) -> Request {
        Request {
            content_type: APPLY.into(),
            body: body.as_bytes().to_vec(),
            ..Request::new("PATCH", path)
        }
    }

    const CM: &str = "/api/v1/namespaces/shop/configmaps/ssa";

    #[test]
    fn an_apply_creates_then_updates_the_object() {
        let mut s = served();
        let body =
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n  labels:\n    a: \"1\"\n";
        let r = send(
            &mut s,
            &apply_req(&format!("{CM}?fieldManager=kubectl"), body),
        );
        assert_eq!(r.code, 201, "{:?}", r.value());
        assert_eq!(r.value()["metadata"]["labels"]["a"], "1");
        let body = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"ssa\",\"labels\":{\"b\":\"2\"}}}";
        let r = send(
            &mut s,
            &apply_req(&format!("{CM}?fieldManager=kubectl"), body),
        );
        assert_eq!(r.code, 200, "{:?}", r.value());
        assert_eq!(r.value()["metadata"]["labels"]["b"], "2");
        // A dry run creates nothing.
        let dry = "/api/v1/namespaces/shop/configmaps/dry?fieldManager=k&dryRun=All";
        let body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry\n";
        assert_eq!(send(&mut s, &apply_req(dry, body)).code, 201);
        let get = Request::new("GET", "/api/v1/namespaces/shop/configmaps/dry");
        assert_eq!(send(&mut s, &get).code, 404);
    }

    #[test]
    fn an_apply_is_refused_as_kube_apiserver_refuses_it() {
        let mut s = served();
        let ok = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n";
        let r = send(&mut s, &apply_req(CM, ok));
        assert_eq!(r.code, 422);
        assert_eq!(
            r.value()["message"],
            "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch"
        );
        let cases = [
            (
                "apiVersion: v2\nkind: ConfigMap\nmetadata:\n  name: ssa\n",
                400,
            ),
            (
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n",
                400,
            ),
            ("apiVersion: v1\nkind: [ConfigMap\n", 400),
        ];
        for (body, code) in cases {
            let r = send(&mut s, &apply_req(&format!("{CM}?fieldManager=k"), body));
            assert_eq!(r.code, code, "{body}: {:?}", r.value());
        }
        let merge = Request {
            content_type: "application/merge-patch+json".into(),
            body: b"{}".to_vec(),
            ..Request::new("PATCH", "/api/v1/namespaces/shop/configmaps/x?force=true")
        };
        assert_eq!(send(&mut s, &merge).code, 422);
        let missing_ns = "/api/v1/namespaces/nowhere/configmaps/ssa?fieldManager=k";
        assert_eq!(send(&mut s, &apply_req(missing_ns, ok)).code, 404);
    }
}
