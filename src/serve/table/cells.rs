//! How each cell of [`super::printers`]'s columns is read from an object
//! as it is sent, as kube-apiserver 1.20's printers read it
//! (`pkg/printers/internalversion/printers.go`: `printPod`,
//! `getServiceExternalIP`, `formatEndpoints`, ...).

use jiff::Timestamp;
use serde_json::{Value, json};

use super::human_duration;

/// The string at `path`, or "".
pub(super) fn s<'v>(v: &'v Value, path: &str) -> &'v str {
    v.pointer(path).and_then(Value::as_str).unwrap_or_default()
}

/// The integer at `path`, or 0.
pub(super) fn n(v: &Value, path: &str) -> i64 {
    v.pointer(path).and_then(Value::as_i64).unwrap_or_default()
}

/// How many members the map or list at `path` has.
pub(super) fn len(v: &Value, path: &str) -> usize {
    match v.pointer(path) {
        Some(Value::Object(m)) => m.len(),
        Some(Value::Array(a)) => a.len(),
        _ => 0,
    }
}

pub(super) fn or_none(x: &str) -> Value {
    json!(if x.is_empty() { "<none>" } else { x })
}

pub(super) fn or_unknown(x: &str) -> Value {
    json!(if x.is_empty() { "<unknown>" } else { x })
}

/// `translateTimestampSince`: the age of an RFC 3339 time.
pub(super) fn since(t: &str, now: Timestamp) -> Value {
    match t.parse::<Timestamp>() {
        Ok(t) => json!(human_duration(now.duration_since(t).as_secs())),
        Err(_) => json!("<unknown>"),
    }
}

pub(super) fn age(v: &Value, now: Timestamp) -> Value {
    since(s(v, "/metadata/creationTimestamp"), now)
}

/// `spec.replicas`, defaulted to 1 as the API server defaults it.
pub(super) fn replicas(v: &Value) -> i64 {
    v.pointer("/spec/replicas")
        .and_then(Value::as_i64)
        .unwrap_or(1)
}

/// `ready/desired` (Deployments, StatefulSets).
pub(super) fn ready_of(v: &Value, ready: &str) -> Value {
    json!(format!("{}/{}", n(v, ready), replicas(v)))
}

