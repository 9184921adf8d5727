//! `ownerscope plan`: what a delete would do, before it is sent.

use super::out::Out;
use super::{CmdError, CmdResult, load_sim, parse_target};
use crate::cli::{PlanArgs, StuckOutput, seconds_to_ms};
use crate::model::preview;

/// Prints the deletion preview.
///
/// # Errors
/// The scenario does not load; the object does not exist.
pub fn run(args: &PlanArgs) -> CmdResult {
    // Only 0 changes a preview: a pod's graceful end waits on its kubelet
    // whatever the length.
    let force = args.grace.seconds().map_err(CmdError)? == Some(0);
    if args.live.live {
        let view = super::live::LiveView::read_for(
            &args.live,
            args.namespace.as_deref(),
            None,
            Some(&args.delete),
        )?;
        let uid = view.find(
            &args.delete,
            args.namespace.as_deref(),
            args.live.all_namespaces,
        )?;
        let plan = preview::plan_with(
            &view.graph(),
            &uid,
            args.policy.map(Into::into),
            &std::collections::BTreeMap::new(),
            force,
        );
        return print_plan(&plan, args.output);
    }
    let mut sim = load_sim(args.scenario.as_deref().unwrap_or_default(), None)?;
    if let Some(at) = args.at {
        sim.advance(seconds_to_ms(at));
    }
    let target = parse_target(&args.delete, args.namespace.as_deref())?;
    let key = sim.resolve(&target).map_err(CmdError)?;
    let obj = sim.get(&key).ok_or_else(|| CmdError(key.not_found()))?;
    let plan = preview::plan_with(
        sim.graph(),
        obj.uid(),
        args.policy.map(Into::into),
        &sim.controller_map(),
        force,
    );
    super::leave_to_exit(sim);
    print_plan(&plan, args.output)
}

fn print_plan(plan: &preview::Plan, output: StuckOutput) -> CmdResult {
    let mut out = Out::new();
    match output {
        StuckOutput::Json => out.json(plan)?,
        StuckOutput::Markdown => out.text(&super::report::plan_markdown(plan))?,
        StuckOutput::Text => {
            for l in plan.lines() {
                out.line(&l)?;
            }
        }
    }
    out.flush()
}
