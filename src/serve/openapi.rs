//! OpenAPI, as kubectl reads it. `/openapi/v3` lists one document per
//! group version; each (`/openapi/v3/api/v1`, `/openapi/v3/apis/G/V`)
//! holds, per kind:
//!
//! - a PATCH on the object's path that takes `fieldValidation`: since 1.27
//!   `kubectl create` and `replace` ask it whether the server validates
//!   fields itself, then send `fieldValidation=Strict`; `kubectl explain`
//!   finds the kind's group, version and kind there;
//! - the kind's schema with every schema it refers to, transitively, as
//!   kube-apiserver 1.20.2 describes them (its `/openapi/v2`, trimmed to the
//!   kinds served: `assets/openapi/`), in v3 form (`$ref:
//!   #/components/schemas/...`, a reference with a description of its own
//!   under `allOf`, as kube-apiserver's v3 documents have it), so `kubectl
//!   explain pods.spec.containers.image` prints upstream's description. A
//!   kind 1.20 does not have in that version (a custom resource,
//!   `batch/v1` CronJob, ServiceCIDR) has a schema of its top-level fields
//!   only (`apiVersion`, `kind`, `metadata`, `spec`, `status`).
//!
//! The access reviews of `authorization.k8s.io/v1`, created only, have a
//! POST on their collection instead, as on kube-apiserver, where `kubectl
//! explain` finds them too.
//!
//! `/openapi/v2` is the same schemas in v2 form (`definitions`, no paths),
//! in JSON, or in protobuf as kubectl before 1.27 asks for it
//! ([`super::openapi_pb`]); kubectl 1.27 and later read v3.
//!
//! The embedded document is read on the first request that needs it, each
//! definition kept as its text until a document takes it; each answer is
//! built once per server for the kinds it was asked with.

use std::collections::{BTreeMap, HashMap};
use std::sync::LazyLock;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::discovery::{AUTHZ, REVIEWS, groups};
use crate::model::{KindInfo, KindTable};

/// kube-apiserver 1.20.2's `/openapi/v2`, trimmed (Apache-2.0, The
/// Kubernetes Authors; `assets/openapi/README.md` says how it is made).
const UPSTREAM_JSON: &str = include_str!("../../assets/openapi/kubernetes-1.20.json");

/// How v2 refers to a schema, and how v3 does.
const V2_REF: &str = "#/definitions/";
const V3_REF: &str = "#/components/schemas/";

/// The upstream definitions, each kept as the text it is in the embedded
/// document (parsed when a document needs it), and, by group, version and
/// kind, the name of each kind's.
struct Upstream {
    definitions: HashMap<&'static str, &'static RawValue>,
    kinds: HashMap<(String, String, String), &'static str>,
}

/// The embedded document's shape, as far as it is read at once.
#[derive(Deserialize)]
struct Document {
    #[serde(borrow)]
    definitions: HashMap<&'static str, &'static RawValue>,
}

/// Of a definition, the kinds it is.
#[derive(Deserialize)]
struct Head {
    #[serde(rename = "x-kubernetes-group-version-kind", default)]
    gvk: Vec<Gvk>,
}

#[derive(Deserialize)]
struct Gvk {
    group: String,
    version: String,
    kind: String,
}

static UPSTREAM: LazyLock<Upstream> = LazyLock::new(|| Upstream::parse(UPSTREAM_JSON));

impl Upstream {
    fn parse(text: &'static str) -> Upstream {
        let definitions = match serde_json::from_str::<Document>(text) {
            Ok(d) => d.definitions,
            Err(e) => {
                tracing::error!("the embedded OpenAPI document does not parse: {e}");
                HashMap::new()
            }
        };
        let mut kinds = HashMap::new();
        for (name, d) in &definitions {
            let head = serde_json::from_str::<Head>(d.get()).map_or_else(|_| Vec::new(), |h| h.gvk);
            for g in head {
                kinds.insert((g.group, g.version, g.kind), *name);
            }
        }
        Upstream { definitions, kinds }
    }

