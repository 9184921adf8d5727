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

/// One object written in the crash test: its kind, name and the fields
/// compared (JSON pointers), with their values as acknowledged.
struct Written {
    kind: &'static str,
    name: String,
    fields: Vec<(&'static str, Value)>,
    rv: u64,
}

fn rv_of(v: &Value) -> u64 {
    v.pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// What `v` holds at `pointers`, as acknowledged.
fn at(v: &Value, pointers: &[&'static str]) -> Vec<(&'static str, Value)> {
    pointers
        .iter()
        .map(|p| (*p, v.pointer(p).cloned().unwrap_or(Value::Null)))
        .collect()
}

const CM_FIELDS: &[&str] = &["/data", "/binaryData"];
const SECRET_FIELDS: &[&str] = &["/data", "/type"];
const DEPLOY_FIELDS: &[&str] = &[
    "/spec/template/spec/containers/0/env",
    "/spec/template/metadata/annotations",
    "/spec/strategy",
];

fn typed<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("a typed object")
}

/// A typed client's answer as JSON.
fn json_of<T: serde::Serialize>(answer: Result<T, kube::Error>, what: &str) -> Value {
    serde_json::to_value(answer.unwrap_or_else(|e| panic!("{what}: {e}"))).expect("JSON")
}

/// One round's writes, each answered before the next: a ConfigMap with
/// data and binaryData, a Secret with data and stringData, a Deployment
/// with a pod template's env and annotations; from the second round on,
/// the first round's three changed in those same fields.
async fn write_unkept(client: &Client, round: usize) -> Vec<Written> {
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::api::core::v1::Secret;
    use kube::api::{Patch, PatchParams, PostParams};
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), "shop");
    let secrets: Api<Secret> = Api::namespaced(client.clone(), "shop");
    let deploys: Api<Deployment> = Api::namespaced(client.clone(), "shop");
    let post = PostParams::default();
    let merge = PatchParams::default();
    let mut out = Vec::new();
    let mut keep = |kind, v: Value, fields: &[&'static str]| {
        out.push(Written {
            kind,
            name: v["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            fields: at(&v, fields),
            rv: rv_of(&v),
        });
    };
    let cm = serde_json::json!({"metadata": {"name": format!("data-{round}")},
        "data": {"k": format!("v{round}"), "app.conf": "a=1\nb=2\n"},
        "binaryData": {"bin": "AAEC"}});
    let made = json_of(cms.create(&post, &typed(cm)).await, "configmap create");
    assert_eq!(
        made["data"]["k"],
        format!("v{round}"),
        "the answer has the data"
    );
    keep("ConfigMap", made, CM_FIELDS);
    let secret = serde_json::json!({"metadata": {"name": format!("secret-{round}")},
        "type": "example.com/crash", "data": {"a": "b2xk"},
        "stringData": {"s": format!("round {round}")}});
    keep(
        "Secret",
        json_of(secrets.create(&post, &typed(secret)).await, "secret create"),
        SECRET_FIELDS,
    );
    let deploy = serde_json::json!({"metadata": {"name": format!("env-{round}")},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": format!("env-{round}")}},
                 "strategy": {"type": "Recreate"},
                 "template": {"metadata": {"labels": {"app": format!("env-{round}")},
                                           "annotations": {"round": round.to_string()}},
                              "spec": {"containers": [{"name": "c", "image": "busybox:1.36",
                                  "env": [{"name": "ROUND", "value": round.to_string()}]}]}}}});
    keep(
        "Deployment",
        json_of(
            deploys.create(&post, &typed(deploy)).await,
            "deployment create",
        ),
        DEPLOY_FIELDS,
    );
    if round > 0 {
        let p = serde_json::json!({"data": {"k": null, format!("r{round}"): "x"},
                                   "binaryData": {format!("b{round}"): "AQ=="}});
        keep(
            "ConfigMap",
            json_of(
                cms.patch("data-0", &merge, &Patch::Merge(&p)).await,
                "configmap patch",
            ),
            CM_FIELDS,
        );
        let p = serde_json::json!({"stringData": {format!("s{round}"): "more"}});
        keep(
            "Secret",
            json_of(
                secrets.patch("secret-0", &merge, &Patch::Merge(&p)).await,
                "secret patch",
            ),
            SECRET_FIELDS,
        );
        let p = serde_json::json!({"spec": {"template": {
            "metadata": {"annotations": {"round": round.to_string()}},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36",
                "env": [{"name": "ROUND", "value": round.to_string()},
                        {"name": "EXTRA", "value": "1"}]}]}}}});
        keep(
            "Deployment",
            json_of(
                deploys.patch("env-0", &merge, &Patch::Merge(&p)).await,
                "deployment patch",
            ),
            DEPLOY_FIELDS,
        );
    }
    out
}

