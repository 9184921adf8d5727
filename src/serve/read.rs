//! GET and LIST: one object or a page of a collection, in the form the
//! client asked for (object, table, metadata only).

use jiff::Timestamp;
use serde_json::{Value, json};

use super::negotiate::{Form, TABLE_TYPE};
use super::query::{ListOptions, encode_continue};
use super::{Response, events, table};
use crate::model::{KindInfo, Object};

/// The object as the API sends it.
#[must_use]
pub fn object_value(o: &Object) -> Value {
    serde_json::to_value(o).unwrap_or(Value::Null)
}

/// The object as the API sends it in `kind`'s version (a stored core/v1
/// Event read as `events.k8s.io/v1` is converted).
#[must_use]
pub fn served_value(o: &Object, kind: &KindInfo) -> Value {
    if events::is_events_v1(kind) {
        events::as_events_v1(o)
    } else {
        object_value(o)
    }
}

/// `PartialObjectMetadata` of the object.
#[must_use]
pub fn meta_value(o: &Object) -> Value {
    json!({
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": serde_json::to_value(&o.metadata).unwrap_or(Value::Null),
    })
}

/// What a table row carries (`includeObject`).
#[must_use]
pub fn row_object(include: Option<&str>, o: &Object) -> Option<Value> {
    match include {
        Some("None") => None,
        Some("Object") => Some(object_value(o)),
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
) -> Response {
    match form {
        Form::Meta => Response::json(200, &meta_value(o)),
        Form::Table => {
            let t = table::table(o.group(), &o.kind, &[o], now, |x| row_object(include, x));
            Response::typed(200, TABLE_TYPE, &t)
        }
        _ => Response::json(200, &served_value(o, kind)),
    }
}

/// The key a collection is ordered by, as etcd orders it.
#[must_use]
pub fn order_key(o: &Object) -> String {
    match o.namespace() {
        Some(ns) => format!("{ns}/{}", o.name()),
        None => o.name().to_string(),
    }
}

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

/// A page of a collection. `rv` is the store's resource version.
#[must_use]
pub fn list<'a>(
    objects: impl Iterator<Item = &'a Object>,
    kind: &KindInfo,
    namespace: Option<&str>,
    opts: &ListOptions,
    form: Form,
    now: Timestamp,
    rv: u64,
) -> Response {
    let mut items: Vec<&Object> = objects
        .filter(|o| in_scope(o, kind, namespace, opts))
        .filter(|o| {
            opts.after
                .as_deref()
                .is_none_or(|a| order_key(o).as_str() > a)
        })
        .collect();
    items.sort_by_key(|o| order_key(o));
    let mut meta = json!({"resourceVersion": rv.to_string()});
    if let Some(limit) = opts.limit
        && items.len() > limit
    {
        let rest = items.len() - limit;
        items.truncate(limit);
        if let Some(last) = items.last() {
            meta["continue"] = json!(encode_continue(&order_key(last)));
            meta["remainingItemCount"] = json!(rest);
        }
    }
    match form {
        Form::Table => {
            let mut t = table::table(&kind.group, &kind.kind, &items, now, |o| {
                row_object(opts.include_object.as_deref(), o)
            });
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
            let list: Vec<Value> = items.iter().map(|o| served_value(o, kind)).collect();
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
