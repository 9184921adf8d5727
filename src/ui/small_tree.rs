//! Small trees drawn with tui-tree-widget (the delete preview, the blocker
//! chain): every node open, the same symbols as the main tree.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::StatefulWidget;
use tui_tree_widget::{Tree, TreeItem, TreeState};

use super::tree;

/// Items identified by their position (`"0"`, `"0.2"`, ...).
pub type Item = TreeItem<'static, String>;

/// A leaf.
#[must_use]
pub fn leaf(id: String, line: Line<'static>) -> Item {
    TreeItem::new_leaf(id, line)
}

/// A node; identifiers are unique by construction, a leaf otherwise.
#[must_use]
pub fn node(id: String, line: Line<'static>, children: Vec<Item>) -> Item {
    TreeItem::new(id.clone(), line.clone(), children).unwrap_or_else(|_| leaf(id, line))
}

fn open_all(items: &[Item], path: &mut Vec<String>, ids: &[String], state: &mut TreeState<String>) {
    for (item, id) in items.iter().zip(ids) {
        if item.children().is_empty() {
            continue;
        }
        path.push(id.clone());
        state.open(path.clone());
        let child_ids: Vec<String> = (0..item.children().len())
            .map(|i| format!("{id}.{i}"))
            .collect();
        open_all(item.children(), path, &child_ids, state);
        path.pop();
    }
}

/// Rows the tree takes with every node open.
#[must_use]
pub fn rows(items: &[Item]) -> usize {
    items.iter().map(|i| 1 + rows(i.children())).sum()
}

/// Identifier of the n-th top-level item: children of `id` are `id.0`,
/// `id.1`, ...
#[must_use]
pub fn child_id(parent: Option<&str>, i: usize) -> String {
    match parent {
        Some(p) => format!("{p}.{i}"),
        None => i.to_string(),
    }
}

/// Draws the tree, every node open, scrolled by `scroll` rows.
pub fn render(items: &[Item], frame: &mut Frame, area: Rect, scroll: u16) {
    let mut state = TreeState::default();
    let ids: Vec<String> = (0..items.len()).map(|i| child_id(None, i)).collect();
    open_all(items, &mut Vec::new(), &ids, &mut state);
    let Ok(widget) = Tree::new(items) else {
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
