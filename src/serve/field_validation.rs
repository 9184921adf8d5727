//! Server-side field validation: what becomes of the fields of a written
//! object that its kind's schema does not declare, as kube-apiserver 1.25
//! and later decide it (`apiserver/pkg/endpoints/handlers`: `create.go`,
//! `update.go`, `patch.go`, and `rest.go`'s `fieldValidation`), by the
//! write's `fieldValidation` query parameter:
//!
//! - `Strict`: the write is refused. A create or an update answers 400,
//!   `Deployment in version "v1" cannot be handled as a Deployment: strict
//!   decoding error: unknown field "spec.replica"` (`transformDecodeError`);
//!   a merge, strategic or JSON patch 422, `"" is invalid: patch: Invalid
//!   value: "{...}": strict decoding error: ...`, the patched object shown
//!   (of a strategic merge patch, the patch). A patch is checked for the
//!   fields it brings: what the stored object held unchanged is not its.
//! - `Warn`: the write is taken, with a warning per field (`Warning: 299 -
//!   "unknown field \"spec.replica\""`), which kubectl prints.
//! - `Ignore`: the write is taken and the fields dropped, silently.
//!
//! Absent, it is `Warn`, as upstream's `fieldValidation("")` resolves it
//! since the feature's beta (1.25): a client that says nothing is warned,
//! and kubectl (1.27 and later) sends `Strict` unless `--validate` says
//! otherwise. Another value is refused (422 of `CreateOptions`,
//! `UpdateOptions` or `PatchOptions`, `ValidateFieldValidation`'s words).
//! Kubernetes 1.20 has no such parameter and takes any field on the server
//! side; its kubectl validated on the client. serve's `/openapi/v3`
//! says it validates ([`super::openapi`]), so kubectl leaves it to serve.
//!
//! The fields are found by walking only the written object against its
//! kind's schema, each unknown one named by its path (`spec.template.spec.
//! containers[0].imagePullPolicyy`, a map's entry as `[key]`), all of them
//! sorted:
//!
//! - a kind 1.20 has in the version served: 1.20's schema, embedded
//!   ([`super::openapi::definitions`]): `properties`, `additionalProperties`
//!   (maps), arrays' `items`; a schema with neither properties nor
//!   additional properties (`RawExtension`, a CRD's `JSON`) takes anything;
//! - a custom resource: its CRD's structural schema for the version
//!   (`spec.versions[].schema.openAPIV3Schema`, v1beta1's
//!   `spec.validation`), `x-kubernetes-preserve-unknown-fields` honoured, an
//!   `x-kubernetes-embedded-resource` taking `apiVersion`, `kind` and
//!   `metadata`; a CRD without a schema, or with `preserveUnknownFields`,
//!   takes any field but in `metadata`;
//! - a kind 1.20 does not have in that version (`batch/v1` CronJob,
//!   ServiceCIDR): its top-level fields only (`apiVersion`, `kind`,
//!   `metadata`, `spec`, `status`), as `/openapi/v3` describes it.
//!
//! `metadata` is always walked as 1.20's `ObjectMeta`. Server-side apply
//! refuses an unknown field whatever the parameter, as 1.20 does already
//! (500, `failed to create typed patch object: .spec.replica: field not
//! declared in schema`, the structured-merge typing's words; several listed
//! sorted, where 1.20 lists them in its walk's order).
//!
//! Not modelled: a duplicate field (`duplicate field "metadata.name"`), since
//! the body is read as a JSON tree that keeps a repeated key's last value;
//! an unknown field set to `null` is not reported (serve's patched objects
//! hold nulls for fields absent).

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::escalation::go_quote;
use super::status::{self, status_value};
use super::{Request, Response, read};
use crate::model::KindInfo;
use crate::sim::{Key, Sim};

/// What a write asks to become of unknown fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Directive {
    Strict,
    Warn,
    Ignore,
}

const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const REF: &str = "#/definitions/";

