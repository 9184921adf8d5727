//! Events. What the simulator's controllers report (the garbage
//! collector's warnings on its timeline) is posted into the store as
//! core/v1 `Event` objects, as their event recorders post them to a real
//! API server: in the involved object's namespace, named
//! `<object>.<hex nanoseconds>`, and a repeat of the same event (same
//! object, source, type, reason and message) raises the stored one's
//! `count` and `lastTimestamp` instead, as client-go's `EventCorrelator`
//! does. Being namespace content, they go with their namespace (R58).
//!
//! `events.k8s.io/v1` serves the same stored objects converted (one
//! storage, two versions, as kube-apiserver does): `regarding`, `note`,
//! `reportingController`, `deprecatedSource`, `deprecatedCount`, ... It is
//! served read-only here; clients write core/v1 Events.

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};

use crate::model::object::{Extra, Raw};
use crate::model::{KindInfo, Object};
use crate::sim::timeline::{Entry, What};

/// The group whose `Event` is a second version of core/v1's.
pub const EVENTS_GROUP: &str = "events.k8s.io";

/// Whether `kind` is `events.k8s.io`'s Event (stored as core/v1 Events).
#[must_use]
pub fn is_events_v1(kind: &KindInfo) -> bool {
    kind.group == EVENTS_GROUP && kind.kind == "Event"
}

/// The group and kind the objects of a served kind are stored as.
#[must_use]
pub fn stored_kind(kind: &KindInfo) -> (&str, &str) {
    if is_events_v1(kind) {
        ("", "Event")
    } else {
        (&kind.group, &kind.kind)
    }
}

/// What recording one timeline event does to the store.
#[derive(Clone, Debug, PartialEq)]
pub enum Recorded {
    /// A new Event to create.
    New(Object),
    /// The stored Event it repeats, with its count and last time raised.
    Repeat(Object),
}

fn text(v: Option<&Raw>) -> String {
    v.and_then(Raw::as_string).unwrap_or_default()
}

/// The time of a timeline entry, given the simulator's clock now.
#[must_use]
pub fn entry_time(entry: &Entry, now: Timestamp, now_ms: u64) -> Timestamp {
    let back = i64::try_from(now_ms.saturating_sub(entry.t_ms)).unwrap_or(0);
    now.checked_sub(SignedDuration::from_millis(back))
        .unwrap_or(now)
}

/// The Event a timeline entry reports at `at`, or the repeat of one of
/// `stored` (core/v1 Events); `None` for an entry that is not an event.
#[must_use]
pub fn record<'a>(
    entry: &Entry,
    at: Timestamp,
    stored: impl IntoIterator<Item = &'a Object>,
) -> Option<Recorded> {
    let What::Event { reason, message } = &entry.what else {
        return None;
    };
    let r = &entry.object;
    let involved = json!({
        "apiVersion": r.api_version,
        "kind": r.kind,
        "namespace": r.namespace,
        "name": r.name,
        "uid": r.uid,
    });
    let namespace = r.namespace.clone().unwrap_or_else(|| "default".into());
    let time = json!(at.to_string());
    let same = |o: &&Object| {
        o.kind == "Event"
            && o.group().is_empty()
            && o.namespace() == Some(namespace.as_str())
            && o.extra()
                .involved_object
                .as_ref()
                .is_some_and(|i| *i == involved)
            && text(o.extra().reason.as_ref()) == *reason
            && text(o.extra().message.as_ref()) == *message
            && text(o.extra().type_.as_ref()) == "Warning"
            && o.extra()
                .source
                .as_ref()
                .and_then(|s| s.member("component"))
                .as_deref()
                == Some(entry.by.as_str())
    };
    if let Some(old) = stored.into_iter().find(same) {
        let mut o = old.clone();
        let count = o
            .extra()
            .count
            .as_ref()
            .map(Raw::value)
            .and_then(|c| c.as_i64())
            .unwrap_or(1);
        let extra = o.extra_mut();
        extra.count = Some(Raw::of(&json!(count + 1)));
        extra.last_timestamp = Some(Raw::of(&time));
        return Some(Recorded::Repeat(o));
    }
    let nanos = at.as_nanosecond();
    let mut o = Object::new(
        "v1",
        "Event",
        Some(&namespace),
        &format!("{}.{nanos:x}", r.name),
    );
    o.extra = Some(Box::new(Extra {
        involved_object: Some(Raw::of(&involved)),
        reason: Some(Raw::of(&json!(reason))),
        message: Some(Raw::of(&json!(message))),
        type_: Some(Raw::of(&json!("Warning"))),
        source: Some(Raw::of(&json!({"component": entry.by}))),
        reporting_component: Some(Raw::of(&json!(entry.by))),
        reporting_instance: Some(Raw::of(&json!(""))),
        first_timestamp: Some(Raw::of(&time)),
        last_timestamp: Some(Raw::of(&time)),
        count: Some(Raw::of(&json!(1))),
        ..Extra::default()
    }));
    Some(Recorded::New(o))
}

