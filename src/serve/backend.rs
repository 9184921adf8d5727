//! `ownerscope ui SCENARIO --serve`: the UI on the served simulator. The UI
//! reads the same change history a watch does (so it shows what kubectl
//! does to the simulator) and sends its commands to the same simulator,
//! under the same lock; the server's clock task moves time for both.

use std::sync::Arc;
use std::time::Duration;

use jiff::Timestamp;

use super::http::Shared;
use super::run::Started;
use super::state::EventKind;
use crate::backend::simulated::SPEEDS;
use crate::backend::{
    Backend, Clock, Command, Connection, Reply, SimCommand, SourceStatus, Update,
};
use crate::sim::DeleteOptions;
use crate::sim::api::{Key, Preconditions};

/// The UI's view of a served simulator.
pub struct ServedBackend {
    shared: Arc<Shared>,
    /// Holds the server; stopped when the UI ends.
    server: Option<Started>,
    /// The last change shown; `None` before the first reset.
    cursor: Option<u64>,
    timeline_seen: usize,
    out: Vec<Update>,
    label: String,
}

impl ServedBackend {
    #[must_use]
    pub fn new(server: Started) -> ServedBackend {
        let label = format!(
            "{} · served on :{} · {}",
            server.name,
            server.port,
            server.export_line()
        );
        ServedBackend {
            shared: Arc::clone(&server.shared),
            server: Some(server),
            cursor: None,
            timeline_seen: 0,
            out: Vec::new(),
            label,
        }
    }

    fn reply(&mut self, command: Command, code: u16, message: String, warnings: Vec<String>) {
        self.out.push(Update::replied(Reply {
            command,
            code,
            message,
            warnings,
        }));
    }

    /// Reads what changed since the last call into updates.
    fn collect(&mut self) {
        let served = self.shared.lock();
        let events = self.cursor.map(|c| served.since(c));
        match events {
            Some(Ok(list)) => {
                for e in list {
                    self.out.push(match e.kind {
                        EventKind::Deleted => Update::Remove(e.object.metadata.uid.clone()),
                        _ => Update::Upsert(e.object.clone()),
                    });
                }
            }
            // First call, or fell behind the history: start over.
            None | Some(Err(_)) => self.out.push(Update::Reset {
                objects: served.sim.shared_objects().cloned().collect(),
                kinds: Box::new(served.sim.kinds().clone()),
            }),
        }
        self.cursor = Some(served.resource_version());
        let timeline = served.sim.timeline();
        self.out.extend(
            timeline
                .since(self.timeline_seen)
                .map(|e| Update::happened(crate::backend::simulated::happening(e))),
        );
        self.timeline_seen = timeline.len();
        let status = SourceStatus {
            kind: "SIMULATOR".into(),
            name: self.label.clone(),
            scope: "all namespaces".into(),
            connection: Connection::Connected,
            clock: Some(Clock {
                now_ms: served.sim.now_ms(),
                paused: served.paused,
                speed: served.speed,
                starting: false,
            }),
            missing_kinds: Vec::new(),
            syncing: Vec::new(),
            controllers: served
                .sim
                .controllers()
                .map(crate::backend::simulated::controller_info)
                .collect(),
        };
        drop(served);
        self.out.push(Update::status(status));
    }
}

impl Drop for ServedBackend {
    fn drop(&mut self) {
        if let Some(s) = self.server.take()
            && let Err(e) = s.stop()
        {
            tracing::warn!("{e}");
        }
    }
}

fn speed_step(speed: f64, faster: bool) -> f64 {
    let i = SPEEDS
        .iter()
        .position(|s| *s >= speed)
        .unwrap_or(SPEEDS.len() - 1);
    let j = if faster {
        (i + 1).min(SPEEDS.len() - 1)
    } else {
        i.saturating_sub(1)
    };
    SPEEDS[j]
}

impl Backend for ServedBackend {
    fn send(&mut self, cmd: Command) {
        let mut served = self.shared.lock();
        served.sim.set_user_actor("user");
        let answer: Option<(u16, String, Vec<String>)> = match &cmd {
            Command::Delete { target, policy } => {
                let opts = DeleteOptions {
                    preconditions: Preconditions {
                        uid: Some(target.uid.clone()),
                        resource_version: None,
                    },
                    ..DeleteOptions::policy(*policy)
                };
                let r = served.sim.delete_key(&Key::from_ref(target), &opts);
                Some((r.code, r.message, r.warnings))
            }
            Command::ForceDelete { target } => {
                let r = served
                    .sim
                    .delete_key(&Key::from_ref(target), &DeleteOptions::forced(&target.uid));
                Some((r.code, r.message, r.warnings))
            }
            Command::RemoveFinalizer { target, finalizer } => {
                let r = served
                    .sim
                    .remove_finalizer_key(&Key::from_ref(target), Some(&target.uid), finalizer);
                Some((r.code, r.message, r.warnings))
            }
            Command::SwitchContext(_) => Some((
                0,
                "the served simulator has no contexts: restart with another scenario".into(),
                Vec::new(),
            )),
            Command::SwitchNamespace(ns) => Some((
                if ns.is_none() { 200 } else { 0 },
                crate::backend::simulated::namespaces_held(ns.as_deref()),
                Vec::new(),
            )),
            Command::Reconnect => Some((
                0,
                "nothing to reconnect: the UI runs the served simulator itself".into(),
                Vec::new(),
            )),
            // The store holds every object there is (its Events included).
            Command::ReadEvidence(_) => None,
            Command::Sim(s) => match s {
                SimCommand::Pause => {
                    served.paused = true;
                    None
                }
                SimCommand::Resume => {
                    served.paused = false;
                    None
                }
                SimCommand::Step => {
                    let ran = served.sim.step();
                    #[allow(clippy::cast_precision_loss)]
                    let t = served.sim.now_ms() as f64 / 1000.0;
                    Some((
                        200,
                        if ran {
                            format!("ran what was due at t={t:.1}s")
                        } else {
                            "nothing is scheduled: every step ran and nothing is pending".into()
                        },
                        Vec::new(),
                    ))
                }
                SimCommand::Faster | SimCommand::Slower => {
                    served.speed = speed_step(served.speed, *s == SimCommand::Faster);
                    None
                }
                SimCommand::SetController { finalizer, online } => {
                    served.sim.set_controller(finalizer, *online);
                    None
                }
                SimCommand::Reset | SimCommand::Load(_) => Some((
                    0,
                    "not while serving: clients hold this run's resource versions; restart ownerscope to start over".into(),
                    Vec::new(),
                )),
            },
        };
        served.pump();
        let rv = served.resource_version();
        drop(served);
        self.shared.changed(rv);
        if let Some((code, message, warnings)) = answer {
            self.reply(cmd, code, message, warnings);
        }
        self.collect();
    }

    fn poll(&mut self, _elapsed: Duration) -> Vec<Update> {
        self.collect();
        std::mem::take(&mut self.out)
    }

    fn now(&self) -> Timestamp {
        self.shared.lock().sim.now()
    }

    fn is_simulator(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_step_through_the_table() {
        assert!((speed_step(1.0, true) - 2.0).abs() < f64::EPSILON);
        assert!((speed_step(1.0, false) - 0.5).abs() < f64::EPSILON);
        assert!((speed_step(30.0, true) - 30.0).abs() < f64::EPSILON);
        assert!((speed_step(0.25, false) - 0.25).abs() < f64::EPSILON);
        assert!((speed_step(3.0, true) - 10.0).abs() < f64::EPSILON);
    }
}
