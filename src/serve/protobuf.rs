//! The protobuf bodies serve reads, which kubectl sends as
//! `application/vnd.kubernetes.protobuf` and does not resend as JSON when
//! refused: a SelfSubjectAccessReview (`kubectl auth can-i`), a
//! SelfSubjectRulesReview (`kubectl auth can-i --list`) and the
//! objects of kubectl's typed creates (`kubectl create configmap`,
//! `secret`, `namespace`, `serviceaccount`, `deployment`, `job`, `role`,
//! `rolebinding`, `clusterrole`, `clusterrolebinding`), read into the JSON
//! they stand for. The envelope is upstream's (`k8s\0`, then a
//! `runtime.Unknown` whose `raw` is the object); the field numbers are
//! those of `k8s.io/api/.../generated.proto`, and of each message only
//! the fields serve keeps ([`crate::model::kept`]) or validates. Every
//! other protobuf body is answered 415.

use serde_json::{Map, Value, json};

/// The protobuf media type.
pub const MEDIA: &str = "application/vnd.kubernetes.protobuf";

/// The fields of one message: (number, bytes) for length-delimited ones;
/// varints and fixed-width values are skipped.
fn fields(b: &[u8]) -> Option<Vec<(u64, &[u8])>> {
    Some(
        wire(b)?
            .into_iter()
            .filter_map(|(n, w)| match w {
                Wire::Len(v) => Some((n, v)),
                _ => None,
            })
            .collect(),
    )
}

fn field<'a>(fs: &[(u64, &'a [u8])], n: u64) -> Option<&'a [u8]> {
    fs.iter().rev().find(|(k, _)| *k == n).map(|(_, v)| *v)
}

/// The string fields `names` (numbered from 1) of a message, as JSON.
fn strings(b: &[u8], names: &[&str]) -> Option<Value> {
    let fs = fields(b)?;
    let mut m = Map::new();
    for (i, name) in names.iter().enumerate() {
        if let Some(v) = field(&fs, i as u64 + 1) {
            m.insert(
                (*name).to_string(),
                json!(String::from_utf8(v.to_vec()).ok()?),
            );
        }
    }
    Some(Value::Object(m))
}

/// A protobuf SelfSubjectAccessReview as its JSON, `None` when `body` is
/// not one.
#[must_use]
pub fn self_subject_access_review(body: &[u8]) -> Option<Value> {
    let unknown = fields(body.strip_prefix(b"k8s\0")?)?;
    let type_meta = strings(field(&unknown, 1)?, &["apiVersion", "kind"])?;
    if type_meta["kind"] != "SelfSubjectAccessReview" {
        return None;
    }
    let review = fields(field(&unknown, 2)?)?;
    let mut spec = Map::new();
    if let Some(s) = field(&review, 2) {
        let s = fields(s)?;
        if let Some(r) = field(&s, 1) {
            let names = [
                "namespace",
                "verb",
                "group",
                "version",
                "resource",
                "subresource",
                "name",
            ];
            spec.insert("resourceAttributes".into(), strings(r, &names)?);
        }
        if let Some(n) = field(&s, 2) {
            spec.insert(
                "nonResourceAttributes".into(),
                strings(n, &["path", "verb"])?,
            );
        }
    }
    Some(json!({
        "apiVersion": type_meta["apiVersion"],
        "kind": "SelfSubjectAccessReview",
        "metadata": {},
        "spec": spec,
    }))
}

/// A protobuf SelfSubjectRulesReview (`kubectl auth can-i --list`) as
/// its JSON, `None` when `body` is not one: of its spec, `namespace`
/// (field 1).
#[must_use]
pub fn self_subject_rules_review(body: &[u8]) -> Option<Value> {
    let unknown = fields(body.strip_prefix(b"k8s\0")?)?;
    let type_meta = strings(field(&unknown, 1)?, &["apiVersion", "kind"])?;
    if type_meta["kind"] != "SelfSubjectRulesReview" {
        return None;
    }
    let review = fields(field(&unknown, 2)?)?;
    let spec = match field(&review, 2) {
        Some(s) => strings(s, &["namespace"])?,
        None => json!({}),
    };
    Some(json!({
        "apiVersion": type_meta["apiVersion"],
        "kind": "SelfSubjectRulesReview",
        "metadata": {},
        "spec": spec,
    }))
}

