//! A `kubectl get -o json` List restored into the store while the file is
//! still being read: each object is created (restored) as soon as the run
//! of the list it is in is parsed, on a thread of its own beside the
//! parsing, instead of all of them one by one after the whole file. At
//! 300k objects the store's build took a third of `tree`'s wall time,
//! after a parse that kept the two cores only three-quarters busy.
//!
//! A List's store does not depend on anything after its objects: its
//! kinds are the built-in ones plus what its objects show, its settings
//! the defaults. Two things of a List are known only at its end, and an
//! object that would need either is not restored here; the file is then
//! read again as before:
//! - the clock starts at the latest time the objects record, and an
//!   object with no creation time would be given that time;
//! - every object's kind is learned before any is stored, so the scope
//!   and names guessed from an object stand even when the List has its
//!   CustomResourceDefinition before it (R12); stored one by one, the
//!   definition would give them instead.
//!
//! Objects without a uid, or with an owner reference without one, are
//! given theirs from the whole list ([`super::super::scenario`]'s
//! `finish_objects`): not restored here either.

use std::sync::Arc;

use jiff::Timestamp;

use super::{Sim, epoch};
use crate::model::{KindInfo, KindTable, Object};
use crate::sim::LoadError;
use crate::sim::api::{ApiServer, Caller};
use crate::sim::scenario::{self, Settings, Take, recorded_time};

/// The store a List's objects are restored into as they are parsed.
struct Restoring {
    api: ApiServer,
    /// The objects as stored, in the List's order: the simulator's first
    /// look goes through them in that order.
    order: Vec<Arc<Object>>,
    /// The latest time an object records: where the clock starts.
    latest: Option<Timestamp>,
}

impl Restoring {
    /// An empty store for the List `path` may hold, as a List's defaults
    /// make it, with `seed`.
    fn new(path: &str, seed: u64) -> Self {
        let mut api = Sim::api_of(&Settings::default(), KindTable::builtin(), seed);
        // Room for the objects the file may hold (about a KiB each, in the
        // leanest Lists): the name index grows as they come.
        let expected =
            std::fs::metadata(path).map_or(0, |m| usize::try_from(m.len() >> 10).unwrap_or(0));
        api.begin_restore(expected);
        Restoring {
            api,
            order: Vec::new(),
            latest: None,
        }
    }
}

impl Take for Restoring {
    fn take(&mut self, object: Arc<Object>) -> bool {
        let m = &object.metadata;
        if m.uid.is_empty()
            || m.creation_timestamp.is_none()
            || m.owner_references.iter().any(|r| r.uid.is_empty())
            || KindInfo::of_crd(&object).is_some()
        {
            return false;
        }
        self.latest = self.latest.max(recorded_time(&object));
        let mut resp = self.api.create(object, &Caller::default(), true);
        match resp.object.take() {
            Some(stored) if resp.is_success() => {
                self.order.push(stored);
                crate::sim::progress::indexed_one();
                true
            }
            // Refused (a name or uid twice): said by the load as before.
            _ => false,
        }
    }
}

