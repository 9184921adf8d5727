//! The loop: drain input, map it to actions, send the App's commands to the
//! backend, poll the backend with the real time that passed (it moves the
//! simulator's clock), fold the updates in, and draw when something
//! changed, at most ~60 times a second. Generic over ratatui's backend so
//! tests drive this very loop on a `TestBackend`.

use std::collections::VecDeque;
use std::io;
use std::time::{Duration, Instant};

use color_eyre::eyre::{Result, eyre};
use crossterm::event::{self, Event, KeyEventKind, MouseButton, MouseEventKind};
use ratatui::Terminal;
use ratatui::layout::{Position, Rect};

use crate::app::{Action, App, Options};
use crate::backend::{Backend, Command, Permission, Reply, Update};
use crate::cli::UiArgs;
use crate::commands::{CmdError, CmdResult};
use crate::{keymap, logging, tui, ui};

/// How often the backend is polled (the simulator's clock ticks).
pub const POLL_EVERY: Duration = Duration::from_millis(50);
/// The shortest time between two frames (~60 fps).
pub const FRAME_MIN: Duration = Duration::from_millis(16);
/// The time spent folding backend updates in between two looks at the
/// input (the rows brought up to date after it): a backend that answers
/// with 100k changes at once (a cascade turning Terminating) is taken in
/// over several frames, with the keys read and the screen drawn in
/// between, in the order the updates came. A time, not a number of
/// updates: what one update costs varies by a hundred times (a pod turning
/// Terminating, a ReplicaSet deleted under a Deployment owning 1,000), and
/// 2,000 at once froze the loop for 120-140 ms in a 100k cascade.
pub const APPLY_FOR: Duration = Duration::from_millis(8);

/// Where input comes from: the terminal, or a script in tests.
pub trait Events {
    /// Waits up to `timeout` for one event.
    ///
    /// # Errors
    /// Reading the terminal failed.
    fn next(&mut self, timeout: Duration) -> io::Result<Option<Event>>;

    /// No more input will come: the loop ends.
    fn exhausted(&self) -> bool {
        false
    }

    /// Mouse capture on or off, as the App wants it.
    fn set_mouse(&mut self, _on: bool) {}
}

/// Events from the terminal; a stop signal ends the loop as an error, so
/// that the terminal is restored on the way out.
#[derive(Debug, Default)]
pub struct TerminalEvents {
    signal: Option<std::sync::Arc<std::sync::atomic::AtomicUsize>>,
}

impl TerminalEvents {
    /// Events, with SIGTERM, SIGINT, SIGHUP and SIGQUIT watched.
    #[must_use]
    pub fn watching_signals() -> Self {
        watch_terminal();
        TerminalEvents {
            signal: tui::watch_signals().ok(),
        }
    }

    fn stopped(&self) -> io::Result<()> {
        let sig = self
            .signal
            .as_ref()
            .map_or(0, |s| s.load(std::sync::atomic::Ordering::SeqCst));
        if sig == 0 {
            Ok(())
        } else {
            Err(io::Error::other(format!(
                "stopped by {}",
                tui::signal_name(sig)
            )))
        }
    }
}

/// Ends the process when its terminal hangs up (the window closed, the
/// tmux server killed). crossterm's reader then sees an endless end of file
/// and spins inside its poll, where neither the loop nor a signal is looked
/// at again; a hung-up terminal is no longer a terminal (its ioctls fail),
/// which a thread of its own notices. There is nothing left to restore.
fn watch_terminal() {
    use std::io::IsTerminal;
    if !io::stdin().is_terminal() {
        return;
    }
    let _ = std::thread::Builder::new()
        .name("terminal-watch".into())
        .spawn(|| {
            loop {
                std::thread::sleep(Duration::from_millis(250));
                if !io::stdin().is_terminal() {
                    tracing::warn!("the terminal hung up: exiting");
                    std::process::exit(129);
                }
            }
        });
}

impl Events for TerminalEvents {
    fn set_mouse(&mut self, on: bool) {
        use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
        let _ = if on {
            crossterm::execute!(io::stdout(), EnableMouseCapture)
        } else {
            crossterm::execute!(io::stdout(), DisableMouseCapture)
        };
    }

