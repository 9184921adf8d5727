//! What a plan says: per object, its outcome and what it waits on; and
//! how a plan reads, as a summary and one line an object.

use std::sync::Arc;

use serde::Serialize;

use crate::model::kinds::Partial;
use crate::model::object::{ObjRef, Object, Policy};

/// Why an object will still be Terminating when everything else settled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "on", rename_all = "camelCase")]
pub enum Wait {
    /// A finalizer nobody (known to be running) removes.
    Finalizer {
        name: String,
        /// `Some(false)`: its simulated controller is offline; `None`:
        /// unknown (a live cluster, or no controller declared).
        controller_online: Option<bool>,
        removed_by: String,
    },
    /// `foregroundDeletion` waits on these dependents, which wait
    /// themselves.
    BlockingDependents { dependents: Vec<String> },
    /// `kubernetes.io/pvc-protection`: a scheduled pod still uses the claim.
    InUse { by: Vec<String> },
    /// A namespace waits on its remaining content.
    NamespaceContent { remaining: Vec<String> },
    /// A namespace is never finalized while the discovery of these group
    /// versions fails (R58.6).
    DiscoveryFailing { group_versions: Vec<String> },
    /// A pod's grace period, which only the kubelet of its node ends, and
    /// that node is not reporting (R76).
    Kubelet {
        node: crate::model::nodes::NodeHealth,
    },
    /// An admission webhook that fails closed, with nothing behind it,
    /// refuses the UPDATE that would remove this finalizer (STUCK-CAUSES
    /// C6).
    Webhook {
        finalizer: String,
        webhook: String,
        configuration: String,
        why: String,
    },
}

impl Wait {
    /// `finalizer example.com/x (controller offline)`.
    #[must_use]
    pub fn text(&self) -> String {
        match self {
            Wait::Finalizer {
                name,
                controller_online,
                ..
            } => match controller_online {
                Some(false) => format!("finalizer {name} (controller offline)"),
                Some(true) => format!("finalizer {name}"),
                None => format!("finalizer {name} (no controller known to remove it)"),
            },
            Wait::BlockingDependents { dependents } => {
                format!("blocking dependents {}", dependents.join(", "))
            }
            Wait::InUse { by } => format!("still used by {}", by.join(", ")),
            Wait::NamespaceContent { remaining } => {
                format!("remaining content {}", remaining.join(", "))
            }
            Wait::DiscoveryFailing { group_versions } => format!(
                "the discovery of {} ({}): the namespace controller finalizes no namespace until it recovers",
                group_versions.join(", "),
                crate::model::kinds::DISCOVERY_FAILED
            ),
            Wait::Kubelet { node } => match node {
                crate::model::nodes::NodeHealth::NotReady { node, status, .. } => format!(
                    "the kubelet of Node/{node}, which is not reporting (Ready {status}): delete the Node object once the machine is gone, and the pod GC force-deletes the pod"
                ),
                other => format!("the kubelet of Node/{}", other.node().unwrap_or_default()),
            },
            Wait::Webhook {
                finalizer,
                webhook,
                configuration,
                why,
            } => format!(
                "finalizer {finalizer}, whose removal admission webhook {webhook} ({configuration}) refuses: {why}"
            ),
        }
    }
}

/// What happens to one object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "camelCase")]
pub enum Outcome {
    /// Gone; `wave` 0 is the DELETE itself, each later wave a round of the
    /// garbage collector or a controller.
    Deleted { wave: u32 },
    /// Kept running; these owner references are removed (orphan policy).
    Orphaned { references_removed: Vec<String> },
    /// Kept running: orphaned from these references, then adopted by
    /// `by`, re-created by its own controller (R72).
    Adopted {
        references_removed: Vec<String>,
        by: String,
    },
    /// Kept: another owner still holds it; these references are removed.
    KeptByOtherOwner {
        owners: Vec<String>,
        references_removed: Vec<String>,
    },
    /// Kept for good: the garbage collector never deletes it (unresolvable
    /// or unknown-kind owner reference).
    NeverCollected { reason: String },
    /// Left Terminating.
    Waiting { on: Vec<Wait> },
    /// Deleted in foreground in that wave as far as can be seen; but kinds
    /// that could not be listed may hold a dependent that blocks it.
    Unsure { wave: u32, unless: String },
    /// Untouched for now: an owner up its chain, `behind`, is left
    /// Terminating, and the garbage collector deletes a dependent only once
    /// its owners are gone (a background delete parked behind the owner's
    /// own finalizer). `other_owners`: owners not being deleted, which keep
    /// it then.
    Parked {
        behind: String,
        /// Its owner that waits behind `behind` in turn, if not `behind`.
        #[serde(skip_serializing_if = "Option::is_none")]
        via: Option<String>,
        other_owners: Vec<String>,
    },
}

