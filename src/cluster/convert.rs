//! API objects to the model's [`Object`], and core/v1 Events to timeline
//! entries.

use jiff::Timestamp;
use kube::api::{DynamicObject, PartialObjectMeta};
use kube::core::ApiResource;
use serde_json::Value;

use crate::backend::Happening;
use crate::model::{ObjRef, Object, ObjectMeta};

/// The metadata as the model keeps it (large annotations dropped while
/// reading: `model::kept`).
fn meta_from(value: Value) -> Option<ObjectMeta> {
    let meta: ObjectMeta = serde_json::from_value(value).ok()?;
    (!meta.uid.is_empty()).then_some(meta)
}

/// A metadata-only object (the server answers with kind
/// `PartialObjectMetadata`; the resource gives the real kind).
#[must_use]
pub fn from_partial(ar: &ApiResource, pom: &PartialObjectMeta<DynamicObject>) -> Option<Object> {
    let metadata = meta_from(serde_json::to_value(&pom.metadata).ok()?)?;
    Some(Object {
        api_version: ar.api_version.clone(),
        kind: ar.kind.clone(),
        metadata,
        spec: Value::Null,
        status: Value::Null,
    })
}

/// A full object, keeping `spec` and `status` (namespaces: their
/// diagnosis reads `spec.finalizers` and the status conditions).
#[must_use]
pub fn from_dynamic(ar: &ApiResource, obj: &DynamicObject) -> Option<Object> {
    let metadata = meta_from(serde_json::to_value(&obj.metadata).ok()?)?;
    Some(Object {
        api_version: ar.api_version.clone(),
        kind: ar.kind.clone(),
        metadata,
        spec: obj.data.get("spec").cloned().unwrap_or(Value::Null),
        status: obj.data.get("status").cloned().unwrap_or(Value::Null),
    })
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut cur = v;
    for p in path {
        cur = cur.get(p)?;
    }
    cur.as_str().filter(|s| !s.is_empty())
}

/// An event as a timeline entry on the object it concerns; `t` is seconds
/// since `started` (0 for events older than the session).
#[must_use]
pub fn event_happening(
    ev: &k8s_openapi::api::core::v1::Event,
    started: Timestamp,
) -> Option<Happening> {
    let v = serde_json::to_value(ev).ok()?;
    let inv = v.get("involvedObject")?;
    let object = ObjRef {
        api_version: str_at(inv, &["apiVersion"]).unwrap_or_default().to_string(),
        kind: str_at(inv, &["kind"])?.to_string(),
        namespace: str_at(inv, &["namespace"]).map(str::to_string),
        name: str_at(inv, &["name"]).unwrap_or_default().to_string(),
        uid: str_at(inv, &["uid"]).unwrap_or_default().to_string(),
    };
    let when = str_at(&v, &["lastTimestamp"])
        .or_else(|| str_at(&v, &["eventTime"]))
        .or_else(|| str_at(&v, &["metadata", "creationTimestamp"]))
        .and_then(|s| s.parse::<Timestamp>().ok());
    let t = when.map_or(0.0, |w| w.duration_since(started).as_secs_f64().max(0.0));
    let reason = str_at(&v, &["reason"]).unwrap_or("Event");
    let message = str_at(&v, &["message"]).unwrap_or_default();
    let count = v.get("count").and_then(Value::as_i64).unwrap_or(1);
    let by = str_at(&v, &["source", "component"])
        .or_else(|| str_at(&v, &["reportingComponent"]))
        .unwrap_or("unknown")
        .to_string();
    Some(Happening {
        t,
        object,
        verb: "event".into(),
        detail: if count > 1 {
            format!("{reason}: {message} (x{count})")
        } else {
            format!("{reason}: {message}")
        },
        by,
        warning: str_at(&v, &["type"]) == Some("Warning"),
    })
}

/// Timeline entries for what changed between two versions of an object
/// seen by the watch (`None`: just created).
#[must_use]
pub fn changes(old: Option<&Object>, new: &Object, t: f64) -> Vec<Happening> {
    let entry = |verb: &str, detail: String| Happening {
        t,
        object: new.obj_ref(),
        verb: verb.into(),
        detail,
        by: "cluster".into(),
        warning: false,
    };
    let Some(old) = old else {
        return vec![entry("created", String::new())];
    };
    let mut out = Vec::new();
    let (o, n) = (&old.metadata, &new.metadata);
    if o.deletion_timestamp.is_none() && n.deletion_timestamp.is_some() {
        out.push(entry(
            "deleting",
            if n.finalizers.is_empty() {
                "deletionTimestamp set".into()
            } else {
                format!(
                    "deletionTimestamp set; finalizers: {}",
                    n.finalizers.join(", ")
                )
            },
        ));
    }
    for f in &o.finalizers {
        if !n.finalizers.contains(f) {
            out.push(entry("finalizer removed", f.clone()));
        }
    }
    for f in &n.finalizers {
        if !o.finalizers.contains(f) {
            out.push(entry("finalizer added", f.clone()));
        }
    }
    for r in &o.owner_references {
        if !n.owner_references.iter().any(|x| x.uid == r.uid) {
            out.push(entry(
                "owner reference removed",
                format!("{}/{}", r.kind, r.name),
            ));
        }
    }
    out
}
