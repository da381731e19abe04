//! `graph [FILE.ron]`: validates a graph definition and prints its parameters, states,
//! transitions and layers. `graph --generate --roles ROLES.ron --clips A.glb [--clips
//! B.glb …]`: generates one from a clip-role map instead, prints the missing roles and the
//! measured speed of each gait, validates it the same way and prints or writes it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use plantigrade::graph::roles::{generate_graph, ClipRoles};
use plantigrade::graph::{check_root_motion, GraphAsset, MachineId, ParamId, RootSource};
use plantigrade::mannequin::{self, Mannequin};
use plantigrade::rig_clips::clips_for_character;
use plantigrade::{Clip, HumanoidMap, Skeleton};
use plantigrade_gltf::{AddedClips, ImportOptions, ImportedAsset};

/// Loads `file` (or the built-in default graph) against the mannequin's clips, or against
/// the skeleton and clips of `clips_files` when given (the first file's skeleton, every
/// file's clips), and prints what it holds.
pub fn run(file: Option<&Path>, clips_files: &[PathBuf]) -> anyhow::Result<bool> {
    let (source, label) = match file {
        Some(path) => (
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?,
            path.display().to_string(),
        ),
        None => (
            mannequin::DEFAULT_GRAPH_RON.to_string(),
            "built-in default_als.ron".to_string(),
        ),
    };
    let (skeleton, clips, clips_label) = if clips_files.is_empty() {
        let m = Mannequin::new();
        (m.skeleton, m.clips, "the built-in mannequin".to_string())
    } else {
        let asset = load_clips(clips_files)?;
        (asset.skeleton, asset.clips, files_label(clips_files))
    };
    check(&source, &label, &skeleton, clips, &clips_label)
}

/// Generates a graph from the role map `roles_file` over the clips of `clips_files` (the
/// first file's skeleton, every file's clips), prints the missing roles and how each gait's
/// speed was measured, checks the graph as [`run`] does and writes it to `write` (or
/// prints it). False when the role map, the clips or the graph do not work out.
pub fn generate(
    clips_files: &[PathBuf],
    roles_file: &Path,
    write: Option<&Path>,
) -> anyhow::Result<bool> {
    anyhow::ensure!(
        !clips_files.is_empty(),
        "--generate needs the character's clips: --clips FILE.glb (repeat it for clips in \
         several files)"
    );
    // As `run --character` loads a rig: sockets from the skin where the feet have no toe
    // joints, contacts derived on that map (the gait speeds are measured from the soles).
    let (asset, bones) = crate::character::load_rig(&crate::character::CharacterFiles {
        file: clips_files[0].clone(),
        clips: clips_files[1..].to_vec(),
        ..Default::default()
    })?;
    let roles_label = roles_file.display().to_string();
    let text =
        std::fs::read_to_string(roles_file).with_context(|| format!("reading {roles_label}"))?;
    let roles = match ClipRoles::from_ron(&text) {
        Ok(roles) => roles,
        Err(err) => {
            println!("{roles_label}: {err}");
            return Ok(false);
        }
    };
    let (clips, _) = clips_for_character(&asset.skeleton, &bones, asset.clips.clone())?;
    let generated = match generate_graph(&roles, &asset.skeleton, &bones, &clips) {
        Ok(generated) => generated,
        Err(err) => {
            println!("{roles_label}: {err}");
            return Ok(false);
        }
    };

    println!("\ngraph generated from {roles_label}");
    println!("\nmissing roles: {}", generated.missing.len());
    for missing in &generated.missing {
        println!("  {missing}");
    }
    println!("\ngait speeds (where each clip sits on the speed axis):");
    println!(
        "  {:<16} {:<36} {:>6} {:>8}  how",
        "role", "clip", "m/s", "heading"
    );
    for s in &generated.speeds {
        let heading = s
            .measured
            .as_ref()
            .map_or("-".to_string(), |m| format!("{:.0}°", m.direction_deg()));
        let how = match (&s.fallback, &s.measured) {
            (Some(why), _) => format!("NOT MEASURED, typical speed: {why}"),
            (None, Some(m)) => format!("measured: {}", m.source),
            (None, None) => String::new(),
        };
        println!(
            "  {:<16} {:<36} {:>6.2} {heading:>8}  {how}",
            s.role.name(),
            s.clip,
            s.speed_m_s
        );
    }
    if !generated.warnings.is_empty() {
        println!("\nwarnings: {}", generated.warnings.len());
        for warning in &generated.warnings {
            println!("  {warning}");
        }
    }

    let ron = generated.to_ron();
    let label = match write {
        Some(path) => {
            std::fs::write(path, &ron).with_context(|| format!("writing {}", path.display()))?;
            println!("\nwrote {}", path.display());
            path.display().to_string()
        }
        None => {
            println!("\n{ron}");
            "the generated graph".to_string()
        }
    };
    println!();
    check(
        &ron,
        &label,
        &asset.skeleton,
        clips,
        &files_label(clips_files),
    )
}

