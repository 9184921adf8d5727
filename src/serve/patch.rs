//! PATCH bodies: JSON patch (RFC 6902, `test` included), JSON merge patch
//! (RFC 7386), and strategic merge patch as far as metadata needs it
//! (`finalizers` merged as a set with `$deleteFromPrimitiveList`,
//! `ownerReferences` merged by `uid` with `$patch: delete`; every other
//! list replaced, as a merge patch does). Server-side apply is
//! [`super::apply`]'s.

use serde_json::{Map, Value};

/// Why a patch could not be applied: the code and message to answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatchFailure {
    pub code: u16,
    pub message: String,
}

fn fail(code: u16, message: String) -> PatchFailure {
    PatchFailure { code, message }
}

/// Applies a patch of `content_type` to `doc`.
///
/// # Errors
/// 415 for a patch type not served, 400 for a body that does not parse,
/// 422 for a JSON patch whose operation fails (a `test` that does not hold).
pub fn apply(content_type: &str, doc: &mut Value, body: &[u8]) -> Result<(), PatchFailure> {
    let media = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let patch: Value = match media.as_str() {
        "application/json-patch+json"
        | "application/merge-patch+json"
        | "application/strategic-merge-patch+json" => serde_json::from_slice(body)
            .map_err(|e| fail(400, format!("error decoding patch: {e}")))?,
        other => {
            return Err(fail(
                415,
                format!(
                    "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml (got {other:?})"
                ),
            ));
        }
    };
    match media.as_str() {
        "application/json-patch+json" => {
            let ops: json_patch::Patch = serde_json::from_value(patch.clone())
                .map_err(|e| fail(400, format!("error decoding patch: {e}")))?;
            json_patch::patch(doc, &ops.0).map_err(|e| fail(422, e.to_string()))
        }
        "application/merge-patch+json" => {
            if !patch.is_object() {
                return Err(fail(
                    400,
                    "error decoding patch: a merge patch is a JSON object".into(),
                ));
            }
            json_patch::merge(doc, &patch);
            Ok(())
        }
        _ => {
            let Value::Object(mut p) = patch else {
                return Err(fail(
                    400,
                    "error decoding patch: a strategic merge patch is a JSON object".into(),
                ));
            };
            if let Some(Value::Object(meta_patch)) = p.get_mut("metadata") {
                strategic_metadata(doc, meta_patch);
            }
            json_patch::merge(doc, &Value::Object(p));
            Ok(())
        }
    }
}

/// Applies the strategic parts of a metadata patch to `doc` and takes them
/// out of the patch, leaving what a merge patch does the same.
fn strategic_metadata(doc: &mut Value, patch: &mut Map<String, Value>) {
    if !doc["metadata"].is_object() {
        doc["metadata"] = Value::Object(Map::new());
    }
    let meta = &mut doc["metadata"];
    let mut fins: Vec<Value> = meta["finalizers"].as_array().cloned().unwrap_or_default();
    let mut fins_changed = false;
    if let Some(Value::Array(add)) = patch.remove("finalizers") {
        for f in add {
            if !fins.contains(&f) {
                fins.push(f);
            }
        }
        fins_changed = true;
    } else if let Some(v) = patch.get("finalizers").cloned() {
        // null: removes the field, as a merge does.
        patch.insert("finalizers".into(), v);
    }
    if let Some(Value::Array(del)) = patch.remove("$deleteFromPrimitiveList/finalizers") {
        fins.retain(|f| !del.contains(f));
        fins_changed = true;
    }
    patch.remove("$setElementOrder/finalizers");
    if fins_changed {
        meta["finalizers"] = Value::Array(fins);
    }
    if let Some(Value::Array(refs)) = patch.remove("ownerReferences") {
        let mut have: Vec<Value> = meta["ownerReferences"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for r in refs {
            let uid = r["uid"].clone();
            let pos = have.iter().position(|h| h["uid"] == uid);
            if r["$patch"] == "delete" {
                if let Some(i) = pos {
                    have.remove(i);
                }
            } else if let Some(i) = pos {
                json_patch::merge(&mut have[i], &r);
            } else {
                have.push(r);
            }
        }
        meta["ownerReferences"] = Value::Array(have);
    }
    patch.remove("$setElementOrder/ownerReferences");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc() -> Value {
        json!({"metadata": {"name": "x", "resourceVersion": "7",
            "finalizers": ["a", "b"],
            "ownerReferences": [{"uid": "u1", "name": "o1"}, {"uid": "u2", "name": "o2"}]}})
    }

    #[test]
    fn json_patch_tests_before_it_removes() {
        let mut d = doc();
        let p = br#"[{"op":"test","path":"/metadata/finalizers/0","value":"a"},{"op":"remove","path":"/metadata/finalizers/0"}]"#;
        apply("application/json-patch+json", &mut d, p).expect("applies");
        assert_eq!(d["metadata"]["finalizers"], json!(["b"]));
        let p = br#"[{"op":"test","path":"/metadata/finalizers/0","value":"a"},{"op":"remove","path":"/metadata/finalizers/0"}]"#;
        let e = apply("application/json-patch+json", &mut d, p).expect_err("test fails");
        assert_eq!(e.code, 422);
        assert_eq!(d["metadata"]["finalizers"], json!(["b"]));
    }

    #[test]
    fn merge_and_strategic_patches() {
        let mut d = doc();
        apply(
            "application/merge-patch+json",
            &mut d,
            br#"{"metadata":{"finalizers":null}}"#,
        )
        .expect("applies");
        assert!(d["metadata"].get("finalizers").is_none());
        let mut d = doc();
        let p = br#"{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"],"finalizers":["c"],"ownerReferences":[{"uid":"u1","$patch":"delete"}],"labels":{"x":"y"}}}"#;
        apply("application/strategic-merge-patch+json", &mut d, p).expect("applies");
        assert_eq!(d["metadata"]["finalizers"], json!(["b", "c"]));
        assert_eq!(
            d["metadata"]["ownerReferences"],
            json!([{"uid": "u2", "name": "o2"}])
        );
        assert_eq!(d["metadata"]["labels"]["x"], "y");
        assert_eq!(
            apply("application/apply-patch+yaml", &mut d, b"{}")
                .expect_err("415")
                .code,
            415
        );
        assert_eq!(
            apply("application/merge-patch+json", &mut d, b"{")
                .expect_err("400")
                .code,
            400
        );
        assert_eq!(
            apply("text/plain", &mut d, b"{}").expect_err("415").code,
            415
        );
    }
}
