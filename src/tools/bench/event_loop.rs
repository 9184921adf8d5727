//! What a user waits for, measured through the real loop
//! ([`runtime::run`]) on the simulator backend, as `ownerscope ui FILE`
//! runs it: keys are read at a user's pace, and each key's wait is the
//! time from its being read to the end of the first frame drawn after it
//! (the terminal flushed). The terminal is a 160x48 `TestBackend` that
//! notes when each frame is flushed.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io;
use std::rc::Rc;
use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::{Backend, ClearType, TestBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};

use crate::app::{App, Options};
use crate::backend::simulated::SimBackend;
use crate::commands::CmdError;
use crate::model::Object;
use crate::runtime::{self, Events};

/// Instants, shared between the loop's parts and the benchmark.
pub(crate) type Marks = Rc<RefCell<Vec<Instant>>>;

/// A `TestBackend` that notes when each frame is flushed.
pub(crate) struct Timed {
    pub(crate) inner: TestBackend,
    pub(crate) flushed: Marks,
}

impl Timed {
    /// The bench's terminal (`W`x`H`), noting each flush into `flushed`.
    pub(crate) fn terminal(flushed: &Marks) -> Result<Terminal<Timed>, CmdError> {
        Terminal::new(Timed {
            inner: TestBackend::new(super::W, super::H),
            flushed: Rc::clone(flushed),
        })
        .map_err(|e| CmdError(e.to_string()))
    }
}

impl Backend for Timed {
    type Error = <TestBackend as Backend>::Error;

    fn draw<'a, I>(&mut self, content: I) -> Result<(), Self::Error>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        self.inner.draw(content)
    }

    fn hide_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.hide_cursor()
    }

    fn show_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.show_cursor()
    }

    fn get_cursor_position(&mut self) -> Result<Position, Self::Error> {
        self.inner.get_cursor_position()
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> Result<(), Self::Error> {
        self.inner.set_cursor_position(position)
    }

    fn clear(&mut self) -> Result<(), Self::Error> {
        self.inner.clear()
    }

    fn clear_region(&mut self, clear_type: ClearType) -> Result<(), Self::Error> {
        self.inner.clear_region(clear_type)
    }

    fn size(&self) -> Result<Size, Self::Error> {
        self.inner.size()
    }

    fn window_size(&mut self) -> Result<WindowSize, Self::Error> {
        self.inner.window_size()
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        self.inner.flush()?;
        self.flushed.borrow_mut().push(Instant::now());
        Ok(())
    }
}

/// Keys given one at a time, `gap` apart (a user's pace, or a held key's
/// repeat), then `linger` of nothing; notes when each key is read, and
/// the longest time the loop was away between two looks at the input (what
/// a key pressed then would wait before being read: a freeze).
struct Paced {
    keys: VecDeque<Event>,
    returned: Option<Instant>,
    longest_away: Duration,
    /// The same, once the last key was read.
    longest_after_keys: Duration,
    gap: Duration,
    due: Instant,
    linger_until: Option<Instant>,
    linger: Duration,
    read: Marks,
}

impl Events for Paced {
    fn next(&mut self, timeout: Duration) -> io::Result<Option<Event>> {
        let now = Instant::now();
        if let Some(r) = self.returned {
            self.longest_away = self.longest_away.max(now - r);
            if self.keys.is_empty() {
                self.longest_after_keys = self.longest_after_keys.max(now - r);
            }
        }
        let event = self.next_at(now, timeout);
        self.returned = Some(Instant::now());
        event
    }

    fn exhausted(&self) -> bool {
        self.keys.is_empty()
            && self
                .linger_until
                .is_some_and(|until| Instant::now() >= until)
    }
}

impl Paced {
    fn next_at(&mut self, now: Instant, timeout: Duration) -> io::Result<Option<Event>> {
        if self.keys.is_empty() {
            let until = *self.linger_until.get_or_insert(now + self.linger);
            std::thread::sleep(timeout.min(until.saturating_duration_since(now)));
            return Ok(None);
        }
        if now >= self.due {
            self.read.borrow_mut().push(now);
            self.due = now + self.gap;
            return Ok(self.keys.pop_front());
        }
        std::thread::sleep(timeout.min(self.due - now));
        Ok(None)
    }
}

/// A key as the terminal reports it.
#[must_use]
pub fn key(code: KeyCode) -> Event {
    Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// `Ctrl` and a character.
#[must_use]
pub fn ctrl(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

/// The simulator on `objects`, paused (its clock moves only when asked),
/// and the App with the first tree in.
///
/// # Errors
/// The simulator refuses the objects.
pub fn start(objects: Vec<Object>, paused: bool) -> Result<(SimBackend, App), CmdError> {
    let mut sc = crate::tools::bench_scale::scenario(objects);
    sc.settings.starts_paused = paused;
    let mut backend = SimBackend::from_scenario(sc).map_err(|e| CmdError(e.to_string()))?;
    let mut app = App::new(Options {
        is_simulator: true,
        ..Options::default()
    });
    runtime::pump(&mut app, &mut backend, Duration::ZERO);
    // Keys are timed as a user would press them a moment after the first
    // tree: with the selection's relations from the selector index.
    app.wait_for_selectors();
    Ok((backend, app))
}

/// Each key's wait: from its being `read` to the first frame `flushed`
/// at or after that (a key no frame followed has none).
pub(crate) fn waits(read: &[Instant], flushed: &[Instant]) -> Vec<Duration> {
    read.iter()
        .filter_map(|r| flushed.iter().find(|f| *f >= r).map(|f| *f - *r))
        .collect()
}

/// What one run of keys gave: each key's wait to its frame, and the
/// longest the loop was away from its input (a freeze).
pub struct Waits {
    pub keys: Vec<Duration>,
    pub longest_away: Duration,
    /// The longest away once the last key was read (after `Enter`, the
    /// cascade alone: not the dialog's preview before it).
    pub longest_after_keys: Duration,
}

/// Runs the loop over `keys`, `gap` apart, then `linger` more.
///
/// # Errors
/// Drawing failed.
pub fn run(
    app: &mut App,
    backend: &mut SimBackend,
    keys: Vec<Event>,
    gap: Duration,
    linger: Duration,
) -> Result<Waits, CmdError> {
    let flushed: Marks = Rc::default();
    let read: Marks = Rc::default();
    let mut terminal = Timed::terminal(&flushed)?;
    let mut events = Paced {
        keys: keys.into(),
        returned: None,
        longest_away: Duration::ZERO,
        longest_after_keys: Duration::ZERO,
        gap,
        due: Instant::now() + gap,
        linger_until: None,
        linger,
        read: Rc::clone(&read),
    };
    runtime::run(&mut terminal, app, backend, &mut events).map_err(|e| CmdError(e.to_string()))?;
    Ok(Waits {
        keys: waits(&read.borrow(), &flushed.borrow()),
        longest_away: events.longest_away,
        longest_after_keys: events.longest_after_keys,
    })
}