/// The write's directive (`options`: `CreateOptions`, `UpdateOptions` or
/// `PatchOptions`, for the 422 of another value).
///
/// # Errors
/// A value that is not one of the three, in `ValidateFieldValidation`'s
/// words.
pub fn directive(req: &Request, options: &str) -> Result<Directive, Response> {
    match req.param("fieldValidation").unwrap_or_default() {
        "" | "Warn" => Ok(Directive::Warn),
        "Strict" => Ok(Directive::Strict),
        "Ignore" => Ok(Directive::Ignore),
        other => {
            let cause = format!(
                "Unsupported value: {}: supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"",
                go_quote(other)
            );
            Err(super::admit::unsupported_option(
                options,
                "fieldValidation",
                &cause,
            ))
        }
    }
}

/// A kind's schema, as the walk reads it.
pub enum Schema {
    /// 1.20's definition of the kind.
    Builtin(&'static Value),
    /// A CRD's `openAPIV3Schema`.
    Custom(Value),
    /// Only the top-level fields are known.
    TopLevel,
}

impl Schema {
    /// `kind`'s schema: 1.20's, else its CRD's (read from `sim`'s store),
    /// else its top level.
    #[must_use]
    pub fn of(sim: &Sim, kind: &KindInfo) -> Schema {
        if let Some(d) = super::openapi::definition_of(&kind.group, &kind.version, &kind.kind)
            .and_then(|n| super::openapi::definitions().get(n))
        {
            return Schema::Builtin(d);
        }
        let key = Key {
            group: "apiextensions.k8s.io".into(),
            kind: "CustomResourceDefinition".into(),
            namespace: None,
            name: format!("{}.{}", kind.plural, kind.group),
        };
        match sim.get(&key) {
            Some(crd) => Schema::Custom(
                crd_schema(&read::object_value(crd), &kind.version)
                    .unwrap_or_else(|| json!({"x-kubernetes-preserve-unknown-fields": true})),
            ),
            None => Schema::TopLevel,
        }
    }

    /// The unknown fields of `obj`, by path, sorted.
    #[must_use]
    pub fn unknown_fields(&self, obj: &Value) -> Vec<String> {
        self.walk(obj, false).0
    }

    /// The unknown fields of `obj`, by path (a list item by its merge
    /// key when `keyed`), sorted.
    fn walk(&self, obj: &Value, keyed: bool) -> (Vec<String>, Vec<Vec<String>>) {
        let top = json!({"properties": {
            "spec": {"x-kubernetes-preserve-unknown-fields": true},
            "status": {"x-kubernetes-preserve-unknown-fields": true},
        }});
        let root = match self {
            Schema::Builtin(d) => d,
            Schema::Custom(s) => s,
            Schema::TopLevel => &top,
        };
        let mut walk = Walk {
            defs: super::openapi::definitions(),
            keyed,
            found: Vec::new(),
            at: Vec::new(),
            found_at: Vec::new(),
        };
        if let Value::Object(m) = obj {
            walk.resource(root, m, "");
        }
        walk.found.sort();
        (walk.found, walk.found_at)
    }
}

/// A CRD's schema of `version`: `spec.versions[].schema.openAPIV3Schema`,
/// else v1beta1's `spec.validation.openAPIV3Schema`; `None` when it has
/// none or keeps unknown fields (`spec.preserveUnknownFields`).
fn crd_schema(crd: &Value, version: &str) -> Option<Value> {
    let spec = &crd["spec"];
    if spec["preserveUnknownFields"] == true {
        return None;
    }
    spec["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|v| v["name"] == version)
        .map(|v| &v["schema"]["openAPIV3Schema"])
        .filter(|s| s.is_object())
        .or_else(|| Some(&spec["validation"]["openAPIV3Schema"]).filter(|s| s.is_object()))
        .cloned()
}

/// The value at `ptr` (keys, an index as its digits) in `v`.
fn pointer<'v>(v: &'v Value, ptr: &[String]) -> Option<&'v Value> {
    ptr.iter().try_fold(v, |at, p| match at {
        Value::Object(m) => m.get(p),
        Value::Array(a) => p.parse::<usize>().ok().and_then(|i| a.get(i)),
        _ => None,
    })
}

/// Takes the field at `ptr` (keys, an index as its digits) out of `v`.
fn remove(v: &mut Value, ptr: &[String]) {
    let Some((last, parents)) = ptr.split_last() else {
        return;
    };
    let mut at = v;
    for p in parents {
        let next = match at {
            Value::Object(m) => m.get_mut(p),
            Value::Array(a) => p.parse::<usize>().ok().and_then(|i| a.get_mut(i)),
            _ => None,
        };
        match next {
            Some(x) => at = x,
            None => return,
        }
    }
    if let Value::Object(m) = at {
        m.remove(last);
    }
}

