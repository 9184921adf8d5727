//! Scenario files: objects, simulated finalizer controllers, timed steps and
//! settings. A plain multi-document Kubernetes YAML file and a
//! `kubectl get -o json` List are scenarios too (objects only).
//!
//! Errors name the file, the line and the field.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::api::{DeleteOptions, Preconditions, UidGen};
use super::yaml::{self, Document, Located};
use crate::model::{KindInfo, KindTable, Object, Partial, group_of};

/// A load error: file, line, field, message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub file: String,
    pub line: usize,
    pub field: String,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else if self.field.is_empty() {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        } else {
            write!(
                f,
                "{}:{}: {}: {}",
                self.file, self.line, self.field, self.message
            )
        }
    }
}

impl std::error::Error for LoadError {}

impl LoadError {
    fn at(file: &str, loc: Located) -> Self {
        LoadError {
            file: file.to_string(),
            line: loc.line,
            field: loc.field,
            message: loc.message,
        }
    }
}

/// A duration in milliseconds, written `5s`, `500ms`, `2m`, `1h` or a plain
/// number of seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Millis(pub u64);

impl Millis {
    /// Parses `1.5s`, `200ms`, `3m`, `2h`, `7` (seconds).
    #[must_use]
    pub fn parse(s: &str) -> Option<Millis> {
        let s = s.trim();
        let (num, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
            Some(i) => (&s[..i], &s[i..]),
            None => (s, "s"),
        };
        let n: f64 = num.trim().parse().ok()?;
        let factor = match unit {
            "ms" => 1.0,
            "s" => 1000.0,
            "m" => 60_000.0,
            "h" => 3_600_000.0,
            _ => return None,
        };
        let ms = n * factor;
        if !(0.0..=1e15).contains(&ms) {
            return None;
        }
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some(Millis(ms.round() as u64))
    }
}

impl<'de> Deserialize<'de> for Millis {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let parsed = match &v {
            Value::String(s) => Millis::parse(s),
            Value::Number(n) => n.as_f64().and_then(|f| Millis::parse(&f.to_string())),
            _ => None,
        };
        parsed.ok_or_else(|| {
            serde::de::Error::custom(format!(
                "invalid duration {v}: expected e.g. 5s, 500ms, 2m or a number of seconds"
            ))
        })
    }
}

/// A simulated controller that removes one finalizer `after` the object
/// becomes Terminating, while `online`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerSpec {
    pub finalizer: String,
    #[serde(default = "yes")]
    pub online: bool,
    #[serde(default = "one_second")]
    pub after: Millis,
    /// The Deployment (or StatefulSet, DaemonSet) the controller runs as
    /// (STUCK-CAUSES C1): it is online while that workload exists with
    /// replicas above 0; taking it offline scales it to 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<Target>,
}

fn yes() -> bool {
    true
}

fn one_second() -> Millis {
    Millis(1000)
}

