//! Server-side field validation: what becomes of the fields of a written
//! object that its kind's schema does not declare, and of the keys its body
//! repeats, as kube-apiserver 1.25 and later decide it
//! (`apiserver/pkg/endpoints/handlers`: `create.go`, `update.go`,
//! `patch.go`, and `rest.go`'s `fieldValidation`), by the write's
//! `fieldValidation` query parameter:
//!
//! - `Strict`: the write is refused. A create or an update answers 400,
//!   `Deployment in version "v1" cannot be handled as a Deployment: strict
//!   decoding error: unknown field "spec.replica", duplicate field
//!   "spec.paused"` (`transformDecodeError`); a merge, strategic or JSON
//!   patch 422, `"" is invalid: patch: Invalid value: "{...}": strict
//!   decoding error: ...`, the patched object shown (of a strategic merge
//!   patch, the patch). A patch is checked for the fields it brings: what
//!   the stored object held unchanged is not its.
//! - `Warn`: the write is taken, with a warning per field (`Warning: 299 -
//!   "unknown field \"spec.replica\""`), which kubectl prints.
//! - `Ignore`: the write is taken and the fields dropped, silently; of a
//!   repeated key, the last value is kept.
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
//! containers[0].imagePullPolicyy`, a map's entry as `[key]`), whatever its
//! value (`null` too):
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
//! The repeated keys are found in a pass over the body's bytes
//! ([`super::duplicate_fields`]; the body read as a JSON tree keeps only a
//! repeated key's last value), each named as sigs.k8s.io/json's strict
//! decoding names it (`duplicate field "spec.template.spec.containers[0].
//! name"`, a map's entry as `.key`), each once, and in its order:
//!
//! - a create or an update of a typed kind: decoded in one pass into its
//!   type, the repeats of declared fields and of map entries in the body's
//!   order with the unknown fields (a field both unknown and repeated is
//!   named once, unknown; nothing inside an unknown or free-form field is
//!   looked into);
//! - a custom resource: decoded as a map, a repeat named wherever it is,
//!   all before the unknown fields (sorted, as pruning finds them);
//! - a merge or strategic merge patch: decoded as a map, its repeats before
//!   the patched object's unknown fields (sorted: upstream decodes the
//!   patched object from JSON it wrote, its keys sorted);
//! - a JSON patch: decoded as a list of operations, `json patch unknown
//!   field "[0].foo"` for a field an operation does not have, `json patch
//!   duplicate field "[1].path"` for one it repeats or a key its `value`
//!   repeats, then the patched object's unknown fields;
//! - an apply: its YAML (JSON is YAML) strict-decoded once the apply is
//!   made, its conflicts first: `error strict decoding YAML: error
//!   converting YAML to JSON: yaml: unmarshal errors:` and `line 10: key
//!   "paused" already set in map` per repeat (400 under `Strict`, a
//!   warning each under `Warn`). serve reads no other YAML body.
//!
//! `metadata` is always walked as 1.20's `ObjectMeta`. Server-side apply
//! refuses an unknown field whatever the parameter, as 1.20 does already
//! (500, `failed to create typed patch object: .spec.replica: field not
//! declared in schema`, the structured-merge typing's words; several listed
//! sorted, where 1.20 lists them in its walk's order).
//!
//! kubectl reads a manifest into a map and sends it again: `kubectl create
//! -f` sends no repeat (the last value taken); `kubectl create --raw` and
//! `kubectl patch` send theirs as written.
//!
//! Not modelled: where a typed kind's body repeats an object or a list,
//! Go's decoding reads the second into the first (`"data": {"x": "1"},
//! "data": {"y": "2"}` stores both keys, a list's items merged index by
//! index), where serve keeps the last whole; a custom resource's keeps the
//! last, as serve does. A kind known by its top level only has every
//! repeat under `spec` and `status` named.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::duplicate_fields::{self, Step};
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
        let mut found = self.walk(obj, false).0;
        found.sort();
        found
    }

    /// The unknown fields of `obj`, by path (a list item by its merge
    /// key when `keyed`), in the order of `obj`'s keys, and where each is.
    fn walk(&self, obj: &Value, keyed: bool) -> (Vec<String>, Vec<Vec<String>>) {
        let top = top_level();
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
        (walk.found, walk.found_at)
    }

    /// Whether the strict decoding names a repeat of the key at `path`: of
    /// a custom resource, read as a map, any; of a typed object, one of a
    /// field its schema declares or of a map's entry, reached through
    /// declared fields only (the decoding skips an unknown field's value
    /// whole, and hands a free-form one, a `RawExtension`, a `FieldsV1`, to
    /// a decoder of its own). Of a kind known by its top level only, any
    /// under `spec` and `status`.
    fn names_repeat(&self, path: &[Step]) -> bool {
        let top = top_level();
        let root = match self {
            Schema::Custom(_) => return true,
            Schema::Builtin(d) => d,
            Schema::TopLevel => &top,
        };
        let defs = super::openapi::definitions();
        let meta = json!({ "$ref": format!("{REF}{OBJECT_META}") });
        let Some((last, parents)) = path.split_last() else {
            return false;
        };
        let mut s = resolve(defs, root);
        for (depth, step) in parents.iter().enumerate() {
            let next = match step {
                Step::Key(k) if depth == 0 && k == "metadata" => Some(&meta),
                Step::Key(k) => s
                    .get("properties")
                    .and_then(|p| p.get(k))
                    .or_else(|| s.get("additionalProperties").filter(|a| a.is_object())),
                Step::Index(_) => s.get("items").filter(|i| i.is_object()),
            };
            let Some(next) = next else {
                return false;
            };
            s = resolve(defs, next);
            if preserves(s) {
                return true;
            }
        }
        match last {
            Step::Key(k) => {
                (parents.is_empty() && matches!(k.as_str(), "apiVersion" | "kind" | "metadata"))
                    || s.get("properties").is_some_and(|p| p.get(k).is_some())
                    || s.get("additionalProperties").is_some_and(Value::is_object)
            }
            Step::Index(_) => false,
        }
    }
}

