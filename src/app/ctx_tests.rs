//! `:ctx` on a live source: the contexts come from the backend
//! ([`Update::Contexts`]), `Tab` completes them, `:ctx NAME` sends
//! [`Command::SwitchContext`], and the reply says how it went.

use std::sync::Arc;

use super::*;
use crate::backend::{Contexts, Reply, Update};
use crate::model::{KindTable, Object};

fn configmap(ns: &str, name: &str) -> Arc<Object> {
    Arc::new(
        serde_json::from_value(serde_json::json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": ns, "uid": format!("{ns}-{name}")},
        }))
        .expect("object"),
    )
}

/// A live UI on context `prod` with objects in two namespaces.
fn live() -> App {
    let mut app = App::new(Options::default());
    app.set_viewport(20);
    app.apply_all(vec![
        Update::Reset {
            objects: vec![configmap("shop", "cart"), configmap("web", "page")],
            kinds: Box::new(KindTable::builtin()),
        },
        Update::contexts(Contexts {
            current: "prod".into(),
            names: vec!["prod".into(), "stage".into(), "staging-eu".into()],
        }),
    ]);
    app
}

/// Types a `:` line without confirming it.
pub(super) fn typed(app: &mut App, text: &str) {
    app.update(Action::OpenCommand);
    for c in text.chars() {
        app.update(Action::Input(c));
    }
}

pub(super) fn run(app: &mut App, text: &str) -> Vec<Command> {
    typed(app, text);
    app.update(Action::Confirm)
}

fn line(app: &App) -> (String, Option<String>) {
    match app.modal() {
        Some(Modal::Command(c)) => (c.text.clone(), c.error.clone()),
        other => panic!("the command line is not open: {other:?}"),
    }
}

pub(super) fn message(app: &App) -> String {
    app.message().map(|m| m.text.clone()).unwrap_or_default()
}

#[test]
fn tab_completes_the_contexts_the_backend_names() {
    let mut app = live();
    typed(&mut app, "ct");
    app.update(Action::Complete);
    assert_eq!(line(&app).0, "ctx ", "a whole command gets its space");
    app.update(Action::Complete);
    assert_eq!(line(&app).0, "ctx ", "three contexts share no prefix");
    assert_eq!(
        app.command_candidates("ctx "),
        ["prod", "stage", "staging-eu"]
    );
    app.update(Action::Input('s'));
    app.update(Action::Complete);
    assert_eq!(
        line(&app).0,
        "ctx stag",
        "as far as stage and staging-eu agree"
    );
    app.update(Action::Input('i'));
    app.update(Action::Complete);
    assert_eq!(line(&app).0, "ctx staging-eu");
    app.update(Action::Cancel);

    // The simulator names none, and says where its choices are.
    let mut sim = App::new(Options {
        is_simulator: true,
        ..Options::default()
    });
    assert!(sim.command_candidates("ctx ").is_empty());
    assert!(run(&mut sim, "ctx prod").is_empty());
    let err = line(&sim).1.unwrap_or_default();
    assert!(
        err.contains("contexts are for a live cluster") && err.contains(":scenario NAME"),
        "{err}"
    );
}

#[test]
fn ctx_name_sends_a_switch_and_its_success_drops_the_ns_filter() {
    let mut app = live();
    assert!(run(&mut app, "ns shop").is_empty());
    assert_eq!(app.filters().scope, Scope::Namespace("shop".into()));

    assert_eq!(
        run(&mut app, "ctx stage"),
        vec![Command::SwitchContext("stage".into())]
    );
    assert_eq!(app.mode(), Mode::Normal);
    assert!(message(&app).contains("switching to context stage"));
    // Nothing changes until the backend answers.
    assert_eq!(app.filters().scope, Scope::Namespace("shop".into()));

    app.apply(Update::replied(Reply {
        command: Command::SwitchContext("stage".into()),
        code: 200,
        message: "now on stage · https://stage:6443 · namespace team; listing 30 kinds".into(),
        warnings: Vec::new(),
    }));
    assert_eq!(app.filters().scope, Scope::All);
    let m = app.message().expect("the reply is shown");
    assert!(!m.error);
    assert_eq!(
        m.text,
        "✓ switch to context stage: now on stage · https://stage:6443 · namespace team; \
         listing 30 kinds (the :ns filter is cleared)"
    );

    // The new context's tree replaces the old one, unfiltered.
    app.apply_all(vec![
        Update::Reset {
            objects: vec![configmap("team", "settings")],
            kinds: Box::new(KindTable::builtin()),
        },
        Update::contexts(Contexts {
            current: "stage".into(),
            names: vec!["prod".into(), "stage".into(), "staging-eu".into()],
        }),
    ]);
    assert_eq!(
        app.graph()
            .objects()
            .map(|o| o.name().to_string())
            .collect::<Vec<_>>(),
        ["settings"]
    );
    assert!(run(&mut app, "ctx stage").is_empty());
    assert!(message(&app).contains("already on context stage"));
}

#[test]
fn a_failed_switch_is_an_error_and_changes_nothing() {
    let mut app = live();
    assert!(run(&mut app, "ns web").is_empty());
    assert_eq!(
        run(&mut app, "ctx staging-eu"),
        vec![Command::SwitchContext("staging-eu".into())]
    );
    app.apply(Update::replied(Reply {
        command: Command::SwitchContext("staging-eu".into()),
        code: 0,
        message: "https://eu:6443 (context staging-eu): connection refused".into(),
        warnings: Vec::new(),
    }));
    let m = app.message().expect("the reply is shown");
    assert!(m.error);
    assert_eq!(
        m.text,
        "✗ switch to context staging-eu: failed https://eu:6443 (context staging-eu): connection refused"
    );
    assert_eq!(app.filters().scope, Scope::Namespace("web".into()));
    assert_eq!(app.graph().len(), 2, "the old tree stays");
}

#[test]
fn ctx_mistakes_keep_the_line_open_and_send_nothing() {
    let mut app = live();
    assert!(run(&mut app, "ctx nope").is_empty());
    let err = line(&app).1.unwrap_or_default();
    assert!(err.contains("no context nope in the kubeconfig"), "{err}");
    app.update(Action::Cancel);

    assert!(run(&mut app, "ctx").is_empty());
    let err = line(&app).1.unwrap_or_default();
    assert!(err.contains("now on prod"), "{err}");
    app.update(Action::Cancel);

    assert!(run(&mut app, "ctx prod").is_empty());
    assert_eq!(app.mode(), Mode::Normal);
    assert!(message(&app).contains("already on context prod"));

    // Before the source has named its contexts.
    let mut early = App::new(Options::default());
    assert!(run(&mut early, "ctx stage").is_empty());
    assert!(
        line(&early)
            .1
            .is_some_and(|e| e.contains("not named its contexts"))
    );
}

#[test]
fn simulator_only_keys_on_a_cluster_say_what_to_use_here() {
    let mut app = live();
    assert!(run(&mut app, "scenario shop-demo").is_empty());
    let err = line(&app).1.unwrap_or_default();
    assert!(err.contains(":ctx NAME switches context"), "{err}");
    app.update(Action::Cancel);
    assert!(app.update(Action::OpenScenarios).is_empty());
    assert!(message(&app).contains(":ctx NAME"), "{}", message(&app));
    assert!(app.update(Action::OpenReset).is_empty());
    assert!(
        message(&app).contains("Ctrl-r reconnects"),
        "{}",
        message(&app)
    );
}
