//! The CronJob controller in the simulator, as upstream's
//! `cronjob_controllerv2.go` runs it: the Jobs it starts (their names,
//! owner references and times), the finished ones it deletes beyond its
//! history limits (with their pods), `concurrencyPolicy`, `suspend`,
//! `startingDeadlineSeconds`, and what a CronJob being deleted still does.
//!
//! Seen on the 1.20 test control plane (a `batch/v1beta1` CronJob every
//! minute, `successfulJobsHistoryLimit: 1`, its Jobs marked Complete through
//! their status): a Job per minute, controlled by the CronJob
//! (`controller`, `blockOwnerDeletion`), selecting its pods by
//! `controller-uid`; once a second Job completed, the oldest was deleted
//! (`SuccessfulDelete`) and its pod went with it; `status.active` and
//! `lastScheduleTime` as modelled.
//!
//! Version differences, by rule (R71 and the CronJob controller):
//! - 1.20's first controller names a Job `<cronjob>-<scheduled time in
//!   seconds since 1970>` (`report-1795669080`) and polls every 10 s (Jobs
//!   came 0-9 s after their minute); 1.21+'s controller (modelled) names it
//!   in minutes (`report-29927818`) and wakes at the schedule time.
//! - `status.lastSuccessfulTime` exists from 1.21.

mod common;

use common::*;
use ownerscope::model::{Object, Policy};
use ownerscope::sim::{Sim, What};

/// A CronJob every minute whose Jobs' pods succeed after 20 s, keeping two
/// finished Jobs; virtual time starts at 2026-01-01T00:00:00Z.
fn every_minute(extra: &str) -> String {
    format!(
        r#"
name: cron
settings: {{jobPodsSucceedAfter: 20s}}
objects:
  - apiVersion: batch/v1
    kind: CronJob
    metadata: {{name: report, namespace: ns}}
    spec:
      schedule: '* * * * *'
      successfulJobsHistoryLimit: 2
      {extra}
      jobTemplate:
        metadata: {{labels: {{app: report}}}}
        spec:
          template:
            metadata: {{labels: {{app: report}}}}
            spec: {{restartPolicy: Never, containers: [{{name: c, image: example.invalid/c:1}}]}}
"#
    )
}

fn jobs(sim: &Sim) -> Vec<Object> {
    let mut v: Vec<Object> = sim
        .objects()
        .filter(|o| o.kind == "Job" && !o.is_terminating())
        .cloned()
        .collect();
    v.sort_by(|a, b| a.name().cmp(b.name()));
    v
}

fn names(objs: &[Object]) -> Vec<String> {
    objs.iter().map(|o| o.name().to_string()).collect()
}

fn complete(job: &Object) -> bool {
    ownerscope::model::workload::job_finished(job)
}

/// 2026-01-01T00:00:00Z in minutes since 1970: the first Job's suffix.
const MINUTE_ZERO: i64 = 1_767_225_600 / 60;

#[test]
fn a_job_each_minute_named_for_its_minute_and_controlled_by_the_cronjob() {
    let mut sim = sim(&every_minute(""));
    sim.advance(61_000);
    let js = jobs(&sim);
    assert_eq!(names(&js), [format!("report-{}", MINUTE_ZERO + 1)]);
    let r = &js[0].metadata.owner_references[0];
    assert_eq!(
        (r.kind.as_str(), r.name.as_str(), r.is_controller()),
        ("CronJob", "report", true)
    );
    assert_eq!(r.block_owner_deletion, Some(true));
    assert_eq!(
        js[0].metadata.labels.get("app").map(String::as_str),
        Some("report")
    );
    let by: Vec<&str> = sim
        .timeline()
        .iter()
        .filter(|e| e.object.kind == "Job" && e.what == What::Created)
        .map(|e| e.by.as_str())
        .collect();
    assert_eq!(by, ["cronjob-controller"]);
    // Its pod runs, succeeds, and the Job completes; the CronJob's status
    // says when it last scheduled, and no Job is active any more.
    sim.advance(25_000);
    let js = jobs(&sim);
    assert!(complete(&js[0]), "{:?}", js[0].status);
    let cj = sim
        .objects()
        .find(|o| o.kind == "CronJob")
        .expect("cronjob")
        .clone();
    assert_eq!(
        cj.str_at(&["status", "lastScheduleTime"]),
        Some("2026-01-01T00:01:00Z")
    );
    assert!(
        cj.value_at(&["status", "active"]).is_none(),
        "{:?}",
        cj.status
    );
}

