//! The mannequin clip set: names, planted feet (measured with the same gait analysis the
//! lab uses), well-formed samples, and checks that the motion reads as a person.

use std::sync::OnceLock;

use glam::Vec3;

use super::clips::author_all;
use super::keys::AuthoredClip;
use super::Mannequin;
use crate::bone_map::Side;
use crate::clip::Clip;
use crate::clip_analysis::{analyze_gait, GaitAnalysisConfig};
use crate::pose::{local_to_model, ModelPose, Pose};

fn mannequin() -> &'static Mannequin {
    static MANNEQUIN: OnceLock<Mannequin> = OnceLock::new();
    MANNEQUIN.get_or_init(Mannequin::new)
}

fn authored() -> &'static [AuthoredClip] {
    static AUTHORED: OnceLock<Vec<AuthoredClip>> = OnceLock::new();
    AUTHORED.get_or_init(|| {
        let m = mannequin();
        author_all(&m.skeleton, &m.bones).expect("authoring succeeds")
    })
}

fn clip(name: &str) -> &'static Clip {
    mannequin()
        .clip(name)
        .unwrap_or_else(|| panic!("clip {name} missing"))
}

fn is_gait(name: &str) -> bool {
    ["Walk_", "Run_", "Sprint", "Crouch_Walk_"]
        .iter()
        .any(|p| name.starts_with(p))
}

/// Stance share range per foot by gait family.
fn stance_share_range(name: &str) -> (f32, f32) {
    if name.starts_with("Walk_") {
        (0.55, 0.65)
    } else if name.starts_with("Crouch_Walk_") {
        (0.6, 0.7)
    } else if name.starts_with("Run_") {
        (0.35, 0.42)
    } else {
        (0.30, 0.38)
    }
}

/// The clip sampled at `time_s` in model space.
fn model_at(clip: &Clip, time_s: f32) -> ModelPose {
    let m = mannequin();
    let mut pose = Pose::rest(&m.skeleton);
    clip.sample(time_s, m.skeleton.rest_local(), &mut pose)
        .expect("clip matches the skeleton");
    let mut model = ModelPose::new(m.skeleton.num_joints());
    local_to_model(&m.skeleton, &pose, &mut model).expect("pose matches the skeleton");
    model
}

fn joint(name: &str) -> usize {
    mannequin()
        .skeleton
        .find(name)
        .unwrap_or_else(|| panic!("joint {name}"))
}

/// Ball and heel sockets of `side` in model space.
fn sockets_model(model: &ModelPose, side: Side) -> (Vec3, Vec3) {
    let m = mannequin();
    let leg = m.bones.leg(side).expect("mannequin legs");
    let sockets = m.bones.feet[side.index()].expect("mannequin sockets");
    (
        model.point_model(leg.foot, sockets.ball_foot_local),
        model.point_model(leg.foot, sockets.heel_foot_local),
    )
}

/// Sample times across a clip: every 60 Hz key and three times between (so also between
/// the keys of clips keyed at 120 Hz).
fn sample_times(clip: &Clip) -> Vec<f32> {
    let n = (clip.duration_s() * 240.0).round() as usize;
    (0..=n).map(|i| i as f32 / 240.0).collect()
}

/// Yaw (rad, about +Y) of a rotation's forward (+Z) axis.
fn yaw_of(rotation: glam::Quat) -> f32 {
    let forward = rotation * Vec3::Z;
    forward.x.atan2(forward.z)
}

/// Planted drift measured like `analyze_gait` but sampling between the keys (a quarter and
/// half a 60 Hz frame off them), where interpolation errs most: (largest path length of
/// the ball socket over one stance, lowest ball or heel socket while planted), both in mm.
fn off_key_stance_quality(clip: &Clip) -> (f32, f32) {
    let (a, b) = (
        off_key_quality_at(clip, 0.25),
        off_key_quality_at(clip, 0.5),
    );
    (a.0.max(b.0), a.1.min(b.1))
}

