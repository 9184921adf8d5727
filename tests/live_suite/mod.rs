//! The live backend's suite, run on both targets (`tests/live.rs`: a real
//! control plane on loopback, kube-apiserver 1.20 and
//! kube-controller-manager built from Debian's kubernetes source with
//! Debian's etcd; `tests/live_on_serve.rs`: `ownerscope serve`). The
//! including binary's `TARGET` chooses. No mocks: every object is created
//! through the API and every effect is observed through the backend's
//! watches. Where the targets differ by rule, the test says so by name.

use std::time::Duration;

mod namespaces;
mod settle;

use super::live_support::*;
use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{ConfigMap, Container, PodSpec, PodTemplateSpec};
use k8s_openapi::api::rbac::v1::{PolicyRule, Role, RoleBinding, RoleRef, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::Api;
use kube::api::{DeleteParams, ObjectMeta, Patch, PatchParams, PostParams};
use ownerscope::backend::{Backend, Command, Permission};
use ownerscope::model::{FOREGROUND, ORPHAN, Policy, badges, forest};
use serde_json::{Value, json};

const LONG: Duration = Duration::from_secs(60);

/// This binary's target.
fn env() -> &'static Env {
    env_of(super::TARGET)
}

fn shared() -> std::sync::RwLockReadGuard<'static, ()> {
    env().shared()
}

fn exclusive() -> std::sync::RwLockWriteGuard<'static, ()> {
    env().exclusive()
}

async fn admin_client() -> kube::Client {
    env().admin_client().await
}

fn kubectl(args: &[&str], stdin: Option<&str>) -> String {
    kubectl_with(env(), args, stdin)
}

fn try_kubectl(args: &[&str], stdin: Option<&str>) -> Result<String, String> {
    try_kubectl_with(env(), args, stdin)
}

#[test]
fn live_tree_shows_owners_and_badges() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "tree"));
    let owner = rt.block_on(configmap(&client, &ns, "owner", vec![], &[]));
    rt.block_on(configmap(
        &client,
        &ns,
        "dep",
        vec![owner_ref("v1", "ConfigMap", "owner", &owner, true)],
        &["example.com/hold"],
    ));

    let mut live = Live::start(&options(&env().admin, &ns));
    live.wait("owner and dependent", LONG, |l| {
        l.find("ConfigMap", "owner").is_some() && l.find("ConfigMap", "dep").is_some()
    });
    let dep = live.find("ConfigMap", "dep").expect("dep").clone();
    assert_eq!(live.graph.resolved_owners(dep.uid()), vec![owner.clone()]);
    let now = live.backend.now();
    let obj_badges: Vec<String> = badges::object_badges(&live.graph, &dep, now)
        .iter()
        .map(badges::Badge::text)
        .collect();
    assert!(obj_badges.contains(&"fin:1".to_string()), "{obj_badges:?}");
    let edge: Vec<String> = badges::edge_badges(&dep.metadata.owner_references[0])
        .iter()
        .map(badges::Badge::text)
        .collect();
    assert_eq!(edge, vec!["ctrl", "block"]);
    let text = forest::to_text(&forest::build(&live.graph, now));
    let owner_line = text
        .lines()
        .position(|l| l.contains("ConfigMap/owner"))
        .expect(&text);
    let dep_line = text
        .lines()
        .position(|l| l.contains("ConfigMap/dep"))
        .expect(&text);
    assert!(dep_line > owner_line, "{text}");
    let status = live.status.clone().expect("status");
    assert_eq!(status.kind, "CLUSTER");
    assert_eq!(status.scope, format!("namespace {ns}"));
    assert!(
        status
            .name
            .starts_with(&format!("{} @ https://127.0.0.1:", env().admin_context)),
        "{}",
        status.name
    );
    assert!(
        status.name.ends_with(&format!(" · namespace {ns}")),
        "{}",
        status.name
    );
    assert!(
        status.missing_kinds.is_empty(),
        "{:?}",
        status.missing_kinds
    );
    // The namespace itself is there, with its spec and status.
    let nsobj = live.find("Namespace", &ns).expect("namespace object");
    assert_eq!(nsobj.status["phase"], "Active");

    // The headless command lists the same tree.
    let o = ownerscope(&[
        "tree",
        "--live",
        "--kubeconfig",
        env().admin.to_str().expect("test"),
        "-n",
        &ns,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("ConfigMap/owner") && out.contains("ConfigMap/dep"),
        "{out}"
    );
    assert!(out.contains("fin:1"), "{out}");

    // why --live explains the finalizer.
    let o = ownerscope(&[
        "why",
        "--live",
        "--kubeconfig",
        env().admin.to_str().expect("test"),
        "-n",
        &ns,
        "configmap/dep",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("example.com/hold"), "{out}");
    let o = ownerscope(&[
        "why",
        "--live",
        "--kubeconfig",
        env().admin.to_str().expect("test"),
        "-n",
        &ns,
        "configmap/nope",
    ]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("ConfigMap \"nope\" not found in namespace"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    // Clean up: release the finalizer through the backend.
    live.backend.send(Command::RemoveFinalizer {
        target: dep.obj_ref(),
        finalizer: "example.com/hold".into(),
    });
    live.wait("the reply", LONG, |l| !l.replies.is_empty());
    assert!(live.replies[0].is_success(), "{:?}", live.replies);
    rt.block_on(delete_namespace(&client, &ns));
}

#[test]
fn foreground_delete_is_observed_step_by_step() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "fg"));
    let owner = rt.block_on(configmap(&client, &ns, "owner", vec![], &[]));
    let r = |b| vec![owner_ref("v1", "ConfigMap", "owner", &owner, b)];
    let held = rt.block_on(configmap(
        &client,
        &ns,
        "held",
        r(true),
        &["example.com/hold"],
    ));
    let plain = rt.block_on(configmap(&client, &ns, "plain", r(true), &[]));

    let mut live = Live::start(&options(&env().admin, &ns));
    live.wait("the three", LONG, |l| {
        l.find("ConfigMap", "plain").is_some()
    });
    let target = live.find("ConfigMap", "owner").expect("owner").obj_ref();
    live.backend.send(Command::Delete {
        target: target.clone(),
        policy: Policy::Foreground,
    });
    live.wait(
        "the plain dependent gone, the held one Terminating",
        LONG,
        |l| {
            l.graph.get(&plain).is_none()
                && l.graph
                    .get(&held)
                    .is_some_and(|o| o.metadata.deletion_timestamp.is_some())
        },
    );
    assert!(live.replies[0].is_success(), "{:?}", live.replies);
    let o = live
        .graph
        .get(&owner)
        .expect("owner waits for the blocking dependent");
    assert!(o.metadata.deletion_timestamp.is_some());
    assert!(
        o.metadata.finalizers.contains(&FOREGROUND.to_string()),
        "{:?}",
        o.metadata
    );
    // The held dependent keeps only its own finalizer.
    assert_eq!(
        live.graph.get(&held).expect("held").metadata.finalizers,
        vec!["example.com/hold"]
    );

    // Removing the finalizer through the backend lets the cascade finish.
    let held_ref = live.graph.get(&held).expect("held").obj_ref();
    live.backend.send(Command::RemoveFinalizer {
        target: held_ref,
        finalizer: "example.com/hold".into(),
    });
    live.wait("everything gone", LONG, |l| {
        l.graph.get(&held).is_none() && l.graph.get(&owner).is_none()
    });
    assert!(
        live.replies.iter().all(|r| r.is_success()),
        "{:?}",
        live.replies
    );
    // The order the watch saw: owner Terminating with foregroundDeletion,
    // then the dependents gone, then the owner.
    let terminating = live
        .first(|u, o| {
            u == owner && o.is_some_and(|o| o.metadata.finalizers.contains(&FOREGROUND.to_string()))
        })
        .expect("owner seen with foregroundDeletion");
    let plain_gone = live
        .first(|u, o| u == plain && o.is_none())
        .expect("plain removed");
    let held_gone = live
        .first(|u, o| u == held && o.is_none())
        .expect("held removed");
    let owner_gone = live
        .first(|u, o| u == owner && o.is_none())
        .expect("owner removed");
    assert!(terminating < plain_gone && plain_gone < owner_gone && held_gone < owner_gone);
    // The timeline says so too.
    let verbs: Vec<(String, String)> = live
        .happened
        .iter()
        .filter(|h| h.object.uid == owner)
        .map(|h| (h.verb.clone(), h.detail.clone()))
        .collect();
    assert!(
        verbs
            .iter()
            .any(|(v, d)| v == "deleting" && d.contains(FOREGROUND)),
        "{verbs:?}"
    );
    assert_eq!(
        verbs.last().map(|(v, _)| v.as_str()),
        Some("deleted"),
        "{verbs:?}"
    );
    rt.block_on(delete_namespace(&client, &ns));
}

