//! The UI on the "I deleted the ReplicaSet and it came back" story: the
//! delete dialog's preview says the Deployment controller re-creates it,
//! and once confirmed the timeline shows the re-creation and the new pods
//! by their controllers, like any other change.

use std::time::Duration;

use ownerscope::tools::session::Session;

#[test]
fn the_preview_and_the_timeline_tell_the_replicaset_coming_back() {
    let mut s = Session::new("replicaset-comes-back", 160, 48, false).expect("scenario loads");
    s.keys("/replicaset/web<Enter>db");
    let dialog = s.screen();
    assert!(
        dialog.contains("re-created by the Deployment controller"),
        "{dialog}"
    );
    s.keys("<Enter>");
    s.wait(Duration::from_secs(5));
    s.keys("<Tab>");
    let screen = s.screen();
    assert!(
        screen.contains("created  ReplicaSet/web-5c4d9b7f6    (by deployment-controller)"),
        "{screen}"
    );
    assert!(
        screen.contains("created  Pod/web-5c4d9b7f6-")
            && screen.contains("(by replicaset-controller)"),
        "{screen}"
    );
    // The tree shows the new pods under the ReplicaSet.
    assert!(screen.contains("◀ new"), "{screen}");
}
