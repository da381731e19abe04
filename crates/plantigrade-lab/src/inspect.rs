//! `inspect FILE.glb` and `mannequin --export FILE.glb`.

use std::path::Path;

use anyhow::Context;
use plantigrade::bone_map::{HumanoidMap, Side};
use plantigrade::mannequin::Mannequin;
use plantigrade::{Clip, Skeleton};
use plantigrade_gltf::ImportedAsset;

/// Prints the built-in mannequin, or writes it as a .glb.
pub fn mannequin(export: Option<&Path>) -> anyhow::Result<bool> {
    let mannequin = Mannequin::new();
    match export {
        Some(path) => {
            plantigrade_gltf::export_glb_to_path(&mannequin.skeleton, &mannequin.clips, path)
                .with_context(|| format!("exporting the mannequin to {}", path.display()))?;
            println!(
                "wrote {} ({} joints, {} clips)",
                path.display(),
                mannequin.skeleton.num_joints(),
                mannequin.clips.len()
            );
        }
        None => print_asset(&mannequin.skeleton, &mannequin.clips),
    }
    Ok(true)
}

/// Loads a glTF file and prints what plantigrade sees in it.
pub fn inspect(file: &Path) -> anyhow::Result<bool> {
    let asset =
        plantigrade_gltf::load_path(file).with_context(|| format!("loading {}", file.display()))?;
    println!("{}", file.display());
    print_asset(&asset.skeleton, &asset.clips);
    print_skipped(&asset);
    Ok(true)
}

/// What the import left out: animations that could not be imported, each with its whole
/// reason, and meshes stored with a compression this importer does not decode.
pub(crate) fn print_skipped(asset: &ImportedAsset) {
    if !asset.skipped_clips.is_empty() {
        println!("\nskipped clips: {}", asset.skipped_clips.len());
        for skipped in &asset.skipped_clips {
            let reason = plantigrade_gltf::error_chain(&*skipped.error);
            // Most reasons name their animation already.
            if reason.contains(&format!("'{}'", skipped.name)) {
                println!("  {reason}");
            } else {
                println!("  '{}': {reason}", skipped.name);
            }
        }
    }
    if !asset.skipped_meshes.is_empty() {
        println!(
            "\nskipped meshes (compressed; not needed for the skeleton and clips): {}",
            asset.skipped_meshes.len()
        );
        for mesh in &asset.skipped_meshes {
            let name = mesh.name.as_deref().unwrap_or("(unnamed)");
            println!("  mesh {} '{name}': {}", mesh.mesh, mesh.extension);
        }
    }
}

/// The joints in depth-first order (each right after its parent's earlier children and
/// their subtrees), so an indented listing puts every joint under its real parent even
/// when the file's order is not depth-first (parents only come before children).
fn depth_first(skeleton: &Skeleton) -> Vec<usize> {
    let mut order = Vec::with_capacity(skeleton.num_joints());
    let mut stack: Vec<usize> = (0..skeleton.num_joints())
        .filter(|&j| skeleton.parent(j).is_none())
        .rev()
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); skeleton.num_joints()];
    for joint in 0..skeleton.num_joints() {
        if let Some(parent) = skeleton.parent(joint) {
            children[parent].push(joint);
        }
    }
    while let Some(joint) = stack.pop() {
        order.push(joint);
        stack.extend(children[joint].iter().rev());
    }
    order
}

fn print_asset(skeleton: &Skeleton, clips: &[Clip]) {
    println!("\nskeleton: {} joints", skeleton.num_joints());
    for joint in depth_first(skeleton) {
        let p = skeleton.rest_position_model(joint);
        println!(
            "  {:indent$}{}  (rest model position {:.3}, {:.3}, {:.3})",
            "",
            skeleton.name(joint),
            p.x,
            p.y,
            p.z,
            indent = 2 * skeleton.depth(joint)
        );
    }

    let map = HumanoidMap::detect(skeleton);
    println!("\nbone map (preset {:?}):", map.preset);
    for (role, joint) in map.roles() {
        match joint {
            Some(j) => println!("  {role:<12} {}", skeleton.name(j)),
            None => println!("  {role:<12} (missing)"),
        }
    }
    for side in Side::BOTH {
        match map.leg(side) {
            Ok(_) => match map.feet[side.index()] {
                Some(s) => println!(
                    "  {side:?} leg: complete; foot sockets (foot-local m) heel {:.3?} ball {:.3?}",
                    s.heel_foot_local.to_array(),
                    s.ball_foot_local.to_array()
                ),
                None => println!("  {side:?} leg: complete; foot sockets could not be derived"),
            },
            Err(err) => println!("  {err}"),
        }
    }

    println!("\nclips: {}", clips.len());
    for clip in clips {
        let animated = clip.joint_tracks().iter().filter(|t| !t.is_empty()).count();
        let mut extra = Vec::new();
        if let Some(speed) = clip.authored_speed_m_s() {
            extra.push(format!("{speed:.2} m/s"));
        }
        if !clip.is_looping() {
            extra.push("one-shot".into());
        }
        if !clip.curves().is_empty() {
            let names: Vec<_> = clip.curves().iter().map(|c| c.name.as_str()).collect();
            extra.push(format!("curves {}", names.join(",")));
        }
        if !clip.events().is_empty() {
            extra.push(format!("{} events", clip.events().len()));
        }
        println!(
            "  {:<40} {:>7.3} s  {:>3} joints animated  {}",
            clip.name(),
            clip.duration_s(),
            animated,
            extra.join("  ")
        );
    }
}

#[cfg(test)]
mod tests {
    use plantigrade::skeleton::{Joint, Transform};

    use super::*;

    #[test]
    fn the_tree_lists_children_under_their_parents_in_any_joint_order() {
        let joint = |name: &str, parent: Option<usize>| Joint {
            name: name.into(),
            parent,
            rest_local: Transform::IDENTITY,
        };
        // Parents come first, but not depth-first: thigh_l's child comes after thigh_r.
        let skeleton = Skeleton::new(vec![
            joint("root", None),
            joint("thigh_l", Some(0)),
            joint("thigh_r", Some(0)),
            joint("calf_l", Some(1)),
            joint("calf_r", Some(2)),
            joint("prop", None),
        ])
        .unwrap();
        let names: Vec<&str> = depth_first(&skeleton)
            .into_iter()
            .map(|j| skeleton.name(j))
            .collect();
        assert_eq!(
            names,
            ["root", "thigh_l", "calf_l", "thigh_r", "calf_r", "prop"]
        );
    }
}