    fn next(&mut self, timeout: Duration) -> io::Result<Option<Event>> {
        use std::io::IsTerminal;
        self.stopped()?;
        // A terminal that hung up (its window closed, its tmux server
        // killed) reads as an endless end of file: stop, rather than spin.
        if !io::stdin().is_terminal() {
            return Err(io::Error::other("the terminal is gone"));
        }
        // Short waits, so that a signal is seen within a frame or two.
        if event::poll(timeout.min(POLL_EVERY))? {
            event::read().map(Some)
        } else {
            self.stopped()?;
            Ok(None)
        }
    }
}

/// Scripted input for tests: `None` entries are rounds without input
/// (time passes); the loop ends when the script does.
#[derive(Debug, Default)]
pub struct ScriptedEvents {
    pub events: VecDeque<Option<Event>>,
}

impl Events for ScriptedEvents {
    fn next(&mut self, timeout: Duration) -> io::Result<Option<Event>> {
        match self.events.pop_front() {
            Some(Some(e)) => Ok(Some(e)),
            Some(None) => {
                std::thread::sleep(timeout);
                Ok(None)
            }
            None => Ok(None),
        }
    }

    fn exhausted(&self) -> bool {
        self.events.is_empty()
    }
}

/// Sends commands, then collects the answers at once.
pub fn send_all(app: &mut App, backend: &mut dyn Backend, cmds: Vec<Command>) -> bool {
    let (asked, sent) = send(app, backend, cmds);
    if !sent {
        return asked;
    }
    pump(app, backend, Duration::ZERO)
}

/// Sends commands (what the open dialog needs asked first, asked).
/// Returns whether a permission was asked and whether anything was sent.
fn send(app: &mut App, backend: &mut dyn Backend, cmds: Vec<Command>) -> (bool, bool) {
    // A dialog that just opened asks whether its action is permitted,
    // before it is offered.
    let mut asked = false;
    if let Some(q) = app.permission_question() {
        let p = backend.permission(&q);
        app.set_permission(p);
        asked = true;
    }
    if cmds.is_empty() {
        return (asked, false);
    }
    for c in cmds {
        // Ask first (a SelfSubjectAccessReview on a cluster): a denied action
        // is shown as not permitted, with the verb and resource, and not sent.
        if c.is_mutation()
            && let Permission::Denied {
                verb,
                resource,
                reason,
            } = backend.permission(&c)
        {
            app.apply(Update::replied(Reply {
                command: c,
                code: 403,
                message: format!(
                    "not permitted: {verb} on {resource} ({reason}); nothing was sent"
                ),
                warnings: Vec::new(),
            }));
            continue;
        }
        tracing::debug!(command = ?c, "send");
        backend.send(c);
    }
    (asked, true)
}

/// Backend updates not folded in yet ([`APPLY_FOR`]).
#[derive(Debug, Default)]
struct Inbox(VecDeque<Update>);

impl Inbox {
    /// Polls the backend into the inbox, and takes its time.
    fn poll(&mut self, app: &mut App, backend: &mut dyn Backend, elapsed: Duration) -> bool {
        self.0.extend(backend.poll(elapsed));
        app.set_now(backend.now())
    }

    /// Folds in the oldest updates, for [`APPLY_FOR`] at most (one at
    /// least).
    fn apply_some(&mut self, app: &mut App) -> bool {
        app.apply_for(&mut self.0, Some(APPLY_FOR))
    }
}

/// Polls the backend and folds what it says in.
pub fn pump(app: &mut App, backend: &mut dyn Backend, elapsed: Duration) -> bool {
    let updates = backend.poll(elapsed);
    let mut changed = app.apply_all(updates);
    changed |= app.set_now(backend.now());
    changed
}

/// Tells the App how big its tree pane is.
pub fn fit(app: &mut App, size: Rect) {
    app.set_screen(size.width, size.height);
    app.set_viewport(ui::layout::tree_rows(size));
}

/// What a mouse event means, given the screen size.
#[must_use]
pub fn mouse_action(app: &App, m: &event::MouseEvent, screen: Rect) -> Option<Action> {
    let inner = ui::layout::tree_inner(screen);
    let at = Position::new(m.column, m.row);
    match m.kind {
        MouseEventKind::ScrollDown => Some(Action::ScrollDown),
        MouseEventKind::ScrollUp => Some(Action::ScrollUp),
        MouseEventKind::Down(MouseButton::Left) if app.modal().is_none() && inner.contains(at) => {
            Some(Action::ClickRow(usize::from(m.row - inner.y)))
        }
        _ => None,
    }
}

