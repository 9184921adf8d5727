//! Snapshots of the main screens, drawn by the real App, keymap and
//! rendering on ratatui's TestBackend, at 80x24 and 160x48. The simulator's
//! clock only moves when the test says so; uids and timestamps are
//! filtered anyway.

use std::time::Duration;

use ownerscope::tools::session::{Session, words};

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
        s.keys("/deployment/web<Enter><C-d>").keys("f<Read><Enter>");
        s.wait(Duration::from_secs(6));
        s.keys("/configmap/web-cache<Enter>");
    });
}

#[test]
fn details_with_the_blocker_chain() {
    snap("details_blocker_chain", |s| {
        s.keys("/deployment/web<Enter><C-d>f<Read><Enter>");
        s.wait(Duration::from_secs(6));
    });
}

#[test]
fn delete_dialog_with_preview() {
    snap("delete_dialog", |s| {
        s.keys("/deployment/web<Enter><C-d>f<Read>");
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
        s.keys("/deployment/web<Enter><C-d>f<Read><Enter>");
        s.wait(Duration::from_millis(2500));
    });
}

#[test]
fn narrow_timeline_and_filter() {
    for (w, h) in SIZES {
        let mut s = Session::new("shop-demo", w, h, false).expect("demo loads");
        s.keys("/deployment/web<Enter><C-d>f<Read><Enter>");
        s.wait(Duration::from_secs(1));
        s.keys("f<Down><Enter><Tab>");
        let screen = s.screen();
        settings().bind(|| insta::assert_snapshot!(format!("terminating_filter_{w}x{h}"), screen));
    }
}

#[test]
fn read_only_previews_and_sends_nothing() {
    for (w, h) in SIZES {
        let mut s = Session::new("shop-demo", w, h, true).expect("demo loads");
        // The hint bar greys the refused finalizer removal.
        let tree = s.screen();
        assert!(tree.contains("preview delete"), "{tree}");
        s.keys("/deployment/web<Enter><C-d>f");
        let screen = s.screen();
        let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(screen.contains("Delete Deployment/web"), "{screen}");
        assert!(
            flat.contains("read-only mode (--read-only): nothing will be sent"),
            "{screen}"
        );
        assert!(
            flat.contains("left Terminating, waiting"),
            "the preview: {screen}"
        );
        assert!(!flat.contains("Will send"), "{screen}");
        assert!(!flat.contains("Enter/y delete"), "{screen}");
        settings().bind(|| insta::assert_snapshot!(format!("read_only_{w}x{h}"), screen));
    }
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
        s.keys("/deployment/web<Enter><C-d>");
        // What a live cluster's SelfSubjectAccessReview answers for a
        // user without delete on deployments.
        s.app
            .set_permission(ownerscope::backend::Permission::Denied {
                verb: "delete".into(),
                resource: "deployments.apps \"web\" in namespace shop".into(),
                reason: "RBAC: no rule allows it".into(),
            });
        s.keys("f<Read><Enter>");
    });
}

/// Below 60x15 the screen says it is too small, and the delete dialog's
/// Enter sends nothing (the demo's Deployment is still there after it).
#[test]
fn too_small_a_terminal_says_so_and_confirms_nothing() {
    let mut s = Session::new("shop-demo", 80, 24, false).expect("demo loads");
    s.wait(Duration::from_millis(300));
    s.keys("/deployment/web<Enter><C-d>");
    s.resize(40, 10);
    let screen = s.screen();
    assert!(screen.contains("Terminal too small"), "{screen}");
    s.keys("f<Read><Enter>");
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
        s.keys("/deployment/web<Enter><C-d>f<Read><Enter>");
        s.wait(Duration::from_secs(6));
        s.keys("/deployment/web<Enter><C-d>b");
        let screen = s.screen().split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(screen.contains("Already Terminating."), "{screen}");
    });
}

