//! The whole test cluster, every system object included: `snapshot --live
//! -A`, `simulate` with no DELETE for as long as the cluster is then left,
//! and every object the real cluster left alone must be left alone by the
//! simulation too (other tests create and delete their own objects
//! meanwhile: what the cluster changed is not compared, and neither are
//! their objects, which a snapshot can catch half made: its lists are not
//! one atomic read, so a pod may be listed and the Node made for it a
//! moment earlier not, and the simulation's pod GC then deletes the pod).
//!
//! The pod GC's `--terminated-pod-gc-threshold` is a flag of the controller
//! manager, not in the API: its rehearsal restarts the controller manager
//! with a threshold two below the cluster's terminated pods, gives the
//! snapshot the same (`settings.terminatedPodGcThreshold`), and compares
//! which pods each deleted.

use super::*;

/// How long both are left to run.
const WAIT_SECONDS: u64 = 60;

/// uid -> (`Kind/name -n ns`, Terminating) of a snapshot's or a final
/// state's objects.
fn states(objects: &[Value]) -> BTreeMap<String, (String, bool)> {
    objects
        .iter()
        .map(|o| {
            let m = &o["metadata"];
            (
                m["uid"].as_str().unwrap_or_default().to_string(),
                (
                    format!(
                        "{}/{} -n {}",
                        o["kind"].as_str().unwrap_or_default(),
                        m["name"].as_str().unwrap_or_default(),
                        m["namespace"].as_str().unwrap_or("-")
                    ),
                    !m["deletionTimestamp"].is_null(),
                ),
            )
        })
        .collect()
}

fn snapshot_all() -> Value {
    let admin = env().admin.to_str().expect("path").to_string();
    let out = ownerscope(&["snapshot", "--live", "--kubeconfig", &admin, "-A"]);
    assert!(
        out.status.success(),
        "snapshot -A: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("a snapshot")
}

/// A whole-cluster rehearsal with no DELETE: the snapshot's objects, and
/// where the simulation and the real cluster left them after
/// [`WAIT_SECONDS`]; `changed` lists what the cluster left alone and the
/// simulation did not.
struct Rehearsed {
    before: BTreeMap<String, (String, bool)>,
    real: BTreeMap<String, (String, bool)>,
    simulated: BTreeMap<String, (String, bool)>,
    changed: Vec<String>,
    /// The objects as the real cluster and the simulation ended.
    real_objects: Vec<Value>,
    simulated_objects: Vec<Value>,
}

/// The uids of the objects that other tests of this process made, by their
/// namespaces (not `own`): namespaced objects in them, and cluster-scoped
/// objects named after them (`{ns}` or `{ns}-...`, as graphs name them).
fn of_other_tests(objects: &[Value], own: Option<&str>) -> BTreeSet<String> {
    let others: Vec<String> = made_namespaces()
        .into_iter()
        .filter(|ns| Some(ns.as_str()) != own)
        .collect();
    let theirs = |o: &Value| {
        let m = &o["metadata"];
        let name = m["name"].as_str().unwrap_or_default();
        match m["namespace"].as_str() {
            Some(ns) => others.iter().any(|o| o == ns),
            None => others.iter().any(|o| {
                name.strip_prefix(o.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('-'))
            }),
        }
    };
    objects
        .iter()
        .filter(|o| theirs(o))
        .filter_map(|o| o["metadata"]["uid"].as_str().map(str::to_string))
        .collect()
}

/// Takes the snapshot, hands it to `prepare` (which may give it settings
/// and change the cluster to match), simulates it and waits as long. Only
/// the test's `own` namespace is compared of those this process's tests
/// made.
fn rehearse_whole(own: Option<&str>, prepare: impl FnOnce(&mut Value)) -> Rehearsed {
    let started = Instant::now();
    let mut snap = snapshot_all();
    let before = states(snap["objects"].as_array().expect("objects"));
    prepare(&mut snap);
    let snap_objects = snap["objects"].as_array().expect("objects").clone();
    let file = std::env::temp_dir().join(format!(
        "ownerscope-rehearsal-whole-{}.json",
        std::process::id()
    ));
    std::fs::write(&file, snap.to_string()).expect("snapshot file");
    let run_for = WAIT_SECONDS.to_string();
    let sim = ownerscope(&[
        "simulate",
        file.to_str().expect("path"),
        "--for",
        &run_for,
        "-o",
        "json",
    ]);
    let _ = std::fs::remove_file(&file);
    assert!(
        sim.status.success(),
        "simulate: {}",
        String::from_utf8_lossy(&sim.stderr)
    );
    let text = String::from_utf8_lossy(&sim.stdout);
    let last: Value = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v.get("final").is_some())
        .expect("a final state");
    if let Some(rest) = Duration::from_secs(WAIT_SECONDS).checked_sub(started.elapsed()) {
        std::thread::sleep(rest);
    }
    let real_objects = snapshot_all()["objects"]
        .as_array()
        .expect("objects")
        .clone();
    let simulated_objects = last["final"].as_array().expect("final").clone();
    let real = states(&real_objects);
    let simulated = states(&simulated_objects);
    // Read now: every namespace whose objects the snapshot can hold was
    // made (and recorded) before the snapshot was taken.
    let theirs = of_other_tests(&snap_objects, own);
    let mut changed = Vec::new();
    for (uid, (who, terminating)) in &before {
        if theirs.contains(uid) {
            continue;
        }
        // Left alone by the cluster: still there, as Terminating as it was.
        if real.get(uid).map(|r| r.1) != Some(*terminating) {
            continue;
        }
        match simulated.get(uid) {
            Some((_, t)) if t == terminating => {}
            Some(_) => changed.push(format!("{who}: Terminating in the simulation only")),
            None => changed.push(format!("{who}: gone in the simulation only")),
        }
    }
    eprintln!(
        "rehearsal: whole cluster: {} of the snapshot's {} objects were other tests', not compared",
        theirs.len(),
        before.len()
    );
    Rehearsed {
        before,
        real,
        simulated,
        changed,
        real_objects,
        simulated_objects,
    }
}

