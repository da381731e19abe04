//! Retargeting between the mannequin and copies of it with other bone axes, size and
//! facing: what a joint does must come out the same, scaled and turned with the rig.

use glam::{Quat, Vec3};

use super::*;
use crate::bone_map::HumanoidMap;
use crate::mannequin::Mannequin;
use crate::pose::{local_to_model, ModelPose, Pose};
use crate::skeleton::Joint;

/// `skeleton` (the mannequin's, or one built from it) with every joint's rest rotation
/// replaced by an arbitrary one (its children's offsets turned to match), `scale` times its
/// size, turned by `facing` as a whole: the same body, other bone axes.
pub(crate) fn reshaped(skeleton: &Skeleton, scale: f32, facing: Quat) -> Skeleton {
    let rest_model = skeleton.rest_model();
    let mut rotations_model = vec![Quat::IDENTITY; skeleton.num_joints()];
    let joints = (0..skeleton.num_joints())
        .map(|j| {
            // Deterministic, varied rest turns.
            let axis = Vec3::new(1.0 + j as f32, 2.0 - j as f32 * 0.3, 0.5 * j as f32).normalize();
            let rotation_model = facing * Quat::from_axis_angle(axis, 0.4 + 0.37 * j as f32);
            rotations_model[j] = rotation_model;
            let position = facing * Vec3::from(rest_model[j].translation) * scale;
            let parent = skeleton.parent(j);
            let (parent_rotation, parent_position) =
                parent.map_or((Quat::IDENTITY, Vec3::ZERO), |p| {
                    (
                        rotations_model[p],
                        facing * Vec3::from(rest_model[p].translation) * scale,
                    )
                });
            Joint {
                name: skeleton.name(j).to_owned(),
                parent,
                rest_local: Transform::from_translation_rotation(
                    parent_rotation.inverse() * (position - parent_position),
                    parent_rotation.inverse() * rotation_model,
                ),
            }
        })
        .collect();
    Skeleton::new(joints).unwrap()
}

fn model_of(skeleton: &Skeleton, clip: &Clip, time_s: f32) -> ModelPose {
    let mut pose = Pose::new(skeleton.num_joints());
    clip.sample(time_s, skeleton.rest_local(), &mut pose)
        .unwrap();
    let mut model = ModelPose::new(skeleton.num_joints());
    local_to_model(skeleton, &pose, &mut model).unwrap();
    model
}

/// `skeleton` with each joint's rest pose (relative to its parent) passed through
/// `change`, by name.
fn with_rest_changed(skeleton: &Skeleton, change: impl Fn(&str, &mut Transform)) -> Skeleton {
    let joints = (0..skeleton.num_joints())
        .map(|j| {
            let mut rest_local = skeleton.rest_local()[j];
            change(skeleton.name(j), &mut rest_local);
            Joint {
                name: skeleton.name(j).to_owned(),
                parent: skeleton.parent(j),
                rest_local,
            }
        })
        .collect();
    Skeleton::new(joints).unwrap()
}

/// The mannequin's walk and run on a rig half its size, facing +X, whose bones point
/// anywhere: the legs, spine, neck and head are where the mannequin's are, halved and
/// turned, at every sample; curves, events and the authored speed carry over (scaled).
#[test]
fn a_clip_on_a_reshaped_copy_of_its_rig_moves_the_same_joints_the_same_way() {
    let m = Mannequin::new();
    let source = m.skeleton.clone();
    let source_map = HumanoidMap::detect(&source);
    let facing = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
    let target = reshaped(&source, 0.5, facing);
    let target_map = HumanoidMap::detect(&target);
    let retarget = Retarget::new(&source, &source_map, &target, &target_map).unwrap();
    assert!(
        (retarget.scale() - 0.5).abs() < 1e-4,
        "{}",
        retarget.scale()
    );
    assert_eq!(retarget.target_name("spine_02"), Some("spine_02"));
    // Joints whose ancestors are all driven (or still): legs, spine, neck, head.
    let compared: Vec<usize> = ["pelvis", "spine_01", "spine_03", "neck_01", "head"]
        .iter()
        .chain(&[
            "thigh_l", "calf_l", "foot_l", "ball_l", "thigh_r", "calf_r", "foot_r", "ball_r",
        ])
        .map(|n| source.find(n).unwrap())
        .collect();
    for name in ["Walk_F", "Run_F"] {
        let clip = m.clips.iter().find(|c| c.name() == name).unwrap();
        let on_target = retarget.clip(clip, DEFAULT_SAMPLE_HZ).unwrap();
        assert_eq!(on_target.duration_s(), clip.duration_s());
        assert_eq!(on_target.events(), clip.events());
        assert_eq!(on_target.curves().len(), clip.curves().len());
        let speed = clip.authored_speed_m_s().unwrap();
        assert!((on_target.authored_speed_m_s().unwrap() - 0.5 * speed).abs() < 1e-4);
        // At the resampled keys: exact up to rounding. Between them: linear keys at
        // 60 Hz against the mannequin's own curves, within a few mm.
        for (offset, tolerance_m) in [(0.0, 1e-4), (0.5, 0.006)] {
            let mut worst_m = 0.0f32;
            for k in 0..(clip.duration_s() * DEFAULT_SAMPLE_HZ) as usize {
                let t = (k as f32 + offset) / DEFAULT_SAMPLE_HZ;
                let (a, b) = (model_of(&source, clip, t), model_of(&target, &on_target, t));
                for &j in &compared {
                    let expected = facing * a.position_model(j) * 0.5;
                    worst_m = worst_m.max(expected.distance(b.position_model(j)));
                }
            }
            assert!(
                worst_m < tolerance_m,
                "{name}: a joint {worst_m} m from where it should be ({offset} between keys)"
            );
        }
    }
}

