//! Pictures of the ownership graph for a ticket: `tree -o dot` (Graphviz)
//! and `tree -o mermaid` (rendered by GitHub, GitLab and most wikis).
//!
//! Drawn from the same forest `tree` prints, once per object (an object
//! with several owners is one node with an edge from each): an edge goes
//! from owner to dependent and is labelled with the reference's
//! `controller` and `blockOwnerDeletion` flags; a node says Terminating
//! (for how long) and names its finalizers; a reference that does not
//! resolve is a dashed red edge from a dashed node named after what it
//! points at; selector relations (a Service or a workload selecting pods)
//! are dotted blue edges labelled `selects`, never drawn as ownership.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::model::OwnershipGraph;
use crate::model::badges::Badge;
use crate::model::forest::{ForestGroup, ForestNode};
use crate::model::graph::RefStatus;
use crate::model::object::ObjRef;
use crate::model::relations::{PodSelector, pod_selector};

/// The graph to draw: nodes with their group, ownership edges, selector
/// edges, references that do not resolve.
#[derive(Debug, Default)]
pub struct Picture {
    /// By uid: the object, its group label, its own badges.
    nodes: BTreeMap<String, Node>,
    /// Node order as first met (the forest's order), for stable output.
    order: Vec<String>,
    /// (owner uid, dependent uid, flags), once each.
    edges: Vec<(String, String, Vec<&'static str>)>,
    /// (a node standing for the missing owner, dependent uid, why).
    broken: Vec<(String, String, String)>,
    /// (selector's uid, pod's uid).
    selects: Vec<(String, String)>,
}

#[derive(Debug)]
struct Node {
    object: ObjRef,
    group: String,
    terminating: Option<String>,
    finalizers: Vec<String>,
    /// A dashed node for a reference that does not resolve: red, unless
    /// its owner's kind could not be listed (then unverified, grey).
    missing: bool,
    /// For such a node: why the reference does not resolve.
    unresolved: Option<String>,
}

impl Picture {
    /// The picture of `groups` (as `tree` built them), with the selector
    /// relations `graph` knows between the objects drawn.
    #[must_use]
    pub fn of(groups: &[ForestGroup], graph: &OwnershipGraph) -> Self {
        let mut p = Picture::default();
        for g in groups {
            for root in &g.roots {
                p.walk(root, None);
            }
        }
        p.add_selectors(graph);
        p
    }

    fn walk(&mut self, node: &ForestNode, parent: Option<&str>) {
        let uid = node.object.uid.to_string();
        if !self.nodes.contains_key(&uid) {
            let mut n = Node {
                group: group_of(&node.object),
                object: node.object.clone(),
                terminating: None,
                finalizers: Vec::new(),
                missing: false,
                unresolved: None,
            };
            for b in &node.badges {
                match b {
                    Badge::Terminating { .. } => n.terminating = Some(b.text()),
                    Badge::Finalizers { names } => n.finalizers.clone_from(names),
                    Badge::Problem { status, owner } => {
                        let why = status.label().to_string();
                        let id = format!("missing:{}:{owner}", n.group);
                        if !self.nodes.contains_key(&id) {
                            let (kind, name) = owner.split_once('/').unwrap_or(("", owner));
                            self.nodes.insert(
                                id.clone(),
                                Node {
                                    object: ObjRef {
                                        api_version: String::new(),
                                        kind: kind.to_string(),
                                        namespace: node.object.namespace.clone(),
                                        name: name.to_string(),
                                        uid: id.clone(),
                                    },
                                    group: n.group.clone(),
                                    terminating: None,
                                    finalizers: Vec::new(),
                                    missing: !matches!(status, RefStatus::Unverified { .. }),
                                    unresolved: Some(why.clone()),
                                },
                            );
                            self.order.push(id.clone());
                        }
                        self.broken.push((id, uid.clone(), why));
                    }
                    _ => {}
                }
            }
            self.nodes.insert(uid.clone(), n);
            self.order.push(uid.clone());
        }
        if let Some(parent) = parent {
            let flags: Vec<&'static str> = node
                .badges
                .iter()
                .filter_map(|b| match b {
                    Badge::Controller => Some("controller"),
                    Badge::BlockOwnerDeletion => Some("blockOwnerDeletion"),
                    _ => None,
                })
                .collect();
            if !self.edges.iter().any(|(o, d, _)| o == parent && *d == uid) {
                self.edges.push((parent.to_string(), uid.clone(), flags));
            }
        }
        for c in &node.children {
            self.walk(c, Some(&uid));
        }
    }

    fn add_selectors(&mut self, graph: &OwnershipGraph) {
        let drawn: Vec<String> = self.order.clone();
        for uid in &drawn {
            let Some(obj) = graph.get(uid) else { continue };
            let PodSelector::Known(sel) = pod_selector(obj) else {
                continue;
            };
            for pod in &drawn {
                let Some(p) = graph.get(pod) else { continue };
                if p.is_pod() && p.namespace() == obj.namespace() && sel.matches(&p.metadata.labels)
                {
                    self.selects.push((uid.clone(), pod.clone()));
                }
            }
        }
    }

    fn ids(&self) -> BTreeMap<&str, String> {
        self.order
            .iter()
            .enumerate()
            .map(|(i, uid)| (uid.as_str(), format!("n{i}")))
            .collect()
    }

    /// Groups in the order first met, each with its nodes' uids.
    fn groups(&self) -> Vec<(&str, Vec<&str>)> {
        let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
        for uid in &self.order {
            let g = self.nodes[uid].group.as_str();
            match out.iter_mut().find(|(name, _)| *name == g) {
                Some((_, v)) => v.push(uid),
                None => out.push((g, vec![uid])),
            }
        }
        out
    }

