//! `ownerscope simulate`: run a scenario and print its timeline.

use serde_json::json;

use super::out::Out;
use super::{CmdError, CmdResult, load_sim, parse_target};
use crate::cli::{Output, SimulateArgs, seconds_to_ms};
use crate::model::{Object, forest};
use crate::sim::DeleteOptions;

/// Runs the scenario (and the delete at t=0), prints one line per change,
/// event and API answer, then the final state.
///
/// # Errors
/// The scenario does not load; a malformed `--delete`.
pub fn run(args: &SimulateArgs) -> CmdResult {
    let mut sim = load_sim(&args.scenario, args.seed)?;
    if let Some(typed) = &args.delete {
        let target = parse_target(typed, args.namespace.as_deref())?;
        let mut options = args
            .policy
            .map_or_else(DeleteOptions::default, |p| DeleteOptions::policy(p.into()));
        options.grace_period_seconds = args.grace.seconds().map_err(CmdError)?;
        sim.delete(&target, &options);
    }
    match args.run_for {
        Some(run_for) => sim.advance(seconds_to_ms(run_for)),
        None => sim.settle(seconds_to_ms(args.until)),
    }
    let mut out = Out::new();
    match args.out.output {
        Output::Json => {
            for e in sim.timeline() {
                out.json(&e.to_json())?;
            }
            let mut final_objects: Vec<&Object> = sim.objects().collect();
            final_objects.sort_by(|a, b| {
                (a.namespace(), &a.kind, a.name()).cmp(&(b.namespace(), &b.kind, b.name()))
            });
            out.json(&json!({"final": final_objects}))?;
        }
        Output::Text => {
            let sc = sim.scenario();
            out.line(&format!("scenario {}: {}", sc.name, sc.description))?;
            for e in sim.timeline() {
                out.line(&e.to_text())?;
            }
            #[allow(clippy::cast_precision_loss)]
            let t = sim.now_ms() as f64 / 1000.0;
            out.line("")?;
            out.line(&format!(
                "final state at {t:.3}s: {}",
                crate::model::wording::count(sim.objects().count(), "object")
            ))?;
            forest::Forest::of(sim.graph(), sim.now()).write_text(|s| out.text(s))?;
        }
    }
    let flushed = out.flush();
    super::leave_to_exit(sim);
    flushed
}