/// One affected object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlanEntry {
    pub object: PlanObject,
    pub outcome: Outcome,
    /// What a controller does about it afterwards: `re-created by the
    /// Deployment controller (same name, new uid)`, `replaced by the
    /// ReplicaSet controller (a new pod)`, `deleted by the endpoints
    /// controller`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub then: Option<String>,
    /// A race in the real garbage collector decides between `outcome` and
    /// another one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub either_way: Option<EitherWay>,
}

/// An outcome a race decides.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EitherWay {
    /// Which race, in words.
    pub reason: String,
    /// The other outcome; `None`: the object is left as it was.
    pub otherwise: Option<Outcome>,
}

/// The object an entry is about: the graph's copy when the plan was made,
/// shared rather than its names copied (five allocations an entry, a fifth
/// of the preview at 100k objects). Compared, shown and serialized as its
/// [`ObjRef`].
#[derive(Clone)]
pub struct PlanObject(pub(super) Arc<Object>);

/// An [`ObjRef`], borrowed.
#[derive(PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
struct ObjRefView<'a> {
    api_version: &'a str,
    kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    namespace: Option<&'a str>,
    name: &'a str,
    uid: &'a str,
}

impl PlanObject {
    #[must_use]
    pub fn api_version(&self) -> &str {
        &self.0.api_version
    }

    #[must_use]
    pub fn kind(&self) -> &str {
        &self.0.kind
    }

    /// `None` for a cluster-scoped object.
    #[must_use]
    pub fn namespace(&self) -> Option<&str> {
        self.0.namespace()
    }

    #[must_use]
    pub fn name(&self) -> &str {
        self.0.name()
    }

    #[must_use]
    pub fn uid(&self) -> &str {
        self.0.uid()
    }

    #[must_use]
    pub fn obj_ref(&self) -> ObjRef {
        self.0.obj_ref()
    }

    fn view(&self) -> ObjRefView<'_> {
        ObjRefView {
            api_version: self.api_version(),
            kind: self.kind(),
            namespace: self.namespace(),
            name: self.name(),
            uid: self.uid(),
        }
    }
}

impl PartialEq for PlanObject {
    fn eq(&self, other: &Self) -> bool {
        self.view() == other.view()
    }
}

impl Eq for PlanObject {}

impl std::fmt::Debug for PlanObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjRef")
            .field("api_version", &self.api_version())
            .field("kind", &self.kind())
            .field("namespace", &self.namespace())
            .field("name", &self.name())
            .field("uid", &self.uid())
            .finish()
    }
}

impl std::fmt::Display for PlanObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.namespace() {
            Some(ns) => write!(f, "{}/{} -n {}", self.kind(), self.name(), ns),
            None => write!(f, "{}/{}", self.kind(), self.name()),
        }
    }
}

impl Serialize for PlanObject {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.view().serialize(s)
    }
}

/// The predicted outcome of one DELETE.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    pub target: ObjRef,
    /// The policy as requested (`None`: the type default).
    pub requested: Option<Policy>,
    /// The policy the API server will apply.
    pub policy: Policy,
    /// Why that policy, when not requested.
    pub policy_note: Option<String>,
    /// The target first, then the rest by wave, namespace, kind, name.
    pub entries: Vec<PlanEntry>,
    /// What could not be seen: the counts are then lower bounds.
    pub partial: Partial,
}

impl Outcome {
    /// In a few words: `deleted`, `kept, still owned by ConfigMap/a`.
    #[must_use]
    pub fn short(&self) -> String {
        match self {
            Outcome::Deleted { .. } => "deleted".into(),
            Outcome::Orphaned { references_removed } => {
                format!("orphaned from {}", references_removed.join(", "))
            }
            Outcome::Adopted { by, .. } => format!("orphaned, then adopted by {by}"),
            Outcome::KeptByOtherOwner {
                owners,
                references_removed,
            } => format!(
                "kept, still owned by {}, losing its reference to {}",
                owners.join(", "),
                references_removed.join(", ")
            ),
            Outcome::NeverCollected { .. } => "kept".into(),
            Outcome::Waiting { on } => format!(
                "left Terminating on {}",
                on.iter().map(Wait::text).collect::<Vec<_>>().join("; ")
            ),
            Outcome::Unsure { .. } => "deleted unless an unseen dependent blocks".into(),
            Outcome::Parked { .. } => self.parked_text(),
        }
    }

    /// For [`Outcome::Parked`]: `untouched while Database/orders is
    /// Terminating; deleted by the garbage collector once it is gone`.
    #[must_use]
    pub fn parked_text(&self) -> String {
        let Outcome::Parked {
            behind,
            via,
            other_owners,
        } = self
        else {
            return String::new();
        };
        let gone = match via {
            None => "it is gone".to_string(),
            Some(v) => format!("its owner {v} is gone in turn"),
        };
        if other_owners.is_empty() {
            format!(
                "untouched while {behind} is Terminating; deleted by the garbage collector once {gone}"
            )
        } else {
            format!(
                "untouched while {behind} is Terminating; once {gone}, still owned by {}",
                other_owners.join(", ")
            )
        }
    }
}