/// On its own rig a clip comes back as it was (up to resampling).
#[test]
fn a_clip_retargeted_onto_its_own_rig_is_unchanged() {
    let m = Mannequin::new();
    let map = HumanoidMap::detect(&m.skeleton);
    let retarget = Retarget::new(&m.skeleton, &map, &m.skeleton, &map).unwrap();
    let clip = m.clips.iter().find(|c| c.name() == "Walk_F").unwrap();
    let same = retarget.clip(clip, DEFAULT_SAMPLE_HZ).unwrap();
    let feet = ["foot_l", "foot_r", "hand_l", "head"].map(|n| m.skeleton.find(n).unwrap());
    for k in 0..(clip.duration_s() * DEFAULT_SAMPLE_HZ) as usize {
        let t = k as f32 / DEFAULT_SAMPLE_HZ;
        let (a, b) = (
            model_of(&m.skeleton, clip, t),
            model_of(&m.skeleton, &same, t),
        );
        for j in feet {
            let d = a.position_model(j).distance(b.position_model(j));
            assert!(d < 1e-4, "joint {j} at {t} s: {d} m");
        }
    }
}

/// A rig without the roles retargeting needs, a clip of another rig, a bad rate: errors.
#[test]
fn rigs_and_clips_retargeting_cannot_use_are_refused() {
    let m = Mannequin::new();
    let map = HumanoidMap::detect(&m.skeleton);
    let mut no_pelvis = map.clone();
    no_pelvis.pelvis = None;
    assert!(matches!(
        Retarget::new(&m.skeleton, &map, &m.skeleton, &no_pelvis),
        Err(RetargetError::MissingRole {
            rig: "target",
            role: "pelvis"
        })
    ));
    let mut no_foot = map.clone();
    no_foot.legs[0].foot = None;
    assert!(matches!(
        Retarget::new(&m.skeleton, &no_foot, &m.skeleton, &map),
        Err(RetargetError::MissingRole { rig: "source", .. })
    ));
    let retarget = Retarget::new(&m.skeleton, &map, &m.skeleton, &map).unwrap();
    let clip = &m.clips[0];
    for hz in [0.0, -1.0, f32::NAN] {
        assert!(matches!(
            retarget.clip(clip, hz),
            Err(RetargetError::SampleRate(_))
        ));
    }
    let short = Clip::new("short", Some(1.0), vec![JointTracks::default(); 3]).unwrap();
    assert!(matches!(
        retarget.clip(&short, 60.0),
        Err(RetargetError::JointCount { .. })
    ));
}