/// An object named by kind (as typed: `Deployment`, `deploy`, `pods`...),
/// namespace and name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{}/{} -n {}", self.kind, self.name, ns),
            None => write!(f, "{}/{}", self.kind, self.name),
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct DeleteStep {
    kind: String,
    #[serde(default)]
    namespace: Option<String>,
    name: String,
    #[serde(default)]
    propagation_policy: Option<String>,
    #[serde(default)]
    orphan_dependents: Option<bool>,
    #[serde(default)]
    grace_period_seconds: Option<i64>,
    #[serde(default)]
    preconditions: Option<Preconditions>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FinalizerStep {
    kind: String,
    #[serde(default)]
    namespace: Option<String>,
    name: String,
    finalizer: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PhaseStep {
    kind: String,
    #[serde(default)]
    namespace: Option<String>,
    name: String,
    phase: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ControllerToggle {
    finalizer: String,
    online: bool,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ApiToggle {
    group_version: String,
    available: bool,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct StepDecl {
    at: Millis,
    #[serde(default)]
    delete: Option<DeleteStep>,
    #[serde(default)]
    remove_finalizer: Option<FinalizerStep>,
    #[serde(default)]
    add_finalizer: Option<FinalizerStep>,
    #[serde(default)]
    controller: Option<ControllerToggle>,
    #[serde(default)]
    create: Option<Value>,
    #[serde(default)]
    set_phase: Option<PhaseStep>,
    #[serde(default)]
    api: Option<ApiToggle>,
}

/// What a step does.
#[derive(Clone, Debug, PartialEq)]
pub enum StepAction {
    Delete {
        target: Target,
        options: DeleteOptions,
    },
    RemoveFinalizer {
        target: Target,
        finalizer: String,
    },
    AddFinalizer {
        target: Target,
        finalizer: String,
    },
    Controller {
        finalizer: String,
        online: bool,
    },
    Create {
        object: Box<Object>,
    },
    SetPhase {
        target: Target,
        phase: String,
    },
    /// The discovery of a group version fails (`available: false`) or
    /// recovers.
    Api {
        group_version: String,
        available: bool,
    },
}

/// A step at a virtual time.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub at: Millis,
    pub line: usize,
    pub action: StepAction,
}

/// Simulator settings a scenario may change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct Settings {
    /// Seeds the uids of objects created while the simulation runs.
    pub seed: u64,
    /// How long the garbage collector takes to react to a change.
    pub gc_delay: Millis,
    /// How long built-in controllers (job, namespace, volume protection,
    /// adoption) take to react.
    pub controller_delay: Millis,
    /// How long a kubelet takes to stop a pod after its deletion (never more
    /// than the pod's grace period).
    pub kubelet_shutdown: Millis,
    /// `--enable-garbage-collector`.
    pub garbage_collector: bool,
    /// Admission plugin OwnerReferencesPermissionEnforcement (R6).
    pub owner_references_permission_enforcement: bool,
    /// Objects the garbage collector observes late (R47 fault mode): it
    /// sees them only `unobserved_for` after the start, so an Orphan delete
    /// before then does not orphan them and they are collected as dangling
    /// once seen.
    pub unobserved_by_gc: Vec<Target>,
    /// How long the garbage collector goes without observing
    /// `unobserved_by_gc` (a very long time models an informer that never
    /// syncs, R37).
    pub unobserved_for: Millis,
    /// Group versions whose discovery fails from the start (an aggregated
    /// API such as `metrics.k8s.io/v1beta1` whose backend is down): the
    /// namespace controller deletes what it can discover and never
    /// finalizes a namespace until discovery recovers (R58.6).
    pub unavailable_apis: Vec<String>,
    /// The UI opens the scenario with its clock paused (`Space` runs it),
    /// for a story that would be over before a first look.
    pub starts_paused: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            seed: 0,
            gc_delay: Millis(200),
            controller_delay: Millis(500),
            kubelet_shutdown: Millis(2000),
            garbage_collector: true,
            owner_references_permission_enforcement: false,
            unobserved_by_gc: Vec::new(),
            unobserved_for: Millis(10_000),
            unavailable_apis: Vec::new(),
            starts_paused: false,
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct KindDecl {
    api_version: String,
    kind: String,
    #[serde(default)]
    plural: Option<String>,
    namespaced: bool,
    /// Every version the server served it in (a snapshot says so): an
    /// owner reference through another is never mapped (R32, R79).
    #[serde(default)]
    served_versions: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioHeader {
    name: String,
    #[serde(default)]
    description: String,
    /// Read from the document itself, one object at a time.
    #[serde(default)]
    objects: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    kinds: Vec<KindDecl>,
    /// A snapshot taken with partial rights: what could not be listed.
    #[serde(default)]
    partial: Partial,
    #[serde(default)]
    controllers: Vec<ControllerSpec>,
    #[serde(default)]
    steps: Vec<Value>,
    #[serde(default)]
    settings: Settings,
}

/// A loaded scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    /// The file it came from (`bundled:<name>` for bundled ones).
    pub source: String,
    pub kinds: Vec<KindInfo>,
    /// What the snapshot could not list (empty for a complete view).
    pub partial: Partial,
    /// Objects with uids assigned and owner-reference uids resolved.
    pub objects: Vec<Arc<Object>>,
    /// The line each object starts on.
    pub object_lines: Vec<usize>,
    pub controllers: Vec<ControllerSpec>,
    pub steps: Vec<Step>,
    pub settings: Settings,
}

impl Scenario {
    /// The kind table: built-in kinds plus the scenario's.
    #[must_use]
    pub fn kind_table(&self) -> KindTable {
        let mut t = KindTable::builtin();
        for k in &self.kinds {
            t.declare(k.clone());
        }
        for u in &self.partial.unlisted {
            t.mark_unlisted(u.clone());
        }
        for o in &self.objects {
            t.learn(&o.api_version, &o.kind, o.namespace().is_some());
        }
        t
    }

    /// The line object `i` starts on. A JSON file read on the fast path
    /// carries no line table: its lines are found by reading it again, only
    /// when an error needs one.
    #[must_use]
    pub fn object_line(&self, i: usize) -> usize {
        if let Some(l) = self.object_lines.get(i) {
            return *l;
        }
        let text = match self.source.strip_prefix("bundled:") {
            Some(name) => BUNDLED
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, t)| (*t).to_string()),
            None => std::fs::read_to_string(&self.source).ok(),
        };
        text.as_deref()
            .and_then(|text| parse_located(&self.source, text).ok())
            .and_then(|s| s.object_lines.get(i).copied())
            .unwrap_or(0)
    }

    /// An error located in this scenario's file.
    #[must_use]
    pub fn error_at(&self, line: usize, field: &str, message: impl Into<String>) -> LoadError {
        LoadError {
            file: self.source.clone(),
            line,
            field: field.to_string(),
            message: message.into(),
        }
    }
}

macro_rules! scenario_files {
    ($($name:literal),* $(,)?) => {
        /// The scenarios compiled into the binary: (name, YAML text).
        pub const BUNDLED: &[(&str, &str)] = &[
            $(($name, include_str!(concat!("../../assets/scenarios/", $name, ".yaml"))),)*
        ];
    };
}

scenario_files!(
    "deployment",
    "foreground-blocked",
    "job-orphan-default",
    "shared-dependent",
    "wrong-uid",
    "invalid-references",
    "service-endpointslices",
    "stuck-owner",
    "namespace-stuck",
    "shop-demo",
    "volume-protection",
    "crd-stuck",
    "namespace-spec-finalizer",
    "replicaset-comes-back",
    "namespace-stuck-on-discovery",
    "dead-node",
    "controller-scaled-to-zero",
);

/// The bundled scenario opened when none is named.
pub const DEMO: &str = "shop-demo";

/// Loads a bundled scenario by name.
///
/// # Errors
/// None for the shipped files (tests load every one); an unknown name.
pub fn bundled(name: &str) -> Result<Scenario, LoadError> {
    let (n, text) = BUNDLED
        .iter()
        .find(|(n, _)| *n == name)
        .ok_or_else(|| LoadError {
            file: name.to_string(),
            line: 0,
            field: String::new(),
            message: format!("no bundled scenario named {name:?}"),
        })?;
    parse(&format!("bundled:{n}"), text)
}

/// The largest file read (4 GiB).
const MAX_FILE_BYTES: u64 = 4 << 30;

/// Loads a bundled scenario by name, or else a file by path.
///
/// # Errors
/// Unknown name and no such file, unreadable file, or a load error.
pub fn load(name_or_path: &str) -> Result<Scenario, LoadError> {
    if BUNDLED.iter().any(|(n, _)| *n == name_or_path) {
        return bundled(name_or_path);
    }
    let path = Path::new(name_or_path);
    if !path.exists() {
        let names: Vec<&str> = BUNDLED.iter().map(|(n, _)| *n).collect();
        return Err(LoadError {
            file: name_or_path.to_string(),
            line: 0,
            field: String::new(),
            message: format!(
                "no such file, and no bundled scenario of that name (bundled: {})",
                names.join(", ")
            ),
        });
    }
    let refuse = |message: String| LoadError {
        file: name_or_path.to_string(),
        line: 0,
        field: String::new(),
        message,
    };
    // A device (/dev/zero), a FIFO or a directory would be read forever or
    // not at all: only regular files, of a size that fits in memory.
    let meta = std::fs::metadata(path).map_err(|e| refuse(e.to_string()))?;
    if !meta.is_file() {
        return Err(refuse(
            "not a regular file (a directory, a device or a pipe): give a scenario file, a manifest or a snapshot".into(),
        ));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(refuse(format!(
            "{} bytes: larger than the {} bytes ownerscope reads",
            meta.len(),
            MAX_FILE_BYTES
        )));
    }
    let bytes = read_counted(path, meta.len()).map_err(|e| refuse(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = 1 + e.as_bytes()[..valid]
            .iter()
            .filter(|b| **b == b'\n')
            .count();
        LoadError {
            file: name_or_path.to_string(),
            line,
            field: String::new(),
            message: format!("invalid UTF-8 at byte {valid}"),
        }
    })?;
    if text.trim().is_empty() {
        return Err(refuse("the file is empty".into()));
    }
    parse(name_or_path, &text)
}

/// Reads a file in chunks, counting them for a loading screen.
fn read_counted(path: &Path, size: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    super::progress::file_size(size);
    let mut file = std::fs::File::open(path)?;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
    loop {
        let n = (&mut file).take(8 << 20).read_to_end(&mut bytes)?;
        if n == 0 {
            return Ok(bytes);
        }
        super::progress::read(n as u64);
    }
}

/// `deserialize_with` for a list of objects, counting each as it is read.
fn counted<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<Arc<Object>>>, D::Error> {
    struct Counted;
    impl<'de> serde::de::Visitor<'de> for Counted {
        type Value = Option<Vec<Arc<Object>>>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of objects")
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(o) = seq.next_element_seed(crate::model::object::Shared)? {
                // Checked as read; the first problem ends the fast read,
                // and the located one finds its line and field.
                let required_missing =
                    o.kind.is_empty() || o.api_version.is_empty() || o.metadata.name.is_empty();
                if required_missing || check_object(&o).is_some() {
                    return Err(serde::de::Error::custom("an object to locate"));
                }
                super::progress::parsed_one();
                // Read into the allocation the store keeps (a list of
                // objects held by value was copied as it grew, then each
                // object again into the store).
                out.push(o);
            }
            Ok(Some(out))
        }
    }
    d.deserialize_any(Counted)
}

fn is_list(v: &Value) -> bool {
    v.get("kind")
        .and_then(Value::as_str)
        .is_some_and(|k| k.ends_with("List"))
        && v.get("items").is_some_and(Value::is_array)
}

/// Parses scenario text; `file` names it in errors.
///
/// # Errors
/// YAML syntax, unknown or mistyped fields, owner references that cannot be
/// resolved, steps with no or several actions.
pub fn parse(file: &str, text: &str) -> Result<Scenario, LoadError> {
    if let Some(s) = parse_json_fast(file, text) {
        return Ok(s);
    }
    if let Some(s) = parse_yaml_fast(file, text) {
        return Ok(s);
    }
    parse_located(file, text)
}

/// YAML read without the line table: a path string and a table entry for
/// every node cost more than the parse itself. `None` for a scenario with
/// steps (a step keeps its line, and there are few of them) and for
/// anything wrong, which [`parse_located`] then reads again to name the
/// line and field.
fn parse_yaml_fast(file: &str, text: &str) -> Option<Scenario> {
    let docs = yaml::parse_fast(text).ok()?;
    let has_steps = docs
        .iter()
        .any(|d| d.value.get("steps").is_some_and(|s| !s.is_null()));
    if has_steps {
        return None;
    }
    let mut s = parse_docs(file, &docs).ok()?;
    // Found again, only when an error needs one (Scenario::object_line).
    s.object_lines = Vec::new();
    Some(s)
}

/// A `kubectl get -o json` List or a snapshot (a scenario in JSON with no
/// steps), read straight into objects with serde_json: no YAML events, no
/// line table, no intermediate values. `None` for anything else and for
/// anything wrong, so that [`parse_located`] reads it again and names the
/// line and field of the problem. Lines are only looked for on an error.
fn parse_json_fast(file: &str, text: &str) -> Option<Scenario> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct Shape {
        #[serde(default)]
        api_version: Option<String>,
        #[serde(default)]
        kind: Option<String>,
        #[serde(default)]
        metadata: Option<serde::de::IgnoredAny>,
        #[serde(default, deserialize_with = "counted")]
        items: Option<Vec<Arc<Object>>>,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        description: Option<String>,
        #[serde(default, deserialize_with = "counted")]
        objects: Option<Vec<Arc<Object>>>,
        #[serde(default)]
        kinds: Option<Vec<KindDecl>>,
        #[serde(default)]
        partial: Option<Partial>,
    }
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let shape: Shape = serde_json::from_str(text).ok()?;
    let stem = Path::new(file.trim_start_matches("bundled:"))
        .file_stem()
        .map_or_else(|| file.to_string(), |s| s.to_string_lossy().to_string());
    let (name, description, kinds, objects, partial) = match shape {
        Shape {
            kind: Some(k),
            items: Some(items),
            objects: None,
            kinds: None,
            name: None,
            partial: None,
            ..
        } if k.ends_with("List") => (
            stem,
            format!("objects from {file}"),
            Vec::new(),
            items,
            Partial::default(),
        ),
        Shape {
            api_version: None,
            kind: None,
            metadata: None,
            items: None,
            name: Some(name),
            description,
            objects,
            kinds,
            partial,
        } => (
            name,
            description.unwrap_or_default(),
            kinds.unwrap_or_default(),
            objects.unwrap_or_default(),
            partial.unwrap_or_default(),
        ),
        _ => return None,
    };
    let mut s = Scenario {
        name,
        description,
        source: file.to_string(),
        kinds: kinds.iter().map(kind_info).collect(),
        partial,
        object_lines: Vec::new(),
        objects,
        controllers: Vec::new(),
        steps: Vec::new(),
        settings: Settings::default(),
    };
    finish_objects(&mut s, &|_, field| (0, field.to_string()), Checked::Yes).ok()?;
    Some(s)
}

