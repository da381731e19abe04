//! `inspect FILE.glb [--bone-map MAP.ron] [--write-bone-map OUT.ron]` and
//! `mannequin [--rig FILE.glb [--bone-map MAP.ron]] [--export OUT.glb]`.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;
use plantigrade::bone_map::{
    BoneMapError, BoneNames, FootSockets, HumanoidMap, LegChain, Side, SocketSource,
};
use plantigrade::foot_contacts::{
    add_derived_foot_contacts, ClipContacts, ContactSource, FootContactConfig,
};
use plantigrade::mannequin::Mannequin;
use plantigrade::{Clip, Skeleton};
use plantigrade_gltf::{ImportOptions, ImportedAsset, FOOT_VERTEX_MIN_WEIGHT};

/// Prints the built-in mannequin, or writes it as a .glb; with `rig`, the built-in clip set
/// authored on that rig ([`plantigrade::mannequin::generate_clips`]) on the rig's skeleton.
pub fn mannequin(
    export: Option<&Path>,
    rig: Option<&crate::character::CharacterFiles>,
) -> anyhow::Result<bool> {
    let (skeleton, map, clips, what) = match rig {
        Some(files) => {
            let (skeleton, map, generated) = crate::character::generated_on_file(files)?;
            let clips = generated.clips;
            let what = format!("{} with the built-in clips", files.file.display());
            (skeleton, map, clips, what)
        }
        None => {
            let mannequin = Mannequin::new();
            let what = "the mannequin".to_string();
            (mannequin.skeleton, mannequin.bones, mannequin.clips, what)
        }
    };
    match export {
        Some(path) => {
            plantigrade_gltf::export_glb_to_path(&skeleton, &clips, path)
                .with_context(|| format!("exporting {what} to {}", path.display()))?;
            println!(
                "wrote {} ({what}: {} joints, {} clips)",
                path.display(),
                skeleton.num_joints(),
                clips.len()
            );
        }
        None => {
            print_skeleton(&skeleton);
            let given = rig.is_some_and(|files| files.bone_map.is_some());
            let how = if given { "given" } else { "detected" };
            let origin = format!("{how}, preset {:?}", map.preset);
            print_bone_map(&skeleton, &map, &origin, None);
            print_clips(&clips);
        }
    }
    Ok(true)
}

