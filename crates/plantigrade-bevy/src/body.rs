//! The built-in mannequin's body as a procedural skinned mesh: plain data (positions,
//! normals, joint indices and weights, triangles), made from the skeleton's rest pose.
//! Pure math with no renderer, so it is tested without a GPU; the `render` feature turns it
//! into a Bevy `Mesh` (see `render::body`).
//!
//! Each limb is a tube through a few control points (a ring with two radii and joint
//! weights each), capped with half-ellipsoids. Rings between control points interpolate the
//! radii and the weights, so a knee ring is half thigh, half calf and the knee bends
//! smoothly instead of breaking at a seam. The head is one ring whose caps make an
//! ellipsoid.

use glam::{Affine3A, Vec3};
use plantigrade::skeleton::Skeleton;

/// Vertices around every ring.
const RING_SEGMENTS: usize = 16;
/// Longest distance between two rings along a tube (m): dense enough to bend smoothly.
const RING_SPACING_M: f32 = 0.035;
/// Rings in each end cap (the tip is one more vertex).
const CAP_RINGS: usize = 5;
/// Joint influences per vertex (what Bevy's skinning reads).
pub const MAX_INFLUENCES: usize = 4;

/// A skinned triangle mesh in the skeleton's model space (rest pose), indexed by
/// skeleton joint.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BodyMesh {
    pub positions: Vec<[f32; 3]>,
    /// Unit normals (area-weighted over the faces around each vertex).
    pub normals: Vec<[f32; 3]>,
    /// Skeleton joint indices of each vertex's influences (unused slots weigh 0).
    pub joint_indices: Vec<[u16; MAX_INFLUENCES]>,
    /// Each vertex's influence weights; they sum to 1.
    pub joint_weights: Vec<[f32; MAX_INFLUENCES]>,
    /// Triangles, counter-clockwise seen from outside.
    pub indices: Vec<u32>,
}

impl BodyMesh {
    /// The mannequin's body for `skeleton`, found by the built-in mannequin's joint names
    /// (`pelvis`, `spine_01`…, `thigh_l`…). A part whose joints are missing is left out;
    /// `None` when no part could be made (not a mannequin-like skeleton).
    pub fn mannequin(skeleton: &Skeleton) -> Option<Self> {
        let rest = skeleton.rest_model();
        let rig = Rig { skeleton, rest };
        let mut mesh = Self::default();
        let mut parts: Vec<Option<Part>> = vec![rig.torso(), rig.neck(), rig.head(), rig.nose()];
        for side in [Side::Left, Side::Right] {
            parts.extend([
                rig.leg(side),
                rig.foot(side),
                rig.arm(side),
                rig.hand(side),
                rig.thumb(side),
            ]);
        }
        for part in parts.into_iter().flatten() {
            mesh.add_tube(&part);
        }
        if mesh.indices.is_empty() {
            return None;
        }
        mesh.compute_normals();
        Some(mesh)
    }

    /// The inverse of each joint's rest transform in model space (Bevy's inverse bind
    /// poses), indexed like the skeleton.
    pub fn inverse_bind_poses(skeleton: &Skeleton) -> Vec<Affine3A> {
        skeleton.rest_model().iter().map(|m| m.inverse()).collect()
    }

