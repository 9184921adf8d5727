//! Files someone else sent, and what a cluster lets any user write, must not
//! reach the terminal as control sequences, and a closed pipe is not a crash.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn ownerscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ownerscope"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// Bytes a terminal would act on: ESC (CSI, OSC), BEL, CSI as one C1 byte.
fn has_control_bytes(bytes: &[u8]) -> bool {
    let s = String::from_utf8_lossy(bytes);
    s.chars().any(|c| c.is_control() && c != '\n' && c != '\t')
}

/// A scenario whose free-text fields carry escape sequences: the scenario's
/// name and description, an annotation, an owner reference's name and kind
/// (the API server validates none of these).
fn hostile_scenario(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ownerscope-hostile-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("hostile.yaml");
    let esc = "\\e]0;pwned\\a\\e[2J\\e]52;c;cm0gLXJmIH4=\\a";
    let text = format!(
        r#"name: "hostile{esc}"
description: "retitles the terminal{esc}"
objects:
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: owner
      namespace: demo
      uid: 00000000-0000-4000-8000-000000000001
      finalizers: ["example.com/hold"]
      annotations:
        note: "x{esc}"
  - apiVersion: v1
    kind: Secret
    metadata:
      name: child
      namespace: demo
      ownerReferences:
        - {{apiVersion: v1, kind: ConfigMap, name: "owner", uid: 00000000-0000-4000-8000-000000000001, blockOwnerDeletion: true}}
        - {{apiVersion: v1, kind: "Conf{esc}", name: "gone{esc}", uid: 00000000-0000-4000-8000-000000000009}}
"#
    );
    std::fs::write(&path, text).expect("write scenario");
    path
}

