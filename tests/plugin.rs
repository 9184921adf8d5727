//! `kubectl ownerscope ...`: the binary linked on PATH as
//! `kubectl-ownerscope`, run by the real kubectl against the test control
//! plane (`.ci/test-cluster.sh`), with kubectl's environment and flags; and
//! the krew manifest in `plugins/`.

mod live_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use live_support::*;

/// A directory with `kubectl-ownerscope` (a link to the binary, as krew
/// makes it) and a kubeconfig whose current context is a dead server,
/// with the admin's context beside it: only `--context` reaches the
/// cluster.
struct Setup {
    dir: PathBuf,
    kubeconfig: PathBuf,
    ns: String,
}

fn setup(prefix: &str) -> Setup {
    let dir =
        std::env::temp_dir().join(format!("ownerscope-plugin-{prefix}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_ownerscope"),
        dir.join("kubectl-ownerscope"),
    )
    .expect("link");
    let kubeconfig = dir.join("kubeconfig");
    std::fs::copy(&env().admin, &kubeconfig).expect("copy kubeconfig");
    for args in [
        &[
            "config",
            "set-cluster",
            "dead",
            "--server=https://127.0.0.1:1",
        ][..],
        &[
            "config",
            "set-context",
            "dead",
            "--cluster=dead",
            "--user=admin",
        ],
        &["config", "use-context", "dead"],
    ] {
        let o = kubectl_env(&dir, &kubeconfig, args);
        assert!(o.status.success(), "kubectl {args:?}: {}", text(&o.stderr));
    }
    // An owner and a held dependent, in a namespace of their own.
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, prefix));
    kubectl(&["-n", &ns, "create", "configmap", "owner"], None);
    let uid = kubectl(
        &[
            "-n",
            &ns,
            "get",
            "configmap",
            "owner",
            "-o",
            "jsonpath={.metadata.uid}",
        ],
        None,
    );
    kubectl(
        &["-n", &ns, "apply", "-f", "-"],
        Some(&format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: child\n  ownerReferences:\n  - {{apiVersion: v1, kind: ConfigMap, name: owner, uid: {uid}, blockOwnerDeletion: true}}\n"
        )),
    );
    Setup {
        dir,
        kubeconfig,
        ns,
    }
}