/// The schema of a kind known by its top level only.
fn top_level() -> Value {
    json!({"properties": {
        "spec": {"x-kubernetes-preserve-unknown-fields": true},
        "status": {"x-kubernetes-preserve-unknown-fields": true},
    }})
}

/// `s` with its references followed (`$ref: #/definitions/NAME`).
fn resolve<'s>(defs: &'s HashMap<&'static str, Value>, mut s: &'s Value) -> &'s Value {
    for _ in 0..8 {
        match s.get("$ref").and_then(Value::as_str) {
            Some(r) => match defs.get(r.strip_prefix(REF).unwrap_or(r)) {
                Some(d) => s = d,
                None => return &Value::Null,
            },
            None => break,
        }
    }
    s
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
    /// `s` with its references followed.
    fn resolve<'s>(&self, s: &'s Value) -> &'s Value
    where
        'd: 's,
    {
        resolve(self.defs, s)
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
        } else if k.starts_with('$') {
            // A strategic merge patch's directive (`$setElementOrder/...`,
            // `$patch`, `$retainKeys`), which a patched object may still
            // carry: the patch's, not a field.
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
/// taken out of it, and the keys the request's body repeats, under the
/// request's directive: `Ok` with the warnings to send (none but under
/// `Warn`), or the 400 of `Strict` (`options`: the options kind, for the
/// 422 of an unknown directive).
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
    let schema = Schema::of(sim, kind);
    let (found, at) = schema.walk(body, false);
    let errors = if directive == Directive::Ignore {
        Vec::new()
    } else {
        body_errors(&schema, &req.body, body, &found, &at)
    };
    if errors.is_empty() || directive != Directive::Strict {
        return Ok(taken_out(body, errors, &at, directive));
    }
    Err(status::error(
        400,
        &format!(
            "{k} in version {v} cannot be handled as a {k}: strict decoding error: {}",
            errors.join(", "),
            k = kind.kind,
            v = go_quote(&kind.version),
        ),
    ))
}

/// How many strict decoding errors the decoder keeps
/// (`saveStrictError`).
const MAX_ERRORS: usize = 100;

/// A strict decoding error, where the decoding meets it (an offset in
/// the body; `None` where not known).
struct Strict {
    offset: Option<usize>,
    message: String,
}

