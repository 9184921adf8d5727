//! `labelSelector` and `fieldSelector` as query strings spell them
//! (apimachinery `labels.Parse`, `fields.ParseSelector`).

use std::collections::BTreeMap;

use crate::model::Object;

/// One requirement of a label selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    NotExists(String),
}

impl Requirement {
    fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        match self {
            Requirement::Equals(k, v) => labels.get(k) == Some(v),
            Requirement::NotEquals(k, v) => labels.get(k) != Some(v),
            Requirement::In(k, vs) => labels.get(k).is_some_and(|l| vs.contains(l)),
            Requirement::NotIn(k, vs) => labels.get(k).is_none_or(|l| !vs.contains(l)),
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::NotExists(k) => !labels.contains_key(k),
        }
    }
}

/// A label selector: every requirement must hold (empty: everything).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelSelector(pub Vec<Requirement>);

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

impl LabelSelector {
    /// Parses `app=web,tier!=db,env in (a,b),!legacy`.
    ///
    /// # Errors
    /// A requirement that does not parse, said as the server says it.
    pub fn parse(s: &str) -> Result<LabelSelector, String> {
        let mut reqs = Vec::new();
        if s.trim().is_empty() {
            return Ok(LabelSelector(reqs));
        }
        for part in split_top(s) {
            let p = part.trim();
            let bad = || format!("unable to parse requirement: {p:?}");
            let req = if let Some(k) = p.strip_prefix('!') {
                Requirement::NotExists(k.trim().to_string())
            } else if let Some((k, v)) = p.split_once("!=") {
                Requirement::NotEquals(k.trim().into(), v.trim().into())
            } else if let Some((k, v)) = p.split_once("==") {
                Requirement::Equals(k.trim().into(), v.trim().into())
            } else if let Some((k, v)) = p.split_once('=') {
                Requirement::Equals(k.trim().into(), v.trim().into())
            } else if let Some((k, v)) = p.split_once(" notin ") {
                Requirement::NotIn(k.trim().into(), values(v).ok_or_else(bad)?)
            } else if let Some((k, v)) = p.split_once(" in ") {
                Requirement::In(k.trim().into(), values(v).ok_or_else(bad)?)
            } else {
                Requirement::Exists(p.to_string())
            };
            let key = match &req {
                Requirement::Equals(k, _)
                | Requirement::NotEquals(k, _)
                | Requirement::In(k, _)
                | Requirement::NotIn(k, _)
                | Requirement::Exists(k)
                | Requirement::NotExists(k) => k,
            };
            if !valid_key(key) {
                return Err(bad());
            }
            reqs.push(req);
        }
        Ok(LabelSelector(reqs))
    }

    #[must_use]
    pub fn matches(&self, o: &Object) -> bool {
        self.0.iter().all(|r| r.matches(&o.metadata.labels))
    }
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

    fn labelled(pairs: &[(&str, &str)]) -> Object {
        let mut o = Object::new("v1", "ConfigMap", Some("a"), "x");
        for (k, v) in pairs {
            o.metadata.labels.insert((*k).into(), (*v).into());
        }
        o
    }

    #[test]
    fn label_selectors_match_as_upstream() {
        let o = labelled(&[("app", "web"), ("tier", "front")]);
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
            assert!(LabelSelector::parse(s).expect(s).matches(&o), "{s}");
        }
        for s in ["app=db", "legacy", "app notin (web)", "!app", "app in (db)"] {
            assert!(!LabelSelector::parse(s).expect(s).matches(&o), "{s}");
        }
        assert!(LabelSelector::parse("a in b").is_err());
        assert!(LabelSelector::parse("a b=c").is_err());
    }

    #[test]
    fn field_selectors_take_name_and_namespace() {
        let o = labelled(&[]);
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
