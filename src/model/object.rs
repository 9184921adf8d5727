//! The subset of Kubernetes object metadata ownerscope needs.
//!
//! Field names follow the Kubernetes API (camelCase on the wire), so a
//! manifest, a `kubectl get -o json` item or a metadata-only watch event
//! deserialises straight into [`Object`].

use std::fmt;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::fields::Fields;

/// A Kubernetes UID.
pub type Uid = String;

/// Labels and annotations: a map kept as one sorted vector (`litemap`),
/// in key order as a `BTreeMap` iterates. A `BTreeMap` allocates a node of
/// eleven entries for the first key: at 100k objects with a few labels
/// and an annotation each that was 120 MiB of the load's peak.
pub type StringMap = litemap::LiteMap<String, String>;

/// One entry of `metadata.ownerReferences`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub uid: Uid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
}

impl OwnerReference {
    /// `controller: true`.
    #[must_use]
    pub fn is_controller(&self) -> bool {
        self.controller == Some(true)
    }

    /// `blockOwnerDeletion: true`.
    #[must_use]
    pub fn blocks(&self) -> bool {
        self.block_owner_deletion == Some(true)
    }

    /// The API group of the referenced kind (`""` for the core group).
    #[must_use]
    pub fn group(&self) -> &str {
        group_of(&self.api_version)
    }
}

/// The metadata ownerscope reads and the simulator maintains.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub uid: Uid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creation_timestamp: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_grace_period_seconds: Option<i64>,
    #[serde(
        default,
        deserialize_with = "super::kept::labels",
        skip_serializing_if = "StringMap::is_empty"
    )]
    pub labels: StringMap,
    #[serde(
        default,
        deserialize_with = "super::kept::annotations",
        skip_serializing_if = "StringMap::is_empty"
    )]
    pub annotations: StringMap,
    #[serde(
        default,
        deserialize_with = "exact_vec",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub finalizers: Vec<String>,
    #[serde(
        default,
        deserialize_with = "exact_vec",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub owner_references: Vec<OwnerReference>,
}

/// A list read into a `Vec` of its length when it has one element, as an
/// object's owner references and finalizers nearly always do. Read by
/// serde's own `Vec`, whose capacity a JSON reader cannot know, the first
/// element makes room for four: 448 bytes for one owner reference of
/// 104, about 50 MB of a 300k-object List (and the kernel zeroes every
/// page of it).
fn exact_vec<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Exact<T>(std::marker::PhantomData<T>);

    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Exact<T> {
        type Value = Vec<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a sequence")
        }

        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let Some(first) = seq.next_element()? else {
                return Ok(Vec::new());
            };
            let Some(second) = seq.next_element()? else {
                return Ok(vec![first]);
            };
            // A hint is trusted as far as serde trusts one (a reader's
            // claim, not yet the input's).
            let hinted = seq.size_hint().unwrap_or(0).min(4096);
            let mut all = Vec::with_capacity(hinted.saturating_add(2));
            all.push(first);
            all.push(second);
            while let Some(next) = seq.next_element()? {
                all.push(next);
            }
            Ok(all)
        }
    }

    d.deserialize_seq(Exact(std::marker::PhantomData))
}

/// A Kubernetes object: identity, metadata, and of `spec` and `status` only
/// the fields a rule or the UI reads ([`super::kept`]), as JSON.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Object {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(skip_serializing_if = "Fields::is_null")]
    pub spec: Fields,
    #[serde(skip_serializing_if = "Fields::is_null")]
    pub status: Fields,
    /// The top-level fields of RBAC objects and Events, beside `spec` and
    /// `status`; `None` for every other kind. One pointer: as seventeen
    /// fields of their own they were a quarter of every object.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub extra: Option<Box<Extra>>,
}

// An object is stored in an `Arc` (16 bytes more) that the allocator
// serves from its 448-byte size class; with the seventeen fields inline it
// took the 640-byte one: 19 MB more for 100k objects, all of it touched
// while they are read.
const _: () = assert!(std::mem::size_of::<Object>() + 16 <= 448);

