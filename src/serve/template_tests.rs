//! What the simulator's controllers make from a template carries the
//! template whole, as the real controllers copy it (`GetPodFromTemplate`,
//! the deployment controller's `getNewReplicaSet`): a kubectl-made
//! Deployment's env, ports, resources, probes, volumes and annotations
//! are on its ReplicaSet's template and on its pods, read back through the
//! API as kubectl reads them.

use std::time::Duration;

use serde_json::{Value, json};

use super::Request;
use super::state::Served;
use super::tests::{send, served};

const NS: &str = "/api/v1/namespaces/shop";
const APPS: &str = "/apis/apps/v1/namespaces/shop";

fn post(s: &mut Served, path: &str, body: &Value) -> Value {
    let r = send(
        s,
        &Request {
            content_type: "application/json".into(),
            body: serde_json::to_vec(body).expect("json"),
            user_agent: "kubectl/v1.20.2 (linux/amd64) kubernetes/faecb19".into(),
            ..Request::new("POST", path)
        },
    );
    assert_eq!(r.code, 201, "POST {path}: {:?}", r.value());
    r.value()
}

fn items(s: &mut Served, path: &str) -> Vec<Value> {
    let r = send(s, &Request::new("GET", path));
    assert_eq!(r.code, 200, "GET {path}: {:?}", r.value());
    r.value()["items"].as_array().cloned().unwrap_or_default()
}

/// The clock runs until the controllers have acted.
fn settle(s: &mut Served) {
    s.paused = false;
    for _ in 0..5 {
        s.tick(Duration::from_secs(2));
    }
}

/// A pod template as kubectl sends it, with what the simulator does not
/// keep of it.
fn template(app: &str) -> Value {
    json!({
        "metadata": {"labels": {"app": app}, "annotations": {"team": "payments", "prometheus.io/port": "8080"}},
        "spec": {
            "containers": [{
                "name": "api", "image": "example.com/api:1.4",
                "env": [{"name": "MODE", "value": "live"},
                        {"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
                "ports": [{"name": "http", "containerPort": 8080}],
                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"},
                              "limits": {"memory": "128Mi"}},
                "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}},
                "volumeMounts": [{"name": "conf", "mountPath": "/etc/api"}],
            }],
            "volumes": [{"name": "conf", "configMap": {"name": "api-conf"}}],
            "terminationGracePeriodSeconds": 5,
        },
    })
}

/// Creates the Deployment `api` of one replica; its path.
fn post_api_deployment(s: &mut Served) -> String {
    post(
        s,
        &format!("{APPS}/deployments"),
        &json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "api"},
                "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "api"}},
                         "template": template("api")}}),
    );
    format!("{APPS}/deployments/api")
}

/// The template's own fields, as every copy of it must carry them.
fn assert_carries(spec: &Value, what: &str) {
    let c = &spec["containers"][0];
    assert_eq!(c["image"], "example.com/api:1.4", "{what}: {spec}");
    assert_eq!(
        c["env"][0],
        json!({"name": "MODE", "value": "live"}),
        "{what}"
    );
    assert_eq!(
        c["env"][1]["valueFrom"]["fieldRef"]["fieldPath"], "spec.nodeName",
        "{what}"
    );
    assert_eq!(c["ports"][0]["containerPort"], 8080, "{what}");
    assert_eq!(c["ports"][0]["name"], "http", "{what}");
    assert_eq!(c["ports"][0]["protocol"], "TCP", "{what}: defaulted");
    assert_eq!(c["resources"]["requests"]["cpu"], "100m", "{what}");
    assert_eq!(c["resources"]["limits"]["memory"], "128Mi", "{what}");
    assert_eq!(c["readinessProbe"]["httpGet"]["path"], "/ready", "{what}");
    assert_eq!(
        c["readinessProbe"]["httpGet"]["scheme"], "HTTP",
        "{what}: defaulted"
    );
    assert_eq!(
        c["readinessProbe"]["periodSeconds"], 10,
        "{what}: defaulted"
    );
    assert_eq!(
        c["env"][1]["valueFrom"]["fieldRef"]["apiVersion"], "v1",
        "{what}: defaulted"
    );
    // By its name: a StatefulSet's claims come first.
    let conf = spec["volumes"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|v| v["name"] == "conf")
        .unwrap_or_else(|| panic!("{what}: no volume conf in {spec}"));
    assert_eq!(conf["configMap"]["defaultMode"], 420, "{what}: defaulted");
    assert_eq!(c["volumeMounts"][0]["mountPath"], "/etc/api", "{what}");
    assert_eq!(conf["configMap"]["name"], "api-conf", "{what}");
    assert_eq!(spec["terminationGracePeriodSeconds"], 5, "{what}");
}

