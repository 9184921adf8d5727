//! What a client's update may not change of an object, as kube-apiserver
//! 1.20 refuses it (422 Invalid, in its words): a pod's spec but for its
//! images, `activeDeadlineSeconds` and added tolerations
//! (`ValidatePodUpdate`), a workload's selector (the apps strategies'
//! `ValidateUpdate`), a StatefulSet's spec but for its replicas, template
//! and update strategy (`ValidateStatefulSetUpdate`), a Job's completions
//! and template (`ValidateJobSpecUpdate`), a Service's cluster IPs
//! (`validateUpgradeDowngradeClusterIPs`), a claim's spec but for the
//! size of a bound one (`ValidatePersistentVolumeClaimUpdate`), a
//! binding's `roleRef` (`ValidateRoleBindingUpdate`). Both objects are as the API
//! server holds them, defaults set: the stored one as serve sends it, the
//! written one with the defaults its decoding and admission add.
//!
//! Only writes of the object are checked: a write of its `status` keeps
//! the stored spec (the status strategies' `PrepareForUpdate`), and the
//! simulator's own controllers write to the store, not through here.

use serde_json::Value;

use super::super::escalation::go_quote;
use super::go_diff::diff;
use super::go_value::{self, Go, label_selector_gosyntax, strings_gosyntax};
use super::{Cause, invalid_value};
use crate::model::KindInfo;
use crate::model::selector::Selector;

/// Upstream's text before a pod spec's diff.
pub const POD_SPEC_FORBIDDEN: &str = "pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or `spec.tolerations` (only additions to existing tolerations)";

const STATEFULSET_FORBIDDEN: &str = "updates to statefulset spec for fields other than 'replicas', 'template', and 'updateStrategy' are forbidden";

fn forbidden(field: &str, detail: &str) -> Cause {
    Cause {
        field: field.to_string(),
        reason: "FieldValueForbidden",
        message: format!("Forbidden: {detail}"),
    }
}

/// `field.Invalid` of a value printed as Go's `%v` (numbers) or `%#v`.
fn invalid_printed(field: &str, printed: &str, detail: &str) -> Cause {
    Cause {
        field: field.to_string(),
        reason: "FieldValueInvalid",
        message: format!("Invalid value: {printed}: {detail}"),
    }
}

/// What a write of the `status` subresource may not change: the
/// `collisionCount` of a Deployment, StatefulSet or DaemonSet goes down
/// or away (`ValidateDeploymentStatusUpdate`,
/// `ValidateStatefulSetStatusUpdate`, `ValidateDaemonSetStatusUpdate`:
/// `IsDecremented`).
pub(super) fn status_causes(kind: &KindInfo, new: &Value, old: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    if kind.group == "apps"
        && matches!(
            kind.kind.as_str(),
            "Deployment" | "StatefulSet" | "DaemonSet"
        )
    {
        let count = |v: &Value| v["status"]["collisionCount"].as_i64();
        let decremented = match (count(new), count(old)) {
            (None, Some(_)) => true,
            (Some(n), Some(o)) => n < o,
            _ => false,
        };
        if decremented {
            out.push(invalid_printed(
                "status.collisionCount",
                &count(new).unwrap_or_default().to_string(),
                "cannot be decremented",
            ));
        }
    }
    out
}

/// Whether `kind` has rules here.
#[must_use]
pub fn checks(kind: &KindInfo) -> bool {
    matches!(
        (kind.group.as_str(), kind.kind.as_str()),
        ("", "Pod" | "Service" | "PersistentVolumeClaim")
            | (
                "apps",
                "Deployment" | "ReplicaSet" | "DaemonSet" | "StatefulSet"
            )
            | ("batch", "Job")
            | (
                "rbac.authorization.k8s.io",
                "RoleBinding" | "ClusterRoleBinding"
            )
    )
}

