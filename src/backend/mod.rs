//! The one interface between the UI and where objects come from: the
//! simulator or a live cluster. Updates flow in, commands flow out, errors
//! are values. The UI cannot tell which backend it has.

pub mod simulated;
pub mod starting;
pub mod story;

use std::sync::Arc;
use std::time::Duration;

use jiff::Timestamp;
use serde::Serialize;

use crate::model::{KindTable, ObjRef, Object, OwnershipGraph, Policy, Uid, Unlisted};

/// A mutation the user asked for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Command {
    /// DELETE with an explicit policy and a uid precondition (the target's
    /// uid), so a recreated object of the same name is never hit.
    Delete { target: ObjRef, policy: Policy },
    /// A pod's DELETE with grace period 0 (`kubectl delete --force
    /// --grace-period=0`), Background, with the uid precondition: the API
    /// object goes without waiting for its node's kubelet (R76).
    /// Finalizers still hold it.
    ForceDelete { target: ObjRef },
    /// Remove one finalizer, failing if the object changed meanwhile.
    RemoveFinalizer { target: ObjRef, finalizer: String },
    /// Read the kubeconfig again, connect anew and relist everything (a
    /// rotated certificate, a renewed token, a server that moved). The
    /// tree is kept, marked stale, until the new lists are in.
    Reconnect,
    /// Connect to another context of the kubeconfig (`:ctx NAME`), maybe
    /// another cluster: discovery runs again and the tree is replaced once
    /// the new context has listed. A failure leaves the old connection.
    SwitchContext(String),
    /// Watch another namespace (`:ns NAME` out of the source's scope), or
    /// every namespace (`None`: `0`, `:ns all`): the objects, the scope
    /// and the permissions are replaced as for a context switch, once the
    /// new scope has listed. A failure (a namespace that does not exist)
    /// leaves the old watch.
    SwitchNamespace(Option<String>),
    /// Read what explains a Terminating object beyond what is watched: who
    /// wrote its finalizers (`managedFields`) and its own Events
    /// (STUCK-CAUSES C1, C2, C23), answered with [`Update::Evidence`]. A
    /// source whose store holds it all (the simulator) answers nothing.
    ReadEvidence(ObjRef),
    /// Simulator only.
    Sim(SimCommand),
}

impl Command {
    /// Whether the command would change cluster state (refused in
    /// read-only mode).
    #[must_use]
    pub fn is_mutation(&self) -> bool {
        matches!(
            self,
            Command::Delete { .. } | Command::ForceDelete { .. } | Command::RemoveFinalizer { .. }
        )
    }

    /// `delete Deployment/web -n shop (Foreground)`, for the status line.
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Command::Delete { target, policy } => format!("delete {target} ({policy})"),
            Command::ForceDelete { target } => {
                format!("force delete {target} (grace period 0)")
            }
            Command::RemoveFinalizer { target, finalizer } => {
                format!("remove finalizer {finalizer} from {target}")
            }
            Command::Reconnect => "reconnect (kubeconfig read again)".into(),
            Command::SwitchContext(name) => format!("switch to context {name}"),
            Command::SwitchNamespace(Some(ns)) => format!("watch namespace {ns}"),
            Command::SwitchNamespace(None) => "watch every namespace".into(),
            Command::ReadEvidence(target) => format!("read the evidence on {target}"),
            Command::Sim(c) => c.describe(),
        }
    }
}

impl SimCommand {
    /// In words, for the status line and the confirm dialogs.
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            SimCommand::Pause => "pause the simulator's clock".into(),
            SimCommand::Resume => "resume the simulator's clock".into(),
            SimCommand::Step => "step to the next scheduled change".into(),
            SimCommand::Faster => "run the simulator faster".into(),
            SimCommand::Slower => "run the simulator slower".into(),
            SimCommand::SetController { finalizer, online } => format!(
                "take the controller of {finalizer} {}",
                if *online { "online" } else { "offline" }
            ),
            SimCommand::Reset => "start the scenario over (simulator only)".into(),
            SimCommand::Load(name) => format!("open scenario {name} (simulator only)"),
        }
    }
}

/// Simulator controls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum SimCommand {
    Pause,
    Resume,
    /// Run everything at the next point in virtual time that has work.
    Step,
    Faster,
    Slower,
    SetController {
        finalizer: String,
        online: bool,
    },
    /// Start the scenario over.
    Reset,
    /// Switch to another bundled scenario (or file).
    Load(String),
}

