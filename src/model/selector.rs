//! Label selectors, as the workload controllers match their pods (and the
//! Deployment controller its ReplicaSets): `matchLabels` and
//! `matchExpressions` (In, NotIn, Exists, DoesNotExist) of a
//! `metav1.LabelSelector`, and the plain map a ReplicationController or a
//! Service uses. Follows apimachinery's `LabelSelectorAsSelector`: an empty
//! LabelSelector selects everything, a missing one nothing; a malformed one
//! (unknown operator, In with no values) selects nothing, as the controllers
//! treat a selector that fails to convert.
//!
//! Also the string form kubectl's `-l/--selector` and the `labelSelector`
//! query parameter take (apimachinery `labels.Parse`): `app=web`,
//! `tier!=db`, `env in (a,b)`, `env notin (c)`, `legacy`, `!legacy`.

use std::collections::BTreeMap;

use crate::model::object::StringMap;
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
    fn matches(&self, labels: &StringMap) -> bool {
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

/// The empty string form: everything.
impl Default for Selector {
    fn default() -> Self {
        Selector::All(Vec::new())
    }
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
    pub fn matches(&self, labels: &StringMap) -> bool {
        match self {
            Selector::Nothing => false,
            Selector::All(reqs) => reqs.iter().all(|r| r.matches(labels)),
        }
    }

    /// Parses the string form: `app=web,tier!=db,env in (a,b),!legacy`
    /// (`=` and `==` are `in` one value, `!=` is `notin` one value); an
    /// empty string selects everything.
    ///
    /// # Errors
    /// A requirement that does not parse, said as the API server says it.
    pub fn parse(s: &str) -> Result<Selector, String> {
        let mut reqs = Vec::new();
        if s.trim().is_empty() {
            return Ok(Selector::All(reqs));
        }
        for part in split_top(s) {
            let p = part.trim();
            let bad = || format!("unable to parse requirement: {p:?}");
            let one = |k: &str, v: &str| (k.trim().to_string(), vec![v.trim().to_string()]);
            let req = if let Some(k) = p.strip_prefix('!') {
                Requirement::DoesNotExist(k.trim().to_string())
            } else if let Some((k, v)) = p.split_once("!=") {
                let (k, v) = one(k, v);
                Requirement::NotIn(k, v)
            } else if let Some((k, v)) = p.split_once("==").or_else(|| p.split_once('=')) {
                let (k, v) = one(k, v);
                Requirement::In(k, v)
            } else if let Some((k, v)) = p.split_once(" notin ") {
                Requirement::NotIn(k.trim().into(), values(v).ok_or_else(bad)?)
            } else if let Some((k, v)) = p.split_once(" in ") {
                Requirement::In(k.trim().into(), values(v).ok_or_else(bad)?)
            } else {
                Requirement::Exists(p.to_string())
            };
            let (key, vals): (&String, &[String]) = match &req {
                Requirement::In(k, v) | Requirement::NotIn(k, v) => (k, v),
                Requirement::Exists(k) | Requirement::DoesNotExist(k) => (k, &[]),
            };
            if !valid_key(key) || vals.iter().any(|v| !valid_value(v)) {
                return Err(bad());
            }
            reqs.push(req);
        }
        Ok(Selector::All(reqs))
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

/// The string form kubectl prints: `app=web,env in (a,b),!legacy`;
/// `<none>` for one that selects nothing, `<everything>` for the empty one.
impl std::fmt::Display for Selector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reqs = match self {
            Selector::Nothing => return f.write_str("<none>"),
            Selector::All(r) if r.is_empty() => return f.write_str("<everything>"),
            Selector::All(r) => r,
        };
        for (i, r) in reqs.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            match r {
                Requirement::In(k, v) if v.len() == 1 => write!(f, "{k}={}", v[0])?,
                Requirement::In(k, v) => write!(f, "{k} in ({})", v.join(","))?,
                Requirement::NotIn(k, v) if v.len() == 1 => write!(f, "{k}!={}", v[0])?,
                Requirement::NotIn(k, v) => write!(f, "{k} notin ({})", v.join(","))?,
                Requirement::Exists(k) => write!(f, "{k}")?,
                Requirement::DoesNotExist(k) => write!(f, "!{k}")?,
            }
        }
        Ok(())
    }
}

/// Splits on commas outside parentheses.
fn split_top(s: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    parts.push(cur);
    parts
}

fn valid_key(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 316
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
}

/// A label value: at most 63 characters of `[A-Za-z0-9._-]` (empty is a
/// value too).
fn valid_value(v: &str) -> bool {
    v.len() <= 63
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

fn values(list: &str) -> Option<Vec<String>> {
    let inner = list.trim().strip_prefix('(')?.strip_suffix(')')?;
    Some(
        inner
            .split(',')
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .collect(),
    )
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

    #[test]
    fn the_string_form_prints_back_as_it_parses() {
        for s in [
            "app=web,env in (a,b),tier!=db,x notin (c,d),legacy,!old",
            "a=b",
        ] {
            let sel = Selector::parse(s).expect("parses");
            assert_eq!(sel.to_string(), s);
            assert_eq!(Selector::parse(&sel.to_string()).expect("parses"), sel);
        }
        assert_eq!(Selector::Nothing.to_string(), "<none>");
        assert_eq!(Selector::default().to_string(), "<everything>");
    }

    #[test]
    fn the_string_form_matches_as_upstream() {
        let l = labels(&[("app", "web"), ("tier", "front")]);
        let yes = [
            "",
            "app=web",
            "app==web,tier",
            "app in (web, db)",
            "tier notin (db)",
            "!legacy",
            "app!=db",
        ];
        for s in yes {
            assert!(Selector::parse(s).expect(s).matches(&l), "{s}");
        }
        for s in ["app=db", "legacy", "app notin (web)", "!app", "app in (db)"] {
            assert!(!Selector::parse(s).expect(s).matches(&l), "{s}");
        }
        for bad in ["a in b", "a b=c", "app=we b", "=x", "app in (a b)"] {
            assert!(Selector::parse(bad).is_err(), "{bad}");
        }
    }

    fn labels(pairs: &[(&str, &str)]) -> StringMap {
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
