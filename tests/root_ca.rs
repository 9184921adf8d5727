//! The root CA publisher (kube-controller-manager's
//! `root-ca-cert-publisher`), as the 1.20 test control plane was seen to
//! act: every namespace holds a ConfigMap `kube-root-ca.crt` with one key,
//! `ca.crt`, the cluster CA; no labels, annotations or owner reference;
//! there by the next request after a namespace is created or the ConfigMap
//! deleted; its `data` put back whole after an edit (a key added goes, a
//! label stays); none in a Terminating namespace once the namespace
//! controller deleted it.
//!
//! Version difference: 1.21+ also annotates it `kubernetes.io/description`.
//!
//! The simulator runs it only when given a CA (`ownerscope serve` gives its
//! own): a scenario played offline keeps the objects its file holds.

mod common;

use common::*;
use ownerscope::model::{Object, Policy, unkept};
use ownerscope::sim::scenario;
use serde_json::json;

const CA: &str = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

const SCENARIO: &str = r#"
name: root-ca
objects:
  - apiVersion: v1
    kind: Namespace
    metadata: {name: shop}
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: held, namespace: shop, finalizers: [example.com/hold]}
"#;

fn with_ca(ca: Option<&str>) -> ownerscope::sim::Sim {
    let mut s = scenario::parse("test.yaml", SCENARIO).expect("scenario parses");
    s.settings.root_ca = ca.map(str::to_string);
    ownerscope::sim::Sim::new(&s).expect("scenario loads")
}

fn data(o: &Object) -> serde_json::Value {
    unkept::of(o).map(|r| r["data"].clone()).unwrap_or_default()
}

const NAME: &str = "kube-root-ca.crt";

#[test]
fn every_namespace_gets_the_ca_at_once_and_a_new_one_too() {
    let mut s = with_ca(Some(CA));
    s.advance(1);
    let cm = s.must("ConfigMap", "shop", NAME);
    assert_eq!(data(&cm), json!({"ca.crt": CA}));
    assert!(cm.metadata.labels.is_empty());
    assert!(cm.metadata.annotations.is_empty());
    assert!(cm.metadata.owner_references.is_empty());
    s.create(Object::new("v1", "Namespace", None, "later"));
    assert!(!s.exists("ConfigMap", "later", NAME));
    s.advance(1);
    assert_eq!(
        data(&s.must("ConfigMap", "later", NAME)),
        json!({"ca.crt": CA})
    );
}

#[test]
fn without_a_ca_nothing_is_published() {
    let mut s = with_ca(None);
    s.create(Object::new("v1", "Namespace", None, "later"));
    s.advance(10_000);
    assert_eq!(s.objects().filter(|o| o.name() == NAME).count(), 0);
}

#[test]
fn a_deleted_one_comes_back_with_another_uid() {
    let mut s = with_ca(Some(CA));
    s.advance(1);
    let first = s.uid_of("ConfigMap", "shop", NAME);
    assert!(
        s.delete(&t("ConfigMap", "shop", NAME), &background())
            .is_success()
    );
    assert!(!s.exists("ConfigMap", "shop", NAME));
    s.advance(1);
    let again = s.uid_of("ConfigMap", "shop", NAME);
    assert_ne!(first, again);
}

#[test]
fn an_edit_of_its_data_is_undone_and_a_label_stays() {
    let mut s = with_ca(Some(CA));
    s.advance(1);
    let resp = s.patch(&t("ConfigMap", "shop", NAME), "data", |o| {
        unkept::set(o, Some(&json!({"data": {"ca.crt": "x", "extra": "y"}})));
        o.metadata.labels.insert("a".into(), "b".into());
    });
    assert!(resp.is_success(), "{resp:?}");
    s.advance(1);
    let cm = s.must("ConfigMap", "shop", NAME);
    assert_eq!(data(&cm), json!({"ca.crt": CA}));
    assert_eq!(cm.metadata.labels.get("a").map(String::as_str), Some("b"));
}

#[test]
fn a_terminating_namespace_gets_none_back() {
    let mut s = with_ca(Some(CA));
    s.advance(1);
    assert!(
        s.delete(&t("Namespace", "", "shop"), &policy(Policy::Background))
            .is_success()
    );
    // The namespace controller empties it (its first pass 5 s after the
    // DELETE); the held ConfigMap keeps it Terminating.
    s.advance(30_000);
    assert!(s.terminating("Namespace", "", "shop"));
    assert!(s.terminating("ConfigMap", "shop", "held"));
    assert!(!s.exists("ConfigMap", "shop", NAME));
}
