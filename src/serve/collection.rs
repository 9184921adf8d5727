//! DELETE on a collection (RBAC's `deletecollection`), as kube-apiserver's
//! generic store does it (`apiserver/pkg/registry/generic/registry/store.go`,
//! `DeleteCollection`, 1.20): the collection listed with the request's
//! selectors, each object listed deleted with the request's
//! `DeleteOptions` (one already gone is no error), and the list answered as
//! it was listed, before the deletes. client-go's `DeleteCollection` and
//! the namespace controller send it; `kubectl delete --all` lists and
//! deletes one by one.

use super::negotiate::Form;
use super::query::ListOptions;
use super::state::Served;
use super::write::{Named, delete_options};
use super::{Request, Response, events, read, status};
use crate::model::KindInfo;
use crate::sim::Key;

/// `DELETE /api/v1/namespaces/NS/configmaps?labelSelector=...`.
#[must_use]
pub fn delete_collection(
    served: &mut Served,
    req: &Request,
    kind: &KindInfo,
    namespace: Option<&str>,
) -> Response {
    // A namespaced kind's collection is deleted in one namespace at a time.
    if kind.namespaced && namespace.is_none() {
        return status::error(
            405,
            "the server does not allow this method on the requested resource",
        );
    }
    let opts = match ListOptions::from_query(&req.query) {
        Ok(o) => o,
        Err(e) => return status::error(400, &e),
    };
    if let Err(e) = opts.fields.check(kind) {
        return status::error(400, &e);
    }
    let (delete, dry) = match delete_options(req) {
        Ok(x) => x,
        Err(r) => return r,
    };
    let listed = read::list(served, kind, namespace, &opts, Form::Full);
    let (group, stored) = events::stored_kind(kind);
    let keys: Vec<Key> = served
        .index
        .scan(group, stored, namespace, opts.after.as_deref())
        .map(|o| &**o)
        .filter(|o| read::in_scope(o, kind, namespace, &opts))
        .take(opts.limit.unwrap_or(usize::MAX))
        .map(Key::of)
        .collect();
    let mut copy = dry.then(|| served.sim.clone());
    for key in keys {
        let sim = copy.as_mut().unwrap_or(&mut served.sim);
        let resp = sim.delete_key(&key, &delete);
        if !resp.is_success() && resp.code != 404 {
            let target = Named {
                kind,
                namespace: key.namespace.clone(),
                name: key.name.clone(),
            };
            return target.failed(&resp);
        }
        if dry && let Some(o) = served.sim.get(&key) {
            let what = format!("{} (deletecollection) dryRun=All", delete.describe());
            served.sim.record_response(o.obj_ref(), what, &resp);
        }
    }
    listed
}

#[cfg(test)]
mod tests {
    use super::super::{Outcome, handler};
    use super::*;
    use crate::model::Object;
    use crate::sim::{Sim, scenario};

    fn send(s: &mut Served, method: &str, path: &str) -> Response {
        match handler::handle(s, &Request::new(method, path), "https://127.0.0.1:1") {
            Outcome::Reply(r) => r,
            Outcome::Watch(_) => panic!("a reply"),
        }
    }

    fn served() -> Served {
        let mut s =
            Served::new(Sim::new(&scenario::bundled("deployment").expect("bundled")).expect("sim"));
        for (name, app) in [("a", "x"), ("b", "x"), ("c", "y")] {
            let mut cm = Object::new("v1", "ConfigMap", Some("shop"), name);
            cm.metadata.labels.insert("app".into(), app.into());
            s.sim.create(cm);
        }
        s.pump();
        s
    }

    fn names(s: &Served) -> Vec<String> {
        let mut v: Vec<String> = s
            .sim
            .objects()
            .filter(|o| o.kind == "ConfigMap" && o.namespace() == Some("shop"))
            .map(|o| o.name().to_string())
            .collect();
        v.sort();
        v
    }

    fn items(r: &Response) -> Vec<String> {
        let v: serde_json::Value = serde_json::from_slice(&r.body).expect("json");
        assert_eq!(v["kind"], "ConfigMapList", "{v}");
        v["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|i| {
                i["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn the_selected_objects_go_and_the_list_is_answered() {
        let mut s = served();
        let r = send(
            &mut s,
            "DELETE",
            "/api/v1/namespaces/shop/configmaps?labelSelector=app%3Dx",
        );
        assert_eq!(r.code, 200);
        assert_eq!(items(&r), ["a", "b"]);
        assert_eq!(names(&s), ["c"]);
        let r = send(
            &mut s,
            "DELETE",
            "/api/v1/namespaces/shop/configmaps?fieldSelector=metadata.name%3Dc",
        );
        assert_eq!(items(&r), ["c"]);
        assert!(names(&s).is_empty());
        // Nothing selected: an empty list, not an error.
        let r = send(
            &mut s,
            "DELETE",
            "/api/v1/namespaces/shop/configmaps?labelSelector=nothing%3Dhere",
        );
        assert_eq!((r.code, items(&r).len()), (200, 0));
    }

    #[test]
    fn a_dry_run_deletes_nothing_and_bad_requests_are_refused() {
        let mut s = served();
        let r = send(
            &mut s,
            "DELETE",
            "/api/v1/namespaces/shop/configmaps?dryRun=All",
        );
        assert_eq!(items(&r), ["a", "b", "c"]);
        assert_eq!(names(&s), ["a", "b", "c"]);
        assert_eq!(
            send(
                &mut s,
                "DELETE",
                "/api/v1/namespaces/shop/configmaps?dryRun=true"
            )
            .code,
            422
        );
        assert_eq!(
            send(
                &mut s,
                "DELETE",
                "/api/v1/namespaces/shop/configmaps?labelSelector=a%20%3D%3D%3D%20b"
            )
            .code,
            400
        );
        // Every namespace at once is not offered for a namespaced kind.
        assert_eq!(send(&mut s, "DELETE", "/api/v1/configmaps").code, 405);
        assert_eq!(names(&s), ["a", "b", "c"]);
    }
}