/// The timeline's entry under the cursor is shown in full, however long:
/// the garbage collector's OwnerRefInvalidNamespace warning, which a row
/// of the timeline cuts even at 250 columns.
#[test]
fn timeline_entry_in_full() {
    snap("timeline_entry", |s| {
        s.wait(Duration::from_millis(600));
        // Tab moves the keys into the timeline; g goes to its oldest entry.
        s.keys("<Tab>g");
        let flat = words(&s.screen());
        for part in [
            "Warning OwnerRefInvalidNamespace: ownerRef [v1/ConfigMap, namespace: , name: web-cache, uid:",
            "does not exist in namespace \"\" (by garbage-collector-controller)",
        ] {
            assert!(flat.contains(part), "{part}: {flat}");
        }
    });
}

/// `job-orphan-default`: the point of the story is the API server's
/// warning on a Job deleted with no policy; its timeline entry reads in
/// full.
#[test]
fn job_orphan_default_warning_in_full() {
    for (w, h) in SIZES {
        let mut s = Session::new("job-orphan-default", w, h, false).expect("scenario loads");
        s.wait(Duration::from_secs(3));
        // The oldest entry is the scenario's step; the API's answer follows.
        s.keys("<Tab>gj");
        let screen = s.screen();
        let flat = words(&screen);
        assert!(
            flat.contains(
                "DELETE -> 200 OK [Warning: child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning]"
            ),
            "{screen}"
        );
        settings().bind(|| insta::assert_snapshot!(format!("job_orphan_warning_{w}x{h}"), screen));
    }
}

/// The blocker chain says why in full, at both sizes (at 80x24 after
/// scrolling the details with `]`).
#[test]
fn the_blocker_chain_reads_in_full() {
    for (w, h) in SIZES {
        let mut s = Session::new("shop-demo", w, h, false).expect("demo loads");
        s.keys("/deployment/web<Enter><C-d>f<Read><Enter>");
        s.wait(Duration::from_secs(6));
        // The details pane only: at 160 columns it is right of the tree.
        let from = if w >= 110 { 84 } else { 0 };
        let mut seen = String::new();
        for _ in 0..4 {
            for line in s.screen().lines() {
                seen.extend(line.chars().skip(from));
                seen.push('\n');
            }
            s.keys("]");
        }
        let flat = words(&seen);
        assert!(
            flat.contains(
                "finalizer example.com/cache-flush: its controller is OFFLINE: nothing removes it"
            ),
            "{w}x{h}: {seen}"
        );
        assert!(
            flat.contains("b: go to ConfigMap/web-cache, which holds this up"),
            "{seen}"
        );
    }
}

/// An object not being deleted: its finalizer's controller may be offline,
/// but nothing is held up, so no "c: bring it online" is offered; once it is
/// Terminating, it is.
#[test]
fn no_controller_fix_is_offered_for_an_object_not_being_deleted() {
    let mut s = Session::new("shop-demo", 160, 48, false).expect("demo loads");
    s.keys("/configmap/web-cache<Enter>");
    let live = words(&s.screen());
    assert!(live.contains("controller OFFLINE"), "{live}");
    assert!(!live.contains("c: bring"), "{live}");
    s.keys("<C-d>b<Read><Enter>");
    s.wait(Duration::from_secs(2));
    let deleting = words(&s.screen());
    assert!(deleting.contains("c: bring"), "{deleting}");
}

#[test]
fn details_show_selector_relations_labels_and_annotations() {
    for (w, h) in SIZES {
        let mut s = Session::new("replicaset-comes-back", w, h, false).expect("loads");
        s.keys("/pod/web-5c4d9b7f6-7<Enter>");
        let screen = s.screen();
        // At 80x24 the lower pane is short: read the details scrolled.
        let seen = format!("{screen}{}", s.keys("]]]").screen());
        assert!(
            words(&seen).contains("Selected by (labels, not ownership): Deployment/web, ReplicaSet/web-5c4d9b7f6, Service/web"),
            "{seen}"
        );
        settings().bind(|| insta::assert_snapshot!(format!("selector_pod_{w}x{h}"), screen));
        s.keys("/service/web<Enter>");
        let screen = s.screen();
        let seen = format!("{screen}{}", s.keys("]]]").screen());
        let flat = words(&seen);
        assert!(
            flat.contains("Selects 2 pods by labels (app=web); not ownership"),
            "{screen}"
        );
        assert!(flat.contains("≈ Pod/web-5c4d9b7f6-7xk2p"), "{screen}");
        assert!(
            flat.contains("a Service owns none of the pods it selects"),
            "{screen}"
        );
        settings().bind(|| insta::assert_snapshot!(format!("selector_service_{w}x{h}"), screen));
    }
}

