//! Pose continuity and strafing posture (the directional-locomotion issue, items 1 and 3).
//!
//! **Pops.** A pop is a joint that jumps: it moves in one tick far more than its motion
//! over the ticks around it leads to. Each joint's position in the character's root frame
//! (model space: feet at the origin, facing +Z) is differenced twice over consecutive ticks,
//! `|p(t+1) − 2p(t) + p(t−1)|` (cm; times f² it is the joint's acceleration). The threshold
//! comes from the authored clips: 1.5 × the largest second difference any joint shows in
//! any gait clip (walks, runs, the sprint, crouch walks: the clips with an authored speed)
//! played at its authored speed. A fast swing is therefore never a pop; a hand that
//! crosses 35 cm in one tick is.
//!
//! The clips are sampled at the run's rate, but never finer than 60 Hz. A jump in one tick
//! is the same distance at any rate while smooth motion differences shrink with the square
//! of the tick, so above 60 Hz the 60 Hz bar is kept: it stays the distance a pop must
//! jump, rather than shrinking until every kink of a keyed curve counts (at 144 Hz the
//! clips' own bar was 5.9 cm against 18 cm at 60 Hz).
//!
//! The root frame takes the controller's motion out, and with it one motion no one sees:
//! a capsule stepping up a riser (or snapping down one) moves the root several centimetres
//! in a tick while the pelvis offset keeps the body where it was in the world. Triples of
//! ticks in which the grounded root moved vertically faster than
//! `plantigrade::ik::PelvisConfig::step_speed_m_s` are not judged.
//!
//! **Crossed legs.** Along the body's lateral axis (the facing's left), the left ankle
//! should stay left of the right one. Crossing is a crossover step; people only cross over
//! with the hips turned into it. A tick counts as *crossed square* when the ankles are
//! crossed and the hips (the line between the thigh joints) are turned less than
//! [`HIPS_TURNED_DEG`] from the facing.

use glam::{Quat, Vec3};
use plantigrade::graph::GraphAsset;
use plantigrade::pose::local_to_model;
use plantigrade::{ModelPose, Pose};
use serde::{Deserialize, Serialize};

use crate::quality::TickSample;

/// A pop is a second difference above this many times the gait clips' largest.
pub const POP_THRESHOLD_SHARE: f32 = 1.5;
/// Hips turned at least this far from the facing make a crossover a crossover (deg).
pub const HIPS_TURNED_DEG: f32 = 30.0;

/// Clips are sampled for the pop threshold at most this often (Hz).
pub const POP_REFERENCE_HZ: f32 = 60.0;

/// The pop threshold of a graph's clips at one tick rate.
#[derive(Clone, Debug, PartialEq)]
pub struct PopThreshold {
    /// [`POP_THRESHOLD_SHARE`] × the largest joint second difference of any gait clip (cm).
    pub threshold_cm: f32,
    /// Where that largest acceleration is: clip and joint.
    pub clip: String,
    pub joint: String,
}

/// The pop threshold from `graph`'s gait clips sampled at `hz`, or at
/// [`POP_REFERENCE_HZ`] above it (see the module docs). `None` when the graph has no gait
/// clip.
pub fn pop_threshold(graph: &GraphAsset, hz: f32) -> Option<PopThreshold> {
    let hz = hz.min(POP_REFERENCE_HZ);
    let skeleton = graph.skeleton();
    let mut pose = Pose::rest(skeleton);
    let mut model = ModelPose::new(skeleton.num_joints());
    let mut best: Option<(f32, usize, usize)> = None;
    let dt = 1.0 / hz;
    for (c, clip) in graph.clips().iter().enumerate() {
        if clip.authored_speed_m_s().is_none_or(|v| v <= 0.0) || !clip.is_looping() {
            continue;
        }
        // Two extra samples so every tick of one cycle has both neighbours.
        let ticks = (clip.duration_s() * hz).ceil() as usize + 2;
        let mut positions: Vec<Vec<Vec3>> = Vec::with_capacity(ticks);
        for i in 0..ticks {
            if clip
                .sample(i as f32 * dt, skeleton.rest_local(), &mut pose)
                .is_err()
                || local_to_model(skeleton, &pose, &mut model).is_err()
            {
                break;
            }
            positions.push(
                (0..skeleton.num_joints())
                    .map(|j| model.position_model(j))
                    .collect(),
            );
        }
        for w in positions.windows(3) {
            for (j, ((&before, &now), &after)) in w[0].iter().zip(&w[1]).zip(&w[2]).enumerate() {
                let a = (after - 2.0 * now + before).length() * 100.0;
                if a.is_finite() && best.is_none_or(|(b, _, _)| a > b) {
                    best = Some((a, c, j));
                }
            }
        }
    }
    let (a, c, j) = best?;
    Some(PopThreshold {
        threshold_cm: POP_THRESHOLD_SHARE * a,
        clip: graph.clips()[c].name().to_string(),
        joint: skeleton.name(j).to_string(),
    })
}

