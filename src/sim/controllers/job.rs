//! Follows upstream `pkg/controller/job/job_controller.go` (`syncJob`,
//! `manageJob`, the tracking finalizer in `deletePod`/`syncOrphanPod`): a
//! Job that has not finished keeps `parallelism` active pods (fewer when
//! `completions` minus the succeeded pods is smaller; none more once a pod
//! of a Job without `completions` succeeded), created through
//! `generateName` `<job>-` with the labels `controller-uid` and `job-name`
//! and the tracking finalizer (R73); a deleted pod is replaced. Not while
//! the Job is Terminating (R72). Once enough of its pods succeeded it is
//! marked `Complete`.

use serde_json::Value;

use crate::model::Object;
use crate::model::workload::{Controller, is_active_pod, is_managed, job_finished};

use super::controller_ref_manager::claim;
use super::index::WorkloadIndex;
use super::replicaset::{delete_surplus, pod_from_template};
use super::{Intent, JOB_TRACKING, Op, intent, remove_finalizer};
use crate::sim::api::{ApiServer, Key};

/// One sync of a Job.
#[must_use]
pub fn sync(api: &ApiServer, index: &WorkloadIndex, job: &Object, c: &Controller) -> Vec<Intent> {
    let claimed = claim(api, index, job, c);
    let mut out = claimed.intents;
    if job.is_terminating() || !is_managed(job) || job_finished(job) {
        return out;
    }
    let int = |path: &[&str]| job.value_at(path).and_then(Value::as_u64);
    let parallelism = int(&["spec", "parallelism"]).unwrap_or(1);
    let succeeded = claimed
        .children
        .iter()
        .filter(|p| p.str_at(&["status", "phase"]) == Some("Succeeded"))
        .count() as u64;
    let active: Vec<&Object> = claimed
        .children
        .into_iter()
        .filter(|p| is_active_pod(p))
        .collect();
    // Done: as many pods succeeded as `completions` asks, or, without it,
    // one did and none runs (upstream `syncJob`): the Job is Complete.
    let done = match int(&["spec", "completions"]) {
        Some(n) => succeeded >= n.max(1),
        None => succeeded > 0 && active.is_empty(),
    };
    if done {
        out.push(intent(c.actor, complete(api, job, succeeded)));
        return out;
    }
    let want = match int(&["spec", "completions"]) {
        Some(n) => parallelism.min(n.saturating_sub(succeeded)),
        None if succeeded > 0 => active.len() as u64,
        None => parallelism,
    };
    let want = usize::try_from(want).unwrap_or(usize::MAX);
    if active.len() < want {
        for _ in active.len()..want {
            let mut pod = pod_from_template(job, None);
            pod.metadata
                .labels
                .insert("controller-uid".into(), job.uid().to_string());
            pod.metadata
                .labels
                .insert("job-name".into(), job.name().to_string());
            pod.metadata.finalizers.push(JOB_TRACKING.into());
            out.push(intent(
                c.actor,
                Op::Create {
                    object: Box::new(pod),
                    generate_name: Some(format!("{}-", job.name())),
                },
            ));
        }
    } else if active.len() > want {
        let n = active.len() - want;
        out.extend(delete_surplus(active, n, c.actor));
    }
    out
}

/// The status of a Job that has just completed: its `Complete` condition,
/// when, and how many pods succeeded (`startTime` its creation when it has
/// none).
fn complete(api: &ApiServer, job: &Object, succeeded: u64) -> Op {
    let now = api.now().to_string();
    let mut status = (*job.status).clone();
    if !status.is_object() {
        status = serde_json::json!({});
    }
    if status.get("startTime").is_none()
        && let Some(t) = job.metadata.creation_timestamp
    {
        status["startTime"] = Value::String(t.to_string());
    }
    status["succeeded"] = succeeded.into();
    status["completionTime"] = Value::String(now.clone());
    status["conditions"] = serde_json::json!([
        {"type": "Complete", "status": "True", "lastProbeTime": now, "lastTransitionTime": now}
    ]);
    Op::SetStatus {
        key: Key::of(job),
        status,
    }
}

/// R73: the Job controller's finalizer on its pods.
#[must_use]
pub fn sync_job_tracking(api: &ApiServer) -> Vec<Intent> {
    let mut out = Vec::new();
    for pod in api
        .objects()
        .filter(|o| o.kind == "Pod" && o.group().is_empty() && o.has_finalizer(JOB_TRACKING))
    {
        let ctrl = pod
            .metadata
            .owner_references
            .iter()
            .find(|r| r.is_controller());
        let remove = match ctrl {
            None => true,
            Some(r) if r.kind != "Job" || r.group() != "batch" => false,
            Some(r) => {
                let key = Key {
                    group: "batch".into(),
                    kind: "Job".into(),
                    namespace: pod.namespace().map(str::to_string),
                    name: r.name.clone(),
                };
                match api.get(&key) {
                    None => true,
                    Some(job) if job.uid() != r.uid => true,
                    Some(job) => {
                        let managed_elsewhere = job
                            .str_at(&["spec", "managedBy"])
                            .is_some_and(|m| m != "kubernetes.io/job-controller");
                        let phase = pod.str_at(&["status", "phase"]).unwrap_or_default();
                        !managed_elsewhere
                            && (pod.is_terminating()
                                || phase == "Succeeded"
                                || phase == "Failed"
                                || job_finished(job))
                    }
                }
            }
        };
        if remove {
            out.push(intent(
                "job-controller",
                remove_finalizer(pod, JOB_TRACKING),
            ));
        }
    }
    out
}
