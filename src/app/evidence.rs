//! What explains the selected Terminating object beyond the watched
//! objects, read from a live source for that object only: who wrote its
//! finalizers (`managedFields`) and its own Events (STUCK-CAUSES C1, C2,
//! C23). Asked when the selection lands on such an object, again after
//! [`EVIDENCE_TTL`]; the details use it as `why --live` does.

use std::time::Duration;

use super::App;
use crate::backend::{Command, Evidence};

/// How long what was read stands before it is read again.
pub const EVIDENCE_TTL: Duration = Duration::from_secs(30);

/// What was asked and read, by object.
#[derive(Clone, Debug, Default)]
pub(super) struct Evidences {
    /// uid -> the App's clock when it was asked.
    asked: std::collections::HashMap<String, Duration>,
    /// uid -> what was read.
    read: std::collections::HashMap<String, Evidence>,
}

impl Evidences {
    pub(super) fn get(&self, uid: &str) -> Option<&Evidence> {
        self.read.get(uid)
    }

    pub(super) fn clear(&mut self) {
        *self = Evidences::default();
    }
}

impl App {
    /// The request for the selected object's evidence: a live source, a
    /// Terminating object with finalizers, not asked within
    /// [`EVIDENCE_TTL`].
    pub(super) fn evidence_request(&mut self) -> Option<Command> {
        if self.opts.is_simulator {
            return None;
        }
        let o = self.selected_object()?;
        if !o.is_terminating() || o.metadata.finalizers.is_empty() {
            return None;
        }
        let uid = o.uid().to_string();
        let target = o.obj_ref();
        if self
            .evidences
            .asked
            .get(&uid)
            .is_some_and(|at| self.clock < *at + EVIDENCE_TTL)
        {
            return None;
        }
        self.evidences.asked.insert(uid, self.clock);
        Some(Command::ReadEvidence(target))
    }

    /// What the source read: kept, and the answer recomputed when it is
    /// about the selected object.
    pub(super) fn on_evidence(&mut self, e: Evidence) {
        let selected = self.selected_object().map(|o| o.uid().to_string());
        let uid = e.uid.clone();
        self.evidences.read.insert(uid.clone(), e);
        if selected.as_deref() == Some(uid.as_str()) {
            self.compute_why();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::app::{Action, Options};
    use crate::backend::Update;
    use crate::model::{KindTable, Object};

    fn obj(v: serde_json::Value) -> Arc<Object> {
        Arc::new(serde_json::from_value(v).expect("object"))
    }

    /// A live UI holding a ConfigMap whose finalizer's writer is a
    /// Deployment scaled to 0.
    fn live() -> App {
        let mut app = App::new(Options::default());
        app.set_viewport(20);
        app.apply_all(vec![Update::Reset {
            objects: vec![
                obj(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": "held", "namespace": "shop", "uid": "cm",
                                 "deletionTimestamp": "2026-01-01T00:00:00Z",
                                 "finalizers": ["example.com/cleanup"]}})),
                obj(
                    serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment",
                    "metadata": {"name": "cleanup-operator", "namespace": "shop", "uid": "d"},
                    "spec": {"replicas": 0}, "status": {}}),
                ),
            ],
            kinds: Box::new(KindTable::builtin()),
        }]);
        app
    }

    fn evidence_asked(cmds: &[Command]) -> Vec<String> {
        cmds.iter()
            .filter_map(|c| match c {
                Command::ReadEvidence(t) => Some(t.name.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_terminating_object_selected_on_a_live_source_gets_its_evidence_read_once() {
        let mut app = live();
        let mut asked = Vec::new();
        for _ in 0..6 {
            asked.extend(evidence_asked(&app.update(Action::Down)));
            asked.extend(evidence_asked(&app.update(Action::Up)));
        }
        assert_eq!(asked, ["held"], "asked once within the TTL");
        // Before the answer: the catalogue's words, no writer.
        while app.selected_object().map(Object::name) != Some("held") {
            app.update(Action::Down);
        }
        let before = app.why().expect("why").lines().join("\n");
        assert!(!before.contains("cleanup-operator"), "{before}");
        let mut last = std::collections::BTreeMap::new();
        last.insert(
            "example.com/cleanup".to_string(),
            crate::model::remover::Written {
                manager: "cleanup-operator".into(),
                at: "2026-01-01T00:05:00Z".parse().expect("time"),
            },
        );
        app.apply_all(vec![Update::evidence(Evidence {
            uid: "cm".into(),
            writers: [("example.com/cleanup".to_string(), vec!["cleanup-operator".to_string()])]
                .into(),
            last,
            events: vec![(*obj(serde_json::json!({"apiVersion": "v1", "kind": "Event",
                "metadata": {"name": "held.1", "namespace": "shop", "uid": "e"},
                "involvedObject": {"kind": "ConfigMap", "name": "held", "namespace": "shop", "uid": "cm"},
                "type": "Warning", "reason": "CleanupFailed", "message": "bucket not empty",
                "source": {"component": "cleanup-operator"}, "count": 2,
                "lastTimestamp": "2026-01-01T00:06:00Z"})))
            .clone()],
            missing: vec!["its Events of another kind: forbidden".into()],
        })]);
        let after = app.why().expect("why").lines().join("\n");
        assert!(
            after.contains("cleanup-operator (Deployment shop/cleanup-operator) is scaled to 0: nothing will remove example.com/cleanup (written by field manager cleanup-operator)"),
            "{after}"
        );
        assert!(
            after.contains("CleanupFailed from cleanup-operator, 2 times"),
            "{after}"
        );
        assert!(after.contains("field manager cleanup-operator, which added finalizer example.com/cleanup, wrote this object at"), "{after}");
        assert!(
            after.contains("Not read: its Events of another kind: forbidden"),
            "{after}"
        );
        // Asked again once the evidence is old.
        app.tick(EVIDENCE_TTL);
        let again = evidence_asked(&app.update(Action::Down));
        let again2 = evidence_asked(&app.update(Action::Up));
        assert_eq!([again, again2].concat(), ["held"]);
    }

    #[test]
    fn a_simulator_reads_nothing_more() {
        let mut app = App::new(Options {
            is_simulator: true,
            ..Options::default()
        });
        app.apply_all(live_objects());
        for _ in 0..4 {
            assert!(evidence_asked(&app.update(Action::Down)).is_empty());
        }
    }

    fn live_objects() -> Vec<Update> {
        vec![Update::Reset {
            objects: vec![obj(
                serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "held", "namespace": "shop", "uid": "cm",
                             "deletionTimestamp": "2026-01-01T00:00:00Z",
                             "finalizers": ["example.com/cleanup"]}}),
            )],
            kinds: Box::new(KindTable::builtin()),
        }]
    }
}
