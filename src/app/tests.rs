//! `App::update` and `App::apply_all`, with the exact commands sent.

use std::time::Duration;

use super::*;
use crate::backend::simulated::SimBackend;
use crate::backend::{Backend, Reply, SimCommand};
use crate::model::Policy;
use crate::sim::scenario;

fn app_on(name: &str, read_only: bool) -> (App, SimBackend) {
    let sc = scenario::bundled(name).expect("bundled scenario");
    // Unbounded: a poll of 40 s runs to its end however loaded the
    // machine is (the poll budget has tests of its own, in
    // backend::simulated).
    let mut b = SimBackend::new(&sc).expect("loads").unbounded();
    let mut app = App::new(Options {
        read_only,
        scenarios: vec![
            ("shop-demo".into(), "the demo".into()),
            ("deployment".into(), "a deployment".into()),
        ],
        is_simulator: true,
    });
    app.set_viewport(20);
    app.apply_all(b.poll(Duration::ZERO));
    (app, b)
}

fn demo() -> (App, SimBackend) {
    app_on("shop-demo", false)
}

/// Selects by typing a search, as a user would: nothing is sent but, on a
/// live source, the read of a Terminating object's evidence.
fn goto(app: &mut App, what: &str) {
    let reads_only =
        |cmds: Vec<Command>| cmds.iter().all(|c| matches!(c, Command::ReadEvidence(_)));
    assert!(reads_only(app.update(Action::StartSearch)));
    for c in what.chars() {
        assert!(reads_only(app.update(Action::Input(c))));
    }
    assert!(reads_only(app.update(Action::Confirm)));
    assert_eq!(app.mode(), Mode::Normal);
}

/// Types a `:` command line and runs it, as a user would.
fn command(app: &mut App, text: &str) -> Vec<Command> {
    app.update(Action::OpenCommand);
    for c in text.chars() {
        app.update(Action::Input(c));
    }
    app.update(Action::Confirm)
}

/// Lets the open dialog be on screen long enough to be read: before
/// that, Enter sends nothing.
fn read(app: &mut App) {
    app.tick(modal::READ_FOR);
}

fn selected_name(app: &App) -> String {
    app.selected_object()
        .map(|o| format!("{}/{}", o.kind, o.name()))
        .unwrap_or_default()
}

fn send(app: &mut App, b: &mut SimBackend, cmds: Vec<Command>) {
    for c in cmds {
        b.send(c);
    }
    app.apply_all(b.poll(Duration::ZERO));
}

#[test]
fn foreground_delete_sends_exactly_the_previewed_command() {
    let (mut app, _b) = demo();
    goto(&mut app, "deployment/web");
    assert_eq!(selected_name(&app), "Deployment/web");
    let target = app.selected_object().expect("selected").obj_ref();
    assert!(app.update(Action::OpenDelete).is_empty());
    assert_eq!(app.mode(), Mode::Delete);
    let Some(Modal::Delete(d)) = app.modal() else {
        panic!("delete dialog")
    };
    assert_eq!(d.default_policy, Some(Policy::Background));
    assert_eq!(d.policy, Policy::Background);
    let background_plan = d.plan.clone();
    assert!(app.update(Action::Foreground).is_empty());
    let Some(Modal::Delete(d)) = app.modal() else {
        panic!("delete dialog")
    };
    assert_eq!(d.plan.effective_policy(), Policy::Foreground);
    assert_ne!(d.plan, background_plan, "the preview follows the policy");
    assert!(
        d.plan.lines().iter().any(|l| l.contains("web-cache")),
        "{:?}",
        d.plan.lines()
    );
    assert!(
        app.update(Action::Confirm).is_empty(),
        "an Enter before the dialog could be read sends nothing"
    );
    assert_eq!(app.mode(), Mode::Delete, "and the dialog stays");
    read(&mut app);
    let cmds = app.update(Action::Confirm);
    assert_eq!(
        cmds,
        vec![Command::Delete {
            target,
            policy: Policy::Foreground
        }]
    );
    assert_eq!(app.mode(), Mode::Normal);
}

#[test]
fn cancel_drops_the_command() {
    let (mut app, _b) = demo();
    goto(&mut app, "deployment/web");
    app.update(Action::OpenDelete);
    app.update(Action::Orphan);
    assert_eq!(app.update(Action::Cancel), vec![]);
    assert_eq!(app.mode(), Mode::Normal);
    assert!(
        app.message()
            .is_some_and(|m| m.text.contains("nothing was sent"))
    );
}

#[test]
fn finalizer_removal_needs_the_exact_name() {
    let (mut app, _b) = demo();
    goto(&mut app, "configmap/web-cache");
    let target = app.selected_object().expect("selected").obj_ref();
    app.update(Action::OpenRemoveFinalizer);
    // One finalizer: straight to the typed confirmation.
    assert_eq!(app.mode(), Mode::FinalizerType);
    for c in "example.com/cache-flus".chars() {
        assert!(app.update(Action::Input(c)).is_empty());
    }
    assert_eq!(app.update(Action::Confirm), vec![]);
    let Some(Modal::Finalizer(f)) = app.modal() else {
        panic!("still open")
    };
    assert!(f.confirm.as_ref().is_some_and(|c| c.mismatch));
    assert!(
        f.confirm
            .as_ref()
            .is_some_and(|c| c.info.protects.contains("cleanup"))
    );
    app.update(Action::Input('h'));
    read(&mut app);
    assert_eq!(
        app.update(Action::Confirm),
        vec![Command::RemoveFinalizer {
            target,
            finalizer: "example.com/cache-flush".into()
        }]
    );
    assert_eq!(app.mode(), Mode::Normal);
}

#[test]
fn an_object_without_finalizers_says_so() {
    let (mut app, _b) = demo();
    goto(&mut app, "service/web");
    assert!(app.update(Action::OpenRemoveFinalizer).is_empty());
    assert_eq!(app.mode(), Mode::Normal);
    assert!(
        app.message()
            .is_some_and(|m| m.text.contains("no finalizers"))
    );
}

#[test]
fn read_only_refuses_every_mutation_visibly() {
    let (mut app, _b) = app_on("shop-demo", true);
    goto(&mut app, "deployment/web");
    // d opens the dialog with its preview: what a read-only user wants to
    // see; no permission is asked (nothing can be sent anyway).
    assert!(app.update(Action::OpenDelete).is_empty());
    assert_eq!(app.mode(), Mode::Delete);
    assert_eq!(app.permission_question(), None);
    let Some(Modal::Delete(d)) = app.modal() else {
        panic!("the delete dialog opens")
    };
    assert!(!d.plan.entries.is_empty(), "with its preview");
    assert_eq!(d.refusal().as_deref(), Some("read-only mode (--read-only)"));
    // Another policy previews; confirming sends nothing and says so.
    assert!(app.update(Action::Foreground).is_empty());
    assert!(app.update(Action::Confirm).is_empty());
    assert_eq!(app.mode(), Mode::Delete, "the preview stays open");
    assert!(app.message().is_some_and(|m| m.error
        && m.text.contains("read-only")
        && m.text.contains("nothing was sent")));
    assert!(app.update(Action::Cancel).is_empty());
    app.update(Action::Clear);
    goto(&mut app, "configmap/web-cache");
    assert!(app.update(Action::OpenRemoveFinalizer).is_empty());
    assert!(
        app.message()
            .is_some_and(|m| m.error && m.text.contains("read-only"))
    );
    // Time controls still work: they do not touch the cluster.
    assert_eq!(
        app.update(Action::PauseResume),
        vec![Command::Sim(SimCommand::Pause)]
    );
}

#[test]
fn time_controls_follow_the_clock_state() {
    let (mut app, mut b) = demo();
    assert_eq!(
        app.update(Action::Step),
        vec![
            Command::Sim(SimCommand::Pause),
            Command::Sim(SimCommand::Step)
        ]
    );
    let cmds = app.update(Action::PauseResume);
    assert_eq!(cmds, vec![Command::Sim(SimCommand::Pause)]);
    send(&mut app, &mut b, cmds);
    assert_eq!(
        app.update(Action::PauseResume),
        vec![Command::Sim(SimCommand::Resume)]
    );
    assert_eq!(
        app.update(Action::Step),
        vec![Command::Sim(SimCommand::Step)]
    );
    assert_eq!(
        app.update(Action::Faster),
        vec![Command::Sim(SimCommand::Faster)]
    );
    assert_eq!(
        app.update(Action::Slower),
        vec![Command::Sim(SimCommand::Slower)]
    );
}