fn off_key_quality_at(clip: &Clip, offset_frames: f32) -> (f32, f32) {
    let velocity = clip.authored_velocity_model_m_s().unwrap_or(Vec3::ZERO);
    let n = (clip.duration_s() * 60.0).round() as usize;
    let mut worst_drift_mm = 0.0f32;
    let mut lowest_mm = f32::MAX;
    for (side, curve) in [
        (Side::Left, "FootContact_L"),
        (Side::Right, "FootContact_R"),
    ] {
        let mut drift_m = 0.0;
        let mut previous: Option<Vec3> = None;
        for i in 0..(3 * n) {
            let t = (i as f32 + offset_frames) / 60.0;
            let planted = clip.sample_curve(curve, t).unwrap_or(0.0) >= 0.5;
            if !planted {
                if i >= n {
                    worst_drift_mm = worst_drift_mm.max(drift_m * 1000.0);
                }
                drift_m = 0.0;
                previous = None;
                continue;
            }
            let (ball, heel) = sockets_model(&model_at(clip, t), side);
            lowest_mm = lowest_mm.min(ball.y.min(heel.y) * 1000.0);
            let world = ball + velocity * t;
            if let Some(p) = previous {
                drift_m += Vec3::new(world.x - p.x, 0.0, world.z - p.z).length();
            }
            previous = Some(world);
        }
    }
    (worst_drift_mm, lowest_mm)
}

fn correlation(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len() as f32;
    let (ma, mb) = (a.iter().sum::<f32>() / n, b.iter().sum::<f32>() / n);
    let cov: f32 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f32 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f32 = b.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt().max(1e-12)
}

#[test]
fn clip_names_are_complete_unique_and_in_build_order() {
    let mut expected = vec!["Idle".to_string()];
    let dirs = ["F", "FL", "L", "BL", "B", "BR", "R", "FR"];
    expected.extend(dirs.iter().map(|d| format!("Walk_{d}")));
    for d in dirs {
        if d == "L" || d == "R" {
            expected.push(format!("Run_{d}_HipsFwd"));
            expected.push(format!("Run_{d}_HipsBack"));
        } else {
            expected.push(format!("Run_{d}"));
        }
    }
    expected.push("Sprint".into());
    expected.push("Crouch_Idle".into());
    expected.extend(dirs.iter().map(|d| format!("Crouch_Walk_{d}")));
    for name in [
        "Jump_Start",
        "Jump_Apex",
        "Jump_Fall",
        "Land_Light",
        "Land_Heavy",
        "Push_Wall",
        "Aim",
        "Turn_L90",
        "Turn_R90",
        "Turn_L180",
        "Turn_R180",
    ] {
        expected.push(name.into());
    }
    assert_eq!(super::clip_names(), expected);
    let built: Vec<String> = mannequin()
        .clips
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    assert_eq!(built, expected);
    let mut unique = built.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), built.len());
}

