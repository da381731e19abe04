//! plantigrade-lab: the headless main program. With no arguments it evaluates every built-in
//! gait clip and writes `target/plantigrade-report/results.json`; subcommands export the
//! mannequin and inspect any glTF file.

mod alloc_count;
mod character;
mod clip_table;
mod continuity;
mod crowd;
mod film;
mod graph_cmd;
mod inspect;
mod quality;
mod report;
mod scenarios;
mod seeded;
mod soak;
mod sweep;
mod timeline;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The system allocator, counting live bytes and each thread's allocations (the crowd's
/// memory per character and its no-allocation test).
#[global_allocator]
static GLOBAL: alloc_count::Counting = alloc_count::Counting;

#[derive(Parser, Debug, Clone)]
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
    /// Tick rate of the clip table, the timeline and the scenarios (Hz).
    #[arg(long, global = true, default_value_t = 60.0)]
    hz: f32,
    /// Foot IK mode of the scenarios: none, classic, predictive or all (side by side).
    #[arg(long, global = true, default_value = "all", value_name = "MODE")]
    mode: String,
    /// Pelvis tilt in the scenarios: on, off, or both (side by side).
    #[arg(long, global = true, default_value = "on", value_name = "on|off|both")]
    tilt: String,
    /// Write one CSV per scenario and mode (a row per tick) into this directory.
    #[arg(long, global = true, value_name = "DIR")]
    trace: Option<PathBuf>,
    /// Start every scenario this far along its path (m, 0 to 0.5): on stairs, where the
    /// footfalls land on the treads moves with it.
    #[arg(long, global = true, default_value_t = 0.0, value_name = "M")]
    start_offset: f32,
    /// What moves the character's capsule in the scenarios, the timeline, film and sweep:
    /// rapier (its KinematicCharacterController, the default), queries (the core's
    /// QueryMover on the same rapier world's queries) or both (scenarios and timeline run
    /// with each, then their movement figures side by side).
    #[arg(
        long,
        global = true,
        default_value = "rapier",
        value_name = "rapier|queries|both"
    )]
    mover: String,
    /// Skip the HTML report (`<out>/index.html` and its pictures) that `run` and the
    /// default run write beside results.json.
    #[arg(long, global = true)]
    no_report: bool,
}

impl Cli {
    fn run_options(&self) -> anyhow::Result<scenarios::RunOptions> {
        use plantigrade::ik::FootIkMode;
        let modes = match self.mode.as_str() {
            "all" => FootIkMode::ALL.to_vec(),
            name => vec![FootIkMode::from_name(name).ok_or_else(|| {
                anyhow::anyhow!("--mode must be none, classic, predictive or all, got '{name}'")
            })?],
        };
        use scenarios::TiltMode;
        let tilts = match self.tilt.as_str() {
            "on" => vec![TiltMode::On],
            "off" => vec![TiltMode::Off],
            "both" => vec![TiltMode::On, TiltMode::Off],
            other => anyhow::bail!("--tilt must be on, off or both, got '{other}'"),
        };
        if !(self.start_offset.is_finite() && (0.0..=0.5).contains(&self.start_offset)) {
            anyhow::bail!(
                "--start-offset must be between 0 and 0.5 m, got {}",
                self.start_offset
            );
        }
        Ok(scenarios::RunOptions {
            modes,
            tilts,
            trace_dir: self.trace.clone(),
            start_offset_m: self.start_offset,
            mover: self.movers()?[0],
        })
    }

    /// The movers `--mover` names, the default first.
    fn movers(&self) -> anyhow::Result<Vec<scenarios::Mover>> {
        use scenarios::Mover;
        match self.mover.as_str() {
            "both" => Ok(Mover::ALL.to_vec()),
            name => Ok(vec![Mover::from_name(name).ok_or_else(|| {
                anyhow::anyhow!("--mover must be rapier, queries or both, got '{name}'")
            })?]),
        }
    }

    /// The one mover of a subcommand that runs a single one (film, sweep).
    fn single_mover(&self, what: &str) -> anyhow::Result<scenarios::Mover> {
        match self.movers()?.as_slice() {
            [one] => Ok(*one),
            _ => anyhow::bail!("{what} runs one mover: --mover rapier or --mover queries"),
        }
    }
}

/// The scenarios run with each mover of `--mover`: printed per mover, then side by side
/// when there are several.
fn run_scenarios_per_mover(
    names: &[String],
    course: &plantigrade_course::Course,
    actor: &scenarios::Actor,
    cli: &Cli,
    observe: &mut report::draw::Observer,
) -> anyhow::Result<Vec<scenarios::ScenarioResult>> {
    let movers = cli.movers()?;
    let mut options = cli.run_options()?;
    let mut all = Vec::new();
    for &mover in &movers {
        options.mover = mover;
        let results = scenarios::run_all_observed(names, course, actor, cli.hz, &options, observe)?;
        if movers.len() > 1 || mover != scenarios::Mover::Rapier {
            println!("\n=== mover: {} ===", mover.name());
        }
        scenarios::print(&results);
        all.extend(results);
    }
    if movers.len() > 1 {
        scenarios::print_movers(&all);
    }
    Ok(all)
}

