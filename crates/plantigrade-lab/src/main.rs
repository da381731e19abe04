//! plantigrade-lab: the headless main program. With no arguments it evaluates every built-in
//! gait clip and writes `target/plantigrade-report/results.json`; subcommands export the
//! mannequin and inspect any glTF file.

mod clip_table;
mod graph_cmd;
mod inspect;
mod report;
mod timeline;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "plantigrade-lab",
    version,
    about = "Measures the motion plantigrade makes: foot contacts, planted drift, and more."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Exit non-zero when any quality check fails (CI runs with this on).
    #[arg(long, global = true)]
    check: bool,
    /// Where results.json goes.
    #[arg(long, global = true, default_value = "target/plantigrade-report")]
    out: PathBuf,
    /// Evaluation rate of the clip table (Hz).
    #[arg(long, global = true, default_value_t = 60.0)]
    hz: f32,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Evaluate every built-in gait clip on flat ground and play the scripted timeline
    /// through the default graph (the default).
    Clips,
    /// Validate a graph file and print its parameters, states, transitions and layers.
    Graph {
        /// A RON graph; the built-in default_als.ron when omitted.
        file: Option<PathBuf>,
        /// Check the graph against this glTF's skeleton and clips instead of the mannequin's.
        #[arg(long, value_name = "FILE.glb")]
        clips: Option<PathBuf>,
    },
    /// The built-in mannequin.
    Mannequin {
        /// Write the mannequin (skeleton, skinned mesh, every clip) as a binary glTF.
        #[arg(long, value_name = "FILE.glb")]
        export: Option<PathBuf>,
    },
    /// Print a glTF file's skeleton, humanoid bone map and clips.
    Inspect {
        /// A .glb or .gltf file.
        file: PathBuf,
    },
}

#[derive(serde::Serialize)]
struct Results<'a> {
    clips: &'a [clip_table::ClipRow],
    graph_timeline: &'a timeline::TimelineResult,
}

/// The clip table and the graph timeline; returns whether every check passed (always
/// `true` unless `check`).
fn default_run(out: &std::path::Path, hz: f32, check: bool) -> anyhow::Result<bool> {
    if !(hz.is_finite() && (1.0..=1000.0).contains(&hz)) {
        anyhow::bail!("--hz must be between 1 and 1000, got {hz}");
    }
    let clips = clip_table::evaluate(hz)?;
    clip_table::print_table(&clips, hz);
    let timeline = timeline::run(hz)?;
    timeline::print(&timeline);
    let path = report::write_results(
        out,
        &Results {
            clips: &clips,
            graph_timeline: &timeline,
        },
    )?;
    println!("\nwrote {}", path.display());

    let mut failures = clip_table::failures(&clips);
    failures.extend(
        timeline
            .checks
            .iter()
            .filter(|c| !c.pass)
            .map(|c| format!("graph timeline: {} {}", c.name, c.detail)),
    );
    if failures.is_empty() {
        println!("all checks pass ({} clips, graph timeline)", clips.len());
        return Ok(true);
    }
    println!("\n{} failed checks:", failures.len());
    for f in &failures {
        println!("  FAIL {f}");
    }
    Ok(!check)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command.unwrap_or(Command::Clips) {
        Command::Clips => default_run(&cli.out, cli.hz, cli.check),
        Command::Graph { file, clips } => graph_cmd::run(file.as_deref(), clips.as_deref()),
        Command::Mannequin { export } => inspect::mannequin(export.as_deref()),
        Command::Inspect { file } => inspect::inspect(&file),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}