#[test]
fn the_controllers_dialog_starts_on_what_the_object_waits_for() {
    let (mut app, _b) = demo();
    goto(&mut app, "configmap/web-cache");
    // A cancelled finalizer removal is not what the status line still
    // says once a controller was switched.
    app.update(Action::OpenRemoveFinalizer);
    app.update(Action::Cancel);
    app.update(Action::OpenControllers);
    assert_eq!(app.mode(), Mode::Controllers);
    assert!(app.update(Action::Confirm).is_empty(), "not yet read");
    read(&mut app);
    assert_eq!(
        app.update(Action::Confirm),
        vec![Command::Sim(SimCommand::SetController {
            finalizer: "example.com/cache-flush".into(),
            online: true
        })]
    );
    // Enter closes it, so that the cascade the switch sets off is in view.
    assert_eq!(app.mode(), Mode::Normal);
    let msg = app.message().map(|m| m.text.clone()).unwrap_or_default();
    assert!(!msg.contains("cancelled"), "{msg}");
    // Only Enter switches, even once read; Esc closes.
    app.update(Action::OpenControllers);
    read(&mut app);
    assert!(app.update(Action::Toggle).is_empty());
    assert_eq!(app.mode(), Mode::Controllers);
    assert!(app.update(Action::Cancel).is_empty());
    assert_eq!(app.mode(), Mode::Normal);
}

#[test]
fn reset_and_scenarios_are_confirmed_choices() {
    let (mut app, _b) = demo();
    app.update(Action::OpenReset);
    assert_eq!(app.mode(), Mode::Confirm);
    assert_eq!(app.update(Action::Cancel), vec![]);
    app.update(Action::OpenReset);
    assert!(app.update(Action::Confirm).is_empty(), "not yet read");
    read(&mut app);
    assert_eq!(
        app.update(Action::Confirm),
        vec![Command::Sim(SimCommand::Reset)]
    );
    app.update(Action::OpenScenarios);
    let Some(Modal::Pick(p)) = app.modal() else {
        panic!("picker")
    };
    assert_eq!(p.choice, 0, "starts on the current scenario");
    app.update(Action::Down);
    read(&mut app);
    assert_eq!(
        app.update(Action::Confirm),
        vec![Command::Sim(SimCommand::Load("deployment".into()))]
    );
}

#[test]
fn expand_and_collapse_one_below_and_all() {
    let (mut app, _b) = demo();
    let all = app.rows().len();
    assert_eq!(all, 15, "the demo opens fully expanded");
    app.update(Action::CollapseAll);
    let collapsed = app.rows().len();
    assert_eq!(collapsed, 2 + 2 + 4, "groups, cluster roots, shop roots");
    app.update(Action::ExpandAll);
    assert_eq!(app.rows().len(), all);
    goto(&mut app, "deployment/web");
    app.update(Action::Left);
    assert_eq!(app.rows().len(), all - 4, "web's four rows hidden");
    app.update(Action::Left);
    assert!(
        matches!(
            app.selected_row().map(|r| &r.node),
            Some(RowNode::Group { .. })
        ),
        "second ← goes to the row above"
    );
    goto(&mut app, "deployment/web");
    app.update(Action::Right);
    assert_eq!(app.rows().len(), all);
    app.update(Action::CollapseBelow);
    assert_eq!(app.rows().len(), all - 4);
    app.update(Action::ExpandBelow);
    assert_eq!(app.rows().len(), all);
    app.update(Action::Toggle);
    assert_eq!(app.rows().len(), all - 4);
}

#[test]
fn jumps_reach_hidden_rows_and_open_them() {
    let (mut app, mut b) = demo();
    app.update(Action::CollapseAll);
    app.update(Action::Top);
    app.update(Action::NextProblem);
    // Namespaces first, the cluster-scoped group last.
    assert_eq!(selected_name(&app), "Secret/stale-token");
    app.update(Action::NextProblem);
    assert_eq!(selected_name(&app), "ClusterRole/shop-reader");
    app.update(Action::NextProblem);
    assert_eq!(selected_name(&app), "Secret/stale-token", "wraps");
    app.update(Action::PrevProblem);
    assert_eq!(selected_name(&app), "ClusterRole/shop-reader");
    assert!(app.update(Action::NextTerminating).is_empty());
    assert!(
        app.message()
            .is_some_and(|m| m.text.contains("no Terminating"))
    );
    goto(&mut app, "deployment/web");
    let target = app.selected_object().expect("web").obj_ref();
    send(
        &mut app,
        &mut b,
        vec![Command::Delete {
            target,
            policy: Policy::Foreground,
        }],
    );
    app.apply_all(b.poll(Duration::from_millis(500)));
    app.update(Action::CollapseAll);
    app.update(Action::Top);
    app.update(Action::NextTerminating);
    assert_eq!(selected_name(&app), "Deployment/web");
    app.update(Action::NextTerminating);
    assert_eq!(
        selected_name(&app),
        "ConfigMap/web-cache",
        "opened web to get there"
    );
}

#[test]
fn jump_to_owner_and_choose_among_several() {
    let (mut app, _b) = demo();
    goto(&mut app, "pod/web-7d9f8c6b5-4xk2p");
    app.update(Action::JumpOwner);
    assert_eq!(selected_name(&app), "ReplicaSet/web-7d9f8c6b5");
    app.update(Action::JumpOwner);
    assert_eq!(selected_name(&app), "Deployment/web");
    app.update(Action::JumpOwner);
    assert!(app.message().is_some_and(|m| m.text.contains("root")));

    let (mut app, _b) = app_on("shared-dependent", false);
    goto(&mut app, "configmap/feature-flags");
    app.update(Action::JumpOwner);
    let Some(Modal::Pick(p)) = app.modal() else {
        panic!("owner picker")
    };
    assert_eq!(p.items.len(), 2);
    app.update(Action::Down);
    app.update(Action::Confirm);
    assert_eq!(selected_name(&app), "Deployment/backend");
}

#[test]
fn search_moves_and_escape_goes_back() {
    let (mut app, _b) = demo();
    app.update(Action::Bottom);
    let start = app.selected_index();
    app.update(Action::StartSearch);
    for c in "stale".chars() {
        app.update(Action::Input(c));
    }
    assert_eq!(selected_name(&app), "Secret/stale-token");
    app.update(Action::Cancel);
    assert_eq!(app.selected_index(), start);
    goto(&mut app, "pod/");
    let first = selected_name(&app);
    app.update(Action::NextMatch);
    assert_ne!(selected_name(&app), first);
    assert!(selected_name(&app).starts_with("Pod/"));
    app.update(Action::PrevMatch);
    assert_eq!(selected_name(&app), first);
}

#[test]
fn filters_show_matches_with_their_owners() {
    let (mut app, _b) = demo();
    app.update(Action::OpenFilter);
    app.update(Action::Down);
    app.update(Action::Down); // only problems
    app.update(Action::Confirm);
    assert_eq!(app.filters().only, Only::Problems);
    let names: Vec<String> = app
        .rows()
        .iter()
        .filter_map(|r| app.row_uid(r))
        .filter_map(|u| app.graph().get(u))
        .map(|o| o.name().to_string())
        .collect();
    assert_eq!(names, vec!["stale-token", "shop-reader"]);
    app.update(Action::Clear);
    assert!(!app.filters().is_active());
    assert_eq!(app.rows().len(), 15);
}

