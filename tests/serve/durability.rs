//! `--state-dir`: nothing acknowledged is lost to a SIGKILL.

use super::*;

/// What a writer saw of one object: its state after each answered write
/// (`None`: deleted), and the write in flight when the server died.
#[derive(Default)]
struct Seen {
    acked: Vec<(String, Option<String>)>,
    in_flight: Option<(String, Option<String>)>,
    creates: usize,
    deletes: usize,
    max_rv: u64,
}

/// One writer: creates, updates and deletes its own ConfigMaps until the
/// server stops answering.
async fn write_until_killed(client: Client, prefix: String) -> Seen {
    use kube::api::{Patch, PatchParams, PostParams};
    let api: Api<ConfigMap> = Api::namespaced(client, "shop");
    let mut seen = Seen::default();
    let rv = |cm: &ConfigMap| {
        cm.metadata
            .resource_version
            .as_deref()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    for i in 0.. {
        let name = format!("{prefix}-{i}");
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some(name.clone());
        cm.metadata.labels = Some(
            [
                ("crash".to_string(), "1".to_string()),
                ("v".to_string(), "0".to_string()),
            ]
            .into(),
        );
        seen.in_flight = Some((name.clone(), Some("0".into())));
        let Ok(made) = api.create(&PostParams::default(), &cm).await else {
            return seen;
        };
        seen.max_rv = seen.max_rv.max(rv(&made));
        seen.creates += 1;
        seen.acked.push((name.clone(), Some("0".into())));
        seen.in_flight = Some((name.clone(), Some("1".into())));
        let patch = serde_json::json!({"metadata": {"labels": {"v": "1"}}});
        let Ok(patched) = api
            .patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
        else {
            return seen;
        };
        seen.max_rv = seen.max_rv.max(rv(&patched));
        seen.acked.push((name.clone(), Some("1".into())));
        if i % 2 == 1 {
            let before = format!("{prefix}-{}", i - 1);
            seen.in_flight = Some((before.clone(), None));
            if api.delete(&before, &DeleteParams::default()).await.is_err() {
                return seen;
            }
            seen.deletes += 1;
            seen.acked.push((before, None));
        }
        seen.in_flight = None;
    }
    seen
}

/// The acknowledged-writes check of issue 26: serve with `--state-dir` is
/// killed with SIGKILL during a burst of creates, updates and deletes,
/// and restarted; every answered write is there, none is undone, and
/// resource versions go on increasing.
#[test]
fn sigkill_during_a_burst_of_writes_loses_no_acknowledged_write() {
    use std::collections::BTreeMap;
    let state = std::env::temp_dir().join(format!("ownerscope-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    let flags = ["--state-dir", state.to_str().expect("path")];
    // name -> its label `v` (None: deleted), and what a write in flight
    // would have made it.
    let mut expected: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut maybe: BTreeMap<String, Option<String>> = BTreeMap::new();
    let (mut creates, mut deletes, mut max_rv) = (0, 0, 0u64);
    const ROUNDS: u64 = 4;
    for round in 0..=ROUNDS {
        let s = Server::start("deployment", &flags);
        rt().block_on(async {
            let client = s.client().await;
            let api: Api<ConfigMap> = Api::namespaced(client.clone(), "shop");
            let listed = api
                .list(&kube::api::ListParams::default().labels("crash=1"))
                .await
                .expect("list after restart");
            let actual: BTreeMap<String, Option<String>> = listed
                .items
                .iter()
                .map(|c| {
                    let v = c.metadata.labels.as_ref().and_then(|d| d.get("v")).cloned();
                    (c.metadata.name.clone().unwrap_or_default(), v)
                })
                .collect();
            let names: std::collections::BTreeSet<&String> =
                expected.keys().chain(actual.keys()).collect();
            for name in names {
                let now = actual.get(name).cloned().flatten();
                let want = expected.get(name).cloned().flatten();
                let or = maybe.get(name);
                assert!(
                    now == want || or.is_some_and(|m| *m == now),
                    "round {round}: {name} is {now:?} after the restart; acknowledged: {want:?}, in flight: {or:?}"
                );
            }
            expected = actual;
            maybe.clear();
            // Resource versions go on from where they were.
            let mut probe = ConfigMap::default();
            probe.metadata.name = Some(format!("probe-{round}"));
            let made = api
                .create(&kube::api::PostParams::default(), &probe)
                .await
                .expect("probe");
            let rv: u64 = made.metadata.resource_version.as_deref().unwrap_or("0").parse().unwrap_or(0);
            assert!(rv > max_rv, "round {round}: resourceVersion {rv} after {max_rv}");
            if round == ROUNDS {
                return;
            }

            let pid = i32::try_from(s.child.id()).expect("pid");
            let killer = std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(600 + 150 * round));
                let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            });
            let writers: Vec<_> = (0..4)
                .map(|t| tokio::spawn(write_until_killed(client.clone(), format!("crash-{round}-{t}"))))
                .collect();
            for w in writers {
                let seen = w.await.expect("writer");
                creates += seen.creates;
                deletes += seen.deletes;
                max_rv = max_rv.max(seen.max_rv);
                for (name, state) in seen.acked {
                    expected.insert(name, state);
                }
                if let Some((name, state)) = seen.in_flight {
                    maybe.insert(name, state);
                }
            }
            killer.join().expect("killer");
        });
        drop(s);
    }
    assert!(
        creates > 40 && deletes > 10,
        "the bursts wrote too little to show anything: {creates} creates, {deletes} deletes"
    );
    eprintln!(
        "acknowledged before SIGKILL, all found after restarts: {creates} creates, {deletes} deletes"
    );
    let _ = std::fs::remove_dir_all(&state);
}
