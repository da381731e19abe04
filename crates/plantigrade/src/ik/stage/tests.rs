//! The foot IK stage as a whole: ticks of the mannequin over test worlds.

use super::*;
use crate::ik::foot::run_foot_probe;
use crate::mannequin::Mannequin;
use crate::pose::local_to_model;
use crate::world::testing::HeightWorld;
use crate::world::{QueryFilter, SpatialQueries};

#[test]
fn contact_counts_only_while_the_animated_foot_is_down() {
    let config = FootIkConfig::default();
    let at = |lift_m: f32| AnimatedFoot {
        heel_model: Vec3::new(0.0, lift_m + 0.05, -0.05),
        ball_model: Vec3::new(0.0, lift_m, 0.15),
        ..AnimatedFoot::default()
    };
    // Down (or a hair up): the curve's value stands.
    assert_eq!(at(0.0).gated_contact(0.8, &config), 0.8);
    assert_eq!(
        at(config.contact_lift_full_m).gated_contact(0.8, &config),
        0.8
    );
    // Halfway: faded; the lower sole point counts, not the heel.
    let half = 0.5 * (config.contact_lift_full_m + config.contact_lift_none_m);
    let faded = at(half).gated_contact(1.0, &config);
    assert!((faded - 0.5).abs() < 1e-4, "{faded}");
    // A blend lifting the foot 10 cm is in the air, whatever the curve says.
    assert_eq!(at(0.10).gated_contact(0.6, &config), 0.0);
    // No curve stays no curve; a sunk foot is down.
    assert!(at(0.0).gated_contact(f32::NAN, &config).is_nan());
    assert_eq!(at(-0.03).gated_contact(1.0, &config), 1.0);
}

/// Ground at `left_m` for x > 0 (the character's left at yaw 0), `right_m` for x ≤ 0;
/// `None` is a hole.
fn split_world(
    left_m: Option<f32>,
    right_m: Option<f32>,
) -> HeightWorld<impl Fn(f32, f32) -> Option<(f32, Vec3)>> {
    HeightWorld::new(move |x, _| if x > 0.0 { left_m } else { right_m }.map(|h| (h, Vec3::Y)))
}

/// A step: ground at 0 for z < `edge_z`, at `step_m` beyond.
fn step_world(edge_z: f32, step_m: f32) -> HeightWorld<impl Fn(f32, f32) -> Option<(f32, Vec3)>> {
    HeightWorld::new(move |_, z| Some((if z < edge_z { 0.0 } else { step_m }, Vec3::Y)))
}

struct Rig {
    mannequin: Mannequin,
    pose: Pose,
    model: ModelPose,
    ik: FootIk,
}

fn rig(mode: FootIkMode) -> Rig {
    let mannequin = Mannequin::new();
    let rig = FootRig::new(&mannequin.skeleton, &mannequin.bones).unwrap();
    let pose = Pose::rest(&mannequin.skeleton);
    let model = ModelPose::new(pose.num_joints());
    let config = FootIkConfig {
        mode,
        ..FootIkConfig::default()
    };
    Rig {
        ik: FootIk::new(config, rig),
        mannequin,
        pose,
        model,
    }
}

fn input(root: Vec3, contact: f32) -> FootIkInput {
    FootIkInput {
        root_world: root,
        facing_yaw_rad: 0.0,
        velocity_world: Vec3::ZERO,
        step_overshoot_world: Vec3::ZERO,
        grounded: true,
        dt_s: 1.0 / 60.0,
        contact_curve: [contact; 2],
        lod_weight: 1.0,
        probe_feet: [true; 2],
        landing_in_s: [f32::NAN; 2],
        landing_feet_model: [None; 2],
    }
}

/// One tick on the Idle pose; returns each foot's lowest sole point (world y).
fn tick(r: &mut Rig, world: &dyn SpatialQueries, input: &FootIkInput) -> [f32; 2] {
    tick_bent(r, world, input, 0.0)
}

/// [`tick`] with the animated right knee bent by `right_knee_rad` (a foot lifted as in
/// a swing).
fn tick_bent(
    r: &mut Rig,
    world: &dyn SpatialQueries,
    input: &FootIkInput,
    right_knee_rad: f32,
) -> [f32; 2] {
    tick_swung(r, world, input, 0.0, right_knee_rad)
}

/// [`tick_bent`] with the right thigh also swung forward by `right_hip_rad`.
fn tick_swung(
    r: &mut Rig,
    world: &dyn SpatialQueries,
    input: &FootIkInput,
    right_hip_rad: f32,
    right_knee_rad: f32,
) -> [f32; 2] {
    tick_posed(r, world, input, |r| {
        let chain = r.ik.rig().legs[1].chain;
        // The mannequin's rest rotations are identity: a turn about -X swings the leg
        // forward, about +X bends the knee back.
        r.pose.local_mut()[chain.thigh].rotation *= Quat::from_rotation_x(-right_hip_rad);
        r.pose.local_mut()[chain.calf].rotation *= Quat::from_rotation_x(right_knee_rad);
    })
}

/// One tick on the Idle pose as `shape` changes it; returns each foot's lowest sole point
/// (world y).
fn tick_posed(
    r: &mut Rig,
    world: &dyn SpatialQueries,
    input: &FootIkInput,
    shape: impl FnOnce(&mut Rig),
) -> [f32; 2] {
    let idle = r.mannequin.clip("Idle").unwrap();
    idle.sample(0.0, r.mannequin.skeleton.rest_local(), &mut r.pose)
        .unwrap();
    shape(r);
    local_to_model(&r.mannequin.skeleton, &r.pose, &mut r.model).unwrap();
    let animated = r.ik.rig().animated_feet(&r.model);
    let requests = r.ik.plan_probes(input, &animated);
    let config = r.ik.config.probe;
    let results = requests.map(|q| run_foot_probe(world, QueryFilter::GROUND, &config, &q));
    r.ik.solve(
        input,
        &animated,
        &results,
        &r.mannequin.skeleton,
        &mut r.pose,
        &mut r.model,
    )
    .unwrap();
    [0, 1].map(|i| {
        let (heel, ball) = sole_points(r, i);
        input.root_world.y + heel.y.min(ball.y)
    })
}

/// The feet of the Idle pose (left into the rig's pose buffers; a tick resamples).
fn idle_feet(r: &mut Rig) -> [AnimatedFoot; 2] {
    let idle = r.mannequin.clip("Idle").unwrap();
    idle.sample(0.0, r.mannequin.skeleton.rest_local(), &mut r.pose)
        .unwrap();
    local_to_model(&r.mannequin.skeleton, &r.pose, &mut r.model).unwrap();
    r.ik.rig().animated_feet(&r.model)
}

/// `foot` moved `dz_m` forward (model +Z).
fn moved_ahead(mut foot: AnimatedFoot, dz_m: f32) -> AnimatedFoot {
    for p in [
        &mut foot.ankle_model,
        &mut foot.heel_model,
        &mut foot.ball_model,
    ] {
        p.z += dz_m;
    }
    foot
}

/// Tick `k` (60 Hz) of a 0.4 s swing of the right foot from `planted` to `landing`
/// (its landing pose, as the clips would say), the body creeping forward.
fn swing_input(planted: FootIkInput, landing: AnimatedFoot, k: usize) -> FootIkInput {
    let mut swinging = planted;
    swinging.contact_curve[1] = 0.0;
    swinging.landing_in_s[1] = 0.4 - k as f32 / 60.0;
    swinging.landing_feet_model[1] = Some(landing);
    swinging.velocity_world = Vec3::new(0.0, 0.0, 0.01);
    swinging
}

/// Heel and ball sole points of leg `i` in the rig's current model pose.
fn sole_points(r: &Rig, i: usize) -> (Vec3, Vec3) {
    let leg = r.ik.rig().legs[i];
    (
        r.model
            .point_model(leg.chain.foot, leg.sockets.heel_foot_local),
        r.model
            .point_model(leg.chain.foot, leg.sockets.ball_foot_local),
    )
}