fn files_label(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(" + ")
}

/// The first file's skeleton and clips, with every other file's clips added to it (same
/// rig, joints matched by name), and what was skipped on the way.
pub(crate) fn load_clips(files: &[PathBuf]) -> anyhow::Result<ImportedAsset> {
    load_clips_with(files, ImportOptions::default())
}

/// [`load_clips`] with every file imported with `options`.
pub(crate) fn load_clips_with(
    files: &[PathBuf],
    options: ImportOptions,
) -> anyhow::Result<ImportedAsset> {
    let (first, rest) = files
        .split_first()
        .context("no clips file given (--clips FILE.glb)")?;
    let mut asset = plantigrade_gltf::load_path_with(first, options)
        .with_context(|| format!("loading {}", first.display()))?;
    crate::inspect::print_skipped(&asset);
    for path in rest {
        let added = asset
            .add_clips_from_path(path, options)
            .with_context(|| format!("adding the clips of {}", path.display()))?;
        print_added(path, &added);
    }
    if !rest.is_empty() {
        println!(
            "{} clips over {} joints in all",
            asset.clips.len(),
            asset.skeleton.num_joints()
        );
    }
    Ok(asset)
}

fn print_added(path: &Path, added: &AddedClips) {
    println!("{}: {} clips added", path.display(), added.added.len());
    if !added.duplicates.is_empty() {
        println!(
            "  already loaded (the first kept): {}",
            added.duplicates.join(", ")
        );
    }
    for unmatched in &added.unmatched_joints {
        println!(
            "  '{}': joint '{}' is not in the first file's skeleton; its keys are skipped",
            unmatched.clip, unmatched.joint
        );
    }
    if !added.joints_not_in_file.is_empty() {
        println!(
            "  joints this file lacks (held at rest by its clips): {}",
            added.joints_not_in_file.join(", ")
        );
    }
    if !added.rest_differs.is_empty() {
        println!(
            "  joints whose rest pose differs from the first file's: {}",
            added.rest_differs.join(", ")
        );
    }
    for skipped in &added.skipped_clips {
        println!(
            "  skipped clip '{}': {}",
            skipped.name,
            plantigrade_gltf::error_chain(&*skipped.error)
        );
    }
}

/// Compiles `source` against the skeleton and clips and prints the graph; false if it does
/// not load.
fn check(
    source: &str,
    label: &str,
    skeleton: &Skeleton,
    clips: Vec<Clip>,
    clips_label: &str,
) -> anyhow::Result<bool> {
    let asset = match GraphAsset::from_ron(source, skeleton, clips) {
        Ok(asset) => Arc::new(asset),
        Err(err) => {
            println!("{label}: {err}");
            return Ok(false);
        }
    };
    println!("{label}: valid against {clips_label}\n");
    print_graph(&asset);
    // It loads, but its root motion may not fit the rig (a rig that starts at its pelvis).
    let misfits = check_root_motion(
        asset.root_motion(),
        skeleton,
        &HumanoidMap::detect(skeleton),
        asset.clips(),
    );
    if !misfits.is_empty() {
        println!("\nroot motion does not fit this rig ({}):", misfits.len());
        for misfit in &misfits {
            println!("  warning: {misfit}");
        }
        let fits = RootSource::of(skeleton, &HumanoidMap::detect(skeleton))
            .and_then(|source| source.root_motion(skeleton, asset.clips()));
        if let (None, Some(fits)) = (&asset.root_motion().joint, fits) {
            println!("  (the graph names no joint, so a Character on this rig uses this instead: {fits:?})");
        }
    }
    Ok(true)
}