    /// Graphviz DOT.
    #[must_use]
    pub fn to_dot(&self) -> String {
        let ids = self.ids();
        let mut s = String::from(
            "digraph ownership {\n  rankdir=LR;\n  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n",
        );
        for (gi, (group, members)) in self.groups().iter().enumerate() {
            let _ = writeln!(
                s,
                "  subgraph cluster_{gi} {{\n    label=\"{}\";\n    style=dashed;",
                dot_escape(group)
            );
            for uid in members {
                let n = &self.nodes[*uid];
                let mut attrs = format!("label=\"{}\"", dot_escape(&node_lines(n).join("\n")));
                if n.missing {
                    attrs.push_str(", style=\"rounded,dashed\", color=red, fontcolor=red");
                } else if n.unresolved.is_some() {
                    attrs.push_str(", style=\"rounded,dashed\", color=gray40");
                } else if n.terminating.is_some() {
                    attrs.push_str(", fillcolor=\"#fde0dc\", color=\"#c62828\", penwidth=2");
                } else if !n.finalizers.is_empty() {
                    attrs.push_str(", fillcolor=\"#fff4d6\"");
                }
                let _ = writeln!(s, "    {} [{attrs}];", ids[*uid]);
            }
            s.push_str("  }\n");
        }
        for (o, d, flags) in &self.edges {
            let label = flags.join("\\n");
            let style = if flags.contains(&"blockOwnerDeletion") {
                ", penwidth=2"
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "  {} -> {} [label=\"{label}\"{style}];",
                ids[o.as_str()],
                ids[d.as_str()]
            );
        }
        for (m, d, why) in &self.broken {
            let _ = writeln!(
                s,
                "  {} -> {} [label=\"{}\", style=dashed, color=red, fontcolor=red];",
                ids[m.as_str()],
                ids[d.as_str()],
                dot_escape(why)
            );
        }
        for (sel, pod) in &self.selects {
            let _ = writeln!(
                s,
                "  {} -> {} [label=\"selects\", style=dotted, color=blue, fontcolor=blue, arrowhead=empty, constraint=false];",
                ids[sel.as_str()],
                ids[pod.as_str()]
            );
        }
        s.push_str("}\n");
        s
    }

    /// A Mermaid flowchart.
    #[must_use]
    pub fn to_mermaid(&self) -> String {
        let ids = self.ids();
        let mut s = String::from("flowchart LR\n");
        for (gi, (group, members)) in self.groups().iter().enumerate() {
            let _ = writeln!(s, "  subgraph g{gi}[\"{}\"]", mermaid_escape(group));
            for uid in members {
                let n = &self.nodes[*uid];
                let label = node_lines(n)
                    .iter()
                    .map(|l| mermaid_escape(l))
                    .collect::<Vec<_>>()
                    .join("<br/>");
                let _ = writeln!(s, "    {}[\"{label}\"]", ids[*uid]);
            }
            s.push_str("  end\n");
        }
        for (o, d, flags) in &self.edges {
            let arrow = if flags.contains(&"blockOwnerDeletion") {
                "==>"
            } else {
                "-->"
            };
            if flags.is_empty() {
                let _ = writeln!(s, "  {} {arrow} {}", ids[o.as_str()], ids[d.as_str()]);
            } else {
                let _ = writeln!(
                    s,
                    "  {} {arrow}|{}| {}",
                    ids[o.as_str()],
                    flags.join(" "),
                    ids[d.as_str()]
                );
            }
        }
        for (m, d, why) in &self.broken {
            let _ = writeln!(
                s,
                "  {} -.->|{}| {}",
                ids[m.as_str()],
                mermaid_escape(why),
                ids[d.as_str()]
            );
        }
        for (sel, pod) in &self.selects {
            let _ = writeln!(
                s,
                "  {} -. selects .-> {}",
                ids[sel.as_str()],
                ids[pod.as_str()]
            );
        }
        s.push_str("  classDef terminating fill:#fde0dc,stroke:#c62828,stroke-width:2px\n");
        s.push_str("  classDef finalizers fill:#fff4d6\n");
        s.push_str("  classDef missing stroke:#c62828,stroke-dasharray:4 3,color:#c62828\n");
        for uid in &self.order {
            let n = &self.nodes[uid];
            let class = if n.missing {
                "missing"
            } else if n.terminating.is_some() {
                "terminating"
            } else if !n.finalizers.is_empty() {
                "finalizers"
            } else {
                continue;
            };
            let _ = writeln!(s, "  class {} {class}", ids[uid.as_str()]);
        }
        s
    }
}

fn group_of(o: &ObjRef) -> String {
    match &o.namespace {
        Some(ns) => format!("namespace {ns}"),
        None => "cluster-scoped".to_string(),
    }
}

/// A node's text: `Kind/name`, then Terminating and each finalizer.
fn node_lines(n: &Node) -> Vec<String> {
    let mut lines = vec![format!("{}/{}", n.object.kind, n.object.name)];
    if let Some(why) = &n.unresolved {
        lines.push(format!("({why})"));
    }
    if let Some(t) = &n.terminating {
        lines.push(t.clone());
    }
    for f in &n.finalizers {
        lines.push(format!("finalizer {f}"));
    }
    lines
}

/// A DOT string's content: quotes and backslashes escaped, newlines as
/// DOT's `\n`, other control characters dropped.
pub(super) fn dot_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Mermaid label text inside `"..."`: entity codes for what Mermaid reads
/// as syntax or markup.
fn mermaid_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '|' => out.push_str("#124;"),
            '#' => out.push_str("#35;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}
