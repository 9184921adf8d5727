//! The simulator while its controllers take their first look at a loaded
//! file, on a thread of their own: the UI draws the tree meanwhile instead
//! of waiting for them (their look was a fifth of the time from `ui FILE`
//! to its first tree at 300k objects, on a machine of two cores shared by
//! three threads). The look begins at the UI's first poll, once its tree
//! is built: begun beside that build, it slowed it, and the frame's peak
//! memory held the look's too.
//!
//! Nothing runs at time zero before that look is done: the clock stays at
//! zero, and what the user asks for meanwhile (a delete, a pause) is kept,
//! in its order, and sent when the simulator is ready; its answer comes as
//! any answer does. The updates the UI gets are those of a simulator
//! started before the UI ([`super::simulated::SimBackend::from_scenario`]).

use std::sync::mpsc::Sender;
use std::thread::JoinHandle;
use std::time::Duration;

use jiff::Timestamp;

use super::simulated::SimBackend;
use super::{Backend, Command, Update};

/// A [`SimBackend`] ready, or still priming on its thread.
#[derive(Debug)]
pub struct Starting {
    state: State,
}

#[derive(Debug)]
enum State {
    Priming {
        thread: JoinHandle<SimBackend>,
        /// Held until the first poll: the look starts once the UI has
        /// its tree (dropped, it lets the thread go).
        go: Option<Sender<()>>,
        /// The simulator's time, at zero.
        now: Timestamp,
        /// Commands sent meanwhile, to be sent in order once it is ready.
        kept: Vec<Command>,
    },
    Ready(Box<SimBackend>),
    /// Only while one state becomes the other.
    Taken,
}

impl Starting {
    /// `backend` primed by `prime` on a thread of its own, from the first
    /// poll on: the UI polls once it has taken in the first updates and
    /// built its tree, and the look, begun beside that build, slowed it
    /// (the two cores' memory and the kernel's clearing of fresh pages
    /// are shared however low the look's priority). `now` is the
    /// simulator's time while it primes (its start).
    pub(super) fn spawn(
        backend: SimBackend,
        now: Timestamp,
        prime: impl FnOnce(&mut SimBackend) + Send + 'static,
    ) -> Self {
        // As the scoped threads of the load: a machine that cannot start
        // one more thread cannot load a file either.
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            // Until the first poll, or until the Starting is dropped.
            let _ = wait.recv();
            crate::threads::yield_the_cores();
            let mut b = backend;
            prime(&mut b);
            b
        });
        Starting {
            state: State::Priming {
                thread,
                go: Some(go),
                now,
                kept: Vec::new(),
            },
        }
    }

    /// Whether the controllers are still taking their first look.
    #[must_use]
    pub fn priming(&self) -> bool {
        matches!(self.state, State::Priming { .. })
    }

    /// The simulator, waiting for its first look if it is not done.
    pub fn ready(&mut self) -> &mut SimBackend {
        let b = match std::mem::replace(&mut self.state, State::Taken) {
            State::Priming {
                thread, go, kept, ..
            } => {
                drop(go);
                let mut b = crate::threads::awaited(thread);
                for cmd in kept {
                    b.send(cmd);
                }
                Box::new(b)
            }
            State::Ready(b) => b,
            State::Taken => unreachable!("never left taken"),
        };
        self.state = State::Ready(b);
        match &mut self.state {
            State::Ready(b) => b,
            State::Priming { .. } | State::Taken => unreachable!("made ready above"),
        }
    }

    /// The ready simulator, waiting for it.
    #[must_use]
    pub fn into_ready(mut self) -> SimBackend {
        self.ready();
        match self.state {
            State::Ready(b) => *b,
            State::Priming { .. } | State::Taken => unreachable!("made ready above"),
        }
    }
}

impl Backend for Starting {
    fn send(&mut self, cmd: Command) {
        match &mut self.state {
            State::Priming { kept, .. } => kept.push(cmd),
            State::Ready(b) => b.send(cmd),
            State::Taken => unreachable!("never left taken"),
        }
    }