#[test]
fn gait_clips_plant_their_feet() {
    let m = mannequin();
    let config = GaitAnalysisConfig::default();
    println!(
        "{:<18} {:>6} {:>6} {:>6} {:>6} {:>9} {:>9} {:>8} {:>8} {:>7} {:>12} {:>12} {:>10}",
        "clip",
        "cycle",
        "speed",
        "shareL",
        "shareR",
        "drift_avg",
        "drift_max",
        "ball_mm",
        "drop_cm",
        "lowered",
        "pelvis_cm",
        "offkey_drift",
        "offkey_low"
    );
    let mut gaits = 0;
    for (clip, authored) in m.clips.iter().zip(authored()) {
        if !is_gait(clip.name()) {
            continue;
        }
        gaits += 1;
        let report = analyze_gait(&m.skeleton, &m.bones, clip, &config).expect("analysis runs");
        let ball_height_mm = report
            .feet
            .iter()
            .flat_map(|f| f.stances.iter().map(|s| s.max_height_mm))
            .fold(0.0, f32::max);
        let pelvis = joint("pelvis");
        let heights: Vec<f32> = sample_times(clip)
            .iter()
            .map(|&t| model_at(clip, t).position_model(pelvis).y * 100.0)
            .collect();
        let off_key = off_key_stance_quality(clip);
        let low = heights.iter().copied().fold(f32::MAX, f32::min);
        let high = heights.iter().copied().fold(f32::MIN, f32::max);
        println!(
            "{:<18} {:>6.3} {:>6.2} {:>6.3} {:>6.3} {:>9.4} {:>9.4} {:>8.4} {:>8.2} {:>7} {:>5.1}–{:>5.1} {:>12.3} {:>10.3}",
            clip.name(),
            clip.duration_s(),
            report.speed_m_s,
            report.feet[0].stance_share,
            report.feet[1].stance_share,
            report.planted_drift_mean_mm(),
            report.planted_drift_max_mm(),
            ball_height_mm,
            authored.stats.max_pelvis_drop_m * 100.0,
            authored.stats.lowered_keys,
            low,
            high,
            off_key.0,
            off_key.1,
        );
        let name = clip.name();
        assert!(clip.is_looping(), "{name}");
        assert!(clip.curve("FootContact_L").is_some() && clip.curve("FootContact_R").is_some());
        assert!(report.planted_drift_mean_mm() <= 2.0, "{name}: {report:?}");
        assert!(report.planted_drift_max_mm() <= 5.0, "{name}: {report:?}");
        assert!(ball_height_mm <= 2.0, "{name}: {report:?}");
        assert_eq!(report.footsteps_per_cycle, 2, "{name}");
        let (low, high) = stance_share_range(name);
        for foot in &report.feet {
            assert!(foot.from_contact_curve, "{name}");
            assert_eq!(foot.stances.len(), 1, "{name}: {foot:?}");
            assert!(
                (low..=high).contains(&foot.stance_share),
                "{name}: stance share {} outside {low}..{high}",
                foot.stance_share
            );
        }
        // No footfall sweeps along the floor (QUAL-4): the foot comes down where it stops.
        assert!(
            report.ground_skid_max_cm() <= 1.0,
            "{name}: ground skid {} cm",
            report.ground_skid_max_cm()
        );
        touches_down_as_contact_rises(clip);
        // Sampled between the keys too, the planted foot stays put and on the ground.
        assert!(off_key.0 <= 2.0, "{name}: off-key drift {} mm", off_key.0);
        assert!(off_key.1 >= -1.0, "{name}: off-key sole {} mm", off_key.1);
        let speed = clip.authored_speed_m_s().unwrap_or(0.0);
        let expected = match name {
            n if n.starts_with("Walk_") => 1.75,
            n if n.starts_with("Run_") => 3.75,
            "Sprint" => 6.5,
            _ => 1.5,
        };
        assert!((speed - expected).abs() < 1e-5, "{name}: {speed}");
    }
    assert_eq!(gaits, 8 + 10 + 1 + 8);
}

/// Each foot's contact curve rises at its touch-down: the ball is on the ground at the
/// first planted tick and was still above it the tick before (a heel strike touches the
/// heel down first; the ball comes down last).
fn touches_down_as_contact_rises(clip: &Clip) {
    let n = (clip.duration_s() * 60.0).round() as usize;
    for (side, curve) in [
        (Side::Left, "FootContact_L"),
        (Side::Right, "FootContact_R"),
    ] {
        let planted = |i: usize| clip.sample_curve(curve, i as f32 / 60.0).unwrap_or(0.0) >= 0.5;
        let rises: Vec<usize> = (n..2 * n)
            .filter(|&i| planted(i) && !planted(i - 1))
            .collect();
        assert_eq!(rises.len(), 1, "{} {side:?}", clip.name());
        let ball_y = |i: usize| sockets_model(&model_at(clip, i as f32 / 60.0), side).0.y;
        let (before, at) = (ball_y(rises[0] - 1), ball_y(rises[0]));
        assert!(
            at.abs() < 1e-3 && before > 5e-3,
            "{} {side:?}: ball {before} m, then {at} m as the contact rises",
            clip.name()
        );
    }
}

#[test]
fn no_clip_needed_a_clamped_limb() {
    for a in authored() {
        assert_eq!(a.stats.clamped_keys, 0, "{}: {:?}", a.clip.name(), a.stats);
    }
}

