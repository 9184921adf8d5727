//! Field ownership (`metadata.managedFields`), a subset of kube-apiserver
//! 1.20's field manager (`apiserver/pkg/endpoints/handlers/fieldmanager`)
//! over structured-merge-diff v4's field sets: who set which field, by an
//! `Apply` (server-side apply) or an `Update` (create, PUT, PATCH).
//!
//! The sets are `FieldsV1` as the API server writes them: `f:name` for a
//! field, `k:{"name":"c"}` for an element of a list keyed by a merge key,
//! `v:"x"` for an element of a list that is a set, `.` for the node itself.
//! What the schema says is modelled by field name and the field holding
//! it ([`super::field_schema`]): the maps (labels, annotations, data, a
//! Service's selector, ...), the keyed lists (owner references by uid,
//! containers and volumes by name, ports by port and protocol, conditions
//! by type), `finalizers` as a set, and what a Go zero value has; every
//! other list is atomic. An apply owns what its configuration names
//! ([`applied_set`]); an update what it changed ([`changed_set`]), the
//! decoding's defaults included where the caller compares the objects as
//! decoded ([`super::ownership`]). Not modelled: unions and versions (a set
//! is kept in the version it was written).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::field_schema::{
    ListKind, in_zero_value, is_atomic_struct, is_map, key_default, key_element, list_kind, qualify,
};

/// A set of field paths.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldSet(BTreeMap<String, Node>);

/// One path element's place in a set: whether the path ending here is in
/// the set, and the paths below it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Node {
    member: bool,
    children: FieldSet,
}

/// A path: its elements (`f:metadata`, `f:labels`, `f:a`).
pub type Path = Vec<String>;

impl FieldSet {
    /// From `FieldsV1` JSON.
    #[must_use]
    pub fn from_v1(v: &Value) -> FieldSet {
        let mut set = FieldSet::default();
        if let Value::Object(m) = v {
            for (k, child) in m {
                if k == "." {
                    continue;
                }
                let children = FieldSet::from_v1(child);
                let member = child.get(".").is_some() || children.0.is_empty();
                set.0.insert(k.clone(), Node { member, children });
            }
        }
        set
    }