#[test]
fn the_legs_alone_are_recomputed_and_the_model_pose_stays_whole() {
    let r = rig(FootIkMode::Predictive);
    let foot_rig = *r.ik.rig();
    for (leg, joints) in foot_rig.legs.iter().zip(foot_rig.leg_joints) {
        let joints = joints.expect("the mannequin's legs fit");
        let set = joints.as_slice();
        assert_eq!(set[0], leg.chain.thigh);
        for joint in [leg.chain.calf, leg.chain.foot] {
            assert!(set.contains(&joint), "{joint} in {set:?}");
        }
        assert!(!set.contains(&foot_rig.pelvis));
        for (k, &joint) in set.iter().enumerate().skip(1) {
            let parent = r.mannequin.skeleton.parent(joint).unwrap();
            assert!(set[..k].contains(&parent), "parent of {joint} comes first");
        }
    }
    // After a solve that moved the pelvis and both legs, the model pose is exactly the
    // local pose's (nothing left stale by the partial updates).
    let mut r = rig(FootIkMode::Predictive);
    let world = split_world(Some(0.05), Some(-0.2));
    for _ in 0..10 {
        tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
    }
    assert!(r.ik.output().pelvis_offset_m < -0.01);
    let mut full = ModelPose::new(r.pose.num_joints());
    local_to_model(&r.mannequin.skeleton, &r.pose, &mut full).unwrap();
    for (a, b) in r.model.joints_model().iter().zip(full.joints_model()) {
        assert!(a.abs_diff_eq(*b, 1e-6), "{a:?} vs {b:?}");
    }
}

#[test]
fn each_foot_stands_on_its_own_ground() {
    let mut r = rig(FootIkMode::Predictive);
    let world = split_world(Some(0.08), Some(-0.04));
    let mut soles = [0.0; 2];
    for _ in 0..60 {
        soles = tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
    }
    assert!((soles[0] - 0.08).abs() < 2e-3, "left sole at {}", soles[0]);
    assert!((soles[1] + 0.04).abs() < 2e-3, "right sole at {}", soles[1]);
    let out = r.ik.output();
    assert_eq!(out.knee_flips, 0);
    assert!(out.feet.iter().all(|f| f.locked && f.ik_alpha == 1.0));
}

#[test]
fn the_pelvis_comes_down_when_a_foot_cannot_reach() {
    let mut r = rig(FootIkMode::Predictive);
    let world = split_world(Some(0.0), Some(-0.3));
    let mut soles = [0.0; 2];
    for _ in 0..90 {
        soles = tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
    }
    let out = *r.ik.output();
    assert!(
        out.pelvis_offset_m < -0.1,
        "pelvis offset {}",
        out.pelvis_offset_m
    );
    assert!((soles[1] + 0.3).abs() < 5e-3, "right sole at {}", soles[1]);
    assert!(soles[0].abs() < 5e-3, "left sole at {}", soles[0]);
    // Flat again: the pelvis returns, slower than it went down.
    let flat = split_world(Some(0.0), Some(0.0));
    tick(&mut r, &flat, &input(Vec3::ZERO, 1.0));
    let after_one = r.ik.output().pelvis_offset_m;
    assert!(
        after_one < out.pelvis_offset_m * 0.8,
        "rose too fast: {after_one}"
    );
    for _ in 0..120 {
        tick(&mut r, &flat, &input(Vec3::ZERO, 1.0));
    }
    assert!(r.ik.output().pelvis_offset_m.abs() < 5e-3);
}

#[test]
fn a_planted_foot_out_of_reach_stands_on_its_ball_not_in_the_air() {
    // The right ground drops 8 cm: on the first tick the pelvis has only begun to come
    // down, so the right leg cannot reach a flat foot there.
    let world = split_world(Some(0.0), Some(-0.08));
    let run = |max_roll_deg: f32| {
        let mut r = rig(FootIkMode::Predictive);
        r.ik.config.max_reach_roll_rad = max_roll_deg.to_radians();
        tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
        let (heel, ball) = sole_points(&r, 1);
        let toe = r.ik.rig().legs[1].chain.ball.unwrap();
        (heel, ball, rotation_of(&r.model, toe), *r.ik.output())
    };
    let (flat_heel, flat_ball, flat_toe, flat_out) = run(0.0);
    assert!(
        flat_out.reach_clamps > 0,
        "the test needs a leg out of reach"
    );
    assert!(
        flat_ball.y > -0.08 + 0.01,
        "without the roll it floats: {flat_ball}"
    );
    assert!((flat_heel.y - flat_ball.y).abs() < 0.01);
    let (heel, ball, toe, out) = run(40.0);
    assert!((ball.y + 0.08).abs() < 2e-3, "ball {ball}");
    assert!(heel.y > ball.y + 0.02, "heel up: {heel}, ball {ball}");
    assert_eq!(out.knee_flips, 0);
    // The toes stay as the plane has them: the foot bends at the ball.
    assert!(
        toe.angle_between(flat_toe) < 1e-3,
        "toe {toe} vs {flat_toe}"
    );
}

#[test]
fn the_pelvis_comes_down_ahead_of_a_landing_it_could_not_reach() {
    // The right foot swings with its knee bent over ground 25 cm lower, to land as the
    // Idle pose has it: reachable now, not when it lands.
    let world = split_world(Some(0.0), Some(-0.25));
    let flat = split_world(Some(0.0), Some(0.0));
    let swing = |landing_in_s: f32| {
        let mut r = rig(FootIkMode::Predictive);
        tick(&mut r, &flat, &input(Vec3::ZERO, 1.0));
        let landing = idle_feet(&mut r)[1];
        let mut swinging = input(Vec3::ZERO, 1.0);
        swinging.contact_curve[1] = 0.0;
        swinging.landing_in_s[1] = landing_in_s;
        swinging.landing_feet_model[1] = Some(landing);
        let mut offsets = Vec::new();
        for _ in 0..6 {
            tick_bent(&mut r, &world, &swinging, 70f32.to_radians());
            offsets.push(r.ik.output().pelvis_offset_m);
        }
        offsets
    };
    let unknown = swing(f32::NAN);
    let far_off = swing(1.0);
    let soon = swing(0.05);
    assert_eq!(
        unknown, far_off,
        "a landing a second away changes nothing yet"
    );
    let (last_unknown, last_soon) = (unknown[5], soon[5]);
    assert!(
        last_soon < last_unknown - 0.05,
        "pelvis {last_soon} vs {last_unknown} without the landing time"
    );
    // Still the pelvis's own rate: no step bigger than the down rate allows.
    let rate = 1.0 - (-PelvisConfig::default().down_rate_per_s / 60.0).exp();
    for w in soon.windows(2) {
        assert!(w[0] - w[1] <= rate * 0.5 + 1e-4, "{soon:?}");
    }
}

#[test]
fn the_pelvis_is_down_for_a_step_down_by_the_time_the_foot_lands() {
    // The right foot lifts off the level and swings (knee bent) to land 25 cm lower, the
    // landing counted down tick by tick. At touch-down the pelvis is most of the way to
    // where it settles with that foot down: asked for only as the foot came down, a third
    // of the drop was still missing and the foot hung at full reach over its ground.
    let (flat, world) = (split_world(Some(0.0), Some(0.0)), step_down_on_the_right());
    let (mut r, mut swinging) = standing_then_swinging_right(&flat);
    swinging.landing_feet_model[1] = Some(idle_feet(&mut r)[1]);
    // It lifts off the level; the ground under its landing is the lower one.
    for k in (1..=18).rev() {
        swinging.landing_in_s[1] = k as f32 / 60.0;
        let ground: &dyn SpatialQueries = if k == 18 { &flat } else { &world };
        tick_bent(&mut r, ground, &swinging, 70f32.to_radians());
    }
    let at_touch_down = r.ik.output().pelvis_offset_m;
    for _ in 0..60 {
        tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
    }
    let settled = r.ik.output().pelvis_offset_m;
    assert!(settled < -0.1, "settled at {settled} m");
    assert!(
        at_touch_down < 0.9 * settled,
        "pelvis {at_touch_down} m at touch-down, {settled} m settled"
    );
}