/// A user's glTF character in place of the mannequin (`run`, `film`).
#[derive(clap::Args, Debug, Clone, Default)]
struct CharacterArgs {
    /// Run a glTF character (its skeleton and clips) instead of the mannequin. `run` takes
    /// it over the terrain scenarios unless named, beside the mannequin on the same runs;
    /// `--check` then judges it by issue 17's bar (no NaN, no knee flip, no stall of 1 s,
    /// stance skate ≤ 0.02, penetration mean ≤ 5 mm (× its size when bigger than the
    /// mannequin), float p95 and drift within twice the mannequin's).
    #[arg(long, value_name = "FILE.glb")]
    character: Option<PathBuf>,
    /// The character's bones (RON `BoneNames`, as `inspect --write-bone-map` writes);
    /// detected when omitted.
    #[arg(long, value_name = "MAP.ron", requires = "character")]
    bone_map: Option<PathBuf>,
    /// More of the character's clips, from another file of the same rig (repeatable:
    /// KayKit keeps its clips in three).
    #[arg(long = "clips", value_name = "MORE.glb", requires = "character")]
    clips: Vec<PathBuf>,
    /// The character's clip-role map (RON `ClipRoles`: which clip is the idle, the walk
    /// forward, …): its graph is generated from it.
    #[arg(
        long,
        value_name = "ROLES.ron",
        requires = "character",
        conflicts_with = "graph"
    )]
    roles: Option<PathBuf>,
    /// The character's graph over its clips (RON `GraphDef`), in place of `--roles`.
    #[arg(long, value_name = "G.ron", requires = "character")]
    graph: Option<PathBuf>,
    /// Play another rig's clips on the character, retargeted through both bone maps; the
    /// rig's own clips are not used. `mannequin`: the built-in clips and default graph.
    /// `OTHER.glb`: that rig's clips, under their own names, through `--roles`/`--graph`
    /// written for them (UAL's on KayKit: `--roles examples/characters/ual.roles.ron`).
    #[arg(
        long,
        value_name = "mannequin|OTHER.glb",
        requires = "character",
        value_parser = character::parse_retarget_source
    )]
    retarget_from: Option<character::RetargetSource>,
    /// More clips of the `--retarget-from` rig, from another of its files (repeatable).
    #[arg(long, value_name = "MORE.glb", requires = "retarget_from")]
    retarget_clips: Vec<PathBuf>,
    /// The `--retarget-from` rig's bones (RON `BoneNames`); detected when omitted.
    #[arg(long, value_name = "MAP.ron", requires = "retarget_from")]
    retarget_bone_map: Option<PathBuf>,
    /// Author the built-in clip set (idle, 8-way walks and runs, sprint, crouch, jumps,
    /// landings, push, aim, turns) on the character's own skeleton and play it through the
    /// default graph; the rig's own clips are not used.
    #[arg(
        long,
        requires = "character",
        conflicts_with_all = ["graph", "roles", "retarget_from"]
    )]
    generate_clips: bool,
    /// The character's settings (RON `CharacterSettings`), used as they are; by default
    /// the built-in settings scaled to the rig's leg length.
    #[arg(long, value_name = "S.ron", requires = "character")]
    settings: Option<PathBuf>,
}

impl CharacterArgs {
    /// The files of `--character`, when given.
    fn files(&self) -> Option<character::CharacterFiles> {
        Some(character::CharacterFiles {
            file: self.character.clone()?,
            clips: self.clips.clone(),
            roles: self.roles.clone(),
            bone_map: self.bone_map.clone(),
            graph: self.graph.clone(),
            settings: self.settings.clone(),
            retarget_from: self.retarget_from.clone(),
            retarget_clips: self.retarget_clips.clone(),
            retarget_bone_map: self.retarget_bone_map.clone(),
            generate_clips: self.generate_clips,
        })
    }

    /// The character given, or the mannequin.
    fn actor(&self) -> anyhow::Result<scenarios::Actor> {
        match self.files() {
            Some(files) => character::load_actor(&files),
            None => scenarios::Actor::mannequin(),
        }
    }
}