#[test]
fn a_whole_cluster_simulated_with_no_delete_keeps_what_the_cluster_keeps() {
    let _g = shared();
    let r = rehearse_whole(None, |_| {});
    eprintln!(
        "rehearsal: whole cluster, {} objects: {} left alone by the cluster changed in the simulation",
        r.before.len(),
        r.changed.len()
    );
    assert!(r.changed.is_empty(), "{}", r.changed.join("\n"));
}

/// Puts the controller manager back on its usual flags when dropped, a
/// failed assertion included (so without asserting itself).
struct UsualControllerManager;

impl Drop for UsualControllerManager {
    fn drop(&mut self) {
        let _ = std::process::Command::new("bash")
            .arg(script())
            .arg("controller-manager-restart")
            .status();
    }
}

/// Terminated pods (Succeeded or Failed) of a snapshot, by uid.
fn terminated_pods(snap: &Value) -> BTreeSet<String> {
    snap["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .filter(|o| {
            o["kind"] == "Pod"
                && matches!(o["status"]["phase"].as_str(), Some("Succeeded" | "Failed"))
        })
        .filter_map(|o| o["metadata"]["uid"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn the_pod_gc_deletes_the_same_oldest_terminated_pods_as_the_real_one() {
    // Alone: the threshold counts every terminated pod of the cluster, and
    // the controller manager is restarted with it (then put back).
    let _g = exclusive();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "rehearse-podgc"));
    for i in 0..4 {
        let name = format!("failed-{i}");
        kubectl(
            &["apply", "-n", &ns, "-f", "-"],
            Some(&format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec: {{restartPolicy: Never, containers: [{{name: c, image: example.invalid/c:1}}]}}"
            )),
        );
        kubectl(
            &[
                "patch",
                "pod",
                &name,
                "-n",
                &ns,
                "--subresource=status",
                "--type=merge",
                "-p",
                r#"{"status":{"phase":"Failed"}}"#,
            ],
            None,
        );
        // Creation times a second apart: the oldest are not a tie.
        std::thread::sleep(Duration::from_millis(1_100));
    }
    let usual = UsualControllerManager;
    let mut terminated = BTreeSet::new();
    let r = rehearse_whole(Some(&ns), |snap| {
        terminated = terminated_pods(snap);
        // Two over: the two oldest terminated pods of the cluster go.
        let threshold = terminated.len() - 2;
        snap["settings"] = serde_json::json!({ "terminatedPodGcThreshold": threshold });
        cluster_script(&[
            "controller-manager-restart",
            &format!("--terminated-pod-gc-threshold={threshold}"),
        ]);
    });
    drop(usual);
    let gone = |after: &BTreeMap<String, (String, bool)>| -> BTreeSet<String> {
        terminated
            .iter()
            .filter(|uid| !after.contains_key(*uid))
            .map(|uid| r.before[uid].0.clone())
            .collect()
    };
    let (real, simulated) = (gone(&r.real), gone(&r.simulated));
    eprintln!(
        "rehearsal: pod GC threshold, {} terminated pods: the cluster deleted {real:?}, the simulation {simulated:?}",
        terminated.len()
    );
    rt.block_on(delete_namespace(&client, &ns));
    assert_eq!(real.len(), 2, "the real pod GC deleted {real:?}");
    assert_eq!(simulated, real);
    assert!(r.changed.is_empty(), "{}", r.changed.join("\n"));
}