#[test]
fn errors_show_the_servers_message_until_dismissed() {
    let (mut app, _b) = demo();
    let target = app.graph().objects().next().expect("object").obj_ref();
    app.apply(Update::replied(Reply {
        command: Command::RemoveFinalizer {
            target,
            finalizer: "x".into(),
        },
        code: 422,
        message: "Forbidden: no new finalizers can be added if the object is being deleted".into(),
        warnings: Vec::new(),
    }));
    let m = app.message().expect("message").clone();
    assert!(m.error && m.text.contains("422") && m.text.contains("no new finalizers"));
    app.tick(Duration::from_secs(60));
    assert!(app.message().is_some(), "errors stay");
    app.update(Action::Clear);
    assert!(app.message().is_none());
}

#[test]
fn changes_are_highlighted_and_deleted_rows_linger_briefly() {
    let (mut app, mut b) = demo();
    goto(&mut app, "deployment/web");
    let web = app.selected_object().expect("web").clone();
    send(
        &mut app,
        &mut b,
        vec![Command::Delete {
            target: web.obj_ref(),
            policy: Policy::Foreground,
        }],
    );
    assert_eq!(
        app.flash(web.uid()).map(|f| f.kind.clone()),
        Some(flash::FlashKind::NowTerminating)
    );
    let rows_before = app.rows().len();
    // Pods go after their grace period, the ReplicaSet after them.
    app.apply_all(b.poll(Duration::from_secs(5)));
    let ghosts = app
        .rows()
        .iter()
        .filter(|r| matches!(r.node, RowNode::Ghost { .. }))
        .count();
    assert_eq!(ghosts, 3, "ReplicaSet and two Pods shown as deleted");
    assert_eq!(app.rows().len(), rows_before);
    assert!(app.tick(flash::FLASH_FOR));
    assert_eq!(app.rows().len(), rows_before - 3);
    assert!(app.flash(web.uid()).is_none());
}

#[test]
fn a_dialog_whose_object_goes_away_closes() {
    let (mut app, mut b) = demo();
    goto(&mut app, "pod/web-7d9f8c6b5-4xk2p");
    let pod = app.selected_object().expect("pod").obj_ref();
    app.update(Action::OpenDelete);
    b.send(Command::Delete {
        target: pod,
        policy: Policy::Background,
    });
    app.apply_all(b.poll(Duration::from_secs(40)));
    assert_eq!(app.mode(), Mode::Normal);
    assert!(app.message().is_some_and(|m| m.text.contains("gone")));
}

#[test]
fn mouse_clicks_select_then_toggle() {
    let (mut app, _b) = demo();
    let all = app.rows().len();
    app.update(Action::ClickRow(3));
    assert_eq!(app.selected_index(), 3);
    app.update(Action::ClickRow(1));
    assert_eq!(selected_name(&app), "CronJob/nightly-report");
    app.update(Action::ClickRow(1));
    assert_eq!(app.rows().len(), all - 2, "a second click collapses");
    app.update(Action::ScrollDown);
    assert_eq!(app.selected_index(), 4);
}

#[test]
fn help_opens_and_closes() {
    let (mut app, _b) = demo();
    app.update(Action::Help);
    assert_eq!(app.mode(), Mode::Help);
    app.update(Action::Down);
    assert!(matches!(app.modal(), Some(Modal::Help { scroll: 1 })));
    app.update(Action::Cancel);
    assert_eq!(app.mode(), Mode::Normal);
    app.update(Action::Quit);
    assert!(app.should_quit());
}

#[test]
fn a_reset_update_keeps_the_view_usable() {
    let (mut app, mut b) = demo();
    goto(&mut app, "deployment/web");
    send(&mut app, &mut b, vec![Command::Sim(SimCommand::Reset)]);
    assert_eq!(app.rows().len(), 15);
    assert!(app.selected_row().is_some());
    // The timeline starts over: only what happened while loading (the
    // garbage collector's warning about the ClusterRole's reference).
    let left: Vec<_> = app.timeline().collect();
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].warning && left[0].t == 0.0);
    assert_eq!(left[0].object.kind, "ClusterRole");
}

#[test]
fn with_several_finalizers_one_is_chosen_first() {
    let (mut app, _b) = demo();
    goto(&mut app, "configmap/web-cache");
    let mut cm = app.selected_object().expect("cm").clone();
    cm.metadata.finalizers.push("example.com/second".into());
    app.apply(Update::Upsert(cm.clone().into()));
    app.update(Action::OpenRemoveFinalizer);
    assert_eq!(app.mode(), Mode::FinalizerChoose);
    app.update(Action::Down);
    app.update(Action::Confirm);
    assert_eq!(app.mode(), Mode::FinalizerType);
    for c in "example.com/second".chars() {
        app.update(Action::Input(c));
    }
    read(&mut app);
    assert_eq!(
        app.update(Action::Confirm),
        vec![Command::RemoveFinalizer {
            target: cm.obj_ref(),
            finalizer: "example.com/second".into()
        }]
    );
}

#[test]
fn the_dialog_asks_permission_before_offering_and_a_denial_sends_nothing() {
    use crate::backend::Permission;
    let (mut app, _b) = demo();
    goto(&mut app, "deployment/web");
    let target = app.selected_object().expect("selected").obj_ref();
    assert_eq!(app.permission_question(), None, "no dialog, no question");
    assert!(app.update(Action::OpenDelete).is_empty());
    assert_eq!(
        app.permission_question(),
        Some(Command::Delete {
            target: target.clone(),
            policy: Policy::Background
        }),
        "asked as the dialog opens"
    );
    app.set_permission(Permission::Denied {
        verb: "delete".into(),
        resource: "deployments.apps \"web\" in namespace shop".into(),
        reason: "RBAC: no rule allows it".into(),
    });
    assert_eq!(app.permission_question(), None, "answered once");
    // Changing the policy keeps the answer.
    assert!(app.update(Action::Foreground).is_empty());
    assert_eq!(app.permission_question(), None);
    read(&mut app);
    assert!(
        app.update(Action::Confirm).is_empty(),
        "denied: nothing is sent"
    );
    assert_eq!(app.mode(), Mode::Delete, "the dialog stays open");
    let msg = format!("{:?}", app.message());
    assert!(
        msg.contains("not permitted: delete on deployments.apps"),
        "{msg}"
    );
    assert!(app.update(Action::Cancel).is_empty());

    // Allowed: the exact command goes out.
    assert!(app.update(Action::OpenDelete).is_empty());
    app.set_permission(Permission::Allowed);
    assert!(app.update(Action::Foreground).is_empty());
    read(&mut app);
    assert_eq!(
        app.update(Action::Confirm),
        vec![Command::Delete {
            target,
            policy: Policy::Foreground
        }]
    );

    // The finalizer dialog asks for its own verb, on its own target.
    goto(&mut app, "configmap/web-cache");
    let cm = app.selected_object().expect("selected").obj_ref();
    assert!(app.update(Action::OpenRemoveFinalizer).is_empty());
    assert_eq!(
        app.permission_question(),
        Some(Command::RemoveFinalizer {
            target: cm,
            finalizer: "example.com/cache-flush".into()
        })
    );
}

/// The root of a large foreground cascade: the answer is recomputed for
/// watch events at most every `WHY_REFRESH`, and at once on a key; a small
/// one is recomputed on every event.
#[test]
fn a_large_cascade_root_answer_is_refreshed_at_a_bounded_rate() {
    let mut objects = crate::tools::generate::cascade(5_000);
    for o in &mut objects {
        o.metadata.deletion_timestamp = Some(Timestamp::UNIX_EPOCH);
        if o.kind == "Pod" {
            o.metadata.deletion_grace_period_seconds = Some(30);
        } else {
            o.metadata.finalizers.push(crate::model::FOREGROUND.into());
        }
    }
    let mut app = App::new(Options::default());
    app.apply(Update::Reset {
        objects: objects.iter().cloned().map(Into::into).collect(),
        kinds: Box::new(KindTable::builtin()),
    });
    goto(&mut app, "root");
    let total = |app: &App| {
        app.why()
            .and_then(|w| w.waiting_on.as_ref())
            .map(|c| c.total)
    };
    assert_eq!(total(&app), Some(4_999));
    // A pod goes: the answer waits for the refresh.
    let last = objects.last().expect("pods").uid().to_string();
    app.apply(Update::Remove(last));
    assert_eq!(total(&app), Some(4_999), "not recomputed on the event");
    assert!(app.next_deadline().is_some_and(|d| d <= WHY_REFRESH));
    app.tick(WHY_REFRESH);
    assert_eq!(total(&app), Some(4_998), "recomputed on the tick");
    // A key recomputes at once.
    let pod = objects[objects.len() - 2].uid().to_string();
    app.apply(Update::Remove(pod));
    app.update(Action::ScrollDetailsDown);
    assert_eq!(total(&app), Some(4_997));
}

