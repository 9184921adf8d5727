//! Finding one field in the compact JSON text of [`super::Fields`]
//! without a deserializer: the controllers' first look reads a workload's
//! selector, a pod's node and phase, of every object, and through serde's
//! visitors (a seed per key, every skipped value walked as `IgnoredAny`)
//! those reads were a tenth of `simulate`'s CPU at 300k objects. The text
//! is ownerscope's own (`serde_json`'s compact output), so the scan only
//! has to tell strings from structure; anything it does not expect (a key
//! with an escape in it, text that is not a map) it leaves to the
//! deserializer, which stays the reference.

use serde_json::Value;

/// Where the value at a path of map keys lies in the text.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Located<'t> {
    /// The value's text.
    At(&'t str),
    /// No such field, or a value that is not a map on the way.
    Absent,
    /// The scan cannot tell: ask the deserializer.
    Unsure,
}

/// The value at `path` (keys of nested maps) in `text`. As a map does, a
/// repeated key keeps its last value.
pub(super) fn locate<'t>(text: &'t str, path: &[&str]) -> Located<'t> {
    let mut scan = Scan {
        b: text.as_bytes(),
        i: 0,
    };
    scan.ws();
    match scan.value_at(path) {
        // Found: the bounds are where a value starts and ends, never
        // inside a multi-byte character (both are ASCII bytes).
        Some(Some((start, end))) => text.get(start..end).map_or(Located::Unsure, Located::At),
        Some(None) => Located::Absent,
        None => Located::Unsure,
    }
}

/// A value's text read without a deserializer when it is a string with
/// no escape (a phase, a node's name) or a literal; `None` for the rest.
pub(super) fn plain(found: &str) -> Option<Value> {
    match found {
        "null" => Some(Value::Null),
        "true" => Some(Value::Bool(true)),
        "false" => Some(Value::Bool(false)),
        _ => {
            let inner = found.strip_prefix('"')?.strip_suffix('"')?;
            (!inner.contains(['\\', '"'])).then(|| Value::String(inner.to_owned()))
        }
    }
}

struct Scan<'t> {
    b: &'t [u8],
    i: usize,
}

