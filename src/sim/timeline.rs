//! The timeline: one entry per observable change, event and API answer, at
//! virtual time, with text and JSON-lines renderings (the `simulate`
//! output, which scripts depend on).

use jiff::Timestamp;
use serde::Serialize;
use serde_json::{Value, json};

use super::api::Change;
use crate::model::{ObjRef, Object, OwnerReference};

/// What changed in an update, field by field.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diff {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub finalizers_added: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub finalizers_removed: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_grace_period_seconds: Option<i64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub owner_references_added: Vec<OwnerReference>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub owner_references_removed: Vec<OwnerReference>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub owner_references_changed: Vec<OwnerReference>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub labels_changed: Vec<String>,
    /// `spec` changed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub spec_changed: bool,
    /// `status` changed beyond the phase (e.g. namespace conditions).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub status_changed: bool,
}

impl Diff {
    /// The field-level difference between two versions of an object.
    #[must_use]
    pub fn between(old: &Object, new: &Object) -> Diff {
        let (of, nf) = (&old.metadata.finalizers, &new.metadata.finalizers);
        let (or, nr) = (
            &old.metadata.owner_references,
            &new.metadata.owner_references,
        );
        let phase = |o: &Object| o.str_at(&["status", "phase"]).map(str::to_string);
        let ts_changed = old.metadata.deletion_timestamp != new.metadata.deletion_timestamp;
        let grace_changed = old.metadata.deletion_grace_period_seconds
            != new.metadata.deletion_grace_period_seconds;
        let mut labels: Vec<String> = old
            .metadata
            .labels
            .keys()
            .chain(new.metadata.labels.keys())
            .filter(|k| old.metadata.labels.get(*k) != new.metadata.labels.get(*k))
            .cloned()
            .collect();
        labels.dedup();
        let mut old_status = (*old.status).clone();
        let mut new_status = (*new.status).clone();
        for s in [&mut old_status, &mut new_status] {
            if let Value::Object(m) = s {
                m.remove("phase");
            }
        }
        Diff {
            finalizers_added: nf.iter().filter(|f| !of.contains(f)).cloned().collect(),
            finalizers_removed: of.iter().filter(|f| !nf.contains(f)).cloned().collect(),
            deletion_timestamp: if ts_changed {
                new.metadata.deletion_timestamp
            } else {
                None
            },
            deletion_grace_period_seconds: if ts_changed || grace_changed {
                new.metadata.deletion_grace_period_seconds
            } else {
                None
            },
            owner_references_added: nr
                .iter()
                .filter(|r| !or.iter().any(|o| o.uid == r.uid))
                .cloned()
                .collect(),
            owner_references_removed: or
                .iter()
                .filter(|r| !nr.iter().any(|n| n.uid == r.uid))
                .cloned()
                .collect(),
            owner_references_changed: nr
                .iter()
                .filter(|r| or.iter().any(|o| o.uid == r.uid && o != *r))
                .cloned()
                .collect(),
            phase: if phase(old) == phase(new) {
                None
            } else {
                phase(new)
            },
            labels_changed: labels,
            spec_changed: old.spec != new.spec,
            status_changed: old_status != new_status,
        }
    }

    /// `+finalizer x, -finalizer y, deletionTimestamp set (grace 30s)`.
    #[must_use]
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        for f in &self.finalizers_added {
            parts.push(format!("+finalizer {f}"));
        }
        for f in &self.finalizers_removed {
            parts.push(format!("-finalizer {f}"));
        }
        if self.deletion_timestamp.is_some() {
            match self.deletion_grace_period_seconds {
                Some(g) if g > 0 => parts.push(format!("deletionTimestamp set (grace {g}s)")),
                _ => parts.push("deletionTimestamp set".to_string()),
            }
        } else if let Some(g) = self.deletion_grace_period_seconds {
            parts.push(format!("grace now {g}s"));
        }
        let r = |r: &OwnerReference| format!("{}/{}", r.kind, r.name);
        for o in &self.owner_references_added {
            parts.push(format!("+ownerRef {}", r(o)));
        }
        for o in &self.owner_references_removed {
            parts.push(format!("-ownerRef {}", r(o)));
        }
        for o in &self.owner_references_changed {
            parts.push(format!(
                "ownerRef {} now controller={} blockOwnerDeletion={}",
                r(o),
                o.is_controller(),
                o.blocks()
            ));
        }
        if let Some(p) = &self.phase {
            parts.push(format!("phase {p}"));
        }
        if !self.labels_changed.is_empty() {
            parts.push(format!("labels {}", self.labels_changed.join(",")));
        }
        if self.spec_changed {
            parts.push("spec updated".to_string());
        }
        if self.status_changed {
            parts.push("status updated".to_string());
        }
        parts.join(", ")
    }
}

