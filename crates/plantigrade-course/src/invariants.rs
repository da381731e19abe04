//! What holds of a character after every tick, whatever it was fed (random intents, NaN,
//! tick lengths of a second, teleports): nothing is NaN, no bone is stretched, no knee
//! flips, a planted foot stands on the ground, and the capsule's middle is not inside a
//! solid. The core's property test over the whole tick and the lab's `soak` check it.

use glam::Vec3;
use plantigrade::character::Character;
use plantigrade::skeleton::Skeleton;
use plantigrade::world::{QueryFilter, SpatialQueries};

/// How far (m) a bone may be from its rest length: foot IK turns joints, it does not
/// stretch them.
pub const BONE_STRETCH_MAX_M: f32 = 0.001;
/// How far (m) a planted foot's lower sole point may be from the ground.
pub const PLANTED_OFF_GROUND_MAX_M: f32 = 0.05;
/// How far (m) beside a sole point a support's edge may be for the point to stand on it.
pub const EDGE_REACH_M: f32 = 0.1;
/// How far down (m) the rays that find the ground under a point reach, from 1 m above it.
const GROUND_RAY_M: f32 = 3.0;

/// A skeleton's bone lengths at rest: each joint's distance from its parent, for the
/// joints two levels or more below the root (the root's children move with root motion
/// and the pelvis drop, and their offsets are not bones).
#[derive(Clone, Debug, PartialEq)]
pub struct RestBones {
    lengths_m: Vec<Option<f32>>,
}

impl RestBones {
    pub fn of(skeleton: &Skeleton) -> RestBones {
        let rest = skeleton.rest_model();
        let at = |j: usize| Vec3::from(rest[j].translation);
        let lengths_m = (0..skeleton.num_joints())
            .map(|j| {
                let parent = skeleton.parent(j)?;
                skeleton.parent(parent)?;
                Some(at(j).distance(at(parent)))
            })
            .collect();
        RestBones { lengths_m }
    }
}

/// What broke, in words a test failure or the soak prints.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Broken {
    #[error("not finite: {0}")]
    NotFinite(String),
    #[error("bone {parent} -> {joint} is {length_m} m long, {rest_m} m at rest")]
    Stretched {
        parent: String,
        joint: String,
        length_m: f32,
        rest_m: f32,
    },
    #[error("{0} knee flips")]
    KneeFlips(u32),
    #[error("planted foot {foot} is {off_m} m off the ground (heel and ball at {soles:?})")]
    FootOffGround {
        foot: usize,
        off_m: f32,
        soles: [Vec3; 2],
    },
    #[error("the capsule's middle {0} is inside a solid")]
    InsideGeometry(Vec3),
}

/// Checks `c` after a tick on `world` (whose rays are solid: one starting inside a
/// collider hits it at distance 0), with its skeleton's `bones`.
///
/// A planted foot is one the character stands on: grounded, locked, its contact and IK
/// weight full, not stepping. Its lower sole point must be within
/// [`PLANTED_OFF_GROUND_MAX_M`] of the ground under it, or of a support [`EDGE_REACH_M`]
/// beside it (a foot held level at an edge, not reaching down past it). Not judged: a
/// point over nothing at all (past the level's edge), and feet of a capsule with no ground
/// under its middle (held on an edge by its rim, sliding off).
pub fn check_character(
    c: &Character,
    world: &dyn SpatialQueries,
    bones: &RestBones,
) -> Result<(), Broken> {
    let feet = c.feet_world();
    if !feet.is_finite() {
        return Err(Broken::NotFinite(format!("feet at {feet}")));
    }
    let model = c.model_pose().joints_model();
    if let Some(j) = model.iter().position(|m| !m.is_finite()) {
        return Err(Broken::NotFinite(format!("joint {j}")));
    }
    let skeleton = c.graph().asset().skeleton();
    for (j, rest) in bones.lengths_m.iter().enumerate() {
        let (Some(rest_m), Some(parent)) = (*rest, skeleton.parent(j)) else {
            continue;
        };
        let length_m =
            Vec3::from(model[j].translation).distance(Vec3::from(model[parent].translation));
        if (length_m - rest_m).abs() > BONE_STRETCH_MAX_M {
            return Err(Broken::Stretched {
                parent: skeleton.name(parent).into(),
                joint: skeleton.name(j).into(),
                length_m,
                rest_m,
            });
        }
    }
    let middle = c.capsule().center_from_feet(feet);
    let inside = world.cast_ray(middle, Vec3::NEG_Y, 1.0, QueryFilter::GROUND);
    if inside.is_some_and(|hit| hit.distance_m <= 0.0) {
        return Err(Broken::InsideGeometry(middle));
    }
    let Ok(ik) = c.foot_ik() else {
        return Ok(());
    };
    let out = ik.output();
    if out.knee_flips > 0 {
        return Err(Broken::KneeFlips(out.knee_flips));
    }
    let off_ground = |p: Vec3, side: Vec3| {
        let from = p + side * EDGE_REACH_M + Vec3::Y;
        let hit = world.cast_ray(from, Vec3::NEG_Y, GROUND_RAY_M, QueryFilter::GROUND)?;
        Some((p.y - hit.point.y).abs())
    };
    let body_on_ground =
        off_ground(feet, Vec3::ZERO).is_some_and(|gap_m| gap_m <= PLANTED_OFF_GROUND_MAX_M);
    if !body_on_ground {
        return Ok(());
    }
    let contact = c.foot_contact();
    for (i, leg) in ik.rig().legs.iter().enumerate() {
        let report = &out.feet[i];
        let planted = c.output().vars.is_grounded
            && report.locked
            && report.ik_alpha >= 0.99
            && contact[i] >= 0.99
            && !report.stepping;
        if !planted {
            continue;
        }
        let soles = [leg.sockets.heel_foot_local, leg.sockets.ball_foot_local]
            .map(|socket| c.model_to_world(c.model_pose().point_model(leg.chain.foot, socket)));
        let lowest_off_m = soles
            .iter()
            .filter_map(|&p| {
                let under = off_ground(p, Vec3::ZERO)?;
                let beside = [Vec3::X, Vec3::NEG_X, Vec3::Z, Vec3::NEG_Z]
                    .into_iter()
                    .filter_map(|side| off_ground(p, side));
                Some(beside.fold(under, f32::min))
            })
            .reduce(f32::min);
        if let Some(off_m) = lowest_off_m.filter(|&off| off > PLANTED_OFF_GROUND_MAX_M) {
            return Err(Broken::FootOffGround {
                foot: i,
                off_m,
                soles,
            });
        }
    }
    Ok(())
}
