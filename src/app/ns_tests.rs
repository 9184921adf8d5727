//! `:ns`, `0` and the namespaces list on a source that watches one
//! namespace (a live cluster opened with `-n`), as in k9s: a namespace out
//! of view is watched ([`Command::SwitchNamespace`]), `0` widens the watch
//! to every namespace, and the reply says how it went. A source that
//! watches every namespace (the simulator, `-A`) filters the tree instead.

use std::sync::Arc;

use super::ctx_tests::{message, run, typed};
use super::*;
use crate::backend::{Namespaces, Reply, Update};
use crate::model::{KindTable, Object};

fn object(kind: &str, ns: Option<&str>, name: &str) -> Arc<Object> {
    let mut meta = serde_json::json!({"name": name, "uid": format!("{kind}-{ns:?}-{name}")});
    if let Some(ns) = ns {
        meta["namespace"] = ns.into();
    }
    Arc::new(
        serde_json::from_value(serde_json::json!({
            "apiVersion": "v1",
            "kind": kind,
            "metadata": meta,
        }))
        .expect("object"),
    )
}

/// A live UI watching namespace `shop` of a cluster that has three.
fn watching_shop() -> App {
    let mut app = App::new(Options::default());
    app.set_viewport(20);
    app.apply_all(vec![
        Update::Reset {
            objects: vec![
                object("Namespace", None, "shop"),
                object("ConfigMap", Some("shop"), "cart"),
            ],
            kinds: Box::new(KindTable::builtin()),
        },
        Update::namespaces(Namespaces {
            watched: Some("shop".into()),
            names: vec!["shop".into(), "team".into(), "web".into()],
        }),
    ]);
    app
}

fn error_on_line(app: &App) -> String {
    match app.modal() {
        Some(Modal::Command(c)) => c.error.clone().unwrap_or_default(),
        other => panic!("the command line is not open: {other:?}"),
    }
}

fn reply(command: Command, code: u16, message: &str) -> Update {
    Update::replied(Reply {
        command,
        code,
        message: message.into(),
        warnings: Vec::new(),
    })
}

#[test]
fn ns_name_out_of_scope_watches_it_and_the_reply_lands() {
    let mut app = watching_shop();
    assert_eq!(
        run(&mut app, "ns team"),
        vec![Command::SwitchNamespace(Some("team".into()))]
    );
    assert_eq!(app.mode(), Mode::Normal);
    assert_eq!(message(&app), "watching namespace team…");
    app.apply(reply(
        Command::SwitchNamespace(Some("team".into())),
        200,
        "listing 30 kinds there",
    ));
    let m = app.message().expect("the reply is shown");
    assert!(!m.error);
    assert_eq!(m.text, "✓ watch namespace team: listing 30 kinds there");
    // The new scope's tree replaces the old one.
    app.apply_all(vec![
        Update::Reset {
            objects: vec![
                object("Namespace", None, "team"),
                object("ConfigMap", Some("team"), "settings"),
            ],
            kinds: Box::new(KindTable::builtin()),
        },
        Update::namespaces(Namespaces {
            watched: Some("team".into()),
            names: vec!["shop".into(), "team".into(), "web".into()],
        }),
    ]);
    assert!(app.graph().objects().any(|o| o.name() == "settings"));
    assert_eq!(app.filters().scope, Scope::All);
    // The one watched: nothing to send.
    assert!(run(&mut app, "ns team").is_empty());
    assert!(
        message(&app).contains("the one watched"),
        "{}",
        message(&app)
    );
}

#[test]
fn a_failed_namespace_switch_is_an_error_and_changes_nothing() {
    let mut app = watching_shop();
    assert_eq!(run(&mut app, "ns web").len(), 1);
    app.apply(reply(
        Command::SwitchNamespace(Some("web".into())),
        0,
        "namespaces \"web\" not found",
    ));
    let m = app.message().expect("the reply is shown");
    assert!(m.error);
    assert_eq!(
        m.text,
        "✗ watch namespace web: failed namespaces \"web\" not found"
    );
    assert_eq!(app.graph().len(), 2, "the old tree stays");
}

#[test]
fn a_namespace_the_cluster_lacks_is_refused_on_the_line() {
    let mut app = watching_shop();
    assert!(run(&mut app, "ns nope").is_empty());
    assert_eq!(
        error_on_line(&app),
        "no namespace nope in the cluster (Tab completes)"
    );
    app.update(Action::Cancel);
    // Tab completes the cluster's, not only the tree's.
    typed(&mut app, "ns te");
    app.update(Action::Complete);
    match app.modal() {
        Some(Modal::Command(c)) => assert_eq!(c.text, "ns team"),
        other => panic!("{other:?}"),
    }
    app.update(Action::Cancel);

    // A user who may not list namespaces: any name is sent, and the
    // server says whether it exists.
    app.apply(Update::namespaces(Namespaces {
        watched: Some("shop".into()),
        names: Vec::new(),
    }));
    assert_eq!(
        run(&mut app, "ns nope"),
        vec![Command::SwitchNamespace(Some("nope".into()))]
    );
}

