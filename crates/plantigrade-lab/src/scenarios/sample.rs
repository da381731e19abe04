//! Reading a character into a [`TickSample`] each tick, with the true slope under it from
//! the analytic course.

use glam::{Quat, Vec3};
use plantigrade::bone_map::BoneNames;
use plantigrade::character::Character;
use plantigrade::graph::GraphAsset;
use plantigrade_course::Course;

use crate::quality::{FootSample, TickSample};

/// The true slope under `root` along and across the facing (rad), from the analytic
/// course: the plane normal on ramps and cross-slopes, and on stairs the flight's slope
/// (heights two treads ahead and behind: a window of whole treads sees the nosing line,
/// not the risers). `None` where the ground is not a plane (bumps) or off the course.
fn ground_truth(course: &Course, root: Vec3, yaw: f32) -> (Option<f32>, Option<f32>) {
    let forward = Vec3::new(yaw.sin(), 0.0, yaw.cos());
    let left = Vec3::new(forward.z, 0.0, -forward.x);
    let at = |p: Vec3| course.ground_height(p.x, p.z);
    let window = 0.56;
    let (Some(ahead), Some(behind), Some(here)) = (
        at(root + forward * window),
        at(root - forward * window),
        at(root),
    ) else {
        return (None, None);
    };
    let (Some(l), Some(r)) = (at(root + left * 0.3), at(root - left * 0.3)) else {
        return (None, None);
    };
    let Some(normal) = course.ground_normal(root.x, root.z) else {
        return (None, None);
    };
    let planar = |h: f32, d: Vec3, dist: f32| {
        // Heights the plane through `here` with `normal` predicts `dist` along `d`.
        here - (normal.x * d.x + normal.z * d.z) * dist / normal.y - h
    };
    let is_plane = [
        planar(ahead, forward, window),
        planar(behind, -forward, window),
        planar(l, left, 0.3),
        planar(r, -left, 0.3),
    ]
    .iter()
    .all(|e| e.abs() < 0.005);
    if is_plane {
        let tilt = plantigrade::tilt::decompose_ground_normal(
            normal,
            yaw,
            &plantigrade::tilt::TiltLimits::default(),
        );
        return (
            Some(tilt.unclamped_pitch_rad),
            Some(tilt.unclamped_roll_rad),
        );
    }
    // Stairs: level across, a constant rise along.
    if (l - r).abs() < 0.005 && normal.y > 0.999 && (ahead - behind).abs() > 0.1 {
        return (Some(((ahead - behind) / (2.0 * window)).atan()), Some(0.0));
    }
    (None, None)
}

/// Thigh, calf and foot joints, heel and ball sockets (foot-local) of one leg.
type SampledLeg = (usize, usize, usize, Vec3, Vec3);

/// Reads the feet, pelvis and IK report of a character into a [`TickSample`].
pub(crate) struct Sampler {
    pelvis: Option<usize>,
    neck: Option<usize>,
    head: Option<usize>,
    legs: Option<[SampledLeg; 2]>,
}

impl Sampler {
    /// The joints of `graph`'s skeleton by `bone_map` (detected when `None`; a map that
    /// does not fit never gets here: the character refuses to spawn with it).
    pub(crate) fn new(graph: &GraphAsset, bone_map: Option<&BoneNames>) -> Sampler {
        let skeleton = graph.skeleton();
        let map = match bone_map {
            Some(names) => plantigrade::HumanoidMap::from_names(skeleton, names)
                .unwrap_or_else(|_| plantigrade::HumanoidMap::detect(skeleton)),
            None => plantigrade::HumanoidMap::detect(skeleton),
        };
        let legs = plantigrade::Side::BOTH.map(|side| {
            let leg = map.leg(side).ok()?;
            let sockets = map.feet[side.index()]?;
            Some((
                leg.thigh,
                leg.calf,
                leg.foot,
                sockets.heel_foot_local,
                sockets.ball_foot_local,
            ))
        });
        Sampler {
            pelvis: map.pelvis,
            neck: map.neck.or(map.spine.last().copied()),
            head: map.head,
            legs: match legs {
                [Some(l), Some(r)] => Some([l, r]),
                _ => None,
            },
        }
    }