    /// As `FieldsV1` JSON.
    #[must_use]
    pub fn to_v1(&self) -> Value {
        let mut out = Map::new();
        for (k, n) in &self.0 {
            let mut v = match n.children.to_v1() {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            if n.member && !v.is_empty() {
                let mut with_dot = Map::new();
                with_dot.insert(".".into(), json!({}));
                with_dot.extend(v);
                v = with_dot;
            }
            out.insert(k.clone(), Value::Object(v));
        }
        Value::Object(out)
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every path in the set.
    #[must_use]
    pub fn paths(&self) -> Vec<Path> {
        let mut out = Vec::new();
        self.collect(&mut Vec::new(), &mut out);
        out
    }

    fn collect(&self, prefix: &mut Path, out: &mut Vec<Path>) {
        for (k, n) in &self.0 {
            prefix.push(k.clone());
            if n.member {
                out.push(prefix.clone());
            }
            n.children.collect(prefix, out);
            prefix.pop();
        }
    }

    /// Adds `path`.
    pub fn insert(&mut self, path: &[String]) {
        let Some((first, rest)) = path.split_first() else {
            return;
        };
        let node = self.0.entry(first.clone()).or_default();
        if rest.is_empty() {
            node.member = true;
        } else {
            node.children.insert(rest);
        }
    }

    /// Whether `path` is in the set.
    #[must_use]
    pub fn contains(&self, path: &[String]) -> bool {
        let Some((first, rest)) = path.split_first() else {
            return false;
        };
        self.0.get(first).is_some_and(|n| {
            if rest.is_empty() {
                n.member
            } else {
                n.children.contains(rest)
            }
        })
    }

    /// Takes `path` out (the paths below it stay).
    pub fn remove(&mut self, path: &[String]) {
        let Some((first, rest)) = path.split_first() else {
            return;
        };
        if let Some(n) = self.0.get_mut(first) {
            if rest.is_empty() {
                n.member = false;
            } else {
                n.children.remove(rest);
            }
            if !n.member && n.children.is_empty() {
                self.0.remove(first);
            }
        }
    }

    /// The paths of `self` in `other` too.
    #[must_use]
    pub fn intersection(&self, other: &FieldSet) -> FieldSet {
        let mut out = FieldSet::default();
        for p in self.paths() {
            if other.contains(&p) {
                out.insert(&p);
            }
        }
        out
    }

    /// The paths of `self` not in `other`.
    #[must_use]
    pub fn difference(&self, other: &FieldSet) -> FieldSet {
        let mut out = self.clone();
        for p in other.paths() {
            out.remove(&p);
        }
        out
    }

    /// Adds every path of `other`.
    pub fn extend(&mut self, other: &FieldSet) {
        for p in other.paths() {
            self.insert(&p);
        }
    }
}

/// A path as the API server prints it in a conflict: `.data.key`,
/// `.spec.containers[name="c"].image`, `.metadata.finalizers[="x"]`.
#[must_use]
pub fn display(path: &[String]) -> String {
    let mut s = String::new();
    for pe in path {
        if let Some(f) = pe.strip_prefix("f:") {
            s.push('.');
            s.push_str(f);
        } else if let Some(k) = pe.strip_prefix("k:") {
            let keys: Map<String, Value> = serde_json::from_str(k).unwrap_or_default();
            let parts: Vec<String> = keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
            s.push('[');
            s.push_str(&parts.join(","));
            s.push(']');
        } else if let Some(v) = pe.strip_prefix("v:") {
            s.push_str(&format!("[={v}]"));
        } else {
            s.push_str(pe);
        }
    }
    s
}

/// Fields the API server never records an owner for (1.20's
/// `stripMetaManager`): identity and what the server itself sets.
const STRIPPED: &[&[&str]] = &[
    &["f:apiVersion"],
    &["f:kind"],
    &["f:metadata", "f:name"],
    &["f:metadata", "f:namespace"],
    &["f:metadata", "f:uid"],
    &["f:metadata", "f:resourceVersion"],
    &["f:metadata", "f:generation"],
    &["f:metadata", "f:creationTimestamp"],
    &["f:metadata", "f:deletionTimestamp"],
    &["f:metadata", "f:deletionGracePeriodSeconds"],
    &["f:metadata", "f:managedFields"],
    &["f:metadata", "f:selfLink"],
];

fn strip(set: &mut FieldSet) {
    for p in STRIPPED {
        let path: Path = p.iter().map(|s| (*s).to_string()).collect();
        set.remove(&path);
    }
    // `metadata` itself is never a member.
    let meta = vec!["f:metadata".to_string()];
    set.remove(&meta);
}

/// The fields an applied configuration names (structured-merge-diff's
/// `ToFieldSet`): a scalar, a null, an empty map, an atomic list and a
/// map's key are members; a struct is reached through its fields.
#[must_use]
pub fn applied_set(config: &Value) -> FieldSet {
    let mut set = FieldSet::default();
    if let Value::Object(m) = config {
        fields_of(m, false, "", &mut set);
    }
    strip(&mut set);
    set
}

/// The fields of the map `m`, the value of the field `parent`.
fn fields_of(m: &Map<String, Value>, map_typed: bool, parent: &str, out: &mut FieldSet) {
    for (k, v) in m {
        let mut node = value_node(qualify(parent, k), v);
        if map_typed || v.is_null() || v.as_object().is_some_and(Map::is_empty) {
            node.member = true;
        }
        if node.member || !node.children.is_empty() {
            out.0.insert(format!("f:{k}"), node);
        }
    }
}

/// What stops structured-merge-diff making a typed value of an applied
/// configuration: an element of a keyed list without one of its keys,
/// which has no default (1.20: a Service port without its `protocol`).
/// kube-apiserver answers 500 with this message.
#[must_use]
pub fn untyped(config: &Value) -> Option<String> {
    keyless(config, "", &mut String::new())
}

fn keyless(v: &Value, name: &str, at: &mut String) -> Option<String> {
    match v {
        Value::Object(m) if !is_atomic_struct(name, v) && !is_map(name, v) => {
            m.iter().find_map(|(k, child)| {
                let len = at.len();
                at.push('.');
                at.push_str(k);
                let found = keyless(child, qualify(name, k), at);
                at.truncate(len);
                found
            })
        }
        Value::Array(items) => {
            let ListKind::Keyed(keys) = list_kind(name) else {
                return None;
            };
            items.iter().enumerate().find_map(|(n, i)| {
                if let Some(k) = keys
                    .iter()
                    .find(|k| i.get(**k).is_none() && key_default(name, k).is_none())
                {
                    return Some(format!(
                        "failed to create typed patch object: {at}: element {n}: associative list with keys has an element that omits key field \"{k}\" (and doesn't have default value)"
                    ));
                }
                let len = at.len();
                at.push_str(&display(&[key_element(i, name, keys)?]));
                let found = keyless(i, name, at);
                at.truncate(len);
                found
            })
        }
        _ => None,
    }
}

/// The node of field `name` holding `v`.
fn value_node(name: &str, v: &Value) -> Node {
    match v {
        Value::Object(m) if !is_atomic_struct(name, v) => {
            let mut children = FieldSet::default();
            fields_of(m, is_map(name, v), name, &mut children);
            Node {
                member: false,
                children,
            }
        }
        Value::Array(items) => match list_kind(name) {
            ListKind::Atomic => leaf(),
            ListKind::Set => {
                let mut children = FieldSet::default();
                for i in items {
                    children.0.insert(format!("v:{i}"), leaf());
                }
                Node {
                    member: false,
                    children,
                }
            }
            ListKind::Keyed(keys) => {
                let mut children = FieldSet::default();
                for i in items {
                    let (Some(pe), Value::Object(m)) = (key_element(i, name, keys), i) else {
                        // An element without a key (a Service port without its
                        // protocol, which an apply is refused): owned whole.
                        return leaf();
                    };
                    let mut inner = FieldSet::default();
                    fields_of(m, false, name, &mut inner);
                    children.0.insert(
                        pe,
                        Node {
                            member: true,
                            children: inner,
                        },
                    );
                }
                Node {
                    member: false,
                    children,
                }
            }
        },
        _ => leaf(),
    }
}

/// The node of a field an update added, where the Go zero value of the
/// struct holding it had it (`parent_in_zero`) or not: as an applied one,
/// but everything added is a member itself (`.`), a map, a list, a
/// struct that is a pointer (a `rollingUpdate`), and all that an added
/// field holds; a field the zero value has ([`in_zero_value`]: a spec, a
/// pod spec's `containers`) was there, so is no member.
fn added_node(name: &str, v: &Value, parent_in_zero: bool) -> Node {
    let in_zero = parent_in_zero && in_zero_value(name);
    match v {
        Value::Object(m) if !is_atomic_struct(name, v) => Node {
            member: !in_zero,
            children: added_fields(m, is_map(name, v), name, in_zero),
        },
        Value::Array(items) => match list_kind(name) {
            ListKind::Atomic => leaf(),
            ListKind::Set => Node {
                member: !in_zero,
                ..value_node(name, v)
            },
            ListKind::Keyed(keys) => {
                let mut children = FieldSet::default();
                for i in items {
                    let (Some(pe), Value::Object(m)) = (key_element(i, name, keys), i) else {
                        // An element without a key (a Service port without its
                        // protocol, which an apply is refused): owned whole.
                        return leaf();
                    };
                    children.0.insert(pe, added_element(name, m));
                }
                Node {
                    member: !in_zero,
                    children,
                }
            }
        },
        _ => leaf(),
    }
}

/// An element of the keyed list `list` an update added: itself and all
/// it holds.
fn added_element(list: &str, m: &Map<String, Value>) -> Node {
    Node {
        member: true,
        children: added_fields(m, false, list, false),
    }
}

/// The fields of the added map `m`, the value of the field `parent`.
fn added_fields(m: &Map<String, Value>, map_typed: bool, parent: &str, in_zero: bool) -> FieldSet {
    let mut children = FieldSet::default();
    for (k, cv) in m {
        let mut node = added_node(qualify(parent, k), cv, in_zero);
        node.member |= map_typed;
        if node.member || !node.children.is_empty() {
            children.0.insert(format!("f:{k}"), node);
        }
    }
    children
}

fn leaf() -> Node {
    Node {
        member: true,
        children: FieldSet::default(),
    }
}

/// What an update changed from `old` to `new` (structured-merge-diff's
/// `Compare`): the fields added or modified, and those removed. A map or
/// list added is a member itself (`.`), as a real server records it.
#[must_use]
pub fn changed_set(old: &Value, new: &Value) -> (FieldSet, FieldSet) {
    let mut changed = FieldSet::default();
    let mut removed = FieldSet::default();
    compare_maps(
        old.as_object(),
        new.as_object(),
        false,
        "",
        &mut changed,
        &mut removed,
    );
    strip(&mut changed);
    strip(&mut removed);
    (changed, removed)
}

fn compare_maps(
    old: Option<&Map<String, Value>>,
    new: Option<&Map<String, Value>>,
    map_typed: bool,
    parent: &str,
    changed: &mut FieldSet,
    removed: &mut FieldSet,
) {
    let empty = Map::new();
    let (old, new) = (old.unwrap_or(&empty), new.unwrap_or(&empty));
    for (k, nv) in new {
        let pe = format!("f:{k}");
        let mut c = FieldSet::default();
        let mut r = FieldSet::default();
        let member = compare_values(
            qualify(parent, k),
            old.get(k),
            nv,
            map_typed,
            &mut c,
            &mut r,
        );
        if member || !c.is_empty() {
            changed.0.insert(
                pe.clone(),
                Node {
                    member,
                    children: c,
                },
            );
        }
        if !r.is_empty() {
            removed.0.insert(
                pe,
                Node {
                    member: false,
                    children: r,
                },
            );
        }
    }
    // A field removed takes everything below it from every manager
    // (structured-merge-diff's `Removed` holds each path the old value
    // had): an owner reference's fields go with the list.
    for (k, ov) in old.iter().filter(|(k, _)| !new.contains_key(*k)) {
        removed.0.insert(
            format!("f:{k}"),
            Node {
                member: true,
                ..value_node(qualify(parent, k), ov)
            },
        );
    }
}

/// Compares field `name`; answers whether the field itself changed as a
/// member, filling what changed and was removed below it.
fn compare_values(
    name: &str,
    old: Option<&Value>,
    new: &Value,
    map_typed: bool,
    changed: &mut FieldSet,
    removed: &mut FieldSet,
) -> bool {
    if old == Some(new) {
        return false;
    }
    match (old, new) {
        (Some(Value::Object(o)), Value::Object(n)) if !is_atomic_struct(name, new) => {
            compare_maps(Some(o), Some(n), is_map(name, new), name, changed, removed);
            false
        }
        (None | Some(Value::Null), Value::Object(_)) if !is_atomic_struct(name, new) => {
            let node = added_node(name, new, true);
            *changed = node.children;
            map_typed || node.member
        }
        (_, Value::Array(items)) if list_kind(name) != ListKind::Atomic => {
            let olds = old.and_then(Value::as_array).cloned().unwrap_or_default();
            let node = value_node(name, new);
            let old_node = value_node(name, &Value::Array(olds.clone()));
            for (pe, n) in &node.children.0 {
                let before = old_node.children.0.get(pe);
                match (list_kind(name), before) {
                    (ListKind::Keyed(keys), Some(_)) => {
                        let find = |list: &[Value]| {
                            list.iter()
                                .find(|i| key_element(i, name, keys).as_deref() == Some(pe))
                                .cloned()
                        };
                        let (o, n) = (find(&olds), find(items));
                        if let (Some(o), Some(n)) = (o, n) {
                            let (mut c, mut r) = (FieldSet::default(), FieldSet::default());
                            compare_maps(o.as_object(), n.as_object(), false, name, &mut c, &mut r);
                            if !c.is_empty() {
                                changed.0.insert(
                                    pe.clone(),
                                    Node {
                                        member: false,
                                        children: c,
                                    },
                                );
                            }
                            if !r.is_empty() {
                                removed.0.insert(
                                    pe.clone(),
                                    Node {
                                        member: false,
                                        children: r,
                                    },
                                );
                            }
                        }
                    }
                    (_, Some(_)) => {}
                    (ListKind::Keyed(keys), None) => {
                        let added = items
                            .iter()
                            .find(|i| key_element(i, name, keys).as_deref() == Some(pe))
                            .and_then(Value::as_object)
                            .map_or_else(|| n.clone(), |m| added_element(name, m));
                        changed.0.insert(pe.clone(), added);
                    }
                    (_, None) => {
                        changed.0.insert(pe.clone(), n.clone());
                    }
                }
            }
            for (pe, gone) in &old_node.children.0 {
                if !node.children.0.contains_key(pe) {
                    removed.0.insert(
                        pe.clone(),
                        Node {
                            member: true,
                            ..gone.clone()
                        },
                    );
                }
            }
            // A list the zero value has (a pod spec's `containers`) was
            // there.
            old.is_none_or(Value::is_null) && !in_zero_value(name)
        }
        _ => true,
    }
}

/// One entry of `metadata.managedFields`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub manager: String,
    /// `Apply` or `Update`.
    pub operation: String,
    pub api_version: String,
    pub time: String,
    pub set: FieldSet,
}

impl Entry {
    /// From one element of `managedFields`.
    #[must_use]
    pub fn from_value(v: &Value) -> Option<Entry> {
        Some(Entry {
            manager: v["manager"].as_str()?.to_string(),
            operation: v["operation"].as_str().unwrap_or("Update").to_string(),
            api_version: v["apiVersion"].as_str().unwrap_or_default().to_string(),
            time: v["time"].as_str().unwrap_or_default().to_string(),
            set: FieldSet::from_v1(&v["fieldsV1"]),
        })
    }

