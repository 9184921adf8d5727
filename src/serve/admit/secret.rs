//! What a Secret of one of kube-apiserver's own types must hold (1.20's
//! `ValidateSecret`, the `switch secret.Type`), in its words.

use base64::Engine as _;
use serde_json::Value;

use super::{Cause, invalid_value};

fn required(field: &str) -> Cause {
    Cause {
        field: field.to_string(),
        reason: "FieldValueRequired",
        message: "Required value".into(),
    }
}

/// What a Secret of a type of kube-apiserver's own must hold (the
/// `switch secret.Type` of 1.20's `ValidateSecret`), in its words: among
/// them `data[%s][username]`, a format verb 1.20 never filled in.
pub(super) fn type_causes(obj: &Value, out: &mut Vec<Cause>) {
    let data = &obj["data"];
    let has = |key: &str| data.get(key).is_some();
    match obj["type"].as_str().unwrap_or_default() {
        "kubernetes.io/service-account-token" => {
            let named = obj["metadata"]["annotations"]["kubernetes.io/service-account.name"]
                .as_str()
                .is_some_and(|n| !n.is_empty());
            if !named {
                out.push(required(
                    "metadata.annotations[kubernetes.io/service-account.name]",
                ));
            }
        }
        t @ ("kubernetes.io/dockercfg" | "kubernetes.io/dockerconfigjson") => {
            let key = if t.ends_with("json") {
                ".dockerconfigjson"
            } else {
                ".dockercfg"
            };
            let field = format!("data[{key}]");
            match data.get(key) {
                None => out.push(required(&field)),
                Some(v) => {
                    let bytes = base64::engine::general_purpose::STANDARD
                        .decode(v.as_str().unwrap_or_default())
                        .unwrap_or_default();
                    if let Err(e) = json_object(&bytes) {
                        out.push(invalid_value(&field, "<secret contents redacted>", &e));
                    }
                }
            }
        }
        "kubernetes.io/basic-auth" if !has("username") && !has("password") => {
            out.push(required("data[%s][username]"));
            out.push(required("data[%s][password]"));
        }
        "kubernetes.io/ssh-auth" if data["ssh-privatekey"].as_str().is_none_or(str::is_empty) => {
            out.push(required("data[%s][ssh-privatekey]"));
        }
        "kubernetes.io/tls" => {
            for key in ["tls.crt", "tls.key"] {
                if !has(key) {
                    out.push(required(&format!("data[{key}]")));
                }
            }
        }
        _ => {}
    }
}

/// Whether `bytes` read as a JSON object, as Go's `json.Unmarshal` into
/// a `map[string]interface{}` reads them (`null` too); its error's words
/// where they are plain to tell.
fn json_object(bytes: &[u8]) -> Result<(), String> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(_) | Value::Null) => Ok(()),
        Ok(v) => {
            let what = match v {
                Value::Bool(_) => "bool",
                Value::Number(_) => "number",
                Value::String(_) => "string",
                _ => "array",
            };
            Err(format!(
                "json: cannot unmarshal {what} into Go value of type map[string]interface {{}}"
            ))
        }
        Err(e) if e.is_eof() => Err("unexpected end of JSON input".into()),
        Err(e) => {
            let first = bytes.iter().copied().find(|b| !b" \t\r\n".contains(b));
            let start = bytes.len() - bytes.trim_ascii_start().len();
            let literal = |word: &str| {
                let word = word.as_bytes();
                (1..word.len()).find_map(|i| match bytes.get(start + i) {
                    None => Some("unexpected end of JSON input".to_string()),
                    Some(c) if *c != word[i] => Some(format!(
                        "invalid character {} in literal {} (expecting {})",
                        go_char(*c),
                        String::from_utf8_lossy(word),
                        go_char(word[i])
                    )),
                    Some(_) => None,
                })
            };
            let said = match first {
                Some(b't') => literal("true"),
                Some(b'f') => literal("false"),
                Some(b'n') => literal("null"),
                Some(c) if !b"{[\"-0123456789".contains(&c) => Some(format!(
                    "invalid character {} looking for beginning of value",
                    go_char(c)
                )),
                _ => None,
            };
            Err(said.unwrap_or_else(|| e.to_string()))
        }
    }
}

