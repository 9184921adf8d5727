//! kube-apiserver 1.20's defaults for a pod spec, as
//! `pkg/apis/core/v1/defaults.go` sets them on every pod spec it decodes
//! (a pod's and a workload template's alike: `SetDefaults_PodSpec`,
//! `_Container`, `_ContainerPort`, `_Probe`, `_HTTPGetAction`,
//! `_ObjectFieldSelector`, `_Volume` and the volume sources'), and what it
//! adds to a pod only: `SetDefaults_Pod` (`enableServiceLinks`, requests
//! from limits) as it decodes it, then admission: the `Priority` plugin
//! (`priority`, `preemptionPolicy`) and `DefaultTolerationSeconds`; and the pod's QoS
//! class as `GetPodQOS` computes it. Checked field by field against the
//! test control plane (1.20.2) with the same Deployment created on both
//! (`serve::template_tests` lists what stays different). A field the
//! object has is never replaced.

use serde_json::{Map, Value, json};

/// Sets `key` unless the map has it.
fn fill(map: &mut Map<String, Value>, key: &str, value: Value) {
    map.entry(key).or_insert(value);
}

/// The maps of the list `key` of `map`.
fn maps_in<'m>(
    map: &'m mut Map<String, Value>,
    key: &str,
) -> impl Iterator<Item = &'m mut Map<String, Value>> {
    map.get_mut(key)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
}

/// The defaults of a pod spec, a pod's or a template's. `first` is the
/// container to run when none is named (serve's own: a pod with an empty
/// spec); `image` the image of a container that names none.
pub fn pod_spec(
    spec: &mut Map<String, Value>,
    first: impl FnOnce() -> Value,
    image: &str,
    restart: &str,
) {
    let containers = spec.entry("containers").or_insert_with(|| json!([]));
    if containers.as_array().is_none_or(Vec::is_empty) {
        *containers = json!([first()]);
    }
    for list in ["containers", "initContainers"] {
        for c in maps_in(spec, list) {
            container(c, image);
        }
    }
    for v in maps_in(spec, "volumes") {
        volume(v);
    }
    fill(spec, "restartPolicy", json!(restart));
    fill(spec, "terminationGracePeriodSeconds", json!(30));
    fill(spec, "dnsPolicy", json!("ClusterFirst"));
    fill(spec, "securityContext", json!({}));
    fill(spec, "schedulerName", json!("default-scheduler"));
}

/// `SetDefaults_Container` and what is inside a container.
fn container(c: &mut Map<String, Value>, image: &str) {
    fill(c, "image", json!(image));
    let image = c.get("image").and_then(Value::as_str).unwrap_or_default();
    let tagged = image.rsplit('/').next().is_some_and(|l| l.contains(':'));
    let policy = if !tagged || image.ends_with(":latest") {
        "Always"
    } else {
        "IfNotPresent"
    };
    fill(c, "imagePullPolicy", json!(policy));
    fill(c, "resources", json!({}));
    fill(c, "terminationMessagePath", json!("/dev/termination-log"));
    fill(c, "terminationMessagePolicy", json!("File"));
    for p in maps_in(c, "ports") {
        fill(p, "protocol", json!("TCP"));
    }
    for e in maps_in(c, "env") {
        if let Some(f) = e
            .get_mut("valueFrom")
            .and_then(|v| v.get_mut("fieldRef"))
            .and_then(Value::as_object_mut)
        {
            fill(f, "apiVersion", json!("v1"));
        }
    }
    for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
        if let Some(p) = c.get_mut(probe).and_then(Value::as_object_mut) {
            fill(p, "timeoutSeconds", json!(1));
            fill(p, "periodSeconds", json!(10));
            fill(p, "successThreshold", json!(1));
            fill(p, "failureThreshold", json!(3));
            http_get(p);
        }
    }
    if let Some(l) = c.get_mut("lifecycle").and_then(Value::as_object_mut) {
        for hook in ["postStart", "preStop"] {
            if let Some(h) = l.get_mut(hook).and_then(Value::as_object_mut) {
                http_get(h);
            }
        }
    }
}

