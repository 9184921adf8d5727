//! OpenAPI v3, only as far as kubectl needs it: since 1.27 `kubectl
//! create` and `replace` ask `/openapi/v3` whether the server validates
//! fields itself (`fieldValidation` on each kind's PATCH); this says it
//! does, so kubectl sends `fieldValidation=Strict` and needs no schema.
//! No schemas are served (`/openapi/v2` answers 404: kubectl 1.20 then
//! wants `--validate=false`).

use serde_json::{Map, Value, json};

use super::discovery::groups;
use crate::model::KindTable;

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
    for k in list {
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
        "components": {"schemas": {}}
    }))
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
        assert!(group_version(&k, "apis/nope/v1").is_none());
        assert!(group_version(&k, "x").is_none());
    }
}