#[derive(Subcommand, Debug, Clone)]
enum Command {
    /// Evaluate every built-in gait clip on flat ground and play the scripted timeline
    /// through the default graph (the default). With `--character F --generate-clips`:
    /// the clip table only, of the built-in set authored on that rig.
    Clips {
        /// A glTF rig to author the built-in clip set on (needs `--generate-clips`).
        #[arg(long, value_name = "FILE.glb", requires = "generate_clips")]
        character: Option<PathBuf>,
        /// The rig's bones (RON `BoneNames`); detected when omitted.
        #[arg(long, value_name = "MAP.ron", requires = "character")]
        bone_map: Option<PathBuf>,
        /// Author the built-in clip set on `--character` and evaluate it.
        #[arg(long, requires = "character")]
        generate_clips: bool,
    },
    /// Run headless scenarios on the test course (all of them unless named).
    Run {
        /// A scenario to run (repeatable), e.g. `--scenario stairs_up_20cm_run`.
        #[arg(long = "scenario", value_name = "NAME")]
        scenarios: Vec<String>,
        /// A course file (RON) instead of the built-in course.
        #[arg(long, value_name = "FILE.ron")]
        course: Option<PathBuf>,
        #[command(flatten)]
        character: CharacterArgs,
    },
    /// The foot checks of scenarios at 30, 60 and 144 Hz from several starts along their
    /// paths: in how many runs each passed, and whether the foot figures agree across the
    /// rates (within 10 %, or 2 mm / 1 cm near zero). By default a walk and a run over
    /// every terrain family: stairs, ramps, cross-slope, pebbles, beams, ramps into stairs
    /// and rolling bumps. With `--check` (CI), exits 1 when a figure disagrees across the
    /// rates or a run fails a blocking check.
    Sweep {
        /// A scenario to sweep (repeatable); the default set of every family when omitted.
        #[arg(long = "scenario", value_name = "NAME")]
        scenarios: Vec<String>,
        /// Starts per rate, spread over one tread (0.28 m).
        #[arg(long, default_value_t = 8, value_name = "N")]
        offsets: u32,
    },
    /// Many characters for a long simulated time on the course in rapier, fed random
    /// intents (seeded): walk, run, sprint, jump, crouch, aim, reversals, hitches of up to a
    /// quarter second, teleports. After every tick nothing may be NaN, no bone stretched,
    /// no knee flipped, no planted foot off the ground, no capsule inside a solid; memory at
    /// the end within 5 % of after the first minute. Exits 1 on any violation, naming the
    /// character, the tick and the seed.
    Soak {
        /// Simulated minutes.
        #[arg(long, default_value_t = 60.0, value_name = "N")]
        minutes: f32,
        /// Characters ticked side by side.
        #[arg(long, default_value_t = 16, value_name = "K")]
        characters: u32,
        /// Seed of the random intents (the same seed replays the same run).
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// N characters walking the course's lanes from seeded random starts, with LOD tiers by
    /// distance from a viewer, ticked in parallel (rayon) and then on one thread: µs per
    /// character-tick per tier and stage, wall ms per frame, characters per 16.6 ms frame,
    /// heap bytes per character; writes `<out>/crowd.json`. With `--check`, exits 1 unless
    /// the final poses of both runs are bit-identical.
    Crowd {
        /// Crowd sizes, run in turn.
        #[arg(long, default_value = "100,1000,10000", value_name = "N,N,…", value_parser = crowd::parse_sizes)]
        characters: std::vec::Vec<u32>,
        /// Threads of the parallel run (default: every core).
        #[arg(long, value_name = "T")]
        threads: Option<usize>,
        /// Simulated seconds per run.
        #[arg(long, default_value_t = 2.0, value_name = "S")]
        seconds: f32,
        /// The viewer (camera) for LOD tiers, world metres (default: the middle of the
        /// course, at eye height).
        #[arg(long, value_name = "X,Y,Z", value_parser = crowd::parse_viewer, allow_hyphen_values = true)]
        viewer: Option<plantigrade::glam::Vec3>,
        /// How many characters (the nearest the viewer, re-picked after every frame) get
        /// full detail, or `all` for no LOD at all.
        #[arg(long, default_value = "32", value_name = "K|all", value_parser = crowd::parse_full_detail)]
        full_detail: crowd::FullDetail,
        /// Foot probes inside each character's tick (`immediate`), or gathered and cast as
        /// one parallel batch per frame, used the next tick (`batched`, SPEC IK-13).
        #[arg(long, default_value = "immediate", value_name = "immediate|batched", value_parser = crowd::parse_probes)]
        probes: plantigrade::character::ProbeTiming,
        /// How many characters (the nearest the viewer) are within the reduced tier;
        /// the rest is in the far tier (graph every 4th tick, ground follow, no probes).
        #[arg(long, default_value_t = 320, value_name = "K")]
        reduced_detail: u32,
        /// Seed of the starts and gaits (the same seed replays the same run).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Keep sampling every joint in every tier (by default the fingers go to rest and
        /// are not sampled beyond full detail, SPEC PERF-5).
        #[arg(long)]
        no_joint_culling: bool,
    },
    /// Draw scenarios as filmstrips (PNG): the stick skeleton at even intervals over the true
    /// ground, side view, plus a front view on beams and cross-slopes and a top view on
    /// turns. Every scenario unless named; one image per scenario and foot IK mode, in
    /// `<out>/film/`.
    Film {
        /// A scenario to draw (repeatable), e.g. `--scenario ramp_30_up_walk`.
        #[arg(long = "scenario", value_name = "NAME")]
        scenarios: Vec<String>,
        /// A figure every this many seconds.
        #[arg(long, default_value_t = 0.2, value_name = "S")]
        every: f32,
        /// Draw only from this time on (s), for a close-up of one moment.
        #[arg(long, value_name = "S")]
        from: Option<f32>,
        /// Draw only up to this time (s).
        #[arg(long, value_name = "S")]
        to: Option<f32>,
        #[command(flatten)]
        character: CharacterArgs,
    },
    /// Validate a graph file and print its parameters, states, transitions and layers; or,
    /// with `--generate --roles ROLES.ron`, generate one from a clip-role map.
    Graph {
        /// A RON graph; the built-in default_als.ron when omitted.
        #[arg(conflicts_with = "generate")]
        file: Option<PathBuf>,
        /// Check the graph against this glTF's skeleton and clips instead of the mannequin's.
        /// Repeat it for a rig whose clips come in several files (the first file's
        /// skeleton; the others' clips added to it, joints matched by name).
        #[arg(long, value_name = "FILE.glb")]
        clips: Vec<PathBuf>,
        /// Generate the graph from `--roles` over the `--clips` files (gait speeds measured
        /// from the clips), print what is missing, and check it.
        #[arg(long, requires_all = ["roles", "clips"])]
        generate: bool,
        /// The clip-role map (RON `ClipRoles(...)`) for `--generate`.
        #[arg(long, value_name = "ROLES.ron", requires = "generate")]
        roles: Option<PathBuf>,
        /// Write the generated graph here instead of printing it.
        #[arg(long, value_name = "OUT.ron", requires = "generate")]
        write: Option<PathBuf>,
    },
    /// The HTML report from results.json files alone (no runs): with `--compare A B`, two
    /// runs side by side in `<out>/compare/index.html`, the figures that differ and the
    /// checks whose pass flipped highlighted.
    Report {
        /// Two results.json files, A then B (e.g. before and after a change).
        #[arg(long, num_args = 2, value_names = ["A", "B"], required = true)]
        compare: Vec<PathBuf>,
    },
    /// The built-in mannequin, or (`--rig`) the built-in clip set authored on your rig.
    Mannequin {
        /// Write the mannequin (skeleton, skinned mesh, every clip) as a binary glTF; with
        /// `--rig`, the rig's skeleton (a stick-figure skin) with the clips authored on it,
        /// named as the rig's joints, for Blender and other engines.
        #[arg(long, value_name = "FILE.glb")]
        export: Option<PathBuf>,
        /// A glTF rig to author the built-in clip set on (its own clips are not used).
        #[arg(long, value_name = "FILE.glb")]
        rig: Option<PathBuf>,
        /// The rig's bones (RON `BoneNames`); detected when omitted.
        #[arg(long, value_name = "MAP.ron", requires = "rig")]
        bone_map: Option<PathBuf>,
    },
    /// Print a glTF file's skeleton, humanoid bone map (with why a leg is not found), foot
    /// sockets and clips.
    Inspect {
        /// A .glb or .gltf file.
        file: PathBuf,
        /// Use this explicit bone map (a RON `BoneNames`, as in `CharacterSettings::bone_map`
        /// or the Bevy plugin's `*.bones.ron`) instead of detecting the bones; every problem
        /// with it is listed, and the exit status is 1 when it is unusable.
        #[arg(long, value_name = "MAP.ron")]
        bone_map: Option<PathBuf>,
        /// Write the map in use (detected, or the one given) as a ready-to-edit RON bone
        /// map, every role listed; roles not found are `None` with the reason beside them.
        #[arg(long, value_name = "OUT.ron")]
        write_bone_map: Option<PathBuf>,
    },
}

#[derive(serde::Serialize)]
struct Results<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    clips: Option<&'a [clip_table::ClipRow]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    graph_timeline: Option<&'a timeline::TimelineResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scenarios: Option<&'a [scenarios::ScenarioResult]>,
    /// `run --character`: the character's verdict per run against the mannequin's.
    #[serde(skip_serializing_if = "Option::is_none")]
    character: Option<CharacterResults<'a>>,
}