#[test]
fn background_and_orphan_deletes() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "bgor"));
    let bg = rt.block_on(configmap(&client, &ns, "bg-owner", vec![], &[]));
    let bg_dep = rt.block_on(configmap(
        &client,
        &ns,
        "bg-dep",
        vec![owner_ref("v1", "ConfigMap", "bg-owner", &bg, true)],
        &[],
    ));
    let or = rt.block_on(configmap(&client, &ns, "or-owner", vec![], &[]));
    let or_dep = rt.block_on(configmap(
        &client,
        &ns,
        "or-dep",
        vec![owner_ref("v1", "ConfigMap", "or-owner", &or, true)],
        &[],
    ));
    let mut live = Live::start(&options(&env().admin, &ns));
    live.wait("all four", LONG, |l| l.graph.len() >= 5);

    // Background: the owner goes at once, the GC then deletes the dependent.
    let t = live.graph.get(&bg).expect("bg").obj_ref();
    live.backend.send(Command::Delete {
        target: t,
        policy: Policy::Background,
    });
    live.wait("background cascade", LONG, |l| {
        l.graph.get(&bg).is_none() && l.graph.get(&bg_dep).is_none()
    });
    let owner_gone = live
        .first(|u, o| u == bg && o.is_none())
        .expect("owner removed");
    let dep_gone = live
        .first(|u, o| u == bg_dep && o.is_none())
        .expect("dep removed");
    assert!(owner_gone < dep_gone, "background removes the owner first");

    // Orphan: the owner goes, the dependent stays without its reference.
    let t = live.graph.get(&or).expect("or").obj_ref();
    live.backend.send(Command::Delete {
        target: t,
        policy: Policy::Orphan,
    });
    live.wait("orphaning", LONG, |l| {
        l.graph.get(&or).is_none()
            && l.graph
                .get(&or_dep)
                .is_some_and(|o| o.metadata.owner_references.is_empty())
    });
    assert!(
        live.first(|u, o| u == or
            && o.is_some_and(|o| o.metadata.finalizers.contains(&ORPHAN.to_string())))
            .is_some()
            || live
                .happened
                .iter()
                .any(|h| h.object.uid == or_dep && h.verb == "owner reference removed"),
        "the orphaning is visible"
    );
    assert!(
        live.happened
            .iter()
            .any(|h| h.object.uid == or_dep && h.verb == "owner reference removed")
    );
    assert_eq!(live.replies.len(), 2);
    assert!(
        live.replies.iter().all(|r| r.is_success()),
        "{:?}",
        live.replies
    );

    // A second delete of the same (now gone) object is a 404 value.
    let gone = ownerscope::model::ObjRef {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        namespace: Some(ns.clone()),
        name: "bg-owner".into(),
        uid: bg.clone(),
    };
    live.backend.send(Command::Delete {
        target: gone,
        policy: Policy::Background,
    });
    live.wait("the 404", LONG, |l| l.replies.len() == 3);
    assert_eq!(live.replies[2].code, 404, "{:?}", live.replies[2]);
    assert!(
        live.replies[2].message.contains("not found"),
        "{:?}",
        live.replies[2]
    );
    rt.block_on(delete_namespace(&client, &ns));
}

#[test]
fn guarded_finalizer_patch_fails_on_a_concurrent_change() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "guard"));
    let uid = rt.block_on(configmap(
        &client,
        &ns,
        "held",
        vec![],
        &["example.com/a", "example.com/b"],
    ));
    let mut live = Live::start(&options(&env().admin, &ns));
    live.wait("held", LONG, |l| l.graph.get(&uid).is_some());
    let target = live.graph.get(&uid).expect("held").obj_ref();

    // Someone else changes the list; the backend has not seen it yet (no
    // poll in between), so its patch tests the old list and must fail.
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), &ns);
    rt.block_on(api.patch(
        "held",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": ["example.com/a", "example.com/b", "example.com/c"]}})),
    ))
    .expect("concurrent change");
    live.backend.send(Command::RemoveFinalizer {
        target: target.clone(),
        finalizer: "example.com/a".into(),
    });
    live.wait("the refusal", LONG, |l| !l.replies.is_empty());
    let r = &live.replies[0];
    assert!(!r.is_success(), "{r:?}");
    assert_eq!(r.code, 422, "{r:?}");
    assert!(
        r.message.contains("the server rejected our request"),
        "the server's message: {r:?}"
    );
    assert!(r.message.contains("changed meanwhile"), "{r:?}");
    let now = rt.block_on(api.get("held")).expect("still there");
    assert_eq!(
        now.metadata.finalizers.unwrap_or_default(),
        vec!["example.com/a", "example.com/b", "example.com/c"],
        "nothing was clobbered"
    );
    // Once the backend has seen the change, the same removal works.
    live.wait("the change seen", LONG, |l| {
        l.graph
            .get(&uid)
            .is_some_and(|o| o.metadata.finalizers.len() == 3)
    });
    live.backend.send(Command::RemoveFinalizer {
        target,
        finalizer: "example.com/a".into(),
    });
    live.wait("the second reply", LONG, |l| l.replies.len() == 2);
    assert!(live.replies[1].is_success(), "{:?}", live.replies[1]);
    live.wait("the removal seen", LONG, |l| {
        l.graph
            .get(&uid)
            .is_some_and(|o| o.metadata.finalizers == vec!["example.com/b", "example.com/c"])
    });
    assert!(live.happened.iter().any(|h| h.object.uid == uid
        && h.verb == "finalizer removed"
        && h.detail == "example.com/a"));
    rt.block_on(api.patch(
        "held",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    ))
    .expect("cleanup");
    rt.block_on(delete_namespace(&client, &ns));
}

#[test]
fn read_only_sends_nothing() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "ro"));
    let uid = rt.block_on(configmap(
        &client,
        &ns,
        "keep",
        vec![],
        &["example.com/hold"],
    ));
    let mut opts = options(&env().admin, &ns);
    opts.read_only = true;
    let mut live = Live::start(&opts);
    live.wait("keep", LONG, |l| l.graph.get(&uid).is_some());
    let target = live.graph.get(&uid).expect("keep").obj_ref();
    let del = Command::Delete {
        target: target.clone(),
        policy: Policy::Background,
    };
    let fin = Command::RemoveFinalizer {
        target,
        finalizer: "example.com/hold".into(),
    };
    assert!(
        matches!(live.backend.permission(&del), Permission::Denied { ref reason, .. } if reason == "read-only mode")
    );
    live.backend.send(del);
    live.backend.send(fin);
    live.wait("two refusals", LONG, |l| l.replies.len() == 2);
    for r in &live.replies {
        assert_eq!(r.code, 0, "{r:?}");
        assert!(
            r.message.contains("read-only mode") && r.message.contains("nothing was sent"),
            "{r:?}"
        );
    }
    // Refused below kube's client, at the request level.
    assert_eq!(live.backend.refused_requests(), Some(2));
    std::thread::sleep(Duration::from_millis(500));
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), &ns);
    let cm = rt.block_on(api.get("keep")).expect("untouched");
    assert!(cm.metadata.deletion_timestamp.is_none());
    assert_eq!(
        cm.metadata.finalizers.unwrap_or_default(),
        vec!["example.com/hold"]
    );

    // The same guard on a client used directly: a DELETE never leaves.
    let conn = rt
        .block_on(ownerscope::cluster::connect(&opts))
        .expect("read-only client");
    let ro: Api<ConfigMap> = Api::namespaced(conn.client.clone(), &ns);
    let err = rt
        .block_on(ro.delete("keep", &DeleteParams::default()))
        .expect_err("refused");
    assert!(
        err.to_string().contains("read-only")
            || ownerscope::cluster::error_message(&err).contains("read-only")
    );
    assert_eq!(conn.guard.as_ref().map(|g| g.refused()), Some(1));
    assert!(rt.block_on(ro.get("keep")).is_ok(), "reads still work");
    rt.block_on(api.patch(
        "keep",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    ))
    .expect("cleanup");
    rt.block_on(delete_namespace(&client, &ns));
}