/// Loads a glTF file and prints what plantigrade sees in it: the skeleton, the bone map
/// (detected, or `bone_map` when given) with each leg's chain or why it is not one, the
/// foot sockets and where they came from, and the clips. Writes the map in use to
/// `write_bone_map` as ready-to-edit RON; when a leg is not found and no path is given, the
/// RON is printed instead. `Ok(false)` when the given bone map is unusable.
pub fn inspect(
    file: &Path,
    bone_map: Option<&Path>,
    write_bone_map: Option<&Path>,
) -> anyhow::Result<bool> {
    // Read the map first: a missing or malformed file is an error before any output.
    let names = bone_map.map(read_bone_names).transpose()?;
    // Contacts are derived below, with the bone map in use (given or detected).
    let options = ImportOptions::default()
        .with_skin_vertices(true)
        .with_foot_contacts(false);
    let asset = plantigrade_gltf::load_path_with(file, options)
        .with_context(|| format!("loading {}", file.display()))?;
    println!("{}", file.display());
    print_skeleton(&asset.skeleton);
    let skeleton = &asset.skeleton;
    let map = match (&names, bone_map) {
        (Some(names), Some(path)) => {
            let problems = HumanoidMap::check_names(skeleton, names);
            if problems.is_empty() {
                Some(HumanoidMap::from_names(skeleton, names)?)
            } else {
                let count = match problems.len() {
                    1 => "1 problem".to_string(),
                    n => format!("{n} problems"),
                };
                println!(
                    "\nbone map {} does not fit this skeleton ({count}):",
                    path.display()
                );
                for problem in &problems {
                    match problem {
                        BoneMapError::UnknownJoint { name, .. } => {
                            match similar_joint(skeleton, name) {
                                Some(near) => println!("  {problem} (did you mean '{near}'?)"),
                                None => println!("  {problem}"),
                            }
                        }
                        _ => println!("  {problem}"),
                    }
                }
                None
            }
        }
        _ => Some(HumanoidMap::detect(skeleton)),
    };
    if let Some(mut map) = map.clone() {
        asset.sockets_from_skin(&mut map);
        let origin = match bone_map {
            Some(path) => format!("explicit, from {}", path.display()),
            None => format!("detected, preset {:?}", map.preset),
        };
        print_bone_map(skeleton, &map, &origin, Some(&asset));
        let ron = bone_map_ron(skeleton, &map, &file.display().to_string(), &origin);
        let legs_found = Side::BOTH.iter().all(|&side| map.leg(side).is_ok());
        match write_bone_map {
            Some(out) => {
                std::fs::write(out, &ron)
                    .with_context(|| format!("writing the bone map {}", out.display()))?;
                println!(
                    "\nwrote the bone map to {} (try it with --bone-map)",
                    out.display()
                );
            }
            None if !legs_found => {
                println!(
                    "\na bone map to edit (or write it to a file with --write-bone-map OUT.ron):\n"
                );
                print!("{ron}");
            }
            None => {}
        }
    } else if let Some(out) = write_bone_map {
        println!(
            "\n{} not written: the bone map given is unusable",
            out.display()
        );
    }
    // The clips' foot contacts as a character built from this file gets them: authored,
    // or derived on the map in use (the detected one when the given map is unusable).
    let mut contact_map = map.clone().unwrap_or_else(|| HumanoidMap::detect(skeleton));
    asset.sockets_from_skin(&mut contact_map);
    let (clips, contacts) = add_derived_foot_contacts(
        skeleton,
        &contact_map,
        asset.clips.clone(),
        &FootContactConfig::default(),
    );
    print_clips(&clips);
    print_contacts(&contacts);
    print_skipped(&asset);
    if !asset.skin_vertices.skipped.is_empty() {
        println!(
            "\nskinned mesh parts not read for foot sockets: {}",
            asset.skin_vertices.skipped.len()
        );
        for reason in &asset.skin_vertices.skipped {
            println!("  {reason}");
        }
    }
    Ok(map.is_some())
}

/// A joint whose name equals `name` ignoring case and punctuation (`Foot_L` → `Foot.L`).
fn similar_joint<'s>(skeleton: &'s Skeleton, name: &str) -> Option<&'s str> {
    let key = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let wanted = key(name);
    skeleton
        .names()
        .iter()
        .find(|n| key(n) == wanted)
        .map(String::as_str)
}

/// A RON `BoneNames` from a file, with the file and the line and column of a syntax error.
pub(crate) fn read_bone_names(path: &Path) -> anyhow::Result<BoneNames> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the bone map {}", path.display()))?;
    ron::from_str(&text).with_context(|| format!("bone map {}", path.display()))
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

fn print_skeleton(skeleton: &Skeleton) {
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
}

/// Where a foot's sockets came from, for the report.
fn socket_origin(
    skeleton: &Skeleton,
    map: &HumanoidMap,
    side: Side,
    asset: Option<&ImportedAsset>,
) -> String {
    let leg = map.legs[side.index()];
    match map.feet_source[side.index()] {
        Some(SocketSource::ToeJoint) => match leg.ball {
            Some(ball) => format!("from the toe joint '{}'", skeleton.name(ball)),
            None => "from the toe joint".into(),
        },
        Some(SocketSource::Mesh) => {
            let count = match (asset, leg.foot) {
                (Some(asset), Some(foot)) => asset
                    .skin_vertices
                    .weighted_to(foot, FOOT_VERTEX_MIN_WEIGHT)
                    .len(),
                _ => 0,
            };
            format!(
                "from the mesh: {count} vertices weighted >= {FOOT_VERTEX_MIN_WEIGHT} to the foot"
            )
        }
        Some(SocketSource::Proportions) => {
            let why = match asset {
                Some(a) if !a.skin_vertices.is_empty() => "no toe joint, too few foot vertices",
                _ => "no toe joint, no skinned mesh",
            };
            format!("from human leg proportions ({why}; a stylised rig may need explicit sockets)")
        }
        Some(SocketSource::Explicit) => "explicit, from the bone map".into(),
        None => "none".into(),
    }
}