/// `layoutContainerCells`: the containers' names or images, joined.
pub(super) fn containers(v: &Value, pod_spec: &str, field: &str) -> Value {
    let list: Vec<&str> = v
        .pointer(&format!("{pod_spec}/containers"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| c[field].as_str().unwrap_or_default())
        .collect();
    json!(list.join(","))
}

/// `labels.FormatLabels`: `k=v` sorted by key, or `<none>`.
pub(super) fn format_labels(map: Option<&Value>) -> Value {
    let Some(m) = map.and_then(Value::as_object).filter(|m| !m.is_empty()) else {
        return json!("<none>");
    };
    let mut pairs: Vec<String> = m
        .iter()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    pairs.sort();
    json!(pairs.join(","))
}

/// A label selector as `labels.Selector.String()` writes it: its
/// requirements sorted by key. `none` gives `<none>` for an empty one
/// (`metav1.FormatLabelSelector`); a Deployment prints it bare.
pub(super) fn format_label_selector(sel: Option<&Value>, none: bool) -> Value {
    let mut reqs: Vec<(String, String)> = Vec::new();
    if let Some(sel) = sel {
        if let Some(m) = sel["matchLabels"].as_object() {
            for (k, v) in m {
                reqs.push((k.clone(), format!("{k}={}", v.as_str().unwrap_or_default())));
            }
        }
        for e in sel["matchExpressions"].as_array().into_iter().flatten() {
            let key = e["key"].as_str().unwrap_or_default();
            let mut values: Vec<&str> = e["values"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            values.sort_unstable();
            let text = match e["operator"].as_str().unwrap_or_default() {
                "In" => format!("{key} in ({})", values.join(",")),
                "NotIn" => format!("{key} notin ({})", values.join(",")),
                "Exists" => key.to_string(),
                "DoesNotExist" => format!("!{key}"),
                _ => return json!("<error>"),
            };
            reqs.push((key.to_string(), text));
        }
    }
    reqs.sort();
    let text: Vec<String> = reqs.into_iter().map(|(_, t)| t).collect();
    if text.is_empty() && none {
        return json!("<none>");
    }
    json!(text.join(","))
}

/// A pod's ready containers of its containers (`printPod`).
pub(super) fn pod_ready(v: &Value, _: Timestamp) -> Value {
    let total = len(v, "/spec/containers");
    json!(format!("{}/{total}", pod_counts(v).1))
}

pub(super) fn pod_restarts(v: &Value, _: Timestamp) -> Value {
    json!(pod_counts(v).2)
}

pub(super) fn pod_reason(v: &Value, _: Timestamp) -> Value {
    json!(pod_counts(v).0)
}

/// `printPod`'s reason, ready containers and restarts.
pub(super) fn pod_counts(v: &Value) -> (String, usize, i64) {
    let status = &v["status"];
    let mut reason = status["phase"].as_str().unwrap_or_default().to_string();
    if let Some(r) = status["reason"].as_str().filter(|r| !r.is_empty()) {
        reason = r.to_string();
    }
    let mut restarts = 0;
    let mut ready = 0;
    let mut initializing = false;
    let inits = status["initContainerStatuses"].as_array();
    let init_total = len(v, "/spec/initContainers");
    for (i, c) in inits.into_iter().flatten().enumerate() {
        restarts += c["restartCount"].as_i64().unwrap_or_default();
        let state = &c["state"];
        let term = &state["terminated"];
        let waiting = state["waiting"]["reason"].as_str().unwrap_or_default();
        if term.is_object() && term["exitCode"].as_i64().unwrap_or_default() == 0 {
            continue;
        }
        reason = if term.is_object() {
            match term["reason"].as_str().filter(|r| !r.is_empty()) {
                Some(r) => format!("Init:{r}"),
                None => exit_text(term, "Init:"),
            }
        } else if !waiting.is_empty() && waiting != "PodInitializing" {
            format!("Init:{waiting}")
        } else {
            format!("Init:{i}/{init_total}")
        };
        initializing = true;
        break;
    }
    if !initializing {
        restarts = 0;
        let mut running = false;
        let statuses = status["containerStatuses"].as_array();
        for c in statuses.into_iter().flatten().rev() {
            restarts += c["restartCount"].as_i64().unwrap_or_default();
            let state = &c["state"];
            let term = &state["terminated"];
            if let Some(w) = state["waiting"]["reason"]
                .as_str()
                .filter(|r| !r.is_empty())
            {
                reason = w.to_string();
            } else if let Some(t) = term["reason"].as_str().filter(|r| !r.is_empty()) {
                reason = t.to_string();
            } else if term.is_object() {
                reason = exit_text(term, "");
            } else if c["ready"].as_bool() == Some(true) && state["running"].is_object() {
                running = true;
                ready += 1;
            }
        }
        if reason == "Completed" && running {
            let pod_ready = status["conditions"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|c| c["type"] == "Ready" && c["status"] == "True");
            reason = if pod_ready { "Running" } else { "NotReady" }.to_string();
        }
    }
    if v.pointer("/metadata/deletionTimestamp")
        .is_some_and(|t| !t.is_null())
    {
        reason = if status["reason"] == "NodeLost" {
            "Unknown".to_string()
        } else {
            "Terminating".to_string()
        };
    }
    (reason, ready, restarts)
}

/// `Signal:N` or `ExitCode:N` of a terminated container without a reason.
pub(super) fn exit_text(term: &Value, prefix: &str) -> String {
    match term["signal"].as_i64().filter(|s| *s != 0) {
        Some(sig) => format!("{prefix}Signal:{sig}"),
        None => format!(
            "{prefix}ExitCode:{}",
            term["exitCode"].as_i64().unwrap_or_default()
        ),
    }
}

pub(super) fn pod_ip(v: &Value, _: Timestamp) -> Value {
    let ip = v
        .pointer("/status/podIPs/0/ip")
        .and_then(Value::as_str)
        .unwrap_or_default();
    or_none(ip)
}

pub(super) fn readiness_gates(v: &Value, _: Timestamp) -> Value {
    let gates = v.pointer("/spec/readinessGates").and_then(Value::as_array);
    let Some(gates) = gates.filter(|g| !g.is_empty()) else {
        return json!("<none>");
    };
    let conditions = v.pointer("/status/conditions").and_then(Value::as_array);
    let true_ones = gates
        .iter()
        .filter(|g| {
            conditions
                .into_iter()
                .flatten()
                .any(|c| c["type"] == g["conditionType"] && c["status"] == "True")
        })
        .count();
    json!(format!("{true_ones}/{}", gates.len()))
}

/// `Ready`, `NotReady` or `Unknown`, and `SchedulingDisabled`.
pub(super) fn node_status(v: &Value, _: Timestamp) -> Value {
    let ready = v
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .rfind(|c| c["type"] == "Ready");
    let mut status = vec![match ready {
        Some(c) if c["status"] == "True" => "Ready",
        Some(_) => "NotReady",
        None => "Unknown",
    }];
    if v.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true) {
        status.push("SchedulingDisabled");
    }
    json!(status.join(","))
}

/// The roles of `node-role.kubernetes.io/ROLE` labels and the
/// `kubernetes.io/role` label, sorted, or `<none>`.
pub(super) fn node_roles(v: &Value, _: Timestamp) -> Value {
    let mut roles: Vec<&str> = Vec::new();
    for (k, val) in v
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if let Some(role) = k.strip_prefix("node-role.kubernetes.io/") {
            if !role.is_empty() {
                roles.push(role);
            }
        } else if k == "kubernetes.io/role" {
            let role = val.as_str().unwrap_or_default();
            if !role.is_empty() {
                roles.push(role);
            }
        }
    }
    roles.sort_unstable();
    roles.dedup();
    if roles.is_empty() {
        return json!("<none>");
    }
    json!(roles.join(","))
}

