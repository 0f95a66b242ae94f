//! vqscope: see what an encode did to a video. One binary with subcommands
//! in the style of the tools video engineers already run.

#![forbid(unsafe_code)]

mod batch;
mod bench;
mod bench_decode;
mod bench_input;
mod bench_metrics;
mod bench_scale;
mod dashboard;
mod decode_arg;
mod info;
mod ladder;
mod output;
mod score;
mod screenshot;
mod showcase;
mod ssim_map;
mod stats;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::{CommandFactory, Parser, Subcommand};

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
    #[command(flatten)]
    window: dashboard::WindowArgs,
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
    /// Score many jobs listed in a CSV or JSON manifest, each reference read once.
    Batch(batch::Args),
    /// Print what vqscope sees in each input.
    Info(info::Args),
    /// Benchmarks: UI passes (`ui`), metric kernels (`metrics`), input (`input`), the GPU
    /// scale of `--scale-distorted` (`scale`), dashboard playback (`playback`), device
    /// decode (`decode`).
    Bench(bench::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    Completions(CompletionsArgs),
    /// Write the man pages: vqscope.1 and vqscope-COMMAND.1 for each command.
    Man(ManArgs),
}

#[derive(clap::Args)]
struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

#[derive(clap::Args)]
struct ManArgs {
    /// Folder to write the pages into, or `-` to print one page (vqscope's, or COMMAND's) to
    /// stdout.
    #[arg(short = 'o', long, default_value = ".")]
    output: PathBuf,
    /// With `-o -`: the command whose page to print (default: vqscope's own).
    command: Option<String>,
    /// Overwrite pages that already exist.
    #[arg(long)]
    force: bool,
}

fn main() -> ExitCode {
    // The start the whole command's fps counts from.
    let started = std::time::Instant::now();
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Screenshot(args)) => screenshot::run(args),
        Some(Command::Showcase(args)) => showcase::run(args),
        Some(Command::Score(args)) => score::run(args, started),
        Some(Command::Batch(args)) => batch::run(args, started),
        Some(Command::Info(args)) => info::run(args),
        Some(Command::Bench(args)) => bench::run(args),
        Some(Command::Completions(args)) => completions(args),
        Some(Command::Man(args)) => man(args),
        None => dashboard::run(cli.open, cli.window),
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

/// `vqscope completions SHELL`: the script, generated from the command
/// line's definition, on stdout.
fn completions(args: CompletionsArgs) -> Result<()> {
    // Into memory first: clap_complete panics when its writer fails (a
    // closed pipe), where stdout's errors end quietly or as one line.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "vqscope", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script).and_then(|()| out.flush()).map_err(output::stdout_error)
}

/// Every man page: `vqscope.1`, then `vqscope-COMMAND.1` for each
/// command, as (file name, roff text).
fn man_pages() -> Result<Vec<(String, Vec<u8>)>> {
    let mut cmd = Cli::command();
    cmd.build();
    let render = |cmd: clap::Command| -> Result<Vec<u8>> {
        let mut page = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut page)?;
        Ok(page)
    };
    let mut pages = vec![("vqscope.1".to_owned(), render(cmd.clone())?)];
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help") {
        let name = format!("vqscope-{}", sub.get_name());
        let page = render(sub.clone().display_name(name.clone()).bin_name(name.clone()))?;
        pages.push((format!("{name}.1"), page));
    }
    Ok(pages)
}

/// `vqscope man [-o DIR] [--force]`, or `vqscope man -o - [COMMAND]`.
fn man(args: ManArgs) -> Result<()> {
    let pages = man_pages()?;
    if output::is_stdout(&args.output) {
        let file =
            args.command.as_deref().map_or("vqscope.1".to_owned(), |c| format!("vqscope-{c}.1"));
        let Some((_, page)) = pages.iter().find(|(name, _)| *name == file) else {
            let names: Vec<&str> = pages.iter().skip(1).map(|(n, _)| &n[8..n.len() - 2]).collect();
            bail!(
                "no command {}; the commands are {}",
                args.command.unwrap_or_default(),
                names.join(", ")
            );
        };
        let mut out = std::io::stdout().lock();
        return out.write_all(page).and_then(|()| out.flush()).map_err(output::stdout_error);
    }
    if let Some(command) = &args.command {
        bail!("COMMAND ({command}) goes with `-o -`; a folder gets every page");
    }
    let dir: &Path = &args.output;
    if !dir.is_dir() {
        bail!("-o {}: not a folder", dir.display());
    }
    // Refuse before writing anything: all pages or none.
    for (name, _) in &pages {
        output::check_output(&dir.join(name), args.force)?;
    }
    for (name, page) in &pages {
        output::write_atomically(&dir.join(name), |w| w.write_all(page))?;
    }
    let _ = writeln!(
        std::io::stderr(),
        "vqscope: wrote {} man pages in {}",
        pages.len(),
        dir.display()
    );
    Ok(())
}

/// The error and its causes on one line.
fn one_line(e: &anyhow::Error) -> String {
    vqscope_metrics::frontend::one_line(e.chain().map(|c| c.to_string()))
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn every_command_has_a_man_page() {
        let pages = super::man_pages().unwrap();
        let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
        for want in ["vqscope.1", "vqscope-score.1", "vqscope-info.1", "vqscope-man.1"] {
            assert!(names.contains(&want), "{want} missing from {names:?}");
        }
        assert!(!names.contains(&"vqscope-help.1"));
    }

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
