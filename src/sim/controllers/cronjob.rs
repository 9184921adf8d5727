//! Follows upstream `pkg/controller/cronjob/cronjob_controllerv2.go`
//! (`syncCronJob`, `cleanupFinishedJobs`, `removeOldestJobs`,
//! `getJobName`) and `injection.go` (`DeleteJob`: propagation Background),
//! the CronJob controller of 1.21 and later; 1.20's first controller
//! (`cronjob_controller.go`, `syncOne`) does the same at each of its polls,
//! every 10 s, so a Job there comes up to 10 s after its minute (listed as
//! a version difference in the rehearsal suite).
//!
//! One sync of a CronJob:
//! - its `status.active` keeps the Jobs it controls that still exist and
//!   have not finished (`MissingJob`, `SawCompletedJob`);
//! - finished Jobs beyond `successfulJobsHistoryLimit` (default 3) and
//!   `failedJobsHistoryLimit` (default 1) are deleted, the oldest first
//!   (by start time, then name), with propagation Background, so their
//!   pods go with them. This runs for a CronJob being deleted too;
//! - unless it is being deleted or `suspend`ed, the latest schedule time
//!   since its last one (or its creation) that has not run starts a Job
//!   `<cronjob>-<minutes since 1970>` from `jobTemplate`, controlled by the
//!   CronJob (`controller`, `blockOwnerDeletion`), unless it is later than
//!   `startingDeadlineSeconds` allows or `concurrencyPolicy: Forbid` finds
//!   a Job still active; `Replace` deletes the active Jobs first.
//!
//! The schedule is the standard five-field crontab (and the `@hourly`
//! family), in `spec.timeZone` or UTC.

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};

use super::index::WorkloadIndex;
use super::{Intent, Op, intent};
use crate::model::workload::{job_finished, job_finished_condition};
use crate::model::{Object, unkept};
use crate::sim::api::{ApiServer, DeleteOptions, Key};

pub const ACTOR: &str = "cronjob-controller";

/// The API server's defaults for the history limits (both versions).
const SUCCESSFUL_HISTORY: usize = 3;
const FAILED_HISTORY: usize = 1;

/// Upstream gives up on a CronJob that missed more start times than this
/// (`too many missed start times`) and starts nothing.
const TOO_MANY_MISSED: usize = 100;

/// What one sync wants done, and when the CronJob is next due.
#[derive(Debug, Default)]
pub struct Sync {
    pub intents: Vec<Intent>,
    pub next: Option<Timestamp>,
}

/// The schedule as cronexpr reads it: five fields and a time zone; the
/// `@` descriptors of robfig/cron's `ParseStandard` spelled out.
fn crontab(cj: &Object) -> Option<cronexpr::Crontab> {
    let raw = cj.str_at(&["spec", "schedule"])?.trim();
    let fields = match raw {
        "@yearly" | "@annually" => "0 0 1 1 *",
        "@monthly" => "0 0 1 * *",
        "@weekly" => "0 0 * * 0",
        "@daily" | "@midnight" => "0 0 * * *",
        "@hourly" => "0 * * * *",
        other => other,
    };
    let zone = cj.str_at(&["spec", "timeZone"]).unwrap_or("UTC");
    cronexpr::parse_crontab(&format!("{fields} {zone}")).ok()
}

/// The schedule times after `after`, up to and including `now`, the last
/// of them, and whether there were too many.
fn unmet(tab: &cronexpr::Crontab, after: Timestamp, now: Timestamp) -> (Option<Timestamp>, bool) {
    let Ok(iter) = tab.iter_after(cronexpr::MakeTimestamp(after)) else {
        return (None, false);
    };
    let mut last = None;
    let mut count = 0;
    for t in iter {
        let Ok(t) = t else { break };
        let t = t.timestamp();
        if t > now {
            break;
        }
        count += 1;
        last = Some(t);
        if count > TOO_MANY_MISSED {
            return (None, true);
        }
    }
    (last, false)
}