#[test]
fn a_small_answer_follows_every_event() {
    let (mut app, mut b) = app_on("foreground-blocked", false);
    goto(&mut app, "deployment/api");
    let before = app.why().cloned();
    b.send(Command::Delete {
        target: app.selected_object().expect("selected").obj_ref(),
        policy: Policy::Foreground,
    });
    app.apply_all(b.poll(Duration::from_millis(10)));
    assert_ne!(app.why().cloned(), before, "recomputed with no tick");
}

/// At 40x10 the delete dialog cannot show its request, policy and keys:
/// Enter sends nothing; back at 80x24 the same Enter sends the delete.
#[test]
fn nothing_is_confirmed_on_a_screen_too_small_to_show_it() {
    let (mut app, _b) = demo();
    goto(&mut app, "deployment/web");
    app.set_screen(80, 24);
    assert!(app.update(Action::OpenDelete).is_empty());
    app.update(Action::Foreground);
    read(&mut app);
    app.set_screen(40, 10);
    assert!(app.too_small());
    assert!(app.update(Action::Confirm).is_empty(), "nothing sent blind");
    assert!(app.modal().is_some(), "the dialog is still open");
    app.set_screen(80, 24);
    let cmds = app.update(Action::Confirm);
    assert!(
        matches!(
            cmds.as_slice(),
            [Command::Delete {
                policy: Policy::Foreground,
                ..
            }]
        ),
        "{cmds:?}"
    );
}

/// The demo's story: Deployment/web waits in foreground on
/// ConfigMap/web-cache, held by example.com/cache-flush. F on the
/// Deployment opens the removal of that finalizer on the ConfigMap, never of
/// the Deployment's own foregroundDeletion (which would let it go and leave
/// its dependents).
#[test]
fn f_on_a_stuck_owner_goes_to_the_blockers_finalizer() {
    let (mut app, mut b) = demo();
    goto(&mut app, "deployment/web");
    let web = app.selected_object().expect("web").obj_ref();
    assert!(app.update(Action::OpenDelete).is_empty());
    app.update(Action::Foreground);
    read(&mut app);
    let cmds = app.update(Action::Confirm);
    send(&mut app, &mut b, cmds);
    for _ in 0..40 {
        app.apply_all(b.poll(Duration::from_millis(500)));
    }
    goto(&mut app, "deployment/web");
    let obj = app.selected_object().expect("web");
    assert_eq!(
        obj.metadata.finalizers,
        vec![crate::model::FOREGROUND.to_string()]
    );
    let held = app.why().and_then(Diagnosis::held_by).expect("held by");
    assert_eq!(
        (held.0.kind.as_str(), held.0.name.as_str(), held.1.as_str()),
        ("ConfigMap", "web-cache", "example.com/cache-flush")
    );
    app.update(Action::OpenRemoveFinalizer);
    let Some(Modal::Finalizer(f)) = app.modal() else {
        panic!("the finalizer dialog opens")
    };
    assert_eq!(f.target.name, "web-cache");
    assert_ne!(f.target, web);
    assert_eq!(f.finalizers, vec!["example.com/cache-flush".to_string()]);
}

/// The server's "no" on a delete stays with the dialog while the cluster
/// changes underneath (it was forgotten at the first update, and the
/// dialog offered Enter again).
#[test]
fn a_denied_delete_stays_denied_across_updates() {
    let (mut app, mut b) = demo();
    goto(&mut app, "deployment/web");
    assert!(app.update(Action::OpenDelete).is_empty());
    app.set_permission(crate::backend::Permission::Denied {
        verb: "delete".into(),
        resource: "deployments.apps \"web\" in namespace shop".into(),
        reason: "RBAC: no rule allows it".into(),
    });
    // The cluster moves: a pod of the demo changes.
    let cmds = vec![Command::Delete {
        target: app
            .graph()
            .objects()
            .find(|o| o.kind == "Pod")
            .expect("a pod")
            .obj_ref(),
        policy: Policy::Background,
    }];
    send(&mut app, &mut b, cmds);
    app.apply_all(b.poll(Duration::from_millis(500)));
    let Some(Modal::Delete(d)) = app.modal() else {
        panic!("the dialog is still open")
    };
    assert!(
        matches!(
            d.permission,
            Some(crate::backend::Permission::Denied { .. })
        ),
        "{:?}",
        d.permission
    );
    assert!(app.update(Action::Confirm).is_empty(), "still nothing sent");
}

#[test]
fn m_gives_the_mouse_back_to_the_terminal_and_takes_it_again() {
    let (mut app, _b) = demo();
    assert!(app.mouse());
    assert!(app.update(Action::ToggleMouse).is_empty());
    assert!(!app.mouse());
    assert!(format!("{:?}", app.message()).contains("selects and copies"));
    app.update(Action::ToggleMouse);
    assert!(app.mouse());
    assert_eq!(
        crate::keymap::resolve(
            Mode::Normal,
            crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Char('m'))
        ),
        Some(Action::ToggleMouse)
    );
}

#[test]
fn a_simulator_control_is_said_in_words_with_no_status_code() {
    let (mut app, _b) = demo();
    app.apply(Update::replied(Reply {
        command: Command::Sim(SimCommand::Step),
        code: 200,
        message: String::new(),
        warnings: Vec::new(),
    }));
    let m = app.message().expect("message").clone();
    assert_eq!(m.text, "✓ step to the next scheduled change");
    assert_eq!(
        crate::ui::dialogs::request(&app, &Command::Sim(SimCommand::Reset)),
        "start the scenario over (simulator only)"
    );
}

#[test]
fn the_selection_keeps_rows_of_context_below_it() {
    let (mut app, _b) = demo();
    app.set_viewport(8);
    for _ in 0..6 {
        app.update(Action::Down);
    }
    let sel = app.selected_index();
    assert!(
        sel + 3 < app.offset() + 8,
        "selected {sel}, window {}..{}",
        app.offset(),
        app.offset() + 8
    );
}

/// Foreground-deletes the demo's Deployment and lets the cascade run until
/// only the ConfigMap's offline finalizer holds it.
fn stuck_web() -> (App, SimBackend) {
    let (mut app, mut b) = demo();
    goto(&mut app, "deployment/web");
    app.update(Action::OpenDelete);
    app.update(Action::Foreground);
    read(&mut app);
    let cmds = app.update(Action::Confirm);
    send(&mut app, &mut b, cmds);
    for _ in 0..20 {
        app.apply_all(b.poll(Duration::from_millis(500)));
    }
    goto(&mut app, "deployment/web");
    (app, b)
}

#[test]
fn b_on_a_stuck_owner_goes_to_the_blocker_that_holds_it() {
    let (mut app, _b) = stuck_web();
    assert!(app.update(Action::GotoBlocker).is_empty());
    assert_eq!(selected_name(&app), "ConfigMap/web-cache");
    // On an object nothing holds up, b says so and stays.
    goto(&mut app, "service/web");
    app.update(Action::GotoBlocker);
    assert_eq!(selected_name(&app), "Service/web");
    assert!(
        app.message()
            .is_some_and(|m| m.text.contains("nothing holds this object up"))
    );
}

