//! The real binary in a real terminal (tmux): a foreground delete of the
//! demo's Deployment driven with keys and watched until it is gone, and the
//! terminal left usable after a normal quit and after a panic.
//!
//! These tests need tmux and fail (not skip) without it; `.ci/run`
//! installs it.

use std::process::Command;
use std::thread::sleep;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_ownerscope");
/// A tmux server of our own, away from the user's.
const SOCKET: &str = "ownerscope-tests";

fn tmux(args: &[&str]) -> String {
    let out = Command::new("tmux")
        .arg("-L")
        .arg(SOCKET)
        .args(args)
        .output()
        .expect("tmux must be installed to run these tests (apt-get install tmux)");
    assert!(
        out.status.success(),
        "tmux {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A detached tmux session, killed when dropped.
struct Session(String);

impl Session {
    fn start(name: &str, width: u16, height: u16, command: &str) -> Session {
        let name = format!("{name}-{}", std::process::id());
        let _ = Command::new("tmux")
            .args(["-L", SOCKET, "kill-session", "-t", &name])
            .output();
        tmux(&[
            "new-session",
            "-d",
            "-s",
            &name,
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
            command,
        ]);
        Session(name)
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.0];
        args.extend_from_slice(keys);
        tmux(&args);
    }

    /// Literal text (no key-name lookup).
    fn text(&self, text: &str) {
        tmux(&["send-keys", "-t", &self.0, "-l", text]);
    }

    fn screen(&self) -> String {
        tmux(&["capture-pane", "-p", "-t", &self.0])
    }

    /// The screen and what scrolled off it.
    fn history(&self) -> String {
        tmux(&["capture-pane", "-p", "-S", "-500", "-t", &self.0])
    }

    fn format(&self, f: &str) -> String {
        tmux(&["display-message", "-p", "-t", &self.0, f])
            .trim()
            .to_string()
    }

    /// Polls the screen until `pred` holds; fails with the last screen.
    fn wait_for(&self, what: &str, timeout: Duration, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            assert!(
                start.elapsed() < timeout,
                "timed out waiting for {what}; screen:\n{s}"
            );
            sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", SOCKET, "kill-session", "-t", &self.0])
            .output();
    }
}

/// The tree pane: the left columns of the wide layout.
fn tree_pane(screen: &str) -> String {
    screen
        .lines()
        .map(|l| l.chars().take(60).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

const LONG: Duration = Duration::from_secs(30);

#[test]
fn a_foreground_delete_of_the_demo_deployment_is_watched_until_it_is_gone() {
    let s = Session::start("e2e-delete", 120, 36, BIN);
    s.wait_for("the demo", LONG, |x| {
        x.contains("SIMULATOR shop-demo") && x.contains("Deployment/web")
    });
    // Find the Deployment.
    s.text("/deployment/web");
    s.keys(&["Enter"]);
    s.wait_for("the Deployment's details", LONG, |x| {
        x.contains("Deployment web  -n shop")
    });
    // d describes it, as in k9s: nothing to send from there.
    s.keys(&["d"]);
    s.wait_for("the describe view", LONG, |x| {
        x.contains("Describe · Deployment/web")
    });
    s.keys(&["d"]);
    s.wait_for("the describe view closed", LONG, |x| {
        !x.contains("Describe ·")
    });
    // Delete it in foreground: the dialog previews, nothing is sent yet.
    s.keys(&["C-d"]);
    s.wait_for("the delete dialog", LONG, |x| {
        x.contains("Delete Deployment/web -n shop")
    });
    s.keys(&["f"]);
    let dialog = s.wait_for("the foreground preview", LONG, |x| {
        x.contains("(•) Foreground") && x.contains("left Terminating")
    });
    assert!(dialog.contains("ConfigMap/web-cache"), "{dialog}");
    assert!(
        !tree_pane(&s.screen()).contains("[Terminating"),
        "nothing happens before confirming"
    );
    // Enter sends once the dialog has been on screen long enough to read.
    s.wait_for("the dialog read", LONG, |x| x.contains("Enter delete"));
    s.keys(&["Enter"]);
    // The tree changes: the Deployment is Terminating, its pods go.
    s.wait_for("the Deployment Terminating", LONG, |x| {
        tree_pane(x).contains("Deployment/web  [Terminating")
    });
    let stuck = s.wait_for("the pods gone and web waiting", LONG, |x| {
        let t = tree_pane(x);
        !t.contains("Pod/web-") && t.contains("Deployment/web  [Terminating")
    });
    assert!(
        stuck.contains("ConfigMap/web-cache"),
        "web waits on its ConfigMap: {stuck}"
    );
    // The hint names the real blocker, and b goes there.
    s.wait_for("the hint to go to the blocker", LONG, |x| {
        x.contains("b: go to ConfigMap/web-cache, which holds this up")
    });
    s.keys(&["b"]);
    s.wait_for("the ConfigMap selected", LONG, |x| {
        x.contains("ConfigMap web-cache  -n shop") && x.contains(">     · ConfigMap/web-cache")
    });
    // y shows what is known of it as YAML; y closes it again.
    s.keys(&["y"]);
    s.wait_for("the YAML view", LONG, |x| {
        x.contains("YAML · ConfigMap/web-cache") && x.contains("- example.com/cache-flush")
    });
    s.keys(&["y"]);
    s.wait_for("the YAML view closed", LONG, |x| !x.contains("YAML ·"));
    // Shift-J, as in k9s, goes to the owner; b comes back to the blocker.
    s.keys(&["J"]);
    s.wait_for("the owner selected", LONG, |x| {
        x.contains(">   ▼ Deployment/web") && x.contains("Deployment web  -n shop")
    });
    s.keys(&["b"]);
    s.wait_for("the blocker again", LONG, |x| {
        x.contains(">     · ConfigMap/web-cache")
    });
    // Tab moves the keys into the timeline; g goes to its oldest entry (the
    // garbage collector's warning about the ClusterRole), shown in full.
    s.keys(&["Tab", "g"]);
    let timeline = s.wait_for("the oldest timeline entry in full", LONG, |x| {
        x.contains("Timeline 1/")
    });
    let flat: String = timeline
        .replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        flat.contains("does not exist in namespace \"\" (by garbage-collector-controller)"),
        "{timeline}"
    );
    // j moves down; Enter selects the entry's object in the tree and gives
    // the keys back.
    s.keys(&["j", "j"]);
    s.wait_for("the cursor moved", LONG, |x| x.contains("Timeline 3/"));
    s.keys(&["g", "Enter"]);
    s.wait_for(
        "the ClusterRole selected from its timeline entry",
        LONG,
        |x| x.contains(">   · ClusterRole/shop-reader") && x.contains("ClusterRole shop-reader"),
    );
    // The : command line, as in k9s: :deploy searches the Deployments.
    s.text(":dep");
    s.keys(&["Tab"]);
    s.wait_for("the completed command", LONG, |x| x.contains(":deploy"));
    s.keys(&["Enter"]);
    s.wait_for("the Deployment selected by :deploy", LONG, |x| {
        x.contains("/deployment/ 1/1 (n/N)") && x.contains(">   ▼ Deployment/web")
    });
    // The ConfigMap's finalizer has no controller: bring it online (the
    // clock paused meanwhile, to read the timeline before the cascade).
    s.keys(&["Space"]);
    s.wait_for("the clock paused", LONG, |x| x.contains("PAUSED"));
    s.keys(&["c"]);
    s.wait_for("the controllers dialog", LONG, |x| {
        x.contains("OFFLINE  example.com/cache-flush")
    });
    // Enter switches and closes the dialog, so the cascade is in view.
    s.wait_for("the dialog read", LONG, |x| {
        x.contains("Enter switch and close")
    });
    s.keys(&["Enter"]);
    s.wait_for("the dialog closed on the tree", LONG, |x| {
        !x.contains("switch and close") && x.contains("Ownership")
    });
    // The switch is on the timeline (its newest entry, G): the turning
    // point of the story.
    s.keys(&["Tab", "G"]);
    s.wait_for("the switch on the timeline", LONG, |x| {
        x.contains("switch   controller/example.com/cache-flush")
    });
    // (Esc and Space apart: together a terminal reads them as Alt-Space.)
    s.keys(&["Escape"]);
    s.wait_for("the keys back in the tree", LONG, |x| x.contains("? help"));
    s.keys(&["Space"]);
    s.keys(&["+", "+"]);
    let gone = s.wait_for("the Deployment gone", LONG, |x| {
        !tree_pane(x).contains("Deployment/web")
    });
    assert!(!tree_pane(&gone).contains("ConfigMap/web-cache"), "{gone}");
    assert!(gone.contains("0 Terminating"), "{gone}");
    s.keys(&["q"]);
}

/// Starts a shell with a known prompt, in a tmux session.
fn shell(name: &str) -> Session {
    let s = Session::start(name, 100, 30, "env PS1='READY$ ' bash --norc --noprofile");
    s.wait_for("the prompt", LONG, |x| x.contains("READY$"));
    s
}

/// The terminal is back to normal: main screen, no mouse reporting,
/// canonical mode with echo (a typed command echoes and runs).
fn assert_terminal_usable(s: &Session) {
    assert_eq!(
        s.format("#{alternate_on}"),
        "0",
        "left the alternate screen"
    );
    assert_eq!(s.format("#{mouse_any_flag}"), "0", "mouse capture is off");
    s.text("stty -a | tr ' ;' '\\n\\n' | grep -x -e -icanon -e icanon -e -echo -e echo; echo DONE-$((6*7))");
    s.keys(&["Enter"]);
    let screen = s.wait_for("stty's answer", LONG, |x| x.contains("DONE-42"));
    let lines: Vec<&str> = screen.lines().map(str::trim).collect();
    assert!(lines.contains(&"icanon"), "canonical mode: {screen}");
    assert!(lines.contains(&"echo"), "echo: {screen}");
    assert!(
        !lines.contains(&"-icanon") && !lines.contains(&"-echo"),
        "{screen}"
    );
    assert!(
        screen.contains("stty -a |"),
        "the typed command echoed: {screen}"
    );
}

#[test]
fn the_terminal_is_restored_after_a_panic() {
    let s = shell("e2e-panic");
    s.text(&format!(
        "RUST_BACKTRACE=0 OWNERSCOPE_PANIC_AFTER_INIT=1 {BIN}"
    ));
    s.keys(&["Enter"]);
    s.wait_for("the prompt after the panic", LONG, |x| {
        x.contains("panicked") && x.trim_end().ends_with("READY$")
    });
    let report = s.history();
    assert!(report.contains("panicking on purpose"), "{report}");
    assert_terminal_usable(&s);
}

#[test]
fn the_terminal_is_restored_after_quitting() {
    let s = shell("e2e-quit");
    s.text(BIN);
    s.keys(&["Enter"]);
    s.wait_for("the UI", LONG, |x| x.contains("SIMULATOR shop-demo"));
    assert_eq!(
        s.format("#{alternate_on}"),
        "1",
        "the UI uses the alternate screen"
    );
    s.keys(&["q"]);
    s.wait_for("the prompt again", LONG, |x| {
        x.trim_end().ends_with("READY$") && !x.contains("SIMULATOR")
    });
    assert_terminal_usable(&s);
}

/// SIGTERM, SIGINT, SIGHUP and SIGQUIT end the UI with the terminal
/// restored (alternate screen left, raw mode and mouse capture off, the
/// cursor shown) and say why.
#[test]
fn the_terminal_is_restored_after_each_stop_signal() {
    for sig in ["TERM", "INT", "HUP", "QUIT"] {
        let s = shell(&format!("e2e-sig-{}", sig.to_lowercase()));
        s.text(BIN);
        s.keys(&["Enter"]);
        s.wait_for("the UI", LONG, |x| x.contains("SIMULATOR shop-demo"));
        assert_eq!(s.format("#{alternate_on}"), "1");
        let pid = s.format("#{pane_pid}");
        // The shell's child is the UI.
        let out = std::process::Command::new("pkill")
            .args([&format!("-{sig}"), "-P", pid.trim(), "-x", "ownerscope"])
            .status()
            .expect("pkill");
        assert!(out.success(), "SIG{sig} sent");
        s.wait_for("the prompt again", LONG, |x| {
            x.contains(&format!("stopped by SIG{sig}")) && x.trim_end().ends_with("READY$")
        });
        assert_terminal_usable(&s);
        assert_eq!(
            s.format("#{cursor_flag}"),
            "1",
            "SIG{sig}: the cursor is shown"
        );
    }
}

/// `--no-mouse` leaves the mouse to the terminal (text can be selected and
/// copied); `m` takes it and gives it back.
#[test]
fn mouse_capture_is_off_with_no_mouse_and_m_toggles_it() {
    let s = shell("e2e-mouse");
    s.text(&format!("{BIN} ui --no-mouse"));
    s.keys(&["Enter"]);
    s.wait_for("the UI", LONG, |x| x.contains("SIMULATOR shop-demo"));
    let flag = |want: &str| {
        let t = std::time::Instant::now();
        while s.format("#{mouse_any_flag}") != want && t.elapsed() < LONG {
            std::thread::sleep(Duration::from_millis(50));
        }
        s.format("#{mouse_any_flag}")
    };
    assert_eq!(flag("0"), "0", "--no-mouse: off");
    s.keys(&["m"]);
    assert_eq!(flag("1"), "1", "m: on");
    s.keys(&["m"]);
    assert_eq!(flag("0"), "0", "m: off again");
    s.keys(&["q"]);
    s.wait_for("the prompt again", LONG, |x| {
        x.trim_end().ends_with("READY$")
    });
}

/// `ui FILE` on a large file: the loading screen is up at once and says
/// how far the load has come; Ctrl-c during the load ends it with the
/// terminal restored.
#[test]
fn a_large_file_shows_its_progress_and_ctrl_c_cancels_the_load() {
    let dir = std::env::temp_dir().join(format!("ownerscope-e2e-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("big-list.json");
    let mut text = String::from(r#"{"apiVersion":"v1","kind":"List","items":["#);
    for i in 0..300_000 {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"c{i}","namespace":"ns-{}","uid":"u-{i}","labels":{{"app":"a{i}"}}}},"data":{{"k":"v"}}}}"#,
            i % 100
        ));
    }
    text.push_str("]}");
    std::fs::write(&path, text).expect("write");
    let s = shell("e2e-load");
    s.text(&format!("{BIN} ui {}", path.display()));
    s.keys(&["Enter"]);
    let screen = s.wait_for("the loading screen", LONG, |x| {
        x.contains("Loading") && x.contains("big-list.json")
    });
    assert!(screen.contains("q or Ctrl-c cancels"), "{screen}");
    let screen = s.wait_for("progress figures", LONG, |x| {
        x.contains("Reading:") || x.contains("Parsing:") || x.contains("Indexing:")
    });
    assert!(
        screen.contains(" MB") || screen.contains("objects"),
        "{screen}"
    );
    s.keys(&["C-c"]);
    s.wait_for("the prompt again", LONG, |x| {
        x.trim_end().ends_with("READY$") && !x.contains("Loading")
    });
    assert_terminal_usable(&s);
    std::fs::remove_dir_all(&dir).ok();
}

/// A terminal that goes away (its window closed: here the tmux session
/// killed) ends the UI; it used to spin on an endless end of file, a core
/// busy for good.
#[test]
fn the_ui_ends_when_its_terminal_hangs_up() {
    let s = Session::start("e2e-hangup", 100, 30, BIN);
    s.wait_for("the UI", LONG, |x| x.contains("SIMULATOR shop-demo"));
    let pid = s.format("#{pane_pid}").trim().to_string();
    assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());
    tmux(&["kill-session", "-t", &s.0]);
    let started = Instant::now();
    while std::path::Path::new(&format!("/proc/{pid}/status")).exists()
        && std::fs::read_to_string(format!("/proc/{pid}/status"))
            .is_ok_and(|st| !st.contains("State:\tZ"))
    {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the UI (pid {pid}) still runs 10 s after its terminal hung up"
        );
        sleep(Duration::from_millis(100));
    }
}
