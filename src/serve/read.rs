//! GET and LIST: one object or a page of a collection, in the form the
//! client asked for (object, table, metadata only).

use jiff::Timestamp;
use serde_json::{Value, json};

use super::negotiate::{Form, TABLE_TYPE};
use super::query::{ListOptions, encode_continue};
use super::state::Served;
use super::{Response, complete, events, table, unkept, versions};
use crate::model::{KindInfo, KindTable, Object, OwnershipGraph};

/// The object as the API sends it: the simulator's fields, the ones it
/// does not keep merged back ([`unkept`]), `managedFields` in metadata.
#[must_use]
pub fn object_value(o: &Object) -> Value {
    let mut v = serde_json::to_value(o).unwrap_or(Value::Null);
    // Kept beside the top-level fields (`Extra::managed_fields`), sent in
    // metadata, last, as the API server sends it.
    if let Some(m) = v.as_object_mut() {
        m.remove("managedFields");
    }
    if let Some(rest) = unkept::of(o) {
        unkept::merge(&mut v, &rest);
    }
    if let Some(managed) = unkept::managed_fields(o)
        && let Some(meta) = v["metadata"].as_object_mut()
    {
        meta.insert("managedFields".into(), managed);
    }
    v
}

/// An object's metadata as sent, `managedFields` included.
fn metadata_value(o: &Object) -> Value {
    let mut meta = serde_json::to_value(&o.metadata).unwrap_or(Value::Null);
    if let Some(rest) = unkept::of(o).and_then(|mut r| r.get_mut("metadata").map(Value::take)) {
        unkept::merge(&mut meta, &rest);
    }
    if let (Some(m), Some(managed)) = (meta.as_object_mut(), unkept::managed_fields(o)) {
        m.insert("managedFields".into(), managed);
    }
    meta
}

/// The object as the API sends it in `kind`'s version (a stored core/v1
/// Event read as `events.k8s.io/v1` is converted, a custom resource is
/// in the version asked: [`versions::served_as`]), with what a real
/// cluster would show of it ([`complete`]; `g` is the store).
#[must_use]
pub fn served_value(o: &Object, kind: &KindInfo, g: &OwnershipGraph) -> Value {
    if events::is_events_v1(kind) {
        events::as_events_v1(o)
    } else {
        let mut v = completed_value(o, g);
        versions::served_as(&mut v, kind);
        v
    }
}

/// The object as stored, with what a real cluster would show of it
/// ([`complete`]): what a table's cells are read from.
#[must_use]
pub fn completed_value(o: &Object, g: &OwnershipGraph) -> Value {
    let mut v = object_value(o);
    complete::complete(&mut v, o, g);
    v
}

/// `PartialObjectMetadata` of the object.
#[must_use]
pub fn meta_value(o: &Object) -> Value {
    json!({
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": metadata_value(o),
    })
}

/// What a table row carries (`includeObject`).
#[must_use]
pub fn row_object(
    include: Option<&str>,
    o: &Object,
    kind: &KindInfo,
    g: &OwnershipGraph,
) -> Option<Value> {
    match include {
        Some("None") => None,
        Some("Object") => {
            let mut v = completed_value(o, g);
            versions::served_as(&mut v, kind);
            Some(v)
        }
        _ => Some(meta_value(o)),
    }
}

/// One object in the asked form.
#[must_use]
pub fn one(
    o: &Object,
    kind: &KindInfo,
    form: Form,
    now: Timestamp,
    include: Option<&str>,
    g: &OwnershipGraph,
) -> Response {
    match form {
        Form::Meta => Response::json(200, &meta_value(o)),
        Form::Table => {
            let t = table::table(
                kind,
                &[o],
                now,
                |x| completed_value(x, g),
                |x| row_object(include, x, kind, g),
            );
            Response::typed(200, TABLE_TYPE, &t)
        }
        _ => Response::json(200, &served_value(o, kind, g)),
    }
}

pub use super::index::order_key;

/// Whether an object is in a collection: its kind, namespace, selectors.
#[must_use]
pub fn in_scope(o: &Object, kind: &KindInfo, namespace: Option<&str>, opts: &ListOptions) -> bool {
    let (group, stored) = events::stored_kind(kind);
    o.group() == group
        && o.kind == stored
        && namespace.is_none_or(|ns| o.namespace() == Some(ns))
        && opts.labels.matches(&o.metadata.labels)
        && opts.fields.matches(o)
}

/// Whether the list selects by label or field: its page is then filled
/// by looking through the collection, and no count of the rest is given,
/// as kube-apiserver gives none.
fn selects(opts: &ListOptions) -> bool {
    !opts.labels.is_everything() || !opts.fields.0.is_empty()
}

/// A page of a collection, from the index: it costs the objects the page
/// holds (and, with a selector, those looked through to fill it), not the
/// whole store.
#[must_use]
pub fn list(
    served: &Served,
    kind: &KindInfo,
    namespace: Option<&str>,
    opts: &ListOptions,
    form: Form,
) -> Response {
    let (index, g, now) = (&served.index, served.sim.graph(), served.sim.now());
    let (group, stored) = events::stored_kind(kind);
    let mut matching = index
        .scan(group, stored, namespace, opts.after.as_deref())
        .map(|o| &**o)
        .filter(|o| in_scope(o, kind, namespace, opts));
    let items: Vec<&Object> = match opts.limit {
        Some(limit) => matching.by_ref().take(limit).collect(),
        None => matching.by_ref().collect(),
    };
    let mut meta = json!({"resourceVersion": served.resource_version().to_string()});
    if opts.limit.is_some()
        && matching.next().is_some()
        && let Some(last) = items.last()
    {
        let listed = opts.listed + items.len();
        meta["continue"] = json!(encode_continue(&order_key(last), listed));
        if !selects(opts) {
            let total = index.count(group, stored, namespace);
            meta["remainingItemCount"] = json!(total.saturating_sub(listed).max(1));
        }
    }
    match form {
        Form::Table => {
            let mut t = table::table(
                kind,
                &items,
                now,
                |o| completed_value(o, g),
                |o| row_object(opts.include_object.as_deref(), o, kind, g),
            );
            t["metadata"] = meta;
            Response::typed(200, TABLE_TYPE, &t)
        }
        Form::Meta => {
            let list: Vec<Value> = items.iter().map(|o| meta_value(o)).collect();
            Response::json(
                200,
                &json!({
                    "kind": "PartialObjectMetadataList",
                    "apiVersion": "meta.k8s.io/v1",
                    "metadata": meta,
                    "items": list,
                }),
            )
        }
        _ => {
            // A built-in kind's list is typed: kube-apiserver encodes its
            // items without `kind` and `apiVersion`, which the list says
            // once; a custom resource's items are unstructured and carry
            // them.
            let typed = KindTable::is_builtin(&kind.group, &kind.kind);
            let list: Vec<Value> = items
                .iter()
                .map(|o| {
                    let mut v = served_value(o, kind, g);
                    if typed && let Some(m) = v.as_object_mut() {
                        m.remove("kind");
                        m.remove("apiVersion");
                    }
                    v
                })
                .collect();
            Response::json(
                200,
                &json!({
                    "kind": format!("{}List", kind.kind),
                    "apiVersion": kind.api_version(),
                    "metadata": meta,
                    "items": list,
                }),
            )
        }
    }
}
