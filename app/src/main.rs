//! vqscope: see what an encode did to a video. One binary with subcommands
//! in the style of the tools video engineers already run.

mod bench;
mod bench_input;
mod bench_metrics;
mod dashboard;
mod info;
mod output;
mod score;
mod screenshot;
mod showcase;
mod ssim_map;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "vqscope",
    version,
    about = "See what an encode did to a video: side-by-side playback and exact VMAF on the GPU",
    disable_help_flag = true,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    // Global: the disabled `-h` propagates to every subcommand, so the
    // long `--help` must too.
    /// Print help (`-h` is the raw height, as in libvmaf).
    #[arg(long, global = true, action = clap::ArgAction::Help)]
    help: Option<bool>,
    /// The dashboard's inputs (none: the generated demo).
    #[command(flatten)]
    open: dashboard::OpenArgs,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Render a test scene to PNG, headless.
    Screenshot(screenshot::Args),
    /// Show every primitive kind in a window.
    Showcase(showcase::Args),
    /// Score a distorted clip against its reference (libvmaf's flags and reports).
    Score(score::Args),
    /// Print what vqscope sees in each input.
    Info(info::Args),
    /// Benchmarks: UI passes (`ui`), metric kernels (`metrics`), input (`input`).
    Bench(bench::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Screenshot(args)) => screenshot::run(args),
        Some(Command::Showcase(args)) => showcase::run(args),
        Some(Command::Score(args)) => score::run(args),
        Some(Command::Info(args)) => info::run(args),
        Some(Command::Bench(args)) => bench::run(args),
        None => dashboard::run(cli.open),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of stdout went away (`vqscope info x | head -1`): it
        // has what it wanted, so end quietly (see output.rs).
        Err(e) if output::is_stdout_closed(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // Not eprintln!, which panics when stderr is closed or full.
            let _ = writeln!(std::io::stderr(), "vqscope: {}", one_line(&e));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line. Library errors often print their
/// source already, so a cause the line already ends with is not repeated.
fn one_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain().map(|c| c.to_string()) {
        if line.is_empty() {
            line = cause;
        } else if !line.ends_with(&cause) {
            line = format!("{line}: {cause}");
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// clap checks flag clashes (such as libvmaf's `-h` for height) only
    /// when a command is built: catch them here, not in a user's hands.
    #[test]
    fn causes_are_not_repeated() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        let e = anyhow::Error::new(io).context("reading x: gone").context("scoring");
        assert_eq!(super::one_line(&e), "scoring: reading x: gone");
    }

    #[test]
    fn command_line_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