pub(super) fn node_address(v: &Value, kind: &str) -> Value {
    let addr = v
        .pointer("/status/addresses")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|a| a["type"] == kind)
        .and_then(|a| a["address"].as_str())
        .unwrap_or_default();
    or_none(addr)
}

pub(super) fn cluster_ip(v: &Value, _: Timestamp) -> Value {
    let ip = v
        .pointer("/spec/clusterIPs/0")
        .and_then(Value::as_str)
        .unwrap_or_else(|| s(v, "/spec/clusterIP"));
    or_none(ip)
}

/// `getServiceExternalIP`.
pub(super) fn external_ip(v: &Value, _: Timestamp) -> Value {
    let externals: Vec<&str> = v
        .pointer("/spec/externalIPs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    match s(v, "/spec/type") {
        "ClusterIP" | "NodePort" => {
            if externals.is_empty() {
                json!("<none>")
            } else {
                json!(externals.join(","))
            }
        }
        "LoadBalancer" => {
            let mut all = load_balancer(v.pointer("/status/loadBalancer/ingress"));
            if !externals.is_empty() {
                if !all.is_empty() {
                    all.push(',');
                }
                all.push_str(&externals.join(","));
            }
            if all.is_empty() {
                json!("<pending>")
            } else {
                json!(all)
            }
        }
        "ExternalName" => json!(s(v, "/spec/externalName")),
        _ => json!("<unknown>"),
    }
}

/// `loadBalancerStatusStringer` (wide, as the server prints): the
/// load balancer's IPs or host names, joined.
pub(super) fn load_balancer(ingress: Option<&Value>) -> String {
    let list: Vec<&str> = ingress
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|i| i["ip"].as_str().or_else(|| i["hostname"].as_str()))
        .collect();
    list.join(",")
}

/// `formatHosts`: an Ingress's hosts until three are found (`+ N
/// more...` counting the rules past three), or `*`.
pub(super) fn ingress_hosts(v: &Value, _: Timestamp) -> Value {
    let rules = v.pointer("/spec/rules").and_then(Value::as_array);
    let rules: &[Value] = rules.map_or(&[], Vec::as_slice);
    let (mut hosts, mut more) = (Vec::new(), false);
    for r in rules {
        more |= hosts.len() == 3;
        if let Some(h) = r["host"].as_str().filter(|h| !more && !h.is_empty()) {
            hosts.push(h);
        }
    }
    if hosts.is_empty() {
        return json!("*");
    }
    let mut text = hosts.join(",");
    if more {
        text.push_str(&format!(" + {} more...", rules.len() - 3));
    }
    json!(text)
}

