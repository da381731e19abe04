//! The third-party CC0 rigs in `../shared/assets/` load with the right joints, clips, bone
//! map and an upright rest pose (which catches a missed armature transform).

use plantigrade::bone_map::{BonePreset, HumanoidMap, Side};
use plantigrade::pose::{local_to_model, ModelPose, Pose};
use plantigrade::Skeleton;
use plantigrade_gltf::{load_path, ImportedAsset, SkipReason};

fn load(name: &str) -> Option<ImportedAsset> {
    let path = plantigrade_test_assets::require(name)?;
    Some(load_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

const KAYKIT: [(&str, usize); 3] = [
    ("KayKit_RigMedium_MovementBasic.glb", 11),
    ("KayKit_RigMedium_MovementAdvanced.glb", 13),
    ("KayKit_RigMedium_General.glb", 15),
];
const UAL: &str = "Mesh2Motion_HumanBase_UAL1.glb";
const QUATERNIUS: &str = "Quaternius_Platformer_Character.glb";

fn joint(skeleton: &Skeleton, name: &str) -> usize {
    skeleton
        .find(name)
        .unwrap_or_else(|| panic!("no joint '{name}' in {:?}", skeleton.names()))
}

#[test]
fn every_asset_loads_with_expected_joint_and_clip_counts() {
    let Some(dir) = plantigrade_test_assets::require_dir() else {
        return;
    };
    let mut expected: Vec<(&str, usize, usize)> = vec![(UAL, 53, 44), (QUATERNIUS, 29, 18)];
    expected.extend(KAYKIT.iter().map(|&(f, clips)| (f, 23, clips)));
    for (file, joints, clips) in &expected {
        let Some(asset) = load(file) else { continue };
        assert_eq!(asset.skeleton.num_joints(), *joints, "{file} joints");
        assert_eq!(asset.clips.len(), *clips, "{file} clips");
        assert_eq!(asset.joint_nodes.len(), *joints);
        for clip in &asset.clips {
            let d = clip.duration_s();
            assert!(
                d.is_finite() && d > 0.0,
                "{file} {}: duration {d}",
                clip.name()
            );
            assert!(clip.is_looping(), "no metadata: clips default to looping");
            assert_eq!(clip.joint_tracks().len(), *joints);
            assert!(
                clip.joint_tracks().iter().any(|t| !t.is_empty()),
                "{file} {} animates nothing",
                clip.name()
            );
        }
    }
    // Every file in the folder is covered above, and loads.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if ext == "glb" || ext == "gltf" {
            let name = path.file_name().unwrap().to_str().unwrap();
            assert!(
                expected.iter().any(|(f, _, _)| *f == name),
                "{name} has no expectation in this test"
            );
        }
    }
}

#[test]
fn clip_names_are_kept_exactly() {
    let Some(ual) = load(UAL) else { return };
    let names: Vec<&str> = ual.clips.iter().map(|c| c.name()).collect();
    for wanted in [
        "Walk_Loop",
        "Walk_Formal_Loop",
        "Idle_Loop",
        "Jump_Start",
        "T-Pose",
    ] {
        assert!(names.contains(&wanted), "{wanted} missing from {names:?}");
    }
    let walk = ual.clips.iter().find(|c| c.name() == "Walk_Loop").unwrap();
    let formal = ual
        .clips
        .iter()
        .find(|c| c.name() == "Walk_Formal_Loop")
        .unwrap();
    assert_ne!(walk, formal, "the trap pair must be two different clips");
    assert!(ual.skipped_channels.is_empty(), "UAL animates joints only");

    let Some(basic) = load(KAYKIT[0].0) else {
        return;
    };
    let names: Vec<&str> = basic.clips.iter().map(|c| c.name()).collect();
    for wanted in [
        "Rig_Medium|Walking_A",
        "Rig_Medium|Running_A",
        "Rig_Medium|Jump_Start",
    ] {
        assert!(names.contains(&wanted), "{wanted} missing from {names:?}");
    }
    assert!(!names.contains(&"Walking_A"), "the armature prefix is kept");
    // KayKit animates the armature node `Rig_Medium` too (at its rest value): skipped.
    assert!(!basic.skipped_channels.is_empty());
    assert!(basic
        .skipped_channels
        .iter()
        .all(|s| matches!(s.reason, SkipReason::NotAJoint { .. })));
    assert!(basic.skeleton.find("Rig_Medium").is_none());
}

/// The leg chain names of one side, as found by the bone map.
fn leg_names(skeleton: &Skeleton, map: &HumanoidMap, side: Side) -> [String; 4] {
    let leg = map
        .leg(side)
        .unwrap_or_else(|e| panic!("{side:?} leg: {e}"));
    let ball = leg.ball.expect("toe joint");
    [leg.thigh, leg.calf, leg.foot, ball].map(|j| skeleton.name(j).to_string())
}

