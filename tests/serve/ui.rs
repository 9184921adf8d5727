//! The UI following live what kubectl does to the served simulator.

use super::*;

/// The UI in a tmux session of our own (tmux must be installed: `.ci/run`
/// installs it), killed when dropped.
struct Tmux(String);

const TMUX_SOCKET: &str = "ownerscope-serve-tests";

impl Tmux {
    fn start(name: &str, command: &str) -> Tmux {
        let name = format!("{name}-{}", std::process::id());
        let ok = Command::new("tmux")
            .args([
                "-L",
                TMUX_SOCKET,
                "new-session",
                "-d",
                "-s",
                &name,
                "-x",
                "160",
                "-y",
                "40",
                command,
            ])
            .status()
            .expect("tmux must be installed to run these tests (apt-get install tmux)");
        assert!(ok.success());
        Tmux(name)
    }

    fn keys(&self, keys: &[&str]) {
        let ok = Command::new("tmux")
            .args(["-L", TMUX_SOCKET, "send-keys", "-t", &self.0])
            .args(keys)
            .status()
            .expect("tmux");
        assert!(ok.success());
    }

    fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", TMUX_SOCKET, "capture-pane", "-p", "-t", &self.0])
            .output()
            .expect("tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let t = Instant::now();
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            assert!(t.elapsed() < LONG, "timed out waiting for {what}:\n{s}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", TMUX_SOCKET, "kill-session", "-t", &self.0])
            .output();
    }
}

#[test]
fn the_ui_shows_live_what_kubectl_does_to_the_served_simulator() {
    // `ui --live` on a served simulator.
    let s = Server::start("deployment", &["--paused"]);
    let live = Tmux::start(
        "live",
        &format!(
            "{} ui --live -A --kubeconfig {}",
            env!("CARGO_BIN_EXE_ownerscope"),
            s.kubeconfig.display()
        ),
    );
    live.wait_for("the served tree", |sc| {
        sc.contains("Deployment/web") && sc.contains("Pod/web-7d9f8c6b5-lm5vz")
    });
    s.ok(&[
        "delete",
        "deployment",
        "web",
        "--cascade=foreground",
        "--wait=false",
    ]);
    live.wait_for("the Deployment Terminating", |sc| {
        sc.lines()
            .any(|l| l.contains("Deployment/web") && l.contains("Terminating"))
    });
    // `ui SCENARIO --serve`: the UI and the server on one simulator.
    let dir = std::env::temp_dir().join(format!("ownerscope-ui-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let kc = dir.join("kubeconfig");
    let both = Tmux::start(
        "both",
        &format!(
            "{} ui deployment --serve --kubeconfig-out {}",
            env!("CARGO_BIN_EXE_ownerscope"),
            kc.display()
        ),
    );
    both.wait_for("the tree and the export line", |sc| {
        sc.contains("Deployment/web") && sc.contains(&format!("export KUBECONFIG={}", kc.display()))
    });
    // The timeline of Deployment/web alone: the cascade's many rows (each
    // may take two lines) do not push its DELETE out of the pane.
    both.keys(&["/", "Deployment/web", "Enter", "a"]);
    both.wait_for("the timeline of the selected object", |sc| {
        sc.contains("· only Deployment/web")
    });
    let out = Command::new(kubectl())
        .arg("--kubeconfig")
        .arg(&kc)
        .args([
            "delete",
            "deployment",
            "web",
            "--cascade=foreground",
            "--wait=false",
        ])
        .output()
        .expect("kubectl");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    both.wait_for("kubectl's delete on the UI's timeline", |sc| {
        // (Timeline rows are cut to the pane; the answer, 200, is past the
        // cut at this width: kubectl's success says it.)
        // (A row may split in two at this width: the request is on one
        // line, the object it went to on the one before, and the timeline
        // shows Deployment/web's rows only.)
        sc.contains("DELETE propagationPolicy=Foreground")
    });
    both.wait_for("the cascade to finish", |sc| {
        // The four namespaces and their kube-root-ca.crt, the two Nodes
        // the pods ran on and the 11 objects of the bootstrap RBAC policy
        // stay.
        sc.lines()
            .next()
            .is_some_and(|l| l.contains(" 21 objects "))
    });
    drop(both);
    let _ = std::fs::remove_dir_all(&dir);
}
