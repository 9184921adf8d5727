//! The kept fields of an object's `spec` or `status`, held as compact JSON
//! text and read into a [`Value`] the first time they are asked for.
//!
//! A `Value` map is an index map of owned keys: a pod's `nodeName`,
//! `terminationGracePeriodSeconds` and `phase` made two maps, five strings
//! and their hash tables, about a kilobyte an object, and building them was
//! two fifths of reading a `kubectl get -o json` List. Most objects of a
//! large snapshot are never asked for these fields while it is opened, and
//! many never are: the text is one allocation of a few dozen bytes, and the
//! `Value` is made once, on the first read, and kept.
//!
//! A field read as `&Value` ([`std::ops::Deref`]) reads the same as before;
//! a change ([`std::ops::DerefMut`], [`From<Value>`]) makes the `Value` the
//! one truth and the text is dropped. [`Fields::is_null`] and
//! [`Fields::top_level`] answer from the text without making the `Value`.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::OnceLock;

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Serialize, Serializer};
use serde_json::Value;

use scan::Located;

mod scan;

/// `spec` or `status`: what [`super::kept`] keeps of it.
#[derive(Default)]
pub struct Fields {
    /// Compact JSON of a map or another non-null value, while it is the
    /// truth; `None` when the value is null or after a change.
    text: Option<Box<str>>,
    /// The value: read from `text` on first use, or set by a change.
    /// Boxed: an object holds two of these, most never read.
    value: OnceLock<Box<Value>>,
}

impl Fields {
    /// From compact JSON text written by [`super::kept`]: valid JSON,
    /// never `null` (a null is [`Fields::default`]).
    pub(crate) fn from_text(text: String) -> Fields {
        Fields {
            text: Some(text.into_boxed_str()),
            value: OnceLock::new(),
        }
    }

    /// Null: no such fields.
    #[must_use]
    pub fn is_null(&self) -> bool {
        match self.value.get() {
            Some(v) => v.is_null(),
            None => self.text.is_none(),
        }
    }

    /// The value, read now if it was not yet.
    fn read(&self) -> &Value {
        self.value
            .get_or_init(|| Box::new(parse(self.text.as_deref())))
    }

    /// The whole value, owned.
    #[must_use]
    pub fn into_value(self) -> Value {
        let Fields { text, value } = self;
        value
            .into_inner()
            .map_or_else(|| parse(text.as_deref()), |v| *v)
    }

    /// One field of the top-level map, read from the text when the value
    /// was not made yet (without making it): for a check run on every
    /// object as it is loaded.
    #[must_use]
    pub fn top_level(&self, key: &str) -> Option<Value> {
        self.at(&[key])
    }

    /// The field at `path` (keys of nested maps), read from the text when
    /// the value was not made yet, without making it: what a controller
    /// reads of every object it is shown (a pod's `nodeName` and `phase`,
    /// a workload's selector) would otherwise keep the whole value of each
    /// (a pod's `spec` and `status` as a `Value`: kilobytes an object).
    #[must_use]
    pub fn at(&self, path: &[&str]) -> Option<Value> {
        if path.is_empty() {
            return None;
        }
        if let Some(v) = self.value.get() {
            return path.iter().try_fold(&**v, |v, k| v.get(k)).cloned();
        }
        let text = self.text.as_deref()?;
        // Found by a scan of the text; what the scan cannot read plainly,
        // serde reads (as the whole value would read it).
        match scan::locate(text, path) {
            Located::At(found) => {
                if let Some(v) = scan::plain(found) {
                    return Some(v);
                }
                if let Ok(v) = serde_json::from_str(found) {
                    return Some(v);
                }
            }
            Located::Absent => return None,
            Located::Unsure => {}
        }
        let mut de = serde_json::Deserializer::from_str(text);
        serde::Deserializer::deserialize_any(&mut de, FindPath(path))
            .ok()
            .flatten()
    }
}