#[test]
fn restricted_user_sees_a_partial_tree_and_a_clear_403() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "rbac"));
    let uid = rt.block_on(configmap(&client, &ns, "visible", vec![], &[]));
    let roles: Api<Role> = Api::namespaced(client.clone(), &ns);
    let role = Role {
        metadata: ObjectMeta {
            name: Some("cm-reader".into()),
            ..ObjectMeta::default()
        },
        rules: Some(vec![PolicyRule {
            api_groups: Some(vec![String::new()]),
            resources: Some(vec!["configmaps".into()]),
            verbs: vec!["get".into(), "list".into(), "watch".into()],
            ..PolicyRule::default()
        }]),
    };
    rt.block_on(roles.create(&PostParams::default(), &role))
        .expect("role");
    let bindings: Api<RoleBinding> = Api::namespaced(client.clone(), &ns);
    let binding = RoleBinding {
        metadata: ObjectMeta {
            name: Some("cm-reader".into()),
            ..ObjectMeta::default()
        },
        role_ref: RoleRef {
            api_group: "rbac.authorization.k8s.io".into(),
            kind: "Role".into(),
            name: "cm-reader".into(),
        },
        subjects: Some(vec![Subject {
            kind: "User".into(),
            name: "restricted".into(),
            api_group: Some("rbac.authorization.k8s.io".into()),
            ..Subject::default()
        }]),
    };
    rt.block_on(bindings.create(&PostParams::default(), &binding))
        .expect("binding");

    let mut live = Live::start(&options(&env().restricted, &ns));
    live.wait("the visible configmap", LONG, |l| {
        l.graph.get(&uid).is_some()
    });
    // Events are listed by their own watch, which may answer after the
    // objects: wait for its refusal too.
    live.wait("the refused events", LONG, |l| {
        l.status
            .as_ref()
            .is_some_and(|s| s.missing_kinds.contains(&"events".to_string()))
    });
    let status = live.status.clone().expect("status");
    assert!(
        status.missing_kinds.contains(&"pods".to_string()),
        "{:?}",
        status.missing_kinds
    );
    assert!(
        status.missing_kinds.contains(&"namespaces".to_string()),
        "{:?}",
        status.missing_kinds
    );
    assert!(
        status.missing_kinds.contains(&"events".to_string()),
        "{:?}",
        status.missing_kinds
    );
    assert!(!status.missing_kinds.contains(&"configmaps".to_string()));
    let missing = live.backend.missing();
    assert!(
        missing.iter().all(|(_, why)| why.contains("forbidden")),
        "{missing:?}"
    );

    let target = live.graph.get(&uid).expect("visible").obj_ref();
    let del = Command::Delete {
        target,
        policy: Policy::Background,
    };
    match live.backend.permission(&del) {
        Permission::Denied { verb, resource, .. } => {
            assert_eq!(verb, "delete");
            assert_eq!(
                resource,
                format!("configmaps \"visible\" in namespace {ns}")
            );
        }
        other => panic!("expected a denial, got {other:?}"),
    }
    live.backend.send(del);
    live.wait("the 403", LONG, |l| !l.replies.is_empty());
    let r = &live.replies[0];
    assert_eq!(r.code, 403, "{r:?}");
    assert!(
        r.message.contains("forbidden") && r.message.contains("restricted"),
        "{r:?}"
    );

    // Through the UI's loop: the delete is refused before it is sent.
    {
        use crossterm::event::Event;
        use ownerscope::app::{App, Options};
        use ownerscope::runtime::{self, ScriptedEvents};
        use ownerscope::tools::session::parse_keys;
        let mut app = App::new(Options {
            read_only: false,
            scenarios: Vec::new(),
            is_simulator: false,
        });
        let mut terminal =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(140, 40)).expect("terminal");
        let mut backend =
            ownerscope::cluster::ClusterBackend::start(&options(&env().restricted, &ns), LONG)
                .expect("backend");
        let t = std::time::Instant::now();
        while app.graph().get(&uid).is_none() {
            assert!(t.elapsed() < LONG, "the tree never arrived");
            let mut idle = ScriptedEvents {
                events: vec![None; 10].into(),
            };
            runtime::run(&mut terminal, &mut app, &mut backend, &mut idle).expect("runs");
        }
        let mut script: Vec<Option<Event>> = Vec::new();
        script.extend(
            parse_keys("/configmap/visible<Enter><C-d>b")
                .into_iter()
                .map(|k| Some(Event::Key(k))),
        );
        // Time to read the dialog: an Enter sooner sends nothing.
        script.extend(vec![None; 15]);
        script.push(Some(Event::Key(crossterm::event::KeyCode::Enter.into())));
        script.extend(vec![None; 5]);
        let mut events = ScriptedEvents {
            events: script.into(),
        };
        runtime::run(&mut terminal, &mut app, &mut backend, &mut events).expect("runs");
        let msg = app.message().map(|m| m.text.clone()).unwrap_or_default();
        assert!(
            msg.contains(&format!(
                "not permitted: delete on configmaps \"visible\" in namespace {ns}"
            )),
            "{msg}"
        );
        assert!(
            app.graph()
                .get(&uid)
                .is_some_and(|o| o.metadata.deletion_timestamp.is_none())
        );
    }

    // The headless command says the view is partial.
    let o = ownerscope(&[
        "tree",
        "--live",
        "--kubeconfig",
        env().restricted.to_str().expect("test"),
        "-n",
        &ns,
    ]);
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("warning: partial view: cannot list"), "{err}");
    assert!(err.contains(" pods,"), "{err}");
    assert_eq!(err.lines().count(), 1, "one line however many kinds: {err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("ConfigMap/visible"));
    rt.block_on(delete_namespace(&client, &ns));
}

#[test]
fn gc_warning_events_appear_on_the_object() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "evt"));
    let other = rt.block_on(namespace(&client, "evt-other"));
    let elsewhere = rt.block_on(configmap(&client, &other, "owner", vec![], &[]));
    let mut live = Live::start(&options(&env().admin, &ns));
    // A dependent naming an owner in another namespace: the GC deletes it
    // and raises OwnerRefInvalidNamespace on it.
    let dep = rt.block_on(configmap(
        &client,
        &ns,
        "dep",
        vec![owner_ref("v1", "ConfigMap", "owner", &elsewhere, false)],
        &[],
    ));
    // The verdict, on both targets: the dependent is deleted.
    live.wait("the dependent deleted", LONG, |l| {
        l.first(|u, o| u == dep && o.is_none()).is_some()
    });
    live.wait("the warning", LONG, |l| {
        l.happened.iter().any(|h| {
            h.object.uid == dep && h.warning && h.detail.starts_with("OwnerRefInvalidNamespace")
        })
    });
    let h = live
        .happened
        .iter()
        .find(|h| h.object.uid == dep && h.verb == "event")
        .expect("event");
    assert_eq!(h.by, "garbage-collector-controller");
    assert_eq!(h.object.name, "dep");
    // The Event itself, in both versions, selected as `kubectl describe`
    // selects it.
    let on_dep = format!("involvedObject.uid={dep}");
    let core: Value = serde_json::from_str(&kubectl(
        &[
            "get",
            "events",
            "-n",
            &ns,
            "--field-selector",
            &on_dep,
            "-o",
            "json",
        ],
        None,
    ))
    .expect("json");
    let ev = core["items"]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["reason"] == "OwnerRefInvalidNamespace"))
        .unwrap_or_else(|| panic!("no v1 Event on the dependent: {core}"));
    assert_eq!(ev["type"], "Warning");
    assert_eq!(ev["involvedObject"]["name"], "dep");
    assert_eq!(ev["source"]["component"], "garbage-collector-controller");
    assert!(ev["count"].as_i64().is_some_and(|c| c >= 1), "{ev}");
    assert!(ev["firstTimestamp"].is_string(), "{ev}");
    let name = ev["metadata"]["name"].as_str().expect("name");
    let v1: Value = serde_json::from_str(&kubectl(
        &[
            "get",
            "events.v1.events.k8s.io",
            "-n",
            &ns,
            name,
            "-o",
            "json",
        ],
        None,
    ))
    .expect("json");
    assert_eq!(v1["regarding"]["uid"], dep.as_str());
    assert_eq!(v1["note"], ev["message"]);
    assert_eq!(v1["deprecatedCount"], ev["count"]);
    assert_eq!(
        v1["deprecatedSource"]["component"],
        "garbage-collector-controller"
    );
    rt.block_on(delete_namespace(&client, &ns));
    rt.block_on(delete_namespace(&client, &other));
}

#[test]
fn api_server_restart_converges() {
    let _g = exclusive();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "restart"));
    rt.block_on(configmap(&client, &ns, "stays", vec![], &[]));
    let gone = rt.block_on(configmap(&client, &ns, "goes", vec![], &[]));
    let mut live = Live::start(&options(&env().admin, &ns));
    live.wait("both", LONG, |l| {
        l.find("ConfigMap", "goes").is_some() && l.find("ConfigMap", "stays").is_some()
    });
    assert!(live.connected());

    env().stop_api_server();
    // Lost, said with why (a watch that ended first shows as syncing
    // until the relist fails).
    live.wait("the connection lost", LONG, |l| {
        l.status.as_ref().is_some_and(|s| {
            matches!(s.connection, ownerscope::backend::Connection::Lost(ref m) if !m.is_empty())
        })
    });
    // Deleted while the API server is away (straight from etcd). Serve
    // has no equivalent: nothing but the server writes its store, so there
    // `goes` comes back with the rest, as it was.
    let deleted_while_down = env().target == Target::Cluster;
    if deleted_while_down {
        cluster_script(&["etcdctl", "del", &format!("/registry/configmaps/{ns}/goes")]);
    }
    let before = live.find("ConfigMap", "stays").cloned().expect("stays");
    env().start_api_server();
    // Created after it is back.
    let fresh = rt.block_on(async {
        let c = admin_client().await;
        configmap(&c, &ns, "new", vec![], &[]).await
    });
    live.wait("convergence", Duration::from_secs(90), |l| {
        l.connected()
            && l.graph.get(&gone).is_some() != deleted_while_down
            && l.graph.get(&fresh).is_some()
    });
    // Kept as it was: the same object, the same resource version.
    let after = live.find("ConfigMap", "stays").expect("stays");
    assert_eq!(after.uid(), before.uid());
    assert_eq!(
        after.metadata.resource_version,
        before.metadata.resource_version
    );
    // The control plane works again end to end (and the restarted garbage
    // collector has synced before other tests run): a cascade completes.
    let owner = rt.block_on(async {
        let c = admin_client().await;
        configmap(&c, &ns, "owner", vec![], &[]).await
    });
    let dep = rt.block_on(async {
        let c = admin_client().await;
        configmap(
            &c,
            &ns,
            "dep",
            vec![owner_ref("v1", "ConfigMap", "owner", &owner, true)],
            &[],
        )
        .await
    });
    live.wait("owner and dependent", LONG, |l| l.graph.get(&dep).is_some());
    let target = live.graph.get(&owner).expect("owner").obj_ref();
    live.backend.send(Command::Delete {
        target,
        policy: Policy::Foreground,
    });
    live.wait("the cascade after the restart", LONG, |l| {
        l.graph.get(&owner).is_none() && l.graph.get(&dep).is_none()
    });
    assert!(
        live.replies.iter().all(|r| r.is_success()),
        "{:?}",
        live.replies
    );
    let client = rt.block_on(admin_client());
    rt.block_on(delete_namespace(&client, &ns));
}