#[test]
fn a_foot_locked_while_still_up_comes_down_onto_its_ground_not_in_a_tick() {
    // The right foot lifts off and swings high (knee bent 100°) over ground 25 cm lower,
    // and its contact curve rises before it is down: the lock takes it in the air. It comes
    // down over a few ticks, not the whole way on the tick it is locked (at 144 Hz a knee
    // moved 22 cm in that tick), and is down within a fifth of a second.
    let (flat, world) = (split_world(Some(0.0), Some(0.0)), step_down_on_the_right());
    let (mut r, swinging) = standing_then_swinging_right(&flat);
    let mut heights = Vec::new();
    // It lifts off the level; the ground under it is then the lower one.
    for k in 0..20 {
        let ground: &dyn SpatialQueries = if k == 0 { &flat } else { &world };
        heights.push(tick_bent(&mut r, ground, &swinging, 100f32.to_radians())[1]);
    }
    for _ in 0..12 {
        heights.push(tick(&mut r, &world, &input(Vec3::ZERO, 1.0))[1]);
    }
    // What the lab's pop count measures: the change of a tick's move from the last (0.36 m
    // with the foot let down the whole way on the tick it was locked).
    let jerk = heights
        .windows(3)
        .map(|w| (w[2] - 2.0 * w[1] + w[0]).abs())
        .fold(0.0, f32::max);
    assert!(
        jerk < 0.15,
        "a tick's move changed by {jerk} m: {heights:?}"
    );
    assert!(
        heights.last().is_some_and(|h| (h + 0.25).abs() < 0.005),
        "{heights:?}"
    );
}

/// Ground at 0 under the left foot and 25 cm lower under the right.
fn step_down_on_the_right() -> HeightWorld<impl Fn(f32, f32) -> Option<(f32, Vec3)>> {
    split_world(Some(0.0), Some(-0.25))
}

/// A rig stood on `flat` for 5 ticks, and the input that lifts its right foot (contact 0).
fn standing_then_swinging_right(flat: &dyn SpatialQueries) -> (Rig, FootIkInput) {
    let mut r = rig(FootIkMode::Predictive);
    for _ in 0..5 {
        tick(&mut r, flat, &input(Vec3::ZERO, 1.0));
    }
    let mut swinging = input(Vec3::ZERO, 1.0);
    swinging.contact_curve[1] = 0.0;
    (r, swinging)
}

#[test]
fn a_foot_gliding_back_after_a_release_probes_where_it_is() {
    // Its ground is what a lifting foot must clear: the animated foot may already be
    // a step further on (over the next tread down).
    let world = split_world(Some(0.0), Some(0.0));
    let mut r = rig(FootIkMode::Predictive);
    for _ in 0..5 {
        tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
    }
    let (_, held_ball) = sole_points(&r, 0);
    // The body moves on 20 cm and the stance ends: the lock lets go and glides back.
    let moved = input(Vec3::new(0.0, 0.0, 0.2), 0.0);
    while r.ik.output().feet[0].locked {
        tick(&mut r, &world, &moved);
    }
    let animated = idle_feet(&mut r);
    let request = r.ik.plan_probes(&moved, &animated)[0];
    let animated_ball_z = 0.2 + animated[0].ball_model.z;
    assert!(
        (request.ball_world.z - held_ball.z).abs() < 0.05,
        "probes at z {} (held at {}, animated at {animated_ball_z})",
        request.ball_world.z,
        held_ball.z
    );
}

/// Stepping down, a swinging foot's probes take the foot as it will stand: its heel the
/// sole's whole length behind the ball, whatever pitch the landing pose has (a forefoot-first
/// landing is shorter across the ground, and its heel then came down on the nosing behind).
/// Stepping up, the landing pose's own.
#[test]
fn a_landing_a_step_down_is_probed_with_the_foot_down_flat() {
    let heel_from_ball = |step_m: f32| -> (f32, f32) {
        // The ground steps by `step_m` 0.25 m ahead.
        let world = step_world(0.25, step_m);
        let mut r = rig(FootIkMode::Predictive);
        for _ in 0..5 {
            tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
        }
        let animated = idle_feet(&mut r);
        // The landing pose: the foot pitched 30° toes down about its ball, 0.4 m ahead.
        let flat = animated[0];
        let sole_m = flat.heel_model.distance(flat.ball_model);
        let pitch = Quat::from_rotation_x(30f32.to_radians());
        let ahead = Vec3::new(0.0, 0.0, 0.4);
        let landing = AnimatedFoot {
            heel_model: flat.ball_model + pitch * (flat.heel_model - flat.ball_model) + ahead,
            ball_model: flat.ball_model + ahead,
            ankle_model: flat.ball_model + pitch * (flat.ankle_model - flat.ball_model) + ahead,
            ..flat
        };
        let mut swinging = input(Vec3::ZERO, 1.0);
        swinging.contact_curve[0] = 0.0;
        swinging.landing_in_s = [0.2, f32::NAN];
        swinging.landing_feet_model = [Some(landing), None];
        // Lifted off: a tick's probes find the landing's ground, then the next are planned.
        for _ in 0..6 {
            tick(&mut r, &world, &swinging);
        }
        let request = r.ik.plan_probes(&swinging, &animated)[0];
        let across = request.landing_heel_from_ball_xz.unwrap().length();
        (across, sole_m)
    };
    let (down, sole_m) = heel_from_ball(-0.2);
    assert!(
        (down - sole_m).abs() < 1e-3,
        "down: heel {down} m from the ball, the sole {sole_m}"
    );
    let (up, _) = heel_from_ball(0.2);
    let pitched_m = sole_m * 30f32.to_radians().cos();
    assert!(
        (up - pitched_m).abs() < 0.01,
        "up: heel {up} m from the ball, pitched {pitched_m}"
    );
}

#[test]
fn contact_comes_from_the_curve_or_else_the_foot_speed() {
    let world = split_world(Some(0.0), Some(0.0));
    // Curve says swing: contact eases to 0 within the ease time.
    let mut r = rig(FootIkMode::Predictive);
    tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
    for _ in 0..6 {
        tick(&mut r, &world, &input(Vec3::ZERO, 0.0));
    }
    assert_eq!(r.ik.output().feet[0].contact, 0.0);
    // No curve: the Idle feet carried at 2 m/s are swinging, standing still planted.
    let mut r = rig(FootIkMode::Predictive);
    let mut root = Vec3::ZERO;
    for _ in 0..10 {
        root.z += 2.0 / 60.0;
        tick(&mut r, &world, &input(root, f32::NAN));
    }
    assert!(r.ik.output().feet.iter().all(|f| f.contact == 0.0));
    for _ in 0..10 {
        tick(&mut r, &world, &input(root, f32::NAN));
    }
    assert!(r.ik.output().feet.iter().all(|f| f.contact == 1.0));
}

