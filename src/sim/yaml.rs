//! YAML (and JSON) documents read into `serde_json::Value`, keeping the line
//! of every field, so that an error found while deserialising or checking a
//! scenario can name the file, the line and the field.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Span};
use serde::de::DeserializeOwned;
use serde_json::{Map, Number, Value};

/// One parsed document.
#[derive(Clone, Debug, Default)]
pub struct Document {
    pub value: Value,
    /// field path (`objects[0].metadata.name`) -> 1-based line
    pub lines: HashMap<String, usize>,
    /// line of the document's first node
    pub start_line: usize,
}

/// A located error: what went wrong, where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub line: usize,
    pub field: String,
    pub message: String,
}

impl Document {
    /// The line of `path`, or of its nearest ancestor that has one.
    #[must_use]
    pub fn line_of(&self, path: &str) -> usize {
        let mut p = path.to_string();
        loop {
            if let Some(l) = self.lines.get(&p) {
                return *l;
            }
            match p.rfind(['.', '[']) {
                Some(i) => p.truncate(i),
                None => return self.start_line,
            }
        }
    }

    /// Deserialises the value at `path` (the whole document for `""`),
    /// reporting the failing field and its line.
    ///
    /// # Errors
    /// The field path, its line and serde's message.
    pub fn decode<T: DeserializeOwned>(&self, path: &str, value: &Value) -> Result<T, Located> {
        serde_path_to_error::deserialize::<_, T>(value).map_err(|e| {
            let inner = e.path().to_string();
            let field = join_path(path, if inner == "." { "" } else { &inner });
            Located {
                line: self.line_of(&field),
                message: e.into_inner().to_string(),
                field,
            }
        })
    }
}

/// `objects[0]` + `metadata.name` -> `objects[0].metadata.name`.
#[must_use]
pub fn join_path(base: &str, rest: &str) -> String {
    if base.is_empty() {
        rest.to_string()
    } else if rest.is_empty() {
        base.to_string()
    } else if rest.starts_with('[') {
        format!("{base}{rest}")
    } else {
        format!("{base}.{rest}")
    }
}

enum Frame {
    Map {
        map: Map<String, Value>,
        key: Option<String>,
        path: String,
        anchor: usize,
    },
    Seq {
        items: Vec<Value>,
        path: String,
        anchor: usize,
    },
}

pub(crate) fn resolve_plain(s: &str) -> Value {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit())
        && let Ok(i) = s.parse::<i64>()
    {
        return Value::Number(i.into());
    }
    let looks_float = !digits.is_empty()
        && digits
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '.')
        && digits
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))
        && digits.chars().any(|c| c.is_ascii_digit());
    if looks_float
        && let Ok(f) = s.parse::<f64>()
        && let Some(n) = Number::from_f64(f)
    {
        return Value::Number(n);
    }
    Value::String(s.to_string())
}

/// Parses every document of a YAML (or JSON) text.
///
/// Nodes in a value, counted without recursion.
fn node_count(v: &Value) -> usize {
    let mut n = 0usize;
    let mut todo = vec![v];
    while let Some(v) = todo.pop() {
        n += 1;
        match v {
            Value::Array(a) => todo.extend(a),
            Value::Object(m) => todo.extend(m.values()),
            _ => {}
        }
    }
    n
}

/// # Errors
/// A syntax error with its line.
pub fn parse(text: &str) -> Result<Vec<Document>, Located> {
    parse_with(text, true)
}

/// The documents' values only, without the line table: what a file costs
/// when nothing in it is wrong. On an error, read it again with
/// [`parse`] to name the line.
///
/// # Errors
/// A syntax error (its line is known; a field's is not).
pub fn parse_fast(text: &str) -> Result<Vec<Document>, Located> {
    parse_with(text, false)
}

/// The first document's value, without lines (the benchmark's bare YAML
/// baseline reads a file this way).
///
/// # Errors
/// As [`parse_fast`].
pub fn parse_values(text: &str) -> Result<Value, String> {
    parse_fast(text)
        .map(|mut d| {
            if d.is_empty() {
                Value::Null
            } else {
                d.swap_remove(0).value
            }
        })
        .map_err(|l| format!("line {}: {}", l.line, l.message))
}