/// A byte as Go's JSON scanner quotes it in an error.
fn go_char(c: u8) -> String {
    match c {
        b'\'' => "'\\''".into(),
        b'"' => "'\"'".into(),
        c if c.is_ascii_graphic() || c == b' ' => format!("'{}'", c as char),
        c => format!("'\\x{c:02x}'"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::super::{Cause, invalid};
    use super::type_causes;
    use crate::model::KindTable;

    /// The message of the 422 for a Secret of `fields`, or none.
    fn refused(fields: Value) -> Option<String> {
        let mut obj = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}});
        if let (Some(m), Value::Object(f)) = (obj.as_object_mut(), fields) {
            m.extend(f);
        }
        let mut out: Vec<Cause> = Vec::new();
        type_causes(&obj, &mut out);
        let kind = KindTable::builtin()
            .iter()
            .find(|k| k.group.is_empty() && k.kind == "Secret")
            .cloned()
            .expect("Secret");
        (!out.is_empty()).then(|| {
            invalid(&kind, "s", &out).value()["message"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
    }

    /// As the test control plane (1.20) answered the same Secrets.
    #[test]
    fn each_type_of_the_servers_own_is_checked_in_its_words() {
        let is = |m: &str| Some(format!("Secret \"s\" is invalid: {m}"));
        assert_eq!(
            refused(json!({"type": "kubernetes.io/service-account-token"})),
            is("metadata.annotations[kubernetes.io/service-account.name]: Required value")
        );
        let named = json!({"type": "kubernetes.io/service-account-token",
            "metadata": {"name": "s", "annotations": {"kubernetes.io/service-account.name": "default"}}});
        assert_eq!(refused(named), None);
        assert_eq!(
            refused(json!({"type": "kubernetes.io/dockerconfigjson"})),
            is("data[.dockerconfigjson]: Required value")
        );
        assert_eq!(
            refused(json!({"type": "kubernetes.io/dockercfg"})),
            is("data[.dockercfg]: Required value")
        );
        // "not json", base64.
        assert_eq!(
            refused(json!({"type": "kubernetes.io/dockerconfigjson",
                           "data": {".dockerconfigjson": "bm90IGpzb24="}})),
            is(
                "data[.dockerconfigjson]: Invalid value: \"<secret contents redacted>\": invalid character 'o' in literal null (expecting 'u')"
            )
        );
        // {"auths":{}}
        assert_eq!(
            refused(json!({"type": "kubernetes.io/dockerconfigjson",
                           "data": {".dockerconfigjson": "eyJhdXRocyI6e319"}})),
            None
        );
        assert_eq!(
            refused(json!({"type": "kubernetes.io/tls"})),
            is("[data[tls.crt]: Required value, data[tls.key]: Required value]")
        );
        assert_eq!(
            refused(json!({"type": "kubernetes.io/tls", "data": {"tls.crt": "YQ=="}})),
            is("data[tls.key]: Required value")
        );
        assert_eq!(
            refused(json!({"type": "kubernetes.io/basic-auth"})),
            is("[data[%s][username]: Required value, data[%s][password]: Required value]")
        );
        assert_eq!(
            refused(json!({"type": "kubernetes.io/basic-auth", "data": {"username": "YQ=="}})),
            None
        );
        assert_eq!(
            refused(json!({"type": "kubernetes.io/ssh-auth"})),
            is("data[%s][ssh-privatekey]: Required value")
        );
        for open in ["bootstrap.kubernetes.io/token", "a b", "Opaque"] {
            assert_eq!(refused(json!({"type": open})), None, "{open}");
        }
    }

    #[test]
    fn json_errors_read_as_gos() {
        use super::json_object;
        assert_eq!(json_object(b"null"), Ok(()));
        assert_eq!(json_object(b""), Err("unexpected end of JSON input".into()));
        assert_eq!(
            json_object(b"\"x\""),
            Err(
                "json: cannot unmarshal string into Go value of type map[string]interface {}"
                    .into()
            )
        );
        assert_eq!(
            json_object(b"  x"),
            Err("invalid character 'x' looking for beginning of value".into())
        );
        assert_eq!(
            json_object(b"tru"),
            Err("unexpected end of JSON input".into())
        );
    }
}
