//! OpenAPI v3, as far as kubectl needs it: since 1.27 `kubectl create`
//! and `replace` ask `/openapi/v3` whether the server validates fields
//! itself (`fieldValidation` on each kind's PATCH); this says it does, so
//! kubectl sends `fieldValidation=Strict` and needs no schema. Each kind
//! has a schema of its top-level fields (`apiVersion`, `kind`,
//! `metadata`, `spec`, `status`), found by its group, version and kind, so
//! `kubectl explain pods` answers; the fields below them are not
//! described. `/openapi/v2` is not served (404): it is protobuf-encoded
//! for kubectl, and only kubectl before 1.27 reads it (for `explain`,
//! and for client-side validation: `--validate=false` then).

use serde_json::{Map, Value, json};

use super::discovery::groups;
use crate::model::{KindInfo, KindTable};

/// `api/v1`, `apis/apps/v1`.
fn gv_path(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("api/{version}")
    } else {
        format!("apis/{group}/{version}")
    }
}

/// `/openapi/v3`: one entry per group version.
#[must_use]
pub fn root(kinds: &KindTable) -> Value {
    let mut paths = Map::new();
    for (g, versions) in groups(kinds) {
        for v in versions.keys() {
            let p = gv_path(&g, v);
            paths.insert(
                p.clone(),
                json!({"serverRelativeURL": format!("/openapi/v3/{p}?hash=ownerscope")}),
            );
        }
    }
    json!({"paths": paths})
}

/// `/openapi/v3/api/v1`, `/openapi/v3/apis/G/V`: each kind's object path
/// with a PATCH that takes `fieldValidation`.
#[must_use]
pub fn group_version(kinds: &KindTable, path: &str) -> Option<Value> {
    let all = groups(kinds);
    let (group, version) = match path.split('/').collect::<Vec<_>>().as_slice() {
        ["api", v] => (String::new(), (*v).to_string()),
        ["apis", g, v] => ((*g).to_string(), (*v).to_string()),
        _ => return None,
    };
    let list = all.get(&group)?.get(&version)?;
    let mut paths = Map::new();
    let mut schemas = Map::new();
    for k in list {
        schemas.insert(schema_name(k), schema(k));
        let object_path = if k.namespaced {
            format!(
                "/{}/namespaces/{{namespace}}/{}/{{name}}",
                gv_path(&group, &version),
                k.plural
            )
        } else {
            format!("/{}/{}/{{name}}", gv_path(&group, &version), k.plural)
        };
        paths.insert(
            object_path,
            json!({"patch": {
                "x-kubernetes-group-version-kind": {"group": k.group, "version": k.version, "kind": k.kind},
                "parameters": [
                    {"name": "fieldValidation", "in": "query", "schema": {"type": "string"}},
                    {"name": "dryRun", "in": "query", "schema": {"type": "string"}}
                ],
                "responses": {"200": {"description": "OK"}}
            }}),
        );
    }
    Some(json!({
        "openapi": "3.0.0",
        "info": {"title": "ownerscope simulator", "version": "v1"},
        "paths": paths,
        "components": {"schemas": schemas}
    }))
}

/// A kind's schema name, as upstream names the built-in ones
/// (`io.k8s.api.core.v1.Pod`).
fn schema_name(k: &KindInfo) -> String {
    let group = match k.group.as_str() {
        "" => "core",
        g => g.strip_suffix(".k8s.io").unwrap_or(g),
    };
    format!("io.k8s.api.{group}.{}.{}", k.version, k.kind)
}

/// A kind's top-level fields, described.
fn schema(k: &KindInfo) -> Value {
    let field = |t: &str, d: &str| json!({"type": t, "description": d});
    json!({
        "description": format!(
            "{} {}: an object of the ownerscope simulator, which keeps its metadata whole and, of spec and status, the fields the deletion rules and controllers read.",
            k.kind, k.api_version()
        ),
        "type": "object",
        "x-kubernetes-group-version-kind": [
            {"group": k.group, "version": k.version, "kind": k.kind}
        ],
        "properties": {
            "apiVersion": field("string", "APIVersion defines the versioned schema of this representation of an object."),
            "kind": field("string", "Kind is a string value representing the REST resource this object represents."),
            "metadata": field("object", "Standard object's metadata: name, namespace, uid, labels, annotations, finalizers, ownerReferences, deletionTimestamp, ..."),
            "spec": field("object", "The desired state: of it the simulator keeps what its rules read."),
            "status": field("object", "The observed state: of it the simulator keeps what its rules read."),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_says_it_validates_fields() {
        let k = KindTable::builtin();
        let r = root(&k);
        assert!(r["paths"]["apis/apps/v1"]["serverRelativeURL"].is_string());
        let doc = group_version(&k, "apis/apps/v1").expect("apps");
        let patch =
            &doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"];
        assert_eq!(
            patch["x-kubernetes-group-version-kind"]["kind"],
            "Deployment"
        );
        let s = &doc["components"]["schemas"]["io.k8s.api.apps.v1.Deployment"];
        assert_eq!(
            s["x-kubernetes-group-version-kind"][0]["kind"],
            "Deployment"
        );
        assert_eq!(s["properties"]["spec"]["type"], "object");
        assert!(group_version(&k, "apis/nope/v1").is_none());
        assert!(group_version(&k, "x").is_none());
    }
}