#[test]
fn bone_map_finds_both_leg_chains() {
    if let Some(ual) = load(UAL) {
        let map = HumanoidMap::detect(&ual.skeleton);
        assert_eq!(map.preset, BonePreset::Rigify);
        for (side, s) in [(Side::Left, "L"), (Side::Right, "R")] {
            let expected = ["thigh", "shin", "foot", "toe"].map(|b| format!("DEF-{b}.{s}"));
            assert_eq!(leg_names(&ual.skeleton, &map, side), expected);
        }
    }
    for (file, _) in KAYKIT {
        let Some(asset) = load(file) else { return };
        let map = HumanoidMap::detect(&asset.skeleton);
        assert_eq!(map.preset, BonePreset::KayKit, "{file}");
        for (side, s) in [(Side::Left, "l"), (Side::Right, "r")] {
            let expected = ["upperleg", "lowerleg", "foot", "toes"].map(|b| format!("{b}.{s}"));
            assert_eq!(leg_names(&asset.skeleton, &map, side), expected, "{file}");
        }
    }
}

/// The rest pose in model space (y up): head above pelvis above feet, feet and toes on the
/// ground, toes in front of the feet (+Z forward) and the left foot on +X.
fn check_upright(file: &str, skeleton: &Skeleton, head: &str, pelvis: &str, legs: [[&str; 2]; 2]) {
    let at = |name: &str| skeleton.rest_position_model(joint(skeleton, name));
    let (head_y, pelvis_y) = (at(head).y, at(pelvis).y);
    assert!(
        head_y > pelvis_y + 0.2,
        "{file}: head {head_y} pelvis {pelvis_y}"
    );
    for [foot, toe] in legs {
        let (foot_at, toe_at) = (at(foot), at(toe));
        assert!(
            pelvis_y > foot_at.y + 0.2,
            "{file}: pelvis {pelvis_y} {foot} {foot_at}"
        );
        assert!(
            foot_at.y.abs() < 0.15,
            "{file}: {foot} at {foot_at}, not near the ground"
        );
        assert!(
            toe_at.y.abs() < 0.05,
            "{file}: {toe} at {toe_at}, not on the ground"
        );
        assert!(
            toe_at.z > foot_at.z + 0.05,
            "{file}: {toe} not in front of {foot} (+Z)"
        );
    }
    let [[left_foot, _], [right_foot, _]] = legs;
    assert!(
        at(left_foot).x > at(right_foot).x + 0.05,
        "{file}: left is +X"
    );
    // rest_model agrees with rest_position_model.
    let model = skeleton.rest_model();
    assert!((model[joint(skeleton, head)].translation.y - head_y).abs() < 1e-4);
}

#[test]
fn baked_rest_pose_is_upright_with_feet_on_the_ground() {
    if let Some(ual) = load(UAL) {
        let legs = [["DEF-foot.L", "DEF-toe.L"], ["DEF-foot.R", "DEF-toe.R"]];
        check_upright(UAL, &ual.skeleton, "DEF-head", "DEF-hips", legs);
    }
    for (file, _) in KAYKIT {
        let Some(asset) = load(file) else { return };
        let legs = [["foot.l", "toes.l"], ["foot.r", "toes.r"]];
        check_upright(file, &asset.skeleton, "head", "hips", legs);
    }
}

/// Samples a walk at several times: every joint finite, feet below the pelvis, and the feet
/// actually move relative to each other (the clip is not silently the rest pose).
fn check_walk(asset: &ImportedAsset, clip_name: &str, pelvis: &str, feet: [&str; 2]) {
    let skeleton = &asset.skeleton;
    let clip = asset
        .clips
        .iter()
        .find(|c| c.name() == clip_name)
        .unwrap_or_else(|| panic!("no clip {clip_name}"));
    let (pelvis, feet) = (joint(skeleton, pelvis), feet.map(|f| joint(skeleton, f)));
    let mut pose = Pose::rest(skeleton);
    let mut model = ModelPose::new(skeleton.num_joints());
    let mut gaps = Vec::new();
    // KayKit's legs are short: a swinging foot comes within 7 cm of the pelvis.
    let margin = 0.1 * skeleton.rest_position_model(pelvis).y;
    for k in 0..=8 {
        let t = clip.duration_s() * k as f32 / 8.0;
        clip.sample(t, skeleton.rest_local(), &mut pose).unwrap();
        local_to_model(skeleton, &pose, &mut model).unwrap();
        for j in 0..skeleton.num_joints() {
            assert!(
                model.position_model(j).is_finite(),
                "{clip_name} t={t}: joint {} not finite",
                skeleton.name(j)
            );
        }
        let pelvis_y = model.position_model(pelvis).y;
        for foot in feet {
            let foot_y = model.position_model(foot).y;
            assert!(
                foot_y < pelvis_y - margin,
                "{clip_name} t={t}: foot {foot_y} not below pelvis {pelvis_y}"
            );
            assert!(
                foot_y > -0.2,
                "{clip_name} t={t}: foot {foot_y} under the floor"
            );
        }
        let [l, r] = feet.map(|f| model.position_model(f));
        gaps.push(l.z - r.z);
    }
    let spread = gaps.iter().cloned().fold(f32::NEG_INFINITY, f32::max)
        - gaps.iter().cloned().fold(f32::INFINITY, f32::min);
    assert!(spread > 0.1, "{clip_name}: feet never swap ({gaps:?})");
}

#[test]
fn walk_clips_sample_to_plausible_poses() {
    if let Some(ual) = load(UAL) {
        check_walk(&ual, "Walk_Loop", "DEF-hips", ["DEF-foot.L", "DEF-foot.R"]);
    }
    if let Some(kaykit) = load(KAYKIT[0].0) {
        check_walk(
            &kaykit,
            "Rig_Medium|Walking_A",
            "hips",
            ["foot.l", "foot.r"],
        );
    }
}
