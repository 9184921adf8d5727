//! An object's own Events: what its controllers said about it.
//!
//! A controller that runs and has not removed its finalizer usually says
//! why in a Warning Event on the object: `FailedRemoveFinalizer` (the AWS
//! Load Balancer Controller), `DeleteLoadBalancerFailed` (the cloud
//! service controller), a CSI attacher's detach error (STUCK-CAUSES C2,
//! C12, C17). `why` quotes the newest ones, so that the controller's own
//! words come before anyone strips a finalizer.
//!
//! Only core/v1 Events are read (`involvedObject`); `events.k8s.io/v1`
//! serves the same stored objects.

use jiff::Timestamp;
use serde::Serialize;
use serde_json::Value;

use super::graph::OwnershipGraph;
use super::object::{Object, Raw};

/// How many Warning Events a diagnosis quotes, newest first.
pub const QUOTED: usize = 3;

/// A core/v1 Event.
#[must_use]
pub fn is_event(o: &Object) -> bool {
    o.kind == "Event" && o.api_version == "v1"
}

/// The uid of the object an Event is about.
#[must_use]
pub fn involved_uid(o: &Object) -> Option<String> {
    if !is_event(o) {
        return None;
    }
    event_involved_uid(o)
}

/// [`involved_uid`] of an object already known to be an Event (its kind
/// not read again: at 1M objects, a cache miss per Event).
#[must_use]
pub fn event_involved_uid(o: &Object) -> Option<String> {
    o.extra()
        .involved_object
        .as_ref()?
        .member("uid")
        .filter(|u| !u.is_empty())
}

/// One Event, as a diagnosis quotes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Quoted {
    /// `Warning` or `Normal`.
    #[serde(rename = "type")]
    pub type_: String,
    pub reason: String,
    pub message: String,
    /// Who reported it (`source.component`, else `reportingComponent`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// How many times it was seen.
    pub count: i64,
    /// When it was last seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<Timestamp>,
    /// Seconds from then to the diagnosis.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds_ago: Option<i64>,
}

fn text(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn time(v: Option<&Value>) -> Option<Timestamp> {
    v.and_then(Value::as_str).and_then(|s| s.parse().ok())
}

/// What one Event says.
#[must_use]
pub fn quote(e: &Object, now: Timestamp) -> Quoted {
    let x = e.extra();
    let value = |f: &Option<Raw>| f.as_ref().map(Raw::value);
    let series = value(&x.series);
    let last = time(value(&x.last_timestamp).as_ref())
        .or_else(|| {
            series
                .as_ref()
                .and_then(|s| time(s.get("lastObservedTime")))
        })
        .or_else(|| time(value(&x.event_time).as_ref()))
        .or_else(|| time(value(&x.first_timestamp).as_ref()))
        .or(e.metadata.creation_timestamp);
    Quoted {
        type_: text(value(&x.type_).as_ref()).unwrap_or_else(|| "Normal".into()),
        reason: text(value(&x.reason).as_ref()).unwrap_or_default(),
        message: text(value(&x.message).as_ref()).unwrap_or_default(),
        from: x
            .source
            .as_ref()
            .and_then(|s| s.member("component"))
            .filter(|s| !s.is_empty())
            .or_else(|| text(value(&x.reporting_component).as_ref())),
        count: value(&x.count)
            .as_ref()
            .and_then(Value::as_i64)
            .or_else(|| {
                series
                    .as_ref()
                    .and_then(|s| s.get("count"))
                    .and_then(Value::as_i64)
            })
            .unwrap_or(1),
        last,
        seconds_ago: last.map(|t| now.duration_since(t).as_secs()),
    }
}

/// The Warning Events stored about `uid`, newest first, at most
/// [`QUOTED`].
#[must_use]
pub fn warnings(graph: &OwnershipGraph, uid: &str, now: Timestamp) -> Vec<Quoted> {
    newest_warnings(graph.events_about(uid), now)
}

/// The Warnings among `events`, newest first, at most [`QUOTED`].
#[must_use]
pub fn newest_warnings<'a>(
    events: impl Iterator<Item = &'a Object>,
    now: Timestamp,
) -> Vec<Quoted> {
    let mut out: Vec<Quoted> = events
        .map(|e| quote(e, now))
        .filter(|q| q.type_ == "Warning")
        .collect();
    out.sort_by(|a, b| b.last.cmp(&a.last).then_with(|| a.reason.cmp(&b.reason)));
    out.truncate(QUOTED);
    out
}

impl Quoted {
    /// `DeleteLoadBalancerFailed from service-controller, 4 times, last
    /// 2m ago: "Error deleting load balancer: ..."`.
    #[must_use]
    pub fn sentence(&self) -> String {
        let mut s = self.reason.clone();
        if let Some(from) = &self.from {
            s.push_str(&format!(" from {from}"));
        }
        if self.count > 1 {
            s.push_str(&format!(", {} times", self.count));
        }
        if let Some(ago) = self.seconds_ago {
            let when = if ago < 0 {
                super::badges::human_duration(ago)
            } else {
                format!("{} ago", super::badges::human_duration(ago))
            };
            s.push_str(&format!(
                ", {}{when}",
                if self.count > 1 { "last " } else { "" }
            ));
        }
        format!("{s}: \"{}\"", self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KindTable;

    fn obj(v: serde_json::Value) -> Object {
        serde_json::from_value(v).expect("object")
    }

    fn event(name: &str, about: &str, type_: &str, reason: &str, last: &str, count: i64) -> Object {
        obj(serde_json::json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": "shop", "uid": format!("e-{name}")},
            "involvedObject": {"kind": "Service", "name": "web", "namespace": "shop", "uid": about},
            "type": type_, "reason": reason, "message": format!("{reason} said"),
            "source": {"component": "service-controller"},
            "lastTimestamp": last, "count": count,
        }))
    }

    #[test]
    fn the_newest_warnings_about_an_object_are_quoted_in_its_controllers_words() {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        g.upsert(event(
            "a",
            "svc",
            "Warning",
            "DeleteLoadBalancerFailed",
            "2026-01-01T00:05:00Z",
            4,
        ));
        g.upsert(event(
            "b",
            "svc",
            "Normal",
            "DeletingLoadBalancer",
            "2026-01-01T00:06:00Z",
            1,
        ));
        g.upsert(event(
            "c",
            "other",
            "Warning",
            "Elsewhere",
            "2026-01-01T00:06:00Z",
            1,
        ));
        g.upsert(event(
            "d",
            "svc",
            "Warning",
            "Older",
            "2026-01-01T00:01:00Z",
            1,
        ));
        let now: Timestamp = "2026-01-01T00:07:00Z".parse().expect("time");
        let w = warnings(&g, "svc", now);
        assert_eq!(
            w.iter().map(Quoted::sentence).collect::<Vec<_>>(),
            [
                "DeleteLoadBalancerFailed from service-controller, 4 times, last 2m00s ago: \"DeleteLoadBalancerFailed said\"",
                "Older from service-controller, 6m00s ago: \"Older said\"",
            ]
        );
        // An Event replaced or deleted is no longer quoted.
        g.remove("e-a");
        assert_eq!(warnings(&g, "svc", now).len(), 1);
        assert!(warnings(&g, "nothing", now).is_empty());
    }
}
