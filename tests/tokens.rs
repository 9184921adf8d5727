//! The ServiceAccount token controller (GC-SEMANTICS R78), as the 1.20
//! test control plane was seen to act (`tests/live_stuck.rs`): a token
//! Secret has no owner reference, only the annotations that name its
//! ServiceAccount, and goes with it; one whose ServiceAccount is not there
//! goes at once; an Opaque Secret with the same annotations stays.
//!
//! Version difference: 1.20 also creates a token Secret for every
//! ServiceAccount (when its controller-manager has a signing key); 1.24+
//! does not. The simulator never creates them: a rehearsal compares the
//! objects it was given.

mod common;

use common::*;

const SCENARIO: &str = r#"
name: tokens
objects:
  - apiVersion: v1
    kind: ServiceAccount
    metadata: {name: builder, namespace: ci, uid: sa-builder}
  - apiVersion: v1
    kind: Secret
    type: kubernetes.io/service-account-token
    metadata:
      name: builder-token-x7k2q
      namespace: ci
      annotations: {kubernetes.io/service-account.name: builder, kubernetes.io/service-account.uid: sa-builder}
  - apiVersion: v1
    kind: Secret
    type: Opaque
    metadata:
      name: builder-notes
      namespace: ci
      annotations: {kubernetes.io/service-account.name: builder, kubernetes.io/service-account.uid: sa-builder}
  - apiVersion: v1
    kind: Secret
    type: kubernetes.io/service-account-token
    metadata:
      name: stale-token
      namespace: ci
      annotations: {kubernetes.io/service-account.name: builder, kubernetes.io/service-account.uid: an-older-builder}
"#;

fn names(sim: &ownerscope::sim::Sim) -> Vec<String> {
    let mut n: Vec<String> = sim
        .objects()
        .filter(|o| o.kind == "Secret")
        .map(|o| o.name().to_string())
        .collect();
    n.sort();
    n
}

#[test]
fn a_token_whose_service_account_is_not_there_goes_at_once() {
    let mut s = sim(SCENARIO);
    s.advance(2_000);
    assert_eq!(names(&s), vec!["builder-notes", "builder-token-x7k2q"]);
    assert!(
        s.timeline()
            .iter()
            .any(|e| e.by == "tokens-controller" && e.object.name == "stale-token"),
        "deleted by the token controller"
    );
}

#[test]
fn a_token_goes_with_its_service_account_and_an_opaque_secret_stays() {
    let mut s = sim(SCENARIO);
    s.advance(2_000);
    let resp = s.delete(&t("ServiceAccount", "ci", "builder"), &background());
    assert!(resp.is_success(), "{}", resp.message);
    s.settle(60_000);
    assert_eq!(names(&s), vec!["builder-notes"]);
}

#[test]
fn plan_says_the_token_goes_with_its_account_and_agrees_with_the_simulation() {
    use ownerscope::model::preview::{self, Outcome};
    let mut s = sim(SCENARIO);
    s.advance(2_000);
    let sa = s
        .get(
            &s.resolve(&t("ServiceAccount", "ci", "builder"))
                .expect("resolves"),
        )
        .expect("there")
        .uid()
        .to_string();
    let plan = preview::plan(s.graph(), &sa, None, &s.controller_map());
    let outcome = |name: &str| {
        plan.entries
            .iter()
            .find(|e| e.object.name() == name)
            .map(|e| e.outcome.clone())
    };
    assert!(
        matches!(
            outcome("builder-token-x7k2q"),
            Some(Outcome::Deleted { .. })
        ),
        "{:?}",
        plan.entries
    );
    assert!(
        !matches!(outcome("builder-notes"), Some(Outcome::Deleted { .. })),
        "an Opaque Secret with the same annotations stays"
    );
}
