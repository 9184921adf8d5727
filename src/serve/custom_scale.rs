//! The `scale` subresource of a custom resource whose CRD declares it
//! (`subresources.scale`: `specReplicasPath`, `statusReplicasPath`,
//! `labelSelectorPath`), as apiextensions-apiserver 1.20 serves it
//! (checked on the test control plane): the Scale reads the replicas at
//! the CRD's paths, `status.replicas` 0 when absent, the selector only
//! when the CRD names its path and the object has it; a GET of an object
//! without the spec's field is a 500 that names the path, a PUT writes
//! it. A write of the Scale changes no `managedFields` (1.20's scale
//! handler records none on the custom resource; 1.21 and later do).

use serde_json::{Value, json};

use super::status;
use super::{ownership, read, unkept};
use crate::model::{KindInfo, Object};
use crate::sim::Sim;

/// Where a custom resource's Scale reads and writes, as JSON pointers.
pub struct Paths {
    spec: String,
    status: String,
    selector: Option<String>,
    /// As the CRD writes it (`.spec.replicas`), for the errors.
    spec_field: String,
}

/// `.spec.replicas` as a JSON pointer.
fn pointer(path: &str) -> String {
    path.replace('.', "/")
}

/// The paths `kind`'s CRD declares for its served version; `None` when
/// it declares no `scale`.
#[must_use]
pub fn paths(sim: &Sim, kind: &KindInfo) -> Option<Paths> {
    let crd = super::versions::crd(sim, kind)?;
    let spec: &Value = &crd.spec;
    let scale = spec["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|v| v["name"] == kind.version.as_str())
        .and_then(|v| v["subresources"].get("scale"))
        .or_else(|| spec["subresources"].get("scale"))
        .filter(|s| s.is_object())?;
    let spec_field = scale["specReplicasPath"].as_str()?.to_string();
    Some(Paths {
        spec: pointer(&spec_field),
        status: pointer(scale["statusReplicasPath"].as_str()?),
        selector: scale["labelSelectorPath"].as_str().map(pointer),
        spec_field,
    })
}

/// `o`'s Scale, or the 500 of an object without the spec's field.
///
/// # Errors
/// The object has no replicas at the spec's path.
pub fn scale_of(o: &Object, p: &Paths, meta: Value) -> Result<Value, super::Response> {
    let v = read::object_value(o);
    let Some(replicas) = v.pointer(&p.spec).and_then(Value::as_i64) else {
        return Err(status::error(
            500,
            &format!(
                "Internal error occurred: the spec replicas field {:?} does not exist",
                p.spec_field
            ),
        ));
    };
    let mut st = json!({"replicas": v.pointer(&p.status).and_then(Value::as_i64).unwrap_or(0)});
    if let Some(sel) = p
        .selector
        .as_deref()
        .and_then(|at| v.pointer(at))
        .and_then(Value::as_str)
    {
        st["selector"] = json!(sel);
    }
    Ok(json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": meta,
        "spec": {"replicas": replicas},
        "status": st,
    }))
}

/// `o` with `replicas` at the spec's path (made where absent), its
/// `managedFields` as they were.
///
/// # Errors
/// The object does not read back (never for one the store holds).
pub fn with_replicas(o: &Object, p: &Paths, replicas: i64) -> Result<Object, super::Response> {
    let mut v = read::object_value(o);
    let mut at = &mut v;
    for seg in p.spec.split('/').filter(|s| !s.is_empty()) {
        if !at.is_object() {
            *at = json!({});
        }
        at = &mut at[seg];
    }
    *at = json!(replicas);
    let mut new = unkept::object_of(&v).map_err(|e| status::error(500, &e.to_string()))?;
    ownership::set(&mut new, &ownership::entries_of(o));
    Ok(new)
}
