//! The screen shown while a file loads: what is being read, how far, how
//! fast, and how to cancel.

use std::time::Duration;

use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::theme;
use crate::sim::progress::Seen;

/// What the loading screen shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Loading {
    /// The scenario name or file.
    pub source: String,
    pub seen: Seen,
    pub elapsed: Duration,
}

#[allow(clippy::cast_precision_loss)]
fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

impl Loading {
    /// The lines of the screen, without style (also for tests).
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        let s = &self.seen;
        let secs = self.elapsed.as_secs_f64().max(1e-3);
        let stage = if s.viewing {
            format!("Building the tree of {} objects", s.indexed.max(s.parsed))
        } else if s.indexed > 0 {
            format!(
                "Indexing: {} of {} objects in the simulator's store",
                s.indexed,
                s.parsed.max(s.indexed)
            )
        } else if s.parsed > 0 || (s.bytes_total > 0 && s.bytes_read >= s.bytes_total) {
            format!(
                "Parsing: {} objects read ({:.0} MB at {:.0} MB/s)",
                s.parsed,
                mb(s.bytes_total),
                mb(s.bytes_total) / secs
            )
        } else if s.bytes_total > 0 {
            format!(
                "Reading: {:.0} of {:.0} MB ({:.0} MB/s)",
                mb(s.bytes_read),
                mb(s.bytes_total),
                mb(s.bytes_read) / secs
            )
        } else {
            "Starting".to_string()
        };
        vec![
            format!("Loading {}", self.source),
            String::new(),
            stage,
            format!("{:.1} s", self.elapsed.as_secs_f64()),
            String::new(),
            "q or Ctrl-c cancels".to_string(),
        ]
    }
}

/// The screen shown while a live cluster is reached: which server, as
/// which context, for how long, and how long it may take.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Connecting {
    /// Server and context, once the kubeconfig is read.
    pub server: Option<(String, String)>,
    pub elapsed: Duration,
    /// `--request-timeout` (`Duration::MAX`: none).
    pub limit: Duration,
}

impl Connecting {
    /// The lines of the screen, without style (also for tests).
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        let (first, stage) = match &self.server {
            Some((server, context)) => (
                format!("connecting to {server} ({context})"),
                "Discovering the resource types it serves",
            ),
            None => ("connecting".to_string(), "Reading the kubeconfig"),
        };
        let waited = if self.limit == Duration::MAX {
            format!("{:.1} s", self.elapsed.as_secs_f64())
        } else {
            format!(
                "{:.1} s (gives up after {}: --request-timeout)",
                self.elapsed.as_secs_f64(),
                crate::cluster::humanize(self.limit)
            )
        };
        vec![
            first,
            String::new(),
            stage.to_string(),
            waited,
            String::new(),
            "q or Ctrl-c cancels".to_string(),
        ]
    }
}

/// Draws the loading screen over the whole area.
pub fn render(loading: &Loading, frame: &mut Frame, area: Rect) {
    render_lines(loading.lines(), frame, area);
}

/// Draws the connecting screen over the whole area.
pub fn render_connecting(connecting: &Connecting, frame: &mut Frame, area: Rect) {
    render_lines(connecting.lines(), frame, area);
}

fn render_lines(lines: Vec<String>, frame: &mut Frame, area: Rect) {
    let lines: Vec<Line> = lines.into_iter().map(Line::from).collect();
    let height = (lines.len() as u16 + 2).min(area.height);
    let top = area.y + area.height.saturating_sub(height) / 2;
    let box_area = Rect {
        y: top,
        height,
        ..area
    };
    let p = Paragraph::new(lines)
        .alignment(Alignment::Center)
        .wrap(Wrap { trim: true })
        .block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(theme::EDGE)
                .title(ratatui::text::Span::styled(" ownerscope ", theme::TITLE)),
        );
    frame.render_widget(p, box_area);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connecting_names_the_server_the_context_and_the_limit() {
        let mut c = Connecting {
            server: None,
            elapsed: Duration::from_millis(1500),
            limit: Duration::from_secs(5),
        };
        assert_eq!(c.lines()[0], "connecting");
        c.server = Some(("https://127.0.0.1:6443".into(), "prod".into()));
        assert_eq!(c.lines()[0], "connecting to https://127.0.0.1:6443 (prod)");
        assert_eq!(c.lines()[3], "1.5 s (gives up after 5s: --request-timeout)");
        c.limit = Duration::MAX;
        assert_eq!(c.lines()[3], "1.5 s");
    }

    #[test]
    fn says_each_stage_with_its_figures() {
        let mut l = Loading {
            source: "big.json".into(),
            seen: Seen {
                bytes_total: 139_000_000,
                bytes_read: 69_500_000,
                parsed: 0,
                indexed: 0,
                viewing: false,
            },
            elapsed: Duration::from_millis(500),
        };
        assert_eq!(l.lines()[2], "Reading: 70 of 139 MB (139 MB/s)");
        l.seen.bytes_read = 139_000_000;
        l.seen.parsed = 52_000;
        l.elapsed = Duration::from_secs(2);
        assert_eq!(
            l.lines()[2],
            "Parsing: 52000 objects read (139 MB at 70 MB/s)"
        );
        l.seen.parsed = 100_000;
        l.seen.indexed = 30_000;
        assert_eq!(
            l.lines()[2],
            "Indexing: 30000 of 100000 objects in the simulator's store"
        );
        l.seen.indexed = 100_000;
        l.seen.viewing = true;
        assert_eq!(l.lines()[2], "Building the tree of 100000 objects");
        assert_eq!(l.lines()[5], "q or Ctrl-c cancels");
    }
}