    pub(crate) fn sample(&self, c: &Character, course: &Course, t: f32, state: &str) -> TickSample {
        let model = c.model_pose();
        let facing = c.facing_world();
        let ik = c.foot_ik_output().copied().unwrap_or_default();
        let mut sample = TickSample {
            forward_world: facing * Vec3::Z,
            joints_world: (0..model.joints_model().len())
                .map(|j| c.model_to_world(model.position_model(j)))
                .collect(),
            torso_lean_anim_rad: c.torso_lean_anim_rad(),
            lean_pitch_rad: c.lean_output().pitch_rad,
            time_s: t,
            state: state.to_string(),
            root_world: c.feet_world(),
            grounded: c.output().vars.is_grounded,
            reach_clamps: ik.reach_clamps,
            non_finite: !c.feet_world().is_finite()
                || !model.joints_model().iter().all(|m| m.is_finite()),
            ..TickSample::default()
        };
        if let Some(pelvis) = self.pelvis {
            let (_, rotation, translation) =
                model.joints_model()[pelvis].to_scale_rotation_translation();
            sample.pelvis_world = c.model_to_world(translation);
            sample.pelvis_rotation_world = facing * rotation;
        } else {
            sample.pelvis_rotation_world = Quat::IDENTITY;
        }
        if let Some(neck) = self.neck {
            sample.neck_world = c.model_to_world(model.position_model(neck));
        }
        if let Some(head) = self.head {
            sample.head_world = c.model_to_world(model.position_model(head));
        }
        if let Some(t) = c.tilt_output() {
            sample.tilt_pitch_rad = t.pitch_rad;
            sample.tilt_roll_rad = t.roll_rad;
        }
        let (pitch, roll) = ground_truth(course, c.feet_world(), c.facing_yaw_rad());
        sample.ground_pitch_rad = pitch;
        sample.ground_roll_rad = roll;
        // What the procedural pass did to the head's pitch (the animation's is 0 here).
        if let Some(head) = self.head {
            let (_, now, _) = model.joints_model()[head].to_scale_rotation_translation();
            let delta = now * c.head_rotation_anim_model().inverse();
            let forward = delta * Vec3::Z;
            sample.head_pitch_world_rad = forward.y.atan2(forward.x.hypot(forward.z));
            sample.head_pitch_anim_rad = 0.0;
        }
        let Some(legs) = self.legs else {
            return sample;
        };
        let [left_thigh, right_thigh] =
            legs.map(|leg| c.model_to_world(model.position_model(leg.0)));
        sample.hips_yaw_rad =
            crate::continuity::hips_yaw_rad(left_thigh, right_thigh, sample.forward_world);
        for (i, &(thigh, calf, foot, heel, ball)) in legs.iter().enumerate() {
            let heel_world = c.model_to_world(model.point_model(foot, heel));
            let ball_world = c.model_to_world(model.point_model(foot, ball));
            let report = ik.feet[i];
            sample.feet[i] = FootSample {
                knee_world: c.model_to_world(model.position_model(calf)),
                ankle_world: c.model_to_world(model.position_model(foot)),
                heel_world,
                ball_world,
                ground_under_heel_m: course.ground_height(heel_world.x, heel_world.z),
                ground_under_ball_m: course.ground_height(ball_world.x, ball_world.z),
                ground_under_mid_m: {
                    let mid = 0.5 * (heel_world + ball_world);
                    course.ground_height(mid.x, mid.z)
                },
                heel_depth_m: course.depth_below_surface_m(heel_world),
                ball_depth_m: course.depth_below_surface_m(ball_world),
                contact: c.foot_contact()[i],
                ik_alpha: report.ik_alpha,
                predicted_landing_world: report.predicted_world,
                heel_probe_hit: report.heel_hit,
                toe_probe_hit: report.toe_hit,
                locked: report.locked,
                stepping: report.stepping,
            };
            // A knee flip, measured here rather than trusted from the solver: a knee is a
            // hinge about the character's left axis, so thigh × shin points left (+X in
            // model space) when it bends the right way; pointing right by more than ~3° of
            // bend is a flip. Straight legs (cross ≈ 0) are not.
            let thigh_dir = model.position_model(calf) - model.position_model(thigh);
            let shin_dir = model.position_model(foot) - model.position_model(calf);
            let bend = thigh_dir.cross(shin_dir);
            if bend.x < -0.05 * thigh_dir.length() * shin_dir.length() {
                sample.knee_flips += 1;
            }
        }
        sample
    }
}