/// Parses with a line table, for YAML and for every error.
fn parse_located(file: &str, text: &str) -> Result<Scenario, LoadError> {
    let docs = yaml::parse(text).map_err(|l| LoadError::at(file, l))?;
    parse_docs(file, &docs)
}

fn parse_docs(file: &str, docs: &[Document]) -> Result<Scenario, LoadError> {
    let stem = Path::new(file.trim_start_matches("bundled:"))
        .file_stem()
        .map_or_else(|| file.to_string(), |s| s.to_string_lossy().to_string());
    let is_scenario =
        docs.len() == 1 && docs[0].value.get("kind").is_none() && docs[0].value.is_object();
    if is_scenario {
        return parse_scenario(file, &docs[0]);
    }
    // Plain manifests, or Lists.
    let mut raw: Vec<(&Document, String, &Value)> = Vec::new();
    for d in docs {
        if is_list(&d.value) {
            if let Some(items) = d.value.get("items").and_then(Value::as_array) {
                for (i, item) in items.iter().enumerate() {
                    raw.push((d, format!("items[{i}]"), item));
                }
            }
        } else {
            raw.push((d, String::new(), &d.value));
        }
    }
    let mut objects = Vec::new();
    let mut lines = Vec::new();
    for (doc, path, v) in &raw {
        let obj = decode_object(file, doc, path, v)?;
        lines.push(doc.line_of(path));
        objects.push(Arc::new(obj));
    }
    let mut s = Scenario {
        name: stem,
        description: format!("objects from {file}"),
        source: file.to_string(),
        kinds: Vec::new(),
        partial: Partial::default(),
        objects,
        object_lines: lines,
        controllers: Vec::new(),
        steps: Vec::new(),
        settings: Settings::default(),
    };
    let paths: Vec<(&Document, String)> = raw.iter().map(|(d, p, _)| (*d, p.clone())).collect();
    finish_objects(&mut s, &located(&paths), Checked::No)?;
    Ok(s)
}

