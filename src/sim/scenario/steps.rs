//! A scenario's timed steps, checked and turned into [`StepAction`]s.

use super::*;

pub(super) fn step_from(
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
    if let Some(s) = d.scale {
        actions.push(StepAction::Scale {
            target: target(s.kind, s.namespace, s.name),
            replicas: s.replicas,
        });
    }
    if actions.len() != 1 {
        return Err(LoadError {
            file: file.to_string(),
            line,
            field: path.to_string(),
            message: format!(
                "a step needs exactly one of delete, removeFinalizer, addFinalizer, controller, create, setPhase, api, scale (found {})",
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
