//! `graph [FILE.ron]`: validates a graph definition and prints its parameters, states,
//! transitions and layers.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use plantigrade::graph::{GraphAsset, MachineId, ParamId};
use plantigrade::mannequin::{self, Mannequin};

/// Loads `file` (or the built-in default graph) against the mannequin's clips, or against
/// the skeleton and clips of `clips_file` when given, and prints what it holds.
pub fn run(file: Option<&Path>, clips_file: Option<&Path>) -> anyhow::Result<bool> {
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
    let (skeleton, clips, clips_label) = match clips_file {
        Some(path) => {
            let asset = plantigrade_gltf::load_path(path)
                .with_context(|| format!("loading {}", path.display()))?;
            crate::inspect::print_skipped(&asset);
            (asset.skeleton, asset.clips, path.display().to_string())
        }
        None => {
            let m = Mannequin::new();
            (m.skeleton, m.clips, "the built-in mannequin".to_string())
        }
    };
    let asset = match GraphAsset::from_ron(&source, &skeleton, clips) {
        Ok(asset) => Arc::new(asset),
        Err(err) => {
            println!("{label}: {err}");
            return Ok(false);
        }
    };
    println!("{label}: valid against {clips_label}\n");
    print_graph(&asset);
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
