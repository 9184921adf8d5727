//! The terminal: raw mode, alternate screen and mouse capture on, and
//! restored on every way out: normal exit, error (the guard's drop) and
//! panic (a hook that restores first, then hands the panic on).

use std::io::{self, stdout};

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use ratatui::DefaultTerminal;

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
    let guard = Guard(());
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = execute!(stdout(), DisableMouseCapture);
        ratatui::restore();
        previous(info);
    }));
    execute!(stdout(), EnableMouseCapture)?;
    Ok((terminal, guard))
}

/// Leaves the UI's terminal mode (idempotent).
pub fn restore() {
    let _ = execute!(stdout(), DisableMouseCapture);
    ratatui::restore();
}
