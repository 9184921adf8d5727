//! The `managedFields` kubectl writes, on the real control plane
//! (Kubernetes 1.20.2, `.ci/test-cluster.sh`) and on `serve`, compared
//! field set by field set: a Pod, a Deployment and a Service, each
//! created by `kubectl create -f`, by `kubectl apply` (client-side: an
//! `Update` by `kubectl-client-side-apply`) and by `kubectl apply
//! --server-side` (an `Apply` by `kubectl`); the Pods the controller
//! manager makes for the Deployments, a Job and a StatefulSet.
//!
//! What 1.20 writes, and serve with it: an update owns the defaults set
//! as its object is decoded (a Pod's `dnsPolicy`, a container's
//! `imagePullPolicy`, a Deployment's `strategy`, a Service's `type`), an
//! apply does not; a controller's pod owns its `generateName` (a
//! StatefulSet's pod too, `<set>-`), a StatefulSet pod its `hostname` and
//! `subdomain`; a Service port applied without its `protocol` is refused.
//!
//! Differences that stay, by rule:
//! - a workload's own `kube-controller-manager` entry (its status, a
//!   Deployment's revision annotation) is not compared: serve computes
//!   those as it sends the object, no write of the controller made them;
//! - a Job's pods carry the finalizer `batch.kubernetes.io/job-tracking`,
//!   as the Job controller of 1.26 and later (which serve follows) adds
//!   it; 1.20's have none, so their `f:finalizers` is not compared;
//! - 1.20 against later versions: from 1.22 a status write is an entry of
//!   its own (`subresource: status`); later schemas default a Service
//!   port's `protocol`, so the apply without it is taken there.

use std::collections::BTreeMap;
use std::path::Path;

use super::*;

/// The manifests of one way of writing (`mode`): a Pod with a port, a
/// Deployment, a Service.
fn manifests(mode: &str) -> String {
    format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[
{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p-{mode}","labels":{{"app":"p"}}}},
  "spec":{{"containers":[{{"name":"c","image":"busybox:1.36","ports":[{{"containerPort":80}}]}}]}}}},
{{"apiVersion":"apps/v1","kind":"Deployment","metadata":{{"name":"d-{mode}"}},
  "spec":{{"replicas":1,"selector":{{"matchLabels":{{"app":"d-{mode}"}}}},
   "template":{{"metadata":{{"labels":{{"app":"d-{mode}"}}}},
    "spec":{{"containers":[{{"name":"c","image":"nginx"}}]}}}}}}}},
{{"apiVersion":"v1","kind":"Service","metadata":{{"name":"s-{mode}"}},
  "spec":{{"selector":{{"app":"p"}},"ports":[{{"port":80,"protocol":"TCP"}}]}}}}]}}"#
    )
}