/// The walk of an object against a schema: the unknown fields found.
struct Walk<'d> {
    defs: &'d HashMap<&'static str, Value>,
    /// A list item by its merge key (`containers[name="c"]`) where the
    /// schema has one, as the structured merge names it; else by index.
    keyed: bool,
    found: Vec<String>,
    /// Where the walk is, key by key (an index as its digits), and where
    /// each field found is.
    at: Vec<String>,
    found_at: Vec<Vec<String>>,
}

/// `path.key`, or `key` at the top.
fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

impl<'d> Walk<'d> {
    /// `s` with its references followed (`$ref: #/definitions/NAME`).
    fn resolve<'s>(&self, mut s: &'s Value) -> &'s Value
    where
        'd: 's,
    {
        for _ in 0..8 {
            match s.get("$ref").and_then(Value::as_str) {
                Some(r) => match self.defs.get(r.strip_prefix(REF).unwrap_or(r)) {
                    Some(d) => s = d,
                    None => return &Value::Null,
                },
                None => break,
            }
        }
        s
    }

    /// An object that is a resource (the written one, or an embedded one):
    /// `apiVersion` and `kind` taken, `metadata` walked as `ObjectMeta`,
    /// the rest against `s`.
    fn resource(&mut self, s: &Value, m: &Map<String, Value>, path: &str) {
        let s = self.resolve(s);
        let preserve = preserves(s);
        for (k, x) in m {
            match k.as_str() {
                "apiVersion" | "kind" => {}
                "metadata" => {
                    let meta = json!({ "$ref": format!("{REF}{OBJECT_META}") });
                    self.at.push(k.clone());
                    self.value(&meta, x, &child(path, k));
                    self.at.pop();
                }
                _ if preserve => {}
                _ => self.field(s, k, x, path),
            }
        }
    }

    /// Field `k` (value `x`) of an object of schema `s` at `path`.
    fn field(&mut self, s: &Value, k: &str, x: &Value, path: &str) {
        self.at.push(k.to_string());
        if let Some(p) = s.get("properties").and_then(|p| p.get(k)) {
            self.value(p, x, &child(path, k));
        } else if let Some(a) = s.get("additionalProperties").filter(|a| a.is_object()) {
            self.value(a, x, &format!("{path}[{k}]"));
        } else if k.starts_with('$') || x.is_null() {
            // A strategic merge patch's directive (`$setElementOrder/...`,
            // `$patch`, `$retainKeys`), which a patched object may still
            // carry: the patch's, not a field. Or a null, which serve's
            // patched objects have for a field absent.
        } else if s.get("properties").is_some() || s["additionalProperties"] == false {
            self.found.push(child(path, k));
            self.found_at.push(self.at.clone());
        }
        self.at.pop();
    }

    /// A value `x` of schema `s` at `path`.
    fn value(&mut self, s: &Value, x: &Value, path: &str) {
        let s = self.resolve(s);
        if preserves(s) {
            return;
        }
        match x {
            Value::Object(m) if s["x-kubernetes-embedded-resource"] == true => {
                self.resource(s, m, path);
            }
            Value::Object(m) => {
                for (k, v) in m {
                    self.field(s, k, v, path);
                }
            }
            Value::Array(a) => {
                let Some(items) = s.get("items").filter(|i| i.is_object()) else {
                    return;
                };
                let key = s["x-kubernetes-patch-merge-key"]
                    .as_str()
                    .filter(|_| self.keyed);
                for (i, v) in a.iter().enumerate() {
                    let at = match key.and_then(|k| Some((k, v.get(k)?.as_str()?))) {
                        Some((k, name)) => format!("{path}[{k}={}]", go_quote(name)),
                        None => format!("{path}[{i}]"),
                    };
                    self.at.push(i.to_string());
                    self.value(items, v, &at);
                    self.at.pop();
                }
            }
            _ => {}
        }
    }
}

fn preserves(s: &Value) -> bool {
    s["x-kubernetes-preserve-unknown-fields"] == true
}