#[derive(serde::Serialize)]
struct CharacterResults<'a> {
    name: &'a str,
    /// Leg length over the mannequin's.
    scale: f32,
    rows: &'a [character::CharacterRow],
    /// The mannequin's runs of the same scenarios.
    mannequin: &'a [scenarios::ScenarioResult],
}

fn check_hz(hz: f32) -> anyhow::Result<()> {
    if !(hz.is_finite() && (1.0..=1000.0).contains(&hz)) {
        anyhow::bail!("--hz must be between 1 and 1000, got {hz}");
    }
    Ok(())
}

fn load_course(path: Option<&std::path::Path>) -> anyhow::Result<plantigrade_course::Course> {
    use anyhow::Context;
    match path {
        None => Ok(plantigrade_course::Course::default_course()),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            plantigrade_course::Course::from_ron(&text)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
        }
    }
}

/// Lists the quality targets not met yet (they do not fail `--check`).
fn print_targets(unmet: &[String]) {
    if unmet.is_empty() {
        return;
    }
    println!(
        "\n{} quality targets not met yet (recorded in results.json with blocking: false):",
        unmet.len()
    );
    for line in unmet {
        println!("  target {line}");
    }
}

/// Prints failures and turns them into the exit decision.
fn verdict(failures: Vec<String>, what: &str, check: bool) -> bool {
    if failures.is_empty() {
        println!("all checks pass ({what})");
        return true;
    }
    println!("\n{} failed checks:", failures.len());
    for f in &failures {
        println!("  FAIL {f}");
    }
    !check
}