#[test]
fn a_foot_landing_across_a_step_edge_is_set_down_on_one_tread() {
    let mut r = rig(FootIkMode::Predictive);
    // Where the Idle left foot's heel and ball are (model z), put the edge between them.
    let feet = idle_feet(&mut r);
    let edge_z = 0.5 * (feet[0].heel_model.z + feet[0].ball_model.z);
    let world = step_world(edge_z, 0.15);
    for _ in 0..30 {
        tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
    }
    let (heel, ball) = sole_points(&r, 0);
    let side = |z: f32| z >= edge_z;
    assert_eq!(
        side(heel.z),
        side(ball.z),
        "heel {heel}, ball {ball}, edge {edge_z}"
    );
    // And it stands on that tread: no float, no penetration.
    let ground = if side(ball.z) { 0.15 } else { 0.0 };
    assert!(
        (heel.y.min(ball.y) - ground).abs() < 3e-3,
        "sole {heel} {ball}"
    );
    assert_eq!(r.ik.output().knee_flips, 0);

    // A step down (the toe hanging over the nosing) is settled too, on the first
    // probes taken where the foot stands; and once set down on its tread it stands on
    // it from the next tick (the plane there is taken as it is, not eased down to; a
    // 6 cm step, which the leg reaches without waiting for the pelvis).
    let low = step_world(edge_z, -0.06);
    let mut r = rig(FootIkMode::Predictive);
    let mut settled_at = None;
    for k in 0..30 {
        tick(&mut r, &low, &input(Vec3::ZERO, 1.0));
        let (heel, ball) = sole_points(&r, 0);
        if side(heel.z) == side(ball.z) && settled_at.is_none() {
            settled_at = Some(k);
        }
        if settled_at.is_some_and(|at| k > at) {
            let ground = if side(ball.z) { -0.06 } else { 0.0 };
            let sole = heel.y.min(ball.y);
            assert!(
                (sole - ground).abs() < 3e-3,
                "tick {k}: sole {sole} over {ground}"
            );
        }
    }
    assert!(
        settled_at.is_some_and(|at| at < 5),
        "settled at {settled_at:?}"
    );
    let down = step_world(edge_z, -0.15);
    let mut r = rig(FootIkMode::Predictive);
    for _ in 0..30 {
        tick(&mut r, &down, &input(Vec3::ZERO, 1.0));
    }
    let (heel, ball) = sole_points(&r, 0);
    assert_eq!(side(heel.z), side(ball.z), "down: heel {heel}, ball {ball}");
    let ground = if side(ball.z) { -0.15 } else { 0.0 };
    assert!(
        (heel.y.min(ball.y) - ground).abs() < 3e-3,
        "down: sole {heel} {ball}"
    );

    // With placement off the same foot stays across the edge.
    let mut r = rig(FootIkMode::Predictive);
    r.ik.config.max_placement_m = 0.0;
    for _ in 0..30 {
        tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
    }
    let (heel, ball) = sole_points(&r, 0);
    assert_ne!(side(heel.z), side(ball.z), "placement off: {heel} {ball}");
}

#[test]
fn a_swinging_foot_across_a_step_takes_the_tread_it_will_be_set_on() {
    // The right foot swings with a step up 4 cm behind its ball: most of the foot is
    // over the lower tread, so it is moved back onto it and takes its height, not
    // lifted a whole step by the toe's probe.
    let mut r = rig(FootIkMode::Predictive);
    let feet = idle_feet(&mut r);
    let edge_z = feet[1].ball_model.z - 0.04;
    let world = step_world(edge_z, 0.15);
    let mut swinging = input(Vec3::ZERO, 1.0);
    swinging.contact_curve[1] = 0.0;
    for k in 0..10 {
        tick(&mut r, &world, &swinging);
        let report = r.ik.output().feet[1];
        if k == 0 {
            assert_eq!(report.source, Some(SupportSource::Edge));
        }
        let support = report.support_height_m.unwrap();
        assert!(
            support.abs() < 1e-3,
            "tick {k}: support at {support}, not the lower tread"
        );
    }
    // The step ahead is cleared, not stood on.
    let (heel, ball) = sole_points(&r, 1);
    assert!(heel.y.min(ball.y) > -1e-3, "sole {heel} {ball}");
}

#[test]
fn a_swinging_foot_across_a_crest_is_set_on_one_side_of_it() {
    // A platform at 0 ending between the right foot's heel and ball, then a 40° ramp
    // down: set down across the crest, the foot would stand on its heel with the toes
    // in the air. Swinging, it is moved onto the platform or the ramp.
    let mut r = rig(FootIkMode::Predictive);
    let feet = idle_feet(&mut r);
    let edge_z = 0.5 * (feet[1].heel_model.z + feet[1].ball_model.z);
    let slope = 40f32.to_radians();
    let down = Vec3::new(0.0, slope.cos(), slope.sin());
    let world = HeightWorld::new(move |_, z: f32| {
        Some(if z < edge_z {
            (0.0, Vec3::Y)
        } else {
            (-(z - edge_z) * slope.tan(), down)
        })
    });
    let mut swinging = input(Vec3::ZERO, 1.0);
    swinging.contact_curve[1] = 0.0;
    for _ in 0..20 {
        tick(&mut r, &world, &swinging);
    }
    let (heel, ball) = sole_points(&r, 1);
    assert_eq!(
        heel.z < edge_z,
        ball.z < edge_z,
        "heel {heel}, ball {ball}, crest {edge_z}"
    );
}

#[test]
fn a_foot_lifting_off_for_a_higher_landing_rises_over_the_swing_not_at_once() {
    // The right foot stands on the floor and swings (0.4 s) to land on a 25 cm step
    // 0.6 m ahead, as its landing pose and the body's travel say.
    let mut r = rig(FootIkMode::Predictive);
    let world = step_world(0.3, 0.25);
    let planted = input(Vec3::ZERO, 1.0);
    for _ in 0..10 {
        tick(&mut r, &world, &planted);
    }
    let landing = moved_ahead(idle_feet(&mut r)[1], 0.6);
    let mut heights = Vec::new();
    for k in 0..24 {
        heights.push(tick(&mut r, &world, &swing_input(planted, landing, k))[1]);
    }
    // It gets there: over the step by touch-down.
    assert!(heights[23] > 0.2, "{heights:?}");
    // But no tick lifts it by more than a third of the step.
    for w in heights.windows(2) {
        assert!(w[1] - w[0] < 0.08, "{heights:?}");
    }
}

#[test]
fn a_foot_swinging_onto_a_step_lands_ball_first_then_lowers_its_heel() {
    // As above, but with the flat Idle foot: over the second half of the swing the
    // foot pitches toes-down, so its ball meets the 25 cm step before its heel; planted,
    // the heel comes down about the ball within `stair_heel_lower_s`.
    let heel_above_ball = |toe_down_rad: f32| {
        let mut r = rig(FootIkMode::Predictive);
        r.ik.config.stair_toe_down_rad = toe_down_rad;
        let world = step_world(0.3, 0.25);
        let planted = input(Vec3::ZERO, 1.0);
        for _ in 0..10 {
            tick(&mut r, &world, &planted);
        }
        let landing = moved_ahead(idle_feet(&mut r)[1], 0.6);
        let mut swinging = planted;
        for k in 0..24 {
            swinging = swing_input(planted, landing, k);
            tick(&mut r, &world, &swinging);
        }
        let (heel, ball) = sole_points(&r, 1);
        let at_touch_down = heel.y - ball.y;
        // Planted for 0.3 s (twice the heel's time) where it landed.
        let mut landed = swinging;
        landed.contact_curve[1] = 1.0;
        landed.landing_in_s[1] = 0.0;
        for _ in 0..18 {
            tick(&mut r, &world, &landed);
        }
        let (heel, ball) = sole_points(&r, 1);
        (at_touch_down, heel.y - ball.y)
    };
    let (touch_down, planted) = heel_above_ball(15f32.to_radians());
    // A 0.2 m sole at 15°: the heel 5 cm above the ball.
    assert!(touch_down > 0.04, "heel {touch_down} m above the ball");
    assert!(
        planted.abs() < 0.005,
        "heel {planted} m above the ball, planted"
    );
    // Off: the Idle foot comes down flat.
    let (touch_down, _) = heel_above_ball(0.0);
    assert!(
        touch_down.abs() < 0.005,
        "heel {touch_down} m above the ball, off"
    );
}

#[test]
fn a_foot_lifting_off_turns_to_its_landing_slope_gradually() {
    // Flat floor, then a 25° ramp from 0.3 m ahead; the right foot lifts off to land
    // 0.6 m ahead, on the ramp. Its plane eases from the floor to the ramp rather than
    // snapping there on the first swing tick (the foot would flip its pitch at once).
    let tan = 25f32.to_radians().tan();
    let ramp = Vec3::new(0.0, 1.0, -tan).normalize();
    let world = HeightWorld::new(move |_, z: f32| {
        Some(if z < 0.3 {
            (0.0, Vec3::Y)
        } else {
            ((z - 0.3) * tan, ramp)
        })
    });
    let mut r = rig(FootIkMode::Predictive);
    let planted = input(Vec3::ZERO, 1.0);
    for _ in 0..10 {
        tick(&mut r, &world, &planted);
    }
    let landing = moved_ahead(idle_feet(&mut r)[1], 0.6);
    let foot = r.ik.rig().legs[1].chain.foot;
    let rotation_of_foot = |r: &Rig| {
        let (_, rotation, _) = r.model.joints_model()[foot].to_scale_rotation_translation();
        rotation
    };
    tick(&mut r, &world, &planted);
    let mut last = rotation_of_foot(&r);
    let mut swinging = planted;
    swinging.contact_curve[1] = 0.0;
    swinging.landing_in_s[1] = 0.4;
    swinging.landing_feet_model[1] = Some(landing);
    for k in 0..12 {
        tick(&mut r, &world, &swinging);
        let now = rotation_of_foot(&r);
        let turn = now.angle_between(last).to_degrees();
        assert!(turn < 10.0, "tick {k}: the foot turned {turn}° at once");
        last = now;
    }
}

