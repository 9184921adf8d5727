//! kubectl 1.27 and later on serve, with a manifest that has a typo: serve's
//! `/openapi/v3` says it validates fields, so kubectl sends
//! `fieldValidation` and serve answers as kube-apiserver 1.25 and later
//! (refused under `--validate=strict`, the default; warned under
//! `--validate=warn`; taken under `--validate=false`). kubectl before 1.27
//! validates on the client instead, against `/openapi/v2` in protobuf
//! (`openapi_v2.rs`): nothing of this is seen there. A body that repeats
//! a key is refused or warned of the same way (`duplicate field`), where
//! kubectl sends the repeat at all.

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

/// Where the 1.20 control plane and serve answer the session of
/// [`kubectl_meets_a_repeated_key_as_kube_apiserver_1_25_does`]
/// differently, by rule.
const DIFFERENCES: &[(&str, &str)] = &[
    (
        "raw-strict",
        "kube-apiserver 1.20 has no server-side field validation (1.25 and later): it takes a body that repeats a key, the last value kept, whatever fieldValidation says; 1.25 and later refuse it under Strict (400, strict decoding error: duplicate field), as serve does",
    ),
    (
        "raw-warn",
        "the same rule under Warn, the default: 1.20 takes the body silently, 1.25 and later take it with a warning per repeat, as serve does",
    ),
];

fn rule(what: &str) -> &'static str {
    rule_in(DIFFERENCES, what)
}

/// Takes the test's namespace off the control plane, however the test
/// ends.
struct DropNamespace<'a>(&'a std::path::Path, String);

impl Drop for DropNamespace<'_> {
    fn drop(&mut self) {
        let _ = kubectl_at(self.0, &["delete", "ns", &self.1, "--wait=false"], None);
    }
}

/// A manifest that repeats keys, as kubectl meets it and as a raw client
/// sends it, against the 1.20 control plane and serve at once. kubectl
/// reads a manifest into a map and sends it again, so `create -f` sends
/// no repeat (the last value taken, on both); `create --raw` sends the
/// bytes as they are, and `patch` its patch as given: there serve answers
/// as kube-apiserver 1.25 and later, the rest as [`DIFFERENCES`] says.
#[test]
fn kubectl_meets_a_repeated_key_as_kube_apiserver_1_25_does() {
    let _g = live_support::shared();
    let real = live_support::env().admin.clone();
    let s = Server::start("deployment", &["--paused"]);
    let ns = unique_name("strictdup");
    let _cleanup = DropNamespace(&real, ns.clone());
    let both = |args: &[&str], stdin: Option<&str>| {
        on_both(&real, &s.kubeconfig, |kc| kubectl_at(kc, args, stdin))
    };
    let (r, v) = both(&["create", "ns", &ns], None);
    assert!(r.0 && v.0, "{r:?} {v:?}");
    let repeated = |first: &str, last: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{first}","name":"{last}"}},"data":{{"a":"1","a":"2"}}}}"#
        )
    };
    let value_of = |name: &str| {
        both(
            &["get", "cm", name, "-n", &ns, "-o", "jsonpath={.data.a}"],
            None,
        )
    };
    // kubectl's own reading: the same on both, the last value kept.
    let (r, v) = both(
        &["create", "-f", "-", "-n", &ns],
        Some(&repeated("first", "manifest")),
    );
    assert_eq!(r, v, "kubectl create -f");
    assert_eq!(v.1, "configmap/manifest created\n");
    let (r, v) = value_of("manifest");
    assert_eq!((r.1.as_str(), v.1.as_str()), ("2", "2"));
    // The bytes as sent, under Strict.
    let path = format!("/api/v1/namespaces/{ns}/configmaps");
    let strict = format!("{path}?fieldValidation=Strict");
    let (r, v) = both(
        &["create", "--raw", &strict, "-f", "-"],
        Some(&repeated("first", "strict")),
    );
    assert!(r.0, "{}: {r:?}", rule("raw-strict"));
    assert!(!v.0, "{}: {v:?}", rule("raw-strict"));
    assert_eq!(
        v.2,
        "Error from server (BadRequest): ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: duplicate field \"metadata.name\", duplicate field \"data.a\"\n"
    );
    let (_, v) = value_of("strict");
    assert!(!v.0 && v.2.contains("NotFound"), "{v:?}");
    // Under the default (Warn): taken on both, the last value kept; serve
    // warns of each repeat.
    let (r, v) = both(
        &["create", "--raw", &path, "-f", "-"],
        Some(&repeated("first", "warned")),
    );
    assert!(r.0 && v.0, "{r:?} {v:?}");
    assert_eq!(r.2, "", "{}", rule("raw-warn"));
    assert_eq!(
        v.2,
        "Warning: duplicate field \"metadata.name\"\nWarning: duplicate field \"data.a\"\n",
        "{}",
        rule("raw-warn")
    );
    let (r, v) = value_of("warned");
    assert_eq!((r.1.as_str(), v.1.as_str()), ("2", "2"));
    // kubectl patch sends its patch as given (and no fieldValidation).
    let (r, v) = both(
        &[
            "patch",
            "cm",
            "warned",
            "-n",
            &ns,
            "--type",
            "merge",
            "-p",
            r#"{"data":{"a":"3","a":"4"}}"#,
        ],
        None,
    );
    assert_eq!(
        (r.1.as_str(), v.1.as_str()),
        ("configmap/warned patched\n", "configmap/warned patched\n")
    );
    assert_eq!(r.2, "", "{}", rule("raw-warn"));
    assert_eq!(
        v.2,
        "Warning: duplicate field \"data.a\"\n",
        "{}",
        rule("raw-warn")
    );
    let (r, v) = value_of("warned");
    assert_eq!((r.1.as_str(), v.1.as_str()), ("4", "4"));
}