fn decode_object(file: &str, doc: &Document, path: &str, v: &Value) -> Result<Object, LoadError> {
    let obj: Object = doc.decode(path, v).map_err(|l| LoadError::at(file, l))?;
    super::progress::parsed_one();
    for (field, empty) in [
        ("kind", obj.kind.is_empty()),
        ("apiVersion", obj.api_version.is_empty()),
        ("metadata.name", obj.metadata.name.is_empty()),
    ] {
        if empty {
            let f = yaml::join_path(path, field);
            return Err(LoadError {
                file: file.to_string(),
                line: doc.line_of(&f),
                field: f,
                message: "is required".into(),
            });
        }
    }
    Ok(obj)
}

fn parse_scenario(file: &str, doc: &Document) -> Result<Scenario, LoadError> {
    let header: ScenarioHeader = doc
        .decode("", &doc.value)
        .map_err(|l| LoadError::at(file, l))?;
    let mut objects = Vec::new();
    let mut lines = Vec::new();
    let mut paths = Vec::new();
    let listed = doc.value.get("objects").and_then(Value::as_array);
    if header.objects.is_some() && listed.is_none() && !doc.value["objects"].is_null() {
        return Err(LoadError {
            file: file.to_string(),
            line: doc.line_of("objects"),
            field: "objects".into(),
            message: "expected a list of objects".into(),
        });
    }
    for (i, v) in listed.into_iter().flatten().enumerate() {
        let path = format!("objects[{i}]");
        objects.push(Arc::new(decode_object(file, doc, &path, v)?));
        lines.push(doc.line_of(&path));
        paths.push((doc, path));
    }
    let kinds = header.kinds.iter().map(kind_info).collect();
    let mut steps = Vec::new();
    for (i, v) in header.steps.iter().enumerate() {
        let path = format!("steps[{i}]");
        let decl: StepDecl = doc.decode(&path, v).map_err(|l| LoadError::at(file, l))?;
        let line = doc.line_of(&path);
        steps.push(step_from(file, doc, &path, line, decl)?);
    }
    steps.sort_by_key(|s| s.at);
    let apis = header
        .settings
        .unavailable_apis
        .iter()
        .enumerate()
        .map(|(i, gv)| (format!("settings.unavailableApis[{i}]"), gv.as_str()));
    for (field, gv) in apis {
        check_group_version(file, doc, field, gv)?;
    }
    let mut s = Scenario {
        name: header.name,
        description: header.description,
        source: file.to_string(),
        kinds,
        partial: header.partial,
        objects,
        object_lines: lines,
        controllers: header.controllers,
        steps,
        settings: header.settings,
    };
    finish_objects(&mut s, &located(&paths), Checked::No)?;
    Ok(s)
}