    /// As the API server writes it.
    #[must_use]
    pub fn to_value(&self) -> Value {
        json!({
            "manager": self.manager,
            "operation": self.operation,
            "apiVersion": self.api_version,
            "time": self.time,
            "fieldsType": "FieldsV1",
            "fieldsV1": self.set.to_v1(),
        })
    }
}

/// The entries of a `managedFields` list.
#[must_use]
pub fn entries(v: Option<&Value>) -> Vec<Entry> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Entry::from_value)
        .collect()
}

/// The `managedFields` list of `entries`, in the API server's order
/// (`sortEncodedManagedFields`): applies before updates, then oldest
/// first, then by manager.
#[must_use]
pub fn to_value(entries: &[Entry]) -> Value {
    let mut sorted: Vec<&Entry> = entries.iter().collect();
    sorted.sort_by(|p, q| {
        (&p.operation, &p.time, &p.manager).cmp(&(&q.operation, &q.time, &q.manager))
    });
    Value::Array(sorted.into_iter().map(Entry::to_value).collect())
}

/// Who writes, and when.
#[derive(Clone, Debug)]
pub struct Writer<'a> {
    pub manager: &'a str,
    pub api_version: &'a str,
    /// RFC 3339, to the second.
    pub time: &'a str,
}

/// An update (create, PUT, PATCH) by `w` from `old` to `new`: the fields
/// it changed become its own (taken from any other manager), those it
/// removed are no longer anyone's (structured-merge-diff's `update` takes
/// `compare.Removed` from every manager).
#[must_use]
pub fn update(entries: &[Entry], old: &Value, new: &Value, w: &Writer) -> Vec<Entry> {
    let (changed, removed) = changed_set(old, new);
    if changed.is_empty() && removed.is_empty() {
        return entries.to_vec();
    }
    let mut out: Vec<Entry> = Vec::new();
    let mut mine = FieldSet::default();
    let mut before: Option<&Entry> = None;
    for e in entries {
        if e.manager == w.manager && e.operation == "Update" {
            mine = e.set.clone();
            before = Some(e);
            continue;
        }
        let mut e = e.clone();
        e.set = e.set.difference(&changed).difference(&removed);
        if !e.set.is_empty() {
            out.push(e);
        }
    }
    mine.extend(&changed);
    let mine = mine.difference(&removed);
    if !mine.is_empty() {
        // A write that only removed fields took none: its manager's entry
        // keeps its time and version (1.20's `managedFieldsUpdater`
        // stamps the manager only when the operation took fields).
        let (api_version, time) = match before {
            Some(e) if changed.is_empty() => (e.api_version.clone(), e.time.clone()),
            _ => (w.api_version.to_string(), w.time.to_string()),
        };
        out.push(Entry {
            manager: w.manager.to_string(),
            operation: "Update".into(),
            api_version,
            time,
            set: mine,
        });
    }
    out
}