#[test]
fn snapshot_plan_agrees_with_the_cluster_for_a_foreground_deployment_delete() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "rehearse"));
    let labels: std::collections::BTreeMap<String, String> =
        [("app".to_string(), "web".to_string())].into();
    let dep = Deployment {
        metadata: ObjectMeta {
            name: Some("web".into()),
            ..ObjectMeta::default()
        },
        spec: Some(DeploymentSpec {
            replicas: Some(2),
            selector: LabelSelector {
                match_labels: Some(labels.clone()),
                ..LabelSelector::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
                    ..ObjectMeta::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name: "web".into(),
                        image: Some("example.invalid/web:1".into()),
                        ..Container::default()
                    }],
                    ..PodSpec::default()
                }),
            },
            ..DeploymentSpec::default()
        }),
        ..Deployment::default()
    };
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), &ns);
    rt.block_on(deployments.create(&PostParams::default(), &dep))
        .expect("deployment");

    let mut live = Live::start(&options(&env().admin, &ns));
    live.wait("deployment, replicaset and two pods", LONG, |l| {
        l.graph.objects().filter(|o| o.kind == "Pod").count() == 2
            && l.graph.objects().any(|o| o.kind == "ReplicaSet")
    });

    let admin = env().admin.to_str().expect("test").to_string();
    let o = ownerscope(&["snapshot", "--live", "--kubeconfig", &admin, "-n", &ns]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let file = std::env::temp_dir().join(format!("ownerscope-{ns}.json"));
    std::fs::write(&file, &o.stdout).expect("write snapshot");
    let path = file.to_str().expect("test");
    // It loads as a scenario everywhere.
    let t = ownerscope(&["tree", path]);
    assert!(t.status.success(), "{}", String::from_utf8_lossy(&t.stderr));
    assert!(String::from_utf8_lossy(&t.stdout).contains("Deployment/web"));
    let p = ownerscope(&[
        "plan",
        path,
        "--delete",
        "deployment/web",
        "-n",
        &ns,
        "--policy",
        "foreground",
        "-o",
        "json",
    ]);
    assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stderr));
    let plan: Value = serde_json::from_slice(&p.stdout).expect("plan json");
    // --live plans the same.
    let pl = ownerscope(&[
        "plan",
        "--live",
        "--kubeconfig",
        &admin,
        "--delete",
        "deployment/web",
        "-n",
        &ns,
        "--policy",
        "foreground",
        "-o",
        "json",
    ]);
    assert!(
        pl.status.success(),
        "{}",
        String::from_utf8_lossy(&pl.stderr)
    );
    let plan_live: Value = serde_json::from_slice(&pl.stdout).expect("plan json");
    assert_eq!(plan["entries"], plan_live["entries"]);

    let mut waves: Vec<(String, u64)> = Vec::new();
    for e in plan["entries"].as_array().expect("entries") {
        assert_eq!(e["outcome"]["outcome"], "deleted", "{e}");
        waves.push((
            e["object"]["uid"].as_str().expect("uid").to_string(),
            e["outcome"]["wave"].as_u64().expect("wave"),
        ));
    }
    assert_eq!(waves.len(), 4, "deployment, replicaset, two pods: {plan}");

    // Now the real thing.
    let target = live.find("Deployment", "web").expect("web").obj_ref();
    let rs_uid = live
        .graph
        .objects()
        .find(|o| o.kind == "ReplicaSet")
        .expect("rs")
        .metadata
        .uid
        .clone();
    // Who is where, for GETs in wave order.
    let mut by_wave: Vec<(u64, String, String, String)> = waves
        .iter()
        .map(|(uid, w)| {
            let o = live.graph.get(uid).expect("planned object is in the tree");
            (*w, uid.clone(), o.kind.clone(), o.name().to_string())
        })
        .collect();
    by_wave.sort_by_key(|x| std::cmp::Reverse(x.0));
    live.backend.send(Command::Delete {
        target: target.clone(),
        policy: Policy::Foreground,
    });
    // The order, read from the server: each round GETs the latest wave
    // first, so "a later wave gone while an earlier one still exists" is a
    // real inversion, not a race between watches of different kinds.
    let pods: Api<k8s_openapi::api::core::v1::Pod> = Api::namespaced(client.clone(), &ns);
    let rss: Api<k8s_openapi::api::apps::v1::ReplicaSet> = Api::namespaced(client.clone(), &ns);
    let exists = |kind: &str, name: &str, uid: &str| -> bool {
        let meta = match kind {
            "Pod" => rt
                .block_on(pods.get_opt(name))
                .expect("get")
                .map(|o| o.metadata),
            "ReplicaSet" => rt
                .block_on(rss.get_opt(name))
                .expect("get")
                .map(|o| o.metadata),
            "Deployment" => rt
                .block_on(deployments.get_opt(name))
                .expect("get")
                .map(|o| o.metadata),
            other => panic!("unexpected kind {other}"),
        };
        meta.is_some_and(|m| m.uid.as_deref() == Some(uid))
    };
    let t = std::time::Instant::now();
    loop {
        let states: Vec<(u64, bool)> = by_wave
            .iter()
            .map(|(w, uid, kind, name)| (*w, exists(kind, name, uid)))
            .collect();
        for (wl, late_exists) in &states {
            for (we, early_exists) in &states {
                assert!(
                    !(we < wl && !late_exists && *early_exists),
                    "wave {wl} gone while wave {we} still exists: {by_wave:?} {states:?}; pods now: {:?}",
                    rt.block_on(pods.list(&Default::default())).map(|l| l
                        .items
                        .into_iter()
                        .map(|p| p.metadata)
                        .collect::<Vec<_>>())
                );
            }
        }
        if states.iter().all(|(_, e)| !e) {
            break;
        }
        assert!(t.elapsed() < LONG, "the cascade did not finish: {states:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    // The backend saw every planned object go.
    live.wait("every planned object removed", LONG, |l| {
        waves.iter().all(|(uid, _)| l.graph.get(uid).is_none())
    });
    assert!(live.replies[0].is_success(), "{:?}", live.replies);
    for (uid, _) in &waves {
        assert!(
            live.first(|u, o| u == uid && o.is_none()).is_some(),
            "{uid} was not deleted"
        );
    }
    // The replicaset went in foreground too (it carried foregroundDeletion).
    assert!(
        live.first(|u, o| u == rs_uid
            && o.is_some_and(|o| o.metadata.finalizers.contains(&FOREGROUND.to_string())))
            .is_some()
    );
    let _ = std::fs::remove_file(&file);
    rt.block_on(delete_namespace(&client, &ns));
}

#[test]
fn live_flags_fail_clearly_without_a_cluster() {
    // No control plane needed: bad input is refused before any request.
    let o = ownerscope(&["tree", "--live", "--kubeconfig", "/nonexistent/kubeconfig"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("error: kubeconfig /nonexistent/kubeconfig"),
        "{err}"
    );
    let o = ownerscope(&["snapshot", "-A"]);
    assert!(!o.status.success(), "snapshot without --live");
    let o = ownerscope(&["snapshot"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("add --live"));
    let o = ownerscope(&["tree", "deployment", "--live"]);
    assert!(!o.status.success(), "a scenario and --live conflict");
    let o = ownerscope(&["why", "--live", "deployment", "deployment/web"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("with --live, give only the object"));
}

#[test]
fn the_ui_loop_deletes_on_the_live_backend_with_keys() {
    use crossterm::event::Event;
    use ownerscope::app::{App, Options};
    use ownerscope::runtime::{self, ScriptedEvents};
    use ownerscope::tools::session::{buffer_text, parse_keys};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "ui"));
    let owner = rt.block_on(configmap(&client, &ns, "owner", vec![], &[]));
    let dep = rt.block_on(configmap(
        &client,
        &ns,
        "dep",
        vec![owner_ref("v1", "ConfigMap", "owner", &owner, true)],
        &[],
    ));
    let mut backend = ownerscope::cluster::ClusterBackend::start(&options(&env().admin, &ns), LONG)
        .expect("backend");
    let mut app = App::new(Options {
        read_only: false,
        scenarios: Vec::new(),
        is_simulator: false,
    });
    let mut terminal = Terminal::new(TestBackend::new(140, 40)).expect("terminal");
    let mut run = |app: &mut App, script: Vec<Option<Event>>| {
        let mut events = ScriptedEvents {
            events: script.into(),
        };
        runtime::run(&mut terminal, app, &mut backend, &mut events).expect("runs");
    };
    let idle = || vec![None; 10];
    let t = std::time::Instant::now();
    while app.graph().get(&dep).is_none() {
        assert!(t.elapsed() < LONG, "the tree never arrived");
        run(&mut app, idle());
    }
    let mut keys: Vec<Option<Event>> = parse_keys("/configmap/owner<Enter><C-d>f")
        .into_iter()
        .map(|k| Some(Event::Key(k)))
        .collect();
    // Time to read the dialog: an Enter sooner sends nothing.
    keys.extend(vec![None; 15]);
    keys.push(Some(Event::Key(crossterm::event::KeyCode::Enter.into())));
    run(&mut app, keys);
    let t = std::time::Instant::now();
    while app.graph().get(&owner).is_some() || app.graph().get(&dep).is_some() {
        assert!(t.elapsed() < LONG, "the cascade never finished in the UI");
        run(&mut app, idle());
    }
    assert!(
        app.timeline().any(|h| h.object.uid == owner
            && h.verb == "deleting"
            && h.detail.contains(FOREGROUND)),
        "the owner was seen Terminating with foregroundDeletion"
    );
    let screen = buffer_text(terminal.backend().buffer());
    assert!(screen.contains("CLUSTER"), "{screen}");
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), &ns);
    assert!(rt.block_on(api.get_opt("owner")).expect("get").is_none());
    rt.block_on(delete_namespace(&client, &ns));
}