#[test]
fn finished_jobs_beyond_the_history_limit_go_with_their_pods_oldest_first() {
    let mut sim = sim(&every_minute(""));
    sim.advance(5 * 60_000 + 30_000);
    let js = jobs(&sim);
    // Minutes 1..5 ran; 1, 2 and 3 were deleted as 3, 4 and 5 finished.
    assert_eq!(
        names(&js),
        [
            format!("report-{}", MINUTE_ZERO + 4),
            format!("report-{}", MINUTE_ZERO + 5)
        ]
    );
    assert!(js.iter().all(complete));
    let deleted: Vec<(String, String)> = sim
        .timeline()
        .iter()
        .filter(|e| e.object.kind == "Job" && matches!(e.what, What::Deleted))
        .map(|e| (e.object.name.clone(), e.by.clone()))
        .collect();
    assert_eq!(
        deleted.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(),
        [1, 2, 3].map(|m| format!("report-{}", MINUTE_ZERO + m))
    );
    // The Jobs went in background: their pods after them, by the GC.
    let pods: Vec<&Object> = sim.objects().filter(|o| o.is_pod()).collect();
    assert_eq!(
        pods.len(),
        2,
        "{:?}",
        names(&pods.into_iter().cloned().collect::<Vec<_>>())
    );
}

#[test]
fn forbid_starts_nothing_while_a_job_runs_and_replace_deletes_it() {
    // Pods that never finish: every Job stays active.
    let never =
        |extra: &str| every_minute(extra).replace("settings: {jobPodsSucceedAfter: 20s}\n", "");
    let mut forbid = sim(&never("concurrencyPolicy: Forbid"));
    forbid.advance(3 * 60_000 + 5_000);
    assert_eq!(
        names(&jobs(&forbid)),
        [format!("report-{}", MINUTE_ZERO + 1)]
    );

    let mut replace = sim(&never("concurrencyPolicy: Replace"));
    replace.advance(3 * 60_000 + 5_000);
    assert_eq!(
        names(&jobs(&replace)),
        [format!("report-{}", MINUTE_ZERO + 3)]
    );

    let mut allow = sim(&never(""));
    allow.advance(3 * 60_000 + 5_000);
    assert_eq!(jobs(&allow).len(), 3);
}

#[test]
fn suspended_or_past_its_starting_deadline_it_starts_nothing() {
    let mut suspended = sim(&every_minute("suspend: true"));
    suspended.advance(3 * 60_000);
    assert!(jobs(&suspended).is_empty());

    // A controller that looks 20 s after the hour: within no deadline it
    // starts the hour's Job; 10 s past a 10 s deadline it starts nothing
    // and waits for the next hour.
    let hourly = |extra: &str| {
        every_minute(extra)
            .replace("'* * * * *'", "'@hourly'")
            .replace("jobPodsSucceedAfter: 20s", "controllerDelay: 20s")
    };
    let mut on_time = sim(&hourly(""));
    on_time.advance(3_600_000 + 30_000);
    assert_eq!(
        names(&jobs(&on_time)),
        [format!("report-{}", MINUTE_ZERO + 60)]
    );
    let mut late = sim(&hourly("startingDeadlineSeconds: 10"));
    late.advance(3_600_000 + 30_000);
    assert!(jobs(&late).is_empty(), "{:?}", names(&jobs(&late)));
}

