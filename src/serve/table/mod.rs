//! The `Table` form `kubectl get` prints: the columns kube-apiserver's
//! printers give each kind ([`printers`]), read from the object as a
//! client would GET it, so `kubectl get` and `-o wide` print what they
//! print on a real cluster.

use jiff::Timestamp;
use serde_json::{Value, json};

use crate::model::{KindInfo, KindTable, Object};

/// kubectl's `duration.HumanDuration`, as AGE shows it.
#[must_use]
pub fn human_duration(secs: i64) -> String {
    if secs < -1 {
        return "<invalid>".into();
    }
    let s = secs.max(0);
    if s < 120 {
        return format!("{s}s");
    }
    let m = s / 60;
    if m < 10 {
        let rs = s % 60;
        return if rs == 0 {
            format!("{m}m")
        } else {
            format!("{m}m{rs}s")
        };
    }
    if m < 180 {
        return format!("{m}m");
    }
    let h = m / 60;
    if h < 8 {
        let rm = m % 60;
        return if rm == 0 {
            format!("{h}h")
        } else {
            format!("{h}h{rm}m")
        };
    }
    if h < 48 {
        return format!("{h}h");
    }
    if h < 24 * 8 {
        let rh = h % 24;
        return if rh == 0 {
            format!("{}d", h / 24)
        } else {
            format!("{}d{rh}h", h / 24)
        };
    }
    if h < 24 * 365 * 2 {
        return format!("{}d", h / 24);
    }
    if h < 24 * 365 * 8 {
        let y = h / (24 * 365);
        let d = (h % (24 * 365)) / 24;
        return if d == 0 {
            format!("{y}y")
        } else {
            format!("{y}y{d}d")
        };
    }
    format!("{}y", h / (24 * 365))
}

mod cells;
mod printers;

fn column(name: &str, kind: &str, priority: u8) -> Value {
    json!({"name": name, "type": kind, "format": if name == "Name" { "name" } else { "" },
           "description": "", "priority": priority})
}