/// Top-level fields of a few kinds: RBAC's and the webhook
/// configurations' as JSON values, an Event's (and a Secret's `type`) as
/// their JSON text ([`Raw`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Extra {
    /// RBAC's top-level fields (`rules` of a Role or ClusterRole; `roleRef`
    /// and `subjects` of a binding): `ownerscope serve` authorizes from
    /// them, on every request, so they are kept as values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<Box<Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role_ref: Option<Box<Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subjects: Option<Box<Value>>,
    /// A core/v1 Event's top-level fields: `ownerscope serve` stores the
    /// events it records and clients post, and serves them as `v1` and
    /// `events.k8s.io/v1` ([`crate::serve::events`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub involved_object: Option<Raw>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<Raw>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<Raw>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Raw>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_timestamp: Option<Raw>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_timestamp: Option<Raw>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<Raw>,
    #[serde(skip_serializing_if = "Option::is_none", rename = "type")]
    pub type_: Option<Raw>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_time: Option<Raw>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub series: Option<Raw>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<Raw>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub related: Option<Raw>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reporting_component: Option<Raw>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reporting_instance: Option<Raw>,
    /// A Validating- or MutatingWebhookConfiguration's `webhooks`: which
    /// requests each webhook is called for, and where (STUCK-CAUSES C6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhooks: Option<Box<Value>>,
    /// `metadata.managedFields` as `ownerscope serve` keeps it (who set
    /// which field: `crate::serve::managed`). Stored beside the object's
    /// top-level fields, where no object read from a cluster has it: a
    /// snapshot's or a watch's managed fields are never read into memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub managed_fields: Option<Box<Value>>,
}

impl Extra {
    /// The fields a client wrote that the simulator does not keep, as
    /// `ownerscope serve` keeps them (`crate::serve::unkept`): their JSON
    /// text, the last element of `managed_fields` when it is a string.
    #[must_use]
    pub fn unkept_text(&self) -> Option<&str> {
        self.managed_fields.as_deref()?.as_array()?.last()?.as_str()
    }
}

/// One top-level field kept as its JSON text, in one allocation of its
/// own size, and read back as a [`Value`] when asked. Events are half the
/// objects of a large cluster: their eleven fields as values (maps of
/// their own for `involvedObject` and `source`, 72 bytes a field present
/// or not) were about 3 KB an Event, 45% of a 100k List's load (`bench
/// --commands`); as text, about 0.5 KB.
#[derive(Clone, Debug)]
pub struct Raw(Box<serde_json::value::RawValue>);

impl Raw {
    /// The text of a value.
    #[must_use]
    pub fn of(v: &Value) -> Raw {
        Raw(serde_json::value::to_raw_value(v)
            .unwrap_or_else(|_| serde_json::value::RawValue::NULL.to_owned()))
    }

    /// The value, read from the text.
    #[must_use]
    pub fn value(&self) -> Value {
        serde_json::from_str(self.0.get()).unwrap_or(Value::Null)
    }

    /// The JSON text as read.
    #[must_use]
    pub fn text(&self) -> &str {
        self.0.get()
    }

    /// A string field as a string; `None` for any other value.
    #[must_use]
    pub fn as_string(&self) -> Option<String> {
        serde_json::from_str(self.0.get()).ok()
    }

    /// The string member `key` of an object (`involvedObject.uid`), read
    /// without building the object.
    #[must_use]
    pub fn member(&self, key: &str) -> Option<String> {
        // An Event's `involvedObject` is a flat object of plain strings:
        // read by hand (the index of Events by the object they are about
        // reads one per Event as a List is loaded); anything else by serde.
        match flat_member(self.0.get(), key) {
            Some(found) => found,
            None => self.member_read(key),
        }
    }

