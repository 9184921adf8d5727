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

/// Entries a chunk of the [`Timeline`] holds (a power of two, so that an
/// index splits with a shift and a mask).
const CHUNK: usize = 4096;

/// The timeline's entries, in order, kept in chunks of [`CHUNK`] so that a
/// push never moves what is already there: a `Vec` of every entry doubled
/// inside one push of a 100k cascade, copying tens of MB into fresh pages in
/// one step the poll's budget could not cut (docs/performance.md, "The
/// delete dialog's preview and the cascade's freeze, profiled"). Full
/// chunks are shared, so a copy of the simulator (a trial run while
/// settling) copies only the last one.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    full: Vec<std::sync::Arc<Vec<Entry>>>,
    tail: Vec<Entry>,
}

impl Timeline {
    /// Adds `e` at the end.
    pub fn push(&mut self, e: Entry) {
        if self.tail.len() == CHUNK {
            let next = Vec::with_capacity(CHUNK);
            let done = std::mem::replace(&mut self.tail, next);
            self.full.push(std::sync::Arc::new(done));
        }
        self.tail.push(e);
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.full.len() * CHUNK + self.tail.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entry at `i`, if there is one.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<&Entry> {
        match self.full.get(i / CHUNK) {
            Some(chunk) => chunk.get(i % CHUNK),
            None if i / CHUNK == self.full.len() => self.tail.get(i % CHUNK),
            None => None,
        }
    }

    #[must_use]
    pub fn last(&self) -> Option<&Entry> {
        self.tail.last()
    }

    /// Every entry, oldest first.
    #[must_use]
    pub fn iter(&self) -> Iter<'_> {
        self.since(0)
    }

    /// The entries from `from` on (none if `from` is past the end): what
    /// happened after a reader last looked, given the length it saw then.
    #[must_use]
    pub fn since(&self, from: usize) -> Iter<'_> {
        let end = self.len();
        Iter {
            timeline: self,
            front: from.min(end),
            back: end,
        }
    }

    /// The entries copied into one `Vec`.
    #[must_use]
    pub fn to_vec(&self) -> Vec<Entry> {
        self.iter().cloned().collect()
    }
}

impl PartialEq for Timeline {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl std::ops::Index<usize> for Timeline {
    type Output = Entry;

    fn index(&self, i: usize) -> &Entry {
        let len = self.len();
        self.get(i)
            .unwrap_or_else(|| panic!("timeline index {i} out of range for length {len}"))
    }
}

impl<'a> IntoIterator for &'a Timeline {
    type Item = &'a Entry;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// An iterator over a [`Timeline`]'s entries, either way.
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    timeline: &'a Timeline,
    front: usize,
    back: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a Entry;

    fn next(&mut self) -> Option<&'a Entry> {
        if self.front == self.back {
            return None;
        }
        let e = self.timeline.get(self.front);
        self.front += 1;
        e
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front == self.back {
            return None;
        }
        self.back -= 1;
        self.timeline.get(self.back)
    }
}

impl ExactSizeIterator for Iter<'_> {}

#[cfg(test)]
mod timeline_tests {
    use super::*;

    fn entry(i: usize) -> Entry {
        Entry {
            t_ms: i as u64,
            object: ObjRef {
                api_version: "v1".into(),
                kind: "ConfigMap".into(),
                namespace: Some("default".into()),
                name: format!("cm-{i}"),
                uid: format!("uid-{i}"),
            },
            by: "user".into(),
            what: What::Created,
        }
    }

    /// Across chunk boundaries the timeline reads as the `Vec` of the same
    /// pushes would: by index, from an index on, backwards, by length.
    #[test]
    fn reads_as_one_sequence_across_chunks() {
        let n = 2 * CHUNK + 3;
        let mut t = Timeline::default();
        let mut v = Vec::new();
        assert!(t.is_empty() && t.last().is_none() && t.get(0).is_none());
        for i in 0..n {
            t.push(entry(i));
            v.push(entry(i));
        }
        assert_eq!(t.len(), n);
        assert_eq!(t.to_vec(), v);
        for i in [0, CHUNK - 1, CHUNK, 2 * CHUNK, n - 1] {
            assert_eq!(t[i], v[i], "{i}");
        }
        assert!(t.get(n).is_none() && t.get(10 * CHUNK).is_none());
        assert_eq!(t.last(), v.last());
        let from = CHUNK - 2;
        assert!(t.since(from).eq(v[from..].iter()));
        assert_eq!(t.since(from).len(), n - from);
        assert_eq!(t.since(n + 5).count(), 0);
        assert!(t.iter().rev().eq(v.iter().rev()));
        assert_eq!(t.iter().rposition(|e| e.t_ms == CHUNK as u64), Some(CHUNK));
    }

    /// A copy shares the full chunks and goes its own way after.
    #[test]
    fn a_copy_shares_what_is_full_and_diverges_after() {
        let mut t = Timeline::default();
        for i in 0..CHUNK + 1 {
            t.push(entry(i));
        }
        let mut copy = t.clone();
        assert!(std::sync::Arc::ptr_eq(&t.full[0], &copy.full[0]));
        assert_eq!(copy, t);
        copy.push(entry(7));
        assert_ne!(copy, t);
        assert_eq!(t.len(), CHUNK + 1);
        assert_eq!(copy.last().map(|e| e.t_ms), Some(7));
    }
}