#[test]
fn a_deployments_replicaset_and_pods_carry_its_whole_template() {
    let mut s = served();
    post(
        &mut s,
        &format!("{APPS}/deployments"),
        &json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "api", "annotations": {"owner": "payments"}},
                "spec": {"replicas": 2, "minReadySeconds": 3,
                         "selector": {"matchLabels": {"app": "api"}},
                         "template": template("api")}}),
    );
    settle(&mut s);
    let sets = items(
        &mut s,
        &format!("{APPS}/replicasets?labelSelector=app%3Dapi"),
    );
    assert_eq!(sets.len(), 1, "{sets:?}");
    let rs = &sets[0];
    let hash = rs["metadata"]["labels"]["pod-template-hash"]
        .as_str()
        .expect("hash")
        .to_string();
    let t = &rs["spec"]["template"];
    assert_carries(&t["spec"], "the ReplicaSet's template");
    assert_eq!(t["metadata"]["annotations"]["team"], "payments");
    assert_eq!(t["metadata"]["labels"]["pod-template-hash"], hash.as_str());
    assert_eq!(rs["spec"]["minReadySeconds"], 3);
    // What the deployment controller writes on it: the Deployment's
    // annotations, the revision, 2 wanted and 2 + 25% (rounded up) at most.
    assert_eq!(
        rs["metadata"]["annotations"],
        json!({"owner": "payments", "deployment.kubernetes.io/revision": "1",
               "deployment.kubernetes.io/desired-replicas": "2",
               "deployment.kubernetes.io/max-replicas": "3"})
    );
    let d = items(&mut s, &format!("{APPS}/deployments"))
        .into_iter()
        .find(|d| d["metadata"]["name"] == "api")
        .expect("the Deployment");
    assert_eq!(
        d["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        "1"
    );
    for field in [
        "enableServiceLinks",
        "priority",
        "preemptionPolicy",
        "tolerations",
    ] {
        assert!(
            t["spec"].get(field).is_none(),
            "a pod's, not a template's: {field}"
        );
    }

    let pods = items(&mut s, &format!("{NS}/pods?labelSelector=app%3Dapi"));
    assert_eq!(pods.len(), 2, "{pods:?}");
    for pod in &pods {
        assert_carries(&pod["spec"], "a pod");
        let m = &pod["metadata"];
        assert_eq!(
            m["annotations"],
            json!({"team": "payments", "prometheus.io/port": "8080"}),
            "the template's annotations, as GetPodFromTemplate copies them"
        );
        assert_eq!(m["labels"]["pod-template-hash"], hash.as_str());
        assert_eq!(
            m["generateName"],
            format!("{}-", rs["metadata"]["name"].as_str().unwrap_or(""))
        );
        assert_eq!(m["ownerReferences"][0]["kind"], "ReplicaSet");
        // A memory limit above the request: Burstable, as the API server
        // classes it.
        assert_eq!(pod["status"]["qosClass"], "Burstable");
        // What kube-apiserver adds to a pod and not to a template.
        assert_eq!(pod["spec"]["enableServiceLinks"], true);
        assert_eq!(pod["spec"]["preemptionPolicy"], "PreemptLowerPriority");
        assert_eq!(
            pod["spec"]["tolerations"][0]["key"],
            "node.kubernetes.io/not-ready"
        );
    }
}