/// `SetDefaults_HTTPGetAction` of a handler's `httpGet`.
fn http_get(handler: &mut Map<String, Value>) {
    if let Some(h) = handler.get_mut("httpGet").and_then(Value::as_object_mut) {
        fill(h, "path", json!("/"));
        fill(h, "scheme", json!("HTTP"));
    }
}

/// The sources a volume may name; one with none is an `emptyDir`.
const SOURCES: &[&str] = &[
    "hostPath",
    "emptyDir",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "persistentVolumeClaim",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "downwardAPI",
    "fc",
    "azureFile",
    "configMap",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "projected",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "csi",
    "ephemeral",
];

/// `SetDefaults_Volume` and the sources' own defaults.
fn volume(v: &mut Map<String, Value>) {
    if !SOURCES.iter().any(|s| v.contains_key(*s)) {
        v.insert("emptyDir".into(), json!({}));
    }
    for source in ["configMap", "secret", "downwardAPI", "projected"] {
        if let Some(s) = v.get_mut(source).and_then(Value::as_object_mut) {
            fill(s, "defaultMode", json!(420));
        }
    }
    if let Some(h) = v.get_mut("hostPath").and_then(Value::as_object_mut) {
        fill(h, "type", json!(""));
    }
    if let Some(d) = v.get_mut("downwardAPI").and_then(Value::as_object_mut) {
        field_refs(d);
    }
    if let Some(p) = v.get_mut("projected").and_then(Value::as_object_mut) {
        for s in maps_in(p, "sources") {
            if let Some(d) = s.get_mut("downwardAPI").and_then(Value::as_object_mut) {
                field_refs(d);
            }
            if let Some(t) = s
                .get_mut("serviceAccountToken")
                .and_then(Value::as_object_mut)
            {
                fill(t, "expirationSeconds", json!(3600));
            }
        }
    }
}

/// A downward API source's items: `fieldRef.apiVersion` `v1`.
fn field_refs(d: &mut Map<String, Value>) {
    for item in maps_in(d, "items") {
        if let Some(f) = item.get_mut("fieldRef").and_then(Value::as_object_mut) {
            fill(f, "apiVersion", json!("v1"));
        }
    }
}

/// What a pod gets that a template does not as it is decoded:
/// `SetDefaults_Pod` (`enableServiceLinks`; a container's requests
/// default to its limits).
pub fn pod_decoded(spec: &mut Map<String, Value>) {
    for list in ["containers", "initContainers"] {
        for c in maps_in(spec, list) {
            requests_from_limits(c);
        }
    }
    fill(spec, "enableServiceLinks", json!(true));
}

/// What admission adds to a pod after the field manager ran (so no
/// manager owns it): the `Priority` plugin (`priority` 0 without a
/// class, `preemptionPolicy`), `DefaultTolerationSeconds` (300 s on the
/// not-ready and unreachable taints, unless tolerated already).
pub fn pod_admitted(spec: &mut Map<String, Value>) {
    fill(spec, "priority", json!(0));
    fill(spec, "preemptionPolicy", json!("PreemptLowerPriority"));
    let tolerations = spec.entry("tolerations").or_insert_with(|| json!([]));
    if !tolerations.is_array() {
        return;
    }
    for taint in [
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
    ] {
        let tolerated = tolerations.as_array().into_iter().flatten().any(|t| {
            let key = t["key"].as_str().unwrap_or_default();
            let effect = t["effect"].as_str().unwrap_or_default();
            (key == taint || key.is_empty()) && (effect == "NoExecute" || effect.is_empty())
        });
        if !tolerated && let Some(list) = tolerations.as_array_mut() {
            list.push(json!({"key": taint, "operator": "Exists",
                             "effect": "NoExecute", "tolerationSeconds": 300}));
        }
    }
}

