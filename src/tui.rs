//! The terminal: raw mode, alternate screen and mouse capture on, and
//! restored on every way out: normal exit, error (the guard's drop) and
//! panic (a hook that restores first, then hands the panic on).

use std::io::{self, stdout};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use ratatui::DefaultTerminal;

/// Whether the terminal is in the UI's mode. Leaving the alternate screen
/// twice would move the cursor back over whatever was printed in between
/// (a panic report), so restoring happens once.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Restores the terminal when dropped.
#[derive(Debug)]
pub struct Guard(());

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// Enters the UI's terminal mode. `ratatui::try_init` installs a panic
/// hook that restores raw mode and the screen; ours runs before it and
/// turns mouse capture off too.
///
/// # Errors
/// Not a terminal, or the terminal refuses.
pub fn init() -> io::Result<(DefaultTerminal, Guard)> {
    let terminal = ratatui::try_init()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let guard = Guard(());
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
    execute!(stdout(), EnableMouseCapture)?;
    Ok((terminal, guard))
}

/// Leaves the UI's terminal mode, once.
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = execute!(stdout(), DisableMouseCapture);
        ratatui::restore();
    }
}

/// The signals that end a terminal program, and their names.
const STOP_SIGNALS: [(i32, &str); 4] = [
    (signal_hook::consts::SIGTERM, "SIGTERM"),
    (signal_hook::consts::SIGINT, "SIGINT"),
    (signal_hook::consts::SIGHUP, "SIGHUP"),
    (signal_hook::consts::SIGQUIT, "SIGQUIT"),
];

/// Turns the stop signals into a flag the loop reads (the signal number,
/// 0 while none came), so that they end the UI through its normal exit and
/// the terminal is restored, instead of killing it in raw mode on the
/// alternate screen.
///
/// # Errors
/// A handler could not be installed.
pub fn watch_signals() -> io::Result<Arc<AtomicUsize>> {
    let flag = Arc::new(AtomicUsize::new(0));
    for (sig, _) in STOP_SIGNALS {
        #[allow(clippy::cast_sign_loss)]
        signal_hook::flag::register_usize(sig, Arc::clone(&flag), sig as usize)?;
    }
    Ok(flag)
}

/// The name of a stop signal caught by [`watch_signals`].
#[must_use]
pub fn signal_name(sig: usize) -> &'static str {
    STOP_SIGNALS
        .iter()
        .find(|(s, _)| usize::try_from(*s).ok() == Some(sig))
        .map_or("a signal", |(_, n)| n)
}
