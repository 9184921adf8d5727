//! An object as YAML text, for the YAML view: block style, a scalar plain
//! when it reads back as the same string, else double-quoted with JSON's
//! escapes (valid YAML, every control character escaped). Pure.

use serde_json::Value;

use super::Object;
use super::kept::DROPPED_ANNOTATIONS;

/// A scalar as YAML writes it: plain when it reads back as the same
/// string, else double-quoted with JSON's escapes (valid YAML, and every
/// control character escaped, so nothing reaches the terminal raw).
fn scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || "-_./@+ ".contains(c))
        && !s.starts_with([' ', '-', '.', '@'])
        && !s.ends_with(' ')
        && s.parse::<f64>().is_err()
        && !matches!(
            s.to_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "~"
        );
    if plain {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_default()
    }
}

fn key(k: &str) -> String {
    scalar(k)
}

fn emit(v: &Value, indent: usize, out: &mut Vec<String>) {
    let pad = " ".repeat(indent);
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match x {
                    Value::Object(c) if !c.is_empty() => {
                        out.push(format!("{pad}{}:", key(k)));
                        emit(x, indent + 2, out);
                    }
                    Value::Array(a) if !a.is_empty() => {
                        out.push(format!("{pad}{}:", key(k)));
                        emit(x, indent, out);
                    }
                    _ => out.push(format!("{pad}{}: {}", key(k), inline(x))),
                }
            }
        }
        Value::Array(a) => {
            for x in a {
                let mut item = Vec::new();
                emit_value(x, indent + 2, &mut item);
                if let Some(first) = item.first_mut() {
                    // `- ` takes the place of the item's first indent.
                    *first = format!("{pad}- {}", first.trim_start());
                }
                out.extend(item);
            }
        }
        _ => out.push(format!("{pad}{}", inline(v))),
    }
}

fn emit_value(v: &Value, indent: usize, out: &mut Vec<String>) {
    match v {
        Value::Object(m) if !m.is_empty() => emit(v, indent, out),
        Value::Array(a) if !a.is_empty() => {
            let mut inner = Vec::new();
            emit(v, indent, &mut inner);
            out.extend(inner);
        }
        _ => out.push(format!("{}{}", " ".repeat(indent), inline(v))),
    }
}

fn inline(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => scalar(s),
        Value::Array(_) => "[]".into(),
        Value::Object(_) => "{}".into(),
    }
}

/// The YAML of a JSON value, line by line.
#[must_use]
pub fn to_yaml(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    emit_value(v, 0, &mut out);
    out
}

/// What is known of `obj`, as YAML lines: the metadata (never the value
/// of a dropped annotation such as `last-applied-configuration`), and of
/// `spec` and `status` the fields kept.
#[must_use]
pub fn object(obj: &Object) -> Vec<String> {
    let mut v = serde_json::to_value(obj).unwrap_or(Value::Null);
    if let Some(notes) = v
        .pointer_mut("/metadata/annotations")
        .and_then(Value::as_object_mut)
    {
        for d in DROPPED_ANNOTATIONS {
            notes.remove(*d);
        }
    }
    to_yaml(&v)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::to_yaml;

    #[test]
    fn an_object_never_shows_last_applied_configuration() {
        let mut o = crate::model::Object::new("v1", "ConfigMap", Some("shop"), "c");
        o.metadata.annotations.insert(
            "kubectl.kubernetes.io/last-applied-configuration".into(),
            "{\"data\":{\"password\":\"hunter2\"}}".into(),
        );
        o.metadata.annotations.insert("team".into(), "shop".into());
        let text = super::object(&o).join("\n");
        assert!(
            !text.contains("hunter2") && !text.contains("last-applied"),
            "{text}"
        );
        assert!(text.contains("team: shop"), "{text}");
    }

    #[test]
    fn yaml_of_maps_lists_and_scalars_that_need_quotes() {
        let v = json!({
            "metadata": {"name": "web", "labels": {"app": "web", "n": "1"},
                "finalizers": ["example.com/x"], "annotations": {}},
            "spec": {"replicas": 2, "selector": {"matchExpressions": [{"key": "a", "operator": "In", "values": ["x", "y"]}]}},
            "odd": "a: b\u{1b}[31m"
        });
        assert_eq!(
            to_yaml(&v).join("\n"),
            "metadata:
  name: web
  labels:
    app: web
    n: \"1\"
  finalizers:
  - example.com/x
  annotations: {}
spec:
  replicas: 2
  selector:
    matchExpressions:
    - key: a
      operator: In
      values:
      - x
      - y
odd: \"a: b\\u001b[31m\""
        );
    }
}