#[test]
fn a_jobs_a_statefulsets_and_a_daemonsets_pods_carry_their_templates_too() {
    let mut s = served();
    let mut job_template = template("batch");
    job_template["spec"]["restartPolicy"] = json!("Never");
    post(
        &mut s,
        "/apis/batch/v1/namespaces/shop/jobs",
        &json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "once"},
                "spec": {"template": job_template}}),
    );
    // A template volume named as a claim template is the claim's.
    let mut db_template = template("db");
    db_template["spec"]["volumes"]
        .as_array_mut()
        .expect("volumes")
        .push(json!({"name": "data", "emptyDir": {}}));
    post(
        &mut s,
        &format!("{APPS}/statefulsets"),
        &json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
                "spec": {"replicas": 1, "serviceName": "db",
                         "selector": {"matchLabels": {"app": "db"}},
                         "template": db_template,
                         "volumeClaimTemplates": [{"metadata": {"name": "data"},
                            "spec": {"accessModes": ["ReadWriteOnce"],
                                     "resources": {"requests": {"storage": "1Gi"}}}}]}}),
    );
    post(
        &mut s,
        &format!("{APPS}/daemonsets"),
        &json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
                "spec": {"selector": {"matchLabels": {"app": "agent"}},
                         "template": template("agent")}}),
    );
    settle(&mut s);
    let job_pods = items(&mut s, &format!("{NS}/pods?labelSelector=job-name%3Donce"));
    assert_eq!(job_pods.len(), 1, "{job_pods:?}");
    assert_carries(&job_pods[0]["spec"], "the Job's pod");
    assert_eq!(job_pods[0]["spec"]["restartPolicy"], "Never");
    assert_eq!(job_pods[0]["metadata"]["generateName"], "once-");

    let db = items(&mut s, &format!("{NS}/pods?labelSelector=app%3Ddb"));
    assert_eq!(db.len(), 1, "{db:?}");
    assert_carries(&db[0]["spec"], "the StatefulSet's pod");
    assert_eq!(db[0]["metadata"]["name"], "db-0");
    assert_eq!(db[0]["spec"]["hostname"], "db-0");
    assert_eq!(db[0]["spec"]["subdomain"], "db");
    assert_eq!(db[0]["metadata"]["annotations"]["team"], "payments");
    // `updateStorage`: the claim's volume first, the template's others.
    let volumes = db[0]["spec"]["volumes"].as_array().expect("volumes");
    assert_eq!(
        volumes[0],
        json!({"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}})
    );
    let names: Vec<&str> = volumes.iter().filter_map(|v| v["name"].as_str()).collect();
    assert_eq!(names, ["data", "conf"], "{volumes:?}");
    assert_eq!(volumes[1]["configMap"]["name"], "api-conf");
    let agents = items(&mut s, &format!("{NS}/pods?labelSelector=app%3Dagent"));
    assert!(!agents.is_empty(), "a DaemonSet's pod per Node");
    for pod in &agents {
        assert_carries(&pod["spec"], "a DaemonSet's pod");
        let keys: Vec<&str> = pod["spec"]["tolerations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["key"].as_str())
            .collect();
        assert!(
            keys.contains(&"node.kubernetes.io/unschedulable"),
            "the DaemonSet controller's tolerations: {keys:?}"
        );
    }
    let claims = items(&mut s, &format!("{NS}/persistentvolumeclaims"));
    let claim = claims
        .iter()
        .find(|c| c["metadata"]["name"] == "data-db-0")
        .unwrap_or_else(|| panic!("no claim in {claims:?}"));
    assert_eq!(claim["spec"]["accessModes"], json!(["ReadWriteOnce"]));
    assert_eq!(claim["spec"]["resources"]["requests"]["storage"], "1Gi");
    assert_eq!(claim["spec"]["volumeMode"], "Filesystem");
}

fn put(s: &mut Served, path: &str, body: &Value) -> Value {
    let r = send(
        s,
        &Request {
            content_type: "application/json".into(),
            body: serde_json::to_vec(body).expect("json"),
            ..Request::new("PUT", path)
        },
    );
    assert_eq!(r.code, 200, "PUT {path}: {:?}", r.value());
    r.value()
}

#[test]
fn an_object_put_back_as_read_is_no_change_of_its_spec() {
    // As `kubectl replace` or a controller's read-modify-write: what
    // serve added as it sent the object comes back in the body.
    let mut s = served();
    let d_path = post_api_deployment(&mut s);
    settle(&mut s);
    let read = send(&mut s, &Request::new("GET", &d_path)).value();
    assert_eq!(read["metadata"]["generation"], 1);
    let again = put(&mut s, &d_path, &read);
    assert_eq!(again["metadata"]["generation"], 1, "the Deployment as read");
    let rs_name = items(
        &mut s,
        &format!("{APPS}/replicasets?labelSelector=app%3Dapi"),
    )[0]["metadata"]["name"]
        .as_str()
        .expect("name")
        .to_string();
    let rs_path = format!("{APPS}/replicasets/{rs_name}");
    let rs = send(&mut s, &Request::new("GET", &rs_path)).value();
    let rs_again = put(&mut s, &rs_path, &rs);
    assert_eq!(
        rs_again["metadata"]["generation"], rs["metadata"]["generation"],
        "the controller-made ReplicaSet as read"
    );
    // A change is one.
    let mut changed = again.clone();
    changed["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"] = json!("test");
    let changed = put(&mut s, &d_path, &changed);
    assert_eq!(changed["metadata"]["generation"], 2);
    assert_eq!(
        changed["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"],
        "test"
    );
    // A default set to another value is the client's.
    let mut policy = changed.clone();
    policy["spec"]["template"]["spec"]["dnsPolicy"] = json!("Default");
    let policy = put(&mut s, &d_path, &policy);
    assert_eq!(policy["metadata"]["generation"], 3);
    assert_eq!(policy["spec"]["template"]["spec"]["dnsPolicy"], "Default");
}

#[test]
fn a_cronjobs_job_carries_its_template_whole() {
    let mut s = served();
    let mut pod_template = template("nightly");
    pod_template["spec"]["restartPolicy"] = json!("Never");
    post(
        &mut s,
        "/apis/batch/v1/namespaces/shop/cronjobs",
        &json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly"},
                "spec": {"schedule": "* * * * *",
                         "jobTemplate": {"metadata": {"labels": {"run": "nightly"}},
                                         "spec": {"backoffLimit": 2, "template": pod_template}}}}),
    );
    s.paused = false;
    for _ in 0..70 {
        s.tick(Duration::from_secs(1));
    }
    let jobs = items(
        &mut s,
        "/apis/batch/v1/namespaces/shop/jobs?labelSelector=run%3Dnightly",
    );
    assert!(!jobs.is_empty(), "a Job within a minute");
    let job = &jobs[0];
    assert_eq!(job["spec"]["backoffLimit"], 2, "{job}");
    assert_carries(&job["spec"]["template"]["spec"], "the CronJob's Job");
    assert_eq!(
        job["spec"]["template"]["metadata"]["annotations"]["team"],
        "payments"
    );
}

