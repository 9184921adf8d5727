//! `fieldSelector` as query strings spell it (apimachinery
//! `fields.ParseSelector`); `labelSelector` is the model's
//! [`crate::model::selector::Selector::parse`].

use super::events;
use crate::model::{KindInfo, Object};

/// The fields kube-apiserver selects on besides `metadata.name` and
/// `metadata.namespace`, per core and apps kind (upstream's per-kind
/// `ToSelectableFields`; Events are [`events::field`]'s).
const KIND_FIELDS: [(&str, &[&str]); 6] = [
    ("Secret", &["type"]),
    (
        "Pod",
        &[
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName",
        ],
    ),
    ("Namespace", &["status.phase"]),
    ("Node", &["spec.unschedulable"]),
    ("ReplicaSet", &["status.replicas"]),
    ("ReplicationController", &["status.replicas"]),
];

fn kind_fields(kind: &KindInfo) -> &'static [&'static str] {
    let core_or_apps = kind.group.is_empty() || (kind.group == "apps" && kind.kind == "ReplicaSet");
    KIND_FIELDS
        .iter()
        .find(|(k, _)| *k == kind.kind && core_or_apps)
        .map_or(&[], |(_, fs)| fs)
}

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
                && !KIND_FIELDS.iter().any(|(_, fs)| fs.contains(&field))
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
        let own = kind_fields(kind);
        match self.0.iter().find(|(f, _, _)| {
            !f.starts_with("metadata.") && !is_event && !own.contains(&f.as_str())
        }) {
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
                "metadata.name" => o.name().to_string(),
                "metadata.namespace" => o.namespace().unwrap_or_default().to_string(),
                "type" => events::field(o, "type").unwrap_or_default(),
                other if o.kind != "Event" => {
                    let path: Vec<&str> = other.split('.').collect();
                    match o.value_at(&path) {
                        Some(serde_json::Value::String(s)) => s.clone(),
                        Some(serde_json::Value::Null) | None => String::new(),
                        Some(v) => v.to_string(),
                    }
                }
                other => events::field(o, other).unwrap_or_default(),
            };
            (actual == *value) == *eq
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
        assert!(FieldSelector::parse("spec.replicas=n").is_err());
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

    /// The per-kind fields the API server selects on: a Secret's `type`
    /// (the live backend marks token Secrets by it), a Pod's phase and node.
    #[test]
    fn kinds_select_on_their_own_fields() {
        let table = crate::model::KindTable::builtin();
        let kind = |k: &str| table.iter().find(|x| x.kind == k).cloned().expect("kind");
        let by_type =
            FieldSelector::parse("type=kubernetes.io/service-account-token").expect("parses");
        assert!(by_type.check(&kind("Secret")).is_ok());
        assert!(by_type.check(&kind("ConfigMap")).is_err());
        let mut token = Object::new("v1", "Secret", Some("a"), "t");
        token.extra_mut().type_ = Some("kubernetes.io/service-account-token".into());
        assert!(by_type.matches(&token));
        assert!(!by_type.matches(&Object::new("v1", "Secret", Some("a"), "opaque")));
        let running =
            FieldSelector::parse("status.phase!=Running,spec.nodeName=n1").expect("parses");
        assert!(running.check(&kind("Pod")).is_ok());
        assert!(running.check(&kind("Secret")).is_err());
        let pod: Object = serde_json::from_value(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "a"}, "spec": {"nodeName": "n1"}, "status": {"phase": "Pending"}}))
        .expect("pod");
        assert!(running.matches(&pod));
    }
}
