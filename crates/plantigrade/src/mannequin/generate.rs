//! The built-in clip set authored on any humanoid rig (issue 22, item 1).
//!
//! The authoring code (gaits, poses, turns) is tuned at the mannequin's scale and drives a
//! skeleton of the mannequin's shape: identity rest rotations, legs hanging straight down,
//! arms straight out. So the set is authored on a *proxy*: a skeleton of that shape with
//! the rig's own proportions ([`Proportions::measure`]: hip width and height, thigh and
//! shin lengths, foot sockets, spine, neck, head and shoulders where the rig has them),
//! scaled so its legs are as long as the mannequin's. The proxy's clips are then
//! retargeted onto the rig ([`Retarget`]): joint turns carried over through both bone
//! maps onto the rig's rest frames (its bones may point along any axes, its arms rest in
//! an A-pose), its thighs and shins turned to the proxy's straight rest, the pelvis's
//! moves and the authored speeds scaled back to the rig's leg length. As the proxy has the
//! rig's proportions, a planted foot of the proxy is a planted foot of the rig: the feet
//! land where the rig's own sockets are, at the rig's scale.
//!
//! The mannequin is one rig among others: measured, its proxy is its own skeleton.

use glam::{Quat, Vec3};

use super::rig::Rig;
use super::skeleton::{skeleton_with, Proportions};
use crate::bone_map::{FootSockets, HumanoidMap, Side};
use crate::clip::Clip;
use crate::graph::{GraphAsset, GraphDef, GraphLoadError};
use crate::retarget::{rest_frame, Retarget, RetargetError};
use crate::skeleton::Skeleton;

/// Rate (Hz) the proxy's clips are resampled at for the rig: the fastest gait's key rate
/// (the sprint keys at 180 Hz), so planted feet stay planted between samples as they do
/// on the proxy.
pub const GENERATED_SAMPLE_HZ: f32 = 180.0;