fn json_patch(s: &mut Served, path: &str, ops: &Value) -> (u16, Value) {
    let r = send(
        s,
        &Request {
            content_type: "application/json-patch+json".into(),
            body: serde_json::to_vec(ops).expect("json"),
            ..Request::new("PATCH", path)
        },
    );
    (r.code, r.value())
}

#[test]
fn a_json_patch_tests_and_replaces_what_the_server_defaulted() {
    // kube-apiserver stored its defaults at create: `kubectl patch
    // --type=json` may test them, replace them, add under them.
    let mut s = served();
    let d_path = post_api_deployment(&mut s);
    let (code, only_tests) = json_patch(
        &mut s,
        &d_path,
        &json!([{"op": "test", "path": "/spec/template/spec/dnsPolicy", "value": "ClusterFirst"},
                {"op": "test", "path": "/spec/revisionHistoryLimit", "value": 10},
                {"op": "test", "path": "/spec/template/spec/containers/0/imagePullPolicy",
                 "value": "IfNotPresent"}]),
    );
    assert_eq!(code, 200, "the defaults hold: {only_tests}");
    assert_eq!(
        only_tests["metadata"]["generation"], 1,
        "and nothing changed"
    );
    let (code, failed) = json_patch(
        &mut s,
        &d_path,
        &json!([{"op": "test", "path": "/spec/template/spec/dnsPolicy", "value": "Default"}]),
    );
    assert_eq!(code, 422, "a test that does not hold: {failed}");
    let (code, replaced) = json_patch(
        &mut s,
        &d_path,
        &json!([{"op": "replace", "path": "/spec/template/spec/containers/0/imagePullPolicy",
                 "value": "Never"},
                {"op": "add", "path": "/spec/template/spec/securityContext/runAsUser",
                 "value": 1000}]),
    );
    assert_eq!(code, 200, "{replaced}");
    assert_eq!(replaced["metadata"]["generation"], 2);
    let spec = &replaced["spec"]["template"]["spec"];
    assert_eq!(spec["containers"][0]["imagePullPolicy"], "Never");
    assert_eq!(spec["securityContext"], json!({"runAsUser": 1000}));
    assert_eq!(spec["dnsPolicy"], "ClusterFirst", "the other defaults stay");
    let read = send(&mut s, &Request::new("GET", &d_path)).value();
    assert_eq!(read["spec"], replaced["spec"], "as stored");
}

