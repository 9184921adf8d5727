//! `ownerscope tree`: the ownership forest of a scenario.

use super::{CmdResult, json_line, load_sim};
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
    match args.out.output {
        Output::Json => println!(
            "{}",
            json_line(&serde_json::to_value(&groups).unwrap_or_default())
        ),
        Output::Text => print!("{}", forest::to_text(&groups)),
    }
    Ok(())
}
