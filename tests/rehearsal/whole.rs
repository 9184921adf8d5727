//! The whole test cluster, every system object included: `snapshot --live
//! -A`, `simulate` with no DELETE for as long as the cluster is then left,
//! and every object the real cluster left alone must be left alone by the
//! simulation too (other tests create and delete their own objects
//! meanwhile: what the cluster changed is not compared).

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

#[test]
fn a_whole_cluster_simulated_with_no_delete_keeps_what_the_cluster_keeps() {
    let _g = shared();
    let started = Instant::now();
    let snap = snapshot_all();
    let file = std::env::temp_dir().join(format!(
        "ownerscope-rehearsal-whole-{}.json",
        std::process::id()
    ));
    std::fs::write(&file, snap.to_string()).expect("snapshot file");
    let until = WAIT_SECONDS.to_string();
    let sim = ownerscope(&[
        "simulate",
        file.to_str().expect("path"),
        "--until",
        &until,
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
    let real = states(snapshot_all()["objects"].as_array().expect("objects"));
    let simulated = states(last["final"].as_array().expect("final"));
    let before = states(snap["objects"].as_array().expect("objects"));
    let mut changed = Vec::new();
    for (uid, (who, terminating)) in &before {
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
        "rehearsal: whole cluster, {} objects: {} left alone by the cluster changed in the simulation",
        before.len(),
        changed.len()
    );
    assert!(changed.is_empty(), "{}", changed.join("\n"));
}