fn print_graph(asset: &GraphAsset) {
    println!("parameters:");
    for (name, id) in asset.params().iter() {
        let (kind, default) = match id {
            ParamId::Float(p) => ("float", format!("{}", asset.params().get_float(p))),
            ParamId::Bool(p) => ("bool", format!("{}", asset.params().get_bool(p))),
            ParamId::Vec2(p) => (
                "vec2",
                format!("{:?}", asset.params().get_vec2(p).to_array()),
            ),
        };
        println!("  {name:<20} {kind:<6} default {default}");
    }
    for m in 0..asset.num_machines() {
        let id = MachineId(m as u16);
        println!("\nstate machine '{}':", asset.machine_name(id));
        println!(
            "  states: {}",
            asset.state_names(id).collect::<Vec<_>>().join(", ")
        );
        println!("  transitions (first match wins):");
        for (from, to, condition, duration_s) in asset.transitions(id) {
            println!("    {from:>12} -> {to:<12} {duration_s:>5.2} s  {condition}");
        }
    }
    let layers: Vec<_> = asset.layer_names().collect();
    if !layers.is_empty() {
        println!("\nlayers: {}", layers.join(", "));
    }
    println!(
        "\nclips: {}, float curves: {}",
        asset.clips().len(),
        asset.curve_names().join(", ")
    );
}

#[cfg(test)]
mod tests {
    use plantigrade::ik::FootIkMode;
    use plantigrade_course::Course;
    use plantigrade_rapier::RapierWorld;

    use super::*;
    use crate::scenarios::{run_scenario, Setup, TiltMode, SCENARIOS};

    /// Graphs generated from the example role maps drive each shared rig (skipped when
    /// ../shared/assets is absent) through a run on the flat and a running jump over the
    /// gap, predictive foot IK on: no NaN, and it gets there.
    #[test]
    fn generated_graphs_run_and_jump_the_shared_rigs() {
        let rigs: [(&str, &[&str]); 3] = [
            ("ual.roles.ron", &["Mesh2Motion_HumanBase_UAL1.glb"]),
            (
                "kaykit.roles.ron",
                &[
                    "KayKit_RigMedium_MovementBasic.glb",
                    "KayKit_RigMedium_MovementAdvanced.glb",
                    "KayKit_RigMedium_General.glb",
                ],
            ),
            (
                "quaternius.roles.ron",
                &["Quaternius_Platformer_Character.glb"],
            ),
        ];
        let course = Course::default_course();
        let world = RapierWorld::from_course(&course).unwrap();
        for (roles_file, files) in rigs {
            let Some(paths) = files
                .iter()
                .map(|f| plantigrade_test_assets::require(f))
                .collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            let asset = load_clips(&paths).unwrap();
            let roles_path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../examples/characters")
                .join(roles_file);
            let roles = ClipRoles::from_ron(&std::fs::read_to_string(roles_path).unwrap())
                .unwrap_or_else(|e| panic!("{roles_file}: {e}"));
            let bones = HumanoidMap::detect(&asset.skeleton);
            let generated = generate_graph(&roles, &asset.skeleton, &bones, &asset.clips).unwrap();
            let actor = crate::scenarios::Actor::with_graph(Arc::new(
                GraphAsset::from_ron(&generated.to_ron(), &asset.skeleton, asset.clips).unwrap(),
            ));
            for name in ["flat_run", "gap_jump_run"] {
                let scenario = SCENARIOS.iter().find(|s| s.name == name).unwrap();
                let setup = Setup::new(FootIkMode::Predictive, TiltMode::On);
                let (result, trace) =
                    run_scenario(scenario, &course, &world, &actor, 60.0, setup).unwrap();
                assert_eq!(result.metrics.nan_count, 0, "{roles_file} {name}");
                assert_eq!(result.metrics.foot.nan_count, 0, "{roles_file} {name}");
                let (first, last) = (trace.feet_world[0], *trace.feet_world.last().unwrap());
                assert!(
                    first.distance(last) > 5.0,
                    "{roles_file} {name}: moved {:.2} m",
                    first.distance(last)
                );
                if name == "gap_jump_run" {
                    assert!(
                        trace.state.iter().any(|s| s.contains("Jump")),
                        "{roles_file}: never in Jump: {:?}",
                        trace.state.last()
                    );
                }
            }
        }
    }
}
