//! The terminal: raw mode, alternate screen and mouse capture on, and
//! restored on every way out: normal exit, error (the guard's drop) and
//! panic (a hook that restores first, then hands the panic on).

use std::io::{self, stdout};
use std::sync::atomic::{AtomicBool, Ordering};

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