#[test]
fn every_clip_samples_to_finite_poses() {
    for clip in &mannequin().clips {
        assert!(clip.duration_s() > 0.0, "{}", clip.name());
        for i in 0..=97 {
            let t = -0.5 + (clip.duration_s() + 1.0) * i as f32 / 97.0;
            let model = model_at(clip, t);
            for (j, affine) in model.joints_model().iter().enumerate() {
                assert!(affine.is_finite(), "{} joint {j} at {t} s", clip.name());
            }
        }
    }
}

#[test]
fn feet_never_go_below_the_ground() {
    for clip in &mannequin().clips {
        for t in sample_times(clip) {
            let model = model_at(clip, t);
            for side in Side::BOTH {
                let (ball, heel) = sockets_model(&model, side);
                assert!(
                    ball.y >= -1e-3 && heel.y >= -1e-3,
                    "{} at {t} s: {side:?} ball {ball} heel {heel}",
                    clip.name()
                );
            }
        }
    }
}

#[test]
fn knees_always_bend_forward() {
    let m = mannequin();
    for clip in &m.clips {
        for t in sample_times(clip) {
            let model = model_at(clip, t);
            for side in Side::BOTH {
                let leg = m.bones.leg(side).expect("mannequin legs");
                let hip = model.position_model(leg.thigh);
                let knee = model.position_model(leg.calf);
                let ankle = model.position_model(leg.foot);
                let toes = model.joints_model()[leg.foot].transform_vector3(Vec3::Z);
                let forward = Vec3::new(toes.x, 0.0, toes.z).normalize();
                let along = (hip.y - knee.y) / (hip.y - ankle.y);
                let line = hip + (ankle - hip) * along;
                let ahead = (knee - line).dot(forward);
                assert!(
                    ahead >= -1e-3,
                    "{} at {t} s: {side:?} knee {ahead} m behind the hip–ankle line",
                    clip.name()
                );
            }
        }
    }
}

#[test]
fn idles_keep_both_feet_planted() {
    for name in [
        "Idle",
        "Crouch_Idle",
        "Land_Light",
        "Land_Heavy",
        "Push_Wall",
    ] {
        let clip = clip(name);
        assert!(clip.authored_speed_m_s().unwrap_or(0.0) == 0.0, "{name}");
        let start = model_at(clip, 0.0);
        for t in sample_times(clip) {
            assert_eq!(clip.sample_curve("FootContact_L", t), Some(1.0), "{name}");
            assert_eq!(clip.sample_curve("FootContact_R", t), Some(1.0), "{name}");
            let model = model_at(clip, t);
            for side in Side::BOTH {
                let moved =
                    (sockets_model(&model, side).0 - sockets_model(&start, side).0).length();
                assert!(
                    moved < 5e-4,
                    "{name} at {t} s: {side:?} ball moved {moved} m"
                );
            }
        }
    }
}

#[test]
fn landings_are_one_shots_that_mark_recovery() {
    for (name, duration_s) in [("Land_Light", 0.5), ("Land_Heavy", 1.0)] {
        let clip = clip(name);
        assert!(!clip.is_looping(), "{name}");
        assert!((clip.duration_s() - duration_s).abs() < 1e-4, "{name}");
        let recovered = clip
            .events()
            .iter()
            .find(|e| e.name == "recovered")
            .unwrap_or_else(|| panic!("{name} has no recovered marker"));
        let share = recovered.time_s / clip.duration_s();
        assert!((0.5..=0.7).contains(&share), "{name}: recovered at {share}");
        // The pelvis dips and comes back up.
        let pelvis = joint("pelvis");
        let heights: Vec<f32> = sample_times(clip)
            .iter()
            .map(|&t| model_at(clip, t).position_model(pelvis).y)
            .collect();
        let lowest = heights.iter().copied().fold(f32::MAX, f32::min);
        let dip = heights[0] - lowest;
        let expected = if name == "Land_Light" { 0.1 } else { 0.35 };
        assert!((dip - expected).abs() < 0.03, "{name}: dip {dip}");
        assert!(
            (heights[heights.len() - 1] - heights[0]).abs() < 0.01,
            "{name}"
        );
    }
}