fn parse_with(text: &str, with_lines: bool) -> Result<Vec<Document>, Located> {
    let mut parser = Parser::new_from_str(text);
    let mut docs = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut doc = Document::default();
    let mut anchors: HashMap<usize, (Value, usize)> = HashMap::new();
    let mut root: Option<Value> = None;
    // Aliases copy what they name: a few hundred bytes of nested aliases
    // expand to billions of nodes. Without aliases a node takes at least a
    // byte of text, so this bound only ever stops an expansion.
    let budget = 100_000 + 4 * text.len();
    let mut expanded = 0usize;
    while let Some(next) = parser.next_event() {
        let (event, span): (Event, Span) = next.map_err(|e| Located {
            line: e.marker().line(),
            field: String::new(),
            message: e.info().to_string(),
        })?;
        let line = span.start.line();
        // The path a new node at this point gets.
        let child_path = if !with_lines {
            String::new()
        } else {
            match stack.last() {
                Some(Frame::Map {
                    key: Some(k), path, ..
                }) => join_path(path, k),
                Some(Frame::Seq { items, path, .. }) => format!("{path}[{}]", items.len()),
                _ => String::new(),
            }
        };
        let mut finished: Option<(Value, usize)> = None;
        match event {
            Event::DocumentStart(_) => {
                doc = Document {
                    start_line: line,
                    ..Document::default()
                };
                root = None;
            }
            Event::DocumentEnd => {
                doc.value = root.take().unwrap_or(Value::Null);
                docs.push(std::mem::take(&mut doc));
            }
            Event::Scalar(s, style, anchor, tag) => {
                let is_key = matches!(stack.last(), Some(Frame::Map { key: None, .. }));
                if is_key {
                    if let Some(Frame::Map { key, path, .. }) = stack.last_mut() {
                        let k = s.to_string();
                        if with_lines {
                            doc.lines.insert(join_path(path, &k), line);
                        }
                        *key = Some(k);
                    }
                    continue;
                }
                let forced_str = tag.as_ref().is_some_and(|t| t.suffix == "str");
                let v = if style == ScalarStyle::Plain && !forced_str {
                    resolve_plain(&s)
                } else {
                    Value::String(s.to_string())
                };
                if with_lines {
                    doc.lines.entry(child_path).or_insert(line);
                }
                finished = Some((v, anchor));
            }
            Event::Alias(id) => {
                let (v, size) = anchors.get(&id).cloned().unwrap_or((Value::Null, 1));
                expanded = expanded.saturating_add(size);
                if expanded > budget {
                    return Err(Located {
                        line,
                        field: child_path,
                        message: format!(
                            "aliases expand to more than {budget} nodes for {} bytes of text: refused (an alias bomb?)",
                            text.len()
                        ),
                    });
                }
                if with_lines {
                    doc.lines.entry(child_path).or_insert(line);
                }
                finished = Some((v, 0));
            }
            Event::MappingStart(anchor, _) => {
                if with_lines {
                    doc.lines.entry(child_path.clone()).or_insert(line);
                }
                stack.push(Frame::Map {
                    map: Map::new(),
                    key: None,
                    path: child_path,
                    anchor,
                });
            }
            Event::SequenceStart(anchor, _) => {
                if with_lines {
                    doc.lines.entry(child_path.clone()).or_insert(line);
                }
                stack.push(Frame::Seq {
                    items: Vec::new(),
                    path: child_path,
                    anchor,
                });
            }
            Event::MappingEnd | Event::SequenceEnd => match stack.pop() {
                Some(Frame::Map { map, anchor, .. }) => {
                    finished = Some((Value::Object(map), anchor))
                }
                Some(Frame::Seq { items, anchor, .. }) => {
                    finished = Some((Value::Array(items), anchor))
                }
                None => {}
            },
            _ => {}
        }
        if let Some((v, anchor)) = finished {
            if anchor != 0 {
                let size = node_count(&v);
                anchors.insert(anchor, (v.clone(), size));
            }
            match stack.last_mut() {
                Some(Frame::Map { map, key, .. }) => {
                    if let Some(k) = key.take() {
                        map.insert(k, v);
                    }
                }
                Some(Frame::Seq { items, .. }) => items.push(v),
                None => root = Some(v),
            }
        }
    }
    // Drop empty documents (a trailing `---`, comments only).
    docs.retain(|d| !d.value.is_null());
    Ok(docs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_lines() {
        let text = "name: x\nobjects:\n  - kind: Pod\n    n: 3\n    b: \"true\"\n    f: 1.5\n  - kind: Secret\n";
        let docs = parse(text).expect("parses");
        assert_eq!(docs.len(), 1);
        let d = &docs[0];
        assert_eq!(d.value["objects"][0]["n"], Value::from(3));
        assert_eq!(d.value["objects"][0]["b"], Value::from("true"));
        assert_eq!(d.value["objects"][0]["f"], Value::from(1.5));
        assert_eq!(d.line_of("objects[1].kind"), 7);
        assert_eq!(d.line_of("objects[0].n"), 4);
        assert_eq!(d.line_of("objects[1].missing.deeper"), 7);
    }

    #[test]
    fn several_documents_and_json() {
        let docs = parse("a: 1\n---\nb: [1, 2]\n---\n").expect("parses");
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].start_line, 2);
        let json = parse("{\"items\": [{\"kind\": \"Pod\"}]}").expect("json");
        assert_eq!(json[0].value["items"][0]["kind"], "Pod");
    }

    #[test]
    fn syntax_errors_have_a_line() {
        let err = parse("a: 1\nb: [1, 2\nc: 3\n").expect_err("bad");
        assert!(err.line >= 2, "{err:?}");
    }

    #[test]
    fn decode_names_field_and_line() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct S {
            items: Vec<Item>,
        }
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Item {
            n: u32,
        }
        let docs = parse("items:\n  - n: 1\n  - n: nope\n").expect("parses");
        let err = docs[0].decode::<S>("", &docs[0].value).expect_err("bad");
        assert_eq!(err.field, "items[1].n");
        assert_eq!(err.line, 3);
    }
}