/// A conflict of an apply: the field and the manager that owns it, as
/// the API server names it (`"alice"`; an update's `"kubectl-label"
/// using v1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    pub manager: String,
    pub path: Path,
}

fn named(e: &Entry) -> String {
    if e.operation == "Update" {
        format!("\"{}\" using {}", e.manager, e.api_version)
    } else {
        format!("\"{}\"", e.manager)
    }
}

/// An apply of `config` by `w` on `live`, as structured-merge-diff's
/// `Apply`: the object it leaves and the entries, or the conflicts
/// (fields of other managers it would change) when not forced.
///
/// # Errors
/// The conflicts, in the order the API server lists them.
pub fn apply(
    entries: &[Entry],
    live: &Value,
    config: &Value,
    w: &Writer,
    force: bool,
) -> Result<(Value, Vec<Entry>), Vec<Conflict>> {
    let applied = applied_set(config);
    let mut merged = live.clone();
    merge(&mut merged, config, "");
    let (changed, _) = changed_set(live, &merged);
    let mut conflicts = Vec::new();
    for e in entries.iter().filter(|e| e.manager != w.manager) {
        for p in e.set.intersection(&applied).intersection(&changed).paths() {
            conflicts.push(Conflict {
                manager: named(e),
                path: p,
            });
        }
    }
    if !force && !conflicts.is_empty() {
        return Err(conflicts);
    }
    let previous = entries
        .iter()
        .find(|e| e.manager == w.manager && e.operation == "Apply")
        .map(|e| e.set.clone())
        .unwrap_or_default();
    let mut out: Vec<Entry> = Vec::new();
    for e in entries {
        if e.manager == w.manager && e.operation == "Apply" {
            continue;
        }
        let mut e = e.clone();
        if force && e.manager != w.manager {
            e.set = e.set.difference(&applied.intersection(&changed));
        }
        if !e.set.is_empty() {
            out.push(e);
        }
    }
    // A field the applier had and dropped goes, unless another owns it.
    for p in previous.difference(&applied).paths() {
        if !out.iter().any(|e| e.set.contains(&p)) {
            remove_path(&mut merged, &p, "");
        }
    }
    if !applied.is_empty() {
        out.push(Entry {
            manager: w.manager.to_string(),
            operation: "Apply".into(),
            api_version: w.api_version.to_string(),
            time: w.time.to_string(),
            set: applied,
        });
    }
    Ok((merged, out))
}