impl Sim {
    /// As [`Sim::load_deferred`] of the scenario `name_or_path` loads,
    /// with `seed` or the scenario's: a JSON List is restored into the
    /// store while the file is read, as the module says; anything else is
    /// loaded, then restored, as before.
    ///
    /// # Errors
    /// The scenario's load error, or an object the store refuses.
    pub fn load_file_deferred(name_or_path: &str, seed: Option<u64>) -> Result<Sim, LoadError> {
        let list_seed = seed.unwrap_or(Settings::default().seed);
        let mut restoring = Restoring::new(name_or_path, list_seed);
        let (mut sc, restored) = scenario::load_into(name_or_path, Some(&mut restoring))?;
        if !restored {
            let seed = seed.unwrap_or(sc.settings.seed);
            return Sim::load_deferred(sc, seed);
        }
        sc.clock_at_latest(restoring.latest);
        let Restoring { mut api, order, .. } = restoring;
        api.set_now(sc.settings.epoch.unwrap_or_else(epoch));
        let sc = Arc::new(sc);
        api.end_restore().map_err(|(i, resp)| {
            sc.error_at(sc.object_line(i), &format!("objects[{i}]"), resp.message)
        })?;
        let mut sim = Self::shell_with(&sc, list_seed, api);
        sim.unprimed = Some(order);
        Ok(sim)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn meta(name: &str, ns: Option<&str>, uid: &str, created: &str) -> Value {
        let mut m = json!({"name": name, "uid": uid, "creationTimestamp": created});
        if let Some(ns) = ns {
            m["namespace"] = json!(ns);
        }
        m
    }

    fn owned(mut m: Value, kind: &str, name: &str, uid: &str) -> Value {
        let api = if kind == "Job" { "batch/v1" } else { "apps/v1" };
        m["ownerReferences"] = json!([{"apiVersion": api, "kind": kind, "name": name,
            "uid": uid, "controller": true, "blockOwnerDeletion": true}]);
        m
    }

    /// A List as a cluster gives it: a Deployment with its ReplicaSet and
    /// pods (one Terminating, asked last), a Job's pod, an Event, a
    /// Namespace, an object of a kind no table has, in no kind's order.
    fn cluster() -> Vec<Value> {
        let t = "2026-03-01T10:00:00Z";
        let pod = |name: &str, uid: &str| {
            json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": owned(meta(name, Some("shop"), uid, t), "ReplicaSet", "web-1", "rs1"),
                "spec": {"nodeName": "n1"}})
        };
        let mut going = pod("web-1-b", "p2");
        going["metadata"]["deletionTimestamp"] = json!("2026-03-02T08:00:30Z");
        going["metadata"]["deletionGracePeriodSeconds"] = json!(30);
        going["metadata"]["finalizers"] = json!(["example.com/hold"]);
        vec![
            pod("web-1-a", "p1"),
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "metadata": owned(meta("web-1", Some("shop"), "rs1", t), "Deployment", "web", "d1"),
                "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}}}}}),
            going,
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": meta("web", Some("shop"), "d1", t),
                "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}}}}}),
            json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": owned(meta("once-x", Some("jobs"), "p3", t), "Job", "once", "j1")}),
            json!({"apiVersion": "batch/v1", "kind": "Job",
                "metadata": meta("once", Some("jobs"), "j1", t)}),
            json!({"apiVersion": "v1", "kind": "Event",
                "metadata": meta("web.1", Some("shop"), "e1", t),
                "involvedObject": {"kind": "Deployment", "name": "web", "namespace": "shop", "uid": "d1"},
                "reason": "ScalingReplicaSet", "message": "Scaled up", "type": "Normal"}),
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": meta("shop", None, "ns1", t)}),
            json!({"apiVersion": "example.com/v1", "kind": "Database",
                "metadata": meta("orders", Some("shop"), "db1", t)}),
        ]
    }

    fn write(dir: &std::path::Path, name: &str, items: &[Value]) -> String {
        let text = serde_json::to_string_pretty(&json!({"apiVersion": "v1", "kind": "List",
            "items": items, "metadata": {"resourceVersion": ""}}))
        .expect("serialises");
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        path.to_string_lossy().to_string()
    }

    /// Loaded as before: the scenario read whole, then restored.
    fn before(path: &str, seed: Option<u64>) -> Result<Sim, LoadError> {
        let sc = scenario::load(path)?;
        let seed = seed.unwrap_or(sc.settings.seed);
        Sim::load_deferred(sc, seed)
    }

    /// The same simulator: the same store (objects, resource versions,
    /// kinds), clock, first look, and the same run from there.
    fn assert_same(mut restored: Sim, mut read: Sim, what: &str) {
        assert_eq!(restored.graph(), read.graph(), "{what}: the store");
        assert_eq!(restored.now(), read.now(), "{what}: the clock");
        assert_eq!(restored.api.resource_version(), read.api.resource_version());
        assert_eq!(
            restored.unprimed, read.unprimed,
            "{what}: the first look's order"
        );
        assert_eq!(restored.scenario().settings, read.scenario().settings);
        restored.settle(120_000);
        read.settle(120_000);
        let text = |sim: &Sim| {
            sim.timeline()
                .iter()
                .map(|e| e.to_text())
                .collect::<Vec<_>>()
        };
        assert_eq!(text(&restored), text(&read), "{what}");
        assert!(!text(&read).is_empty(), "{what}: something ran");
        assert_eq!(restored.graph(), read.graph(), "{what}: after running");
    }

    /// A List restored while it is read is the simulator it was before
    /// it: its store, its clock (the latest time it records: the
    /// Terminating pod's delete, asked 30 s before its deletion time),
    /// and what the controllers and the garbage collector then do; with
    /// the default seed or another.
    #[test]
    fn a_list_restored_while_read_is_the_simulator_read_then_restored() {
        let dir = std::env::temp_dir().join(format!("ownerscope-restore-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = write(&dir, "cluster.json", &cluster());
        for seed in [None, Some(7)] {
            let (_, sunk) =
                scenario::load_into(&path, Some(&mut Restoring::new(&path, 0))).expect("loads");
            assert!(sunk, "restored while read");
            let restored = Sim::load_file_deferred(&path, seed).expect("restored");
            assert_eq!(
                restored.now(),
                "2026-03-02T08:00:00Z".parse::<Timestamp>().expect("time")
            );
            assert_same(restored, before(&path, seed).expect("read"), "a List");
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    /// What only the whole List settles is read as before: an object with
    /// no uid, no creation time, an owner named without its uid; a
    /// definition before an object of its kind (a cluster-scoped kind the
    /// object guessed namespaced); a name twice (the same error, at the
    /// same object).
    #[test]
    fn what_the_whole_list_settles_is_read_as_before() {
        let dir = std::env::temp_dir().join(format!(
            "ownerscope-restore-as-before-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let mut cases: Vec<(&str, Vec<Value>)> = Vec::new();
        let mut no_uid = cluster();
        no_uid[7]["metadata"]["uid"] = json!("");
        cases.push(("no-uid", no_uid));
        let mut no_time = cluster();
        no_time[0]["metadata"]
            .as_object_mut()
            .expect("metadata")
            .remove("creationTimestamp");
        cases.push(("no-time", no_time));
        let mut by_name = cluster();
        by_name[1]["metadata"]["ownerReferences"][0]["uid"] = json!("");
        cases.push(("by-name", by_name));
        let mut crd = cluster();
        crd.insert(
            0,
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": meta("databases.example.com", None, "crd1", "2026-03-01T09:00:00Z"),
            "spec": {"group": "example.com", "scope": "Cluster",
                "names": {"kind": "Database", "plural": "databases"},
                "versions": [{"name": "v1", "served": true, "storage": true}]}}),
        );
        cases.push(("crd", crd));
        for (name, items) in cases {
            let path = write(&dir, &format!("{name}.json"), &items);
            let (_, sunk) =
                scenario::load_into(&path, Some(&mut Restoring::new(&path, 0))).expect("loads");
            assert!(!sunk, "{name}: read whole");
            let restored = Sim::load_file_deferred(&path, None).expect(name);
            assert_same(restored, before(&path, None).expect(name), name);
        }
        let mut twice = cluster();
        twice.push(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": meta("web", Some("shop"), "d2", "2026-03-01T10:00:00Z")}));
        let path = write(&dir, "twice.json", &twice);
        let Err(refused) = Sim::load_file_deferred(&path, None) else {
            panic!("a name twice is refused");
        };
        assert_eq!(Some(refused), before(&path, None).err());
        std::fs::remove_dir_all(&dir).ok();
    }
}