#[test]
fn up_a_ramp_a_lifting_foot_takes_the_ground_near_it_not_at_its_landing() {
    // A 20° ramp; the right foot lifts off to land 0.6 m further up (22 cm higher).
    let tan = 20f32.to_radians().tan();
    let normal = Vec3::new(0.0, 1.0, -tan).normalize();
    let world = HeightWorld::new(move |_, z: f32| Some((z * tan, normal)));
    let mut r = rig(FootIkMode::Predictive);
    let planted = input(Vec3::ZERO, 1.0);
    for _ in 0..10 {
        tick(&mut r, &world, &planted);
    }
    let standing = tick(&mut r, &world, &planted)[1];
    let landing = moved_ahead(idle_feet(&mut r)[1], 0.6);
    let mut swinging = planted;
    swinging.contact_curve[1] = 0.0;
    swinging.landing_in_s[1] = 0.4;
    swinging.landing_feet_model[1] = Some(landing);
    let lifted: Vec<f32> = (0..12)
        .map(|_| tick(&mut r, &world, &swinging)[1] - standing)
        .collect();
    // It climbs with the ramp (0.36 m/s × swing time here), not to the landing height
    // at lift-off.
    for w in lifted.windows(2) {
        assert!(w[1] - w[0] < 0.03, "{lifted:?}");
    }
    assert!(lifted[6] < 0.05, "{lifted:?}");
}

#[test]
fn a_swinging_foot_out_of_reach_waits_above_its_target() {
    // The right foot swings forward over a drop deeper than the pelvis may come
    // down: its target is out of reach. The foot stays over where it is going (the
    // target is raised to the leg's reach), not pulled in toward the hip along the leg.
    let mut r = rig(FootIkMode::Predictive);
    let world = split_world(Some(0.0), Some(-0.9));
    let mut swinging = input(Vec3::ZERO, 1.0);
    swinging.contact_curve[1] = 0.0;
    for _ in 0..20 {
        tick_swung(&mut r, &world, &swinging, 30f32.to_radians(), 0.0);
    }
    let out = *r.ik.output();
    let target = out.feet[1].ankle_target_world;
    let ankle = r.model.position_model(r.ik.rig().legs[1].chain.foot);
    let horizontal = Vec2::new(ankle.x - target.x, ankle.z - target.z).length();
    assert!(horizontal < 2e-3, "ankle {ankle} vs target {target}");
    assert!(target.y > -0.9, "raised target {target}");
    assert!(
        (ankle.y - target.y).abs() < 5e-3,
        "ankle {ankle} reaches {target}"
    );
    assert_eq!(out.knee_flips, 0);
}

#[test]
fn a_total_miss_fades_the_ik_out_without_a_snap() {
    let mut r = rig(FootIkMode::Predictive);
    let ground = split_world(Some(0.1), Some(0.1));
    for _ in 0..30 {
        tick(&mut r, &ground, &input(Vec3::ZERO, 1.0));
    }
    let hole = split_world(None, None);
    let mut last = tick(&mut r, &hole, &input(Vec3::ZERO, 1.0));
    let mut last_alpha = r.ik.output().feet[0].ik_alpha;
    let max_step = (1.0 / 60.0) / r.ik.config.miss_fade_s + 1e-5;
    for _ in 0..30 {
        let soles = tick(&mut r, &hole, &input(Vec3::ZERO, 1.0));
        let alpha = r.ik.output().feet[0].ik_alpha;
        assert!(
            last_alpha - alpha <= max_step,
            "alpha {last_alpha} → {alpha}"
        );
        assert!((soles[0] - last[0]).abs() < 0.01, "foot snapped");
        last = soles;
        last_alpha = alpha;
    }
    assert_eq!(last_alpha, 0.0);
    assert!(last[0].abs() < 2e-3, "back on the animation: {}", last[0]);
}

#[test]
fn mode_none_and_bad_input_leave_the_animation_alone() {
    let world = split_world(Some(0.1), Some(0.1));
    let mut r = rig(FootIkMode::None);
    let soles = tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
    assert!(soles.iter().all(|s| s.abs() < 2e-3), "{soles:?}");
    assert_eq!(r.ik.output().rays_cast, 0);
    let mut r = rig(FootIkMode::Predictive);
    let mut bad = input(Vec3::NAN, 1.0);
    bad.dt_s = f32::NAN;
    bad.facing_yaw_rad = f32::INFINITY;
    tick(&mut r, &world, &bad);
    assert!(r.model.joints_model().iter().all(|m| m.is_finite()));
}

#[test]
fn a_foot_kicked_back_over_a_higher_tread_is_not_folded_up_to_the_hip() {
    // Running down a flight: the body is already on the tread below while the right
    // foot, kicked back, still swings over the tread it left, 35 cm higher. Kept at its
    // lift over that tread, the ankle would come up level with the hip (and the folded
    // knee flip as it passed); it is held a share of the leg below the hip (within the
    // 5 cm it is eased in over), still clear of the tread.
    let mut r = rig(FootIkMode::Predictive);
    let tread_m = 0.35;
    let world = HeightWorld::new(move |_, z| Some((if z < -0.1 { tread_m } else { 0.0 }, Vec3::Y)));
    // Both feet on the upper tread, then the body on the lower one with the right foot
    // lifted off the upper tread behind it.
    let upper = Vec3::new(0.0, tread_m, -0.5);
    for _ in 0..20 {
        tick(&mut r, &world, &input(upper, 1.0));
    }
    let mut lifting = input(upper, 1.0);
    lifting.contact_curve[1] = 0.0;
    for _ in 0..5 {
        tick(&mut r, &world, &lifting);
    }
    let swinging = FootIkInput {
        root_world: Vec3::ZERO,
        ..lifting
    };
    for _ in 0..20 {
        tick_swung(
            &mut r,
            &world,
            &swinging,
            (-20f32).to_radians(),
            60f32.to_radians(),
        );
    }
    let leg = r.ik.rig().legs[1];
    let hip = r.model.position_model(leg.chain.thigh);
    let ankle = r.model.position_model(leg.chain.foot);
    assert!(
        ankle.z < hip.z - 0.1,
        "kicked back: ankle {ankle}, hip {hip}"
    );
    assert!(
        ankle.y < hip.y - 0.3 * leg.leg_length_m + 0.05,
        "ankle {ankle} folded up to the hip {hip}"
    );
    let (heel, ball) = sole_points(&r, 1);
    assert!(
        heel.y.min(ball.y) > tread_m,
        "sole {heel} {ball} into the tread"
    );
    assert_eq!(r.ik.output().knee_flips, 0);
}

#[test]
fn at_take_off_the_feet_rise_with_the_body_and_ease_back_onto_the_animation() {
    // Standing on ground 10 cm above where the animation has the feet, the IK lifts
    // them; then the capsule leaves at 7.8 m/s (13 cm a tick at 60 Hz, a running
    // jump). The feet used to stay down at the ground's height for the first ticks
    // while the weight eased off: 11 cm a tick against the body, the knees snapping.
    let mut r = rig(FootIkMode::Predictive);
    let ground = split_world(Some(0.1), Some(0.1));
    for _ in 0..30 {
        tick(&mut r, &ground, &input(Vec3::ZERO, 1.0));
    }
    let lifted = [0, 1].map(|i| sole_points(&r, i).0.y);
    assert!(lifted.iter().all(|y| *y > 0.09), "{lifted:?}");
    let mut last = lifted;
    let ease_ticks = (r.ik.config.weight_ease_s * 60.0).ceil() as usize;
    for k in 1..=ease_ticks + 2 {
        let mut airborne = input(Vec3::new(0.0, 0.13 * k as f32, 0.0), 0.0);
        airborne.grounded = false;
        tick(&mut r, &ground, &airborne);
        let heels = [0, 1].map(|i| sole_points(&r, i).0.y);
        for i in 0..2 {
            // Against the body: eased down a share of the 10 cm lift per tick.
            let moved_m = (heels[i] - last[i]).abs();
            assert!(
                moved_m < 0.03,
                "tick {k}, foot {i}: {moved_m} m against the body"
            );
        }
        last = heels;
    }
    let animated = idle_feet(&mut r);
    for i in 0..2 {
        let expected = animated[i].heel_model.y;
        assert!(
            (last[i] - expected).abs() < 2e-3,
            "foot {i} at {} against the animation's {expected}",
            last[i]
        );
    }
}

