//! `/openapi/v2` in protobuf, as kubectl before 1.27 reads it: client-go's
//! `OpenAPISchema` asks for `application/com.github.proto-openapi.spec.
//! v2@v1.0+protobuf` and reads the answer as gnostic's `openapi_v2.Document`
//! (`OpenAPIv2.proto`). Without it kubectl 1.20-1.26 validates nothing
//! (`--validate=false`, or an error), `kubectl explain` does not answer, and
//! client-side `kubectl apply` has no patch strategies.
//!
//! The encoding is upstream's: each message's fields in field-number order,
//! a JSON object's members in the order they are in; a vendor extension
//! (`x-kubernetes-group-version-kind`, `x-kubernetes-patch-strategy`, ...)
//! and a `default`, `example` or `enum` value as an `Any` holding its YAML
//! text, which kube-openapi parses with a YAML reader
//! (`VendorExtensionToMap`). Of a schema, the fields v2 has are encoded;
//! `xml`, which no Kubernetes schema has, is not.
//!
//! kube-openapi 1.20 answers this media type only, or JSON (to `*/*`, and
//! to no `Accept`), and 406 with an empty body to anything else.

use serde_json::{Map, Value};

/// The media type kubectl asks for.
pub const MEDIA: &str = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

/// The content type the protobuf answer is sent with (kube-apiserver's,
/// found by Go's `http.ServeContent` in the bytes).
pub const CONTENT_TYPE: &str = "application/octet-stream";

/// Which form of `/openapi/v2` an `Accept` header asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum V2Form {
    Json,
    Protobuf,
}

/// The first media range of `accept` that `/openapi/v2` answers, as
/// kube-openapi's handler picks it; `None`: 406.
#[must_use]
pub fn form(accept: &str) -> Option<V2Form> {
    if accept.trim().is_empty() {
        return Some(V2Form::Json);
    }
    accept.split(',').find_map(|range| {
        let media = range.split(';').next().unwrap_or_default().trim();
        let media = media.to_ascii_lowercase();
        match media.as_str() {
            "application/json" | "application/*" | "*/*" => Some(V2Form::Json),
            m if m == MEDIA => Some(V2Form::Protobuf),
            _ => None,
        }
    })
}

/// The v2 document (`swagger`, `info`, `paths`, `definitions`) as an
/// `openapi_v2.Document`.
#[must_use]
pub fn document(doc: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    string(&mut out, 1, doc.get("swagger"));
    if let Some(info) = doc.get("info").and_then(Value::as_object) {
        message(&mut out, 2, |m| {
            string(m, 1, info.get("title"));
            string(m, 2, info.get("version"));
            string(m, 3, info.get("description"));
        });
    }
    // Paths (8): the document has none of its own.
    if let Some(defs) = doc.get("definitions").and_then(Value::as_object) {
        message(&mut out, 9, |m| named_schemas(m, 1, defs));
    }
    out
}

/// A `Schema`.
fn schema(out: &mut Vec<u8>, s: &Map<String, Value>) {
    string(out, 1, s.get("$ref"));
    string(out, 2, s.get("format"));
    string(out, 3, s.get("title"));
    string(out, 4, s.get("description"));
    if let Some(v) = s.get("default") {
        any(out, 5, v);
    }
    double(out, 6, s.get("multipleOf"));
    double(out, 7, s.get("maximum"));
    boolean(out, 8, s.get("exclusiveMaximum"));
    double(out, 9, s.get("minimum"));
    boolean(out, 10, s.get("exclusiveMinimum"));
    integer(out, 11, s.get("maxLength"));
    integer(out, 12, s.get("minLength"));
    string(out, 13, s.get("pattern"));
    integer(out, 14, s.get("maxItems"));
    integer(out, 15, s.get("minItems"));
    boolean(out, 16, s.get("uniqueItems"));
    integer(out, 17, s.get("maxProperties"));
    integer(out, 18, s.get("minProperties"));
    for r in s
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        string(out, 19, Some(r));
    }
    for e in s
        .get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        any(out, 20, e);
    }
    match s.get("additionalProperties") {
        Some(Value::Object(a)) => message(out, 21, |m| message(m, 1, |m| schema(m, a))),
        Some(Value::Bool(b)) => message(out, 21, |m| boolean(m, 2, Some(&Value::Bool(*b)))),
        _ => {}
    }
    match s.get("type") {
        Some(t @ Value::String(_)) => message(out, 22, |m| string(m, 1, Some(t))),
        Some(Value::Array(ts)) => message(out, 22, |m| {
            for t in ts {
                string(m, 1, Some(t));
            }
        }),
        _ => {}
    }
    match s.get("items") {
        Some(Value::Object(i)) => message(out, 23, |m| message(m, 1, |m| schema(m, i))),
        Some(Value::Array(is)) => message(out, 23, |m| {
            for i in is.iter().filter_map(Value::as_object) {
                message(m, 1, |m| schema(m, i));
            }
        }),
        _ => {}
    }
    for a in s
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(a) = a.as_object() {
            message(out, 24, |m| schema(m, a));
        }
    }
    if let Some(props) = s.get("properties").and_then(Value::as_object) {
        message(out, 25, |m| named_schemas(m, 1, props));
    }
    string(out, 26, s.get("discriminator"));
    boolean(out, 27, s.get("readOnly"));
    if let Some(docs) = s.get("externalDocs").and_then(Value::as_object) {
        message(out, 29, |m| {
            string(m, 1, docs.get("description"));
            string(m, 2, docs.get("url"));
        });
    }
    if let Some(v) = s.get("example") {
        any(out, 30, v);
    }
    for (name, v) in s.iter().filter(|(k, _)| k.starts_with("x-")) {
        message(out, 31, |m| {
            put_str(m, 1, name);
            any(m, 2, v);
        });
    }
}

