//! `fieldSelector` as query strings spell it (apimachinery
//! `fields.ParseSelector`); `labelSelector` is the model's
//! [`crate::model::selector::Selector::parse`].

use crate::model::Object;

/// A field selector: `metadata.name` and `metadata.namespace`, `=`, `==`
/// or `!=` (the fields every kind supports).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldSelector(pub Vec<(String, bool, String)>);

impl FieldSelector {
    /// # Errors
    /// A field this server does not select on, or a malformed term.
    pub fn parse(s: &str) -> Result<FieldSelector, String> {
        let mut terms = Vec::new();
        if s.trim().is_empty() {
            return Ok(FieldSelector(terms));
        }
        for part in s.split(',') {
            let (field, eq, value) = if let Some((f, v)) = part.split_once("!=") {
                (f, false, v)
            } else if let Some((f, v)) = part.split_once("==") {
                (f, true, v)
            } else if let Some((f, v)) = part.split_once('=') {
                (f, true, v)
            } else {
                return Err(format!(
                    "invalid selector: '{part}'; can't understand '{part}'"
                ));
            };
            let field = field.trim();
            if field != "metadata.name" && field != "metadata.namespace" {
                return Err(format!(
                    "field label not supported: {field} (this server selects on metadata.name and metadata.namespace)"
                ));
            }
            terms.push((field.to_string(), eq, value.trim().to_string()));
        }
        Ok(FieldSelector(terms))
    }

    #[must_use]
    pub fn matches(&self, o: &Object) -> bool {
        self.0.iter().all(|(field, eq, value)| {
            let actual = if field == "metadata.name" {
                o.name()
            } else {
                o.namespace().unwrap_or_default()
            };
            (actual == value) == *eq
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labelled() -> Object {
        Object::new("v1", "ConfigMap", Some("a"), "x")
    }

    #[test]
    fn field_selectors_take_name_and_namespace() {
        let o = labelled();
        let s = FieldSelector::parse("metadata.name=x,metadata.namespace!=b").expect("parses");
        assert!(s.matches(&o));
        assert!(
            !FieldSelector::parse("metadata.name=y")
                .expect("parses")
                .matches(&o)
        );
        assert!(FieldSelector::parse("spec.nodeName=n").is_err());
        assert!(FieldSelector::parse("nonsense").is_err());
    }
}