#[test]
fn a_foot_held_up_by_a_ledge_in_the_air_comes_down_over_a_few_ticks() {
    // Stepping off a ledge, the body drops 25 cm while the ground is still under the
    // feet: they are held up on it, 25 cm over where the animation has them. Then the
    // ground is gone (the heel slid off the edge): the feet come down to the animation
    // over a few ticks, not 25 cm in one (in the root's frame, which falls on).
    let mut r = rig(FootIkMode::Predictive);
    let animated_heel_m = idle_feet(&mut r).map(|f| f.heel_model.y);
    let ledge = split_world(Some(0.0), Some(0.0));
    let nothing = split_world(None, None);
    for _ in 0..30 {
        tick(&mut r, &ledge, &input(Vec3::ZERO, 1.0));
    }
    let fall = |k: usize| {
        let mut falling = input(Vec3::new(0.0, -0.05 * k as f32, 0.0), 0.0);
        falling.grounded = false;
        falling
    };
    for k in 1..=5 {
        tick(&mut r, &ledge, &fall(k));
    }
    let heels = |r: &Rig| [0, 1].map(|i| sole_points(r, i).0.y);
    let held = heels(&r);
    for i in 0..2 {
        assert!(
            held[i] > animated_heel_m[i] + 0.2,
            "foot {i} held at {} over the animation's {}",
            held[i],
            animated_heel_m[i]
        );
    }
    let mut last = held;
    for k in 6..=20 {
        tick(&mut r, &nothing, &fall(k));
        let now = heels(&r);
        for i in 0..2 {
            let dropped_m = last[i] - now[i];
            assert!(dropped_m < 0.08, "tick {k}, foot {i}: down {dropped_m} m");
        }
        last = now;
    }
    for i in 0..2 {
        assert!(
            (last[i] - animated_heel_m[i]).abs() < 0.01,
            "foot {i} at {} against the animation's {}",
            last[i],
            animated_heel_m[i]
        );
    }
}

#[test]
fn a_heel_strike_comes_down_about_its_heel_without_sliding_it() {
    // Up a 20° ramp the right foot strikes heel first, toes up 25°, and the animation
    // brings the sole down flat over 8 ticks while the contact curve says planted. The
    // foot turns about its heel: the heel stays where it struck (a lock pinning the ball,
    // still up in the air at contact, swung the heel along the ground instead).
    let tan = 20f32.to_radians().tan();
    let normal = Vec3::new(0.0, 1.0, -tan).normalize();
    let ramp = HeightWorld::new(move |_, z: f32| Some((z * tan, normal)));
    let walking = input(Vec3::ZERO, 1.0);
    let slid_m = heel_strike_slide_m(&ramp, (&walking, &walking), 0.0, false);
    assert!(slid_m < 0.005, "up the ramp the heel slid {slid_m} m");
}

#[test]
fn a_heel_down_before_its_contact_rises_stays_where_it_touched() {
    // The mannequin's contact curves rise at foot-flat, a few ticks after the heel
    // strikes. Up a 30° ramp the right heel touches with the toes up 25° and the contact
    // curve at 0; the sole comes down over 8 ticks, then the curve says planted. The heel
    // stays where it touched: placed from the ball, it slid 2.7 cm back down the slope as
    // the aligned foot's horizontal length grew (the ramps' ground skid).
    let tan = 30f32.to_radians().tan();
    let normal = Vec3::new(0.0, 1.0, -tan).normalize();
    let ramp = HeightWorld::new(move |_, z: f32| Some((z * tan, normal)));
    let (swinging, planted) = (input(Vec3::ZERO, 0.0), input(Vec3::ZERO, 1.0));
    let slid_m = heel_strike_slide_m(&ramp, (&swinging, &planted), 0.0, true);
    assert!(slid_m < 0.005, "up the ramp the heel slid {slid_m} m");
}

#[test]
fn a_running_heel_strike_keeps_its_heel_and_a_planted_heel_turns_about_itself() {
    // A heel-striking runner (UAL's jog lands with the toes 9 cm up) at 3.75 m/s: the
    // heel is pinned from the tick it lands to heel-off, as a walk's is.
    let flat = HeightWorld::new(|_, _| Some((0.0, Vec3::Y)));
    let running = FootIkInput {
        velocity_world: Vec3::new(0.0, 0.0, 3.75),
        ..input(Vec3::ZERO, 1.0)
    };
    let slid_m = heel_strike_slide_m(&flat, (&running, &running), 0.0, false);
    assert!(slid_m < 0.005, "running, the heel slid {slid_m} m");
    // Across a 20° slope, with the animation turning the foot 10° as the sole comes
    // down: the lock keeps the foot pointing where it landed, a turn about the pinned
    // heel (about the ball, the heel swept 1-2 cm across the slope on every stance).
    let tan = 20f32.to_radians().tan();
    let normal = Vec3::new(-tan, 1.0, 0.0).normalize();
    let cross = HeightWorld::new(move |x: f32, _| Some((x * tan, normal)));
    let walking = input(Vec3::ZERO, 1.0);
    let slid_m = heel_strike_slide_m(&cross, (&walking, &walking), 10f32.to_radians(), false);
    assert!(slid_m < 0.005, "across the slope the heel slid {slid_m} m");
}

/// How far (m, world xz) the right heel moves while a heel strike (toes up 25°) comes down
/// flat over 8 ticks, the animation turning the foot by `turn_rad` meanwhile, after 10
/// ticks settled at the strike (both with `striking`), and over 3 ticks flat after
/// (with `planted`). With `about_heel` the animation rolls the foot about its heel, as a
/// walk's does; else about its ankle, so only the lock keeps the heel in place.
fn heel_strike_slide_m(
    world: &dyn SpatialQueries,
    (striking, planted): (&FootIkInput, &FootIkInput),
    turn_rad: f32,
    about_heel: bool,
) -> f32 {
    let mut r = rig(FootIkMode::Predictive);
    let leg = r.ik.rig().legs[1];
    let (foot, heel_local) = (leg.chain.foot, leg.sockets.heel_foot_local);
    let calf = r.mannequin.skeleton.parent(foot).unwrap();
    let struck = 25f32.to_radians();
    // Where the animation has the heel at the strike (model space).
    let mut struck_heel_model = None;
    let mut heel_world = |r: &mut Rig, input: &FootIkInput, toes_up_rad: f32, yaw_rad: f32| {
        tick_posed(r, world, input, |r| {
            // A turn about -X lifts the toes (the mannequin's rest rotations are identity).
            r.pose.local_mut()[foot].rotation *=
                Quat::from_rotation_y(yaw_rad) * Quat::from_rotation_x(-toes_up_rad);
            local_to_model(&r.mannequin.skeleton, &r.pose, &mut r.model).unwrap();
            let heel = r.model.point_model(foot, heel_local);
            let fixed = *struck_heel_model.get_or_insert(heel);
            if about_heel {
                let (_, calf_rotation, _) =
                    r.model.joints_model()[calf].to_scale_rotation_translation();
                r.pose.local_mut()[foot].translation += calf_rotation.inverse() * (fixed - heel);
            }
        });
        sole_points(r, 1).0
    };
    for _ in 0..10 {
        heel_world(&mut r, striking, struck, 0.0);
    }
    let start = heel_world(&mut r, striking, struck, 0.0);
    (1..=11)
        .map(|k| {
            let share = (k as f32 / 8.0).min(1.0);
            let input = if k <= 8 { striking } else { planted };
            let heel = heel_world(&mut r, input, struck * (1.0 - share), turn_rad * share);
            Vec2::new(heel.x - start.x, heel.z - start.z).length()
        })
        .fold(0.0, f32::max)
}

