//! The third-party CC0 rigs in `../shared/assets/` load with the right joints, clips, bone
//! map and an upright rest pose (which catches a missed armature transform).

use glam::Vec3;
use plantigrade::bone_map::{BoneNames, BonePreset, FootSockets, HumanoidMap, Side, SocketSource};
use plantigrade::pose::{local_to_model, ModelPose, Pose};
use plantigrade::Skeleton;
use plantigrade_gltf::{load_path, load_path_with, ImportOptions, ImportedAsset, SkipReason};

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

fn load_with_skin(name: &str) -> Option<ImportedAsset> {
    let path = plantigrade_test_assets::require(name)?;
    let options = ImportOptions::default().with_skin_vertices(true);
    Some(load_path_with(&path, options).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// Heel and ball of `sockets` on `foot` in the rest pose's model space.
fn sockets_model(skeleton: &Skeleton, foot: usize, sockets: &FootSockets) -> (Vec3, Vec3) {
    let m = skeleton.rest_model()[foot];
    (
        m.transform_point3(sockets.heel_foot_local),
        m.transform_point3(sockets.ball_foot_local),
    )
}

#[test]
fn quaternius_is_labelled_quaternius_and_its_ik_target_feet_end_its_legs() {
    let Some(asset) = load(QUATERNIUS) else {
        return;
    };
    let s = &asset.skeleton;
    let map = HumanoidMap::detect(s);
    // It was labelled KayKit: the same words in lower case, matched case-insensitively.
    assert_eq!(map.preset, BonePreset::Quaternius);
    for (side, x) in [(Side::Left, "L"), (Side::Right, "R")] {
        // Foot.L hangs from Root, not from LowerLeg.L: an IK target, solved as the end of
        // the shin.
        let leg = map.leg(side).unwrap();
        assert_eq!(Some(leg.thigh), s.find(&format!("UpperLeg.{x}")));
        assert_eq!(Some(leg.calf), s.find(&format!("LowerLeg.{x}")));
        assert_eq!(Some(leg.foot), s.find(&format!("Foot.{x}")));
        assert_eq!(s.parent(leg.foot), s.find("Root"));
        assert!(leg.foot_is_ik_target);
        // The shin's end in the calf's frame is the foot's rest position: 0.296 m from the
        // knee in metres, the armature's scale of 100 baked into the calf's frame.
        let rest = s.rest_model();
        let ankle = rest[leg.calf].transform_point3(leg.ankle_in_calf(s));
        assert!(ankle.distance(s.rest_position_model(leg.foot)) < 1e-5);
        let shin_m = ankle.distance(s.rest_position_model(leg.calf));
        assert!((shin_m - 0.296).abs() < 0.002, "{shin_m}");
    }
    // An explicit map naming those feet is accepted the same way.
    let names = BoneNames {
        thigh_l: Some("UpperLeg.L".into()),
        calf_l: Some("LowerLeg.L".into()),
        foot_l: Some("Foot.L".into()),
        ..Default::default()
    };
    let explicit = HumanoidMap::from_names(s, &names).unwrap();
    assert_eq!(
        explicit.leg(Side::Left).unwrap(),
        map.leg(Side::Left).unwrap()
    );
    // With no mesh at hand (as `Character::new` has it), sockets from leg proportions, in
    // metres through the foot's scale of 100: heel to ball 0.72 × 0.31 × 0.533 m = 11.9 cm,
    // on the ground, about the ankle.
    for side in Side::BOTH {
        assert_eq!(
            map.feet_source[side.index()],
            Some(SocketSource::Proportions)
        );
        let leg = map.leg(side).unwrap();
        let (heel, ball) = sockets_model(s, leg.foot, &map.feet[side.index()].unwrap());
        assert!(
            ((ball - heel).length() - 0.119).abs() < 0.002,
            "{side:?}: heel {heel} ball {ball}"
        );
        assert!(heel.y.abs() < 1e-3 && ball.y.abs() < 1e-3, "{heel} {ball}");
        let ankle = s.rest_position_model(leg.foot);
        assert!(heel.z < ankle.z && ball.z > ankle.z);
    }
}

#[test]
fn quaternius_feet_get_sockets_from_the_skin() {
    // No toe joints; the feet are round shoes skinned to Foot.L / Foot.R.
    let Some(asset) = load_with_skin(QUATERNIUS) else {
        return;
    };
    let s = &asset.skeleton;
    assert!(
        asset.skin_vertices.skipped.is_empty(),
        "{:?}",
        asset.skin_vertices.skipped
    );
    let mut heels = Vec::new();
    for name in ["Foot.L", "Foot.R"] {
        let foot = joint(s, name);
        let points = asset
            .skin_vertices
            .weighted_to(foot, plantigrade_gltf::FOOT_VERTEX_MIN_WEIGHT);
        assert!(points.len() > 20, "{name}: {} vertices", points.len());
        let sockets = FootSockets::from_sole_points(s, foot, &points).unwrap();
        let (heel, ball) = sockets_model(s, foot, &sockets);
        let length = (ball - heel).length();
        assert!(
            (0.1..0.3).contains(&length),
            "{name}: heel {heel} ball {ball}"
        );
        assert!(
            heel.y.abs() < 0.01 && ball.y.abs() < 0.01,
            "{name}: sole off the ground"
        );
        assert!(ball.z > heel.z + 0.1, "{name}: ball not ahead of heel");
        heels.push(heel);
    }
    // Mirror images of each other.
    assert!((heels[0] - heels[1] * Vec3::new(-1.0, 1.0, 1.0)).length() < 0.005);
    // Its IK-target feet end its legs, so the map takes them.
    let mut map = HumanoidMap::detect(s);
    assert_eq!(asset.sockets_from_skin(&mut map), 2);
    assert_eq!(map.feet_source, [Some(SocketSource::Mesh); 2]);
}

#[test]
fn ual_foot_skin_gives_the_sockets_its_toe_joint_gives() {
    // The UAL rig has toe joints; the vertices weighted to DEF-foot end at the ball (the toes
    // are weighted to DEF-toe), so the skin estimate should land on the toe-joint sockets.
    let Some(asset) = load_with_skin(UAL) else {
        return;
    };
    let s = &asset.skeleton;
    let map = HumanoidMap::detect(s);
    for side in Side::BOTH {
        let leg = map.leg(side).unwrap();
        assert_eq!(map.feet_source[side.index()], Some(SocketSource::ToeJoint));
        let (joint_heel, joint_ball) = sockets_model(s, leg.foot, &map.feet[side.index()].unwrap());
        let points = asset.skin_vertices.weighted_to(leg.foot, 0.5);
        let mesh = FootSockets::from_sole_points(s, leg.foot, &points).unwrap();
        let (heel, ball) = sockets_model(s, leg.foot, &mesh);
        assert!(
            (heel - joint_heel).length() < 0.01,
            "{side:?} heel {heel} vs {joint_heel}"
        );
        assert!(
            (ball - joint_ball).length() < 0.025,
            "{side:?} ball {ball} vs {joint_ball}"
        );
        assert!(heel.y.abs() < 0.005 && ball.y.abs() < 0.005);
    }
    // Toe-joint sockets are kept when the skin is offered.
    let mut with_skin = map.clone();
    assert_eq!(asset.sockets_from_skin(&mut with_skin), 0);
    assert_eq!(with_skin, map);
}

#[test]
fn kaykit_without_its_toe_joints_gets_sockets_from_human_proportions() {
    // KayKit files carry no mesh: a map without the toes falls back to leg proportions.
    // Those are human (foot 0.31 of the leg), and KayKit is a stylised figure with short
    // legs (0.227 + 0.148 m) and big shoes: 8.4 cm heel to ball where its toe joints say
    // 15.5 cm. Such a rig needs its toe joints, a mesh, or explicit sockets.
    let Some(asset) = load_with_skin(KAYKIT[0].0) else {
        return;
    };
    let s = &asset.skeleton;
    assert!(asset.skin_vertices.is_empty());
    let mut names = HumanoidMap::detect(s).to_names(s);
    names.ball_l = None;
    names.ball_r = None;
    let mut map = HumanoidMap::from_names(s, &names).unwrap();
    assert_eq!(asset.sockets_from_skin(&mut map), 0);
    for side in Side::BOTH {
        assert_eq!(
            map.feet_source[side.index()],
            Some(SocketSource::Proportions)
        );
        let leg = map.leg(side).unwrap();
        let at = |j: usize| s.rest_position_model(j);
        let leg_length =
            (at(leg.calf) - at(leg.thigh)).length() + (at(leg.foot) - at(leg.calf)).length();
        assert!((leg_length - 0.375).abs() < 0.005, "{leg_length}");
        let (heel, ball) = sockets_model(s, leg.foot, &map.feet[side.index()].unwrap());
        let ankle = at(leg.foot);
        assert!(
            (ball.z - ankle.z - 0.47 * 0.31 * leg_length).abs() < 1e-4,
            "{ball}"
        );
        assert!(
            (ankle.z - heel.z - 0.25 * 0.31 * leg_length).abs() < 1e-4,
            "{heel}"
        );
        assert!(((ball - heel).length() - 0.084).abs() < 0.001);
        assert!(heel.y.abs() < 1e-4 && ball.y.abs() < 1e-4);
    }
}