/// How a field's value is written.
#[derive(Clone, Copy)]
enum T {
    Str,
    Int,
    Bool,
    Msg(&'static [F]),
    /// `map<string, string>`.
    StrMap,
    /// `map<string, bytes>`, values base64 in JSON.
    BytesMap,
}

/// A field: its number, its JSON name, its type, whether it repeats.
#[derive(Clone, Copy)]
struct F(u64, &'static str, T, bool);

const OWNER_REF: &[F] = &[
    F(1, "kind", T::Str, false),
    F(3, "name", T::Str, false),
    F(4, "uid", T::Str, false),
    F(5, "apiVersion", T::Str, false),
    F(6, "controller", T::Bool, false),
    F(7, "blockOwnerDeletion", T::Bool, false),
];
const META: &[F] = &[
    F(1, "name", T::Str, false),
    F(2, "generateName", T::Str, false),
    F(3, "namespace", T::Str, false),
    F(6, "resourceVersion", T::Str, false),
    F(11, "labels", T::StrMap, false),
    F(12, "annotations", T::StrMap, false),
    F(13, "ownerReferences", T::Msg(OWNER_REF), true),
    F(14, "finalizers", T::Str, true),
];
const REQUIREMENT: &[F] = &[
    F(1, "key", T::Str, false),
    F(2, "operator", T::Str, false),
    F(3, "values", T::Str, true),
];
const SELECTOR: &[F] = &[
    F(1, "matchLabels", T::StrMap, false),
    F(2, "matchExpressions", T::Msg(REQUIREMENT), true),
];
const CONTAINER: &[F] = &[F(1, "name", T::Str, false), F(2, "image", T::Str, false)];
const POD_SPEC: &[F] = &[
    F(2, "containers", T::Msg(CONTAINER), true),
    F(3, "restartPolicy", T::Str, false),
];
const TEMPLATE: &[F] = &[
    F(1, "metadata", T::Msg(META), false),
    F(2, "spec", T::Msg(POD_SPEC), false),
];
const DEPLOYMENT_SPEC: &[F] = &[
    F(1, "replicas", T::Int, false),
    F(2, "selector", T::Msg(SELECTOR), false),
    F(3, "template", T::Msg(TEMPLATE), false),
];
const JOB_SPEC: &[F] = &[
    F(1, "parallelism", T::Int, false),
    F(2, "completions", T::Int, false),
    F(4, "selector", T::Msg(SELECTOR), false),
    F(6, "template", T::Msg(TEMPLATE), false),
    F(8, "ttlSecondsAfterFinished", T::Int, false),
    F(10, "suspend", T::Bool, false),
];
const RULE: &[F] = &[
    F(1, "verbs", T::Str, true),
    F(2, "apiGroups", T::Str, true),
    F(3, "resources", T::Str, true),
    F(4, "resourceNames", T::Str, true),
    F(5, "nonResourceURLs", T::Str, true),
];
const SUBJECT: &[F] = &[
    F(1, "kind", T::Str, false),
    F(2, "apiGroup", T::Str, false),
    F(3, "name", T::Str, false),
    F(4, "namespace", T::Str, false),
];
const ROLE_REF: &[F] = &[
    F(1, "apiGroup", T::Str, false),
    F(2, "kind", T::Str, false),
    F(3, "name", T::Str, false),
];

/// The fields of each kind kubectl creates typed, by `(group, kind)`.
fn schema(group: &str, kind: &str) -> Option<&'static [F]> {
    const META_ONLY: &[F] = &[F(1, "metadata", T::Msg(META), false)];
    Some(match (group, kind) {
        ("", "ConfigMap") => &[
            F(1, "metadata", T::Msg(META), false),
            F(2, "data", T::StrMap, false),
            F(3, "binaryData", T::BytesMap, false),
            F(4, "immutable", T::Bool, false),
        ],
        ("", "Secret") => &[
            F(1, "metadata", T::Msg(META), false),
            F(2, "data", T::BytesMap, false),
            F(3, "type", T::Str, false),
            F(4, "stringData", T::StrMap, false),
            F(5, "immutable", T::Bool, false),
        ],
        ("", "Namespace") => &[
            F(1, "metadata", T::Msg(META), false),
            F(
                2,
                "spec",
                T::Msg(&[F(1, "finalizers", T::Str, true)]),
                false,
            ),
        ],
        ("", "ServiceAccount") => META_ONLY,
        ("apps", "Deployment") => &[
            F(1, "metadata", T::Msg(META), false),
            F(2, "spec", T::Msg(DEPLOYMENT_SPEC), false),
        ],
        ("batch", "Job") => &[
            F(1, "metadata", T::Msg(META), false),
            F(2, "spec", T::Msg(JOB_SPEC), false),
        ],
        ("rbac.authorization.k8s.io", "Role" | "ClusterRole") => &[
            F(1, "metadata", T::Msg(META), false),
            F(2, "rules", T::Msg(RULE), true),
        ],
        ("rbac.authorization.k8s.io", "RoleBinding" | "ClusterRoleBinding") => &[
            F(1, "metadata", T::Msg(META), false),
            F(2, "subjects", T::Msg(SUBJECT), true),
            F(3, "roleRef", T::Msg(ROLE_REF), false),
        ],
        _ => return None,
    })
}

/// One field as it is on the wire.
enum Wire<'a> {
    Varint(u64),
    Len(&'a [u8]),
    Fixed,
}

fn varint(b: &mut &[u8]) -> Option<u64> {
    let mut v: u64 = 0;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = b.split_first()?;
        *b = rest;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// Every field of one message, in order.
fn wire(mut b: &[u8]) -> Option<Vec<(u64, Wire<'_>)>> {
    let mut out = Vec::new();
    while !b.is_empty() {
        let key = varint(&mut b)?;
        let value = match key & 7 {
            0 => Wire::Varint(varint(&mut b)?),
            1 => {
                b = b.get(8..)?;
                Wire::Fixed
            }
            5 => {
                b = b.get(4..)?;
                Wire::Fixed
            }
            2 => {
                let len = usize::try_from(varint(&mut b)?).ok()?;
                let (value, rest) = (b.get(..len)?, b.get(len..)?);
                b = rest;
                Wire::Len(value)
            }
            _ => return None,
        };
        out.push((key >> 3, value));
    }
    Some(out)
}

fn text(b: &[u8]) -> Option<Value> {
    Some(json!(std::str::from_utf8(b).ok()?))
}

fn base64(b: &[u8]) -> Value {
    use base64::Engine as _;
    json!(base64::engine::general_purpose::STANDARD.encode(b))
}

/// A message as JSON, by its schema: unknown fields skipped, a field of
/// the wrong wire type refused.
fn decode(b: &[u8], schema: &[F]) -> Option<Value> {
    let mut m = Map::new();
    for (n, w) in wire(b)? {
        let Some(&F(_, name, t, repeated)) = schema.iter().find(|f| f.0 == n) else {
            continue;
        };
        let v = match (t, w) {
            // Go writes an empty string that JSON leaves out.
            (T::Str, Wire::Len([])) if !repeated => continue,
            (T::Str, Wire::Len(x)) => text(x)?,
            // An int32 below zero is ten bytes of two's complement.
            #[allow(clippy::cast_possible_wrap)]
            (T::Int, Wire::Varint(x)) => json!(x as i64),
            (T::Bool, Wire::Varint(x)) => json!(x != 0),
            (T::Msg(s), Wire::Len(x)) => decode(x, s)?,
            (T::StrMap | T::BytesMap, Wire::Len(x)) => {
                let entry = wire(x)?;
                let part = |k: u64| {
                    entry.iter().rev().find_map(|(n, w)| match w {
                        Wire::Len(v) if *n == k => Some(*v),
                        _ => None,
                    })
                };
                let key = std::str::from_utf8(part(1).unwrap_or_default()).ok()?;
                let value = part(2).unwrap_or_default();
                let value = match t {
                    T::BytesMap => base64(value),
                    _ => text(value)?,
                };
                let map = m.entry(name).or_insert_with(|| json!({}));
                map.as_object_mut()?.insert(key.to_string(), value);
                continue;
            }
            _ => return None,
        };
        if repeated {
            let list = m.entry(name).or_insert_with(|| json!([]));
            list.as_array_mut()?.push(v);
        } else {
            m.insert(name.to_string(), v);
        }
    }
    Some(Value::Object(m))
}

/// A protobuf object of a kind kubectl creates typed, as its JSON; `None`
/// when `body` is not one.
#[must_use]
pub fn object(body: &[u8]) -> Option<Value> {
    let unknown = fields(body.strip_prefix(b"k8s\0")?)?;
    let type_meta = strings(field(&unknown, 1)?, &["apiVersion", "kind"])?;
    let api_version = type_meta["apiVersion"].as_str()?;
    let kind = type_meta["kind"].as_str()?;
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    let mut v = decode(field(&unknown, 2)?, schema(group, kind)?)?;
    v["apiVersion"] = json!(api_version);
    v["kind"] = json!(kind);
    Some(v)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A length-delimited protobuf field.
    pub(in crate::serve) fn len_field(n: u64, v: &[u8]) -> Vec<u8> {
        let mut out = vec![u8::try_from(n << 3 | 2).expect("small")];
        out.push(u8::try_from(v.len()).expect("short"));
        out.extend_from_slice(v);
        out
    }

    #[test]
    fn a_review_as_kubectl_sends_it_is_read() {
        let attrs = [
            len_field(1, b"shop"),
            len_field(2, b"list"),
            len_field(5, b"secrets"),
        ]
        .concat();
        let spec = len_field(1, &attrs);
        let review = [len_field(1, b""), len_field(2, &spec)].concat();
        let type_meta = [
            len_field(1, b"authorization.k8s.io/v1"),
            len_field(2, b"SelfSubjectAccessReview"),
        ]
        .concat();
        let mut body = b"k8s\0".to_vec();
        body.extend([len_field(1, &type_meta), len_field(2, &review)].concat());
        let v = self_subject_access_review(&body).expect("read");
        assert_eq!(
            v["spec"]["resourceAttributes"],
            json!({"namespace": "shop", "verb": "list", "resource": "secrets"})
        );
        assert_eq!(self_subject_access_review(b"k8s\0\xff\xff"), None);
        assert_eq!(self_subject_access_review(b"{}"), None);
        body.truncate(body.len() - 3);
        assert_eq!(self_subject_access_review(&body), None, "cut short");
    }
}