fn next_after(tab: &cronexpr::Crontab, now: Timestamp) -> Option<Timestamp> {
    tab.find_next(cronexpr::MakeTimestamp(now))
        .ok()
        .map(|z| z.timestamp())
}

fn ts(v: Option<&Value>) -> Option<Timestamp> {
    v.and_then(Value::as_str).and_then(|s| s.parse().ok())
}

/// `<cronjob>-<scheduled time in minutes since 1970>` (`getJobName`).
#[must_use]
pub fn job_name(cj: &Object, scheduled: Timestamp) -> String {
    format!("{}-{}", cj.name(), scheduled.as_second().div_euclid(60))
}

fn finished_as(job: &Object) -> Option<&str> {
    job_finished_condition(job).and_then(|c| c.get("type").and_then(Value::as_str))
}

fn limit(cj: &Object, field: &str, default: usize) -> usize {
    match cj.value_at(&["spec", field]) {
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(default),
        None => default,
    }
}

fn delete_background(job: &Object) -> Intent {
    intent(
        ACTOR,
        Op::Delete {
            key: Key::of(job),
            options: DeleteOptions::policy(crate::model::Policy::Background),
        },
    )
}

/// `removeOldestJobs`: the oldest beyond `keep`, by start time, then name.
fn oldest_beyond(mut jobs: Vec<&Object>, keep: usize) -> Vec<&Object> {
    if jobs.len() <= keep {
        return Vec::new();
    }
    jobs.sort_by(|a, b| {
        let (sa, sb) = (
            ts(a.value_at(&["status", "startTime"])),
            ts(b.value_at(&["status", "startTime"])),
        );
        match (sa, sb) {
            (Some(x), Some(y)) if x != y => x.cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            _ => a.name().cmp(b.name()),
        }
    });
    let n = jobs.len() - keep;
    jobs.truncate(n);
    jobs
}

/// The Job the CronJob starts for `scheduled` (`getJobFromTemplate2`).
fn job_for(cj: &Object, scheduled: Timestamp) -> Object {
    let batch = if cj.api_version.starts_with("batch/") {
        "batch/v1"
    } else {
        cj.api_version.as_str()
    };
    let mut job = Object::new(batch, "Job", cj.namespace(), &job_name(cj, scheduled));
    let template = cj.value_at(&["spec", "jobTemplate"]);
    let strings = |what: &str| -> Vec<(String, String)> {
        template
            .and_then(|t| t.get("metadata"))
            .and_then(|m| m.get(what))
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default()
    };
    job.metadata.labels.extend(strings("labels"));
    job.metadata.annotations.extend(strings("annotations"));
    job.metadata
        .owner_references
        .push(cj.reference(Some(true), Some(true)));
    job.spec = template
        .and_then(|t| t.get("spec"))
        .cloned()
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}))
        .into();
    // The template's spec whole, what `ownerscope serve` keeps beside the
    // simulator's fields included (its pod template's env, resources...).
    if cj.extra().unkept_text().is_some()
        && let Some(spec) = unkept::full_at(cj, &["spec", "jobTemplate", "spec"])
        && let Ok(mut v) = serde_json::to_value(&job)
    {
        v["spec"] = spec;
        if let Ok(whole) = unkept::object_of(&v) {
            return whole;
        }
    }
    job
}