/// What `new` may not change of `old` (both whole objects, defaults set).
pub(super) fn causes(kind: &KindInfo, new: &Value, old: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    match (kind.group.as_str(), kind.kind.as_str()) {
        ("", "Pod") => pod(&new["spec"], &old["spec"], &mut out),
        ("", "Service") => service(&new["spec"], &old["spec"], &mut out),
        ("", "PersistentVolumeClaim") => claim(new, old, &mut out),
        ("rbac.authorization.k8s.io", _) => role_ref(new, old, &mut out),
        ("apps", "Deployment" | "ReplicaSet" | "DaemonSet") => {
            template_selected(&new["spec"], &old["spec"], &mut out);
            selector_kept(&new["spec"], &old["spec"], &mut out);
        }
        ("apps", "StatefulSet") => {
            template_selected(&new["spec"], &old["spec"], &mut out);
            stateful_set(&new["spec"], &old["spec"], &mut out);
        }
        ("batch", "Job") => {
            let (n, o) = (&new["spec"]["completions"], &old["spec"]["completions"]);
            if n != o {
                // `ValidateImmutableField` of a `*int32`: its value, or
                // "null".
                let printed = n
                    .as_i64()
                    .map_or_else(|| go_quote("null"), |c| c.to_string());
                out.push(invalid_printed(
                    "spec.completions",
                    &printed,
                    "field is immutable",
                ));
            }
            job_template(&new["spec"]["template"], &old["spec"]["template"], &mut out);
        }
        _ => {}
    }
    out
}

fn array(v: &Value) -> &[Value] {
    v.as_array().map_or(&[], Vec::as_slice)
}

/// `ValidateJobSpecUpdate`'s `ValidateImmutableField` of the template,
/// printed as `%#v` prints a `core.PodTemplateSpec`.
fn job_template(new: &Value, old: &Value, out: &mut Vec<Cause>) {
    let meta = |t: &Value, k: &str| {
        let m = &t["metadata"][k];
        if m.as_object().is_none_or(serde_json::Map::is_empty) {
            Value::Null
        } else {
            m.clone()
        }
    };
    let same = ["labels", "annotations"]
        .iter()
        .all(|k| meta(new, k) == meta(old, k))
        && semantic_eq(
            &go_value::pod_spec(&new["spec"]),
            &go_value::pod_spec(&old["spec"]),
        );
    if !same {
        out.push(invalid_printed(
            "spec.template",
            &go_value::pod_template_gosyntax(new),
            "field is immutable",
        ));
    }
}

/// `ValidateContainerUpdates`: `true` when validation stops here.
fn containers(new: &Value, old: &Value, field: &str, out: &mut Vec<Cause>) -> bool {
    let (n, o) = (array(new), array(old));
    if n.len() != o.len() {
        out.push(forbidden(
            field,
            "pod updates may not add or remove containers",
        ));
        return true;
    }
    for (i, c) in n.iter().enumerate() {
        let image = c["image"].as_str().unwrap_or_default();
        let at = format!("{field}[{i}].image");
        if image.is_empty() {
            out.push(Cause {
                field: at.clone(),
                reason: "FieldValueRequired",
                message: "Required value".into(),
            });
        }
        if image.trim() != image {
            out.push(invalid_value(
                &at,
                image,
                "must not have leading or trailing whitespace",
            ));
        }
    }
    false
}

/// `ValidatePodUpdate` (1.20, `pkg/apis/core/validation`): containers
/// neither added nor removed, images set; `activeDeadlineSeconds` set
/// from nil or lowered, never unset; existing tolerations kept
/// (`validateOnlyAddedTolerations`); and with those taken from the old
/// spec, nothing else changed, or the diff `cmp.Diff(munged, old)`.
fn pod(new: &Value, old: &Value, out: &mut Vec<Cause>) {
    if containers(
        &new["containers"],
        &old["containers"],
        "spec.containers",
        out,
    ) || containers(
        &new["initContainers"],
        &old["initContainers"],
        "spec.initContainers",
        out,
    ) {
        return;
    }
    let deadline = "spec.activeDeadlineSeconds";
    match (
        new["activeDeadlineSeconds"].as_i64(),
        old["activeDeadlineSeconds"].as_i64(),
    ) {
        (Some(n), _) if !(0..=i64::from(i32::MAX)).contains(&n) => {
            out.push(invalid_printed(
                deadline,
                &n.to_string(),
                "must be between 0 and 2147483647, inclusive",
            ));
            return;
        }
        (Some(n), Some(o)) if o < n => {
            out.push(invalid_printed(
                deadline,
                &n.to_string(),
                "must be less than or equal to previous value",
            ));
            return;
        }
        (None, Some(_)) => out.push(invalid_printed(
            deadline,
            &go_quote("null"),
            "must not update from a positive integer to nil value",
        )),
        _ => {}
    }
    let mut munged = new.clone();
    for list in ["containers", "initContainers"] {
        if let Some(items) = munged.get_mut(list).and_then(Value::as_array_mut) {
            for (c, was) in items.iter_mut().zip(array(&old[list])) {
                if let Some(c) = c.as_object_mut() {
                    c.insert("image".into(), was["image"].clone());
                }
            }
        }
    }
    if let Some(m) = munged.as_object_mut() {
        for k in ["activeDeadlineSeconds", "tolerations"] {
            match old.get(k) {
                Some(v) => m.insert(k.into(), v.clone()),
                None => m.remove(k),
            };
        }
    }
    only_added_tolerations(&new["tolerations"], &old["tolerations"], out);
    let (munged, old) = (go_value::pod_spec(&munged), go_value::pod_spec(old));
    if !semantic_eq(&munged, &old) {
        out.push(forbidden(
            "spec",
            &format!("{POD_SPEC_FORBIDDEN}\n{}", diff(&munged, &old)),
        ));
    }
}

