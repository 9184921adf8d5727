//! kubectl 1.27 and later on serve, with a manifest that has a typo: serve's
//! `/openapi/v3` says it validates fields, so kubectl sends
//! `fieldValidation` and serve answers as kube-apiserver 1.25 and later
//! (refused under `--validate=strict`, the default; warned under
//! `--validate=warn`; taken under `--validate=false`). kubectl before 1.27
//! validates on the client instead, against `/openapi/v2` in protobuf
//! (`openapi_v2.rs`): nothing of this is seen there.

use super::*;

/// A Deployment with two typos: `spec.replica` and a container's
/// `imagePullPolicyy`.
fn with_typos(name: &str) -> String {
    format!(
        r#"{{"apiVersion":"apps/v1","kind":"Deployment","metadata":{{"name":"{name}","namespace":"shop"}},"spec":{{"replica":3,"selector":{{"matchLabels":{{"app":"{name}"}}}},"template":{{"metadata":{{"labels":{{"app":"{name}"}}}},"spec":{{"containers":[{{"name":"c","image":"nginx","imagePullPolicyy":"Always"}}]}}}}}}}}"#
    )
}

const UNKNOWN: &str = r#"strict decoding error: unknown field "spec.replica", unknown field "spec.template.spec.containers[0].imagePullPolicyy""#;

#[test]
fn kubectl_sees_a_typo_refused_warned_or_taken_as_validate_says() {
    if kubectl_minor() < 27 {
        eprintln!("kubectl before 1.27 validates on the client: nothing to see here");
        return;
    }
    let s = Server::start("deployment", &["--paused"]);
    // The default (--validate=strict): refused, in kube-apiserver's words.
    let (ok, out, err) = s.kubectl(&["create", "-f", "-"], Some(&with_typos("typo")));
    assert!(!ok, "{out}");
    assert_eq!(
        err.trim_end(),
        format!(
            "Error from server (BadRequest): error when creating \"STDIN\": Deployment in version \"v1\" cannot be handled as a Deployment: {UNKNOWN}"
        )
    );
    let (ok, _, err) = s.kubectl(&["get", "deployment", "typo", "-n", "shop"], None);
    assert!(!ok && err.contains("NotFound"), "{err}");
    // replace: the same words.
    let (ok, _, err) = s.kubectl(&["replace", "-f", "-"], Some(&with_typos("web")));
    assert!(!ok && err.contains(UNKNOWN), "{err}");
    // --validate=warn: created, each field warned.
    let (ok, out, err) = s.kubectl(
        &["create", "-f", "-", "--validate=warn"],
        Some(&with_typos("warned")),
    );
    assert!(ok, "{out}\n{err}");
    assert_eq!(out, "deployment.apps/warned created\n");
    assert_eq!(
        err,
        "Warning: unknown field \"spec.replica\"\nWarning: unknown field \"spec.template.spec.containers[0].imagePullPolicyy\"\n"
    );
    // --validate=false: created, nothing said, the fields dropped.
    let (ok, out, err) = s.kubectl(
        &["create", "-f", "-", "--validate=false"],
        Some(&with_typos("taken")),
    );
    assert!(ok, "{out}\n{err}");
    assert_eq!(
        (out.as_str(), err.as_str()),
        ("deployment.apps/taken created\n", "")
    );
    let kept = s.ok(&["get", "deployment", "taken", "-n", "shop", "-o", "json"]);
    assert!(
        !kept.contains("replica\"") && !kept.contains("imagePullPolicyy"),
        "{kept}"
    );
    // apply of an object that exists: its patch is checked too.
    let (ok, _, err) = s.kubectl(&["apply", "-f", "-"], Some(&with_typos("taken")));
    assert!(!ok && err.contains(UNKNOWN), "{err}");
    // A manifest without a typo is taken under the default.
    let (ok, out, err) = s.kubectl(
        &["create", "-f", "-"],
        Some(
            &with_typos("fine")
                .replace("\"replica\"", "\"replicas\"")
                .replace(",\"imagePullPolicyy\":\"Always\"", ""),
        ),
    );
    assert!(ok, "{out}\n{err}");
}