/// `metrics.k8s.io/v1beta1`: a named group and a version (the core group
/// is never an aggregated API).
fn is_aggregated_group_version(gv: &str) -> bool {
    gv.split_once('/').is_some_and(|(g, v)| {
        !g.is_empty()
            && g.contains('.')
            && !v.is_empty()
            && g.chars()
                .chain(v.chars())
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
    })
}

/// An error naming the field unless `gv` is a group version an
/// aggregated API could have.
fn check_group_version(
    file: &str,
    doc: &Document,
    field: String,
    gv: &str,
) -> Result<(), LoadError> {
    if is_aggregated_group_version(gv) {
        return Ok(());
    }
    Err(LoadError {
        file: file.to_string(),
        line: doc.line_of(&field),
        field,
        // Debug-quoted: escapes in a hostile file stay visible.
        message: format!(
            "{gv:?} is not a group/version of an API group (such as metrics.k8s.io/v1beta1)"
        ),
    })
}

fn kind_info(k: &KindDecl) -> KindInfo {
    KindInfo {
        group: group_of(&k.api_version).to_string(),
        kind: k.kind.clone(),
        version: crate::model::version_of(&k.api_version).to_string(),
        plural: k
            .plural
            .clone()
            .unwrap_or_else(|| format!("{}s", k.kind.to_ascii_lowercase())),
        namespaced: k.namespaced,
        short_names: Vec::new(),
        categories: Vec::new(),
        default_policy: crate::model::DefaultPolicy::Policy(crate::model::Policy::Background),
        served_versions: k.served_versions.clone(),
    }
}

/// Where a field of object `i` is: (line, full field path).
type Locate<'a> = dyn Fn(usize, &str) -> (usize, String) + 'a;

/// Locates fields through the documents' line tables.
fn located<'a>(
    paths: &'a [(&'a Document, String)],
) -> impl Fn(usize, &str) -> (usize, String) + 'a {
    move |i, suffix| {
        let (doc, base) = &paths[i];
        let field = yaml::join_path(base, suffix);
        (doc.line_of(&field), field)
    }
}