/// The strict decoding errors of a create's or an update's `raw` body
/// (`body` as read, `found` its unknown fields, at `at`). A typed object
/// is decoded in one pass: its repeats and unknown fields come in the
/// body's order, a field both unknown and repeated named once, as
/// unknown. A custom resource is decoded as a map first (its repeats),
/// then pruned (its unknown fields, sorted).
fn body_errors(
    schema: &Schema,
    raw: &[u8],
    body: &Value,
    found: &[String],
    at: &[Vec<String>],
) -> Vec<String> {
    let repeats: Vec<Strict> = if raw.trim_ascii_start().starts_with(b"{") {
        duplicate_fields::repeats(raw)
            .into_iter()
            .filter(|r| schema.names_repeat(&r.path))
            .map(|r| Strict {
                offset: Some(r.offset),
                message: format!(
                    "duplicate field {}",
                    go_quote(&duplicate_fields::go_path(&r.path))
                ),
            })
            .collect()
    } else {
        Vec::new()
    };
    if let Schema::Custom(_) = schema {
        let mut unknown = found.to_vec();
        unknown.sort();
        let mut errors = deduped(repeats);
        errors.truncate(MAX_ERRORS);
        errors.extend(warnings(&unknown));
        return errors;
    }
    let unknown = located(raw, body, found, at, !repeats.is_empty());
    let mut errors = deduped(in_body_order(unknown, repeats));
    errors.truncate(MAX_ERRORS);
    errors
}

/// The unknown fields `found` (at `at` in `body`) as strict decoding
/// errors, located in `raw` when `locate` (to be put in order with
/// others).
fn located(
    raw: &[u8],
    body: &Value,
    found: &[String],
    at: &[Vec<String>],
    locate: bool,
) -> Vec<Strict> {
    let offsets = if locate {
        let paths: Vec<Vec<Step>> = at.iter().map(|p| steps_in(body, p)).collect();
        duplicate_fields::first_offsets(raw, &paths)
    } else {
        vec![None; found.len()]
    };
    found
        .iter()
        .zip(offsets)
        .map(|(p, offset)| Strict {
            offset,
            message: format!("unknown field {}", go_quote(p)),
        })
        .collect()
}

/// `a` and `b` (each in the body's order) merged in the body's order.
fn in_body_order(a: Vec<Strict>, b: Vec<Strict>) -> Vec<Strict> {
    if a.is_empty() {
        return b;
    }
    if b.is_empty() {
        return a;
    }
    let mut all: Vec<Strict> = a.into_iter().chain(b).collect();
    all.sort_by_key(|e| e.offset.unwrap_or(usize::MAX));
    all
}

/// The messages of `errors`, each once (`saveStrictError` drops an
/// error it has: a key given three times is one duplicate).
fn deduped(errors: Vec<Strict>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    errors
        .into_iter()
        .filter_map(|e| seen.insert(e.message.clone()).then_some(e.message))
        .collect()
}

/// `ptr` (keys, an index as its digits) as the steps of a path in `v`.
fn steps_in(v: &Value, ptr: &[String]) -> Vec<Step> {
    let mut at = Some(v);
    ptr.iter()
        .map(|p| match at {
            Some(Value::Array(a)) => {
                let i = p.parse::<usize>().unwrap_or(usize::MAX);
                at = a.get(i);
                Step::Index(i)
            }
            Some(Value::Object(m)) => {
                at = m.get(p);
                Step::Key(p.clone())
            }
            _ => {
                at = None;
                Step::Key(p.clone())
            }
        })
        .collect()
}

/// The fields at `at` taken out of `v`, as kube-apiserver's decoding into
/// its types drops them: the warnings to send (`errors`), under `Warn`.
fn taken_out(v: &mut Value, errors: Vec<String>, at: &[Vec<String>], d: Directive) -> Vec<String> {
    for ptr in at {
        remove(v, ptr);
    }
    if d == Directive::Warn {
        errors
    } else {
        Vec::new()
    }
}

/// The errors of unknown fields: one per field.
fn warnings(found: &[String]) -> Vec<String> {
    found
        .iter()
        .map(|p| format!("unknown field {}", go_quote(p)))
        .collect()
}

/// The unknown fields of a patched object `doc` of `kind` that the patch
/// brought (`before`: the object it was applied to), taken out of it, and
/// what the patch itself repeats, under the request's directive: the
/// warnings of `Warn`, or the 422 of `Strict`.
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
    let mut found: Vec<(String, Vec<String>)> = found
        .into_iter()
        .zip(at)
        .filter(|(_, ptr)| pointer(before, ptr).is_none_or(|b| Some(b) != pointer(doc, ptr)))
        .collect();
    // The patched object is decoded from upstream's patched JSON, its
    // keys sorted.
    found.sort();
    let (found, at): (Vec<String>, Vec<Vec<String>>) = found.into_iter().unzip();
    let mut errors = if directive == Directive::Ignore {
        Vec::new()
    } else {
        patch_errors(req)
    };
    errors.extend(warnings(&found));
    if errors.is_empty() || directive != Directive::Strict {
        return Ok(taken_out(doc, errors, &at, directive));
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
        errors.join(", ")
    );
    let message = format!("\"\" is invalid: patch: {cause}");
    let details =
        json!({"causes": [{"reason": "FieldValueInvalid", "message": cause, "field": "patch"}]});
    Err(Response::json(
        422,
        &status_value(422, &message, Some(details)),
    ))
}

