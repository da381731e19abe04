//! Property tests over the core's stages alone (the robustness issue, item 3): random
//! skeletons and clips (one key, no keys, keys out of order, non-finite values), random
//! blend weights (negative, NaN, infinite, all zero), random masks, and random two-bone IK
//! targets (unreachable, at the hip, colinear with the pole). The whole tick's properties
//! are in `plantigrade-rapier/tests/tick_properties.rs`.
//!
//! Each stage either refuses its input with a typed error or gives a pose that is finite,
//! with unit rotations; it never panics. Fixed seed (`PROPTEST_RNG_SEED` explores others).

use plantigrade::glam::{Quat, Vec3, Vec4};
use plantigrade::ik::two_bone::{TwoBoneIkJob, MIN_BONE_LENGTH_M};
use plantigrade::pose::{
    add_additive, blend, blend_layer, blend_layer_model_space, local_to_model, make_additive,
};
use plantigrade::{
    BoneMask, Clip, ClipError, Interpolation, Joint, JointTracks, ModelPose, Pose, Skeleton, Track,
    Transform,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// Runs `cases` cases of `strategy` through `test` from a fixed seed, so CI is repeatable;
/// `PROPTEST_RNG_SEED` (a number) and `PROPTEST_CASES` explore others.
fn run<S: Strategy>(cases: u32, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S::Value: std::fmt::Debug,
{
    let seed: u64 = std::env::var("PROPTEST_RNG_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(21);
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(cases);
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes),
    );
    if let Err(e) = runner.run(&strategy, test) {
        panic!("{e} (seed {seed})");
    }
}

/// Any float a user's data or a physics explosion might hand over.
fn wild_f32() -> impl Strategy<Value = f32> + Clone {
    prop_oneof![
        4 => -2.0f32..2.0,
        1 => Just(0.0f32),
        1 => Just(-0.0f32),
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
        1 => Just(1e30f32),
        1 => Just(-1e30f32),
        1 => Just(f32::MIN_POSITIVE),
    ]
}

/// A weight of a blend, a layer or a mask: mostly sensible, often not.
fn wild_weight() -> impl Strategy<Value = f32> + Clone {
    prop_oneof![
        3 => 0.0f32..=1.0,
        1 => -1.0f32..0.0,
        1 => 1.0f32..5.0,
        1 => Just(0.0f32),
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
        1 => Just(1e30f32),
    ]
}

fn finite_vec3(range: f32) -> impl Strategy<Value = Vec3> + Clone {
    (-range..range, -range..range, -range..range).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn wild_vec3() -> impl Strategy<Value = Vec3> + Clone {
    (wild_f32(), wild_f32(), wild_f32()).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

/// A unit rotation (the axis-angle of a random vector).
fn unit_quat() -> impl Strategy<Value = Quat> + Clone {
    (finite_vec3(1.0), -7.0f32..7.0).prop_map(|(axis, angle)| {
        Quat::from_axis_angle(axis.try_normalize().unwrap_or(Vec3::Y), angle)
    })
}

/// A rotation key as a file might hold it: unit, unnormalised, zero or not finite.
fn wild_quat() -> impl Strategy<Value = Quat> + Clone {
    prop_oneof![
        4 => unit_quat(),
        1 => (unit_quat(), 0.01f32..100.0).prop_map(|(q, s)| Quat::from_vec4(Vec4::from(q) * s)),
        1 => Just(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)),
        1 => wild_vec3().prop_map(|v| Quat::from_xyzw(v.x, v.y, v.z, 1.0)),
    ]
}

/// A rest or animated transform in a skeleton's plausible range (metres, unit rotation,
/// positive scale): what a valid skeleton is built from.
fn rest_transform() -> impl Strategy<Value = Transform> + Clone {
    (finite_vec3(1.0), unit_quat(), 0.5f32..2.0).prop_map(|(t, r, s)| Transform {
        translation: t,
        rotation: r,
        scale: Vec3::splat(s),
    })
}

fn assert_pose_sane(pose: &Pose, what: &str) -> Result<(), TestCaseError> {
    for (joint, t) in pose.local().iter().enumerate() {
        prop_assert!(t.is_finite(), "{what}: joint {joint} not finite: {t:?}");
        let len = t.rotation.length();
        prop_assert!(
            (len - 1.0).abs() < 1e-3,
            "{what}: joint {joint} rotation not unit (|q| = {len})"
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Skeletons and clips

/// A skeleton description: parents (some not before their joint), rest transforms (some
/// not finite) and names (some repeated).
#[derive(Clone, Debug)]
struct SkeletonInput {
    joints: Vec<(Option<usize>, Transform, u8)>,
}

fn skeleton_input() -> impl Strategy<Value = SkeletonInput> + Clone {
    prop::collection::vec(
        (
            prop::option::weighted(0.9, 0usize..16),
            prop_oneof![
                8 => rest_transform(),
                1 => wild_vec3().prop_map(Transform::from_translation),
            ],
            // Names from a small alphabet, so duplicates happen.
            0u8..64,
        ),
        0..16,
    )
    .prop_map(|joints| SkeletonInput { joints })
}

impl SkeletonInput {
    fn build(&self) -> Result<Skeleton, plantigrade::SkeletonError> {
        Skeleton::new(
            self.joints
                .iter()
                .enumerate()
                .map(|(i, &(parent, rest, name))| Joint {
                    // Mostly a parent before the joint (a valid tree), sometimes not.
                    name: format!("j{name}"),
                    parent: parent.map(|p| if p % 4 == 3 { p } else { p % i.max(1) }),
                    rest_local: rest,
                })
                .collect(),
        )
    }
}

/// One channel's keys as a file might hold them: none, one, several; times possibly
/// unsorted, negative or NaN; values possibly not finite.
#[derive(Clone, Debug)]
struct TrackInput<T> {
    interpolation: Interpolation,
    times_s: Vec<f32>,
    values: Vec<T>,
}

fn interpolation() -> impl Strategy<Value = Interpolation> + Clone {
    prop_oneof![
        Just(Interpolation::Step),
        Just(Interpolation::Linear),
        Just(Interpolation::CubicSpline),
    ]
}

fn key_times() -> impl Strategy<Value = Vec<f32>> + Clone {
    prop_oneof![
        // Increasing, as a valid file has them (including a single key and none).
        3 => prop::collection::vec(0.001f32..0.5, 0..6).prop_map(|gaps| {
            gaps.iter()
                .scan(0.0f32, |t, g| {
                    let key = *t;
                    *t += g;
                    Some(key)
                })
                .collect()
        }),
        1 => prop::collection::vec(wild_f32(), 0..6),
    ]
}

fn track_input<T: std::fmt::Debug + Clone + 'static>(
    value: impl Strategy<Value = T> + Clone + 'static,
) -> impl Strategy<Value = TrackInput<T>> + Clone {
    (interpolation(), key_times()).prop_flat_map(move |(interpolation, times_s)| {
        let per_key = if interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        let n = times_s.len() * per_key;
        // Sometimes the wrong number of values.
        let count = prop_oneof![4 => Just(n), 1 => 0..n + 2];
        (
            Just(interpolation),
            Just(times_s),
            count.prop_flat_map({
                let value = value.clone();
                move |c| prop::collection::vec(value.clone(), c)
            }),
        )
            .prop_map(|(interpolation, times_s, values)| TrackInput {
                interpolation,
                times_s,
                values,
            })
    })
}

/// A track, or the typed error its keys earn; no keys must be refused.
fn build_track<T: plantigrade::clip::TrackValue>(
    input: &TrackInput<T>,
) -> Result<Option<Track<T>>, TestCaseError> {
    match Track::new(
        input.interpolation,
        input.times_s.clone(),
        input.values.clone(),
    ) {
        Ok(track) => {
            prop_assert!(
                !input.times_s.is_empty(),
                "a track with no keys was accepted"
            );
            Ok(Some(track))
        }
        Err(e) => {
            if input.times_s.is_empty() {
                prop_assert_eq!(&e, &ClipError::NoKeys);
            }
            prop_assert!(!e.to_string().is_empty());
            Ok(None)
        }
    }
}

/// One joint's translation, rotation and scale keys, each maybe absent.
type ChannelInputs = (
    Option<TrackInput<Vec3>>,
    Option<TrackInput<Quat>>,
    Option<TrackInput<Vec3>>,
);

#[derive(Clone, Debug)]
struct ClipInput {
    skeleton: SkeletonInput,
    tracks: Vec<ChannelInputs>,
    duration_s: Option<f32>,
    looping: bool,
    times_s: Vec<f32>,
}

fn clip_input() -> impl Strategy<Value = ClipInput> + Clone {
    let translation = prop_oneof![4 => finite_vec3(2.0), 1 => wild_vec3()];
    let scale = prop_oneof![
        4 => (0.5f32..2.0).prop_map(Vec3::splat),
        1 => wild_vec3(),
    ];
    let tracks = prop::collection::vec(
        (
            prop::option::of(track_input(translation)),
            prop::option::of(track_input(wild_quat())),
            prop::option::of(track_input(scale)),
        ),
        0..18,
    );
    (
        skeleton_input(),
        tracks,
        prop::option::of(wild_f32()),
        any::<bool>(),
        prop::collection::vec(prop_oneof![3 => -1.0f32..5.0, 1 => wild_f32()], 1..6),
    )
        .prop_map(
            |(skeleton, tracks, duration_s, looping, times_s)| ClipInput {
                skeleton,
                tracks,
                duration_s,
                looping,
                times_s,
            },
        )
}

/// Whatever the skeleton and clip, building them either fails with a typed error or gives
/// a clip that samples, at any time, a finite pose with unit rotations whose model pose is
/// finite; a clip with the wrong joint count is refused when sampled.
#[test]
fn random_skeletons_and_clips_are_refused_or_sample_finite_poses() {
    run(256, clip_input(), |input| {
        let skeleton = match input.skeleton.build() {
            Ok(s) => s,
            Err(e) => {
                prop_assert!(!e.to_string().is_empty());
                return Ok(());
            }
        };
        let mut joints = Vec::with_capacity(input.tracks.len());
        for (t, r, s) in &input.tracks {
            joints.push(JointTracks {
                translation: t.as_ref().map(build_track).transpose()?.flatten(),
                rotation: r.as_ref().map(build_track).transpose()?.flatten(),
                scale: s.as_ref().map(build_track).transpose()?.flatten(),
            });
        }
        let clip = match Clip::new("random", input.duration_s, joints) {
            Ok(c) => c.with_looping(input.looping),
            Err(e) => {
                prop_assert!(!e.to_string().is_empty());
                return Ok(());
            }
        };
        prop_assert!(clip.duration_s().is_finite() && clip.duration_s() >= 0.0);
        let mut pose = Pose::rest(&skeleton);
        let mut model = ModelPose::new(skeleton.num_joints());
        for &time_s in &input.times_s {
            let local_t = clip.local_time_s(time_s);
            prop_assert!(
                (0.0..=clip.duration_s()).contains(&local_t),
                "local time {local_t} outside 0..{}",
                clip.duration_s()
            );
            match clip.sample(time_s, skeleton.rest_local(), &mut pose) {
                Ok(()) => {
                    prop_assert_eq!(clip.joint_tracks().len(), skeleton.num_joints());
                    assert_pose_sane(&pose, "sampled")?;
                    prop_assert!(local_to_model(&skeleton, &pose, &mut model).is_ok());
                    for (joint, m) in model.joints_model().iter().enumerate() {
                        prop_assert!(m.is_finite(), "model joint {joint} not finite");
                    }
                }
                Err(e) => {
                    prop_assert!(clip.joint_tracks().len() != skeleton.num_joints(), "{e}");
                }
            }
        }
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------
// Blends, layers and masks

const JOINTS: usize = 6;

/// A small chain skeleton for the blend and layer tests (parents before children).
fn chain_skeleton() -> Skeleton {
    Skeleton::new(
        (0..JOINTS)
            .map(|i| Joint {
                name: format!("j{i}"),
                parent: i.checked_sub(1),
                rest_local: Transform::from_translation(Vec3::new(0.0, 0.3, 0.0)),
            })
            .collect(),
    )
    .expect("a chain is a valid skeleton")
}

fn pose_input() -> impl Strategy<Value = Pose> + Clone {
    prop::collection::vec(rest_transform(), JOINTS).prop_map(|transforms| {
        let mut pose = Pose::new(JOINTS);
        pose.local_mut().copy_from_slice(&transforms);
        pose
    })
}

/// Any weights make a finite blend with unit rotations; with no positive finite weight it
/// is the first pose; no inputs or a pose of another size is an error.
#[test]
fn blends_with_any_weights_are_finite_and_fall_back_to_the_first_pose() {
    let inputs = prop::collection::vec((pose_input(), wild_weight()), 1..5);
    run(256, inputs, |inputs| {
        let refs: Vec<(&Pose, f32)> = inputs.iter().map(|(p, w)| (p, *w)).collect();
        let mut out = Pose::new(JOINTS);
        blend(&refs, &mut out).map_err(|e| TestCaseError::fail(e.to_string()))?;
        assert_pose_sane(&out, "blend")?;
        let usable = |w: f32| w > 0.0 && w.is_finite();
        if !inputs.iter().any(|(_, w)| usable(*w)) {
            prop_assert_eq!(out.local(), inputs[0].0.local());
        }
        // A single usable input comes through unchanged (up to the rotation's sign).
        if inputs.iter().filter(|(_, w)| usable(*w)).count() == 1 {
            let (only, _) = inputs.iter().find(|(_, w)| usable(*w)).unwrap();
            for (a, b) in out.local().iter().zip(only.local()) {
                prop_assert!(a.translation.abs_diff_eq(b.translation, 1e-4));
                prop_assert!(a.rotation.dot(b.rotation).abs() > 1.0 - 1e-4);
            }
        }
        prop_assert!(blend(&[], &mut out).is_err());
        let mut wrong = Pose::new(JOINTS + 1);
        prop_assert!(blend(&refs, &mut wrong).is_err());
        Ok(())
    });
}

#[derive(Clone, Debug)]
struct LayerInput {
    base: Pose,
    overlay: Pose,
    reference: Pose,
    weight: f32,
    mask: Option<Vec<f32>>,
}

fn layer_input() -> impl Strategy<Value = LayerInput> + Clone {
    (
        pose_input(),
        pose_input(),
        pose_input(),
        wild_weight(),
        prop::option::of(prop::collection::vec(wild_weight(), JOINTS)),
    )
        .prop_map(|(base, overlay, reference, weight, mask)| LayerInput {
            base,
            overlay,
            reference,
            weight,
            mask,
        })
}

/// Override layers (local and model space) and additive layers, at any weight and with any
/// mask: the mask's weights end up in 0..=1, the result is finite with unit rotations, a
/// layer at no weight changes nothing, and a mask of the wrong size is an error.
#[test]
fn layers_with_any_weight_and_mask_are_finite() {
    let skeleton = chain_skeleton();
    run(256, layer_input(), |input| {
        let mask = input.mask.clone().map(BoneMask::from_weights);
        if let Some(mask) = &mask {
            prop_assert!(mask.weights().iter().all(|w| (0.0..=1.0).contains(w)));
        }
        let no_weight = input.weight.is_nan() || input.weight <= 0.0;
        let mut scratch = Vec::new();

        let mut local = input.base.clone();
        blend_layer(&mut local, &input.overlay, input.weight, mask.as_ref())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        assert_pose_sane(&local, "local layer")?;
        if no_weight {
            prop_assert_eq!(local.local(), input.base.local());
        }

        let mut model_space = input.base.clone();
        blend_layer_model_space(
            &mut model_space,
            &input.overlay,
            input.weight,
            mask.as_ref(),
            skeleton.parents(),
            &mut scratch,
        )
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
        assert_pose_sane(&model_space, "model-space layer")?;

        let mut delta = Pose::new(JOINTS);
        make_additive(&input.overlay, &input.reference, &mut delta)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        assert_pose_sane(&delta, "additive delta")?;
        let mut additive = input.base.clone();
        add_additive(&mut additive, &delta, input.weight, mask.as_ref())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        assert_pose_sane(&additive, "additive layer")?;

        let wrong_mask = BoneMask::uniform(JOINTS + 1, 1.0);
        let mut base = input.base.clone();
        prop_assert!(blend_layer(&mut base, &input.overlay, 1.0, Some(&wrong_mask)).is_err());
        prop_assert!(add_additive(&mut base, &delta, 1.0, Some(&wrong_mask)).is_err());
        prop_assert!(blend_layer_model_space(
            &mut base,
            &input.overlay,
            1.0,
            Some(&wrong_mask),
            skeleton.parents(),
            &mut scratch
        )
        .is_err());
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------
// Two-bone IK

#[derive(Clone, Debug)]
struct LegInput {
    hip: Vec3,
    thigh_dir: Vec3,
    thigh_m: f32,
    calf_dir: Vec3,
    calf_m: f32,
    target: TargetKind,
    pole: Vec3,
    weight: f32,
    soften: f32,
}

#[derive(Clone, Debug)]
enum TargetKind {
    /// Anywhere near the leg.
    Near(Vec3),
    /// Far beyond the leg's reach, along this direction.
    Unreachable(Vec3),
    /// At the hip itself.
    AtHip,
    /// Within a bone's rounding of the hip.
    NextToHip(Vec3),
    /// Reachable, with the pole along the hip→target line (no bend side from it).
    ColinearWithPole(Vec3),
    /// Not a number or not finite.
    Wild(Vec3),
}

fn leg_input() -> impl Strategy<Value = LegInput> + Clone {
    let direction = finite_vec3(1.0);
    let target = prop_oneof![
        3 => finite_vec3(1.5).prop_map(TargetKind::Near),
        1 => finite_vec3(1.0).prop_map(TargetKind::Unreachable),
        1 => Just(TargetKind::AtHip),
        1 => finite_vec3(1e-5).prop_map(TargetKind::NextToHip),
        1 => finite_vec3(1.0).prop_map(TargetKind::ColinearWithPole),
        1 => wild_vec3().prop_map(TargetKind::Wild),
    ];
    (
        finite_vec3(1.0),
        direction.clone(),
        prop_oneof![4 => 0.05f32..1.0, 1 => Just(0.0f32), 1 => Just(1e-6f32)],
        direction,
        prop_oneof![4 => 0.05f32..1.0, 1 => Just(0.0f32)],
        target,
        prop_oneof![3 => finite_vec3(1.0), 1 => wild_vec3()],
        wild_weight(),
        wild_weight(),
    )
        .prop_map(
            |(hip, thigh_dir, thigh_m, calf_dir, calf_m, target, pole, weight, soften)| LegInput {
                hip,
                thigh_dir,
                thigh_m,
                calf_dir,
                calf_m,
                target,
                pole,
                weight,
                soften,
            },
        )
}

/// Any leg and target: the solve's outputs are finite; a leg it can solve keeps both bone
/// lengths, puts the end on the target when it is within reach at full weight and on the
/// hip→target line when it is not, and bends the knee to the pole's side when it used it.
#[test]
fn two_bone_ik_with_any_target_keeps_bone_lengths_and_stays_finite() {
    run(1024, leg_input(), |leg| {
        let down = |v: Vec3| v.try_normalize().unwrap_or(Vec3::NEG_Y);
        let mid = leg.hip + down(leg.thigh_dir) * leg.thigh_m;
        let end = mid + down(leg.calf_dir) * leg.calf_m;
        let (target, pole) = match leg.target {
            TargetKind::Near(v) => (leg.hip + v, leg.pole),
            TargetKind::Unreachable(v) => (
                leg.hip + down(v) * 10.0 * (leg.thigh_m + leg.calf_m + 1.0),
                leg.pole,
            ),
            TargetKind::AtHip => (leg.hip, leg.pole),
            TargetKind::NextToHip(v) => (leg.hip + v, leg.pole),
            TargetKind::ColinearWithPole(v) => {
                let to = down(v) * 0.5 * (leg.thigh_m + leg.calf_m);
                (leg.hip + to, to * 3.0)
            }
            TargetKind::Wild(v) => (v, leg.pole),
        };
        let job = TwoBoneIkJob {
            start_model: leg.hip,
            mid_model: mid,
            end_model: end,
            target_model: target,
            pole_model: pole,
            weight: leg.weight,
            soften: leg.soften,
            ..TwoBoneIkJob::default()
        };
        let out = job.run();
        prop_assert!(
            out.start_correction_model.is_finite() && out.mid_correction_model.is_finite()
        );
        prop_assert!(
            out.mid_model.is_finite() && out.end_model.is_finite(),
            "{out:?}"
        );
        prop_assert!((out.start_correction_model.length() - 1.0).abs() < 1e-3);
        prop_assert!((out.mid_correction_model.length() - 1.0).abs() < 1e-3);
        let solvable = target.is_finite()
            && leg.thigh_m >= MIN_BONE_LENGTH_M * 2.0
            && leg.calf_m >= MIN_BONE_LENGTH_M * 2.0;
        prop_assert_eq!(out.degenerate, !solvable, "{:?}", out);
        if out.degenerate {
            prop_assert_eq!(out.start_correction_model, Quat::IDENTITY);
            return Ok(());
        }
        // The corrections are rotations: the bones keep their lengths, at any weight.
        let tolerance = 1e-4 * (1.0 + leg.hip.length() + target.length());
        prop_assert!(
            ((out.mid_model - leg.hip).length() - leg.thigh_m).abs() < tolerance,
            "thigh {} → {}",
            leg.thigh_m,
            (out.mid_model - leg.hip).length()
        );
        prop_assert!(
            ((out.end_model - out.mid_model).length() - leg.calf_m).abs() < tolerance,
            "calf {} → {}",
            leg.calf_m,
            (out.end_model - out.mid_model).length()
        );
        // The corrections move the input joints to the reported ones.
        let moved_mid = leg.hip + out.start_correction_model * (mid - leg.hip);
        prop_assert!(moved_mid.abs_diff_eq(out.mid_model, tolerance * 10.0));
        let full_weight = leg.weight >= 1.0 && leg.weight.is_finite();
        let distance = (target - leg.hip).length();
        let (a, b) = (leg.thigh_m, leg.calf_m);
        let soften = if leg.soften.is_nan() {
            1.0
        } else {
            leg.soften.clamp(0.0, 1.0)
        };
        let reach_m = soften * (a + b);
        if full_weight && distance > (a - b).abs() + 1e-3 && distance < reach_m - 1e-3 {
            prop_assert!(out.reached, "{out:?}");
            prop_assert!(
                out.end_model.distance(target) < 1e-3,
                "end {} target {target} {out:?}",
                out.end_model
            );
        }
        if full_weight && distance > a + b + 1e-3 {
            prop_assert!(out.clamped);
            // On the hip→target line, short of the target.
            // (Scaled first: a target 1e30 m away has a direction but no finite length.)
            let to_target = target - leg.hip;
            let along = (to_target / to_target.abs().max_element()).normalize();
            let to_end = out.end_model - leg.hip;
            prop_assert!(
                (to_end - along * to_end.dot(along)).length() < 1e-3,
                "end {} target {target} {out:?}",
                out.end_model
            );
            prop_assert!(to_end.length() <= a + b + 1e-4);
        }
        Ok(())
    });
}

/// Cubic rotation tangents a file may hold, huge or cancelling: the sample is still a unit
/// rotation (the spline's sum overflowed or vanished and was normalised to NaN before).
#[test]
fn cubic_rotation_tangents_that_overflow_or_cancel_sample_unit_rotations() {
    let q0 = Quat::IDENTITY;
    let q1 = Quat::from_rotation_y(1.0);
    let huge = Quat::from_xyzw(1e30, 1e30, 1e30, 1e30);
    let minus_huge = Quat::from_xyzw(-1e30, -1e30, -1e30, -1e30);
    // in-tangent, value, out-tangent per key; the last pair cancels the values at t = 0.5
    // (the Hermite basis there is 1/2, 1/8, 1/2, −1/8).
    let cancel = Vec4::from(q0) + Vec4::from(q1);
    let (cancel_out, cancel_in) = (
        Quat::from_vec4(-4.0 * cancel),
        Quat::from_vec4(4.0 * cancel),
    );
    for (out0, in1) in [(huge, huge), (huge, minus_huge), (cancel_out, cancel_in)] {
        let track = Track::new(
            Interpolation::CubicSpline,
            vec![0.0, 1.0],
            vec![Quat::IDENTITY, q0, out0, in1, q1, Quat::IDENTITY],
        )
        .expect("finite keys are a track");
        for step in 0..=20 {
            let q = track.sample(step as f32 / 20.0);
            assert!(
                q.is_finite() && (q.length() - 1.0).abs() < 1e-4,
                "{q:?} at step {step}"
            );
        }
    }
}