/// The unknown fields of a create's or an update's `body` of `kind`,
/// taken out of it, under the request's directive: `Ok` with the warnings to send (none
/// but under `Warn`), or the 400 of `Strict` (`options`: the options kind,
/// for the 422 of an unknown directive).
///
/// # Errors
/// As said.
pub fn check_body(
    sim: &Sim,
    req: &Request,
    kind: &KindInfo,
    body: &mut Value,
    options: &str,
) -> Result<Vec<String>, Response> {
    let directive = directive(req, options)?;
    let (found, at) = Schema::of(sim, kind).walk(body, false);
    if found.is_empty() || directive != Directive::Strict {
        return Ok(taken_out(body, &found, &at, directive));
    }
    Err(status::error(
        400,
        &format!(
            "{k} in version {v} cannot be handled as a {k}: strict decoding error: {}",
            warnings(&found).join(", "),
            k = kind.kind,
            v = go_quote(&kind.version),
        ),
    ))
}

/// The fields `found` (at `at`) taken out of `v`, as kube-apiserver's
/// decoding into its types drops them: the warnings to send, under `Warn`.
fn taken_out(v: &mut Value, found: &[String], at: &[Vec<String>], d: Directive) -> Vec<String> {
    for ptr in at {
        remove(v, ptr);
    }
    if d == Directive::Warn {
        warnings(found)
    } else {
        Vec::new()
    }
}

/// The warnings of `Warn`: one per field.
fn warnings(found: &[String]) -> Vec<String> {
    found
        .iter()
        .map(|p| format!("unknown field {}", go_quote(p)))
        .collect()
}

/// The unknown fields of a patched object `doc` of `kind` that the patch
/// brought (`before`: the object it was applied to), taken out of it,
/// under the request's directive: the warnings of `Warn`, or the 422 of `Strict`.
///
/// # Errors
/// As said.
pub fn check_patched(
    sim: &Sim,
    req: &Request,
    kind: &KindInfo,
    before: &Value,
    doc: &mut Value,
) -> Result<Vec<String>, Response> {
    let directive = directive(req, "PatchOptions")?;
    let (found, at) = Schema::of(sim, kind).walk(doc, false);
    // What the object carried already, unchanged, is not the patch's.
    let (found, at): (Vec<String>, Vec<Vec<String>>) = found
        .into_iter()
        .zip(at)
        .filter(|(_, ptr)| pointer(before, ptr).is_none_or(|b| Some(b) != pointer(doc, ptr)))
        .unzip();
    if found.is_empty() || directive != Directive::Strict {
        return Ok(taken_out(doc, &found, &at, directive));
    }
    // Upstream shows a strategic merge patch's patch, another patch's
    // patched object.
    let shown = if req.content_type.contains("strategic") {
        String::from_utf8_lossy(&req.body).into_owned()
    } else {
        doc.to_string()
    };
    let cause = format!(
        "Invalid value: {}: strict decoding error: {}",
        go_quote(&shown),
        warnings(&found).join(", ")
    );
    let message = format!("\"\" is invalid: patch: {cause}");
    let details =
        json!({"causes": [{"reason": "FieldValueInvalid", "message": cause, "field": "patch"}]});
    Err(Response::json(
        422,
        &status_value(422, &message, Some(details)),
    ))
}

/// An apply's configuration `applied` of `kind` checked as the structured
/// merge types it: a field its schema does not declare is refused,
/// whatever the directive (a list item named by its merge key, as there).
///
/// # Errors
/// The 500 kube-apiserver answers, a `Status` without a reason.
pub fn check_applied(sim: &Sim, kind: &KindInfo, applied: &Value) -> Result<(), Response> {
    let (found, _) = Schema::of(sim, kind).walk(applied, true);
    let listed = match found.as_slice() {
        [] => return Ok(()),
        [one] => format!(".{one}: field not declared in schema"),
        many => {
            let mut s = "errors:".to_string();
            for p in many {
                s.push_str(&format!("\n  .{p}: field not declared in schema"));
            }
            s
        }
    };
    let mut v = status_value(
        500,
        &format!("failed to create typed patch object: {listed}"),
        None,
    );
    if let Some(m) = v.as_object_mut() {
        m.remove("reason");
    }
    Err(Response::json(500, &v))
}

#[cfg(test)]
#[path = "field_validation_tests.rs"]
mod tests;
