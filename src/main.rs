use std::io::Write;
use std::process::ExitCode;

use clap::FromArgMatches as _;
use ownerscope::cli::{Cli, Command};
use ownerscope::commands;

/// Loading a file is allocation-bound (a dozen small strings and maps an
/// object, 100k objects): glibc's malloc spent 40% of a 100k load in
/// consolidating and unlinking chunks (perf); mimalloc does not.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // As the kubectl plugin (`kubectl ownerscope ...`, argv[0] named
    // kubectl-ownerscope), live by default and with kubectl's flags.
    // A shell asking for completions (`COMPLETE=bash ownerscope -- ...`).
    commands::completions::answer_if_asked();
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let plugin =
        ownerscope::cli::invoked_as_plugin(args.first().map(std::ffi::OsString::as_os_str));
    if plugin {
        args = ownerscope::cli::plugin_args(args);
    }
    let cli = match ownerscope::cli::command(plugin)
        .try_get_matches_from(args)
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let result = match &cli.command {
        Some(Command::Scenarios(a)) => commands::scenarios::run(a),
        Some(Command::Tree(a)) => commands::tree::run(a),
        Some(Command::Simulate(a)) => commands::simulate::run(a),
        Some(Command::Why(a)) => commands::why::run(a),
        Some(Command::Stuck(a)) => commands::stuck::run(a),
        Some(Command::Plan(a)) => commands::plan::run(a),
        Some(Command::Snapshot(a)) => commands::snapshot::run(a),
        Some(Command::Serve(a)) => commands::serve::run(a),
        Some(Command::Ui(a)) => open_ui(a),
        Some(Command::Completions(a)) => commands::completions::run(a),
        Some(Command::Man(a)) => commands::completions::man(a),
        Some(Command::Screenshots(a)) => ownerscope::tools::screenshots::run(Some(&a.dir)),
        Some(Command::Bench(a)) if a.command_one.is_some() => {
            ownerscope::tools::bench_commands::run_one(a.command_one.as_deref().unwrap_or_default())
        }
        Some(Command::Bench(a)) if a.commands.is_some() => ownerscope::tools::bench_commands::run(
            a.commands.as_deref().unwrap_or_default(),
            a.runs,
            a.commands_keep.as_deref(),
            a.commands_one_core,
        ),
        Some(Command::Bench(a)) => ownerscope::tools::bench::run(a),
        // `ownerscope --live -n shop` as `ownerscope ui --live -n shop`.
        None => open_ui(&cli.ui),
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

/// The UI on a live cluster, on a served simulator, or on a scenario.
fn open_ui(a: &ownerscope::cli::UiArgs) -> commands::CmdResult {
    a.check().map_err(commands::CmdError)?;
    if a.live.live {
        ownerscope::runtime::start_live(a)
    } else if a.serve {
        commands::serve::ui_backend(a).and_then(|b| ownerscope::runtime::start_with(Box::new(b), a))
    } else {
        ownerscope::runtime::start(a)
    }
}