    /// [`Raw::member`] by serde, for any text.
    fn member_read(&self, key: &str) -> Option<String> {
        struct Member<'k>(&'k str);
        impl<'de> serde::de::DeserializeSeed<'de> for Member<'_> {
            type Value = Option<String>;
            fn deserialize<D: serde::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Option<String>, D::Error> {
                d.deserialize_any(self)
            }
        }
        impl<'de> serde::de::Visitor<'de> for Member<'_> {
            type Value = Option<String>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Option<String>, A::Error> {
                let mut found = None;
                while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if k == self.0 && found.is_none() {
                        found = map.next_value::<Value>()?.as_str().map(str::to_string);
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(found)
            }
            fn visit_unit<E>(self) -> Result<Option<String>, E> {
                Ok(None)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Option<String>, E> {
                Ok(None)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Option<String>, E> {
                Ok(None)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Option<String>, E> {
                Ok(None)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Option<String>, E> {
                Ok(None)
            }
            fn visit_str<E>(self, _: &str) -> Result<Option<String>, E> {
                Ok(None)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Option<String>, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(None)
            }
        }
        let mut d = serde_json::Deserializer::from_str(self.0.get());
        serde::de::DeserializeSeed::deserialize(Member(key), &mut d)
            .ok()
            .flatten()
    }
}

/// The string member `key` of a JSON object written flat (`{"k": "v",
/// "n": 1}`: members whose keys and string values hold no escape, and no
/// value an object or an array), as [`Raw::member`] reads it: the first
/// string value of the key, else `None`. `None` (the outer one)
/// for any text that is not that: serde reads it.
fn flat_member(text: &str, key: &str) -> Option<Option<String>> {
    let b = text.as_bytes();
    let mut i = 0;
    let ws = |i: &mut usize| {
        while b
            .get(*i)
            .is_some_and(|c| matches!(c, b' ' | b'\n' | b'\t' | b'\r'))
        {
            *i += 1;
        }
    };
    // A string with no escape, from its opening quote: its text.
    let string = |i: &mut usize| -> Option<&str> {
        let from = *i + 1;
        let len = b
            .get(from..)?
            .iter()
            .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
        if b[from + len] != b'"' {
            return None;
        }
        *i = from + len + 1;
        text.get(from..from + len)
    };
    ws(&mut i);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    ws(&mut i);
    // As serde's reading keeps it: the first string value of the key.
    let mut found: Option<String> = None;
    if b.get(i) == Some(&b'}') {
        i += 1;
    } else {
        loop {
            if b.get(i) != Some(&b'"') {
                return None;
            }
            let k = string(&mut i)?;
            ws(&mut i);
            if b.get(i) != Some(&b':') {
                return None;
            }
            i += 1;
            ws(&mut i);
            let value = match b.get(i)? {
                b'"' => Some(string(&mut i)?),
                // A number, true, false or null: up to what ends it, read
                // by serde if it is not one of those.
                b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                    let from = i;
                    while b
                        .get(i)
                        .is_some_and(|c| !matches!(c, b',' | b'}' | b' ' | b'\n' | b'\t' | b'\r'))
                    {
                        i += 1;
                    }
                    let scalar = &text[from..i];
                    if !matches!(scalar, "true" | "false" | "null")
                        && serde_json::from_str::<serde_json::Number>(scalar).is_err()
                    {
                        return None;
                    }
                    None
                }
                _ => return None,
            };
            if k == key && found.is_none() {
                found = value.map(str::to_string);
            }
            ws(&mut i);
            match b.get(i)? {
                b',' => {
                    i += 1;
                    ws(&mut i);
                }
                b'}' => {
                    i += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    ws(&mut i);
    (i == b.len()).then_some(found)
}

impl From<Value> for Raw {
    fn from(v: Value) -> Raw {
        Raw::of(&v)
    }
}

impl From<&str> for Raw {
    /// A string value.
    fn from(s: &str) -> Raw {
        Raw::of(&Value::from(s))
    }
}

impl PartialEq for Raw {
    /// As values: the same value written with other spaces is equal.
    fn eq(&self, other: &Raw) -> bool {
        self.text() == other.text() || self.value() == other.value()
    }
}

impl PartialEq<Value> for Raw {
    fn eq(&self, other: &Value) -> bool {
        self.value() == *other
    }
}

impl Serialize for Raw {
    /// As the value it holds, so that every output (pretty JSON, YAML)
    /// reads as it did when the field was kept as a value.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Raw, D::Error> {
        Box::<serde_json::value::RawValue>::deserialize(d).map(Raw)
    }
}

/// The `type` of a ServiceAccount token Secret (GC-SEMANTICS R78).
pub const SERVICE_ACCOUNT_TOKEN: &str = "kubernetes.io/service-account-token";

/// An object without any of [`Extra`]'s fields.
static NO_EXTRA: std::sync::LazyLock<Extra> = std::sync::LazyLock::new(Extra::default);

/// The top-level fields an [`Object`] reads and keeps, in [`Field`]'s
/// order (`serve` keeps the others beside it).
pub const TOP_LEVEL_FIELDS: &[&str] = &[
    "apiVersion",
    "kind",
    "metadata",
    "spec",
    "status",
    "rules",
    "roleRef",
    "subjects",
    "involvedObject",
    "reason",
    "message",
    "source",
    "firstTimestamp",
    "lastTimestamp",
    "count",
    "type",
    "eventTime",
    "series",
    "action",
    "related",
    "reportingComponent",
    "reportingInstance",
    "webhooks",
    "managedFields",
];

/// The fields of an object as read: those of [`Object`] and of [`Extra`];
/// any other is skipped.
#[derive(Clone, Copy, Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum Field {
    ApiVersion,
    Kind,
    Metadata,
    Spec,
    Status,
    Rules,
    RoleRef,
    Subjects,
    InvolvedObject,
    Reason,
    Message,
    Source,
    FirstTimestamp,
    LastTimestamp,
    Count,
    #[serde(rename = "type")]
    Type,
    EventTime,
    Series,
    Action,
    Related,
    ReportingComponent,
    ReportingInstance,
    Webhooks,
    ManagedFields,
    #[serde(other)]
    Other,
}

impl Field {
    const NAMES: &[&str] = TOP_LEVEL_FIELDS;

    /// Where an [`Extra`] field kept as a value goes.
    fn value_of_extra(self, e: &mut Extra) -> Option<&mut Option<Box<Value>>> {
        Some(match self {
            Field::Rules => &mut e.rules,
            Field::RoleRef => &mut e.role_ref,
            Field::Subjects => &mut e.subjects,
            Field::Webhooks => &mut e.webhooks,
            Field::ManagedFields => &mut e.managed_fields,
            _ => return None,
        })
    }

    /// Where an [`Extra`] field kept as text goes.
    fn raw_of_extra(self, e: &mut Extra) -> Option<&mut Option<Raw>> {
        Some(match self {
            Field::InvolvedObject => &mut e.involved_object,
            Field::Reason => &mut e.reason,
            Field::Message => &mut e.message,
            Field::Source => &mut e.source,
            Field::FirstTimestamp => &mut e.first_timestamp,
            Field::LastTimestamp => &mut e.last_timestamp,
            Field::Count => &mut e.count,
            Field::Type => &mut e.type_,
            Field::EventTime => &mut e.event_time,
            Field::Series => &mut e.series,
            Field::Action => &mut e.action,
            Field::Related => &mut e.related,
            Field::ReportingComponent => &mut e.reporting_component,
            Field::ReportingInstance => &mut e.reporting_instance,
            _ => return None,
        })
    }

    fn is_raw(self) -> bool {
        !matches!(
            self,
            Field::ApiVersion
                | Field::Kind
                | Field::Metadata
                | Field::Spec
                | Field::Status
                | Field::Other
                | Field::Rules
                | Field::RoleRef
                | Field::Subjects
                | Field::Webhooks
                | Field::ManagedFields
        )
    }
}

impl<'de> Deserialize<'de> for Object {
    /// As a derived `Deserialize` would (every field may be missing; a
    /// field twice is an error; unknown fields are skipped), with the
    /// fields of [`Extra`] gathered behind one pointer.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut o = Object::default();
        d.deserialize_struct("Object", Field::NAMES, Fill(&mut o))?;
        Ok(o)
    }
}

/// Reads an object straight into the `Arc` that will share it: as
/// [`Object`]'s `Deserialize`, without moving the object (392 bytes)
/// from the reader to the list to the `Arc`.
#[derive(Clone, Copy)]
pub struct Shared;

impl<'de> serde::de::DeserializeSeed<'de> for Shared {
    type Value = std::sync::Arc<Object>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let mut shared = std::sync::Arc::new(Object::default());
        // Not shared yet: changed in place.
        let o = std::sync::Arc::make_mut(&mut shared);
        d.deserialize_struct("Object", Field::NAMES, Fill(o))?;
        Ok(shared)
    }
}

/// Fills an object's fields as they are read.
struct Fill<'o>(&'o mut Object);

