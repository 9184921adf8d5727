//! The serve process itself: Ctrl-C stops it cleanly, and bad arguments
//! are refused in plain words.

use super::*;

#[test]
fn ctrl_c_stops_the_server_and_removes_its_kubeconfig() {
    let mut s = Server::start("deployment", &["--paused"]);
    assert!(s.kubeconfig.exists());
    let pid = s.child.id().to_string();
    let killed = Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill");
    assert!(killed.success());
    let t = Instant::now();
    let status = loop {
        if let Some(st) = s.child.try_wait().expect("wait") {
            break st;
        }
        assert!(t.elapsed() < LONG, "serve did not stop on SIGINT");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    assert!(
        !s.kubeconfig.exists(),
        "the temporary kubeconfig is removed"
    );
    let (ok, _, _) = s.kubectl(&["get", "ns", "--request-timeout=2s"], None);
    assert!(!ok);
}

#[test]
fn bad_arguments_are_refused_plainly() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_ownerscope"))
            .args(args)
            .output()
            .expect("runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&["serve", "no-such-scenario"]);
    assert_eq!(code, Some(1));
    assert!(
        err.starts_with("error: no-such-scenario: no such file"),
        "{err}"
    );
    let (code, err) = run(&["serve", "deployment", "--speed", "0"]);
    assert_eq!(
        (code, err.as_str()),
        (Some(1), "error: --speed 0: between 0 (excluded) and 1000\n")
    );
    let (code, err) = run(&[
        "serve",
        "deployment",
        "--kubeconfig-out",
        "/nonexistent/dir/kc",
    ]);
    assert_eq!(code, Some(1));
    assert!(
        err.starts_with("error: writing /nonexistent/dir/kc: "),
        "{err}"
    );
    let (code, err) = run(&["ui", "--serve", "--live"]);
    assert_eq!(code, Some(2), "{err}");
}