/// Handles one input event. Returns whether the screen may have changed.
fn handle<B: ratatui::backend::Backend>(
    ev: &Event,
    app: &mut App,
    backend: &mut dyn Backend,
    terminal: &mut Terminal<B>,
    inbox: &mut Inbox,
) -> Result<bool> {
    let screen: Rect = terminal
        .size()
        .map_err(|e| eyre!("terminal size: {e}"))?
        .into();
    let action = match ev {
        Event::Key(k) if k.kind == KeyEventKind::Press => keymap::resolve(app.mode(), *k),
        Event::Mouse(m) => mouse_action(app, m, screen),
        Event::Resize(w, h) => {
            terminal
                .autoresize()
                .map_err(|e| eyre!("terminal resize: {e}"))?;
            fit(app, Rect::new(0, 0, *w, *h));
            return Ok(true);
        }
        _ => None,
    };
    let Some(action) = action else {
        return Ok(false);
    };
    let cmds = app.update(action);
    // The answers queue behind what came before them.
    if send(app, backend, cmds).1 {
        inbox.poll(app, backend, Duration::ZERO);
        inbox.apply_some(app);
    }
    Ok(true)
}

/// Draws one frame of the App.
fn draw<B: ratatui::backend::Backend>(terminal: &mut Terminal<B>, app: &App) -> Result<()> {
    let started = Instant::now();
    terminal
        .draw(|f| ui::render(app, f))
        .map_err(|e| eyre!("drawing: {e}"))?;
    tracing::trace!(frame_us = started.elapsed().as_micros(), "frame");
    Ok(())
}

/// Runs until the user quits.
///
/// # Errors
/// Reading input or drawing failed.
pub fn run<B: ratatui::backend::Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    backend: &mut dyn Backend,
    events: &mut dyn Events,
) -> Result<()> {
    let size: Rect = terminal
        .size()
        .map_err(|e| eyre!("terminal size: {e}"))?
        .into();
    fit(app, size);
    let mut last_poll = Instant::now();
    let mut last_tick = Instant::now();
    let mut last_draw: Option<Instant> = None;
    pump(app, backend, Duration::ZERO);
    let mut inbox = Inbox::default();
    let mut dirty = true;
    // The terminal starts with mouse capture on (tui::init).
    let mut mouse = true;
    loop {
        if app.mouse() != mouse {
            mouse = app.mouse();
            events.set_mouse(mouse);
        }
        let now = Instant::now();
        let until_poll = POLL_EVERY.saturating_sub(now - last_poll);
        let wait = if !inbox.0.is_empty() {
            Duration::ZERO
        } else if dirty {
            last_draw.map_or(Duration::ZERO, |t| FRAME_MIN.saturating_sub(now - t))
        } else {
            app.next_deadline()
                .map_or(until_poll, |d| d.min(until_poll))
        };
        if let Some(ev) = events.next(wait)? {
            // The App's clock is brought to the key's time first: a dialog
            // sends only once it has been on screen long enough to read.
            let now = Instant::now();
            dirty |= app.tick(now - last_tick);
            last_tick = now;
            let mut answered = handle(&ev, app, backend, terminal, &mut inbox)?;
            while !app.should_quit() && !events.exhausted() {
                let Some(ev) = events.next(Duration::ZERO)? else {
                    break;
                };
                let now = Instant::now();
                dirty |= app.tick(now - last_tick);
                last_tick = now;
                answered |= handle(&ev, app, backend, terminal, &mut inbox)?;
            }
            // What the keys changed is drawn before the next round of
            // updates is folded in: a round takes 8 ms or more while a
            // large kind's first list arrives, and a key waited for it.
            if answered && !app.should_quit() {
                draw(terminal, app)?;
                last_draw = Some(Instant::now());
                dirty = false;
            }
        }
        let now = Instant::now();
        // The backend is polled once what it said before is in: its clock
        // waits for the UI (the time owed is given at the next poll).
        if now - last_poll >= POLL_EVERY && inbox.0.is_empty() {
            dirty |= inbox.poll(app, backend, now - last_poll);
            last_poll = now;
        }
        dirty |= inbox.apply_some(app);
        dirty |= app.tick(now - last_tick);
        last_tick = now;
        if dirty && last_draw.is_none_or(|t| now - t >= FRAME_MIN) {
            draw(terminal, app)?;
            last_draw = Some(now);
            dirty = false;
        }
        if app.should_quit() || (events.exhausted() && !dirty && inbox.0.is_empty()) {
            return Ok(());
        }
    }
}

