//! Clients other than kubectl: a kube-rs metadata watch with
//! preconditions, and the live backend (`src/cluster/`) loading serve's
//! objects and reconnecting to a restarted server with a new CA.

use super::*;

#[test]
fn kube_rs_watches_metadata_and_is_refused_a_stale_uid() {
    let s = Server::start("deployment", &["--speed", "10"]);
    let mut args = vec!["create", "-f", "-"];
    args.extend(validate_flag());
    let (ok, out, err) = s.kubectl(
        &args,
        Some("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"watched\",\"namespace\":\"shop\"}}"),
    );
    assert!(ok, "{out}{err}");
    rt().block_on(async {
        let client = s.client().await;
        let api: Api<PartialObjectMeta<ConfigMap>> = Api::namespaced(client.clone(), "shop");
        let mut events = watcher::watcher(api, watcher::Config::default().any_semantic()).boxed();
        let mut listed = false;
        let deadline = tokio::time::Instant::now() + LONG;
        let cms: Api<ConfigMap> = Api::namespaced(client.clone(), "shop");
        loop {
            let ev = tokio::time::timeout_at(deadline, events.next())
                .await
                .expect("watch event in time")
                .expect("stream goes on")
                .expect("no watch error");
            match ev {
                Event::InitDone => {
                    listed = true;
                    let stale = DeleteParams {
                        preconditions: Some(Preconditions {
                            uid: Some("00000000-0000-4000-8000-000000000000".into()),
                            resource_version: None,
                        }),
                        ..DeleteParams::background()
                    };
                    let err = cms.delete("watched", &stale).await.expect_err("409");
                    match err {
                        kube::Error::Api(s) => {
                            assert_eq!((s.code, s.reason.as_str()), (409, "Conflict"), "{s:?}");
                            assert!(
                                s.message.contains("the UID in the precondition"),
                                "{}",
                                s.message
                            );
                        }
                        other => panic!("{other:?}"),
                    }
                    let uid = cms.get("watched").await.expect("get").metadata.uid;
                    let right = DeleteParams {
                        preconditions: Some(Preconditions {
                            uid,
                            resource_version: None,
                        }),
                        ..DeleteParams::background()
                    };
                    cms.delete("watched", &right).await.expect("deleted");
                }
                Event::Delete(m) if listed => {
                    assert_eq!(m.metadata.name.as_deref(), Some("watched"));
                    break;
                }
                _ => {}
            }
        }
    });
}

#[test]
fn the_live_backend_loads_what_the_simulator_holds() {
    let s = Server::start("shop-demo", &["--paused"]);
    let mut live = Live::start(&LiveOptions {
        all_namespaces: true,
        ..s.options("default")
    });
    // The same scenario in this process: the same seed gives the same uids.
    let sc = ownerscope::sim::scenario::bundled("shop-demo").expect("bundled");
    let sim = ownerscope::sim::Sim::load(sc).expect("loads");
    let want: std::collections::BTreeSet<(String, String, String)> = sim
        .objects()
        .map(|o| (o.kind.clone(), o.name().to_string(), o.uid().to_string()))
        .collect();
    live.wait("every object of the scenario", LONG, |l| {
        let have: std::collections::BTreeSet<(String, String, String)> = l
            .graph
            .objects()
            .map(|o| (o.kind.clone(), o.name().to_string(), o.uid().to_string()))
            .collect();
        want.is_subset(&have) && l.connected()
    });
    // Edges as the simulator has them.
    for o in sim.objects() {
        assert_eq!(
            live.graph.resolved_owners(o.uid()),
            sim.graph().resolved_owners(o.uid()),
            "{}/{}",
            o.kind,
            o.name()
        );
    }
}

/// Issue 10, section 2, on a server restarted on the same port with a new
/// CA and a changed state (its ReplicaSet renamed): the lost reason names
/// the server, the context and the certificate error, `Ctrl-r`'s
/// reconnect reads the kubeconfig again, and while the kinds relist in
/// whatever order, no state ever shows a dangling owner (a Pod listed
/// before its new ReplicaSet is unverified, not `owner-gone`); the status
/// says connected only once every kind has listed.
#[test]
fn a_restart_with_a_new_ca_is_said_and_reconnect_relists_without_false_conclusions() {
    use ownerscope::backend::{Backend as _, Command as BackendCommand, Connection};
    let dir = std::env::temp_dir().join(format!("ownerscope-newca-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let first = include_str!("../../assets/scenarios/deployment.yaml");
    let second = first
        .replace("name: web-7d9f8c6b5\n", "name: web-5c4b3a2f1\n")
        .replace(
            "kind: ReplicaSet, name: web-7d9f8c6b5,",
            "kind: ReplicaSet, name: web-5c4b3a2f1,",
        );
    assert_ne!(first, second);
    let (a, b, kc) = (
        dir.join("a.yaml"),
        dir.join("b.yaml"),
        dir.join("kubeconfig"),
    );
    std::fs::write(&a, first).expect("a");
    std::fs::write(&b, &second).expect("b");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port()
        .to_string();
    let flags = [
        "--paused",
        "--port",
        &port,
        "--kubeconfig-out",
        kc.to_str().expect("path"),
    ];
    let server = Server::start(a.to_str().expect("path"), &flags);
    let opts = LiveOptions {
        all_namespaces: true,
        ..server.options("default")
    };
    let mut live = Live::start(&opts);
    live.wait("connected, the first ReplicaSet shown", LONG, |l| {
        l.connected() && l.find("ReplicaSet", "web-7d9f8c6b5").is_some()
    });

    drop(server);
    live.wait("the connection lost", LONG, |l| !l.connected());
    let server = Server::start(b.to_str().expect("path"), &flags);
    live.wait("the certificate error said", LONG, |l| {
        l.status.as_ref().is_some_and(|s| {
            matches!(&s.connection, Connection::Lost(m)
                if m.contains(&format!("https://127.0.0.1:{port}"))
                    && m.contains("(context ")
                    && m.contains("certificate signed by unknown authority"))
        })
    });

    live.backend.send(BackendCommand::Reconnect);
    let mut dangling: Vec<String> = Vec::new();
    let mut saw_syncing = false;
    live.wait("converged on the restarted server", LONG, |l| {
        for o in l.graph.objects() {
            for (r, st) in l.graph.owners(o.uid()) {
                if st.is_dangling() {
                    dangling.push(format!(
                        "{}/{} -> {}/{}: {}",
                        o.kind,
                        o.name(),
                        r.kind,
                        r.name,
                        st.label()
                    ));
                }
            }
        }
        if let Some(s) = &l.status
            && s.connection == Connection::Syncing
        {
            assert!(!s.syncing.is_empty(), "syncing names its kinds");
            saw_syncing = true;
        }
        l.connected()
            && l.find("ReplicaSet", "web-5c4b3a2f1").is_some()
            && l.find("ReplicaSet", "web-7d9f8c6b5").is_none()
    });
    assert!(
        dangling.is_empty(),
        "a false conclusion was shown: {dangling:?}"
    );
    assert!(
        saw_syncing,
        "the relist was shown as syncing before connected"
    );
    assert!(
        live.replies
            .iter()
            .any(|r| r.command == BackendCommand::Reconnect && r.is_success()),
        "{:?}",
        live.replies
    );
    // Connected means every kind listed: each Pod resolves to the new owner.
    for o in live.graph.objects().filter(|o| o.kind == "Pod") {
        let owners = live.graph.owners(o.uid());
        assert!(owners.iter().all(|(_, s)| s.resolves()), "{owners:?}");
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
