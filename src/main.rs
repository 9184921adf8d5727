use std::process::ExitCode;

use clap::Parser;
use ownerscope::cli::{Cli, Command};
use ownerscope::commands;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Scenarios(a)) => commands::scenarios::run(a),
        Some(Command::Tree(a)) => commands::tree::run(a),
        Some(Command::Simulate(a)) => commands::simulate::run(a),
        Some(Command::Why(a)) => commands::why::run(a),
        Some(Command::Plan(a)) => commands::plan::run(a),
        Some(Command::Snapshot(a)) => commands::snapshot::run(a),
        // The cluster backend exists (commands::live::ui_backend); the UI
        // that takes it has not landed on this branch yet.
        Some(Command::Ui(a)) if a.live.live => Err(commands::CmdError(
            "ui --live: the terminal UI is not on this branch yet; use tree/why/plan --live".into(),
        )),
        Some(Command::Ui(_)) | None => Err(commands::CmdError("not built yet".into())),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
