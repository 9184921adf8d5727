//! POST, PUT, PATCH and DELETE on one object, through the simulator's own
//! rules (its answers carry the API server's codes and messages). A dry run
//! (`dryRun=All`) runs on a copy of the simulator: it answers what would
//! happen, and only the request is put on the timeline.

use serde_json::Value;

use super::managed::{self, FieldSet};
use super::rbac::{self, User};
use super::status::{self, object_error};
pub use super::status_subresource::Part;
use super::{Request, Response, patch, read};
use super::{
    admit, apply, escalation, field_validation, ownership, pod_defaults, status_subresource,
    unkept, versions,
};
use crate::model::{KindInfo, Object, OwnershipGraph};
use crate::sim::{ApiResponse, DeleteOptions, Key, Preconditions, Sim};

/// The object a request names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named<'a> {
    pub kind: &'a KindInfo,
    pub namespace: Option<String>,
    pub name: String,
}

impl Named<'_> {
    #[must_use]
    pub fn key(&self) -> Key {
        Key {
            group: self.kind.group.clone(),
            kind: self.kind.kind.clone(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
        }
    }

    fn error(&self, code: u16, message: &str) -> Response {
        if code == 422 && message.contains(" is invalid: ") {
            return status::invalid(message, &self.name, &self.kind.group);
        }
        object_error(
            code,
            message,
            &self.name,
            &self.kind.group,
            &self.kind.plural,
        )
    }

    /// `pods "x" not found`.
    #[must_use]
    pub fn not_found(&self) -> Response {
        self.error(
            404,
            &format!("{} \"{}\" not found", self.kind.resource(), self.name),
        )
    }

    /// The error answer to a refused request.
    #[must_use]
    pub fn failed(&self, resp: &ApiResponse) -> Response {
        self.error(resp.code, &resp.message)
    }

    /// The answer to a write: the object as a GET would read it, with
    /// what kube-apiserver's defaults and the controllers add
    /// ([`read::completed_value`]; `g` is the store); a created workload's
    /// status as its strategy left it, the controller not yet run
    /// ([`super::complete::status_on_create`]).
    pub(super) fn answer(&self, resp: &ApiResponse, created: bool, g: &OwnershipGraph) -> Response {
        let mut out = if !resp.is_success() {
            self.error(resp.code, &resp.message)
        } else {
            let mut r = match &resp.object {
                Some(o) => {
                    let mut v = read::completed_value(o, g);
                    versions::served_as(&mut v, self.kind);
                    if created
                        && let Some(s) =
                            super::complete::status_on_create(o, &read::object_value(o))
                    {
                        v["status"] = s;
                    }
                    Response::json(resp.code, &v)
                }
                None => Response::json(resp.code, &Value::Null),
            };
            if created {
                r.code = 201;
            }
            r
        };
        out.warnings.clone_from(&resp.warnings);
        out
    }
}

/// `dryRun=All`, in the query or the body.
fn dry_run(req: &Request, body: &Value) -> bool {
    req.query.iter().any(|(k, v)| k == "dryRun" && v == "All")
        || body["dryRun"]
            .as_array()
            .is_some_and(|a| a.iter().any(|v| v == "All"))
}

/// The body as JSON: 415 for another media type (protobuf: clients then
/// send JSON), 400 for what does not decode.
///
/// # Errors
/// As said.
pub fn json_body(req: &Request) -> Result<Value, Response> {
    parse_body(req)
}

fn parse_body(req: &Request) -> Result<Value, Response> {
    if req.body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    let media = req
        .content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim();
    if media.eq_ignore_ascii_case(super::protobuf::MEDIA)
        && let Some(v) = super::protobuf::object(&req.body)
    {
        return Ok(v);
    }
    if !media.is_empty()
        && !media.eq_ignore_ascii_case("application/json")
        && !media.ends_with("+json")
    {
        return Err(status::error(
            415,
            &format!(
                "the body of the request was in an unknown format - accepted media types include: application/json (got {media:?}; of protobuf the ownerscope simulator reads only the kinds kubectl creates typed: kubectl create -f sends JSON)"
            ),
        ));
    }
    serde_json::from_slice(&req.body).map_err(|e| {
        status::error(
            400,
            &format!("the body of the request could not be decoded as JSON: {e}"),
        )
    })
}