/// Continuity and strafing figures of one run. Field names are the JSON keys.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ContinuityQuality {
    /// Joint-ticks whose second difference relative to the root is above the pop
    /// threshold.
    pub pop_count: u64,
    /// The largest joint second difference relative to the root over the run (cm), the
    /// threshold it is judged against, and when and where (skeleton index) it was.
    pub pop_worst_cm: f32,
    pub pop_threshold_cm: f32,
    pub pop_worst_time_s: f32,
    pub pop_worst_joint: u32,
    /// The pelvis's largest second difference in the world (cm), and when: what the root
    /// frame leaves out, a body carried along by its capsule's step (grounded ticks only).
    pub pelvis_world_worst_cm: f32,
    pub pelvis_world_worst_time_s: f32,
    /// Share of ticks with the ankles crossed along the body's lateral axis while the hips
    /// are turned less than [`HIPS_TURNED_DEG`] from the facing. 0..1.
    pub crossed_square_share: f32,
    /// Share of ticks with the ankles crossed, hips turned or not. 0..1.
    pub crossed_share: f32,
    /// The least ankle separation along the body's lateral axis, left minus right (cm;
    /// negative is crossed).
    pub ankle_lateral_min_cm: f32,
    /// How far the hips turned from the facing, largest over the run (deg).
    pub hips_turn_max_deg: f32,
}

/// The continuity figures of a run recorded at `hz`, pops judged against `threshold_cm`,
/// root steps faster than `step_speed_m_s` left out (see the module docs).
pub fn continuity_quality(
    samples: &[TickSample],
    hz: f32,
    threshold_cm: f32,
    step_speed_m_s: f32,
) -> ContinuityQuality {
    let mut q = ContinuityQuality {
        pop_threshold_cm: threshold_cm,
        ankle_lateral_min_cm: f32::INFINITY,
        ..ContinuityQuality::default()
    };
    let root_frame = |s: &TickSample| -> Vec<Vec3> {
        let to_root = facing_of(s).inverse();
        s.joints_world
            .iter()
            .map(|&p| to_root * (p - s.root_world))
            .collect()
    };
    let stepped = |a: &TickSample, b: &TickSample| {
        a.grounded && b.grounded && (b.root_world.y - a.root_world.y).abs() * hz > step_speed_m_s
    };
    let frames: Vec<Vec<Vec3>> = samples.iter().map(root_frame).collect();
    for i in 1..samples.len().saturating_sub(1) {
        if stepped(&samples[i - 1], &samples[i]) || stepped(&samples[i], &samples[i + 1]) {
            continue;
        }
        let (a, b, c) = (&frames[i - 1], &frames[i], &frames[i + 1]);
        if a.len() != b.len() || b.len() != c.len() {
            continue;
        }
        for j in 0..b.len() {
            let jump_cm = (c[j] - 2.0 * b[j] + a[j]).length() * 100.0;
            if !jump_cm.is_finite() {
                continue;
            }
            if jump_cm > q.pop_worst_cm {
                q.pop_worst_cm = jump_cm;
                q.pop_worst_time_s = samples[i].time_s;
                q.pop_worst_joint = j as u32;
            }
            if jump_cm > threshold_cm {
                q.pop_count += 1;
            }
        }
    }

    // The pelvis in the world: a capsule's step taken back by the body leaves it smooth; a
    // body carried along by the step jumps with it.
    for w in samples.windows(3) {
        if !w.iter().all(|s| s.grounded) {
            continue;
        }
        let jump_cm =
            (w[2].pelvis_world - 2.0 * w[1].pelvis_world + w[0].pelvis_world).length() * 100.0;
        if jump_cm.is_finite() && jump_cm > q.pelvis_world_worst_cm {
            q.pelvis_world_worst_cm = jump_cm;
            q.pelvis_world_worst_time_s = w[1].time_s;
        }
    }

    let (mut crossed, mut crossed_square) = (0usize, 0usize);
    for s in samples {
        let left = facing_of(s) * Vec3::X;
        let lateral_m = (s.feet[0].ankle_world - s.feet[1].ankle_world).dot(left);
        let hips_deg = s.hips_yaw_rad.to_degrees().abs();
        q.ankle_lateral_min_cm = q.ankle_lateral_min_cm.min(lateral_m * 100.0);
        q.hips_turn_max_deg = q.hips_turn_max_deg.max(hips_deg);
        if lateral_m < 0.0 {
            crossed += 1;
            if hips_deg < HIPS_TURNED_DEG {
                crossed_square += 1;
            }
        }
    }
    let n = samples.len().max(1) as f32;
    q.crossed_share = crossed as f32 / n;
    q.crossed_square_share = crossed_square as f32 / n;
    if !q.ankle_lateral_min_cm.is_finite() {
        q.ankle_lateral_min_cm = 0.0;
    }
    q
}

