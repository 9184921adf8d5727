//! A scripted UI session: the real App, keymap and rendering on ratatui's
//! `TestBackend`, with the simulator's clock moved by hand so that every
//! screen is reproducible. Used by the snapshot tests and the screenshots.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

use crate::app::{App, Options};
use crate::backend::simulated::SimBackend;
use crate::{keymap, runtime, ui};

/// The App, the simulator and a test terminal.
#[derive(Debug)]
pub struct Session {
    pub app: App,
    pub backend: SimBackend,
    pub terminal: Terminal<TestBackend>,
}

/// Parses `"jj<Enter>/web<Esc>"` into key events: plain characters, and
/// `<Enter>`, `<Esc>`, `<Tab>`, `<Up>`, `<Down>`, `<Left>`, `<Right>`,
/// `<PgDn>`, `<PgUp>`, `<Bksp>`, `<Space>`, `<C-x>`.
#[must_use]
pub fn parse_keys(script: &str) -> Vec<KeyEvent> {
    let mut out = Vec::new();
    let mut chars = script.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '<' || chars.peek().is_none_or(|n| *n == '<') {
            out.push(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
            continue;
        }
        let name: String = chars.by_ref().take_while(|c| *c != '>').collect();
        let key = match name.as_str() {
            "Enter" => KeyEvent::from(KeyCode::Enter),
            "Esc" => KeyEvent::from(KeyCode::Esc),
            "Tab" => KeyEvent::from(KeyCode::Tab),
            "Up" => KeyEvent::from(KeyCode::Up),
            "Down" => KeyEvent::from(KeyCode::Down),
            "Left" => KeyEvent::from(KeyCode::Left),
            "Right" => KeyEvent::from(KeyCode::Right),
            "PgDn" => KeyEvent::from(KeyCode::PageDown),
            "PgUp" => KeyEvent::from(KeyCode::PageUp),
            "Bksp" => KeyEvent::from(KeyCode::Backspace),
            "Space" => KeyEvent::new(KeyCode::Char(' '), KeyModifiers::NONE),
            other => match other.strip_prefix("C-").and_then(|k| k.chars().next()) {
                Some(k) => KeyEvent::new(KeyCode::Char(k), KeyModifiers::CONTROL),
                None => KeyEvent::new(KeyCode::Char('<'), KeyModifiers::NONE),
            },
        };
        out.push(key);
    }
    out
}

impl Session {
    /// Opens a bundled scenario (or file) in a `width` x `height` terminal.
    ///
    /// # Errors
    /// The scenario does not load.
    pub fn new(scenario: &str, width: u16, height: u16, read_only: bool) -> Result<Self, String> {
        let sc = crate::sim::scenario::load(scenario).map_err(|e| e.to_string())?;
        let backend = SimBackend::new(&sc).map_err(|e| e.to_string())?.unbounded();
        let app = App::new(Options {
            read_only,
            scenarios: runtime::bundled_scenarios(),
            is_simulator: true,
        });
        let terminal = Terminal::new(TestBackend::new(width, height))
            .map_err(|e| format!("test terminal: {e}"))?;
        let mut s = Session {
            app,
            backend,
            terminal,
        };
        s.resize(width, height);
        runtime::pump(&mut s.app, &mut s.backend, Duration::ZERO);
        Ok(s)
    }

    /// Resizes the terminal, as a resize event would.
    pub fn resize(&mut self, width: u16, height: u16) {
        self.terminal.backend_mut().resize(width, height);
        let _ = self
            .terminal
            .resize(ratatui::layout::Rect::new(0, 0, width, height));
        runtime::fit(
            &mut self.app,
            ratatui::layout::Rect::new(0, 0, width, height),
        );
    }

    /// Presses keys, in the order written (see [`parse_keys`]). `<Read>`
    /// is a person reading the dialog on screen: the UI's clock moves on
    /// by [`crate::app::modal::READ_FOR`] (the simulator's does not), so
    /// that the next `<Enter>` may send what the dialog shows.
    pub fn keys(&mut self, script: &str) -> &mut Self {
        for (i, part) in script.split("<Read>").enumerate() {
            if i > 0 {
                self.app.tick(crate::app::modal::READ_FOR);
            }
            for k in parse_keys(part) {
                if let Some(a) = keymap::resolve(self.app.mode(), k) {
                    let cmds = self.app.update(a);
                    runtime::send_all(&mut self.app, &mut self.backend, cmds);
                }
            }
        }
        self
    }

    /// Lets time pass: the simulator's clock (scaled by its speed, unless
    /// paused) and the UI's highlight timers.
    pub fn wait(&mut self, d: Duration) -> &mut Self {
        // Poll in steps, as the runtime does, so that the cascade unfolds.
        let step = runtime::POLL_EVERY;
        let mut left = d;
        while !left.is_zero() {
            let s = step.min(left);
            runtime::pump(&mut self.app, &mut self.backend, s);
            self.app.tick(s);
            left -= s;
        }
        self
    }

    /// Draws a frame and returns it.
    pub fn draw(&mut self) -> Buffer {
        let app = &self.app;
        match self.terminal.draw(|f| ui::render(app, f)) {
            Ok(done) => done.buffer.clone(),
            Err(never) => match never {},
        }
    }

    /// Draws a frame and returns its text, one line per row.
    pub fn screen(&mut self) -> String {
        let buf = self.draw();
        buffer_text(&buf)
    }
}

/// The text of a buffer, trailing spaces trimmed.
#[must_use]
pub fn buffer_text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        let mut line = String::new();
        for x in area.left()..area.right() {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The screen's words in order, borders dropped: a sentence wrapped over
/// several rows of a pane reads as one.
#[must_use]
pub fn words(screen: &str) -> String {
    screen
        .replace(['│', '┌', '└', '┐', '┘'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