/// `validateOnlyAddedTolerations`: each old toleration is among the new
/// ones, but for its `tolerationSeconds`.
fn only_added_tolerations(new: &Value, old: &Value, out: &mut Vec<Cause>) {
    let without_seconds = |t: &Value| {
        let mut g = go_value::of("core.Toleration", Some(t));
        if let Go::Struct(_, fields) = &mut g {
            fields.retain(|(k, _)| *k != "TolerationSeconds");
        }
        g
    };
    let new: Vec<Go> = array(new).iter().map(without_seconds).collect();
    if array(old)
        .iter()
        .any(|o| !new.contains(&without_seconds(o)))
    {
        out.push(forbidden(
            "spec.tolerations",
            "existing toleration can not be modified except its tolerationSeconds",
        ));
    }
}

/// `apiequality.Semantic.DeepEqual`: as `==`, but a nil slice or map
/// equals an empty one.
fn semantic_eq(a: &Go, b: &Go) -> bool {
    let empty = |g: &Go| match g {
        Go::Nil => true,
        Go::Slice(_, v) => v.is_empty(),
        Go::Map(_, v) => v.is_empty(),
        _ => false,
    };
    match (a, b) {
        (Go::Ptr(x), Go::Ptr(y)) => semantic_eq(x, y),
        (Go::Struct(_, x), Go::Struct(_, y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((_, p), (_, q))| semantic_eq(p, q))
        }
        (Go::Slice(_, x), Go::Slice(_, y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| semantic_eq(p, q))
        }
        (Go::Map(_, x), Go::Map(_, y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k, p), (l, q))| k == l && semantic_eq(p, q))
        }
        (Go::Whole(_, x), Go::Whole(_, y)) => x == y,
        _ if empty(a) && empty(b) => true,
        _ => a == b,
    }
}

/// `ValidateDeploymentSpec`, `ValidateReplicaSetSpec`,
/// `ValidateDaemonSetSpec`, `ValidateStatefulSetSpec`: a selector that
/// selects something must select the template's labels. Checked on an
/// update (a create is not checked here) whose stored object holds to
/// it: a scenario's workload keeps only what the simulator reads, often
/// no template labels, and is not held to a rule it was never made by.
fn template_selected(spec: &Value, old: &Value, out: &mut Vec<Cause>) {
    let mut before = Vec::new();
    unselected_template(old, &mut before);
    if before.is_empty() {
        unselected_template(spec, out);
    }
}

fn unselected_template(spec: &Value, out: &mut Vec<Cause>) {
    let selector = Selector::from_label_selector(spec.get("selector"));
    let empty = matches!(&selector, Selector::All(reqs) if reqs.is_empty());
    let labels_v = &spec["template"]["metadata"]["labels"];
    let labels = labels_v
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default();
    if !empty && selector != Selector::Nothing && !selector.matches(&labels) {
        out.push(invalid_printed(
            "spec.template.metadata.labels",
            &go_value::string_map_gosyntax(Some(labels_v)),
            "`selector` does not match template `labels`",
        ));
    }
}

/// The apps strategies' `ValidateUpdate` (Deployment, ReplicaSet,
/// DaemonSet, in `apps/v1`): `ValidateImmutableField` of `spec.selector`.
fn selector_kept(new: &Value, old: &Value, out: &mut Vec<Cause>) {
    if new["selector"] != old["selector"] {
        out.push(invalid_printed(
            "spec.selector",
            &label_selector_gosyntax(&new["selector"]),
            "field is immutable",
        ));
    }
}