const WORKLOADS: &str = r#"{"apiVersion":"v1","kind":"List","items":[
{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
 "spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"j","image":"busybox:1.36"}]}}}},
{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"st"},
 "spec":{"serviceName":"st","replicas":1,"selector":{"matchLabels":{"app":"st"}},
  "template":{"metadata":{"labels":{"app":"st"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}]}"#;

/// Each manager's entry of `o`: (operation, apiVersion, fieldsV1), uids
/// taken out; a workload's own controller-manager entry left out (see
/// the module's rules).
fn entries(o: &Value) -> BTreeMap<String, String> {
    let workload = o["kind"] != "Pod" && o["kind"] != "Service";
    let of_job = o["metadata"]["ownerReferences"][0]["kind"] == "Job";
    let mut out = BTreeMap::new();
    for e in o["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let manager = e["manager"].as_str().unwrap_or_default();
        if workload && manager == "kube-controller-manager" {
            continue;
        }
        let mut fields = e["fieldsV1"].clone();
        if of_job && let Some(meta) = fields["f:metadata"].as_object_mut() {
            meta.shift_remove("f:finalizers");
        }
        let mut text = format!("{} {} {fields}", e["operation"], e["apiVersion"]);
        if let Some(uid) = o["metadata"]["ownerReferences"][0]["uid"].as_str() {
            text = text.replace(uid, "UID");
        }
        out.insert(manager.to_string(), text);
    }
    out
}

fn get(kc: &Path, ns: &str, what: &[&str]) -> Value {
    let mut args = vec!["get", "-n", ns, "-o", "json", "--show-managed-fields"];
    args.extend(what);
    let (ok, out, err) = kubectl_at(kc, &args, None);
    assert!(ok, "kubectl get {what:?}: {err}");
    serde_json::from_str(&out).expect("json")
}

/// The one pod labelled `selector`, once its controller has made it.
fn pod_of(kc: &Path, ns: &str, selector: &str) -> Value {
    let t = Instant::now();
    loop {
        let list = get(kc, ns, &["pods", "-l", selector]);
        if let Some(p) = list["items"].get(0) {
            return p.clone();
        }
        assert!(t.elapsed() < LONG, "no pod {selector} in {kc:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A controller's pod's `generateName`, its pod-template hash taken out.
fn generate_name(p: &Value) -> String {
    let g = p["metadata"]["generateName"].as_str().unwrap_or("(none)");
    match p["metadata"]["labels"]["pod-template-hash"].as_str() {
        Some(h) => g.replace(h, "HASH"),
        None => g.to_string(),
    }
}

/// The test's namespace on the control plane, deleted when the test
/// ends, passed or failed.
struct Namespace<'a>(&'a Path, &'a str);

impl Drop for Namespace<'_> {
    fn drop(&mut self) {
        let _ = kubectl_at(self.0, &["delete", "ns", self.1, "--wait=false"], None);
    }
}

#[test]
fn managed_fields_are_the_real_control_planes_field_set_by_field_set() {
    let _g = live_support::shared();
    let real = live_support::env().admin.clone();
    let s = Server::start("deployment", &[]);
    let ns = unique_name("serve-mf");
    // One step on both; the outputs must read the same. Validation is not
    // what is compared here (kubectl validates a List on the client
    // against `/openapi/v2` in protobuf, which serve does not encode).
    let both = |args: &[&str], stdin: Option<&str>| {
        let mut a: Vec<&str> = vec!["-n", &ns];
        a.extend(args);
        a.push("--validate=false");
        let (r, v) = std::thread::scope(|t| {
            let r = t.spawn(|| kubectl_at(&real, &a, stdin));
            (
                r.join().expect("kubectl"),
                kubectl_at(&s.kubeconfig, &a, stdin),
            )
        });
        // stderr is not compared: the shared control plane may warn of an
        // aggregated API another test left unavailable.
        assert_eq!(
            (r.0, &r.1),
            (v.0, &v.1),
            "kubectl {args:?}: the real control plane (left) and serve (right)\n{}\n{}",
            r.2,
            v.2
        );
        v
    };
    for kc in [real.as_path(), s.kubeconfig.as_path()] {
        let (ok, _, err) = kubectl_at(kc, &["create", "ns", &ns], None);
        assert!(ok, "{err}");
    }
    let _cleanup = Namespace(&real, &ns);
    both(&["create", "-f", "-"], Some(&manifests("create")));
    both(&["apply", "-f", "-"], Some(&manifests("csa")));
    both(
        &["apply", "--server-side", "-f", "-"],
        Some(&manifests("ssa")),
    );
    both(&["create", "-f", "-"], Some(WORKLOADS));
    // 1.20's schema has no default for a Service port's protocol.
    let keyless = manifests("nokey").replace(r#","protocol":"TCP""#, "");
    let (ok, _, err) = both(&["apply", "--server-side", "-f", "-"], Some(&keyless));
    assert!(!ok && err.contains("omits key field \"protocol\""), "{err}");
    let mut objects: Vec<(String, Value, Value)> = Vec::new();
    for mode in ["create", "csa", "ssa"] {
        for what in [
            format!("pod/p-{mode}"),
            format!("deployment/d-{mode}"),
            format!("service/s-{mode}"),
        ] {
            let r = get(&real, &ns, &[&what]);
            let v = get(&s.kubeconfig, &ns, &[&what]);
            objects.push((what, r, v));
        }
        let selector = format!("app=d-{mode}");
        let (r, v) = (
            pod_of(&real, &ns, &selector),
            pod_of(&s.kubeconfig, &ns, &selector),
        );
        objects.push((format!("pod of d-{mode}"), r, v));
    }
    for (name, selector) in [("j", "job-name=j"), ("st", "app=st")] {
        let (r, v) = (
            pod_of(&real, &ns, selector),
            pod_of(&s.kubeconfig, &ns, selector),
        );
        objects.push((format!("pod of {name}"), r, v));
    }
    for (what, r, v) in &objects {
        assert_eq!(
            entries(r),
            entries(v),
            "{what}: managedFields of the real control plane (left) and serve (right)"
        );
        assert_eq!(generate_name(r), generate_name(v), "{what}");
    }
    assert_eq!(generate_name(&objects[3].1), "d-create-HASH-");
    assert_eq!(generate_name(&objects[objects.len() - 1].1), "st-");
}
