//! The fields of an object that [`super::kept`] leaves out, as
//! `ownerscope serve` keeps them beside the rest: a ConfigMap's `data`, a
//! pod template's every field but its containers' names and images,
//! `metadata.generateName`, the annotations the model drops
//! (`last-applied-configuration`), and any part of `spec` and `status` the
//! simulator does not read. They are one JSON text, the last element of
//! the object's `managedFields` slot ([`Extra::unkept_text`]), so they go
//! wherever the object goes.
//!
//! Split and merge live here, beside the table they complement, so that
//! the simulator's controllers can make a pod or a ReplicaSet from the
//! whole of a template ([`full_at`], [`object_of`]) as the real ones copy
//! it, and `ownerscope serve` reads and writes the same slot
//! (`crate::serve::unkept`). Pure: no I/O.

use serde_json::{Map, Value};

use super::Object;
use super::kept::{DROPPED_ANNOTATIONS, Keep, SPEC, STATUS};
use super::object::Extra;

/// The top-level fields [`Object`] keeps itself (`managedFields` is
/// serve's slot, never a client's).
const KEPT_TOP: &[&str] = super::object::TOP_LEVEL_FIELDS;

/// The fields of `ObjectMeta` a client writes that the simulator's
/// metadata leaves out (the rest it keeps, or the server manages).
const META_UNKEPT: &[&str] = &["generateName"];

/// What `keep` leaves out of `v`, `None` when nothing.
fn complement(v: &Value, keep: Keep) -> Option<Value> {
    let Keep::Fields(fields) = keep else {
        return None;
    };
    match v {
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, child) in m {
                match fields.iter().find(|(n, _)| n == k) {
                    None => {
                        out.insert(k.clone(), child.clone());
                    }
                    Some((_, sub)) => {
                        if let Some(c) = complement(child, *sub) {
                            out.insert(k.clone(), c);
                        }
                    }
                }
            }
            (!out.is_empty()).then_some(Value::Object(out))
        }
        // Element by element, each in its place ([`merge`] puts them
        // back while the list has as many).
        Value::Array(items) => {
            let parts: Vec<Value> = items
                .iter()
                .map(|i| complement(i, keep).unwrap_or_else(|| Value::Object(Map::new())))
                .collect();
            parts
                .iter()
                .any(|p| p.as_object().is_none_or(|m| !m.is_empty()))
                .then_some(Value::Array(parts))
        }
        _ => None,
    }
}