#[test]
fn aim_is_an_upper_body_overlay() {
    let m = mannequin();
    let clip = clip("Aim");
    assert!(clip.is_looping());
    let spine_01 = joint("spine_01");
    for (j, tracks) in clip.joint_tracks().iter().enumerate() {
        let upper = m.skeleton.is_ancestor_or_self(spine_01, j);
        assert!(
            upper || tracks.is_empty(),
            "Aim animates {}",
            m.skeleton.name(j)
        );
    }
    for name in ["upperarm_l", "lowerarm_r", "spine_03", "head"] {
        assert!(!clip.joint_tracks()[joint(name)].is_empty(), "{name}");
    }
    // Both hands are up in front of the chest.
    let model = model_at(clip, 0.3);
    for hand in ["hand_l", "hand_r"] {
        let p = model.position_model(joint(hand));
        assert!(p.z > 0.2 && p.y > 1.2, "{hand} at {p}");
    }
}

#[test]
fn turns_yaw_the_root_and_replant_the_feet() {
    for (name, yaw_deg, duration_s) in [
        ("Turn_L90", 90.0f32, 0.8),
        ("Turn_R90", -90.0, 0.8),
        ("Turn_L180", 180.0, 1.2),
        ("Turn_R180", -180.0, 1.2),
    ] {
        let clip = clip(name);
        assert!(!clip.is_looping(), "{name}");
        assert!((clip.duration_s() - duration_s).abs() < 1e-4, "{name}");
        let root = joint("root");
        let end = model_at(clip, clip.duration_s());
        let facing = end.joints_model()[root].transform_vector3(Vec3::Z);
        let expected = Vec3::new(yaw_deg.to_radians().sin(), 0.0, yaw_deg.to_radians().cos());
        assert!(facing.dot(expected) > 0.999, "{name}: faces {facing}");
        // Halfway through a left turn the root has turned toward +X.
        let middle = model_at(clip, clip.duration_s() / 2.0);
        let yaw_middle = yaw_of(glam::Quat::from_affine3a(&middle.joints_model()[root]));
        assert!(yaw_middle * yaw_deg.signum() > 0.1, "{name}: {yaw_middle}");
        let steps = clip
            .events()
            .iter()
            .filter(|e| e.name.starts_with("Footstep"))
            .count();
        assert!(steps >= 2, "{name}: {steps} footsteps");
        // Planted feet do not move while the root turns.
        let times = sample_times(clip);
        for pair in times.windows(2) {
            for (side, curve) in [
                (Side::Left, "FootContact_L"),
                (Side::Right, "FootContact_R"),
            ] {
                let planted = clip.sample_curve(curve, pair[0]) == Some(1.0)
                    && clip.sample_curve(curve, pair[1]) == Some(1.0);
                if planted {
                    let a = sockets_model(&model_at(clip, pair[0]), side).0;
                    let b = sockets_model(&model_at(clip, pair[1]), side).0;
                    assert!(
                        (a - b).length() < 5e-4,
                        "{name} {side:?} slid at {} s",
                        pair[0]
                    );
                }
            }
        }
        // Every foot ends turned with the body.
        for side in Side::BOTH {
            let m = mannequin();
            let foot = m.bones.leg(side).expect("legs").foot;
            let toes = end.joints_model()[foot].transform_vector3(Vec3::Z);
            assert!(toes.dot(expected) > 0.9, "{name} {side:?}: toes {toes}");
        }
    }
}

/// One Walk_F cycle sampled at its keys.
fn walk_cycle() -> (Vec<ModelPose>, &'static Clip) {
    let clip = clip("Walk_F");
    let n = (clip.duration_s() * 60.0).round() as usize;
    (
        (0..n).map(|k| model_at(clip, k as f32 / 60.0)).collect(),
        clip,
    )
}

#[test]
fn walk_bobs_and_sways_like_a_person() {
    let (cycle, _) = walk_cycle();
    let pelvis = joint("pelvis");
    let heights: Vec<f32> = cycle.iter().map(|m| m.position_model(pelvis).y).collect();
    let range = |v: &[f32]| {
        v.iter().copied().fold(f32::MIN, f32::max) - v.iter().copied().fold(f32::MAX, f32::min)
    };
    let bob = range(&heights);
    assert!((0.01..=0.06).contains(&bob), "pelvis bob {bob} m");
    let sway: Vec<f32> = cycle.iter().map(|m| m.position_model(pelvis).x).collect();
    assert!(range(&sway) >= 0.01, "pelvis sway {} m", range(&sway));
}