/// A rig like the mannequin but with its arms in an A-pose at rest (45° down): the arms
/// are first raised to the mannequin's T-pose rest, so its hands swing where the
/// mannequin's do. Without that, they hung 45° lower all through the walk.
#[test]
fn an_a_pose_rig_swings_its_arms_where_a_t_pose_rig_does() {
    let m = Mannequin::new();
    let source = m.skeleton.clone();
    let target = with_rest_changed(&source, |name, rest_local| {
        if name == "upperarm_l" || name == "upperarm_r" {
            let down = if name.ends_with("_l") { -1.0 } else { 1.0 } * std::f32::consts::FRAC_PI_4;
            rest_local.rotation = Quat::from_rotation_z(down) * rest_local.rotation;
        }
    });
    let hand = target.find("hand_l").unwrap();
    assert!(
        target.rest_position_model(hand).y < source.rest_position_model(hand).y - 0.3,
        "the A-pose's hand hangs lower at rest"
    );
    let retarget = Retarget::new(
        &source,
        &HumanoidMap::detect(&source),
        &target,
        &HumanoidMap::detect(&target),
    )
    .unwrap();
    let clip = m.clips.iter().find(|c| c.name() == "Walk_F").unwrap();
    let on_target = retarget.clip(clip, DEFAULT_SAMPLE_HZ).unwrap();
    let hands = ["hand_l", "hand_r", "lowerarm_l"].map(|n| source.find(n).unwrap());
    for k in 0..(clip.duration_s() * DEFAULT_SAMPLE_HZ) as usize {
        let t = k as f32 / DEFAULT_SAMPLE_HZ;
        let (a, b) = (model_of(&source, clip, t), model_of(&target, &on_target, t));
        for j in hands {
            let d = a.position_model(j).distance(b.position_model(j));
            assert!(d < 1e-3, "joint {j} at {t} s: {d} m from the T-pose rig's");
        }
    }
}

/// `skeleton` with each thigh `thigh` times and each shin `shin` times as long (rest
/// offsets of the calves and feet scaled): the same body on other leg proportions.
fn with_leg_proportions(skeleton: &Skeleton, thigh: f32, shin: f32) -> Skeleton {
    with_rest_changed(skeleton, |name, rest_local| {
        if name.starts_with("calf_") {
            rest_local.translation *= thigh;
        } else if name.starts_with("foot_") {
            rest_local.translation *= shin;
        }
    })
}

/// Each foot's lower sole point (heel or ball), model y.
fn lowest_soles(map: &HumanoidMap, model: &ModelPose) -> [f32; 2] {
    [Side::Left, Side::Right].map(|side| {
        let leg = map.leg(side).unwrap();
        let sockets = map.feet[side.index()].unwrap();
        let heel = model.point_model(leg.foot, sockets.heel_foot_local);
        let ball = model.point_model(leg.foot, sockets.ball_foot_local);
        heel.y.min(ball.y)
    })
}

/// A rig with shorter thighs and longer shins than the source's: the source's joint turns
/// alone lift a planted foot off the floor or push it in (the bent knee puts the ankle
/// elsewhere), so each leg is bent to reach the source's ankle, scaled, and set at the
/// height that puts its lower sole point where the source's is. Wherever the source's
/// foot is planted, the target's is on its floor within a millimetre.
#[test]
fn a_rig_of_other_leg_proportions_keeps_its_planted_feet_on_the_floor() {
    let m = Mannequin::new();
    let source = m.skeleton.clone();
    let source_map = HumanoidMap::detect(&source);
    let target = with_leg_proportions(&source, 0.8, 1.2);
    let target_map = HumanoidMap::detect(&target);
    let reach = Retarget::new(&source, &source_map, &target, &target_map).unwrap();
    let turns_only = reach.clone().without_leg_reach();
    let rest = |skeleton: &Skeleton, map: &HumanoidMap| {
        let mut model = ModelPose::new(skeleton.num_joints());
        local_to_model(skeleton, &Pose::rest(skeleton), &mut model).unwrap();
        lowest_soles(map, &model)
    };
    let (source_rest, target_rest) = (rest(&source, &source_map), rest(&target, &target_map));
    for name in ["Walk_F", "Run_F"] {
        let clip = m.clip(name).unwrap();
        let [on_floor, turned] =
            [&reach, &turns_only].map(|r| r.clip(clip, DEFAULT_SAMPLE_HZ).unwrap());
        let contacts = ["FootContact_L", "FootContact_R"].map(|c| clip.curve(c).unwrap());
        let mut worst_m = [0.0f32; 2];
        for k in 0..(clip.duration_s() * DEFAULT_SAMPLE_HZ) as usize {
            let t = k as f32 / DEFAULT_SAMPLE_HZ;
            let source_soles = lowest_soles(&source_map, &model_of(&source, clip, t));
            for (worst, on_target) in worst_m.iter_mut().zip([&on_floor, &turned]) {
                let target_soles = lowest_soles(&target_map, &model_of(&target, on_target, t));
                for f in 0..2 {
                    if contacts[f].track.sample(t) < 0.5 {
                        continue;
                    }
                    let wanted = (source_soles[f] - source_rest[f]) * reach.scale();
                    *worst = worst.max((target_soles[f] - target_rest[f] - wanted).abs());
                }
            }
        }
        assert!(
            worst_m[0] < 1e-3,
            "{name}: a planted foot {} m off its floor",
            worst_m[0]
        );
        // The rig does need it: turned alone, its planted feet leave the floor.
        assert!(
            worst_m[1] > 5e-3,
            "{name}: turns alone are {} m off",
            worst_m[1]
        );
    }
}

