//! A JSON spec read as the Go value kube-apiserver 1.20 validates: the
//! internal types of `pkg/apis/core` (`core.PodSpec`, `core.Container`,
//! ...), their fields in Go's order, so that a diff or a `%#v` of it reads
//! as upstream prints it. The types below are written out field by field
//! from 1.20's `pkg/apis/core/types.go`; an object of a type not written
//! out (a probe, an affinity, most volume sources) is one value, compared
//! whole and printed as its JSON.

use serde_json::Value;

/// A Go value, as go-cmp and `fmt` see it.
#[derive(Clone, Debug, PartialEq)]
pub enum Go {
    /// A nil pointer, slice or map.
    Nil,
    Bool(bool),
    Int(i64),
    Str(String),
    /// A non-nil pointer.
    Ptr(Box<Go>),
    /// A struct: its type (`core.Container`) and its fields in Go's order.
    Struct(&'static str, Vec<(&'static str, Go)>),
    /// A non-nil slice: its type (`[]core.Container`) and elements.
    Slice(String, Vec<Go>),
    /// A non-nil map: its type and its entries by key.
    Map(String, Vec<(String, Go)>),
    /// A value of a type not written out here, as its JSON.
    Opaque(String),
    /// A value go-cmp compares with its `Equal` method, as one (a
    /// `resource.Quantity`): what it prints, and what it is equal by.
    Whole(Box<Go>, String),
}

impl Go {
    /// Go's zero value (go-cmp's `value.IsZero`): nil, false, 0, "", or a
    /// struct of zeros; a slice or map that is not nil is not zero.
    #[must_use]
    pub fn is_zero(&self) -> bool {
        match self {
            Go::Nil => true,
            Go::Bool(b) => !b,
            Go::Int(i) => *i == 0,
            Go::Str(s) => s.is_empty(),
            Go::Struct(_, fields) => fields.iter().all(|(_, v)| v.is_zero()),
            Go::Whole(inner, _) => inner.is_zero(),
            Go::Ptr(_) | Go::Slice(..) | Go::Map(..) | Go::Opaque(_) => false,
        }
    }
}

