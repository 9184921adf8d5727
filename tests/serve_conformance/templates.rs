//! What the controllers make from a template, compared field by field: the
//! same Deployment (env, ports, resources, probes, an init container,
//! volumes, annotations) created on the control plane, whose controller
//! manager runs, and on serve; its create's answer, the Deployment, its
//! ReplicaSet and a pod read back once both controllers have made them,
//! every leaf compared. The test control plane has no scheduler or
//! kubelet, so its pods stay Pending and unbound, as the simulator's do.
//! What differs by nature (uids, resource versions, times, the
//! pod-template-hash and a pod's random suffix) is put in words before
//! the comparison; every difference left is listed in [`DIFFERENCES`] by
//! rule, with why it stays, and a listed one that no longer differs fails.

use super::tables::request;
use super::*;

/// (kind, path with `*` for any one step, why it stays).
const DIFFERENCES: &[(&str, &str, &str)] = &[(
    "*",
    "/metadata/managedFields/*",
    "field ownership: the simulator's controllers write without a field manager (the control plane's kube-controller-manager entries are missing), and entries carry their times; ownership of clients' writes is compared by the apply rows of the request table",
)];

/// The pod template both servers get.
fn template() -> Value {
    json!({
        "metadata": {"labels": {"app": "api"},
                     "annotations": {"team": "payments", "prometheus.io/port": "8080"}},
        "spec": {
            "initContainers": [{"name": "init", "image": "busybox:1.36", "command": ["true"]}],
            "containers": [
                {"name": "api", "image": "example.com/api:1.4",
                 "env": [{"name": "MODE", "value": "live"},
                         {"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
                 "ports": [{"name": "http", "containerPort": 8080}],
                 "resources": {"requests": {"cpu": "100m", "memory": "64Mi"},
                               "limits": {"memory": "128Mi"}},
                 "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}},
                 "livenessProbe": {"tcpSocket": {"port": 8080}, "initialDelaySeconds": 5},
                 "volumeMounts": [{"name": "conf", "mountPath": "/etc/api"},
                                  {"name": "scratch", "mountPath": "/tmp"}]},
                {"name": "side", "image": "example.com/side",
                 "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}
            ],
            "volumes": [{"name": "conf", "configMap": {"name": "api-conf"}},
                        {"name": "scratch", "emptyDir": {}},
                        {"name": "sec", "secret": {"secretName": "s"}}],
            "terminationGracePeriodSeconds": 5,
        },
    })
}

fn deployment() -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "api", "annotations": {"owner": "payments"}},
           "spec": {"replicas": 2, "minReadySeconds": 3,
                    "selector": {"matchLabels": {"app": "api"}},
                    "template": template()}})
}

/// Every leaf of `v` by its path (an empty map or list is a leaf).
fn leaves(v: &Value, at: &str, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, x) in m {
                leaves(x, &format!("{at}/{k}"), out);
            }
        }
        Value::Array(a) if !a.is_empty() => {
            for (i, x) in a.iter().enumerate() {
                leaves(x, &format!("{at}/{i}"), out);
            }
        }
        _ => out.push((at.to_string(), v.clone())),
    }
}

/// `pattern`'s steps match `path`'s: `*` any one step, `*Time` one
/// ending so.
fn matches(pattern: &str, path: &str) -> bool {
    let (p, q): (Vec<&str>, Vec<&str>) = (pattern.split('/').collect(), path.split('/').collect());
    p.len() <= q.len()
        && (p.len() == q.len() || p.last() == Some(&"*"))
        && p.iter().zip(&q).all(|(a, b)| {
            *a == "*" || a == b || a.strip_prefix('*').is_some_and(|end| b.ends_with(end))
        })
}

/// `v` with what differs by nature in words: the hash and a pod's
/// suffix in every string, uids, resource versions; a time as `TIME`,
/// with `.ms` when it has a fraction of a second.
fn in_words(v: &Value, hash: &str, pod: &str) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| {
                    let x = match k.as_str() {
                        "uid" | "resourceVersion" => json!("ID"),
                        _ => in_words(x, hash, pod),
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| in_words(x, hash, pod)).collect()),
        Value::String(s) => {
            if s.parse::<jiff::Timestamp>().is_ok() {
                let fraction = s.contains('.');
                return json!(if fraction { "TIME.ms" } else { "TIME" });
            }
            let mut s = s.clone();
            if !pod.is_empty() {
                s = s.replace(pod, "api-HASH-XXXXX");
            }
            if !hash.is_empty() {
                s = s.replace(hash, "HASH");
            }
            json!(s)
        }
        _ => v.clone(),
    }
}