/// The fields of the object `body` that the simulator does not keep, as
/// a JSON object (`None`: there are none).
#[must_use]
pub fn split(body: &Value) -> Option<Value> {
    let m = body.as_object()?;
    let mut out = Map::new();
    for (k, v) in m {
        if !KEPT_TOP.contains(&k.as_str()) {
            out.insert(k.clone(), v.clone());
        }
    }
    if let Some(meta) = m.get("metadata").and_then(Value::as_object) {
        let mut kept: Map<String, Value> = META_UNKEPT
            .iter()
            .filter_map(|f| Some(((*f).to_string(), meta.get(*f)?.clone())))
            .collect();
        // The annotations the model never keeps ([`DROPPED_ANNOTATIONS`]):
        // kept here, so that `kubectl apply` finds its
        // `last-applied-configuration` again, as on a real server (without
        // it, each apply warned that it was missing, and a field taken out
        // of the manifest stayed on the object).
        if let Some(annotations) = meta.get("annotations").and_then(Value::as_object) {
            let dropped: Map<String, Value> = DROPPED_ANNOTATIONS
                .iter()
                .filter_map(|k| Some(((*k).to_string(), annotations.get(*k)?.clone())))
                .collect();
            if !dropped.is_empty() {
                kept.insert("annotations".into(), Value::Object(dropped));
            }
        }
        if !kept.is_empty() {
            out.insert("metadata".into(), Value::Object(kept));
        }
    }
    for (field, keep) in [("spec", SPEC), ("status", STATUS)] {
        if let Some(c) = m.get(field).and_then(|v| complement(v, keep)) {
            out.insert(field.into(), c);
        }
    }
    for at in TEMPLATE_METADATA {
        forget_null_timestamp(&mut out, at);
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// Where a workload's templates keep their `ObjectMeta`.
const TEMPLATE_METADATA: &[&[&str]] = &[
    &["spec", "template", "metadata"],
    &["spec", "jobTemplate", "metadata"],
    &["spec", "jobTemplate", "spec", "template", "metadata"],
];

/// A template's `creationTimestamp: null` (what kube-apiserver sends for
/// its zero time, and so what a client that read the object writes back)
/// is no field written: the decoder makes it the zero time it was, and
/// serve sends it again. The maps on the way that hold nothing else go
/// with it (the split holds no empty map of its own).
fn forget_null_timestamp(m: &mut Map<String, Value>, at: &[&str]) -> bool {
    let Some((first, rest)) = at.split_first() else {
        return m.get("creationTimestamp") == Some(&Value::Null)
            && m.remove("creationTimestamp").is_some();
    };
    let Some(Value::Object(child)) = m.get_mut(*first) else {
        return false;
    };
    let forgot = forget_null_timestamp(child, rest);
    if forgot && child.is_empty() {
        m.remove(*first);
    }
    forgot
}

/// Puts `rest` back into `into`: what `into` lacks is added, maps are
/// merged, a list's elements one by one while it has as many (a list the
/// simulator changed the length of is its own).
pub fn merge(into: &mut Value, rest: &Value) {
    match (into, rest) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                match a.get_mut(k) {
                    Some(Value::Null) | None => {
                        a.insert(k.clone(), v.clone());
                    }
                    Some(x) => merge(x, v),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (x, y) in a.iter_mut().zip(b) {
                merge(x, y);
            }
        }
        _ => {}
    }
}

/// The object's unkept fields.
#[must_use]
pub fn of(o: &Object) -> Option<Value> {
    o.extra()
        .unkept_text()
        .and_then(|t| serde_json::from_str(t).ok())
}

/// The value at `path` (`["spec", "template"]`) whole: what the
/// simulator keeps of it, with what it does not merged back. `None` when
/// the object has neither.
#[must_use]
pub fn full_at(o: &Object, path: &[&str]) -> Option<Value> {
    let kept = o.peek_at(path);
    let rest = of(o).and_then(|mut r| {
        let mut at = &mut r;
        for key in path {
            at = at.get_mut(*key)?;
        }
        Some(at.take())
    });
    match (kept, rest) {
        (Some(mut k), Some(r)) => {
            merge(&mut k, &r);
            Some(k)
        }
        (k, r) => k.or(r),
    }
}

/// Fills the slot from its two parts, `managedFields` entries and the
/// unkept text (both empty: no slot).
pub fn fill_slot(o: &mut Object, managed: Option<Value>, text: Option<String>) {
    let mut items = match managed {
        Some(Value::Array(a)) => a,
        _ => Vec::new(),
    };
    items.extend(text.map(Value::String));
    if items.is_empty() {
        if let Some(e) = o.extra.as_mut() {
            e.managed_fields = None;
            if **e == Extra::default() {
                o.extra = None;
            }
        }
        return;
    }
    o.extra.get_or_insert_with(Box::default).managed_fields = Some(Box::new(Value::Array(items)));
}

/// The object's `managedFields` list as sent (`None`: it has none).
#[must_use]
pub fn managed_fields(o: &Object) -> Option<Value> {
    let slot = o
        .extra
        .as_ref()
        .and_then(|e| e.managed_fields.as_deref())
        .and_then(Value::as_array)?;
    let items: Vec<Value> = slot.iter().filter(|v| v.is_object()).cloned().collect();
    (!items.is_empty()).then_some(Value::Array(items))
}

/// Sets the object's unkept fields, its `managedFields` kept.
pub fn set(o: &mut Object, rest: Option<&Value>) {
    let text = rest.map(Value::to_string);
    fill_slot(o, managed_fields(o), text);
}

/// The object `o` whole (its unkept fields with the rest), changed by
/// `f`, and split again as the store keeps it: a controller writes a
/// field the simulator does not keep (a StatefulSet pod's `hostname`).
#[must_use]
pub fn rewritten(o: Object, f: impl FnOnce(&mut Value)) -> Object {
    let Ok(mut v) = serde_json::to_value(&o) else {
        return o;
    };
    if let Some(m) = v.as_object_mut() {
        m.remove("managedFields");
    }
    if let Some(rest) = of(&o) {
        merge(&mut v, &rest);
    }
    f(&mut v);
    object_of(&v).unwrap_or(o)
}

/// The object `v` as the store keeps it: the simulator's fields, and
/// the others beside them.
///
/// # Errors
/// `v` is not an object.
pub fn object_of(v: &Value) -> Result<Object, serde_json::Error> {
    let mut o: Object = serde_json::from_value(v.clone())?;
    set(&mut o, split(v).as_ref());
    Ok(o)
}