impl Scan<'_> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.ws();
        (self.b.get(self.i) == Some(&byte)).then(|| self.i += 1)
    }

    /// The value here, searched for `path`: `Some(Some(bounds))` found,
    /// `Some(None)` absent, `None` unsure. Leaves the scan after the value.
    fn value_at(&mut self, path: &[&str]) -> Option<Option<(usize, usize)>> {
        let Some((first, rest)) = path.split_first() else {
            let start = self.i;
            self.skip_value()?;
            return Some(Some((start, self.i)));
        };
        if self.b.get(self.i) != Some(&b'{') {
            // Not a map: nothing under it.
            self.skip_value()?;
            return Some(None);
        }
        self.i += 1;
        let mut found = None;
        self.ws();
        if self.b.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Some(None);
        }
        loop {
            self.ws();
            let (start, end, escaped) = self.string()?;
            if escaped {
                return None;
            }
            self.eat(b':')?;
            self.ws();
            if self.b.get(start..end) == Some(first.as_bytes()) {
                found = self.value_at(rest)?;
            } else {
                self.skip_value()?;
            }
            self.ws();
            match self.b.get(self.i)? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(found);
                }
                _ => return None,
            }
        }
    }

    /// A string here: the bounds of its contents and whether it has an
    /// escape. Leaves the scan after its closing quote.
    fn string(&mut self) -> Option<(usize, usize, bool)> {
        if self.b.get(self.i) != Some(&b'"') {
            return None;
        }
        let start = self.i + 1;
        let mut escaped = false;
        let mut j = start;
        loop {
            match self.b.get(j)? {
                b'"' => {
                    self.i = j + 1;
                    return Some((start, j, escaped));
                }
                b'\\' => {
                    escaped = true;
                    j += 2;
                }
                _ => j += 1,
            }
        }
    }

    /// Past one value: a string, a map or list (its strings read as
    /// strings, its brackets counted), or a number or literal.
    fn skip_value(&mut self) -> Option<()> {
        match *self.b.get(self.i)? {
            b'"' => self.string().map(drop),
            b'{' | b'[' => {
                self.i += 1;
                let mut depth = 1usize;
                while depth > 0 {
                    match *self.b.get(self.i)? {
                        b'"' => {
                            self.string()?;
                        }
                        b'{' | b'[' => {
                            depth += 1;
                            self.i += 1;
                        }
                        b'}' | b']' => {
                            depth -= 1;
                            self.i += 1;
                        }
                        _ => self.i += 1,
                    }
                }
                Some(())
            }
            b',' | b'}' | b']' | b':' => None,
            _ => {
                let start = self.i;
                while let Some(b) = self.b.get(self.i) {
                    if matches!(b, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t') {
                        break;
                    }
                    self.i += 1;
                }
                (self.i > start).then_some(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_values_of_every_shape_and_skips_the_rest() {
        let t = r#"{"a":"x,}]","b":{"c":[1,{"d":2}],"e":null},"f":-1.5e3,"g":true,"h":[],"i":{}}"#;
        assert_eq!(locate(t, &["a"]), Located::At(r#""x,}]""#));
        assert_eq!(locate(t, &["b", "c"]), Located::At(r#"[1,{"d":2}]"#));
        assert_eq!(locate(t, &["b", "e"]), Located::At("null"));
        assert_eq!(locate(t, &["f"]), Located::At("-1.5e3"));
        assert_eq!(locate(t, &["g"]), Located::At("true"));
        assert_eq!(locate(t, &["h"]), Located::At("[]"));
        assert_eq!(locate(t, &["i"]), Located::At("{}"));
        assert_eq!(locate(t, &["i", "x"]), Located::Absent);
        assert_eq!(locate(t, &["b", "c", "d"]), Located::Absent);
        assert_eq!(locate(t, &["a", "x"]), Located::Absent);
        assert_eq!(locate(t, &["z"]), Located::Absent);
        assert_eq!(locate("[1]", &["a"]), Located::Absent);
    }

    #[test]
    fn a_repeated_key_keeps_its_last_value() {
        let t = r#"{"a":{"b":1},"a":{"c":2}}"#;
        assert_eq!(locate(t, &["a", "c"]), Located::At("2"));
        assert_eq!(locate(t, &["a", "b"]), Located::Absent);
    }

    #[test]
    fn what_it_cannot_read_plainly_it_leaves_to_the_deserializer() {
        assert_eq!(locate(r#"{"a\"b":1,"c":2}"#, &["c"]), Located::Unsure);
        assert_eq!(locate(r#"{"a":1"#, &["b"]), Located::Unsure);
        assert_eq!(locate(r#"{"a":"1}"#, &["b"]), Located::Unsure);
        assert_eq!(locate(r#"{"a" 1}"#, &["a"]), Located::Unsure);
        // An escaped quote inside a value is still read as a string.
        assert_eq!(locate(r#"{"a":"x\"y","b":2}"#, &["b"]), Located::At("2"));
    }
}

#[cfg(test)]
mod props {
    use proptest::prelude::*;
    use serde_json::{Map, Value};

    use super::{Located, locate, plain};

    /// Keys from a few names, so that paths hit; one needs an escape.
    fn key() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("a".to_owned()),
            Just("b".to_owned()),
            Just("phase".to_owned()),
            Just("a\"b".to_owned()),
        ]
    }

    fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            (-1e6f64..1e6).prop_map(Value::from),
            "[a-z,:{}\\[\\]\"\\\\ é]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((key(), inner), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    proptest! {
        /// What the scan finds is what the value holds at the path; it is
        /// unsure only of text with an escaped key.
        #[test]
        fn the_scan_reads_what_the_value_holds(
            v in json(),
            path in prop::collection::vec(key(), 1..4),
        ) {
            let text = v.to_string();
            let path: Vec<&str> = path.iter().map(String::as_str).collect();
            // Read back as the scan's value is (a float may not round-trip).
            let v: Value = serde_json::from_str(&text).expect("json");
            let held = path.iter().try_fold(&v, |v, k| v.get(k));
            match locate(&text, &path) {
                Located::At(found) => {
                    let read: Value = serde_json::from_str(found).expect("a value's text");
                    prop_assert_eq!(Some(&read), held);
                    if let Some(plain) = plain(found) {
                        prop_assert_eq!(plain, read);
                    }
                }
                Located::Absent => prop_assert_eq!(None, held),
                Located::Unsure => prop_assert!(text.contains("\\\""), "unsure of {}", text),
            }
        }
    }
}