/// What an entry records.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum What {
    Created,
    Updated {
        changes: Diff,
    },
    Deleted,
    Event {
        reason: String,
        message: String,
    },
    Response {
        request: String,
        code: u16,
        message: String,
        warnings: Vec<String>,
    },
}

/// One timeline entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Virtual milliseconds since the scenario started.
    pub t_ms: u64,
    pub object: ObjRef,
    /// Who caused it: `user`, `garbage-collector`, `kubelet`, a controller.
    pub by: String,
    pub what: What,
}

impl Entry {
    /// Entries for a store change.
    #[must_use]
    pub fn from_change(t_ms: u64, by: &str, change: &Change) -> Option<Entry> {
        let (object, what) = match change {
            Change::Added(o) => (o.obj_ref(), What::Created),
            Change::Deleted(o) => (o.obj_ref(), What::Deleted),
            Change::Modified { old, new } => {
                let diff = Diff::between(old, new);
                if diff == Diff::default() {
                    return None;
                }
                (new.obj_ref(), What::Updated { changes: diff })
            }
        };
        Some(Entry {
            t_ms,
            object,
            by: by.to_string(),
            what,
        })
    }

    /// Seconds, as in the JSON lines.
    #[must_use]
    pub fn seconds(&self) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        let s = self.t_ms as f64 / 1000.0;
        s
    }

    /// One JSON line: `t`, `type`, `object`, `by` and the details.
    #[must_use]
    pub fn to_json(&self) -> Value {
        let mut v = serde_json::to_value(&self.what).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert("t".into(), json!(self.seconds()));
            m.insert(
                "object".into(),
                serde_json::to_value(&self.object).unwrap_or(Value::Null),
            );
            m.insert("by".into(), json!(self.by));
        }
        v
    }

    /// The verb column of the text rendering.
    #[must_use]
    pub fn verb(&self) -> &'static str {
        match self.what {
            What::Created => "created",
            What::Updated { .. } => "updated",
            What::Deleted => "deleted",
            What::Event { .. } => "event",
            What::Response { .. } => "response",
        }
    }

    /// What happened, without time and object.
    #[must_use]
    pub fn detail(&self) -> String {
        match &self.what {
            What::Created | What::Deleted => String::new(),
            What::Updated { changes } => changes.describe(),
            What::Event { reason, message } => format!("Warning {reason}: {message}"),
            What::Response {
                request,
                code,
                message,
                warnings,
            } => {
                let mut s = format!("{request} -> {}", status_text(*code));
                if !message.is_empty() {
                    s.push_str(": ");
                    s.push_str(message);
                }
                for w in warnings {
                    s.push_str(&format!(" [Warning: {w}]"));
                }
                s
            }
        }
    }

    /// `  0.200s  updated   Deployment/web -n shop  +finalizer ...  (by user)`
    #[must_use]
    pub fn to_text(&self) -> String {
        let detail = self.detail();
        let mut s = format!(
            "{:>9.3}s  {:<8}  {}",
            self.seconds(),
            self.verb(),
            self.object
        );
        if !detail.is_empty() {
            s.push_str("  ");
            s.push_str(&detail);
        }
        s.push_str(&format!("  (by {})", self.by));
        s
    }
}

/// `200 OK`, `422 Invalid`, ...
#[must_use]
pub fn status_text(code: u16) -> String {
    let reason = match code {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        403 => "Forbidden",
        404 => "NotFound",
        409 => "Conflict",
        422 => "Invalid",
        _ => "",
    };
    format!("{code} {reason}").trim_end().to_string()
}