/// Heel and ball in foot space and in the rest pose's model space, and their distance.
fn describe_sockets(skeleton: &Skeleton, foot: usize, sockets: &FootSockets) -> String {
    let foot_model = skeleton.rest_model()[foot];
    let heel = foot_model.transform_point3(sockets.heel_foot_local);
    let ball = foot_model.transform_point3(sockets.ball_foot_local);
    let v = |p: glam::Vec3| format!("[{:.3}, {:.3}, {:.3}]", p.x, p.y, p.z);
    let fine = |p: glam::Vec3| format!("[{:.5}, {:.5}, {:.5}]", p.x, p.y, p.z);
    // An armature scale baked into the joints (Quaternius: 100) scales foot-local units.
    let scale = foot_model.matrix3.x_axis.length();
    let (units, local): (String, &dyn Fn(glam::Vec3) -> String) = if (scale - 1.0).abs() > 1e-3 {
        (format!("foot-local units, 1 = {scale:.3} m"), &fine)
    } else {
        ("foot-local m".into(), &v)
    };
    format!(
        "heel {} ball {} ({units}); rest model heel {} ball {}; heel to ball {:.3} m",
        local(sockets.heel_foot_local),
        local(sockets.ball_foot_local),
        v(heel),
        v(ball),
        (ball - heel).length()
    )
}

fn print_bone_map(
    skeleton: &Skeleton,
    map: &HumanoidMap,
    origin: &str,
    asset: Option<&ImportedAsset>,
) {
    println!("\nbone map ({origin}):");
    for (role, joint) in map.roles() {
        match joint {
            Some(j) => println!("  {role:<12} {}  (joint {j})", skeleton.name(j)),
            None => println!("  {role:<12} (missing)"),
        }
    }
    for side in Side::BOTH {
        match map.leg(side) {
            Ok(leg) => {
                println!("  {side:?} leg: complete");
                if leg.foot_is_ik_target {
                    println!("    {}", ik_target_foot(skeleton, &leg, side));
                }
                match map.feet[side.index()] {
                    Some(sockets) => println!(
                        "    foot sockets {}: {}",
                        socket_origin(skeleton, map, side, asset),
                        describe_sockets(skeleton, leg.foot, &sockets)
                    ),
                    None => println!("    foot sockets could not be derived"),
                }
            }
            Err(err) => {
                println!("  {side:?} leg: not found: {err}; foot IK is disabled on this side");
            }
        }
    }
}

/// What an IK-target foot is and how foot IK treats it, e.g. "foot_l 'Foot.L' is an IK
/// target (parent Root), solved as the end of thigh 'UpperLeg.L' → calf 'LowerLeg.L'".
fn ik_target_foot(skeleton: &Skeleton, leg: &LegChain, side: Side) -> String {
    let parent = skeleton
        .parent(leg.foot)
        .map_or("none, a root joint", |p| skeleton.name(p));
    format!(
        "foot_{} '{}' is an IK target (parent {parent}), solved as the end of thigh '{}' → calf '{}'",
        side.suffix(),
        skeleton.name(leg.foot),
        skeleton.name(leg.thigh),
        skeleton.name(leg.calf),
    )
}