fn assert_clean(what: &str, o: &Output) {
    assert!(
        !has_control_bytes(&o.stdout),
        "{what}: control characters on stdout:\n{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(
        !has_control_bytes(&o.stderr),
        "{what}: control characters on stderr:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn tree_prints_escape_sequences_as_visible_text() {
    let f = hostile_scenario("tree");
    let o = ownerscope(&["tree", f.to_str().expect("utf-8 path")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_clean("tree", &o);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("gone\\u{1b}]0;pwned\\u{7}"), "{out}");
}

#[test]
fn simulate_prints_escape_sequences_as_visible_text() {
    let f = hostile_scenario("simulate");
    let path = f.to_str().expect("utf-8 path");
    let o = ownerscope(&[
        "simulate",
        path,
        "--delete",
        "configmap/owner",
        "-n",
        "demo",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_clean("simulate", &o);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("retitles the terminal\\u{1b}"), "{out}");
}

#[test]
fn why_and_plan_print_escape_sequences_as_visible_text() {
    let f = hostile_scenario("why");
    let path = f.to_str().expect("utf-8 path");
    let w = ownerscope(&["why", path, "secret/child", "-n", "demo"]);
    assert!(w.status.success(), "{}", String::from_utf8_lossy(&w.stderr));
    assert_clean("why", &w);
    let p = ownerscope(&["plan", path, "--delete", "configmap/owner", "-n", "demo"]);
    assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stderr));
    assert_clean("plan", &p);
}

#[test]
fn load_errors_print_escape_sequences_as_visible_text() {
    let dir = std::env::temp_dir().join(format!("ownerscope-hostile-err-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("bad.yaml");
    std::fs::write(
        &path,
        "name: x\nobjects:\n  - apiVersion: v1\n    kind: ConfigMap\n    \"meta\\e]0;pwned\\adata\": {}\n",
    )
    .expect("write");
    let o = ownerscope(&["tree", path.to_str().expect("utf-8 path")]);
    assert!(!o.status.success());
    assert_clean("load error", &o);
    // The error still names the file.
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad.yaml"));
}

#[test]
fn a_closed_pipe_ends_quietly() {
    for args in [
        vec!["simulate", "shop-demo"],
        vec!["tree", "shop-demo"],
        vec!["scenarios"],
        vec!["simulate", "shop-demo", "-o", "json"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ownerscope"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        // Hang up before the first line is written, as `| head -0` does
        // (the command loads and simulates first, so it writes after this).
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("wait");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{args:?}: exit {:?}, stderr: {err}",
            out.status.code()
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ownerscope-hostile-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    p
}

fn fails_with(args: &[&str], needle: &str) {
    let o = ownerscope(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{args:?} succeeded");
    assert_eq!(
        o.status.code(),
        Some(if err.starts_with("error: invalid value") {
            2
        } else {
            1
        }),
        "{args:?}: {err}"
    );
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

/// Grace periods and timestamps the clock cannot add to are refused at
/// load with the field's line (they panicked every command before).
#[test]
fn huge_grace_periods_and_timestamps_are_errors_naming_the_field() {
    let grace = temp_file(
        "grace.yaml",
        b"name: g\nobjects:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: a\n      namespace: x\n      deletionTimestamp: \"2026-01-01T00:00:00Z\"\n      deletionGracePeriodSeconds: 9223372036854775807\n      finalizers: [example.com/x]\n",
    );
    let path = grace.to_str().expect("utf-8");
    for cmd in ["tree", "simulate"] {
        fails_with(
            &[cmd, path],
            "grace.yaml:9: objects[0].metadata.deletionGracePeriodSeconds: 9223372036854775807 is outside",
        );
    }
    let pod = temp_file(
        "pod.json",
        br#"{"apiVersion":"v1","kind":"List","items":[
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"x"},"spec":{"nodeName":"n","terminationGracePeriodSeconds":-9223372036854775808}}]}"#,
    );
    fails_with(
        &["why", pod.to_str().expect("utf-8"), "pod/p", "-n", "x"],
        "pod.json:2: items[0].spec.terminationGracePeriodSeconds",
    );
    let ts = temp_file(
        "ts.yaml",
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  creationTimestamp: \"9999-12-31T23:59:59Z\"\n",
    );
    fails_with(
        &["tree", ts.to_str().expect("utf-8")],
        "metadata.creationTimestamp",
    );
}

/// Only a pod's `terminationGracePeriodSeconds` is seconds the clock adds
/// (R15): a custom resource's field of that name is its own, whatever it
/// holds, and a snapshot with it loads.
#[test]
fn another_kinds_termination_grace_period_is_not_checked_as_a_pods() {
    let cr = temp_file(
        "sandbox.json",
        br#"{"apiVersion":"v1","kind":"List","items":[
{"apiVersion":"example.com/v1","kind":"Sandbox","metadata":{"name":"s","namespace":"x","uid":"u1"},"spec":{"terminationGracePeriodSeconds":"30s"}}]}"#,
    );
    let o = ownerscope(&["tree", cr.to_str().expect("utf-8")]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("Sandbox/s"), "{out}");
}

#[test]
fn at_and_until_reject_what_is_not_a_bounded_time() {
    for (arg, needle) in [
        ("--at=NaN", "not a finite number"),
        ("--at=inf", "not a finite number"),
        ("--at=-5", "cannot be negative"),
        ("--at=3e11", "at most"),
        ("--at=soon", "not a number"),
    ] {
        fails_with(&["tree", "shop-demo", arg], needle);
    }
    fails_with(&["simulate", "shop-demo", "--until=1e12"], "at most");
}

/// What is not a regular file is refused at once (a device was read until
/// memory ran out; a FIFO blocked forever).
#[test]
fn devices_pipes_directories_empty_and_broken_files_are_refused() {
    fails_with(&["tree", "/dev/zero"], "not a regular file");
    let dir = std::env::temp_dir();
    fails_with(
        &["tree", dir.to_str().expect("utf-8")],
        "not a regular file",
    );
    let fifo = dir.join(format!("ownerscope-fifo-{}", std::process::id()));
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    assert!(made, "mkfifo");
    fails_with(
        &["tree", fifo.to_str().expect("utf-8")],
        "not a regular file",
    );
    let _ = std::fs::remove_file(&fifo);
    let empty = temp_file("empty.yaml", b"  \n");
    fails_with(
        &["tree", empty.to_str().expect("utf-8")],
        "empty.yaml: the file is empty",
    );
    let bad = temp_file("bad.yaml", b"name: x\nobjects: []\n\xff\xfe\n");
    fails_with(
        &["tree", bad.to_str().expect("utf-8")],
        "bad.yaml:3: invalid UTF-8",
    );
}

/// A List of ConfigMaps, each owned by the ones `owners(i)` names.
fn list_of(n: usize, owners: impl Fn(usize) -> Vec<usize>) -> String {
    let items: Vec<String> = (0..n)
        .map(|i| {
            let refs: Vec<String> = owners(i)
                .into_iter()
                .map(|j| format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","name":"c{j}","uid":"u{j}","blockOwnerDeletion":true}}"#))
                .collect();
            format!(
                r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"c{i}","namespace":"x","uid":"u{i}","ownerReferences":[{}]}}}}"#,
                refs.join(",")
            )
        })
        .collect();
    format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[{}]}}"#,
        items.join(",")
    )
}