    /// Appends one capped tube.
    fn add_tube(&mut self, part: &Part) {
        let (rings, tips) = part.rings();
        let (Some(first), Some(last)) = (rings.first(), rings.last()) else {
            return;
        };
        let (first_weights, last_weights) = (first.weights.clone(), last.weights.clone());
        let base = self.positions.len() as u32;
        let n = RING_SEGMENTS as u32;
        // Start tip, rings, end tip.
        self.push_vertex(tips[0], &first_weights);
        for ring in &rings {
            for k in 0..RING_SEGMENTS {
                let angle = k as f32 / RING_SEGMENTS as f32 * std::f32::consts::TAU;
                let offset =
                    ring.side * (angle.cos() * ring.r_side) + ring.up * (angle.sin() * ring.r_up);
                self.push_vertex(ring.center + offset, &ring.weights);
            }
        }
        self.push_vertex(tips[1], &last_weights);
        let ring_start = |i: usize| base + 1 + i as u32 * n;
        let tip_start = base;
        let tip_end = ring_start(rings.len());
        for k in 0..n {
            let k1 = (k + 1) % n;
            // With up = tangent × side, going round the ring (k → k+1) and then along the
            // tangent turns counter-clockwise seen from outside.
            self.indices
                .extend([tip_start, ring_start(0) + k1, ring_start(0) + k]);
            for i in 0..rings.len() - 1 {
                let (a, b) = (ring_start(i), ring_start(i + 1));
                self.indices
                    .extend([a + k, a + k1, b + k, a + k1, b + k1, b + k]);
            }
            let a = ring_start(rings.len() - 1);
            self.indices.extend([a + k, a + k1, tip_end]);
        }
    }

    fn push_vertex(&mut self, position: Vec3, weights: &Weights) {
        self.positions.push(position.to_array());
        self.normals.push([0.0, 1.0, 0.0]);
        let (indices, weights) = weights.top();
        self.joint_indices.push(indices);
        self.joint_weights.push(weights);
    }

    /// Smooth normals: the sum of the (area-weighted) normals of the faces around a vertex.
    fn compute_normals(&mut self) {
        let mut sums = vec![Vec3::ZERO; self.positions.len()];
        for tri in self.indices.chunks_exact(3) {
            let [a, b, c] =
                [tri[0], tri[1], tri[2]].map(|i| Vec3::from(self.positions[i as usize]));
            let n = (b - a).cross(c - a);
            for &i in tri {
                sums[i as usize] += n;
            }
        }
        for (normal, sum) in self.normals.iter_mut().zip(sums) {
            *normal = sum.try_normalize().unwrap_or(Vec3::Y).to_array();
        }
    }
}

/// Joint weights of a control point or ring (not yet normalised).
#[derive(Debug, Clone, Default, PartialEq)]
struct Weights(Vec<(u16, f32)>);

impl Weights {
    fn of(pairs: &[(usize, f32)]) -> Self {
        let mut w = Self::default();
        for &(joint, weight) in pairs {
            w.add(joint as u16, weight);
        }
        w
    }

    fn add(&mut self, joint: u16, weight: f32) {
        if weight <= 0.0 {
            return;
        }
        match self.0.iter_mut().find(|(j, _)| *j == joint) {
            Some((_, w)) => *w += weight,
            None => self.0.push((joint, weight)),
        }
    }

    /// `self·(1-t) + other·t`.
    fn lerp(&self, other: &Self, t: f32) -> Self {
        let mut w = Self::default();
        for &(j, x) in &self.0 {
            w.add(j, x * (1.0 - t));
        }
        for &(j, x) in &other.0 {
            w.add(j, x * t);
        }
        w
    }

    /// The heaviest [`MAX_INFLUENCES`] influences, normalised to sum to 1.
    fn top(&self) -> ([u16; MAX_INFLUENCES], [f32; MAX_INFLUENCES]) {
        let mut sorted = self.0.clone();
        sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
        sorted.truncate(MAX_INFLUENCES);
        let total: f32 = sorted.iter().map(|p| p.1).sum();
        let mut indices = [0; MAX_INFLUENCES];
        let mut weights = [0.0; MAX_INFLUENCES];
        if total > 0.0 {
            for (slot, (j, w)) in sorted.into_iter().enumerate() {
                indices[slot] = j;
                weights[slot] = w / total;
            }
        } else {
            weights[0] = 1.0; // every part names its joints; this is only a fallback
        }
        (indices, weights)
    }
}

