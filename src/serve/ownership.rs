//! Where a write records who set which field: the request's field
//! manager, the object's `managedFields` before and after
//! ([`super::managed`] keeps the sets).

use serde_json::{Value, json};

use super::managed::{self, Entry, FieldSet, Writer};
use super::{Request, read, unkept};
use crate::model::{KindInfo, Object};
use crate::sim::Sim;

/// The request's field manager: `fieldManager`, else its user agent's
/// first word, as kube-apiserver 1.20 names it.
#[must_use]
pub fn manager_of(req: &Request) -> String {
    match req.param("fieldManager").filter(|m| !m.is_empty()) {
        Some(m) => m.to_string(),
        None => managed::default_manager(&req.user_agent),
    }
}

/// Now, to the second, as `managedFields` times are written.
fn time(sim: &Sim) -> String {
    second(sim.now())
}

/// `t` to the second, RFC 3339.
fn second(t: jiff::Timestamp) -> String {
    jiff::Timestamp::from_second(t.as_second())
        .unwrap_or(t)
        .to_string()
}

/// The object's entries.
#[must_use]
pub fn entries_of(o: &Object) -> Vec<Entry> {
    unkept::entries_of(o)
}

/// The object as its fields are compared: without `managedFields`.
#[must_use]
pub fn compared(o: &Object) -> Value {
    let mut v = read::object_value(o);
    if let Some(m) = v["metadata"].as_object_mut() {
        m.remove("managedFields");
    }
    v
}

/// The object as its writer's fields are found in it: as compared, with
/// the defaults kube-apiserver sets as it decodes a write
/// ([`super::decoded`]), which 1.20's field manager, running after the
/// decoding, gives to the writer (a Pod's `dnsPolicy`, a container's
/// `imagePullPolicy`, a Deployment's `strategy`, a Service's `type`). The
/// object before the write has them too, so a later write owns them only
/// where it changes them.
#[must_use]
pub fn written(o: &Object) -> Value {
    let mut v = compared(o);
    super::decoded::defaults(&mut v, o);
    v
}

/// Sets `o`'s `managedFields` to `entries` (none: no field).
pub fn set(o: &mut Object, entries: &[Entry]) {
    unkept::set_entries(o, entries);
}

/// Records an update (`old` `None`: a create) of `new` by the request's
/// manager: the fields it changed are its own.
pub fn record_update(
    sim: &Sim,
    req: &Request,
    kind: &KindInfo,
    old: Option<&Object>,
    new: &mut Object,
) {
    let entries = old.map(entries_of).unwrap_or_default();
    let old_v = old.map_or_else(|| json!({}), written);
    set(new, &[]);
    let new_v = written(new);
    let manager = manager_of(req);
    let api_version = kind.api_version();
    let now = time(sim);
    let w = Writer {
        manager: &manager,
        api_version: &api_version,
        time: &now,
    };
    let out = managed::update(&entries, &old_v, &new_v, &w);
    set(new, &out);
}

/// Records a write of one of the simulator's components (the
/// [`crate::sim::api::RecordFn`] `ownerscope serve` installs), as
/// kube-apiserver 1.20's field manager records a controller's create,
/// update and status update alike: `manager` (`kube-controller-manager`,
/// ...) owns the fields it set, by an `Update` in the object's
/// `apiVersion`, at `now` to the second, in one entry per manager (1.20's
/// entries have no `subresource`; from 1.22 a status update is an entry
/// of its own). A create's `status` is no one's (the kind's strategy sets
/// it after the field manager ran). The fields are those of the object as
/// written ([`written`]), as for a client's write: the defaults
/// kube-apiserver adds on decoding (a pod's `dnsPolicy`, a container's
/// `imagePullPolicy`, ...) are the controller's, as on 1.20.
pub fn record_component(
    manager: &str,
    now: jiff::Timestamp,
    old: Option<&Object>,
    new: &mut Object,
) {
    let entries = old.map(entries_of).unwrap_or_default();
    let old_v = old.map_or_else(|| json!({}), written);
    let mut new_v = written(new);
    if old.is_none()
        && let Some(m) = new_v.as_object_mut()
    {
        // A create's status is the kind's strategy's (a Pod `Pending`),
        // set after the field manager ran: no one's.
        m.remove("status");
    }
    let api_version = new.api_version.clone();
    let now = second(now);
    let w = Writer {
        manager,
        api_version: &api_version,
        time: &now,
    };
    let out = managed::update(&entries, &old_v, &new_v, &w);
    set(new, &out);
}

/// The entries of an object an apply creates: the applier owns what it
/// applied.
#[must_use]
pub fn applied_entries(sim: &Sim, req: &Request, kind: &KindInfo, applied: FieldSet) -> Vec<Entry> {
    if applied.is_empty() {
        return Vec::new();
    }
    vec![Entry {
        manager: manager_of(req),
        operation: "Apply".into(),
        api_version: kind.api_version(),
        time: time(sim),
        set: applied,
    }]
}

/// The writer of an apply.
pub fn with_writer<T>(
    sim: &Sim,
    req: &Request,
    kind: &KindInfo,
    f: impl FnOnce(&Writer) -> T,
) -> T {
    let manager = manager_of(req);
    let api_version = kind.api_version();
    let now = time(sim);
    f(&Writer {
        manager: &manager,
        api_version: &api_version,
        time: &now,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn managed_fields_survive_the_store_and_are_sent_in_metadata() {
        let mut o = Object::new("v1", "ConfigMap", Some("x"), "c");
        o.metadata.labels.insert("a".into(), "1".into());
        let entries = managed::update(
            &[],
            &json!({}),
            &compared(&o),
            &Writer {
                manager: "curl",
                api_version: "v1",
                time: "2026-11-26T06:00:00Z",
            },
        );
        set(&mut o, &entries);
        // As the journal and store.json write and read it.
        let text = serde_json::to_string(&o).expect("serializes");
        let back: Object = serde_json::from_str(&text).expect("reads");
        assert_eq!(entries_of(&back), entries);
        let sent = read::object_value(&back);
        assert!(sent.get("managedFields").is_none());
        let meta = sent["metadata"].as_object().expect("metadata");
        assert_eq!(
            meta.keys().next_back().map(String::as_str),
            Some("managedFields")
        );
        assert_eq!(sent["metadata"]["managedFields"][0]["manager"], "curl");
        // No entries: no field, and no empty Extra left behind.
        set(&mut o, &[]);
        assert!(o.extra.is_none());
        assert!(compared(&o)["metadata"].get("managedFields").is_none());
    }

    #[test]
    fn an_object_read_from_a_cluster_keeps_no_managed_fields() {
        let o: Object = serde_json::from_value(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "managedFields": [{"manager": "m", "operation": "Update"}]}}))
        .expect("reads");
        assert!(o.extra.is_none());
    }
}
