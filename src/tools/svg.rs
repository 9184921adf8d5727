//! A ratatui buffer as an SVG image: each run of same-styled cells is one
//! text element placed on the cell grid (so the columns line up whatever
//! the font), backgrounds are rectangles. Renders on repository pages.

use std::fmt::Write as _;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

const CELL_W: f32 = 8.4;
const CELL_H: f32 = 18.0;
const FONT: f32 = 14.0;
const BG: &str = "#1d1f21";
const FG: &str = "#d5d8d6";

fn hex(c: Color, default: &str) -> String {
    let named = match c {
        Color::Reset => return default.to_string(),
        Color::Black => "#1d1f21",
        Color::Red => "#cc6666",
        Color::Green => "#b5bd68",
        Color::Yellow => "#f0c674",
        Color::Blue => "#81a2be",
        Color::Magenta => "#b294bb",
        Color::Cyan => "#8abeb7",
        Color::Gray => "#c5c8c6",
        Color::DarkGray => "#7a7d7c",
        Color::LightRed => "#ff7b7b",
        Color::LightGreen => "#d0e08a",
        Color::LightYellow => "#ffe08a",
        Color::LightBlue => "#a3c4e0",
        Color::LightMagenta => "#d0b0e0",
        Color::LightCyan => "#a8e0d8",
        Color::White => "#ffffff",
        Color::Rgb(r, g, b) => return format!("#{r:02x}{g:02x}{b:02x}"),
        Color::Indexed(i) => return format!("#{i:02x}{i:02x}{i:02x}"),
    };
    named.to_string()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[derive(Clone, PartialEq, Eq)]
struct Look {
    fg: String,
    bg: Option<String>,
    bold: bool,
    italic: bool,
    underline: bool,
    crossed: bool,
    dim: bool,
}

fn look(cell: &ratatui::buffer::Cell) -> Look {
    let m = cell.modifier;
    let (mut fg, mut bg) = (
        hex(cell.fg, FG),
        (cell.bg != Color::Reset).then(|| hex(cell.bg, BG)),
    );
    if m.contains(Modifier::REVERSED) {
        let new_fg = bg.clone().unwrap_or_else(|| BG.to_string());
        bg = Some(fg);
        fg = new_fg;
    }
    Look {
        fg,
        bg,
        bold: m.contains(Modifier::BOLD),
        italic: m.contains(Modifier::ITALIC),
        underline: m.contains(Modifier::UNDERLINED),
        crossed: m.contains(Modifier::CROSSED_OUT),
        dim: m.contains(Modifier::DIM),
    }
}

/// The SVG text of a buffer.
#[must_use]
pub fn render(buf: &Buffer, title: &str) -> String {
    let area = buf.area;
    let w = f32::from(area.width) * CELL_W + 16.0;
    let h = f32::from(area.height) * CELL_H + 16.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="'DejaVu Sans Mono','Menlo','Consolas',monospace" font-size="{FONT}">"#
    );
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    let _ = writeln!(
        out,
        r#"<rect width="100%" height="100%" rx="6" fill="{BG}"/>"#
    );
    let _ = writeln!(out, r#"<g transform="translate(8,8)">"#);
    for y in 0..area.height {
        let mut x = 0;
        while x < area.width {
            let first = &buf[(area.x + x, area.y + y)];
            let l = look(first);
            let mut text = String::new();
            let start = x;
            while x < area.width {
                let c = &buf[(area.x + x, area.y + y)];
                if look(c) != l {
                    break;
                }
                text.push_str(c.symbol());
                x += 1;
            }
            let len = f32::from(x - start);
            let px = f32::from(start) * CELL_W;
            let py = f32::from(y) * CELL_H;
            if let Some(bg) = &l.bg {
                let _ = writeln!(
                    out,
                    r#"<rect x="{px:.1}" y="{py:.1}" width="{:.1}" height="{CELL_H}" fill="{bg}"/>"#,
                    len * CELL_W
                );
            }
            if text.trim().is_empty() {
                continue;
            }
            let mut attrs = format!(r#" fill="{}""#, l.fg);
            if l.bold {
                attrs.push_str(r#" font-weight="bold""#);
            }
            if l.italic {
                attrs.push_str(r#" font-style="italic""#);
            }
            if l.dim {
                attrs.push_str(r#" opacity="0.6""#);
            }
            let deco: Vec<&str> = [(l.underline, "underline"), (l.crossed, "line-through")]
                .iter()
                .filter(|d| d.0)
                .map(|d| d.1)
                .collect();
            if !deco.is_empty() {
                let _ = write!(attrs, r#" text-decoration="{}""#, deco.join(" "));
            }
            let _ = writeln!(
                out,
                r#"<text x="{px:.1}" y="{:.1}" textLength="{:.1}" lengthAdjust="spacingAndGlyphs" xml:space="preserve"{attrs}>{}</text>"#,
                py + CELL_H * 0.75,
                len * CELL_W,
                escape(&text)
            );
        }
    }
    out.push_str("</g>\n</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    #[test]
    fn text_colours_and_escaping() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 12, 2));
        buf.set_string(0, 0, "a<b>", Style::new().fg(Color::Red));
        buf.set_string(0, 1, "sel", Style::new().add_modifier(Modifier::REVERSED));
        let svg = render(&buf, "t");
        assert!(svg.contains("a&lt;b&gt;"), "{svg}");
        assert!(svg.contains("#cc6666"), "{svg}");
        assert!(
            svg.contains(&format!(r#"fill="{FG}""#)),
            "reversed background {svg}"
        );
        assert!(svg.starts_with("<svg"));
    }
}
