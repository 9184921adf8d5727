//! Nothing is sent by a key typed out of habit. A k9s user types `d`
//! (describe), `y` (YAML), `Ctrl-d` then `Enter` (delete), `Ctrl-k`
//! (kill) without looking; here every sequence of up to three of k9s's
//! common keys is typed, from the tree and from every dialog just opened,
//! through the real keymap and `App::update`, and none may send a
//! request:
//! - at typing speed (a key every 100 ms), nothing at all;
//! - at any pace, no key but `Enter` ever confirms.
//!
//! A last test shows the gate is not a wall: `Enter` on a dialog that has
//! been read sends exactly what it shows.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};
use ownerscope::app::modal::READ_FOR;
use ownerscope::app::{Action, App, Modal, Mode, Options};
use ownerscope::backend::simulated::SimBackend;
use ownerscope::backend::{Backend, Command, SimCommand, Update};
use ownerscope::keymap;
use ownerscope::sim::scenario;

fn key(code: KeyCode, ctrl: bool) -> KeyEvent {
    KeyEvent {
        code,
        modifiers: if ctrl {
            KeyModifiers::CONTROL
        } else {
            KeyModifiers::NONE
        },
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    }
}

/// k9s's common keys: the letters k9s binds (d describe, y YAML, e edit,
/// l logs, s shell, a attach, n, c copy, o, t, x decode, u use, p, r, f,
/// z, F, J, R...), its control keys (Ctrl-d delete, Ctrl-k kill, Ctrl-a
/// aliases, Ctrl-r refresh, Ctrl-s save, Ctrl-w wide, Ctrl-e, Ctrl-u,
/// Ctrl-b, Ctrl-f, Ctrl-z), and `:`, `/`, `?`, `0`, `1`, `!`, Space,
/// Enter, Esc, Tab, Backspace and Delete.
fn k9s_keys() -> Vec<(String, KeyEvent)> {
    let mut out = Vec::new();
    for c in "abcdefghjklnopqrstuvwxyzFJRSGEZ01?:/! ".chars() {
        out.push((c.to_string(), key(KeyCode::Char(c), false)));
    }
    for c in "dkarsweubfz".chars() {
        out.push((format!("Ctrl-{c}"), key(KeyCode::Char(c), true)));
    }
    for (n, c) in [
        ("Enter", KeyCode::Enter),
        ("Esc", KeyCode::Esc),
        ("Tab", KeyCode::Tab),
        ("Bksp", KeyCode::Backspace),
        ("Del", KeyCode::Delete),
    ] {
        out.push((n.to_string(), key(c, false)));
    }
    out
}

/// A request: anything that changes the cluster (or the simulation as a
/// whole), or connects elsewhere. The simulator's clock keys (Space, s,
/// +, -) and a reconnect (Ctrl-r) change nothing of the cluster.
fn is_request(c: &Command) -> bool {
    c.is_mutation()
        || matches!(
            c,
            Command::Sim(
                SimCommand::Reset | SimCommand::Load(_) | SimCommand::SetController { .. }
            ) | Command::SwitchContext(_)
        )
}

fn demo() -> App {
    let sc = scenario::bundled("shop-demo").expect("bundled demo");
    let mut b = SimBackend::new(&sc).expect("loads");
    let mut app = App::new(Options {
        read_only: false,
        scenarios: vec![
            ("shop-demo".into(), "the demo".into()),
            ("deployment".into(), "a deployment".into()),
        ],
        is_simulator: true,
    });
    app.set_screen(160, 45);
    app.set_viewport(30);
    app.apply_all(b.poll(Duration::ZERO));
    app
}

fn select(app: &mut App, what: &str) {
    app.update(Action::StartSearch);
    for c in what.chars() {
        app.update(Action::Input(c));
    }
    app.update(Action::Confirm);
    assert_eq!(app.mode(), Mode::Normal);
    assert!(
        app.selected_object()
            .is_some_and(|o| format!("{}/{}", o.kind, o.name())
                .to_lowercase()
                .starts_with(what)),
        "{what} selected"
    );
}