    /// The name of `k`'s definition, when 1.20 has the kind in its version.
    fn of(&self, group: &str, version: &str, kind: &str) -> Option<&'static str> {
        self.kinds
            .get(&(group.to_string(), version.to_string(), kind.to_string()))
            .copied()
    }

    /// `name` and every definition it refers to, transitively, into `out`.
    fn close_over(&self, name: &str, out: &mut BTreeMap<String, Value>) {
        let mut todo = vec![name.to_string()];
        while let Some(n) = todo.pop() {
            if out.contains_key(&n) {
                continue;
            }
            let Some(d) = self
                .definitions
                .get(n.as_str())
                .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
            else {
                continue;
            };
            refs(&d, &mut todo);
            out.insert(n, d);
        }
    }
}

/// Every upstream definition, parsed (all at once, on the first call):
/// the schemas field validation walks ([`super::field_validation`]).
static PARSED: LazyLock<HashMap<&'static str, Value>> = LazyLock::new(|| {
    UPSTREAM
        .definitions
        .iter()
        .filter_map(|(n, raw)| Some((*n, serde_json::from_str::<Value>(raw.get()).ok()?)))
        .collect()
});

/// The upstream definitions, parsed, by name.
pub(super) fn definitions() -> &'static HashMap<&'static str, Value> {
    &PARSED
}

/// The name of the definition of `group`/`version` `kind` when 1.20 has
/// the kind in that version.
pub(super) fn definition_of(group: &str, version: &str, kind: &str) -> Option<&'static str> {
    UPSTREAM.of(group, version, kind)
}

/// The names `v` refers to (`$ref: #/definitions/NAME`), pushed on `out`.
fn refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    // A property named `$ref` (a JSONSchemaProps') is an
                    // object, not a reference.
                    ("$ref", Value::String(r)) => {
                        out.push(r.strip_prefix(V2_REF).unwrap_or(r).to_string());
                    }
                    _ => refs(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

/// A v2 schema in v3 form: references into `#/components/schemas/`, and
/// a reference with siblings (a field's description) wrapped in `allOf`,
/// since v3 ignores what stands beside a `$ref`.
fn to_v3(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let reference = match m.get("$ref") {
                Some(Value::String(r)) => Some(match r.strip_prefix(V2_REF) {
                    Some(name) => format!("{V3_REF}{name}"),
                    None => r.clone(),
                }),
                _ => None,
            };
            let is_ref = reference.is_some();
            let rest = m
                .iter()
                .filter(|(k, _)| !is_ref || k.as_str() != "$ref")
                .map(|(k, x)| (k.clone(), to_v3(x)));
            match reference {
                None => Value::Object(rest.collect()),
                Some(r) if m.len() == 1 => json!({ "$ref": r }),
                Some(r) => {
                    let mut out = Map::new();
                    out.insert("allOf".into(), json!([{ "$ref": r }]));
                    out.extend(rest);
                    Value::Object(out)
                }
            }
        }
        Value::Array(a) => Value::Array(a.iter().map(to_v3).collect()),
        other => other.clone(),
    }
}