#[test]
fn walk_swings_arms_against_legs_and_chest_against_pelvis() {
    let (cycle, _) = walk_cycle();
    let hand_l: Vec<f32> = cycle
        .iter()
        .map(|m| m.position_model(joint("hand_l")).z)
        .collect();
    let ball_l: Vec<f32> = cycle
        .iter()
        .map(|m| sockets_model(m, Side::Left).0.z)
        .collect();
    let arms_vs_legs = correlation(&hand_l, &ball_l);
    assert!(
        arms_vs_legs < -0.5,
        "left hand vs left foot correlation {arms_vs_legs}"
    );

    let yaw = |m: &ModelPose, j: usize| yaw_of(glam::Quat::from_affine3a(&m.joints_model()[j]));
    let pelvis_yaw: Vec<f32> = cycle.iter().map(|m| yaw(m, joint("pelvis"))).collect();
    let chest_yaw: Vec<f32> = cycle.iter().map(|m| yaw(m, joint("spine_03"))).collect();
    let counter = correlation(&pelvis_yaw, &chest_yaw);
    assert!(counter < -0.5, "chest vs pelvis yaw correlation {counter}");
    let peak = pelvis_yaw
        .iter()
        .copied()
        .fold(0.0f32, |a, b| a.max(b.abs()));
    assert!(peak > 2f32.to_radians(), "pelvis yaw {peak} rad");
    // The head stays level and facing ahead.
    for m in &cycle {
        let head = glam::Quat::from_affine3a(&m.joints_model()[joint("head")]);
        assert!((head * Vec3::Z).dot(Vec3::Z) > 0.99 && (head * Vec3::Y).y > 0.99);
    }
}

#[test]
fn sideways_feet_pass_around_each_other() {
    // The two feet (heel-to-ball segments) never overlap while both are near the ground.
    let mut closest = f32::MAX;
    for clip in mannequin().clips.iter().filter(|c| is_gait(c.name())) {
        for t in sample_times(clip) {
            let model = model_at(clip, t);
            let (ball_l, heel_l) = sockets_model(&model, Side::Left);
            let (ball_r, heel_r) = sockets_model(&model, Side::Right);
            if ball_l.y.min(heel_l.y) > 0.1 || ball_r.y.min(heel_r.y) > 0.1 {
                continue;
            }
            let d = segment_distance_xz(heel_l, ball_l, heel_r, ball_r);
            closest = closest.min(d);
            assert!(d > 0.06, "{} at {t} s: feet {d} m apart", clip.name());
        }
    }
    println!("closest feet: {closest} m");
}

/// Ankle, heel socket and ball socket of `side`: the foot as a two-segment line.
fn foot_line_model(model: &ModelPose, side: Side) -> [Vec3; 3] {
    let leg = mannequin().bones.leg(side).expect("mannequin legs");
    let (ball, heel) = sockets_model(model, side);
    [model.position_model(leg.foot), heel, ball]
}

