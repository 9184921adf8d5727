//! `ownerscope stuck`: every Terminating object in scope, grouped by cause,
//! the oldest first, and what holds others up ([`crate::model::stuck`]).

use super::out::Out;
use super::{CmdResult, load_sim_to_diagnose};
use crate::cli::{StuckArgs, StuckOutput, seconds_to_ms};
use crate::model::stuck::{self, Report};

/// Prints the report.
///
/// # Errors
/// The scenario does not load; the cluster cannot be read.
pub fn run(args: &StuckArgs) -> CmdResult {
    let report = if args.live.live {
        let view =
            super::live::LiveView::read_for(&args.live, args.namespace.as_deref(), None, None)?;
        stuck::report(
            &view.graph(),
            view.now(),
            &std::collections::BTreeMap::new(),
            Some(args.live.all_namespaces),
        )
    } else {
        let mut sim = load_sim_to_diagnose(args.scenario.as_deref().unwrap_or_default())?;
        if let Some(at) = args.at {
            sim.advance(seconds_to_ms(at));
        }
        let mut r = stuck::report(sim.graph(), sim.now(), &sim.controller_map(), Some(false));
        if let Some(ns) = &args.namespace {
            keep_namespace(&mut r, ns);
        }
        super::leave_to_exit(sim);
        r
    };
    print(&report, args.output)
}

/// Only what is in namespace `ns` (and the namespace itself).
fn keep_namespace(r: &mut Report, ns: &str) {
    for g in &mut r.groups {
        g.objects.retain(|o| {
            o.object.namespace.as_deref() == Some(ns)
                || (o.object.kind == "Namespace" && o.object.name == ns)
        });
    }
    r.groups.retain(|g| !g.objects.is_empty());
    r.total = r.groups.iter().map(|g| g.objects.len()).sum();
}

fn print(r: &Report, output: StuckOutput) -> CmdResult {
    let mut out = Out::new();
    match output {
        StuckOutput::Json => out.json(r)?,
        StuckOutput::Markdown => out.text(&r.markdown())?,
        StuckOutput::Text => {
            for l in r.lines() {
                out.line(&l)?;
            }
        }
    }
    out.flush()
}
