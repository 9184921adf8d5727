//! Watches: where one starts (`resourceVersion` unset or `0`: the current
//! objects as ADDED; a version: every change after it, or 410 Gone when the
//! history no longer reaches it), which changes it shows (an object that
//! leaves a selector is DELETED for it, one that enters is ADDED), and the
//! lines it sends (object, table or metadata form; bookmarks).

use jiff::Timestamp;
use serde_json::{Value, json};

use super::negotiate::Form;
use super::query::ListOptions;
use super::read::{completed_value, in_scope, meta_value, row_object, served_value};
use super::state::{EventKind, Served};
use super::status::status_value;
use super::{events, table};
use crate::model::{KindInfo, Object, OwnershipGraph};

/// A watch to stream.
#[derive(Clone, Debug, PartialEq)]
pub struct WatchSpec {
    pub kind: KindInfo,
    pub namespace: Option<String>,
    pub opts: ListOptions,
    pub form: Form,
    /// The resource version the changes are sent after.
    pub cursor: u64,
    /// Lines sent first.
    pub initial: Vec<Value>,
    /// The watch ends after `initial` (it could not start).
    pub ended: bool,
}

fn gone(rv: u64, oldest: u64) -> Value {
    json!({
        "type": "ERROR",
        "object": status_value(410, &format!("too old resource version: {rv} ({oldest})"), None),
    })
}

/// One event line.
#[must_use]
pub fn line(
    kind: EventKind,
    o: &Object,
    spec: &WatchSpec,
    now: Timestamp,
    g: &OwnershipGraph,
) -> Value {
    let object = match spec.form {
        Form::Meta => meta_value(o),
        Form::Table => table::table(
            &spec.kind,
            &[o],
            now,
            |x| completed_value(x, g),
            |x| row_object(spec.opts.include_object.as_deref(), x, &spec.kind, g),
        ),
        _ => served_value(o, &spec.kind, g),
    };
    json!({"type": kind.as_str(), "object": object})
}

/// A bookmark at `rv`.
#[must_use]
pub fn bookmark(spec: &WatchSpec, rv: u64) -> Value {
    let (kind, api_version) = match spec.form {
        Form::Meta => (
            "PartialObjectMetadata".to_string(),
            "meta.k8s.io/v1".to_string(),
        ),
        _ => (spec.kind.kind.clone(), spec.kind.api_version()),
    };
    json!({
        "type": "BOOKMARK",
        "object": {"kind": kind, "apiVersion": api_version,
                   "metadata": {"resourceVersion": rv.to_string()}},
    })
}

/// Starts a watch. `resourceVersion` must already be a number or absent.
#[must_use]
pub fn start(
    served: &Served,
    kind: KindInfo,
    namespace: Option<String>,
    opts: ListOptions,
    form: Form,
    rv: Option<u64>,
) -> WatchSpec {
    let mut spec = WatchSpec {
        kind,
        namespace,
        opts,
        form,
        cursor: served.resource_version(),
        initial: Vec::new(),
        ended: false,
    };
    match rv {
        None | Some(0) => {
            let now = served.sim.now();
            let (group, stored) = events::stored_kind(&spec.kind);
            spec.initial = served
                .index
                .scan(group, stored, spec.namespace.as_deref(), None)
                .filter(|o| in_scope(o, &spec.kind, spec.namespace.as_deref(), &spec.opts))
                .map(|o| line(EventKind::Added, o, &spec, now, served.sim.graph()))
                .collect();
        }
        Some(v) => match served.since(v) {
            Ok(_) => spec.cursor = v,
            Err(oldest) => {
                spec.initial = vec![gone(v, oldest)];
                spec.ended = true;
            }
        },
    }
    spec
}

/// The lines for what changed after `spec.cursor` up to resource version
/// `upto` (what is durable: a watch never sees a change before the
/// journal has it), moving the cursor on. `Err` is the 410 line that ends
/// the watch (it fell behind the history).
///
/// # Errors
/// The history no longer reaches the cursor.
pub fn next(served: &Served, spec: &mut WatchSpec, upto: u64) -> Result<Vec<Value>, Value> {
    let events = served
        .since(spec.cursor)
        .map_err(|oldest| gone(spec.cursor, oldest))?;
    let now = served.sim.now();
    let ns = spec.namespace.as_deref();
    let mut lines = Vec::new();
    let upto = upto.min(served.resource_version());
    for e in events {
        if e.rv > upto {
            break;
        }
        let now_in = in_scope(&e.object, &spec.kind, ns, &spec.opts);
        let was_in = e
            .old
            .as_ref()
            .is_some_and(|o| in_scope(o, &spec.kind, ns, &spec.opts));
        let kind = match (e.kind, was_in, now_in) {
            (EventKind::Added, _, true) => EventKind::Added,
            (EventKind::Modified, true, true) => EventKind::Modified,
            (EventKind::Modified, false, true) => EventKind::Added,
            (EventKind::Modified, true, false) => EventKind::Deleted,
            (EventKind::Deleted, _, true) => EventKind::Deleted,
            _ => continue,
        };
        lines.push(line(kind, &e.object, spec, now, served.sim.graph()));
    }
    // Every change up to the store's version is in the history (the
    // handler and the clock move them there under the same lock).
    spec.cursor = spec.cursor.max(upto);
    Ok(lines)
}
