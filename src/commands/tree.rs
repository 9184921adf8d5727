//! `ownerscope tree`: the ownership forest of a scenario.

use super::out::{self, Out};
use super::{CmdError, CmdResult, load_sim};
use crate::cli::{TreeArgs, TreeOutput, seconds_to_ms};
use crate::model::Partial;
use crate::model::forest::Forest;
use crate::model::selector::Selector;
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
    if args.live.live {
        let view = super::live::LiveView::read_for(
            &args.live,
            args.namespace.as_deref(),
            args.selector.as_deref(),
            object.as_deref(),
        )?;
        let scope = view.conn.scope.namespace().unwrap_or_default();
        let graph = view.graph();
        let forest = match &object {
            Some(typed) => {
                let uid = view.find(typed, args.namespace.as_deref(), args.live.all_namespaces)?;
                Forest::focus(&graph, &uid, view.now())
            }
            None => Forest::of(&graph, view.now()),
        };
        print(args.output, &forest, &graph, scope)
    } else {
        let mut sim = load_sim(scenario.as_deref().unwrap_or_default(), None)?;
        if let Some(at) = args.at {
            sim.advance(seconds_to_ms(at));
        }
        let selected = selector
            .as_ref()
            .map(|(s, typed)| sim.graph().select(s, typed));
        let graph = selected.as_ref().unwrap_or_else(|| sim.graph());
        let forest = match &object {
            Some(typed) => {
                let target = super::parse_target(typed, args.namespace.as_deref())?;
                let key =
                    resolve_target(graph.kinds(), graph.objects(), &target).map_err(CmdError)?;
                let obj = graph
                    .find(&key.group, &key.kind, key.namespace.as_deref(), &key.name)
                    .ok_or_else(|| CmdError(key.not_found()))?;
                Forest::focus(graph, obj.uid(), sim.now())
            }
            None => Forest::of(graph, sim.now()),
        };
        let printed = print(args.output, &forest, graph, "");
        drop(forest);
        drop(selected);
        super::leave_to_exit(sim);
        printed
    }
}

/// Prints the forest in the form asked for; `scope` is the one namespace
/// a live view lists, if any.
fn print(
    output: TreeOutput,
    forest: &Forest,
    graph: &crate::model::OwnershipGraph,
    scope: &str,
) -> CmdResult {
    let partial = Partial::of(graph.kinds());
    if output == TreeOutput::Text && forest.is_empty_in(scope) {
        // As kubectl says it, on stderr; the exit status is 0.
        if scope.is_empty() {
            eprintln!("No resources found");
        } else {
            eprintln!("No resources found in {} namespace.", out::one_line(scope));
        }
        return Ok(());
    }
    let mut out = Out::new();
    match output {
        TreeOutput::Dot => {
            out.text(&super::graph::Picture::of(&forest.groups(), graph).to_dot())?
        }
        TreeOutput::Mermaid => {
            out.text(&super::graph::Picture::of(&forest.groups(), graph).to_mermaid())?;
        }
        TreeOutput::Json => out.json_with(|w| forest.write_json(w, &partial))?,
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
            forest.write_text(|s| out.text(s))?;
        }
    }
    out.flush()
}