/// What one server made: the create's answer, the Deployment, its
/// ReplicaSet and its first pod, once there are two.
async fn made(env: &Env, ns: &str) -> Vec<(String, Value)> {
    let apps = format!("/apis/apps/v1/namespaces/{ns}");
    let (code, created) = request(
        env,
        "POST",
        &format!("{apps}/deployments"),
        JSON,
        Some(&deployment()),
    )
    .await;
    assert_eq!(code, 201, "the Deployment: {created}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90);
    let pods = loop {
        let (_, list) = request(
            env,
            "GET",
            &format!("/api/v1/namespaces/{ns}/pods?labelSelector=app%3Dapi"),
            JSON,
            None,
        )
        .await;
        let items = list["items"].as_array().cloned().unwrap_or_default();
        if items.len() == 2 {
            break items;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no two pods within 90 s on {:?}: {list}",
            env.target
        );
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    };
    // A moment for the controllers' status writes, as a reader would see
    // them settled.
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    let (_, d) = request(env, "GET", &format!("{apps}/deployments/api"), JSON, None).await;
    // Each read by its name: a list's items lack `kind` and `apiVersion`
    // on the control plane.
    let (_, sets) = request(env, "GET", &format!("{apps}/replicasets"), JSON, None).await;
    let rs_name = sets["items"][0]["metadata"]["name"]
        .as_str()
        .unwrap_or_default();
    let (_, rs) = request(
        env,
        "GET",
        &format!("{apps}/replicasets/{rs_name}"),
        JSON,
        None,
    )
    .await;
    let hash = rs["metadata"]["labels"]["pod-template-hash"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let pod_name = pods
        .iter()
        .filter_map(|p| p["metadata"]["name"].as_str())
        .min()
        .unwrap_or_default()
        .to_string();
    let (_, pod) = request(
        env,
        "GET",
        &format!("/api/v1/namespaces/{ns}/pods/{pod_name}"),
        JSON,
        None,
    )
    .await;
    let pod = in_words(&pod, &hash, &pod_name);
    vec![
        ("Deployment (create)".into(), in_words(&created, &hash, "")),
        ("Deployment".into(), in_words(&d, &hash, "")),
        ("ReplicaSet".into(), in_words(&rs, &hash, "")),
        ("Pod".into(), pod),
    ]
}

#[test]
fn a_deployments_replicaset_and_pods_are_made_as_the_control_plane_makes_them() {
    let _g = live_support::shared();
    let real = env_of(Target::Cluster);
    let served = env_of(Target::Serve);
    let ns = unique_namespace("serve-tmpl");
    let (a, b) = live_support::rt().block_on(async {
        let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}});
        for env in [real, served] {
            let (code, _) =
                request(env, "POST", "/api/v1/namespaces", JSON, Some(&namespace)).await;
            assert_eq!(code, 201, "the test's namespace");
        }
        let a = made(real, &ns).await;
        let b = made(served, &ns).await;
        for env in [real, served] {
            request(
                env,
                "DELETE",
                &format!("/api/v1/namespaces/{ns}"),
                JSON,
                None,
            )
            .await;
        }
        (a, b)
    });
    let mut unexplained = Vec::new();
    let mut used = vec![false; DIFFERENCES.len()];
    for ((kind, x), (_, y)) in a.iter().zip(&b) {
        let (mut lx, mut ly) = (Vec::new(), Vec::new());
        leaves(x, "", &mut lx);
        leaves(y, "", &mut ly);
        let get =
            |l: &[(String, Value)], p: &str| l.iter().find(|(q, _)| q == p).map(|(_, v)| v.clone());
        let mut paths: Vec<&String> = lx.iter().chain(&ly).map(|(p, _)| p).collect();
        paths.sort();
        paths.dedup();
        for p in paths {
            let (u, v) = (get(&lx, p), get(&ly, p));
            if u == v {
                continue;
            }
            let base = kind.split(' ').next().unwrap_or_default();
            match DIFFERENCES
                .iter()
                .position(|(k, pat, _)| (*k == "*" || *k == base) && matches(pat, p))
            {
                Some(i) => used[i] = true,
                None => unexplained.push(format!(
                    "{kind} {p}: control plane {}, serve {}",
                    u.map_or("(none)".into(), |v| v.to_string()),
                    v.map_or("(none)".into(), |v| v.to_string())
                )),
            }
        }
    }
    assert!(
        unexplained.is_empty(),
        "fields that differ, not listed in DIFFERENCES:\n{}",
        unexplained.join("\n")
    );
    let gone: Vec<&str> = DIFFERENCES
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|((k, p, _), _)| if *k == "*" { *p } else { *k })
        .collect();
    assert!(
        gone.is_empty(),
        "listed in DIFFERENCES but alike now (take them out): {gone:?}"
    );
}
