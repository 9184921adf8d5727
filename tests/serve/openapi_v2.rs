//! `/openapi/v2` in protobuf, which kubectl before 1.27 reads (client-go's
//! `OpenAPISchema`, gnostic's `openapi_v2.Document`): serve's read back
//! field by field is its JSON document, and each definition is the one
//! kube-apiserver 1.20 sends in the same form. Version differences, by
//! rule: a kind 1.20 does not have in the version served (`batch/v1`
//! CronJob, `autoscaling/v2` HorizontalPodAutoscaler, ...) is in serve's
//! document only, with its top-level fields; the order of a schema's
//! properties and extensions is upstream's Go order on the control plane
//! and the JSON document's on serve (a reader finds them by name).

use super::*;
use http_body_util::BodyExt as _;
use serde_json::{Map, Value, json};

const MEDIA: &str = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

/// `/openapi/v2` asked for in `accept`: status, content type, body.
async fn openapi_v2(client: &Client, accept: &str) -> (u16, String, Vec<u8>) {
    let req = http::Request::builder()
        .uri("/openapi/v2")
        .header(http::header::ACCEPT, accept)
        .body(kube::client::Body::empty())
        .expect("request");
    let resp = client.send(req).await.expect("an answer");
    let code = resp.status().as_u16();
    let content_type = resp
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let body = resp
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes().to_vec())
        .unwrap_or_default();
    (code, content_type, body)
}

/// One field of a message: its number and its bytes (a varint's value as
/// its eight little-endian bytes).
fn fields(mut b: &[u8]) -> Vec<(u64, Vec<u8>)> {
    fn varint(b: &mut &[u8]) -> u64 {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = b.split_first().expect("a varint");
            *b = rest;
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                break;
            }
        }
        v
    }
    let mut out = Vec::new();
    while !b.is_empty() {
        let key = varint(&mut b);
        let value = match key & 7 {
            0 => varint(&mut b).to_le_bytes().to_vec(),
            1 => {
                let (v, rest) = b.split_at(8);
                b = rest;
                v.to_vec()
            }
            2 => {
                let len = usize::try_from(varint(&mut b)).expect("a length");
                let (v, rest) = b.split_at(len);
                b = rest;
                v.to_vec()
            }
            w => panic!("wire type {w}"),
        };
        out.push((key >> 3, value));
    }
    out
}

fn text(b: &[u8]) -> Value {
    Value::from(std::str::from_utf8(b).expect("utf-8"))
}

/// An `Any`'s YAML, read as kube-openapi reads it.
fn any_value(b: &[u8]) -> Value {
    let (_, yaml) = fields(b).into_iter().find(|(n, _)| *n == 2).expect("yaml");
    ownerscope::sim::yaml::parse_values(std::str::from_utf8(&yaml).expect("utf-8")).expect("yaml")
}

/// A `NamedSchema` or `NamedAny`: its name and its value.
fn named(b: &[u8], value: impl Fn(&[u8]) -> Value) -> (String, Value) {
    let fs = fields(b);
    let name = fs.iter().find(|(n, _)| *n == 1).expect("a name");
    let v = fs
        .iter()
        .find(|(n, _)| *n == 2)
        .map_or(json!({}), |(_, v)| value(v));
    (String::from_utf8(name.1.clone()).expect("utf-8"), v)
}