/// A stored core/v1 Event as `events.k8s.io/v1` sends it.
#[must_use]
pub fn as_events_v1(o: &Object) -> Value {
    let field = |f: &Option<Raw>| f.as_ref().map_or(Value::Null, Raw::value);
    let mut v = json!({
        "kind": "Event",
        "apiVersion": "events.k8s.io/v1",
        "metadata": serde_json::to_value(&o.metadata).unwrap_or(Value::Null),
        "eventTime": field(&o.extra().event_time),
    });
    let pairs = [
        ("regarding", &o.extra().involved_object),
        ("note", &o.extra().message),
        ("reason", &o.extra().reason),
        ("type", &o.extra().type_),
        ("reportingController", &o.extra().reporting_component),
        ("reportingInstance", &o.extra().reporting_instance),
        ("action", &o.extra().action),
        ("related", &o.extra().related),
        ("series", &o.extra().series),
        ("deprecatedSource", &o.extra().source),
        ("deprecatedFirstTimestamp", &o.extra().first_timestamp),
        ("deprecatedLastTimestamp", &o.extra().last_timestamp),
        ("deprecatedCount", &o.extra().count),
    ];
    for (name, f) in pairs {
        if let Some(x) = f {
            v[name] = x.value();
        }
    }
    v
}

/// An Event's field as a field selector names it (`involvedObject.name`,
/// `reason`, `type`, `source`, `reportingComponent`; in events.k8s.io's
/// spelling, `regarding.name`, `reportingController`, `deprecatedSource`
/// too), or `None` for a field Events are not selected on.
#[must_use]
pub fn field(o: &Object, name: &str) -> Option<String> {
    let sub = name
        .strip_prefix("involvedObject.")
        .or_else(|| name.strip_prefix("regarding."));
    if let Some(sub) = sub {
        const FIELDS: [&str; 7] = [
            "kind",
            "namespace",
            "name",
            "uid",
            "apiVersion",
            "resourceVersion",
            "fieldPath",
        ];
        return FIELDS.contains(&sub).then(|| {
            o.extra()
                .involved_object
                .as_ref()
                .and_then(|i| i.member(sub))
                .unwrap_or_default()
        });
    }
    match name {
        "reason" => Some(text(o.extra().reason.as_ref())),
        "type" => Some(text(o.extra().type_.as_ref())),
        "reportingComponent" | "reportingController" => {
            Some(text(o.extra().reporting_component.as_ref()))
        }
        "source" | "deprecatedSource" => Some(
            o.extra()
                .source
                .as_ref()
                .and_then(|s| s.member("component"))
                .unwrap_or_default(),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ObjRef;

    fn warning(t_ms: u64) -> Entry {
        Entry {
            t_ms,
            object: ObjRef {
                api_version: "v1".into(),
                kind: "ConfigMap".into(),
                namespace: Some("evt".into()),
                name: "dep".into(),
                uid: "u1".into(),
            },
            by: "garbage-collector-controller".into(),
            what: What::Event {
                reason: "OwnerRefInvalidNamespace".into(),
                message: "ownerRef [v1/ConfigMap, namespace: evt, name: owner, uid: u0] does not exist in namespace \"evt\"".into(),
            },
        }
    }

    #[test]
    fn a_warning_is_recorded_once_then_counted() {
        let at: Timestamp = "2026-01-01T00:00:02Z".parse().expect("time");
        let Some(Recorded::New(mut ev)) = record(&warning(2000), at, []) else {
            panic!("a new event");
        };
        assert_eq!(ev.namespace(), Some("evt"));
        assert!(ev.name().starts_with("dep."), "{}", ev.name());
        assert_eq!(field(&ev, "involvedObject.uid").as_deref(), Some("u1"));
        assert_eq!(
            field(&ev, "source").as_deref(),
            Some("garbage-collector-controller")
        );
        assert_eq!(field(&ev, "type").as_deref(), Some("Warning"));
        assert_eq!(field(&ev, "spec.x"), None);
        let wire = serde_json::to_value(&ev).expect("json");
        assert_eq!(wire["involvedObject"]["name"], "dep");
        assert_eq!(wire["firstTimestamp"], "2026-01-01T00:00:02Z");
        assert_eq!(wire["count"], 1);
        // Stored, it round-trips through the model.
        let back: Object = serde_json::from_value(wire.clone()).expect("parses");
        assert_eq!(back, ev);
        ev.metadata.uid = "e1".into();
        let later: Timestamp = "2026-01-01T00:00:09Z".parse().expect("time");
        let Some(Recorded::Repeat(again)) = record(&warning(9000), later, [&ev]) else {
            panic!("a repeat");
        };
        assert_eq!(again.metadata.uid, "e1");
        assert_eq!(again.extra().count.as_ref().map(Raw::value), Some(json!(2)));
        assert_eq!(
            again.extra().last_timestamp.as_ref().map(Raw::value),
            Some(json!("2026-01-01T00:00:09Z"))
        );
        // Another message is another event.
        let mut other = warning(9000);
        other.what = What::Event {
            reason: "OwnerRefInvalidNamespace".into(),
            message: "else".into(),
        };
        assert!(matches!(
            record(&other, later, [&ev]),
            Some(Recorded::New(_))
        ));
        let v1 = as_events_v1(&again);
        assert_eq!(v1["apiVersion"], "events.k8s.io/v1");
        assert_eq!(v1["regarding"], wire["involvedObject"]);
        assert_eq!(v1["note"], wire["message"]);
        assert_eq!(v1["reportingController"], "garbage-collector-controller");
        assert_eq!(v1["deprecatedCount"], 2);
        assert_eq!(
            v1["deprecatedSource"]["component"],
            "garbage-collector-controller"
        );
        assert!(v1.get("involvedObject").is_none());
    }

    #[test]
    fn entries_keep_their_own_time() {
        let now: Timestamp = "2026-01-01T00:00:10Z".parse().expect("time");
        assert_eq!(
            entry_time(&warning(7500), now, 10_000).to_string(),
            "2026-01-01T00:00:07.5Z"
        );
    }
}