/// The value at a path of nested map keys, the rest skipped.
struct FindPath<'p>(&'p [&'p str]);

impl<'de> Visitor<'de> for FindPath<'_> {
    type Value = Option<Value>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Value>, A::Error> {
        let Some((first, rest)) = self.0.split_first() else {
            return Ok(None);
        };
        let mut found = None;
        while let Some(k) = map.next_key_seed(KeyIs(first))? {
            if !k {
                map.next_value::<IgnoredAny>()?;
            } else if rest.is_empty() {
                // A repeated key keeps its last value, as a map does.
                found = Some(map.next_value::<Value>()?);
            } else {
                found = map.next_value_seed(FindPath(rest))?;
            }
        }
        Ok(found)
    }
    // Anything but a map has no keys: nothing under it.
    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> Result<Option<Value>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Option<Value>, E> {
        Ok(None)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Option<Value>, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Option<Value>, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Option<Value>, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Option<Value>, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Option<Value>, E> {
        Ok(None)
    }
}

impl<'de> DeserializeSeed<'de> for FindPath<'_> {
    type Value = Option<Value>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<Value>, D::Error> {
        d.deserialize_any(self)
    }
}

/// Reads compact JSON that ownerscope wrote itself.
fn parse(text: Option<&str>) -> Value {
    let Some(text) = text else {
        return Value::Null;
    };
    let parsed = serde_json::from_str(text);
    debug_assert!(parsed.is_ok(), "kept fields are valid JSON: {text}");
    parsed.unwrap_or(Value::Null)
}

/// A map key compared where it lies, never copied.
struct KeyIs<'k>(&'k str);

impl<'de> DeserializeSeed<'de> for KeyIs<'_> {
    type Value = bool;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for KeyIs<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E>(self, key: &str) -> Result<bool, E> {
        Ok(key == self.0)
    }
}

impl Deref for Fields {
    type Target = Value;
    fn deref(&self) -> &Value {
        self.read()
    }
}

impl DerefMut for Fields {
    /// A change: from now on the value is the truth.
    fn deref_mut(&mut self) -> &mut Value {
        let text = self.text.take();
        let value = self
            .value
            .take()
            .unwrap_or_else(|| Box::new(parse(text.as_deref())));
        self.value = OnceLock::from(value);
        self.value
            .get_mut()
            .unwrap_or_else(|| unreachable!("just set"))
    }
}

impl From<Value> for Fields {
    fn from(value: Value) -> Fields {
        Fields {
            text: None,
            value: OnceLock::from(Box::new(value)),
        }
    }
}

impl Clone for Fields {
    /// The text when it is the truth (a few dozen bytes), else the value.
    fn clone(&self) -> Fields {
        match &self.text {
            Some(text) => Fields {
                text: Some(text.clone()),
                value: OnceLock::new(),
            },
            None => Fields {
                text: None,
                value: self.value.clone(),
            },
        }
    }
}

impl PartialEq for Fields {
    fn eq(&self, other: &Fields) -> bool {
        if let (Some(a), Some(b)) = (&self.text, &other.text)
            && a == b
        {
            return true;
        }
        self.read() == other.read()
    }
}

impl PartialEq<Value> for Fields {
    fn eq(&self, other: &Value) -> bool {
        self.read() == other
    }
}

impl PartialEq<Fields> for Value {
    fn eq(&self, other: &Fields) -> bool {
        self == other.read()
    }
}

impl fmt::Debug for Fields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.read(), f)
    }
}

impl Serialize for Fields {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.read().serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(v: &Value) -> Fields {
        Fields::from_text(v.to_string())
    }

    #[test]
    fn read_from_text_it_is_the_value_it_was_written_from() {
        let v = json!({"nodeName": "n1", "terminationGracePeriodSeconds": 30,
                       "selector": {"matchLabels": {"app": "web"}}, "ratio": 1.5, "on": true});
        let f = text(&v);
        assert!(!f.is_null());
        assert_eq!(*f, v);
        assert_eq!(f["selector"]["matchLabels"]["app"], "web");
        assert_eq!(f.clone().into_value(), v);
        assert!(Fields::default().is_null());
        assert_eq!(*Fields::default(), Value::Null);
    }

