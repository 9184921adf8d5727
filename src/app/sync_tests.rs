//! What the App concludes while a live source's watches relist: an owner
//! of a kind not synced is unverified, never gone, and the timeline keeps
//! time order.

use super::*;
use crate::backend::{Connection, Happening, SourceStatus, Update};
use crate::model::{KindTable, Object, RefStatus, Unlisted};

fn object(
    api: &str,
    kind: &str,
    name: &str,
    uid: &str,
    owner: Option<(&str, &str, &str, &str)>,
) -> Object {
    let refs: Vec<serde_json::Value> = owner
        .map(|(api, kind, name, uid)| {
            serde_json::json!({"apiVersion": api, "kind": kind, "name": name, "uid": uid, "controller": true})
        })
        .into_iter()
        .collect();
    serde_json::from_value(serde_json::json!({
        "apiVersion": api,
        "kind": kind,
        "metadata": {"name": name, "namespace": "shop", "uid": uid, "ownerReferences": refs},
    }))
    .expect("object")
}

fn syncing_replicasets() -> Unlisted {
    Unlisted {
        resource: "replicasets.apps".into(),
        reason: "not synced: its watch has not listed yet".into(),
        group: "apps".into(),
        kind: "ReplicaSet".into(),
        detail: String::new(),
    }
}

/// After a restart the Pods relisted first: one Pod's ReplicaSet is new
/// (not seen yet), another's was re-created under the same name (the old
/// one is still shown).
fn after_restart() -> App {
    let mut app = App::new(Options::default());
    app.set_viewport(20);
    app.apply(Update::Reset {
        objects: vec![
            object("apps/v1", "ReplicaSet", "web-1", "rs-old", None),
            object(
                "v1",
                "Pod",
                "web-1-a",
                "p1",
                Some(("apps/v1", "ReplicaSet", "web-1", "rs-new")),
            ),
            object(
                "v1",
                "Pod",
                "web-2-a",
                "p2",
                Some(("apps/v1", "ReplicaSet", "web-2", "rs-2")),
            ),
        ]
        .into_iter()
        .map(Into::into)
        .collect(),
        kinds: Box::new(KindTable::builtin()),
    });
    app
}

#[test]
fn an_owner_of_a_kind_not_synced_is_unverified_and_judged_again_once_synced() {
    let mut app = after_restart();
    assert_eq!(
        app.index().problem_count(),
        2,
        "complete view: both are problems"
    );

    assert!(app.apply(Update::Unlisted(vec![syncing_replicasets()])));
    assert_eq!(
        app.index().problem_count(),
        0,
        "no conclusion from a kind not synced"
    );
    for uid in ["p1", "p2"] {
        let owners = app.graph().owners(uid);
        assert!(
            matches!(&owners[0].1, RefStatus::Unverified { resource, .. } if resource == "replicasets.apps"),
            "{uid}: {owners:?}"
        );
    }

    // Synced: what is still missing is a problem again.
    assert!(app.apply(Update::Unlisted(Vec::new())));
    assert_eq!(app.index().problem_count(), 2);
}

#[test]
fn a_new_reason_alone_rebuilds_nothing() {
    let mut app = after_restart();
    app.apply(Update::Unlisted(vec![syncing_replicasets()]));
    let mut again = syncing_replicasets();
    again.reason = "not synced: its watch failed and has not listed again (refused)".into();
    app.apply(Update::Unlisted(vec![again.clone()]));
    assert_eq!(app.graph().kinds().unlisted(), &[again]);
    assert_eq!(app.index().problem_count(), 0);
}

fn happened(t: f64, name: &str) -> Happening {
    Happening {
        t,
        object: object("v1", "ConfigMap", name, name, None).obj_ref(),
        verb: "event".into(),
        detail: String::new(),
        by: "test".into(),
        warning: false,
    }
}

#[test]
fn the_timeline_is_in_time_order_and_the_cursor_keeps_its_entry() {
    let mut app = after_restart();
    app.apply_all(vec![
        Update::happened(happened(5.0, "b")),
        Update::happened(happened(-300.0, "a")),
        Update::happened(happened(9.0, "d")),
    ]);
    app.update(Action::SwitchPane);
    app.update(Action::Up);
    let entries = app.timeline_entries();
    let at = app.timeline_position(&entries).expect("cursor");
    assert_eq!(entries[at].1.object.name, "b");
    drop(entries);
    // An Event from between them arrives late.
    app.apply(Update::happened(happened(7.0, "c")));
    let entries = app.timeline_entries();
    let names: Vec<&str> = entries
        .iter()
        .map(|(_, h)| h.object.name.as_str())
        .collect();
    assert_eq!(names, ["a", "b", "c", "d"]);
    let at = app.timeline_position(&entries).expect("cursor");
    assert_eq!(
        entries[at].1.object.name, "b",
        "the cursor stays on its entry"
    );
}