/// `spec` or `status` as [`super::kept`] reads it.
struct KeptSeed(bool);

impl<'de> serde::de::DeserializeSeed<'de> for KeptSeed {
    type Value = Fields;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Fields, D::Error> {
        if self.0 {
            super::kept::spec(d)
        } else {
            super::kept::status(d)
        }
    }
}

impl<'de> serde::de::Visitor<'de> for Fill<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct Object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        use serde::de::Error;
        let o = self.0;
        let mut seen = [false; Field::NAMES.len()];
        while let Some(field) = map.next_key::<Field>()? {
            if let Some(name) = Field::NAMES.get(field as usize)
                && std::mem::replace(&mut seen[field as usize], true)
            {
                return Err(A::Error::duplicate_field(name));
            }
            match field {
                Field::ApiVersion => o.api_version = map.next_value()?,
                Field::Kind => o.kind = map.next_value()?,
                Field::Metadata => o.metadata = map.next_value()?,
                Field::Spec => o.spec = map.next_value_seed(KeptSeed(true))?,
                Field::Status => o.status = map.next_value_seed(KeptSeed(false))?,
                Field::Other => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
                extra if extra.is_raw() => {
                    if let Some(raw) = map.next_value::<Option<Raw>>()? {
                        let e = o.extra.get_or_insert_with(Box::default);
                        if let Some(slot) = extra.raw_of_extra(e) {
                            *slot = Some(raw);
                        }
                    }
                }
                extra => {
                    if let Some(value) = map.next_value::<Option<Value>>()? {
                        let e = o.extra.get_or_insert_with(Box::default);
                        if let Some(slot) = extra.value_of_extra(e) {
                            *slot = Some(Box::new(value));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The API group part of an `apiVersion` (`apps/v1` -> `apps`, `v1` -> ``).
#[must_use]
pub fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

/// The version part of an `apiVersion` (`apps/v1` -> `v1`).
#[must_use]
pub fn version_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or(api_version, |(_, v)| v)
}

/// `apps` + `v1` -> `apps/v1`; the core group's is the version alone.
#[must_use]
pub fn api_version_of(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    }
}

impl Object {
    /// The top-level fields of RBAC objects and Events (none for others).
    #[must_use]
    pub fn extra(&self) -> &Extra {
        self.extra.as_deref().unwrap_or(&NO_EXTRA)
    }

    /// A ServiceAccount token Secret (GC-SEMANTICS R78): its `type`.
    #[must_use]
    pub fn is_service_account_token(&self) -> bool {
        self.kind == "Secret"
            && self.group().is_empty()
            && self
                .extra()
                .type_
                .as_ref()
                .and_then(Raw::as_string)
                .as_deref()
                == Some(SERVICE_ACCOUNT_TOKEN)
    }

    /// Whether the spec differs from `old`'s, the part of it that
    /// `ownerscope serve` keeps beside the simulator's fields included
    /// ([`Extra::unkept_text`]): kube-apiserver raises
    /// `metadata.generation` on any change of the spec, a pod template's
    /// env as much as its replicas.
    #[must_use]
    pub fn spec_differs(&self, old: &Object) -> bool {
        if self.spec != old.spec {
            return true;
        }
        let (a, b) = (self.extra().unkept_text(), old.extra().unkept_text());
        if a == b {
            return false;
        }
        let spec = |text: Option<&str>| {
            text.and_then(|t| serde_json::from_str::<Value>(t).ok())
                .and_then(|mut v| v.get_mut("spec").map(Value::take))
        };
        spec(a) != spec(b)
    }

    /// The same, to set them.
    pub fn extra_mut(&mut self) -> &mut Extra {
        self.extra.get_or_insert_with(Box::default)
    }

    /// A minimal object, for tests and generators.
    #[must_use]
    pub fn new(api_version: &str, kind: &str, namespace: Option<&str>, name: &str) -> Self {
        Object {
            api_version: api_version.to_string(),
            kind: kind.to_string(),
            metadata: ObjectMeta {
                name: name.to_string(),
                namespace: namespace.map(str::to_string),
                ..ObjectMeta::default()
            },
            ..Object::default()
        }
    }

    #[must_use]
    pub fn uid(&self) -> &str {
        &self.metadata.uid
    }

    #[must_use]
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    /// The namespace, `None` for cluster-scoped objects.
    #[must_use]
    pub fn namespace(&self) -> Option<&str> {
        self.metadata.namespace.as_deref().filter(|n| !n.is_empty())
    }

    #[must_use]
    pub fn group(&self) -> &str {
        group_of(&self.api_version)
    }

    /// Has a `deletionTimestamp`.
    #[must_use]
    pub fn is_terminating(&self) -> bool {
        self.metadata.deletion_timestamp.is_some()
    }

    #[must_use]
    pub fn has_finalizer(&self, f: &str) -> bool {
        self.metadata.finalizers.iter().any(|x| x == f)
    }

    /// Terminating and carrying `foregroundDeletion`: waiting for its
    /// blocking dependents.
    #[must_use]
    pub fn is_deleting_dependents(&self) -> bool {
        self.is_terminating() && self.has_finalizer(FOREGROUND)
    }

    /// A reference to this object, for logs, timelines and commands.
    #[must_use]
    pub fn obj_ref(&self) -> ObjRef {
        ObjRef {
            api_version: self.api_version.clone(),
            kind: self.kind.clone(),
            namespace: self.namespace().map(str::to_string),
            name: self.metadata.name.clone(),
            uid: self.metadata.uid.clone(),
        }
    }

    /// An owner reference pointing at this object, with these flags.
    #[must_use]
    pub fn reference(
        &self,
        controller: Option<bool>,
        block_owner_deletion: Option<bool>,
    ) -> OwnerReference {
        OwnerReference {
            api_version: self.api_version.clone(),
            kind: self.kind.clone(),
            name: self.metadata.name.clone(),
            uid: self.metadata.uid.clone(),
            controller,
            block_owner_deletion,
        }
    }

    /// A string field of `spec` or `status`, e.g. `str_at(&["spec", "nodeName"])`.
    #[must_use]
    pub fn str_at(&self, path: &[&str]) -> Option<&str> {
        self.value_at(path).and_then(Value::as_str)
    }

    /// A field of `spec` or `status` by path.
    #[must_use]
    pub fn value_at(&self, path: &[&str]) -> Option<&Value> {
        let (first, rest) = path.split_first()?;
        let mut v: &Value = match *first {
            "spec" => &self.spec,
            "status" => &self.status,
            _ => return None,
        };
        for key in rest {
            v = v.get(key)?;
        }
        Some(v)
    }

    /// A field of `spec` or `status` by path, as an owned copy, read
    /// without making the kept fields a value when they are still text
    /// (see [`super::fields`]): for what is read of every object once.
    #[must_use]
    pub fn peek_at(&self, path: &[&str]) -> Option<Value> {
        let (first, rest) = path.split_first()?;
        match *first {
            "spec" => self.spec.at(rest),
            "status" => self.status.at(rest),
            _ => None,
        }
    }

    /// A list of strings of `spec` or `status` (e.g. a namespace's
    /// `spec.finalizers`); empty when absent.
    #[must_use]
    pub fn strings_at(&self, path: &[&str]) -> Vec<String> {
        self.value_at(path)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A core/v1 Pod.
    #[must_use]
    pub fn is_pod(&self) -> bool {
        self.kind == "Pod" && self.group().is_empty()
    }

    /// A pod bound to a node (`spec.nodeName` set).
    #[must_use]
    pub fn is_scheduled(&self) -> bool {
        !self
            .str_at(&["spec", "nodeName"])
            .unwrap_or_default()
            .is_empty()
    }

    /// Whether this pod mounts the claim `claim`, directly or through a
    /// generic ephemeral volume (whose claim is `<pod>-<volume>`).
    #[must_use]
    pub fn mounts_claim(&self, claim: &str) -> bool {
        self.value_at(&["spec", "volumes"])
            .and_then(Value::as_array)
            .is_some_and(|vols| {
                vols.iter().any(|v| {
                    v.pointer("/persistentVolumeClaim/claimName")
                        .and_then(Value::as_str)
                        == Some(claim)
                        || (v.get("ephemeral").is_some()
                            && v.get("name")
                                .and_then(Value::as_str)
                                .is_some_and(|n| format!("{}-{n}", self.name()) == claim))
                })
            })
    }

    /// R63: a pod keeps a claim in use while scheduled, in any phase, unless
    /// it is being deleted with grace 0.
    #[must_use]
    pub fn holds_claim(&self, claim: &str) -> bool {
        self.is_pod()
            && self.is_scheduled()
            && !(self.is_terminating() && self.metadata.deletion_grace_period_seconds == Some(0))
            && self.mounts_claim(claim)
    }

    /// Sets a field of `spec` or `status`, creating the maps on the way.
    pub fn set_at(&mut self, path: &[&str], value: Value) {
        let Some((first, rest)) = path.split_first() else {
            return;
        };
        let mut v: &mut Value = match *first {
            "spec" => &mut self.spec,
            "status" => &mut self.status,
            _ => return,
        };
        for key in rest {
            if !v.is_object() {
                *v = Value::Object(serde_json::Map::new());
            }
            let Value::Object(map) = v else { return };
            v = map.entry((*key).to_string()).or_insert(Value::Null);
        }
        *v = value;
    }
}

/// The GC finalizer added by a Foreground DELETE.
pub const FOREGROUND: &str = "foregroundDeletion";
/// The GC finalizer added by an Orphan DELETE.
pub const ORPHAN: &str = "orphan";

/// Identity of an object as shown to people and carried in commands.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjRef {
    pub api_version: String,
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
    pub uid: Uid,
}

impl fmt::Display for ObjRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{}/{} -n {}", self.kind, self.name, ns),
            None => write!(f, "{}/{}", self.kind, self.name),
        }
    }
}

