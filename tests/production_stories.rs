//! The bundled stories of production stalls (STUCK-CAUSES C1, C2): what
//! `why` says midway, and how each ends when the safe fix is applied.

use ownerscope::model::diagnosis::diagnose;
use ownerscope::sim::Sim;
use ownerscope::sim::scenario::{Target, bundled};

fn why(sim: &Sim, kind: &str, ns: Option<&str>, name: &str) -> Vec<String> {
    let key = sim
        .resolve(&Target {
            kind: kind.into(),
            namespace: ns.map(str::to_string),
            name: name.into(),
        })
        .expect("resolves");
    let obj = sim.get(&key).expect("there");
    let mut d = diagnose(sim.graph(), obj.uid(), sim.now(), &sim.controller_map());
    d.add_removers(sim.graph(), &sim.controller_workloads(), true);
    d.removers_named_not_written();
    d.causes
}

#[test]
fn an_operator_uninstalled_before_its_resources_is_named_and_reinstalling_it_ends_the_namespace() {
    let mut sim = Sim::new(&bundled("operator-uninstalled").expect("bundled")).expect("loads");
    sim.advance(30_000);
    let causes = why(&sim, "Backup", Some("shop"), "shop-nightly");
    assert_eq!(
        causes[0],
        "Backup/shop-nightly holds finalizer example.com/cleanup: no workload of backup-operator found in the cluster: the controller of example.com/cleanup seems uninstalled"
    );
    let ns = why(&sim, "Namespace", None, "shop");
    assert_eq!(
        ns[0],
        "namespace content holds finalizer example.com/cleanup: Backup/shop-nightly"
    );
    // Reinstalled at 60s: it cleans up and the namespace goes.
    sim.settle(300_000);
    assert!(
        sim.objects()
            .all(|o| o.namespace() != Some("shop") && o.name() != "shop"),
        "the namespace and its content are gone"
    );
}

#[test]
fn a_controller_scaled_to_zero_is_named_with_its_deployment() {
    let mut sim = Sim::new(&bundled("controller-scaled-to-zero").expect("bundled")).expect("loads");
    sim.advance(30_000);
    let causes = why(&sim, "Backup", Some("shop"), "shop-nightly");
    assert_eq!(
        causes[0],
        "Backup/shop-nightly holds finalizer example.com/cleanup: cleanup-operator (Deployment ops/cleanup-operator) is scaled to 0: nothing will remove example.com/cleanup; scale it up so it finishes its cleanup"
    );
}

#[test]
fn an_aggregated_api_with_nothing_behind_it_holds_namespaces_until_it_answers_or_goes() {
    let mut sim = Sim::new(&bundled("metrics-server-down").expect("bundled")).expect("loads");
    sim.advance(30_000);
    let causes = why(&sim, "Namespace", None, "monitoring");
    assert!(
        causes[0].starts_with(
            "the namespace controller does not finalize Namespace/monitoring while discovery fails"
        ),
        "{causes:?}"
    );
    assert_eq!(
        causes[1],
        "APIService v1beta1.metrics.k8s.io (Service kube-system/metrics-server) is not Available: MissingEndpoints: endpoints for service/metrics-server in \"kube-system\" have no addresses with port name \"\""
    );
    let mut deleted = sim.clone();
    // Scaled back at 60s: it answers, and the namespace goes.
    sim.settle(300_000);
    assert!(
        sim.objects().all(|o| o.name() != "monitoring"),
        "gone once the API answers"
    );
    // Or the APIService deleted instead: the group is no longer served.
    let resp = deleted.delete(
        &Target {
            kind: "APIService".into(),
            namespace: None,
            name: "v1beta1.metrics.k8s.io".into(),
        },
        &ownerscope::sim::DeleteOptions::default(),
    );
    assert!(resp.is_success(), "{}", resp.message);
    deleted.advance(20_000);
    assert!(
        deleted.objects().all(|o| o.name() != "monitoring"),
        "gone once the APIService is"
    );
}

#[test]
fn plan_says_the_api_server_refuses_to_delete_kube_system() {
    use ownerscope::model::preview;
    let sim = Sim::new(&bundled("metrics-server-down").expect("bundled")).expect("loads");
    let ns = sim
        .objects()
        .find(|o| o.kind == "Namespace" && o.name() == "kube-system")
        .expect("kube-system");
    let plan = preview::plan(sim.graph(), ns.uid(), None, &sim.controller_map());
    assert!(
        plan.policy_note
            .as_deref()
            .is_some_and(|n| n.starts_with("refused: the API server answers 403")),
        "{:?}",
        plan.policy_note
    );
    assert!(
        plan.entries
            .iter()
            .all(|e| !matches!(e.outcome, preview::Outcome::Deleted { .. })),
        "nothing is deleted"
    );
}

#[test]
fn a_forbid_cronjob_skips_while_its_job_waits_on_a_dead_node_and_runs_once_the_node_is_deleted() {
    let mut sim =
        Sim::new(&bundled("cronjob-blocked-by-a-dead-node").expect("bundled")).expect("loads");
    let jobs = |sim: &Sim| -> Vec<String> {
        let mut v: Vec<String> = sim
            .objects()
            .filter(|o| o.kind == "Job")
            .map(|o| o.name().to_string())
            .collect();
        v.sort();
        v
    };
    // The pod on the dead node never finishes (no kubelet reports it), so
    // its Job stays active, and the foreground delete at 30s waits on it:
    // no schedule runs.
    sim.advance(100_000);
    assert_eq!(jobs(&sim), ["nightly-report-29453759"]);
    let causes = why(&sim, "Job", Some("reports"), "nightly-report-29453759");
    assert!(
        causes[0].contains("waits for the kubelet of Node/node-1, which is not reporting"),
        "{causes:?}"
    );
    // The Node deleted at 120s: the pod GC force-deletes the pod 40s later,
    // the Job goes, and the missed run starts at once; Forbid then holds
    // the next ones while it runs.
    sim.advance(70_000);
    assert_eq!(jobs(&sim), ["nightly-report-29453762"]);
    sim.advance(130_000);
    assert_eq!(jobs(&sim), ["nightly-report-29453762"]);
}