/// The names of the Jobs controlled by `cronjob` (a uid) among `objects`.
fn jobs_of(objects: &[Value], cronjob: &str) -> Vec<String> {
    let mut v: Vec<String> = objects
        .iter()
        .filter(|o| o["kind"] == "Job")
        .filter(|o| {
            o["metadata"]["ownerReferences"]
                .as_array()
                .is_some_and(|rs| {
                    rs.iter()
                        .any(|r| r["uid"] == cronjob && r["controller"] == true)
                })
        })
        .filter_map(|o| o["metadata"]["name"].as_str().map(str::to_string))
        .collect();
    v.sort();
    v
}

#[test]
fn a_cronjob_schedule_falls_due_in_the_simulation_of_a_snapshot_as_on_the_cluster() {
    // A snapshot's clock starts when it was taken: a CronJob's next
    // schedule comes at the same minute in the simulation as on the
    // cluster. 1.20's controller polls every 10 s, so the window of 60 s
    // is started half a minute before the schedule.
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "rehearse-cron"));
    kubectl(
        &["apply", "-n", &ns, "-f", "-"],
        Some(
            "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: report}\nspec: {schedule: '* * * * *', jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: example.invalid/c:1}]}}}}}",
        ),
    );
    let cronjob = kubectl(
        &[
            "get",
            "-n",
            &ns,
            "cronjob/report",
            "-o",
            "jsonpath={.metadata.uid}",
        ],
        None,
    );
    let second = |now: std::time::SystemTime| {
        now.duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() % 60)
            .unwrap_or(0)
    };
    // Up to the next :25-:30 of a minute (the schedule then comes 30-35 s
    // into the window, and 1.20's Job at most 10 s after it).
    while !(25..30).contains(&second(std::time::SystemTime::now())) {
        std::thread::sleep(Duration::from_millis(500));
    }
    let mut before = Vec::new();
    let r = rehearse_whole(Some(&ns), |snap| {
        before = jobs_of(snap["objects"].as_array().expect("objects"), &cronjob);
    });
    let new = |objects: &[Value]| -> Vec<String> {
        jobs_of(objects, &cronjob)
            .into_iter()
            .filter(|j| !before.contains(j))
            .collect()
    };
    let (real, simulated) = (new(&r.real_objects), new(&r.simulated_objects));
    eprintln!(
        "rehearsal: a CronJob's next schedule: the cluster started {real:?}, the simulation {simulated:?}"
    );
    rt.block_on(delete_namespace(&client, &ns));
    assert_eq!(real.len(), 1, "the cluster started {real:?} in the window");
    assert_eq!(simulated.len(), 1, "the simulation started {simulated:?}");
    // The same scheduled time. A version difference (the CronJob
    // controller): 1.20 names the Job in seconds since 1970, 1.21+ (the
    // simulation) in minutes.
    let suffix = |name: &str| -> u64 {
        name.rsplit_once('-')
            .and_then(|(_, n)| n.parse().ok())
            .unwrap_or_else(|| panic!("a scheduled Job's name: {name}"))
    };
    assert_eq!(
        suffix(&real[0]),
        suffix(&simulated[0]) * 60,
        "{real:?} {simulated:?}"
    );
    assert!(r.changed.is_empty(), "{}", r.changed.join("\n"));
}