#[test]
fn zero_and_ns_all_widen_the_watch_to_every_namespace() {
    let mut app = watching_shop();
    assert!(run(&mut app, "ns shop").is_empty(), "the one watched");
    assert_eq!(
        app.update(Action::AllNamespaces),
        vec![Command::SwitchNamespace(None)]
    );
    assert_eq!(
        message(&app),
        "widening the watch from namespace shop to every namespace…"
    );
    assert_eq!(
        run(&mut app, "ns all"),
        vec![Command::SwitchNamespace(None)]
    );
    app.apply(reply(
        Command::SwitchNamespace(None),
        200,
        "listing 52 kinds there",
    ));
    assert_eq!(
        message(&app),
        "✓ watch every namespace: listing 52 kinds there"
    );

    // Once every namespace is watched, 0 and :ns filter the tree.
    app.apply_all(vec![
        Update::Reset {
            objects: vec![
                object("Namespace", None, "shop"),
                object("Namespace", None, "empty"),
                object("ConfigMap", Some("shop"), "cart"),
                object("ConfigMap", Some("web"), "page"),
            ],
            kinds: Box::new(KindTable::builtin()),
        },
        Update::namespaces(Namespaces::default()),
    ]);
    assert!(run(&mut app, "ns web").is_empty());
    assert_eq!(app.filters().scope, Scope::Namespace("web".into()));
    assert!(
        run(&mut app, "ns empty").is_empty(),
        "a namespace with nothing in it"
    );
    assert_eq!(app.filters().scope, Scope::Namespace("empty".into()));
    assert!(app.update(Action::AllNamespaces).is_empty());
    assert_eq!(app.filters().scope, Scope::All);
    assert!(run(&mut app, "ns team").is_empty());
    assert_eq!(
        error_on_line(&app),
        "no namespace team here (Tab completes)"
    );
}

#[test]
fn ns_alone_lists_the_clusters_namespaces_and_enter_watches_one() {
    let mut app = watching_shop();
    assert!(run(&mut app, "ns").is_empty());
    let Some(Modal::Pick(p)) = app.modal() else {
        panic!("no list: {:?}", app.modal());
    };
    let labels: Vec<&str> = p.items.iter().map(|i| i.label.as_str()).collect();
    assert_eq!(labels, ["all", "shop", "team", "web"]);
    assert_eq!(p.choice, 1, "on the one watched");
    assert_eq!(p.items[1].detail, "watched");
    assert_eq!(p.note, "Enter: watch that namespace instead");
    app.update(Action::Down);
    assert_eq!(
        app.update(Action::Confirm),
        vec![Command::SwitchNamespace(Some("team".into()))]
    );
    assert_eq!(app.mode(), Mode::Normal);

    // "all" widens the watch.
    assert!(run(&mut app, "ns").is_empty());
    app.update(Action::Top);
    assert_eq!(
        app.update(Action::Confirm),
        vec![Command::SwitchNamespace(None)]
    );
}

#[test]
fn ns_name_while_a_widened_watch_is_still_listing_watches_it() {
    let mut app = watching_shop();
    assert_eq!(
        app.update(Action::AllNamespaces),
        vec![Command::SwitchNamespace(None)]
    );
    // The backend has connected anew on every namespace and says so, as
    // the live one does (the scope, then the reply); its lists are not in:
    // the tree is still the old one, of shop alone.
    app.apply_all(vec![
        Update::namespaces(Namespaces::default()),
        reply(
            Command::SwitchNamespace(None),
            200,
            "listing 52 kinds there",
        ),
    ]);
    assert!(app.graph().objects().any(|o| o.name() == "cart"));
    assert_eq!(
        run(&mut app, "ns team"),
        vec![Command::SwitchNamespace(Some("team".into()))],
        "which namespaces there are is not known yet: team is watched"
    );
    assert_eq!(app.mode(), Mode::Normal, "no error on the line");
    assert_eq!(message(&app), "watching namespace team…");

    // Once every namespace has listed, the tree says which there are.
    app.apply(Update::Reset {
        objects: vec![
            object("Namespace", None, "shop"),
            object("ConfigMap", Some("shop"), "cart"),
        ],
        kinds: Box::new(KindTable::builtin()),
    });
    assert!(run(&mut app, "ns team").is_empty());
    assert_eq!(
        error_on_line(&app),
        "no namespace team here (Tab completes)"
    );
}

#[test]
fn ns_name_before_an_all_namespaces_watch_has_listed_watches_it() {
    // `--live -A`: the backend has said its scope, no tree yet.
    let mut app = App::new(Options::default());
    app.apply(Update::namespaces(Namespaces::default()));
    assert_eq!(
        run(&mut app, "ns team"),
        vec![Command::SwitchNamespace(Some("team".into()))]
    );
    assert_eq!(message(&app), "watching namespace team…");
    // The simulator sends its tree first, and no scope: the tree is all
    // there is, and a name not in it is refused on the line.
    let mut sim = App::new(Options::default());
    sim.apply(Update::Reset {
        objects: vec![object("Namespace", None, "shop")],
        kinds: Box::new(KindTable::builtin()),
    });
    assert!(run(&mut sim, "ns team").is_empty());
    assert_eq!(
        error_on_line(&sim),
        "no namespace team here (Tab completes)"
    );
}