/// The object `kind`/`name` in `shop` as serve answers a GET.
async fn get_json(client: &Client, kind: &str, name: &str) -> Value {
    let path = match kind {
        "ConfigMap" => format!("/api/v1/namespaces/shop/configmaps/{name}"),
        "Secret" => format!("/api/v1/namespaces/shop/secrets/{name}"),
        _ => format!("/apis/apps/v1/namespaces/shop/deployments/{name}"),
    };
    let req = http::Request::get(path).body(Vec::new()).expect("request");
    client
        .request::<Value>(req)
        .await
        .unwrap_or_else(|e| panic!("GET {kind} {name}: {e}"))
}

/// Issue 26: what serve keeps beside the simulator's own fields (a
/// ConfigMap's data and binaryData, a Secret's data from stringData, a
/// pod template's env and annotations) is as durable as the rest. Serve
/// with `--state-dir` is killed with SIGKILL the moment its last write is
/// answered, three times; after each restart every field reads as it was
/// acknowledged, the ConfigMaps' and Secrets' resource versions are the
/// ones answered, and a new write's is above all of them.
#[test]
fn sigkill_right_after_writes_of_unkept_fields_loses_none_of_them() {
    let state =
        std::env::temp_dir().join(format!("ownerscope-crash-unkept-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    let flags = ["--state-dir", state.to_str().expect("path")];
    let mut acked: std::collections::BTreeMap<(&'static str, String), Written> =
        std::collections::BTreeMap::new();
    const ROUNDS: usize = 3;
    for round in 0..=ROUNDS {
        let s = Server::start("deployment", &flags);
        let pid = s.child.id().to_string();
        rt().block_on(async {
            let client = s.client().await;
            for ((kind, name), w) in &acked {
                let now = get_json(&client, kind, name).await;
                assert_eq!(
                    at(&now, &w.fields.iter().map(|(p, _)| *p).collect::<Vec<_>>()),
                    w.fields,
                    "round {round}: {kind} {name} after the restart"
                );
                let rv = rv_of(&now);
                if *kind == "Deployment" {
                    assert!(
                        rv >= w.rv,
                        "round {round}: {name} at {rv}, answered {}",
                        w.rv
                    );
                } else {
                    assert_eq!(rv, w.rv, "round {round}: {kind} {name}'s resourceVersion");
                }
            }
            let max_rv = acked.values().map(|w| w.rv).max().unwrap_or(0);
            if round == ROUNDS {
                let cms: Api<ConfigMap> = Api::namespaced(client.clone(), "shop");
                let mut probe = ConfigMap::default();
                probe.metadata.name = Some("probe".into());
                let made = json_of(
                    cms.create(&kube::api::PostParams::default(), &probe).await,
                    "probe",
                );
                assert!(
                    rv_of(&made) > max_rv,
                    "resourceVersion {} after {max_rv}",
                    rv_of(&made)
                );
                return;
            }
            for w in write_unkept(&client, round).await {
                assert!(
                    w.rv > max_rv,
                    "round {round}: {} {} at {} after {max_rv}",
                    w.kind,
                    w.name,
                    w.rv
                );
                acked.insert((w.kind, w.name.clone()), w);
            }
            // The last write is answered: nothing more is waited for.
            let killed = Command::new("kill").args(["-9", &pid]).status();
            assert!(killed.is_ok_and(|k| k.success()), "SIGKILL sent");
        });
        drop(s);
    }
    assert_eq!(acked.len(), 3 * ROUNDS, "every object written was checked");
    let _ = std::fs::remove_dir_all(&state);
}