/// `ValidateStatefulSetUpdate`: with the replicas, template and update
/// strategy taken from the old spec, the spec is the old one.
fn stateful_set(new: &Value, old: &Value, out: &mut Vec<Cause>) {
    let rest = |spec: &Value| {
        let mut s = spec.clone();
        if let Some(m) = s.as_object_mut() {
            for k in ["replicas", "template", "updateStrategy"] {
                m.remove(k);
            }
        }
        s
    };
    if rest(new) != rest(old) {
        out.push(forbidden("spec", STATEFULSET_FORBIDDEN));
    }
}

/// `ValidatePersistentVolumeClaimUpdate` (1.20, `ExpandPersistentVolumes`
/// on): the spec is the old one, but for `volumeName` once set and a
/// bound claim's requested storage, which may only grow. (The status is
/// the stored one: the strategy keeps it.) Not followed: the move from
/// the beta storage-class annotation to `storageClassName`.
fn claim(new: &Value, old: &Value, out: &mut Vec<Cause>) {
    let mut new_spec = new["spec"].clone();
    let mut old_spec = old["spec"].clone();
    if old_spec["volumeName"].as_str().is_none_or(str::is_empty)
        && let Some(m) = old_spec.as_object_mut()
    {
        match new_spec.get("volumeName") {
            Some(v) => m.insert("volumeName".into(), v.clone()),
            None => m.remove("volumeName"),
        };
    }
    let storage = |spec: &Value| spec["resources"]["requests"]["storage"].clone();
    if old["status"]["phase"] == "Bound"
        && let Some(requests) = new_spec
            .pointer_mut("/resources/requests")
            .and_then(Value::as_object_mut)
    {
        requests.insert("storage".into(), storage(&old["spec"]));
    }
    let ty = "core.PersistentVolumeClaimSpec";
    let (n, o) = (
        go_value::of(ty, Some(&new_spec)),
        go_value::of(ty, Some(&old_spec)),
    );
    if !semantic_eq(&n, &o) {
        out.push(forbidden(
            "spec",
            &format!(
                "spec is immutable after creation except resources.requests for bound claims\n{}",
                diff(&n, &o)
            ),
        ));
    }
    let size = |spec: &Value| {
        storage(spec)
            .as_str()
            .and_then(super::super::pod_defaults::nanos)
            .unwrap_or_default()
    };
    if size(&new["spec"]) < size(&old["spec"]) {
        out.push(forbidden(
            "spec.resources.requests.storage",
            "field can not be less than previous value",
        ));
    }
}

/// `ValidateRoleBindingUpdate`, `ValidateClusterRoleBindingUpdate`: a
/// binding's `roleRef` is its for life.
fn role_ref(new: &Value, old: &Value, out: &mut Vec<Cause>) {
    let parts = |v: &Value| {
        ["apiGroup", "kind", "name"]
            .map(|k| v["roleRef"][k].as_str().unwrap_or_default().to_string())
    };
    let [group, kind, name] = parts(new);
    if [&group, &kind, &name] != parts(old).each_ref() {
        out.push(invalid_printed(
            "roleRef",
            &format!(
                "rbac.RoleRef{{APIGroup:{}, Kind:{}, Name:{}}}",
                go_quote(&group),
                go_quote(&kind),
                go_quote(&name)
            ),
            "cannot change roleRef",
        ));
    }
}