/// RBAC's escalation check ([`escalation::check`]) for a write of `new`
/// (replacing `old`) by `user`; other kinds pass untouched.
fn no_escalation(
    sim: &Sim,
    user: &User,
    kind: &KindInfo,
    new: &Value,
    old: Option<&Object>,
    url_name: &str,
) -> Result<(), Response> {
    if kind.group != "rbac.authorization.k8s.io" {
        return Ok(());
    }
    let policy = rbac::policy(sim.objects());
    let namespace = new["metadata"]["namespace"].as_str().unwrap_or_default();
    let w = escalation::Write {
        new,
        old,
        namespace: if kind.namespaced { namespace } else { "" },
        url_name,
    };
    escalation::check(&policy, user, &kind.kind, &w)
}

/// A DELETE's options, from its query and its `DeleteOptions` body, and
/// whether it is a dry run.
///
/// # Errors
/// A body that does not decode, a `dryRun` typo (422).
pub fn delete_options(req: &Request) -> Result<(DeleteOptions, bool), Response> {
    let body = parse_body(req)?;
    let mut values: Vec<&str> = req
        .query
        .iter()
        .filter(|(k, _)| k == "dryRun")
        .map(|(_, v)| v.as_str())
        .collect();
    values.extend(
        body["dryRun"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str),
    );
    admit::dry_run_list(&values, "DeleteOptions")?;
    let q = |k: &str| req.param(k).filter(|v| !v.is_empty());
    let mut opts = DeleteOptions {
        propagation_policy: body["propagationPolicy"]
            .as_str()
            .or_else(|| q("propagationPolicy"))
            .map(str::to_string),
        orphan_dependents: body["orphanDependents"]
            .as_bool()
            .or_else(|| q("orphanDependents").map(|v| v == "true")),
        grace_period_seconds: body["gracePeriodSeconds"]
            .as_i64()
            .or_else(|| q("gracePeriodSeconds").and_then(|v| v.parse().ok())),
        preconditions: Preconditions::default(),
    };
    if let Some(p) = body.get("preconditions").filter(|p| p.is_object()) {
        opts.preconditions.uid = p["uid"].as_str().map(str::to_string);
        opts.preconditions.resource_version = p["resourceVersion"].as_str().map(str::to_string);
    }
    Ok((opts, dry_run(req, &body)))
}

/// DELETE.
pub fn delete(sim: &mut Sim, req: &Request, target: &Named) -> Response {
    let (opts, dry) = match delete_options(req) {
        Ok(x) => x,
        Err(r) => return r,
    };
    let key = target.key();
    if dry {
        let mut copy = sim.clone();
        let resp = copy.delete_key(&key, &opts);
        let object = sim.get(&key).map_or_else(
            || {
                Object::new(
                    &target.kind.api_version(),
                    &target.kind.kind,
                    target.namespace.as_deref(),
                    &target.name,
                )
                .obj_ref()
            },
            Object::obj_ref,
        );
        sim.record_response(object, format!("{} dryRun=All", opts.describe()), &resp);
        return deleted_answer(target, &resp, sim.graph());
    }
    let resp = sim.delete_key(&key, &opts);
    deleted_answer(target, &resp, sim.graph())
}

fn deleted_answer(target: &Named, resp: &ApiResponse, g: &OwnershipGraph) -> Response {
    if resp.is_success() && resp.removed {
        let uid = resp.object.as_ref().map_or("", |o| o.uid());
        let mut r = Response::json(
            200,
            &status::deleted(&target.name, &target.kind.group, &target.kind.plural, uid),
        );
        r.warnings.clone_from(&resp.warnings);
        return r;
    }
    target.answer(resp, false, g)
}

