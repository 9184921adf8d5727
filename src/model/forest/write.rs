//! The forest written out: its text (`tree`, as `kubectl tree` draws
//! it) and its JSON (`tree -o json`), a run of rows at a time, on two
//! threads when it is large.

use serde::Serialize;

use super::{Forest, ForestGroup, ForestNode, Row};
use crate::model::badges::Badge;
use crate::model::object::{Object, OwnerReference};

impl Forest<'_> {
    /// Writes the text of [`to_text`], a piece at a time, a large
    /// forest's formatted on two threads.
    ///
    /// # Errors
    /// What `write` returns.
    pub fn write_text<E>(&self, mut write: impl FnMut(&str) -> Result<(), E>) -> Result<(), E> {
        self.write_runs::<Text, E>(1 << 16, |s| write(s), |never| match never {})
    }

    /// Formats the rows in runs of [`RUN`] (the last takes whatever is
    /// left) and hands the output to `write` in order, in pieces of
    /// `flush_at` bytes or more. A forest of [`RUNS_APART_FROM`] rows or
    /// more is formatted on two threads, a run each in turn, and written
    /// from this one, a run at a time, at most one run waiting: at 300k
    /// objects its text was 80 ms on one core after the forest was made,
    /// the other idle.
    fn write_runs<R: Runs, E>(
        &self,
        flush_at: usize,
        mut write: impl FnMut(&R::Out) -> Result<(), E>,
        failed: impl Fn(R::Error) -> E,
    ) -> Result<(), E> {
        let rows: usize = self.groups.iter().map(|(_, rows)| rows.len()).sum();
        let runs = rows.div_ceil(RUN).max(1);
        // The last run takes whatever is left (and any empty group after).
        let run_len = |k: usize| if k + 1 == runs { usize::MAX } else { RUN };
        if rows < RUNS_APART_FROM {
            let mut at = R::default();
            let mut out = R::room();
            for k in 0..runs {
                at.rows(self, run_len(k), Some(&mut out)).map_err(&failed)?;
                if R::len(&out) >= flush_at || k + 1 == runs {
                    write(&out)?;
                    R::clear(&mut out);
                }
            }
            return Ok(());
        }
        std::thread::scope(|s| {
            // The odd runs, formatted there.
            let (odd, formatted) = std::sync::mpsc::sync_channel::<Result<R::Out, R::Error>>(1);
            s.spawn(move || {
                let mut at = R::default();
                for k in 0..runs {
                    if k % 2 == 0 {
                        if at.rows(self, run_len(k), None).is_err() {
                            return;
                        }
                        continue;
                    }
                    let mut out = R::room();
                    let done = at.rows(self, run_len(k), Some(&mut out)).map(|()| out);
                    let failed = done.is_err();
                    // Not sent: the writer stopped (an error), so does
                    // this.
                    if odd.send(done).is_err() || failed {
                        return;
                    }
                }
            });
            let mut at = R::default();
            let mut out = R::room();
            for k in 0..runs {
                if k % 2 == 0 {
                    R::clear(&mut out);
                    at.rows(self, run_len(k), Some(&mut out)).map_err(&failed)?;
                    write(&out)?;
                } else {
                    at.rows(self, run_len(k), None).map_err(&failed)?;
                    // None: the other thread panicked, and the scope
                    // raises its panic here when it joins it.
                    let Ok(piece) = formatted.recv() else {
                        break;
                    };
                    write(&piece.map_err(&failed)?)?;
                }
            }
            Ok(())
        })
    }

    /// Writes `{"groups": [...], "partial": ...}` as serde writes
    /// `{groups: Vec<ForestGroup>, partial}`, a node at a time.
    ///
    /// # Errors
    /// Writing fails.
    pub fn write_json(
        &self,
        w: &mut dyn std::io::Write,
        partial: &impl Serialize,
    ) -> serde_json::Result<()> {
        self.write_json_in(w, partial, 1 << 16)
    }

    /// As [`Forest::write_json`], written into a buffer of its own a run
    /// of [`RUN`] rows at a time and handed to `w` once it holds
    /// `flush_at` bytes: serde writes a node a few bytes at a time, each
    /// a call through `w` (a quarter of `tree -o json` at 300k objects
    /// went to those calls).
    pub(super) fn write_json_in(
        &self,
        w: &mut dyn std::io::Write,
        partial: &impl Serialize,
        flush_at: usize,
    ) -> serde_json::Result<()> {
        w.write_all(br#"{"groups":["#)
            .map_err(serde_json::Error::io)?;
        // On two threads from as many rows as the text: `tree -o json` at
        // 300k objects (84 MB of JSON), wall medians 0.835 s on one thread
        // against 0.770 on two (twelve runs each, on a quiet machine), for
        // 5-8 MiB more at its peak.
        self.write_runs::<Json, _>(
            flush_at,
            |buf| w.write_all(buf).map_err(serde_json::Error::io),
            |e| e,
        )?;
        let mut buf = br#"],"partial":"#.to_vec();
        serde_json::to_writer(&mut buf, partial)?;
        buf.push(b'}');
        w.write_all(&buf).map_err(serde_json::Error::io)
    }
}