#[test]
fn a_cronjob_being_deleted_starts_nothing_and_its_jobs_follow_its_policy() {
    // Foreground: the Jobs go first, and no new one starts while it waits.
    let mut sim =
        sim(&every_minute("").replace("jobPodsSucceedAfter: 20s", "jobPodsSucceedAfter: 600s"));
    sim.advance(61_000);
    assert_eq!(jobs(&sim).len(), 1);
    let r = sim.delete(&t("CronJob", "ns", "report"), &policy(Policy::Foreground));
    assert!(r.is_success(), "{r:?}");
    sim.settle(3_600_000);
    assert!(
        sim.objects()
            .all(|o| o.kind != "CronJob" && o.kind != "Job")
    );
    assert!(sim.objects().all(|o| !o.is_pod()));
}

#[test]
fn settling_does_not_wait_for_a_schedule_that_never_ends() {
    // A delete elsewhere settles though the CronJob keeps its schedule.
    let yaml = every_minute("").replace(
        "objects:\n",
        "objects:\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: other, namespace: ns}}\n",
    );
    let mut sim = sim(&yaml);
    let r = sim.delete(&t("ConfigMap", "ns", "other"), &background());
    assert!(r.is_success(), "{r:?}");
    sim.settle(24 * 3_600_000);
    assert!(sim.now_ms() < 60_000, "settled at {} ms", sim.now_ms());
}

/// A CronJob every minute as a snapshot of a real cluster holds it: real
/// times, the last Job started at 06:00.
const CRONJOB_SEEN_AT_06: &str = r#"{"apiVersion": "batch/v1", "kind": "CronJob",
  "metadata": {"name": "report", "namespace": "ns", "uid": "cj-1", "creationTimestamp": "2026-11-20T09:00:00Z"},
  "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {"spec":
    {"restartPolicy": "Never", "containers": [{"name": "c", "image": "example.invalid/c:1"}]}}}}},
  "status": {"lastScheduleTime": "2026-11-26T06:00:00Z"}}"#;

/// 2026-11-26T06:01:00Z in minutes since 1970: the Job after 06:00's.
const MINUTE_0601: i64 = 1_795_672_860 / 60;

#[test]
fn a_snapshot_runs_its_schedule_from_the_time_it_was_taken() {
    // `snapshot` writes when it was taken: the clock starts there, so the
    // schedule falls due as it did on the cluster (the clock used to start
    // at 2026-01-01, before the last schedule, and no Job ever came).
    let snapshot = format!(
        r#"{{"name": "snapshot-prod", "takenAt": "2026-11-26T06:00:30Z", "objects": [{CRONJOB_SEEN_AT_06}]}}"#
    );
    let mut sim = sim(&snapshot);
    assert_eq!(sim.now().to_string(), "2026-11-26T06:00:30Z");
    sim.advance(29_000);
    assert!(jobs(&sim).is_empty(), "{:?}", names(&jobs(&sim)));
    sim.advance(2_000);
    assert_eq!(names(&jobs(&sim)), [format!("report-{MINUTE_0601}")]);
}

#[test]
fn a_list_starts_its_clock_at_the_latest_time_its_objects_record() {
    // `kubectl get -o json` says nothing of when it ran: the latest time
    // its objects record is the best lower bound (a deletion timestamp
    // counts from when the delete was asked, before its grace period).
    let list = format!(
        r#"{{"apiVersion": "v1", "kind": "List", "items": [{CRONJOB_SEEN_AT_06},
  {{"apiVersion": "v1", "kind": "Pod", "metadata": {{"name": "p", "namespace": "ns", "uid": "p-1",
    "creationTimestamp": "2026-11-26T06:00:05Z", "deletionTimestamp": "2026-11-26T06:00:50Z",
    "deletionGracePeriodSeconds": 30}}, "spec": {{"containers": [{{"name": "c", "image": "example.invalid/c:1"}}]}}}}]}}"#
    );
    // Read as JSON, and as YAML (the comment keeps it off the JSON path).
    for text in [list.clone(), format!("# a List\n{list}")] {
        let mut sim = sim(&text);
        assert_eq!(sim.now().to_string(), "2026-11-26T06:00:20Z");
        sim.advance(41_000);
        assert_eq!(names(&jobs(&sim)), [format!("report-{MINUTE_0601}")]);
    }
    // Hand-written manifests with no times keep the usual start.
    let plain = sim("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ns}\n");
    assert_eq!(plain.now().to_string(), "2026-01-01T00:00:00Z");
}
