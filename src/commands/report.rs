//! `why ... -o markdown`: the answer as an on-call engineer pastes it into
//! a ticket or a chat. Markdown that reads as plain text too: the object,
//! the answer, the blocker chain, the causes and fixes in order, the
//! evidence with its timestamps (the whole `why` answer), and the kubectl
//! commands to look and to act, the safe ones first. And `why ... -o dot`:
//! the blocker chain as a picture.

use std::fmt::Write as _;

use crate::model::diagnosis::{Blocker, Diagnosis, FinalizerStatus};
use crate::model::object::ObjRef;

/// Finalizers the garbage collector owns: never removed by hand (removing
/// `foregroundDeletion` lets the owner go and leaves its dependents).
const GC_FINALIZERS: &[&str] = &["foregroundDeletion", "orphan"];

/// The report.
#[must_use]
pub fn why_markdown(d: &Diagnosis) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Why is `{}` still here?\n", name(&d.object));
    let _ = writeln!(s, "**Answer:** {}\n", one_line(&d.headline()));
    s.push_str("| | |\n|---|---|\n");
    let _ = writeln!(s, "| object | `{}` |", d.object);
    let _ = writeln!(s, "| uid | `{}` |", d.object.uid);
    if let Some(ts) = d.terminating_since {
        let _ = writeln!(s, "| deletionTimestamp | {ts} |");
    }
    if !d.finalizers.is_empty() {
        let names: Vec<String> = d
            .finalizers
            .iter()
            .map(|f| format!("`{}`", f.info.name))
            .collect();
        let _ = writeln!(s, "| finalizers | {} |", names.join(", "));
    }
    let _ = writeln!(s, "| reported by | ownerscope {} |", crate::cli::VERSION);
    s.push('\n');

    if !d.blockers.is_empty() {
        s.push_str("## Blocker chain\n\n");
        let _ = writeln!(s, "- `{}`: {}", name(&d.object), d.waiting_summary());
        for b in &d.blockers {
            blocker(b, 1, &mut s);
        }
        if d.more_blockers > 0 {
            let _ = writeln!(s, "  - … and {} more", d.more_blockers);
        }
        s.push('\n');
    }

    if !d.causes.is_empty() {
        s.push_str("## Causes and fixes, in order\n\n");
        for (i, c) in d.causes.iter().enumerate() {
            let _ = writeln!(s, "{}. {}", i + 1, one_line(c));
        }
        s.push('\n');
    }

    s.push_str("## Commands\n\n```sh\n");
    for line in commands(d) {
        s.push_str(&line);
        s.push('\n');
    }
    s.push_str("```\n\n");

    s.push_str("## Evidence\n\nThe whole answer, as `ownerscope why` gives it:\n\n```text\n");
    let _ = writeln!(s, "{}", d.object);
    for l in d.lines() {
        s.push_str(&l);
        s.push('\n');
    }
    s.push_str("```\n");
    s
}

fn name(o: &ObjRef) -> String {
    format!("{}/{}", o.kind, o.name)
}

/// Text for one Markdown line: no line breaks, no backticks that would
/// open code spans the report did not mean.
fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

fn blocker(b: &Blocker, depth: usize, s: &mut String) {
    let pad = "  ".repeat(depth);
    let _ = writeln!(s, "{pad}- `{}`: {}", name(&b.object), one_line(&b.state));
    for f in &b.finalizers {
        let _ = writeln!(
            s,
            "{pad}  - finalizer `{}`: {}",
            f.info.name,
            who_removes(f)
        );
    }
    if let Some(st) = &b.stranded
        && let Some(first) = st.explanation.first()
    {
        let _ = writeln!(s, "{pad}  - {}", one_line(first));
    }
    for c in &b.blocked_by {
        blocker(c, depth + 1, s);
    }
    if b.more > 0 {
        let _ = writeln!(s, "{pad}  - … and {} more", b.more);
    }
}

fn who_removes(f: &FinalizerStatus) -> String {
    match f.controller_online {
        Some(true) => "its controller is online and will remove it".into(),
        Some(false) => "its controller is OFFLINE: nothing removes it".into(),
        None => format!("removed by {}", one_line(&f.info.removed_by)),
    }
}