#[test]
fn sidesteps_never_cross_the_feet() {
    // Every walk and crouch walk with a sideways part sidesteps.
    let pelvis = joint("pelvis");
    for name in [
        "Walk_FL",
        "Walk_L",
        "Walk_BL",
        "Walk_BR",
        "Walk_R",
        "Walk_FR",
        "Crouch_Walk_FL",
        "Crouch_Walk_L",
        "Crouch_Walk_BL",
        "Crouch_Walk_BR",
        "Crouch_Walk_R",
        "Crouch_Walk_FR",
    ] {
        let clip = clip(name);
        let (mut min_sep, mut max_sep, mut min_gap) = (f32::MAX, f32::MIN, f32::MAX);
        let (mut low, mut high) = (f32::MAX, f32::MIN);
        for t in sample_times(clip) {
            let model = model_at(clip, t);
            let [ankle_l, heel_l, ball_l] = foot_line_model(&model, Side::Left);
            let [ankle_r, heel_r, ball_r] = foot_line_model(&model, Side::Right);
            // Left of the right foot (+X is the character's left) by a clear gap.
            let separation = ankle_l.x - ankle_r.x;
            let gap = [(ankle_l, heel_l), (heel_l, ball_l)]
                .iter()
                .flat_map(|&(a0, a1)| {
                    [(ankle_r, heel_r), (heel_r, ball_r)]
                        .map(|(b0, b1)| segment_distance_xz(a0, a1, b0, b1))
                })
                .fold(f32::MAX, f32::min);
            assert!(
                separation > 0.12,
                "{name} at {t} s: ankles {separation} m apart"
            );
            assert!(gap >= 0.05, "{name} at {t} s: feet {gap} m apart");
            min_sep = min_sep.min(separation);
            max_sep = max_sep.max(separation);
            min_gap = min_gap.min(gap);
            let y = model.position_model(pelvis).y;
            (low, high) = (low.min(y), high.max(y));
        }
        // The foot on the side of the travel leads: it steps out at its contact start
        // (the left's at phase 0, the right's at ½), where the feet are widest apart.
        let leftward = name.rsplit('_').next().is_some_and(|d| d.contains('L'));
        let leading = if leftward { 0.0 } else { 0.5 };
        let model = model_at(clip, leading * clip.duration_s());
        let widest =
            foot_line_model(&model, Side::Left)[0].x - foot_line_model(&model, Side::Right)[0].x;
        assert!(
            widest > max_sep - 0.01,
            "{name}: {widest} m apart as the leading foot lands, {max_sep} m at the widest"
        );
        let speed = clip.authored_speed_m_s().unwrap_or(0.0);
        println!(
            "{name}: cycle {:.3} s, stride {:.2} m, ankles {min_sep:.3}–{max_sep:.3} m apart, \
             feet ≥ {min_gap:.3} m apart, pelvis {low:.3}–{high:.3} m",
            clip.duration_s(),
            speed * clip.duration_s(),
        );
    }
}

#[test]
fn sideways_and_diagonal_runs_turn_the_hips_and_keep_the_chest_ahead() {
    let yaw_deg = |model: &ModelPose, j: usize| {
        yaw_of(glam::Quat::from_affine3a(&model.joints_model()[j])).to_degrees()
    };
    let diagonal = std::f32::consts::FRAC_1_SQRT_2;
    for (name, travel, hip_sign) in [
        ("Run_L_HipsFwd", Vec3::X, 1.0),
        ("Run_L_HipsBack", Vec3::X, -1.0),
        ("Run_R_HipsFwd", -Vec3::X, -1.0),
        ("Run_R_HipsBack", -Vec3::X, 1.0),
        // Diagonals turn the hips along the travel: the legs run straight ahead or back.
        ("Run_FL", Vec3::new(diagonal, 0.0, diagonal), 1.0),
        ("Run_FR", Vec3::new(-diagonal, 0.0, diagonal), -1.0),
        ("Run_BL", Vec3::new(diagonal, 0.0, -diagonal), -1.0),
        ("Run_BR", Vec3::new(-diagonal, 0.0, -diagonal), 1.0),
    ] {
        let clip = clip(name);
        let velocity = clip
            .authored_velocity_model_m_s()
            .expect("authored velocity");
        assert!(
            (velocity - travel * 3.75).length() < 1e-4,
            "{name}: {velocity}"
        );
        let (mut hip_min, mut hip_max, mut chest_max, mut head_max) =
            (f32::MAX, f32::MIN, 0.0f32, 0.0f32);
        for t in sample_times(clip) {
            let model = model_at(clip, t);
            assert!(
                yaw_deg(&model, joint("root")).abs() < 1e-3,
                "{name}: the root turned"
            );
            let hips = hip_sign * yaw_deg(&model, joint("pelvis"));
            let chest = yaw_deg(&model, joint("spine_03"));
            let head = yaw_deg(&model, joint("head"));
            assert!(hips >= 30.0, "{name} at {t} s: hips turned {hips}°");
            // Within the counter-swing a run's chest has anyway (Run_F's is 6°; Run_F's
            // legs under hips turned 45°, the forward diagonals, swing it 7°).
            assert!(chest.abs() <= 7.5, "{name} at {t} s: chest turned {chest}°");
            assert!(head.abs() <= 3.0, "{name} at {t} s: head turned {head}°");
            (hip_min, hip_max) = (hip_min.min(hips), hip_max.max(hips));
            chest_max = chest_max.max(chest.abs());
            head_max = head_max.max(head.abs());
        }
        println!(
            "{name}: cycle {:.3} s, hips {hip_min:.1}–{hip_max:.1}° into the turn, chest within \
             {chest_max:.1}°, head within {head_max:.1}°",
            clip.duration_s()
        );
    }
}