/// Why the clip set cannot be authored on a rig.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GenerateError {
    #[error("the rig has no {0} in its bone map")]
    MissingRole(&'static str),
    #[error("the rig's {0} foot has no sockets (heel and ball on the sole)")]
    NoFootSockets(&'static str),
    #[error("the rig's {what} measures {value_m} m: {why}")]
    BadProportion {
        what: &'static str,
        value_m: f32,
        why: &'static str,
    },
    #[error("the proxy skeleton built for the rig cannot be authored on: {0}")]
    Proxy(&'static str),
    #[error(transparent)]
    Retarget(#[from] RetargetError),
}

/// The clip set authored for one rig: the clips (the mannequin's names and order, see
/// [`super::clip_names`]) and the proxy they were authored on.
#[derive(Clone, Debug)]
pub struct GeneratedClips {
    pub clips: Vec<Clip>,
    /// The rig's proportions the proxy was built with (normalised to the mannequin's leg).
    pub proportions: Proportions,
    /// The rig's leg length over the proxy's (the mannequin's): speeds scale by it.
    pub scale: f32,
    /// The proxy's clips onto the rig (`None`: the rig is its own proxy).
    retarget: Option<Retarget>,
}

impl GeneratedClips {
    /// The rig's name for the proxy's (the mannequin's) joint `name`, if it has one.
    pub fn rig_joint_name<'a>(&'a self, name: &'a str) -> Option<&'a str> {
        match &self.retarget {
            Some(retarget) => retarget.target_name(name),
            None => Some(name),
        }
    }

    /// The default graph ([`super::DEFAULT_GRAPH_RON`]) for the rig: its aim layer's mask
    /// names the rig's joints (a joint the rig has no match for is left out), and its
    /// speeds are the clips' (× [`Self::scale`]).
    pub fn default_graph_def(&self) -> Result<GraphDef, GraphLoadError> {
        super::default_graph_def_on_rig(self.scale, |name| {
            self.rig_joint_name(name).map(str::to_owned)
        })
    }

    /// The default graph compiled on `skeleton` (the rig the clips were generated for).
    pub fn default_graph(&self, skeleton: &Skeleton) -> Result<GraphAsset, GraphLoadError> {
        GraphAsset::from_def(&self.default_graph_def()?, skeleton, self.clips.clone())
    }
}

/// Authors the full built-in clip set (idle, 8-way walks and runs, sprint, crouch, jumps,
/// landings, push, aim, turns; see [`super::clip_names`]) on `skeleton`, whose humanoid
/// joints are `map` (with foot sockets). Clips carry contact curves, footstep events and
/// authored speeds scaled to the rig's leg length.
pub fn generate_clips(
    skeleton: &Skeleton,
    map: &HumanoidMap,
) -> Result<GeneratedClips, GenerateError> {
    let map = &driving_map(skeleton, map);
    let proportions = Proportions::measure(skeleton, map)?;
    let proxy = skeleton_with(&proportions);
    let mut proxy_map = HumanoidMap::detect(&proxy);
    if let Some([ball, heel]) = proportions.sockets {
        for side in Side::BOTH {
            let mirror = Vec3::new(if side == Side::Left { 1.0 } else { -1.0 }, 1.0, 1.0);
            let (ball, heel) = (ball * mirror, heel * mirror);
            proxy_map = proxy_map.with_foot_sockets(
                side,
                FootSockets {
                    heel_foot_local: heel,
                    ball_foot_local: ball,
                    mid_foot_local: 0.5 * (heel + ball),
                },
            );
        }
    }
    if Rig::new(&proxy, &proxy_map).is_none() {
        return Err(GenerateError::Proxy(
            "it is not shaped like the mannequin (a bug in the proportions)",
        ));
    }
    if is_same_skeleton(&proxy, skeleton) && Rig::new(skeleton, map).is_some() {
        // The rig is its own proxy: authored on it directly (the mannequin's own clips).
        let authored = super::clips::author_all(skeleton, map)
            .map_err(|_| GenerateError::Proxy("a key could not be authored"))?;
        return Ok(GeneratedClips {
            clips: authored.into_iter().map(|a| a.clip).collect(),
            proportions,
            scale: 1.0,
            retarget: None,
        });
    }
    let authored = super::clips::author_all(&proxy, &proxy_map)
        .map_err(|_| GenerateError::Proxy("a key could not be authored"))?;
    let proxy_clips: Vec<Clip> = authored.into_iter().map(|a| a.clip).collect();
    let retarget = proxy_to_rig(&proxy, &proxy_map, skeleton, map, true)?;
    let to_rig = retarget.scale();
    let clips = proxy_clips
        .iter()
        .map(|clip| retarget.clip(clip, GENERATED_SAMPLE_HZ))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(GeneratedClips {
        clips,
        proportions,
        scale: to_rig,
        retarget: Some(retarget),
    })
}

/// The retarget from the proxy (`proxy`, `proxy_map`) onto the rig (`skeleton`, `map`, the
/// driving map): scaled by the ratio of the legs as measured for the proxy, the pelvis
/// placed as the proxy's is over the ground, and (with `leg_fix`) the rig's thighs and
/// shins turned to the proxy's straight rest.
fn proxy_to_rig(
    proxy: &Skeleton,
    proxy_map: &HumanoidMap,
    skeleton: &Skeleton,
    map: &HumanoidMap,
    leg_fix: bool,
) -> Result<Retarget, GenerateError> {
    let to_rig = measure_scale(skeleton, map)?;
    let frame = rest_frame(skeleton, map, "rig")?;
    let rig_pelvis = canonical_pelvis(skeleton, map, frame.rotation)?;
    // The proxy's rest pelvis stands with straight legs; the rig's may rest lower (bent
    // knees): the difference (proxy metres) moves every pose, so the rig's pelvis is the
    // proxy's scaled, measured from the ground between the hips.
    let proxy_pelvis = proxy_map
        .pelvis
        .map_or(Vec3::ZERO, |p| proxy.rest_position_model(p));
    let pelvis_offset = proxy_pelvis - rig_pelvis / to_rig;
    // The proxy is built to the rig's proportions: its joint turns land the rig's feet
    // already, and the pelvis offset, not a leg bend, makes up the rest heights.
    let retarget = Retarget::new(proxy, proxy_map, skeleton, map)?
        .without_leg_reach()
        .with_scale(to_rig)
        .with_pelvis_offset(pelvis_offset);
    Ok(if leg_fix {
        retarget.with_leg_rest_fix(proxy_map, map)
    } else {
        retarget
    })
}

/// The map the proxy drives the rig through: `map`, except on a rig whose thighs hang
/// from a joint above its pelvis (Quaternius: `Body → Hips` and `Body → UpperLeg.L`), where
/// that joint takes the pelvis's part (it carries the legs and the trunk) and the mapped
/// pelvis becomes the spine's first joint. Driving the mapped pelvis alone left the legs
/// at rest height while the trunk bobbed.
fn driving_map(skeleton: &Skeleton, map: &HumanoidMap) -> HumanoidMap {
    let thigh_parent = |side: Side| {
        map.legs[side.index()]
            .thigh
            .and_then(|t| skeleton.parent(t))
    };
    let (Some(pelvis), Some(left), Some(right)) = (
        map.pelvis,
        thigh_parent(Side::Left),
        thigh_parent(Side::Right),
    ) else {
        return map.clone();
    };
    let above_pelvis = left == right
        && left != pelvis
        && std::iter::successors(skeleton.parent(pelvis), |&j| skeleton.parent(j))
            .any(|j| j == left);
    if !above_pelvis {
        return map.clone();
    }
    let mut driving = map.clone();
    driving.pelvis = Some(left);
    driving.spine.insert(0, pelvis);
    driving
}

/// Same joints (names, parents) and rest poses to 10 µm (and 10 µrad): retargeting
/// between them would change nothing.
fn is_same_skeleton(a: &Skeleton, b: &Skeleton) -> bool {
    a.num_joints() == b.num_joints()
        && (0..a.num_joints()).all(|j| {
            let (ra, rb) = (&a.rest_local()[j], &b.rest_local()[j]);
            a.name(j) == b.name(j)
                && a.parent(j) == b.parent(j)
                && ra.translation.abs_diff_eq(rb.translation, 1e-5)
                && ra.rotation.abs_diff_eq(rb.rotation, 1e-5)
                && ra.scale.abs_diff_eq(rb.scale, 1e-5)
        })
}

/// The rig's legs over the mannequin's (thigh plus shin, mean of both sides).
fn measure_scale(skeleton: &Skeleton, map: &HumanoidMap) -> Result<f32, GenerateError> {
    let legs = Side::BOTH.map(|side| leg_lengths(skeleton, map, side));
    let mut sum = 0.0;
    for leg in legs {
        let (thigh, calf) = leg?;
        sum += thigh + calf;
    }
    Ok(0.5 * sum / Proportions::mannequin().leg_m())
}

/// Thigh and shin lengths of one leg at rest (m).
fn leg_lengths(
    skeleton: &Skeleton,
    map: &HumanoidMap,
    side: Side,
) -> Result<(f32, f32), GenerateError> {
    let leg = map
        .leg(side)
        .map_err(|_| GenerateError::MissingRole(leg_role(side)))?;
    let at = |j: usize| skeleton.rest_position_model(j);
    Ok((
        at(leg.thigh).distance(at(leg.calf)),
        at(leg.calf).distance(at(leg.foot)),
    ))
}

fn leg_role(side: Side) -> &'static str {
    match side {
        Side::Left => "left leg (thigh, calf, foot)",
        Side::Right => "right leg (thigh, calf, foot)",
    }
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Left => "left",
        Side::Right => "right",
    }
}

/// The rig's rest pelvis in the canonical frame (+X left, +Y up, +Z forward) measured
/// from the ground between the hips (the mean height of the ball sockets), in the rig's
/// metres.
fn canonical_pelvis(
    skeleton: &Skeleton,
    map: &HumanoidMap,
    frame: Quat,
) -> Result<Vec3, GenerateError> {
    let measure = Measure::new(skeleton, map, frame)?;
    Ok(measure.at(measure.pelvis))
}

/// Rest positions of a rig in its canonical frame, from the ground between its hips.
struct Measure<'a> {
    skeleton: &'a Skeleton,
    to_canonical: Quat,
    origin: Vec3,
    pelvis: usize,
}