/// A table of `objects` (of `kind`), as kube-apiserver 1.20 prints them
/// ([`printers`]); each cell is read from the object as it is sent
/// (`sent`). `object` gives each row's object (`PartialObjectMetadata`
/// by default, as upstream), or `None`.
#[must_use]
pub fn table(
    kind: &KindInfo,
    objects: &[&Object],
    now: Timestamp,
    sent: impl Fn(&Object) -> Value,
    object: impl Fn(&Object) -> Option<Value>,
) -> Value {
    let builtin = KindTable::is_builtin(&kind.group, &kind.kind);
    let columns = printers::columns(&kind.group, &kind.kind, builtin);
    // An Event names itself in a column of its own, shown only wide.
    let named = !columns.iter().any(|c| c.name == "Name");
    let mut defs = Vec::new();
    if named {
        defs.push(column("Name", "string", 0));
    }
    defs.extend(
        columns
            .iter()
            .map(|c| column(c.name, c.kind, u8::from(c.wide))),
    );
    let rows: Vec<Value> = objects
        .iter()
        .map(|o| {
            let v = sent(o);
            let mut cells = Vec::with_capacity(columns.len() + 1);
            if named {
                cells.push(json!(o.name()));
            }
            cells.extend(columns.iter().map(|c| (c.cell)(&v, now)));
            let mut row = json!({"cells": cells});
            if let Some(v) = object(o) {
                row["object"] = v;
            }
            row
        })
        .collect();
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {},
        "columnDefinitions": defs,
        "rows": rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_as_kubectl_prints_them() {
        let cases = [
            (0, "0s"),
            (119, "119s"),
            (120, "2m"),
            (125, "2m5s"),
            (600, "10m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 60, "3h1m"),
            (30 * 3600, "30h"),
            (50 * 3600, "2d2h"),
            (400 * 86400, "400d"),
            (3 * 365 * 86400, "3y"),
            (-5, "<invalid>"),
        ];
        for (s, want) in cases {
            assert_eq!(human_duration(s), want, "{s}");
        }
    }

    fn kind(group: &str, kind: &str) -> KindInfo {
        let table = KindTable::builtin();
        table.get(group, kind).cloned().unwrap_or_else(|| KindInfo {
            group: group.into(),
            kind: kind.into(),
            version: "v1".into(),
            plural: format!("{}s", kind.to_lowercase()),
            namespaced: true,
            short_names: Vec::new(),
            categories: Vec::new(),
            default_policy: crate::model::DefaultPolicy::Unsupported,
            served_versions: Vec::new(),
        })
    }

    /// The table of one object sent as `v`, 65 s after it was made.
    fn table_of(group: &str, k: &str, v: Value) -> Value {
        let t0 = Timestamp::UNIX_EPOCH;
        let mut o = Object::new(
            "v1",
            k,
            Some("a"),
            v["metadata"]["name"].as_str().unwrap_or("x"),
        );
        o.metadata.creation_timestamp = Some(t0);
        let mut v = v;
        v["metadata"]["creationTimestamp"] = json!(t0.to_string());
        let now = t0 + jiff::SignedDuration::from_secs(65);
        table(&kind(group, k), &[&o], now, |_| v.clone(), |_| None)
    }

    fn names(t: &Value) -> Vec<String> {
        t["columnDefinitions"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                let star = if c["priority"] == 1 { "*" } else { "" };
                format!("{}{star}", c["name"].as_str().unwrap_or_default())
            })
            .collect()
    }

    #[test]
    fn a_terminating_pod_reads_as_kubectl_prints_it() {
        let t = table_of(
            "",
            "Pod",
            json!({
                "metadata": {"name": "p", "deletionTimestamp": "1970-01-01T00:00:00Z"},
                "spec": {"containers": [{"name": "a"}, {"name": "b"}], "nodeName": "n1"},
                "status": {"phase": "Running", "containerStatuses": [
                    {"name": "a", "ready": true, "restartCount": 2, "state": {"running": {}}},
                    {"name": "b", "ready": false, "restartCount": 1,
                     "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]},
            }),
        );
        // As kube-apiserver 1.20 answers for pods (tests/serve_conformance).
        assert_eq!(
            names(&t),
            [
                "Name",
                "Ready",
                "Status",
                "Restarts",
                "Age",
                "IP*",
                "Node*",
                "Nominated Node*",
                "Readiness Gates*"
            ]
        );
        assert_eq!(
            t["rows"][0]["cells"],
            json!([
                "p",
                "1/2",
                "Terminating",
                3,
                "65s",
                "<none>",
                "n1",
                "<none>",
                "<none>"
            ])
        );
        assert!(t["rows"][0].get("object").is_none());
    }

    #[test]
    fn a_waiting_container_names_the_pods_status() {
        let t = table_of(
            "",
            "Pod",
            json!({
                "metadata": {"name": "p"},
                "spec": {"containers": [{"name": "a"}]},
                "status": {"phase": "Pending", "containerStatuses": [
                    {"name": "a", "ready": false, "restartCount": 0,
                     "state": {"waiting": {"reason": "ImagePullBackOff"}}}]},
            }),
        );
        assert_eq!(
            t["rows"][0]["cells"],
            json!([
                "p",
                "0/1",
                "ImagePullBackOff",
                0,
                "65s",
                "<none>",
                "<none>",
                "<none>",
                "<none>"
            ])
        );
        let init = table_of(
            "",
            "Pod",
            json!({
                "metadata": {"name": "p"},
                "spec": {"initContainers": [{"name": "i"}, {"name": "j"}], "containers": [{"name": "a"}]},
                "status": {"phase": "Pending", "initContainerStatuses": [
                    {"name": "i", "restartCount": 0, "state": {"terminated": {"exitCode": 0}}},
                    {"name": "j", "restartCount": 0, "state": {"running": {}}}]},
            }),
        );
        assert_eq!(init["rows"][0]["cells"][2], "Init:1/2");
    }

    #[test]
    fn workloads_print_ready_of_desired_and_their_template() {
        let t = table_of(
            "apps",
            "Deployment",
            json!({
                "metadata": {"name": "web"},
                "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"},
                    "matchExpressions": [{"key": "tier", "operator": "In", "values": ["b", "a"]}]},
                    "template": {"spec": {"containers": [{"name": "web", "image": "nginx"},
                        {"name": "side", "image": "envoy"}]}}},
                "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2},
            }),
        );
        assert_eq!(
            names(&t),
            [
                "Name",
                "Ready",
                "Up-to-date",
                "Available",
                "Age",
                "Containers*",
                "Images*",
                "Selector*"
            ]
        );
        assert_eq!(
            t["rows"][0]["cells"],
            json!([
                "web",
                "2/3",
                3,
                2,
                "65s",
                "web,side",
                "nginx,envoy",
                "app=web,tier in (a,b)"
            ])
        );
        let rs = table_of(
            "apps",
            "ReplicaSet",
            json!({"metadata": {"name": "web-1"}, "spec": {}}),
        );
        assert_eq!(
            rs["rows"][0]["cells"],
            json!(["web-1", 1, 0, 0, "65s", "", "", "<none>"])
        );
    }

    #[test]
    fn services_print_their_addresses_and_ports() {
        let t = table_of(
            "",
            "Service",
            json!({
                "metadata": {"name": "web"},
                "spec": {"type": "NodePort", "clusterIP": "10.0.0.7", "selector": {"b": "2", "a": "1"},
                    "ports": [{"port": 80, "nodePort": 30080, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}]},
            }),
        );
        assert_eq!(
            t["rows"][0]["cells"],
            json!([
                "web",
                "NodePort",
                "10.0.0.7",
                "<none>",
                "80:30080/TCP,53/UDP",
                "65s",
                "a=1,b=2"
            ])
        );
        let lb = table_of(
            "",
            "Service",
            json!({"metadata": {"name": "lb"}, "spec": {"type": "LoadBalancer", "clusterIP": "10.0.0.8"}}),
        );
        assert_eq!(lb["rows"][0]["cells"][3], "<pending>");
    }

    #[test]
    fn kinds_without_a_printer_print_when_they_were_made() {
        let t = table_of(
            "rbac.authorization.k8s.io",
            "ClusterRole",
            json!({"metadata": {"name": "view"}}),
        );
        assert_eq!(names(&t), ["Name", "Created At"]);
        assert_eq!(
            t["rows"][0]["cells"],
            json!(["view", "1970-01-01T00:00:00Z"])
        );
        let custom = table_of("example.com", "Widget", json!({"metadata": {"name": "w"}}));
        assert_eq!(names(&custom), ["Name", "Age"]);
    }

    #[test]
    fn events_name_themselves_in_a_wide_column() {
        let t = table_of(
            "",
            "Event",
            json!({
                "metadata": {"name": "web.1"},
                "type": "Normal", "reason": "Killing", "message": "Stopping container web ",
                "involvedObject": {"kind": "Pod", "name": "web-1", "fieldPath": "spec.containers{web}"},
                "source": {"component": "kubelet", "host": "node-1"},
                "firstTimestamp": "1970-01-01T00:00:05Z", "lastTimestamp": "1970-01-01T00:00:35Z", "count": 4,
            }),
        );
        assert_eq!(
            names(&t),
            [
                "Last Seen",
                "Type",
                "Reason",
                "Object",
                "Subobject*",
                "Source*",
                "Message",
                "First Seen*",
                "Count*",
                "Name*"
            ]
        );
        assert_eq!(
            t["rows"][0]["cells"],
            json!([
                "30s",
                "Normal",
                "Killing",
                "pod/web-1",
                "spec.containers{web}",
                "kubelet, node-1",
                "Stopping container web",
                "60s",
                4,
                "web.1"
            ])
        );
    }

    #[test]
    fn nodes_jobs_and_config_print_their_state() {
        let node = table_of(
            "",
            "Node",
            json!({
                "metadata": {"name": "n1", "labels": {"node-role.kubernetes.io/master": "", "node-role.kubernetes.io/worker": ""}},
                "spec": {"unschedulable": true},
                "status": {"conditions": [{"type": "Ready", "status": "Unknown"}],
                    "nodeInfo": {"kubeletVersion": "v1.20.15"}, "addresses": [{"type": "InternalIP", "address": "10.1.1.1"}]},
            }),
        );
        assert_eq!(
            node["rows"][0]["cells"],
            json!([
                "n1",
                "NotReady,SchedulingDisabled",
                "master,worker",
                "65s",
                "v1.20.15",
                "10.1.1.1",
                "<none>",
                "<unknown>",
                "<unknown>",
                "<unknown>"
            ])
        );
        let job = table_of(
            "batch",
            "Job",
            json!({
                "metadata": {"name": "j"},
                "spec": {"completions": 3, "selector": {"matchLabels": {"controller-uid": "u"}}},
                "status": {"succeeded": 1, "startTime": "1970-01-01T00:00:10Z"},
            }),
        );
        assert_eq!(job["rows"][0]["cells"][1], "1/3");
        assert_eq!(job["rows"][0]["cells"][2], "55s");
        let cm = table_of(
            "",
            "ConfigMap",
            json!({"metadata": {"name": "c"}, "data": {"a": "1", "b": "2"}, "binaryData": {"c": ""}}),
        );
        assert_eq!(cm["rows"][0]["cells"], json!(["c", 3, "65s"]));
        let ingress = table_of(
            "networking.k8s.io",
            "Ingress",
            json!({"metadata": {"name": "i"}, "spec": {"rules": [{"host": "a"}, {}, {"host": "b"}, {"host": "c"}, {"host": "d"}]},
                   "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}, {"hostname": "lb"}]}}}),
        );
        assert_eq!(
            ingress["rows"][0]["cells"],
            json!([
                "i",
                "<none>",
                "a,b,c + 2 more...",
                "1.2.3.4,lb",
                "80",
                "65s"
            ])
        );
        let secret = table_of(
            "",
            "Secret",
            json!({"metadata": {"name": "s"}, "type": "Opaque", "data": {"a": "MQ=="}}),
        );
        assert_eq!(secret["rows"][0]["cells"], json!(["s", "Opaque", 1, "65s"]));
    }
}