/// `run`: scenarios only.
fn run_scenarios(
    names: &[String],
    course: Option<&std::path::Path>,
    cli: &Cli,
) -> anyhow::Result<bool> {
    let (out, hz, check) = (&cli.out, cli.hz, cli.check);
    check_hz(hz)?;
    let course = load_course(course)?;
    let actor = scenarios::Actor::mannequin()?;
    let (results, images) = report::draw::draw_alongside(
        report_drawer(cli, &course, &actor)?,
        &report_selection(cli)?,
        |observe| run_scenarios_per_mover(names, &course, &actor, cli, observe),
    )?;
    let results = Results {
        clips: None,
        graph_timeline: None,
        scenarios: Some(&results),
        character: None,
    };
    let path = report::write_results(out, &results)?;
    println!("\nwrote {}", path.display());
    let page = write_report_page(cli, &results, &images)?;
    let scenario_results = results.scenarios.unwrap_or_default();
    print_targets(&scenarios::unmet_targets(scenario_results));
    let passed = verdict(
        scenarios::failures(scenario_results),
        &format!("{} scenarios", scenario_results.len()),
        check,
    );
    print_report_path(page.as_deref());
    Ok(passed)
}

/// The report's drawing for this run, `None` with `--no-report`.
fn report_drawer<'a>(
    cli: &Cli,
    course: &'a plantigrade_course::Course,
    actor: &scenarios::Actor,
) -> anyhow::Result<Option<report::draw::Drawer<'a>>> {
    if cli.no_report {
        return Ok(None);
    }
    film::register_font()?;
    Ok(Some(report::draw::Drawer {
        dir: cli.out.clone(),
        course,
        bones: film::actor_bones(actor)?,
        hz: cli.hz,
    }))
}

/// The runs the report draws: the predictive foot IK (or the one mode run), the first
/// tilt and the first mover asked for. The other runs are in its tables.
fn report_selection(cli: &Cli) -> anyhow::Result<report::draw::Selection> {
    use plantigrade::ik::FootIkMode;
    let options = cli.run_options()?;
    let mode = if options.modes.contains(&FootIkMode::Predictive) {
        FootIkMode::Predictive
    } else {
        options.modes[0]
    };
    Ok(report::draw::Selection {
        mode: mode.name().into(),
        tilt: options.tilts[0].name().into(),
        mover: cli.movers()?[0].name().into(),
    })
}

/// Writes `<out>/index.html` unless `--no-report`; its path. With `--no-report`, a page
/// left there by an earlier run is removed: it would describe other results than the
/// results.json beside it.
fn write_report_page(
    cli: &Cli,
    results: &Results,
    images: &report::html::Images,
) -> anyhow::Result<Option<PathBuf>> {
    if cli.no_report {
        use anyhow::Context;
        let stale = cli.out.join("index.html");
        if stale.is_file() {
            std::fs::remove_file(&stale)
                .with_context(|| format!("removing the earlier report {}", stale.display()))?;
            println!(
                "removed {} (an earlier run's report; --no-report)",
                stale.display()
            );
        }
        return Ok(None);
    }
    let selection = report_selection(cli)?;
    let intro = format!(
        "<p>plantigrade-lab {}, {} Hz. Pictures are drawn for the <b>{}</b> foot IK runs \
         (tilt {}, {} mover); every run is in the tables. Heights against the course's \
         analytic ground. Click a picture for full size.</p>\n",
        env!("CARGO_PKG_VERSION"),
        cli.hz,
        selection.mode,
        selection.tilt,
        selection.mover
    );
    report::write_report(&cli.out, results, &intro, images).map(Some)
}

