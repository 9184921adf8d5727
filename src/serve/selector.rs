//! `fieldSelector` as query strings spell it (apimachinery
//! `fields.ParseSelector`); `labelSelector` is the model's
//! [`crate::model::selector::Selector::parse`].

use super::events;
use crate::model::{KindInfo, Object};

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
            let probe = Object::new("v1", "Event", None, "");
            if field != "metadata.name"
                && field != "metadata.namespace"
                && events::field(&probe, field).is_none()
            {
                return Err(format!(
                    "field label not supported: {field} (this server selects on metadata.name and metadata.namespace, and Events on their involved object, reason, type and source)"
                ));
            }
            terms.push((field.to_string(), eq, value.trim().to_string()));
        }
        Ok(FieldSelector(terms))
    }

    /// Whether `kind` is selected on these fields: the Event fields only
    /// for Events, as the API server's field labels are per kind.
    ///
    /// # Errors
    /// A field `kind` is not selected on.
    pub fn check(&self, kind: &KindInfo) -> Result<(), String> {
        let is_event =
            kind.kind == "Event" && (kind.group.is_empty() || kind.group == events::EVENTS_GROUP);
        match self
            .0
            .iter()
            .find(|(f, _, _)| !f.starts_with("metadata.") && !is_event)
        {
            Some((f, _, _)) => Err(format!(
                "field label not supported: {f} (not a field of {})",
                kind.plural
            )),
            None => Ok(()),
        }
    }

    #[must_use]
    pub fn matches(&self, o: &Object) -> bool {
        self.0.iter().all(|(field, eq, value)| {
            let actual = match field.as_str() {
                "metadata.name" => o.name(),
                "metadata.namespace" => o.namespace().unwrap_or_default(),
                other => events::field(o, other).unwrap_or_default(),
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
        let on_events = FieldSelector::parse("involvedObject.name=x,type=Warning").expect("parses");
        let kinds = crate::model::KindTable::builtin();
        let info = |g: &str, k: &str| {
            kinds
                .iter()
                .find(|i| i.group == g && i.kind == k)
                .cloned()
                .expect("kind")
        };
        assert!(on_events.check(&info("", "Event")).is_ok());
        assert!(on_events.check(&info("events.k8s.io", "Event")).is_ok());
        assert!(on_events.check(&info("", "ConfigMap")).is_err());
        assert!(!on_events.matches(&o));
        assert!(FieldSelector::parse("nonsense").is_err());
    }
}