/// Merges an applied configuration into the live object: maps field by
/// field, keyed lists element by element, sets as a union, anything else
/// replaced.
fn merge(live: &mut Value, config: &Value, name: &str) {
    match (live, config) {
        (Value::Object(l), Value::Object(c)) if !is_atomic_struct(name, config) => {
            for (k, cv) in c {
                match l.get_mut(k) {
                    Some(lv) => merge(lv, cv, qualify(name, k)),
                    None => {
                        l.insert(k.clone(), cv.clone());
                    }
                }
            }
        }
        (Value::Array(l), Value::Array(c)) => match list_kind(name) {
            ListKind::Atomic => *l = c.clone(),
            ListKind::Set => {
                for i in c {
                    if !l.contains(i) {
                        l.push(i.clone());
                    }
                }
            }
            ListKind::Keyed(keys) => {
                for ci in c {
                    let key = key_element(ci, name, keys);
                    match l
                        .iter_mut()
                        .find(|li| key.is_some() && key_element(li, name, keys) == key)
                    {
                        Some(li) => merge(li, ci, name),
                        None => l.push(ci.clone()),
                    }
                }
            }
        },
        (live, config) => *live = config.clone(),
    }
}

/// Takes the field at `path` out of `v`, the value of the field `name`.
fn remove_path(v: &mut Value, path: &[String], name: &str) {
    let Some((pe, rest)) = path.split_first() else {
        return;
    };
    if let Some(f) = pe.strip_prefix("f:") {
        let Some(m) = v.as_object_mut() else {
            return;
        };
        if rest.is_empty() {
            m.remove(f);
        } else if let Some(child) = m.get_mut(f) {
            remove_path(child, rest, qualify(name, f));
        }
        return;
    }
    let Some(items) = v.as_array_mut() else {
        return;
    };
    let matches = |i: &Value| {
        if let Some(val) = pe.strip_prefix("v:") {
            serde_json::from_str::<Value>(val).is_ok_and(|x| x == *i)
        } else if let ListKind::Keyed(keys) = list_kind(name) {
            key_element(i, name, keys).as_deref() == Some(pe.as_str())
        } else {
            false
        }
    };
    if rest.is_empty() {
        items.retain(|i| !matches(i));
    } else if let Some(i) = items.iter_mut().find(|i| matches(i)) {
        remove_path(i, rest, name);
    }
}

