//! `cmp.Diff(x, y)` of go-cmp v0.5.2, the diff kube-apiserver 1.20 prints
//! under a pod update it refuses (`ValidatePodUpdate`) and a claim's
//! (`ValidatePersistentVolumeClaimUpdate`): the comparison of two
//! [`Go`] values (`compare.go`) and its report (`report_compare.go`,
//! `report_reflect.go`, `report_text.go`), followed function by function
//! for the kinds of values a spec holds. Not followed: the specialised
//! diff of long strings and of slices of numbers (`report_slices.go`,
//! used for none of a spec's fields but a security context's
//! supplemental groups), an edit script for slices of unequal lengths
//! (elements are paired by index, the rest removed or inserted), and the
//! random choice of non-breaking spaces (go-cmp indents with U+00A0 in
//! half of the processes it runs in, to discourage reading its output;
//! this is the other half).

use super::super::escalation::go_quote;
use super::go_value::Go;

/// `numContextRecords`.
const CONTEXT: usize = 2;
/// `maxColumnLength`.
const MAX_COLUMN: usize = 80;

/// What one compared pair became (`valueNode`).
struct Node<'a> {
    x: Option<&'a Go>,
    y: Option<&'a Go>,
    /// `Records`: (key, child); empty for a leaf.
    records: Vec<(String, Node<'a>)>,
    /// The composite kind for a node with records.
    kind: Kind,
    ty: String,
    num_same: usize,
    num_diff: usize,
    num_children: usize,
    max_depth: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Leaf,
    Struct,
    Slice,
    Map,
    Ptr,
}

/// Equal as go-cmp finds two leaves: a [`Go::Whole`] by its `Equal`.
fn same_leaf(x: Option<&Go>, y: Option<&Go>) -> bool {
    match (x, y) {
        (Some(Go::Whole(_, a)), Some(Go::Whole(_, b))) => a == b,
        _ => x == y,
    }
}

fn leaf<'a>(x: Option<&'a Go>, y: Option<&'a Go>) -> Node<'a> {
    let same = same_leaf(x, y);
    Node {
        x,
        y,
        records: Vec::new(),
        kind: Kind::Leaf,
        ty: String::new(),
        num_same: usize::from(same),
        num_diff: usize::from(!same),
        num_children: 0,
        max_depth: 0,
    }
}

fn parent<'a>(
    x: &'a Go,
    y: &'a Go,
    kind: Kind,
    ty: String,
    records: Vec<(String, Node<'a>)>,
) -> Node<'a> {
    let mut n = Node {
        x: Some(x),
        y: Some(y),
        records: Vec::new(),
        kind,
        ty,
        num_same: 0,
        num_diff: 0,
        num_children: 0,
        max_depth: 0,
    };
    for (_, c) in &records {
        n.num_same += c.num_same;
        n.num_diff += c.num_diff;
        n.num_children += c.num_children + 1;
        n.max_depth = n.max_depth.max(c.max_depth + 1);
    }
    n.records = records;
    n
}

/// `compareAny`.
fn compare<'a>(x: Option<&'a Go>, y: Option<&'a Go>) -> Node<'a> {
    let (Some(gx), Some(gy)) = (x, y) else {
        return leaf(x, y);
    };
    match (gx, gy) {
        (Go::Ptr(a), Go::Ptr(b)) => {
            let child = compare(Some(a), Some(b));
            parent(
                gx,
                gy,
                Kind::Ptr,
                String::new(),
                vec![(String::new(), child)],
            )
        }
        (Go::Struct(t, fa), Go::Struct(_, fb)) if fa.len() == fb.len() => {
            let recs = fa
                .iter()
                .zip(fb)
                .map(|((k, a), (_, b))| ((*k).to_string(), compare(Some(a), Some(b))))
                .collect();
            parent(gx, gy, Kind::Struct, (*t).to_string(), recs)
        }
        (Go::Slice(t, a), Go::Slice(_, b)) => {
            let n = a.len().max(b.len());
            let recs = (0..n)
                .map(|i| (String::new(), compare(a.get(i), b.get(i))))
                .collect();
            parent(gx, gy, Kind::Slice, t.clone(), recs)
        }
        (Go::Map(t, a), Go::Map(_, b)) => {
            let mut keys: Vec<&String> = a.iter().chain(b.iter()).map(|(k, _)| k).collect();
            keys.sort();
            keys.dedup();
            let get =
                |m: &'a [(String, Go)], k: &str| m.iter().find(|(mk, _)| mk == k).map(|(_, v)| v);
            let recs = keys
                .into_iter()
                .map(|k| (map_key(t, k), compare(get(a, k), get(b, k))))
                .collect();
            parent(gx, gy, Kind::Map, t.clone(), recs)
        }
        _ => leaf(x, y),
    }
}