impl<'a> Measure<'a> {
    fn new(skeleton: &'a Skeleton, map: &HumanoidMap, frame: Quat) -> Result<Self, GenerateError> {
        let to_canonical = frame.inverse();
        let pelvis = map.pelvis.ok_or(GenerateError::MissingRole("pelvis"))?;
        let (mut sole_y, mut hips) = (0.0, Vec3::ZERO);
        for side in Side::BOTH {
            sole_y += 0.5 * socket_canonical(skeleton, map, to_canonical, side)?[0].y;
            let thigh = map.legs[side.index()]
                .thigh
                .ok_or(GenerateError::MissingRole(leg_role(side)))?;
            hips += 0.5 * (to_canonical * skeleton.rest_position_model(thigh));
        }
        Ok(Self {
            skeleton,
            to_canonical,
            origin: Vec3::new(hips.x, sole_y, hips.z),
            pelvis,
        })
    }

    /// Joint `joint`'s rest position.
    fn at(&self, joint: usize) -> Vec3 {
        self.to_canonical * self.skeleton.rest_position_model(joint) - self.origin
    }

    /// Joint `joint` on `side` as a left-side position (the right's X mirrored).
    fn left(&self, joint: usize, side: Side) -> Vec3 {
        mirror(side, self.at(joint))
    }
}

