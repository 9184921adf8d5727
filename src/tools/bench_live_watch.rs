//! `bench --live --live-shapes --live-watch --objects N`: does the UI's
//! live watch keep up with a cluster that changes `--live-rate` times a
//! second (default 1,000)?
//!
//! The shaped cluster of `--objects` is made if absent
//! ([`super::bench_live_load`]). Then, in this process, the live backend
//! `ui --live -A` starts, and the App runs in the real event loop
//! ([`crate::runtime::run`]) on a 160x48 `TestBackend`, polling the
//! backend every 50 ms, folding in what it says and drawing frames, as in
//! a terminal. The backend sends its first tree when every kind has
//! listed, or after its wait with what has (at a million objects, the
//! small kinds only; the large ones join as their lists end). Once every
//! kind is listed and folded in, a writer on a thread of its own
//! patches a label on ConfigMaps of the shaped cluster at the rate, for
//! `--live-seconds`, each patch sent without waiting for the one before.
//!
//! Each patch's answer carries the object's new resourceVersion. A change
//! is stamped when the screen shows it: the loop's order is look at the
//! input, poll, fold in some, draw, and it waits at a look only with
//! nothing left to fold in. So at a look that may wait, every change
//! polled before is folded in: if a frame was flushed since the last look,
//! it drew them, and they get its flush; if not, they get the next look's
//! frame, or, when none was flushed by then either (the change moved
//! nothing on screen), this look's time. The delay is from the patch sent
//! to that stamp. Printed: the writes made
//! and applied per second, the delays (median, p99, max, and the median
//! of the first and last thirds of the run: a loop that falls behind shows
//! a growing delay), the loop's busy share of the run, the largest poll,
//! the times to the first tree and to every kind folded in, and the
//! process's peak memory.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::app::{App, Options};
use crate::backend::{Backend, Command, Permission, Update};
use crate::cli::BenchArgs;
use crate::cluster::{self, ClusterBackend, LiveOptions};
use crate::commands::{CmdError, CmdResult};

/// The label the writer changes.
const TICK: &str = "ownerscope-bench-tick";
/// How long the loop waits, after the writer ends, for changes not seen.
const DRAIN: Duration = Duration::from_secs(20);
/// ConfigMaps the writer cycles through.
const TARGETS: usize = 20_000;
/// The writer's patches in flight at most.
const IN_FLIGHT: usize = 64;

fn err(e: impl std::fmt::Display) -> CmdError {
    CmdError(e.to_string())
}

/// What the loop and the writer share.
#[derive(Default)]
struct Shared {
    /// resourceVersions of the writer's changes polled, not yet stamped.
    polled: Mutex<Vec<String>>,
    /// resourceVersion -> when the loop had folded it in.
    applied: Mutex<HashMap<String, Instant>>,
    /// Every kind has listed and the loop has folded it all in: the
    /// writer may start.
    tree_in: AtomicBool,
    /// The backend has every kind listed (after its first tree, which
    /// goes out when the lists are in or after its wait, whichever is
    /// first: at a million objects, with a few kinds only).
    all_listed: AtomicBool,
    /// The loop ended without a first tree: the writer gives up waiting.
    no_tree: AtomicBool,
    /// The writer is done: (resourceVersion, sent) of each change.
    written: Mutex<Option<Vec<(String, Instant)>>>,
    /// Updates in the largest poll, during the writes.
    largest_poll: Mutex<usize>,
}

/// The live backend, its changes noted as they are polled.
struct Recording {
    inner: ClusterBackend,
    shared: Arc<Shared>,
    first_tree: Option<(Duration, usize)>,
    /// When the backend had every kind listed, and its objects then.
    all_listed: Option<(Duration, usize)>,
    started: Instant,
}

impl Backend for Recording {
    fn send(&mut self, cmd: Command) {
        self.inner.send(cmd);
    }

