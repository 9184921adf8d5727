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
fn simulate_for_runs_as_long_as_asked_and_a_cronjob_keeps_its_schedule() {
    let file =
        std::env::temp_dir().join(format!("ownerscope-cli-cron-{}.yaml", std::process::id()));
    std::fs::write(
        &file,
        "name: cron\nobjects:\n- apiVersion: batch/v1\n  kind: CronJob\n  metadata: {name: report, namespace: ns}\n  spec: {schedule: '* * * * *', jobTemplate: {spec: {template: {spec: {restartPolicy: Never}}}}}\n",
    )
    .expect("file");
    let path = file.to_str().expect("path");
    let created = |args: &[&str]| -> usize {
        let o = ownerscope(args);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
            .lines()
            .filter(|l| l.contains("created   Job/report-"))
            .count()
    };
    // Settling stops once only the next schedule is left; `--for` runs
    // through two of them.
    assert_eq!(created(&["simulate", path]), 0);
    assert_eq!(created(&["simulate", path, "--for", "130"]), 2);
    let both = ownerscope(&["simulate", path, "--for", "1", "--until", "2"]);
    assert!(!both.status.success());
    assert!(
        stderr(&both).contains("cannot be used with"),
        "{}",
        stderr(&both)
    );
    let _ = std::fs::remove_file(&file);
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

/// `why` quotes the Warning Events about what it explains: read from a
/// file, their index built with the load's others.
#[test]
fn why_quotes_the_warning_events_about_the_object() {
    let path =
        std::env::temp_dir().join(format!("ownerscope-why-events-{}.yaml", std::process::id()));
    std::fs::write(
        &path,
        r#"name: warned
description: a Terminating pod its kubelet failed to stop
objects:
  - apiVersion: v1
    kind: Pod
    metadata:
      name: p
      namespace: default
      uid: p-1
      finalizers: [example.com/hold]
      deletionTimestamp: "2026-01-01T00:00:00Z"
  - apiVersion: v1
    kind: Event
    metadata: {name: p.1, namespace: default, uid: e-1}
    involvedObject: {kind: Pod, name: p, namespace: default, uid: p-1}
    type: Warning
    reason: FailedKill
    message: could not stop it
    count: 3
    lastTimestamp: "2026-01-01T00:00:05Z"
"#,
    )
    .expect("a scenario written");
    let o = ownerscope(&["why", &path.to_string_lossy(), "pod/p", "-n", "default"]);
    let _ = std::fs::remove_file(&path);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("FailedKill, 3 times") && text.contains("could not stop it"),
        "{text}"
    );
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

/// `plan -o markdown`: a change ticket's answer, each object's fate and
/// the exact command, with the policy spelled as kubectl takes it.
#[test]
fn plan_writes_a_markdown_report_with_the_command() {
    let o = ownerscope(&[
        "plan",
        "shop-demo",
        "--delete",
        "deployment/web",
        "-n",
        "shop",
        "-o",
        "markdown",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let md = stdout(&o);
    assert!(
        md.starts_with(
            "# What `DELETE Deployment/web` would do\n\n**Answer:** 4 deleted, 1 left waiting"
        ),
        "{md}"
    );
    assert!(
        md.contains("| `ReplicaSet/web-7d9f8c6b5` | deleted |"),
        "{md}"
    );
    assert!(
        md.contains("| `ConfigMap/web-cache` | left Terminating on finalizer example.com/cache-flush (controller offline) |"),
        "{md}"
    );
    assert!(
        md.contains("```sh\nkubectl delete deployment.apps web -n shop --cascade=background\n```"),
        "{md}"
    );
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

/// "tree, why, plan and stuck take --live; simulate runs only the
/// simulator"; "ownerscope help <command> gives every flag".
#[test]
fn readme_says_which_commands_read_a_cluster() {
    let text = readme();
    assert!(
        text.contains("`tree`, `why`, `plan` and\n`stuck` take `--live`"),
        "the claim checked here is still the README's"
    );
    for (command, object) in [
        ("tree", &[][..]),
        ("why", &["deploy/web"][..]),
        ("plan", &["--delete", "deploy/web"][..]),
        ("stuck", &[][..]),
    ] {
        let mut args = vec![command, "--live", "--kubeconfig", "/nonexistent/kubeconfig"];
        args.extend(object);
        let o = ownerscope(&args);
        assert!(!o.status.success());
        assert!(
            stderr(&o).contains("kubeconfig /nonexistent/kubeconfig"),
            "{command} --live reads the kubeconfig: {}",
            stderr(&o)
        );
        let help = ownerscope(&["help", command]);
        assert!(help.status.success(), "{}", stderr(&help));
        for flag in ["--live", "--context", "--namespace"] {
            assert!(stdout(&help).contains(flag), "help {command}: {flag}");
        }
    }
    let o = ownerscope(&["simulate", "shop-demo", "--live"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("unexpected argument '--live'"),
        "{}",
        stderr(&o)
    );
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

// ---- Completions and the man page ----

/// Runs `shell -c script` with the binary's directory first on PATH; the
/// shell must be installed (`.ci/run` installs bash, zsh and fish).
fn shell(shell: &str, script: &str) -> String {
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_ownerscope"));
    let path = format!(
        "{}:{}",
        bin.parent().expect("dir").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = Command::new(shell)
        .env("PATH", path)
        .args(["-c", script])
        .output()
        .unwrap_or_else(|e| panic!("{shell} is needed for this test (.ci/run installs it): {e}"));
    assert!(o.status.success(), "{shell}: {}", stderr(&o));
    stdout(&o)
}

#[test]
fn bash_completes_commands_scenarios_and_the_scenarios_objects() {
    let script = r#"
source <(ownerscope completions bash)
comp() {
  COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
  COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMP_TYPE=9
  _clap_complete_ownerscope ownerscope "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"
  echo "[$*] ${COMPREPLY[*]}"
}
comp ownerscope st
comp ownerscope why shop-
comp ownerscope why shop-demo configmap/
comp ownerscope plan shop-demo --delete deploy
comp ownerscope why --live statef
comp ownerscope completions z
"#;
    let out = shell("bash", script);
    let want = [
        "[ownerscope st] stuck stuck-owner",
        "[ownerscope why shop-] shop-demo",
        "[ownerscope why shop-demo configmap/] configmap/web-cache",
        "[ownerscope plan shop-demo --delete deploy] deployment/web",
        "[ownerscope why --live statef] statefulset/",
        "[ownerscope completions z] zsh",
    ];
    for w in want {
        assert!(out.lines().any(|l| l == w), "{w:?} not in:\n{out}");
    }
}

#[test]
fn zsh_and_fish_complete_the_same() {
    // zsh: the registered function, with compsys's _describe standing in.
    let zsh = shell(
        "zsh",
        r#"
compdef() { :; }
_describe() { print -l -- "${(@P)3}"; }
source <(ownerscope completions zsh)
words=(ownerscope why shop-demo configmap/); CURRENT=4; _clap_dynamic_completer_ownerscope
words=(ownerscope why shop-); CURRENT=3; _clap_dynamic_completer_ownerscope
"#,
    );
    assert!(zsh.lines().any(|l| l == "configmap/web-cache"), "{zsh}");
    assert!(
        zsh.lines().any(|l| l.starts_with("shop-demo:A small shop")),
        "the scenario's description beside it: {zsh}"
    );
    let fish = shell(
        "fish",
        r#"ownerscope completions fish | source
complete -C "ownerscope why shop-demo deployment/"
complete -C "ownerscope tree dead-"
"#,
    );
    assert!(fish.lines().any(|l| l == "deployment/web"), "{fish}");
    assert!(fish.lines().any(|l| l.starts_with("dead-node\t")), "{fish}");
}

#[test]
fn the_man_page_documents_every_command_and_renders() {
    let o = ownerscope(&["man"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let roff = stdout(&o);
    assert!(roff.contains(".TH ownerscope 1"), "{roff}");
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS", ".SH SUBCOMMANDS"] {
        assert!(roff.contains(section), "{section}");
    }
    for command in [
        "tree",
        "why",
        "plan",
        "stuck",
        "snapshot",
        "serve",
        "completions",
    ] {
        assert!(
            roff.contains(&format!("ownerscope\\-{command}(1)")),
            "{command}"
        );
    }
    assert!(!roff.contains("screenshots"), "hidden commands stay hidden");
    // One page per command, each rendered by man(1) without complaint.
    let dir = std::env::temp_dir().join(format!("ownerscope-man-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let o = ownerscope(&["man", "--dir", dir.to_str().expect("path")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let tree = dir.join("ownerscope-tree.1");
    let o = Command::new("man")
        .env("MANWIDTH", "100")
        .args(["--warnings", "-l"])
        .arg(&tree)
        .output()
        .expect("man(1) is needed for this test (.ci/run installs man-db)");
    let page = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).trim().is_empty(),
        "roff warnings: {}",
        stderr(&o)
    );
    assert!(page.contains("ownerscope-tree"), "{page}");
    assert!(page.contains("--all-namespaces"), "{page}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn version_names_the_commit_and_the_kubernetes_api() {
    let o = ownerscope(&["--version"]);
    let v = stdout(&o);
    assert!(
        v.starts_with(&format!(
            "ownerscope {} (commit ",
            env!("CARGO_PKG_VERSION")
        )),
        "{v}"
    );
    let commit = v
        .split("(commit ")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .expect("commit");
    // The commit of the checkout it was built from, when git is there.
    if let Ok(g) = Command::new("git")
        .args(["-C", env!("CARGO_MANIFEST_DIR"), "rev-parse", "HEAD"])
        .output()
        && g.status.success()
    {
        let head = String::from_utf8_lossy(&g.stdout);
        // The binary was built at some commit of this branch: its hash is
        // one git knows (HEAD may have moved since the build).
        let known = Command::new("git")
            .args(["-C", env!("CARGO_MANIFEST_DIR"), "cat-file", "-t", commit])
            .output()
            .expect("git");
        assert!(
            known.status.success() && String::from_utf8_lossy(&known.stdout).trim() == "commit",
            "{commit} is not a commit of this repository (HEAD {head})"
        );
    } else {
        assert_eq!(commit, "unknown");
    }
    // The API version of the k8s-openapi feature Cargo.toml chooses (v1_MM).
    let manifest = include_str!("../Cargo.toml");
    let feature = manifest
        .lines()
        .find(|l| l.starts_with("k8s-openapi"))
        .and_then(|l| l.split("\"v1_").nth(1))
        .and_then(|r| r.split('"').next())
        .expect("k8s-openapi's v1_MM feature");
    assert!(
        v.trim_end()
            .ends_with(&format!("Kubernetes API 1.{feature})")),
        "{v}"
    );
}

// ---- Pictures: tree -o dot, tree -o mermaid ----

/// Every `Kind/name` of a `tree -o json` forest.
fn forest_names(v: &Value) -> std::collections::BTreeSet<String> {
    fn walk(n: &Value, out: &mut std::collections::BTreeSet<String>) {
        out.insert(format!(
            "{}/{}",
            n["object"]["kind"].as_str().expect("kind"),
            n["object"]["name"].as_str().expect("name")
        ));
        for c in n["children"].as_array().expect("children") {
            walk(c, out);
        }
    }
    let mut out = std::collections::BTreeSet::new();
    for g in v["groups"].as_array().expect("groups") {
        for r in g["roots"].as_array().expect("roots") {
            walk(r, &mut out);
        }
    }
    out
}

/// A DOT document's nodes (id -> label) and edges (from, to, attributes),
/// checked as it is read: braces balanced, quotes closed on every line,
/// every edge between declared nodes.
type DotEdge = (String, String, String);
fn read_dot(dot: &str) -> (std::collections::BTreeMap<String, String>, Vec<DotEdge>) {
    assert!(
        dot.starts_with("digraph ownership {") || dot.starts_with("digraph why {"),
        "{dot}"
    );
    let mut depth = 0i32;
    let mut nodes = std::collections::BTreeMap::new();
    let mut edges = Vec::new();
    for line in dot.lines() {
        // Quotes: outside escapes, an even number on every line.
        let unescaped = line.replace("\\\\", "").replace("\\\"", "");
        assert_eq!(unescaped.matches('"').count() % 2, 0, "open quote: {line}");
        let outside: String = unescaped.split('"').step_by(2).collect();
        depth += i32::try_from(outside.matches('{').count()).expect("count");
        depth -= i32::try_from(outside.matches('}').count()).expect("count");
        assert!(depth >= 0, "unbalanced: {line}");
        let t = line.trim();
        if let Some((id, rest)) = t.split_once(" [label=\"")
            && !id.contains(' ')
        {
            let label = rest.split("\"").next().expect("label").replace("\\n", "\n");
            nodes.insert(id.to_string(), label);
        } else if let Some((from, rest)) = t.split_once(" -> ") {
            let (to, attrs) = rest.split_once(" [").expect("edge attributes");
            edges.push((from.to_string(), to.to_string(), attrs.to_string()));
        }
    }
    assert_eq!(depth, 0, "braces balanced");
    for (from, to, _) in &edges {
        assert!(
            nodes.contains_key(from) && nodes.contains_key(to),
            "edge {from} -> {to} between declared nodes"
        );
    }
    (nodes, edges)
}

#[test]
fn tree_dot_draws_every_object_once_and_graphviz_renders_it() {
    let mut checked = 0;
    for name in bundled() {
        let json: Value = serde_json::from_str(&stdout(&ownerscope(&[
            "tree", &name, "--at", "10", "-o", "json",
        ])))
        .expect("json");
        let o = ownerscope(&["tree", &name, "--at", "10", "-o", "dot"]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let dot = stdout(&o);
        let (nodes, _) = read_dot(&dot);
        let drawn: std::collections::BTreeSet<String> = nodes
            .values()
            .filter(|l| !l.contains("\n("))
            .map(|l| l.lines().next().expect("first line").to_string())
            .collect();
        assert_eq!(drawn, forest_names(&json), "{name}: one node per object");
        // Graphviz reads it and draws each node.
        let mut child = Command::new("dot")
            .arg("-Tsvg")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("Graphviz's dot is needed for this test (.ci/run installs graphviz)");
        {
            use std::io::Write as _;
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(dot.as_bytes())
                .expect("write");
        }
        let svg = child.wait_with_output().expect("dot");
        assert!(
            svg.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&svg.stderr)
        );
        assert!(
            svg.stderr.is_empty(),
            "{name}: {}",
            String::from_utf8_lossy(&svg.stderr)
        );
        let svg = String::from_utf8_lossy(&svg.stdout);
        assert_eq!(
            svg.matches("class=\"node\"").count(),
            nodes.len(),
            "{name}: Graphviz drew every node"
        );
        checked += 1;
    }
    assert!(checked >= 8);
}

#[test]
fn tree_dot_marks_flags_terminating_finalizers_bad_references_and_selectors() {
    // A foreground deletion held by a ConfigMap's finalizer, 10 s in.
    let (nodes, edges) = read_dot(&stdout(&ownerscope(&[
        "tree",
        "foreground-blocked",
        "--at",
        "10",
        "-o",
        "dot",
    ])));
    let id = |label: &str| {
        nodes
            .iter()
            .find(|(_, l)| l.lines().next() == Some(label))
            .map(|(id, l)| (id.clone(), l.clone()))
            .unwrap_or_else(|| panic!("{label} in {nodes:?}"))
    };
    let (api, api_label) = id("Deployment/api");
    assert!(
        api_label.contains("Terminating") && api_label.contains("finalizer foregroundDeletion"),
        "{api_label}"
    );
    let (cache, cache_label) = id("ConfigMap/api-cache");
    assert!(
        cache_label.contains("Terminating")
            && cache_label.contains("finalizer example.com/cache-flush"),
        "{cache_label}"
    );
    let edge = edges
        .iter()
        .find(|(f, t, _)| *f == api && *t == cache)
        .expect("owner -> dependent");
    assert!(edge.2.contains("label=\"blockOwnerDeletion\""), "{edge:?}");
    // References that do not resolve: a dashed red edge from a node named
    // after what they point at, saying why.
    let dot = stdout(&ownerscope(&["tree", "invalid-references", "-o", "dot"]));
    let (nodes, edges) = read_dot(&dot);
    for why in ["unknown-kind", "cross-namespace", "unresolvable"] {
        let (from, _, attrs) = edges
            .iter()
            .find(|(_, _, a)| a.contains(&format!("label=\"{why}\"")))
            .unwrap_or_else(|| panic!("{why}: {dot}"));
        assert!(
            attrs.contains("style=dashed") && attrs.contains("color=red"),
            "{attrs}"
        );
        assert!(nodes[from].contains(&format!("({why})")), "{}", nodes[from]);
    }
    // Selector relations: dotted, labelled, never as ownership.
    let (nodes, edges) = read_dot(&stdout(&ownerscope(&["tree", "shop-demo", "-o", "dot"])));
    let selects: Vec<_> = edges
        .iter()
        .filter(|(_, _, a)| a.contains("label=\"selects\""))
        .collect();
    assert!(!selects.is_empty());
    for (from, to, attrs) in selects {
        assert!(attrs.contains("style=dotted"), "{attrs}");
        assert!(nodes[to].starts_with("Pod/"), "{}", nodes[to]);
        assert!(!nodes[from].starts_with("Pod/"));
    }
}

#[test]
fn tree_mermaid_declares_what_it_links() {
    let o = ownerscope(&["tree", "invalid-references", "-o", "mermaid"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m = stdout(&o);
    assert!(m.starts_with("flowchart LR\n"), "{m}");
    assert_eq!(
        m.matches("  subgraph ").count(),
        m.matches("\n  end\n").count(),
        "{m}"
    );
    let declared: std::collections::BTreeSet<&str> = m
        .lines()
        .filter_map(|l| l.trim().split_once("[\"").map(|(id, _)| id))
        .filter(|id| id.starts_with('n'))
        .collect();
    let mut links = 0;
    for l in m.lines().map(str::trim) {
        let parts: Vec<&str> = l.split_whitespace().collect();
        if parts.len() >= 3
            && (parts[1].contains("->") || parts[1].starts_with("-.") || parts[1].starts_with("=="))
        {
            let (from, to) = (parts[0], *parts.last().expect("to"));
            assert!(declared.contains(from) && declared.contains(to), "{l}");
            links += 1;
        }
    }
    assert!(links >= 3, "{m}");
    assert!(m.contains("-.->|unknown-kind|"), "{m}");
    assert!(m.contains("Widget/blue<br/>(unknown-kind)"), "{m}");
    assert!(m.contains("class ") && m.contains(" missing"), "{m}");
}

// ---- why -o markdown: the report to paste ----

#[test]
fn why_markdown_is_the_incident_report() {
    let args = ["why", "foreground-blocked", "deployment/api", "--at", "10"];
    let text = stdout(&ownerscope(&args));
    let o = ownerscope(&[&args[..], &["-o", "markdown"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let md = stdout(&o);
    let headline = text.lines().nth(1).expect("the answer");
    assert!(
        md.starts_with("# Why is `Deployment/api` still here?\n"),
        "{md}"
    );
    assert!(md.contains(&format!("**Answer:** {headline}\n")), "{md}");
    assert!(
        md.contains("| deletionTimestamp | 2026-01-01T00:00:01Z |"),
        "{md}"
    );
    // The chain, down to what holds it, with who removes the finalizer.
    let chain = md
        .split("## Blocker chain\n")
        .nth(1)
        .and_then(|c| c.split("\n## ").next())
        .expect("a blocker chain");
    assert!(
        chain.contains("  - `ConfigMap/api-cache`: Terminating"),
        "{chain}"
    );
    assert!(
        chain.contains("    - finalizer `example.com/cache-flush`: its controller is OFFLINE"),
        "{chain}"
    );
    // The commands: look first, the removal by hand last, a JSON patch
    // that tests the finalizer it removes (at its place in the list).
    let commands = md
        .split("## Commands\n\n```sh\n")
        .nth(1)
        .and_then(|c| c.split("```").next())
        .expect("commands");
    let lines: Vec<&str> = commands
        .lines()
        .filter(|l| l.starts_with("kubectl "))
        .collect();
    assert_eq!(lines[0], "kubectl get deployment.apps api -n shop -o yaml");
    let patch = lines.last().expect("a patch");
    assert!(
        patch.starts_with("kubectl patch configmap api-cache -n shop --type json -p '"),
        "{patch}"
    );
    let json: Value = serde_json::from_str(
        patch
            .split(" -p '")
            .nth(1)
            .and_then(|p| p.strip_suffix('\''))
            .expect("quoted JSON"),
    )
    .expect("the patch is JSON");
    let tree: Value = serde_json::from_str(&stdout(&ownerscope(&[
        "tree",
        "foreground-blocked",
        "--at",
        "10",
        "-o",
        "json",
    ])))
    .expect("json");
    let cache = &tree["groups"][0]["roots"][0]["children"][0];
    assert_eq!(cache["object"]["name"], "api-cache");
    let finalizers = cache["badges"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b["badge"] == "finalizers"))
        .expect("finalizers")["names"]
        .clone();
    let at = finalizers
        .as_array()
        .and_then(|f| f.iter().position(|f| f == "example.com/cache-flush"))
        .expect("held");
    assert_eq!(json[0]["op"], "test");
    assert_eq!(json[0]["path"], format!("/metadata/finalizers/{at}"));
    assert_eq!(json[0]["value"], "example.com/cache-flush");
    assert_eq!(
        json[1],
        serde_json::json!({"op": "remove", "path": format!("/metadata/finalizers/{at}")})
    );
    // Never the garbage collector's own finalizer.
    assert!(!commands.contains("\"foregroundDeletion\""), "{commands}");
    // The evidence: the whole text answer.
    assert!(md.contains(&format!("```text\n{text}```\n")), "{md}");
    assert_eq!(md.matches("```").count() % 2, 0, "code fences closed");
}

#[test]
fn why_markdown_on_a_stranded_pod_gives_the_node_commands() {
    let o = ownerscope(&[
        "why",
        "dead-node",
        "pod/db-0",
        "--at",
        "60",
        "-o",
        "markdown",
    ]);
    let md = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(md.contains("kubectl get node node-1 -o wide"), "{md}");
    assert!(md.contains("kubectl delete node node-1"), "{md}");
    let causes = md
        .split("## Causes and fixes, in order\n\n")
        .nth(1)
        .expect("causes");
    assert!(
        causes.starts_with("1. Pod/db-0 waits for the kubelet of Node/node-1"),
        "{causes}"
    );
    assert!(
        causes.contains("\n2. fix, safest first: bring Node/node-1 back"),
        "{causes}"
    );
}

/// The picture the README shows is what `tree -o dot` draws today: every
/// line of every node's label is a text of the committed SVG.
#[test]
fn the_readmes_graph_picture_is_current() {
    // Graphviz writes `-` as an entity.
    let svg = include_str!("../screenshots/graph-shop-demo.svg").replace("&#45;", "-");
    assert!(readme().contains("](screenshots/graph-shop-demo.svg)"));
    let (nodes, edges) = read_dot(&stdout(&ownerscope(&["tree", "shop-demo", "-o", "dot"])));
    for label in nodes.values() {
        for line in label.lines() {
            assert!(
                svg.contains(&format!(">{line}</text>")),
                "{line:?} is not in screenshots/graph-shop-demo.svg: regenerate it with\n  ownerscope tree shop-demo -o dot | dot -Tsvg > screenshots/graph-shop-demo.svg"
            );
        }
    }
    assert_eq!(svg.matches("class=\"edge\"").count(), edges.len());
}

#[test]
fn readme_picture_and_report_commands_run_as_shown() {
    let cmds = readme_commands("Pictures and reports for a ticket");
    assert_eq!(cmds.len(), 5, "{cmds:?}");
    let dir = std::env::temp_dir().join(format!("ownerscope-readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    for cmd in &cmds {
        let out = shell(
            "bash",
            &format!("set -o pipefail; cd '{}' && {cmd}", dir.display()),
        );
        if let Some(file) = cmd.split("> ").nth(1) {
            let svg = std::fs::read_to_string(dir.join(file)).expect(file);
            assert!(svg.contains("<svg") && svg.contains("Deployment/"), "{cmd}");
        } else {
            assert!(!out.trim().is_empty(), "{cmd} printed nothing");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Graphviz renders `dot`; the SVG it draws.
fn graphviz(dot: &str) -> String {
    use std::io::Write as _;
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("Graphviz's dot is needed for this test (.ci/run installs graphviz)");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(dot.as_bytes())
        .expect("write");
    let o = child.wait_with_output().expect("dot");
    assert!(
        o.status.success() && o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).to_string()
}

#[test]
fn why_dot_draws_the_blocker_chain() {
    let dot = stdout(&ownerscope(&[
        "why",
        "foreground-blocked",
        "deployment/api",
        "--at",
        "10",
        "-o",
        "dot",
    ]));
    let (nodes, edges) = read_dot(&dot);
    let find = |first: &str| {
        nodes
            .iter()
            .find(|(_, l)| l.lines().next() == Some(first))
            .map(|(id, _)| id.clone())
            .unwrap_or_else(|| panic!("{first}: {dot}"))
    };
    let (api, cache) = (find("Deployment/api"), find("ConfigMap/api-cache"));
    assert!(
        edges
            .iter()
            .any(|(f, t, a)| *f == api && *t == cache && a.contains("waits on")),
        "{dot}"
    );
    assert!(nodes[&cache].contains("finalizer example.com/cache-flush (controller OFFLINE)"));
    let stuck_line = dot
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{cache} [")))
        .expect("node");
    assert!(
        stuck_line.contains("penwidth=2"),
        "what nothing moves is marked: {stuck_line}"
    );
    let svg = graphviz(&dot);
    assert_eq!(svg.matches("class=\"node\"").count(), nodes.len());
    // A stranded pod: the node it waits for.
    let dot = stdout(&ownerscope(&[
        "why",
        "dead-node",
        "namespace/data",
        "--at",
        "60",
        "-o",
        "dot",
    ]));
    read_dot(&dot);
    graphviz(&dot);
}

/// `bench --commands` on one core: the table of every command against
/// the bare parse, with the floors every command starts from (the file
/// read, and the file loaded), its children kept to a core this process
/// may use, and that core named in the header.
#[test]
fn bench_commands_on_one_core_names_the_core_and_measures_every_command() {
    let dir = std::env::temp_dir().join(format!("ownerscope-one-core-{}", std::process::id()));
    let keep = dir.to_str().expect("utf-8");
    let o = ownerscope(&[
        "bench",
        "--commands",
        "300",
        "--runs",
        "1",
        "--commands-one-core",
        "--commands-keep",
        keep,
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let allowed = rustix::thread::sched_getaffinity(None).expect("affinity");
    let core: usize = out
        .split("every child on core ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no core named: {out}"));
    assert!(allowed.is_set(core), "{core} is not ours: {out}");
    for row in [
        "| bare parse + index |",
        "| file read into objects |",
        "| file read and loaded |",
        "| tree FILE |",
        "| simulate FILE",
    ] {
        assert!(out.contains(row), "{row}: {out}");
    }
    // 300 objects parse within the kernel's 10 ms tick: a ratio to no
    // measured time is printed as none, never as a huge number.
    for cell in out
        .lines()
        .filter(|l| l.starts_with("| "))
        .flat_map(|l| l.split('|'))
    {
        if let Some(ratio) = cell
            .trim()
            .strip_suffix('x')
            .filter(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        {
            let r: f64 = ratio.parse().unwrap_or_else(|_| panic!("{cell}: {out}"));
            assert!(r < 1000.0, "{cell}: {out}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