/// Tab moves the keys into the timeline; the cursor moves over entries,
/// stays on its entry while new ones arrive, and Enter selects the entry's
/// object in the tree and gives the keys back.
#[test]
fn the_timeline_is_a_list_whose_entry_enter_selects_in_the_tree() {
    let (mut app, _b) = stuck_web();
    goto(&mut app, "service/web");
    assert!(app.update(Action::SwitchPane).is_empty());
    assert_eq!(app.mode(), Mode::Timeline);
    assert_eq!(app.lower_pane(), LowerPane::Timeline);
    assert!(app.timeline_follows());
    let entries = app.timeline_entries();
    let n = entries.len();
    assert!(n > 5, "the cascade left entries: {n}");
    assert_eq!(app.timeline_position(&entries), Some(n - 1));
    // Up to the newest entry about the ConfigMap.
    let cm = entries
        .iter()
        .rposition(|(_, h)| h.object.name == "web-cache")
        .expect("an entry about the ConfigMap");
    for _ in cm..n - 1 {
        app.update(Action::Up);
    }
    let entries = app.timeline_entries();
    let at = app.timeline_position(&entries).expect("a cursor");
    assert_eq!(entries[at].1.object.name, "web-cache");
    let number = entries[at].0;
    drop(entries);
    // Tree keys do not move the tree meanwhile.
    assert_eq!(selected_name(&app), "Service/web");
    // New entries arrive: the cursor stays on its entry.
    let before = app.timeline_entries().len();
    app.apply_all(vec![crate::backend::Update::happened(Happening {
        t: 99.0,
        object: app.timeline_entries()[0].1.object.clone(),
        verb: "event".into(),
        detail: "something new".into(),
        by: "test".into(),
        warning: false,
    })]);
    let entries = app.timeline_entries();
    assert_eq!(entries.len(), before + 1);
    let at = app.timeline_position(&entries).expect("a cursor");
    assert_eq!(entries[at].0, number, "still on its entry");
    drop(entries);
    assert!(app.update(Action::Confirm).is_empty());
    assert_eq!(selected_name(&app), "ConfigMap/web-cache");
    assert_eq!(app.mode(), Mode::Normal, "the keys are back in the tree");
    assert_eq!(app.lower_pane(), LowerPane::Details);
    // Tab goes back to the same entry; G follows the newest again.
    app.update(Action::SwitchPane);
    let entries = app.timeline_entries();
    assert_eq!(
        app.timeline_position(&entries).map(|i| entries[i].0),
        Some(number)
    );
    drop(entries);
    app.update(Action::Bottom);
    assert!(app.timeline_follows());
    app.update(Action::Cancel);
    assert_eq!(app.mode(), Mode::Normal);
}

#[test]
fn enter_on_the_entry_of_a_deleted_object_says_it_is_gone() {
    let (mut app, _b) = stuck_web();
    app.update(Action::SwitchPane);
    let entries = app.timeline_entries();
    let pod = entries
        .iter()
        .rposition(|(_, h)| h.object.kind == "Pod" && h.verb == "deleted")
        .expect("a deleted pod");
    let n = entries.len();
    drop(entries);
    for _ in pod..n - 1 {
        app.update(Action::Up);
    }
    // Long enough for the struck-through row to have gone.
    app.tick(Duration::from_secs(60));
    let before = selected_name(&app);
    app.update(Action::Confirm);
    assert_eq!(selected_name(&app), before, "the selection stays");
    assert!(
        app.message()
            .is_some_and(|m| m.text.contains("is gone from the API server")),
        "{:?}",
        app.message()
    );
}

/// Deleting an owner stuck on its own finalizer: its dependents are not
/// deleted, nor forgotten: the preview lists them as waiting behind it.
#[test]
fn the_preview_lists_what_waits_behind_an_owners_own_finalizer() {
    let (mut app, _b) = app_on("stuck-owner", false);
    goto(&mut app, "database/orders");
    app.update(Action::OpenDelete);
    let Some(Modal::Delete(d)) = app.modal() else {
        panic!("the delete dialog opens")
    };
    assert_eq!(d.policy, Policy::Background);
    let mut parked: Vec<String> = d
        .plan
        .entries
        .iter()
        .filter_map(|e| match &e.outcome {
            crate::model::preview::Outcome::Parked { behind, .. } => Some(format!(
                "{}/{} behind {behind}",
                e.object.kind(),
                e.object.name()
            )),
            _ => None,
        })
        .collect();
    parked.sort();
    assert_eq!(
        parked,
        vec![
            "Secret/orders-credentials behind Database/orders",
            "Service/orders-db behind Database/orders"
        ]
    );
    assert!(
        d.plan.summary().contains("2 waiting behind it"),
        "{}",
        d.plan.summary()
    );
    // In foreground they are deleted first, not parked.
    app.update(Action::Foreground);
    let Some(Modal::Delete(d)) = app.modal() else {
        panic!("still open")
    };
    assert!(
        d.plan
            .entries
            .iter()
            .all(|e| !matches!(e.outcome, crate::model::preview::Outcome::Parked { .. }))
    );
}

/// The search counts its matches and says which one is selected, as it is
/// typed and as n/N move; Esc forgets it.
#[test]
fn search_counts_its_matches() {
    let (mut app, _b) = demo();
    app.update(Action::StartSearch);
    for c in "pod/web".chars() {
        app.update(Action::Input(c));
    }
    assert_eq!(app.search_hits(), Some((Some(1), 2)));
    app.update(Action::Confirm);
    assert_eq!(app.search_hits(), Some((Some(1), 2)));
    app.update(Action::NextMatch);
    assert_eq!(app.search_hits(), Some((Some(2), 2)));
    assert!(selected_name(&app).starts_with("Pod/web-"));
    app.update(Action::NextMatch);
    assert_eq!(app.search_hits(), Some((Some(1), 2)), "wraps around");
    app.update(Action::Top);
    assert_eq!(
        app.search_hits(),
        Some((None, 2)),
        "the selection is no match"
    );
    app.update(Action::Clear);
    assert_eq!(app.search_hits(), None);
    app.update(Action::StartSearch);
    for c in "nothing-like-this".chars() {
        app.update(Action::Input(c));
    }
    assert_eq!(app.search_hits(), Some((None, 0)));
}

fn type_command(app: &mut App, text: &str) -> Vec<Command> {
    assert!(app.update(Action::OpenCommand).is_empty());
    assert_eq!(app.mode(), Mode::Command);
    for c in text.chars() {
        assert!(app.update(Action::Input(c)).is_empty());
    }
    app.update(Action::Confirm)
}

/// The `:` command line of a k9s user: a kind alias searches that kind,
/// `:ns` narrows to a namespace, `:scenario` loads one, `:q` quits; Tab
/// completes; a mistake keeps the line open with what went wrong.
#[test]
fn the_command_line_speaks_k9s() {
    let (mut app, _b) = demo();
    assert!(type_command(&mut app, "deploy").is_empty());
    assert_eq!(app.mode(), Mode::Normal);
    assert_eq!(selected_name(&app), "Deployment/web");
    assert!(type_command(&mut app, "pods").is_empty());
    assert!(
        selected_name(&app).starts_with("Pod/"),
        "{}",
        selected_name(&app)
    );
    let first = selected_name(&app);
    app.update(Action::NextMatch);
    assert!(selected_name(&app).starts_with("Pod/"));
    assert_ne!(selected_name(&app), first, "n goes to the next pod");

    // Tab completes a namespace; :ns narrows the tree to it.
    app.update(Action::OpenCommand);
    for c in "ns sh".chars() {
        app.update(Action::Input(c));
    }
    app.update(Action::Complete);
    let Some(Modal::Command(c)) = app.modal() else {
        panic!("open")
    };
    assert_eq!(c.text, "ns shop");
    app.update(Action::Confirm);
    assert_eq!(app.filters().scope, Scope::Namespace("shop".into()));
    assert!(type_command(&mut app, "ns all").is_empty());
    assert_eq!(app.filters().scope, Scope::All);

    // A mistake: the line stays open and says why.
    assert!(type_command(&mut app, "ns nowhere").is_empty());
    let Some(Modal::Command(c)) = app.modal() else {
        panic!("still open")
    };
    assert!(
        c.error
            .as_deref()
            .is_some_and(|e| e.contains("no namespace nowhere"))
    );
    app.update(Action::Cancel);
    assert!(type_command(&mut app, "frobnicate").is_empty());
    assert_eq!(app.mode(), Mode::Command);
    app.update(Action::Cancel);

    assert_eq!(
        type_command(&mut app, "scenario deployment"),
        vec![Command::Sim(SimCommand::Load("deployment".into()))]
    );
    assert!(type_command(&mut app, "q").is_empty());
    assert!(app.should_quit());
}

