//! What `kubectl get` prints: the `Table` each server answers for every
//! kind both serve, its columns (name and whether only `-o wide` shows
//! them) compared, and the cells of objects made alike on both compared
//! but for their age. A kubectl user reads the same columns on serve as
//! on kube-apiserver 1.20 (`src/serve/table/printers.rs`).

use super::*;

const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io";

/// Collections whose columns are compared: what kubectl lists most, and
/// the kinds serve gives a printer of their own.
const COLLECTIONS: &[&str] = &[
    "/api/v1/pods",
    "/api/v1/nodes",
    "/api/v1/namespaces",
    "/api/v1/services",
    "/api/v1/configmaps",
    "/api/v1/secrets",
    "/api/v1/serviceaccounts",
    "/api/v1/endpoints",
    "/api/v1/events",
    "/api/v1/persistentvolumes",
    "/api/v1/persistentvolumeclaims",
    "/api/v1/replicationcontrollers",
    "/api/v1/resourcequotas",
    "/apis/apps/v1/deployments",
    "/apis/apps/v1/replicasets",
    "/apis/apps/v1/statefulsets",
    "/apis/apps/v1/daemonsets",
    "/apis/batch/v1/jobs",
    "/apis/coordination.k8s.io/v1/leases",
    "/apis/rbac.authorization.k8s.io/v1/roles",
    "/apis/rbac.authorization.k8s.io/v1/clusterroles",
    "/apis/rbac.authorization.k8s.io/v1/rolebindings",
    "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    "/apis/networking.k8s.io/v1/ingresses",
    "/apis/storage.k8s.io/v1/volumeattachments",
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
    "/apis/events.k8s.io/v1/events",
];

/// Differences of columns that stay: (collection, why).
const COLUMN_DIFFERENCES: &[(&str, &str)] = &[];

pub(super) async fn request(
    env: &Env,
    method: &str,
    path: &str,
    accept: &str,
    body: Option<&Value>,
) -> (u16, Value) {
    let client = ownerscope::cluster::connect(&options(&env.admin, "default"))
        .await
        .expect("client")
        .client;
    live_support::send_json(&client, method, path, JSON, accept, body).await
}

/// `Name`, `Ready`, `IP*`: the columns, `*` for those only `-o wide` shows.
fn columns(t: &Value) -> Vec<String> {
    t["columnDefinitions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let wide = if c["priority"] == 1 { "*" } else { "" };
            format!("{}{wide}", c["name"].as_str().unwrap_or_default())
        })
        .collect()
}

/// The first row's cells but its age.
fn cells_but_age(t: &Value) -> Vec<Value> {
    let age = columns(t).iter().position(|c| c == "Age");
    t["rows"][0]["cells"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .filter(|(i, _)| Some(*i) != age)
        .map(|(_, c)| c.clone())
        .collect()
}

/// Objects made alike on both servers, whose cells hold no time, address
/// or controller's doing: (collection in `{ns}`, body).
fn objects() -> Vec<(&'static str, Value)> {
    vec![
        (
            "configmaps",
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "t"},
                   "data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="}}),
        ),
        (
            "secrets",
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "t"},
                   "type": "kubernetes.io/basic-auth", "data": {"username": "YQ==", "password": "Yg=="}}),
        ),
        (
            "services",
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "t"},
                   "spec": {"clusterIP": "None", "selector": {"b": "2", "a": "1"},
                            "ports": [{"port": 80, "name": "http"}, {"port": 53, "protocol": "UDP", "name": "dns"}]}}),
        ),
        (
            "rolebindings",
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "t"},
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
                   "subjects": [{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"},
                                {"kind": "User", "name": "bob", "apiGroup": "rbac.authorization.k8s.io"},
                                {"kind": "ServiceAccount", "name": "robot", "namespace": "{ns}"}]}),
        ),
        (
            "ingresses",
            json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "t"},
                   "spec": {"tls": [{"hosts": ["a.example.com"]}],
                            "rules": [{"host": "a.example.com"}, {}, {"host": "b.example.com"},
                                      {"host": "c.example.com"}, {"host": "d.example.com"}]}}),
        ),
        (
            "leases",
            json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "t"},
                   "spec": {"holderIdentity": "node-1"}}),
        ),
    ]
}

fn collection(ns: &str, plural: &str) -> String {
    let group = match plural {
        "rolebindings" => "apis/rbac.authorization.k8s.io/v1",
        "leases" => "apis/coordination.k8s.io/v1",
        "ingresses" => "apis/networking.k8s.io/v1",
        _ => "api/v1",
    };
    format!("/{group}/namespaces/{ns}/{plural}")
}

#[test]
fn kubectl_get_prints_the_columns_the_control_plane_prints() {
    let _g = live_support::shared();
    let real = env_of(Target::Cluster);
    let served = env_of(Target::Serve);
    let ns = unique_namespace("serve-tables");
    let (unexplained, gone, cells) = live_support::rt().block_on(async {
        let (mut unexplained, mut gone, mut cells) = (Vec::new(), Vec::new(), Vec::new());
        for path in COLLECTIONS {
            let (a, ta) = request(real, "GET", path, TABLE, None).await;
            let (b, tb) = request(served, "GET", path, TABLE, None).await;
            let (ca, cb) = (columns(&ta), columns(&tb));
            let listed = COLUMN_DIFFERENCES.iter().any(|(p, _)| p == path);
            match ((a, &ca) == (b, &cb), listed) {
                (false, false) => unexplained.push(format!(
                    "{path}: control plane {a} {ca:?}, serve {b} {cb:?}"
                )),
                (true, true) => gone.push(*path),
                _ => {}
            }
        }
        let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}});
        for env in [real, served] {
            let (code, _) =
                request(env, "POST", "/api/v1/namespaces", JSON, Some(&namespace)).await;
            assert_eq!(code, 201, "the test's namespace");
        }
        for (plural, body) in objects() {
            let body: Value =
                serde_json::from_str(&body.to_string().replace("{ns}", &ns)).expect("json");
            let path = collection(&ns, plural);
            let mut both = Vec::new();
            for env in [real, served] {
                let (code, created) = request(env, "POST", &path, JSON, Some(&body)).await;
                assert_eq!(code, 201, "{plural}: {created}");
                let (_, t) = request(env, "GET", &format!("{path}/t"), TABLE, None).await;
                both.push(cells_but_age(&t));
            }
            cells.push((plural, both.remove(0), both.remove(0)));
        }
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
        (unexplained, gone, cells)
    });
    assert!(
        unexplained.is_empty(),
        "columns that differ, not listed in COLUMN_DIFFERENCES:\n{}",
        unexplained.join("\n")
    );
    assert!(
        gone.is_empty(),
        "listed in COLUMN_DIFFERENCES but alike now (take them out): {gone:?}"
    );
    for (plural, real, served) in cells {
        assert_eq!(
            served, real,
            "the cells of {plural} (serve, then the control plane)"
        );
    }
}