/// `s` as a JSON string, as serde_json writes it. A name, a kind or a
/// uid never needs escaping: those are copied whole rather than a byte at
/// a time through serde's escaper (a quarter of the JSON's formatting in
/// `tree -o json` at 300k objects). Anything else, serde escapes.
fn put_str(buf: &mut Vec<u8>, s: &str) {
    // serde_json escapes the control characters, `"` and `\`, nothing else.
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        buf.reserve(s.len() + 2);
        buf.push(b'"');
        buf.extend_from_slice(s.as_bytes());
        buf.push(b'"');
    } else {
        // Into a Vec: cannot fail.
        let _ = serde_json::to_writer(&mut *buf, s);
    }
}

/// An object's [`crate::model::ObjRef`], as serde writes the owned one,
/// from the object's own strings.
fn put_ref(buf: &mut Vec<u8>, o: &Object) {
    buf.extend_from_slice(br#"{"apiVersion":"#);
    put_str(buf, &o.api_version);
    buf.extend_from_slice(br#","kind":"#);
    put_str(buf, &o.kind);
    if let Some(ns) = o.namespace() {
        buf.extend_from_slice(br#","namespace":"#);
        put_str(buf, ns);
    }
    buf.extend_from_slice(br#","name":"#);
    put_str(buf, o.name());
    buf.extend_from_slice(br#","uid":"#);
    put_str(buf, o.uid());
    buf.push(b'}');
}

/// An owner reference, as serde writes [`OwnerReference`].
fn put_edge(buf: &mut Vec<u8>, r: &OwnerReference) {
    let flag = |buf: &mut Vec<u8>, key: &[u8], v: Option<bool>| {
        if let Some(v) = v {
            buf.extend_from_slice(key);
            buf.extend_from_slice(if v { b"true" } else { b"false" });
        }
    };
    buf.extend_from_slice(br#"{"apiVersion":"#);
    put_str(buf, &r.api_version);
    buf.extend_from_slice(br#","kind":"#);
    put_str(buf, &r.kind);
    buf.extend_from_slice(br#","name":"#);
    put_str(buf, &r.name);
    buf.extend_from_slice(br#","uid":"#);
    put_str(buf, &r.uid);
    flag(buf, br#","controller":"#, r.controller);
    flag(buf, br#","blockOwnerDeletion":"#, r.block_owner_deletion);
    buf.push(b'}');
}

/// A node's badges, as serde writes them: those without fields (most
/// are `ctrl` and `block`) as their constant text.
fn put_badges(buf: &mut Vec<u8>, badges: &[Badge]) {
    buf.push(b'[');
    for (i, b) in badges.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        match b {
            Badge::Controller => buf.extend_from_slice(br#"{"badge":"controller"}"#),
            Badge::BlockOwnerDeletion => {
                buf.extend_from_slice(br#"{"badge":"blockOwnerDeletion"}"#);
            }
            Badge::Cycle => buf.extend_from_slice(br#"{"badge":"cycle"}"#),
            // Into a Vec: cannot fail.
            other => {
                let _ = serde_json::to_writer(&mut *buf, other);
            }
        }
    }
    buf.push(b']');
}

/// Renders the forest like `kubectl tree`:
///
/// ```text
/// namespace shop
///   Deployment/web
///   └─ ReplicaSet/web-7d9f  [ctrl block]
///      ├─ Pod/web-7d9f-a  [ctrl block] [Terminating 3s fin:1]
/// ```
#[must_use]
pub fn to_text(groups: &[ForestGroup]) -> String {
    fn node(out: &mut String, lines: &mut Lines, n: &ForestNode, depth: usize) {
        let at = (depth, n.children.len());
        lines.line(out, at, (&n.object.kind, &n.object.name), &n.badges);
        for c in &n.children {
            node(out, lines, c, depth + 1);
        }
    }
    let mut out = String::new();
    for (i, g) in groups.iter().enumerate() {
        group_label(&mut out, i, g.namespace.as_deref());
        let mut lines = Lines::default();
        for root in &g.roots {
            node(&mut out, &mut lines, root, 0);
        }
    }
    out
}

/// A group's label: `namespace shop` or `cluster-scoped`.
pub(super) fn label(namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) => format!("namespace {ns}"),
        None => "cluster-scoped".to_string(),
    }
}

/// A group's label on a line of its own, after a blank line but first.
fn group_label(out: &mut String, i: usize, namespace: Option<&str>) {
    if i > 0 {
        out.push('\n');
    }
    out.push_str(&label(namespace));
    out.push('\n');
}

/// How many rows of a forest's output one thread formats at a time.
const RUN: usize = if cfg!(test) { 3 } else { 1 << 14 };

/// From how many rows a forest's text and JSON are formatted on two
/// threads (in tests, from four, so that nearly every forest of the tests
/// is).
const RUNS_APART_FROM: usize = if cfg!(test) { 4 } else { 1 << 15 };

/// A forest's output, a run of rows at a time, as
/// [`Forest::write_runs`] formats it: where it has got to, from which
/// the next run is formatted (a line's prefix, a JSON node's closing
/// brackets depend on the rows above it).
trait Runs: Default {
    type Out: Send;
    type Error: Send;
    /// The next `n` rows (or as many as there are): formatted into `out`,
    /// with whatever opens and closes their groups, or only followed, for
    /// `None`.
    fn rows(
        &mut self,
        forest: &Forest,
        n: usize,
        out: Option<&mut Self::Out>,
    ) -> Result<(), Self::Error>;
    /// A buffer with room for a run: the average row's output times
    /// [`RUN`], or a little more.
    fn room() -> Self::Out;
    fn len(out: &Self::Out) -> usize;
    fn clear(out: &mut Self::Out);
}

/// Where a forest's output has got to: the group and the row next.
#[derive(Default)]
struct Cursor {
    group: usize,
    row: usize,
}

/// What a [`Cursor`] passes, in order.
enum Step<'f, 'g> {
    /// The group of this index (and namespace) begins.
    Opens(usize, Option<&'g str>),
    Row(&'f Row<'g>),
    /// The group ends.
    Closes,
}

impl Cursor {
    /// The next `n` rows (or as many as there are), with the beginning
    /// and the end of their groups.
    fn pass<'f, 'g, E>(
        &mut self,
        forest: &'f Forest<'g>,
        mut n: usize,
        mut step: impl FnMut(Step<'f, 'g>) -> Result<(), E>,
    ) -> Result<(), E> {
        while let Some((ns, rows)) = forest.groups.get(self.group) {
            if self.row == 0 {
                step(Step::Opens(self.group, *ns))?;
            }
            let take = n.min(rows.len() - self.row);
            for row in &rows[self.row..self.row + take] {
                step(Step::Row(row))?;
            }
            self.row += take;
            n -= take;
            if self.row == rows.len() {
                step(Step::Closes)?;
                self.group += 1;
                self.row = 0;
            }
            if n == 0 {
                break;
            }
        }
        Ok(())
    }
}

/// Where the text has got to, and the lines of that group so far.
#[derive(Default)]
struct Text {
    at: Cursor,
    lines: Lines,
}

impl Runs for Text {
    type Out = String;
    type Error = std::convert::Infallible;

    fn rows(
        &mut self,
        forest: &Forest,
        n: usize,
        mut out: Option<&mut String>,
    ) -> Result<(), Self::Error> {
        let lines = &mut self.lines;
        self.at.pass(forest, n, |step| {
            match (step, out.as_deref_mut()) {
                (Step::Opens(i, ns), Some(out)) => group_label(out, i, ns),
                (Step::Row(row), Some(out)) => lines.line(
                    out,
                    (row.depth(), row.children()),
                    (&row.object.kind, row.object.name()),
                    &forest.badges(row),
                ),
                (Step::Row(row), None) => lines.follow((row.depth(), row.children())),
                _ => {}
            }
            Ok(())
        })
    }

    /// 49 bytes a row in the text of the 300k List of `bench --commands`.
    fn room() -> String {
        String::with_capacity(RUN * 64)
    }

    fn len(out: &String) -> usize {
        out.len()
    }

    fn clear(out: &mut String) {
        out.clear();
    }
}

/// Where the JSON has got to, the children still to come of each open
/// node of that group, and whether a node closed last (a comma before
/// the next).
#[derive(Default)]
struct Json {
    at: Cursor,
    left: Vec<usize>,
    comma: bool,
}

impl Runs for Json {
    type Out = Vec<u8>;
    type Error = serde_json::Error;

    /// Each group as serde writes a [`ForestGroup`], each node as a
    /// [`ForestNode`], a node at a time.
    fn rows(
        &mut self,
        forest: &Forest,
        n: usize,
        mut out: Option<&mut Vec<u8>>,
    ) -> serde_json::Result<()> {
        let put = |buf: &mut Vec<u8>, s: &str| buf.extend_from_slice(s.as_bytes());
        let (left, comma) = (&mut self.left, &mut self.comma);
        self.at.pass(forest, n, |step| {
            match step {
                Step::Opens(i, ns) => {
                    if let Some(buf) = out.as_deref_mut() {
                        put(
                            buf,
                            if i == 0 {
                                r#"{"namespace":"#
                            } else {
                                r#",{"namespace":"#
                            },
                        );
                        serde_json::to_writer(&mut *buf, &ns)?;
                        put(buf, r#","roots":["#);
                    }
                    left.clear();
                    *comma = false;
                }
                Step::Row(row) => {
                    if let Some(buf) = out.as_deref_mut() {
                        put(
                            buf,
                            if *comma {
                                r#",{"object":"#
                            } else {
                                r#"{"object":"#
                            },
                        );
                        put_ref(buf, row.object);
                        if let Some(edge) = row.edge {
                            put(buf, r#","edge":"#);
                            put_edge(buf, edge);
                        }
                        put(buf, r#","badges":"#);
                        put_badges(buf, &forest.badges(row));
                        put(buf, r#","children":["#);
                    }
                    *comma = row.children == 0;
                    if *comma {
                        let mut closed = 1;
                        // Close every node whose last child this was.
                        while let Some(n) = left.last_mut() {
                            *n -= 1;
                            if *n > 0 {
                                break;
                            }
                            left.pop();
                            closed += 1;
                        }
                        if let Some(buf) = out.as_deref_mut() {
                            for _ in 0..closed {
                                put(buf, "]}");
                            }
                        }
                    } else {
                        left.push(row.children());
                    }
                }
                Step::Closes => {
                    if let Some(buf) = out.as_deref_mut() {
                        put(buf, "]}");
                    }
                }
            }
            Ok(())
        })
    }

    /// 280 bytes a row in the JSON of the 300k List of `bench --commands`.
    fn room() -> Vec<u8> {
        Vec::with_capacity(RUN * 320)
    }

    fn len(out: &Vec<u8>) -> usize {
        out.len()
    }

    fn clear(out: &mut Vec<u8>) {
        out.clear();
    }
}

/// The lines of one group, given its nodes in pre-order: each node's
/// indentation comes from the levels above it, and whether it is its
/// owner's last child from the children still to come there.
#[derive(Default)]
struct Lines {
    prefix: String,
    /// The length of `prefix` under each open level.
    lengths: Vec<usize>,
    /// The children still to come of each open level.
    left: Vec<usize>,
}

impl Lines {
    fn line(
        &mut self,
        out: &mut String,
        (depth, children): (usize, usize),
        (kind, name): (&str, &str),
        badges: &[Badge],
    ) {
        let last = self.open(depth);
        out.push_str(&self.prefix);
        out.push_str(match last {
            None => "",
            Some(true) => "└─ ",
            Some(false) => "├─ ",
        });
        out.push_str(kind);
        out.push('/');
        out.push_str(name);
        push_badges(out, badges);
        out.push('\n');
        self.close(last, children);
    }

    /// What [`Lines::line`] keeps of a row, with nothing written.
    fn follow(&mut self, (depth, children): (usize, usize)) {
        let last = self.open(depth);
        self.close(last, children);
    }

    /// The prefix of a row at `depth`; whether it is its owner's last
    /// child (`None` for a root).
    fn open(&mut self, depth: usize) -> Option<bool> {
        self.lengths.truncate(depth);
        self.left.truncate(depth);
        if self.prefix.is_empty() {
            self.prefix.push_str("  ");
        }
        self.prefix
            .truncate(self.lengths.last().copied().unwrap_or(2));
        self.left.last_mut().map(|n| {
            *n = n.saturating_sub(1);
            *n == 0
        })
    }

    /// The level under the row, for its `children`.
    fn close(&mut self, last: Option<bool>, children: usize) {
        self.prefix.push_str(match last {
            None => "",
            Some(true) => "   ",
            Some(false) => "│  ",
        });
        self.lengths.push(self.prefix.len());
        self.left.push(children);
    }
}

/// `  <ctrl block>  [fin:1 shared:2]`: the edge's badges, then the
/// object's own.
fn push_badges(out: &mut String, badges: &[Badge]) {
    let is_edge = |b: &&Badge| matches!(b, Badge::Controller | Badge::BlockOwnerDeletion);
    for (edge, open, close) in [(true, "  <", ">"), (false, "  [", "]")] {
        let mut first = true;
        for b in badges.iter().filter(|b| is_edge(b) == edge) {
            out.push_str(if first { open } else { " " });
            first = false;
            out.push_str(&b.text());
        }
        if !first {
            out.push_str(close);
        }
    }
}
