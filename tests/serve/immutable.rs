//! Updates kube-apiserver 1.20 refuses as changes of what may not change,
//! sent alike to the real control plane (Kubernetes 1.20.2,
//! `.ci/test-cluster.sh`) and to `serve`: code, reason and message must
//! read the same, diff of a pod spec included, for a PUT, each kind of
//! patch and a server-side apply.
//!
//! What may differ, by rule:
//! - go-cmp indents its diff with non-breaking spaces (U+00A0) in half of
//!   the processes it runs in, chosen at random as the API server starts,
//!   to discourage reading it; serve writes plain spaces, and the
//!   comparison reads both alike;
//! - from 1.21 on, the diff is printed the other way round (`-` the old
//!   spec) and later versions name more fields; later Services also take
//!   an unset `clusterIP` on update as kept;
//! - a Job's template is printed with Go's `%#v`, its pointers as heap
//!   addresses, which differ from one request to the next: they are not
//!   compared.

use std::path::Path;

use serde_json::{Value, json};

use super::*;

/// The test's namespace on the control plane, deleted when the test
/// ends, passed or failed.
struct Namespace<'a>(&'a Path, &'a str);

impl Drop for Namespace<'_> {
    fn drop(&mut self) {
        let _ = kubectl_at(self.0, &["delete", "ns", self.1, "--wait=false"], None);
    }
}

fn objects(ns: &str) -> String {
    format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[
{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p","namespace":"{ns}"}},
  "spec":{{"containers":[{{"name":"c","image":"busybox:1"}}],
   "tolerations":[{{"key":"a","operator":"Exists","effect":"NoExecute","tolerationSeconds":30}}]}}}},
{{"apiVersion":"apps/v1","kind":"Deployment","metadata":{{"name":"d","namespace":"{ns}"}},
  "spec":{{"replicas":0,"selector":{{"matchLabels":{{"app":"d"}}}},
   "template":{{"metadata":{{"labels":{{"app":"d"}}}},"spec":{{"containers":[{{"name":"c","image":"busybox:1"}}]}}}}}}}},
{{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{{"name":"ss","namespace":"{ns}"}},
  "spec":{{"replicas":0,"serviceName":"s","selector":{{"matchLabels":{{"app":"ss"}}}},
   "template":{{"metadata":{{"labels":{{"app":"ss"}}}},"spec":{{"containers":[{{"name":"c","image":"busybox:1"}}]}}}}}}}},
{{"apiVersion":"v1","kind":"Service","metadata":{{"name":"s","namespace":"{ns}"}},
  "spec":{{"selector":{{"app":"s"}},"ports":[{{"port":80}}]}}}},
{{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{{"name":"pvc","namespace":"{ns}"}},
  "spec":{{"accessModes":["ReadWriteOnce"],"resources":{{"requests":{{"storage":"1Gi"}}}}}}}},
{{"apiVersion":"batch/v1","kind":"Job","metadata":{{"name":"j","namespace":"{ns}"}},
  "spec":{{"template":{{"spec":{{"restartPolicy":"Never","containers":[{{"name":"c","image":"busybox:1"}}]}}}}}}}}]}}"#
    )
}

/// One request: (code, reason, message), the message's non-breaking
/// spaces read as spaces (see the module's rules).
async fn answer(
    client: &Client,
    method: &str,
    path: &str,
    content_type: &str,
    body: &Value,
) -> (u16, String, String) {
    let (code, v) = live_support::send_json(
        client,
        method,
        path,
        content_type,
        "application/json",
        Some(body),
    )
    .await;
    let s = |k: &str| v[k].as_str().unwrap_or_default().replace('\u{a0}', " ");
    (code, s("reason"), s("message"))
}