/// The 409 of an apply's conflicts, in kube-apiserver's words
/// (`fieldmanager/internal/conflict.go`): `Apply failed with 1 conflict:
/// conflict with "alice": .data.key`; several listed by manager; each a
/// `FieldManagerConflict` cause.
#[must_use]
pub fn conflict_status(conflicts: &[Conflict]) -> Value {
    let message = if let [c] = conflicts {
        format!(
            "Apply failed with 1 conflict: conflict with {}: {}",
            c.manager,
            display(&c.path)
        )
    } else {
        let mut by_manager: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for c in conflicts {
            by_manager
                .entry(c.manager.as_str())
                .or_default()
                .push(display(&c.path));
        }
        let mut lines = Vec::new();
        for (m, paths) in by_manager {
            lines.push(format!("conflicts with {m}:"));
            lines.extend(paths.into_iter().map(|p| format!("- {p}")));
        }
        format!(
            "Apply failed with {} conflicts: {}",
            conflicts.len(),
            lines.join("\n")
        )
    };
    let causes: Vec<Value> = conflicts
        .iter()
        .map(|c| {
            json!({"reason": "FieldManagerConflict", "message": format!("conflict with {}", c.manager), "field": display(&c.path)})
        })
        .collect();
    super::status::status_value(409, &message, Some(json!({"causes": causes})))
}

/// The field manager of a request without `fieldManager`: the user
/// agent's first word, as kube-apiserver 1.20 takes it (`curl/7.88` is
/// `curl`; `kubectl/v1.32 (linux/amd64) ...` is `kubectl`).
#[must_use]
pub fn default_manager(user_agent: &str) -> String {
    let first = user_agent.split('/').next().unwrap_or_default().trim();
    if first.is_empty() {
        "unknown".into()
    } else {
        first.chars().take(128).collect()
    }
}

#[cfg(test)]
#[path = "managed_tests.rs"]
mod tests;