/// A field: Go name, JSON name (empty: the Go name with its first letter
/// lowered), Go type.
type Field = (&'static str, &'static str, &'static str);

/// The internal types written out, from 1.20's `pkg/apis/core/types.go`.
const STRUCTS: &[(&str, &[Field])] = &[
    (
        "core.PodSpec",
        &[
            ("Volumes", "", "[]core.Volume"),
            ("InitContainers", "", "[]core.Container"),
            ("Containers", "", "[]core.Container"),
            ("EphemeralContainers", "", "[]core.EphemeralContainer"),
            ("RestartPolicy", "", "string"),
            ("TerminationGracePeriodSeconds", "", "*int64"),
            ("ActiveDeadlineSeconds", "", "*int64"),
            ("DNSPolicy", "dnsPolicy", "string"),
            ("NodeSelector", "", "map[string]string"),
            ("ServiceAccountName", "", "string"),
            ("AutomountServiceAccountToken", "", "*bool"),
            ("NodeName", "", "string"),
            ("SecurityContext", "", "*core.PodSecurityContext"),
            ("ImagePullSecrets", "", "[]core.LocalObjectReference"),
            ("Hostname", "", "string"),
            ("Subdomain", "", "string"),
            ("SetHostnameAsFQDN", "setHostnameAsFQDN", "*bool"),
            ("Affinity", "", "*core.Affinity"),
            ("SchedulerName", "", "string"),
            ("Tolerations", "", "[]core.Toleration"),
            ("HostAliases", "", "[]core.HostAlias"),
            ("PriorityClassName", "", "string"),
            ("Priority", "", "*int32"),
            ("PreemptionPolicy", "", "*core.PreemptionPolicy"),
            ("DNSConfig", "dnsConfig", "*core.PodDNSConfig"),
            ("ReadinessGates", "", "[]core.PodReadinessGate"),
            ("RuntimeClassName", "", "*string"),
            ("Overhead", "", "core.ResourceList"),
            ("EnableServiceLinks", "", "*bool"),
            (
                "TopologySpreadConstraints",
                "",
                "[]core.TopologySpreadConstraint",
            ),
        ],
    ),
    (
        "core.Container",
        &[
            ("Name", "", "string"),
            ("Image", "", "string"),
            ("Command", "", "[]string"),
            ("Args", "", "[]string"),
            ("WorkingDir", "", "string"),
            ("Ports", "", "[]core.ContainerPort"),
            ("EnvFrom", "", "[]core.EnvFromSource"),
            ("Env", "", "[]core.EnvVar"),
            ("Resources", "", "core.ResourceRequirements"),
            ("VolumeMounts", "", "[]core.VolumeMount"),
            ("VolumeDevices", "", "[]core.VolumeDevice"),
            ("LivenessProbe", "", "*core.Probe"),
            ("ReadinessProbe", "", "*core.Probe"),
            ("StartupProbe", "", "*core.Probe"),
            ("Lifecycle", "", "*core.Lifecycle"),
            ("TerminationMessagePath", "", "string"),
            ("TerminationMessagePolicy", "", "string"),
            ("ImagePullPolicy", "", "string"),
            ("SecurityContext", "", "*core.SecurityContext"),
            ("Stdin", "", "bool"),
            ("StdinOnce", "", "bool"),
            ("TTY", "tty", "bool"),
        ],
    ),
    (
        "core.Toleration",
        &[
            ("Key", "", "string"),
            ("Operator", "", "string"),
            ("Value", "", "string"),
            ("Effect", "", "string"),
            ("TolerationSeconds", "", "*int64"),
        ],
    ),
    (
        "core.ContainerPort",
        &[
            ("Name", "", "string"),
            ("HostPort", "", "int32"),
            ("ContainerPort", "", "int32"),
            ("Protocol", "", "string"),
            ("HostIP", "hostIP", "string"),
        ],
    ),
    (
        "core.EnvVar",
        &[
            ("Name", "", "string"),
            ("Value", "", "string"),
            ("ValueFrom", "", "*core.EnvVarSource"),
        ],
    ),
    (
        "core.VolumeMount",
        &[
            ("Name", "", "string"),
            ("ReadOnly", "", "bool"),
            ("MountPath", "", "string"),
            ("SubPath", "", "string"),
            ("MountPropagation", "", "*core.MountPropagationMode"),
            ("SubPathExpr", "", "string"),
        ],
    ),
    (
        "core.ResourceRequirements",
        &[
            ("Limits", "", "core.ResourceList"),
            ("Requests", "", "core.ResourceList"),
        ],
    ),
    ("core.LocalObjectReference", &[("Name", "", "string")]),
    // A field whose JSON name is `*` is embedded: its fields are the
    // object's own.
    (
        "core.Volume",
        &[
            ("Name", "", "string"),
            ("VolumeSource", "*", "core.VolumeSource"),
        ],
    ),
    (
        "core.VolumeSource",
        &[
            ("HostPath", "hostPath", "*core.HostPathVolumeSource"),
            ("EmptyDir", "emptyDir", "*core.EmptyDirVolumeSource"),
            (
                "GCEPersistentDisk",
                "gcePersistentDisk",
                "*core.GCEPersistentDiskVolumeSource",
            ),
            (
                "AWSElasticBlockStore",
                "awsElasticBlockStore",
                "*core.AWSElasticBlockStoreVolumeSource",
            ),
            ("GitRepo", "gitRepo", "*core.GitRepoVolumeSource"),
            ("Secret", "secret", "*core.SecretVolumeSource"),
            ("NFS", "nfs", "*core.NFSVolumeSource"),
            ("ISCSI", "iscsi", "*core.ISCSIVolumeSource"),
            ("Glusterfs", "glusterfs", "*core.GlusterfsVolumeSource"),
            (
                "PersistentVolumeClaim",
                "persistentVolumeClaim",
                "*core.PersistentVolumeClaimVolumeSource",
            ),
            ("RBD", "rbd", "*core.RBDVolumeSource"),
            ("Quobyte", "quobyte", "*core.QuobyteVolumeSource"),
            ("FlexVolume", "flexVolume", "*core.FlexVolumeSource"),
            ("Cinder", "cinder", "*core.CinderVolumeSource"),
            ("CephFS", "cephfs", "*core.CephFSVolumeSource"),
            ("Flocker", "flocker", "*core.FlockerVolumeSource"),
            (
                "DownwardAPI",
                "downwardAPI",
                "*core.DownwardAPIVolumeSource",
            ),
            ("FC", "fc", "*core.FCVolumeSource"),
            ("AzureFile", "azureFile", "*core.AzureFileVolumeSource"),
            ("ConfigMap", "configMap", "*core.ConfigMapVolumeSource"),
            (
                "VsphereVolume",
                "vsphereVolume",
                "*core.VsphereVirtualDiskVolumeSource",
            ),
            ("AzureDisk", "azureDisk", "*core.AzureDiskVolumeSource"),
            (
                "PhotonPersistentDisk",
                "photonPersistentDisk",
                "*core.PhotonPersistentDiskVolumeSource",
            ),
            ("Projected", "projected", "*core.ProjectedVolumeSource"),
            (
                "PortworxVolume",
                "portworxVolume",
                "*core.PortworxVolumeSource",
            ),
            ("ScaleIO", "scaleIO", "*core.ScaleIOVolumeSource"),
            ("StorageOS", "storageos", "*core.StorageOSVolumeSource"),
            ("CSI", "csi", "*core.CSIVolumeSource"),
            ("Ephemeral", "ephemeral", "*core.EphemeralVolumeSource"),
        ],
    ),
    (
        "core.EmptyDirVolumeSource",
        &[
            ("Medium", "", "string"),
            ("SizeLimit", "", "*resource.Quantity"),
        ],
    ),
    (
        "core.ConfigMapVolumeSource",
        &[
            ("LocalObjectReference", "*", "core.LocalObjectReference"),
            ("Items", "", "[]core.KeyToPath"),
            ("DefaultMode", "", "*int32"),
            ("Optional", "", "*bool"),
        ],
    ),
    (
        "core.SecretVolumeSource",
        &[
            ("SecretName", "", "string"),
            ("Items", "", "[]core.KeyToPath"),
            ("DefaultMode", "", "*int32"),
            ("Optional", "", "*bool"),
        ],
    ),
    (
        "core.HostPathVolumeSource",
        &[("Path", "", "string"), ("Type", "", "*core.HostPathType")],
    ),
    (
        "core.PersistentVolumeClaimVolumeSource",
        &[("ClaimName", "", "string"), ("ReadOnly", "", "bool")],
    ),
    (
        "core.KeyToPath",
        &[
            ("Key", "", "string"),
            ("Path", "", "string"),
            ("Mode", "", "*int32"),
        ],
    ),
    (
        "core.PodSecurityContext",
        &[
            ("HostNetwork", "", "bool"),
            ("HostPID", "hostPID", "bool"),
            ("HostIPC", "hostIPC", "bool"),
            ("ShareProcessNamespace", "", "*bool"),
            ("SELinuxOptions", "seLinuxOptions", "*core.SELinuxOptions"),
            ("WindowsOptions", "", "*core.WindowsSecurityContextOptions"),
            ("RunAsUser", "", "*int64"),
            ("RunAsGroup", "", "*int64"),
            ("RunAsNonRoot", "", "*bool"),
            ("SupplementalGroups", "", "[]int64"),
            ("FSGroup", "fsGroup", "*int64"),
            (
                "FSGroupChangePolicy",
                "fsGroupChangePolicy",
                "*core.PodFSGroupChangePolicy",
            ),
            ("Sysctls", "", "[]core.Sysctl"),
            ("SeccompProfile", "", "*core.SeccompProfile"),
        ],
    ),
    (
        "core.PersistentVolumeClaimSpec",
        &[
            ("AccessModes", "", "[]core.PersistentVolumeAccessMode"),
            ("Selector", "", "*v1.LabelSelector"),
            ("Resources", "", "core.ResourceRequirements"),
            ("VolumeName", "", "string"),
            ("StorageClassName", "", "*string"),
            ("VolumeMode", "", "*core.PersistentVolumeMode"),
            ("DataSource", "", "*core.TypedLocalObjectReference"),
        ],
    ),
];

fn fields_of(ty: &str) -> Option<(&'static str, &'static [Field])> {
    STRUCTS
        .iter()
        .find(|(name, _)| *name == ty)
        .map(|(name, fields)| (*name, *fields))
}

fn json_name(go: &str, json: &'static str) -> String {
    if !json.is_empty() {
        return json.to_string();
    }
    let mut c = go.chars();
    c.next()
        .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
        .unwrap_or_default()
}

/// The JSON of field `go` of the object `v` (`json` `*`: embedded, the
/// object itself).
fn field<'v>(v: Option<&'v Value>, go: &str, json: &'static str) -> Option<&'v Value> {
    if json == "*" {
        return v;
    }
    v.and_then(|v| v.get(json_name(go, json)))
}

/// `v`, the JSON of a value of Go type `ty`, as that Go value (absent or
/// null: its zero).
#[must_use]
pub fn of(ty: &str, v: Option<&Value>) -> Go {
    let v = v.filter(|v| !v.is_null());
    if let Some(elem) = ty.strip_prefix('*') {
        return v.map_or(Go::Nil, |v| Go::Ptr(Box::new(of(elem, Some(v)))));
    }
    if let Some(elem) = ty.strip_prefix("[]") {
        return match v {
            None => Go::Nil,
            Some(Value::Array(items)) => Go::Slice(
                ty.to_string(),
                items.iter().map(|i| of(elem, Some(i))).collect(),
            ),
            Some(other) => Go::Opaque(other.to_string()),
        };
    }
    if ty.starts_with("map[") || ty == "core.ResourceList" {
        let value_ty = if ty == "core.ResourceList" {
            "resource.Quantity"
        } else {
            ty.rsplit(']').next().unwrap_or("string")
        };
        return match v {
            None => Go::Nil,
            Some(Value::Object(m)) => {
                let mut entries: Vec<(String, Go)> = m
                    .iter()
                    .map(|(k, v)| (k.clone(), of(value_ty, Some(v))))
                    .collect();
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                Go::Map(ty.to_string(), entries)
            }
            Some(other) => Go::Opaque(other.to_string()),
        };
    }
    if let Some((name, fields)) = fields_of(ty) {
        return Go::Struct(
            name,
            fields
                .iter()
                .map(|(go, json, fty)| (*go, of(fty, field(v, go, json))))
                .collect(),
        );
    }
    if ty == "resource.Quantity" {
        return quantity(v.and_then(Value::as_str).unwrap_or_default());
    }
    match (ty, v) {
        ("bool", v) => Go::Bool(v.and_then(Value::as_bool).unwrap_or_default()),
        ("int32" | "int64", v) => Go::Int(v.and_then(Value::as_i64).unwrap_or_default()),
        (_, None) if !ty.contains('.') || is_string_type(ty) => Go::Str(String::new()),
        (_, None) => Go::Opaque(String::new()),
        // A quantity, an enum: a string.
        (_, Some(Value::String(s))) => Go::Str(s.clone()),
        (_, Some(other)) => Go::Opaque(other.to_string()),
    }
}

/// The named string types the written-out fields point at.
fn is_string_type(ty: &str) -> bool {
    matches!(
        ty,
        "core.PreemptionPolicy"
            | "core.MountPropagationMode"
            | "core.PersistentVolumeMode"
            | "core.PodFSGroupChangePolicy"
            | "core.PersistentVolumeAccessMode"
            | "core.HostPathType"
    )
}

/// A `resource.Quantity` as `ParseQuantity` makes it (apimachinery's
/// `quantity.go`, its fast path): `i` an `int64Amount` of value and
/// scale, `s` the string kept when it is in canonical form, `Format`.
/// Equal by its amount (`Quantity.Equal`). A value the fast path does not
/// take (`1.5Gi`) is kept as its string.
fn quantity(text: &str) -> Go {
    let key =
        super::super::pod_defaults::nanos(text).map_or_else(|| text.to_string(), |n| n.to_string());
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let (format, exponent): (&str, i64) = match suffix {
        "" => ("DecimalSI", 0),
        "n" => ("DecimalSI", -9),
        "u" => ("DecimalSI", -6),
        "m" => ("DecimalSI", -3),
        "k" => ("DecimalSI", 3),
        "M" => ("DecimalSI", 6),
        "G" => ("DecimalSI", 9),
        "T" => ("DecimalSI", 12),
        "P" => ("DecimalSI", 15),
        "E" => ("DecimalSI", 18),
        "Ki" => ("BinarySI", 10),
        "Mi" => ("BinarySI", 20),
        "Gi" => ("BinarySI", 30),
        "Ti" => ("BinarySI", 40),
        "Pi" => ("BinarySI", 50),
        "Ei" => ("BinarySI", 60),
        e => match e.strip_prefix(['e', 'E']).and_then(|x| x.parse().ok()) {
            Some(x) => ("DecimalExponent", x),
            None => return Go::Whole(Box::new(Go::Str(text.to_string())), key),
        },
    };
    let digits = number.trim_start_matches('+');
    let Ok(value) = digits.parse::<i64>() else {
        return Go::Whole(Box::new(Go::Str(text.to_string())), key);
    };
    let (amount, scale, canonical) = if format == "BinarySI" {
        let amount = value
            .checked_shl(u32::try_from(exponent).unwrap_or(0))
            .unwrap_or(value);
        (amount, 0, exponent % 10 == 0 && value & 0x07 != 0)
    } else {
        let shifted = digits.trim_start_matches('-');
        let canonical = exponent % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0');
        (value, exponent, canonical)
    };
    let inner = Go::Struct(
        "resource.Quantity",
        vec![
            (
                "i",
                Go::Struct(
                    "resource.int64Amount",
                    vec![("value", Go::Int(amount)), ("scale", Go::Int(scale))],
                ),
            ),
            (
                "d",
                Go::Struct("resource.infDecAmount", vec![("Dec", Go::Nil)]),
            ),
            (
                "s",
                Go::Str(if canonical {
                    text.to_string()
                } else {
                    String::new()
                }),
            ),
            ("Format", Go::Str(format.to_string())),
        ],
    );
    Go::Whole(Box::new(inner), key)
}

/// A v1 pod spec as the internal `core.PodSpec`: `hostNetwork`,
/// `hostPID` and `hostIPC` live in its security context there.
#[must_use]
pub fn pod_spec(spec: &Value) -> Go {
    let mut spec = spec.clone();
    internal_security_context(&mut spec);
    of("core.PodSpec", Some(&spec))
}

/// `hostNetwork`, `hostPID` and `hostIPC` moved into the security context,
/// where the internal type has them.
fn internal_security_context(spec: &mut Value) {
    if let Some(m) = spec.as_object_mut() {
        let mut moved = serde_json::Map::new();
        for k in ["hostNetwork", "hostPID", "hostIPC"] {
            if let Some(v) = m.remove(k) {
                moved.insert(k.to_string(), v);
            }
        }
        if !moved.is_empty() {
            let sc = m
                .entry("securityContext")
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
            if let Some(sc) = sc.as_object_mut() {
                sc.extend(moved);
            }
        }
    }
}

/// `fmt.Sprintf("%#v", ...)` of a `metav1.LabelSelector` (upstream's
/// `field.Invalid` prints a struct so).
#[must_use]
pub fn label_selector_gosyntax(sel: &Value) -> String {
    use super::super::escalation::go_quote;
    let labels = string_map_gosyntax(sel.get("matchLabels"));
    let exprs = match sel.get("matchExpressions").and_then(Value::as_array) {
        None => "[]v1.LabelSelectorRequirement(nil)".to_string(),
        Some(list) => {
            let inner: Vec<String> = list
                .iter()
                .map(|e| {
                    let s = |k: &str| go_quote(e[k].as_str().unwrap_or_default());
                    let values = strings_gosyntax(e.get("values"));
                    format!(
                        "v1.LabelSelectorRequirement{{Key:{}, Operator:{}, Values:{values}}}",
                        s("key"),
                        s("operator")
                    )
                })
                .collect();
            format!("[]v1.LabelSelectorRequirement{{{}}}", inner.join(", "))
        }
    };
    format!("v1.LabelSelector{{MatchLabels:{labels}, MatchExpressions:{exprs}}}")
}

/// The address `%#v` prints for a pointer inside a value: a Go heap
/// address, which differs from one API server process (and request) to
/// the next; any is as true as another.
pub(super) const ADDRESS: &str = "0xc000a1e000";

/// `fmt.Sprintf("%#v", ...)` of a `core.PodTemplateSpec` as written in
/// JSON (1.20's `ValidateImmutableField` of a Job's template prints it
/// so): its metadata as a template holds it (labels and annotations),
/// its spec the internal `core.PodSpec`. A pointer inside prints as its
/// address (see [`ADDRESS`]); a type not written out here prints as its
/// JSON.
#[must_use]
pub fn pod_template_gosyntax(template: &Value) -> String {
    let meta = &template["metadata"];
    let map = |v: &Value| string_map_gosyntax(Some(v));
    let meta = format!(
        "v1.ObjectMeta{{Name:\"\", GenerateName:\"\", Namespace:\"\", SelfLink:\"\", UID:\"\", ResourceVersion:\"\", Generation:0, CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), Labels:{}, Annotations:{}, OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), ClusterName:\"\", ManagedFields:[]v1.ManagedFieldsEntry(nil)}}",
        map(&meta["labels"]),
        map(&meta["annotations"]),
    );
    let mut spec = template["spec"].clone();
    internal_security_context(&mut spec);
    format!(
        "core.PodTemplateSpec{{ObjectMeta:{meta}, Spec:{}}}",
        gosyntax("core.PodSpec", Some(&spec))
    )
}

/// `%#v` of `v` as Go type `ty`, inside a value (pointers as addresses).
fn gosyntax(ty: &str, v: Option<&Value>) -> String {
    use super::super::escalation::go_quote;
    let v = v.filter(|v| !v.is_null());
    if ty.starts_with('*') {
        return match v {
            None => format!("({ty})(nil)"),
            Some(_) => format!("({ty})({ADDRESS})"),
        };
    }
    if let Some(elem) = ty.strip_prefix("[]") {
        return match v.and_then(Value::as_array) {
            None => format!("{ty}(nil)"),
            Some(items) => {
                let inner: Vec<String> = items.iter().map(|i| gosyntax(elem, Some(i))).collect();
                format!("{ty}{{{}}}", inner.join(", "))
            }
        };
    }
    if ty.starts_with("map[") || ty == "core.ResourceList" {
        let value_ty = if ty == "core.ResourceList" {
            "resource.Quantity"
        } else {
            "string"
        };
        return match v.and_then(Value::as_object) {
            None => format!("{ty}(nil)"),
            Some(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                let inner: Vec<String> = keys
                    .iter()
                    .map(|k| format!("{}:{}", go_quote(k), gosyntax(value_ty, m.get(*k))))
                    .collect();
                format!("{ty}{{{}}}", inner.join(", "))
            }
        };
    }
    if ty == "resource.Quantity" {
        let q = quantity(v.and_then(Value::as_str).unwrap_or_default());
        if let Go::Whole(inner, _) = &q
            && let Go::Struct(_, f) = &**inner
            && let [
                (_, Go::Struct(_, amount)),
                _,
                (_, Go::Str(text)),
                (_, Go::Str(format)),
            ] = f.as_slice()
            && let [(_, Go::Int(value)), (_, Go::Int(scale))] = amount.as_slice()
        {
            return format!(
                "resource.Quantity{{i:resource.int64Amount{{value:{value}, scale:{scale}}}, d:resource.infDecAmount{{Dec:(*inf.Dec)(nil)}}, s:{}, Format:{}}}",
                go_quote(text),
                go_quote(format)
            );
        }
        return v.map_or_else(String::new, Value::to_string);
    }
    if let Some((name, fields)) = fields_of(ty) {
        let inner: Vec<String> = fields
            .iter()
            .map(|(go, json, fty)| format!("{go}:{}", gosyntax(fty, field(v, go, json))))
            .collect();
        return format!("{name}{{{}}}", inner.join(", "));
    }
    match (ty, v) {
        ("bool", v) => v.and_then(Value::as_bool).unwrap_or_default().to_string(),
        ("int32" | "int64", v) => v.and_then(Value::as_i64).unwrap_or_default().to_string(),
        (_, Some(Value::String(s))) => go_quote(s),
        (_, None) if !ty.contains('.') || is_string_type(ty) => go_quote(""),
        (_, v) => v.map_or_else(String::new, Value::to_string),
    }
}

/// `%#v` of a `map[string]string` (`map[string]string(nil)` when absent).
#[must_use]
pub fn string_map_gosyntax(v: Option<&Value>) -> String {
    gosyntax("map[string]string", v)
}

/// `%#v` of a `[]string` (`[]string(nil)` when absent).
#[must_use]
pub fn strings_gosyntax(v: Option<&Value>) -> String {
    use super::super::escalation::go_quote;
    match v.and_then(Value::as_array) {
        None => "[]string(nil)".to_string(),
        Some(list) => {
            let inner: Vec<String> = list
                .iter()
                .map(|s| go_quote(s.as_str().unwrap_or_default()))
                .collect();
            format!("[]string{{{}}}", inner.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_pod_spec_reads_as_core_pod_spec_in_go_order() {
        let g = pod_spec(&json!({"containers": [{"name": "c", "image": "i"}],
                                 "hostNetwork": true, "terminationGracePeriodSeconds": 30}));
        let Go::Struct(name, fields) = g else {
            panic!("a struct")
        };
        assert_eq!(name, "core.PodSpec");
        assert_eq!(fields.len(), 30);
        assert_eq!(fields[0], ("Volumes", Go::Nil));
        assert_eq!(
            fields[5],
            (
                "TerminationGracePeriodSeconds",
                Go::Ptr(Box::new(Go::Int(30)))
            )
        );
        // hostNetwork is the security context's in the internal type.
        let Go::Ptr(sc) = &fields[12].1 else {
            panic!("a security context")
        };
        assert!(matches!(&**sc, Go::Struct(_, f) if f[0] == ("HostNetwork", Go::Bool(true))));
        assert!(!fields[2].1.is_zero());
        assert!(Go::Struct("x", vec![("A", Go::Str(String::new()))]).is_zero());
    }

    #[test]
    fn a_selector_prints_as_go_prints_it() {
        assert_eq!(
            label_selector_gosyntax(&json!({"matchLabels": {"x": "y", "app": "d"}})),
            r#"v1.LabelSelector{MatchLabels:map[string]string{"app":"d", "x":"y"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}"#
        );
        assert_eq!(
            label_selector_gosyntax(
                &json!({"matchExpressions": [{"key": "a", "operator": "In", "values": ["b"]}]})
            ),
            r#"v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"a", Operator:"In", Values:[]string{"b"}}}}"#
        );
        assert_eq!(strings_gosyntax(None), "[]string(nil)");
    }
}
