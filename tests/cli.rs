//! The headless CLI, run as a user runs it: exit codes, output shape and
//! errors that name the file and line.

use std::process::{Command, Output};

use serde_json::Value;

fn ownerscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ownerscope"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn bundled() -> Vec<String> {
    let o = ownerscope(&["scenarios", "-o", "json"]);
    assert!(o.status.success());
    let v: Value = serde_json::from_str(&stdout(&o)).expect("json");
    v.as_array()
        .expect("array")
        .iter()
        .map(|s| s["name"].as_str().expect("name").to_string())
        .collect()
}

#[test]
fn scenarios_lists_at_least_eight_with_descriptions() {
    let o = ownerscope(&["scenarios"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(text.lines().count() >= 8, "{text}");
    for name in [
        "deployment",
        "foreground-blocked",
        "job-orphan-default",
        "shared-dependent",
        "wrong-uid",
        "invalid-references",
        "service-endpointslices",
        "stuck-owner",
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} listed"));
        assert!(
            line.len() > name.len() + 20,
            "{name} has a description: {line}"
        );
    }
}

#[test]
fn tree_and_simulate_exit_zero_on_every_bundled_scenario() {
    let names = bundled();
    assert!(names.len() >= 8);
    for name in &names {
        let t = ownerscope(&["tree", name]);
        assert!(t.status.success(), "tree {name}: {}", stderr(&t));
        assert!(stdout(&t).contains("namespace ") || stdout(&t).contains("cluster-scoped"));
        let tj = ownerscope(&["tree", name, "-o", "json"]);
        assert!(tj.status.success());
        let forest: Value = serde_json::from_str(&stdout(&tj)).expect("tree json");
        assert!(
            forest["groups"].as_array().is_some_and(|a| !a.is_empty()),
            "{name}"
        );
        // Complete, unless the scenario makes an API's discovery fail.
        let failing: Vec<Value> = ownerscope::sim::scenario::bundled(name)
            .expect("bundled")
            .settings
            .unavailable_apis
            .iter()
            .map(|gv| {
                serde_json::json!({"resource": gv, "reason": ownerscope::model::kinds::DISCOVERY_FAILED})
            })
            .collect();
        assert_eq!(
            forest["partial"]["unlisted"],
            Value::Array(failing),
            "{name}"
        );
        let s = ownerscope(&["simulate", name]);
        assert!(s.status.success(), "simulate {name}: {}", stderr(&s));
        assert!(stdout(&s).contains("final state at"));
        let sj = ownerscope(&["simulate", name, "-o", "json"]);
        assert!(sj.status.success());
        let lines: Vec<Value> = stdout(&sj)
            .lines()
            .map(|l| serde_json::from_str(l).expect("json line"))
            .collect();
        let (last, rest) = lines.split_last().expect("lines");
        assert!(
            last["final"].is_array(),
            "{name}: last line holds the final state"
        );
        for l in rest {
            assert!(
                l["t"].is_number() && l["type"].is_string() && l["object"]["kind"].is_string(),
                "{l}"
            );
            match l["type"].as_str() {
                Some("response") => assert!(
                    l["code"].is_number() && l["message"].is_string() && l["warnings"].is_array()
                ),
                Some("event") => assert!(l["reason"].is_string() && l["message"].is_string()),
                Some("created" | "updated" | "deleted") => {}
                other => panic!("unexpected type {other:?}"),
            }
        }
    }
}

#[test]
fn simulate_json_shows_the_foreground_cascade_in_order() {
    let o = ownerscope(&[
        "simulate",
        "deployment",
        "--delete",
        "deployment/web",
        "--policy",
        "foreground",
        "-o",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(lines[0]["type"], "response");
    assert_eq!(lines[0]["code"], 200);
    let deleted: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "deleted")
        .map(|l| l["object"]["kind"].as_str().expect("kind"))
        .collect();
    assert_eq!(
        deleted,
        vec!["Pod", "Pod", "Pod", "ReplicaSet", "Deployment"],
        "bottom-up"
    );
    assert_eq!(lines.last().expect("final")["final"], Value::Array(vec![]));
}

#[test]
fn simulate_delete_without_policy_uses_the_type_default() {
    let o = ownerscope(&[
        "simulate",
        "job-orphan-default",
        "--delete",
        "job/nightly-report",
        "-n",
        "reports",
    ]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(text.contains("DELETE -> 200 OK"), "{text}");
    assert!(
        text.contains("child pods are preserved by default when jobs are deleted"),
        "{text}"
    );
    assert!(text.contains("+finalizer orphan"), "{text}");
}

#[test]
fn malformed_files_fail_naming_file_line_and_field() {
    let dir = std::env::temp_dir().join(format!("ownerscope-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let cases = [
        ("syntax.yaml", "name: x\nobjects: [\n  {a: 1\n", ":4: "),
        (
            "typo.yaml",
            "name: x\nobjects: []\nsteps:\n  - at: 1s\n    delete: {kind: Pod, name: p, polcy: Orphan}\n",
            ":5: steps[0].delete",
        ),
        (
            "owner.yaml",
            "name: x\nobjects:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: c\n      ownerReferences:\n        - {apiVersion: v1, kind: Secret, name: missing}\n",
            ":8: objects[0].metadata.ownerReferences[0]",
        ),
        (
            "invalid.yaml",
            "name: x\nobjects:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: c\n      finalizers: [orphan, foregroundDeletion]\n",
            ":3: objects[0]",
        ),
        (
            "manifest.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: x\n",
            ":9: metadata.labels",
        ),
    ];
    for (file, text, expect) in cases {
        let path = dir.join(file);
        std::fs::write(&path, text).expect("write");
        let p = path.to_string_lossy().to_string();
        for cmd in ["tree", "simulate"] {
            let o = ownerscope(&[cmd, &p]);
            assert!(!o.status.success(), "{cmd} {file} must fail");
            let err = stderr(&o);
            assert!(err.contains(&format!("{p}{expect}")), "{cmd} {file}: {err}");
            assert!(!err.contains("panicked"), "{err}");
        }
    }
    let o = ownerscope(&["tree", "no-such-scenario"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("no bundled scenario of that name"));
}

#[test]
fn why_names_blocking_dependent_finalizer_and_offline_controller() {
    let o = ownerscope(&[
        "why",
        "foreground-blocked",
        "deployment/api",
        "-n",
        "shop",
        "--at",
        "10",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("ConfigMap/api-cache"), "{text}");
    assert!(text.contains("example.com/cache-flush"), "{text}");
    assert!(text.contains("OFFLINE"), "{text}");
    let j = ownerscope(&[
        "why",
        "foreground-blocked",
        "deployment/api",
        "--at",
        "10",
        "-o",
        "json",
    ]);
    let v: Value = serde_json::from_str(&stdout(&j)).expect("json");
    assert_eq!(v["blockers"][0]["object"]["name"], "api-cache");
    assert_eq!(v["blockers"][0]["finalizers"][0]["controllerOnline"], false);
}

#[test]
fn plan_prints_each_affected_object() {
    let o = ownerscope(&[
        "plan",
        "deployment",
        "--delete",
        "deploy/web",
        "--policy",
        "orphan",
        "-o",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(v["policy"], "Orphan");
    let entries = v["entries"].as_array().expect("entries");
    assert_eq!(entries[0]["object"]["kind"], "Deployment");
    assert_eq!(entries[0]["outcome"]["outcome"], "deleted");
    assert_eq!(entries[1]["object"]["kind"], "ReplicaSet");
    assert_eq!(entries[1]["outcome"]["outcome"], "orphaned");
    assert_eq!(entries.len(), 2, "pods are untouched: {entries:?}");
}

/// What a kubectl user types: `TYPE NAME` with a space,
/// `resource.version.group`, `--cascade=foreground`, policies in any case;
/// a cluster-scoped object is found whatever `-n` says.
#[test]
fn kubectl_spellings_are_understood() {
    for args in [
        vec!["why", "shop-demo", "deployment", "web", "-n", "shop"],
        vec!["why", "shop-demo", "deployment.v1.apps/web", "-n", "shop"],
        vec!["why", "shop-demo", "deployments.v1.apps/web"],
        vec!["why", "shop-demo", "deploy/web"],
    ] {
        let o = ownerscope(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(
            stdout(&o).starts_with("Deployment/web -n shop"),
            "{args:?}: {}",
            stdout(&o)
        );
    }
    let o = ownerscope(&["why", "shop-demo", "namespace/shop", "-n", "elsewhere"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("Namespace/shop"), "{}", stdout(&o));
    for policy in [
        "--cascade=foreground",
        "--policy=Foreground",
        "--cascade=FOREGROUND",
    ] {
        let o = ownerscope(&["plan", "shop-demo", "--delete", "deploy/web", policy]);
        assert!(o.status.success(), "{policy}: {}", stderr(&o));
        assert!(
            stdout(&o).contains("propagationPolicy=Foreground"),
            "{policy}: {}",
            stdout(&o)
        );
    }
}

/// A kubeconfig's exec credential plugin that hangs ends at
/// `--request-timeout` (kube runs the plugin synchronously as the client
/// is built: it ran on the runtime's only thread and stopped its clock).
#[test]
fn a_hanging_credential_plugin_ends_at_the_request_timeout() {
    let dir = std::env::temp_dir().join(format!("ownerscope-hang-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let kubeconfig = dir.join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \"https://127.0.0.1:1\", insecure-skip-tls-verify: true}}]\nusers: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: sleep, args: [\"60\"], interactiveMode: Never}}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n",
    )
    .expect("write");
    let start = std::time::Instant::now();
    let o = ownerscope(&[
        "tree",
        "--live",
        "-A",
        "--kubeconfig",
        kubeconfig.to_str().expect("path"),
        "--request-timeout",
        "2s",
    ]);
    let took = start.elapsed();
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("no answer from the cluster within 2s (--request-timeout)"),
        "{}",
        stderr(&o)
    );
    assert!(took < std::time::Duration::from_secs(20), "took {took:?}");
    std::fs::remove_dir_all(&dir).ok();
}

// ---- The README and docs/: what they claim is what the program does ----

fn readme() -> &'static str {
    include_str!("../README.md")
}

/// The `sh` code blocks of one `## ` section of the README.
fn readme_commands(section: &str) -> Vec<String> {
    let text = readme()
        .split(&format!("\n## {section}\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("README has a section {section}"));
    let text = text.split("\n## ").next().expect("section text");
    let mut out = Vec::new();
    let mut in_sh = false;
    for line in text.lines() {
        if line.starts_with("```sh") {
            in_sh = true;
        } else if line.starts_with("```") {
            in_sh = false;
        } else if in_sh {
            let cmd = line.split('#').next().expect("line").trim();
            if !cmd.is_empty() {
                out.push(cmd.to_string());
            }
        }
    }
    out
}

#[test]
fn readme_opens_with_the_two_commands_ci_runs() {
    let first_block = readme()
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a first sh block");
    let cmds: Vec<&str> = first_block
        .lines()
        .map(|l| l.split('#').next().expect("line").trim())
        .collect();
    assert_eq!(cmds, ["cargo run --release", "cargo test"], "{first_block}");
    let ci =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/run")).expect(".ci/run");
    let last = ci
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .expect("a last line");
    assert_eq!(
        last.trim(),
        "cargo test",
        ".ci/run runs the README's test command"
    );
}

#[test]
fn readme_headless_commands_run_as_shown() {
    let cmds = readme_commands("Headless commands");
    assert!(cmds.len() >= 8, "{cmds:?}");
    for cmd in cmds {
        let args: Vec<&str> = cmd.split_whitespace().collect();
        assert_eq!(args[0], "ownerscope", "{cmd}");
        let o = ownerscope(&args[1..]);
        assert!(o.status.success(), "{cmd}: {}", stderr(&o));
        assert!(!stdout(&o).trim().is_empty(), "{cmd} printed nothing");
    }
}

#[test]
fn readme_stuck_example_says_what_the_demo_step_says() {
    for cmd in readme_commands("When a deletion is stuck") {
        let args: Vec<&str> = cmd.split_whitespace().collect();
        let o = ownerscope(&args[1..]);
        assert!(o.status.success(), "{cmd}: {}", stderr(&o));
        assert!(stdout(&o).contains("node-1"), "{cmd}: {}", stdout(&o));
    }
    // The demo's step 2: the foreground preview says web waits on the cache.
    let o = ownerscope(&[
        "plan",
        "shop-demo",
        "--delete",
        "deploy/web",
        "--policy",
        "foreground",
    ]);
    let text = stdout(&o);
    assert!(
        text.contains("Deployment/web: waits on blocking dependents ConfigMap/web-cache"),
        "{text}"
    );
    assert!(
        text.contains("example.com/cache-flush (controller offline)"),
        "{text}"
    );
}

#[test]
fn readme_is_short_and_its_contents_and_links_resolve() {
    let text = readme();
    assert!(text.len() < 30_000, "README is {} bytes", text.len());
    let root = env!("CARGO_MANIFEST_DIR");
    // Every table-of-contents entry names a heading of the README.
    let contents = text
        .split("## Contents\n")
        .nth(1)
        .and_then(|t| t.split("\n## ").next())
        .expect("a Contents section");
    let anchors: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .map(|h| {
            h.to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
                .map(|c| if c == ' ' { '-' } else { c })
                .collect()
        })
        .collect();
    let mut entries = 0;
    for line in contents.lines().filter(|l| l.starts_with("- [")) {
        let anchor = line
            .split("](#")
            .nth(1)
            .and_then(|a| a.strip_suffix(')'))
            .expect("an anchor");
        assert!(
            anchors.iter().any(|a| a == anchor),
            "no heading for #{anchor}"
        );
        entries += 1;
    }
    assert!(entries >= 8, "{contents}");
    // Every relative link of the README and of docs/ names a file that exists.
    let mut files = vec![("README.md".to_string(), text.to_string())];
    for e in std::fs::read_dir(format!("{root}/docs")).expect("docs/") {
        let p = e.expect("entry").path();
        if p.extension().is_some_and(|x| x == "md") {
            let name = format!("docs/{}", p.file_name().expect("name").to_string_lossy());
            files.push((name, std::fs::read_to_string(&p).expect("read")));
        }
    }
    for (name, body) in &files {
        let dir = std::path::Path::new(root)
            .join(name)
            .parent()
            .expect("dir")
            .to_path_buf();
        for link in body.split("](").skip(1) {
            let target = link.split(')').next().expect("link");
            let path = target.split('#').next().expect("path");
            if path.is_empty() || path.contains("://") || path.contains(' ') {
                continue;
            }
            assert!(
                dir.join(path).exists(),
                "{name}: link to {target} is broken"
            );
        }
    }
}