/// The four confident wrong answers a user allowed to list only
/// Deployments, ReplicaSets and Pods got, one by one: none can happen.
#[test]
fn a_restricted_user_gets_no_confident_wrong_answer() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "partial"));
    // A Job (parallelism 0: its controller creates nothing) and a Pod it
    // owns; a Deployment held in foreground by a ConfigMap with a
    // finalizer; another one the user will rehearse deleting.
    kubectl(
        &["apply", "-n", &ns, "-f", "-"],
        Some(
            r#"
apiVersion: batch/v1
kind: Job
metadata: {name: batch-job}
spec:
  parallelism: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: example.invalid/c:1}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: stuck}
spec:
  replicas: 0
  selector: {matchLabels: {app: stuck}}
  template:
    metadata: {labels: {app: stuck}}
    spec: {containers: [{name: c, image: example.invalid/c:1}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 0
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: example.invalid/c:1}]}
"#,
        ),
    );
    let uid = |kind: &str, name: &str| {
        kubectl(
            &[
                "get",
                "-n",
                &ns,
                kind,
                name,
                "-o",
                "jsonpath={.metadata.uid}",
            ],
            None,
        )
    };
    let (job, stuck, web) = (
        uid("job", "batch-job"),
        uid("deployment", "stuck"),
        uid("deployment", "web"),
    );
    kubectl(
        &["apply", "-n", &ns, "-f", "-"],
        Some(&format!(
            r#"
apiVersion: v1
kind: Pod
metadata:
  name: job-pod
  ownerReferences: [{{apiVersion: batch/v1, kind: Job, name: batch-job, uid: {job}}}]
spec: {{containers: [{{name: c, image: example.invalid/c:1}}]}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: stuck-cache
  finalizers: [example.com/hold]
  ownerReferences: [{{apiVersion: apps/v1, kind: Deployment, name: stuck, uid: {stuck}, blockOwnerDeletion: true}}]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-cache
  finalizers: [example.com/hold]
  ownerReferences: [{{apiVersion: apps/v1, kind: Deployment, name: web, uid: {web}, blockOwnerDeletion: true}}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {{name: workloads-reader}}
rules:
  - apiGroups: [apps]
    resources: [deployments, replicasets]
    verbs: [get, list, watch]
  - apiGroups: [""]
    resources: [pods]
    verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{name: workloads-reader}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: workloads-reader}}
subjects: [{{apiGroup: rbac.authorization.k8s.io, kind: User, name: restricted}}]
"#
        )),
    );
    kubectl(
        &[
            "delete",
            "-n",
            &ns,
            "deployment",
            "stuck",
            "--cascade=foreground",
            "--wait=false",
        ],
        None,
    );
    // The state asserted below: the garbage collector has deleted the
    // Deployment's ReplicaSet, and only the ConfigMap this user cannot see
    // holds it (the controllers of the two targets get there at their own
    // pace).
    let deadline = std::time::Instant::now() + LONG;
    while kubectl(&["get", "replicasets", "-n", &ns, "-o", "name"], None).contains("stuck") {
        assert!(
            std::time::Instant::now() < deadline,
            "the ReplicaSet of deployment/stuck was not deleted"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let restricted = env().restricted.to_str().expect("path").to_string();
    let live = |args: &[&str]| {
        let mut all = vec![args[0], "--live", "--kubeconfig", &restricted, "-n", &ns];
        all.extend_from_slice(&args[1..]);
        let o = ownerscope(&all);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).to_string()
    };

    // 1. tree: the Job exists; not listable is not gone.
    let tree = live(&["tree"]);
    let row = tree
        .lines()
        .find(|l| l.contains("Pod/job-pod"))
        .unwrap_or_else(|| panic!("the pod is shown:\n{tree}"));
    assert!(!row.contains("owner-gone"), "{row}");
    assert!(row.contains("?unverified(Job/batch-job)"), "{row}");
    assert!(tree.contains("partial view"), "{tree}");

    // 2. why on that pod: no verdict drawn from the unseen Job.
    let why = live(&["why", "pod/job-pod"]);
    assert!(
        !why.contains("will be deleted by the garbage collector"),
        "{why}"
    );
    assert!(why.contains("cannot tell"), "{why}");
    assert!(why.contains("jobs.batch"), "{why}");

    // 3. why on the stuck Deployment: its blocker may be one it cannot see.
    let why = live(&["why", "deployment/stuck"]);
    assert!(!why.contains("no blocking dependent left"), "{why}");
    assert!(why.contains("you cannot list"), "{why}");
    assert!(why.contains("configmaps"), "{why}");

    // 4. plan: never "deleted" where an unseen blocker can keep it.
    let plan = live(&[
        "plan",
        "--delete",
        "deployment/web",
        "--policy",
        "foreground",
    ]);
    let first = plan.lines().next().unwrap_or_default();
    assert!(
        first.contains("unless an unseen dependent blocks"),
        "{plan}"
    );
    assert!(!first.contains(" 2 deleted,"), "{plan}");
    let web_line = plan
        .lines()
        .skip(1)
        .find(|l| l.contains("Deployment/web"))
        .unwrap_or_else(|| panic!("{plan}"));
    assert!(web_line.starts_with("deleted?"), "{plan}");
    assert!(plan.contains("partial view: you cannot list"), "{plan}");

    // And the JSON of each says what could not be listed.
    for args in [
        vec!["tree", "-o", "json"],
        vec!["why", "pod/job-pod", "-o", "json"],
        vec!["plan", "--delete", "deployment/web", "-o", "json"],
    ] {
        let v: Value = serde_json::from_str(&live(&args)).expect("json");
        let unlisted = v["partial"]["unlisted"]
            .as_array()
            .expect("partial.unlisted");
        assert!(
            unlisted.iter().any(|u| u["resource"] == "configmaps"),
            "{args:?}: {}",
            v["partial"]
        );
    }

    kubectl(
        &[
            "patch",
            "-n",
            &ns,
            "configmap",
            "stuck-cache",
            "--type=json",
            "-p",
            r#"[{"op":"remove","path":"/metadata/finalizers"}]"#,
        ],
        None,
    );
    kubectl(
        &[
            "patch",
            "-n",
            &ns,
            "configmap",
            "web-cache",
            "--type=json",
            "-p",
            r#"[{"op":"remove","path":"/metadata/finalizers"}]"#,
        ],
        None,
    );
    rt.block_on(delete_namespace(&client, &ns));
}

