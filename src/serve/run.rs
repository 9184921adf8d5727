//! `ownerscope serve`: load the scenario, make the credentials, listen on
//! loopback, write the kubeconfig, say where everything is, and serve until
//! interrupted.

use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::net::TcpListener;

use super::http::{self, Shared};
use super::journal::Journal;
use super::statedir::{self, StateDir};
use super::{Served, tls, users};
use crate::sim::{Sim, scenario};

/// What `serve` was asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct ServeOptions {
    pub scenario: String,
    /// 0: any free port.
    pub port: u16,
    pub kubeconfig_out: Option<PathBuf>,
    /// Virtual seconds per real second.
    pub speed: f64,
    pub paused: bool,
    /// Users besides the admin (`--user`), each a context of the
    /// kubeconfig.
    pub users: Vec<super::rbac::User>,
    /// `--state-dir`: the CA, the tokens and the store kept across
    /// restarts ([`super::statedir`]); none: all new at every start.
    pub state_dir: Option<PathBuf>,
}

/// The namespace most of the scenario's objects live in (the kubeconfig's
/// default, so that `kubectl get pods` shows them), else `default`.
fn main_namespace(sim: &Sim) -> String {
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for ns in sim.objects().filter_map(crate::model::Object::namespace) {
        *counts.entry(ns).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .map_or_else(|| "default".to_string(), |(ns, _)| ns.to_string())
}

/// Writes the kubeconfig privately (it holds the token), never through a
/// link.
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    let _ = std::fs::remove_file(path);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    f.write_all(text.as_bytes())
}

/// A server running on its own runtime.
pub struct Started {
    pub rt: tokio::runtime::Runtime,
    pub shared: Arc<Shared>,
    pub port: u16,
    pub kubeconfig: PathBuf,
    /// The kubeconfig is ours to remove on exit.
    pub temporary: bool,
    /// The scenario's name.
    pub name: String,
    /// Where the store is kept (`--state-dir`).
    pub state: Option<Arc<StateDir>>,
    /// Whether the store was resumed from the state directory.
    pub resumed: bool,
    /// SIGINT and SIGTERM, caught from before the kubeconfig was written
    /// (`serve` itself; none when the server runs inside another command).
    signals: Option<StopSignals>,
}

/// The signals that stop `serve`, listened for as soon as the runtime is
/// up: whoever reads the kubeconfig may signal at once, and a signal
/// before the handler was in would kill the process, leaving the
/// kubeconfig and an unsaved store behind.
struct StopSignals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

impl StopSignals {
    fn listen(rt: &tokio::runtime::Runtime) -> Result<Self, String> {
        use tokio::signal::unix::{SignalKind, signal};
        let _in_rt = rt.enter();
        let listen = |kind: SignalKind, name: &str| {
            signal(kind).map_err(|e| format!("listening for {name}: {e}"))
        };
        Ok(Self {
            interrupt: listen(SignalKind::interrupt(), "SIGINT")?,
            terminate: listen(SignalKind::terminate(), "SIGTERM")?,
        })
    }

    async fn wait(&mut self) {
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
    }
}

impl Started {
    /// `export KUBECONFIG=...`.
    #[must_use]
    pub fn export_line(&self) -> String {
        format!("export KUBECONFIG={}", self.kubeconfig.display())
    }

    /// Stops serving; removes a temporary kubeconfig; saves the store
    /// (`--state-dir`) as it is now.
    ///
    /// # Errors
    /// The store could not be saved.
    pub fn stop(self) -> Result<(), String> {
        if self.temporary {
            let _ = std::fs::remove_file(&self.kubeconfig);
        }
        let saved = self
            .state
            .as_ref()
            .map_or(Ok(()), |dir| dir.save_now(&self.shared, true).map(|_| ()));
        self.rt.shutdown_background();
        saved
    }
}

/// `t` without its fraction of a second, as object timestamps are.
fn whole_second(t: jiff::Timestamp) -> jiff::Timestamp {
    jiff::Timestamp::from_second(t.as_second()).unwrap_or(t)
}

/// Loads the scenario, makes the credentials, listens, writes the
/// kubeconfig and starts the server and the clock.
///
/// # Errors
/// The scenario does not load, the port cannot be bound, the kubeconfig
/// cannot be written.
pub fn start(opts: &ServeOptions) -> Result<Started, String> {
    start_with(opts, false)
}

