//! A CRD serving several versions, through kubectl against the real
//! control plane and against serve: discovery, get, create, apply
//! (client- and server-side), patch, the status and scale subresources and
//! watches in each served version, a version not served, and owner
//! references through each version.

use super::*;

/// What stays different between serve and the 1.20 control plane here,
/// by rule: (what, why).
const DIFFERENCES: &[(&str, &str)] = &[
    (
        "a version not served",
        "kube-apiserver answers a path under a version its CRD does not serve (`/apis/G/v2`) as any path it does not serve, a text/plain `404 page not found`; serve's 404 is a Status that says what it serves. kubectl reads both as NotFound; it prints serve's with the path",
    ),
    (
        "managedFields' `.`",
        "1.20 writes the `.` of a struct the writer created (`f:spec: {.: {}, f:replicas: {}}`); serve's field sets leave it out (`src/serve/managed.rs`: not modelled). Managers, operations and apiVersions agree, and are compared",
    ),
];

/// What 1.20 does otherwise than later versions in what is compared, by
/// rule. Serve answers as 1.20 unless said.
const LATER: &[&str] = &[
    "aggregated discovery (1.26 and later; 1.20 has none) lists each served version of the group, preferred first, each resource with its `responseKind` in that version; serve serves it so, and kubectl 1.32 reads it from serve and `/apis`, `/apis/G/V` from 1.20, which this test compares",
    "a `managedFields` entry of a write to `status` or `scale` names its subresource from 1.22 (`subresource: status`); 1.20 folds it into the manager's entry, as serve does",
    "a write of a custom resource's scale is recorded in `managedFields` from 1.21; 1.20 records none, nor does serve",
];

fn crd(group: &str) -> String {
    let versions: Vec<String> = [("v1alpha1", true, false), ("v1", true, true), ("v2", false, false)]
        .iter()
        .map(|(name, served, storage)| {
            format!(
                "{{\"name\":\"{name}\",\"served\":{served},\"storage\":{storage},\
                 \"schema\":{{\"openAPIV3Schema\":{{\"type\":\"object\",\"properties\":{{\
                 \"spec\":{{\"type\":\"object\",\"properties\":{{\"size\":{{\"type\":\"string\"}},\"replicas\":{{\"type\":\"integer\"}}}}}},\
                 \"status\":{{\"type\":\"object\",\"properties\":{{\"phase\":{{\"type\":\"string\"}},\"replicas\":{{\"type\":\"integer\"}}}}}}}}}}}},\
                 \"subresources\":{{\"status\":{{}},\"scale\":{{\"specReplicasPath\":\".spec.replicas\",\"statusReplicasPath\":\".status.replicas\"}}}}}}"
            )
        })
        .collect();
    format!(
        "{{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\",\
         \"metadata\":{{\"name\":\"gizmos.{group}\"}},\"spec\":{{\"group\":\"{group}\",\"scope\":\"Namespaced\",\
         \"names\":{{\"plural\":\"gizmos\",\"singular\":\"gizmo\",\"kind\":\"Gizmo\",\"shortNames\":[\"gz\"]}},\
         \"versions\":[{}]}}}}",
        versions.join(",")
    )
}

/// Takes the test's CRD and namespace off the control plane, however the
/// test ends.
struct Cleanup<'a> {
    real: &'a std::path::Path,
    group: String,
    ns: String,
}

impl Drop for Cleanup<'_> {
    fn drop(&mut self) {
        let _ = kubectl_at(self.real, &["delete", "ns", &self.ns, "--wait=false"], None);
        let crd = format!("gizmos.{}", self.group);
        let _ = kubectl_at(self.real, &["delete", "crd", &crd, "--wait=false"], None);
    }
}

/// The rule of a difference listed in [`DIFFERENCES`].
fn rule(what: &str) -> &'static str {
    rule_in(DIFFERENCES, what)
}

/// The strings at `field` of each element of the list `v`.
fn strings<'a>(v: &'a Value, field: &str) -> Vec<&'a str> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e[field].as_str())
        .collect()
}

/// (type, apiVersion, name) of each event of a watch's body.
fn events(body: &str) -> Vec<(String, String, String)> {
    serde_json::Deserializer::from_str(body)
        .into_iter::<Value>()
        .map(|e| {
            let e = e.expect("a watch event is JSON");
            let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
            (
                s(&e["type"]),
                s(&e["object"]["apiVersion"]),
                s(&e["object"]["metadata"]["name"]),
            )
        })
        .collect()
}