/// Something that happened, for the timeline pane.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Happening {
    /// Seconds since the source started (virtual in the simulator).
    pub t: f64,
    pub object: ObjRef,
    /// `created`, `updated`, `deleted`, `event`, `response`.
    pub verb: String,
    pub detail: String,
    /// Who did it.
    pub by: String,
    /// A warning event or a failed request.
    pub warning: bool,
}

/// The answer to a [`Command`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reply {
    pub command: Command,
    /// HTTP-like status; 0 when no request could be sent (network).
    pub code: u16,
    pub message: String,
    pub warnings: Vec<String>,
}

impl Reply {
    #[must_use]
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.code)
    }
}

/// A simulated finalizer controller, as the UI and diagnosis see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ControllerInfo {
    pub finalizer: String,
    pub online: bool,
    /// Removes the finalizer this many ms after the object is Terminating.
    pub after_ms: u64,
    /// The workload it runs as (`Deployment ops/cleanup-operator`), when
    /// the scenario says: offline means scaled to 0 or gone.
    pub workload: Option<String>,
}

/// Connection to the source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Connection {
    /// The server answers and every kind's watch has (re)listed: the tree
    /// is current.
    Connected,
    /// The server answers, but some kinds' watches have not (re)listed yet
    /// ([`SourceStatus::syncing`] names them): the tree is stale, and no
    /// conclusion is drawn from those kinds.
    Syncing,
    /// Lost; the tree is stale. The message says why, naming the server
    /// and the context.
    Lost(String),
}

impl Connection {
    /// Whether the tree may be out of date.
    #[must_use]
    pub fn is_stale(&self) -> bool {
        !matches!(self, Connection::Connected)
    }
}

/// What the status bar shows about the source.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SourceStatus {
    /// `SIMULATOR` or `CLUSTER`.
    pub kind: String,
    /// Scenario name, or context and server.
    pub name: String,
    /// Namespace scope (`all namespaces` or a name).
    pub scope: String,
    pub connection: Connection,
    /// Virtual clock (simulator only).
    pub clock: Option<Clock>,
    /// Kinds that could not be listed: the tree is partial.
    pub missing_kinds: Vec<String>,
    /// Kinds whose watch has not (re)listed since it started or last
    /// failed: what the tree shows of them may be out of date.
    pub syncing: Vec<String>,
    pub controllers: Vec<ControllerInfo>,
}

/// The simulator's clock.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Clock {
    pub now_ms: u64,
    pub paused: bool,
    /// Virtual seconds per real second.
    pub speed: f64,
    /// The controllers are still taking their first look at a loaded
    /// file: the clock starts, and what was asked meanwhile is done, once
    /// they are ready ([`starting::Starting`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub starting: bool,
}

/// An update from the backend. Objects are shared with the source (the
/// simulator's store): the UI's mirror holds the same copies.
#[derive(Clone, Debug, PartialEq)]
pub enum Update {
    /// Everything, replacing what the UI had (start, reset, relist).
    Reset {
        objects: Vec<Arc<Object>>,
        kinds: Box<KindTable>,
    },
    /// Everything, as [`Update::Reset`], with the ownership graph of those
    /// objects and kinds built already (the simulator's store, shared
    /// until one of them changes it): taken as it is, where a reset builds
    /// it again from the objects.
    ResetGraph(Arc<OwnershipGraph>),
    Upsert(Arc<Object>),
    /// An object of a kind whose first list ended after the first tree
    /// went out (a live cluster's large kinds): not a change, only newly
    /// seen. Folded in as an upsert, with no highlight as new.
    Listed(Arc<Object>),
    Remove(Uid),
    Happened(Box<Happening>),
    Replied(Box<Reply>),
    Status(Box<SourceStatus>),
    /// The kinds that cannot be seen now (forbidden, failing, or whose
    /// watch has not (re)listed), replacing the view's: no `owner-gone` or
    /// `will be deleted` is concluded from them until they are seen again.
    Unlisted(Vec<Unlisted>),
    /// The simulator's scenario: its description and next step.
    Story(Box<story::Story>),
    /// The kubeconfig's contexts (a live source; sent at start and after
    /// every reconnect or switch, which read the kubeconfig again).
    Contexts(Box<Contexts>),
    /// The namespace a live source watches and the cluster's namespaces
    /// it could watch instead (sent at start, after every switch, and as
    /// namespaces come and go). A source that sends none watches every
    /// namespace it has.
    Namespaces(Box<Namespaces>),
    /// What [`Command::ReadEvidence`] read.
    Evidence(Box<Evidence>),
}