/// Each member of `map` as a `NamedSchema` (name 1, schema 2).
fn named_schemas(out: &mut Vec<u8>, field: u64, map: &Map<String, Value>) {
    for (name, s) in map {
        message(out, field, |m| {
            put_str(m, 1, name);
            if let Some(s) = s.as_object() {
                message(m, 2, |m| schema(m, s));
            }
        });
    }
}

/// An `Any` holding `v` as YAML (field 2).
fn any(out: &mut Vec<u8>, field: u64, v: &Value) {
    message(out, field, |m| put_str(m, 2, &yaml(v)));
}

/// `v` as YAML, as upstream's gnostic writes a vendor extension: a scalar
/// on its line, a list of flat maps as a block sequence (the group
/// version kinds); anything else in flow form (JSON, which YAML reads).
fn yaml(v: &Value) -> String {
    let scalar = |v: &Value| match v {
        Value::String(s) if plain(s) => Some(s.clone()),
        Value::String(_) | Value::Number(_) | Value::Bool(_) | Value::Null => Some(v.to_string()),
        _ => None,
    };
    if let Some(s) = scalar(v) {
        return format!("{s}\n");
    }
    if let Value::Array(items) = v {
        let mut out = String::new();
        for item in items {
            let Some(map) = item.as_object().filter(|m| !m.is_empty()) else {
                return format!("{v}\n");
            };
            for (i, (k, x)) in map.iter().enumerate() {
                let (Some(x), true) = (scalar(x), plain(k)) else {
                    return format!("{v}\n");
                };
                out.push_str(if i == 0 { "- " } else { "  " });
                out.push_str(&format!("{k}: {x}\n"));
            }
        }
        if !out.is_empty() {
            return out;
        }
    }
    format!("{v}\n")
}

/// Whether a string reads back as itself, unquoted, in YAML: letters,
/// digits and `-._/` only, starting with a letter, and not a word YAML
/// takes for a boolean or null.
fn plain(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '/'))
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "null"
        )
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        // Seven bits at a time, low first (the cast keeps those bits).
        #[allow(clippy::cast_possible_truncation)]
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    #[allow(clippy::cast_possible_truncation)]
    out.push(v as u8);
}

fn key(out: &mut Vec<u8>, field: u64, wire: u64) {
    put_varint(out, (field << 3) | wire);
}

fn put_bytes(out: &mut Vec<u8>, field: u64, b: &[u8]) {
    key(out, field, 2);
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

fn put_str(out: &mut Vec<u8>, field: u64, s: &str) {
    put_bytes(out, field, s.as_bytes());
}

/// A string field; proto3 leaves an empty one out.
fn string(out: &mut Vec<u8>, field: u64, v: Option<&Value>) {
    if let Some(s) = v.and_then(Value::as_str).filter(|s| !s.is_empty()) {
        put_str(out, field, s);
    }
}

fn boolean(out: &mut Vec<u8>, field: u64, v: Option<&Value>) {
    if v.and_then(Value::as_bool) == Some(true) {
        key(out, field, 0);
        put_varint(out, 1);
    }
}

fn integer(out: &mut Vec<u8>, field: u64, v: Option<&Value>) {
    if let Some(i) = v.and_then(Value::as_i64).filter(|i| *i != 0) {
        key(out, field, 0);
        // Two's complement, as protobuf's int64.
        put_varint(out, i.cast_unsigned());
    }
}

fn double(out: &mut Vec<u8>, field: u64, v: Option<&Value>) {
    if let Some(d) = v.and_then(Value::as_f64).filter(|d| *d != 0.0) {
        key(out, field, 1);
        out.extend_from_slice(&d.to_le_bytes());
    }
}

/// A message field, its bytes written by `write`.
fn message(out: &mut Vec<u8>, field: u64, write: impl FnOnce(&mut Vec<u8>)) {
    let mut m = Vec::new();
    write(&mut m);
    put_bytes(out, field, &m);
}

#[cfg(test)]
#[path = "openapi_pb_tests.rs"]
mod tests;