    #[test]
    fn a_top_level_field_is_read_without_making_the_value() {
        let f = text(
            &json!({"nodeName": "n1", "terminationGracePeriodSeconds": 30,
                             "volumes": [{"name": "terminationGracePeriodSeconds"}]}),
        );
        assert_eq!(
            f.top_level("terminationGracePeriodSeconds"),
            Some(json!(30))
        );
        assert_eq!(f.top_level("nodeName"), Some(json!("n1")));
        assert_eq!(f.top_level("phase"), None);
        assert!(f.value.get().is_none(), "the value was not made");
        // Named only inside a nested value: not a top-level field.
        let nested = text(&json!({"volumes": [{"name": "nodeName"}]}));
        assert_eq!(nested.top_level("nodeName"), None);
        // Once made (or changed), the value answers.
        let mut changed = f.clone();
        changed["nodeName"] = json!("n2");
        assert_eq!(changed.top_level("nodeName"), Some(json!("n2")));
        assert_eq!(Fields::default().top_level("nodeName"), None);
    }

    #[test]
    fn a_nested_field_is_read_without_making_the_value() {
        let v = json!({"selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}}},
                       "phase": "Running", "list": [{"phase": "x"}], "n": null});
        let f = text(&v);
        assert_eq!(f.at(&["phase"]), Some(json!("Running")));
        assert_eq!(
            f.at(&["selector", "matchLabels"]),
            Some(json!({"app": "web"}))
        );
        assert_eq!(
            f.at(&["template", "metadata", "labels", "app"]),
            Some(json!("web"))
        );
        assert_eq!(f.at(&["n"]), Some(Value::Null));
        // Under a value that is not a map, or absent: nothing.
        assert_eq!(f.at(&["phase", "x"]), None);
        assert_eq!(f.at(&["list", "phase"]), None);
        assert_eq!(f.at(&["selector", "app"]), None);
        assert_eq!(f.at(&["nodeName"]), None);
        assert_eq!(f.at(&[]), None);
        assert!(f.value.get().is_none(), "the value was not made");
        // Each path reads what the made value reads.
        for path in [
            &["phase"][..],
            &["selector", "matchLabels", "app"],
            &["list"],
            &["template"],
        ] {
            let made = path.iter().try_fold(&v, |v, k| v.get(k)).cloned();
            assert_eq!(f.at(path), made, "{path:?}");
        }
        let mut changed = f.clone();
        changed["phase"] = json!("Failed");
        assert_eq!(changed.at(&["phase"]), Some(json!("Failed")));
        assert_eq!(Fields::default().at(&["phase"]), None);
    }

    #[test]
    fn a_change_makes_the_value_the_truth() {
        let mut f = text(&json!({"replicas": 1}));
        f["replicas"] = json!(3);
        assert_eq!(*f, json!({"replicas": 3}));
        assert_ne!(f, text(&json!({"replicas": 1})));
        assert_eq!(f, text(&json!({"replicas": 3})));
        assert_eq!(f.clone(), f);
        assert_eq!(f.clone().into_value(), json!({"replicas": 3}));
        *f = Value::Null;
        assert!(f.is_null());
        let set: Fields = json!({"a": 1}).into();
        assert_eq!(set, json!({"a": 1}));
    }

    #[test]
    fn equal_values_are_equal_whatever_the_text_or_the_order() {
        let a = Fields::from_text(r#"{"a":1,"b":2}"#.into());
        let b = Fields::from_text(r#"{"b":2,"a":1}"#.into());
        assert_eq!(a, b);
        assert_ne!(a, Fields::from_text(r#"{"a":1}"#.into()));
        assert_eq!(serde_json::to_string(&a).expect("json"), r#"{"a":1,"b":2}"#);
        assert_eq!(format!("{a:?}"), format!("{:?}", json!({"a": 1, "b": 2})));
    }
}