/// Reads the object of a POST or PUT body, checked against the path and
/// its kind's schema ([`field_validation`]; `options`, the options kind):
/// with the warnings of its unknown fields.
fn body_object(
    sim: &Sim,
    req: &Request,
    kind: &KindInfo,
    namespace: Option<&str>,
    options: &str,
) -> Result<(Object, Value, Vec<String>), Response> {
    let body = parse_body(req)?;
    if !body.is_object() {
        return Err(status::error(
            400,
            "the body of the request must be an object",
        ));
    }
    let api_version = body["apiVersion"].as_str().unwrap_or_default();
    let body_kind = body["kind"].as_str().unwrap_or_default();
    if api_version != kind.api_version() || body_kind != kind.kind {
        return Err(status::error(
            400,
            &format!(
                "the API version in the data ({api_version}) does not match the expected API version ({}), or the kind ({body_kind}) is not {}",
                kind.api_version(),
                kind.kind
            ),
        ));
    }
    let mut body = body;
    let warnings = field_validation::check_body(sim, req, kind, &mut body, options)?;
    unkept::normalize(kind, &mut body).map_err(|m| status::error(400, &m))?;
    versions::to_storage(sim, kind, &mut body);
    let mut obj = unkept::object_of(&body)
        .map_err(|e| status::error(400, &format!("the object could not be decoded: {e}")))?;
    if kind.namespaced {
        match (obj.namespace(), namespace) {
            (Some(a), Some(b)) if a != b => {
                return Err(status::error(
                    400,
                    "the namespace of the provided object does not match the namespace sent on the request",
                ));
            }
            _ => obj.metadata.namespace = namespace.map(str::to_string),
        }
    } else {
        obj.metadata.namespace = None;
    }
    Ok((obj, body, warnings))
}

/// A name for `generateName`: the prefix, cut to 58 bytes, and five
/// characters, as upstream's `SimpleNameGenerator` (so a long prefix
/// still makes a name of 63).
fn generated(prefix: &str, seed: u64) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    const MAX_PREFIX: usize = 58;
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5851_F42D_4C95_7F2D;
    let mut cut = prefix.len().min(MAX_PREFIX);
    while !prefix.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut s = prefix[..cut].to_string();
    for _ in 0..5 {
        x ^= x >> 29;
        x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        #[allow(clippy::cast_possible_truncation)]
        s.push(char::from(ALPHABET[(x % ALPHABET.len() as u64) as usize]));
    }
    s
}

/// POST.
pub fn create(
    sim: &mut Sim,
    req: &Request,
    user: &User,
    kind: &KindInfo,
    namespace: Option<&str>,
) -> Response {
    create_as(sim, req, user, kind, namespace, None)
}

/// POST, or the create of an apply (`applied`: the fields it owns).
pub fn create_as(
    sim: &mut Sim,
    req: &Request,
    user: &User,
    kind: &KindInfo,
    namespace: Option<&str>,
    applied: Option<FieldSet>,
) -> Response {
    if let Err(r) = admit::dry_run_values(req, "CreateOptions") {
        return r;
    }
    let (mut obj, mut body, warnings) =
        match body_object(sim, req, kind, namespace, "CreateOptions") {
            Ok(x) => x,
            Err(r) => return r,
        };
    // An empty generateName is none (upstream: `len(GenerateName) > 0`):
    // no name is made of it, and the create is refused for want of one.
    if obj.metadata.name.is_empty()
        && let Some(prefix) = body["metadata"]["generateName"]
            .as_str()
            .filter(|p| !p.is_empty())
    {
        obj.metadata.name = generated(prefix, sim.resource_version());
    }
    if let Some(ns) = obj.namespace() {
        let ns_key = Key::namespace(ns);
        if sim.get(&ns_key).is_none() {
            return object_error(
                404,
                &format!("namespaces \"{ns}\" not found"),
                ns,
                "",
                "namespaces",
            );
        }
    }
    let target = Named {
        kind,
        namespace: obj.namespace().map(str::to_string),
        name: obj.name().to_string(),
    };
    body["metadata"]["namespace"] = obj.namespace().map_or(Value::Null, Value::from);
    if let Err(refused) = no_escalation(sim, user, kind, &body, None, "") {
        return refused;
    }
    body["metadata"]["name"] = Value::from(obj.name());
    if let Err(refused) = admit::validate(kind, &body) {
        return refused;
    }
    if status_subresource::has_status(sim, kind) {
        // The status a create sends is not kept (`PrepareForCreate`).
        let rest = unkept::with_status_of(unkept::of(&obj), None);
        unkept::set(&mut obj, rest.as_ref());
    }
    match applied {
        Some(set) => {
            let entries = ownership::applied_entries(sim, req, kind, set);
            ownership::set(&mut obj, &entries);
        }
        None => ownership::record_update(sim, req, kind, None, &mut obj),
    }
    status_subresource::on_create(sim, kind, &mut obj);
    if dry_run(req, &body) {
        let resp = sim.clone().create(obj.clone());
        sim.record_response(obj.obj_ref(), "POST dryRun=All".into(), &resp);
        return warned(target.answer(&resp, true, sim.graph()), warnings);
    }
    let resp = sim.create(obj);
    warned(
        target.answer(&resp, resp.is_success(), sim.graph()),
        warnings,
    )
}