/// Shapes that overflowed the stack (a chain 10,000 deep, a cycle of
/// 10,000) or ran out of memory (a ladder of shared dependents, 2^30 paths)
/// print a bounded tree in which every object appears.
#[test]
fn deep_chains_long_cycles_and_diamond_ladders_print_bounded_trees() {
    let chain = temp_file(
        "chain.json",
        list_of(10_000, |i| if i == 0 { vec![] } else { vec![i - 1] }).as_bytes(),
    );
    let cycle = temp_file(
        "cycle.json",
        list_of(10_000, |i| vec![(i + 9_999) % 10_000]).as_bytes(),
    );
    // Rung r holds c(2r+1) and c(2r+2), each owned by both of rung r-1.
    let ladder = temp_file(
        "ladder.json",
        list_of(61, |i| match i {
            0 => vec![],
            1 | 2 => vec![0],
            _ => {
                let first = (i - 1) / 2 * 2 - 1;
                vec![first, first + 1]
            }
        })
        .as_bytes(),
    );
    // Each says where it stops expanding, and why.
    let deep = "… deeper than 200 levels: tree KIND/NAME from here]";
    let above = "… dependents shown above]";
    for (file, max_lines, stop) in [
        (&chain, 20_000, deep),
        (&cycle, 20_000, deep),
        (&ladder, 200_000, above),
    ] {
        let path = file.to_str().expect("utf-8");
        for cmd in ["tree", "simulate"] {
            let o = ownerscope(&[cmd, path]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(o.status.success(), "{cmd} {path}: {err}");
            let out = String::from_utf8_lossy(&o.stdout);
            assert!(
                out.lines().count() <= max_lines,
                "{cmd} {path}: {} lines",
                out.lines().count()
            );
            assert!(
                out.contains("ConfigMap/c60") || out.contains("ConfigMap/c9999"),
                "{cmd} {path}: every object appears"
            );
            assert!(out.contains(stop), "{cmd} {path}: {stop}");
        }
        let j = ownerscope(&["tree", path, "-o", "json"]);
        assert!(j.status.success(), "tree -o json {path}");
    }
}

/// Names, namespaces and labels are validated as the API server does, with
/// the file, line and field; what a real cluster holds passes (RBAC names
/// with colons, Events' dotted names, system namespaces).
#[test]
fn names_namespaces_and_labels_are_validated_as_the_api_server_does() {
    let doc = |meta: &str| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n{meta}\n");
    let long = "a".repeat(1_000_000);
    for (meta, field) in [
        ("  name: Child_2!".to_string(), "metadata.name"),
        (format!("  name: {long}"), "metadata.name"),
        (
            "  name: ok\n  namespace: Bad_NS".to_string(),
            "metadata.namespace",
        ),
        (
            "  name: ok\n  labels: {\"bad key!\": x}".to_string(),
            "metadata.labels",
        ),
        (
            "  name: ok\n  labels: {app: \"no spaces allowed\"}".to_string(),
            "metadata.labels.app",
        ),
    ] {
        let f = temp_file("names.yaml", doc(&meta).as_bytes());
        let o = ownerscope(&["tree", f.to_str().expect("utf-8")]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{meta}");
        assert!(
            err.contains("names.yaml:") && err.contains(field),
            "{field}: {err}"
        );
        assert!(
            err.len() < 600,
            "a long name is shortened in the message: {} bytes",
            err.len()
        );
    }
    let real = temp_file(
        "real.yaml",
        br#"apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "system:controller:job-controller"}
---
apiVersion: v1
kind: Event
metadata: {name: web-7d9f.17a2b3c4d5e6f7a8, namespace: kube-system}
---
apiVersion: v1
kind: Namespace
metadata: {name: kube-node-lease, labels: {kubernetes.io/metadata.name: kube-node-lease}}
"#,
    );
    let o = ownerscope(&["tree", real.to_str().expect("utf-8")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A 443-byte file of nested aliases grew past 5 GB; 10,000 levels of
/// nesting: both are refused at once with the line, in little memory.
#[test]
fn alias_bombs_and_deep_nesting_are_refused() {
    let mut s = String::from("name: x\nobjects: []\nextra:\n  a: &a [x,x,x,x,x,x,x,x,x]\n");
    let mut prev = "a".to_string();
    for i in 1..9 {
        let name = format!("l{i}");
        let refs = vec![format!("*{prev}"); 9].join(",");
        s.push_str(&format!("  {name}: &{name} [{refs}]\n"));
        prev = name;
    }
    let bomb = temp_file("bomb.yaml", s.as_bytes());
    let o = ownerscope(&["tree", bomb.to_str().expect("utf-8")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("bomb.yaml:") && err.contains("aliases expand"),
        "{err}"
    );
    let deep = temp_file(
        "deep.yaml",
        format!(
            "name: x\nobjects: {}{}\n",
            "[".repeat(10_000),
            "]".repeat(10_000)
        )
        .as_bytes(),
    );
    let o = ownerscope(&["tree", deep.to_str().expect("utf-8")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("deep.yaml:2:"), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("overflow"),
        "{err}"
    );
}
