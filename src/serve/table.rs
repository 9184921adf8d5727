//! The `Table` form `kubectl get` prints: NAME, a few columns per kind as
//! the API server's printers give them (where the simulator keeps the
//! fields they read), AGE; and, for `-o wide`, the finalizers and the
//! owners, which is what a deletion demo looks at.

use jiff::Timestamp;
use serde_json::{Value, json};

use crate::model::Object;

/// kubectl's `duration.HumanDuration`, as AGE shows it.
#[must_use]
pub fn human_duration(secs: i64) -> String {
    if secs < -1 {
        return "<invalid>".into();
    }
    let s = secs.max(0);
    if s < 120 {
        return format!("{s}s");
    }
    let m = s / 60;
    if m < 10 {
        let rs = s % 60;
        return if rs == 0 {
            format!("{m}m")
        } else {
            format!("{m}m{rs}s")
        };
    }
    if m < 180 {
        return format!("{m}m");
    }
    let h = m / 60;
    if h < 8 {
        let rm = m % 60;
        return if rm == 0 {
            format!("{h}h")
        } else {
            format!("{h}h{rm}m")
        };
    }
    if h < 48 {
        return format!("{h}h");
    }
    if h < 24 * 8 {
        let rh = h % 24;
        return if rh == 0 {
            format!("{}d", h / 24)
        } else {
            format!("{}d{rh}h", h / 24)
        };
    }
    if h < 24 * 365 * 2 {
        return format!("{}d", h / 24);
    }
    if h < 24 * 365 * 8 {
        let y = h / (24 * 365);
        let d = (h % (24 * 365)) / 24;
        return if d == 0 {
            format!("{y}y")
        } else {
            format!("{y}y{d}d")
        };
    }
    format!("{}y", h / (24 * 365))
}

type Cell = fn(&Object) -> Value;

fn column(name: &str, kind: &str, priority: u8) -> Value {
    json!({"name": name, "type": kind, "format": if name == "Name" { "name" } else { "" },
           "description": "", "priority": priority})
}

fn replicas(o: &Object) -> Value {
    o.value_at(&["spec", "replicas"])
        .cloned()
        .unwrap_or(json!(1))
}

fn pod_status(o: &Object) -> Value {
    if o.is_terminating() {
        return json!("Terminating");
    }
    json!(o.str_at(&["status", "phase"]).unwrap_or("Pending"))
}

fn phase(o: &Object) -> Value {
    if o.kind == "Namespace" && o.is_terminating() {
        return json!("Terminating");
    }
    json!(o.str_at(&["status", "phase"]).unwrap_or(""))
}

/// The columns between NAME and AGE for a kind.
fn kind_columns(group: &str, kind: &str) -> Vec<(&'static str, &'static str, Cell)> {
    match (group, kind) {
        ("", "Pod") => vec![("Status", "string", pod_status as Cell)],
        ("", "Namespace" | "PersistentVolumeClaim" | "PersistentVolume") => {
            vec![("Status", "string", phase as Cell)]
        }
        ("apps", "Deployment" | "ReplicaSet" | "StatefulSet") | ("", "ReplicationController") => {
            vec![("Desired", "integer", replicas as Cell)]
        }
        ("" | "events.k8s.io", "Event") => vec![
            ("Type", "string", event_type as Cell),
            ("Reason", "string", event_reason as Cell),
            ("Object", "string", event_object as Cell),
            ("Message", "string", event_message as Cell),
        ],
        _ => Vec::new(),
    }
}

fn event_type(o: &Object) -> Value {
    json!(super::events::field(o, "type").unwrap_or_default())
}

fn event_reason(o: &Object) -> Value {
    json!(super::events::field(o, "reason").unwrap_or_default())
}

/// `configmap/dep`, as kubectl's event printer names the object.
fn event_object(o: &Object) -> Value {
    let kind = super::events::field(o, "involvedObject.kind").unwrap_or_default();
    let name = super::events::field(o, "involvedObject.name").unwrap_or_default();
    json!(format!("{}/{name}", kind.to_lowercase()))
}

fn event_message(o: &Object) -> Value {
    o.extra()
        .message
        .as_ref()
        .map_or_else(|| json!(""), crate::model::object::Raw::value)
}

fn finalizers(o: &Object) -> Value {
    if o.metadata.finalizers.is_empty() {
        json!("<none>")
    } else {
        json!(o.metadata.finalizers.join(","))
    }
}

fn owners(o: &Object) -> Value {
    if o.metadata.owner_references.is_empty() {
        return json!("<none>");
    }
    let list: Vec<String> = o
        .metadata
        .owner_references
        .iter()
        .map(|r| format!("{}/{}", r.kind, r.name))
        .collect();
    json!(list.join(","))
}

/// A table of `objects` (of one kind). `object` gives each row's object
/// (`PartialObjectMetadata` by default, as upstream), or `None`.
#[must_use]
pub fn table(
    group: &str,
    kind: &str,
    objects: &[&Object],
    now: Timestamp,
    object: impl Fn(&Object) -> Option<Value>,
) -> Value {
    let extra = kind_columns(group, kind);
    let mut defs = vec![column("Name", "string", 0)];
    defs.extend(extra.iter().map(|(n, t, _)| column(n, t, 0)));
    defs.push(column("Age", "string", 0));
    defs.push(column("Finalizers", "string", 1));
    defs.push(column("Owners", "string", 1));
    let rows: Vec<Value> = objects
        .iter()
        .map(|o| {
            let mut cells = vec![json!(o.name())];
            cells.extend(extra.iter().map(|(_, _, f)| f(o)));
            let age = o.metadata.creation_timestamp.map_or_else(
                || "<unknown>".to_string(),
                |c| human_duration(now.duration_since(c).as_secs()),
            );
            cells.push(json!(age));
            cells.push(finalizers(o));
            cells.push(owners(o));
            let mut row = json!({"cells": cells});
            if let Some(v) = object(o) {
                row["object"] = v;
            }
            row
        })
        .collect();
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {},
        "columnDefinitions": defs,
        "rows": rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_as_kubectl_prints_them() {
        let cases = [
            (0, "0s"),
            (119, "119s"),
            (120, "2m"),
            (125, "2m5s"),
            (600, "10m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 60, "3h1m"),
            (30 * 3600, "30h"),
            (50 * 3600, "2d2h"),
            (400 * 86400, "400d"),
            (3 * 365 * 86400, "3y"),
            (-5, "<invalid>"),
        ];
        for (s, want) in cases {
            assert_eq!(human_duration(s), want, "{s}");
        }
    }

    #[test]
    fn a_terminating_pod_says_so() {
        let mut o = Object::new("v1", "Pod", Some("a"), "p");
        let t0 = Timestamp::UNIX_EPOCH;
        o.metadata.creation_timestamp = Some(t0);
        o.metadata.deletion_timestamp = Some(t0);
        o.metadata.finalizers.push("example.com/hold".into());
        let now = t0 + jiff::SignedDuration::from_secs(65);
        let t = table("", "Pod", &[&o], now, |_| None);
        assert_eq!(
            t["rows"][0]["cells"],
            json!(["p", "Terminating", "65s", "example.com/hold", "<none>"])
        );
        assert_eq!(t["columnDefinitions"][1]["name"], "Status");
        assert!(t["rows"][0].get("object").is_none());
    }
}