/// A CRD serving `v1alpha1` and `v1` (`v1` stored) and not `v2`, the same
/// kubectl session against the 1.20 control plane and against serve: every
/// answer reads the same but for [`DIFFERENCES`].
#[test]
fn kubectl_uses_each_served_version_of_a_crd_as_on_the_control_plane() {
    let _g = live_support::shared();
    let real = live_support::env().admin.clone();
    let s = Server::start("deployment", &[]);
    let n = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() % 1_000_000)
        .unwrap_or(0);
    let group = format!("cv{n}.example.com");
    let ns = format!("crdver-{n}");
    let _cleanup = Cleanup {
        real: &real,
        group: group.clone(),
        ns: ns.clone(),
    };
    let both = |args: &[&str], stdin: Option<&str>| {
        on_both(&real, &s.kubeconfig, |kc| kubectl_at(kc, args, stdin))
    };
    let same_in = |args: &[&str], stdin: Option<&str>| -> String {
        let (r, v) = both(args, stdin);
        assert_eq!(
            r, v,
            "kubectl {args:?}: the real control plane (left) and serve (right) differ"
        );
        assert!(r.0, "kubectl {args:?} failed: {}", r.2);
        r.1
    };
    let same = |args: &[&str]| same_in(args, None);
    let at = |version: &str| format!("gizmos.{version}.{group}");
    let (alpha, v1) = (at("v1alpha1"), at("v1"));

    same(&["create", "ns", &ns]);
    assert_eq!(
        same_in(&["create", "-f", "-"], Some(&crd(&group))),
        format!("customresourcedefinition.apiextensions.k8s.io/gizmos.{group} created\n")
    );
    let served = format!("/apis/{group}/v1alpha1");
    for kc in [&real, &s.kubeconfig] {
        wait_kubectl(kc, &["get", "--raw", &served], true, "the CRD served");
    }

    // Discovery: both versions, v1 preferred (priority order), the
    // resources of each with the storage version's hash.
    // The same document, read as JSON (kube-apiserver ends its body with
    // a newline, serve does not).
    let json = |args: &[&str]| -> Value {
        let (r, v) = both(args, None);
        assert!(r.0 && v.0, "kubectl {args:?}: {r:?} {v:?}");
        let (r, v): (Value, Value) = (
            serde_json::from_str(&r.1).expect("JSON"),
            serde_json::from_str(&v.1).expect("JSON"),
        );
        assert_eq!(
            r, v,
            "kubectl {args:?}: the real control plane (left) and serve (right) differ"
        );
        r
    };
    let doc = json(&["get", "--raw", &format!("/apis/{group}")]);
    assert_eq!(doc["preferredVersion"]["version"], "v1");
    assert_eq!(
        strings(&doc["versions"], "version"),
        ["v1", "v1alpha1"],
        "{}",
        LATER[0]
    );
    for v in ["v1alpha1", "v1"] {
        let list = json(&["get", "--raw", &format!("/apis/{group}/{v}")]);
        assert_eq!(
            strings(&list["resources"], "name"),
            ["gizmos", "gizmos/status", "gizmos/scale"],
            "{v}"
        );
    }
    let entry = |kc: &std::path::Path| -> Value {
        let (_, out, _) = kubectl_at(kc, &["get", "--raw", "/apis"], None);
        let apis: Value = serde_json::from_str(&out).expect("/apis");
        apis["groups"]
            .as_array()
            .expect("groups")
            .iter()
            .find(|g| g["name"] == group.as_str())
            .cloned()
            .expect("the group in /apis")
    };
    assert_eq!(entry(&real), entry(&s.kubeconfig));
    // kubectl's resource list: the kind in its preferred version.
    let resources = same(&["api-resources", &format!("--api-group={group}")]);
    let row: Vec<&str> = resources
        .lines()
        .nth(1)
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert_eq!(
        row,
        ["gizmos", "gz", &format!("{group}/v1"), "true", "Gizmo"]
    );
    // v2 is not served (DIFFERENCES: "a version not served").
    let (r, v) = both(&["get", "--raw", &format!("/apis/{group}/v2")], None);
    assert!(!r.0 && !v.0, "{r:?} {v:?}");
    for err in [&r.2, &v.2] {
        assert!(
            err.starts_with(
                "Error from server (NotFound): the server could not find the requested resource"
            ),
            "{err} ({})",
            rule("a version not served")
        );
    }
    let err = "error: the server doesn't have a resource type \"gizmos\"\n";
    let (r, v) = both(&["get", &at("v2"), "-n", &ns], None);
    assert_eq!(r, v);
    assert_eq!(r.2, err);

    // Create in v1alpha1; read in each version: only apiVersion differs.
    let gizmo = |version: &str, name: &str, size: &str| {
        format!(
            "{{\"apiVersion\":\"{group}/{version}\",\"kind\":\"Gizmo\",\"metadata\":{{\"name\":\"{name}\",\"namespace\":\"{ns}\"}},\"spec\":{{\"size\":\"{size}\",\"replicas\":1}}}}"
        )
    };
    assert_eq!(
        same_in(
            &["create", "-f", "-"],
            Some(&gizmo("v1alpha1", "a", "small"))
        ),
        format!("gizmo.{group}/a created\n")
    );
    let shown = "jsonpath={.apiVersion} {.spec} {.status} {.metadata.generation}";
    assert_eq!(
        same(&["get", &alpha, "a", "-n", &ns, "-o", shown]),
        format!("{group}/v1alpha1 {{\"replicas\":1,\"size\":\"small\"}}  1")
    );
    assert_eq!(
        same(&["get", &v1, "a", "-n", &ns, "-o", shown]),
        format!("{group}/v1 {{\"replicas\":1,\"size\":\"small\"}}  1")
    );
    assert_eq!(
        same(&[
            "get",
            "gz",
            "-n",
            &ns,
            "-o",
            "jsonpath={.apiVersion} {.items[*].apiVersion}"
        ]),
        format!("v1 {group}/v1")
    );
    // Patch, status and scale through v1alpha1.
    let patch = |more: &[&str], patch: &str| {
        let mut args = vec!["patch", &alpha, "a", "-n", &ns, "--type", "merge"];
        args.extend(more);
        args.extend(["-p", patch, "-o", shown]);
        same(&args)
    };
    patch(&[], r#"{"spec":{"size":"big"}}"#);
    patch(
        &["--subresource", "status"],
        r#"{"status":{"phase":"Ready","replicas":1}}"#,
    );
    assert_eq!(
        same(&["scale", &alpha, "a", "-n", &ns, "--replicas=3"]),
        format!("gizmo.{group}/a scaled\n")
    );
    assert_eq!(
        same(&["get", &v1, "a", "-n", &ns, "-o", shown]),
        format!(
            "{group}/v1 {{\"replicas\":3,\"size\":\"big\"}} {{\"phase\":\"Ready\",\"replicas\":1}} 3"
        )
    );
    // Each writer's entry names the version it wrote in (DIFFERENCES:
    // "managedFields' `.`": the sets are not compared).
    let managers =
        "jsonpath={range .metadata.managedFields[*]}{.manager}/{.apiVersion}/{.operation} {end}";
    assert_eq!(
        same(&[
            "get",
            &v1,
            "a",
            "-n",
            &ns,
            "--show-managed-fields",
            "-o",
            managers
        ]),
        format!("kubectl-create/{group}/v1alpha1/Update kubectl-patch/{group}/v1alpha1/Update "),
        "{} {} {}",
        rule("managedFields' `.`"),
        LATER[1],
        LATER[2]
    );

    // kubectl apply, client-side then server-side, in v1alpha1.
    let applied = |size: &str| {
        format!(
            "{{\"apiVersion\":\"{group}/v1alpha1\",\"kind\":\"Gizmo\",\"metadata\":{{\"name\":\"b\",\"namespace\":\"{ns}\",\"labels\":{{\"x\":\"1\"}}}},\"spec\":{{\"size\":\"{size}\",\"replicas\":2}}}}"
        )
    };
    for (size, said) in [
        ("small", "created"),
        ("small", "unchanged"),
        ("large", "configured"),
    ] {
        assert_eq!(
            same_in(&["apply", "-f", "-"], Some(&applied(size))),
            format!("gizmo.{group}/b {said}\n")
        );
    }
    assert_eq!(
        same(&["get", &v1, "b", "-n", &ns, "-o", shown]),
        format!("{group}/v1 {{\"replicas\":2,\"size\":\"large\"}}  2")
    );
    for size in ["tiny", "huge"] {
        assert_eq!(
            same_in(
                &["apply", "--server-side", "-f", "-"],
                Some(&gizmo("v1alpha1", "c", size))
            ),
            format!("gizmo.{group}/c serverside-applied\n")
        );
    }
    assert_eq!(
        same(&[
            "get",
            &alpha,
            "c",
            "-n",
            &ns,
            "--show-managed-fields",
            "-o",
            managers
        ]),
        format!("kubectl/{group}/v1alpha1/Apply ")
    );
    assert_eq!(
        same(&["get", &alpha, "-n", &ns, "-o", "name"]),
        format!("gizmo.{group}/a\ngizmo.{group}/b\ngizmo.{group}/c\n")
    );

    // A watch in each version: every object in the watch's version.
    for v in ["v1alpha1", "v1"] {
        let path = format!("/apis/{group}/{v}/namespaces/{ns}/gizmos?watch=true&timeoutSeconds=1");
        let (r, o) = both(&["get", "--raw", &path], None);
        // The initial events of a watch from no resource version come in
        // no set order (kube-apiserver's watch cache): compared as sets.
        let (mut r, mut o) = (events(&r.1), events(&o.1));
        r.sort();
        o.sort();
        assert_eq!(r, o, "{v}: the real control plane (left) and serve (right)");
        let want: Vec<(String, String, String)> = ["a", "b", "c"]
            .iter()
            .map(|n| ("ADDED".into(), format!("{group}/{v}"), (*n).to_string()))
            .collect();
        assert_eq!(r, want);
    }

    // Owner references through v1alpha1 and v2 to an owner made in v1,
    // each side with its own owner's uid. The garbage collector matches
    // the owner by uid: the dependent through v1alpha1 goes with it; the
    // one through v2, a version it cannot map, stays.
    let dependents = |kc: &std::path::Path| {
        let (ok, uid, err) = kubectl_at(
            kc,
            &["create", "-f", "-", "-o", "jsonpath={.metadata.uid}"],
            Some(&gizmo("v1", "o", "owner")),
        );
        assert!(ok, "{err}");
        ["v1alpha1", "v2"].map(|v| {
            let cm = format!(
                "{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"dep-{v}\",\"namespace\":\"{ns}\",\"labels\":{{\"dep\":\"1\"}},\"ownerReferences\":[{{\"apiVersion\":\"{group}/{v}\",\"kind\":\"Gizmo\",\"name\":\"o\",\"uid\":\"{uid}\"}}]}}}}"
            );
            kubectl_at(kc, &["create", "-f", "-"], Some(&cm))
        })
    };
    let (r, v) = on_both(&real, &s.kubeconfig, dependents);
    assert_eq!(r, v);
    assert_eq!(
        same(&["delete", &alpha, "o", "-n", &ns, "--wait=false"]),
        format!("gizmo.{group} \"o\" deleted\n")
    );
    for kc in [&real, &s.kubeconfig] {
        let args = ["get", "cm", "dep-v1alpha1", "-n", &ns];
        wait_kubectl(kc, &args, false, "dep-v1alpha1 collected");
    }
    assert_eq!(
        same(&["get", "cm", "-n", &ns, "-l", "dep", "-o", "name"]),
        "configmap/dep-v2\n"
    );

    // The definition changed: v2 served, v1alpha1 no longer. Each server
    // serves what it says now: discovery, and the objects in v2.
    let patch = r#"[{"op":"replace","path":"/spec/versions/2/served","value":true},{"op":"replace","path":"/spec/versions/0/served","value":false}]"#;
    assert_eq!(
        same(&[
            "patch",
            "crd",
            &format!("gizmos.{group}"),
            "--type=json",
            "-p",
            patch
        ]),
        format!("customresourcedefinition.apiextensions.k8s.io/gizmos.{group} patched\n")
    );
    let v2 = format!("/apis/{group}/v2");
    for kc in [&real, &s.kubeconfig] {
        wait_kubectl(kc, &["get", "--raw", &v2], true, "v2 served");
        wait_kubectl(kc, &["get", "--raw", &served], false, "v1alpha1 not served");
    }
    let doc = json(&["get", "--raw", &format!("/apis/{group}")]);
    assert_eq!(doc["preferredVersion"]["version"], "v2");
    assert_eq!(strings(&doc["versions"], "version"), ["v2", "v1"]);
    let list = json(&["get", "--raw", &v2]);
    assert_eq!(
        strings(&list["resources"], "name"),
        ["gizmos", "gizmos/status", "gizmos/scale"]
    );
    let in_v2 = |kc: &std::path::Path| -> Vec<(String, String)> {
        let path = format!("{v2}/namespaces/{ns}/gizmos");
        let (ok, out, err) = kubectl_at(kc, &["get", "--raw", &path], None);
        assert!(ok, "{err}");
        let list: Value = serde_json::from_str(&out).expect("a list");
        list["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|g| {
                let field = |f: &Value| f.as_str().unwrap_or_default().to_string();
                (field(&g["apiVersion"]), field(&g["metadata"]["name"]))
            })
            .collect()
    };
    let (r, v) = on_both(&real, &s.kubeconfig, in_v2);
    assert_eq!(r, v);
    assert!(
        !r.is_empty() && r.iter().all(|(a, _)| *a == format!("{group}/v2")),
        "{r:?}"
    );
}