/// A rig resting with bent knees (Quaternius rests with its hips 0.42 m over its ankles
/// on 0.53 m of leg) is scaled by its leg's length, hip to knee to ankle, as its
/// character settings are (`rig_scale`): its clips then stride and travel at the speeds it
/// moves at. By hip to ankle at rest, they came out 27 % short for Quaternius, its walk
/// blended toward its run and its planted feet dragged until their lock let go.
#[test]
fn a_rig_resting_with_bent_knees_is_scaled_by_its_legs_length() {
    let m = Mannequin::new();
    let source = m.skeleton.clone();
    let bent = with_rest_changed(&source, |name, rest_local| {
        if name.starts_with("calf_") {
            rest_local.rotation = Quat::from_rotation_x(0.8) * rest_local.rotation;
        }
    });
    let (source_map, bent_map) = (HumanoidMap::detect(&source), HumanoidMap::detect(&bent));
    let leg = |skeleton: &Skeleton, map: &HumanoidMap| {
        crate::rig_scale::leg_length_m(skeleton, map).unwrap()
    };
    let hip_to_ankle = |skeleton: &Skeleton, map: &HumanoidMap| {
        let l = map.leg(Side::Left).unwrap();
        skeleton
            .rest_position_model(l.thigh)
            .distance(skeleton.rest_position_model(l.foot))
    };
    // Bent: the same leg, its ankle nearer the hip.
    assert!((leg(&bent, &bent_map) - leg(&source, &source_map)).abs() < 1e-4);
    assert!(hip_to_ankle(&bent, &bent_map) < 0.95 * hip_to_ankle(&source, &source_map));
    let retarget = Retarget::new(&source, &source_map, &bent, &bent_map).unwrap();
    assert!(
        (retarget.scale() - 1.0).abs() < 1e-4,
        "{}",
        retarget.scale()
    );
}

/// A rig whose feet hang from its root as IK targets (Quaternius' kind; here the mannequin
/// with its feet re-hung so): the retargeted clip carries each foot to the end of its shin
/// in every pose, so the feet step as the source's do. Left at its rest place, a foot
/// never moved, and foot IK read it there.
#[test]
fn a_rigs_ik_target_feet_are_carried_with_its_shins() {
    let m = Mannequin::new();
    let source = m.skeleton.clone();
    let rest_model = source.rest_model();
    let root = 0;
    let joints = (0..source.num_joints())
        .map(|j| {
            let name = source.name(j);
            let (parent, rest_local) = if name.starts_with("foot_") {
                let (scale, rotation, translation) =
                    (rest_model[root].inverse() * rest_model[j]).to_scale_rotation_translation();
                (
                    Some(root),
                    Transform {
                        translation,
                        rotation,
                        scale,
                    },
                )
            } else {
                (source.parent(j), source.rest_local()[j])
            };
            Joint {
                name: name.to_owned(),
                parent,
                rest_local,
            }
        })
        .collect();
    let target = Skeleton::new(joints).unwrap();
    let target_map = HumanoidMap::detect(&target);
    let legs = [Side::Left, Side::Right].map(|side| target_map.leg(side).unwrap());
    assert!(legs.iter().all(|leg| leg.foot_is_ik_target));
    let retarget =
        Retarget::new(&source, &HumanoidMap::detect(&source), &target, &target_map).unwrap();
    let clip = m.clip("Walk_F").unwrap();
    let on_target = retarget.clip(clip, DEFAULT_SAMPLE_HZ).unwrap();
    let mut foot_travel_m = 0.0f32;
    let first = model_of(&target, &on_target, 0.0);
    for k in 0..(clip.duration_s() * DEFAULT_SAMPLE_HZ) as usize {
        let model = model_of(&target, &on_target, k as f32 / DEFAULT_SAMPLE_HZ);
        for leg in &legs {
            let shin_end =
                model.joints_model()[leg.calf].transform_point3(leg.ankle_in_calf(&target));
            let foot = model.position_model(leg.foot);
            assert!(
                shin_end.distance(foot) < 1e-3,
                "foot {} m off its shin",
                shin_end.distance(foot)
            );
            foot_travel_m = foot_travel_m.max(foot.distance(first.position_model(leg.foot)));
        }
    }
    assert!(
        foot_travel_m > 0.3,
        "the feet stay within {foot_travel_m} m"
    );
}
