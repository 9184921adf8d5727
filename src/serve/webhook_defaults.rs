//! kube-apiserver 1.20's defaults for the webhooks of a written
//! `admissionregistration.k8s.io/v1` configuration
//! (`SetDefaults_ValidatingWebhook`, `SetDefaults_MutatingWebhook`,
//! `SetDefaults_Rule`, `SetDefaults_ServiceReference`), stored with it as
//! the real server stores them: each webhook's `failurePolicy: Fail`,
//! `matchPolicy: Equivalent`, `namespaceSelector: {}`,
//! `objectSelector: {}`, `timeoutSeconds: 10`, a mutating one's
//! `reinvocationPolicy: Never`, each rule's `scope: "*"`, a service's
//! `port: 443`. A field the client set (not null) stays. These are the
//! values the simulator's webhook model ([`crate::model::webhooks`])
//! already assumes for a v1 webhook that leaves them out, so storing them
//! changes what a client reads and may patch, not which requests a
//! webhook refuses.

use serde_json::{Map, Value, json};

use crate::model::KindInfo;
use crate::model::webhooks::{GROUP, MUTATING, VALIDATING};

/// Fills in the defaults of every webhook of `v`, a written object of
/// `kind`; any other kind is left as it is.
pub fn fill(kind: &KindInfo, v: &mut Value) {
    if kind.group != GROUP || !(kind.kind == VALIDATING || kind.kind == MUTATING) {
        return;
    }
    let mutating = kind.kind == MUTATING;
    let Some(list) = v.get_mut("webhooks").and_then(Value::as_array_mut) else {
        return;
    };
    for w in list.iter_mut().filter_map(Value::as_object_mut) {
        unset(w, "failurePolicy", json!("Fail"));
        unset(w, "matchPolicy", json!("Equivalent"));
        unset(w, "namespaceSelector", json!({}));
        unset(w, "objectSelector", json!({}));
        unset(w, "timeoutSeconds", json!(10));
        if mutating {
            unset(w, "reinvocationPolicy", json!("Never"));
        }
        if let Some(rules) = w.get_mut("rules").and_then(Value::as_array_mut) {
            for r in rules.iter_mut().filter_map(Value::as_object_mut) {
                unset(r, "scope", json!("*"));
            }
        }
        if let Some(service) = w
            .get_mut("clientConfig")
            .and_then(|c| c.get_mut("service"))
            .and_then(Value::as_object_mut)
        {
            unset(service, "port", json!(443));
        }
    }
}

/// `m[key] = value` where the key is absent or null (a nil pointer in Go).
fn unset(m: &mut Map<String, Value>, key: &str, value: Value) {
    if m.get(key).is_none_or(Value::is_null) {
        m.insert(key.into(), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(k: &str) -> KindInfo {
        crate::model::KindTable::builtin()
            .iter()
            .find(|i| i.group == GROUP && i.kind == k)
            .cloned()
            .expect("builtin")
    }

    fn minimal() -> Value {
        json!({"webhooks": [
            {"name": "a.x.io", "sideEffects": "None", "admissionReviewVersions": ["v1"],
             "clientConfig": {"service": {"namespace": "ns", "name": "svc"}},
             "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}]},
            {"name": "b.x.io", "sideEffects": "None", "admissionReviewVersions": ["v1"],
             "clientConfig": {"url": "https://x.example.com/"}}
        ]})
    }

    // What kube-apiserver 1.20.2 answers for `minimal()` created as each
    // kind, read back with `-o json`.
    #[test]
    fn a_minimal_configuration_gets_what_1_20_stores() {
        let mut v = minimal();
        fill(&kind(MUTATING), &mut v);
        assert_eq!(
            v["webhooks"][0],
            json!({"admissionReviewVersions": ["v1"],
                "clientConfig": {"service": {"name": "svc", "namespace": "ns", "port": 443}},
                "failurePolicy": "Fail", "matchPolicy": "Equivalent", "name": "a.x.io",
                "namespaceSelector": {}, "objectSelector": {}, "reinvocationPolicy": "Never",
                "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                           "resources": ["pods"], "scope": "*"}],
                "sideEffects": "None", "timeoutSeconds": 10})
        );
        assert_eq!(
            v["webhooks"][1],
            json!({"admissionReviewVersions": ["v1"], "clientConfig": {"url": "https://x.example.com/"},
                "failurePolicy": "Fail", "matchPolicy": "Equivalent", "name": "b.x.io",
                "namespaceSelector": {}, "objectSelector": {}, "reinvocationPolicy": "Never",
                "sideEffects": "None", "timeoutSeconds": 10})
        );
        let mut v = minimal();
        fill(&kind(VALIDATING), &mut v);
        assert_eq!(v["webhooks"][0]["timeoutSeconds"], json!(10));
        assert!(
            v["webhooks"][0].get("reinvocationPolicy").is_none(),
            "a validating webhook has no reinvocationPolicy"
        );
    }

    #[test]
    fn what_the_client_set_stays_and_null_is_unset() {
        let mut v = json!({"webhooks": [{"name": "a.x.io", "failurePolicy": "Ignore",
            "timeoutSeconds": 3, "matchPolicy": null, "objectSelector": {"matchLabels": {"a": "b"}},
            "clientConfig": {"service": {"namespace": "ns", "name": "s", "port": 8443}},
            "rules": [{"scope": "Namespaced"}]}]});
        fill(&kind(VALIDATING), &mut v);
        let w = &v["webhooks"][0];
        assert_eq!(w["failurePolicy"], json!("Ignore"));
        assert_eq!(w["timeoutSeconds"], json!(3));
        assert_eq!(w["matchPolicy"], json!("Equivalent"));
        assert_eq!(w["objectSelector"], json!({"matchLabels": {"a": "b"}}));
        assert_eq!(w["clientConfig"]["service"]["port"], json!(8443));
        assert_eq!(w["rules"][0]["scope"], json!("Namespaced"));
    }

    #[test]
    fn other_kinds_and_odd_shapes_are_left_alone() {
        let cm = crate::model::KindTable::builtin()
            .iter()
            .find(|i| i.group.is_empty() && i.kind == "ConfigMap")
            .cloned()
            .expect("builtin");
        let mut v = minimal();
        fill(&cm, &mut v);
        assert_eq!(v, minimal());
        for odd in [
            json!({"webhooks": "x"}),
            json!({"webhooks": [1, null]}),
            json!([]),
        ] {
            let mut v = odd.clone();
            fill(&kind(VALIDATING), &mut v);
            assert_eq!(v, odd);
        }
    }
}