fn mirror(side: Side, p: Vec3) -> Vec3 {
    match side {
        Side::Left => p,
        Side::Right => Vec3::new(-p.x, p.y, p.z),
    }
}

/// Ball and heel sockets of `side`'s foot at rest, canonical frame (not yet from the
/// ground), as model-space points.
fn socket_canonical(
    skeleton: &Skeleton,
    map: &HumanoidMap,
    to_canonical: Quat,
    side: Side,
) -> Result<[Vec3; 2], GenerateError> {
    let leg = map
        .leg(side)
        .map_err(|_| GenerateError::MissingRole(leg_role(side)))?;
    let sockets = map.feet[side.index()].ok_or(GenerateError::NoFootSockets(side_name(side)))?;
    let foot = skeleton.rest_model()[leg.foot];
    Ok([sockets.ball_foot_local, sockets.heel_foot_local]
        .map(|p| to_canonical * foot.transform_point3(p)))
}

impl Proportions {
    /// A rig's proportions, measured from its rest pose through its bone map (pelvis,
    /// both legs and foot sockets required; spine, neck, head and arms where it has them,
    /// the mannequin's otherwise), in its own frame (left across the hips, up from the
    /// feet), symmetrised (left and mirrored right averaged) and scaled so the legs are
    /// as long as the mannequin's. The pelvis stands where straight legs put the soles on
    /// the ground.
    pub fn measure(skeleton: &Skeleton, map: &HumanoidMap) -> Result<Self, GenerateError> {
        let map = &driving_map(skeleton, map);
        let frame = rest_frame(skeleton, map, "rig")?;
        let m = Measure::new(skeleton, map, frame.rotation)?;
        let mannequin = Self::mannequin();
        let legs = Side::BOTH.map(|side| map.leg(side));
        let [Ok(left_leg), Ok(right_leg)] = legs else {
            return Err(GenerateError::MissingRole("leg (thigh, calf, foot)"));
        };
        let mean = |f: &dyn Fn(Side, &crate::bone_map::LegChain) -> Vec3| {
            0.5 * (f(Side::Left, &left_leg) + f(Side::Right, &right_leg))
        };
        let (mut thigh_m, mut calf_m) = (0.0, 0.0);
        for side in Side::BOTH {
            let (thigh, calf) = leg_lengths(skeleton, map, side)?;
            thigh_m += 0.5 * thigh;
            calf_m += 0.5 * calf;
        }
        let rig_leg_m = thigh_m + calf_m;
        if !(rig_leg_m.is_finite() && rig_leg_m > 1e-4) {
            return Err(GenerateError::BadProportion {
                what: "leg",
                value_m: rig_leg_m,
                why: "it must be longer than 0.1 mm",
            });
        }
        let s = mannequin.leg_m() / rig_leg_m;
        let pelvis = m.at(m.pelvis);
        let hip = s * (mean(&|side, leg| m.left(leg.thigh, side)) - pelvis);
        let ankle = mean(&|side, leg| m.left(leg.foot, side));
        let sockets = Side::BOTH.map(|side| socket_canonical(skeleton, map, m.to_canonical, side));
        let [Ok(left_sockets), Ok(right_sockets)] = sockets else {
            return Err(GenerateError::NoFootSockets("left or right"));
        };
        let socket = |k: usize| {
            let left = left_sockets[k] - m.origin;
            let right = mirror(Side::Right, right_sockets[k] - m.origin);
            s * (0.5 * (left + right) - ankle)
        };
        let (ball_socket, heel_socket) = (socket(0), socket(1));
        let ball = match (left_leg.ball, right_leg.ball) {
            (Some(l), Some(r)) => {
                s * (0.5 * (m.left(l, Side::Left) + m.left(r, Side::Right)) - ankle)
            }
            // No toe joint: one above the ball socket, as high as the mannequin's over
            // its ankle height.
            _ => ball_socket + Vec3::Y * (0.375 * -ball_socket.y),
        };
        let (thigh_m, calf_m) = (s * thigh_m, s * calf_m);
        // The pelvis over the ground with the legs straight and the soles flat.
        let pelvis_height = thigh_m + calf_m - hip.y - ball_socket.y;

        // Spine: three joints where the rig's sit (the rig's k-th of n pairs with the
        // proxy's round(2k / (n - 1)), as the retarget pairs them), the ones it has no
        // joint for spaced between their neighbours.
        let neck_at = map.neck.map(|j| s * (m.at(j) - pelvis));
        let head_at = map.head.map(|j| s * (m.at(j) - pelvis));
        let neck_at = neck_at
            .or_else(|| head_at.map(|h| h - mannequin.head))
            .unwrap_or_else(mannequin_neck);
        let head_at = head_at.unwrap_or(neck_at + mannequin.head);
        let mut spine_at: [Option<Vec3>; 3] = [None; 3];
        let n = map.spine.len();
        for (k, &joint) in map.spine.iter().enumerate() {
            let along = if n > 1 {
                k as f32 / (n - 1) as f32
            } else {
                1.0
            };
            let slot = (along * 2.0).round() as usize;
            if spine_at[slot].is_none() {
                spine_at[slot] = Some(s * (m.at(joint) - pelvis));
            }
        }
        let spine_at = fill_between(Vec3::ZERO, spine_at, neck_at);
        // Arms: the shoulder (the joint each arm hangs from) and the arm's lengths.
        let arm = arm_measure(skeleton, map, &m, s, pelvis);
        let (clavicle_at, shoulder_at, upperarm_m, lowerarm_m) = match arm {
            Some(arm) => arm,
            None => (
                spine_at[2] + mannequin.clavicle,
                spine_at[2] + mannequin.clavicle + mannequin.shoulder,
                mannequin.upperarm_m,
                mannequin.lowerarm_m,
            ),
        };
        let proportions = Self {
            // Over the ground between the hips, as far ahead of them as the rig's.
            pelvis: Vec3::new(0.0, pelvis_height, s * pelvis.z),
            spine: [
                spine_at[0],
                spine_at[1] - spine_at[0],
                spine_at[2] - spine_at[1],
            ],
            neck: neck_at - spine_at[2],
            head: head_at - neck_at,
            clavicle: clavicle_at - spine_at[2],
            shoulder: shoulder_at - clavicle_at,
            upperarm_m,
            lowerarm_m,
            hand_scale: lowerarm_m / mannequin.lowerarm_m,
            hip,
            thigh_m,
            calf_m,
            ball,
            sockets: Some([ball_socket, heel_socket]),
        };
        proportions.check()?;
        Ok(proportions)
    }

