//! Small trees drawn with tui-tree-widget (the delete preview, the blocker
//! chain): every node open, the same symbols as the main tree, and every
//! entry wrapped to the room its depth leaves, so that nothing of an answer
//! is cut off.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Text};
use ratatui::widgets::StatefulWidget;
use tui_tree_widget::{Tree, TreeItem, TreeState};

use super::{tree, wrap};

/// One entry and what hangs under it, before it is wrapped to a width.
#[derive(Clone, Debug, Default)]
pub struct Node {
    pub line: Line<'static>,
    pub children: Vec<Node>,
}

/// A leaf.
#[must_use]
pub fn leaf(line: Line<'static>) -> Node {
    Node {
        line,
        children: Vec::new(),
    }
}

/// A node with children.
#[must_use]
pub fn node(line: Line<'static>, children: Vec<Node>) -> Node {
    Node { line, children }
}

/// Columns the tree takes left of an entry's text at `depth`.
fn prefix(depth: usize) -> usize {
    2 * depth + wrap::width(tree::OPEN)
}

/// Rows the tree takes, every node open, in `width` columns.
#[must_use]
pub fn rows(nodes: &[Node], width: u16) -> usize {
    fn walk(nodes: &[Node], width: usize, depth: usize) -> usize {
        nodes
            .iter()
            .map(|n| {
                wrap::height(
                    std::slice::from_ref(&n.line),
                    width.saturating_sub(prefix(depth)),
                ) + walk(&n.children, width, depth + 1)
            })
            .sum()
    }
    walk(nodes, usize::from(width), 0)
}

/// The widget's items, wrapped; identifiers are positions (`"0"`, `"0.2"`),
/// unique by construction. Also opens every node in `state`.
fn items(
    nodes: &[Node],
    width: usize,
    parent: &[String],
    state: &mut TreeState<String>,
) -> Vec<TreeItem<'static, String>> {
    let depth = parent.len();
    nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let id = match parent.last() {
                Some(p) => format!("{p}.{i}"),
                None => i.to_string(),
            };
            let text = Text::from(wrap::wrap_line(
                &n.line,
                width.saturating_sub(prefix(depth)),
            ));
            if n.children.is_empty() {
                return TreeItem::new_leaf(id, text);
            }
            let mut path = parent.to_vec();
            path.push(id.clone());
            state.open(path.clone());
            let kids = items(&n.children, width, &path, state);
            TreeItem::new(id.clone(), text.clone(), kids)
                .unwrap_or_else(|_| TreeItem::new_leaf(id, text))
        })
        .collect()
}

/// Draws the tree, every node open, scrolled by `scroll` entries.
pub fn render(nodes: &[Node], frame: &mut Frame, area: Rect, scroll: u16) {
    let mut state = TreeState::default();
    let items = items(nodes, usize::from(area.width), &[], &mut state);
    let Ok(widget) = Tree::new(&items) else {
        return;
    };
    let widget = widget
        .node_open_symbol(tree::OPEN)
        .node_closed_symbol(tree::CLOSED)
        .node_no_children_symbol(tree::LEAF);
    if scroll > 0 {
        // The widget learns its length while drawing: draw once aside,
        // then scroll.
        let mut scratch = Buffer::empty(area);
        StatefulWidget::render(widget.clone(), area, &mut scratch, &mut state);
        state.scroll_down(usize::from(scroll));
    }
    frame.render_stateful_widget(widget, area, &mut state);
}

/// The tree as lines, every node open and wrapped at `width`: what
/// [`render`] draws, for a pane that scrolls it with other text.
#[must_use]
pub fn lines(nodes: &[Node], width: u16) -> Vec<Line<'static>> {
    fn walk(nodes: &[Node], width: usize, depth: usize, out: &mut Vec<Line<'static>>) {
        for n in nodes {
            let symbol = if n.children.is_empty() {
                tree::LEAF
            } else {
                tree::OPEN
            };
            let indent = " ".repeat(2 * depth);
            let text = wrap::wrap_line(&n.line, width.saturating_sub(prefix(depth)));
            for (i, l) in text.into_iter().enumerate() {
                let head = if i == 0 {
                    format!("{indent}{symbol}")
                } else {
                    format!("{indent}{}", tree::LEAF)
                };
                let mut spans = vec![ratatui::text::Span::raw(head)];
                spans.extend(l.spans);
                out.push(Line::from(spans).style(l.style));
            }
            walk(&n.children, width, depth + 1, out);
        }
    }
    let mut out = Vec::new();
    walk(nodes, usize::from(width), 0, &mut out);
    out
}