/// The report's path, last in the terminal summary.
fn print_report_path(page: Option<&std::path::Path>) {
    if let Some(page) = page {
        println!("report: {}", page.display());
    }
}

/// `run --character`: the character over the terrain scenarios (or those named), then the
/// mannequin over the same, and the character judged against it.
fn run_character(
    names: &[String],
    course: Option<&std::path::Path>,
    files: &character::CharacterFiles,
    cli: &Cli,
) -> anyhow::Result<bool> {
    check_hz(cli.hz)?;
    let course = load_course(course)?;
    let actor = character::load_actor(files)?;
    let names = if names.is_empty() {
        scenarios::terrain_scenarios()
    } else {
        names.to_vec()
    };
    println!("=== {} ===", actor.name);
    // The report draws the character's runs, as `run` draws the mannequin's.
    let (results, images) = report::draw::draw_alongside(
        report_drawer(cli, &course, &actor)?,
        &report_selection(cli)?,
        |observe| run_scenarios_per_mover(&names, &course, &actor, cli, observe),
    )?;
    println!("\n=== mannequin, the same runs ===");
    // The reference runs write no traces: the character's are the ones asked for.
    let reference_cli = Cli {
        trace: None,
        ..cli.clone()
    };
    let mannequin = run_scenarios_per_mover(
        &names,
        &course,
        &scenarios::Actor::mannequin()?,
        &reference_cli,
        &mut |_, _, _| Ok(()),
    )?;
    let rows = character::judge(&results, &mannequin, actor.scale);
    character::print(&actor, &rows);
    let results = Results {
        clips: None,
        graph_timeline: None,
        scenarios: Some(&results),
        character: Some(CharacterResults {
            name: &actor.name,
            scale: actor.scale,
            rows: &rows,
            mannequin: &mannequin,
        }),
    };
    let path = report::write_results(&cli.out, &results)?;
    println!("\nwrote {}", path.display());
    let page = write_report_page(cli, &results, &images)?;
    let passed = verdict(
        character::failures(&actor, &rows),
        &format!("{}: {} runs", actor.name, rows.len()),
        cli.check,
    );
    print_report_path(page.as_deref());
    Ok(passed)
}

/// `sweep`: prints the tally and writes it to `sweep.json`; with `--check`, fails on a figure
/// that disagrees across the rates or a run with a failed blocking check.
fn run_sweep(names: &[String], offsets: u32, cli: &Cli) -> anyhow::Result<bool> {
    use anyhow::Context;
    let course = load_course(None)?;
    let mover = cli.single_mover("sweep")?;
    let rows = sweep::run(
        names,
        &course,
        &scenarios::Actor::mannequin()?,
        offsets,
        mover,
    )?;
    sweep::print(&rows, offsets);
    std::fs::create_dir_all(&cli.out).with_context(|| format!("creating {}", cli.out.display()))?;
    let path = cli.out.join("sweep.json");
    let json = serde_json::to_string_pretty(&rows).context("serialising the sweep")?;
    std::fs::write(&path, json + "\n").with_context(|| format!("writing {}", path.display()))?;
    println!("\nwrote {}", path.display());
    let what = format!(
        "{} scenarios, {} rates × {offsets} starts: every figure agrees across the rates, no blocking check failed",
        rows.len(),
        sweep::RATES_HZ.len()
    );
    Ok(verdict(sweep::failures(&rows), &what, cli.check))
}

