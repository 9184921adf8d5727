use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use ownerscope::cli::{Cli, Command};
use ownerscope::commands;

/// Loading a file is allocation-bound (a dozen small strings and maps an
/// object, 100k objects): glibc's malloc spent 40% of a 100k load in
/// consolidating and unlinking chunks (perf); mimalloc does not.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Scenarios(a)) => commands::scenarios::run(a),
        Some(Command::Tree(a)) => commands::tree::run(a),
        Some(Command::Simulate(a)) => commands::simulate::run(a),
        Some(Command::Why(a)) => commands::why::run(a),
        Some(Command::Plan(a)) => commands::plan::run(a),
        Some(Command::Snapshot(a)) => commands::snapshot::run(a),
        Some(Command::Serve(a)) => commands::serve::run(a),
        Some(Command::Ui(a)) if a.live.live => ownerscope::runtime::start_live(a),
        Some(Command::Ui(a)) if a.serve => commands::serve::ui_backend(a)
            .and_then(|b| ownerscope::runtime::start_with(Box::new(b), a)),
        Some(Command::Ui(a)) => ownerscope::runtime::start(a),
        Some(Command::Screenshots(a)) => ownerscope::tools::screenshots::run(Some(&a.dir)),
        Some(Command::Bench(a)) => ownerscope::tools::bench::run(a),
        None => ownerscope::runtime::start(&ownerscope::cli::UiArgs {
            scenario: None,
            read_only: false,
            live: ownerscope::cli::LiveArgs::default(),
            namespace: None,
            no_mouse: false,
            serve: false,
            port: 0,
            kubeconfig_out: None,
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // A message can quote a name or a field from the input.
            let msg = e.to_string();
            let _ = writeln!(
                std::io::stderr(),
                "error: {}",
                ownerscope::commands::out::sanitize(&msg)
            );
            ExitCode::FAILURE
        }
    }
}