#[test]
fn reconnect_is_a_command_on_a_cluster_and_a_word_in_the_simulator() {
    let mut app = App::new(Options::default());
    assert_eq!(app.update(Action::Reconnect), vec![Command::Reconnect]);
    let mut sim = App::new(Options {
        is_simulator: true,
        ..Options::default()
    });
    assert!(sim.update(Action::Reconnect).is_empty());
    assert!(
        sim.message()
            .is_some_and(|m| m.text.contains("nothing to reconnect"))
    );
}

#[test]
fn status_says_syncing_and_lost() {
    let mut app = after_restart();
    app.apply(Update::status(SourceStatus {
        kind: "CLUSTER".into(),
        name: "prod @ https://10.0.0.1:6443 · namespace shop".into(),
        scope: "namespace shop".into(),
        connection: Connection::Syncing,
        clock: None,
        missing_kinds: Vec::new(),
        syncing: vec!["replicasets.apps".into()],
        controllers: Vec::new(),
    }));
    assert!(app.status().is_some_and(|s| s.connection.is_stale()));
}

/// A first tree of a few objects, its large kind still listing.
fn small_first_tree() -> App {
    let mut app = App::new(Options::default());
    app.set_viewport(20);
    app.apply(Update::Reset {
        objects: vec![object("apps/v1", "ReplicaSet", "web-1", "rs", None).into()],
        kinds: Box::new(KindTable::builtin()),
    });
    app
}

/// The late kind's list: enough pods of `rs` to pass [`OPEN_ALL_BELOW`].
fn late_pods() -> Vec<Update> {
    (0..=OPEN_ALL_BELOW)
        .map(|i| {
            Update::Listed(
                object(
                    "v1",
                    "Pod",
                    &format!("web-1-{i}"),
                    &format!("p{i}"),
                    Some(("apps/v1", "ReplicaSet", "web-1", "rs")),
                )
                .into(),
            )
        })
        .collect()
}

#[test]
fn a_first_tree_open_while_small_closes_when_a_late_kind_makes_it_large() {
    let mut app = small_first_tree();
    assert!(app.all_open(), "a small tree opens whole");
    app.apply_all(late_pods());
    assert!(
        !app.all_open(),
        "past OPEN_ALL_BELOW objects it is as a large tree opens"
    );
    // The namespace's group and the ReplicaSet's row, its pods hidden.
    assert_eq!(app.rows().len(), 2, "{:?}", app.rows().len());
}

#[test]
fn a_late_kind_is_not_highlighted_as_new_but_what_is_created_after_is() {
    let mut app = small_first_tree();
    app.apply_all(late_pods());
    assert!(
        app.flash("p0").is_none() && app.flash("p5000").is_none(),
        "listed late is seen, not new"
    );
    app.apply(Update::Upsert(
        object(
            "v1",
            "Pod",
            "web-1-new",
            "pnew",
            Some(("apps/v1", "ReplicaSet", "web-1", "rs")),
        )
        .into(),
    ));
    assert_eq!(
        app.flash("pnew").map(|f| f.kind.clone()),
        Some(flash::FlashKind::New)
    );
}

#[test]
fn a_tree_the_user_opened_stays_open_as_it_grows() {
    let mut app = small_first_tree();
    app.update(Action::ExpandAll);
    app.apply_all(late_pods());
    assert!(app.all_open());
    assert_eq!(app.rows().len(), OPEN_ALL_BELOW + 3);
}

#[test]
fn a_kind_synced_again_shows_the_tree_a_fresh_load_shows() {
    let shape = |app: &App| -> Vec<(u16, String)> {
        app.rows()
            .iter()
            .filter_map(|r| r.id().map(|id| (r.depth, app.index().uid(id).to_string())))
            .collect()
    };
    let mut app = after_restart();
    let fresh = shape(&app);
    app.apply(Update::Unlisted(vec![syncing_replicasets()]));
    app.apply(Update::Unlisted(Vec::new()));
    assert_eq!(shape(&app), fresh);
    assert_eq!(app.index().problem_count(), 2);
}
