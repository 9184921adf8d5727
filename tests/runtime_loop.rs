//! The real loop (`runtime::run`) on ratatui's TestBackend with scripted
//! input: keys, a resize and the mouse go through the same path as in a
//! terminal, commands reach the simulator, and the screen follows. (A
//! TestBackend keeps its size, so the resize is checked on the App.)

use std::collections::VecDeque;

use crossterm::event::{Event, KeyModifiers, MouseEvent, MouseEventKind};
use ownerscope::app::{App, Modal, Options};
use ownerscope::backend::simulated::SimBackend;
use ownerscope::runtime::{self, ScriptedEvents};
use ownerscope::sim::scenario;
use ownerscope::tools::session::{buffer_text, parse_keys};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn keys(script: &str) -> Vec<Option<Event>> {
    parse_keys(script)
        .into_iter()
        .map(|k| Some(Event::Key(k)))
        .collect()
}

/// Runs the real loop on `script`, then idle until the open delete
/// dialog's `Enter` sends (it waits `READ_FOR` of real time, however
/// slowly the machine runs the rounds), then on `Enter` and `after` idle
/// rounds.
fn delete_through_the_loop(
    terminal: &mut Terminal<TestBackend>,
    app: &mut App,
    backend: &mut SimBackend,
    script: &str,
    after: usize,
) {
    let mut events = ScriptedEvents {
        events: keys(script).into(),
    };
    runtime::run(terminal, app, backend, &mut events).expect("runs");
    for _ in 0..200 {
        if app.enter_ready() {
            break;
        }
        let mut events = ScriptedEvents {
            events: std::iter::repeat_n(None, 5).collect(),
        };
        runtime::run(terminal, app, backend, &mut events).expect("runs");
    }
    assert!(
        matches!(app.modal(), Some(Modal::Delete(_))) && app.enter_ready(),
        "the delete dialog is open and may send: {:?}",
        app.message().map(|m| &m.text)
    );
    let mut script: VecDeque<Option<Event>> = keys("<Enter>").into();
    script.extend(std::iter::repeat_n(None, after));
    let mut events = ScriptedEvents { events: script };
    runtime::run(terminal, app, backend, &mut events).expect("runs");
    assert!(
        app.message()
            .is_some_and(|m| !m.error && m.text.contains("delete Deployment/")),
        "the delete was sent: {:?}",
        app.message().map(|m| &m.text)
    );
}

#[test]
fn keys_resize_and_mouse_drive_the_real_loop() {
    let sc = scenario::bundled("shop-demo").expect("demo");
    let mut backend = SimBackend::new(&sc).expect("loads");
    let mut app = App::new(Options {
        read_only: false,
        scenarios: runtime::bundled_scenarios(),
        is_simulator: true,
    });
    let mut terminal = Terminal::new(TestBackend::new(120, 36)).expect("terminal");
    // Let some real time pass for the cascade to start.
    delete_through_the_loop(
        &mut terminal,
        &mut app,
        &mut backend,
        "/deployment/web<Enter><C-d>f",
        20,
    );
    let mut script: VecDeque<Option<Event>> = VecDeque::new();
    script.push_back(Some(Event::Resize(80, 24)));
    script.push_back(Some(Event::Mouse(MouseEvent {
        kind: MouseEventKind::ScrollUp,
        column: 5,
        row: 5,
        modifiers: KeyModifiers::NONE,
    })));
    script.extend(std::iter::repeat_n(None, 3));
    let mut events = ScriptedEvents { events: script };
    runtime::run(&mut terminal, &mut app, &mut backend, &mut events).expect("runs");

    let web = app
        .graph()
        .objects()
        .find(|o| o.kind == "Deployment")
        .expect("web is still there: its ConfigMap holds it");
    assert!(web.is_terminating(), "the delete went through");
    assert!(
        app.timeline()
            .any(|h| h.detail.contains("propagationPolicy=Foreground")),
        "the request is in the timeline"
    );
    assert_eq!(
        app.viewport(),
        ownerscope::ui::layout::tree_rows(ratatui::layout::Rect::new(0, 0, 80, 24))
    );
    let screen = buffer_text(terminal.backend().buffer());
    assert!(screen.contains("Terminating"), "{screen}");
    // The mouse wheel moved the selection up from the Deployment.
    assert_ne!(
        app.selected_object().map(|o| o.kind.as_str()),
        Some("Deployment")
    );
}

/// Objects the cascade below reaches at least three times: more than the
/// loop folds in within one round (`runtime::APPLY_FOR` of work) on any
/// machine this runs on.
const ROUND: usize = 2_000;

/// A cascade larger than what the loop folds in at once: the simulator works it through over many
/// polls (`simulated::POLL_BUDGET` of work each), the loop takes in what
/// each poll says over as many rounds as it needs, and when it ends the
/// App holds what the simulator holds, object by object.
#[test]
fn a_cascade_larger_than_one_round_is_taken_in_whole_and_in_order() {
    let objects = ownerscope::tools::generate::cascade(3 * ROUND);
    let n = objects.len();
    let sc = ownerscope::tools::bench_scale::scenario(objects);
    let mut backend = SimBackend::from_scenario(sc).expect("loads");
    let mut app = App::new(Options {
        read_only: false,
        scenarios: Vec::new(),
        is_simulator: true,
    });
    let mut terminal = Terminal::new(TestBackend::new(120, 36)).expect("terminal");
    delete_through_the_loop(
        &mut terminal,
        &mut app,
        &mut backend,
        "/deployment/root<Enter><C-d>f",
        20,
    );
    let reached = |b: &SimBackend| {
        let sim = b.sim().graph();
        sim.objects().filter(|o| o.is_terminating()).count() + (n - sim.len())
    };
    // The loop runs on, idle, while the cascade is worked through.
    for _ in 0..300 {
        if reached(&backend) > 2 * ROUND {
            break;
        }
        let idle = std::iter::repeat_n(None, 10).collect();
        let mut events = ScriptedEvents { events: idle };
        runtime::run(&mut terminal, &mut app, &mut backend, &mut events).expect("runs");
    }

    let sim = backend.sim().graph();
    let reached = reached(&backend);
    assert!(
        reached > ROUND,
        "the cascade reached more objects ({reached}) than one round takes in"
    );
    assert_eq!(app.graph().len(), sim.len());
    for o in sim.objects() {
        let mine = app.graph().get(o.uid()).expect("in the App");
        assert_eq!(
            (
                &mine.metadata.resource_version,
                &mine.metadata.deletion_timestamp
            ),
            (&o.metadata.resource_version, &o.metadata.deletion_timestamp),
            "{}/{}",
            o.kind,
            o.name()
        );
    }
}