#[test]
fn the_selector_relations_follow_the_selection() {
    let (mut app, _b) = app_on("replicaset-comes-back", false);
    goto(&mut app, "service/web");
    let r = app.relations().expect("relations of the Service");
    let pods: Vec<&str> = r
        .selects
        .as_ref()
        .expect("a Service selects pods")
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(pods, ["web-5c4d9b7f6-7xk2p", "web-5c4d9b7f6-q9w4z"]);
    goto(&mut app, "pod/web-5c4d9b7f6-7xk2p");
    let r = app.relations().expect("relations of the pod");
    let by: Vec<String> = r
        .selected_by
        .iter()
        .map(|o| format!("{}/{}", o.kind, o.name))
        .collect();
    assert_eq!(
        by,
        ["Deployment/web", "ReplicaSet/web-5c4d9b7f6", "Service/web"]
    );
    assert_eq!(
        r.comes_back.as_deref(),
        Some("replaced by the ReplicaSet controller (a new pod)")
    );
}

#[test]
fn y_opens_the_yaml_view_of_the_selected_object_and_closes_again() {
    let (mut app, _b) = demo();
    goto(&mut app, "configmap/web-cache");
    let uid = app.selected_object().expect("selected").uid().to_string();
    assert!(app.update(Action::ShowYaml).is_empty());
    assert_eq!(
        app.modal(),
        Some(&Modal::Yaml {
            uid: uid.clone(),
            scroll: 0
        })
    );
    assert_eq!(app.mode(), Mode::Yaml);
    app.update(Action::Down);
    app.update(Action::Down);
    assert_eq!(
        app.modal(),
        Some(&Modal::Yaml {
            uid: uid.clone(),
            scroll: 2
        })
    );
    for _ in 0..500 {
        app.update(Action::PageDown);
    }
    let Some(Modal::Yaml { scroll, .. }) = app.modal() else {
        panic!("still open")
    };
    assert!(*scroll < 200, "bounded by the object's YAML: {scroll}");
    assert!(app.update(Action::ShowYaml).is_empty());
    assert_eq!(app.modal(), None, "y closes it");
    assert_eq!(app.mode(), Mode::Normal);
}

#[test]
fn another_scenario_starts_on_its_first_object_at_1x_with_its_story() {
    let (mut app, mut b) = demo();
    // Leave the demo fast and on its last row.
    send(&mut app, &mut b, vec![Command::Sim(SimCommand::Faster)]);
    app.update(Action::Bottom);
    let cmds = command(&mut app, "scenario deployment");
    assert_eq!(cmds, [Command::Sim(SimCommand::Load("deployment".into()))]);
    assert!(
        app.message()
            .expect("said")
            .text
            .contains("loading scenario")
    );
    send(&mut app, &mut b, cmds);
    let text = &app.message().expect("answered").text;
    assert!(
        text.starts_with("✓ open scenario deployment") && text.contains("speed x1, running"),
        "{text}"
    );
    assert!(!text.contains("loading"), "{text}");
    let first = app
        .rows()
        .iter()
        .position(|r| r.id().is_some())
        .expect("an object row");
    assert_eq!(
        app.selected_index(),
        first,
        "the first object, not the last row"
    );
    let clock = app.status().and_then(|s| s.clock.clone()).expect("clock");
    assert!((clock.speed - 1.0).abs() < f64::EPSILON && !clock.paused);
    let story = app.story().expect("a story");
    assert_eq!(story.scenario, "deployment");
    assert!(!story.description.is_empty());
}

#[test]
fn a_scenario_may_start_paused_and_its_steps_and_switches_are_on_the_timeline() {
    let (app, _b) = app_on("wrong-uid", false);
    let clock = app.status().and_then(|s| s.clock.clone()).expect("clock");
    assert!(clock.paused, "wrong-uid starts paused");
    let (mut app, mut b) = app_on("foreground-blocked", false);
    let next = app
        .story()
        .and_then(|s| s.next.clone())
        .expect("a next step");
    assert!(next.starts_with("step 1 of 2 at 1.0s: delete"), "{next}");
    app.apply_all(b.poll(Duration::from_millis(1500)));
    let step = app
        .timeline()
        .find(|h| h.verb == "step")
        .expect("the step is on the timeline");
    assert_eq!(step.by, "scenario");
    assert!(
        step.detail.starts_with("scenario step 1 of 2: delete"),
        "{}",
        step.detail
    );
    let next = app
        .story()
        .and_then(|s| s.next.clone())
        .expect("step 2 next");
    assert!(next.starts_with("step 2 of 2"), "{next}");
    let fin = app
        .controllers()
        .keys()
        .next()
        .expect("a controller")
        .clone();
    send(
        &mut app,
        &mut b,
        vec![Command::Sim(SimCommand::SetController {
            finalizer: fin.clone(),
            online: false,
        })],
    );
    let switch = app
        .timeline()
        .find(|h| h.verb == "switch")
        .expect("the switch is on the timeline");
    assert_eq!(switch.by, "user");
    assert_eq!(
        switch.detail,
        format!("the controller of {fin} taken offline")
    );
}

/// The rows are built and patched in the room the ticks made ready, and
/// the rows they replace become the room for the next: no fresh memory for
/// a large tree opened whole at `E` (its pages were most of that key).
#[test]
fn rows_are_made_in_the_room_made_ready_for_them() {
    let (mut app, _b) = demo();
    app.update(Action::CollapseAll);
    let all = rows::room_for_all(&app.index);
    app.tick(Duration::from_millis(50));
    assert!(app.room.written() < all, "not while the rows change shape");
    app.tick(ROOM_WHEN_STILL);
    assert_eq!(app.room.written(), all, "made once they keep it");
    let room = app.room.spare_at();
    let shown = app.rows.as_ptr();
    app.update(Action::ExpandAll);
    assert_eq!(app.rows.as_ptr(), room, "built in the room");
    assert_eq!(
        app.rows,
        rows::build(&app.index, &app.expansion, &app.filters)
    );
    assert_eq!(app.room.spare_at(), shown, "the rows replaced are the room");
    // A change of shape: patched into the room made ready since, the
    // rows before kept.
    goto(&mut app, "configmap/web-cache");
    app.tick(ROOM_WHEN_STILL);
    let (room, before) = (app.room.spare_at(), app.rows.as_ptr());
    let mut cm = app.selected_object().expect("cm").clone();
    cm.metadata.uid = "new-uid".into();
    cm.metadata.name = "web-cache-2".into();
    app.apply(Update::Upsert(cm.into()));
    assert_eq!(app.rows.len(), 16, "one row more");
    assert_eq!(app.rows.as_ptr(), room, "patched into the room");
    assert_eq!(app.room.spare_at(), before);
    assert_eq!(
        app.room.written(),
        15,
        "the rows patched from were written: no need to write them again"
    );
    // A removal leaves a ghost row: the rows and the ghost go in the room
    // of the rows before, the room the rows were made in is the next.
    app.tick(ROOM_WHEN_STILL);
    let (room, before) = (app.room.spare_at(), app.rows.as_ptr());
    app.apply(Update::Remove("new-uid".into()));
    assert!(app.flashes.has_ghosts());
    assert_eq!(app.rows.len(), 16, "the ghost in its row's place");
    assert_eq!(app.rows.as_ptr(), before, "in the room of the rows before");
    assert_eq!(app.room.spare_at(), room, "the room made ready is kept");
    let mut full = app
        .flashes
        .with_ghosts(rows::build(&app.index, &app.expansion, &app.filters));
    rows::recount_groups(&mut full);
    assert_eq!(app.rows, full);
}

