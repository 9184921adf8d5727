//! `kubectl explain` on serve: the fields below a kind's top level,
//! described as Kubernetes 1.20 describes them (serve's `/openapi/v3`), and
//! the same descriptions as the test control plane prints.

use super::*;

/// The words of `text`, one space apart: kubectl wraps a description at
/// its own width, one width for v2 and another for v3.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What kubectl explain prints under `DESCRIPTION:`, as words.
fn description(explained: &str) -> String {
    let after = explained.split_once("DESCRIPTION:").map_or("", |(_, d)| d);
    words(after.split("FIELDS:").next().unwrap_or_default())
}

/// The field names kubectl explain lists under `FIELDS:`.
fn fields(explained: &str) -> Vec<String> {
    explained
        .split_once("FIELDS:")
        .map_or("", |(_, f)| f)
        .lines()
        .filter_map(|l| l.trim_start().split_once('\t').map(|(n, _)| n.to_string()))
        .collect()
}

/// Upstream's description of a container's image (`Container.image`).
const IMAGE: &str = "Docker image name. More info: https://kubernetes.io/docs/concepts/containers/images This field is optional to allow higher level config management to default or override container images in workload controllers like Deployments and StatefulSets.";

/// Upstream's description of `DeploymentSpec.strategy`, then of the
/// `DeploymentStrategy` it refers to.
const STRATEGY: &str = "The deployment strategy to use to replace existing pods with new ones. DeploymentStrategy describes how to replace existing pods with new ones.";

#[test]
fn kubectl_explains_fields_below_the_top_level_and_still_creates() {
    let s = Server::start("deployment", &["--paused"]);
    let image = s.ok(&["explain", "pods.spec.containers.image"]);
    assert!(image.contains("KIND:       Pod"), "{image}");
    assert!(image.contains("FIELD: image <string>"), "{image}");
    assert_eq!(description(&image), IMAGE, "{image}");
    let strategy = s.ok(&["explain", "deployments.spec.strategy"]);
    assert_eq!(description(&strategy), STRATEGY, "{strategy}");
    assert_eq!(fields(&strategy), ["rollingUpdate", "type"], "{strategy}");
    let (ok, _, err) = s.kubectl(&["explain", "pods.spec.nope"], None);
    assert!(
        !ok && err.contains("field \"nope\" does not exist"),
        "{err}"
    );
    // A kind 1.20 does not have in the version served (batch/v1 CronJob)
    // keeps its top-level fields.
    let cron = s.ok(&["explain", "cronjobs"]);
    assert_eq!(
        fields(&cron),
        ["apiVersion", "kind", "metadata", "spec", "status"],
        "{cron}"
    );
    // kubectl create still finds the server validating fields (the
    // PATCH with fieldValidation), with the schemas beside it.
    let deployment = r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"explained","namespace":"shop"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"explained"}},"template":{"metadata":{"labels":{"app":"explained"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}"#;
    let mut args = vec!["create", "-f", "-"];
    args.extend(validate_flag());
    let (ok, out, err) = s.kubectl(&args, Some(deployment));
    assert!(ok, "{out}\n{err}");
    assert_eq!(out, "deployment.apps/explained created\n");
    // And apply merges a container list by name, as the schema's patch
    // strategy says.
    let applied = deployment.replace("\"image\":\"nginx\"", "\"image\":\"nginx:2\"");
    let (ok, out, err) = s.kubectl(&["apply", "-f", "-"], Some(&applied));
    assert!(ok, "{out}\n{err}");
    assert_eq!(
        s.ok(&[
            "get",
            "deployment",
            "explained",
            "-n",
            "shop",
            "-o",
            "jsonpath={.spec.template.spec.containers[*].image}"
        ]),
        "nginx:2"
    );
}

/// The same explains against the test control plane (1.20, which kubectl
/// 1.32 reads through `/openapi/v2` in protobuf) and serve (`/openapi/v3`):
/// the descriptions and the fields listed are the same. What differs is
/// kubectl's layout of v2 against v3, by rule:
/// - the header: v2 `KIND:     Pod` and `RESOURCE: strategy <Object>`
///   (a field holding an object), v3 `KIND:       Pod`, a `GROUP:` line
///   for a named group, and `FIELD: strategy <DeploymentStrategy>`;
/// - a field that refers to another schema: v2 `<Object>`, v3 the
///   schema's name (`rollingUpdate <RollingUpdateDeployment>`);
/// - the width descriptions are wrapped at and the blank line between a
///   field's description and its type's.
#[test]
fn kubectl_explains_as_the_real_control_plane_describes() {
    let _g = live_support::shared();
    let real = live_support::env().admin.clone();
    let s = Server::start("deployment", &["--paused"]);
    for path in ["pods.spec.containers.image", "deployments.spec.strategy"] {
        let (ok, on_real, err) = kubectl_at(&real, &["explain", path], None);
        assert!(ok, "the real control plane: {on_real}\n{err}");
        let on_serve = s.ok(&["explain", path]);
        assert_eq!(
            description(&on_real),
            description(&on_serve),
            "{path}: the real control plane (left) and serve (right) describe it apart"
        );
        assert_eq!(fields(&on_real), fields(&on_serve), "{path}");
    }
    let (_, strategy, _) = kubectl_at(&real, &["explain", "deployments.spec.strategy"], None);
    assert!(
        strategy.contains("RESOURCE: strategy <Object>")
            && strategy.contains("rollingUpdate\t<Object>"),
        "v2's layout, as listed above: {strategy}"
    );
    let strategy = s.ok(&["explain", "deployments.spec.strategy"]);
    assert!(
        strategy.contains("GROUP:      apps")
            && strategy.contains("FIELD: strategy <DeploymentStrategy>")
            && strategy.contains("rollingUpdate\t<RollingUpdateDeployment>"),
        "v3's layout, as listed above: {strategy}"
    );
}