/// The scenario names and descriptions the picker offers.
#[must_use]
pub fn bundled_scenarios() -> Vec<(String, String)> {
    crate::sim::scenario::BUNDLED
        .iter()
        .map(|(name, _)| {
            let description = crate::sim::scenario::bundled(name)
                .map(|s| s.description)
                .unwrap_or_default();
            ((*name).to_string(), description)
        })
        .collect()
}

/// `ownerscope` and `ownerscope ui`: the UI on the simulator.
///
/// # Errors
/// The scenario does not load, or the terminal cannot be used.
pub fn start(args: &UiArgs) -> CmdResult {
    let name = args
        .scenario
        .clone()
        .unwrap_or_else(|| crate::sim::scenario::DEMO.to_string());
    let _log = logging::init();
    let _ = color_eyre::install();
    let mut app = App::new(Options {
        read_only: args.read_only,
        scenarios: bundled_scenarios(),
        is_simulator: true,
    });
    app.set_mouse(!args.no_mouse);
    // The terminal first: a large file shows its progress, and Ctrl-c
    // works, from the first frame on.
    let (mut terminal, guard) = tui::init().map_err(|e| CmdError(format!("terminal: {e}")))?;
    let mut events = TerminalEvents::watching_signals();
    let loaded = load_showing_progress(&mut terminal, &mut events, &name, app);
    let (mut backend, mut app) = match loaded {
        Ok(Some(loaded)) => loaded,
        Ok(None) => {
            drop(guard);
            return Ok(());
        }
        Err(e) => {
            drop(guard);
            return Err(e);
        }
    };
    if std::env::var_os("OWNERSCOPE_PANIC_AFTER_INIT").is_some() {
        // For the test that the terminal is restored after a panic.
        let _ = terminal.draw(|f| ui::render(&app, f));
        panic!("OWNERSCOPE_PANIC_AFTER_INIT is set: panicking on purpose");
    }
    let result = run(&mut terminal, &mut app, &mut backend, &mut events);
    drop(guard);
    // The terminal is back; freeing a large cluster object by object would
    // only delay the exit (a second at 100k objects).
    std::mem::forget(backend);
    std::mem::forget(app);
    result.map_err(|e| CmdError(format!("{e:#}")))
}

/// Loads a scenario or file on a thread of its own while the loading
/// screen shows how far it has come; the App takes in the loaded objects on
/// that thread too, so the first frame of the tree comes with nothing left
/// to build. `None` when the user cancelled (q,
/// Esc, Ctrl-c); a load error, or a stop signal, as an error (the caller
/// restores the terminal, then it is printed).
fn load_showing_progress<B: ratatui::backend::Backend>(
    terminal: &mut Terminal<B>,
    events: &mut dyn Events,
    name: &str,
    mut app: App,
) -> Result<Option<(crate::backend::starting::Starting, App)>, CmdError> {
    use crate::sim::progress::Progress;
    use crossterm::event::{KeyCode, KeyModifiers};
    let progress = std::sync::Arc::new(Progress::default());
    let (tx, rx) = std::sync::mpsc::channel();
    let (owned, counted) = (name.to_string(), std::sync::Arc::clone(&progress));
    std::thread::Builder::new()
        .name("load".into())
        .spawn(move || {
            let _observing = Progress::observe(counted);
            // The App takes the objects in; the simulator's controllers
            // take their first look at them from the first poll on.
            let loaded = crate::sim::scenario::load(&owned)
                .and_then(crate::backend::simulated::SimBackend::starting)
                .map(|(mut backend, first)| {
                    crate::sim::progress::viewing();
                    app.apply_all(first);
                    pump(&mut app, &mut backend, Duration::ZERO);
                    (backend, app)
                })
                .map_err(|e| e.to_string());
            let _ = tx.send(loaded);
        })
        .map_err(|e| CmdError(format!("loading thread: {e}")))?;
    let started = Instant::now();
    loop {
        let view = ui::loading::Loading {
            source: name.to_string(),
            seen: progress.seen(),
            elapsed: started.elapsed(),
        };
        terminal
            .draw(|f| ui::loading::render(&view, f, f.area()))
            .map_err(|e| CmdError(format!("terminal: {e}")))?;
        match rx.recv_timeout(Duration::from_millis(1)) {
            Ok(loaded) => return loaded.map(Some).map_err(CmdError),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(CmdError(
                    "the loading thread ended without an answer".into(),
                ));
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
        // Input and signals, for a tenth of a second; the thread loads on.
        let ev = events
            .next(Duration::from_millis(100))
            .map_err(|e| CmdError(e.to_string()))?;
        if let Some(Event::Key(k)) = ev
            && k.kind == KeyEventKind::Press
            && (matches!(k.code, KeyCode::Char('q') | KeyCode::Esc)
                || (k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL)))
        {
            return Ok(None);
        }
    }
}