/// One sync of the CronJob `cj` at `now`.
#[must_use]
pub fn sync(api: &ApiServer, index: &WorkloadIndex, cj: &Object, now: Timestamp) -> Sync {
    let mut out = Sync::default();
    let jobs: Vec<&Object> = index
        .controlled(cj.uid())
        .filter_map(|uid| api.get_uid(uid))
        .filter(|j| j.kind == "Job" && j.group() == "batch")
        .collect();

    // The active list: what still exists and runs. A Job named for the
    // last schedule time is the one this controller just started (its
    // uid was not known when the status was written).
    let mut status: Value = (*cj.status).clone();
    if !status.is_object() {
        status = json!({});
    }
    let last_scheduled = ts(status.get("lastScheduleTime"));
    let just_started = last_scheduled.map(|t| job_name(cj, t));
    let was: Vec<String> = status
        .get("active")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|r| r.get("uid").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let mut active: Vec<&Object> = jobs
        .iter()
        .copied()
        .filter(|j| !job_finished(j))
        .filter(|j| was.iter().any(|u| u == j.uid()) || Some(j.name()) == just_started.as_deref())
        .collect();
    active.sort_by(|a, b| a.name().cmp(b.name()));

    // History limits, even while the CronJob is being deleted.
    let (mut complete, mut failed) = (Vec::new(), Vec::new());
    for j in &jobs {
        match finished_as(j) {
            Some("Complete") => complete.push(*j),
            Some(_) => failed.push(*j),
            None => {}
        }
    }
    let keep_ok = limit(cj, "successfulJobsHistoryLimit", SUCCESSFUL_HISTORY);
    let keep_failed = limit(cj, "failedJobsHistoryLimit", FAILED_HISTORY);
    for j in oldest_beyond(complete, keep_ok)
        .into_iter()
        .chain(oldest_beyond(failed, keep_failed))
        .filter(|j| !j.is_terminating())
    {
        out.intents.push(delete_background(j));
    }

    let mut scheduled_now = None;
    let tab = crontab(cj);
    let suspended = cj.value_at(&["spec", "suspend"]).and_then(Value::as_bool) == Some(true);
    if !cj.is_terminating()
        && !suspended
        && let Some(tab) = &tab
    {
        let mut since = last_scheduled
            .or(cj.metadata.creation_timestamp)
            .unwrap_or(now);
        let deadline = cj
            .value_at(&["spec", "startingDeadlineSeconds"])
            .and_then(Value::as_i64);
        if let Some(d) = deadline {
            since = since.max(now - SignedDuration::from_secs(d));
        }
        if let (Some(at), false) = unmet(tab, since, now) {
            let too_late = deadline.is_some_and(|d| at + SignedDuration::from_secs(d) < now);
            let policy = cj.str_at(&["spec", "concurrencyPolicy"]).unwrap_or("Allow");
            let forbidden = policy == "Forbid" && !active.is_empty();
            if !too_late && !forbidden {
                if policy == "Replace" {
                    for j in active.drain(..) {
                        out.intents.push(delete_background(j));
                    }
                }
                let job = job_for(cj, at);
                if api.get(&Key::of(&job)).is_none() {
                    out.intents.push(intent(
                        ACTOR,
                        Op::Create {
                            object: Box::new(job),
                            generate_name: None,
                        },
                    ));
                }
                scheduled_now = Some(at);
            }
        }
        out.next = next_after(tab, now);
    }

    // The status it writes: the active list and the last schedule time.
    let refs: Vec<Value> = active
        .iter()
        .map(|j| {
            json!({
                "apiVersion": j.api_version,
                "kind": "Job",
                "namespace": j.namespace(),
                "name": j.name(),
                "uid": j.uid(),
            })
        })
        .collect();
    let mut new = status.clone();
    if refs.is_empty() {
        if let Some(m) = new.as_object_mut() {
            m.remove("active");
        }
    } else {
        new["active"] = Value::Array(refs);
    }
    if let Some(at) = scheduled_now {
        new["lastScheduleTime"] = Value::String(at.to_string());
    }
    if let Some(done) = complete_times(&jobs).max() {
        let known = ts(new.get("lastSuccessfulTime"));
        if known.is_none_or(|k| done > k) {
            new["lastSuccessfulTime"] = Value::String(done.to_string());
        }
    }
    if new != status {
        out.intents.push(intent(
            ACTOR,
            Op::SetStatus {
                key: Key::of(cj),
                status: new,
            },
        ));
    }
    out
}

fn complete_times<'a>(jobs: &'a [&'a Object]) -> impl Iterator<Item = Timestamp> + 'a {
    jobs.iter()
        .filter(|j| finished_as(j) == Some("Complete"))
        .filter_map(|j| ts(j.value_at(&["status", "completionTime"])))
}