/// kubectl with `KUBECONFIG` set and the plugin's directory first on PATH.
fn kubectl_env(dir: &Path, kubeconfig: &Path, args: &[&str]) -> Output {
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("kubectl")
        .env("PATH", path)
        .env("KUBECONFIG", kubeconfig)
        .env(
            "KUBECACHEDIR",
            std::env::temp_dir().join(format!("ownerscope-plugin-cache-{}", std::process::id())),
        )
        .args(args)
        .output()
        .expect("kubectl runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).to_string()
}

const ADMIN: &str = "--context=admin@ownerscope-test";

#[test]
fn kubectl_finds_and_runs_the_plugin_on_its_cluster() {
    let _g = shared();
    let s = setup("plugin-tree");
    let list = kubectl_env(&s.dir, &s.kubeconfig, &["plugin", "list"]);
    assert!(
        text(&list.stdout).contains("kubectl-ownerscope"),
        "{}{}",
        text(&list.stdout),
        text(&list.stderr)
    );
    // Live by default: the tree of the context's cluster, namespace -n.
    let o = kubectl_env(
        &s.dir,
        &s.kubeconfig,
        &["ownerscope", "tree", "-n", &s.ns, ADMIN],
    );
    let tree = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(tree.contains(&format!("namespace {}", s.ns)), "{tree}");
    let owner = tree.find("ConfigMap/owner").expect("the owner");
    let child = tree
        .find("└─ ConfigMap/child  <block>")
        .expect("the dependent, under it");
    assert!(owner < child, "{tree}");
    // The same as the binary itself says with --live and the same config.
    let direct = ownerscope(&[
        "tree",
        "--live",
        "-n",
        &s.ns,
        "--kubeconfig",
        s.kubeconfig.to_str().expect("path"),
        ADMIN,
    ]);
    assert_eq!(text(&direct.stdout), tree);
    // kubectl users put the flags before the command too.
    let o = kubectl_env(
        &s.dir,
        &s.kubeconfig,
        &[
            "ownerscope",
            "-n",
            &s.ns,
            ADMIN,
            "why",
            "configmap",
            "child",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("ConfigMap/child"),
        "{}",
        text(&o.stdout)
    );
    // Usage and help name it as it is typed.
    let o = kubectl_env(&s.dir, &s.kubeconfig, &["ownerscope", "tree", "--help"]);
    assert!(
        text(&o.stdout).contains("Usage: kubectl ownerscope tree"),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn kubeconfig_context_and_impersonation_behave_as_in_kubectl() {
    let _g = shared();
    let s = setup("plugin-flags");
    // KUBECONFIG's current context is the dead server: kubectl and the
    // plugin both fail on it, both reach the cluster with --context.
    let k = kubectl_env(
        &s.dir,
        &s.kubeconfig,
        &["get", "configmaps", "-n", &s.ns, "--request-timeout=5s"],
    );
    assert!(!k.status.success());
    let o = kubectl_env(
        &s.dir,
        &s.kubeconfig,
        &["ownerscope", "tree", "-n", &s.ns, "--request-timeout=5s"],
    );
    assert!(!o.status.success(), "{}", text(&o.stdout));
    assert!(
        text(&o.stderr).contains("refused"),
        "names why: {}",
        text(&o.stderr)
    );
    let o = kubectl_env(
        &s.dir,
        &s.kubeconfig,
        &["ownerscope", "stuck", "-n", &s.ns, ADMIN],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    // --as: the restricted user may list nothing in the namespace; kubectl
    // says so, and so does the plugin, as that user.
    let k = kubectl_env(
        &s.dir,
        &s.kubeconfig,
        &[
            "get",
            "configmaps",
            "-n",
            &s.ns,
            ADMIN,
            "--as",
            "restricted",
        ],
    );
    assert!(!k.status.success());
    assert!(text(&k.stderr).contains("User \"restricted\" cannot list"));
    let o = kubectl_env(
        &s.dir,
        &s.kubeconfig,
        &[
            "ownerscope",
            "tree",
            "-n",
            &s.ns,
            ADMIN,
            "--as",
            "restricted",
        ],
    );
    let err = text(&o.stderr);
    assert!(!o.status.success(), "{}", text(&o.stdout));
    assert!(err.contains("User \"restricted\" cannot list"), "{err}");
    // --as admin (who is in system:masters) sees what admin sees.
    let o = kubectl_env(
        &s.dir,
        &s.kubeconfig,
        &[
            "ownerscope",
            "tree",
            "-n",
            &s.ns,
            ADMIN,
            "--as",
            "admin",
            "--as-group",
            "system:masters",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("ConfigMap/child"));
}

/// The fields `kubectl krew install --manifest=plugins/ownerscope.yaml`
/// requires (krew's `validation.ValidatePlugin`): the API version and kind,
/// the name matching the file, a semver version, a short description, and
/// platforms each with a selector, an https URI, a sha256 of 64 hex
/// digits and a bin; and the version is the crate's.
#[test]
fn the_krew_manifest_is_valid() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/plugins/ownerscope.yaml"
    ))
    .expect("plugins/ownerscope.yaml");
    let yaml = ownerscope::sim::yaml::parse_values(&text).expect("YAML");
    let get = |v: &serde_json::Value, p: &str| v.pointer(p).cloned();
    let s = |v: &serde_json::Value, p: &str| {
        get(v, p)
            .and_then(|x| x.as_str().map(str::to_string))
            .unwrap_or_else(|| panic!("{p} is a string"))
    };
    assert_eq!(
        s(&yaml, "/apiVersion"),
        "krew.googlecontainertools.github.com/v1alpha2"
    );
    assert_eq!(s(&yaml, "/kind"), "Plugin");
    assert_eq!(s(&yaml, "/metadata/name"), "ownerscope");
    let version = s(&yaml, "/spec/version");
    assert_eq!(version, format!("v{}", env!("CARGO_PKG_VERSION")));
    let short = s(&yaml, "/spec/shortDescription");
    assert!(!short.is_empty() && short.len() <= 50, "{short}");
    assert!(!s(&yaml, "/spec/description").is_empty());
    assert!(s(&yaml, "/spec/homepage").starts_with("https://"));
    let platforms = get(&yaml, "/spec/platforms")
        .and_then(|p| p.as_array().cloned())
        .expect("platforms");
    assert!(!platforms.is_empty());
    for p in &platforms {
        let labels = get(p, "/selector/matchLabels")
            .and_then(|m| m.as_object().cloned())
            .expect("selector.matchLabels");
        assert!(
            labels.contains_key("os") && labels.contains_key("arch"),
            "{p}"
        );
        let uri = s(p, "/uri");
        assert!(
            uri.starts_with("https://") && uri.contains(&version),
            "{uri}"
        );
        let sha = s(p, "/sha256");
        assert!(
            sha.len() == 64
                && sha
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
            "{sha}"
        );
        let bin = s(p, "/bin");
        assert!(bin == "ownerscope" || bin == "ownerscope.exe", "{bin}");
    }
}

/// Asks the binary for completions as the registered fish script does
/// (`COMPLETE=fish PROGRAM -- WORDS...`), as `program` (the plugin's link,
/// or the binary), with KUBECONFIG set; returns the candidates and how
/// long the answer took.
fn complete(s: &Setup, program: &Path, words: &[&str]) -> (Vec<String>, std::time::Duration) {
    let t = std::time::Instant::now();
    let o = Command::new(program)
        .env("COMPLETE", "fish")
        .env("KUBECONFIG", &s.kubeconfig)
        .env(
            "KUBECACHEDIR",
            std::env::temp_dir().join(format!("ownerscope-plugin-cache-{}", std::process::id())),
        )
        .arg("--")
        .args(words)
        .output()
        .expect("the binary runs");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let names = text(&o.stdout)
        .lines()
        .map(|l| l.split('\t').next().unwrap_or_default().to_string())
        .collect();
    (names, t.elapsed())
}

/// `kind/<TAB>` on a line that reads a cluster completes that kind's names
/// from the line's --context and -n, as kubectl completes them; a context
/// whose server is dead completes nothing, and quickly.
#[test]
fn object_names_complete_from_the_lines_cluster() {
    let _g = shared();
    let s = setup("plugin-complete");
    let bin = Path::new(env!("CARGO_BIN_EXE_ownerscope"));
    let plugin = s.dir.join("kubectl-ownerscope");
    let (names, _) = complete(
        &s,
        bin,
        &[
            "ownerscope",
            "why",
            "--live",
            ADMIN,
            "-n",
            &s.ns,
            "configmap/",
        ],
    );
    assert_eq!(
        names,
        [
            "configmap/child",
            "configmap/kube-root-ca.crt",
            "configmap/owner"
        ]
    );
    // As the plugin: live without --live; the kind as typed (a short
    // name), the name's start.
    let (names, _) = complete(
        &s,
        &plugin,
        &["kubectl-ownerscope", "tree", "-n", &s.ns, ADMIN, "cm/ow"],
    );
    assert_eq!(names, ["cm/owner"]);
    let (names, _) = complete(
        &s,
        &plugin,
        &[
            "kubectl-ownerscope",
            "plan",
            ADMIN,
            "-n",
            &s.ns,
            "--delete",
            "configmap/ch",
        ],
    );
    assert_eq!(names, ["configmap/child"]);
    // A cluster-scoped kind, whatever -n is.
    let (names, _) = complete(
        &s,
        &plugin,
        &[
            "kubectl-ownerscope",
            "why",
            ADMIN,
            "-n",
            &s.ns,
            "namespace/plugin-complete",
        ],
    );
    assert!(names.contains(&format!("namespace/{}", s.ns)), "{names:?}");
    // The kubeconfig's current context is a dead server: nothing, at once.
    let (names, took) = complete(
        &s,
        &plugin,
        &["kubectl-ownerscope", "why", "-n", &s.ns, "configmap/"],
    );
    assert!(names.is_empty(), "{names:?}");
    assert!(took < std::time::Duration::from_secs(4), "{took:?}");

    let rt = rt();
    let client = rt.block_on(admin_client());
    rt.block_on(delete_namespace(&client, &s.ns));
}
