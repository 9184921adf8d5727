//! `ownerscope tree`: the ownership forest of a scenario.

use super::out::{self, Out};
use super::{CmdError, CmdResult, load_sim};
use crate::cli::{TreeArgs, TreeOutput, seconds_to_ms};
use crate::model::selector::Selector;
use crate::model::{Partial, forest};
use crate::sim::engine::resolve_target;

/// Prints the forest as text or JSON, or draws it (DOT, Mermaid).
///
/// # Errors
/// The scenario does not load.
pub fn run(args: &TreeArgs) -> CmdResult {
    let (scenario, object) = super::positionals(
        args.live.live,
        [
            args.scenario.as_deref(),
            args.object.as_deref(),
            args.name.as_deref(),
        ],
    )?;
    let selector = match &args.selector {
        Some(s) => Some((Selector::parse(s).map_err(CmdError)?, s.as_str())),
        None => None,
    };
    let mut scope = String::new();
    let (groups, partial, picture) = if args.live.live {
        let view = super::live::LiveView::read_for(
            &args.live,
            args.namespace.as_deref(),
            args.selector.as_deref(),
            object.as_deref(),
        )?;
        scope = view.conn.scope.namespace().unwrap_or_default().to_string();
        let graph = view.graph();
        let groups = match &object {
            Some(typed) => {
                let uid = view.find(typed, args.namespace.as_deref(), args.live.all_namespaces)?;
                forest::focus(&graph, &uid, view.now())
            }
            None => forest::build(&graph, view.now()),
        };
        let picture = drawn(args.output, &groups, &graph);
        (groups, Partial::of(graph.kinds()), picture)
    } else {
        let mut sim = load_sim(scenario.as_deref().unwrap_or_default(), None)?;
        if let Some(at) = args.at {
            sim.advance(seconds_to_ms(at));
        }
        let selected = selector
            .as_ref()
            .map(|(s, typed)| sim.graph().select(s, typed));
        let graph = selected.as_ref().unwrap_or_else(|| sim.graph());
        let groups = match &object {
            Some(typed) => {
                let target = super::parse_target(typed, args.namespace.as_deref())?;
                let key =
                    resolve_target(graph.kinds(), graph.objects(), &target).map_err(CmdError)?;
                let obj = graph
                    .find(&key.group, &key.kind, key.namespace.as_deref(), &key.name)
                    .ok_or_else(|| CmdError(key.not_found()))?;
                forest::focus(graph, obj.uid(), sim.now())
            }
            None => forest::build(graph, sim.now()),
        };
        let picture = drawn(args.output, &groups, graph);
        let answer = (groups, Partial::of(graph.kinds()), picture);
        super::leave_to_exit(sim);
        answer
    };
    if args.output == TreeOutput::Text && is_empty(&groups, &scope) {
        // As kubectl says it, on stderr; the exit status is 0.
        if scope.is_empty() {
            eprintln!("No resources found");
        } else {
            eprintln!("No resources found in {} namespace.", out::one_line(&scope));
        }
        return Ok(());
    }
    let mut out = Out::new();
    if let Some(picture) = picture {
        out.text(&picture)?;
        return out.flush();
    }
    match args.output {
        TreeOutput::Dot | TreeOutput::Mermaid => {}
        TreeOutput::Json => out.json(&serde_json::json!({"groups": groups, "partial": partial}))?,
        TreeOutput::Text => {
            let (selection, unlisted): (Vec<_>, Vec<_>) = partial
                .unlisted
                .iter()
                .partition(|u| u.kind == crate::model::kinds::ANY_KIND);
            for u in selection {
                out.line(&format!(
                    "{}: owners outside it are not drawn; their dependents show them as ?unverified, not gone",
                    u.resource.replace("objects outside ", "selection ")
                ))?;
            }
            let unlisted: Vec<crate::model::Unlisted> = unlisted.into_iter().cloned().collect();
            for line in crate::model::kinds::unseen_lines(
                &unlisted,
                "owners of those kinds show as ?unverified, not gone",
            ) {
                out.line(&line)?;
            }
            out.text(&forest::to_text(&groups))?;
        }
    }
    out.flush()
}

/// The picture `-o dot` or `-o mermaid` asks for, drawn while the graph
/// is at hand (for its selector relations).
fn drawn(
    output: TreeOutput,
    groups: &[forest::ForestGroup],
    graph: &crate::model::OwnershipGraph,
) -> Option<String> {
    match output {
        TreeOutput::Dot => Some(super::graph::Picture::of(groups, graph).to_dot()),
        TreeOutput::Mermaid => Some(super::graph::Picture::of(groups, graph).to_mermaid()),
        TreeOutput::Text | TreeOutput::Json => None,
    }
}

/// Nothing to show: no object at all, or in one namespace nothing but the
/// Namespace itself.
fn is_empty(groups: &[forest::ForestGroup], scope: &str) -> bool {
    groups.iter().all(|g| {
        g.roots.is_empty()
            || (g.namespace.is_none()
                && !scope.is_empty()
                && g.roots.iter().all(|r| {
                    r.object.kind == "Namespace" && r.object.name == scope && r.children.is_empty()
                }))
    })
}
