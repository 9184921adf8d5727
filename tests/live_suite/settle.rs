//! A read of a cluster lists each resource on its own, so what is made
//! between two lists can be missed by one while its dependents are caught
//! by another (`ownerscope::cluster::settle`). The owners and Nodes a read
//! holds references to and lacks are looked up by name, as the garbage
//! collector looks up an owner absent from its graph before it calls it
//! gone; what answers 404 stays absent.

use super::*;
use ownerscope::cluster::settle::settle;

#[test]
fn owners_and_nodes_a_read_missed_are_looked_up_by_name() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "settle"));
    let node = format!("{ns}-node");
    let owner = rt.block_on(configmap(&client, &ns, "owner", vec![], &[]));
    rt.block_on(configmap(
        &client,
        &ns,
        "dependent",
        vec![owner_ref("v1", "ConfigMap", "owner", &owner, true)],
        &[],
    ));
    let gone = "0d0e0a0d-0000-4000-8000-000000000000";
    rt.block_on(configmap(
        &client,
        &ns,
        "orphan",
        vec![owner_ref("v1", "ConfigMap", "gone", gone, false)],
        &[],
    ));
    kubectl(
        &["apply", "-n", &ns, "-f", "-"],
        Some(&format!(
            "apiVersion: v1\nkind: Node\nmetadata: {{name: {node}}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {{name: bound}}\nspec: {{nodeName: {node}, containers: [{{name: c, image: example.invalid/c:1}}]}}\n"
        )),
    );

    let (mut objects, resources, conn_client) = rt.block_on(async {
        let conn = ownerscope::cluster::connect(&options(&env().admin, &ns))
            .await
            .expect("connect");
        let discovered = ownerscope::cluster::discovery::discover(&conn)
            .await
            .expect("discovery");
        let snap = ownerscope::cluster::list_once(&conn).await.expect("a read");
        (snap.objects, discovered.resources, conn.client.clone())
    });
    let has = |objects: &[ownerscope::model::Object], kind: &str, name: &str| {
        objects.iter().any(|o| o.kind == kind && o.name() == name)
    };
    assert!(has(&objects, "ConfigMap", "owner") && has(&objects, "Node", &node));
    // As lists a moment apart would have read them: the owner and the Node
    // made after their kinds were listed, what uses them before.
    objects.retain(|o| !(o.kind == "ConfigMap" && o.name() == "owner") && o.kind != "Node");

    let added = rt.block_on(settle(&conn_client, &resources, &mut objects));
    let back = objects
        .iter()
        .find(|o| o.kind == "ConfigMap" && o.name() == "owner")
        .expect("the owner, looked up");
    assert_eq!(back.uid(), owner);
    assert_eq!(back.api_version, "v1");
    assert_eq!(back.namespace(), Some(ns.as_str()));
    let node_back = objects
        .iter()
        .find(|o| o.kind == "Node" && o.name() == node)
        .expect("the pod's Node, looked up");
    assert_eq!(node_back.namespace(), None);
    assert!(
        !objects.iter().any(|o| o.uid() == gone),
        "an owner that is not there stays absent"
    );
    assert_eq!(added, 2, "the owner and the Node, nothing else");

    let _ = try_kubectl(&["delete", "node", &node, "--wait=false"], None);
    rt.block_on(delete_namespace(&client, &ns));
}