/// A map's key as go-cmp prints it: a `core.ResourceList`'s keys are
/// `ResourceName`s, a `fmt.Stringer` (`s"storage"`).
fn map_key(ty: &str, k: &str) -> String {
    if ty == "core.ResourceList" {
        format!("s{}", go_quote(k))
    } else {
        go_quote(k)
    }
}

/// A `textNode`.
#[derive(Clone, Debug, PartialEq)]
enum Text {
    Line(String),
    Wrap(String, Box<Text>, String),
    List(Vec<Rec>),
}

/// A `textRecord`.
#[derive(Clone, Debug, PartialEq)]
struct Rec {
    diff: u8,
    key: String,
    value: Text,
    elide_comma: bool,
    comment: Option<String>,
}

const NIL: &str = "nil";
const ELLIPSIS: &str = "...";

fn line(s: impl Into<String>) -> Text {
    Text::Line(s.into())
}

fn braces(list: Vec<Rec>) -> Text {
    Text::Wrap("{".into(), Box::new(Text::List(list)), "}".into())
}

fn rec(key: &str, value: Text) -> Rec {
    Rec {
        diff: 0,
        key: key.to_string(),
        value,
        elide_comma: false,
        comment: None,
    }
}

/// `diffStats`.
#[derive(Clone, Copy, Default)]
struct Stats {
    identical: usize,
    removed: usize,
    inserted: usize,
    modified: usize,
}

impl Stats {
    fn diffs(self) -> usize {
        self.removed + self.inserted + self.modified
    }

    fn describe(self, name: &str) -> String {
        let counts = [
            (self.identical, "identical"),
            (self.removed, "removed"),
            (self.inserted, "inserted"),
            (self.modified, "modified"),
        ];
        let ss: Vec<String> = counts
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, l)| format!("{n} {l}"))
            .collect();
        let sum: usize = counts.iter().map(|(n, _)| n).sum();
        let mut name = name.to_string();
        if sum > 1 {
            name.push('s');
            if let Some(stem) = name.strip_suffix("ys") {
                name = format!("{stem}ies");
            }
        }
        match ss.len() {
            0 => String::new(),
            1 | 2 => format!("{} {name}", ss.join(" and ")),
            n => format!("{}, and {} {name}", ss[..n - 1].join(", "), ss[n - 1]),
        }
    }
}