/// `film`: runs each scenario and mode and draws it.
fn run_film(
    names: &[String],
    every_s: f32,
    (from_s, to_s): (Option<f32>, Option<f32>),
    character: &CharacterArgs,
    cli: &Cli,
) -> anyhow::Result<bool> {
    use anyhow::Context;
    check_hz(cli.hz)?;
    if !(every_s.is_finite() && every_s > 0.0) {
        anyhow::bail!("--every must be a positive number of seconds, got {every_s}");
    }
    let from_s = from_s.unwrap_or(f32::NEG_INFINITY);
    let to_s = to_s.unwrap_or(f32::INFINITY);
    if from_s.is_nan() || to_s.is_nan() || from_s >= to_s {
        anyhow::bail!("--from must come before --to");
    }
    let options = cli.run_options()?;
    let mover = cli.single_mover("film")?;
    let course = load_course(None)?;
    let actor = character.actor()?;
    film::register_font()?;
    let chosen = scenarios::chosen(names)?;
    let world = plantigrade_rapier::RapierWorld::from_course(&course)?;
    let dir = cli.out.join("film");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let bones = film::actor_bones(&actor)?;
    // A character's films are named after it, beside the mannequin's.
    let prefix = match character.files() {
        Some(_) => format!("{}_", actor.name),
        None => String::new(),
    };
    for scenario in chosen {
        for &tilt in &options.tilts {
            for &mode in &options.modes {
                let setup = scenarios::Setup::new(mode, tilt)
                    .starting_at(options.start_offset_m)
                    .with_mover(mover);
                let (result, trace) =
                    scenarios::run_scenario(scenario, &course, &world, &actor, cli.hz, setup)?;
                let path_info = scenarios::path_for(&course, scenario, options.start_offset_m)?;
                let suffix = if tilt == scenarios::TiltMode::On {
                    String::new()
                } else {
                    format!("_tilt_{}", tilt.name())
                };
                let file = dir.join(format!(
                    "{prefix}{}_{}{suffix}.png",
                    scenario.name,
                    mode.name()
                ));
                let f = &result.metrics;
                let film = film::Film {
                    title: format!(
                        "{prefix}{} — foot IK {}, tilt {}, {} Hz",
                        scenario.name,
                        mode.name(),
                        tilt.name(),
                        cli.hz
                    ),
                    subtitle: film::subtitle(&f.foot, every_s),
                    samples: {
                        let start = trace.samples.partition_point(|s| s.time_s < from_s);
                        let end = trace.samples.partition_point(|s| s.time_s <= to_s);
                        &trace.samples[start..end.max(start)]
                    },
                    bones: bones.clone(),
                    course: &course,
                    origin_world: path_info.spawn,
                    direction_world: path_info.direction,
                    every_s,
                    views: film::Views::for_scenario(scenario),
                };
                film::render(&film, &file)?;
                println!("wrote {}", file.display());
            }
        }
    }
    Ok(true)
}

/// `report --compare A B`: writes the comparison page and prints its path.
fn run_compare(files: &[PathBuf], out: &std::path::Path) -> anyhow::Result<bool> {
    let [a, b] = files else {
        anyhow::bail!("--compare takes two results.json files, A and B");
    };
    let page = report::write_comparison(a, b, out)?;
    println!("report: {}", page.display());
    Ok(true)
}

/// `clips --character F --generate-clips`: the clip table of the built-in set authored on
/// the rig; with `--check`, fails unless every gait clip meets the mannequin's targets.
fn generated_clip_table(files: &character::CharacterFiles, cli: &Cli) -> anyhow::Result<bool> {
    check_hz(cli.hz)?;
    let (skeleton, map, generated) = character::generated_on_file(files)?;
    println!(
        "{}: the built-in set authored on the rig ({} clips, speeds × {:.3}, its leg over the mannequin's)\n",
        files.file.display(),
        generated.clips.len(),
        generated.scale
    );
    let rows = clip_table::evaluate_on(&skeleton, &map, &generated.clips, cli.hz)?;
    clip_table::print_table(&rows, cli.hz);
    let failures = clip_table::failures(&rows);
    println!(
        "\n{} of {} gait clips meet the targets",
        rows.iter()
            .filter(|r| r.checks.iter().all(|c| c.pass))
            .count(),
        rows.len()
    );
    for failure in &failures {
        println!("  {failure}");
    }
    Ok(failures.is_empty() || !cli.check)
}

