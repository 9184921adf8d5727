//! Snapshots of the main screens, drawn by the real App, keymap and
//! rendering on ratatui's TestBackend, at 80x24 and 160x48. The simulator's
//! clock only moves when the test says so; uids and timestamps are
//! filtered anyway.

use std::time::Duration;

use ownerscope::tools::session::Session;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(
        r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        "[uid]",
    );
    s.add_filter(
        r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z",
        "[timestamp]",
    );
    s.set_prepend_module_to_snapshot(false);
    s
}

fn snap(name: &str, script: impl Fn(&mut Session)) {
    for (w, h) in SIZES {
        let mut s = Session::new("shop-demo", w, h, false).expect("demo loads");
        script(&mut s);
        let screen = s.screen();
        settings().bind(|| insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen));
    }
}

#[test]
fn tree() {
    snap("tree", |s| {
        s.wait(Duration::from_millis(600));
    });
}

#[test]
fn details_of_the_stuck_configmap() {
    snap("details_stuck", |s| {
        s.keys("/deployment/web<Enter>d").keys("f<Enter>");
        s.wait(Duration::from_secs(6));
        s.keys("/configmap/web-cache<Enter>");
    });
}

#[test]
fn details_with_the_blocker_chain() {
    snap("details_blocker_chain", |s| {
        s.keys("/deployment/web<Enter>df<Enter>");
        s.wait(Duration::from_secs(6));
    });
}

#[test]
fn delete_dialog_with_preview() {
    snap("delete_dialog", |s| {
        s.keys("/deployment/web<Enter>df");
    });
}

#[test]
fn finalizer_dialog() {
    snap("finalizer_dialog", |s| {
        s.keys("/configmap/web-cache<Enter>Fexample.com/");
    });
}

#[test]
fn help() {
    snap("help", |s| {
        s.keys("?");
    });
}

#[test]
fn cascade_mid_way() {
    snap("cascade", |s| {
        s.keys("/deployment/web<Enter>df<Enter>");
        s.wait(Duration::from_millis(2500));
    });
}

#[test]
fn narrow_timeline_and_filter() {
    for (w, h) in SIZES {
        let mut s = Session::new("shop-demo", w, h, false).expect("demo loads");
        s.keys("/deployment/web<Enter>df<Enter>");
        s.wait(Duration::from_secs(1));
        s.keys("f<Down><Enter><Tab>");
        let screen = s.screen();
        settings().bind(|| insta::assert_snapshot!(format!("terminating_filter_{w}x{h}"), screen));
    }
}

#[test]
fn read_only_refusal_is_visible() {
    let mut s = Session::new("shop-demo", 80, 24, true).expect("demo loads");
    s.keys("/deployment/web<Enter>d");
    let screen = s.screen();
    assert!(screen.contains("read-only"), "{screen}");
    assert!(!screen.contains("Delete Deployment"), "{screen}");
    settings().bind(|| insta::assert_snapshot!("read_only_80x24", screen));
}

#[test]
fn resizing_keeps_the_selection_in_view() {
    let mut s = Session::new("shop-demo", 160, 48, false).expect("demo loads");
    s.keys("G");
    s.resize(80, 16);
    let screen = s.screen();
    assert!(screen.contains("> "), "the selected row is drawn: {screen}");
    assert!(screen.contains("EndpointSlice/web-x7k2q"), "{screen}");
}

#[test]
fn delete_dialog_when_not_permitted() {
    snap("delete_denied", |s| {
        s.keys("/deployment/web<Enter>d");
        // What a live cluster's SelfSubjectAccessReview answers for a
        // user without delete on deployments.
        s.app
            .set_permission(ownerscope::backend::Permission::Denied {
                verb: "delete".into(),
                resource: "deployments.apps \"web\" in namespace shop".into(),
                reason: "RBAC: no rule allows it".into(),
            });
        s.keys("f<Enter>");
    });
}

/// Below 60x15 the screen says it is too small, and the delete dialog's
/// Enter sends nothing (the demo's Deployment is still there after it).
#[test]
fn too_small_a_terminal_says_so_and_confirms_nothing() {
    let mut s = Session::new("shop-demo", 80, 24, false).expect("demo loads");
    s.wait(Duration::from_millis(300));
    s.keys("/deployment/web<Enter>d");
    s.resize(40, 10);
    let screen = s.screen();
    assert!(screen.contains("Terminal too small"), "{screen}");
    s.keys("f<Enter>");
    s.resize(160, 48);
    s.keys("<Esc>");
    s.wait(Duration::from_millis(2000));
    let web = s
        .app
        .graph()
        .objects()
        .find(|o| o.kind == "Deployment" && o.name() == "web")
        .expect("Deployment/web");
    assert!(
        !web.is_terminating(),
        "nothing was sent: {:?}",
        web.metadata
    );
}

/// `d` on an object already Terminating says so, and what a second DELETE
/// can and cannot change (R17), before anything is sent.
#[test]
fn delete_dialog_on_a_terminating_object() {
    snap("delete_again", |s| {
        s.keys("/deployment/web<Enter>df<Enter>");
        s.wait(Duration::from_secs(6));
        s.keys("/deployment/web<Enter>db");
        let screen = s.screen().split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(screen.contains("Already Terminating."), "{screen}");
    });
}