/// The map as a ready-to-edit RON `BoneNames`: every role listed, roles not found as `None`
/// with the reason in a comment, sockets as they are now (explicit and mesh sockets live,
/// since a character built from the map has no mesh; derived ones commented out).
/// Loading it with `--bone-map` gives the same roles and sockets.
pub(crate) fn bone_map_ron(
    skeleton: &Skeleton,
    map: &HumanoidMap,
    file: &str,
    origin: &str,
) -> String {
    let names = map.to_names(skeleton);
    let quote = |name: &str| ron::to_string(name).unwrap_or_else(|_| format!("{name:?}"));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Bone map for {file} ({origin}), written by plantigrade-lab inspect."
    );
    let _ = writeln!(
        out,
        "// A plantigrade `BoneNames`: the format of `CharacterSettings::bone_map` and of the"
    );
    let _ = writeln!(
        out,
        "// Bevy plugin's `*.bones.ron`. Names must match the skeleton's joints exactly. Foot IK"
    );
    let _ = writeln!(
        out,
        "// needs thigh, calf and foot on a side, each below the one before; the ball (toe) is"
    );
    let _ = writeln!(
        out,
        "// optional. Try it with `plantigrade-lab inspect FILE --bone-map THIS.ron`."
    );
    out.push_str("(\n");
    let one = |out: &mut String, role: &str, name: &Option<String>, why_missing: Option<String>| {
        match name {
            Some(n) => {
                let _ = writeln!(out, "    {role}: Some({}),", quote(n));
            }
            None => {
                let why = why_missing.unwrap_or_else(|| "not found".into());
                let _ = writeln!(out, "    {role}: None, // {why}");
            }
        }
    };
    one(&mut out, "pelvis", &names.pelvis, None);
    let spine: Vec<String> = names.spine.iter().map(|n| quote(n)).collect();
    let _ = writeln!(
        out,
        "    spine: [{}],{}",
        spine.join(", "),
        if spine.is_empty() {
            " // none found"
        } else {
            ""
        }
    );
    one(&mut out, "neck", &names.neck, None);
    one(&mut out, "head", &names.head, None);
    let legs = names.leg_roles();
    for side in Side::BOTH {
        let problem = map.leg_problems[side.index()].as_ref();
        for (role, name) in legs[side.index()] {
            let why = match problem {
                Some(BoneMapError::BrokenChain(chain) | BoneMapError::FootAboveLeg(chain))
                    if chain.child_role == role =>
                {
                    Some(format!(
                        "'{}' was found by name, but {}",
                        chain.child,
                        problem.map(|p| p.to_string()).unwrap_or_default()
                    ))
                }
                _ if role.starts_with("ball") => Some(
                    "not found (optional: sockets then come from the mesh or leg proportions)"
                        .into(),
                ),
                _ => None,
            };
            let ik_target = map
                .leg(side)
                .ok()
                .filter(|leg| leg.foot_is_ik_target && role.starts_with("foot"));
            match (ik_target, name) {
                (Some(leg), Some(n)) => {
                    let parent = skeleton.parent(leg.foot).map_or("", |p| skeleton.name(p));
                    let _ = writeln!(
                        out,
                        "    {role}: Some({}), // an IK target (parent {parent}): foot IK solves the leg for the shin's end and puts it there",
                        quote(n)
                    );
                }
                _ => one(&mut out, role, name, why),
            }
        }
    }
    for (role, name) in names.arm_roles() {
        one(&mut out, role, name, None);
    }
    for side in Side::BOTH {
        let role = format!("foot_sockets_{}", side.suffix());
        let i = side.index();
        match (map.feet[i], map.feet_source[i]) {
            (Some(s), Some(SocketSource::Explicit)) => {
                let _ = writeln!(out, "    {role}: Some({}),", sockets_ron(&s));
            }
            (Some(s), Some(SocketSource::Mesh)) => {
                // Live: a character built from this map has no mesh to take them from.
                let _ = writeln!(
                    out,
                    "    // {role}: foot-local, from the skin's vertices weighted to the foot."
                );
                let _ = writeln!(out, "    {role}: Some({}),", sockets_ron(&s));
            }
            (Some(s), source) => {
                let _ = writeln!(
                    out,
                    "    // {role}: foot-local metres; now derived ({source:?}). Uncomment to override:"
                );
                let _ = writeln!(out, "    // {role}: Some({}),", sockets_ron(&s));
            }
            (None, _) => {
                let _ = writeln!(out, "    {role}: None, // no leg; derived from the rest pose once the leg is mapped");
            }
        }
    }
    out.push_str(")\n");
    out
}

