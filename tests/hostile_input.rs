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