/// The facing of a sample as a yaw rotation (from its horizontal forward).
fn facing_of(s: &TickSample) -> Quat {
    Quat::from_rotation_y(s.forward_world.x.atan2(s.forward_world.z))
}

/// Yaw (rad, positive turns toward the left, +X of the facing) of the hips' lateral line
/// `left_thigh − right_thigh` away from the facing's left axis.
pub fn hips_yaw_rad(left_thigh_world: Vec3, right_thigh_world: Vec3, forward_world: Vec3) -> f32 {
    let across = left_thigh_world - right_thigh_world;
    let left = Vec3::new(forward_world.z, 0.0, -forward_world.x);
    // Turning left carries the left hip back (−forward) of the right one.
    let along_left = across.dot(left);
    let along_forward = across.dot(Vec3::new(forward_world.x, 0.0, forward_world.z));
    (-along_forward).atan2(along_left)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(t: f32, joints: Vec<Vec3>) -> TickSample {
        TickSample {
            time_s: t,
            forward_world: Vec3::Z,
            grounded: true,
            joints_world: joints,
            ..TickSample::default()
        }
    }

    #[test]
    fn a_jump_in_one_tick_is_a_pop_and_a_smooth_swing_is_not() {
        let hz = 60.0;
        // A joint swinging at 2 Hz over 0.3 m: peak acceleration 0.3·(4π)² ≈ 47 m/s², a
        // second difference of 1.3 cm at 60 Hz.
        let smooth: Vec<TickSample> = (0..120)
            .map(|i| {
                let t = i as f32 / hz;
                let x = 0.3 * (std::f32::consts::TAU * 2.0 * t).sin();
                sample(t, vec![Vec3::new(x, 1.0, 0.0)])
            })
            .collect();
        let q = continuity_quality(&smooth, hz, 3.0, 2.0);
        assert_eq!(q.pop_count, 0);
        assert!((q.pop_worst_cm - 1.32).abs() < 0.05, "{}", q.pop_worst_cm);
        // The same joint jumping 10 cm at tick 60: a 10 cm second difference twice (both
        // neighbouring second differences see it).
        let mut popped = smooth.clone();
        for s in popped.iter_mut().skip(60) {
            s.joints_world[0].y += 0.1;
        }
        let q = continuity_quality(&popped, hz, 3.0, 2.0);
        assert_eq!(q.pop_count, 2);
        assert!(
            (q.pop_worst_time_s - 1.0).abs() < 0.02,
            "{}",
            q.pop_worst_time_s
        );
    }

    #[test]
    fn a_capsule_step_is_not_a_pop() {
        let hz = 60.0;
        // The root steps up 15 cm in one tick; the joint stays where it was in the world,
        // so relative to the root it drops 15 cm: the step is left out.
        let samples: Vec<TickSample> = (0..20)
            .map(|i| {
                let mut s = sample(i as f32 / hz, vec![Vec3::new(0.0, 1.0, 0.0)]);
                if i >= 10 {
                    s.root_world.y = 0.15;
                }
                s
            })
            .collect();
        assert_eq!(continuity_quality(&samples, hz, 3.0, 2.0).pop_count, 0);
        // Without the rule it would count.
        assert_eq!(continuity_quality(&samples, hz, 3.0, 100.0).pop_count, 2);
        // The pelvis stayed where it was in the world: nothing there either.
        assert_eq!(
            continuity_quality(&samples, hz, 3.0, 2.0).pelvis_world_worst_cm,
            0.0
        );
    }

    #[test]
    fn a_body_carried_along_by_its_capsule_jumps_in_the_world() {
        let hz = 60.0;
        // Walking at 1.2 cm a tick; at tick 10 the capsule and the pelvis with it go 7 cm
        // on instead: a 5.8 cm second difference, twice, at ticks 9 and 10.
        let samples: Vec<TickSample> = (0..20)
            .map(|i| {
                let z = 0.012 * i as f32 + if i >= 10 { 0.058 } else { 0.0 };
                let pelvis = Vec3::new(0.0, 0.9, z);
                let mut s = sample(i as f32 / hz, vec![pelvis]);
                s.root_world.z = z;
                s.pelvis_world = pelvis;
                s
            })
            .collect();
        let q = continuity_quality(&samples, hz, 3.0, 2.0);
        assert!((q.pelvis_world_worst_cm - 5.8).abs() < 0.01, "{q:?}");
        assert!([9.0 / hz, 10.0 / hz].contains(&q.pelvis_world_worst_time_s));
        // The root frame does not see it: the pelvis goes with the root.
        assert!(q.pop_worst_cm < 1e-3, "{q:?}");
    }

    #[test]
    fn crossing_counts_only_with_square_hips() {
        let mut s = sample(0.0, Vec::new());
        // Left ankle 10 cm right of the right one: crossed.
        s.feet[0].ankle_world = Vec3::new(-0.05, 0.1, 0.0);
        s.feet[1].ankle_world = Vec3::new(0.05, 0.1, 0.0);
        let square = s.clone();
        let mut turned = s.clone();
        turned.hips_yaw_rad = 45f32.to_radians();
        let q = continuity_quality(&[square.clone(), turned], 60.0, 3.0, 2.0);
        assert_eq!(q.crossed_share, 1.0);
        assert_eq!(q.crossed_square_share, 0.5);
        assert!((q.ankle_lateral_min_cm + 10.0).abs() < 1e-4);
        assert!((q.hips_turn_max_deg - 45.0).abs() < 1e-3);
    }

    #[test]
    fn hips_yaw_is_signed_toward_the_left() {
        // Facing +Z, left is +X. Hips turned 30° left: the left thigh swings back (−Z).
        let turn = Quat::from_rotation_y(30f32.to_radians());
        let (l, r) = (
            turn * Vec3::new(0.1, 0.9, 0.0),
            turn * Vec3::new(-0.1, 0.9, 0.0),
        );
        let yaw = hips_yaw_rad(l, r, Vec3::Z);
        assert!(
            (yaw.to_degrees() - 30.0).abs() < 1e-3,
            "{}",
            yaw.to_degrees()
        );
        // The thighs the other way round: the hips face backward, 150° from the facing.
        let back = hips_yaw_rad(r, l, Vec3::Z).to_degrees();
        assert!((back.abs() - 150.0).abs() < 1e-3, "{back}");
    }
}

#[cfg(test)]
mod threshold_tests {
    use super::*;

    /// The mannequin's bar: a fast swing (the sprint's knee) sets it; above 60 Hz it
    /// stays the 60 Hz distance, below it rises with the coarser tick.
    #[test]
    fn the_threshold_comes_from_the_gait_clips() {
        let graph = plantigrade::mannequin::Mannequin::new()
            .default_graph()
            .expect("default graph");
        let at = |hz| pop_threshold(&graph, hz).expect("gait clips");
        let (t30, t60, t144) = (at(30.0), at(60.0), at(144.0));
        assert_eq!(t60, t144);
        assert!(t30.threshold_cm > t60.threshold_cm);
        assert!((5.0..40.0).contains(&t60.threshold_cm), "{:?}", t60);
    }
}