fn step_from(
    file: &str,
    doc: &Document,
    path: &str,
    line: usize,
    d: StepDecl,
) -> Result<Step, LoadError> {
    let target = |kind: String, namespace: Option<String>, name: String| Target {
        kind,
        namespace,
        name,
    };
    let mut actions = Vec::new();
    if let Some(s) = d.delete {
        // R15: a negative grace becomes 1; past ten years the clock could
        // not add it.
        if let Some(g) = s.grace_period_seconds
            && g > MAX_GRACE_SECONDS
        {
            let field = yaml::join_path(path, "delete.gracePeriodSeconds");
            return Err(LoadError {
                file: file.to_string(),
                line: doc.line_of(&field),
                field,
                message: format!("{g} is more than {MAX_GRACE_SECONDS} seconds (ten years)"),
            });
        }
        actions.push(StepAction::Delete {
            target: target(s.kind, s.namespace, s.name),
            options: DeleteOptions {
                propagation_policy: s.propagation_policy,
                orphan_dependents: s.orphan_dependents,
                grace_period_seconds: s.grace_period_seconds,
                preconditions: s.preconditions.unwrap_or_default(),
            },
        });
    }
    if let Some(s) = d.remove_finalizer {
        actions.push(StepAction::RemoveFinalizer {
            target: target(s.kind, s.namespace, s.name),
            finalizer: s.finalizer,
        });
    }
    if let Some(s) = d.add_finalizer {
        actions.push(StepAction::AddFinalizer {
            target: target(s.kind, s.namespace, s.name),
            finalizer: s.finalizer,
        });
    }
    if let Some(s) = d.controller {
        actions.push(StepAction::Controller {
            finalizer: s.finalizer,
            online: s.online,
        });
    }
    if let Some(v) = d.create {
        let p = format!("{path}.create");
        let obj = decode_object(file, doc, &p, &v)?;
        actions.push(StepAction::Create {
            object: Box::new(obj),
        });
    }
    if let Some(s) = d.set_phase {
        actions.push(StepAction::SetPhase {
            target: target(s.kind, s.namespace, s.name),
            phase: s.phase,
        });
    }
    if let Some(s) = d.api {
        check_group_version(
            file,
            doc,
            format!("{path}.api.groupVersion"),
            &s.group_version,
        )?;
        actions.push(StepAction::Api {
            group_version: s.group_version,
            available: s.available,
        });
    }
    if actions.len() != 1 {
        return Err(LoadError {
            file: file.to_string(),
            line,
            field: path.to_string(),
            message: format!(
                "a step needs exactly one of delete, removeFinalizer, addFinalizer, controller, create, setPhase, api (found {})",
                actions.len()
            ),
        });
    }
    let action = actions.remove(0);
    Ok(Step {
        at: d.at,
        line,
        action,
    })
}

/// A stable uid for an object written without one, from its identity.
fn stable_uid(o: &Object) -> String {
    let id = format!(
        "{}/{}/{}/{}",
        o.group(),
        o.kind,
        o.namespace().unwrap_or_default(),
        o.name()
    );
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in id.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    UidGen::new(h).next_uid()
}

/// Whether [`check_object`] has passed every object already.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Checked {
    /// Each object as it was read (the JSON fast path): then, while it is
    /// in the cache, not in a second pass over 100k objects.
    Yes,
    No,
}

/// An object's identity (names as the API server validates them) and its
/// times: the field and the message of the first problem.
fn check_object(o: &Object) -> Option<(String, String)> {
    super::validation::validate_identity(o)
        .or_else(|| check_times(o).map(|(field, message)| (field.to_string(), message)))
}

/// The longest grace period accepted (ten years): the simulator's clock
/// adds it to timestamps, which must stay in range.
const MAX_GRACE_SECONDS: i64 = 10 * 365 * 24 * 3600;

/// Times and durations are checked where they enter: a grace period or a
/// timestamp the clock cannot add to is an error naming the field, not a
/// panic later.
fn check_times(o: &Object) -> Option<(&'static str, String)> {
    let earliest = jiff::Timestamp::UNIX_EPOCH;
    // 2500-01-01T00:00:00Z.
    let latest = jiff::Timestamp::constant(16_725_225_600, 0);
    for (field, ts) in [
        ("metadata.creationTimestamp", o.metadata.creation_timestamp),
        ("metadata.deletionTimestamp", o.metadata.deletion_timestamp),
    ] {
        if let Some(t) = ts
            && (t < earliest || t >= latest)
        {
            return Some((field, format!("{t} is outside 1970-01-01 .. 2500-01-01")));
        }
    }
    // Read from the kept text: a check of every object as it is loaded
    // does not make each one's `spec` value ([`crate::model::fields`]).
    let pod_grace = o.spec.top_level("terminationGracePeriodSeconds");
    let grace = [
        (
            "metadata.deletionGracePeriodSeconds",
            o.metadata.deletion_grace_period_seconds,
        ),
        (
            "spec.terminationGracePeriodSeconds",
            pod_grace.as_ref().and_then(serde_json::Value::as_i64),
        ),
    ];
    for (field, g) in grace {
        if let Some(g) = g
            && !(0..=MAX_GRACE_SECONDS).contains(&g)
        {
            return Some((
                field,
                format!("{g} is outside 0 .. {MAX_GRACE_SECONDS} seconds (ten years)"),
            ));
        }
    }
    if pod_grace.is_some_and(|v| v.as_i64().is_none()) {
        return Some((
            "spec.terminationGracePeriodSeconds",
            "must be a whole number of seconds".into(),
        ));
    }
    None
}

