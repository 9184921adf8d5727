//! Admission webhooks that fail closed (STUCK-CAUSES C6), as the 1.20 test
//! control plane was seen to act (`tests/live_stuck.rs`): while nothing
//! answers at a webhook's Service, every request it is called for is
//! refused (500, "failed calling webhook"), a finalizer's removal
//! included, whoever sends it. The simulator refuses the same requests;
//! its controllers try again; the diagnosis names the webhook first; a
//! refused `F` says which configuration and what to do.
//!
//! Version differences: none for these rules between 1.20 and current
//! releases; the transport error at the end of the message depends on
//! how the API server reaches Services, and the simulator words it as
//! endpoint routing does ("no endpoints available for service").

mod common;

use std::time::Duration;

use common::*;
use ownerscope::backend::simulated::SimBackend;
use ownerscope::backend::{Backend, Command, SimCommand, Update};
use ownerscope::model::diagnosis::diagnose;
use ownerscope::sim::scenario::bundled;
use ownerscope::sim::{Sim, What};

const REFUSED: &str = "Internal error occurred: failed calling webhook \"validate.policy.example.com\": Post \"https://guard.policy-system.svc:443/validate?timeout=10s\": no endpoints available for service \"guard\"";

fn backup(sim: &Sim) -> Option<&ownerscope::model::Object> {
    sim.get(&sim.resolve(&t("Backup", "shop", "shop-nightly")).ok()?)
}

#[test]
fn a_webhook_with_nothing_behind_it_refuses_the_controllers_removal_until_it_is_back() {
    let mut sim = Sim::new(&bundled("webhook-blocks-finalizer").expect("bundled")).expect("loads");
    sim.advance(50_000);
    let b = backup(&sim).expect("still there at 50s");
    assert!(b.is_terminating());
    assert_eq!(b.metadata.finalizers, vec!["example.com/cleanup"]);
    // The controller tried every 10 s; the refusal is on the timeline once.
    let refusals: Vec<String> = sim
        .timeline()
        .iter()
        .filter_map(|e| match &e.what {
            What::Response {
                code: 500, message, ..
            } => Some(message.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(refusals, vec![REFUSED.to_string()]);

    let d = diagnose(sim.graph(), b.uid(), sim.now(), &sim.controller_map());
    assert!(
        d.causes[0].starts_with("admission webhook validate.policy.example.com (ValidatingWebhookConfiguration/policy-guard, failurePolicy Fail) refuses every UPDATE of backups.example.com: no endpoints available for service \"guard\""),
        "{:?}",
        d.causes
    );
    assert!(d.causes[1].starts_with("fix, safest first: bring back what serves webhook validate.policy.example.com (Service policy-system/guard: its pods and endpoints)"));
    assert!(
        d.causes.iter().any(|c| c
            .contains("its controller is online, and its removal is refused by the webhook above")),
        "{:?}",
        d.causes
    );

    // At 60s the guard is scaled back to 1: its pod answers, and the
    // controller's next try goes through.
    sim.settle(200_000);
    assert!(
        backup(&sim).is_none(),
        "the Backup is gone once the webhook answers"
    );
    assert!(
        sim.timeline()
            .iter()
            .any(|e| e.by == "controller of example.com/cleanup" && matches!(e.what, What::Deleted)),
        "the controller's removal ended it"
    );
}

#[test]
fn deleting_the_configuration_lets_the_next_try_through() {
    let mut sim = Sim::new(&bundled("webhook-blocks-finalizer").expect("bundled")).expect("loads");
    sim.advance(20_000);
    assert!(backup(&sim).is_some());
    let resp = sim.delete(
        &ownerscope::sim::scenario::Target {
            kind: "ValidatingWebhookConfiguration".into(),
            namespace: None,
            name: "policy-guard".into(),
        },
        &background(),
    );
    assert!(resp.is_success(), "{}", resp.message);
    sim.advance(15_000);
    assert!(backup(&sim).is_none(), "gone at the controller's next try");
}

#[test]
fn a_webhook_that_fails_open_refuses_nothing() {
    let text = ownerscope::sim::scenario::BUNDLED
        .iter()
        .find(|(n, _)| *n == "webhook-blocks-finalizer")
        .expect("bundled")
        .1
        .replace("failurePolicy: Fail", "failurePolicy: Ignore");
    let mut sim = sim(&text);
    sim.advance(10_000);
    assert!(
        backup(&sim).is_none(),
        "removed at the controller's first try"
    );
}

#[test]
fn a_refused_finalizer_removal_says_which_configuration_and_what_to_do() {
    let mut b =
        SimBackend::new(&bundled("webhook-blocks-finalizer").expect("bundled")).expect("starts");
    b.send(Command::Sim(SimCommand::Resume));
    let mut target = None;
    for _ in 0..100 {
        for u in b.poll(Duration::from_millis(500)) {
            if let Update::Upsert(o) = u
                && o.kind == "Backup"
                && o.is_terminating()
            {
                target = Some(o.obj_ref());
            }
        }
        if target.is_some() {
            break;
        }
    }
    let target = target.expect("the Backup turns Terminating");
    b.send(Command::RemoveFinalizer {
        target,
        finalizer: "example.com/cleanup".into(),
    });
    let reply = b
        .poll(Duration::ZERO)
        .into_iter()
        .find_map(|u| match u {
            Update::Replied(r) => Some(r),
            _ => None,
        })
        .expect("a reply");
    assert_eq!(reply.code, 500);
    assert_eq!(
        reply.message,
        format!(
            "webhook validate.policy.example.com of ValidatingWebhookConfiguration/policy-guard could not be called and fails closed: bring back what serves it (Service policy-system/guard), then try again; if it belongs to something uninstalled, deleting its configuration lets the request through (and skips its checks for everything it matched) (the server: {REFUSED})"
        )
    );
}