/// PUT.
pub fn update(sim: &mut Sim, req: &Request, user: &User, target: &Named) -> Response {
    update_part(sim, req, user, target, Part::Object)
}

/// PUT of the object or of its status.
pub fn update_part(
    sim: &mut Sim,
    req: &Request,
    user: &User,
    target: &Named,
    part: Part,
) -> Response {
    if let Err(r) = admit::dry_run_values(req, "UpdateOptions") {
        return r;
    }
    let (mut obj, mut body, warnings) = match body_object(
        sim,
        req,
        target.kind,
        target.namespace.as_deref(),
        "UpdateOptions",
    ) {
        Ok(x) => x,
        Err(r) => return r,
    };
    if obj.name() != target.name {
        return status::error(
            400,
            &format!(
                "the name of the object ({}) does not match the name on the URL ({})",
                obj.name(),
                target.name
            ),
        );
    }
    body["metadata"]["namespace"] = obj.namespace().map_or(Value::Null, Value::from);
    let old = sim.get(&target.key()).cloned();
    if part == Part::Status && old.is_none() {
        return target.not_found();
    }
    if let Err(refused) = no_escalation(sim, user, target.kind, &body, old.as_ref(), &target.name) {
        return refused;
    }
    let stored = old
        .as_ref()
        .filter(|_| admit::checks_update(target.kind))
        .map(read::object_value);
    if let Err(refused) = admit::validate_update(target.kind, &body, stored.as_ref()) {
        return refused;
    }
    if part == Part::Object
        && let Some(old) = &old
    {
        // As written: what the client left out is not taken from the
        // stored object (a Service's cluster IP, a pod's tolerations a
        // controller added), as 1.20 takes it not.
        let mut held = body.clone();
        super::decoded::defaults(&mut held, &obj);
        if obj.group().is_empty() && obj.kind == "Pod" {
            pod_defaults::pod_admitted(super::complete::section(&mut held, "spec"));
        }
        if let Err(refused) = unchanged_fields(sim, target.kind, &held, old) {
            return refused;
        }
    }
    if part == Part::Status
        && let Some(old) = &old
        && let Err(refused) = admit::validate_status_update(
            target.kind,
            &body,
            &read::completed_value(old, sim.graph()),
        )
    {
        return refused;
    }
    if obj.metadata.resource_version.is_none()
        && !status_subresource::unconditional_update(target.kind)
    {
        // A custom resource's strategy allows no update without a
        // resource version (AllowUnconditionalUpdate).
        return target.error(
            422,
            &format!(
                "{} \"{}\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update",
                target.kind.resource(),
                target.name
            ),
        );
    }
    if part == Part::Object
        && let Some(old) = &old
    {
        obj = without_echo(sim, obj, body.clone(), old);
    }
    if let Some(old) = &old {
        keep(sim, part, target.kind, &mut obj, old);
    }
    ownership::record_update(sim, req, target.kind, old.as_ref(), &mut obj);
    if dry_run(req, &body) {
        let resp = sim.clone().update(obj.clone());
        sim.record_response(obj.obj_ref(), "PUT dryRun=All".into(), &resp);
        return warned(target.answer(&resp, false, sim.graph()), warnings);
    }
    let resp = sim.update(obj);
    warned(target.answer(&resp, false, sim.graph()), warnings)
}