/// The large payloads are boxed: a large kind's first list is a million
/// updates, each as big as the largest variant (208 bytes unboxed).
impl Update {
    #[must_use]
    pub fn reset(objects: Vec<Arc<Object>>, kinds: KindTable) -> Self {
        Update::Reset {
            objects,
            kinds: Box::new(kinds),
        }
    }

    #[must_use]
    pub fn happened(h: Happening) -> Self {
        Update::Happened(Box::new(h))
    }

    #[must_use]
    pub fn replied(r: Reply) -> Self {
        Update::Replied(Box::new(r))
    }

    #[must_use]
    pub fn status(s: SourceStatus) -> Self {
        Update::Status(Box::new(s))
    }

    #[must_use]
    pub fn story(s: story::Story) -> Self {
        Update::Story(Box::new(s))
    }

    #[must_use]
    pub fn contexts(c: Contexts) -> Self {
        Update::Contexts(Box::new(c))
    }

    #[must_use]
    pub fn namespaces(n: Namespaces) -> Self {
        Update::Namespaces(Box::new(n))
    }

    #[must_use]
    pub fn evidence(e: Evidence) -> Self {
        Update::Evidence(Box::new(e))
    }
}

/// What explains a Terminating object beyond the watched objects, read for
/// that object only ([`Command::ReadEvidence`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evidence {
    pub uid: Uid,
    /// finalizer -> the field managers that wrote it, newest first.
    pub writers: std::collections::BTreeMap<String, Vec<String>>,
    /// finalizer -> its last write.
    pub last: std::collections::BTreeMap<String, crate::model::remover::Written>,
    /// Its core/v1 Events.
    pub events: Vec<Object>,
    /// What could not be read, and why (`managedFields: forbidden ...`).
    pub missing: Vec<String>,
}

/// The namespace scope of a source, for `:ns`, `0` and their completion.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Namespaces {
    /// The one namespace watched; `None`: every namespace.
    pub watched: Option<String>,
    /// The cluster's namespaces, when the source watches one and the user
    /// may list them (empty otherwise: the tree's own are offered).
    pub names: Vec<String>,
}

/// The contexts a live source can switch to, for `:ctx` and its completion.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Contexts {
    /// The context in use.
    pub current: String,
    /// Every context of the kubeconfig, in its order.
    pub names: Vec<String>,
}

/// Whether the source would accept a command from this user, asked before
/// the UI offers it (a SelfSubjectAccessReview on a cluster).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Permission {
    Allowed,
    /// Not permitted: `verb` on `resource` (e.g. `delete` on
    /// `deployments.apps "web" in namespace shop`), with the reason.
    Denied {
        verb: String,
        resource: String,
        reason: String,
    },
    /// Could not be checked (network, review refused); the command may still
    /// be sent and the server will decide.
    Unknown(String),
}

impl Permission {
    /// `not permitted: delete on configmaps "x" in namespace y (reason)`,
    /// for a denied one.
    #[must_use]
    pub fn denial(&self) -> Option<String> {
        match self {
            Permission::Denied {
                verb,
                resource,
                reason,
            } => Some(format!("not permitted: {verb} on {resource} ({reason})")),
            _ => None,
        }
    }
}

/// A source of objects and a sink for commands.
pub trait Backend {
    /// Sends a command; its answer arrives as [`Update::Replied`].
    fn send(&mut self, cmd: Command);
    /// Everything that happened since the last call. `elapsed` is the real
    /// time since the last call (the simulator moves its clock by it).
    fn poll(&mut self, elapsed: Duration) -> Vec<Update>;
    /// The source's current time (virtual in the simulator), for ages.
    fn now(&self) -> Timestamp;
    /// Whether the source is the simulator (for what the help offers).
    fn is_simulator(&self) -> bool;
    /// Whether `cmd` is permitted, before it is offered. The simulator
    /// permits everything.
    fn permission(&mut self, cmd: &Command) -> Permission {
        let _ = cmd;
        Permission::Allowed
    }
}

#[cfg(test)]
mod tests {
    use super::Update;

    /// A large kind's first list reaches the UI as one update an object:
    /// at a million objects, every byte of an update is a megabyte the
    /// backend and the UI's inbox write (208 bytes each when the large
    /// payloads were not boxed: 440 ms of `bench --part arrival` at 1M).
    #[test]
    fn an_update_is_small_whatever_its_variant() {
        assert!(
            std::mem::size_of::<Update>() <= 40,
            "{} bytes",
            std::mem::size_of::<Update>()
        );
    }
}
