//! `ownerscope tree`: the ownership forest of a scenario.

use super::out::Out;
use super::{CmdResult, load_sim};
use crate::cli::{Output, TreeArgs, seconds_to_ms};
use crate::model::forest;

/// Prints the forest as text or JSON.
///
/// # Errors
/// The scenario does not load.
pub fn run(args: &TreeArgs) -> CmdResult {
    let groups = if args.live.live {
        let view = super::live::LiveView::read(&args.live, args.namespace.as_deref())?;
        forest::build(&view.graph(), view.now())
    } else {
        let mut sim = load_sim(args.scenario.as_deref().unwrap_or_default(), None)?;
        if let Some(at) = args.at {
            sim.advance(seconds_to_ms(at));
        }
        forest::build(&sim.graph(), sim.now())
    };
    let mut out = Out::new();
    match args.out.output {
        Output::Json => out.json(&groups)?,
        Output::Text => out.text(&forest::to_text(&groups))?,
    }
    out.flush()
}