/// What a client's update may not change ([`admit::validate_immutable`]):
/// `held`, the object written as the API server would hold it, against
/// the stored `old` as it is sent.
fn unchanged_fields(
    sim: &Sim,
    kind: &KindInfo,
    held: &Value,
    old: &Object,
) -> Result<(), Response> {
    admit::validate_immutable(kind, held, &read::completed_value(old, sim.graph()))
}

/// `r` with `warnings` (of fieldValidation: the written object's unknown
/// and repeated fields) first.
pub fn warned(mut r: Response, mut warnings: Vec<String>) -> Response {
    if !warnings.is_empty() {
        warnings.append(&mut r.warnings);
        r.warnings = warnings;
    }
    r
}

/// `obj` (read from `body`) without what serve added to `old` as it
/// sent it and the client sent back unchanged ([`super::echo`]).
fn without_echo(sim: &Sim, obj: Object, mut body: Value, old: &Object) -> Object {
    let sent = read::completed_value(old, sim.graph());
    if !super::echo::strip(&mut body, &sent, &read::object_value(old)) {
        return obj;
    }
    match unkept::object_of(&body) {
        Ok(mut o) => {
            o.metadata.namespace.clone_from(&obj.metadata.namespace);
            o
        }
        Err(_) => obj,
    }
}

/// What a write of `part` keeps of the stored object `old` in `new`
/// ([`status_subresource::keep`]), its unkept fields ([`unkept`]) with
/// the rest: a write of `/status` changes only the status, a write of the
/// object of a kind with the subresource all but the status.
fn keep(sim: &Sim, part: Part, kind: &KindInfo, new: &mut Object, old: &Object) {
    let mine = unkept::of(new);
    status_subresource::keep(sim, part, kind, new, old);
    let stored = unkept::of(old);
    let rest = match part {
        Part::Status => unkept::with_status_of(stored, mine.as_ref()),
        Part::Object if status_subresource::has_status(sim, kind) => {
            unkept::with_status_of(mine, stored.as_ref())
        }
        Part::Object => mine,
    };
    unkept::set(new, rest.as_ref());
}

/// What a patch does, short, for the timeline.
fn describe_patch(content_type: &str, body: &[u8]) -> String {
    let kind = if content_type.contains("json-patch") {
        "json"
    } else if content_type.contains("strategic") {
        "strategic"
    } else {
        "merge"
    };
    let text: String = String::from_utf8_lossy(body)
        .chars()
        .filter(|c| !c.is_control())
        .take(160)
        .collect();
    format!("({kind}) {text}")
}

/// PATCH.
pub fn patch(sim: &mut Sim, req: &Request, user: &User, target: &Named) -> Response {
    patch_part(sim, req, user, target, Part::Object)
}

/// PATCH of the object or of its status.
pub fn patch_part(
    sim: &mut Sim,
    req: &Request,
    user: &User,
    target: &Named,
    part: Part,
) -> Response {
    if let Err(r) = admit::dry_run_values(req, "PatchOptions") {
        return r;
    }
    if let Some(r) = apply::force_refused(req) {
        return r;
    }
    if apply::is_apply(req) {
        return apply::apply(sim, req, user, target, part);
    }
    let key = target.key();
    let Some(current) = sim.get(&key).cloned() else {
        return target.not_found();
    };
    // A patch of the object applies to it as it is read, with what serve
    // adds as it sends it (a pod spec's defaults, a Deployment's strategy):
    // kube-apiserver stored those at create, so a JSON patch may `test`,
    // `replace` or add under them. What comes back of them unchanged is no
    // change ([`super::echo`]), as for a PUT of the object as read.
    let stored = read::object_value(&current);
    let mut doc = match part {
        Part::Object => read::completed_value(&current, sim.graph()),
        Part::Status => stored.clone(),
    };
    // In the version the request names (a custom resource's).
    versions::served_as(&mut doc, target.kind);
    let sent = (part == Part::Object).then(|| doc.clone());
    if let Err(f) = patch::apply(&req.content_type, &mut doc, &req.body) {
        if f.code == 422 {
            return status::rejected(&f.message);
        }
        return target.error(f.code, &f.message);
    }
    // The patched object whole, before what came back unchanged is
    // taken out: what 1.20 validates an update on.
    let held = (part == Part::Object).then(|| doc.clone());
    if let Some(sent) = &sent {
        super::echo::strip(&mut doc, sent, &stored);
    }
    let before = sent.as_ref().unwrap_or(&stored);
    let warnings = match field_validation::check_patched(sim, req, target.kind, before, &mut doc) {
        Ok(w) => w,
        Err(r) => return r,
    };
    let r = write_patched(sim, req, user, target, part, &current, doc, None, held);
    warned(r, warnings)
}