/// A kubeconfig exec plugin that fails: its environment and arguments
/// (where tokens live) are never printed; its name and status are.
#[test]
fn a_failing_exec_plugin_does_not_print_its_secrets() {
    let dir = std::env::temp_dir().join(format!("ownerscope-exec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let kc = dir.join("exec.kubeconfig");
    std::fs::write(
        &kc,
        r#"apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: /bin/false
      args: ["--token=SUPERSECRET-ARG"]
      env: [{name: API_TOKEN, value: SUPERSECRET-ENV}]
      interactiveMode: Never
contexts: [{name: ctx, context: {cluster: c, user: u, namespace: default}}]
current-context: ctx
"#,
    )
    .expect("kubeconfig");
    let o = ownerscope(&["tree", "--live", "--kubeconfig", kc.to_str().expect("path")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(!err.contains("SUPERSECRET"), "{err}");
    assert!(err.contains("exec credential plugin false failed"), "{err}");
}

/// kubectl's answers: a missing namespace is an error, and a server that
/// accepts connections and never answers gives a clear error within
/// --request-timeout instead of hanging.
#[test]
fn a_missing_namespace_and_a_silent_server_are_said_plainly() {
    let _g = shared();
    let admin = env().admin.to_str().expect("path").to_string();
    let o = ownerscope(&[
        "tree",
        "--live",
        "--kubeconfig",
        &admin,
        "-n",
        "no-such-namespace-here",
    ]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("namespaces \"no-such-namespace-here\" not found"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    // A server that accepts TCP and never answers.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let hold = std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in listener.incoming().take(4).flatten() {
            held.push(s);
        }
        std::thread::sleep(Duration::from_secs(20));
    });
    let dir = std::env::temp_dir().join(format!("ownerscope-silent-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let kc = dir.join("silent.kubeconfig");
    std::fs::write(
        &kc,
        format!(
            "apiVersion: v1\nkind: Config\nclusters: [{{name: c, cluster: {{server: \"https://127.0.0.1:{port}\", insecure-skip-tls-verify: true}}}}]\nusers: [{{name: u, user: {{token: t}}}}]\ncontexts: [{{name: x, context: {{cluster: c, user: u}}}}]\ncurrent-context: x\n"
        ),
    )
    .expect("kubeconfig");
    let started = std::time::Instant::now();
    let o = ownerscope(&[
        "tree",
        "--live",
        "--kubeconfig",
        kc.to_str().expect("path"),
        "--request-timeout",
        "2s",
    ]);
    let took = started.elapsed();
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("no answer from the cluster within 2s"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
    drop(hold);
}

/// With etcd stalled, `/version` still answers while every list hangs: the
/// health probe reads `/readyz`, which checks etcd, so the connection is
/// shown lost (and the tree stale) until etcd is back.
#[test]
fn a_stalled_etcd_is_seen() {
    if env().target == Target::Serve {
        // Differs by rule: serve's store lives in the serving process, so
        // there is no storage to stall while the server still answers;
        // its `/readyz` is ready whenever it answers at all. A server that
        // does not answer is `a_missing_namespace_and_a_silent_server_are_said_plainly`.
        eprintln!("a_stalled_etcd_is_seen: no etcd behind ownerscope serve; nothing to stall");
        return;
    }
    let _g = exclusive();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "etcd"));
    let mut live = Live::start(&options(&env().admin, &ns));
    let connected = |l: &Live| {
        l.status
            .as_ref()
            .is_some_and(|s| matches!(s.connection, ownerscope::backend::Connection::Connected))
    };
    live.wait("connected", LONG, connected);
    let signal = |sig: &str| {
        let ok = std::process::Command::new("pkill")
            .args([sig, "-f", "etcd --name ownerscope-test"])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "pkill {sig} etcd");
    };
    signal("-STOP");
    let stalled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        live.wait("the connection shown lost", Duration::from_secs(30), |l| {
            l.status.as_ref().is_some_and(|s| {
                matches!(&s.connection, ownerscope::backend::Connection::Lost(m) if !m.is_empty())
            })
        });
    }));
    signal("-CONT");
    assert!(stalled.is_ok(), "a stalled etcd was not noticed");
    live.wait("connected again", LONG, connected);
    rt.block_on(delete_namespace(&client, &ns));
}

/// `ownerscope COMMAND --live --kubeconfig KUBECONFIG ARGS...`: success,
/// stdout, stderr.
fn live_as(kubeconfig: &str, args: &[&str]) -> (bool, String, String) {
    let mut all = vec![args[0], "--live", "--kubeconfig", kubeconfig];
    all.extend_from_slice(&args[1..]);
    let o = ownerscope(&all);
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

/// Issue 10 §4: names, flags and selections as a kubectl user types them.
#[test]
fn kubectl_names_flags_and_selections() {
    let _g = shared();
    let rt = rt();
    let ns = rt.block_on(async { namespace(&admin_client().await, "kubectl-names").await });
    let admin = env().admin.to_str().expect("path").to_string();
    kubectl(
        &["apply", "-n", &ns, "-f", "-"],
        Some(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: owner}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: other, labels: {app: db}}\n",
        ),
    );
    let owner_uid = kubectl(
        &[
            "get",
            "-n",
            &ns,
            "configmap",
            "owner",
            "-o",
            "jsonpath={.metadata.uid}",
        ],
        None,
    );
    kubectl(
        &["apply", "-n", &ns, "-f", "-"],
        Some(&format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dep\n  labels: {{app: web}}\n  ownerReferences: [{{apiVersion: v1, kind: ConfigMap, name: owner, uid: {owner_uid}}}]\n"
        )),
    );
    let live = |args: &[&str]| live_as(&admin, args);

    // -l: the server filters; an owner outside the selection is unverified.
    let (ok, out, err) = live(&["tree", "-n", &ns, "-l", "app=web"]);
    assert!(ok, "{err}");
    assert!(out.contains("ConfigMap/dep"), "{out}");
    assert!(
        !out.contains("ConfigMap/other") && !out.contains("owner-gone"),
        "{out}"
    );
    assert!(out.contains("?unverified(ConfigMap/owner)"), "{out}");
    let (ok, out, _) = live(&["tree", "-n", &ns, "-l", "app=web", "-o", "json"]);
    assert!(ok);
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(
        v["partial"]["unlisted"][0]["resource"], "objects outside -l app=web",
        "{v}"
    );
    // A selection with nothing in it says so as kubectl does.
    let (ok, out, err) = live(&["tree", "-n", &ns, "-l", "app=nothing"]);
    assert!(ok, "{err}");
    assert!(out.is_empty(), "{out}");
    assert_eq!(err.trim(), format!("No resources found in {ns} namespace."));
    let (ok, _, err) = live(&["tree", "-n", &ns, "-l", "app in (a"]);
    assert!(!ok && err.contains("unable to parse requirement"), "{err}");

    // tree KIND NAME: the owners up, the dependents down, nothing else.
    let (ok, out, err) = live(&["tree", "-n", &ns, "cm", "dep"]);
    assert!(ok, "{err}");
    assert_eq!(
        out,
        format!("namespace {ns}\n  ConfigMap/owner\n  └─ ConfigMap/dep\n")
    );
    let (ok, out, _) = live(&["tree", "-n", &ns, "configmaps.v1./owner"]);
    assert!(
        ok && out.contains("└─ ConfigMap/dep") && !out.contains("other"),
        "{out}"
    );

    // Cluster-scoped objects whatever -n is.
    let (ok, out, err) = live(&["why", "-n", &ns, "clusterrole/admin"]);
    assert!(ok, "{err}");
    assert!(out.starts_with("ClusterRole/admin"), "{out}");
    let (ok, out, err) = live(&["why", "-n", "default", "namespace", &ns]);
    assert!(ok, "{err}");
    assert!(out.starts_with(&format!("Namespace/{ns}")), "{out}");

    // -A: workloads first, the cluster-scoped group last.
    let (ok, out, err) = live(&["tree", "-A", "-o", "json"]);
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(&out).expect("json");
    let groups = v["groups"].as_array().expect("groups");
    assert!(groups[0]["namespace"].is_string(), "{}", groups[0]);
    assert!(groups.last().expect("a group")["namespace"].is_null());

    // kubectl's connection flags.
    let (ok, _, err) = live(&["tree", "-n", &ns, "--as", "restricted"]);
    assert!(!ok && err.contains("User \"restricted\""), "{err}");
    let (ok, _, err) = live(&[
        "tree",
        "-n",
        &ns,
        "--as",
        "restricted",
        "--as-group",
        "system:masters",
    ]);
    assert!(ok, "a member of system:masters may list: {err}");
    let token = env().restricted_token.as_str();
    let (ok, _, err) = live(&["tree", "-n", &ns, "--token", token]);
    assert!(!ok && err.contains("User \"restricted\""), "{err}");
    assert!(!err.contains(token), "{err}");
    let (ok, _, err) = live(&["tree", "-n", &ns, "-s", "https://127.0.0.1:1"]);
    assert!(
        !ok && err.contains("Connection refused"),
        "the flag's server is the one asked: {err}"
    );
    let (ok, out, err) = live(&["tree", "-n", &ns, "--insecure-skip-tls-verify"]);
    assert!(ok && out.contains("ConfigMap/other"), "{err}");
    let (ok, _, err) = live(&[
        "tree",
        "-n",
        &ns,
        "--certificate-authority",
        "/no/such/ca.crt",
    ]);
    assert!(!ok && err.contains("/no/such/ca.crt"), "{err}");
    let (ok, _, err) = live(&["tree", "-n", &ns, "--cluster", "no-such-cluster"]);
    assert!(!ok && err.contains("no-such-cluster"), "{err}");
}