/// The propagation policy of a DELETE.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Policy {
    Background,
    Foreground,
    Orphan,
}

impl Policy {
    pub const ALL: [Policy; 3] = [Policy::Background, Policy::Foreground, Policy::Orphan];

    /// Parses `background`, `Foreground`, ... (case-insensitive).
    #[must_use]
    pub fn parse(s: &str) -> Option<Policy> {
        match s.to_ascii_lowercase().as_str() {
            "background" => Some(Policy::Background),
            "foreground" => Some(Policy::Foreground),
            "orphan" => Some(Policy::Orphan),
            _ => None,
        }
    }

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Policy::Background => "Background",
            Policy::Foreground => "Foreground",
            Policy::Orphan => "Orphan",
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Owner references and finalizers read from JSON text or from a YAML
    /// value: a list of one takes the room of one; longer and empty lists
    /// read whole and in order; `null` is refused as serde's `Vec` refused
    /// it.
    #[test]
    fn a_list_of_one_is_read_into_the_room_of_one() {
        let refs = |n: usize| -> Vec<Value> {
            (0..n)
                .map(|i| {
                    serde_json::json!({"apiVersion": "v1", "kind": "Node",
                                            "name": format!("n{i}"), "uid": format!("u{i}")})
                })
                .collect()
        };
        for n in [0, 1, 2, 3, 5, 9] {
            let v = serde_json::json!({"name": "p", "ownerReferences": refs(n),
                                       "finalizers": (0..n).map(|i| format!("x/{i}")).collect::<Vec<_>>()});
            let from_text: ObjectMeta = serde_json::from_str(&v.to_string()).expect("reads");
            let from_value: ObjectMeta = serde_json::from_value(v).expect("reads");
            for meta in [&from_text, &from_value] {
                let names: Vec<&str> = meta
                    .owner_references
                    .iter()
                    .map(|r| r.name.as_str())
                    .collect();
                let expected: Vec<String> = (0..n).map(|i| format!("n{i}")).collect();
                assert_eq!(names, expected);
                assert_eq!(
                    meta.finalizers,
                    (0..n).map(|i| format!("x/{i}")).collect::<Vec<_>>()
                );
            }
            if n == 1 {
                assert_eq!(from_text.owner_references.capacity(), 1);
                assert_eq!(from_text.finalizers.capacity(), 1);
            }
        }
        let null = serde_json::from_str::<ObjectMeta>(r#"{"name":"p","ownerReferences":null}"#);
        let err = null.expect_err("null is not a list").to_string();
        assert!(err.contains("expected a sequence"), "{err}");
    }

    proptest::proptest! {
        /// The hand reading of a flat object answers what serde's does, or
        /// leaves the text to it: on objects of plain and escaped strings,
        /// numbers, literals, nested values, repeated keys, odd spacing,
        /// and texts cut short or run on.
        #[test]
        fn a_flat_members_reading_is_serdes(
            members in proptest::collection::vec(
                (0usize..3, 0usize..9),
                0..6,
            ),
            spacing in 0usize..3,
            cut in proptest::option::of(0usize..80),
        ) {
            const KEYS: [&str; 3] = ["uid", "kind", "n\\u0061me"];
            const VALUES: [&str; 9] = [
                r#""u-1""#, r#""""#, r#""a\"b""#, "12", "-1.5e3", "true", "null",
                r#"{"uid":"inner"}"#, r#"["uid"]"#,
            ];
            let sp = [" ", "", "\n  "][spacing];
            let body: Vec<String> = members
                .iter()
                .map(|(k, v)| format!("\"{}\"{sp}:{sp}{}", KEYS[*k], VALUES[*v]))
                .collect();
            let mut text = format!("{{{sp}{}{sp}}}", body.join(&format!(",{sp}")));
            if let Some(cut) = cut {
                if cut < text.len() {
                    text.truncate(cut);
                } else {
                    text.push_str(" x");
                }
            }
            let raw = Raw(serde_json::value::RawValue::from_string(text.clone())
                .unwrap_or_else(|_| serde_json::value::RawValue::NULL.to_owned()));
            for key in ["uid", "kind", "name", "absent"] {
                let flat = flat_member(&text, key);
                if let Some(found) = flat {
                    proptest::prop_assert_eq!(&found, &raw.member_read(key), "{} in {}", key, text);
                }
                proptest::prop_assert_eq!(raw.member(key), raw.member_read(key));
            }
            // What it is written for: read by hand, not left to serde.
            if members.iter().all(|(k, v)| *k != 2 && !matches!(v, 2 | 7 | 8)) && cut.is_none() {
                proptest::prop_assert!(flat_member(&text, "uid").is_some(), "{}", text);
            }
        }
    }

    /// An Event's fields kept as text read back as the values they were:
    /// a member with escapes decoded, the same value in other spacing
    /// equal, and written out as the value (pretty JSON indents it).
    #[test]
    fn an_events_fields_kept_as_text_read_back_as_values() {
        let text = r#"{"apiVersion":"v1","kind":"Event","metadata":{"name":"e"},
            "involvedObject": { "kind": "Pod", "name": "p", "uid": "u\u0031-\"x\"" },
            "source":{"component":"kubelet"},"count":2,"eventTime":null}"#;
        let o: Object = serde_json::from_str(text).expect("an event");
        let involved = o.extra().involved_object.as_ref().expect("kept");
        assert_eq!(involved.member("uid").as_deref(), Some("u1-\"x\""));
        assert_eq!(involved.member("absent"), None);
        assert_eq!(Raw::from("x").member("uid"), None);
        assert_eq!(
            super::super::events::involved_uid(&o).as_deref(),
            Some("u1-\"x\"")
        );
        let same = serde_json::json!({"kind": "Pod", "name": "p", "uid": "u1-\"x\""});
        assert_eq!(*involved, Raw::of(&same));
        assert!(*involved != Raw::from("p"));
        assert_eq!(
            o.extra().count.as_ref().map(Raw::value),
            Some(serde_json::json!(2))
        );
        assert!(o.extra().event_time.is_none(), "null is absent");
        let pretty = serde_json::to_string_pretty(&o).expect("json");
        assert!(pretty.contains("\n    \"kind\": \"Pod\","), "{pretty}");
        assert_eq!(
            serde_json::from_str::<Value>(&pretty).expect("valid")["involvedObject"],
            same
        );
    }