    /// Nothing while the controllers look (the clock stays at zero: the
    /// real time that passes is not owed to it); then what the simulator
    /// has, the answers to what was kept first.
    fn poll(&mut self, elapsed: Duration) -> Vec<Update> {
        if let State::Priming { thread, go, .. } = &mut self.state {
            go.take();
            if !thread.is_finished() {
                return Vec::new();
            }
            return self.ready().poll(Duration::ZERO);
        }
        self.ready().poll(elapsed)
    }

    fn now(&self) -> Timestamp {
        match &self.state {
            State::Priming { now, .. } => *now,
            State::Ready(b) => b.now(),
            State::Taken => unreachable!("never left taken"),
        }
    }

    fn is_simulator(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::SimCommand;
    use crate::model::Policy;
    use crate::sim::scenario;

    /// While the controllers look, a poll gives nothing and the clock
    /// stays at its start, however much time passes; what was asked
    /// meanwhile is kept, in its order, and done once they are ready: the
    /// updates are then those of a simulator that was ready from the
    /// start and was asked the same at once.
    #[test]
    fn what_is_asked_while_the_controllers_look_is_done_once_they_are_ready() {
        let sc = scenario::bundled("deployment").expect("bundled");
        let mut ready = SimBackend::new(&sc).expect("loads").unbounded();
        let start = ready.now();
        let target = ready
            .sim()
            .objects()
            .find(|o| o.kind == "Deployment")
            .expect("a Deployment")
            .obj_ref();
        let asked = [
            Command::Sim(SimCommand::Faster),
            Command::Delete {
                target,
                policy: Policy::Foreground,
            },
        ];
        // The look is held until the gate opens (or 5 s pass: a poll that
        // waited for it would then get the updates, and fail below).
        let (open, gate) = std::sync::mpsc::channel::<()>();
        let held = SimBackend::new(&sc).expect("loads").unbounded();
        let mut s = Starting::spawn(held, start, move |_| {
            let _ = gate.recv_timeout(Duration::from_secs(5));
        });
        for cmd in &asked {
            s.send(cmd.clone());
        }
        for _ in 0..3 {
            assert!(s.priming());
            assert!(s.poll(Duration::from_secs(10)).is_empty());
            assert_eq!(s.now(), start);
        }
        open.send(()).expect("the look waits");
        let mut seen = Vec::new();
        for _ in 0..5_000 {
            seen = s.poll(Duration::ZERO);
            if !seen.is_empty() {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(!s.priming());
        for cmd in asked {
            ready.send(cmd);
        }
        let expected = ready.poll(Duration::ZERO);
        assert!(
            expected
                .iter()
                .any(|u| matches!(u, Update::Replied(r) if r.code == 200)),
            "the delete is answered"
        );
        assert_eq!(seen, expected);
        assert_eq!(s.now(), start, "the time spent looking is not run");
    }

    /// The look begins at the first poll, once the UI has its tree, not
    /// beside its build; asked for by a wait for the simulator, it begins
    /// then.
    #[test]
    fn the_look_begins_at_the_first_poll() {
        let sc = scenario::bundled("deployment").expect("bundled");
        for first_poll in [true, false] {
            let b = SimBackend::new(&sc).expect("loads");
            let now = b.now();
            let (began, begun) = std::sync::mpsc::channel::<()>();
            let mut s = Starting::spawn(b, now, move |_| {
                let _ = began.send(());
            });
            assert!(
                begun.recv_timeout(Duration::from_millis(300)).is_err(),
                "begun before any poll"
            );
            if first_poll {
                s.poll(Duration::ZERO);
                begun.recv_timeout(Duration::from_secs(30)).expect("begun");
            } else {
                let _ready = s.into_ready();
                begun.try_recv().expect("begun");
            }
        }
    }
}
