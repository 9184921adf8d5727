//! `ownerscope tree`: the ownership forest of a scenario.

use super::out::Out;
use super::{CmdResult, load_sim};
use crate::cli::{Output, TreeArgs, seconds_to_ms};
use crate::model::{Partial, forest};

/// Prints the forest as text or JSON.
///
/// # Errors
/// The scenario does not load.
pub fn run(args: &TreeArgs) -> CmdResult {
    let (groups, partial) = if args.live.live {
        let view = super::live::LiveView::read(&args.live, args.namespace.as_deref())?;
        let graph = view.graph();
        (
            forest::build(&graph, view.now()),
            Partial::of(graph.kinds()),
        )
    } else {
        let mut sim = load_sim(args.scenario.as_deref().unwrap_or_default(), None)?;
        if let Some(at) = args.at {
            sim.advance(seconds_to_ms(at));
        }
        let graph = sim.graph();
        let answer = (forest::build(graph, sim.now()), Partial::of(graph.kinds()));
        super::leave_to_exit(sim);
        answer
    };
    let mut out = Out::new();
    match args.out.output {
        Output::Json => out.json(&serde_json::json!({"groups": groups, "partial": partial}))?,
        Output::Text => {
            if partial.is_partial() {
                let names: Vec<&str> = partial
                    .unlisted
                    .iter()
                    .map(|u| u.resource.as_str())
                    .collect();
                out.line(&format!(
                    "partial view: you cannot list {}: owners of those kinds show as ?unverified, not gone",
                    names.join(", ")
                ))?;
            }
            out.text(&forest::to_text(&groups))?;
        }
    }
    out.flush()
}