/// The tree (on a Deployment, a Pod, an object with a finalizer) and
/// every dialog and view, each just opened.
fn starts() -> Vec<(&'static str, App)> {
    let mut out = Vec::new();
    let on = |what: &str| {
        let mut app = demo();
        select(&mut app, what);
        app
    };
    let opened = |what: &str, actions: &[Action], mode: Mode| {
        let mut app = on(what);
        for a in actions {
            assert!(app.update(*a).is_empty());
        }
        assert_eq!(app.mode(), mode, "{actions:?} on {what}");
        app
    };
    out.push(("tree on Deployment/web", on("deployment/web")));
    out.push(("tree on a Pod", on("pod/web")));
    out.push(("tree on ConfigMap/web-cache", on("configmap/web-cache")));
    out.push((
        "delete dialog",
        opened("deployment/web", &[Action::OpenDelete], Mode::Delete),
    ));
    out.push((
        "delete dialog, foreground chosen",
        opened(
            "deployment/web",
            &[Action::OpenDelete, Action::Foreground],
            Mode::Delete,
        ),
    ));
    out.push((
        "kill dialog on a Pod",
        opened("pod/web", &[Action::OpenKill], Mode::Delete),
    ));
    out.push((
        "finalizer removal, name to type",
        opened(
            "configmap/web-cache",
            &[Action::OpenRemoveFinalizer],
            Mode::FinalizerType,
        ),
    ));
    let mut two = on("configmap/web-cache");
    let mut cm = two.selected_object().expect("cm").clone();
    cm.metadata.finalizers.push("example.com/second".into());
    two.apply(Update::Upsert(cm.into()));
    two.update(Action::OpenRemoveFinalizer);
    assert_eq!(two.mode(), Mode::FinalizerChoose);
    out.push(("finalizer removal, choose which", two));
    out.push((
        "reset confirmation",
        opened("deployment/web", &[Action::OpenReset], Mode::Confirm),
    ));
    out.push((
        "scenario picker",
        opened("deployment/web", &[Action::OpenScenarios], Mode::Pick),
    ));
    out.push((
        "controllers",
        opened(
            "configmap/web-cache",
            &[Action::OpenControllers],
            Mode::Controllers,
        ),
    ));
    out.push((
        "filter",
        opened("deployment/web", &[Action::OpenFilter], Mode::Pick),
    ));
    out.push((
        "help",
        opened("deployment/web", &[Action::Help], Mode::Help),
    ));
    out.push((
        "aliases",
        opened("deployment/web", &[Action::ShowAliases], Mode::Help),
    ));
    out.push((
        "YAML",
        opened("deployment/web", &[Action::ShowYaml], Mode::Yaml),
    ));
    out.push((
        "describe",
        opened("deployment/web", &[Action::Describe], Mode::Describe),
    ));
    out.push((
        "search",
        opened("deployment/web", &[Action::StartSearch], Mode::Search),
    ));
    out.push((
        "command line",
        opened("deployment/web", &[Action::OpenCommand], Mode::Command),
    ));
    out.push((
        "timeline",
        opened("deployment/web", &[Action::SwitchPane], Mode::Timeline),
    ));
    out
}

/// What the keys see of a state: the mode, the selection, the rows, the
/// dialogs with everything they hold, the filters and the search. Two
/// states alike in all this answer every key alike.
fn looks(app: &App) -> String {
    // When a dialog was put on screen is left out: at either pace tested,
    // it answers Enter alike (see `first_request`).
    let mut modals = format!("{:?}", app.modals());
    while let Some(i) = modals.find("shown_at: ") {
        let end = modals[i..].find([',', '}']).map_or(modals.len(), |e| i + e);
        modals.replace_range(i..end, "");
    }
    format!(
        "{:?}|{}|{}|{}|{:?}|{:?}|{:?}|{:?}|{:?}|{}|{}|{}",
        app.mode(),
        app.selected_index(),
        app.offset(),
        app.rows().len(),
        modals,
        app.filters(),
        app.search_query(),
        app.timeline_scope(),
        app.lower_pane(),
        app.details_scroll(),
        app.all_open(),
        app.mouse(),
    )
}