    /// Lengths the authoring cannot work with.
    fn check(&self) -> Result<(), GenerateError> {
        let bad = |what, value_m: f32, why| GenerateError::BadProportion { what, value_m, why };
        for (what, value) in [
            ("thigh", self.thigh_m),
            ("shin", self.calf_m),
            ("upper arm", self.upperarm_m),
            ("forearm", self.lowerarm_m),
        ] {
            if !(value.is_finite() && value > 1e-3) {
                return Err(bad(what, value, "it must be longer than a millimetre"));
            }
        }
        if self.hip.x <= 1e-3 {
            return Err(bad(
                "hip's distance from the midline",
                self.hip.x,
                "the left hip must be left of the pelvis",
            ));
        }
        if let Some([ball, heel]) = self.sockets {
            if ball.z <= heel.z {
                return Err(bad(
                    "ball socket's distance ahead of the heel socket",
                    ball.z - heel.z,
                    "the ball must be ahead of the heel",
                ));
            }
            if ball.y >= 0.0 {
                return Err(bad(
                    "ankle's height over the sole",
                    -ball.y,
                    "the ankle must be above the sole",
                ));
            }
        }
        Ok(())
    }
}

/// The mannequin's neck position relative to its pelvis (for rigs without neck or head).
fn mannequin_neck() -> Vec3 {
    let m = Proportions::mannequin();
    m.spine[0] + m.spine[1] + m.spine[2] + m.neck
}