impl Plan {
    /// The policy the API server will apply.
    #[must_use]
    pub fn effective_policy(&self) -> Policy {
        self.policy
    }

    fn count(&self, f: impl Fn(&Outcome) -> bool) -> usize {
        self.entries.iter().filter(|e| f(&e.outcome)).count()
    }

    /// `4 deleted, 1 orphaned, 1 left waiting`.
    #[must_use]
    pub fn summary(&self) -> String {
        let deleted = self.count(|o| matches!(o, Outcome::Deleted { .. }));
        let orphaned = self.count(|o| matches!(o, Outcome::Orphaned { .. }));
        let adopted = self.count(|o| matches!(o, Outcome::Adopted { .. }));
        let recreated = self
            .entries
            .iter()
            .filter(|e| {
                e.then
                    .as_deref()
                    .is_some_and(|t| t.starts_with("re-created") || t.starts_with("replaced"))
            })
            .count();
        let kept = self.count(|o| {
            matches!(
                o,
                Outcome::KeptByOtherOwner { .. } | Outcome::NeverCollected { .. }
            )
        });
        let waiting = self.count(|o| matches!(o, Outcome::Waiting { .. }));
        let parked = self.count(|o| matches!(o, Outcome::Parked { .. }));
        let unsure = self.count(|o| matches!(o, Outcome::Unsure { .. }));
        let mut parts = Vec::new();
        if !self.partial.is_partial() {
            parts.push(format!("{deleted} deleted"));
        } else if deleted > 0 {
            parts.push(format!("at least {deleted} deleted"));
        } else if unsure == 0 {
            parts.push("nothing listed is deleted (some kinds are not listed)".to_string());
        }
        if unsure > 0 {
            parts.push(format!(
                "{unsure} deleted unless an unseen dependent blocks"
            ));
        }
        if orphaned > 0 {
            parts.push(format!("{orphaned} orphaned"));
        }
        if adopted > 0 {
            parts.push(format!("{adopted} orphaned then re-adopted"));
        }
        if recreated > 0 {
            parts.push(format!(
                "{recreated} re-created or replaced by their controller"
            ));
        }
        if kept > 0 {
            parts.push(format!("{kept} kept"));
        }
        if waiting > 0 {
            parts.push(format!("{waiting} left waiting"));
        }
        if parked > 0 {
            parts.push(format!("{parked} waiting behind it"));
        }
        let races = self
            .entries
            .iter()
            .filter(|e| e.either_way.is_some())
            .count();
        if races > 0 {
            parts.push(format!("{races} of them may go either way (a race)"));
        }
        parts.join(", ")
    }

    /// Human-readable lines, one per affected object.
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![format!(
            "DELETE {} with propagationPolicy={}{}: {}",
            self.target,
            self.policy,
            self.policy_note
                .as_ref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default(),
            self.summary()
        )];
        out.extend(crate::model::kinds::unseen_lines(
            &self.partial.unlisted,
            "counts are lower bounds; objects of those kinds may also be deleted, orphaned or hold things up",
        ));
        for e in &self.entries {
            let who = format!("{}/{}", e.object.kind(), e.object.name());
            let line = match &e.outcome {
                Outcome::Deleted { wave: 0 } => format!("deleted now        {who}"),
                Outcome::Deleted { wave } => format!("deleted (wave {wave:>2}) {who}"),
                Outcome::Orphaned { references_removed } => {
                    format!(
                        "orphaned           {who}: keeps running, loses its reference to {}",
                        references_removed.join(", ")
                    )
                }
                Outcome::Adopted {
                    references_removed,
                    by,
                } => format!(
                    "adopted            {who}: keeps running, loses its reference to {}, then adopted by {by}",
                    references_removed.join(", ")
                ),
                Outcome::KeptByOtherOwner {
                    owners,
                    references_removed,
                } => format!(
                    "kept               {who}: still owned by {}; loses its reference to {}",
                    owners.join(", "),
                    references_removed.join(", ")
                ),
                Outcome::NeverCollected { reason } => format!("kept               {who}: {reason}"),
                Outcome::Waiting { on } => {
                    let w: Vec<String> = on.iter().map(Wait::text).collect();
                    format!("left Terminating   {who}: waits on {}", w.join("; "))
                }
                Outcome::Unsure { wave, unless } => {
                    format!(
                        "deleted? (wave {wave:>2}) {who}: unless an unseen dependent blocks: {unless}"
                    )
                }
                Outcome::Parked { .. } => {
                    format!("waits behind       {who}: {}", e.outcome.parked_text())
                }
            };
            let line = match &e.then {
                Some(t) => format!("{line}; {t}"),
                None => line,
            };
            match &e.either_way {
                Some(race) => out.push(format!(
                    "{line}; may go either way, otherwise {}: {}",
                    race.otherwise
                        .as_ref()
                        .map_or_else(|| "left as it is".to_string(), Outcome::short),
                    race.reason
                )),
                None => out.push(line),
            }
        }
        out
    }
}
