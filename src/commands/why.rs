//! `ownerscope why`: why an object is still there, or what will become of
//! it.

use super::{CmdError, CmdResult, json_line, load_sim, parse_target};
use crate::cli::{Output, WhyArgs, seconds_to_ms};
use crate::model::diagnosis;

/// Prints the diagnosis of one object.
///
/// # Errors
/// The scenario does not load; the object does not exist.
pub fn run(args: &WhyArgs) -> CmdResult {
    let mut sim = load_sim(&args.scenario, None)?;
    if let Some(at) = args.at {
        sim.advance(seconds_to_ms(at));
    }
    let target = parse_target(&args.object, args.namespace.as_deref())?;
    let key = sim.resolve(&target).map_err(CmdError)?;
    let obj = sim.get(&key).ok_or_else(|| {
        CmdError(format!(
            "{} \"{}\" not found{} at t={:.3}s",
            key.kind,
            key.name,
            key.namespace
                .as_ref()
                .map(|n| format!(" in namespace {n}"))
                .unwrap_or_default(),
            sim.now_ms() as f64 / 1000.0
        ))
    })?;
    let d = diagnosis::diagnose(&sim.graph(), obj.uid(), sim.now(), &sim.controller_map());
    match args.out.output {
        Output::Json => println!(
            "{}",
            json_line(&serde_json::to_value(&d).unwrap_or_default())
        ),
        Output::Text => {
            println!("{}", d.object);
            for l in d.lines() {
                println!("{l}");
            }
        }
    }
    Ok(())
}