/// Types every sequence of up to `depth` keys from `start`, with `gap`
/// of time before each key; returns the first that sends a request.
///
/// A state already explored (from any start) with as many keys left is not
/// explored again, and a key that means nothing is not followed (it only
/// says so): both are sound at the two paces tested. At 100 ms a key, no
/// dialog met within three keys has been on screen `READ_FOR`; at 2 s a
/// key, every dialog has by the next key.
fn first_request(
    start: &App,
    keys: &[(String, KeyEvent)],
    depth: usize,
    gap: Duration,
    seen: &mut std::collections::HashMap<String, usize>,
) -> Option<(Vec<String>, Vec<Command>)> {
    fn go(
        app: &App,
        keys: &[(String, KeyEvent)],
        depth: usize,
        gap: Duration,
        typed: &mut Vec<String>,
        seen: &mut std::collections::HashMap<String, usize>,
    ) -> Option<(Vec<String>, Vec<Command>)> {
        if depth == 0 || app.should_quit() {
            return None;
        }
        // At typing speed the time typed so far matters (a dialog's gate);
        // it is the same for every state at this depth.
        let look = looks(app);
        if seen.get(&look).is_some_and(|d| *d >= depth) {
            return None;
        }
        seen.insert(look, depth);
        // Keys that mean the same action here lead to the same state: one
        // of them is typed (every key that means nothing is one class).
        let mut tried: Vec<Action> = Vec::new();
        for (name, k) in keys {
            let Some(action) = keymap::resolve(app.mode(), *k) else {
                continue;
            };
            let class = match action {
                Action::Unbound { .. } => Action::Unbound {
                    ch: None,
                    ctrl: false,
                },
                a => a,
            };
            if tried.contains(&class) {
                continue;
            }
            tried.push(class);
            let mut next = app.clone();
            next.tick(gap);
            let cmds = next.update(action);
            typed.push(name.clone());
            if cmds.iter().any(is_request) {
                return Some((typed.clone(), cmds));
            }
            if class != action {
                // Unbound: the state is the one before, and a message.
                typed.pop();
                continue;
            }
            if let Some(found) = go(&next, keys, depth - 1, gap, typed, seen) {
                return Some(found);
            }
            typed.pop();
        }
        None
    }
    go(start, keys, depth, gap, &mut Vec::new(), seen)
}

#[test]
fn no_k9s_sequence_of_three_keys_typed_at_habit_speed_sends_a_request() {
    let keys = k9s_keys();
    let mut seen = std::collections::HashMap::new();
    for (name, app) in starts() {
        if let Some((typed, cmds)) =
            first_request(&app, &keys, depth(), Duration::from_millis(100), &mut seen)
        {
            panic!("from the {name}, typing {typed:?} sent {cmds:?}");
        }
    }
}

#[test]
fn at_any_pace_no_key_but_enter_confirms() {
    let keys: Vec<_> = k9s_keys()
        .into_iter()
        .filter(|(n, _)| n != "Enter")
        .collect();
    let mut seen = std::collections::HashMap::new();
    for (name, app) in starts() {
        if let Some((typed, cmds)) =
            first_request(&app, &keys, depth(), Duration::from_secs(2), &mut seen)
        {
            panic!("from the {name}, typing {typed:?} slowly sent {cmds:?}");
        }
    }
}

/// The gate is not a wall: once the dialog has been read, `Enter` sends
/// what it shows, and only `Enter`.
#[test]
fn enter_on_a_dialog_that_has_been_read_sends_what_it_shows() {
    let keys = k9s_keys();
    let enter = key(KeyCode::Enter, false);
    let mut app = demo();
    select(&mut app, "deployment/web");
    app.update(Action::OpenDelete);
    app.update(Action::Foreground);
    let Some(Modal::Delete(d)) = app.modal() else {
        panic!("delete dialog")
    };
    let shown = d.command.clone();
    for (name, k) in &keys {
        let mut early = app.clone();
        early.tick(READ_FOR / 2);
        let cmds = keymap::resolve(early.mode(), *k).map_or_else(Vec::new, |a| early.update(a));
        assert!(
            !cmds.iter().any(is_request),
            "{name} before the dialog was read sent {cmds:?}"
        );
    }
    app.tick(READ_FOR);
    let action = keymap::resolve(app.mode(), enter).expect("Enter is bound");
    assert_eq!(app.update(action), vec![shown]);
    assert_eq!(app.mode(), Mode::Normal);
}

fn depth() -> usize {
    std::env::var("HABIT_DEPTH")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(3)
}