fn sockets_ron(s: &FootSockets) -> String {
    let v = |p: glam::Vec3| format!("({:?}, {:?}, {:?})", p.x, p.y, p.z);
    format!(
        "(heel_foot_local: {}, ball_foot_local: {}, mid_foot_local: {})",
        v(s.heel_foot_local),
        v(s.ball_foot_local),
        v(s.mid_foot_local)
    )
}

fn print_clips(clips: &[Clip]) {
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

/// Per clip, where its foot contacts come from and each foot's stance share.
fn print_contacts(contacts: &[ClipContacts]) {
    print!("{}", contacts_text(contacts));
}

fn contacts_text(contacts: &[ClipContacts]) -> String {
    let derived = contacts
        .iter()
        .filter(|c| c.source.contains(&ContactSource::Derived))
        .count();
    let mut text = format!(
        "\nfoot contacts (FootContact_L/R; authored curves win, the others derived from the feet's height and ground speed): {derived} of {} clips derived\n",
        contacts.len()
    );
    for c in contacts {
        let source = |s: ContactSource| match s {
            ContactSource::Authored => "authored",
            ContactSource::Derived => "derived",
            ContactSource::Missing => "none",
        };
        let origin = if c.source[0] == c.source[1] {
            source(c.source[0]).to_string()
        } else {
            format!("L {} R {}", source(c.source[0]), source(c.source[1]))
        };
        let share = |s: Option<f32>| s.map_or("-".to_string(), |s| format!("{s:.2}"));
        let _ = write!(
            text,
            "  {:<40} {origin:<9} stance L {:>4} R {:>4}",
            c.clip,
            share(c.stance_share[0]),
            share(c.stance_share[1])
        );
        if let Some(problem) = &c.problem {
            let _ = write!(text, "  ({problem})");
        }
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use plantigrade::skeleton::{Joint, Transform};

    use super::*;

    /// `root → hips → thigh → calf`, feet under the root (IK targets), toes under the feet.
    fn detached_feet() -> Skeleton {
        let j = |name: &str, parent: Option<usize>, t: glam::Vec3| Joint {
            name: name.into(),
            parent,
            rest_local: Transform::from_translation(t),
        };
        Skeleton::new(vec![
            j("Root", None, glam::Vec3::ZERO),
            j("Hips", Some(0), glam::Vec3::new(0.0, 0.95, 0.0)),
            j("UpperLeg.L", Some(1), glam::Vec3::new(0.1, -0.05, 0.0)),
            j("LowerLeg.L", Some(2), glam::Vec3::new(0.0, -0.42, 0.0)),
            j("UpperLeg.R", Some(1), glam::Vec3::new(-0.1, -0.05, 0.0)),
            j("LowerLeg.R", Some(4), glam::Vec3::new(0.0, -0.42, 0.0)),
            j("Foot.L", Some(0), glam::Vec3::new(0.1, 0.08, 0.0)),
            j("Foot.R", Some(0), glam::Vec3::new(-0.1, 0.08, 0.0)),
            j("Head \"quoted\"", Some(1), glam::Vec3::new(0.0, 0.7, 0.0)),
        ])
        .unwrap()
    }

    /// Writes `map` as RON, reads it back as an explicit map, and checks roles and sockets.
    fn assert_round_trip(skeleton: &Skeleton, map: &HumanoidMap) -> String {
        let text = bone_map_ron(skeleton, map, "test.glb", "detected");
        let names: BoneNames = ron::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(HumanoidMap::check_names(skeleton, &names), []);
        let back = HumanoidMap::from_names(skeleton, &names).unwrap();
        assert_eq!(back.roles(), map.roles(), "{text}");
        assert_eq!(back.feet, map.feet, "{text}");
        text
    }

    #[test]
    fn a_written_bone_map_reads_back_as_the_same_map() {
        let s = detached_feet();
        let map = HumanoidMap::detect(&s);
        let left = map.leg(Side::Left).unwrap();
        assert!(left.foot_is_ik_target);
        assert_eq!(
            ik_target_foot(&s, &left, Side::Left),
            "foot_l 'Foot.L' is an IK target (parent Root), solved as the end of thigh 'UpperLeg.L' → calf 'LowerLeg.L'"
        );
        let text = assert_round_trip(&s, &map);
        // Every role is listed; the IK-target feet say what they are.
        for role in [
            "pelvis:",
            "spine:",
            "neck:",
            "head:",
            "ball_r:",
            "hand_r:",
            "foot_sockets_r:",
        ] {
            assert!(text.contains(role), "{role} missing:\n{text}");
        }
        assert!(text.contains(
            "    foot_l: Some(\"Foot.L\"), // an IK target (parent Root): foot IK solves the leg for the shin's end and puts it there\n"
        ), "{text}");
        // A name that needs escaping in RON, given explicitly.
        let quoted = BoneNames {
            head: Some("Head \"quoted\"".into()),
            ..map.to_names(&s)
        };
        let explicit = HumanoidMap::from_names(&s, &quoted).unwrap();
        let text = assert_round_trip(&s, &explicit);
        assert!(
            text.contains("head: Some(\"Head \\\"quoted\\\"\")"),
            "{text}"
        );

        // A rig whose legs are chains: derived sockets are written commented out, explicit
        // ones live, and both read back.
        let m = Mannequin::new();
        let map = HumanoidMap::detect(&m.skeleton);
        let text = assert_round_trip(&m.skeleton, &map);
        assert!(
            text.contains("    // foot_sockets_l: Some((heel_foot_local: ("),
            "{text}"
        );
        let sockets = FootSockets {
            heel_foot_local: glam::Vec3::new(0.01, -0.08, -0.05),
            ball_foot_local: glam::Vec3::new(0.0, -0.08, 0.15),
            mid_foot_local: glam::Vec3::new(0.005, -0.08, 0.05),
        };
        let map = map.with_foot_sockets(Side::Left, sockets);
        let text = assert_round_trip(&m.skeleton, &map);
        assert!(
            text.contains("    foot_sockets_l: Some((heel_foot_local: (0.01, -0.08, -0.05)"),
            "{text}"
        );
    }

    #[test]
    fn the_shared_rigs_maps_round_trip() {
        for file in [
            "Mesh2Motion_HumanBase_UAL1.glb",
            "KayKit_RigMedium_General.glb",
            "Quaternius_Platformer_Character.glb",
        ] {
            let Some(path) = plantigrade_test_assets::require(file) else {
                continue;
            };
            let options = ImportOptions::default().with_skin_vertices(true);
            let asset = plantigrade_gltf::load_path_with(&path, options).unwrap();
            let mut map = HumanoidMap::detect(&asset.skeleton);
            asset.sockets_from_skin(&mut map);
            assert_round_trip(&asset.skeleton, &map);
            // Mapped without its toe joints, a rig with a mesh gets mesh sockets, which the
            // written map carries live (a character built from it has no mesh).
            let toeless = BoneNames {
                ball_l: None,
                ball_r: None,
                ..map.to_names(&asset.skeleton)
            };
            let mut map = HumanoidMap::from_names(&asset.skeleton, &toeless).unwrap();
            // Quaternius: its IK-target feet end its legs, and get mesh sockets too.
            assert!(
                Side::BOTH.iter().all(|&side| map.leg(side).is_ok()),
                "{file}: a leg is incomplete"
            );
            // (Sockets the detected map took from the mesh come back explicit.)
            let explicit = map.feet_source == [Some(SocketSource::Explicit); 2];
            if asset.sockets_from_skin(&mut map) == 2 || explicit {
                let text = assert_round_trip(&asset.skeleton, &map);
                assert!(text.contains("\n    foot_sockets_l: Some(("), "{text}");
                assert!(text.contains("\n    foot_sockets_r: Some(("), "{text}");
            } else {
                assert!(
                    asset.skin_vertices.is_empty(),
                    "{file}: the mesh gave no sockets"
                );
            }
        }
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("plantigrade-lab-inspect-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn inspect_writes_a_map_and_reads_it_back_and_refuses_bad_ones() {
        let m = Mannequin::new();
        let glb = scratch("mannequin.glb");
        plantigrade_gltf::export_glb_to_path(&m.skeleton, &m.clips, &glb).unwrap();
        let written = scratch("mannequin.bones.ron");
        assert!(inspect(&glb, None, Some(&written)).unwrap());
        let names: BoneNames = ron::from_str(&std::fs::read_to_string(&written).unwrap()).unwrap();
        assert_eq!(names.thigh_l.as_deref(), Some("thigh_l"));
        assert!(inspect(&glb, Some(&written), None).unwrap());

        // A name the skeleton lacks: listed, exit status 1 (Ok(false)), no panic.
        let map_file = |name: &str, text: &str| {
            let path = scratch(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let unknown = map_file(
            "unknown.bones.ron",
            "(foot_l: Some(\"Foot_L\"), calf_r: Some(\"nope\"))",
        );
        assert!(!inspect(&glb, Some(&unknown), None).unwrap());
        assert_eq!(similar_joint(&m.skeleton, "Foot_L"), Some("foot_l"));
        assert_eq!(similar_joint(&m.skeleton, "nope"), None);
        // A leg that is not a chain: also unusable.
        let reversed = map_file(
            "reversed.bones.ron",
            "(thigh_l: Some(\"foot_l\"), calf_l: Some(\"thigh_l\"))",
        );
        assert!(!inspect(&glb, Some(&reversed), None).unwrap());

        // Bad RON and a missing file: errors naming the file (and the line and column).
        let bad = map_file("bad.bones.ron", "(\n  pelvis: 3,\n)");
        let err = format!("{:#}", inspect(&glb, Some(&bad), None).unwrap_err());
        assert!(err.contains("bad.bones.ron") && err.contains("2:"), "{err}");
        let missing = scratch("missing.bones.ron");
        let err = format!("{:#}", inspect(&glb, Some(&missing), None).unwrap_err());
        assert!(
            err.contains("reading the bone map") && err.contains("missing.bones.ron"),
            "{err}"
        );
    }

    #[test]
    fn contacts_say_authored_or_derived_with_each_feet_stance_share() {
        let m = Mannequin::new();
        let (_, contacts) = add_derived_foot_contacts(
            &m.skeleton,
            &m.bones,
            m.clips.clone(),
            &FootContactConfig::default(),
        );
        let text = contacts_text(&contacts);
        let line = |clip: &str| {
            text.lines()
                .find(|l| l.trim_start().starts_with(&format!("{clip} ")))
                .unwrap_or_else(|| panic!("no line for {clip} in {text}"))
                .to_string()
        };
        assert!(
            line("Walk_F").contains("authored  stance L 0.57 R 0.57"),
            "{text}"
        );
        assert!(
            line("Idle").contains("authored  stance L 1.00 R 1.00"),
            "{text}"
        );
        // The upper-body Aim overlay carries none: derived, standing.
        assert!(
            line("Aim").contains("derived   stance L 1.00 R 1.00"),
            "{text}"
        );
        assert!(text.contains("1 of "), "{text}");
        // A clip it cannot read says why.
        let one_key = plantigrade::Clip::new(
            "OneKey",
            None,
            vec![plantigrade::JointTracks::default(); m.skeleton.num_joints()],
        )
        .unwrap();
        let (_, contacts) = add_derived_foot_contacts(
            &m.skeleton,
            &m.bones,
            vec![one_key],
            &FootContactConfig::default(),
        );
        let text = contacts_text(&contacts);
        assert!(
            text.contains("OneKey") && text.contains("none") && text.contains("zero duration"),
            "{text}"
        );
    }

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

    /// Issue 22 item 3: `mannequin --rig UAL.glb --export OUT.glb` writes the rig with the
    /// clip set authored on it, and the file reads back as the same skeleton and clips.
    #[test]
    fn the_clip_set_authored_on_a_rig_exports_and_reads_back_the_same() {
        let Some(file) = plantigrade_test_assets::require("Mesh2Motion_HumanBase_UAL1.glb") else {
            return;
        };
        let files = crate::character::CharacterFiles {
            file,
            generate_clips: true,
            ..Default::default()
        };
        let out = scratch("ual_generated.glb");
        assert!(mannequin(Some(&out), Some(&files)).unwrap());
        let (skeleton, _, generated) = crate::character::generated_on_file(&files).unwrap();
        let clips = generated.clips;
        // Exactly what was written: no contacts derived on import.
        let options = ImportOptions::default().with_foot_contacts(false);
        let back = plantigrade_gltf::load_path_with(&out, options).unwrap();
        assert_eq!(back.skeleton.num_joints(), skeleton.num_joints());
        for j in 0..skeleton.num_joints() {
            assert_eq!(back.skeleton.name(j), skeleton.name(j));
            assert_eq!(back.skeleton.parent(j), skeleton.parent(j));
            let (a, b) = (back.skeleton.rest_local()[j], skeleton.rest_local()[j]);
            assert!(a.translation.abs_diff_eq(b.translation, 1e-5), "{j}");
            assert!(a.rotation.abs_diff_eq(b.rotation, 1e-5), "{j}");
        }
        assert_eq!(back.clips.len(), clips.len());
        // Keys and their times exactly; values to float rounding (the file stores unit
        // quaternions, renormalised on the way: 1e-7 apart).
        for (read, written) in back.clips.iter().zip(&clips) {
            let name = written.name();
            assert_eq!(read.name(), name);
            assert_eq!(read.duration_s(), written.duration_s(), "{name}");
            assert_eq!(read.is_looping(), written.is_looping(), "{name}");
            assert_eq!(read.curves(), written.curves(), "{name}");
            assert_eq!(read.events(), written.events(), "{name}");
            assert_eq!(
                read.authored_velocity_model_m_s(),
                written.authored_velocity_model_m_s(),
                "{name}"
            );
            for (j, (a, b)) in read
                .joint_tracks()
                .iter()
                .zip(written.joint_tracks())
                .enumerate()
            {
                assert_eq!(a.translation, b.translation, "{name}: joint {j}");
                assert_eq!(a.scale, b.scale, "{name}: joint {j}");
                assert_eq!(
                    a.rotation.is_some(),
                    b.rotation.is_some(),
                    "{name}: joint {j}"
                );
                if let (Some(a), Some(b)) = (&a.rotation, &b.rotation) {
                    assert_eq!(a.times_s(), b.times_s(), "{name}: joint {j}");
                    for (p, q) in a.values().iter().zip(b.values()) {
                        assert!(p.abs_diff_eq(*q, 1e-6), "{name}: joint {j}: {p} {q}");
                    }
                }
            }
        }
    }
}