    fn poll(&mut self, elapsed: Duration) -> Vec<Update> {
        let updates = self.inner.poll(elapsed);
        let mut seen = Vec::new();
        for u in &updates {
            match u {
                Update::Upsert(o) if o.metadata.labels.contains_key(TICK) => {
                    seen.extend(o.metadata.resource_version.clone());
                }
                Update::Reset { objects, .. } if self.first_tree.is_none() => {
                    self.first_tree = Some((self.started.elapsed(), objects.len()));
                }
                _ => {}
            }
        }
        if self.first_tree.is_some() && self.all_listed.is_none() && self.inner.syncing().is_empty()
        {
            self.all_listed = Some((self.started.elapsed(), self.inner.object_count()));
            self.shared.all_listed.store(true, Ordering::SeqCst);
        }
        if self.shared.tree_in.load(Ordering::SeqCst)
            && let Ok(mut l) = self.shared.largest_poll.lock()
        {
            *l = (*l).max(updates.len());
        }
        if let Ok(mut p) = self.shared.polled.lock() {
            p.extend(seen);
        }
        updates
    }

    fn now(&self) -> jiff::Timestamp {
        self.inner.now()
    }

    fn is_simulator(&self) -> bool {
        false
    }

    fn permission(&mut self, cmd: &Command) -> Permission {
        self.inner.permission(cmd)
    }
}

/// No input: the loop waits as it would for keys, and a look at the input
/// stamps what is drawn (see the module's notes). Exhausted when every
/// change written is in, or [`DRAIN`] after the writer ended.
struct Idle {
    shared: Arc<Shared>,
    /// When each frame was flushed.
    flushed: super::bench::event_loop::Marks,
    /// Frames flushed at the last look at the input.
    frames_then: usize,
    /// Changes polled, not yet stamped.
    pending: Vec<String>,
    /// Changes folded in at a look (when), with no frame flushed since.
    folded: Vec<String>,
    folded_at: Option<Instant>,
    done: bool,
    /// When the loop last got control back from a wait.
    resumed: Instant,
    /// Time spent outside the waits while the writer runs.
    busy: Duration,
    writer_ended: Option<Instant>,
    deadline: Instant,
    /// When every kind's objects were folded in (the loop at a wait with
    /// the backend's kinds all listed).
    whole_in: Option<Instant>,
}

impl crate::runtime::Events for Idle {
    fn next(&mut self, timeout: Duration) -> std::io::Result<Option<crossterm::event::Event>> {
        let now = Instant::now();
        if !timeout.is_zero()
            && self.whole_in.is_none()
            && self.shared.all_listed.load(Ordering::SeqCst)
        {
            // Nothing is left to fold in: the whole tree is in the App.
            self.whole_in = Some(now);
            self.shared.tree_in.store(true, Ordering::SeqCst);
        }
        let writing = self.shared.tree_in.load(Ordering::SeqCst) && self.writer_ended.is_none();
        if writing {
            self.busy += now - self.resumed;
        }
        if let Ok(mut p) = self.shared.polled.lock() {
            self.pending.append(&mut p);
        }
        // A wait means nothing is left to fold in (the loop does not wait
        // while its inbox holds updates).
        let flushed = self.flushed.borrow();
        let drew = (flushed.len() > self.frames_then)
            .then(|| flushed.last().copied())
            .flatten();
        self.frames_then = flushed.len();
        drop(flushed);
        if let Ok(mut a) = self.shared.applied.lock() {
            if let Some(drawn) = drew {
                // The frame drew everything folded in before it.
                self.folded_at = None;
                for rv in self.folded.drain(..) {
                    a.entry(rv).or_insert(drawn);
                }
                if !timeout.is_zero() {
                    for rv in self.pending.drain(..) {
                        a.entry(rv).or_insert(drawn);
                    }
                }
            } else if let Some(at) = self.folded_at.take() {
                // Dirty at that look, the loop would have drawn since: no
                // frame was needed.
                for rv in self.folded.drain(..) {
                    a.entry(rv).or_insert(at);
                }
            }
        }
        if !timeout.is_zero() && !self.pending.is_empty() {
            self.folded.append(&mut self.pending);
            self.folded_at = Some(now);
        }
        if now > self.deadline {
            self.done = true;
        }
        if let Ok(w) = self.shared.written.lock()
            && let Some(written) = w.as_ref()
        {
            let ended = *self.writer_ended.get_or_insert(now);
            let all_in = self
                .shared
                .applied
                .lock()
                .is_ok_and(|a| written.iter().all(|(rv, _)| a.contains_key(rv)));
            if all_in || now - ended > DRAIN {
                self.done = true;
            }
        }
        std::thread::sleep(timeout);
        self.resumed = Instant::now();
        Ok(None)
    }