/// A namespace snapshot carries the cluster-scoped objects its objects use;
/// a user who may not read them still gets the namespace, told what is
/// left out, and an owner it cannot read is unverified, never gone.
#[test]
fn a_namespace_snapshot_carries_its_nodes_and_says_what_it_cannot_read() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "related"));
    let node = format!("{ns}-node");
    let view = kubectl(
        &[
            "get",
            "clusterrole",
            "view",
            "-o",
            "jsonpath={.metadata.uid}",
        ],
        None,
    );
    kubectl(
        &["apply", "-n", &ns, "-f", "-"],
        Some(&format!(
            r#"
apiVersion: v1
kind: Node
metadata: {{name: {node}}}
---
apiVersion: v1
kind: Pod
metadata: {{name: bound}}
spec: {{nodeName: {node}, containers: [{{name: c, image: example.invalid/c:1}}]}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: of-role
  ownerReferences: [{{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, name: view, uid: {view}}}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {{name: reader}}
rules:
  - apiGroups: [""]
    resources: [pods, configmaps]
    verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{name: reader}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}}
subjects: [{{apiGroup: rbac.authorization.k8s.io, kind: User, name: restricted}}]
"#
        )),
    );
    let snapshot = |kubeconfig: &std::path::Path| {
        let k = kubeconfig.to_str().expect("path");
        let o = ownerscope(&["snapshot", "--live", "--kubeconfig", k, "-n", &ns]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: Value = serde_json::from_slice(&o.stdout).expect("json");
        (v, String::from_utf8_lossy(&o.stderr).to_string())
    };
    let has = |v: &Value, kind: &str, name: &str| {
        v["objects"]
            .as_array()
            .expect("objects")
            .iter()
            .any(|o| o["kind"] == kind && o["metadata"]["name"] == name)
    };

    // The admin's snapshot: the Node its pod is bound to and the
    // ClusterRole that owns its ConfigMap, no other Node or ClusterRole.
    let (full, _) = snapshot(&env().admin);
    assert!(has(&full, "Node", &node), "{full}");
    assert!(has(&full, "ClusterRole", "view"), "{full}");
    assert!(!has(&full, "ClusterRole", "edit"), "{full}");
    assert_eq!(
        full["partial"]["unlisted"],
        json!([]),
        "{}",
        full["partial"]
    );

    // A user who may read only pods and configmaps here.
    let (part, stderr) = snapshot(&env().restricted);
    assert!(
        has(&part, "Pod", "bound") && !has(&part, "Node", &node),
        "{part}"
    );
    assert!(
        stderr.contains("cannot read the cluster-scoped objects this namespace uses: nodes"),
        "{stderr}"
    );
    assert!(
        part["description"]
            .as_str()
            .is_some_and(|d| d.contains("without the cluster-scoped objects it uses of: nodes")),
        "{}",
        part["description"]
    );
    let unlisted = part["partial"]["unlisted"].as_array().expect("unlisted");
    assert!(
        unlisted.iter().any(|u| u["kind"] == "ClusterRole"),
        "an owner it cannot read: {unlisted:?}"
    );
    assert!(
        !unlisted.iter().any(|u| u["kind"] == "Node"),
        "{unlisted:?}"
    );
    let file = std::env::temp_dir().join(format!("ownerscope-related-{ns}.json"));
    std::fs::write(&file, part.to_string()).expect("file");
    let why = ownerscope(&[
        "why",
        file.to_str().expect("path"),
        "configmap/of-role",
        "-n",
        &ns,
    ]);
    let why = String::from_utf8_lossy(&why.stdout);
    assert!(!why.contains("will be deleted"), "{why}");
    assert!(why.contains("cannot"), "{why}");

    let _ = std::fs::remove_file(&file);
    let _ = try_kubectl(
        &[
            "delete",
            "pod",
            "bound",
            "-n",
            &ns,
            "--grace-period=0",
            "--force",
        ],
        None,
    );
    rt.block_on(delete_namespace(&client, &ns));
    kubectl(&["delete", "node", &node, "--wait=false"], None);
}

#[test]
fn discovery_reads_every_served_version_and_the_disk_cache() {
    use std::os::unix::fs::PermissionsExt;
    // Alone: it adds and deletes an API group, and while a deleted CRD's
    // group is being removed its discovery answers 503, which every other
    // test's discovery would rightly report as a partial view.
    let _g = exclusive();
    let rt = rt();
    let ns = rt.block_on(async { namespace(&admin_client().await, "discovery").await });
    let admin = env().admin.to_str().expect("path").to_string();
    let cache = std::env::temp_dir().join(format!("ownerscope-live-dcache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let cache_s = cache.to_str().expect("path").to_string();
    let live = |args: &[&str]| live_as(&admin, args);
    kubectl(
        &["apply", "-n", &ns, "-f", "-"],
        Some("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: owner}\n"),
    );
    // A first run fills the cache, before the CRD exists.
    let (ok, _, err) = live(&["tree", "-n", &ns, "--cache-dir", &cache_s]);
    assert!(ok, "{err}");
    // `127.0.0.1_<port>`, kubectl's name for the server's directory.
    let dir = std::fs::read_dir(cache.join("discovery"))
        .expect("cache written")
        .next()
        .expect("one server")
        .expect("entry")
        .path();
    assert!(
        dir.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("127.0.0.1_")),
        "{}",
        dir.display()
    );
    let mode = |p: &std::path::Path| {
        std::fs::metadata(p)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode(&dir.join("servergroups.json")), 0o600);
    assert_eq!(mode(&dir.join("v1/serverresources.json")), 0o600);
    assert_eq!(mode(&dir.join("apps")), 0o700);
    // Every served version, as client-go's discovery reads them (R79: 1.20
    // serves CronJob only in batch/v1beta1, not its group's preferred
    // version).
    let apis: Value =
        serde_json::from_str(&kubectl(&["get", "--raw", "/apis"], None)).expect("/apis");
    for g in apis["groups"].as_array().expect("groups") {
        let name = g["name"].as_str().expect("name");
        let preferred = g["preferredVersion"]["version"]
            .as_str()
            .expect("preferred");
        assert!(
            dir.join(name)
                .join(preferred)
                .join("serverresources.json")
                .exists(),
            "{name}/{preferred} cached"
        );
        for v in g["versions"].as_array().expect("versions") {
            let v = v["version"].as_str().expect("version");
            assert!(
                dir.join(name).join(v).join("serverresources.json").exists(),
                "{name}/{v} served, yet not read"
            );
        }
    }

    // A CRD made after: `db/orders` is a miss in the cache, which is then
    // refreshed, as kubectl does.
    let group = format!("disc{}.ownerscope.example.com", std::process::id());
    let crd = format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: databases.{group}}}\nspec:\n  group: {group}\n  scope: Namespaced\n  names: {{plural: databases, singular: database, kind: Database, shortNames: [db], categories: [ownerscope-stores]}}\n  versions:\n  - {{name: v1beta1, served: true, storage: false, schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}}}\n  - {{name: v1, served: true, storage: true, schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}}}\n"
    );
    kubectl(&["apply", "-f", "-"], Some(&crd));
    kubectl(
        &[
            "wait",
            "--for=condition=Established",
            "--timeout=60s",
            &format!("crd/databases.{group}"),
        ],
        None,
    );
    kubectl(
        &["apply", "-n", &ns, "-f", "-"],
        Some(&format!(
            "apiVersion: {group}/v1\nkind: Database\nmetadata: {{name: orders}}\n"
        )),
    );
    let (ok, out, err) = live(&["tree", "-n", &ns, "db/orders", "--cache-dir", &cache_s]);
    let cleanup = || kubectl(&["delete", "crd", &format!("databases.{group}")], None);
    if !ok {
        cleanup();
    }
    assert!(ok, "{err}");
    assert_eq!(out, format!("namespace {ns}\n  Database/orders\n"));
    assert!(dir.join(&group).join("v1/serverresources.json").exists());
    // Every version the server lists is read: the CRD's v1beta1 too, on
    // the control plane and on serve alike.
    assert!(
        dir.join(&group)
            .join("v1beta1/serverresources.json")
            .exists(),
        "every version the server lists is read"
    );
    // Its category, and `resource.version.group`, as kubectl takes them.
    for typed in [
        "ownerscope-stores/orders",
        &format!("databases.v1.{group}/orders"),
    ] {
        let (ok, out, err) = live(&["tree", "-n", &ns, typed, "--cache-dir", &cache_s]);
        assert!(ok && out.contains("Database/orders"), "{typed}: {err}");
    }

    // The second run reads the cache: a name only the cached file has
    // works, and the files are not rewritten; without the cache it is
    // unknown.
    let v1 = dir.join("v1/serverresources.json");
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(&v1).expect("cached")).expect("json");
    for r in doc["resources"].as_array_mut().expect("resources") {
        if r["name"] == "configmaps" {
            r["shortNames"] = json!(["cm", "zzcached"]);
        }
    }
    std::fs::write(&v1, doc.to_string()).expect("edited");
    let before = std::fs::metadata(dir.join("servergroups.json"))
        .and_then(|m| m.modified())
        .expect("mtime");
    let (ok, out, err) = live(&["tree", "-n", &ns, "zzcached/owner", "--cache-dir", &cache_s]);
    assert!(ok && out.contains("ConfigMap/owner"), "{err}");
    let after = std::fs::metadata(dir.join("servergroups.json"))
        .and_then(|m| m.modified())
        .expect("mtime");
    assert_eq!(before, after, "the cache was not rewritten");
    let (ok, _, err) = live(&[
        "tree",
        "-n",
        &ns,
        "zzcached/owner",
        "--cache-dir",
        &cache_s,
        "--no-discovery-cache",
    ]);
    assert!(!ok && err.contains("zzcached"), "{err}");
    cleanup();
    // The cache still names the deleted CRD's resource, whose list now
    // answers 404: it is gone, not unseen. The view is not partial, and the
    // cache is refreshed.
    kubectl(
        &[
            "wait",
            "--for=delete",
            "--timeout=60s",
            &format!("crd/databases.{group}"),
        ],
        None,
    );
    assert!(dir.join(&group).join("v1/serverresources.json").exists());
    let (ok, out, err) = live(&["tree", "-n", &ns, "-o", "json", "--cache-dir", &cache_s]);
    assert!(ok, "{err}");
    assert!(!err.contains("partial"), "{err}");
    let tree: Value = serde_json::from_str(&out).expect("json");
    assert!(
        tree["partial"]["unlisted"]
            .as_array()
            .is_none_or(Vec::is_empty),
        "{out}"
    );
    let groups = std::fs::read_to_string(dir.join("servergroups.json")).expect("cached");
    assert!(
        !groups.contains(&group),
        "the cache was refreshed without the deleted CRD's group"
    );
    let _ = std::fs::remove_dir_all(&cache);
}