/// `makePortString`: `port[:nodePort]/protocol`, joined, or `<none>`.
pub(super) fn service_ports(v: &Value, _: Timestamp) -> Value {
    let ports: Vec<String> = v
        .pointer("/spec/ports")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|p| {
            let protocol = p["protocol"].as_str().unwrap_or("TCP");
            let port = p["port"].as_i64().unwrap_or_default();
            match p["nodePort"].as_i64().filter(|n| *n > 0) {
                Some(node) => format!("{port}:{node}/{protocol}"),
                None => format!("{port}/{protocol}"),
            }
        })
        .collect();
    if ports.is_empty() {
        return json!("<none>");
    }
    json!(ports.join(","))
}

/// `formatEndpoints`: `ip:port` of the first three, `+ N more...`.
pub(super) fn endpoints(v: &Value, _: Timestamp) -> Value {
    let mut list: Vec<String> = Vec::new();
    let mut count = 0;
    for subset in v["subsets"].as_array().into_iter().flatten() {
        let ports: Vec<i64> = subset["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| p["port"].as_i64().unwrap_or_default())
            .collect();
        for a in subset["addresses"].as_array().into_iter().flatten() {
            let ip = a["ip"].as_str().unwrap_or_default();
            if ports.is_empty() {
                count += 1;
                if list.len() < 3 {
                    list.push(ip.to_string());
                }
            }
            for p in &ports {
                count += 1;
                if list.len() < 3 {
                    list.push(format!("{ip}:{p}"));
                }
            }
        }
    }
    if count == 0 {
        return json!("<none>");
    }
    let mut text = list.join(",");
    if count > 3 {
        text.push_str(&format!(" + {} more...", count - 3));
    }
    json!(text)
}

pub(super) fn event_first_seen(v: &Value, now: Timestamp) -> Value {
    let first = s(v, "/firstTimestamp");
    if first.is_empty() {
        let event_time = s(v, "/eventTime");
        if event_time.is_empty() {
            return json!("<unknown>");
        }
        return since(event_time, now);
    }
    since(first, now)
}

pub(super) fn event_last_seen(v: &Value, now: Timestamp) -> Value {
    if let Some(t) = v
        .pointer("/series/lastObservedTime")
        .and_then(Value::as_str)
    {
        return since(t, now);
    }
    let last = s(v, "/lastTimestamp");
    if last.is_empty() {
        return event_first_seen(v, now);
    }
    since(last, now)
}

pub(super) fn event_count(v: &Value, _: Timestamp) -> Value {
    if let Some(c) = v.pointer("/series/count").and_then(Value::as_i64) {
        return json!(c);
    }
    json!(n(v, "/count").max(1))
}

/// `pod/web-1`, as the event printer names the object.
pub(super) fn event_object(v: &Value, _: Timestamp) -> Value {
    let kind = s(v, "/involvedObject/kind").to_lowercase();
    let name = s(v, "/involvedObject/name");
    if name.is_empty() {
        return json!(kind);
    }
    json!(format!("{kind}/{name}"))
}

/// `formatEventSource`: `component, host`.
pub(super) fn event_source(v: &Value, _: Timestamp) -> Value {
    let component = s(v, "/source/component");
    let host = s(v, "/source/host");
    json!(if host.is_empty() {
        component.to_string()
    } else {
        format!("{component}, {host}")
    })
}

/// `GetAccessModesAsString`: RWO, ROX, RWX in that order.
pub(super) fn access_modes(v: &Value, path: &str) -> Value {
    let modes: Vec<&str> = v
        .pointer(path)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let short: Vec<&str> = [
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
    ]
    .iter()
    .filter(|(long, _)| modes.contains(long))
    .map(|(_, s)| *s)
    .collect();
    json!(short.join(","))
}

pub(super) fn volume_phase(v: &Value, _: Timestamp) -> Value {
    if v.pointer("/metadata/deletionTimestamp")
        .is_some_and(|t| !t.is_null())
    {
        return json!("Terminating");
    }
    json!(s(v, "/status/phase"))
}

pub(super) fn pv_claim(v: &Value, _: Timestamp) -> Value {
    match v.pointer("/spec/claimRef") {
        Some(c) if c.is_object() => json!(format!("{}/{}", s(c, "/namespace"), s(c, "/name"))),
        _ => json!(""),
    }
}

/// `storageClassName`, or the beta annotation it replaced.
pub(super) fn storage_class(v: &Value, _: Timestamp) -> Value {
    let beta = v
        .pointer("/metadata/annotations/volume.beta.kubernetes.io~1storage-class")
        .and_then(Value::as_str);
    json!(beta.unwrap_or_else(|| s(v, "/spec/storageClassName")))
}

pub(super) fn volume_mode(v: &Value, _: Timestamp) -> Value {
    let mode = s(v, "/spec/volumeMode");
    json!(if mode.is_empty() { "<unset>" } else { mode })
}

/// A claim's capacity and access modes show once it names its volume.
pub(super) fn pvc_capacity(v: &Value, _: Timestamp) -> Value {
    if s(v, "/spec/volumeName").is_empty() {
        return json!("");
    }
    json!(s(v, "/status/capacity/storage"))
}

pub(super) fn pvc_access_modes(v: &Value, _: Timestamp) -> Value {
    if s(v, "/spec/volumeName").is_empty() {
        return json!("");
    }
    access_modes(v, "/status/accessModes")
}

/// `resource: used/hard` of a quota's requests or its `limits.*`.
pub(super) fn quota(v: &Value, limits: bool) -> Value {
    let hard = v.pointer("/status/hard").and_then(Value::as_object);
    let mut names: Vec<&String> = hard.into_iter().flat_map(|m| m.keys()).collect();
    names.sort();
    let parts: Vec<String> = names
        .into_iter()
        .filter(|r| r.starts_with("limits.") == limits)
        .map(|r| {
            let used = v
                .pointer(&format!(
                    "/status/used/{}",
                    r.replace('~', "~0").replace('/', "~1")
                ))
                .map_or_else(|| "0".to_string(), quantity);
            format!(
                "{r}: {used}/{}",
                quantity(&hard.map_or(Value::Null, |h| h[r].clone()))
            )
        })
        .collect();
    json!(parts.join(", "))
}

pub(super) fn quantity(q: &Value) -> String {
    match q {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => "0".to_string(),
    }
}

/// The subjects of a binding of one kind (service accounts as `ns/name`).
pub(super) fn subjects(v: &Value, kind: &str) -> Value {
    let names: Vec<String> = v["subjects"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["kind"] == kind)
        .map(|sub| {
            let name = s(sub, "/name");
            if kind == "ServiceAccount" {
                format!("{}/{name}", s(sub, "/namespace"))
            } else {
                name.to_string()
            }
        })
        .collect();
    json!(names.join(", "))
}

/// `True`, or `False (Reason)`, of an APIService's Available condition.
pub(super) fn api_service_available(v: &Value, _: Timestamp) -> Value {
    let cond = v
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Available");
    match cond {
        None => json!("Unknown"),
        Some(c) if c["status"] == "True" => json!("True"),
        Some(c) => json!(format!(
            "{} ({})",
            c["status"].as_str().unwrap_or_default(),
            c["reason"].as_str().unwrap_or_default()
        )),
    }
}

pub(super) fn int_or_string(v: &Value, path: &str) -> Value {
    match v.pointer(path) {
        Some(Value::String(s)) => json!(s),
        Some(Value::Number(n)) => json!(n.to_string()),
        _ => json!("N/A"),
    }
}

/// `succeeded/completions` (`/1`, or `/1 of P` when only parallel).
pub(super) fn job_completions(v: &Value, _: Timestamp) -> Value {
    let succeeded = n(v, "/status/succeeded");
    if let Some(c) = v.pointer("/spec/completions").and_then(Value::as_i64) {
        return json!(format!("{succeeded}/{c}"));
    }
    let parallelism = n(v, "/spec/parallelism");
    if parallelism > 1 {
        return json!(format!("{succeeded}/1 of {parallelism}"));
    }
    json!(format!("{succeeded}/1"))
}

/// From its start to its completion, or to now.
pub(super) fn job_duration(v: &Value, now: Timestamp) -> Value {
    let start = s(v, "/status/startTime").parse::<Timestamp>();
    let Ok(start) = start else {
        return json!("");
    };
    let end = s(v, "/status/completionTime")
        .parse::<Timestamp>()
        .unwrap_or(now);
    json!(human_duration(end.duration_since(start).as_secs()))
}