/// `s` with each pointer's address (`(0xc000a1e000)`) taken out: a Go
/// heap address differs from one request to the next.
fn unaddressed(s: &str) -> String {
    s.split("(0x")
        .enumerate()
        .map(|(i, part)| {
            if i == 0 {
                part.to_string()
            } else {
                format!("(0x?{}", &part[part.find(')').unwrap_or(0)..])
            }
        })
        .collect()
}

async fn get(client: &Client, path: &str) -> Value {
    let (code, v) = live_support::send_json(
        client,
        "GET",
        path,
        "application/json",
        "application/json",
        None,
    )
    .await;
    assert_eq!(code, 200, "GET {path}: {v}");
    v
}

const MERGE: &str = "application/merge-patch+json";
const STRATEGIC: &str = "application/strategic-merge-patch+json";
const JSON_PATCH: &str = "application/json-patch+json";
const APPLY: &str = "application/apply-patch+yaml";

#[test]
fn updates_of_what_may_not_change_are_refused_as_by_a_real_control_plane() {
    let _g = live_support::shared();
    let real = live_support::env().admin.clone();
    let s = Server::start("deployment", &[]);
    let ns = unique_name("serve-imm");
    for kc in [real.as_path(), s.kubeconfig.as_path()] {
        let (ok, _, err) = kubectl_at(kc, &["create", "ns", &ns], None);
        assert!(ok, "{err}");
    }
    let _cleanup = Namespace(&real, &ns);
    for kc in [real.as_path(), s.kubeconfig.as_path()] {
        let (ok, _, err) = kubectl_at(
            kc,
            &["create", "-f", "-", "--validate=false"],
            Some(&objects(&ns)),
        );
        assert!(ok, "{err}");
    }
    let pod = format!("/api/v1/namespaces/{ns}/pods/p");
    let deploy = format!("/apis/apps/v1/namespaces/{ns}/deployments/d");
    let set = format!("/apis/apps/v1/namespaces/{ns}/statefulsets/ss");
    let service = format!("/api/v1/namespaces/{ns}/services/s");
    let job = format!("/apis/batch/v1/namespaces/{ns}/jobs/j");
    let claim = format!("/api/v1/namespaces/{ns}/persistentvolumeclaims/pvc");
    let rt = rt();
    let (rc, sc) = rt.block_on(async {
        let connect = |kc: &Path| {
            let o = live_support::options(kc, "default");
            async move {
                ownerscope::cluster::connect(&o)
                    .await
                    .expect("kube client")
                    .client
            }
        };
        (connect(&real).await, connect(&s.kubeconfig).await)
    });
    // The same request to both; (what, code expected).
    let same = |what: &str, method: &str, path: &str, ct: &str, body: Value, code: u16| {
        let (r, v) = rt.block_on(async {
            (
                answer(&rc, method, path, ct, &body).await,
                answer(&sc, method, path, ct, &body).await,
            )
        });
        assert_eq!(r.0, code, "{what}: the real control plane answered {r:?}");
        assert_eq!(
            r, v,
            "{what}: the real control plane (left) and serve (right) differ"
        );
    };
    // A pod: the diff under the refusal, each way of writing.
    same(
        "grace period",
        "PATCH",
        &pod,
        MERGE,
        json!({"spec": {"terminationGracePeriodSeconds": 10}}),
        422,
    );
    same(
        "restart policy and pull policy",
        "PATCH",
        &pod,
        STRATEGIC,
        json!({"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "imagePullPolicy": "Always"}]}}),
        422,
    );
    same(
        "a toleration taken away",
        "PATCH",
        &pod,
        JSON_PATCH,
        json!([{"op": "remove", "path": "/spec/tolerations/0"}]),
        422,
    );
    same(
        "a node name applied",
        "PATCH",
        &format!("{pod}?fieldManager=imm&force=true"),
        APPLY,
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": ns},
               "spec": {"containers": [{"name": "c", "image": "busybox:1"}], "nodeName": "elsewhere"}}),
        422,
    );
    same(
        "an env var and a limit",
        "PATCH",
        &pod,
        STRATEGIC,
        json!({"spec": {"containers": [{"name": "c", "env": [{"name": "A", "value": "1"}],
                                         "resources": {"limits": {"cpu": "500m", "memory": "64Mi"}}}]}}),
        422,
    );
    same(
        "a port",
        "PATCH",
        &pod,
        STRATEGIC,
        json!({"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}]}}),
        422,
    );
    same(
        "a volume",
        "PATCH",
        &pod,
        STRATEGIC,
        json!({"spec": {"volumes": [{"name": "v", "emptyDir": {}}, {"name": "w", "configMap": {"name": "cm"}}]}}),
        422,
    );
    // What it may change, and metadata.
    same(
        "image, deadline, labels",
        "PATCH",
        &pod,
        STRATEGIC,
        json!({"metadata": {"labels": {"x": "y"}},
               "spec": {"containers": [{"name": "c", "image": "busybox:2"}], "activeDeadlineSeconds": 100}}),
        200,
    );
    same(
        "a toleration added",
        "PATCH",
        &pod,
        JSON_PATCH,
        json!([{"op": "add", "path": "/spec/tolerations/-", "value": {"key": "b", "operator": "Exists"}}]),
        200,
    );
    // A strategic merge patch replaces the list: the old ones are gone.
    same(
        "tolerations replaced",
        "PATCH",
        &pod,
        STRATEGIC,
        json!({"spec": {"tolerations": [{"key": "b", "operator": "Exists"}]}}),
        422,
    );
    same(
        "a raised deadline",
        "PATCH",
        &pod,
        MERGE,
        json!({"spec": {"activeDeadlineSeconds": 200}}),
        422,
    );
    same(
        "an unset deadline",
        "PATCH",
        &pod,
        JSON_PATCH,
        json!([{"op": "remove", "path": "/spec/activeDeadlineSeconds"}]),
        422,
    );
    // A PUT of the pod as each server holds it, a container added.
    let put = |c: &Client| {
        let pod = pod.clone();
        rt.block_on(async {
            let mut p = get(c, &pod).await;
            p["spec"]["containers"]
                .as_array_mut()
                .expect("containers")
                .push(json!({"name": "d", "image": "busybox:1"}));
            answer(c, "PUT", &pod, "application/json", &p).await
        })
    };
    let (r, v) = (put(&rc), put(&sc));
    assert_eq!(r.0, 422, "{r:?}");
    assert_eq!(r, v, "a container added by PUT");
    // Workloads.
    same(
        "a Deployment's selector",
        "PATCH",
        &deploy,
        MERGE,
        json!({"spec": {"selector": {"matchLabels": {"app": "d", "x": "y"}},
                        "template": {"metadata": {"labels": {"x": "y"}}}}}),
        422,
    );
    same(
        "a Deployment's selector alone",
        "PATCH",
        &deploy,
        MERGE,
        json!({"spec": {"selector": {"matchLabels": {"app": "e"}}}}),
        422,
    );
    same(
        "a Deployment scaled",
        "PATCH",
        &deploy,
        MERGE,
        json!({"spec": {"replicas": 1}}),
        200,
    );
    same(
        "a StatefulSet's service",
        "PATCH",
        &set,
        MERGE,
        json!({"spec": {"serviceName": "other"}}),
        422,
    );
    same(
        "a StatefulSet's template",
        "PATCH",
        &set,
        STRATEGIC,
        json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "busybox:2"}]}}}}),
        200,
    );
    same(
        "a Service's cluster IP",
        "PATCH",
        &service,
        MERGE,
        json!({"spec": {"clusterIP": "10.0.0.99"}}),
        422,
    );
    same(
        "a Service's cluster IP unset",
        "PATCH",
        &service,
        MERGE,
        json!({"spec": {"clusterIP": ""}}),
        422,
    );
    same(
        "a Job's completions",
        "PATCH",
        &job,
        MERGE,
        json!({"spec": {"completions": 2}}),
        422,
    );
    // The status subresource: a collision count goes up, never down.
    let set_status = format!("{set}/status");
    same(
        "a StatefulSet's collision count raised",
        "PATCH",
        &set_status,
        MERGE,
        json!({"status": {"collisionCount": 5}}),
        200,
    );
    same(
        "a StatefulSet's collision count lowered",
        "PATCH",
        &set_status,
        MERGE,
        json!({"status": {"collisionCount": 2}}),
        422,
    );
    // A pod's status write keeps its spec: a change of it is no change.
    same(
        "a pod's spec through its status",
        "PATCH",
        &format!("{pod}/status"),
        MERGE,
        json!({"spec": {"restartPolicy": "Never"}}),
        200,
    );
    // A Job's template, printed whole with Go's `%#v`: each side's uid
    // (in its generated labels) and the pointers' addresses taken out.
    let template = |c: &Client| {
        rt.block_on(async {
            let uid = get(c, &job).await["metadata"]["uid"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let body = json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "busybox:2"}]}}}});
            let (code, reason, message) = answer(c, "PATCH", &job, STRATEGIC, &body).await;
            (code, reason, unaddressed(&message.replace(&uid, "UID")))
        })
    };
    let (r, v) = (template(&rc), template(&sc));
    assert_eq!(r.0, 422, "{r:?}");
    assert_eq!(r, v, "a Job's template");
    // A PUT as read is no change; one that leaves the allocated cluster
    // IP out unsets it.
    let replace = |c: &Client, path: &str, drop: &[&str]| {
        rt.block_on(async {
            let mut o = get(c, path).await;
            for k in drop {
                if let Some(spec) = o["spec"].as_object_mut() {
                    spec.remove(*k);
                }
            }
            answer(c, "PUT", path, "application/json", &o).await
        })
    };
    for (path, drop, code) in [
        (&pod, &[][..], 200),
        (&service, &[][..], 200),
        (&service, &["clusterIP", "clusterIPs"][..], 422),
    ] {
        let (r, v) = (replace(&rc, path, drop), replace(&sc, path, drop));
        assert_eq!(r.0, code, "PUT {path} without {drop:?}: {r:?}");
        assert_eq!(r, v, "PUT {path} without {drop:?}");
    }
    // A binding's role.
    for kc in [real.as_path(), s.kubeconfig.as_path()] {
        let (ok, _, err) = kubectl_at(
            kc,
            &[
                "create",
                "rolebinding",
                "rb",
                "-n",
                &ns,
                "--clusterrole=view",
                "--user=u",
            ],
            None,
        );
        assert!(ok, "{err}");
    }
    let binding = format!("/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings/rb");
    same(
        "a binding's role",
        "PATCH",
        &binding,
        MERGE,
        json!({"roleRef": {"name": "edit"}}),
        422,
    );
    same(
        "a binding's subjects",
        "PATCH",
        &binding,
        MERGE,
        json!({"subjects": [{"kind": "User", "name": "w", "apiGroup": "rbac.authorization.k8s.io"}]}),
        200,
    );
    // A claim no volume is bound to: nothing of its spec changes.
    same(
        "a claim's access modes",
        "PATCH",
        &claim,
        MERGE,
        json!({"spec": {"accessModes": ["ReadWriteMany"]}}),
        422,
    );
    same(
        "a claim's size",
        "PATCH",
        &claim,
        MERGE,
        json!({"spec": {"resources": {"requests": {"storage": "2Gi"}}}}),
        422,
    );
    same(
        "a claim's class",
        "PATCH",
        &claim,
        MERGE,
        json!({"spec": {"storageClassName": "x"}}),
        422,
    );
    same(
        "a claim's labels",
        "PATCH",
        &claim,
        MERGE,
        json!({"metadata": {"labels": {"x": "y"}}}),
        200,
    );
}