/// `textList.AppendEllipsis`.
fn append_ellipsis(list: &mut Vec<Rec>, stats: Option<(Stats, &str)>) {
    let last_is_ellipsis = list.last().is_some_and(|r| r.value == line(ELLIPSIS));
    if !last_is_ellipsis {
        list.push(Rec {
            diff: 0,
            key: String::new(),
            value: line(ELLIPSIS),
            elide_comma: true,
            comment: stats.map(|(s, n)| s.describe(n)),
        });
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum TypeMode {
    Emit,
    Elide,
    Auto,
}

#[derive(Clone, Copy)]
struct Opts {
    /// 0 (unknown), b' ', b'-', b'+'.
    mode: u8,
    types: TypeMode,
    verbosity: i32,
}

fn is_composite(g: &Go) -> bool {
    matches!(g, Go::Struct(..) | Go::Slice(..) | Go::Map(..))
}

fn type_of(g: &Go) -> String {
    match g {
        Go::Struct(t, _) => (*t).to_string(),
        Go::Slice(t, _) | Go::Map(t, _) => t.clone(),
        _ => String::new(),
    }
}

/// `FormatType` for a composite `g`.
fn format_type(o: Opts, composite: bool, ty: &str, s: Text) -> Text {
    match o.types {
        TypeMode::Auto => {
            if !composite || s == line(NIL) || o.mode == b' ' {
                return s;
            }
        }
        TypeMode::Elide => return s,
        TypeMode::Emit => {}
    }
    if let Text::Wrap(p, _, x) = &s
        && ((p.starts_with('{') && x.ends_with('}')) || (p.starts_with('(') && x.ends_with(')')))
    {
        return Text::Wrap(ty.to_string(), Box::new(s), String::new());
    }
    Text::Wrap(
        ty.to_string(),
        Box::new(Text::Wrap("(".into(), Box::new(s), ")".into())),
        String::new(),
    )
}

/// `formatString`: quoted, or raw in backquotes when that is as short.
fn go_string(s: &str) -> String {
    let q = go_quote(s);
    if q.len() == s.len() + 2 {
        return q;
    }
    let raw_ok = s
        .chars()
        .all(|c| c != '`' && c != '\n' && (c == '\t' || !c.is_control()));
    if raw_ok {
        return format!("`{s}`");
    }
    q
}

/// `formatOptions.formatString`, single-line.
fn format_string(o: Opts, s: &str) -> Text {
    let max = (1_usize << o.verbosity.clamp(0, 16)) << 5;
    if s.len() > max + ELLIPSIS.len() {
        let mut cut = max;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        return line(format!("{}{ELLIPSIS}", go_string(&s[..cut])));
    }
    line(go_string(s))
}

fn limit(o: &mut Opts) -> usize {
    let n = ((1_usize << o.verbosity.clamp(0, 16)) >> 1) << 2;
    o.verbosity -= 1;
    n
}

/// `FormatValue`'s records of a struct, slice or map: each value with
/// `types`, up to the verbosity's number, then `...`.
fn records<'g>(
    o: &mut Opts,
    types: TypeMode,
    items: impl Iterator<Item = (String, &'g Go)>,
) -> Text {
    let max = limit(o);
    let inner = Opts { types, ..*o };
    let mut list = Vec::new();
    for (k, v) in items {
        if list.len() == max {
            append_ellipsis(&mut list, None);
            break;
        }
        list.push(rec(&k, format_value(inner, v)));
    }
    braces(list)
}

/// `FormatValue`.
fn format_value(mut o: Opts, g: &Go) -> Text {
    let out = match g {
        Go::Nil => return line(NIL),
        Go::Bool(b) => line(b.to_string()),
        Go::Int(i) => line(i.to_string()),
        Go::Str(s) => format_string(o, s),
        Go::Opaque(s) => line(s.clone()),
        Go::Whole(inner, _) => return format_value(o, inner),
        Go::Ptr(inner) => {
            let v = format_value(o, inner);
            return Text::Wrap("&".into(), Box::new(v), String::new());
        }
        Go::Struct(_, fields) => {
            let nonzero = fields.iter().filter(|(_, v)| !v.is_zero());
            records(
                &mut o,
                TypeMode::Auto,
                nonzero.map(|(k, v)| ((*k).to_string(), v)),
            )
        }
        Go::Slice(_, items) => records(
            &mut o,
            TypeMode::Elide,
            items.iter().map(|v| (String::new(), v)),
        ),
        Go::Map(ty, entries) => records(
            &mut o,
            TypeMode::Elide,
            entries.iter().map(|(k, v)| (map_key(ty, k), v)),
        ),
    };
    format_type(o, is_composite(g), &type_of(g), out)
}

/// `FormatDiff`.
fn format_diff(mut o: Opts, v: &Node) -> Text {
    o.verbosity = if o.mode == b' ' { 1 } else { 3 };
    if v.max_depth == 0 {
        let (x, y) = (v.x, v.y);
        return match o.mode {
            b'-' => x.map_or_else(|| line(""), |x| format_value(o, x)),
            b'+' => y.map_or_else(|| line(""), |y| format_value(o, y)),
            _ => {
                let fx = x.map(|x| format_value(o, x));
                let fy = y.map(|y| format_value(o, y));
                match (fx, fy) {
                    (Some(a), Some(b)) => {
                        if len(&a) < len(&b) {
                            a
                        } else {
                            b
                        }
                    }
                    (a, b) => a.or(b).unwrap_or_else(|| line("")),
                }
            }
        };
    }
    match v.kind {
        Kind::Ptr => {
            let inner = v
                .records
                .first()
                .map_or_else(|| line(NIL), |(_, c)| format_diff(o, c));
            Text::Wrap("&".into(), Box::new(inner), String::new())
        }
        kind => {
            let list = format_list(o, &v.records, kind);
            format_type(o, true, &v.ty, list)
        }
    }
}

/// `formatDiffList`.
fn format_list(mut o: Opts, recs: &[(String, Node)], kind: Kind) -> Text {
    let name = match kind {
        Kind::Struct => {
            o.types = TypeMode::Auto;
            "field"
        }
        Kind::Map => {
            o.types = TypeMode::Elide;
            "entry"
        }
        _ => {
            o.types = TypeMode::Elide;
            "element"
        }
    };
    let key = |k: &str| {
        if kind == Kind::Slice {
            String::new()
        } else {
            k.to_string()
        }
    };
    let max_len = if o.mode == b' ' {
        ((1_usize << o.verbosity) >> 1) << 2
    } else {
        (1_usize << o.verbosity) << 1
    };
    o.verbosity -= 1;

    if o.mode != 0 {
        let mut list = Vec::new();
        let mut deferred = false;
        for (k, r) in recs {
            if list.len() == max_len {
                deferred = true;
                break;
            }
            if kind == Kind::Struct {
                let zero = |g: Option<&Go>| g.is_none_or(Go::is_zero);
                let is_zero = match o.mode {
                    b' ' => zero(r.x) || zero(r.y),
                    b'-' => zero(r.x),
                    _ => zero(r.y),
                };
                if is_zero {
                    continue;
                }
            }
            list.push(rec(&key(k), format_diff(o, r)));
        }
        if deferred {
            append_ellipsis(&mut list, None);
        }
        return braces(list);
    }

    // coalesceAdjacentRecords
    let mut groups: Vec<Stats> = Vec::new();
    let mut prev = 0;
    for (_, r) in recs {
        let case = if r.num_diff == 0 { 1 } else { 2 };
        if prev != case {
            groups.push(Stats::default());
            prev = case;
        }
        let g = groups.last_mut().expect("a group was pushed");
        if r.num_diff == 0 {
            g.identical += 1;
        } else if r.y.is_none() {
            g.removed += 1;
        } else if r.x.is_none() {
            g.inserted += 1;
        } else {
            g.modified += 1;
        }
    }
    let mut list: Vec<Rec> = Vec::new();
    let mut rest = recs;
    let mut num_diffs = 0;
    let mut over = Stats::default();
    let mut has_over = false;
    let last = groups.len().saturating_sub(1);
    for (i, ds) in groups.iter().enumerate() {
        if num_diffs >= max_len {
            over.identical += ds.identical;
            over.removed += ds.removed;
            over.inserted += ds.inserted;
            over.modified += ds.modified;
            has_over = true;
            continue;
        }
        if ds.diffs() == 0 {
            let equal = ds.identical;
            let (mut lo, mut hi) = (0, 0);
            while lo < CONTEXT && lo + hi < equal && i != 0 {
                lo += 1;
            }
            while hi < CONTEXT && lo + hi < equal && i != last {
                hi += 1;
            }
            if equal - (lo + hi) == 1 {
                hi += 1;
            }
            let same = Opts { mode: b' ', ..o };
            for (k, r) in &rest[..lo] {
                list.push(rec(&key(k), format_diff(same, r)));
            }
            if equal > lo + hi {
                let left = Stats {
                    identical: equal - lo - hi,
                    ..Stats::default()
                };
                append_ellipsis(&mut list, Some((left, name)));
            }
            for (k, r) in &rest[equal - hi..equal] {
                list.push(rec(&key(k), format_diff(same, r)));
            }
            rest = &rest[equal..];
            continue;
        }
        let n = ds.diffs();
        for (k, r) in &rest[..n] {
            if r.num_children == r.max_depth {
                let outx = r.x.map(|_| format_diff(Opts { mode: b'-', ..o }, r));
                let outy = r.y.map(|_| format_diff(Opts { mode: b'+', ..o }, r));
                for (d, out) in [(b'-', outx), (b'+', outy)] {
                    if let Some(value) = out {
                        list.push(Rec {
                            diff: d,
                            ..rec(&key(k), value)
                        });
                    }
                }
            } else {
                list.push(rec(&key(k), format_diff(o, r)));
            }
        }
        rest = &rest[n..];
        num_diffs += n;
    }
    if has_over {
        append_ellipsis(&mut list, Some((over, name)));
    }
    braces(list)
}

fn len(t: &Text) -> usize {
    match t {
        Text::Line(s) => s.len(),
        Text::Wrap(p, v, s) => p.len() + len(v) + s.len(),
        Text::List(recs) => {
            let mut n = 0;
            for (i, r) in recs.iter().enumerate() {
                n += r.key.len();
                if !r.key.is_empty() {
                    n += 2;
                }
                n += len(&r.value);
                if i + 1 < recs.len() {
                    n += 2;
                }
            }
            n
        }
    }
}

/// `formatCompactTo`: `t` on one line if it fits, as far as it does.
fn compact(t: &Text, b: &mut String, d: u8) -> Text {
    match t {
        Text::Line(s) => {
            b.push_str(s);
            t.clone()
        }
        Text::Wrap(p, v, s) => {
            let n0 = b.len();
            b.push_str(p);
            let v = compact(v, b, d);
            b.push_str(s);
            if matches!(v, Text::Line(_)) {
                return line(&b[n0..]);
            }
            Text::Wrap(p.clone(), Box::new(v), s.clone())
        }
        Text::List(recs) => {
            let n0 = b.len();
            let mut multi = false;
            let mut out = recs.clone();
            for (i, r) in recs.iter().enumerate() {
                if r.diff == b'+' || r.diff == b'-' {
                    multi = true;
                }
                b.push_str(&r.key);
                if !r.key.is_empty() {
                    b.push_str(": ");
                }
                out[i].value = compact(&r.value, b, d | r.diff);
                if !matches!(out[i].value, Text::Line(_)) || r.comment.is_some() {
                    multi = true;
                }
                if i + 1 < recs.len() {
                    b.push_str(", ");
                }
            }
            if (d == b'+' || d == b'-') && b.len() - n0 > MAX_COLUMN {
                multi = true;
            }
            if multi {
                Text::List(out)
            } else {
                line(&b[n0..])
            }
        }
    }
}

fn indent(b: &mut String, n: usize, d: u8) {
    b.push_str(match d {
        b'-' => "- ",
        b'+' => "+ ",
        _ => "  ",
    });
    for _ in 0..n {
        b.push('\t');
    }
}

/// `textList.alignLens`.
fn align(recs: &[Rec], skip: impl Fn(&Rec) -> bool, width: impl Fn(&Rec) -> usize) -> Vec<usize> {
    let mut lens = vec![0; recs.len()];
    let (mut start, mut end, mut max) = (0, 0, 0);
    for (i, r) in recs.iter().enumerate() {
        if skip(r) {
            for j in start..end {
                lens[j] = max - width(&recs[j]);
            }
            (start, end, max) = (i + 1, i + 1, 0);
        } else {
            max = max.max(width(r));
            end = i + 1;
        }
    }
    for j in start..end {
        lens[j] = max - width(&recs[j]);
    }
    lens
}

fn line_len(t: &Text) -> usize {
    match t {
        Text::Line(s) => s.chars().count(),
        _ => 0,
    }
}

/// `formatExpandedTo`.
fn expand(t: &Text, b: &mut String, d: u8, n: usize) {
    match t {
        Text::Line(s) => b.push_str(s),
        Text::Wrap(p, v, s) => {
            b.push_str(p);
            expand(v, b, d, n);
            b.push_str(s);
        }
        Text::List(recs) => {
            let is_line = |r: &Rec| matches!(r.value, Text::Line(_));
            let keys = align(
                recs,
                |r| r.key.is_empty() || !is_line(r),
                |r| r.key.chars().count(),
            );
            let values = align(
                recs,
                |r| !is_line(r) || r.value == line(ELLIPSIS) || r.comment.is_none(),
                |r| line_len(&r.value),
            );
            let simple = recs
                .iter()
                .all(|r| r.diff == 0 && r.key.is_empty() && is_line(r) && r.comment.is_none());
            if simple && !recs.is_empty() {
                let mut batch = String::new();
                let emit = |b: &mut String, batch: &mut String| {
                    if !batch.is_empty() {
                        b.push('\n');
                        indent(b, n + 1, d);
                        b.push_str(batch.trim_end_matches(' '));
                        batch.clear();
                    }
                };
                for r in recs {
                    let Text::Line(l) = &r.value else { continue };
                    if batch.len() + l.len() + 2 > MAX_COLUMN {
                        emit(b, &mut batch);
                    }
                    batch.push_str(l);
                    batch.push_str(", ");
                }
                emit(b, &mut batch);
                b.push('\n');
                indent(b, n, d);
                return;
            }
            for (i, r) in recs.iter().enumerate() {
                b.push('\n');
                indent(b, n + 1, d | r.diff);
                if !r.key.is_empty() {
                    b.push_str(&r.key);
                    b.push_str(": ");
                }
                b.push_str(&" ".repeat(keys[i]));
                expand(&r.value, b, d | r.diff, n + 1);
                if !r.elide_comma {
                    b.push(',');
                }
                b.push_str(&" ".repeat(values[i]));
                if let Some(c) = &r.comment {
                    b.push_str(" // ");
                    b.push_str(c);
                }
            }
            b.push('\n');
            indent(b, n, d);
        }
    }
}

/// `cmp.Diff(x, y)`: empty when they are equal.
#[must_use]
pub fn diff(x: &Go, y: &Go) -> String {
    let root = compare(Some(x), Some(y));
    if root.num_diff == 0 {
        return String::new();
    }
    let o = Opts {
        mode: 0,
        types: TypeMode::Emit,
        verbosity: 3,
    };
    let text = format_diff(o, &root);
    let mut scratch = String::new();
    let compacted = compact(&text, &mut scratch, 0);
    let mut b = String::new();
    indent(&mut b, 0, 0);
    expand(&compacted, &mut b, 0, 0);
    b.push('\n');
    b
}

#[cfg(test)]
mod tests {
    use super::super::go_value::pod_spec;
    use super::*;
    use serde_json::json;

    fn spec(grace: i64, restart: &str, pull: &str) -> Go {
        pod_spec(&json!({
            "containers": [{"name": "c", "image": "busybox:1", "imagePullPolicy": pull,
                            "resources": {}, "terminationMessagePath": "/dev/termination-log",
                            "terminationMessagePolicy": "File"}],
            "restartPolicy": restart, "terminationGracePeriodSeconds": grace,
            "activeDeadlineSeconds": 100, "dnsPolicy": "ClusterFirst",
            "securityContext": {}, "schedulerName": "default-scheduler",
            "enableServiceLinks": true, "priority": 0,
            "preemptionPolicy": "PreemptLowerPriority",
        }))
    }

    /// What kube-apiserver 1.20.2 printed on the test control plane for
    /// the same changes: a merge patch of `terminationGracePeriodSeconds`;
    /// a strategic merge patch of the restart policy and a container's
    /// pull policy. (grace, restart policy, pull policy) new, then the
    /// diff against (30, "Always", "IfNotPresent").
    #[test]
    fn changes_read_as_on_a_real_control_plane() {
        let cases = [
            (
                (10, "Always", "IfNotPresent"),
                "  core.PodSpec{\n  \t... // 3 identical fields\n  \tEphemeralContainers:           nil,\n  \tRestartPolicy:                 \"Always\",\n- \tTerminationGracePeriodSeconds: &10,\n+ \tTerminationGracePeriodSeconds: &30,\n  \tActiveDeadlineSeconds:         &100,\n  \tDNSPolicy:                     \"ClusterFirst\",\n  \t... // 22 identical fields\n  }\n",
            ),
            (
                (30, "Never", "Always"),
                "  core.PodSpec{\n  \tVolumes:        nil,\n  \tInitContainers: nil,\n  \tContainers: []core.Container{\n  \t\t{\n  \t\t\t... // 15 identical fields\n  \t\t\tTerminationMessagePath:   \"/dev/termination-log\",\n  \t\t\tTerminationMessagePolicy: \"File\",\n- \t\t\tImagePullPolicy:          \"Always\",\n+ \t\t\tImagePullPolicy:          \"IfNotPresent\",\n  \t\t\tSecurityContext:          nil,\n  \t\t\tStdin:                    false,\n  \t\t\t... // 2 identical fields\n  \t\t},\n  \t},\n  \tEphemeralContainers:           nil,\n- \tRestartPolicy:                 \"Never\",\n+ \tRestartPolicy:                 \"Always\",\n  \tTerminationGracePeriodSeconds: &30,\n  \tActiveDeadlineSeconds:         &100,\n  \t... // 23 identical fields\n  }\n",
            ),
        ];
        let old = spec(30, "Always", "IfNotPresent");
        for ((grace, restart, pull), real) in cases {
            assert_eq!(diff(&spec(grace, restart, pull), &old), real);
        }
    }

    #[test]
    fn equal_values_have_no_diff() {
        let a = spec(30, "Always", "IfNotPresent");
        assert_eq!(diff(&a, &a.clone()), "");
    }
}