fn start_with(opts: &ServeOptions, own_signals: bool) -> Result<Started, String> {
    if !opts.speed.is_finite() || opts.speed <= 0.0 || opts.speed > 1000.0 {
        return Err(format!(
            "--speed {}: between 0 (excluded) and 1000",
            opts.speed
        ));
    }
    let mut sc = scenario::load(&opts.scenario).map_err(|e| e.to_string())?;
    let name = sc.name.clone();
    let state = opts
        .state_dir
        .as_deref()
        .map(StateDir::open)
        .transpose()?
        .map(Arc::new);
    let (saved, last) = match &state {
        Some(dir) => match dir.saved()? {
            Some((saved, last)) => (Some(saved), last),
            None => (None, 0),
        },
        None => (None, 0),
    };
    let resumed = saved.is_some();
    let (creds, accounts) = match &state {
        Some(dir) => (dir.ca()?.credentials()?, dir.accounts(&opts.users)?),
        None => (
            tls::credentials()?,
            users::accounts(&opts.users, &Default::default())?,
        ),
    };
    // The controller manager's root CA publisher hands the cluster CA to
    // every namespace: serve's own, which its kubeconfigs trust.
    sc.settings.root_ca = Some(creds.ca_pem.clone());
    sc.settings.whole_second_stamps = true;
    // The controllers' writes carry their field manager, as on a cluster.
    sc.settings.field_recorder =
        crate::sim::api::FieldRecorder(Some(super::ownership::record_component));
    let mut sim = match saved {
        Some(saved) => Sim::resume(sc, saved).map_err(|e| {
            let dir = opts.state_dir.clone().unwrap_or_default();
            format!("{}: {e}", dir.join(statedir::STORE).display())
        })?,
        None => {
            // Virtual time zero is now: the served clock is the real one.
            sc.start_at(whole_second(jiff::Timestamp::now()));
            Sim::load(sc).map_err(|e| e.to_string())?
        }
    };
    if resumed && !opts.paused {
        // The time it was down passed for its objects too.
        let down = jiff::Timestamp::now().duration_since(sim.now()).as_millis();
        sim.advance(u64::try_from(down).unwrap_or(0));
    }
    let namespace = main_namespace(&sim);
    let mut served = Served::new(sim);
    let journal = match &state {
        Some(dir) => {
            served.enable_journal(last);
            Some(Journal::open(dir.path(), last)?)
        }
        None => None,
    };
    served.speed = opts.speed;
    served.paused = opts.paused;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("starting the runtime: {e}"))?;
    let signals = own_signals.then(|| StopSignals::listen(&rt)).transpose()?;
    let listener = rt
        .block_on(TcpListener::bind(("127.0.0.1", opts.port)))
        .map_err(|e| format!("listening on 127.0.0.1:{}: {e}", opts.port))?;
    let port = listener
        .local_addr()
        .map_err(|e| format!("the listening address: {e}"))?
        .port();
    let (kubeconfig, temporary) = match &opts.kubeconfig_out {
        Some(p) => (p.clone(), false),
        None => (
            std::env::temp_dir().join(format!(
                "ownerscope-serve-{}.kubeconfig",
                std::process::id()
            )),
            true,
        ),
    };
    let text = tls::kubeconfig(port, &creds.ca_pem, &accounts, &namespace);
    write_private(&kubeconfig, &text)
        .map_err(|e| format!("writing {}: {e}", kubeconfig.display()))?;
    let shared = Shared::new(served, accounts, format!("127.0.0.1:{port}"), journal);
    rt.spawn(http::clock(Arc::clone(&shared)));
    if let Some(dir) = &state {
        dir.save_now(&shared, false)?;
        rt.spawn(statedir::keep(Arc::clone(&shared), Arc::clone(dir)));
    }
    rt.spawn(http::accept(
        listener,
        creds.tls.clone(),
        Arc::clone(&shared),
    ));
    Ok(Started {
        rt,
        shared,
        port,
        kubeconfig,
        temporary,
        name,
        state,
        resumed,
        signals,
    })
}

/// Serves until Ctrl-C or SIGTERM.
///
/// # Errors
/// As [`start`].
pub fn run(opts: &ServeOptions) -> Result<(), String> {
    let _log = crate::logging::init_with(Some("info"));
    let mut started = start_with(opts, true)?;
    let mut out = std::io::stdout().lock();
    let speed = if opts.paused {
        "paused".to_string()
    } else {
        format!("{}x", opts.speed)
    };
    let resumed = if started.resumed {
        ", resumed from its state dir"
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "ownerscope serve: scenario {:?} on https://127.0.0.1:{} (time {speed}{resumed}; Ctrl-C stops)",
        started.name, started.port
    );
    let _ = writeln!(out, "{}", started.export_line());
    let _ = out.flush();
    drop(out);
    if let Some(mut signals) = started.signals.take() {
        started.rt.block_on(signals.wait());
    }
    tracing::info!("stopped");
    started.stop()
}