/// The schemas of `kinds` (and of the access reviews when `reviews`), by
/// name: upstream's with all they refer to (in v3 form when `v3`), a
/// top-level one for a kind 1.20 does not have.
fn schemas<'k>(
    kinds: impl IntoIterator<Item = &'k KindInfo>,
    reviews: bool,
    v3: bool,
) -> Map<String, Value> {
    let upstream = &*UPSTREAM;
    let mut found = BTreeMap::new();
    let mut out = Map::new();
    if reviews {
        for (_, kind, _) in REVIEWS {
            if let Some(name) = upstream.of(AUTHZ, "v1", kind) {
                upstream.close_over(name, &mut found);
            }
        }
    }
    for k in kinds {
        match upstream.of(&k.group, &k.version, &k.kind) {
            Some(name) => upstream.close_over(name, &mut found),
            None => {
                out.insert(schema_name(k), schema(k));
            }
        }
    }
    for (name, d) in found {
        out.insert(name, if v3 { to_v3(&d) } else { d });
    }
    out
}

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
/// with a PATCH that takes `fieldValidation`, and the kinds' schemas.
#[must_use]
pub fn group_version(kinds: &KindTable, path: &str) -> Option<Value> {
    let all = groups(kinds);
    let (group, version) = match path.split('/').collect::<Vec<_>>().as_slice() {
        ["api", v] => (String::new(), (*v).to_string()),
        ["apis", g, v] => ((*g).to_string(), (*v).to_string()),
        _ => return None,
    };
    let list = all.get(&group)?.get(&version)?;
    let reviews = group == AUTHZ && version == "v1";
    let mut paths = Map::new();
    if reviews {
        // Created only: kubectl explain finds them by their POST, as on
        // kube-apiserver.
        for (plural, kind, namespaced) in REVIEWS {
            let within = if *namespaced {
                "namespaces/{namespace}/"
            } else {
                ""
            };
            paths.insert(
                format!("/{}/{within}{plural}", gv_path(&group, &version)),
                json!({"post": {
                    "x-kubernetes-group-version-kind": {"group": AUTHZ, "version": "v1", "kind": kind},
                    "responses": {"201": {"description": "Created"}}
                }}),
            );
        }
    }
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
        "components": {"schemas": schemas(list.iter(), reviews, true)}
    }))
}

/// `/openapi/v2`: the schemas of every kind served, in v2 form.
#[must_use]
pub fn v2(kinds: &KindTable) -> Value {
    json!({
        "swagger": "2.0",
        "info": {"title": "ownerscope simulator", "version": "v1"},
        "paths": {},
        "definitions": schemas(kinds.iter(), true, false)
    })
}

/// The answers built, by what follows `/openapi/`: the kinds they were
/// built from and the JSON body. One per server.
#[derive(Default)]
pub struct Answers(HashMap<String, (String, Vec<u8>)>);

impl std::fmt::Debug for Answers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.keys()).finish()
    }
}

impl Answers {
    /// The JSON body of `/openapi/REST` (`v2`, `v3`, `v3/api/v1`, ...),
    /// `None` when there is no such document. The group versions' and
    /// v2's are built once for a set of kinds.
    pub fn get(&mut self, kinds: &KindTable, rest: &str) -> Option<Vec<u8>> {
        let bytes = |v: Value| serde_json::to_vec(&v).unwrap_or_default();
        if rest == "v3" {
            return Some(bytes(root(kinds)));
        }
        self.cached(kinds, rest, || match rest {
            "v2" => Some(bytes(v2(kinds))),
            _ => Some(bytes(group_version(kinds, rest.strip_prefix("v3/")?)?)),
        })
    }

    /// `/openapi/v2` in protobuf, built once for a set of kinds.
    pub fn v2_protobuf(&mut self, kinds: &KindTable) -> Vec<u8> {
        // Kept apart from the paths' answers: no path is empty.
        self.cached(kinds, "", || Some(super::openapi_pb::document(&v2(kinds))))
            .unwrap_or_default()
    }

    /// The body kept under `key` if it was built for these kinds, else the
    /// one `build` makes, kept.
    fn cached(
        &mut self,
        kinds: &KindTable,
        key: &str,
        build: impl FnOnce() -> Option<Vec<u8>>,
    ) -> Option<Vec<u8>> {
        let signature = kinds
            .iter()
            .map(|k| {
                format!(
                    "{}/{}/{}/{}/{}",
                    k.group, k.version, k.kind, k.plural, k.namespaced
                )
            })
            .collect::<Vec<_>>()
            .join(",");
        if let Some((s, body)) = self.0.get(key)
            && *s == signature
        {
            return Some(body.clone());
        }
        let body = build()?;
        self.0.insert(key.to_string(), (signature, body.clone()));
        Some(body)
    }
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
#[path = "openapi_tests.rs"]
mod tests;
