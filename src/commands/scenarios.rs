//! `ownerscope scenarios`: the bundled scenarios.

use serde_json::json;

use super::CmdResult;
use super::out::Out;
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
    let mut out = Out::new();
    match args.output {
        Output::Json => {
            let v: Vec<_> = rows
                .iter()
                .map(|(n, d, o, s)| json!({"name": n, "description": d, "objects": o, "steps": s}))
                .collect();
            out.json(&json!(v))?;
        }
        Output::Text => {
            let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
            for (n, d, _, _) in &rows {
                out.line(&format!("{n:<width$}  {d}"))?;
            }
        }
    }
    out.flush()
}