/// The end of a PATCH (or an apply): `doc` checked and written over
/// `current`; `owned`, an apply's managed fields, else the request's
/// manager owns what it changed.
#[allow(clippy::too_many_arguments)]
pub fn write_patched(
    sim: &mut Sim,
    req: &Request,
    user: &User,
    target: &Named,
    part: Part,
    current: &Object,
    doc: Value,
    owned: Option<Vec<managed::Entry>>,
    held: Option<Value>,
) -> Response {
    let key = target.key();
    let mut doc = doc;
    if let Err(m) = unkept::normalize(target.kind, &mut doc) {
        return status::error(400, &m);
    }
    // A custom resource's patched object is in the version written (or,
    // an apply's merge, the stored one); it is stored in the storage
    // version.
    let custom = versions::is_custom(target.kind);
    let version = doc["apiVersion"].as_str().unwrap_or_default();
    let kept_version = version == target.kind.api_version() || version == current.api_version;
    versions::to_storage(sim, target.kind, &mut doc);
    if let Err(refused) = no_escalation(sim, user, target.kind, &doc, Some(current), &target.name) {
        return refused;
    }
    let stored = admit::checks_update(target.kind).then(|| read::object_value(current));
    if let Err(refused) = admit::validate_update(target.kind, &doc, stored.as_ref()) {
        return refused;
    }
    if part == Part::Object {
        // A patch's object whole, or an apply's merge, with what the API
        // server holds of the stored object where it says nothing.
        let mut held = held.unwrap_or_else(|| doc.clone());
        super::complete::complete(&mut held, current, sim.graph());
        if let Err(refused) = unchanged_fields(sim, target.kind, &held, current) {
            return refused;
        }
    } else if let Err(refused) = admit::validate_status_update(
        target.kind,
        &doc,
        &read::completed_value(current, sim.graph()),
    ) {
        return refused;
    }
    let mut new = match unkept::object_of(&doc) {
        Ok(o) => o,
        Err(e) => return target.error(422, &format!("the patched object is not valid: {e}")),
    };
    if new.name() != current.name()
        || new.namespace() != current.namespace()
        || new.kind != current.kind
        || !(if custom {
            kept_version
        } else {
            new.api_version == current.api_version
        })
    {
        return target.error(
            422,
            "a patch cannot change the object's apiVersion, kind, name or namespace",
        );
    }
    keep(sim, part, target.kind, &mut new, current);
    match &owned {
        Some(entries) => ownership::set(&mut new, entries),
        None => ownership::record_update(sim, req, target.kind, Some(current), &mut new),
    }
    // A resource version the patch did not set is no precondition.
    if new.metadata.resource_version == current.metadata.resource_version {
        new.metadata.resource_version = None;
    }
    let what = describe_patch(&req.content_type, &req.body);
    if req.query.iter().any(|(k, v)| k == "dryRun" && v == "All") {
        let resp = sim.clone().patch_key(&key, &what, |o| *o = new);
        sim.record_response(current.obj_ref(), format!("PATCH {what} dryRun=All"), &resp);
        return target.answer(&resp, false, sim.graph());
    }
    let resp = sim.patch_key(&key, &what, |o| *o = new);
    target.answer(&resp, false, sim.graph())
}