/// The clip table, the graph timeline and every scenario; returns whether every check
/// passed (always `true` unless `check`).
fn default_run(cli: &Cli) -> anyhow::Result<bool> {
    let (out, hz, check) = (&cli.out, cli.hz, cli.check);
    check_hz(hz)?;
    let movers = cli.movers()?;
    let clips = clip_table::evaluate(hz)?;
    clip_table::print_table(&clips, hz);
    if let Some(dir) = &cli.trace {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("creating {}: {e}", dir.display()))?;
    }
    // The timeline with each mover; results.json keeps the first (the default's).
    let mut timelines = Vec::with_capacity(movers.len());
    for &mover in &movers {
        let timeline = timeline::run(hz, cli.trace.as_deref(), mover)?;
        if movers.len() > 1 || mover != scenarios::Mover::Rapier {
            println!("\n=== mover: {} ===", mover.name());
        }
        timeline::print(&timeline);
        timelines.push((mover, timeline));
    }
    let course = load_course(None)?;
    let actor = scenarios::Actor::mannequin()?;
    let (scenario_results, images) = report::draw::draw_alongside(
        report_drawer(cli, &course, &actor)?,
        &report_selection(cli)?,
        |observe| run_scenarios_per_mover(&[], &course, &actor, cli, observe),
    )?;
    let results = Results {
        clips: Some(&clips),
        graph_timeline: timelines.first().map(|(_, t)| t),
        scenarios: Some(&scenario_results),
        character: None,
    };
    let path = report::write_results(out, &results)?;
    println!("\nwrote {}", path.display());
    let page = write_report_page(cli, &results, &images)?;

    let mut failures = clip_table::failures(&clips);
    let mut unmet: Vec<String> = Vec::new();
    for (mover, timeline) in &timelines {
        let timeline_line = |c: &report::Check| {
            if *mover == scenarios::Mover::Rapier {
                format!("graph timeline: {} {}", c.name, c.detail)
            } else {
                format!(
                    "graph timeline ({} mover): {} {}",
                    mover.name(),
                    c.name,
                    c.detail
                )
            }
        };
        failures.extend(
            timeline
                .checks
                .iter()
                .filter(|c| !c.pass && c.blocking)
                .map(timeline_line),
        );
        unmet.extend(
            timeline
                .checks
                .iter()
                .filter(|c| !c.pass && !c.blocking)
                .map(timeline_line),
        );
    }
    failures.extend(scenarios::failures(&scenario_results));
    unmet.extend(scenarios::unmet_targets(&scenario_results));
    print_targets(&unmet);
    let what = format!(
        "{} clips, graph timeline, {} scenarios",
        clips.len(),
        scenario_results.len()
    );
    let passed = verdict(failures, &what, check);
    print_report_path(page.as_deref());
    Ok(passed)
}

/// A closed pipe (`plantigrade-lab … | head`) ends the program quietly, as it does other
/// command-line tools: Rust ignores SIGPIPE, so `println!` panicked on the next line
/// ("failed printing to stdout: Broken pipe").
#[cfg(unix)]
fn end_quietly_on_a_closed_pipe() {
    // SAFETY: first thing in main, before any other thread exists; SIG_DFL is the
    // signal's default action, a valid handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn end_quietly_on_a_closed_pipe() {}

fn main() -> ExitCode {
    end_quietly_on_a_closed_pipe();
    let cli = Cli::parse();
    let default_command = Command::Clips {
        character: None,
        bone_map: None,
        generate_clips: false,
    };
    let result = match cli.command.clone().unwrap_or(default_command) {
        Command::Clips {
            character: Some(file),
            bone_map,
            generate_clips: _,
        } => generated_clip_table(
            &character::CharacterFiles {
                file,
                bone_map,
                generate_clips: true,
                ..Default::default()
            },
            &cli,
        ),
        Command::Clips { .. } => default_run(&cli),
        Command::Run {
            scenarios,
            course,
            character,
        } => match character.files() {
            Some(files) => run_character(&scenarios, course.as_deref(), &files, &cli),
            None => run_scenarios(&scenarios, course.as_deref(), &cli),
        },
        Command::Sweep { scenarios, offsets } => run_sweep(&scenarios, offsets, &cli),
        Command::Soak {
            minutes,
            characters,
            seed,
        } => soak::run(soak::SoakArgs {
            minutes,
            characters,
            seed,
            hz: cli.hz,
        }),
        Command::Crowd {
            characters,
            threads,
            seconds,
            viewer,
            full_detail,
            probes,
            reduced_detail,
            seed,
            no_joint_culling,
        } => crowd::run(crowd::CrowdArgs {
            characters,
            threads: threads.unwrap_or_else(|| {
                std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
            }),
            seconds,
            viewer,
            full_detail,
            probes,
            reduced_detail,
            seed,
            joint_culling: !no_joint_culling,
            hz: cli.hz,
            check: cli.check,
            out: cli.out.clone(),
        }),
        Command::Film {
            scenarios,
            every,
            from,
            to,
            character,
        } => run_film(&scenarios, every, (from, to), &character, &cli),
        Command::Graph {
            clips,
            generate: true,
            roles: Some(roles),
            write,
            ..
        } => graph_cmd::generate(&clips, &roles, write.as_deref()),
        Command::Graph { file, clips, .. } => graph_cmd::run(file.as_deref(), &clips),
        Command::Report { compare } => run_compare(&compare, &cli.out),
        Command::Mannequin {
            export,
            rig,
            bone_map,
        } => {
            let files = rig.map(|file| character::CharacterFiles {
                file,
                bone_map,
                generate_clips: true,
                ..Default::default()
            });
            inspect::mannequin(export.as_deref(), files.as_ref())
        }
        Command::Inspect {
            file,
            bone_map,
            write_bone_map,
        } => inspect::inspect(&file, bone_map.as_deref(), write_bone_map.as_deref()),
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