/// A `Schema` read back into JSON (the fields 1.20's schemas use).
fn schema(b: &[u8]) -> Value {
    let mut out = Map::new();
    for (n, v) in fields(b) {
        let (key, value) = match n {
            1 => ("$ref".to_string(), text(&v)),
            2 => ("format".into(), text(&v)),
            4 => ("description".into(), text(&v)),
            19 => {
                let required = out.entry("required").or_insert_with(|| json!([]));
                required.as_array_mut().expect("a list").push(text(&v));
                continue;
            }
            21 => {
                let (k, inner) = fields(&v).remove(0);
                let ap = if k == 1 {
                    schema(&inner)
                } else {
                    Value::Bool(inner[0] == 1)
                };
                ("additionalProperties".into(), ap)
            }
            22 => {
                let mut ts: Vec<Value> = fields(&v).iter().map(|(_, t)| text(t)).collect();
                let t = if ts.len() == 1 {
                    ts.remove(0)
                } else {
                    Value::Array(ts)
                };
                ("type".into(), t)
            }
            23 => {
                let mut is: Vec<Value> = fields(&v).iter().map(|(_, s)| schema(s)).collect();
                let i = if is.len() == 1 {
                    is.remove(0)
                } else {
                    Value::Array(is)
                };
                ("items".into(), i)
            }
            25 => {
                let props: Map<String, Value> =
                    fields(&v).iter().map(|(_, p)| named(p, schema)).collect();
                ("properties".into(), Value::Object(props))
            }
            26 => ("discriminator".into(), text(&v)),
            31 => named(&v, any_value),
            other => panic!("schema field {other} not expected in 1.20's schemas"),
        };
        out.insert(key, value);
    }
    Value::Object(out)
}

/// A `Document`'s definitions, by name.
fn definitions(pb: &[u8]) -> Map<String, Value> {
    let top = fields(pb);
    assert_eq!(top[0], (1, b"2.0".to_vec()), "swagger 2.0 first");
    let (_, defs) = top.iter().find(|(n, _)| *n == 9).expect("definitions");
    fields(defs).iter().map(|(_, d)| named(d, schema)).collect()
}

/// Deep equality, the order of object members aside.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same(v, w))
        }
        _ => a == b,
    }
}

#[test]
fn openapi_v2_in_protobuf_reads_back_as_its_json() {
    let s = Server::start("deployment", &["--paused"]);
    rt().block_on(async {
        let client = s.client().await;
        let (code, content_type, pb) = openapi_v2(&client, MEDIA).await;
        assert_eq!(
            (code, content_type.as_str()),
            (200, "application/octet-stream")
        );
        let (code, _, json) = openapi_v2(&client, "application/json").await;
        assert_eq!(code, 200);
        let json: Value = serde_json::from_slice(&json).expect("JSON");
        let written = json["definitions"].as_object().expect("definitions");
        let read = definitions(&pb);
        assert!(written.len() > 100, "{} definitions", written.len());
        assert_eq!(read.len(), written.len());
        for (name, s) in written {
            assert!(same(&read[name], s), "{name}:\n{}\n{s}", read[name]);
        }
        // What kube-apiserver 1.20 refuses, serve refuses.
        let (code, _, _) = openapi_v2(&client, "application/vnd.kubernetes.protobuf").await;
        assert_eq!(code, 406);
    });
}

#[test]
fn openapi_v2_in_protobuf_is_the_real_control_planes() {
    let _g = live_support::shared();
    let s = Server::start("deployment", &["--paused"]);
    rt().block_on(async {
        let (code, _, real) = openapi_v2(&live_support::admin_client().await, MEDIA).await;
        assert_eq!(code, 200, "the control plane's");
        let (_, _, ours) = openapi_v2(&s.client().await, MEDIA).await;
        let real = definitions(&real);
        let ours = definitions(&ours);
        let mut compared = 0;
        let mut later = Vec::new();
        for (name, d) in &ours {
            let Some(r) = real.get(name) else {
                // A kind 1.20 does not have in the version served: its
                // top-level fields only.
                let top: Vec<&str> = d["properties"]
                    .as_object()
                    .map(|p| p.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                assert_eq!(
                    top,
                    ["apiVersion", "kind", "metadata", "spec", "status"],
                    "{name}"
                );
                later.push(name.as_str());
                continue;
            };
            assert!(same(d, r), "{name}:\nserve {d}\n1.20  {r}");
            compared += 1;
        }
        assert!(compared > 100, "{compared} definitions compared");
        assert!(later.len() < 10, "not in 1.20: {later:?}");
    });
}
