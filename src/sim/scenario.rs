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

mod checks;
mod read;
mod steps;
mod stream;
#[cfg(test)]
mod tests;

use checks::*;
pub use read::*;
use steps::*;

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
struct ScaleStep {
    kind: String,
    #[serde(default)]
    namespace: Option<String>,
    name: String,
    replicas: u32,
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
    #[serde(default)]
    scale: Option<ScaleStep>,
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
    /// `kubectl scale`: a workload's `spec.replicas`.
    Scale {
        target: Target,
        replicas: u32,
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
    /// How long a Job's pod runs before its kubelet reports it
    /// `Succeeded`; unset, a Job's pods run until a step says otherwise.
    /// For stories about finished Jobs (a CronJob's history).
    pub job_pods_succeed_after: Option<Millis>,
    /// The pod GC's `--terminated-pod-gc-threshold`: more terminated pods
    /// than this and the oldest are deleted; 0 never.
    pub terminated_pod_gc_threshold: u64,
    /// The UI opens the scenario with its clock paused (`Space` runs it),
    /// for a story that would be over before a first look.
    pub starts_paused: bool,
    /// Virtual time zero as a wall-clock instant; [`crate::sim::engine::EPOCH`]
    /// when unset. `ownerscope serve` sets it to the real time it starts
    /// at, so that its clock is the real clock and ages read the same in
    /// any client. A snapshot's `takenAt` sets it too, and so does the
    /// latest time a List's objects record ([`Scenario::clock_of_recorded`]).
    /// Not a scenario setting: a scenario's times are relative to
    /// [`crate::sim::engine::EPOCH`].
    #[serde(skip)]
    pub epoch: Option<jiff::Timestamp>,
    /// The cluster CA, PEM, that the root CA publisher puts in every
    /// namespace's `kube-root-ca.crt`
    /// ([`super::controllers::root_ca_cert_publisher`]); unset, it does
    /// not run. `ownerscope serve` sets it to its own CA. Not a scenario
    /// setting: a scenario played offline has no CA, and keeps the
    /// objects its file holds.
    #[serde(skip)]
    pub root_ca: Option<String>,
    /// `creationTimestamp` and `deletionTimestamp` stamped in whole
    /// seconds, as kube-apiserver stores them (RFC 3339 with no fraction).
    /// `ownerscope serve` sets it; offline, the simulator keeps the
    /// millisecond of its clock, which orders a story's events. Not a
    /// scenario setting.
    #[serde(skip)]
    pub whole_second_stamps: bool,
    /// Records the field manager of the simulator's own components' writes
    /// in `metadata.managedFields` (`kube-controller-manager` on a Pod the
    /// ReplicaSet controller creates), as a real cluster does.
    /// `ownerscope serve` sets it; offline no object carries managed
    /// fields. Not a scenario setting.
    #[serde(skip)]
    pub field_recorder: super::api::FieldRecorder,
}

fn controllers_threshold() -> u64 {
    super::controllers::podgc::TERMINATED_THRESHOLD
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
            job_pods_succeed_after: None,
            terminated_pod_gc_threshold: controllers_threshold(),
            starts_paused: false,
            epoch: None,
            root_ca: None,
            whole_second_stamps: false,
            field_recorder: super::api::FieldRecorder::default(),
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
    /// When a snapshot was taken: its clock starts there.
    #[serde(default, rename = "takenAt")]
    taken_at: Option<jiff::Timestamp>,
    #[serde(default)]
    controllers: Vec<ControllerSpec>,
    #[serde(default)]
    steps: Vec<Value>,
    #[serde(default)]
    settings: Settings,
}

/// Moves every RFC 3339 time in `v` by `by`.
fn shift_times(v: &mut Value, by: jiff::SignedDuration) {
    match v {
        Value::String(s) if s.ends_with('Z') && s.contains('T') => {
            if let Ok(t) = s.parse::<jiff::Timestamp>()
                && let Ok(moved) = t.checked_add(by)
            {
                *s = moved.to_string();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|x| shift_times(x, by)),
        Value::Object(map) => map.values_mut().for_each(|x| shift_times(x, by)),
        _ => {}
    }
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
    /// Starts virtual time at `epoch` instead of where it starts now
    /// ([`super::engine::EPOCH`], or the time a snapshot was taken),
    /// moving every time the objects carry (timestamps in metadata, `spec`
    /// and `status`: a condition's transition, a Lease's renewal) by as
    /// much, so that they keep their distance from the start.
    pub fn start_at(&mut self, epoch: jiff::Timestamp) {
        // From where the clock starts now: a snapshot's times are where
        // they were, and start at the time it was taken.
        let base: jiff::Timestamp = self.settings.epoch.unwrap_or_else(|| {
            super::engine::EPOCH
                .parse()
                .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
        });
        let by = epoch.duration_since(base);
        self.settings.epoch = Some(epoch);
        for o in &mut self.objects {
            let o = Arc::make_mut(o);
            let m = &mut o.metadata;
            for t in [&mut m.creation_timestamp, &mut m.deletion_timestamp]
                .into_iter()
                .flatten()
            {
                *t = t.saturating_add(by).unwrap_or(*t);
            }
            for fields in [&mut o.spec, &mut o.status] {
                if !fields.is_null() {
                    shift_times(fields, by);
                }
            }
        }
    }

    /// Starts the clock of objects read from a cluster without a time of
    /// their own (a `kubectl get -o json` List, manifests) at the latest
    /// time they record, if that is later than [`super::engine::EPOCH`]:
    /// their times are real ones, and a clock that started before them
    /// would age them backwards and never reach a CronJob's next schedule
    /// or a finished Job's TTL. A deletion timestamp counts from when the
    /// delete was asked (it is that plus the grace period).
    pub(super) fn clock_of_recorded(&mut self) {
        let base: jiff::Timestamp = super::engine::EPOCH
            .parse()
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        let latest = self
            .objects
            .iter()
            .flat_map(|o| {
                let m = &o.metadata;
                let asked = m.deletion_timestamp.map(|t| {
                    let grace = m.deletion_grace_period_seconds.unwrap_or(0).max(0);
                    t.checked_sub(jiff::SignedDuration::from_secs(grace))
                        .unwrap_or(t)
                });
                [m.creation_timestamp, asked]
            })
            .flatten()
            .max();
        if let Some(t) = latest.filter(|t| *t > base) {
            self.settings.epoch = Some(t);
        }
    }

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
    "webhook-blocks-finalizer",
    "operator-uninstalled",
    "metrics-server-down",
    "cronjob-blocked-by-a-dead-node",
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