/// 1.20's Service strategy (`NormalizeClusterIPs` on update) and
/// `validateUpgradeDowngradeClusterIPs`: the primary cluster IP may be
/// neither changed nor unset.
fn service(new: &Value, old: &Value, out: &mut Vec<Cause>) {
    let external = |s: &Value| s["type"] == "ExternalName";
    if external(new) || external(old) {
        return;
    }
    let ips = |s: &Value| -> Vec<String> {
        array(&s["clusterIPs"])
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_string())
            .collect()
    };
    let ip = |s: &Value| s["clusterIP"].as_str().unwrap_or_default().to_string();
    let (old_ips, old_ip, new_ip) = (ips(old), ip(old), ip(new));
    let mut new_ips = ips(new);
    let mut new_list = new.get("clusterIPs").filter(|v| !v.is_null()).cloned();
    // `NormalizeClusterIPs`.
    if !old_ips.is_empty() && new_ips.is_empty() && old_ip == new_ip {
        new_ips.clone_from(&old_ips);
        new_list = Some(old["clusterIPs"].clone());
    }
    if old_ip != new_ip && new_ips == old_ips {
        if !old_ip.is_empty() && new_ip.is_empty() {
            new_ips.clear();
            new_list = None;
        } else {
            new_ips = vec![new_ip.clone()];
            new_list = Some(Value::from(vec![new_ip]));
        }
    }
    let headless = |v: &[String]| v.len() == 1 && v[0] == "None";
    if headless(&old_ips) && headless(&new_ips) {
        return;
    }
    let printed = strings_gosyntax(new_list.as_ref());
    let at = |i: usize| format!("spec.clusterIPs[{i}]");
    let changed = "may not change once set";
    if old_ips.len() == new_ips.len() {
        for (i, (o, n)) in old_ips.iter().zip(&new_ips).enumerate() {
            if o != n {
                out.push(invalid_printed(&at(i), &printed, changed));
            }
        }
    } else if new_ips.is_empty() {
        out.push(invalid_printed(
            &at(0),
            &printed,
            "primary clusterIP can not be unset",
        ));
    } else if !old_ips.is_empty() && new_ips[0] != old_ips[0] {
        out.push(invalid_printed(&at(0), &printed, changed));
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::kind;
    use super::*;
    use serde_json::json;

    fn messages(c: &[Cause]) -> Vec<String> {
        c.iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect()
    }

    fn pod_with(spec: Value) -> Value {
        json!({"spec": spec})
    }

    fn spec() -> Value {
        json!({"containers": [{"name": "c", "image": "busybox:1"}],
               "tolerations": [{"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}],
               "restartPolicy": "Always", "terminationGracePeriodSeconds": 30})
    }

    #[test]
    fn a_pod_takes_a_new_image_a_lower_deadline_and_added_tolerations() {
        let old = spec();
        let mut new = spec();
        new["containers"][0]["image"] = json!("busybox:2");
        new["activeDeadlineSeconds"] = json!(100);
        new["tolerations"][0]["tolerationSeconds"] = json!(10);
        new["tolerations"]
            .as_array_mut()
            .expect("a list")
            .push(json!({"key": "b", "operator": "Exists"}));
        let c = causes(&kind("", "Pod"), &pod_with(new.clone()), &pod_with(old));
        assert!(c.is_empty(), "{:?}", messages(&c));
        // Lowered, then raised.
        let mut lower = new.clone();
        lower["activeDeadlineSeconds"] = json!(50);
        assert!(
            causes(
                &kind("", "Pod"),
                &pod_with(lower.clone()),
                &pod_with(new.clone())
            )
            .is_empty()
        );
        assert_eq!(
            messages(&causes(
                &kind("", "Pod"),
                &pod_with(new.clone()),
                &pod_with(lower.clone())
            )),
            [
                "spec.activeDeadlineSeconds: Invalid value: 100: must be less than or equal to previous value"
            ]
        );
        // Unset: 1.20 prints the nil as the string "null".
        let mut unset = lower.clone();
        unset
            .as_object_mut()
            .expect("a map")
            .remove("activeDeadlineSeconds");
        assert_eq!(
            messages(&causes(
                &kind("", "Pod"),
                &pod_with(unset),
                &pod_with(lower)
            )),
            [
                "spec.activeDeadlineSeconds: Invalid value: \"null\": must not update from a positive integer to nil value"
            ]
        );
    }

    #[test]
    fn a_pod_refuses_containers_added_tolerations_removed_and_other_fields() {
        let old = spec();
        let mut added = spec();
        added["containers"]
            .as_array_mut()
            .expect("a list")
            .push(json!({"name": "d", "image": "x"}));
        assert_eq!(
            messages(&causes(
                &kind("", "Pod"),
                &pod_with(added),
                &pod_with(old.clone())
            )),
            ["spec.containers: Forbidden: pod updates may not add or remove containers"]
        );
        let mut blank = spec();
        blank["containers"][0]["image"] = json!(" x");
        let c = messages(&causes(
            &kind("", "Pod"),
            &pod_with(blank),
            &pod_with(old.clone()),
        ));
        assert_eq!(
            c[0],
            "spec.containers[0].image: Invalid value: \" x\": must not have leading or trailing whitespace"
        );
        let mut removed = spec();
        removed["tolerations"] = json!([]);
        assert_eq!(
            messages(&causes(
                &kind("", "Pod"),
                &pod_with(removed),
                &pod_with(old.clone())
            )),
            [
                "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"
            ]
        );
        let mut grace = spec();
        grace["terminationGracePeriodSeconds"] = json!(10);
        let c = causes(&kind("", "Pod"), &pod_with(grace), &pod_with(old));
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].field, "spec");
        assert_eq!(c[0].reason, "FieldValueForbidden");
        assert!(
            c[0].message.starts_with(&format!(
                "Forbidden: {POD_SPEC_FORBIDDEN}\n  core.PodSpec{{"
            )),
            "{}",
            c[0].message
        );
        assert!(c[0].message.contains(
            "- \tTerminationGracePeriodSeconds: &10,\n+ \tTerminationGracePeriodSeconds: &30,"
        ));
    }

    #[test]
    fn a_workload_keeps_its_selector_and_a_statefulset_its_spec() {
        let d = |app: &str| {
            json!({"spec": {"replicas": 1, "selector": {"matchLabels": {"app": app}},
                            "template": {"metadata": {"labels": {"app": app}}}}})
        };
        assert!(causes(&kind("apps", "Deployment"), &d("a"), &d("a")).is_empty());
        assert_eq!(
            messages(&causes(&kind("apps", "Deployment"), &d("b"), &d("a"))),
            [
                "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"b\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable"
            ]
        );
        // The selector alone: the template is not selected either.
        let mut only = d("b");
        only["spec"]["template"] = d("a")["spec"]["template"].clone();
        assert_eq!(
            messages(&causes(&kind("apps", "ReplicaSet"), &only, &d("a")))[0],
            "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"a\"}: `selector` does not match template `labels`"
        );
        let mut scaled = d("a");
        scaled["spec"]["replicas"] = json!(3);
        scaled["spec"]["template"]["metadata"]["annotations"] = json!({"x": "y"});
        assert!(causes(&kind("apps", "StatefulSet"), &scaled, &d("a")).is_empty());
        let mut renamed = d("a");
        renamed["spec"]["serviceName"] = json!("other");
        assert_eq!(
            messages(&causes(&kind("apps", "StatefulSet"), &renamed, &d("a"))),
            [format!("spec: Forbidden: {STATEFULSET_FORBIDDEN}")]
        );
    }

    /// What 1.20.2 answered on the test control plane for the same
    /// changes of a claim it had not bound.
    #[test]
    fn a_claim_keeps_its_spec_as_on_a_real_control_plane() {
        let pvc = |modes: Value, storage: &str, class: Option<&str>| {
            json!({"spec": {"accessModes": modes, "resources": {"requests": {"storage": storage}},
                            "volumeMode": "Filesystem", "storageClassName": class},
                   "status": {"phase": "Pending"}})
        };
        let old = pvc(json!(["ReadWriteOnce"]), "1Gi", None);
        let k = kind("", "PersistentVolumeClaim");
        assert!(causes(&k, &old, &old).is_empty());
        let head = "spec: Forbidden: spec is immutable after creation except resources.requests for bound claims\n";
        assert_eq!(
            messages(&causes(
                &k,
                &pvc(json!(["ReadWriteMany"]), "1Gi", None),
                &old
            )),
            [format!(
                "{head}  core.PersistentVolumeClaimSpec{{\n- \tAccessModes: []core.PersistentVolumeAccessMode{{\"ReadWriteMany\"}},\n+ \tAccessModes: []core.PersistentVolumeAccessMode{{\"ReadWriteOnce\"}},\n  \tSelector:    nil,\n  \tResources:   {{Requests: {{s\"storage\": {{i: {{...}}, s: \"1Gi\", Format: \"BinarySI\"}}}}}},\n  \t... // 4 identical fields\n  }}\n"
            )]
        );
        assert_eq!(
            messages(&causes(
                &k,
                &pvc(json!(["ReadWriteOnce"]), "2Gi", None),
                &old
            )),
            [format!(
                "{head}  core.PersistentVolumeClaimSpec{{\n  \tAccessModes: {{\"ReadWriteOnce\"}},\n  \tSelector:    nil,\n  \tResources: core.ResourceRequirements{{\n  \t\tLimits: nil,\n- \t\tRequests: core.ResourceList{{\n- \t\t\ts\"storage\": {{i: resource.int64Amount{{value: 2147483648}}, s: \"2Gi\", Format: \"BinarySI\"}},\n- \t\t}},\n+ \t\tRequests: core.ResourceList{{\n+ \t\t\ts\"storage\": {{i: resource.int64Amount{{value: 1073741824}}, s: \"1Gi\", Format: \"BinarySI\"}},\n+ \t\t}},\n  \t}},\n  \tVolumeName:       \"\",\n  \tStorageClassName: nil,\n  \t... // 2 identical fields\n  }}\n"
            )]
        );
        assert_eq!(
            messages(&causes(
                &k,
                &pvc(json!(["ReadWriteOnce"]), "1Gi", Some("x")),
                &old
            )),
            [format!(
                "{head}  core.PersistentVolumeClaimSpec{{\n  \t... // 2 identical fields\n  \tResources:        {{Requests: {{s\"storage\": {{i: {{...}}, s: \"1Gi\", Format: \"BinarySI\"}}}}}},\n  \tVolumeName:       \"\",\n- \tStorageClassName: &\"x\",\n+ \tStorageClassName: nil,\n  \tVolumeMode:       &\"Filesystem\",\n  \tDataSource:       nil,\n  }}\n"
            )]
        );
        // Bound: the size may grow, never shrink.
        let mut bound = old.clone();
        bound["status"]["phase"] = json!("Bound");
        let mut grown = pvc(json!(["ReadWriteOnce"]), "2Gi", None);
        grown["status"]["phase"] = json!("Bound");
        assert!(causes(&k, &grown, &bound).is_empty());
        assert_eq!(
            messages(&causes(&k, &bound, &grown)),
            [
                "spec.resources.requests.storage: Forbidden: field can not be less than previous value"
            ]
        );
    }

    fn template(image: &str) -> Value {
        json!({"metadata": {"creationTimestamp": null,
                            "labels": {"controller-uid": "b4703c5a-bf28-485e-a340-199be5840bb4", "job-name": "j"}},
               "spec": {"containers": [{"name": "j", "image": image, "resources": {},
                                        "terminationMessagePath": "/dev/termination-log",
                                        "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"}],
                        "restartPolicy": "Never", "terminationGracePeriodSeconds": 30,
                        "dnsPolicy": "ClusterFirst", "securityContext": {}, "schedulerName": "default-scheduler"}})
    }

    /// What 1.20.2 answered on the test control plane for a Job's image
    /// changed, the pointers' addresses aside (any address is as true).
    #[test]
    fn a_job_keeps_its_template_as_on_a_real_control_plane() {
        let j = |image: &str| json!({"spec": {"completions": 1, "template": template(image)}});
        let k = kind("batch", "Job");
        assert!(causes(&k, &j("busybox:1"), &j("busybox:1")).is_empty());
        let real = "spec.template: Invalid value: core.PodTemplateSpec{ObjectMeta:v1.ObjectMeta{Name:\"\", GenerateName:\"\", Namespace:\"\", SelfLink:\"\", UID:\"\", ResourceVersion:\"\", Generation:0, CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), Labels:map[string]string{\"controller-uid\":\"b4703c5a-bf28-485e-a340-199be5840bb4\", \"job-name\":\"j\"}, Annotations:map[string]string(nil), OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), ClusterName:\"\", ManagedFields:[]v1.ManagedFieldsEntry(nil)}, Spec:core.PodSpec{Volumes:[]core.Volume(nil), InitContainers:[]core.Container(nil), Containers:[]core.Container{core.Container{Name:\"j\", Image:\"busybox:2\", Command:[]string(nil), Args:[]string(nil), WorkingDir:\"\", Ports:[]core.ContainerPort(nil), EnvFrom:[]core.EnvFromSource(nil), Env:[]core.EnvVar(nil), Resources:core.ResourceRequirements{Limits:core.ResourceList(nil), Requests:core.ResourceList(nil)}, VolumeMounts:[]core.VolumeMount(nil), VolumeDevices:[]core.VolumeDevice(nil), LivenessProbe:(*core.Probe)(nil), ReadinessProbe:(*core.Probe)(nil), StartupProbe:(*core.Probe)(nil), Lifecycle:(*core.Lifecycle)(nil), TerminationMessagePath:\"/dev/termination-log\", TerminationMessagePolicy:\"File\", ImagePullPolicy:\"IfNotPresent\", SecurityContext:(*core.SecurityContext)(nil), Stdin:false, StdinOnce:false, TTY:false}}, EphemeralContainers:[]core.EphemeralContainer(nil), RestartPolicy:\"Never\", TerminationGracePeriodSeconds:(*int64)(0xc00db117a0), ActiveDeadlineSeconds:(*int64)(nil), DNSPolicy:\"ClusterFirst\", NodeSelector:map[string]string(nil), ServiceAccountName:\"\", AutomountServiceAccountToken:(*bool)(nil), NodeName:\"\", SecurityContext:(*core.PodSecurityContext)(0xc0054d8200), ImagePullSecrets:[]core.LocalObjectReference(nil), Hostname:\"\", Subdomain:\"\", SetHostnameAsFQDN:(*bool)(nil), Affinity:(*core.Affinity)(nil), SchedulerName:\"default-scheduler\", Tolerations:[]core.Toleration(nil), HostAliases:[]core.HostAlias(nil), PriorityClassName:\"\", Priority:(*int32)(nil), PreemptionPolicy:(*core.PreemptionPolicy)(nil), DNSConfig:(*core.PodDNSConfig)(nil), ReadinessGates:[]core.PodReadinessGate(nil), RuntimeClassName:(*string)(nil), Overhead:core.ResourceList(nil), EnableServiceLinks:(*bool)(nil), TopologySpreadConstraints:[]core.TopologySpreadConstraint(nil)}}: field is immutable";
        let got = messages(&causes(&k, &j("busybox:2"), &j("busybox:1")));
        assert_eq!(got.len(), 1);
        let real = real
            .replace("0xc00db117a0", go_value::ADDRESS)
            .replace("0xc0054d8200", go_value::ADDRESS);
        assert_eq!(got, [real]);
    }

    #[test]
    fn a_binding_keeps_its_role() {
        let b = |name: &str| {
            json!({"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
                   "subjects": [{"kind": "User", "name": "u"}]})
        };
        let k = kind("rbac.authorization.k8s.io", "RoleBinding");
        let mut more = b("view");
        more["subjects"] = json!([{"kind": "User", "name": "v"}]);
        assert!(causes(&k, &more, &b("view")).is_empty());
        assert_eq!(
            messages(&causes(&k, &b("edit"), &b("view"))),
            [
                "roleRef: Invalid value: rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", Kind:\"ClusterRole\", Name:\"edit\"}: cannot change roleRef"
            ]
        );
    }

    #[test]
    fn a_status_write_may_not_lower_the_collision_count() {
        let st = |n: Value| json!({"status": {"collisionCount": n}});
        for k in ["Deployment", "StatefulSet", "DaemonSet"] {
            let k = kind("apps", k);
            assert!(status_causes(&k, &st(json!(6)), &st(json!(5))).is_empty());
            assert!(status_causes(&k, &st(json!(1)), &st(Value::Null)).is_empty());
            assert_eq!(
                messages(&status_causes(&k, &st(json!(2)), &st(json!(5)))),
                ["status.collisionCount: Invalid value: 2: cannot be decremented"]
            );
            assert_eq!(
                messages(&status_causes(&k, &st(Value::Null), &st(json!(5)))),
                ["status.collisionCount: Invalid value: 0: cannot be decremented"]
            );
        }
    }

    #[test]
    fn a_service_keeps_its_cluster_ip_and_a_job_its_completions() {
        let s = |ip: Value, ips: Value| json!({"spec": {"type": "ClusterIP", "clusterIP": ip, "clusterIPs": ips}});
        let old = s(json!("10.96.0.238"), json!(["10.96.0.238"]));
        assert!(causes(&kind("", "Service"), &old, &old).is_empty());
        // clusterIP alone changed (a merge patch of it).
        assert_eq!(
            messages(&causes(
                &kind("", "Service"),
                &s(json!("10.0.0.99"), json!(["10.96.0.238"])),
                &old
            )),
            ["spec.clusterIPs[0]: Invalid value: []string{\"10.0.0.99\"}: may not change once set"]
        );
        assert_eq!(
            messages(&causes(
                &kind("", "Service"),
                &s(json!(""), json!(["10.96.0.238"])),
                &old
            )),
            [
                "spec.clusterIPs[0]: Invalid value: []string(nil): primary clusterIP can not be unset"
            ]
        );
        let j = |n: i64| json!({"spec": {"completions": n, "template": template("busybox:1")}});
        assert!(causes(&kind("batch", "Job"), &j(1), &j(1)).is_empty());
        assert_eq!(
            messages(&causes(&kind("batch", "Job"), &j(2), &j(1))),
            ["spec.completions: Invalid value: 2: field is immutable"]
        );
    }
}