    /// An Event's and a binding's top-level fields are read into
    /// [`Extra`] and written back where they were; an object of another
    /// kind has none (no allocation); other unknown fields are skipped,
    /// and a field given twice is an error, as a derived reader says.
    #[test]
    fn top_level_fields_of_events_and_rbac_are_kept_behind_one_pointer() {
        let event = serde_json::json!({
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": "e", "namespace": "n"},
            "involvedObject": {"kind": "Pod", "name": "p"},
            "reason": "Killing",
            "type": "Normal",
            "count": 3,
        });
        let o: Object = serde_json::from_value(event.clone()).expect("an event");
        assert_eq!(o.extra().reason, Some(Raw::from("Killing")));
        assert_eq!(o.extra().type_, Some(Raw::from("Normal")));
        assert_eq!(serde_json::to_value(&o).expect("json"), event);

        let binding: Object = serde_json::from_str(
            r#"{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"b"},
                "roleRef":{"kind":"Role","name":"r"},"subjects":[{"kind":"User","name":"u"}]}"#,
        )
        .expect("a binding");
        assert_eq!(
            binding.extra().role_ref.as_ref().map(|r| &r["name"]),
            Some(&serde_json::json!("r"))
        );

        let pod: Object = serde_json::from_str(
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"data":{"x":"y"},"reason":null}"#,
        )
        .expect("a pod");
        assert!(pod.extra.is_none(), "{:?}", pod.extra);

        let twice = serde_json::from_str::<Object>(
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"kind":"Pod"}"#,
        )
        .expect_err("kind twice");
        assert!(
            twice.to_string().contains("duplicate field `kind`"),
            "{twice}"
        );
    }

    #[test]
    fn deserialises_a_manifest_and_keeps_flags() {
        let json = r#"{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-1","namespace":"shop",
            "uid":"u1","finalizers":["example.com/x"],
            "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"u0","controller":true,"blockOwnerDeletion":true}]},
            "spec":{"replicas":2}}"#;
        let o: Object = serde_json::from_str(json).expect("valid");
        assert_eq!(o.group(), "apps");
        assert_eq!(o.namespace(), Some("shop"));
        assert!(o.metadata.owner_references[0].is_controller());
        assert!(o.metadata.owner_references[0].blocks());
        assert_eq!(o.value_at(&["spec", "replicas"]), Some(&Value::from(2)));
        assert!(!o.is_terminating());
    }

    #[test]
    fn set_at_creates_intermediate_maps() {
        let mut o = Object::new("v1", "Pod", Some("a"), "p");
        o.set_at(&["status", "phase"], Value::from("Running"));
        assert_eq!(o.str_at(&["status", "phase"]), Some("Running"));
    }

    #[test]
    fn group_and_version_split() {
        assert_eq!(group_of("v1"), "");
        assert_eq!(group_of("apps/v1"), "apps");
        assert_eq!(version_of("apps/v1"), "v1");
        assert_eq!(version_of("v1"), "v1");
    }
}
