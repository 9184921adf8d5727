//! The UI on the "I deleted the ReplicaSet and it came back" story: the
//! delete dialog's preview says the Deployment controller re-creates it,
//! and once confirmed the timeline shows the re-creation and the new pods
//! by their controllers, like any other change.

use std::time::Duration;

use ownerscope::tools::session::Session;

#[test]
fn the_preview_and_the_timeline_tell_the_replicaset_coming_back() {
    let mut s = Session::new("replicaset-comes-back", 160, 48, false).expect("scenario loads");
    s.keys("/replicaset/web<Enter><C-d>b");
    let dialog = s.screen();
    assert!(
        dialog.contains("re-created by the Deployment controller"),
        "{dialog}"
    );
    s.keys("<Read><Enter>");
    s.wait(Duration::from_secs(5));
    s.keys("<Tab>");
    let screen = s.screen();
    assert!(
        screen.contains("created  ReplicaSet/web-5c4d9b7f6    (by deployment-controller)"),
        "{screen}"
    );
    assert!(
        screen.contains("created  Pod/web-5c4d9b7f6-")
            && screen.contains("(by replicaset-controller)"),
        "{screen}"
    );
    // The tree shows the new pods under the ReplicaSet.
    assert!(screen.contains("◀ new"), "{screen}");
}

/// STUCK-CAUSES C1 in the simulator: a finalizer's controller that runs as
/// a Deployment is offline while it is scaled to 0 (or gone), and online
/// once scaled up; taking it online or offline scales it.
#[test]
fn a_controller_that_runs_as_a_workload_follows_its_replicas() {
    use ownerscope::sim::scenario::Target;
    let sc = ownerscope::sim::scenario::bundled("controller-scaled-to-zero").expect("bundled");
    let mut sim = ownerscope::sim::Sim::new(&sc).expect("loads");
    let online = |sim: &ownerscope::sim::Sim| {
        sim.controller("example.com/cleanup")
            .expect("declared")
            .online
    };
    assert!(!online(&sim), "its Deployment has 0 replicas");
    sim.advance(30_000);
    let backup = Target {
        kind: "Backup".into(),
        namespace: Some("shop".into()),
        name: "shop-nightly".into(),
    };
    let key = sim.resolve(&backup).expect("resolves");
    assert!(sim.get(&key).expect("there").is_terminating());
    // The scenario's step at 60 s brings it online: the Deployment is
    // scaled to 1 and the finalizer goes.
    sim.advance(35_000);
    assert!(online(&sim));
    assert!(sim.get(&key).is_none(), "cleanup done");
    let deploy = Target {
        kind: "Deployment".into(),
        namespace: Some("ops".into()),
        name: "cleanup-operator".into(),
    };
    let dk = sim.resolve(&deploy).expect("resolves");
    assert_eq!(
        sim.get(&dk).expect("there").value_at(&["spec", "replicas"]),
        Some(&serde_json::json!(1))
    );
    // Offline again: scaled to 0. Deleted: offline too.
    sim.set_controller("example.com/cleanup", false);
    assert!(!online(&sim));
    assert_eq!(
        sim.get(&dk).expect("there").value_at(&["spec", "replicas"]),
        Some(&serde_json::json!(0))
    );
    sim.set_controller("example.com/cleanup", true);
    assert!(online(&sim));
    sim.delete(&deploy, &ownerscope::sim::DeleteOptions::default());
    sim.advance(5_000);
    assert!(!online(&sim), "its Deployment is gone");
}

/// STUCK-CAUSES C6 in the UI: the finalizer dialog names the admission
/// webhook that will refuse the removal, before anyone confirms it.
#[test]
fn the_finalizer_dialog_names_the_webhook_that_refuses_the_removal() {
    let mut s = Session::new("webhook-blocks-finalizer", 160, 48, false).expect("scenario loads");
    s.keys("<Space>");
    s.wait(Duration::from_secs(6));
    s.keys("/shop-nightly<Enter>F<Enter>");
    let dialog = s.screen();
    assert!(
        dialog.contains("⚠ admission webhook validate.policy.example.com"),
        "{dialog}"
    );
}