    fn exhausted(&self) -> bool {
        self.done
    }
}

/// The writer: `rate` label patches a second for `secs`, spread over
/// [`TARGETS`] ConfigMaps `cm-G-K` of the shaped cluster; (resourceVersion,
/// sent) of each change the server made.
fn write(
    opts: &LiveOptions,
    objects: usize,
    rate: usize,
    secs: u64,
) -> Result<Vec<(String, Instant)>, CmdError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(err)?;
    rt.block_on(async {
        let client = cluster::connect(opts).await.map_err(err)?.client;
        let namespaces = super::bench_live_load::namespaces(objects);
        let groups = (super::bench_live_load::PER_NAMESPACE / 10)
            .min(objects / 10)
            .max(1);
        let target = |i: usize| {
            let ns = &namespaces[i % namespaces.len()];
            let rest = i / namespaces.len();
            let g = rest / 4 % groups;
            let k = rest % 4;
            format!("/api/v1/namespaces/{ns}/configmaps/cm-{g:04}-{k}")
        };
        let targets: Vec<String> = (0..TARGETS.min(objects / 2).max(1)).map(target).collect();
        let out = Arc::new(Mutex::new(Vec::new()));
        let failures = Arc::new(Mutex::new(Vec::<String>::new()));
        // Ticks of 10 ms, each sending its share of the rate.
        let per_tick = rate.div_ceil(100);
        let mut tick = tokio::time::interval(Duration::from_millis(10));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
        let end = Instant::now() + Duration::from_secs(secs);
        let mut n = 0usize;
        let run = jiff::Timestamp::now().as_second();
        let mut tasks = tokio::task::JoinSet::new();
        // Each patch on a connection of the pool's: a new connection for
        // each of a thousand a second is refused, and under the API
        // server's 200 mutating requests in flight. A server slower than
        // the rate holds the writer back, and the rate printed says so.
        let in_flight = Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT));
        let begun = Instant::now();
        while Instant::now() < end {
            tick.tick().await;
            // As many as the rate owes by now (a rate under 100 a second
            // sends on some ticks only), at most a tick's share at once.
            let owed = (begun.elapsed().as_secs_f64() * rate as f64).ceil() as usize;
            for _ in 0..owed.saturating_sub(n).min(per_tick) {
                let permit = in_flight.clone().acquire_owned().await.map_err(err)?;
                let path = targets[n % targets.len()].clone();
                // A value no run wrote before: a patch that changes
                // nothing makes no event.
                let body = format!(r#"{{"metadata":{{"labels":{{"{TICK}":"{run}-{n}"}}}}}}"#);
                n += 1;
                let client = client.clone();
                let out = out.clone();
                let failures = failures.clone();
                tasks.spawn(async move {
                    let _permit = permit;
                    let sent = Instant::now();
                    let req = http::Request::patch(&path)
                        .header(http::header::CONTENT_TYPE, "application/merge-patch+json")
                        .body(body.into_bytes());
                    let answer = match req {
                        Ok(req) => client.request_text(req).await.map_err(|e| e.to_string()),
                        Err(e) => Err(e.to_string()),
                    };
                    match answer.and_then(|t| resource_version(&t)) {
                        Ok(rv) => {
                            if let Ok(mut o) = out.lock() {
                                o.push((rv, sent));
                            }
                        }
                        Err(e) => {
                            if let Ok(mut f) = failures.lock() {
                                f.push(format!("PATCH {path}: {e}"));
                            }
                        }
                    }
                });
            }
            while tasks.try_join_next().is_some() {}
        }
        while tasks.join_next().await.is_some() {}
        if let Some(f) = failures.lock().ok().and_then(|f| f.first().cloned()) {
            return Err(CmdError(f));
        }
        let out = out.lock().map(|o| o.clone()).unwrap_or_default();
        Ok(out)
    })
}