/// Horizontal distance between segments a0–a1 and b0–b1 (sampled; fine for feet).
fn segment_distance_xz(a0: Vec3, a1: Vec3, b0: Vec3, b1: Vec3) -> f32 {
    let flat = |v: Vec3| glam::Vec2::new(v.x, v.z);
    let (a0, a1, b0, b1) = (flat(a0), flat(a1), flat(b0), flat(b1));
    let mut best = f32::MAX;
    for i in 0..=10 {
        let p = a0.lerp(a1, i as f32 / 10.0);
        for j in 0..=10 {
            best = best.min(p.distance(b0.lerp(b1, j as f32 / 10.0)));
        }
    }
    best
}

/// Every built-in gait puts its left foot down at phase 0, so the synced blends' contact
/// alignment (made for third-party clips) leaves the mannequin's timing exactly as authored.
#[test]
fn built_in_blends_need_no_sync_offsets() {
    let graph = Mannequin::new().default_graph().unwrap();
    let mut blends = 0;
    for node in &graph.nodes {
        if let crate::graph::asset::Node::Blend { samples, .. } = node {
            blends += 1;
            for s in samples {
                assert_eq!(s.sync_offset, 0.0, "{}", graph.clips()[s.clip].name());
            }
        }
    }
    assert!(blends >= 3, "{blends}");
}

/// The default graph on a rig half the mannequin's size, whose clips and walk are half as
/// fast: at that rig's walk speed it plays the walk, not a half-and-half blend with Idle
/// (feet shuffling half planted), as the mannequin's speeds (Walk at 1.75 m/s) would.
#[test]
fn the_default_graph_on_a_smaller_rig_walks_at_the_rigs_walk_speed() {
    use crate::graph::{params::names, GraphAsset, GraphInstance};
    use std::sync::Arc;
    let m = Mannequin::new();
    let size = 0.5;
    let (skeleton, clips) = crate::rig_scale::resize_rig(&m.skeleton, &m.clips, size).unwrap();
    let idle_share = |def: &crate::graph::GraphDef| {
        let asset = Arc::new(GraphAsset::from_def(def, &skeleton, clips.clone()).unwrap());
        let mut graph = GraphInstance::new(asset.clone());
        let params = graph.params_mut();
        let speed = params.float(names::SPEED).unwrap();
        params.set_float(speed, 1.75 * size);
        let moving = params.bool(names::IS_MOVING).unwrap();
        params.set_bool(moving, true);
        let grounded = params.bool(names::IS_GROUNDED).unwrap();
        params.set_bool(grounded, true);
        let mut pose = Pose::rest(&skeleton);
        for _ in 0..60 {
            graph.tick(1.0 / 60.0, &mut pose).unwrap();
        }
        graph
            .sampled_clips()
            .iter()
            .filter(|s| asset.clips()[s.clip].name() == "Idle")
            .map(|s| s.weight)
            .sum::<f32>()
    };
    let on_rig = super::default_graph_def_on_rig(size, |name| Some(name.to_owned())).unwrap();
    assert!(idle_share(&on_rig) < 0.01, "{}", idle_share(&on_rig));
    let as_authored: crate::graph::GraphDef = ron::from_str(super::DEFAULT_GRAPH_RON).unwrap();
    assert!(
        idle_share(&as_authored) > 0.3,
        "{}",
        idle_share(&as_authored)
    );
}
