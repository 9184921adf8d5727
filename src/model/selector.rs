//! Label selectors, as the workload controllers match their pods (and the
//! Deployment controller its ReplicaSets): `matchLabels` and
//! `matchExpressions` (In, NotIn, Exists, DoesNotExist) of a
//! `metav1.LabelSelector`, and the plain map a ReplicationController or a
//! Service uses. Follows apimachinery's `LabelSelectorAsSelector`: an empty
//! LabelSelector selects everything, a missing one nothing; a malformed one
//! (unknown operator, In with no values) selects nothing, as the controllers
//! treat a selector that fails to convert.

use std::collections::BTreeMap;

use serde_json::Value;

/// One requirement of a selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Requirement {
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
}

impl Requirement {
    fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        match self {
            Requirement::In(k, vs) => labels.get(k).is_some_and(|v| vs.contains(v)),
            Requirement::NotIn(k, vs) => labels.get(k).is_none_or(|v| !vs.contains(v)),
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::DoesNotExist(k) => !labels.contains_key(k),
        }
    }
}

/// A parsed selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    /// Selects nothing (no selector, or one that does not parse).
    Nothing,
    /// Every requirement must hold; none: everything.
    All(Vec<Requirement>),
}

impl Selector {
    /// A `metav1.LabelSelector` (`{matchLabels, matchExpressions}`).
    #[must_use]
    pub fn from_label_selector(v: Option<&Value>) -> Selector {
        let Some(obj) = v.and_then(Value::as_object) else {
            return Selector::Nothing;
        };
        let mut reqs = Vec::new();
        if let Some(m) = obj.get("matchLabels") {
            match string_map(m) {
                Some(map) => reqs.extend(map.into_iter().map(|(k, v)| Requirement::In(k, vec![v]))),
                None => return Selector::Nothing,
            }
        }
        if let Some(exprs) = obj.get("matchExpressions") {
            let Some(exprs) = exprs.as_array() else {
                return Selector::Nothing;
            };
            for e in exprs {
                match expression(e) {
                    Some(r) => reqs.push(r),
                    None => return Selector::Nothing,
                }
            }
        }
        Selector::All(reqs)
    }

    /// A plain map (`spec.selector` of a ReplicationController or a
    /// Service): an empty or missing map selects nothing.
    #[must_use]
    pub fn from_map(v: Option<&Value>) -> Selector {
        match v.and_then(string_map) {
            Some(m) if !m.is_empty() => Selector::All(
                m.into_iter()
                    .map(|(k, v)| Requirement::In(k, vec![v]))
                    .collect(),
            ),
            _ => Selector::Nothing,
        }
    }

    #[must_use]
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        match self {
            Selector::Nothing => false,
            Selector::All(reqs) => reqs.iter().all(|r| r.matches(labels)),
        }
    }

    /// Selects every object (an empty LabelSelector).
    #[must_use]
    pub fn is_everything(&self) -> bool {
        matches!(self, Selector::All(r) if r.is_empty())
    }

    #[must_use]
    pub fn is_nothing(&self) -> bool {
        matches!(self, Selector::Nothing)
    }
}

fn string_map(v: &Value) -> Option<BTreeMap<String, String>> {
    v.as_object()?
        .iter()
        .map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
        .collect()
}

fn expression(e: &Value) -> Option<Requirement> {
    let key = e.get("key")?.as_str()?.to_string();
    let values: Vec<String> = match e.get("values") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => v
            .as_array()?
            .iter()
            .map(|s| s.as_str().map(str::to_string))
            .collect::<Option<_>>()?,
    };
    match e.get("operator")?.as_str()? {
        "In" if !values.is_empty() => Some(Requirement::In(key, values)),
        "NotIn" if !values.is_empty() => Some(Requirement::NotIn(key, values)),
        "Exists" if values.is_empty() => Some(Requirement::Exists(key)),
        "DoesNotExist" if values.is_empty() => Some(Requirement::DoesNotExist(key)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect()
    }

    #[test]
    fn match_labels_and_every_operator() {
        let s = Selector::from_label_selector(Some(&json!({
            "matchLabels": {"app": "web"},
            "matchExpressions": [
                {"key": "tier", "operator": "In", "values": ["front", "edge"]},
                {"key": "env", "operator": "NotIn", "values": ["test"]},
                {"key": "team", "operator": "Exists"},
                {"key": "legacy", "operator": "DoesNotExist"},
            ],
        })));
        let ok = labels(&[("app", "web"), ("tier", "edge"), ("team", "a")]);
        assert!(s.matches(&ok));
        let mut wrong_app = ok.clone();
        wrong_app.insert("app".into(), "db".into());
        assert!(!s.matches(&wrong_app));
        let mut wrong_tier = ok.clone();
        wrong_tier.insert("tier".into(), "back".into());
        assert!(!s.matches(&wrong_tier));
        let mut in_test = ok.clone();
        in_test.insert("env".into(), "test".into());
        assert!(!s.matches(&in_test));
        let mut no_team = ok.clone();
        no_team.remove("team");
        assert!(!s.matches(&no_team));
        let mut legacy = ok.clone();
        legacy.insert("legacy".into(), String::new());
        assert!(!s.matches(&legacy));
    }

    #[test]
    fn empty_selects_everything_missing_or_malformed_nothing() {
        assert!(Selector::from_label_selector(Some(&json!({}))).matches(&labels(&[])));
        assert!(Selector::from_label_selector(None).is_nothing());
        for bad in [
            json!({"matchExpressions": [{"key": "a", "operator": "In", "values": []}]}),
            json!({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]}),
            json!({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}),
            json!({"matchLabels": {"a": 1}}),
        ] {
            assert!(
                Selector::from_label_selector(Some(&bad)).is_nothing(),
                "{bad}"
            );
        }
        assert!(Selector::from_map(Some(&json!({}))).is_nothing());
        assert!(Selector::from_map(Some(&json!({"app": "x"}))).matches(&labels(&[("app", "x")])));
    }
}