/// `kubectl` words for an object: `deployment.apps web -n shop`.
fn kubectl_ref(o: &ObjRef) -> String {
    let kind = o.kind.to_lowercase();
    let resource = match o.api_version.split_once('/') {
        Some((group, _)) => format!("{kind}.{group}"),
        None => kind,
    };
    match &o.namespace {
        Some(ns) => format!("{resource} {} -n {ns}", shell_word(&o.name)),
        None => format!("{resource} {}", shell_word(&o.name)),
    }
}

/// A word the shell takes as it is: names are DNS labels and subdomains,
/// but a file can hold anything, so anything else is single-quoted.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | ':' | '/'))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The commands, safe ones first: look, then what the fixes say, and the
/// finalizer removal by hand last, each with what it skips.
fn commands(d: &Diagnosis) -> Vec<String> {
    let mut out = vec![
        "# Look: the object and its events".to_string(),
        format!("kubectl get {} -o yaml", kubectl_ref(&d.object)),
    ];
    let events_ns = d.object.namespace.as_deref().unwrap_or("default");
    out.push(format!(
        "kubectl get events -n {} --field-selector involvedObject.name={}",
        shell_word(events_ns),
        shell_word(&d.object.name)
    ));
    // Everything held: the object, then its blockers, depth first.
    let mut held: Vec<(&ObjRef, &[FinalizerStatus], Option<&str>)> = vec![(
        &d.object,
        &d.finalizers,
        d.stranded.as_ref().and_then(|s| s.node.node()),
    )];
    fn walk<'a>(
        b: &'a Blocker,
        held: &mut Vec<(&'a ObjRef, &'a [FinalizerStatus], Option<&'a str>)>,
    ) {
        held.push((
            &b.object,
            &b.finalizers,
            b.stranded.as_ref().and_then(|s| s.node.node()),
        ));
        for c in &b.blocked_by {
            walk(c, held);
        }
    }
    for b in &d.blockers {
        walk(b, &mut held);
    }
    for (obj, finalizers, node) in held {
        if let Some(node) = node {
            out.push(String::new());
            out.push(format!(
                "# {} waits for the kubelet of Node/{node}: bring the node back; once the machine is surely gone:",
                name(obj)
            ));
            out.push(format!("kubectl get node {} -o wide", shell_word(node)));
            out.push(format!(
                "kubectl delete node {}   # the pod GC then force-deletes its pods",
                shell_word(node)
            ));
        }
        for (i, f) in finalizers.iter().enumerate() {
            if GC_FINALIZERS.contains(&f.info.name.as_str()) || f.controller_online == Some(true) {
                continue;
            }
            out.push(String::new());
            out.push(format!(
                "# {} holds finalizer {}, removed by: {}. Fix that first.",
                name(obj),
                f.info.name,
                one_line(&f.info.removed_by)
            ));
            out.push(format!(
                "# Last resort, once it is surely not coming back (skips its cleanup: {}):",
                one_line(&f.info.meaning)
            ));
            let patch = serde_json::json!([
                {"op": "test", "path": format!("/metadata/finalizers/{i}"), "value": f.info.name},
                {"op": "remove", "path": format!("/metadata/finalizers/{i}")}
            ]);
            out.push(format!(
                "kubectl patch {} --type json -p {}",
                kubectl_ref(obj),
                shell_word(&patch.to_string())
            ));
        }
    }
    out
}

/// The blocker chain for Graphviz: the object, an edge `waits on` to each
/// blocking dependent (and on down), each node with its state and its
/// finalizers, red where nothing will remove one (its controller offline,
/// or a node that does not report).
#[must_use]
pub fn why_dot(d: &Diagnosis) -> String {
    let mut s = String::from(
        "digraph why {\n  rankdir=LR;\n  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n",
    );
    let mut lines = vec![name(&d.object)];
    if let Some(secs) = d.terminating_seconds {
        lines.push(crate::model::badges::terminating(secs));
    }
    let mut held = false;
    for f in &d.finalizers {
        lines.push(format!("finalizer {}", f.info.name));
        held |= f.controller_online == Some(false);
    }
    let _ = writeln!(
        s,
        "  n0 [label=\"{}\"{}];",
        super::graph::dot_escape(&lines.join("\n")),
        if held || d.stranded.is_some() {
            STUCK
        } else if d.terminating_seconds.is_some() {
            ", fillcolor=\"#fde0dc\""
        } else {
            ""
        }
    );
    let mut next = 1;
    for b in &d.blockers {
        dot_blocker(b, 0, &mut next, &mut s);
    }
    if d.more_blockers > 0 {
        let _ = writeln!(
            s,
            "  more [label=\"… and {} more\", style=dashed];\n  n0 -> more;",
            d.more_blockers
        );
    }
    // The answer, under the picture.
    let _ = writeln!(
        s,
        "  label=\"{}\";\n  labelloc=b;",
        super::graph::dot_escape(&d.headline())
    );
    s.push_str("}\n");
    s
}