/// Spine slots with gaps filled: each missing one spaced evenly between the nearest known
/// positions below (the pelvis, `base`) and above (the neck, `top`).
fn fill_between(base: Vec3, slots: [Option<Vec3>; 3], top: Vec3) -> [Vec3; 3] {
    // Points along the chain: base at 0, slots at 1..=3, top at 4.
    let mut known: Vec<(usize, Vec3)> = vec![(0, base)];
    for (k, slot) in slots.iter().enumerate() {
        if let Some(p) = slot {
            known.push((k + 1, *p));
        }
    }
    known.push((4, top));
    let mut out = [Vec3::ZERO; 3];
    for (k, out) in out.iter_mut().enumerate() {
        let i = k + 1;
        if let Some(p) = slots[k] {
            *out = p;
            continue;
        }
        let below = known.iter().rev().find(|(j, _)| *j < i).copied();
        let above = known.iter().find(|(j, _)| *j > i).copied();
        *out = match (below, above) {
            (Some((a, pa)), Some((b, pb))) => pa.lerp(pb, (i - a) as f32 / (b - a) as f32),
            _ => base.lerp(top, i as f32 / 4.0),
        };
    }
    out
}

/// Clavicle and shoulder positions (left side, from the pelvis, scaled) and the upper arm
/// and forearm lengths, averaged over both arms; `None` without two complete arms.
fn arm_measure(
    skeleton: &Skeleton,
    map: &HumanoidMap,
    m: &Measure,
    s: f32,
    pelvis: Vec3,
) -> Option<(Vec3, Vec3, f32, f32)> {
    let mut sum = (Vec3::ZERO, Vec3::ZERO, 0.0, 0.0);
    for side in Side::BOTH {
        let arm = map.arm(side)?;
        let at = |j: usize| s * (m.left(j, side) - mirror(side, pelvis));
        let shoulder = at(arm.upperarm);
        let clavicle = crate::retarget::shoulder(skeleton, map, side)
            .map(at)
            // No joint of its own: one inward of the shoulder, as the mannequin's.
            .unwrap_or(shoulder - Proportions::mannequin().shoulder);
        sum.0 += 0.5 * clavicle;
        sum.1 += 0.5 * shoulder;
        sum.2 += 0.5 * at(arm.upperarm).distance(at(arm.lowerarm));
        sum.3 += 0.5 * at(arm.lowerarm).distance(at(arm.hand));
    }
    Some(sum)
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;
    use crate::clip_analysis::{analyze_gait, GaitAnalysisConfig};
    use crate::mannequin::{clip_names, Mannequin};
    use crate::skeleton::{Joint, Transform};

    /// `skeleton` with its rest pose turned as `turns` says (joint name, local turn), the
    /// pelvis lowered so the ankles stay where they were (feet on the floor), then every
    /// joint given an arbitrary rest rotation (children's offsets turned to match), scaled
    /// by `scale` and turned by `facing`: the same body and rest posture, other bone axes.
    fn reshaped(skeleton: &Skeleton, turns: &[(&str, Quat)], scale: f32, facing: Quat) -> Skeleton {
        let mut local = skeleton.rest_local().to_vec();
        for &(name, turn) in turns {
            let j = skeleton.find(name).unwrap();
            local[j].rotation = turn * local[j].rotation;
        }
        let ankle = skeleton.find("foot_l").unwrap();
        let ankle_y = |local: &[Transform]| {
            let mut model = vec![Transform::IDENTITY; local.len()];
            for j in 0..local.len() {
                model[j] = match skeleton.parent(j) {
                    Some(p) => model[p].mul_transform(&local[j]),
                    None => local[j],
                };
            }
            model[ankle].translation.y
        };
        let rise = ankle_y(&local) - ankle_y(skeleton.rest_local());
        let pelvis = skeleton.find("pelvis").unwrap();
        local[pelvis].translation.y -= rise;
        let posed = Skeleton::new(
            (0..skeleton.num_joints())
                .map(|j| Joint {
                    name: skeleton.name(j).to_owned(),
                    parent: skeleton.parent(j),
                    rest_local: local[j],
                })
                .collect(),
        )
        .unwrap();
        crate::retarget::tests::reshaped(&posed, scale, facing)
    }

    /// A humanoid unlike the mannequin: long thighs and short shins, wide hips, long feet,
    /// a long trunk, at 0.7 times the size, facing +X, every bone along its own axes,
    /// arms resting in an A-pose and knees resting a little bent.
    fn other_rig() -> (Skeleton, HumanoidMap) {
        let proportions = Proportions {
            // Ankles 9 cm over the floor, the ball joint 3 cm.
            pelvis: Vec3::new(0.0, 0.06 + 0.50 + 0.36 + 0.09, 0.0),
            hip: Vec3::new(0.14, -0.06, 0.01),
            thigh_m: 0.50,
            calf_m: 0.36,
            ball: Vec3::new(0.0, -0.06, 0.17),
            spine: [
                Vec3::new(0.0, 0.12, -0.01),
                Vec3::new(0.0, 0.15, 0.0),
                Vec3::new(0.0, 0.16, 0.01),
            ],
            upperarm_m: 0.31,
            ..Proportions::mannequin()
        };
        let a_pose = std::f32::consts::FRAC_PI_4;
        let turns = [
            ("upperarm_l", Quat::from_rotation_z(-a_pose)),
            ("upperarm_r", Quat::from_rotation_z(a_pose)),
            ("thigh_l", Quat::from_rotation_x(-0.08)),
            ("thigh_r", Quat::from_rotation_x(-0.08)),
            ("calf_l", Quat::from_rotation_x(0.16)),
            ("calf_r", Quat::from_rotation_x(0.16)),
            ("foot_l", Quat::from_rotation_x(-0.08)),
            ("foot_r", Quat::from_rotation_x(-0.08)),
        ];
        let skeleton = reshaped(
            &skeleton_with(&proportions),
            &turns,
            0.7,
            Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
        );
        let map = HumanoidMap::detect(&skeleton);
        (skeleton, map)
    }

    /// The mannequin measured is the mannequin: its proportions, its skeleton, and the
    /// clips generated on it are the built-in ones, exactly.
    #[test]
    fn the_mannequin_is_one_rig_among_others() {
        let m = Mannequin::new();
        let measured = Proportions::measure(&m.skeleton, &m.bones).unwrap();
        let built = skeleton_with(&measured);
        for j in 0..m.skeleton.num_joints() {
            let (a, b) = (m.skeleton.rest_local()[j], built.rest_local()[j]);
            assert_eq!(m.skeleton.name(j), built.name(j));
            assert!(
                a.translation.abs_diff_eq(b.translation, 1e-5),
                "{}: {} measured, {} built in",
                m.skeleton.name(j),
                b.translation,
                a.translation
            );
        }
        let generated = generate_clips(&m.skeleton, &m.bones).unwrap();
        assert_eq!(generated.scale, 1.0);
        assert_eq!(generated.clips.len(), m.clips.len());
        for (a, b) in generated.clips.iter().zip(&m.clips) {
            assert_eq!(a, b, "{}", a.name());
        }
        assert_eq!(generated.rig_joint_name("spine_02"), Some("spine_02"));
    }

    /// On a rig of other proportions, bone axes, rest posture, size and facing, the
    /// generated set has every clip of the mannequin's, and its gait clips meet the
    /// mannequin's targets (planted drift ≤ 2 mm mean and 5 mm worst, ground skid ≤ 1 cm,
    /// one stance per foot per cycle, contact curves and footsteps) at speeds scaled by
    /// the leg length.
    #[test]
    fn gait_clips_generated_on_another_rig_plant_their_feet() {
        let (skeleton, map) = other_rig();
        let generated = generate_clips(&skeleton, &map).unwrap();
        let names: Vec<&str> = generated.clips.iter().map(|c| c.name()).collect();
        assert_eq!(names, clip_names());
        let leg_scale = 0.7 * (0.50 + 0.36) / Proportions::mannequin().leg_m();
        assert!(
            (generated.scale - leg_scale).abs() < 1e-3,
            "{} vs {leg_scale}",
            generated.scale
        );
        let m = Mannequin::new();
        let config = GaitAnalysisConfig::default();
        let mut gaits = 0;
        for (clip, built_in) in generated.clips.iter().zip(&m.clips) {
            let Some(speed) = built_in.authored_speed_m_s().filter(|&s| s > 0.0) else {
                continue;
            };
            gaits += 1;
            let name = clip.name();
            let report = analyze_gait(&skeleton, &map, clip, &config).unwrap();
            assert!(report.planted_drift_mean_mm() <= 2.0, "{name}: {report:?}");
            assert!(report.planted_drift_max_mm() <= 5.0, "{name}: {report:?}");
            assert!(report.ground_skid_max_cm() <= 1.0, "{name}: {report:?}");
            assert_eq!(report.footsteps_per_cycle, 2, "{name}");
            for foot in &report.feet {
                assert!(foot.from_contact_curve, "{name}");
                assert_eq!(foot.stances.len(), 1, "{name}: {foot:?}");
            }
            let generated_speed = clip.authored_speed_m_s().unwrap();
            assert!(
                (generated_speed - speed * generated.scale).abs() < 1e-3,
                "{name}: {generated_speed} m/s"
            );
        }
        assert_eq!(gaits, 27);
        // The aim layer's mask names the rig's joints, and the graph compiles on it.
        let def = generated.default_graph_def().unwrap();
        assert!(def.layers.iter().all(|l| !l.mask.is_empty()));
        generated.default_graph(&skeleton).unwrap();
    }

    /// Without the retarget's leg fix the same rig's resting bent knees slide its planted
    /// feet: what the fix is for.
    #[test]
    fn a_rig_resting_with_bent_knees_needs_the_leg_rest_fix() {
        let (skeleton, map) = other_rig();
        let map = driving_map(&skeleton, &map);
        let proportions = Proportions::measure(&skeleton, &map).unwrap();
        let proxy = skeleton_with(&proportions);
        let proxy_map = HumanoidMap::detect(&proxy);
        let clips = super::super::clips::author_all(&proxy, &proxy_map).unwrap();
        let walk = &clips[1].clip;
        assert_eq!(walk.name(), "Walk_F");
        let config = GaitAnalysisConfig::default();
        let [fixed, plain] = [true, false].map(|leg_fix| {
            let retarget = proxy_to_rig(&proxy, &proxy_map, &skeleton, &map, leg_fix).unwrap();
            let on_rig = retarget.clip(walk, GENERATED_SAMPLE_HZ).unwrap();
            analyze_gait(&skeleton, &map, &on_rig, &config).unwrap()
        });
        assert!(fixed.planted_drift_max_mm() <= 5.0, "{fixed:?}");
        assert!(fixed.ground_skid_max_cm() <= 1.0, "{fixed:?}");
        assert!(plain.planted_drift_max_mm() > 5.0, "{plain:?}");
    }

    /// Arms, spine, neck and head are optional: without them in the map the proxy takes
    /// the mannequin's, and the legs still plant.
    #[test]
    fn a_rig_mapped_without_arms_or_spine_still_gets_its_set() {
        let (skeleton, map) = other_rig();
        let mut legs_only = map.clone();
        legs_only.arms = Default::default();
        legs_only.spine.clear();
        legs_only.neck = None;
        legs_only.head = None;
        let generated = generate_clips(&skeleton, &legs_only).unwrap();
        assert_eq!(generated.clips.len(), 40);
        let walk = &generated.clips[1];
        assert_eq!(walk.name(), "Walk_F");
        let report =
            analyze_gait(&skeleton, &legs_only, walk, &GaitAnalysisConfig::default()).unwrap();
        assert!(report.planted_drift_max_mm() <= 5.0, "{report:?}");
        assert!(report.ground_skid_max_cm() <= 1.0, "{report:?}");
    }

    /// What the generator cannot work without is an error that names it.
    #[test]
    fn a_rig_without_pelvis_legs_or_sockets_is_refused_by_name() {
        let (skeleton, map) = other_rig();
        let mut no_pelvis = map.clone();
        no_pelvis.pelvis = None;
        assert!(generate_clips(&skeleton, &no_pelvis).is_err());
        let mut no_sockets = map.clone();
        no_sockets.feet[1] = None;
        assert_eq!(
            generate_clips(&skeleton, &no_sockets).unwrap_err(),
            GenerateError::NoFootSockets("right")
        );
        let mut no_leg = map.clone();
        no_leg.legs[0].calf = None;
        let error = generate_clips(&skeleton, &no_leg).unwrap_err();
        assert!(error.to_string().contains("leg"), "{error}");
    }
}
