//! One kubectl session against the real control plane and against serve.

use super::*;

/// The same kubectl session against the real control plane (Kubernetes
/// 1.20.2, `.ci/test-cluster.sh`) and against `serve`: every answer that
/// does not depend on timing or uids must read the same. Lists select the
/// test's own objects (`-l cmp`): the real control plane also publishes
/// `kube-root-ca.crt` into every namespace, a controller the simulator
/// does not have.
#[test]
fn kubectl_reads_the_same_from_serve_as_from_a_real_control_plane() {
    let _g = live_support::shared();
    let real = live_support::env().admin.clone();
    let s = Server::start("deployment", &[]);
    let ns = unique_name("serve-cmp");
    let validate = validate_flag();
    // One step, run on both; `fix` takes out what may differ (none here
    // unless said).
    let both =
        |args: &[&str], stdin: Option<&str>| -> ((bool, String, String), (bool, String, String)) {
            let mut a: Vec<&str> = args.to_vec();
            if args.first() == Some(&"create") {
                a.extend(validate.iter());
            }
            // Both at once: the comparison costs one kubectl's time a step.
            std::thread::scope(|t| {
                let r = t.spawn(|| kubectl_at(&real, &a, stdin));
                let v = kubectl_at(&s.kubeconfig, &a, stdin);
                (r.join().expect("kubectl against the real control plane"), v)
            })
        };
    let same_in = |args: &[&str], stdin: Option<&str>| -> String {
        let (r, v) = both(args, stdin);
        assert_eq!(
            r, v,
            "kubectl {args:?}: the real control plane (left) and serve (right) differ"
        );
        r.1
    };
    let same = |args: &[&str]| same_in(args, None);
    let ns_json = format!(
        "{{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{{\"name\":\"{ns}\"}}}}"
    );
    assert_eq!(
        same_in(&["create", "-f", "-"], Some(&ns_json)),
        format!("namespace/{ns} created\n")
    );
    // `ev` is core and `events.k8s.io` Events' short name on both: kubectl
    // takes the core one and warns of the other.
    let (r, v) = both(&["get", "ev", "-n", &ns], None);
    assert_eq!(r, v, "kubectl get ev");
    assert!(
        v.2.contains(
            "short name \"ev\" could also match lower priority resource events.events.k8s.io"
        ),
        "{}",
        v.2
    );
    let owner = format!(
        "{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"owner\",\"namespace\":\"{ns}\",\"labels\":{{\"cmp\":\"1\"}}}}}}"
    );
    same_in(&["create", "-f", "-"], Some(&owner));
    // Each side's owner uid in its dependents.
    let dependents = |kc: &std::path::Path| {
        let (_, uid, _) = kubectl_at(
            kc,
            &[
                "get",
                "cm",
                "owner",
                "-n",
                &ns,
                "-o",
                "jsonpath={.metadata.uid}",
            ],
            None,
        );
        let dep = |name: &str, fins: &str| {
            format!(
                "{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"{name}\",\"namespace\":\"{ns}\",\"labels\":{{\"cmp\":\"1\"}},\"finalizers\":[{fins}],\"ownerReferences\":[{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"owner\",\"uid\":\"{uid}\",\"blockOwnerDeletion\":true}}]}}}}"
            )
        };
        let mut args = vec!["create", "-f", "-"];
        args.extend(validate.iter());
        let a = kubectl_at(kc, &args, Some(&dep("held", "\"example.com/hold\"")));
        let b = kubectl_at(kc, &args, Some(&dep("plain", "")));
        (a, b)
    };
    let (r, v) = std::thread::scope(|t| {
        let r = t.spawn(|| dependents(&real));
        (
            r.join().expect("dependents on the real control plane"),
            dependents(&s.kubeconfig),
        )
    });
    assert_eq!(r, v);
    assert_eq!(
        same(&["get", "cm", "-n", &ns, "-l", "cmp", "-o", "name"]),
        "configmap/held\nconfigmap/owner\nconfigmap/plain\n"
    );
    same(&["get", "cm", "nope", "-n", &ns]);
    assert_eq!(
        same(&[
            "delete",
            "cm",
            "owner",
            "-n",
            &ns,
            "--cascade=foreground",
            "--wait=false"
        ]),
        "configmap \"owner\" deleted\n"
    );
    // The garbage collector deletes both dependents; the held one waits on
    // its finalizer, and the owner on it.
    let wait_plain_gone = |kc: &std::path::Path| {
        let t = Instant::now();
        while kubectl_at(kc, &["get", "cm", "plain", "-n", &ns], None).0 {
            assert!(t.elapsed() < LONG, "plain never collected");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    wait_plain_gone(&real);
    wait_plain_gone(&s.kubeconfig);
    let state = "jsonpath={range .items[*]}{.metadata.name}:{.metadata.finalizers}:{.metadata.deletionGracePeriodSeconds} {end}";
    assert_eq!(
        same(&["get", "cm", "-n", &ns, "-l", "cmp", "-o", state]),
        "held:[\"example.com/hold\"]:0 owner:[\"foregroundDeletion\"]:0 "
    );
    let (r, v) = both(
        &[
            "patch",
            "cm",
            "held",
            "-n",
            &ns,
            "--type",
            "merge",
            "-p",
            r#"{"metadata":{"finalizers":["example.com/hold","example.com/new"]}}"#,
        ],
        None,
    );
    assert_eq!(r, v, "a new finalizer on a terminating object");
    assert!(
        !r.0 && r.2.contains("Forbidden: no new finalizers"),
        "{r:?}"
    );
    let patch = r#"[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/hold"},{"op":"remove","path":"/metadata/finalizers/0"}]"#;
    assert_eq!(
        same(&[
            "patch", "cm", "held", "-n", &ns, "--type", "json", "-p", patch
        ]),
        "configmap/held patched\n"
    );
    let wait_gone = |kc: &std::path::Path| {
        let t = Instant::now();
        while kubectl_at(kc, &["get", "cm", "owner", "-n", &ns], None).0 {
            assert!(t.elapsed() < LONG, "owner never went");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    wait_gone(&real);
    wait_gone(&s.kubeconfig);
    same(&["get", "cm", "owner", "-n", &ns]);
    assert_eq!(
        same(&["get", "cm", "-n", &ns, "-l", "cmp", "-o", "name"]),
        ""
    );
    let _ = kubectl_at(&real, &["delete", "ns", &ns, "--wait=false"], None);
}

/// The subresources 1.20 lists that serve leaves out by rule
/// (`serve::discovery::subresources`): `kubectl drain` evicts when
/// `pods/eviction` is listed, deletes when it is not, and serve evaluates
/// no PodDisruptionBudget.
const LEFT_OUT: &[&str] = &["pods/eviction"];

/// The group versions serve serves that 1.20 does not, and the 1.20
/// version of the same kinds: their names, short names, categories and
/// subresources must read the same (their storage hashes differ by
/// version).
const LATER: &[(&str, &str)] = &[
    ("autoscaling/v2", "autoscaling/v2beta2"),
    ("policy/v1", "policy/v1beta1"),
    ("discovery.k8s.io/v1", "discovery.k8s.io/v1beta1"),
    ("batch/v1", "batch/v1beta1"),
];

fn raw(kubeconfig: &std::path::Path, gv: &str) -> Option<Value> {
    let path = if gv == "v1" {
        "/api/v1".to_string()
    } else {
        format!("/apis/{gv}")
    };
    let (ok, out, _) = kubectl_at(kubeconfig, &["get", "--raw", &path], None);
    ok.then(|| serde_json::from_str(&out).expect("discovery is JSON"))
}

/// Discovery of every group version serve serves against the real
/// control plane's: for each kind serve serves there, the entries 1.20
/// lists of it and its subresources, field for field (short names,
/// categories, verbs, kinds, groups and versions, namespaced) and in
/// 1.20's order.
#[test]
fn discovery_lists_kinds_and_subresources_as_the_real_control_plane() {
    let _g = live_support::shared();
    let real = live_support::env().admin.clone();
    let s = Server::start("deployment", &["--paused"]);
    let (_, apis, _) = kubectl_at(&s.kubeconfig, &["get", "--raw", "/apis"], None);
    let apis: Value = serde_json::from_str(&apis).expect("/apis");
    let mut gvs = vec!["v1".to_string()];
    for g in apis["groups"].as_array().expect("groups") {
        for v in g["versions"].as_array().expect("versions") {
            gvs.push(v["groupVersion"].as_str().expect("gv").to_string());
        }
    }
    // (serve's, the real one's, whether the storage hashes compare).
    let mut pairs: Vec<(&str, &str, bool)> = gvs
        .iter()
        .map(|gv| (gv.as_str(), gv.as_str(), true))
        .collect();
    pairs.extend(LATER.iter().map(|(ours, old)| (*ours, *old, false)));
    let mut compared = 0;
    for (gv, old, hashed) in pairs {
        let Some(theirs) = raw(&real, old) else {
            continue;
        };
        let ours = raw(&s.kubeconfig, gv).expect("serve lists what /apis names");
        let entries = |doc: &Value| -> Vec<Value> {
            doc["resources"]
                .as_array()
                .expect("resources")
                .iter()
                .map(|r| {
                    let mut r = r.clone();
                    if !hashed && let Some(m) = r.as_object_mut() {
                        m.remove("storageVersionHash");
                    }
                    r
                })
                .collect()
        };
        let base = |r: &Value| {
            let name = r["name"].as_str().expect("name");
            name.split('/').next().unwrap_or(name).to_string()
        };
        let (ours, theirs) = (entries(&ours), entries(&theirs));
        let both = |r: &Value| {
            ours.iter().any(|o| o["name"] == base(r).as_str())
                && theirs.iter().any(|t| t["name"] == base(r).as_str())
        };
        let ours: Vec<&Value> = ours.iter().filter(|r| both(r)).collect();
        let theirs: Vec<&Value> = theirs
            .iter()
            .filter(|r| both(r) && !LEFT_OUT.contains(&r["name"].as_str().unwrap_or("")))
            .collect();
        assert_eq!(
            ours, theirs,
            "{gv} against {old}: serve (left) and the real control plane (right) differ"
        );
        compared += ours.len();
    }
    assert!(compared >= 79, "compared {compared} entries");
    // The groups both serve, in the same order (1.20's group priorities,
    // which `kubectl api-resources` prints in), not by name.
    let (_, theirs, _) = kubectl_at(&real, &["get", "--raw", "/apis"], None);
    let theirs: Value = serde_json::from_str(&theirs).expect("/apis");
    let names = |doc: &Value| -> Vec<String> {
        doc["groups"]
            .as_array()
            .expect("groups")
            .iter()
            .filter_map(|g| g["name"].as_str().map(str::to_string))
            .collect()
    };
    let (ours, theirs) = (names(&apis), names(&theirs));
    let common = |a: &[String], b: &[String]| -> Vec<String> {
        a.iter().filter(|g| b.contains(g)).cloned().collect()
    };
    let in_both = common(&ours, &theirs);
    assert!(in_both.len() >= 10, "{ours:?} against {theirs:?}");
    assert_eq!(
        in_both,
        common(&theirs, &ours),
        "serve (left) lists its groups in another order than the real control plane (right)"
    );
}