/// An update that leaves an object under the same owners changes what its
/// row shows, not the list of rows: the list is not rebuilt, and it is the
/// list a rebuild would give. A change of owner moves the row.
#[test]
fn an_object_changed_in_place_keeps_the_rows_a_rebuild_would_give() {
    let (mut app, _b) = demo();
    app.update(Action::ExpandAll);
    goto(&mut app, "configmap/web-cache");
    let fresh = |app: &App| rows::build(&app.index, &app.expansion, &app.filters);
    let mut cm = app.selected_object().expect("cm").clone();
    cm.metadata.finalizers.push("example.com/second".into());
    cm.metadata.labels.insert("tier".into(), "cache".into());
    app.apply(Update::Upsert(cm.clone().into()));
    assert_eq!(app.rows, fresh(&app));
    assert_eq!(selected_name(&app), "ConfigMap/web-cache");
    assert!(
        app.selected_object()
            .expect("cm")
            .has_finalizer("example.com/second")
    );
    // Its owner reference dropped: it becomes a root, and the rows follow.
    let depth_before = app.selected_row().expect("row").depth;
    cm.metadata.owner_references.clear();
    app.apply(Update::Upsert(cm.into()));
    assert_eq!(app.rows, fresh(&app));
    assert_ne!(app.selected_row().expect("row").depth, depth_before);
}

/// STUCK-CAUSES C8: on a pod, `!` in the delete dialog makes the delete a
/// force delete (grace period 0), its preview and the command with it; a
/// policy key makes it graceful again; on anything else `!` changes nothing.
#[test]
fn force_delete_is_a_deliberate_choice_on_a_pod_only() {
    let (mut app, _b) = app_on("dead-node", false);
    goto(&mut app, "pod/db-0");
    assert_eq!(selected_name(&app), "Pod/db-0");
    let target = app.selected_object().expect("selected").obj_ref();
    app.update(Action::OpenDelete);
    let Some(Modal::Delete(d)) = app.modal() else {
        panic!("delete dialog")
    };
    assert!(!d.force);
    assert!(matches!(d.command, Command::Delete { .. }));
    assert!(
        app.update(Action::ToggleForce).is_empty(),
        "nothing is sent"
    );
    let Some(Modal::Delete(d)) = app.modal() else {
        panic!("delete dialog")
    };
    assert!(d.force);
    assert_eq!(
        d.command,
        Command::ForceDelete {
            target: target.clone()
        }
    );
    assert!(
        d.plan
            .lines()
            .iter()
            .any(|l| l.starts_with("deleted now") && l.contains("Pod/db-0")),
        "{:?}",
        d.plan.lines()
    );
    assert!(app.update(Action::Background).is_empty());
    let Some(Modal::Delete(d)) = app.modal() else {
        panic!("delete dialog")
    };
    assert!(!d.force, "a policy chosen: graceful again");
    app.update(Action::ToggleForce);
    read(&mut app);
    assert_eq!(
        app.update(Action::Confirm),
        vec![Command::ForceDelete { target }]
    );

    goto(&mut app, "statefulset/db");
    app.update(Action::OpenDelete);
    app.update(Action::ToggleForce);
    let Some(Modal::Delete(d)) = app.modal() else {
        panic!("delete dialog")
    };
    assert!(!d.force, "only a pod has a grace period to skip");
}

/// The simulator's App on a parsed scenario.
fn app_of(sc: &scenario::Scenario) -> (App, SimBackend) {
    let mut b = SimBackend::new(sc).expect("loads").unbounded();
    let mut app = App::new(Options {
        read_only: false,
        scenarios: Vec::new(),
        is_simulator: true,
    });
    app.set_viewport(20);
    app.apply_all(b.poll(Duration::ZERO));
    (app, b)
}

/// What the finalizer dialog, opened on the selected object with one
/// finalizer, says of the controller that removes it.
fn finalizer_remover(app: &mut App) -> modal::RemoverState {
    app.update(Action::OpenRemoveFinalizer);
    let Some(Modal::Finalizer(f)) = app.modal() else {
        panic!("finalizer dialog")
    };
    f.confirm
        .as_ref()
        .expect("one finalizer: confirm at once")
        .remover
        .clone()
}

/// STUCK-CAUSES C1: the finalizer dialog says whether the finalizer's
/// controller runs before the user decides; here its workload (by the
/// catalogue's name) is scaled to 0.
#[test]
fn the_finalizer_dialog_says_whether_its_controller_runs() {
    let sc = scenario::parse(
        "t.yaml",
        r#"
name: t
objects:
  - apiVersion: apps/v1
    kind: StatefulSet
    metadata: {name: argocd-application-controller, namespace: argocd}
    spec: {replicas: 0, selector: {matchLabels: {app: a}}}
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: app, namespace: apps, finalizers: [resources-finalizer.argocd.argoproj.io]}
"#,
    )
    .expect("parses");
    let (mut app, _b) = app_of(&sc);
    goto(&mut app, "configmap/app");
    assert_eq!(
        finalizer_remover(&mut app),
        modal::RemoverState::Found {
            sentence: "argocd-application-controller (StatefulSet argocd/argocd-application-controller) is scaled to 0: nothing will remove resources-finalizer.argocd.argoproj.io; scale it up so it finishes its cleanup".into(),
            runs: Some(false),
        }
    );
}

/// A LoadBalancer Service's cleanup: the dialog says whether the cloud's
/// service controller is in sight (STUCK-CAUSES C17).
#[test]
fn the_finalizer_dialog_says_whether_a_cloud_controller_is_in_sight() {
    let service = r#"
  - apiVersion: v1
    kind: Service
    metadata: {name: lb, namespace: shop, finalizers: [service.kubernetes.io/load-balancer-cleanup]}
    spec: {type: LoadBalancer}
"#;
    let ccm = r#"
  - apiVersion: apps/v1
    kind: DaemonSet
    metadata: {name: cloud-controller-manager, namespace: kube-system}
    spec: {selector: {matchLabels: {app: ccm}}}
    status: {desiredNumberScheduled: 0}
"#;
    for (extra, said, runs) in [
        ("", "no cloud controller in sight", Some(false)),
        (
            ccm,
            "the cloud service controller (DaemonSet kube-system/cloud-controller-manager) is not running",
            Some(false),
        ),
    ] {
        let text = format!("name: t\nobjects:{service}{extra}");
        let sc = scenario::parse("t.yaml", &text).expect("parses");
        let (mut app, mut b) = app_of(&sc);
        goto(&mut app, "service/lb");
        // Not deleted yet: nothing holds it, the catalogue's words.
        assert_eq!(finalizer_remover(&mut app), modal::RemoverState::BuiltIn);
        app.update(Action::Cancel);
        b.send(Command::Delete {
            target: app.selected_object().expect("lb").obj_ref(),
            policy: crate::model::Policy::Background,
        });
        app.apply_all(b.poll(Duration::from_millis(100)));
        match finalizer_remover(&mut app) {
            modal::RemoverState::Found { sentence, runs: r } => {
                assert!(sentence.contains(said), "{sentence}");
                assert_eq!(r, runs);
            }
            other => panic!("{other:?}"),
        }
    }
}

/// `:stuck` opens the list of what is Terminating, by cause.
#[test]
fn the_stuck_command_lists_what_is_terminating_by_cause() {
    let (mut app, mut b) = app_on("dead-node", false);
    b.send(Command::Sim(SimCommand::Resume));
    for _ in 0..80 {
        app.apply_all(b.poll(Duration::from_millis(500)));
    }
    assert!(command(&mut app, "stuck").is_empty());
    let Some(Modal::Stuck { lines, .. }) = app.modal() else {
        panic!("stuck view: {:?}", app.modal())
    };
    let text = lines.join("\n");
    assert!(
        text.contains("node not reporting (no kubelet ends the pod) (1)"),
        "{text}"
    );
    assert!(
        text.contains("Pod/db-0 -n data  Pod/db-0 waits for the kubelet of Node/node-1"),
        "{text}"
    );
    assert_eq!(app.mode(), Mode::Help);
    app.update(Action::Cancel);
    assert_eq!(app.mode(), Mode::Normal);
}

