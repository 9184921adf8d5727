//! Follows upstream `pkg/controller/ttlafterfinished/ttlafterfinished_controller.go`
//! (R71): a Job that has finished and sets `spec.ttlSecondsAfterFinished`
//! is deleted once that many seconds have passed since it finished, with
//! `propagationPolicy: Foreground` and its uid as a precondition, so that
//! its pods go before it and a Job re-created under the same name is not
//! touched. A Job already being deleted is left alone.

use jiff::Timestamp;

use super::{Intent, Op, intent};
pub use crate::model::workload::job_ttl_expires_at as expires_at;
use crate::model::{Object, Policy};
use crate::sim::api::{DeleteOptions, Key, Preconditions};

pub const ACTOR: &str = "ttl-after-finished-controller";

/// One pass over the Job at `now`: the DELETE when it has expired.
#[must_use]
pub fn sync(job: &Object, now: Timestamp) -> Vec<Intent> {
    match expires_at(job) {
        Some(at) if at <= now => vec![intent(
            ACTOR,
            Op::Delete {
                key: Key::of(job),
                options: DeleteOptions {
                    preconditions: Preconditions {
                        uid: Some(job.uid().to_string()),
                        resource_version: None,
                    },
                    ..DeleteOptions::policy(Policy::Foreground)
                },
            },
        )],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(ttl: Option<i64>, finished: Option<&str>) -> Object {
        let mut v = serde_json::json!({
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "j", "namespace": "ns", "uid": "u-j"},
            "spec": {},
        });
        if let Some(ttl) = ttl {
            v["spec"]["ttlSecondsAfterFinished"] = ttl.into();
        }
        if let Some(at) = finished {
            v["status"] = serde_json::json!({"conditions": [
                {"type": "Complete", "status": "True", "lastTransitionTime": at}
            ]});
        }
        serde_json::from_value(v).expect("job")
    }

    #[test]
    fn deletes_in_foreground_with_a_uid_precondition_once_expired() {
        let j = job(Some(60), Some("2026-01-01T00:00:00Z"));
        let before: Timestamp = "2026-01-01T00:00:59Z".parse().expect("t");
        let after: Timestamp = "2026-01-01T00:01:00Z".parse().expect("t");
        assert!(sync(&j, before).is_empty());
        let out = sync(&j, after);
        assert_eq!(out.len(), 1);
        let Op::Delete { options, .. } = &out[0].op else {
            panic!("a delete: {out:?}");
        };
        assert_eq!(options.propagation_policy.as_deref(), Some("Foreground"));
        assert_eq!(options.preconditions.uid.as_deref(), Some("u-j"));
        assert_eq!(out[0].actor, ACTOR);
    }

    #[test]
    fn leaves_jobs_without_a_ttl_or_not_finished() {
        let late: Timestamp = "2030-01-01T00:00:00Z".parse().expect("t");
        assert!(sync(&job(None, Some("2026-01-01T00:00:00Z")), late).is_empty());
        assert!(sync(&job(Some(0), None), late).is_empty());
    }
}
