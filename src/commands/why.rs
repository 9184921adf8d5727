//! `ownerscope why`: why an object is still there, or what will become of
//! it.

use super::out::Out;
use super::{CmdError, CmdResult, load_sim_to_diagnose, parse_target};
use crate::cli::{WhyArgs, WhyOutput, seconds_to_ms};
use crate::model::diagnosis;

/// Prints the diagnosis of one object.
///
/// # Errors
/// The scenario does not load; the object does not exist.
pub fn run(args: &WhyArgs) -> CmdResult {
    let (scenario, object) = super::positionals(
        args.live.live,
        [
            Some(args.scenario.as_str()),
            args.object.as_deref(),
            args.name.as_deref(),
        ],
    )?;
    let Some(object) = object else {
        return Err(CmdError(
            "expected a scenario and an object (KIND/NAME or KIND NAME), or --live and an object"
                .into(),
        ));
    };
    if args.live.live {
        let typed = &object;
        let view = super::live::LiveView::read_for(
            &args.live,
            args.namespace.as_deref(),
            None,
            Some(typed),
        )?;
        let uid = view.find(typed, args.namespace.as_deref(), args.live.all_namespaces)?;
        let mut graph = view.graph();
        let mut d =
            diagnosis::diagnose(&graph, &uid, view.now(), &std::collections::BTreeMap::new());
        let mut read_more = false;
        // A pod no kubelet ends: its node's heartbeat (STUCK-CAUSES C8).
        if let Some(node) = d.stranded.as_ref().and_then(|s| s.node.node()) {
            match view.node_lease(&args.live, args.namespace.as_deref(), node) {
                Ok(Some(lease)) => {
                    graph.upsert(lease);
                    read_more = true;
                }
                Ok(None) => {}
                Err(e) => eprintln!(
                    "warning: cannot read the Lease of Node/{node}: {}",
                    super::out::sanitize(&e)
                ),
            }
        }
        // Who wrote its finalizers (STUCK-CAUSES C1, C23) and what its
        // controllers said (C2), as the UI's source reads them. Evidence
        // missing is said, never fatal.
        let read = if d.terminating_since.is_some() {
            match view.object_evidence(&args.live, args.namespace.as_deref(), &d) {
                Ok(e) => e,
                Err(m) => crate::backend::Evidence {
                    missing: vec![format!("who wrote its finalizers and its Events: {m}")],
                    ..crate::backend::Evidence::default()
                },
            }
        } else {
            crate::backend::Evidence::default()
        };
        for m in &read.missing {
            eprintln!("warning: cannot read {}", super::out::sanitize(m));
        }
        read_more |= !read.events.is_empty();
        for e in &read.events {
            graph.upsert(e.clone());
        }
        if read_more {
            d = diagnosis::diagnose(&graph, &uid, view.now(), &std::collections::BTreeMap::new());
        }
        if d.terminating_since.is_some() && !d.finalizers.is_empty() {
            d.add_removers(&graph, &read.writers, args.live.all_namespaces);
            d.add_rewrites(&read.last);
            // A webhook that refuses the removal (STUCK-CAUSES C6).
            match view.webhook_evidence(&args.live, args.namespace.as_deref(), &mut graph, &d) {
                Ok(evidence) => d.add_webhooks(&graph, &evidence, false),
                Err(e) => eprintln!(
                    "warning: cannot read the admission webhook configurations: {}",
                    super::out::sanitize(&e)
                ),
            }
        }
        return print_diagnosis(&d, args.output);
    }
    let object = &object;
    let mut sim = load_sim_to_diagnose(scenario.as_deref().unwrap_or_default())?;
    if let Some(at) = args.at {
        sim.advance(seconds_to_ms(at));
    }
    let target = parse_target(object, args.namespace.as_deref())?;
    let key = sim.resolve(&target).map_err(CmdError)?;
    let obj = sim.get(&key).ok_or_else(|| {
        CmdError(format!(
            "{} at t={:.3}s",
            key.not_found(),
            sim.now_ms() as f64 / 1000.0
        ))
    })?;
    let mut d = diagnosis::diagnose(sim.graph(), obj.uid(), sim.now(), &sim.controller_map());
    // A simulated controller that runs as a workload is looked for as on
    // a cluster: scaled to 0, or not found (uninstalled).
    d.add_removers(sim.graph(), &sim.controller_workloads(), true);
    d.removers_named_not_written();
    // The simulator runs the pods behind a webhook's Service.
    d.add_webhooks(sim.graph(), &std::collections::BTreeMap::new(), true);
    super::leave_to_exit(sim);
    print_diagnosis(&d, args.output)
}

fn print_diagnosis(d: &diagnosis::Diagnosis, output: WhyOutput) -> CmdResult {
    let mut out = Out::new();
    match output {
        WhyOutput::Json => out.json(d)?,
        WhyOutput::Markdown => out.text(&super::report::why_markdown(d))?,
        WhyOutput::Dot => out.text(&super::report::why_dot(d))?,
        WhyOutput::Text => {
            out.line(&d.object.to_string())?;
            for l in d.lines() {
                out.line(&l)?;
            }
        }
    }
    out.flush()
}