/// A workload whose file gives no spec: its selector is not known, and
/// the simulator says the file did not give it, not that a live cluster
/// was watched for metadata only.
#[test]
fn a_workload_without_a_spec_in_the_file_says_so() {
    let mut s = Session::new("shop-demo", 160, 48, false).expect("demo loads");
    s.keys("/job/nightly-report-2<Enter>");
    let flat = words(&s.screen());
    assert!(flat.contains("Selects pods: not known here"), "{flat}");
    // (The sentence wraps beside the tree: its first words are enough.)
    assert!(
        flat.contains("its selector would be in its spec, which the scenario or file"),
        "{flat}"
    );
    assert!(!flat.contains("live cluster"), "{flat}");
}

#[test]
fn yaml_view_of_the_selected_object() {
    snap("yaml_view", |s| {
        s.keys("/deployment/web<Enter>y");
    });
}

#[test]
fn every_search_match_is_marked_not_only_the_selected_row() {
    let mut s = Session::new("shop-demo", 160, 48, false).expect("demo loads");
    s.keys("/pod/web<Enter>");
    let buf = s.draw();
    let screen = s.screen();
    assert!(words(&screen).contains("/pod/web 1/2"), "{screen}");
    // Both pod rows have their "Pod/web" marked, the selected one and the other.
    let mut marked_rows = 0;
    for y in 0..buf.area.height {
        // The tree pane only (the details right of it name the pods too).
        let row: String = (0..80).map(|x| buf[(x, y)].symbol().to_string()).collect();
        if !row.contains("Pod/web-7d9f8c6b5") {
            continue;
        }
        let start = row.find("Pod/web").expect("the row");
        let x = u16::try_from(row[..start].chars().count()).expect("fits");
        let cell = &buf[(x, y)];
        assert!(
            cell.modifier.contains(ratatui::style::Modifier::UNDERLINED),
            "row {y}: {row}"
        );
        marked_rows += 1;
    }
    assert_eq!(marked_rows, 2);
}

/// A root is drawn at the root's column whatever is above it: after an
/// orphan delete of Service/web its EndpointSlice is a root and comes
/// after CronJob/nightly-report's subtree; Secret/stale-token (a root whose
/// owner is of a kind not known) after Deployment/web's. Each has its
/// marker in the roots' column, and the group header counts the roots
/// drawn under it, the deleted Service while it is still shown included.
#[test]
fn roots_after_dependents_and_an_orphan_delete() {
    let mut s = Session::new("shop-demo", 160, 48, false).expect("demo loads");
    s.keys("/service/web<Enter><C-d>o<Read><Enter>");
    s.wait(Duration::from_millis(600));
    let screen = s.screen();
    let tree: Vec<&str> = screen
        .lines()
        .map(|l| l.split('│').next().unwrap_or_default())
        .collect();
    let column = |name: &str| {
        tree.iter()
            .find(|l| l.contains(name))
            .and_then(|l| l.find(name).map(|b| l[..b].chars().count()))
            .unwrap_or_else(|| panic!("{name} in the tree: {screen}"))
    };
    let root = column("Deployment/web");
    for r in [
        "EndpointSlice/web-x7k2q",
        "Secret/stale-token",
        "CronJob/nightly-report",
    ] {
        assert_eq!(column(r), root, "{r} at the roots' column: {screen}");
    }
    let header = tree
        .iter()
        .position(|l| l.contains("namespace shop"))
        .expect("the group");
    let drawn = tree[header + 1..]
        .iter()
        .take_while(|l| !l.contains("cluster-scoped"))
        .filter(|l| l.chars().nth(root - 2).is_some_and(|c| c != ' '))
        .count();
    assert!(
        tree[header].contains(&format!("({drawn})")),
        "the header counts the {drawn} roots drawn: {screen}"
    );
    settings().bind(|| insta::assert_snapshot!("roots_after_orphan_delete_160x48", screen));
}
