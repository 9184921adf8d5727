//! Word wrapping of styled lines, for text that is an answer and must be
//! read in full: each span keeps its style, continuation rows are indented
//! like the line's own leading blanks (a hanging indent), and a word longer
//! than the row is broken where it must be.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Display width of a string (as the terminal draws it).
#[must_use]
pub fn width(s: &str) -> usize {
    Span::raw(s).width()
}

/// One row being filled.
struct Row {
    spans: Vec<Span<'static>>,
    used: usize,
}

impl Row {
    fn push(&mut self, text: &str, style: Style) {
        if text.is_empty() {
            return;
        }
        self.used += width(text);
        match self.spans.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(text),
            _ => self.spans.push(Span::styled(text.to_string(), style)),
        }
    }
}

/// `line` wrapped at `max` columns: one line if it fits.
#[must_use]
pub fn wrap_line(line: &Line<'_>, max: usize) -> Vec<Line<'static>> {
    let max = max.max(1);
    if line.width() <= max {
        return vec![owned(line)];
    }
    let lead: usize = {
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        text.len() - text.trim_start().len()
    };
    wrap_hanging(line, max, lead)
}

/// `line` wrapped at `max` columns, continuation rows indented by `lead`
/// columns (at most half the row).
#[must_use]
pub fn wrap_hanging(line: &Line<'_>, max: usize, lead: usize) -> Vec<Line<'static>> {
    let max = max.max(1);
    if line.width() <= max {
        return vec![owned(line)];
    }
    let lead = lead.min(max / 2);
    let indent = " ".repeat(lead);
    let mut rows: Vec<Row> = vec![Row {
        spans: Vec::new(),
        used: 0,
    }];
    // Whether the last row holds a word yet.
    let mut has_word = false;
    // Blanks between words wait until the next word is placed, so that no
    // row ends or (after the first) starts with them.
    let mut pending: Vec<(String, Style)> = Vec::new();
    for span in &line.spans {
        let style = span.style;
        for token in tokens(&span.content) {
            if token.starts_with(char::is_whitespace) {
                pending.push((token.to_string(), style));
                continue;
            }
            let w = width(token);
            let gap: usize = pending.iter().map(|(t, _)| width(t)).sum();
            let used = rows.last().map_or(0, |r| r.used);
            let keep_gap = if has_word {
                used + gap + w <= max
            } else {
                // The line's own leading blanks, on its first row only.
                rows.len() == 1 && used + gap < max
            };
            if has_word && !keep_gap {
                rows.push(new_row(&indent));
            }
            if keep_gap && let Some(r) = rows.last_mut() {
                for (t, s) in &pending {
                    r.push(t, *s);
                }
            }
            pending.clear();
            // The word, broken where it is wider than what is left.
            let mut rest = token;
            while !rest.is_empty() {
                let used = rows.last().map_or(0, |r| r.used);
                let room = max.saturating_sub(used);
                if room == 0 || (width(rest) > room && used > lead && w <= max - lead) {
                    rows.push(new_row(&indent));
                    continue;
                }
                let (head, tail) = split_at_width(rest, room);
                if let Some(r) = rows.last_mut() {
                    r.push(head, style);
                }
                rest = tail;
            }
            has_word = true;
        }
    }
    rows.into_iter()
        .filter(|r| !r.spans.is_empty())
        .map(|r| {
            Line::from(r.spans)
                .style(line.style)
                .alignment_opt(line.alignment)
        })
        .collect()
}

/// Every line of `lines` wrapped at `max` columns.
#[must_use]
pub fn wrap_lines(lines: &[Line<'_>], max: usize) -> Vec<Line<'static>> {
    lines.iter().flat_map(|l| wrap_line(l, max)).collect()
}

/// `line` on one row of `w` columns, ending with `…` where it is cut (a
/// list row; the entry under the cursor is shown in full elsewhere).
#[must_use]
pub fn cut(line: Line<'_>, w: usize) -> Line<'static> {
    if line.width() <= w {
        return owned(&line);
    }
    let mut rows = wrap_hanging(&line, w.saturating_sub(1).max(1), 0);
    let mut first = rows.swap_remove(0);
    first.spans.push(Span::styled("…", crate::ui::theme::DIM));
    first
}

/// Every line of `lines` wrapped at `max` columns, continuation rows
/// indented by `lead` columns (a column of keys, then their meaning).
#[must_use]
pub fn wrap_hanging_lines(lines: &[Line<'_>], max: usize, lead: usize) -> Vec<Line<'static>> {
    lines
        .iter()
        .flat_map(|l| wrap_hanging(l, max, lead))
        .collect()
}

/// Rows `lines` take wrapped at `max` columns (exactly what
/// [`wrap_lines`] returns).
#[must_use]
pub fn height(lines: &[Line<'_>], max: usize) -> usize {
    lines.iter().map(|l| wrap_line(l, max).len().max(1)).sum()
}

fn new_row(indent: &str) -> Row {
    let mut r = Row {
        spans: Vec::new(),
        used: 0,
    };
    r.push(indent, Style::new());
    r
}

fn owned(line: &Line<'_>) -> Line<'static> {
    Line::from(
        line.spans
            .iter()
            .map(|s| Span::styled(s.content.to_string(), s.style))
            .collect::<Vec<_>>(),
    )
    .style(line.style)
    .alignment_opt(line.alignment)
}

trait AlignmentOpt {
    fn alignment_opt(self, a: Option<ratatui::layout::HorizontalAlignment>) -> Self;
}

impl AlignmentOpt for Line<'static> {
    fn alignment_opt(self, a: Option<ratatui::layout::HorizontalAlignment>) -> Self {
        match a {
            Some(a) => self.alignment(a),
            None => self,
        }
    }
}

/// Words and runs of blanks, in order.
fn tokens(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut blank: Option<bool> = None;
    for (i, c) in s.char_indices() {
        let b = c.is_whitespace();
        if blank.is_some_and(|x| x != b) {
            out.push(&s[start..i]);
            start = i;
        }
        blank = Some(b);
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// The longest head of `s` at most `room` columns wide (at least one
/// character), and the rest.
fn split_at_width(s: &str, room: usize) -> (&str, &str) {
    let mut used = 0;
    for (i, c) in s.char_indices() {
        let w = width(c.encode_utf8(&mut [0; 4]));
        if used + w > room && i > 0 {
            return s.split_at(i);
        }
        used += w;
    }
    (s, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn words_wrap_with_a_hanging_indent_and_nothing_is_lost() {
        let line = Line::from(vec![
            Span::raw("  finalizer "),
            Span::styled("example.com/cache-flush", theme_warn()),
            Span::raw(": its controller is OFFLINE: nothing removes it"),
        ]);
        let out = wrap_line(&line, 30);
        let rows = text(&out);
        assert_eq!(
            rows,
            vec![
                "  finalizer",
                "  example.com/cache-flush: its",
                "  controller is OFFLINE:",
                "  nothing removes it",
            ]
        );
        assert!(out.iter().all(|l| l.width() <= 30));
        // The styled word keeps its style.
        assert_eq!(out[1].spans[1].style, theme_warn());
        let joined: String = rows.join(" ").split_whitespace().collect();
        let orig: String =
            "finalizer example.com/cache-flush: its controller is OFFLINE: nothing removes it"
                .split_whitespace()
                .collect();
        assert_eq!(joined, orig);
    }

    #[test]
    fn a_word_wider_than_the_row_is_broken() {
        let line = Line::from("uid 01fd4049-056a-46fa-b4c1-a6b10141e5a9");
        let out = wrap_line(&line, 12);
        assert!(out.iter().all(|l| l.width() <= 12), "{:?}", text(&out));
        let joined: String = text(&out).concat().split_whitespace().collect();
        assert_eq!(joined, "uid01fd4049-056a-46fa-b4c1-a6b10141e5a9");
        assert_eq!(height(&[line], 12), out.len());
    }

    #[test]
    fn a_line_that_fits_is_unchanged() {
        let line = Line::from("short");
        assert_eq!(text(&wrap_line(&line, 80)), vec!["short"]);
        assert_eq!(text(&wrap_line(&Line::default(), 80)), vec![""]);
    }

    fn theme_warn() -> Style {
        crate::ui::theme::WARN
    }
}
#[cfg(test)]
mod dbg_tests {
    use super::*;
    #[test]
    fn dbg() {
        let line = Line::from(vec![
            Span::raw("    2.3s "),
            Span::raw("updated  "),
            Span::raw("Deployment/web"),
            Span::raw("  "),
            Span::raw(
                "+finalizer foregroundDeletion, deletionTimestamp set (propagationPolicy=Foreground)",
            ),
            Span::raw("  (by api-server)"),
        ]);
        for l in wrap_hanging(&line, 79, 9) {
            println!(
                "[{}]",
                l.spans
                    .iter()
                    .map(|s| s.content.as_ref())
                    .collect::<String>()
            );
        }
        let c = cut(line.clone(), 79);
        println!(
            "cut [{}]",
            c.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        );
    }
}