/// `skeleton`'s rest pose held by `ik` on `world` for 90 ticks, standing still at the
/// origin with its feet planted: the last tick's pose and model pose.
fn hold_rest_pose_on<W: SpatialQueries>(
    ik: &mut FootIk,
    skeleton: &Skeleton,
    world: &W,
) -> (Pose, ModelPose) {
    hold_pose_on(ik, skeleton, world, &Pose::rest(skeleton))
}

/// As [`hold_rest_pose_on`], with `animated` as the animation's pose every tick.
fn hold_pose_on<W: SpatialQueries>(
    ik: &mut FootIk,
    skeleton: &Skeleton,
    world: &W,
    animated: &Pose,
) -> (Pose, ModelPose) {
    let mut pose = animated.clone();
    let mut model = ModelPose::new(skeleton.num_joints());
    let input = input(Vec3::ZERO, 1.0);
    for _ in 0..90 {
        pose = animated.clone();
        local_to_model(skeleton, &pose, &mut model).unwrap();
        let animated = ik.rig().animated_feet(&model);
        let requests = ik.plan_probes(&input, &animated);
        let config = ik.config.probe;
        let results = requests.map(|q| run_foot_probe(world, QueryFilter::GROUND, &config, &q));
        ik.solve(&input, &animated, &results, skeleton, &mut pose, &mut model)
            .unwrap();
    }
    (pose, model)
}

/// A Quaternius-like rig: an armature root scaled 100 (so joint translations are in
/// hundredths of a metre), the legs under the hips, and each foot hanging from the root (an
/// IK target) where its shin ends in the rest pose; no toe joints.
fn ik_target_feet_skeleton() -> Skeleton {
    use crate::skeleton::{Joint, Transform};
    let j = |name: &str, parent: usize, t_m: Vec3| Joint {
        name: name.into(),
        parent: Some(parent),
        rest_local: Transform::from_translation(t_m / 100.0),
    };
    Skeleton::new(vec![
        Joint {
            name: "Root".into(),
            parent: None,
            rest_local: Transform {
                scale: Vec3::splat(100.0),
                ..Transform::IDENTITY
            },
        },
        j("Foot.L", 0, Vec3::new(0.1, 0.07, 0.0)),
        j("Hips", 0, Vec3::new(0.0, 0.9, 0.0)),
        // Knees a little ahead of the hip–ankle line: the bend side.
        j("UpperLeg.L", 2, Vec3::new(0.1, -0.05, 0.0)),
        j("LowerLeg.L", 3, Vec3::new(0.0, -0.41, 0.03)),
        j("UpperLeg.R", 2, Vec3::new(-0.1, -0.05, 0.0)),
        j("LowerLeg.R", 5, Vec3::new(0.0, -0.41, 0.03)),
        j("Foot.R", 0, Vec3::new(-0.1, 0.07, 0.0)),
    ])
    .unwrap()
}

#[test]
fn ik_target_feet_are_put_on_their_targets_at_the_end_of_their_shins() {
    let skeleton = ik_target_feet_skeleton();
    let map = crate::bone_map::HumanoidMap::detect(&skeleton);
    let foot_rig = FootRig::new(&skeleton, &map).unwrap();
    let rest_model = skeleton.rest_model();
    let at = |m: &[glam::Affine3A], j: usize| Vec3::from(m[j].translation);
    for leg in &foot_rig.legs {
        assert!(leg.chain.foot_is_ik_target);
        assert!(leg.ankle_in_calf.is_some());
        // A 0.411 m thigh and a 0.371 m shin (to the foot's rest position), in metres.
        assert!(
            (leg.leg_length_m - 0.7823).abs() < 1e-3,
            "{}",
            leg.leg_length_m
        );
        // The foot and what hangs from it are recomputed with the leg.
        let joints = foot_rig.legs.iter().position(|l| l == leg).unwrap();
        let set = foot_rig.leg_joints[joints].unwrap();
        assert!(set.as_slice().contains(&leg.chain.foot));
    }
    // Ground 6 cm up under the left foot, 4 cm down under the right: both legs move.
    let world = split_world(Some(0.06), Some(-0.04));
    let mut ik = FootIk::new(FootIkConfig::default(), foot_rig);
    let (pose, model) = hold_rest_pose_on(&mut ik, &skeleton, &world);
    let out = *ik.output();
    // The model pose the stage leaves is the pose's.
    let mut fresh = ModelPose::new(skeleton.num_joints());
    local_to_model(&skeleton, &pose, &mut fresh).unwrap();
    let solved = model.joints_model();
    for (a, b) in solved.iter().zip(fresh.joints_model()) {
        assert!(a.abs_diff_eq(*b, 1e-5), "{a:?} vs {b:?}");
    }
    for (i, leg) in ik.rig().legs.iter().enumerate() {
        let report = out.feet[i];
        assert!(report.ik_alpha > 0.99, "{i}: {report:?}");
        let foot = at(solved, leg.chain.foot);
        // On the ankle target (yaw 0, root at the origin: model = world).
        let target = report.ankle_target_world;
        assert!(
            foot.distance(target) < 1e-3,
            "{i}: foot {foot} target {target}"
        );
        // At the end of the solved shin.
        let shin_end = solved[leg.chain.calf].transform_point3(leg.ankle_in_calf.unwrap());
        assert!(foot.distance(shin_end) < 1e-4, "{i}: {foot} vs {shin_end}");
        // Thigh and shin keep their lengths.
        let (hip, knee) = (at(solved, leg.chain.thigh), at(solved, leg.chain.calf));
        let (rest_hip, rest_knee, rest_ankle) = (
            at(&rest_model, leg.chain.thigh),
            at(&rest_model, leg.chain.calf),
            at(&rest_model, leg.chain.foot),
        );
        assert!((hip.distance(knee) - rest_hip.distance(rest_knee)).abs() < 1e-4);
        assert!((knee.distance(foot) - rest_knee.distance(rest_ankle)).abs() < 1e-4);
        // The sole on the ground it stands on, the foot's scale kept.
        let ground = [0.06, -0.04][i];
        let (heel, ball) = (
            model.point_model(leg.chain.foot, leg.sockets.heel_foot_local),
            model.point_model(leg.chain.foot, leg.sockets.ball_foot_local),
        );
        assert!(
            (heel.y.min(ball.y) - ground).abs() < 0.005,
            "{i}: {heel} {ball}"
        );
        let (scale, _, _) = solved[leg.chain.foot].to_scale_rotation_translation();
        assert!((scale - Vec3::splat(100.0)).length() < 1e-2, "{scale}");
    }
    // The right foot needed the pelvis down (metres, whatever the armature scale).
    assert!(
        (-0.1..-0.01).contains(&out.pelvis_offset_m),
        "{}",
        out.pelvis_offset_m
    );
    assert_eq!(out.knee_flips, 0);
}