#[test]
fn a_statefulset_and_a_daemonset_keep_their_template_in_a_controller_revision() {
    // As the test control plane (1.20) showed for the same two sets.
    let mut s = served();
    post(
        &mut s,
        &format!("{APPS}/statefulsets"),
        &json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
                "metadata": {"name": "db", "annotations": {"note": "set"}},
                "spec": {"replicas": 1, "serviceName": "db",
                         "selector": {"matchLabels": {"app": "db"}},
                         "template": template("db")}}),
    );
    post(
        &mut s,
        &format!("{APPS}/daemonsets"),
        &json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
                "metadata": {"name": "agent", "annotations": {"note": "ds"}},
                "spec": {"selector": {"matchLabels": {"app": "agent"}},
                         "template": template("agent")}}),
    );
    settle(&mut s);
    let revisions = items(&mut s, &format!("{APPS}/controllerrevisions"));
    let of = |owner: &str| {
        let found: Vec<&Value> = revisions
            .iter()
            .filter(|r| r["metadata"]["ownerReferences"][0]["name"] == owner)
            .collect();
        assert_eq!(found.len(), 1, "one revision of {owner}: {revisions:?}");
        found[0].clone()
    };
    let db = of("db");
    let hash = db["metadata"]["labels"]["controller.kubernetes.io/hash"]
        .as_str()
        .expect("the hash label")
        .to_string();
    assert_eq!(db["metadata"]["name"], format!("db-{hash}"));
    assert_eq!(
        db["metadata"]["labels"]["app"], "db",
        "the template's labels"
    );
    assert_eq!(db["metadata"]["annotations"], json!({"note": "set"}));
    assert_eq!(db["metadata"]["ownerReferences"][0]["controller"], true);
    assert_eq!(db["revision"], 1);
    assert_eq!(db["data"]["spec"]["template"]["$patch"], "replace");
    assert_eq!(
        db["data"]["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"], "live",
        "the template whole"
    );
    let pods = items(&mut s, &format!("{NS}/pods?labelSelector=app%3Ddb"));
    assert_eq!(
        pods[0]["metadata"]["labels"]["controller-revision-hash"],
        format!("db-{hash}"),
        "a StatefulSet's pod names the revision"
    );
    let agent = of("agent");
    let hash = agent["metadata"]["labels"]["controller-revision-hash"]
        .as_str()
        .expect("the hash label")
        .to_string();
    assert_eq!(agent["metadata"]["name"], format!("agent-{hash}"));
    assert_eq!(
        agent["metadata"]["annotations"],
        json!({"note": "ds", "deprecated.daemonset.template.generation": "1"})
    );
    let pods = items(&mut s, &format!("{NS}/pods?labelSelector=app%3Dagent"));
    assert!(!pods.is_empty());
    for p in &pods {
        assert_eq!(
            p["metadata"]["labels"]["controller-revision-hash"],
            hash.as_str()
        );
        assert_eq!(p["metadata"]["labels"]["pod-template-generation"], "1");
    }
    // Another sync makes no second one.
    settle(&mut s);
    let again = items(&mut s, &format!("{APPS}/controllerrevisions"));
    assert_eq!(again.len(), revisions.len());
}