/// One control point of a tube: where (model space), its two cross-section radii (along
/// the part's side axis and across it) and its joint weights.
#[derive(Debug, Clone)]
struct Ctrl {
    at: Vec3,
    r_side: f32,
    r_up: f32,
    weights: Weights,
}

/// A capped tube through control points.
#[derive(Debug, Clone)]
struct Part {
    ctrl: Vec<Ctrl>,
    /// The direction the cross-section's first radius lies along (projected off the tube).
    side_ref: Vec3,
    /// For a one-point part (a sphere or ellipsoid): its axis.
    axis: Vec3,
    /// How far the caps reach past the first and last ring (m).
    cap_start_m: f32,
    cap_end_m: f32,
}

/// A ring of the tube, resolved.
#[derive(Debug, Clone)]
struct Ring {
    center: Vec3,
    side: Vec3,
    up: Vec3,
    r_side: f32,
    r_up: f32,
    weights: Weights,
}

impl Part {
    /// Every ring (the start cap's growing rings, rings every [`RING_SPACING_M`] between
    /// control points, the end cap's shrinking rings) and the two tips.
    fn rings(&self) -> (Vec<Ring>, [Vec3; 2]) {
        let tangent_of_segment = |i: usize| {
            (self.ctrl[i + 1].at - self.ctrl[i].at)
                .try_normalize()
                .unwrap_or(self.axis)
        };
        let segments = self.ctrl.len().saturating_sub(1);
        // A control point's tangent: its segment's, averaged at inner points.
        let tangent_at = |i: usize| {
            if segments == 0 {
                return self.axis;
            }
            let before = (i > 0).then(|| tangent_of_segment(i - 1));
            let after = (i < segments).then(|| tangent_of_segment(i));
            match (before, after) {
                (Some(a), Some(b)) => (a + b).try_normalize().unwrap_or(b),
                (Some(t), None) | (None, Some(t)) => t,
                (None, None) => self.axis,
            }
        };
        let mut spine: Vec<(Vec3, Vec3, f32, f32, Weights)> = Vec::new();
        for i in 0..segments {
            let (a, b) = (&self.ctrl[i], &self.ctrl[i + 1]);
            let steps = ((b.at - a.at).length() / RING_SPACING_M).ceil().max(1.0) as usize;
            let (ta, tb) = (tangent_at(i), tangent_at(i + 1));
            for s in 0..steps {
                let t = s as f32 / steps as f32;
                spine.push((
                    a.at.lerp(b.at, t),
                    ta.lerp(tb, t).try_normalize().unwrap_or(ta),
                    a.r_side + (b.r_side - a.r_side) * t,
                    a.r_up + (b.r_up - a.r_up) * t,
                    a.weights.lerp(&b.weights, t),
                ));
            }
        }
        if let Some(last) = self.ctrl.last() {
            let t = tangent_at(segments);
            spine.push((last.at, t, last.r_side, last.r_up, last.weights.clone()));
        }
        let ring = |(center, tangent, r_side, r_up, weights): (Vec3, Vec3, f32, f32, Weights)| {
            let side = (self.side_ref - tangent * self.side_ref.dot(tangent))
                .try_normalize()
                .unwrap_or_else(|| tangent.any_orthonormal_vector());
            Ring {
                center,
                side,
                up: tangent.cross(side),
                r_side,
                r_up,
                weights,
            }
        };
        let mut rings: Vec<Ring> = Vec::with_capacity(spine.len() + 2 * CAP_RINGS);
        let mut tips = [Vec3::ZERO; 2];
        // Half-ellipsoid caps: rings at angles 90°·j/(CAP_RINGS+1) off the end ring.
        let cap = |end: &(Vec3, Vec3, f32, f32, Weights), reach: f32, sign: f32, j: usize| {
            let phi = std::f32::consts::FRAC_PI_2 * j as f32 / (CAP_RINGS + 1) as f32;
            let (center, tangent, r_side, r_up, weights) = end.clone();
            (
                center + tangent * (sign * reach * phi.sin()),
                tangent,
                r_side * phi.cos(),
                r_up * phi.cos(),
                weights,
            )
        };
        if let Some(first) = spine.first() {
            tips[0] = first.0 - first.1 * self.cap_start_m;
            for j in (1..=CAP_RINGS).rev() {
                rings.push(ring(cap(first, self.cap_start_m, -1.0, j)));
            }
        }
        let last = spine.last().cloned();
        rings.extend(spine.into_iter().map(ring));
        if let Some(last) = last {
            tips[1] = last.0 + last.1 * self.cap_end_m;
            for j in 1..=CAP_RINGS {
                rings.push(ring(cap(&last, self.cap_end_m, 1.0, j)));
            }
        }
        (rings, tips)
    }
}