/// `ownerscope ui --live`: the terminal first, showing "connecting to
/// SERVER (CONTEXT)" while the cluster is reached on a thread of its own;
/// then the UI on the live backend. A server that does not answer within
/// `--request-timeout` ends it with an error saying so (the terminal is
/// restored first); q, Esc or Ctrl-c cancel the wait.
///
/// # Errors
/// The kubeconfig, the server, or the terminal.
pub fn start_live(args: &UiArgs) -> CmdResult {
    use crossterm::event::{KeyCode, KeyModifiers};
    let _log = logging::init();
    let _ = color_eyre::install();
    let (opts, limit) = crate::commands::live::ui_options(args);
    let (mut terminal, guard) = tui::init().map_err(|e| CmdError(format!("terminal: {e}")))?;
    let mut events = TerminalEvents::watching_signals();
    let server = std::sync::Arc::new(std::sync::Mutex::new(None));
    let (tx, rx) = std::sync::mpsc::channel();
    let told = std::sync::Arc::clone(&server);
    std::thread::Builder::new()
        .name("connect".into())
        .spawn(move || {
            let started = crate::cluster::ClusterBackend::start_reporting(
                &opts,
                limit,
                move |server: &str, context: &str| {
                    if let Ok(mut s) = told.lock() {
                        *s = Some((server.to_string(), context.to_string()));
                    }
                },
            );
            let _ = tx.send(started);
        })
        .map_err(|e| CmdError(format!("connecting thread: {e}")))?;
    let started = Instant::now();
    let backend = loop {
        let view = ui::loading::Connecting {
            server: server.lock().ok().and_then(|s| s.clone()),
            elapsed: started.elapsed(),
            limit,
        };
        if let Err(e) = terminal.draw(|f| ui::loading::render_connecting(&view, f, f.area())) {
            drop(guard);
            return Err(CmdError(format!("terminal: {e}")));
        }
        match rx.recv_timeout(Duration::from_millis(1)) {
            Ok(Ok(b)) => break b,
            Ok(Err(e)) => {
                drop(guard);
                return Err(CmdError(e.to_string()));
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                drop(guard);
                return Err(CmdError(
                    "the connecting thread ended without an answer".into(),
                ));
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
        let ev = match events.next(Duration::from_millis(100)) {
            Ok(ev) => ev,
            Err(e) => {
                drop(guard);
                return Err(CmdError(e.to_string()));
            }
        };
        if let Some(Event::Key(k)) = ev
            && k.kind == KeyEventKind::Press
            && (matches!(k.code, KeyCode::Char('q') | KeyCode::Esc)
                || (k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL)))
        {
            drop(guard);
            return Ok(());
        }
    };
    let mut backend: Box<dyn Backend> = Box::new(backend);
    let mut app = App::new(Options {
        read_only: args.read_only,
        scenarios: Vec::new(),
        is_simulator: false,
    });
    app.set_mouse(!args.no_mouse);
    let result = run(&mut terminal, &mut app, backend.as_mut(), &mut events);
    drop(guard);
    result.map_err(|e| CmdError(format!("{e:#}")))
}

/// `ownerscope ui --serve`: the UI on a backend built elsewhere. The App cannot tell which backend it has.
///
/// # Errors
/// The terminal cannot be used.
pub fn start_with(mut backend: Box<dyn Backend>, args: &UiArgs) -> CmdResult {
    let _log = logging::init();
    let _ = color_eyre::install();
    let mut app = App::new(Options {
        read_only: args.read_only,
        scenarios: Vec::new(),
        is_simulator: backend.is_simulator(),
    });
    app.set_mouse(!args.no_mouse);
    let (mut terminal, guard) = tui::init().map_err(|e| CmdError(format!("terminal: {e}")))?;
    let result = run(
        &mut terminal,
        &mut app,
        backend.as_mut(),
        &mut TerminalEvents::watching_signals(),
    );
    drop(guard);
    result.map_err(|e| CmdError(format!("{e:#}")))
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;
    use std::sync::Arc;

    use crossterm::event::KeyCode;

    use super::*;
    use crate::app::Options;
    use crate::backend::{Command, Update};
    use crate::model::{KindTable, Object};
    use crate::tools::bench::event_loop::{Marks, Timed, key};

    /// The first tree, then one new object at each of the next polls
    /// ([`TRICKLE`]): something to fold in whenever the loop asks.
    const TRICKLE: usize = 20;

    struct Trickle {
        first: Option<Vec<Arc<Object>>>,
        n: usize,
        polled: Marks,
    }

    impl crate::backend::Backend for Trickle {
        fn send(&mut self, _cmd: Command) {}

        fn poll(&mut self, _elapsed: Duration) -> Vec<Update> {
            self.polled.borrow_mut().push(Instant::now());
            if let Some(objects) = self.first.take() {
                let kinds = KindTable::builtin();
                return vec![Update::reset(objects, kinds)];
            }
            if self.n == TRICKLE {
                return Vec::new();
            }
            self.n += 1;
            let name = format!("late-{}", self.n);
            let mut cm = Object::new("v1", "ConfigMap", Some("zz-last"), &name);
            cm.metadata.uid = format!("late-uid-{}", self.n);
            vec![Update::Upsert(Arc::new(cm))]
        }

        fn now(&self) -> jiff::Timestamp {
            jiff::Timestamp::now()
        }

        fn is_simulator(&self) -> bool {
            false
        }
    }

    /// `j`, one at a time, each once a poll is due (so that the loop polls
    /// and folds in the round it reads the key in); given up on after
    /// `until`, so that a loop that never polls fails rather than hangs.
    struct KeysWhenDue {
        left: usize,
        until: Instant,
        polled: Marks,
        read: Marks,
    }

    impl Events for KeysWhenDue {
        fn next(&mut self, timeout: Duration) -> io::Result<Option<Event>> {
            let last_poll = self.polled.borrow().last().copied();
            let last_key = self.read.borrow().last().copied();
            // A key once the next poll is due, not two between polls.
            let due = last_poll
                .filter(|p| last_key.is_none_or(|k| k < *p))
                .map(|p| p + POLL_EVERY);
            let wait = due.map_or(timeout, |d| d.saturating_duration_since(Instant::now()));
            std::thread::sleep(wait.min(timeout));
            if self.left > 0 && due.is_some_and(|d| Instant::now() >= d) {
                self.left -= 1;
                self.read.borrow_mut().push(Instant::now());
                return Ok(Some(key(KeyCode::Char('j'))));
            }
            Ok(None)
        }

        fn exhausted(&self) -> bool {
            self.left == 0 || Instant::now() >= self.until
        }
    }

    #[test]
    fn a_key_is_drawn_before_the_next_round_of_updates_is_folded_in() {
        let first: Vec<Arc<Object>> = crate::tools::generate::cluster(300)
            .into_iter()
            .map(Arc::new)
            .collect();
        // Where the selection starts on the first tree alone.
        let mut at_first = App::new(Options::default());
        let first_tree = vec![Update::Reset {
            objects: first.clone(),
            kinds: Box::new(KindTable::builtin()),
        }];
        at_first.apply_for(&mut first_tree.into(), None);
        let polled = Marks::default();
        let mut backend = Trickle {
            first: Some(first),
            n: 0,
            polled: Rc::clone(&polled),
        };
        let flushed = Marks::default();
        let mut terminal = Timed::terminal(&flushed).expect("terminal");
        let mut keys = KeysWhenDue {
            left: 5,
            until: Instant::now() + Duration::from_secs(20),
            polled: Rc::clone(&polled),
            read: Marks::default(),
        };
        let mut app = App::new(Options::default());
        run(&mut terminal, &mut app, &mut backend, &mut keys).expect("runs");
        let (read, polled, flushed) = (keys.read.borrow(), polled.borrow(), flushed.borrow());
        assert_eq!(read.len(), 5, "every key was read");
        let first_after = |marks: &[Instant], t: Instant| marks.iter().copied().find(|m| *m > t);
        for (i, k) in read.iter().enumerate() {
            let frame = first_after(&flushed, *k).expect("a frame after the key");
            let poll = first_after(&polled, *k).expect("a poll after the key");
            assert!(
                frame < poll,
                "key {i}: its frame came {:?} after the next poll",
                frame - poll
            );
        }
        assert_eq!(
            app.selected_index(),
            at_first.selected_index() + 5,
            "each j moved the selection"
        );
    }
}
