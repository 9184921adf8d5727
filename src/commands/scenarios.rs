//! `ownerscope scenarios`: the bundled scenarios.

use serde_json::json;

use super::{CmdResult, json_line};
use crate::cli::{Output, OutputArgs};
use crate::sim::scenario::{self, BUNDLED};

/// Prints the bundled scenarios with their descriptions.
///
/// # Errors
/// Never for the shipped scenarios.
pub fn run(args: &OutputArgs) -> CmdResult {
    let mut rows = Vec::new();
    for (name, _) in BUNDLED {
        let s = scenario::bundled(name)?;
        rows.push((s.name, s.description, s.objects.len(), s.steps.len()));
    }
    match args.output {
        Output::Json => {
            let v: Vec<_> = rows
                .iter()
                .map(|(n, d, o, s)| json!({"name": n, "description": d, "objects": o, "steps": s}))
                .collect();
            println!("{}", json_line(&json!(v)));
        }
        Output::Text => {
            let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
            for (n, d, _, _) in &rows {
                println!("{n:<width$}  {d}");
            }
        }
    }
    Ok(())
}