/// Checks each object's identity and times, assigns missing uids and fills
/// owner-reference uids from the owner named.
fn finish_objects(
    s: &mut Scenario,
    locate: &Locate<'_>,
    checked: Checked,
) -> Result<(), LoadError> {
    if checked == Checked::No {
        for (i, o) in s.objects.iter().enumerate() {
            if let Some((field, message)) = check_object(o) {
                let (line, field) = locate(i, &field);
                return Err(LoadError {
                    file: s.source.clone(),
                    line,
                    field,
                    message,
                });
            }
        }
    }
    for o in &mut s.objects {
        if o.metadata.uid.is_empty() {
            Arc::make_mut(o).metadata.uid = stable_uid(o);
        }
    }
    let by_owner_name = s
        .objects
        .iter()
        .any(|o| o.metadata.owner_references.iter().any(|r| r.uid.is_empty()));
    if !by_owner_name {
        // Lists and snapshots always carry the owners' uids: nothing to
        // look up by name.
        return Ok(());
    }
    let kinds = s.kind_table();
    let mut by_name: HashMap<(String, String, String, String), (String, String)> = HashMap::new();
    for o in &s.objects {
        let namespaced = kinds.namespaced(o.group(), &o.kind).unwrap_or(true);
        let ns = if namespaced {
            o.namespace().unwrap_or("default")
        } else {
            ""
        };
        by_name.insert(
            (
                o.group().to_string(),
                o.kind.clone(),
                ns.to_string(),
                o.name().to_string(),
            ),
            (o.metadata.uid.clone(), o.api_version.clone()),
        );
    }
    for (i, o) in s.objects.iter_mut().enumerate() {
        if o.metadata
            .owner_references
            .iter()
            .all(|r| !r.uid.is_empty())
        {
            continue;
        }
        let o = Arc::make_mut(o);
        let ns = o.namespace().unwrap_or("default").to_string();
        for (j, r) in o.metadata.owner_references.iter_mut().enumerate() {
            if !r.uid.is_empty() {
                continue;
            }
            let group = group_of(&r.api_version).to_string();
            let owner_ns = match kinds.namespaced(&group, &r.kind) {
                Some(false) => String::new(),
                _ => ns.clone(),
            };
            let found = by_name.get(&(group, r.kind.clone(), owner_ns.clone(), r.name.clone()));
            let Some((uid, api_version)) = found else {
                let (line, field) = locate(i, &format!("metadata.ownerReferences[{j}]"));
                let place = if owner_ns.is_empty() {
                    "in the scenario".to_string()
                } else {
                    format!("in namespace {owner_ns:?}")
                };
                return Err(LoadError {
                    file: s.source.clone(),
                    line,
                    field,
                    message: format!(
                        "no {} named {:?} {place} to take the uid from: add that object or give the reference a uid",
                        r.kind, r.name
                    ),
                });
            };
            r.uid.clone_from(uid);
            if r.api_version.is_empty() {
                r.api_version.clone_from(api_version);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(Millis::parse("5s"), Some(Millis(5000)));
        assert_eq!(Millis::parse("1.5s"), Some(Millis(1500)));
        assert_eq!(Millis::parse("200ms"), Some(Millis(200)));
        assert_eq!(Millis::parse("2m"), Some(Millis(120_000)));
        assert_eq!(Millis::parse("3"), Some(Millis(3000)));
        assert_eq!(Millis::parse("soon"), None);
        assert_eq!(Millis::parse("-1s"), None);
    }

    #[test]
    fn timestamps_from_1970_up_to_2500_load_and_later_ones_are_refused() {
        let with = |ts: &str| {
            format!(
                "name: t\nobjects:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: c, namespace: shop, creationTimestamp: \"{ts}\"}}\n"
            )
        };
        for ok in ["1970-01-01T00:00:00Z", "2499-12-31T23:59:59Z"] {
            assert!(parse("t.yaml", &with(ok)).is_ok(), "{ok}");
        }
        let e = parse("t.yaml", &with("2500-01-01T00:00:00Z")).expect_err("refused");
        assert_eq!(e.field, "objects[0].metadata.creationTimestamp");
        assert!(
            e.message.contains("outside 1970-01-01 .. 2500-01-01"),
            "{e}"
        );
    }

    #[test]
    fn owner_uid_filled_from_name() {
        let text = "name: t\nobjects:\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web, namespace: shop}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n    namespace: shop\n    ownerReferences:\n    - {apiVersion: apps/v1, kind: Deployment, name: web}\n";
        let s = parse("t.yaml", text).expect("loads");
        assert_eq!(
            s.objects[1].metadata.owner_references[0].uid,
            s.objects[0].metadata.uid
        );
        assert_eq!(lines_of("owner-uid.yaml", text), vec![3, 6]);
    }

    /// Each object's line, as an error finds it: read from the file again
    /// (a file read without errors keeps no line table).
    fn lines_of(name: &str, text: &str) -> Vec<usize> {
        let dir = std::env::temp_dir().join(format!("ownerscope-lines-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        let s = load(&path.to_string_lossy()).expect("loads");
        let lines = (0..s.objects.len()).map(|i| s.object_line(i)).collect();
        std::fs::remove_file(&path).ok();
        lines
    }

    #[test]
    fn unresolvable_owner_name_is_located() {
        let text = "name: t\nobjects:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n    namespace: shop\n    ownerReferences:\n    - {apiVersion: apps/v1, kind: Deployment, name: nope}\n";
        let e = parse("t.yaml", text).expect_err("fails");
        assert_eq!(e.line, 9);
        assert_eq!(e.field, "objects[0].metadata.ownerReferences[0]");
        assert!(e.to_string().starts_with(
            "t.yaml:9: objects[0].metadata.ownerReferences[0]: no Deployment named \"nope\""
        ));
    }

    #[test]
    fn bad_step_and_unknown_field_are_located() {
        let text = "name: t\nsteps:\n  - at: 1s\n    delete: {kind: Pod, name: p}\n    controller: {finalizer: x, online: true}\n";
        let e = parse("t.yaml", text).expect_err("two actions");
        assert_eq!((e.line, e.field.as_str()), (3, "steps[0]"));
        let e = parse("t.yaml", "name: t\nobjects: []\nsetings: {}\n").expect_err("typo");
        assert!(e.message.contains("unknown field `setings`"), "{e}");
        let e = parse(
            "t.yaml",
            "name: t\nsteps:\n  - at: later\n    delete: {kind: Pod, name: p}\n",
        )
        .expect_err("duration");
        assert_eq!((e.line, e.field.as_str()), (3, "steps[0].at"));
    }

    /// A `kinds:` list (every snapshot has one) adds to the standard
    /// kinds and never resets them (R12): a Job deleted with no policy
    /// still orphans its pods, `deploy/x` still resolves.
    #[test]
    fn declared_kinds_keep_the_standard_facts() {
        use crate::model::Policy;
        use crate::sim::{DeleteOptions, Sim};
        let text = r#"
name: snap
kinds:
  - {apiVersion: batch/v1, kind: Job, plural: jobs, namespaced: true}
  - {apiVersion: apps/v1, kind: Deployment, plural: deployments, namespaced: true}
objects:
  - apiVersion: batch/v1
    kind: Job
    metadata: {name: nightly, namespace: ops, uid: j1}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: nightly-x
      namespace: ops
      ownerReferences: [{apiVersion: batch/v1, kind: Job, name: nightly, uid: j1, controller: true, blockOwnerDeletion: true}]
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web, namespace: ops}
"#;
        let sc = parse("snap.yaml", text).expect("loads");
        let kinds = sc.kind_table();
        let job = kinds.get("batch", "Job").expect("job");
        assert_eq!(
            job.default_policy,
            crate::model::DefaultPolicy::Policy(Policy::Orphan)
        );
        let mut sim = Sim::new(&sc).expect("sim");
        let t = |kind: &str, name: &str| Target {
            kind: kind.into(),
            namespace: Some("ops".into()),
            name: name.into(),
        };
        assert!(sim.resolve(&t("deploy", "web")).is_ok(), "short name kept");
        let r = sim.delete(&t("job", "nightly"), &DeleteOptions::default());
        assert!(r.is_success(), "{}", r.message);
        assert!(
            r.warnings
                .iter()
                .any(|w| w.starts_with("child pods are preserved")),
            "{:?}",
            r.warnings
        );
        sim.settle(60_000);
        let pod = sim
            .objects()
            .find(|o| o.name() == "nightly-x")
            .expect("the pod is orphaned, not deleted");
        assert!(pod.metadata.owner_references.is_empty());
        assert!(sim.objects().all(|o| o.name() != "nightly"));
    }

    /// The JSON fast path reads what the located path reads, and leaves
    /// every error to it.
    #[test]
    fn json_fast_path_agrees_with_the_located_path() {
        let list = r#"{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[
  {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","uid":"d1","managedFields":[{"manager":"kubectl"}]},"spec":{"replicas":2}},
  {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-1","namespace":"shop","ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","controller":true}]}}
]}"#;
        let snapshot = r#"{"name":"snap","description":"a cluster","kinds":[{"apiVersion":"example.com/v1","kind":"Database","namespaced":true}],
"objects":[{"apiVersion":"example.com/v1","kind":"Database","metadata":{"name":"orders","namespace":"shop","uid":"db1","finalizers":["example.com/x"]}}]}"#;
        for (file, text) in [("list.json", list), ("snap.json", snapshot)] {
            let fast = parse_json_fast(file, text).expect("fast path taken");
            let mut slow = parse_located(file, text).expect("located path");
            assert!(fast.object_lines.is_empty());
            slow.object_lines.clear();
            assert_eq!(fast, slow, "{file}");
        }
        // Problems go to the located path, which names the line.
        let missing_name = list.replace(r#""name":"web-1","#, "");
        assert!(parse_json_fast("l.json", &missing_name).is_none());
        let e = parse("l.json", &missing_name).expect_err("no name");
        assert_eq!((e.line, e.field.as_str()), (3, "items[1].metadata.name"));
        let no_owner = list.replace(
            r#""name":"web","controller""#,
            r#""name":"gone","controller""#,
        );
        let e = parse("l.json", &no_owner).expect_err("no such owner");
        assert_eq!(
            (e.line, e.field.as_str()),
            (3, "items[1].metadata.ownerReferences[0]")
        );
        let unknown = snapshot.replace(r#""description""#, r#""descripton""#);
        assert!(parse_json_fast("s.json", &unknown).is_none());
        assert!(
            parse("s.json", &unknown)
                .expect_err("unknown field")
                .field
                .contains("descripton")
        );
    }

    #[test]
    fn lists_and_multidoc_manifests() {
        let list = r#"{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"x","uid":"u1"}}]}"#;
        let s = parse("dump.json", list).expect("list");
        assert_eq!(s.objects[0].metadata.uid, "u1");
        assert_eq!(s.name, "dump");
        let docs = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: b}\n";
        let s = parse("m.yaml", docs).expect("manifests");
        assert_eq!(s.objects.len(), 2);
        assert_eq!(lines_of("m.yaml", docs), vec![1, 5]);
        let e = parse(
            "m.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: a}\n",
        )
        .expect_err("no name");
        assert_eq!((e.line, e.field.as_str()), (3, "metadata.name"));
    }
}