#[test]
fn an_ik_target_foot_stands_off_its_shin_as_far_as_the_animation_holds_it() {
    // The animation holds the left foot 6 cm below the end of its (near straight) shin, as
    // Quaternius' walk holds its feet past the legs' reach at the ends of a stride, and the
    // ground under it is as low: the foot stays on it, with the leg reaching toward it, and
    // the pelvis does not come down the 6 cm it would take to reach it with the leg.
    let skeleton = ik_target_feet_skeleton();
    let map = crate::bone_map::HumanoidMap::detect(&skeleton);
    let rig = FootRig::new(&skeleton, &map).unwrap();
    let (left, right) = (rig.legs[0], rig.legs[1]);
    let off_m = 0.06;
    let mut animated = Pose::rest(&skeleton);
    // Root-local units are hundredths of a metre.
    animated.local_mut()[left.chain.foot].translation.y -= off_m / 100.0;
    let mut model = ModelPose::new(skeleton.num_joints());
    local_to_model(&skeleton, &animated, &mut model).unwrap();
    let feet = rig.animated_feet(&model);
    assert!((feet[0].off_shin_m - off_m).abs() < 1e-4, "{:?}", feet[0]);
    assert!(feet[1].off_shin_m < 1e-4, "{:?}", feet[1]);

    let world = split_world(Some(-off_m), Some(0.0));
    let mut ik = FootIk::new(FootIkConfig::default(), rig);
    let (_, model) = hold_pose_on(&mut ik, &skeleton, &world, &animated);
    let out = *ik.output();
    let solved = model.joints_model();
    let foot = Vec3::from(solved[left.chain.foot].translation);
    let target = out.feet[0].ankle_target_world;
    assert!(foot.distance(target) < 1e-3, "foot {foot} target {target}");
    let (heel, ball) = (
        model.point_model(left.chain.foot, left.sockets.heel_foot_local),
        model.point_model(left.chain.foot, left.sockets.ball_foot_local),
    );
    assert!((heel.y.min(ball.y) + off_m).abs() < 0.005, "{heel} {ball}");
    let shin_end = solved[left.chain.calf].transform_point3(left.ankle_in_calf.unwrap());
    let stand_off_m = foot.distance(shin_end);
    assert!(
        (0.01..=off_m + 1e-3).contains(&stand_off_m),
        "{stand_off_m}"
    );
    // The right foot, under its shin in the animation, is at the end of it.
    let right_foot = Vec3::from(solved[right.chain.foot].translation);
    let right_shin_end = solved[right.chain.calf].transform_point3(right.ankle_in_calf.unwrap());
    assert!(right_foot.distance(right_shin_end) < 1e-4);
    // Only the little both legs need to come off full stretch.
    assert!(
        (-0.03..=0.0).contains(&out.pelvis_offset_m),
        "{}",
        out.pelvis_offset_m
    );
    assert_eq!(out.knee_flips, 0);
}

#[test]
fn a_foot_easing_back_in_after_a_step_off_stays_on_its_ground() {
    // Walking off a nosing, a small capsule is in the air for a few ticks and the IK
    // weight eases out; landed on the next tread, the body (and the animated feet with
    // it) is 20 cm lower while a foot still stands on the upper tread, and the weight
    // eases back in. Blended toward the animation, the sole went into the tread (KayKit:
    // its trailing ball 6 cm into a nosing, locked there).
    let mut r = rig(FootIkMode::Predictive);
    let tread_m = 0.2;
    let upper = HeightWorld::new(move |_, _| Some((tread_m, Vec3::Y)));
    for _ in 0..30 {
        tick(&mut r, &upper, &input(Vec3::Y * tread_m, 1.0));
    }
    for k in 1..=3 {
        let mut falling = input(Vec3::Y * (tread_m * (1.0 - k as f32 / 3.0)), 1.0);
        falling.grounded = false;
        tick(&mut r, &upper, &falling);
    }
    let mut lowest = f32::MAX;
    let mut least_alpha = 1.0f32;
    for _ in 0..6 {
        let soles = tick(&mut r, &upper, &input(Vec3::ZERO, 1.0));
        lowest = lowest.min(soles[0].min(soles[1]));
        least_alpha = least_alpha.min(r.ik.output().feet[0].ik_alpha);
    }
    assert!(
        least_alpha < 0.9,
        "the IK was not easing in ({least_alpha})"
    );
    assert!(
        lowest > tread_m - 2e-3,
        "a sole {:.1} mm into the tread",
        (tread_m - lowest) * 1000.0
    );
}

/// Quaternius' layout: the thighs hang from `Body`, the mapped pelvis `Hips` beside them
/// (it carries the trunk). The pelvis drop moves `Body`, so the hips go down with the trunk
/// and both feet reach ground 12 cm below their rest.
#[test]
fn the_pelvis_drop_moves_the_joint_that_carries_the_thighs() {
    use crate::skeleton::{Joint, Transform};
    let j = |name: &str, parent: usize, t_m: Vec3| Joint {
        name: name.into(),
        parent: Some(parent),
        rest_local: Transform::from_translation(t_m),
    };
    let skeleton = Skeleton::new(vec![
        Joint {
            name: "Root".into(),
            parent: None,
            rest_local: Transform::IDENTITY,
        },
        j("Body", 0, Vec3::new(0.0, 0.9, 0.0)),
        j("Hips", 1, Vec3::new(0.0, 0.02, 0.0)),
        j("Abdomen", 2, Vec3::new(0.0, 0.15, 0.0)),
        j("UpperLeg.L", 1, Vec3::new(0.1, -0.05, 0.0)),
        j("LowerLeg.L", 4, Vec3::new(0.0, -0.41, 0.03)),
        j("Foot.L", 5, Vec3::new(0.0, -0.37, -0.03)),
        j("UpperLeg.R", 1, Vec3::new(-0.1, -0.05, 0.0)),
        j("LowerLeg.R", 7, Vec3::new(0.0, -0.41, 0.03)),
        j("Foot.R", 8, Vec3::new(0.0, -0.37, -0.03)),
    ])
    .unwrap();
    let map = crate::bone_map::HumanoidMap::detect(&skeleton);
    assert_eq!(map.pelvis, skeleton.find("Hips"));
    let foot_rig = FootRig::new(&skeleton, &map).unwrap();
    assert_eq!(Some(foot_rig.pelvis), skeleton.find("Body"));
    // A rig whose thighs hang from its pelvis keeps the pelvis (the mannequin).
    let m = Mannequin::new();
    let mannequin_rig = FootRig::new(&m.skeleton, &m.bones).unwrap();
    assert_eq!(Some(mannequin_rig.pelvis), m.bones.pelvis);

    let world = split_world(Some(-0.12), Some(-0.12));
    let mut ik = FootIk::new(FootIkConfig::default(), foot_rig);
    let (_, model) = hold_rest_pose_on(&mut ik, &skeleton, &world);
    let rest_model = skeleton.rest_model();
    for leg in &ik.rig().legs {
        let hip_drop = rest_model[leg.chain.thigh].translation.y
            - model.joints_model()[leg.chain.thigh].translation.y;
        assert!(hip_drop > 0.05, "the hip went down {hip_drop} m");
        let (heel, ball) = (
            model.point_model(leg.chain.foot, leg.sockets.heel_foot_local),
            model.point_model(leg.chain.foot, leg.sockets.ball_foot_local),
        );
        let sole = heel.y.min(ball.y);
        assert!(
            (sole + 0.12).abs() < 0.01,
            "sole at {sole} m, ground at -0.12 m"
        );
    }
}

#[test]
fn a_target_the_pelvis_made_reachable_is_reached_by_the_soft_solve() {
    // The default soft zone starts just under the pelvis's extension cap: a target at the
    // cap (straight below the hip) is reached within 0.06 % of the leg, and the knee keeps
    // a bend (a straight knee moves several times as far as its foot).
    let config = FootIkConfig::default();
    let cap = config.pelvis.max_leg_extension;
    assert!(
        config.soften < cap && cap < 1.0,
        "soften {} cap {cap}",
        config.soften
    );
    let (thigh_m, calf_m) = (0.42, 0.4);
    let leg_m = thigh_m + calf_m;
    let job = crate::ik::two_bone::TwoBoneIkJob {
        start_model: Vec3::new(0.0, 1.0, 0.0),
        mid_model: Vec3::new(0.0, 1.0 - thigh_m, 0.02),
        end_model: Vec3::new(0.0, 1.0 - leg_m, 0.0),
        target_model: Vec3::new(0.0, 1.0 - cap * leg_m, 0.0),
        pole_model: Vec3::Z,
        soften: config.soften,
        ..Default::default()
    };
    let out = job.run();
    let short_m = out.end_model.distance(job.target_model);
    assert!(short_m < 0.0006 * leg_m, "{short_m} m short of the target");
    let knee_forward_m = out.mid_model.z;
    assert!(
        knee_forward_m > 0.06,
        "knee {knee_forward_m} m in front of the hip-ankle line"
    );
}