/// k9s's command line: any kind the source knows, custom resources
/// included, by plural, singular or `kind.group`; `:no` for Nodes; `:ns`
/// alone lists the namespaces; `0` is every namespace; Ctrl-a lists the
/// aliases; a typo says what was meant.
#[test]
fn the_command_line_takes_every_kind_and_says_what_was_meant() {
    let (mut app, _b) = app_on("stuck-owner", false);
    assert!(type_command(&mut app, "databases").is_empty());
    assert_eq!(app.mode(), Mode::Normal);
    assert_eq!(selected_name(&app), "Database/orders");
    goto(&mut app, "namespace/");
    assert!(type_command(&mut app, "database.db.example.com").is_empty());
    assert_eq!(selected_name(&app), "Database/orders");
    assert!(type_command(&mut app, "databse").is_empty());
    let Some(Modal::Command(c)) = app.modal() else {
        panic!("the command line stays open on an unknown word")
    };
    assert!(
        c.error
            .as_deref()
            .is_some_and(|e| e.contains("did you mean database")),
        "{:?}",
        c.error
    );
    app.update(Action::Cancel);

    let (mut app, _b) = app_on("dead-node", false);
    assert!(type_command(&mut app, "no").is_empty());
    assert!(
        selected_name(&app).starts_with("Node/"),
        "{}",
        selected_name(&app)
    );
    // :ns alone: a list of the namespaces; choosing one narrows the tree.
    assert!(type_command(&mut app, "ns").is_empty());
    let Some(Modal::Pick(p)) = app.modal() else {
        panic!("the namespaces to choose from")
    };
    assert_eq!(p.items[0].label, "all");
    let data = p
        .items
        .iter()
        .position(|i| i.label == "data")
        .expect("namespace data listed");
    for _ in 0..data {
        app.update(Action::Down);
    }
    app.update(Action::Confirm);
    assert_eq!(app.filters().scope, Scope::Namespace("data".into()));
    // 0, as in k9s: every namespace.
    app.update(Action::AllNamespaces);
    assert_eq!(app.filters().scope, Scope::All);
    app.update(Action::ShowAliases);
    assert!(matches!(app.modal(), Some(Modal::Aliases { .. })));
    app.update(Action::Cancel);
    assert!(
        app.kind_names()
            .iter()
            .any(|(k, names)| k == "Node" && names.contains(&"no".to_string()))
    );
}

/// No key does nothing silently: an unbound key says so, in the tree and
/// in a dialog, and sends nothing.
#[test]
fn an_unbound_key_says_so() {
    let (mut app, _b) = demo();
    let x = Action::Unbound {
        ch: Some('x'),
        ctrl: false,
    };
    assert!(app.update(x).is_empty());
    let msg = app.message().map(|m| m.text.clone()).unwrap_or_default();
    assert!(msg.contains("unknown key x"), "{msg}");
    goto(&mut app, "deployment/web");
    app.update(Action::OpenDelete);
    read(&mut app);
    let y = Action::Unbound {
        ch: Some('y'),
        ctrl: false,
    };
    assert!(app.update(y).is_empty());
    assert_eq!(app.mode(), Mode::Delete, "the dialog stays");
    let msg = app.message().map(|m| m.text.clone()).unwrap_or_default();
    assert!(msg.contains("Enter sends the delete shown"), "{msg}");
}

/// d describes, as in k9s; Ctrl-k opens the delete dialog with grace
/// period 0 on a pod; neither sends anything.
#[test]
fn describe_and_kill_open_views_and_send_nothing() {
    let (mut app, _b) = demo();
    goto(&mut app, "deployment/web");
    assert!(app.update(Action::Describe).is_empty());
    assert_eq!(app.mode(), Mode::Describe);
    assert!(app.update(Action::Cancel).is_empty());
    goto(&mut app, "pod/web");
    assert!(app.update(Action::OpenKill).is_empty());
    let Some(Modal::Delete(d)) = app.modal() else {
        panic!("the delete dialog")
    };
    assert!(d.force, "grace period 0 chosen on a pod");
}

/// Reset and another scenario start on the first object with no search
/// (the README says so); a scenario loaded also drops the filters.
#[test]
fn reset_and_a_scenario_start_on_the_first_object_with_no_search() {
    let (mut app, mut b) = demo();
    let first = selected_name(&app);
    goto(&mut app, "service/web");
    assert_ne!(selected_name(&app), first);
    app.update(Action::OpenReset);
    read(&mut app);
    let cmds = app.update(Action::Confirm);
    send(&mut app, &mut b, cmds);
    assert_eq!(selected_name(&app), first);
    assert_eq!(app.search_query(), None);
    goto(&mut app, "service/web");
    assert!(type_command(&mut app, "ns shop").is_empty());
    let cmds = type_command(&mut app, "scenario deployment");
    send(&mut app, &mut b, cmds);
    assert_eq!(app.search_query(), None, "the / search is gone");
    assert!(!app.filters().is_active(), "another scenario: no filter");
}

/// Collapsing everything from far down a large open tree: the selection's
/// old place is past the end of the rows left (a panic at 300k objects,
/// `G` then `Z`); it lands on a row that is there.
#[test]
fn collapsing_all_from_the_last_of_many_rows_keeps_a_selection() {
    let owner = |i: usize| {
        serde_json::json!([{"apiVersion": "v1", "kind": "ConfigMap",
            "name": format!("cm-{i}"), "uid": format!("cm-{i}"), "controller": true}])
    };
    let mut objects = Vec::new();
    for i in 0..3 {
        for j in 0..100 {
            let o: Object = serde_json::from_value(serde_json::json!({
                "apiVersion": "v1", "kind": "Secret",
                "metadata": {"name": format!("s-{i}-{j}"), "namespace": "shop",
                    "uid": format!("s-{i}-{j}"), "ownerReferences": owner(i)},
            }))
            .expect("secret");
            objects.push(Arc::new(o));
        }
        let cm: Object = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": format!("cm-{i}"), "namespace": "shop", "uid": format!("cm-{i}")},
        }))
        .expect("configmap");
        objects.push(Arc::new(cm));
    }
    let mut app = App::new(Options::default());
    app.set_viewport(20);
    app.apply(Update::Reset {
        objects,
        kinds: Box::new(crate::model::KindTable::builtin()),
    });
    app.update(Action::ExpandAll);
    assert_eq!(app.rows().len(), 1 + 3 + 300);
    app.update(Action::Bottom);
    app.update(Action::CollapseAll);
    assert_eq!(app.rows().len(), 1 + 3);
    assert!(app.selected_index() < 4);
    assert!(app.selected_row().is_some());
}

/// A snapshot large enough for its selector index to be built on a thread
/// of its own: the tree is there at once, the details say the relations
/// are coming, and a tick after the thread is done shows them, the same
/// as an index built in place gives.
#[test]
fn a_large_snapshots_selector_relations_come_after_its_tree() {
    let objects: Vec<Arc<Object>> = crate::tools::generate::cluster(feed::SELECTORS_APART_FROM)
        .into_iter()
        .map(Arc::new)
        .collect();
    let mut app = App::new(Options::default());
    app.apply(Update::Reset {
        objects,
        kinds: Box::new(crate::model::KindTable::builtin()),
    });
    assert!(app.rows().len() > 1, "the tree is there");
    // A Deployment: it selects its pods by labels.
    while app
        .selected_object()
        .is_some_and(|o| o.kind != "Deployment")
    {
        app.update(Action::Down);
    }
    let deployment = app.selected_object().expect("a Deployment").clone();
    if app.relations_pending() {
        assert!(app.relations().is_none());
        let lines = crate::ui::relations::selector_lines(&app, &deployment);
        assert!(
            format!("{lines:?}").contains("still being indexed"),
            "{lines:?}"
        );
    }
    // A copy of the App made meanwhile gets the same index.
    let mut twin = app.clone();
    let waited = std::time::Instant::now();
    while app.relations_pending() {
        assert!(waited.elapsed() < Duration::from_secs(60), "never indexed");
        std::thread::sleep(Duration::from_millis(5));
        app.tick(Duration::from_millis(5));
    }
    let fresh = ForestIndex::build(app.graph());
    let expected = relations::relations_indexed(
        app.graph(),
        fresh.selectors().expect("built in place"),
        &deployment,
    );
    assert!(expected.selects.as_ref().is_some_and(|p| !p.is_empty()));
    assert_eq!(app.relations(), Some(&expected));
    twin.wait_for_selectors();
    assert_eq!(twin.relations(), Some(&expected));
}