#[derive(Debug, Clone, Copy)]
enum Side {
    Left,
    Right,
}

impl Side {
    fn suffix(self) -> &'static str {
        match self {
            Side::Left => "_l",
            Side::Right => "_r",
        }
    }

    /// The mannequin's model space has +X on its left.
    fn mirror(self) -> f32 {
        match self {
            Side::Left => 1.0,
            Side::Right => -1.0,
        }
    }
}

/// The skeleton's joints by name and their rest positions (model space: +X left, +Y up,
/// +Z forward). Sizes below are the mannequin's, in metres.
struct Rig<'a> {
    skeleton: &'a Skeleton,
    rest: Vec<Affine3A>,
}

impl Rig<'_> {
    fn joint(&self, name: &str) -> Option<usize> {
        self.skeleton.find(name)
    }

    fn limb(&self, name: &str, side: Side) -> Option<usize> {
        self.joint(&format!("{name}{}", side.suffix()))
    }

    fn pos(&self, joint: usize) -> Vec3 {
        self.rest[joint].translation.into()
    }

    fn ctrl(at: Vec3, r_side: f32, r_up: f32, weights: &[(usize, f32)]) -> Ctrl {
        Ctrl {
            at,
            r_side,
            r_up,
            weights: Weights::of(weights),
        }
    }

    /// Pelvis to shoulders: wide across (X), shallower front to back.
    fn torso(&self) -> Option<Part> {
        let pelvis = self.joint("pelvis")?;
        let s1 = self.joint("spine_01")?;
        let s2 = self.joint("spine_02")?;
        let s3 = self.joint("spine_03")?;
        let neck = self.joint("neck_01")?;
        let p = |j| self.pos(j);
        let up = Vec3::Y;
        Some(Part {
            ctrl: vec![
                // As wide as the thighs' outsides, so their tops stay inside.
                Self::ctrl(p(pelvis) - up * 0.09, 0.165, 0.10, &[(pelvis, 1.0)]),
                Self::ctrl(p(pelvis), 0.18, 0.11, &[(pelvis, 1.0)]),
                Self::ctrl(p(s1), 0.15, 0.10, &[(pelvis, 0.5), (s1, 0.5)]),
                Self::ctrl(p(s2), 0.155, 0.105, &[(s1, 0.5), (s2, 0.5)]),
                Self::ctrl(p(s3), 0.17, 0.115, &[(s2, 0.5), (s3, 0.5)]),
                Self::ctrl(p(s3).lerp(p(neck), 0.6), 0.175, 0.105, &[(s3, 1.0)]),
                Self::ctrl(p(neck) - up * 0.01, 0.12, 0.08, &[(s3, 1.0)]),
            ],
            side_ref: Vec3::X,
            axis: Vec3::Y,
            cap_start_m: 0.07,
            cap_end_m: 0.035,
        })
    }

    fn neck(&self) -> Option<Part> {
        let s3 = self.joint("spine_03")?;
        let neck = self.joint("neck_01")?;
        let head = self.joint("head")?;
        Some(Part {
            ctrl: vec![
                Self::ctrl(
                    self.pos(neck) - Vec3::Y * 0.03,
                    0.055,
                    0.055,
                    &[(s3, 0.5), (neck, 0.5)],
                ),
                Self::ctrl(self.pos(neck), 0.05, 0.05, &[(neck, 1.0)]),
                Self::ctrl(self.pos(head), 0.048, 0.048, &[(neck, 0.5), (head, 0.5)]),
            ],
            side_ref: Vec3::X,
            axis: Vec3::Y,
            cap_start_m: 0.02,
            cap_end_m: 0.02,
        })
    }

    /// An ellipsoid above the head joint.
    fn head(&self) -> Option<Part> {
        let head = self.joint("head")?;
        Some(Part {
            ctrl: vec![Self::ctrl(
                self.pos(head) + Vec3::new(0.0, 0.10, 0.01),
                0.085,
                0.10,
                &[(head, 1.0)],
            )],
            side_ref: Vec3::X,
            axis: Vec3::Y,
            cap_start_m: 0.115,
            cap_end_m: 0.115,
        })
    }

    /// A small bump on the face so the facing reads at a glance.
    fn nose(&self) -> Option<Part> {
        let head = self.joint("head")?;
        Some(Part {
            ctrl: vec![Self::ctrl(
                self.pos(head) + Vec3::new(0.0, 0.085, 0.105),
                0.018,
                0.018,
                &[(head, 1.0)],
            )],
            side_ref: Vec3::X,
            axis: Vec3::Z,
            cap_start_m: 0.02,
            cap_end_m: 0.03,
        })
    }

    /// Hip to ankle; the knee ring is half thigh, half calf.
    fn leg(&self, side: Side) -> Option<Part> {
        let pelvis = self.joint("pelvis")?;
        let thigh = self.limb("thigh", side)?;
        let calf = self.limb("calf", side)?;
        let foot = self.limb("foot", side)?;
        let (t, c, f) = (self.pos(thigh), self.pos(calf), self.pos(foot));
        Some(Part {
            ctrl: vec![
                Self::ctrl(
                    t + Vec3::Y * 0.05,
                    0.085,
                    0.09,
                    &[(thigh, 0.6), (pelvis, 0.4)],
                ),
                Self::ctrl(t, 0.088, 0.092, &[(thigh, 1.0)]),
                Self::ctrl(t.lerp(c, 0.5), 0.075, 0.08, &[(thigh, 1.0)]),
                Self::ctrl(t.lerp(c, 0.85), 0.058, 0.062, &[(thigh, 1.0)]),
                Self::ctrl(c, 0.055, 0.06, &[(thigh, 0.5), (calf, 0.5)]),
                Self::ctrl(c.lerp(f, 0.15), 0.055, 0.062, &[(calf, 1.0)]),
                Self::ctrl(c.lerp(f, 0.35), 0.058, 0.068, &[(calf, 1.0)]),
                Self::ctrl(c.lerp(f, 0.8), 0.04, 0.045, &[(calf, 1.0)]),
                Self::ctrl(f, 0.037, 0.04, &[(calf, 0.5), (foot, 0.5)]),
            ],
            side_ref: Vec3::X,
            axis: -Vec3::Y,
            cap_start_m: 0.05,
            cap_end_m: 0.03,
        })
    }

    /// Heel to toe, flat underneath: the sole sits about at the ball joint's rest height
    /// below the ball (the mannequin's ball is 3 cm above the ground at rest).
    fn foot(&self, side: Side) -> Option<Part> {
        let foot = self.limb("foot", side)?;
        let ball = self.limb("ball", side)?;
        let (f, b) = (self.pos(foot), self.pos(ball));
        let fwd = Vec3::new(0.0, 0.0, (b - f).z.signum());
        Some(Part {
            ctrl: vec![
                Self::ctrl(
                    Vec3::new(f.x, b.y + 0.012, f.z) - fwd * 0.035,
                    0.036,
                    0.038,
                    &[(foot, 1.0)],
                ),
                Self::ctrl(
                    f.lerp(b, 0.5) - Vec3::Y * 0.02,
                    0.044,
                    0.036,
                    &[(foot, 1.0)],
                ),
                Self::ctrl(b, 0.047, 0.027, &[(foot, 0.5), (ball, 0.5)]),
                Self::ctrl(
                    b + fwd * 0.055 - Vec3::Y * 0.006,
                    0.04,
                    0.019,
                    &[(ball, 1.0)],
                ),
            ],
            side_ref: Vec3::X,
            axis: Vec3::Z,
            cap_start_m: 0.035,
            cap_end_m: 0.025,
        })
    }

    /// Shoulder to wrist; the elbow ring is half upper arm, half forearm.
    fn arm(&self, side: Side) -> Option<Part> {
        let clavicle = self.limb("clavicle", side)?;
        let upper = self.limb("upperarm", side)?;
        let lower = self.limb("lowerarm", side)?;
        let hand = self.limb("hand", side)?;
        let (u, l, h) = (self.pos(upper), self.pos(lower), self.pos(hand));
        let inward = Vec3::X * (-0.02 * side.mirror());
        Some(Part {
            ctrl: vec![
                Self::ctrl(u + inward, 0.06, 0.06, &[(upper, 0.7), (clavicle, 0.3)]),
                Self::ctrl(u.lerp(l, 0.5), 0.05, 0.05, &[(upper, 1.0)]),
                Self::ctrl(u.lerp(l, 0.85), 0.043, 0.042, &[(upper, 1.0)]),
                Self::ctrl(l, 0.041, 0.04, &[(upper, 0.5), (lower, 0.5)]),
                Self::ctrl(l.lerp(h, 0.25), 0.043, 0.04, &[(lower, 1.0)]),
                Self::ctrl(h, 0.03, 0.024, &[(lower, 0.5), (hand, 0.5)]),
            ],
            side_ref: Vec3::Z,
            axis: Vec3::X * side.mirror(),
            cap_start_m: 0.055,
            cap_end_m: 0.02,
        })
    }

    /// A mitten: flat across the palm, out past the middle finger's base.
    fn hand(&self, side: Side) -> Option<Part> {
        let hand = self.limb("hand", side)?;
        let middle = self.limb("middle_01", side).unwrap_or(hand);
        let h = self.pos(hand);
        let m = if middle == hand {
            h + Vec3::X * (0.095 * side.mirror())
        } else {
            self.pos(middle)
        };
        let out = (m - h).try_normalize().unwrap_or(Vec3::X * side.mirror());
        Some(Part {
            ctrl: vec![
                Self::ctrl(h + out * 0.015, 0.038, 0.021, &[(hand, 1.0)]),
                Self::ctrl(m, 0.045, 0.019, &[(hand, 1.0)]),
                Self::ctrl(m + out * 0.07, 0.037, 0.013, &[(hand, 1.0)]),
            ],
            side_ref: Vec3::Z,
            axis: out,
            cap_start_m: 0.015,
            cap_end_m: 0.018,
        })
    }

    fn thumb(&self, side: Side) -> Option<Part> {
        let hand = self.limb("hand", side)?;
        let thumb = self.limb("thumb_01", side)?;
        let (h, t) = (self.pos(hand), self.pos(thumb));
        let dir = (t - h).try_normalize()?;
        Some(Part {
            ctrl: vec![
                Self::ctrl(h + dir * 0.015, 0.016, 0.016, &[(hand, 1.0)]),
                Self::ctrl(t + dir * 0.035, 0.012, 0.012, &[(hand, 1.0)]),
            ],
            side_ref: Vec3::Y,
            axis: dir,
            cap_start_m: 0.012,
            cap_end_m: 0.012,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plantigrade::mannequin::Mannequin;

    fn mannequin_skeleton() -> Skeleton {
        let graph = Mannequin::new().default_graph().expect("the default graph");
        graph.skeleton().clone()
    }

    #[test]
    fn the_mannequin_body_is_a_closed_well_weighted_mesh() {
        let skeleton = mannequin_skeleton();
        let mesh = BodyMesh::mannequin(&skeleton).expect("a body");
        let n = mesh.positions.len();
        assert!(n > 1000, "{n} vertices");
        assert_eq!(mesh.normals.len(), n);
        assert_eq!(mesh.joint_indices.len(), n);
        assert_eq!(mesh.joint_weights.len(), n);
        assert_eq!(mesh.indices.len() % 3, 0);
        assert!(mesh.indices.iter().all(|&i| (i as usize) < n));
        for (v, normal) in mesh.positions.iter().zip(&mesh.normals) {
            assert!(v.iter().chain(normal).all(|x| x.is_finite()));
            assert!((Vec3::from(*normal).length() - 1.0).abs() < 1e-4);
        }
        for (joints, weights) in mesh.joint_indices.iter().zip(&mesh.joint_weights) {
            let sum: f32 = weights.iter().sum();
            assert!((sum - 1.0).abs() < 1e-5, "weights sum to {sum}");
            assert!(weights.iter().all(|w| (0.0..=1.0).contains(w)));
            assert!(joints.iter().all(|&j| (j as usize) < skeleton.num_joints()));
        }
        // Every triangle faces outwards: the mesh encloses a positive volume, and it is
        // about a person's (60-90 litres).
        let volume: f32 = mesh
            .indices
            .chunks_exact(3)
            .map(|t| {
                let [a, b, c] = [t[0], t[1], t[2]].map(|i| Vec3::from(mesh.positions[i as usize]));
                a.dot(b.cross(c)) / 6.0
            })
            .sum();
        assert!((0.04..0.12).contains(&volume), "volume {volume} m³");
    }

    #[test]
    fn the_body_stands_on_the_ground_and_is_as_tall_as_the_mannequin() {
        let mesh = BodyMesh::mannequin(&mannequin_skeleton()).expect("a body");
        let (min_y, max_y) = mesh
            .positions
            .iter()
            .fold((f32::MAX, f32::MIN), |(lo, hi), p| {
                (lo.min(p[1]), hi.max(p[1]))
            });
        assert!(min_y.abs() < 0.02, "sole at {min_y}");
        assert!((1.7..1.9).contains(&max_y), "top of head at {max_y}");
    }

    #[test]
    fn knees_blend_thigh_and_calf() {
        let skeleton = mannequin_skeleton();
        let mesh = BodyMesh::mannequin(&skeleton).expect("a body");
        let thigh = skeleton.find("thigh_l").unwrap() as u16;
        let calf = skeleton.find("calf_l").unwrap() as u16;
        let both = mesh
            .joint_indices
            .iter()
            .zip(&mesh.joint_weights)
            .filter(|(j, w)| {
                let of = |joint| {
                    (0..MAX_INFLUENCES)
                        .filter(|&s| j[s] == joint)
                        .map(|s| w[s])
                        .sum::<f32>()
                };
                of(thigh) > 0.2 && of(calf) > 0.2
            });
        assert!(both.count() >= RING_SEGMENTS);
    }

    #[test]
    fn a_skeleton_without_mannequin_joints_has_no_body() {
        use plantigrade::skeleton::{Joint, Transform};
        let skeleton = Skeleton::new(vec![Joint {
            name: "Bone".into(),
            parent: None,
            rest_local: Transform::from_translation(Vec3::ZERO),
        }])
        .unwrap();
        assert_eq!(BodyMesh::mannequin(&skeleton), None);
        assert_eq!(BodyMesh::inverse_bind_poses(&skeleton).len(), 1);
    }
}