/// The style of what nothing will move on: red, bold.
const STUCK: &str = ", fillcolor=\"#fde0dc\", color=\"#c62828\", penwidth=2";

fn dot_blocker(b: &Blocker, parent: usize, next: &mut usize, s: &mut String) {
    let id = *next;
    *next += 1;
    let mut lines = vec![name(&b.object), b.state.clone()];
    let mut held = b.stranded.is_some();
    for f in &b.finalizers {
        let who = match f.controller_online {
            Some(true) => "controller online",
            Some(false) => "controller OFFLINE",
            None => "",
        };
        held |= f.controller_online == Some(false);
        lines.push(if who.is_empty() {
            format!("finalizer {}", f.info.name)
        } else {
            format!("finalizer {} ({who})", f.info.name)
        });
    }
    if let Some(node) = b.stranded.as_ref().and_then(|st| st.node.node()) {
        lines.push(format!("waits for the kubelet of Node/{node}"));
    }
    let _ = writeln!(
        s,
        "  n{id} [label=\"{}\"{}];\n  n{parent} -> n{id} [label=\"waits on\"];",
        super::graph::dot_escape(&lines.join("\n")),
        if held { STUCK } else { "" }
    );
    for c in &b.blocked_by {
        dot_blocker(c, id, next, s);
    }
}

/// `plan -o markdown`: what a DELETE would do, for a change ticket or a
/// chat before it is sent: the request, the answer, each object's fate
/// (races said as such), what could not be seen, and the command.
#[must_use]
pub fn plan_markdown(p: &crate::model::preview::Plan) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# What `DELETE {}` would do\n", name(&p.target));
    let _ = writeln!(s, "**Answer:** {}\n", one_line(&p.summary()));
    s.push_str("| | |\n|---|---|\n");
    let _ = writeln!(s, "| object | `{}` |", p.target);
    let _ = writeln!(s, "| uid | `{}` |", p.target.uid);
    let _ = writeln!(s, "| propagationPolicy | {} |", p.policy);
    if let Some(n) = &p.policy_note {
        let _ = writeln!(s, "| why that policy | {} |", one_line(n));
    }
    let _ = writeln!(s, "| reported by | ownerscope {} |", crate::cli::VERSION);
    s.push('\n');
    let unseen = crate::model::kinds::unseen_lines(
        &p.partial.unlisted,
        "counts are lower bounds; objects of those kinds may also be deleted, orphaned or hold things up",
    );
    if !unseen.is_empty() {
        s.push_str("## Not seen\n\n");
        for l in unseen {
            let _ = writeln!(s, "- {}", one_line(&l));
        }
        s.push('\n');
    }
    s.push_str("## Each object\n\n| object | outcome | then |\n|---|---|---|\n");
    for e in &p.entries {
        let mut outcome = e.outcome.short();
        if let Some(w) = &e.either_way {
            let _ = write!(outcome, "; may go either way: {}", w.reason);
        }
        let _ = writeln!(
            s,
            "| `{}/{}` | {} | {} |",
            e.object.kind(),
            e.object.name(),
            one_line(&outcome).replace('|', "\\|"),
            one_line(e.then.as_deref().unwrap_or("")).replace('|', "\\|")
        );
    }
    s.push_str("\n## The command\n\n```sh\n");
    let _ = writeln!(
        s,
        "kubectl delete {} --cascade={}",
        kubectl_ref(&p.target),
        p.policy.as_str().to_ascii_lowercase()
    );
    s.push_str("```\n");
    s
}