/// A kubeconfig with three contexts on this target: `one` (admin,
/// namespace `ns_one`), `two` (the restricted user, namespace `ns_two`) on
/// the same server, and `gone` (admin, on a port nothing listens on).
fn three_contexts(ns_one: &str, ns_two: &str) -> std::path::PathBuf {
    use kube::config::Kubeconfig;
    let current = |path: &std::path::Path| -> (Value, Value) {
        let kc = Kubeconfig::read_from(path).expect("kubeconfig");
        let ctx = kc
            .contexts
            .iter()
            .find(|c| Some(&c.name) == kc.current_context.as_ref())
            .and_then(|c| c.context.clone())
            .expect("a current context");
        let cluster = kc
            .clusters
            .iter()
            .find(|c| c.name == ctx.cluster)
            .and_then(|c| c.cluster.clone())
            .expect("its cluster");
        let user = kc
            .auth_infos
            .iter()
            .find(|u| Some(&u.name) == ctx.user.as_ref())
            .and_then(|u| u.auth_info.clone())
            .expect("its user");
        (
            serde_json::to_value(cluster).expect("cluster"),
            serde_json::to_value(user).expect("user"),
        )
    };
    let (cluster, admin) = current(&env().admin);
    let (_, restricted) = current(&env().restricted);
    let mut gone = cluster.clone();
    gone["server"] = json!("https://127.0.0.1:1");
    // JSON is YAML: kube reads it as a kubeconfig.
    let kubeconfig = json!({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "here", "cluster": cluster}, {"name": "gone", "cluster": gone}],
        "users": [{"name": "admin", "user": admin}, {"name": "restricted", "user": restricted}],
        "contexts": [
            {"name": "one", "context": {"cluster": "here", "user": "admin", "namespace": ns_one}},
            {"name": "two", "context": {"cluster": "here", "user": "restricted", "namespace": ns_two}},
            {"name": "gone", "context": {"cluster": "gone", "user": "admin"}},
        ],
        "current-context": "one",
    });
    let path = std::env::temp_dir().join(format!(
        "ownerscope-contexts-{}-{ns_one}.kubeconfig",
        std::process::id()
    ));
    std::fs::write(&path, kubeconfig.to_string()).expect("kubeconfig written");
    path
}

/// Lets the restricted user read ConfigMaps in `ns` (a Role and its
/// binding).
fn restricted_reads_configmaps_in(ns: &str) {
    kubectl(
        &["apply", "-n", ns, "-f", "-"],
        Some(
            r"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cm-reader}
rules: [{apiGroups: [''], resources: [configmaps], verbs: [get, list, watch]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: cm-reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cm-reader}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: restricted}]
",
        ),
    );
}

/// `:ctx NAME`: the backend names the kubeconfig's contexts and switches
/// to another one without a restart: discovery again, the other
/// context's namespace (no `-n` given) and user, so other objects and
/// other permissions; the status bar names the new context. A switch to a
/// context that does not exist, or to a server that does not answer,
/// fails as the reply, and the old connection keeps working.
#[test]
fn a_context_switch_replaces_objects_scope_and_permissions() {
    use ownerscope::backend::Contexts;
    use ownerscope::model::ObjRef;
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns_one = rt.block_on(namespace(&client, "ctx-one"));
    let ns_two = rt.block_on(namespace(&client, "ctx-two"));
    let in_one = rt.block_on(configmap(&client, &ns_one, "in-one", vec![], &[]));
    let in_two = rt.block_on(configmap(&client, &ns_two, "in-two", vec![], &[]));
    // The restricted user may read ConfigMaps in ns_two, and nothing more.
    restricted_reads_configmaps_in(&ns_two);
    let path = three_contexts(&ns_one, &ns_two);
    let opts = ownerscope::cluster::LiveOptions {
        kubeconfig: Some(path.clone()),
        ..ownerscope::cluster::LiveOptions::default()
    };
    let mut live = Live::start(&opts);
    live.wait("in-one", LONG, |l| l.graph.get(&in_one).is_some());
    assert_eq!(
        live.contexts,
        Some(Contexts {
            current: "one".into(),
            names: vec!["one".into(), "two".into(), "gone".into()],
        })
    );
    let status = live.status.clone().expect("status");
    assert_eq!(status.scope, format!("namespace {ns_one}"));
    assert!(status.name.starts_with("one @ "), "{}", status.name);
    assert!(live.graph.get(&in_two).is_none(), "another namespace");
    let delete_in_two = Command::Delete {
        target: ObjRef {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            namespace: Some(ns_two.clone()),
            name: "in-two".into(),
            uid: in_two.clone(),
        },
        policy: Policy::Background,
    };
    assert_eq!(
        live.backend.permission(&delete_in_two),
        Permission::Allowed,
        "admin may"
    );

    // A context the kubeconfig does not have, and a server that does not
    // answer: the reply says so, and nothing else changes.
    live.backend.send(Command::SwitchContext("nope".into()));
    live.wait("the unknown context's reply", LONG, |l| {
        l.replies.len() == 1
    });
    let r = &live.replies[0];
    assert!(!r.is_success() && r.message.contains("nope"), "{r:?}");
    live.backend.send(Command::SwitchContext("gone".into()));
    live.wait("the silent server's reply", LONG, |l| l.replies.len() == 2);
    let r = &live.replies[1];
    assert!(
        !r.is_success() && r.message.contains("127.0.0.1:1") && r.message.contains("gone"),
        "{r:?}"
    );
    let later = rt.block_on(configmap(&client, &ns_one, "later", vec![], &[]));
    live.wait("the old connection, still watching", LONG, |l| {
        l.graph.get(&later).is_some() && l.connected()
    });
    assert_eq!(live.resets, 1, "no new tree after a failed switch");
    assert!(
        live.status
            .as_ref()
            .is_some_and(|s| s.name.starts_with("one @ ")),
        "{:?}",
        live.status
    );
    assert_eq!(
        live.contexts.as_ref().map(|c| c.current.as_str()),
        Some("one")
    );

    // The switch: the other namespace, the other user, a fresh tree.
    live.backend.send(Command::SwitchContext("two".into()));
    live.wait("the switch's reply", LONG, |l| l.replies.len() == 3);
    let r = &live.replies[2];
    assert!(r.is_success(), "{r:?}");
    assert!(r.message.contains(&format!("namespace {ns_two}")), "{r:?}");
    live.wait("the new context's tree", LONG, |l| {
        l.resets == 2 && l.graph.get(&in_two).is_some()
    });
    assert!(live.graph.get(&in_one).is_none() && live.graph.get(&later).is_none());
    live.wait("the new context, listed", LONG, |l| l.connected());
    let status = live.status.clone().expect("status");
    assert_eq!(status.scope, format!("namespace {ns_two}"));
    assert!(status.name.starts_with("two @ "), "{}", status.name);
    assert!(
        status.missing_kinds.contains(&"pods".to_string()),
        "the restricted user cannot list pods: {:?}",
        status.missing_kinds
    );
    assert_eq!(
        live.contexts.as_ref().map(|c| c.current.as_str()),
        Some("two")
    );
    match live.backend.permission(&delete_in_two) {
        Permission::Denied { verb, .. } => assert_eq!(verb, "delete"),
        other => panic!("the admin's answer was kept: {other:?}"),
    }

    let _ = std::fs::remove_file(&path);
    rt.block_on(delete_namespace(&client, &ns_one));
    rt.block_on(delete_namespace(&client, &ns_two));
}