fn resource_version(text: &str) -> Result<String, String> {
    #[derive(serde::Deserialize)]
    struct Answer {
        metadata: Meta,
    }
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Meta {
        resource_version: String,
    }
    serde_json::from_str::<Answer>(text)
        .map(|a| a.metadata.resource_version)
        .map_err(|e| e.to_string())
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i]
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1e3)
}

/// `bench --live --live-watch`.
///
/// # Errors
/// The cluster unreachable, a write refused.
pub fn run(args: &BenchArgs) -> CmdResult {
    let opts = LiveOptions {
        kubeconfig: args.kubeconfig.clone(),
        all_namespaces: true,
        read_only: false,
        ..LiveOptions::default()
    };
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(err)?
        .block_on(async {
            let client = cluster::connect(&opts).await.map_err(err)?.client;
            super::bench_live_load::load(client, args.objects, args.live_etcd.as_deref()).await
        })?;
    let rate = args.live_rate;
    let secs = args.live_seconds;
    println!(
        "ownerscope bench --live --live-watch: the shaped cluster of {} objects (and the rest of the cluster), `ui --live -A` in the real loop on a 160x48 TestBackend, {rate} label changes a second for {secs} s{}",
        args.objects,
        if cfg!(debug_assertions) {
            " (DEBUG BUILD: use --release for real figures)"
        } else {
            ""
        }
    );
    // What the backend does on the way to its first tree, in the log file
    // when OWNERSCOPE_LOG asks (a million objects' lists take minutes).
    let _log = crate::logging::init();
    let started = Instant::now();
    let inner = ClusterBackend::start(&opts, Duration::from_secs(60)).map_err(err)?;
    let shared = Arc::new(Shared::default());
    let mut backend = Recording {
        inner,
        shared: shared.clone(),
        first_tree: None,
        all_listed: None,
        started,
    };
    let writer = {
        let shared = shared.clone();
        let opts = opts.clone();
        let objects = args.objects;
        std::thread::Builder::new()
            .name("bench-writer".into())
            .spawn(move || {
                while !shared.tree_in.load(Ordering::SeqCst) {
                    if shared.no_tree.load(Ordering::SeqCst) {
                        return Ok((Vec::new(), Duration::ZERO));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                let t = Instant::now();
                let written = write(&opts, objects, rate, secs);
                let took = t.elapsed();
                if let Ok(mut w) = shared.written.lock() {
                    *w = Some(written.as_ref().map(Clone::clone).unwrap_or_default());
                }
                written.map(|w| (w, took))
            })
            .map_err(err)?
    };
    let mut app = App::new(Options {
        read_only: false,
        scenarios: Vec::new(),
        is_simulator: false,
    });
    let flushed = super::bench::event_loop::Marks::default();
    let mut terminal = Terminal::new(super::bench::event_loop::Timed {
        inner: TestBackend::new(160, 48),
        flushed: flushed.clone(),
    })
    .map_err(err)?;
    let mut idle = Idle {
        shared: shared.clone(),
        flushed,
        frames_then: 0,
        pending: Vec::new(),
        folded: Vec::new(),
        folded_at: None,
        done: false,
        resumed: Instant::now(),
        busy: Duration::ZERO,
        writer_ended: None,
        // The first tree, the writes and the drain, with room.
        deadline: Instant::now() + Duration::from_secs(secs + 600),
        whole_in: None,
    };
    let ran = crate::runtime::run(&mut terminal, &mut app, &mut backend, &mut idle).map_err(err);
    // Without the whole tree the writer never started: it stops waiting
    // (it waited for ever before, and the benchmark with it).
    if idle.whole_in.is_none() {
        shared.no_tree.store(true, Ordering::SeqCst);
    }
    let (written, took) = writer
        .join()
        .map_err(|_| CmdError("the writer panicked".into()))??;
    ran?;
    let (Some((first, listed)), Some((all_listed, held)), Some(whole_in)) =
        (backend.first_tree, backend.all_listed, idle.whole_in)
    else {
        return Err(CmdError(format!(
            "{} within {} s of the backend's start (with OWNERSCOPE_LOG=debug the \
             backend's lists are logged)",
            match (backend.first_tree, backend.all_listed) {
                (None, _) => "no first tree came".to_string(),
                (Some((at, n)), None) => format!(
                    "the first tree ({n} objects, at {}) came, but not every kind's list \
                     (still listing: {})",
                    ms(at),
                    backend.inner.syncing().join(", ")
                ),
                (Some(_), Some((at, n))) => format!(
                    "every kind was listed at {} ({n} objects), but the loop had not \
                     folded it all in",
                    ms(at)
                ),
            },
            started.elapsed().as_secs()
        )));
    };
    let applied = shared.applied.lock().map(|a| a.clone()).unwrap_or_default();
    let mut delays: Vec<(Instant, Duration)> = written
        .iter()
        .filter_map(|(rv, sent)| {
            applied
                .get(rv)
                .map(|at| (*sent, at.saturating_duration_since(*sent)))
        })
        .collect();
    delays.sort_by_key(|(sent, _)| *sent);
    let missed = written.len() - delays.len();
    // Of those, polled and not yet stamped when the loop ended.
    let unstamped = idle.pending.len() + idle.folded.len();
    let third = delays.len() / 3;
    let median_of = |part: &[(Instant, Duration)]| {
        let mut v: Vec<Duration> = part.iter().map(|(_, d)| *d).collect();
        v.sort();
        quantile(&v, 0.5)
    };
    let first_third = median_of(&delays[..third]);
    let last_third = median_of(&delays[delays.len() - third..]);
    let mut sorted: Vec<Duration> = delays.iter().map(|(_, d)| *d).collect();
    sorted.sort();
    let last_applied = written
        .iter()
        .filter_map(|(rv, _)| applied.get(rv))
        .max()
        .copied();
    let first_sent = written.iter().map(|(_, s)| *s).min();
    let span = match (first_sent, last_applied) {
        (Some(a), Some(b)) => b.saturating_duration_since(a),
        _ => Duration::ZERO,
    };
    #[allow(clippy::cast_precision_loss)]
    let per_sec = |n: usize, d: Duration| n as f64 / d.as_secs_f64().max(1e-9);
    let largest = shared.largest_poll.lock().map(|l| *l).unwrap_or_default();
    println!("| what | figure |\n|---|---:|");
    println!(
        "| first tree (`Reset`) from the backend's start | {} ({listed} objects) |",
        ms(first)
    );
    println!(
        "| every kind listed / folded in by the loop, from the backend's start | {} / {} ({held} objects) |",
        ms(all_listed),
        ms(whole_in.saturating_duration_since(started))
    );
    println!(
        "| changes written | {} in {:.1} s ({:.0} a second) |",
        written.len(),
        took.as_secs_f64(),
        per_sec(written.len(), took)
    );
    println!(
        "| changes applied by the loop | {} ({:.0} a second, first write to last applied); {missed} not seen within {} s of the end ({unstamped} of them polled) |",
        delays.len(),
        per_sec(delays.len(), span),
        DRAIN.as_secs()
    );
    println!(
        "| delay, patch sent to its frame flushed: median / p99 / max | {} / {} / {} |",
        ms(quantile(&sorted, 0.5)),
        ms(quantile(&sorted, 0.99)),
        ms(sorted.last().copied().unwrap_or_default())
    );
    println!(
        "| delay's median, first third / last third of the writes | {} / {} |",
        ms(first_third),
        ms(last_third)
    );
    #[allow(clippy::cast_precision_loss)]
    let busy = idle.busy.as_secs_f64() / took.as_secs_f64().max(1e-9) * 100.0;
    println!("| the loop's busy share while writing (not waiting for input) | {busy:.0}% |");
    println!("| largest poll while writing | {largest} updates |");
    println!(
        "| peak memory (VmHWM) of this process | {} MiB |",
        super::bench_load::peak_kib() / 1024
    );
    // As the UI does on quitting: the process ends next.
    std::mem::forget((backend, app));
    Ok(())
}
