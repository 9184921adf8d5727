//! The one protobuf body serve reads: a SelfSubjectAccessReview, which
//! `kubectl auth can-i` sends as `application/vnd.kubernetes.protobuf`
//! and does not resend as JSON when refused. The envelope is upstream's
//! (`k8s\0`, then a `runtime.Unknown` whose `raw` is the object); the
//! fields are those of `k8s.io/api/authorization/v1/generated.proto`.
//! Every other protobuf body is answered 415.

use serde_json::{Map, Value, json};

/// The protobuf media type.
pub const MEDIA: &str = "application/vnd.kubernetes.protobuf";

/// The fields of one message: (number, bytes) for length-delimited ones;
/// varints and fixed-width values are skipped.
fn fields(mut b: &[u8]) -> Option<Vec<(u64, &[u8])>> {
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
    let mut out = Vec::new();
    while !b.is_empty() {
        let key = varint(&mut b)?;
        match key & 7 {
            0 => {
                varint(&mut b)?;
            }
            1 => b = b.get(8..)?,
            5 => b = b.get(4..)?,
            2 => {
                let len = usize::try_from(varint(&mut b)?).ok()?;
                let (value, rest) = (b.get(..len)?, b.get(len..)?);
                out.push((key >> 3, value));
                b = rest;
            }
            _ => return None,
        }
    }
    Some(out)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn len_field(n: u64, v: &[u8]) -> Vec<u8> {
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
