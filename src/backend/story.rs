//! What a simulator scenario tells, for the UI: its description, the next
//! of its scheduled steps in words, and the timeline entries of a step
//! that ran and of a controller switched by the user (the turning points of
//! a story, which change no object by themselves).

use serde::Serialize;

use super::Happening;
use crate::model::ObjRef;
use crate::sim::Sim;
use crate::sim::scenario::{Step, StepAction};

/// The scenario's story.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Story {
    pub scenario: String,
    pub description: String,
    /// `step 2 of 3 at 5.0s: take the controller of example.com/cache
    /// offline`; `None` once every step has run.
    pub next: Option<String>,
}

/// A step's action in words.
#[must_use]
pub fn action_text(a: &StepAction) -> String {
    match a {
        StepAction::Delete { target, options } => {
            let policy = options
                .propagation_policy
                .as_deref()
                .unwrap_or("the kind's default policy");
            format!("delete {target} ({policy})")
        }
        StepAction::RemoveFinalizer { target, finalizer } => {
            format!("remove finalizer {finalizer} from {target}")
        }
        StepAction::AddFinalizer { target, finalizer } => {
            format!("add finalizer {finalizer} to {target}")
        }
        StepAction::Controller { finalizer, online } => format!(
            "take the controller of {finalizer} {}",
            if *online { "online" } else { "offline" }
        ),
        StepAction::Create { object } => format!("create {}/{}", object.kind, object.name()),
        StepAction::SetPhase { target, phase } => format!("set the phase of {target} to {phase}"),
        StepAction::Scale { target, replicas } => format!("scale {target} to {replicas}"),
        StepAction::Api {
            group_version,
            available,
        } => format!(
            "the API {group_version} {}",
            if *available {
                "is served again"
            } else {
                "stops being served (discovery fails)"
            }
        ),
    }
}

#[allow(clippy::cast_precision_loss)]
fn secs(ms: u64) -> f64 {
    ms as f64 / 1000.0
}

/// `step 2 of 3 at 5.0s: ...`.
#[must_use]
pub fn step_text(i: usize, total: usize, step: &Step) -> String {
    format!(
        "step {} of {total} at {:.1}s: {}",
        i + 1,
        secs(step.at.0),
        action_text(&step.action)
    )
}

/// The story of the running scenario.
#[must_use]
pub fn story(sim: &Sim) -> Story {
    let sc = sim.scenario();
    let i = sim.steps_run();
    Story {
        scenario: sc.name.clone(),
        description: sc.description.clone(),
        next: sc.steps.get(i).map(|s| step_text(i, sc.steps.len(), s)),
    }
}

/// The object a step acts on, as far as it exists.
fn step_object(sim: &Sim, a: &StepAction) -> ObjRef {
    let target = match a {
        StepAction::Delete { target, .. }
        | StepAction::RemoveFinalizer { target, .. }
        | StepAction::AddFinalizer { target, .. }
        | StepAction::SetPhase { target, .. }
        | StepAction::Scale { target, .. } => Some(target),
        _ => None,
    };
    if let Some(o) = target
        .and_then(|t| sim.resolve(t).ok())
        .and_then(|k| sim.get(&k))
    {
        return o.obj_ref();
    }
    match a {
        StepAction::Controller { finalizer, .. } => about("controller", finalizer),
        StepAction::Create { object } => about(&object.kind, object.name()),
        StepAction::Api { group_version, .. } => about("API", group_version),
        _ => about("scenario", &sim.scenario().name),
    }
}

/// A reference to no object (a controller, an API): it has no uid, and the
/// timeline says so when asked to select it.
fn about(kind: &str, name: &str) -> ObjRef {
    ObjRef {
        kind: kind.to_string(),
        name: name.to_string(),
        ..ObjRef::default()
    }
}

/// The timeline entry of step `i`, which just ran.
#[must_use]
pub fn step_happening(sim: &Sim, i: usize) -> Option<Happening> {
    let steps = &sim.scenario().steps;
    let step = steps.get(i)?;
    Some(Happening {
        t: secs(step.at.0),
        object: step_object(sim, &step.action),
        verb: "step".into(),
        detail: format!(
            "scenario step {} of {}: {}",
            i + 1,
            steps.len(),
            action_text(&step.action)
        ),
        by: "scenario".into(),
        warning: false,
    })
}

/// The timeline entry of the user switching a controller.
#[must_use]
pub fn switch_happening(sim: &Sim, finalizer: &str, online: bool) -> Happening {
    Happening {
        t: secs(sim.now_ms()),
        object: about("controller", finalizer),
        verb: "switch".into(),
        detail: format!(
            "the controller of {finalizer} {}",
            if online {
                "brought online"
            } else {
                "taken offline"
            }
        ),
        by: "user".into(),
        warning: false,
    }
}