/// The strict decoding errors of a patch itself (`patch.go`), before
/// those of the patched object: a merge or strategic merge patch is
/// decoded as a map, each key it repeats named (`duplicate field
/// "spec.paused"`); a JSON patch as a list of operations (`op`, `path`,
/// `from`, `value`), each error prefixed `json patch`: an operation's
/// other fields (`json patch unknown field "[0].foo"`), the fields it
/// repeats, and the keys its `value` repeats (`json patch duplicate field
/// "[1].path"`), in the patch's order.
fn patch_errors(req: &Request) -> Vec<String> {
    let raw = req.body.as_slice();
    let repeats = duplicate_fields::repeats(raw);
    let duplicate = |p: &[Step]| {
        format!(
            "duplicate field {}",
            go_quote(&duplicate_fields::go_path(p))
        )
    };
    if !req.content_type.contains("json-patch") {
        let mut errors = deduped(
            repeats
                .iter()
                .map(|r| Strict {
                    offset: None,
                    message: duplicate(&r.path),
                })
                .collect(),
        );
        errors.truncate(MAX_ERRORS);
        return errors;
    }
    const OP_FIELDS: [&str; 4] = ["op", "path", "from", "value"];
    let known = |k: &str| OP_FIELDS.contains(&k);
    let ops: Value = serde_json::from_slice(raw).unwrap_or_default();
    let mut unknown_at: Vec<Vec<Step>> = Vec::new();
    for (i, op) in ops.as_array().into_iter().flatten().enumerate() {
        for k in op.as_object().into_iter().flat_map(Map::keys) {
            if !known(k) {
                unknown_at.push(vec![Step::Index(i), Step::Key(k.clone())]);
            }
        }
    }
    // A repeat of a field the operation does not declare is named once,
    // as unknown; one of its `value`'s keys, at any depth.
    let repeats: Vec<Strict> = repeats
        .into_iter()
        .filter(|r| match r.path.as_slice() {
            [Step::Index(_), Step::Key(k)] => known(k),
            [Step::Index(_), Step::Key(k), _, ..] => k == "value",
            _ => false,
        })
        .map(|r| Strict {
            offset: Some(r.offset),
            message: format!("json patch {}", duplicate(&r.path)),
        })
        .collect();
    let offsets = if repeats.is_empty() {
        vec![None; unknown_at.len()]
    } else {
        duplicate_fields::first_offsets(raw, &unknown_at)
    };
    let unknown: Vec<Strict> = unknown_at
        .iter()
        .zip(offsets)
        .map(|(p, offset)| Strict {
            offset,
            message: format!(
                "json patch unknown field {}",
                go_quote(&duplicate_fields::go_path(p))
            ),
        })
        .collect();
    let mut errors = deduped(in_body_order(unknown, repeats));
    errors.truncate(MAX_ERRORS);
    errors
}

/// The keys an apply's YAML (or JSON) `text` repeats, under the
/// request's directive, as `patch.go`'s `applyPatcher` finds them once
/// the apply is made (`yaml.UnmarshalStrict` of the patch): `Ok` with the
/// warnings of `Warn` (one per repeat, `line 10: key "paused" already set
/// in map`), or the 400 of `Strict`, `error strict decoding YAML: error
/// converting YAML to JSON: yaml: unmarshal errors:` and a line per
/// repeat.
///
/// # Errors
/// As said.
pub fn check_applied_text(req: &Request, text: &str) -> Result<Vec<String>, Response> {
    let directive = directive(req, "PatchOptions")?;
    if directive == Directive::Ignore {
        return Ok(Vec::new());
    }
    let repeats = duplicate_fields::yaml_repeats(text);
    if repeats.is_empty() || directive == Directive::Warn {
        return Ok(repeats);
    }
    Err(status::error(
        400,
        &format!(
            "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  {}",
            repeats.join("\n  ")
        ),
    ))
}

/// An apply's configuration `applied` of `kind` checked as the structured
/// merge types it: a field its schema does not declare is refused,
/// whatever the directive (a list item named by its merge key, as there).
///
/// # Errors
/// The 500 kube-apiserver answers, a `Status` without a reason.
pub fn check_applied(sim: &Sim, kind: &KindInfo, applied: &Value) -> Result<(), Response> {
    let (mut found, _) = Schema::of(sim, kind).walk(applied, true);
    found.sort();
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