/// A limit without a request: the request is the limit.
fn requests_from_limits(c: &mut Map<String, Value>) {
    let Some(r) = c.get_mut("resources").and_then(Value::as_object_mut) else {
        return;
    };
    let Some(limits) = r.get("limits").and_then(Value::as_object).cloned() else {
        return;
    };
    if limits.is_empty() {
        return;
    }
    let requests = r.entry("requests").or_insert_with(|| json!({}));
    if let Some(requests) = requests.as_object_mut() {
        for (k, v) in limits {
            requests.entry(k).or_insert(v);
        }
    }
}

/// The pod's QoS class, as `GetPodQOS` computes it from a defaulted spec:
/// no CPU or memory request or limit anywhere, `BestEffort`; limits of
/// both on every container and each request equal to its limit,
/// `Guaranteed`; else `Burstable`. Zero quantities do not count.
#[must_use]
pub fn qos_class(spec: &Value) -> &'static str {
    let mut requests: [i128; 2] = [0, 0];
    let mut limits: [i128; 2] = [0, 0];
    let mut found = [false; 4];
    let mut guaranteed = true;
    let containers = ["containers", "initContainers"]
        .into_iter()
        .flat_map(|l| spec[l].as_array().into_iter().flatten());
    for c in containers {
        let mut limited = [false; 2];
        for (i, name) in ["cpu", "memory"].into_iter().enumerate() {
            let at = |what: &str| {
                c["resources"][what][name]
                    .as_str()
                    .map(str::to_string)
                    .or_else(|| c["resources"][what][name].as_f64().map(|f| f.to_string()))
                    .and_then(|q| nanos(&q))
                    .filter(|n| *n != 0)
            };
            if let Some(n) = at("requests") {
                requests[i] += n;
                found[i] = true;
            }
            if let Some(n) = at("limits") {
                limits[i] += n;
                found[2 + i] = true;
                limited[i] = true;
            }
        }
        if !limited.iter().all(|l| *l) {
            guaranteed = false;
        }
    }
    if !found.iter().any(|f| *f) {
        return "BestEffort";
    }
    if guaranteed && found == [true; 4] && requests == limits {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

/// A resource quantity (`100m`, `1.5Gi`, `2e3`) in billionths, `None`
/// when it is not one.
pub(crate) fn nanos(q: &str) -> Option<i128> {
    let q = q.trim();
    let split = q
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-'))
        .unwrap_or(q.len());
    let (number, suffix) = q.split_at(split);
    let (num, scale) = decimal(number)?;
    let factor: i128 = match suffix {
        "" => 1_000_000_000,
        "n" => 1,
        "u" => 1_000,
        "m" => 1_000_000,
        "k" => 1_000_000_000_000,
        "M" => 1_000_000_000_000_000,
        "G" => 1_000_000_000_000_000_000,
        "T" => 1_000_000_000_000_000_000_000,
        "P" => 1_000_000_000_000_000_000_000_000,
        "E" => 1_000_000_000_000_000_000_000_000_000,
        "Ki" => 1_000_000_000 << 10,
        "Mi" => 1_000_000_000 << 20,
        "Gi" => 1_000_000_000 << 30,
        "Ti" => 1_000_000_000 << 40,
        "Pi" => 1_000_000_000 << 50,
        "Ei" => 1_000_000_000 << 60,
        s => {
            let e: u32 = s.strip_prefix(['e', 'E'])?.parse().ok()?;
            1_000_000_000_i128.checked_mul(10_i128.checked_pow(e)?)?
        }
    };
    num.checked_mul(factor)?
        .checked_div(10_i128.checked_pow(scale)?)
}

/// A decimal number as an integer and the count of digits after its point.
fn decimal(s: &str) -> Option<(i128, u32)> {
    let (sign, s) = match s.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, s.strip_prefix('+').unwrap_or(s)),
    };
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if whole.is_empty() && frac.is_empty() {
        return None;
    }
    let digits = format!("{whole}{frac}");
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i128 = digits.parse().ok()?;
    Some((sign * n, u32::try_from(frac.len()).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_read_as_the_api_reads_them() {
        assert_eq!(nanos("100m"), Some(100_000_000));
        assert_eq!(nanos("0.1"), Some(100_000_000));
        assert_eq!(nanos("1"), nanos("1000m"));
        assert_eq!(nanos("1Gi"), Some(1_073_741_824_000_000_000));
        assert_eq!(nanos("1G"), Some(1_000_000_000_000_000_000));
        assert_eq!(nanos("2e3"), nanos("2k"));
        assert_eq!(nanos("1.5Gi"), nanos("1536Mi"));
        assert_eq!(nanos("lots"), None);
        assert_eq!(nanos(""), None);
    }

    fn classed(containers: Value) -> &'static str {
        let mut spec = json!({"containers": containers});
        if let Some(m) = spec.as_object_mut() {
            pod_spec(m, || json!({}), "i", "Always");
            pod_decoded(m);
            pod_admitted(m);
        }
        qos_class(&spec)
    }

    #[test]
    fn a_pods_qos_class_is_the_api_servers() {
        assert_eq!(classed(json!([{"name": "a"}])), "BestEffort");
        // Requests default to limits: Guaranteed.
        assert_eq!(
            classed(json!([{"name": "a", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}])),
            "Guaranteed"
        );
        assert_eq!(
            classed(
                json!([{"name": "a", "resources": {"requests": {"cpu": "1000m", "memory": "1024Mi"},
                                                        "limits": {"cpu": "1", "memory": "1Gi"}}}])
            ),
            "Guaranteed",
            "equal quantities written differently"
        );
        assert_eq!(
            classed(
                json!([{"name": "a", "resources": {"requests": {"cpu": "100m"}, "limits": {"memory": "1Gi"}}}])
            ),
            "Burstable"
        );
        assert_eq!(
            classed(
                json!([{"name": "a", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}},
                           {"name": "b"}])
            ),
            "Burstable",
            "one container without limits"
        );
        assert_eq!(
            classed(json!([{"name": "a", "resources": {"requests": {"cpu": "0"}}}])),
            "BestEffort",
            "a zero request does not count"
        );
    }

    #[test]
    fn a_daemon_pod_tolerates_node_problems_without_end() {
        let mut spec = json!({"hostNetwork": true});
        let m = spec.as_object_mut().expect("map");
        crate::sim::controllers::daemon::tolerations(m);
        pod_admitted(m);
        let list = spec["tolerations"].as_array().expect("list");
        assert_eq!(list.len(), 7, "{list:?}");
        assert_eq!(
            list[0],
            json!({"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"})
        );
        assert!(
            list.iter().all(|t| t.get("tolerationSeconds").is_none()),
            "DefaultTolerationSeconds adds none: {list:?}"
        );
    }

    #[test]
    fn a_toleration_of_the_taint_already_there_is_not_added_again() {
        let mut spec = json!({"tolerations": [{"key": "node.kubernetes.io/unreachable", "operator": "Exists"}]});
        pod_admitted(spec.as_object_mut().expect("map"));
        let keys: Vec<&str> = spec["tolerations"]
            .as_array()
            .expect("list")
            .iter()
            .filter_map(|t| t["key"].as_str())
            .collect();
        assert_eq!(
            keys,
            [
                "node.kubernetes.io/unreachable",
                "node.kubernetes.io/not-ready"
            ]
        );
        let mut all = json!({"tolerations": [{"operator": "Exists"}]});
        pod_admitted(all.as_object_mut().expect("map"));
        assert_eq!(all["tolerations"].as_array().map(Vec::len), Some(1));
    }
}
